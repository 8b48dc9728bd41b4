/*
 * Stochastic Fairness Queueing (SFQ) for ns-3, behaving like Linux sch_sfq.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SFQ_QUEUE_DISC_H
#define SFQ_QUEUE_DISC_H

#include "flow-packet-store.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/queue-disc.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <list>
#include <vector>

namespace ns3
{

/**
 * @ingroup traffic-control
 *
 * @brief Stochastic Fairness Queueing, modelled on Linux `sch_sfq`.
 *
 * Packets are hashed (5-tuple, `QueueDiscItem::Hash(perturbation)`) into one of `Divisor`
 * buckets. A bucket that holds packets owns one of at most `Flows` slots; active slots are
 * served round robin, each with a byte allotment of `Quantum` per round (credit-based deficit
 * round robin as in Linux: a slot whose allotment is used up gets a new quantum and waits for
 * the next round). A packet for a bucket without a slot when all slots are taken is dropped.
 *
 * Limits: `Depth` packets per slot (a full slot drops the arriving packet, or with `HeadDrop`
 * its oldest packet), `MaxSize` packets in total (on overflow one packet is dropped from the
 * longest slot: its tail, or its head with `HeadDrop`).
 *
 * `PerturbPeriod` > 0 re-keys the hash periodically with a new random perturbation and
 * moves the queued packets into the buckets of the new hash (like `sfq_rehash`), keeping
 * each flow's packet order.
 */
class SfqQueueDisc : public QueueDisc
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    SfqQueueDisc();
    ~SfqQueueDisc() override;

    /// Drop reasons
    static constexpr const char* SLOTS_EXHAUSTED_DROP = "All flow slots in use";
    static constexpr const char* DEPTH_DROP = "Per-flow depth exceeded";
    static constexpr const char* OVERLIMIT_DROP = "Total limit exceeded (longest flow)";

    /**
     * @brief Bucket (hash value modulo Divisor) a packet maps to under the current perturbation.
     * @param item the packet
     * @return the bucket index
     */
    uint32_t Classify(Ptr<const QueueDiscItem> item) const;

    /// @return the current hash perturbation value
    uint32_t GetPerturbation() const;

    /**
     * @brief Re-key the hash with a new perturbation and rehash the queued packets.
     * Called periodically when PerturbPeriod > 0; public so that tests can trigger it.
     * @param perturbation the new perturbation value
     */
    void Perturb(uint32_t perturbation);

    /// @return the number of slots holding packets
    uint32_t GetNActiveFlows() const;

    /**
     * @param bucket a bucket index
     * @return the packets queued for that bucket (0 if it has no slot)
     */
    uint32_t GetBucketPackets(uint32_t bucket) const;

    /// @return the quantum in use (after resolving 0 to the device MTU)
    uint32_t GetQuantum() const;

    /**
     * Assign a fixed stream number to the random variables used.
     * @param stream first stream index
     * @return the number of streams assigned
     */
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    /// One flow slot: packets and round-robin allotment.
    struct Slot
    {
        FlowPacketStore::Fifo packets; //!< queued packets, oldest first (in m_store)
        int64_t allot{0};              //!< bytes it may still send this round
        uint32_t bucket{0};            //!< bucket this slot serves
        bool inUse{false};             //!< slot bound to a bucket
    };

    static constexpr uint32_t NO_SLOT = UINT32_MAX;

    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;

    /**
     * Put a packet into the slot of its bucket (allocating a slot if needed).
     * @param item the packet
     * @param bucket its bucket
     * @param queued the store record of a packet already queued and detached from its old
     *        slot (rehash), or FlowPacketStore::NONE for an arriving packet
     * @return the slot index, or NO_SLOT if the packet was dropped
     */
    uint32_t Insert(Ptr<QueueDiscItem> item, uint32_t bucket, uint32_t queued);

    /// Release a slot that became empty.
    void FreeSlot(uint32_t slot);

    /// Drop one packet from the longest slot. @return the slot dropped from
    uint32_t DropFromLongest();

    /// Timer handler of the periodic perturbation.
    void PerturbTimer();

    // Attributes
    uint32_t m_quantumAttr;  //!< Quantum attribute (0: device MTU)
    uint32_t m_divisor;      //!< hash buckets
    uint32_t m_maxFlows;     //!< flow slots
    uint32_t m_depth;        //!< packets per slot
    bool m_headDrop;         //!< drop from the head instead of the tail
    Time m_perturbPeriod;    //!< perturbation period (0: never)
    uint32_t m_perturbation; //!< current hash perturbation

    // State
    uint32_t m_quantum;                 //!< quantum in use
    std::vector<uint32_t> m_bucketSlot; //!< bucket -> slot index or NO_SLOT
    std::vector<Slot> m_slots;          //!< all slots
    std::vector<uint32_t> m_freeSlots;  //!< unused slot indices (stack)
    std::list<uint32_t> m_active;       //!< round-robin ring of active slots, head is next
    EventId m_perturbEvent;             //!< pending perturbation
    Ptr<UniformRandomVariable> m_rng;   //!< source of perturbation values
    Ptr<FlowPacketStore> m_store;       //!< the packets of every slot
};

} // namespace ns3

#endif /* SFQ_QUEUE_DISC_H */
