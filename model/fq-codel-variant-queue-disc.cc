/*
 * FQ-CoDel with switchable new-flow priority and starvation prevention.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fq-codel-variant-queue-disc.h"

#include "queue-disc-mtu.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FqCoDelVariantQueueDisc");

NS_OBJECT_ENSURE_REGISTERED(FqCoDelVariantQueueDisc);

TypeId
FqCoDelVariantQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FqCoDelVariantQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<FqCoDelVariantQueueDisc>()
            .AddAttribute("NewFlowPriority",
                          "Serve newly active flows first (false: the \"WP\" variant, plain "
                          "deficit round robin over one list)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FqCoDelVariantQueueDisc::m_newFlowPriority),
                          MakeBooleanChecker())
            .AddAttribute("StarvationPrevention",
                          "Move a new flow found empty to the tail of the old list (false: the "
                          "\"WSPM\" variant, it is removed and returns as a new flow)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FqCoDelVariantQueueDisc::m_starvationPrevention),
                          MakeBooleanChecker())
            .AddAttribute("UseEcn",
                          "CE-mark ECN-capable packets instead of dropping them",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FqCoDelVariantQueueDisc::m_useEcn),
                          MakeBooleanChecker())
            .AddAttribute("Target",
                          "CoDel target queueing delay",
                          TimeValue(MilliSeconds(5)),
                          MakeTimeAccessor(&FqCoDelVariantQueueDisc::m_target),
                          MakeTimeChecker())
            .AddAttribute("Interval",
                          "CoDel interval",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&FqCoDelVariantQueueDisc::m_interval),
                          MakeTimeChecker())
            .AddAttribute("MaxSize",
                          "Packets held at most (must be in packets)",
                          QueueSizeValue(QueueSize("10240p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("Flows",
                          "Number of flow queues",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&FqCoDelVariantQueueDisc::m_flows),
                          MakeUintegerChecker<uint32_t>(1, 65536))
            .AddAttribute("Quantum",
                          "DRR quantum in bytes (0: the device MTU, 1500 when not on a device)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FqCoDelVariantQueueDisc::m_quantumAttr),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("DropBatchSize",
                          "Packets dropped at most from the fattest flow per overload",
                          UintegerValue(64),
                          MakeUintegerAccessor(&FqCoDelVariantQueueDisc::m_dropBatchSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Perturbation",
                          "Hash perturbation value",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FqCoDelVariantQueueDisc::m_perturbation),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

FqCoDelVariantQueueDisc::FqCoDelVariantQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::MULTIPLE_QUEUES, QueueSizeUnit::PACKETS),
      m_newFlowPriority(true),
      m_starvationPrevention(true),
      m_useEcn(false),
      m_quantumAttr(0),
      m_flows(1024),
      m_dropBatchSize(64),
      m_perturbation(0),
      m_quantum(0)
{
    NS_LOG_FUNCTION(this);
}

FqCoDelVariantQueueDisc::~FqCoDelVariantQueueDisc()
{
    NS_LOG_FUNCTION(this);
}

void
FqCoDelVariantQueueDisc::DoDispose()
{
    m_flowQueues.clear();
    m_newFlows.clear();
    m_oldFlows.clear();
    m_ledger = nullptr;
    QueueDisc::DoDispose();
}

uint32_t
FqCoDelVariantQueueDisc::GetQuantum() const
{
    return m_quantum;
}

uint32_t
FqCoDelVariantQueueDisc::Classify(Ptr<const QueueDiscItem> item) const
{
    return item->Hash(m_perturbation) % m_flows;
}

FqCoDelVariantQueueDisc::FlowStatus
FqCoDelVariantQueueDisc::GetFlowStatus(uint32_t flow) const
{
    NS_ABORT_MSG_IF(flow >= m_flowQueues.size(), "flow index " << flow << " out of range");
    return m_flowQueues[flow].status;
}

bool
FqCoDelVariantQueueDisc::CheckConfig()
{
    NS_LOG_FUNCTION(this);
    if (GetNQueueDiscClasses() > 0 || GetNInternalQueues() > 0 || GetNPacketFilters() > 0)
    {
        NS_LOG_ERROR("FqCoDelVariantQueueDisc takes no classes, internal queues or packet "
                     "filters: it hashes packets itself; remove them");
        return false;
    }
    if (GetMaxSize().GetUnit() != QueueSizeUnit::PACKETS || GetMaxSize().GetValue() == 0)
    {
        NS_LOG_ERROR("FqCoDelVariantQueueDisc MaxSize must be at least 1 packet, in packets "
                     "(e.g. \"10240p\"), got "
                     << GetMaxSize());
        return false;
    }
    if (!m_interval.IsStrictlyPositive() || !m_target.IsStrictlyPositive() || m_target > m_interval)
    {
        NS_LOG_ERROR("FqCoDelVariantQueueDisc needs 0 < Target <= Interval, got Target "
                     << m_target.As(Time::MS) << " Interval " << m_interval.As(Time::MS));
        return false;
    }
    m_ledger = CreateObject<PacketLedgerQueue>();
    AddInternalQueue(m_ledger);
    if (m_quantumAttr == 0)
    {
        uint32_t mtu = QueueDiscDeviceMtu(*this);
        // A child queue disc (e.g. under TBF) does not see its device: assume a
        // 1500-byte MTU, as the IP packets the queue disc sees are at most that large.
        m_quantum = mtu ? mtu : QUEUE_DISC_DEFAULT_MTU;
        if (!mtu)
        {
            NS_LOG_WARN(
                "FqCoDelVariantQueueDisc Quantum=0 and no device to take the MTU from: using 1500");
        }
    }
    else
    {
        m_quantum = m_quantumAttr;
    }
    return true;
}

void
FqCoDelVariantQueueDisc::InitializeParams()
{
    NS_LOG_FUNCTION(this);
    m_flowQueues.assign(m_flows, Flow{});
    m_newFlows.clear();
    m_oldFlows.clear();
    NS_LOG_INFO("FQ-CoDel variant: new-flow priority "
                << m_newFlowPriority << ", starvation prevention " << m_starvationPrevention
                << ", quantum " << m_quantum);
}

bool
FqCoDelVariantQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    uint32_t idx = Classify(item);
    Flow& f = m_flowQueues[idx];
    item->SetTimeStamp(Simulator::Now());
    f.packets.push_back(Entry{item, m_ledger->Add(item)});
    f.bytes += item->GetSize();
    if (f.status == INACTIVE)
    {
        f.deficit = m_quantum;
        if (m_newFlowPriority)
        {
            f.status = NEW_FLOW;
            m_newFlows.push_back(idx);
        }
        else
        {
            f.status = OLD_FLOW;
            m_oldFlows.push_back(idx);
        }
    }
    if (GetNPackets() > GetMaxSize().GetValue())
    {
        DropFromFattest();
    }
    return true;
}

uint32_t
FqCoDelVariantQueueDisc::DropFromFattest()
{
    uint32_t fat = 0;
    uint64_t maxBytes = 0;
    for (uint32_t i = 0; i < m_flowQueues.size(); ++i)
    {
        if (m_flowQueues[i].bytes > maxBytes)
        {
            maxBytes = m_flowQueues[i].bytes;
            fat = i;
        }
    }
    Flow& f = m_flowQueues[fat];
    uint64_t threshold = maxBytes / 2;
    uint64_t dropped = 0;
    uint32_t n = 0;
    do
    {
        Ptr<QueueDiscItem> item = PopHead(f);
        dropped += item->GetSize();
        DropAfterDequeue(item, OVERLIMIT_DROP);
    } while (++n < m_dropBatchSize && dropped < threshold && !f.packets.empty());
    NS_LOG_LOGIC("overload: dropped " << n << " packets from flow " << fat);
    return fat;
}

Ptr<QueueDiscItem>
FqCoDelVariantQueueDisc::PopHead(Flow& f)
{
    if (f.packets.empty())
    {
        return nullptr;
    }
    Entry e = f.packets.front();
    f.packets.pop_front();
    Ptr<QueueDiscItem> item = m_ledger->Take(e.handle);
    f.bytes -= item->GetSize();
    return item;
}

Time
FqCoDelVariantQueueDisc::ControlLaw(Time t, uint32_t count) const
{
    return t + Time::FromDouble(m_interval.GetDouble() / std::sqrt(static_cast<double>(count)),
                                Time::GetResolution());
}

bool
FqCoDelVariantQueueDisc::ShouldDrop(Flow& f, Ptr<QueueDiscItem> item, Time now)
{
    if (!item)
    {
        f.firstAboveTime = Time(0);
        return false;
    }
    Time sojourn = now - item->GetTimeStamp();
    // The packet has left the queue: the flow's backlog is what remains.
    if (sojourn < m_target || f.bytes <= m_quantum)
    {
        f.firstAboveTime = Time(0);
        return false;
    }
    if (f.firstAboveTime.IsZero())
    {
        f.firstAboveTime = now + m_interval;
        return false;
    }
    return now >= f.firstAboveTime;
}

Ptr<QueueDiscItem>
FqCoDelVariantQueueDisc::CoDelDequeue(Flow& f)
{
    Ptr<QueueDiscItem> item = PopHead(f);
    if (!item)
    {
        f.dropping = false;
        return nullptr;
    }
    Time now = Simulator::Now();
    bool drop = ShouldDrop(f, item, now);
    if (f.dropping)
    {
        if (!drop)
        {
            f.dropping = false;
        }
        else
        {
            while (f.dropping && now >= f.dropNext)
            {
                f.count++;
                if (m_useEcn && Mark(item, CE_MARK))
                {
                    f.dropNext = ControlLaw(f.dropNext, f.count);
                    return item;
                }
                DropAfterDequeue(item, TARGET_EXCEEDED_DROP);
                item = PopHead(f);
                if (!ShouldDrop(f, item, now))
                {
                    f.dropping = false;
                }
                else
                {
                    f.dropNext = ControlLaw(f.dropNext, f.count);
                }
            }
        }
    }
    else if (drop)
    {
        if (m_useEcn && Mark(item, CE_MARK))
        {
            // marked, delivered below
        }
        else
        {
            DropAfterDequeue(item, TARGET_EXCEEDED_DROP);
            item = PopHead(f);
            ShouldDrop(f, item, now);
        }
        f.dropping = true;
        uint32_t delta = f.count - f.lastCount;
        if (delta > 1 && now - f.dropNext < 16 * m_interval)
        {
            f.count = delta;
        }
        else
        {
            f.count = 1;
        }
        f.lastCount = f.count;
        f.dropNext = ControlLaw(now, f.count);
    }
    return item;
}

Ptr<QueueDiscItem>
FqCoDelVariantQueueDisc::DoDequeue()
{
    NS_LOG_FUNCTION(this);
    while (true)
    {
        std::list<uint32_t>* head;
        if (!m_newFlows.empty())
        {
            head = &m_newFlows;
        }
        else if (!m_oldFlows.empty())
        {
            head = &m_oldFlows;
        }
        else
        {
            return nullptr;
        }
        uint32_t idx = head->front();
        Flow& f = m_flowQueues[idx];
        if (f.deficit <= 0)
        {
            f.deficit += m_quantum;
            head->pop_front();
            f.status = OLD_FLOW;
            m_oldFlows.push_back(idx);
            continue;
        }
        Ptr<QueueDiscItem> item = CoDelDequeue(f);
        if (!item)
        {
            head->pop_front();
            if (head == &m_newFlows && m_starvationPrevention && !m_oldFlows.empty())
            {
                f.status = OLD_FLOW;
                m_oldFlows.push_back(idx);
            }
            else
            {
                f.status = INACTIVE;
            }
            continue;
        }
        f.deficit -= item->GetSize();
        return item;
    }
}

} // namespace ns3
