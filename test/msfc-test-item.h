/*
 * A queue disc item with a chosen size, DSCP, flow hash and ECN capability,
 * for driving queue discs (MSFC, SFQ, the FQ-CoDel variant) directly in unit
 * tests and trace replays.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef MSFC_TEST_ITEM_H
#define MSFC_TEST_ITEM_H

#include "ns3/packet.h"
#include "ns3/queue-item.h"

namespace ns3
{

/**
 * Test item: a flow key as hash (the perturbation is ignored unless asked, see
 * SetHashPerturbed), DSCP, ECT flag and a tag to read back.
 */
class MsfcTestItem : public QueueDiscItem
{
  public:
    /**
     * @param size bytes the queue disc sees
     * @param hash value returned by Hash()
     * @param dscp DSCP code point, or -1 for a non-IP packet
     * @param ect whether the packet is ECN capable
     * @param tag an arbitrary number the test can read back
     */
    MsfcTestItem(uint32_t size, uint32_t hash, int dscp, bool ect = false, uint32_t tag = 0)
        : QueueDiscItem(Create<Packet>(size), Address(), 0),
          m_hash(hash),
          m_dscp(dscp),
          m_ect(ect),
          m_tag(tag)
    {
    }

    /**
     * An item of flow `key` whose hash follows the perturbation (SetHashPerturbed):
     * for the stochastic queue discs (SFQ, FQ-CoDel) that rehash with a random
     * perturbation.  No DSCP, not ECN capable.
     * @param size bytes the queue disc sees
     * @param key flow key (the hash with perturbation 0)
     * @param tag an arbitrary number the test can read back
     * @return the item
     */
    static Ptr<MsfcTestItem> Flow(uint32_t size, uint32_t key, uint32_t tag = 0)
    {
        Ptr<MsfcTestItem> item = Create<MsfcTestItem>(size, key, -1, false, tag);
        item->SetHashPerturbed(true);
        return item;
    }

    void AddHeader() override
    {
    }

    bool Mark() override
    {
        if (m_ect)
        {
            m_marked = true;
        }
        return m_ect;
    }

    uint32_t Hash(uint32_t perturbation) const override
    {
        if (!m_hashPerturbed || perturbation == 0)
        {
            return m_hash;
        }
        // A keyed mix (murmur3 finaliser) so that different perturbations scatter keys.
        uint32_t h = m_hash ^ perturbation;
        h ^= h >> 16;
        h *= 0x85ebca6bU;
        h ^= h >> 13;
        h *= 0xc2b2ae35U;
        h ^= h >> 16;
        return h;
    }

    bool GetUint8Value(Uint8Values field, uint8_t& value) const override
    {
        if (field == IP_DSFIELD && m_dscp >= 0)
        {
            value = static_cast<uint8_t>(m_dscp << 2);
            return true;
        }
        return false;
    }

    /** @return whether CoDel marked the packet */
    bool IsMarked() const
    {
        return m_marked;
    }

    /** @return the flow key (the hash with perturbation 0) */
    uint32_t GetKey() const
    {
        return m_hash;
    }

    /** @return the test's tag */
    uint32_t GetTag() const
    {
        return m_tag;
    }

    /** Let the perturbation change the hash (key itself for perturbation 0). */
    void SetHashPerturbed(bool on)
    {
        m_hashPerturbed = on;
    }

  private:
    uint32_t m_hash;
    int m_dscp;
    bool m_ect;
    uint32_t m_tag;
    bool m_marked{false};
    bool m_hashPerturbed{false};
};

} // namespace ns3

#endif /* MSFC_TEST_ITEM_H */
