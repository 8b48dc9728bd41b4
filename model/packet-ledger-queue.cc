/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "packet-ledger-queue.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PacketLedgerQueue");

NS_OBJECT_ENSURE_REGISTERED(PacketLedgerQueue);

TypeId
PacketLedgerQueue::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PacketLedgerQueue")
                            .SetParent<Queue<QueueDiscItem>>()
                            .SetGroupName("TrafficControl")
                            .AddConstructor<PacketLedgerQueue>();
    return tid;
}

PacketLedgerQueue::PacketLedgerQueue()
{
    // The queue disc enforces its limits; the ledger must never refuse a packet.
    SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, std::numeric_limits<uint32_t>::max()));
}

PacketLedgerQueue::~PacketLedgerQueue() = default;

PacketLedgerQueue::Handle
PacketLedgerQueue::Add(Ptr<QueueDiscItem> item)
{
    Iterator ret;
    bool ok = DoEnqueue(GetContainer().end(), item, ret);
    NS_ABORT_MSG_UNLESS(ok, "PacketLedgerQueue refused a packet");
    return ret;
}

Ptr<QueueDiscItem>
PacketLedgerQueue::Take(Handle handle)
{
    return DoDequeue(handle);
}

bool
PacketLedgerQueue::Enqueue(Ptr<QueueDiscItem> item)
{
    Add(item);
    return true;
}

Ptr<QueueDiscItem>
PacketLedgerQueue::Dequeue()
{
    NS_ABORT_MSG("PacketLedgerQueue::Dequeue: packets leave through their queue disc (Take)");
    return nullptr;
}

Ptr<QueueDiscItem>
PacketLedgerQueue::Remove()
{
    NS_ABORT_MSG("PacketLedgerQueue::Remove: packets leave through their queue disc (Take)");
    return nullptr;
}

Ptr<const QueueDiscItem>
PacketLedgerQueue::Peek() const
{
    return DoPeek(GetContainer().begin());
}

} // namespace ns3
