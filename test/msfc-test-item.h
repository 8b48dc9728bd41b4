/*
 * A queue disc item with a chosen size, DSCP, flow hash and ECN capability,
 * for driving queue discs directly in unit tests and trace replays.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef MSFC_TEST_ITEM_H
#define MSFC_TEST_ITEM_H

#include "ns3/packet.h"
#include "ns3/queue-item.h"

namespace ns3
{

/** Test item: fixed hash (ignores the perturbation unless asked), DSCP, ECT flag. */
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
        return m_hashPerturbed ? m_hash ^ (perturbation * 2654435761U) : m_hash;
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

    /** @return the test's tag */
    uint32_t GetTag() const
    {
        return m_tag;
    }

    /** Let the perturbation change the hash. */
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
