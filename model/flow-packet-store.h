/*
 * The one way the project's flow-queueing disciplines (MsfcQueueDisc, SfqQueueDisc,
 * FqCoDelVariantQueueDisc) store the packets of their flows.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_PACKET_STORE_H
#define FLOW_PACKET_STORE_H

#include "ns3/queue-item.h"
#include "ns3/queue.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * @ingroup traffic-control
 *
 * @brief Per-flow FIFOs of a queue disc, kept in one ns-3 internal queue.
 *
 * ns-3 queue discs count packets (GetNPackets, GetNBytes, statistics, the PacketsInQueue
 * and BytesInQueue traces) only through their internal queues or child queue discs. A
 * flow-queueing discipline registers one FlowPacketStore with AddInternalQueue and keeps,
 * per flow, a Fifo record of 24 bytes: a list threaded through the store's packet records
 * (no allocation for a flow that is idle or never used). PushBack() accepts a packet into a
 * flow (the store's Enqueue trace fires, so the queue disc counts it), with a byte of marks
 * the queue disc may keep per packet (MSFC: its auto bit); PopFront() and PopBack() hand a
 * packet back as it leaves the queue disc (Dequeue trace), with its marks. Packets can move
 * between flows without leaving the queue disc (DetachFront/AttachBack, used when SFQ
 * rehashes), and a detached packet can leave with Release().
 *
 * Enqueue, Dequeue and Remove of the Queue interface are not for use: packets enter and
 * leave through their flows.
 */
class FlowPacketStore : public Queue<QueueDiscItem>
{
  public:
    /// "No packet record".
    static constexpr uint32_t NONE = UINT32_MAX;

    /// The packets of one flow, oldest first.
    struct Fifo
    {
        uint64_t bytes{0};   //!< bytes queued (QueueDiscItem::GetSize)
        uint32_t head{NONE}; //!< oldest packet record
        uint32_t tail{NONE}; //!< newest packet record
        uint32_t packets{0}; //!< packets queued

        /** @return true when the flow holds no packet */
        bool IsEmpty() const
        {
            return packets == 0;
        }
    };

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    FlowPacketStore();
    ~FlowPacketStore() override;

    /**
     * Accept a packet into a flow, at its tail.
     * @param fifo the flow
     * @param item the packet
     * @param marks the queue disc's own marks of the packet, kept until it leaves
     */
    void PushBack(Fifo& fifo, Ptr<QueueDiscItem> item, uint8_t marks = 0);
    /**
     * Remove the oldest packet of a flow; it leaves the queue disc.
     * @param fifo the flow
     * @param marks when not null, set to the packet's marks (PushBack; 0 when none left)
     * @return the packet, or nullptr when the flow is empty
     */
    Ptr<QueueDiscItem> PopFront(Fifo& fifo, uint8_t* marks = nullptr);
    /**
     * Remove the newest packet of a flow; it leaves the queue disc.
     * @param fifo the flow
     * @return the packet, or nullptr when the flow is empty
     */
    Ptr<QueueDiscItem> PopBack(Fifo& fifo);
    /**
     * @param fifo the flow
     * @return its oldest packet, or nullptr
     */
    Ptr<const QueueDiscItem> Front(const Fifo& fifo) const;

    /**
     * Unlink the oldest packet of a flow, keeping it in the queue disc (to be attached to
     * another flow with AttachBack or to leave with Release).
     * @param fifo the flow
     * @return the packet's record, or NONE when the flow is empty
     */
    uint32_t DetachFront(Fifo& fifo);
    /**
     * Link a detached packet at the tail of a flow.
     * @param fifo the flow
     * @param record a record returned by DetachFront
     */
    void AttachBack(Fifo& fifo, uint32_t record);
    /**
     * A detached packet leaves the queue disc.
     * @param record a record returned by DetachFront
     * @return the packet
     */
    Ptr<QueueDiscItem> Release(uint32_t record);
    /**
     * @param record a packet record
     * @return its packet
     */
    Ptr<QueueDiscItem> GetItem(uint32_t record) const;

    bool Enqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> Dequeue() override;
    Ptr<QueueDiscItem> Remove() override;
    Ptr<const QueueDiscItem> Peek() const override;

  protected:
    void DoDispose() override;

  private:
    /// A queued packet: its place in the Queue container and its flow links.
    struct Record
    {
        Ptr<QueueDiscItem> item; //!< the packet
        ConstIterator pos;       //!< its position in the Queue container
        uint32_t prev{NONE};     //!< older packet of the same flow
        uint32_t next{NONE};     //!< newer packet of the same flow
        uint8_t marks{0};        //!< the queue disc's marks (PushBack)
    };

    /// Unlink a record from its flow.
    void Unlink(Fifo& fifo, uint32_t r);
    /// Remove a record's packet from the Queue container and free the record.
    Ptr<QueueDiscItem> Free(uint32_t r);

    std::vector<Record> m_records;  //!< packet records (pool)
    std::vector<uint32_t> m_unused; //!< free record indices
};

} // namespace ns3

#endif /* FLOW_PACKET_STORE_H */
