/*
 * A queue disc item with a chosen size and flow hash, for driving the SFQ and
 * FQ-CoDel variant queue discs directly in unit tests.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SEEDS_TEST_ITEM_H
#define SEEDS_TEST_ITEM_H

#include "ns3/packet.h"
#include "ns3/queue-item.h"

namespace ns3
{

/** Test item: the hash is the flow key mixed with the perturbation; an id to read back. */
class SeedsTestItem : public QueueDiscItem
{
  public:
    /**
     * @param size bytes the queue disc sees
     * @param key flow key (the hash with perturbation 0)
     * @param id an arbitrary number the test can read back
     */
    SeedsTestItem(uint32_t size, uint32_t key, uint32_t id = 0)
        : QueueDiscItem(Create<Packet>(size), Address(), 0),
          m_key(key),
          m_id(id)
    {
    }

    void AddHeader() override
    {
    }

    bool Mark() override
    {
        return false;
    }

    uint32_t Hash(uint32_t perturbation) const override
    {
        if (perturbation == 0)
        {
            return m_key;
        }
        // A keyed mix (murmur3 finaliser) so that different perturbations scatter keys.
        uint32_t h = m_key ^ perturbation;
        h ^= h >> 16;
        h *= 0x85ebca6bU;
        h ^= h >> 13;
        h *= 0xc2b2ae35U;
        h ^= h >> 16;
        return h;
    }

    /// @return the flow key
    uint32_t GetKey() const
    {
        return m_key;
    }

    /// @return the id given at construction
    uint32_t GetId() const
    {
        return m_id;
    }

  private:
    uint32_t m_key;
    uint32_t m_id;
};

} // namespace ns3

#endif /* SEEDS_TEST_ITEM_H */
