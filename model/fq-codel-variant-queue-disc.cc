/*
 * FQ-CoDel with switchable new-flow priority and starvation prevention.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fq-codel-variant-queue-disc.h"

#include "queue-disc-mtu.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

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
                          "CoDel target queueing delay (> 0, <= Interval)",
                          TimeValue(MilliSeconds(5)),
                          MakeTimeAccessor(&FqCoDelVariantQueueDisc::m_target),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("Interval",
                          "CoDel interval (>= Target)",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&FqCoDelVariantQueueDisc::m_interval),
                          MakeTimeChecker(NanoSeconds(1)))
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
                          "DRR quantum in bytes, 0..1048576 (0: the device MTU, 1500 when not "
                          "on a device)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FqCoDelVariantQueueDisc::m_quantumAttr),
                          MakeUintegerChecker<uint32_t>(0, 1048576))
            .AddAttribute("DropBatchSize",
                          "Packets dropped at most from the fattest flow per overload",
                          UintegerValue(64),
                          MakeUintegerAccessor(&FqCoDelVariantQueueDisc::m_dropBatchSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Perturbation",
                          "Hash perturbation value",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FqCoDelVariantQueueDisc::m_perturbation),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("Sojourn",
                            "Sojourn time of every packet handed to the device, with its flow "
                            "queue",
                            MakeTraceSourceAccessor(&FqCoDelVariantQueueDisc::m_sojournTrace),
                            "ns3::FqCoDelVariantQueueDisc::SojournCallback")
            .AddTraceSource("CoDelState",
                            "CoDel state of a flow queue (dropping, count, drop_next), fired "
                            "when a dequeue changes it",
                            MakeTraceSourceAccessor(&FqCoDelVariantQueueDisc::m_codelStateTrace),
                            "ns3::FqCoDelVariantQueueDisc::CoDelStateCallback");
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
    m_store = nullptr;
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
    // Configuration errors end the simulation through ns-3's error path with the message
    // (a false return would only give QueueDisc's generic "configuration is not correct").
    NS_ABORT_MSG_IF(
        GetNQueueDiscClasses() > 0 || GetNInternalQueues() > 0 || GetNPacketFilters() > 0,
        "FqCoDelVariantQueueDisc: it takes no classes, internal queues or packet filters (it "
        "hashes packets itself); remove them");
    NS_ABORT_MSG_IF(GetMaxSize().GetUnit() != QueueSizeUnit::PACKETS ||
                        GetMaxSize().GetValue() == 0,
                    "FqCoDelVariantQueueDisc: MaxSize=" << GetMaxSize()
                                                        << " must be at least 1 packet, in "
                                                           "packets (e.g. \"10240p\")");
    NS_ABORT_MSG_IF(!m_interval.IsStrictlyPositive() || !m_target.IsStrictlyPositive() ||
                        m_target > m_interval,
                    "FqCoDelVariantQueueDisc: Target=" << m_target.As(Time::MS)
                                                       << " must be > 0 and at most Interval="
                                                       << m_interval.As(Time::MS));
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
    m_codel.Configure(m_target, m_interval, m_quantum, CoDelCore::Flavour::RFC8289);
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
    m_store->PushBack(f.packets, item);
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
        if (m_flowQueues[i].packets.bytes > maxBytes)
        {
            maxBytes = m_flowQueues[i].packets.bytes;
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
    } while (++n < m_dropBatchSize && dropped < threshold && !f.packets.IsEmpty());
    NS_LOG_LOGIC("overload: dropped " << n << " packets from flow " << fat);
    return fat;
}

Ptr<QueueDiscItem>
FqCoDelVariantQueueDisc::PopHead(Flow& f)
{
    return m_store->PopFront(f.packets);
}

Ptr<QueueDiscItem>
FqCoDelVariantQueueDisc::CoDelDequeue(uint32_t idx)
{
    Flow& f = m_flowQueues[idx];

    /// The flow's operations as CoDelCore needs them.
    struct Ops
    {
        FqCoDelVariantQueueDisc* q;
        Flow& f;

        Ptr<QueueDiscItem> Pop()
        {
            return q->PopHead(f);
        }

        uint64_t Backlog() const
        {
            return f.packets.bytes;
        }

        bool Mark(Ptr<QueueDiscItem> item)
        {
            return q->m_useEcn && q->QueueDisc::Mark(item, CE_MARK);
        }

        void Drop(Ptr<QueueDiscItem> item)
        {
            q->DropAfterDequeue(item, TARGET_EXCEEDED_DROP);
        }
    } ops{this, f};

    CoDelVars before = f.codel;
    Ptr<QueueDiscItem> item = m_codel.Dequeue(f.codel, Simulator::Now().GetNanoSeconds(), ops);
    if (f.codel.dropping != before.dropping || f.codel.count != before.count ||
        f.codel.dropNext != before.dropNext)
    {
        m_codelStateTrace(idx, f.codel.dropping, f.codel.count, NanoSeconds(f.codel.dropNext));
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
        Ptr<QueueDiscItem> item = CoDelDequeue(idx);
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
        m_sojournTrace(idx, Simulator::Now() - item->GetTimeStamp());
        return item;
    }
}

} // namespace ns3
