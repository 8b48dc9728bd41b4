/*
 * The internal queue through which SfqQueueDisc and FqCoDelVariantQueueDisc account for
 * their packets.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PACKET_LEDGER_QUEUE_H
#define PACKET_LEDGER_QUEUE_H

#include "ns3/queue-item.h"
#include "ns3/queue.h"

namespace ns3
{

/**
 * @ingroup traffic-control
 *
 * @brief An unlimited internal queue that holds every packet of a queue disc which keeps its
 * own per-flow FIFOs.
 *
 * ns-3 queue discs count packets (GetNPackets, statistics, traces) only through their
 * internal queues or child queue discs. A flow-queueing discipline that moves packets
 * between its flows (e.g. when SFQ rehashes) registers one PacketLedgerQueue with
 * AddInternalQueue, adds each accepted packet with Add() and removes it, from wherever it
 * is in the ledger, with Take() when it is sent or dropped. The ledger's order is
 * irrelevant; per-flow order is kept by the queue disc.
 */
class PacketLedgerQueue : public Queue<QueueDiscItem>
{
  public:
    /// Position of a packet in the ledger, valid until it is taken out.
    using Handle = Queue<QueueDiscItem>::ConstIterator;

    /// A packet held in a queue disc's own per-flow FIFO, with its place in the ledger.
    struct Entry
    {
        Ptr<QueueDiscItem> item; //!< the packet
        Handle handle;           //!< its ledger position
    };

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    PacketLedgerQueue();
    ~PacketLedgerQueue() override;

    /**
     * Record a packet (fires the Enqueue trace, so the queue disc counts it).
     * @param item the packet
     * @return its handle
     */
    Handle Add(Ptr<QueueDiscItem> item);

    /**
     * Remove a recorded packet (fires the Dequeue trace).
     * @param handle the handle returned by Add
     * @return the packet
     */
    Ptr<QueueDiscItem> Take(Handle handle);

    bool Enqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> Dequeue() override;
    Ptr<QueueDiscItem> Remove() override;
    Ptr<const QueueDiscItem> Peek() const override;
};

} // namespace ns3

#endif /* PACKET_LEDGER_QUEUE_H */
