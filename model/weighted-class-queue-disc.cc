/*
 * Weighted class scheduler (low-jitter WFQ / DRR) with drop tail, WRED or the rate-based
 * AQM of seed 003.  Definitions: docs/class-aqm.md.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "weighted-class-queue-disc.h"

#include "dscp-classifier.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/net-device.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WeightedClassQueueDisc");

NS_OBJECT_ENSURE_REGISTERED(WeightedClassQueueDisc);

namespace
{
constexpr uint32_t MAX_WEIGHT = 1u << 24;  // 16 MiB of quantum per class
constexpr uint32_t MAX_HISTORY = 1u << 20; // served packets remembered by RB
constexpr uint32_t DEFAULT_QUANTUM = 1500; // W_0 of the default weights
} // namespace

TypeId
WeightedClassQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::WeightedClassQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<WeightedClassQueueDisc>()
            .AddAttribute("Classes",
                          "Number of classes (1..16); class Classes-1 is the most important",
                          UintegerValue(4),
                          MakeUintegerAccessor(&WeightedClassQueueDisc::m_nClasses),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Weights",
                          "Work quantum W of each class in bytes, class 0 first, comma-separated "
                          "(1..16777216 each); empty: 1500 * 2^class",
                          StringValue(""),
                          MakeStringAccessor(&WeightedClassQueueDisc::m_weightsSpec),
                          MakeStringChecker())
            .AddAttribute("Discipline",
                          "Service discipline: Wfq (seed 003's low-jitter WFQ: the most "
                          "important class with quantum left is served first) or Drr",
                          EnumValue(LOW_JITTER_WFQ),
                          MakeEnumAccessor<Discipline>(&WeightedClassQueueDisc::m_discipline),
                          MakeEnumChecker(LOW_JITTER_WFQ, "Wfq", DRR, "Drr"))
            .AddAttribute("MaxS",
                          "Wfq: most credit (bytes) an idle class keeps, i.e. the burst it may "
                          "send at once when it becomes busy; 0: its quantum W",
                          UintegerValue(0),
                          MakeUintegerAccessor(&WeightedClassQueueDisc::m_maxS),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Aqm",
                          "Queue management of each class: DropTail (only MaxSize), Wred or Rb "
                          "(rate based)",
                          EnumValue(DROP_TAIL),
                          MakeEnumAccessor<Aqm>(&WeightedClassQueueDisc::m_aqm),
                          MakeEnumChecker(DROP_TAIL, "DropTail", WRED, "Wred", RB, "Rb"))
            .AddAttribute("MaxSize",
                          "Packets (or bytes) all classes hold together; above it arrivals are "
                          "dropped",
                          QueueSizeValue(QueueSize("1000p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("UseEcn",
                          "CE-mark ECN-capable packets instead of dropping them (WRED, RB)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&WeightedClassQueueDisc::m_useEcn),
                          MakeBooleanChecker())
            .AddAttribute("DscpMap",
                          "DSCP to class overrides as MSFC's DscpMap, e.g. \"EF=3, CS1=0\" or "
                          "\"diffserv4, EF=3\"",
                          StringValue(""),
                          MakeStringAccessor(&WeightedClassQueueDisc::m_dscpMapSpec),
                          MakeStringChecker())
            .AddAttribute("UseSocketPriority",
                          "Classify by the packet's SocketPriorityTag when it has one",
                          BooleanValue(false),
                          MakeBooleanAccessor(&WeightedClassQueueDisc::m_useSocketPriority),
                          MakeBooleanChecker())
            .AddAttribute("WredWeight",
                          "WRED: EWMA weight w of the class backlog, avg <- (1-w) avg + w b "
                          "at every arrival (0 < w <= 1)",
                          DoubleValue(0.02),
                          MakeDoubleAccessor(&WeightedClassQueueDisc::m_wredWeight),
                          MakeDoubleChecker<double>())
            .AddAttribute("WredMinTh",
                          "WRED: average backlog (packets) below which nothing is dropped (>= 0)",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&WeightedClassQueueDisc::m_wredMinTh),
                          MakeDoubleChecker<double>())
            .AddAttribute("WredMaxTh",
                          "WRED: average backlog (packets) at which every packet is dropped; "
                          "seed 003's q (> WredMinTh)",
                          DoubleValue(10.0),
                          MakeDoubleAccessor(&WeightedClassQueueDisc::m_wredMaxTh),
                          MakeDoubleChecker<double>())
            .AddAttribute("WredMaxP",
                          "WRED: drop probability just below WredMaxTh (0 < p <= 1)",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&WeightedClassQueueDisc::m_wredMaxP),
                          MakeDoubleChecker<double>())
            .AddAttribute("RbUtilisation",
                          "RB: target utilisation u of each class, one value for all or one "
                          "per class (class 0 first), each in (0, 1]",
                          StringValue("0.93"),
                          MakeStringAccessor(&WeightedClassQueueDisc::m_rbUtilSpec),
                          MakeStringChecker())
            .AddAttribute("RbHistory",
                          "RB: served packets H the capacity estimate S_i looks at (1..1048576)",
                          UintegerValue(100),
                          MakeUintegerAccessor(&WeightedClassQueueDisc::m_rbHistory),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RbTimeConstant",
                          "RB: time constant of the arrival-rate estimate x_i (> 0)",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&WeightedClassQueueDisc::m_rbTau),
                          MakeTimeChecker())
            .AddAttribute("RbGain",
                          "RB: step of P per unit relative excess demand |x - u c| / (u c) (>= 0)",
                          DoubleValue(0.01),
                          MakeDoubleAccessor(&WeightedClassQueueDisc::m_rbGain),
                          MakeDoubleChecker<double>())
            .AddAttribute("RbMinStep",
                          "RB: smallest step k of P at each arrival (0 < k <= 1)",
                          DoubleValue(0.001),
                          MakeDoubleAccessor(&WeightedClassQueueDisc::m_rbMinStep),
                          MakeDoubleChecker<double>())
            .AddAttribute("RbFairShare",
                          "RB: give bottlenecked classes the W-proportional fair share "
                          "(seed 003 sec. 2.2) instead of max(M_i, S_i)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&WeightedClassQueueDisc::m_rbFairShare),
                          MakeBooleanChecker())
            .AddAttribute("LinkRate",
                          "RB: link capacity S; 0 bps: the DataRate of the device",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&WeightedClassQueueDisc::m_linkRate),
                          MakeDataRateChecker());
    return tid;
}

WeightedClassQueueDisc::WeightedClassQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::MULTIPLE_QUEUES)
{
    NS_LOG_FUNCTION(this);
    m_uv = CreateObject<UniformRandomVariable>();
}

WeightedClassQueueDisc::~WeightedClassQueueDisc()
{
    NS_LOG_FUNCTION(this);
}

void
WeightedClassQueueDisc::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_uv = nullptr;
    m_drrList.clear();
    QueueDisc::DoDispose();
}

int64_t
WeightedClassQueueDisc::AssignStreams(int64_t stream)
{
    m_uv->SetStream(stream);
    return 1;
}

bool
WeightedClassQueueDisc::ParseList(const std::string& spec,
                                  std::vector<double>& out,
                                  std::string& error)
{
    out.clear();
    std::stringstream ss(spec);
    std::string tok;
    while (std::getline(ss, tok, ','))
    {
        auto b = tok.find_first_not_of(" \t");
        auto e = tok.find_last_not_of(" \t");
        if (b == std::string::npos)
        {
            error = "empty entry in '" + spec + "'";
            return false;
        }
        tok = tok.substr(b, e - b + 1);
        char* end = nullptr;
        double v = std::strtod(tok.c_str(), &end);
        if (end == tok.c_str() || *end != '\0' || !std::isfinite(v))
        {
            error = "'" + tok + "' in '" + spec + "' is not a number";
            return false;
        }
        out.push_back(v);
    }
    return true;
}

std::string
WeightedClassQueueDisc::ValidateConfiguration() const
{
    std::ostringstream err;
    std::vector<double> w;
    std::vector<double> u;
    std::string e;
    if (m_nClasses < 1 || m_nClasses > MAX_CLASSES)
    {
        err << "Classes=" << m_nClasses << " is out of range: allowed 1.." << MAX_CLASSES;
    }
    else if (!ParseList(m_weightsSpec, w, e))
    {
        err << "Weights: " << e << "; give one quantum in bytes per class, e.g. \"1000,2000\"";
    }
    else if (!w.empty() && w.size() != m_nClasses)
    {
        err << "Weights=\"" << m_weightsSpec << "\" has " << w.size()
            << " values but Classes=" << m_nClasses
            << ": give one per class (class 0 first) or none";
    }
    else if (std::any_of(w.begin(), w.end(), [](double v) {
                 return v < 1 || v > MAX_WEIGHT || v != std::floor(v);
             }))
    {
        err << "Weights=\"" << m_weightsSpec << "\": each quantum must be a whole number of bytes "
            << "1.." << MAX_WEIGHT;
    }
    else if (!ParseList(m_rbUtilSpec, u, e) || u.empty())
    {
        err << "RbUtilisation=\"" << m_rbUtilSpec << "\": " << (e.empty() ? "empty" : e)
            << "; give one value in (0, 1] or one per class";
    }
    else if (u.size() != 1 && u.size() != m_nClasses)
    {
        err << "RbUtilisation=\"" << m_rbUtilSpec << "\" has " << u.size()
            << " values but Classes=" << m_nClasses << ": give one for all or one per class";
    }
    else if (std::any_of(u.begin(), u.end(), [](double v) { return !(v > 0) || v > 1; }))
    {
        err << "RbUtilisation=\"" << m_rbUtilSpec << "\": each value must be in (0, 1]";
    }
    else if (!(m_wredWeight > 0) || m_wredWeight > 1)
    {
        err << "WredWeight=" << m_wredWeight << " is out of range: allowed (0, 1]";
    }
    else if (m_wredMinTh < 0 || !(m_wredMaxTh > m_wredMinTh))
    {
        err << "WredMinTh=" << m_wredMinTh << ", WredMaxTh=" << m_wredMaxTh
            << ": need 0 <= WredMinTh < WredMaxTh (packets)";
    }
    else if (!(m_wredMaxP > 0) || m_wredMaxP > 1)
    {
        err << "WredMaxP=" << m_wredMaxP << " is out of range: allowed (0, 1]";
    }
    else if (m_rbHistory < 1 || m_rbHistory > MAX_HISTORY)
    {
        err << "RbHistory=" << m_rbHistory << " is out of range: allowed 1.." << MAX_HISTORY;
    }
    else if (!m_rbTau.IsStrictlyPositive())
    {
        err << "RbTimeConstant=" << m_rbTau.As(Time::MS) << " must be > 0";
    }
    else if (m_rbGain < 0 || !std::isfinite(m_rbGain))
    {
        err << "RbGain=" << m_rbGain << " must be >= 0";
    }
    else if (!(m_rbMinStep > 0) || m_rbMinStep > 1)
    {
        err << "RbMinStep=" << m_rbMinStep << " is out of range: allowed (0, 1]";
    }
    else if (GetMaxSize().GetValue() < 1)
    {
        err << "MaxSize=" << GetMaxSize() << " must hold at least 1 packet or byte";
    }
    else
    {
        std::array<int32_t, 64> map;
        if (!DscpClassifier::ParseDscpMap(m_dscpMapSpec, map, e))
        {
            err << e;
        }
    }
    std::string msg = err.str();
    return msg.empty() ? msg : "WeightedClassQueueDisc: " + msg;
}

bool
WeightedClassQueueDisc::CheckConfig()
{
    NS_LOG_FUNCTION(this);
    // Configuration errors end the simulation through ns-3's error path with the message
    // (a false return would only give QueueDisc's generic "configuration is not correct").
    NS_ABORT_MSG_IF(
        GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0 || GetNInternalQueues() > 0,
        "WeightedClassQueueDisc: it classifies by itself and creates its own queues; remove "
        "the queue disc classes, packet filters and internal queues");
    std::string error = ValidateConfiguration();
    if (error.empty() && m_aqm == RB)
    {
        m_linkBps = static_cast<double>(m_linkRate.GetBitRate());
        if (m_linkBps <= 0)
        {
            Ptr<NetDeviceQueueInterface> ndqi = GetNetDeviceQueueInterface();
            Ptr<NetDevice> dev = ndqi ? ndqi->GetObject<NetDevice>() : nullptr;
            DataRateValue rate;
            if (dev && dev->GetAttributeFailSafe("DataRate", rate))
            {
                m_linkBps = static_cast<double>(rate.Get().GetBitRate());
            }
        }
        if (m_linkBps <= 0)
        {
            error = "WeightedClassQueueDisc: Aqm=Rb needs the link rate, and the device has no "
                    "DataRate attribute (or there is no device): set LinkRate, e.g. \"1Mbps\"";
        }
    }
    NS_ABORT_MSG_IF(!error.empty(), error);
    for (uint32_t i = 0; i < m_nClasses; ++i)
    {
        Ptr<InternalQueue> q = CreateObject<DropTailQueue<QueueDiscItem>>();
        // The shared MaxSize is enforced at enqueue; a class queue never refuses by itself.
        q->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, std::numeric_limits<uint32_t>::max()));
        AddInternalQueue(q);
    }
    return true;
}

void
WeightedClassQueueDisc::InitializeParams()
{
    NS_LOG_FUNCTION(this);
    std::vector<double> w;
    std::vector<double> u;
    std::string unused;
    ParseList(m_weightsSpec, w, unused);
    ParseList(m_rbUtilSpec, u, unused);
    m_weights.assign(m_nClasses, 0);
    for (uint32_t i = 0; i < m_nClasses; ++i)
    {
        m_weights[i] =
            w.empty() ? DEFAULT_QUANTUM << std::min<uint32_t>(i, 13) : static_cast<uint32_t>(w[i]);
    }
    m_classifier.Configure(m_nClasses, m_dscpMapSpec, m_useSocketPriority);
    // Every class starts as if idle for a long time: a full burst allowance.
    m_credit.assign(m_nClasses, 0);
    for (uint32_t i = 0; i < m_nClasses; ++i)
    {
        m_credit[i] = m_discipline == LOW_JITTER_WFQ ? (m_maxS ? m_maxS : m_weights[i]) : 0;
    }
    m_inDrrList.assign(m_nClasses, 0);
    m_drrList.clear();
    m_stats.assign(m_nClasses, WeightedClassStats{});
    m_wred.assign(m_nClasses, WredClassState{});
    RateBasedAqm::Config cfg;
    cfg.weights.assign(m_weights.begin(), m_weights.end());
    cfg.utilisation = u;
    cfg.linkBps = m_linkBps;
    cfg.history = m_rbHistory;
    cfg.tauSeconds = m_rbTau.GetSeconds();
    cfg.gain = m_rbGain;
    cfg.minStep = m_rbMinStep;
    cfg.fairShare = m_rbFairShare;
    m_rb.Configure(cfg);
}

uint32_t
WeightedClassQueueDisc::GetNClasses() const
{
    return m_nClasses;
}

uint32_t
WeightedClassQueueDisc::GetWeight(uint32_t cls) const
{
    NS_ASSERT_MSG(cls < m_weights.size(), "class out of range or not initialized");
    return m_weights[cls];
}

WeightedClassStats
WeightedClassQueueDisc::GetClassStats(uint32_t cls) const
{
    NS_ASSERT_MSG(cls < m_stats.size(), "class out of range or not initialized");
    return m_stats[cls];
}

uint32_t
WeightedClassQueueDisc::Classify(Ptr<const QueueDiscItem> item) const
{
    return m_classifier.Classify(item);
}

const RateBasedAqm&
WeightedClassQueueDisc::GetRateBasedAqm() const
{
    return m_rb;
}

double
WeightedClassQueueDisc::GetWredAverage(uint32_t cls) const
{
    NS_ASSERT_MSG(cls < m_wred.size(), "class out of range or not initialized");
    return m_wred[cls].Average();
}

double
WeightedClassQueueDisc::GetLinkRate() const
{
    return m_linkBps;
}

bool
WeightedClassQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    uint32_t cls = Classify(item);
    WeightedClassStats& st = m_stats[cls];
    int64_t now = Simulator::Now().GetNanoSeconds();

    double p = 0.0;
    if (m_aqm == WRED)
    {
        m_wred[cls].Update(st.backlogPackets, m_wredWeight);
        p = m_wred[cls].Probability(m_wredMinTh, m_wredMaxTh, m_wredMaxP);
    }
    else if (m_aqm == RB)
    {
        p = m_rb.Probability(cls);
    }

    bool accepted = true;
    if (p > 0 && m_uv->GetValue() < p)
    {
        if (m_useEcn && item->Mark())
        {
            ++st.aqmMarks;
        }
        else
        {
            ++st.aqmDrops;
            DropBeforeEnqueue(item, AQM_DROP);
            accepted = false;
        }
    }
    if (accepted && GetCurrentSize() + item > GetMaxSize())
    {
        ++st.overflowDrops;
        DropBeforeEnqueue(item, OVERFLOW_DROP);
        accepted = false;
    }
    if (m_aqm == RB)
    {
        // x_i is the rate of the traffic the class accepts: an unresponsive source is
        // held at u c_i by its drop rate instead of driving P to 1.
        m_rb.OnArrival(cls, accepted ? item->GetSize() : 0, now);
    }
    if (!accepted)
    {
        return false;
    }

    bool wasEmpty = GetInternalQueue(cls)->IsEmpty();
    GetInternalQueue(cls)->Enqueue(item);
    ++st.enqueuedPackets;
    st.enqueuedBytes += item->GetSize();
    ++st.backlogPackets;
    st.backlogBytes += item->GetSize();
    if (m_discipline == DRR && wasEmpty && !m_inDrrList[cls])
    {
        m_inDrrList[cls] = 1;
        m_credit[cls] = m_weights[cls];
        m_drrList.push_back(cls);
    }
    NS_LOG_LOGIC("class " << cls << " backlog " << st.backlogPackets << " p " << p);
    return true;
}

uint32_t
WeightedClassQueueDisc::HeadSize(uint32_t cls) const
{
    Ptr<const QueueDiscItem> head = GetInternalQueue(cls)->Peek();
    return head ? head->GetSize() : 0;
}

Ptr<QueueDiscItem>
WeightedClassQueueDisc::TakeHead(uint32_t cls)
{
    Ptr<QueueDiscItem> item = GetInternalQueue(cls)->Dequeue();
    WeightedClassStats& st = m_stats[cls];
    ++st.dequeuedPackets;
    st.dequeuedBytes += item->GetSize();
    --st.backlogPackets;
    st.backlogBytes -= item->GetSize();
    if (m_aqm == RB)
    {
        m_rb.OnService(cls, item->GetSize());
    }
    return item;
}

Ptr<QueueDiscItem>
WeightedClassQueueDisc::DequeueWfq()
{
    // Most important class first: it is served while its credit covers its head packet.
    // When no backlogged class can send, the next rounds begin at once (work conserving):
    // k rounds, k the fewest that let some backlogged class send, each giving every class
    // its quantum W_i; an idle class keeps at most MaxS (its burst allowance).
    for (int pass = 0; pass < 2; ++pass)
    {
        for (uint32_t c = m_nClasses; c-- > 0;)
        {
            uint32_t size = HeadSize(c);
            if (size > 0 && static_cast<int64_t>(size) <= m_credit[c])
            {
                m_credit[c] -= size;
                Ptr<QueueDiscItem> item = TakeHead(c);
                if (GetInternalQueue(c)->IsEmpty())
                {
                    int64_t cap = m_maxS ? m_maxS : m_weights[c];
                    m_credit[c] = std::min(m_credit[c], cap);
                }
                return item;
            }
        }
        uint64_t rounds = std::numeric_limits<uint64_t>::max();
        for (uint32_t c = 0; c < m_nClasses; ++c)
        {
            uint32_t size = HeadSize(c);
            if (size > 0)
            {
                uint64_t need = static_cast<uint64_t>(size - m_credit[c]);
                rounds = std::min<uint64_t>(rounds, (need + m_weights[c] - 1) / m_weights[c]);
            }
        }
        if (rounds == std::numeric_limits<uint64_t>::max())
        {
            return nullptr; // nothing queued
        }
        for (uint32_t c = 0; c < m_nClasses; ++c)
        {
            int64_t add = static_cast<int64_t>(rounds * m_weights[c]);
            if (GetInternalQueue(c)->IsEmpty())
            {
                int64_t cap = m_maxS ? m_maxS : m_weights[c];
                m_credit[c] = std::min(m_credit[c] + add, std::max<int64_t>(m_credit[c], cap));
            }
            else
            {
                m_credit[c] += add;
            }
        }
    }
    NS_ASSERT_MSG(false, "low-jitter WFQ found no class to serve after a new round");
    return nullptr;
}

Ptr<QueueDiscItem>
WeightedClassQueueDisc::DequeueDrr()
{
    while (!m_drrList.empty())
    {
        uint32_t c = m_drrList.front();
        uint32_t size = HeadSize(c);
        if (size == 0)
        {
            m_drrList.pop_front();
            m_inDrrList[c] = 0;
            continue;
        }
        if (static_cast<int64_t>(size) <= m_credit[c])
        {
            m_credit[c] -= size;
            Ptr<QueueDiscItem> item = TakeHead(c);
            if (GetInternalQueue(c)->IsEmpty())
            {
                m_drrList.pop_front();
                m_inDrrList[c] = 0;
                m_credit[c] = 0;
            }
            return item;
        }
        m_credit[c] += m_weights[c];
        m_drrList.pop_front();
        m_drrList.push_back(c);
    }
    return nullptr;
}

Ptr<QueueDiscItem>
WeightedClassQueueDisc::DoDequeue()
{
    NS_LOG_FUNCTION(this);
    return m_discipline == LOW_JITTER_WFQ ? DequeueWfq() : DequeueDrr();
}

} // namespace ns3
