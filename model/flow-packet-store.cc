/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-packet-store.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowPacketStore");

NS_OBJECT_ENSURE_REGISTERED(FlowPacketStore);

TypeId
FlowPacketStore::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowPacketStore")
                            .SetParent<Queue<QueueDiscItem>>()
                            .SetGroupName("TrafficControl")
                            .AddConstructor<FlowPacketStore>();
    return tid;
}

FlowPacketStore::FlowPacketStore()
{
    // The queue disc enforces its limits; the store must never refuse a packet.
    SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, std::numeric_limits<uint32_t>::max()));
}

FlowPacketStore::~FlowPacketStore() = default;

void
FlowPacketStore::DoDispose()
{
    m_records.clear();
    m_unused.clear();
    Queue<QueueDiscItem>::DoDispose();
}

void
FlowPacketStore::PushBack(Fifo& fifo, Ptr<QueueDiscItem> item, uint8_t marks)
{
    Iterator pos;
    bool ok = DoEnqueue(GetContainer().end(), item, pos);
    NS_ABORT_MSG_UNLESS(ok, "FlowPacketStore refused a packet");
    uint32_t r;
    if (m_unused.empty())
    {
        NS_ABORT_MSG_IF(m_records.size() >= NONE, "FlowPacketStore: too many packets");
        r = static_cast<uint32_t>(m_records.size());
        m_records.push_back(Record{item, pos, NONE, NONE, marks});
    }
    else
    {
        r = m_unused.back();
        m_unused.pop_back();
        m_records[r] = Record{item, pos, NONE, NONE, marks};
    }
    AttachBack(fifo, r);
}

void
FlowPacketStore::AttachBack(Fifo& fifo, uint32_t r)
{
    Record& rec = m_records[r];
    rec.next = NONE;
    rec.prev = fifo.tail;
    if (fifo.tail == NONE)
    {
        fifo.head = r;
    }
    else
    {
        m_records[fifo.tail].next = r;
    }
    fifo.tail = r;
    fifo.packets++;
    fifo.bytes += rec.item->GetSize();
}

void
FlowPacketStore::Unlink(Fifo& fifo, uint32_t r)
{
    Record& rec = m_records[r];
    if (rec.prev == NONE)
    {
        fifo.head = rec.next;
    }
    else
    {
        m_records[rec.prev].next = rec.next;
    }
    if (rec.next == NONE)
    {
        fifo.tail = rec.prev;
    }
    else
    {
        m_records[rec.next].prev = rec.prev;
    }
    rec.prev = rec.next = NONE;
    fifo.packets--;
    fifo.bytes -= rec.item->GetSize();
}

Ptr<QueueDiscItem>
FlowPacketStore::Free(uint32_t r)
{
    Record& rec = m_records[r];
    Ptr<QueueDiscItem> item = DoDequeue(rec.pos);
    rec.item = nullptr;
    m_unused.push_back(r);
    return item;
}

uint32_t
FlowPacketStore::DetachFront(Fifo& fifo)
{
    uint32_t r = fifo.head;
    if (r != NONE)
    {
        Unlink(fifo, r);
    }
    return r;
}

Ptr<QueueDiscItem>
FlowPacketStore::Release(uint32_t r)
{
    return Free(r);
}

Ptr<QueueDiscItem>
FlowPacketStore::GetItem(uint32_t r) const
{
    return m_records[r].item;
}

Ptr<QueueDiscItem>
FlowPacketStore::PopFront(Fifo& fifo, uint8_t* marks)
{
    uint32_t r = fifo.head;
    if (r == NONE)
    {
        if (marks)
        {
            *marks = 0;
        }
        return nullptr;
    }
    if (marks)
    {
        *marks = m_records[r].marks;
    }
    Unlink(fifo, r);
    return Free(r);
}

Ptr<QueueDiscItem>
FlowPacketStore::PopBack(Fifo& fifo)
{
    uint32_t r = fifo.tail;
    if (r == NONE)
    {
        return nullptr;
    }
    Unlink(fifo, r);
    return Free(r);
}

Ptr<const QueueDiscItem>
FlowPacketStore::Front(const Fifo& fifo) const
{
    return fifo.head == NONE ? nullptr : Ptr<const QueueDiscItem>(m_records[fifo.head].item);
}

bool
FlowPacketStore::Enqueue(Ptr<QueueDiscItem> item)
{
    NS_ABORT_MSG("FlowPacketStore::Enqueue: packets enter through a flow (PushBack)");
    return false;
}

Ptr<QueueDiscItem>
FlowPacketStore::Dequeue()
{
    NS_ABORT_MSG("FlowPacketStore::Dequeue: packets leave through their flow (PopFront)");
    return nullptr;
}

Ptr<QueueDiscItem>
FlowPacketStore::Remove()
{
    NS_ABORT_MSG("FlowPacketStore::Remove: packets leave through their flow (PopFront)");
    return nullptr;
}

Ptr<const QueueDiscItem>
FlowPacketStore::Peek() const
{
    return DoPeek(GetContainer().begin());
}

} // namespace ns3
