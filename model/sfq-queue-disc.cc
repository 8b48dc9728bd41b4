/*
 * Stochastic Fairness Queueing (SFQ) for ns-3, behaving like Linux sch_sfq.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "sfq-queue-disc.h"

#include "queue-disc-mtu.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SfqQueueDisc");

NS_OBJECT_ENSURE_REGISTERED(SfqQueueDisc);

TypeId
SfqQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SfqQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<SfqQueueDisc>()
            .AddAttribute("MaxSize",
                          "Total packets held at most (Linux sfq `limit`, default 127p); must be "
                          "given in packets",
                          QueueSizeValue(QueueSize("127p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute(
                "Quantum",
                "Bytes a flow may send per round (0: the device MTU, 1500 when not on a device)",
                UintegerValue(0),
                MakeUintegerAccessor(&SfqQueueDisc::m_quantumAttr),
                MakeUintegerChecker<uint32_t>())
            .AddAttribute("Divisor",
                          "Number of hash buckets (Linux `divisor`, 1..65536)",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&SfqQueueDisc::m_divisor),
                          MakeUintegerChecker<uint32_t>(1, 65536))
            .AddAttribute("Flows",
                          "Number of flow slots that can be active at once (Linux `flows`)",
                          UintegerValue(128),
                          MakeUintegerAccessor(&SfqQueueDisc::m_maxFlows),
                          MakeUintegerChecker<uint32_t>(1, 65536))
            .AddAttribute("Depth",
                          "Packets held at most per flow (Linux `depth`)",
                          UintegerValue(127),
                          MakeUintegerAccessor(&SfqQueueDisc::m_depth),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("HeadDrop",
                          "Drop the oldest packet of a flow instead of the newest (Linux "
                          "`headdrop`)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&SfqQueueDisc::m_headDrop),
                          MakeBooleanChecker())
            .AddAttribute("PerturbPeriod",
                          "Period of hash perturbation (Linux `perturb`); 0 disables it",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&SfqQueueDisc::m_perturbPeriod),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("Perturbation",
                          "Initial hash perturbation value",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SfqQueueDisc::m_perturbation),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

SfqQueueDisc::SfqQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::MULTIPLE_QUEUES, QueueSizeUnit::PACKETS),
      m_quantumAttr(0),
      m_divisor(1024),
      m_maxFlows(128),
      m_depth(127),
      m_headDrop(false),
      m_perturbation(0),
      m_quantum(0)
{
    NS_LOG_FUNCTION(this);
    m_rng = CreateObject<UniformRandomVariable>();
}

SfqQueueDisc::~SfqQueueDisc()
{
    NS_LOG_FUNCTION(this);
}

void
SfqQueueDisc::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_perturbEvent.Cancel();
    m_slots.clear();
    m_active.clear();
    m_rng = nullptr;
    m_store = nullptr;
    QueueDisc::DoDispose();
}

int64_t
SfqQueueDisc::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

uint32_t
SfqQueueDisc::GetPerturbation() const
{
    return m_perturbation;
}

uint32_t
SfqQueueDisc::GetQuantum() const
{
    return m_quantum;
}

uint32_t
SfqQueueDisc::GetNActiveFlows() const
{
    return static_cast<uint32_t>(m_active.size());
}

uint32_t
SfqQueueDisc::GetBucketPackets(uint32_t bucket) const
{
    if (bucket >= m_bucketSlot.size() || m_bucketSlot[bucket] == NO_SLOT)
    {
        return 0;
    }
    return m_slots[m_bucketSlot[bucket]].packets.packets;
}

uint32_t
SfqQueueDisc::Classify(Ptr<const QueueDiscItem> item) const
{
    return item->Hash(m_perturbation) % m_divisor;
}

bool
SfqQueueDisc::CheckConfig()
{
    NS_LOG_FUNCTION(this);
    // Configuration errors end the simulation through ns-3's error path with the message
    // (a false return would only give QueueDisc's generic "configuration is not correct").
    NS_ABORT_MSG_IF(
        GetNQueueDiscClasses() > 0 || GetNInternalQueues() > 0 || GetNPacketFilters() > 0,
        "SfqQueueDisc: it takes no classes, internal queues or packet filters (it hashes "
        "packets itself); remove them");
    NS_ABORT_MSG_IF(GetMaxSize().GetUnit() != QueueSizeUnit::PACKETS,
                    "SfqQueueDisc: MaxSize=" << GetMaxSize()
                                             << " must be given in packets (e.g. \"127p\")");
    NS_ABORT_MSG_IF(GetMaxSize().GetValue() == 0,
                    "SfqQueueDisc: MaxSize=" << GetMaxSize() << " must be at least 1p");
    m_store = CreateObject<FlowPacketStore>();
    AddInternalQueue(m_store);
    if (m_quantumAttr == 0)
    {
        uint32_t mtu = QueueDiscDeviceMtu(*this);
        // A child queue disc (e.g. under TBF) does not see its device: assume a
        // 1500-byte MTU, as the IP packets the queue disc sees are at most that large.
        m_quantum = mtu ? mtu : QUEUE_DISC_DEFAULT_MTU;
        if (!mtu)
        {
            NS_LOG_WARN("SfqQueueDisc Quantum=0 and no device to take the MTU from: using 1500");
        }
    }
    else
    {
        m_quantum = m_quantumAttr;
    }
    return true;
}

void
SfqQueueDisc::InitializeParams()
{
    NS_LOG_FUNCTION(this);
    m_bucketSlot.assign(m_divisor, NO_SLOT);
    m_slots.assign(m_maxFlows, Slot{});
    m_freeSlots.clear();
    for (uint32_t i = m_maxFlows; i-- > 0;)
    {
        m_freeSlots.push_back(i); // slot 0 is handed out first
    }
    m_active.clear();
    if (m_perturbPeriod.IsStrictlyPositive())
    {
        m_perturbEvent = Simulator::Schedule(m_perturbPeriod, &SfqQueueDisc::PerturbTimer, this);
    }
    NS_LOG_INFO("SFQ quantum " << m_quantum << " divisor " << m_divisor << " flows " << m_maxFlows
                               << " depth " << m_depth << " limit " << GetMaxSize());
}

uint32_t
SfqQueueDisc::Insert(Ptr<QueueDiscItem> item, uint32_t bucket, uint32_t queued)
{
    auto drop = [this, queued](Ptr<QueueDiscItem> p, const char* why) {
        if (queued != FlowPacketStore::NONE)
        {
            DropAfterDequeue(m_store->Release(queued), why);
        }
        else
        {
            DropBeforeEnqueue(p, why);
        }
    };

    uint32_t s = m_bucketSlot[bucket];
    if (s == NO_SLOT)
    {
        if (m_freeSlots.empty())
        {
            NS_LOG_LOGIC("no free slot for bucket " << bucket);
            drop(item, SLOTS_EXHAUSTED_DROP);
            return NO_SLOT;
        }
        s = m_freeSlots.back();
        m_freeSlots.pop_back();
        m_bucketSlot[bucket] = s;
        Slot& slot = m_slots[s];
        slot.inUse = true;
        slot.bucket = bucket;
        NS_ASSERT(slot.packets.IsEmpty());
    }
    Slot& slot = m_slots[s];
    if (slot.packets.packets >= m_depth)
    {
        if (!m_headDrop)
        {
            NS_LOG_LOGIC("slot " << s << " full, dropping the arriving packet");
            drop(item, DEPTH_DROP);
            return NO_SLOT;
        }
        NS_LOG_LOGIC("slot " << s << " full, dropping its oldest packet");
        DropAfterDequeue(m_store->PopFront(slot.packets), DEPTH_DROP);
    }
    if (queued != FlowPacketStore::NONE)
    {
        m_store->AttachBack(slot.packets, queued);
    }
    else
    {
        m_store->PushBack(slot.packets, item);
    }
    if (slot.packets.packets == 1)
    {
        // A new flow joins the round robin behind all active ones.
        slot.allot = m_quantum;
        m_active.push_back(s);
    }
    return s;
}

bool
SfqQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    uint32_t bucket = Classify(item);
    uint32_t s = Insert(item, bucket, FlowPacketStore::NONE);
    if (s == NO_SLOT)
    {
        return false;
    }
    if (GetNPackets() > GetMaxSize().GetValue())
    {
        // The packet is already counted as queued; drop one from the longest flow.
        DropFromLongest();
    }
    return true;
}

uint32_t
SfqQueueDisc::DropFromLongest()
{
    NS_LOG_FUNCTION(this);
    uint32_t best = NO_SLOT;
    for (uint32_t s : m_active)
    {
        const Slot& c = m_slots[s];
        if (best == NO_SLOT || c.packets.packets > m_slots[best].packets.packets ||
            (c.packets.packets == m_slots[best].packets.packets &&
             c.packets.bytes > m_slots[best].packets.bytes))
        {
            best = s;
        }
    }
    NS_ASSERT(best != NO_SLOT);
    Slot& slot = m_slots[best];
    NS_LOG_LOGIC("overlimit: dropping from slot " << best << " (" << slot.packets.packets
                                                  << " packets)");
    Ptr<QueueDiscItem> victim =
        m_headDrop ? m_store->PopFront(slot.packets) : m_store->PopBack(slot.packets);
    DropAfterDequeue(victim, OVERLIMIT_DROP);
    if (slot.packets.IsEmpty())
    {
        m_active.remove(best);
        FreeSlot(best);
    }
    return best;
}

void
SfqQueueDisc::FreeSlot(uint32_t s)
{
    Slot& slot = m_slots[s];
    NS_ASSERT(slot.packets.IsEmpty());
    m_bucketSlot[slot.bucket] = NO_SLOT;
    slot.inUse = false;
    slot.allot = 0;
    m_freeSlots.push_back(s);
}

Ptr<QueueDiscItem>
SfqQueueDisc::DoDequeue()
{
    NS_LOG_FUNCTION(this);
    while (!m_active.empty())
    {
        uint32_t s = m_active.front();
        Slot& slot = m_slots[s];
        if (slot.allot <= 0)
        {
            // Allotment used up: new quantum, wait for the next round.
            slot.allot += m_quantum;
            m_active.pop_front();
            m_active.push_back(s);
            continue;
        }
        Ptr<QueueDiscItem> item = m_store->PopFront(slot.packets);
        if (slot.packets.IsEmpty())
        {
            m_active.pop_front();
            FreeSlot(s);
        }
        else
        {
            slot.allot -= item->GetSize();
        }
        return item;
    }
    return nullptr;
}

void
SfqQueueDisc::PerturbTimer()
{
    Perturb(m_rng->GetInteger(0, UINT32_MAX));
    m_perturbEvent = Simulator::Schedule(m_perturbPeriod, &SfqQueueDisc::PerturbTimer, this);
}

void
SfqQueueDisc::Perturb(uint32_t perturbation)
{
    NS_LOG_FUNCTION(this << perturbation);
    m_perturbation = perturbation;
    if (m_active.empty())
    {
        return;
    }
    // Take every queued packet out, flow by flow in round-robin order, and put it into the
    // bucket of the new hash; per-flow order is kept.
    std::vector<uint32_t> all;
    all.reserve(GetNPackets());
    std::list<uint32_t> old;
    old.swap(m_active);
    for (uint32_t s : old)
    {
        Slot& slot = m_slots[s];
        for (uint32_t r = m_store->DetachFront(slot.packets); r != FlowPacketStore::NONE;
             r = m_store->DetachFront(slot.packets))
        {
            all.push_back(r);
        }
        FreeSlot(s);
    }
    for (uint32_t r : all)
    {
        Ptr<QueueDiscItem> item = m_store->GetItem(r);
        Insert(item, Classify(item), r);
    }
    NS_LOG_INFO("rehashed " << all.size() << " packets into " << m_active.size() << " flows");
}

} // namespace ns3
