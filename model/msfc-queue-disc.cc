/*
 * Multilevel Stochastically Fair CoDel (MSFC) queue disc.
 * The algorithm is defined in docs/algorithm.md.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msfc-queue-disc.h"

#include "queue-disc-mtu.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/hash.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/ipv6-queue-disc-item.h"
#include "ns3/log.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MsfcQueueDisc");

NS_OBJECT_ENSURE_REGISTERED(MsfcQueueDisc);

namespace
{
// Ranges, defaults and the words of their messages: pkt_sched_msfc.h (TC_MSFC_*), shared with
// the Linux qdisc and tc.  Times there are in microseconds, the ratio in 16.16 fixed point.
constexpr double RATIO_ONE = 65536.0;       //!< 1.0 in 16.16 fixed point
constexpr uint32_t RATIO_ONE_FIXED = 65536; //!< the same as an integer

/**
 * A ratio in 16.16 fixed point: the double times 65536 (exact), rounded to the nearest integer,
 * halves away from 0, as tc converts it (msfc.model.params.ratio_fixed is the same rule).
 * @return the fixed-point value, or -1 where none fits (not positive, not finite, 2^15 or more)
 */
int64_t
RatioFixed(double ratio)
{
    return ratio > 0.0 && ratio < 32768.0 ? std::llround(ratio * RATIO_ONE) : -1;
}

// Order's values are the netlink numbers of enum tc_msfc_order
static_assert(int{MsfcQueueDisc::ORDER_ROUND} == int{TC_MSFC_ORDER_ROUND} &&
                  int{MsfcQueueDisc::ORDER_PRIORITY} == int{TC_MSFC_ORDER_PRIORITY} &&
                  TC_MSFC_ORDER_MIN == TC_MSFC_ORDER_ROUND &&
                  TC_MSFC_ORDER_MAX == TC_MSFC_ORDER_PRIORITY,
              "MsfcQueueDisc::OrderMode follows pkt_sched_msfc.h");

// Boost's values are the netlink numbers of enum tc_msfc_boost
static_assert(int{MsfcQueueDisc::BOOST_OFF} == int{TC_MSFC_BOOST_OFF} &&
                  int{MsfcQueueDisc::BOOST_ON} == int{TC_MSFC_BOOST_ON} &&
                  int{MsfcQueueDisc::BOOST_ACROSS} == int{TC_MSFC_BOOST_ACROSS} &&
                  TC_MSFC_BOOST_MIN == TC_MSFC_BOOST_OFF &&
                  TC_MSFC_BOOST_MAX == TC_MSFC_BOOST_ACROSS,
              "MsfcQueueDisc::BoostMode follows pkt_sched_msfc.h");

// Auto's values are the netlink numbers of enum tc_msfc_auto
static_assert(int{MsfcQueueDisc::AUTO_OFF} == int{TC_MSFC_AUTO_OFF} &&
                  int{MsfcQueueDisc::AUTO_UNMARKED} == int{TC_MSFC_AUTO_UNMARKED} &&
                  int{MsfcQueueDisc::AUTO_ALL} == int{TC_MSFC_AUTO_ALL} &&
                  TC_MSFC_AUTO_MIN == TC_MSFC_AUTO_OFF && TC_MSFC_AUTO_MAX == TC_MSFC_AUTO_ALL,
              "MsfcQueueDisc::AutoMode follows pkt_sched_msfc.h");

/// Auto: the longest T_up, in CoDel units (times compare as signed 32-bit differences).
constexpr uint64_t AUTO_UP_MAX = (uint64_t{1} << 31) - 1;

/// The help text of the Auto attribute (T_up from pkt_sched_msfc.h).
std::string
AutoHelp()
{
    return "Automatic priorities (docs/algorithm.md, \"Automatic priorities\"): \"off\", a "
           "packet's class comes from its mark (the thesis); \"unmarked\", a packet the DSCP "
           "map classifies whose DSCP is 0 goes to the class its flow slot (its flow queue "
           "index) has earned, starting at DSCP 0's class: the slot climbs one class when a "
           "packet finds its flow queue there empty and the slot has kept its class for " +
           std::to_string(TC_MSFC_AUTO_UP_INTERVALS) +
           " intervals, and sinks one class when CoDel's drop test fires on one of its packets "
           "of that class; \"all\", every packet the DSCP map classifies, its DSCP ignored. A "
           "packet with an explicit class (UseSocketPriority) and a non-IP packet keep their "
           "class";
}

/// The kernel's message for a parameter out of its range: "<name> must be <range>".
std::string
RangeMessage(const char* name, const char* range)
{
    return std::string(name) + " must be " + range;
}

} // namespace

TypeId
MsfcQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MsfcQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<MsfcQueueDisc>()
            .AddAttribute("Prios",
                          "Number of priority classes (" TC_MSFC_PRIOS_RANGE
                          "); class Prios-1 is the most important",
                          UintegerValue(TC_MSFC_PRIOS_DEFAULT),
                          MakeUintegerAccessor(&MsfcQueueDisc::m_prios),
                          MakeUintegerChecker<uint32_t>(TC_MSFC_PRIOS_MIN, TC_MSFC_PRIOS_MAX))
            .AddAttribute("Flows",
                          "Number of flow queues (hash buckets) in each class (" TC_MSFC_FLOWS_RANGE
                          ")",
                          UintegerValue(TC_MSFC_FLOWS_DEFAULT),
                          MakeUintegerAccessor(&MsfcQueueDisc::m_nFlows),
                          MakeUintegerChecker<uint32_t>(TC_MSFC_FLOWS_MIN, TC_MSFC_FLOWS_MAX))
            .AddAttribute("Quantum",
                          "Bytes of the inner fair DRR quantum and of class 0's outer quantum "
                          "(" TC_MSFC_QUANTUM_RANGE
                          "); 0 means the MTU of the device (1500 without a device)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MsfcQueueDisc::m_quantumAttr),
                          MakeUintegerChecker<uint32_t>(0, TC_MSFC_QUANTUM_MAX))
            .AddAttribute("Ratio",
                          "Bandwidth ratio of adjacent classes: class p has outer quantum "
                          "Quantum * Ratio^p (" TC_MSFC_RATIO_RANGE ")",
                          DoubleValue(TC_MSFC_RATIO_DEFAULT / RATIO_ONE),
                          MakeDoubleAccessor(&MsfcQueueDisc::m_ratio),
                          MakeDoubleChecker<double>(TC_MSFC_RATIO_MIN / RATIO_ONE,
                                                    TC_MSFC_RATIO_MAX / RATIO_ONE))
            .AddAttribute(
                "Target",
                "CoDel target queue delay (" TC_MSFC_TARGET_RANGE "; below Interval)",
                TimeValue(MicroSeconds(TC_MSFC_TARGET_DEFAULT)),
                MakeTimeAccessor(&MsfcQueueDisc::m_target),
                MakeTimeChecker(MicroSeconds(TC_MSFC_TARGET_MIN), MicroSeconds(TC_MSFC_TARGET_MAX)))
            .AddAttribute("Interval",
                          "CoDel interval (" TC_MSFC_INTERVAL_RANGE "; above Target)",
                          TimeValue(MicroSeconds(TC_MSFC_INTERVAL_DEFAULT)),
                          MakeTimeAccessor(&MsfcQueueDisc::m_interval),
                          MakeTimeChecker(MicroSeconds(TC_MSFC_INTERVAL_MIN),
                                          MicroSeconds(TC_MSFC_INTERVAL_MAX)))
            .AddAttribute("MaxSize",
                          "Most packets (or bytes) the queue disc holds; above it packets are "
                          "dropped from the fattest flow",
                          QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, TC_MSFC_LIMIT_DEFAULT)),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute(
                "DropBatchSize",
                "Most packets dropped from the fattest flow per overload "
                "(" TC_MSFC_DROP_BATCH_RANGE ")",
                UintegerValue(TC_MSFC_DROP_BATCH_DEFAULT),
                MakeUintegerAccessor(&MsfcQueueDisc::m_dropBatchSize),
                MakeUintegerChecker<uint32_t>(TC_MSFC_DROP_BATCH_MIN, TC_MSFC_DROP_BATCH_MAX))
            .AddAttribute("UseEcn",
                          "CE-mark ECN-capable packets instead of dropping them in CoDel",
                          BooleanValue(TC_MSFC_ECN_DEFAULT != 0),
                          MakeBooleanAccessor(&MsfcQueueDisc::m_useEcn),
                          MakeBooleanChecker())
            .AddAttribute("Perturbation",
                          "Perturbation (salt) of the flow hash",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MsfcQueueDisc::m_perturbation),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("UseSocketPriority",
                          "Classify by the packet's SocketPriorityTag when it has one (class = "
                          "priority, clamped to Prios-1); otherwise by DSCP. Note that ns-3 "
                          "sockets derive the tag from the IP TOS they send with",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MsfcQueueDisc::m_useSocketPriority),
                          MakeBooleanChecker())
            .AddAttribute("DscpMap",
                          "DSCP to class overrides, e.g. \"EF=2, CS1=0, 10=0\" (names or "
                          "numbers 0..63); an entry is a class, a class with +nqb (its flows "
                          "are NQB flows of the class: \"NQB=1+nqb\") or le (the least-effort "
                          "lane, served only when every class is empty: \"LE=le\"); unlisted "
                          "code points follow the default map of docs/algorithm.md, or the map "
                          "named first (" TC_MSFC_DSCP_MAP_NAMES
                          ": \"wifi, CS6=1\"); classes >= Prios are clamped to Prios-1",
                          StringValue(""),
                          MakeStringAccessor(&MsfcQueueDisc::m_dscpMapSpec),
                          MakeStringChecker())
            .AddAttribute("Overload",
                          "Victim of an overload drop: \"flow\", the fattest flow over all "
                          "classes (the thesis); \"class\", the class most above its share of "
                          "the buffer (largest backlog / class quantum), then its fattest flow",
                          EnumValue(OVERLOAD_FLOW),
                          MakeEnumAccessor<OverloadMode>(&MsfcQueueDisc::m_overload),
                          MakeEnumChecker(OVERLOAD_FLOW, "flow", OVERLOAD_CLASS, "class"))
            .AddAttribute("Weights",
                          "Class quanta and deficits: \"rounded\", whole bytes of at least 1 "
                          "(the thesis); \"exact\", 1/65536 byte, so that class shares follow "
                          "Ratio^p / sum within 0.5 % (configurations that cannot are rejected)",
                          EnumValue(WEIGHTS_ROUNDED),
                          MakeEnumAccessor<WeightsMode>(&MsfcQueueDisc::m_weights),
                          MakeEnumChecker(WEIGHTS_ROUNDED, "rounded", WEIGHTS_EXACT, "exact"))
            .AddAttribute("Inversion",
                          "Per-flow priority order: \"allow\", class quanta as configured (the "
                          "thesis: a crowded class may give its flows less each than a lower "
                          "class); \"prevent\", a class below busy classes is refilled with at "
                          "most its active flows times their smallest per-flow quantum, divided "
                          "by Ratio per class down (at least 1 unit)",
                          EnumValue(INVERSION_ALLOW),
                          MakeEnumAccessor<InversionMode>(&MsfcQueueDisc::m_inversion),
                          MakeEnumChecker(INVERSION_ALLOW, "allow", INVERSION_PREVENT, "prevent"))
            .AddAttribute("Isolate",
                          "Fairness inside a class: \"flow\", every flow one share (the "
                          "thesis); \"src\", \"dst\": every source (destination) host one "
                          "share, split among its flows; \"both\": a flow gets the share of its "
                          "busier host, source or destination (hosts hashed as flows are)",
                          EnumValue(ISOLATE_FLOW),
                          MakeEnumAccessor<IsolateMode>(&MsfcQueueDisc::m_isolate),
                          MakeEnumChecker(ISOLATE_FLOW,
                                          "flow",
                                          ISOLATE_SRC,
                                          "src",
                                          ISOLATE_DST,
                                          "dst",
                                          ISOLATE_BOTH,
                                          "both"))
            .AddAttribute("Boost",
                          "Sparse-flow boost: \"off\", a flow that becomes active joins the "
                          "tail of its class's round (the thesis); \"on\", it is served before "
                          "the class's other flows for one quantum (fq_codel's new-flow list); "
                          "\"across\", as \"on\", and the classes' new flows also go ahead of "
                          "the class round, most important class first, charged to their class "
                          "while it has borrowed less than one class quantum",
                          EnumValue(static_cast<BoostMode>(TC_MSFC_BOOST_DEFAULT)),
                          MakeEnumAccessor<BoostMode>(&MsfcQueueDisc::m_boost),
                          MakeEnumChecker(BOOST_OFF, "off", BOOST_ON, "on", BOOST_ACROSS, "across"))
            .AddAttribute("Order",
                          "Which class the outer DRR serves: \"round\", the classes take turns, "
                          "each its quantum (the thesis); \"priority\", within each round the "
                          "most important class (the highest index) with credit left is served "
                          "first, and every class still gets its quantum a round",
                          EnumValue(static_cast<OrderMode>(TC_MSFC_ORDER_DEFAULT)),
                          MakeEnumAccessor<OrderMode>(&MsfcQueueDisc::m_order),
                          MakeEnumChecker(ORDER_ROUND, "round", ORDER_PRIORITY, "priority"))
            .AddAttribute(
                "Auto",
                AutoHelp(),
                EnumValue(static_cast<AutoMode>(TC_MSFC_AUTO_DEFAULT)),
                MakeEnumAccessor<AutoMode>(&MsfcQueueDisc::m_auto),
                MakeEnumChecker(AUTO_OFF, "off", AUTO_UNMARKED, "unmarked", AUTO_ALL, "all"))
            .AddAttribute("Quanta",
                          "Class quanta in bytes, one per class from class 0, joined by commas "
                          "(e.g. \"95,1514,757,378\"), each " TC_MSFC_QUANTUM_RANGE
                          ", exactly Prios of them, in place of Quantum * Ratio^p; \"\" or "
                          "\"ratio\": from Quantum and Ratio. With Inversion=prevent class "
                          "Prios-1 ranks first and a per-flow quantum is scaled by Q_{k-1} / "
                          "Q_k from class k to the class below",
                          StringValue(""),
                          MakeStringAccessor(&MsfcQueueDisc::m_quantaSpec),
                          MakeStringChecker())
            .AddAttribute("CeThreshold",
                          "L4S marking (docs/algorithm.md, \"L4S marking\"): an ECT packet whose "
                          "TOS byte matches CeThresholdSelector/CeThresholdMask is CE-marked when "
                          "it leaves after more than this sojourn time (" TC_MSFC_CE_THRESHOLD_RANGE
                          ", whole microseconds); one time for every class (\"1ms\"), or one "
                          "time or \"off\" per class from class 0 joined by commas "
                          "(\"off,1ms,500us\"); \"\" or \"off\": none",
                          StringValue(""),
                          MakeStringAccessor(&MsfcQueueDisc::m_ceThresholdSpec),
                          MakeStringChecker())
            .AddAttribute("CeThresholdSelector",
                          "The TOS byte CeThreshold applies to: (tos & CeThresholdMask) == this "
                          "(" TC_MSFC_CE_THRESHOLD_SELECTOR_RANGE "; 1 with mask 3: ECT(1), L4S)",
                          UintegerValue(TC_MSFC_CE_THRESHOLD_SELECTOR_DEFAULT),
                          MakeUintegerAccessor(&MsfcQueueDisc::m_ceSelector),
                          MakeUintegerChecker<uint32_t>(TC_MSFC_CE_THRESHOLD_SELECTOR_MIN,
                                                        TC_MSFC_CE_THRESHOLD_SELECTOR_MAX))
            .AddAttribute(
                "CeThresholdMask",
                "The TOS bits CeThresholdSelector compares (" TC_MSFC_CE_THRESHOLD_MASK_RANGE
                "; 0: every ECT packet)",
                UintegerValue(TC_MSFC_CE_THRESHOLD_MASK_DEFAULT),
                MakeUintegerAccessor(&MsfcQueueDisc::m_ceMask),
                MakeUintegerChecker<uint32_t>(TC_MSFC_CE_THRESHOLD_MASK_MIN,
                                              TC_MSFC_CE_THRESHOLD_MASK_MAX))
            .AddTraceSource("ClassBacklog",
                            "Packets and bytes queued in a class, fired whenever they change "
                            "(enqueue, dequeue, CoDel or overload drop)",
                            MakeTraceSourceAccessor(&MsfcQueueDisc::m_classBacklogTrace),
                            "ns3::MsfcQueueDisc::ClassBacklogCallback")
            .AddTraceSource("Sojourn",
                            "Sojourn time of every packet handed to the device, with its class "
                            "and flow queue",
                            MakeTraceSourceAccessor(&MsfcQueueDisc::m_sojournTrace),
                            "ns3::MsfcQueueDisc::SojournCallback")
            .AddTraceSource("CoDelState",
                            "CoDel state of a flow queue (dropping, count, drop_next), fired "
                            "when a dequeue changes it",
                            MakeTraceSourceAccessor(&MsfcQueueDisc::m_codelStateTrace),
                            "ns3::MsfcQueueDisc::CoDelStateCallback")
            .AddTraceSource("OverloadDrop",
                            "A packet dropped from the fattest flow because the queue disc held "
                            "more than MaxSize, with its class and flow queue",
                            MakeTraceSourceAccessor(&MsfcQueueDisc::m_overloadDropTrace),
                            "ns3::MsfcQueueDisc::OverloadDropCallback")
            .AddTraceSource("Classified",
                            "A packet accepted, with the class and flow queue it was put in and "
                            "whether Auto chose its class (fired before an overload drop the "
                            "enqueue makes)",
                            MakeTraceSourceAccessor(&MsfcQueueDisc::m_classifiedTrace),
                            "ns3::MsfcQueueDisc::ClassifiedCallback")
            .AddTraceSource("AutoLevel",
                            "Auto: a flow slot changed class (a promotion, a demotion, or a "
                            "demotion at class 0 that keeps it there), with the slot, the class "
                            "before and the class now",
                            MakeTraceSourceAccessor(&MsfcQueueDisc::m_autoLevelTrace),
                            "ns3::MsfcQueueDisc::AutoLevelCallback")
            .AddTraceSource("NqbDemotion",
                            "Queue protection moved an NQB flow to its class's old flows (it "
                            "held more than a quantum of bytes), with the class (Prios: the "
                            "least-effort lane) and flow queue",
                            MakeTraceSourceAccessor(&MsfcQueueDisc::m_nqbDemotionTrace),
                            "ns3::MsfcQueueDisc::NqbDemotionCallback");
    return tid;
}

MsfcQueueDisc::MsfcQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::MULTIPLE_QUEUES)
{
    NS_LOG_FUNCTION(this);
}

MsfcQueueDisc::~MsfcQueueDisc()
{
    NS_LOG_FUNCTION(this);
}

void
MsfcQueueDisc::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_flows.clear();
    m_flowHosts.clear();
    m_classes.clear();
    m_store = nullptr;
    m_activeHead = m_activeTail = NIL;
    QueueDisc::DoDispose();
}

std::string
MsfcQueueDisc::GetAttributeRange(const std::string& attribute)
{
    static const std::map<std::string, std::string> ranges = {
        {"Prios", TC_MSFC_PRIOS_RANGE},
        {"Flows", TC_MSFC_FLOWS_RANGE},
        {"Quantum", TC_MSFC_QUANTUM_RANGE ", or 0 for the device MTU"},
        {"Ratio", TC_MSFC_RATIO_RANGE},
        {"Target", TC_MSFC_TARGET_RANGE ", below Interval"},
        {"Interval", TC_MSFC_INTERVAL_RANGE ", above Target"},
        {"DropBatchSize", TC_MSFC_DROP_BATCH_RANGE},
        {"MaxSize", TC_MSFC_LIMIT_RANGE " or byte"},
        {"Overload", "flow|class"},
        {"Weights", "rounded|exact"},
        {"Inversion", "allow|prevent"},
        {"Isolate", "flow|src|dst|both"},
        {"Boost", "off|on|across"},
        {"Order", "round|priority"},
        {"Auto", "off|unmarked|all"},
        {"Quanta",
         "byte counts joined by commas, one per class, each " TC_MSFC_QUANTUM_RANGE ", or ratio"},
        {"CeThreshold",
         "a time " TC_MSFC_CE_THRESHOLD_RANGE ", or one time or off per class joined by commas, "
         "or off"},
        {"CeThresholdSelector", TC_MSFC_CE_THRESHOLD_SELECTOR_RANGE},
        {"CeThresholdMask", TC_MSFC_CE_THRESHOLD_MASK_RANGE},
    };
    auto it = ranges.find(attribute);
    return it == ranges.end() ? std::string() : it->second;
}

std::vector<uint64_t>
MsfcQueueDisc::ComputeClassQuanta(uint64_t quantum, uint32_t ratioFixed, uint32_t prios, bool exact)
{
    const uint32_t shift = exact ? EXACT_SHIFT : 0;
    const uint64_t max = MAX_CLASS_QUANTUM << shift;
    std::vector<uint64_t> q;
    q.reserve(prios);
    uint64_t cur = quantum << shift;
    for (uint32_t p = 0; p < prios; ++p)
    {
        if (p > 0)
        {
            unsigned __int128 prod = static_cast<unsigned __int128>(cur) * ratioFixed + 32768;
            prod >>= 16;
            if (prod > max)
            {
                return {};
            }
            cur = static_cast<uint64_t>(prod);
            if (!exact)
            {
                cur = std::max<uint64_t>(1, cur);
            }
        }
        if (cur > max)
        {
            return {};
        }
        q.push_back(cur);
    }
    return q;
}

bool
MsfcQueueDisc::ExactQuantaAccurate(const std::vector<uint64_t>& quanta)
{
    uint64_t sum = 0;
    for (uint64_t q : quanta)
    {
        if (q == 0)
        {
            return false;
        }
        sum += (uint64_t{1} << 32) / q;
    }
    return sum <= (uint64_t{1} << 32) / 200;
}

bool
MsfcQueueDisc::ParseQuanta(const std::string& spec,
                           std::vector<uint32_t>& quanta,
                           std::string& error)
{
    quanta.clear();
    if (spec.empty() || spec == "ratio")
    {
        return true;
    }
    const std::string form = "Quanta=" + spec +
                             ": quanta must be byte counts joined by commas, one per class "
                             "(95,1514,757,378), or ratio";
    size_t start = 0;
    while (true)
    {
        const size_t comma = spec.find(',', start);
        const std::string part = spec.substr(start, comma - start);
        if (part.empty() || part.size() > 10 ||
            part.find_first_not_of("0123456789") != std::string::npos)
        {
            quanta.clear();
            error = form;
            return false;
        }
        const uint64_t v = std::stoull(part);
        if (v < TC_MSFC_QUANTUM_MIN || v > TC_MSFC_QUANTUM_MAX)
        {
            quanta.clear();
            error = "Quanta=" + spec + ": " TC_MSFC_QUANTA_RANGE_MSG;
            return false;
        }
        quanta.push_back(static_cast<uint32_t>(v));
        if (comma == std::string::npos)
        {
            return true;
        }
        start = comma + 1;
    }
}

bool
MsfcQueueDisc::ParseCeThreshold(const std::string& spec,
                                std::vector<int64_t>& us,
                                std::string& error)
{
    us.clear();
    if (spec.empty() || spec == "off")
    {
        return true;
    }
    size_t start = 0;
    while (true)
    {
        const size_t comma = spec.find(',', start);
        const std::string part = spec.substr(start, comma - start);
        if (part == "off")
        {
            us.push_back(CE_THRESHOLD_OFF);
        }
        else
        {
            // a time with its unit, in whole microseconds as the kernel keeps it
            Time t;
            std::istringstream is(part);
            if (part.empty() || part.find_first_not_of("0123456789.") == 0 ||
                !std::isalpha(static_cast<unsigned char>(part.back())) || !(is >> t) || !is.eof() ||
                t.IsStrictlyNegative() || t.GetNanoSeconds() % 1000 != 0)
            {
                us.clear();
                error = "CeThreshold=" + spec +
                        ": ce_threshold must be a time in whole microseconds (1ms), one time "
                        "or off per class joined by commas (off,1ms,500us), or off";
                return false;
            }
            const int64_t v = t.GetNanoSeconds() / 1000;
            if (v < TC_MSFC_CE_THRESHOLD_MIN || v > TC_MSFC_CE_THRESHOLD_MAX)
            {
                us.clear();
                error = "CeThreshold=" + spec + ": " TC_MSFC_CE_THRESHOLD_RANGE_MSG;
                return false;
            }
            us.push_back(v);
        }
        if (us.size() > TC_MSFC_PRIOS_MAX)
        {
            us.clear();
            error = "CeThreshold=" + spec + ": " TC_MSFC_CE_THRESHOLD_COUNT_MSG;
            return false;
        }
        if (comma == std::string::npos)
        {
            return true;
        }
        start = comma + 1;
    }
}

std::string
MsfcQueueDisc::ValidateConfiguration() const
{
    // The attribute checkers refuse values outside the ranges when they are set; this checks
    // them again (a subclass or a direct member access could bypass them) and the rules
    // between attributes, in the kernel's words: "<Attribute>=<value>: <kernel message>".
    std::ostringstream err;
    const int64_t ratioFixed = RatioFixed(m_ratio);
    std::vector<int64_t> ceThreshold;
    std::string ceError;
    if (m_prios < TC_MSFC_PRIOS_MIN || m_prios > TC_MSFC_PRIOS_MAX)
    {
        err << "Prios=" << m_prios << ": " << RangeMessage("prios", TC_MSFC_PRIOS_RANGE);
    }
    else if (m_nFlows < TC_MSFC_FLOWS_MIN || m_nFlows > TC_MSFC_FLOWS_MAX)
    {
        err << "Flows=" << m_nFlows << ": " << RangeMessage("flows", TC_MSFC_FLOWS_RANGE);
    }
    else if (m_quantumAttr > TC_MSFC_QUANTUM_MAX)
    {
        err << "Quantum=" << m_quantumAttr << ": " << RangeMessage("quantum", TC_MSFC_QUANTUM_RANGE)
            << " (or 0 for the device MTU)";
    }
    else if (ratioFixed < TC_MSFC_RATIO_MIN || ratioFixed > TC_MSFC_RATIO_MAX)
    {
        err << "Ratio=" << m_ratio << ": " << RangeMessage("ratio", TC_MSFC_RATIO_RANGE);
    }
    else if (m_target < MicroSeconds(TC_MSFC_TARGET_MIN) ||
             m_target > MicroSeconds(TC_MSFC_TARGET_MAX))
    {
        err << "Target=" << m_target.As(Time::MS) << ": "
            << RangeMessage("target", TC_MSFC_TARGET_RANGE);
    }
    else if (m_interval < MicroSeconds(TC_MSFC_INTERVAL_MIN) ||
             m_interval > MicroSeconds(TC_MSFC_INTERVAL_MAX))
    {
        err << "Interval=" << m_interval.As(Time::MS) << ": "
            << RangeMessage("interval", TC_MSFC_INTERVAL_RANGE);
    }
    else if (m_target >= m_interval)
    {
        err << "Target=" << m_target.As(Time::MS) << ", Interval=" << m_interval.As(Time::MS)
            << ": " TC_MSFC_TARGET_INTERVAL_MSG;
    }
    else if (m_dropBatchSize < TC_MSFC_DROP_BATCH_MIN || m_dropBatchSize > TC_MSFC_DROP_BATCH_MAX)
    {
        err << "DropBatchSize=" << m_dropBatchSize << ": "
            << RangeMessage("drop_batch", TC_MSFC_DROP_BATCH_RANGE);
    }
    else if (GetMaxSize().GetValue() < TC_MSFC_LIMIT_MIN)
    {
        err << "MaxSize=" << GetMaxSize() << ": " << RangeMessage("limit", TC_MSFC_LIMIT_RANGE)
            << " or byte";
    }
    else if (m_ceSelector > TC_MSFC_CE_THRESHOLD_SELECTOR_MAX)
    {
        err << "CeThresholdSelector=" << m_ceSelector << ": "
            << RangeMessage("ce_threshold_selector", TC_MSFC_CE_THRESHOLD_SELECTOR_RANGE);
    }
    else if (m_ceMask > TC_MSFC_CE_THRESHOLD_MASK_MAX)
    {
        err << "CeThresholdMask=" << m_ceMask << ": "
            << RangeMessage("ce_threshold_mask", TC_MSFC_CE_THRESHOLD_MASK_RANGE);
    }
    else if (m_ceSelector & ~m_ceMask)
    {
        err << "CeThresholdSelector=" << m_ceSelector << ", CeThresholdMask=" << m_ceMask
            << ": " TC_MSFC_CE_SELECTOR_MSG;
    }
    else if (!ParseCeThreshold(m_ceThresholdSpec, ceThreshold, ceError))
    {
        err << ceError;
    }
    else if (ceThreshold.size() > 1 && ceThreshold.size() != m_prios)
    {
        // also a new Prios without a new list
        err << "CeThreshold=" << m_ceThresholdSpec << ", Prios=" << m_prios
            << ": " TC_MSFC_CE_THRESHOLD_COUNT_MSG;
    }
    else
    {
        // Quantum=0: the device MTU once initialized (Change), 1500 bytes before
        const uint64_t mtu = m_mtu ? m_mtu : QUEUE_DISC_DEFAULT_MTU;
        const uint64_t q0 = m_quantumAttr ? m_quantumAttr : mtu;
        const bool exact = m_weights == WEIGHTS_EXACT;
        auto quanta = ComputeClassQuanta(q0, static_cast<uint32_t>(ratioFixed), m_prios, exact);
        std::vector<uint32_t> given;
        std::string quantaError;
        if (!ParseQuanta(m_quantaSpec, given, quantaError))
        {
            err << quantaError;
        }
        else if (!given.empty() && given.size() != m_prios)
        {
            // also a new Prios without new Quanta
            err << "Quanta=" << m_quantaSpec << ", Prios=" << m_prios
                << ": " TC_MSFC_QUANTA_COUNT_MSG;
        }
        else if (!given.empty())
        {
            // explicit quanta (1 .. 2^20 bytes) are within both bounds
            std::array<int32_t, 64> map;
            std::string mapError;
            if (!DscpClassifier::ParseDscpMap(m_dscpMapSpec, map, mapError))
            {
                err << mapError;
            }
        }
        else if (quanta.empty())
        {
            err << "Quantum=" << q0 << ", Ratio=" << m_ratio << ", Prios=" << m_prios
                << ": " TC_MSFC_CLASS_QUANTUM_MSG;
        }
        else if (exact && !ExactQuantaAccurate(quanta))
        {
            err << "Weights=exact, Quantum=" << q0 << ", Ratio=" << m_ratio << ", Prios=" << m_prios
                << ": " TC_MSFC_EXACT_WEIGHTS_MSG;
        }
        else
        {
            std::array<int32_t, 64> map;
            std::string mapError;
            if (!DscpClassifier::ParseDscpMap(m_dscpMapSpec, map, mapError))
            {
                err << mapError;
            }
        }
    }
    std::string msg = err.str();
    return msg.empty() ? msg : "MsfcQueueDisc: " + msg;
}

bool
MsfcQueueDisc::CheckConfig()
{
    NS_LOG_FUNCTION(this);
    // Configuration errors end the simulation through ns-3's error path with the message
    // (a false return would only give QueueDisc's generic "configuration is not correct").
    NS_ABORT_MSG_IF(GetNQueueDiscClasses() > 0,
                    "MsfcQueueDisc: it cannot have queue disc classes (it builds its own)");
    NS_ABORT_MSG_IF(GetNPacketFilters() > 0,
                    "MsfcQueueDisc: it classifies by itself; remove the packet filters");
    NS_ABORT_MSG_IF(GetNInternalQueues() > 0,
                    "MsfcQueueDisc: it creates its own internal queues; do not add any");
    std::string error = ValidateConfiguration();
    NS_ABORT_MSG_IF(!error.empty(), error);
    m_store = CreateObject<FlowPacketStore>();
    AddInternalQueue(m_store);
    return true;
}

void
MsfcQueueDisc::InitializeParams()
{
    NS_LOG_FUNCTION(this);
    uint32_t deviceMtu = QueueDiscDeviceMtu(*this);
    m_mtu = deviceMtu ? deviceMtu : QUEUE_DISC_DEFAULT_MTU;
    AllocateTables();
    ApplyParameters();
}

void
MsfcQueueDisc::ApplyParameters()
{
    m_quantum = m_quantumAttr ? m_quantumAttr : m_mtu;
    // "backlog at most one MTU" is one quantum (docs/algorithm.md), as in the Linux qdisc
    m_codel.Configure(m_target, m_interval, m_quantum, CoDelCore::Flavour::LINUX);

    const bool exact = m_weights == WEIGHTS_EXACT;
    m_classScale = exact ? int64_t{1} << EXACT_SHIFT : 1;
    m_ratioFixed = static_cast<uint32_t>(RatioFixed(m_ratio)); // in range: validated above
    auto quanta = ComputeClassQuanta(m_quantum, m_ratioFixed, m_prios, exact);
    std::string quantaError;
    NS_ABORT_MSG_IF(!ParseQuanta(m_quantaSpec, m_explicitQuanta, quantaError), quantaError);
    NS_ABORT_MSG_IF(!m_explicitQuanta.empty() && m_explicitQuanta.size() != m_prios,
                    "MsfcQueueDisc: Quanta=" << m_quantaSpec << ": " TC_MSFC_QUANTA_COUNT_MSG);
    if (!m_explicitQuanta.empty())
    {
        // the operator's class quanta in place of Quantum * Ratio^p
        quanta.assign(m_explicitQuanta.begin(), m_explicitQuanta.end());
        for (uint64_t& q : quanta)
        {
            q <<= exact ? EXACT_SHIFT : 0;
        }
    }
    NS_ABORT_MSG_IF(quanta.empty(), "MsfcQueueDisc: class quanta overflow");
    // the device MTU may be smaller than the 1500 bytes ValidateConfiguration assumed
    NS_ABORT_MSG_IF(
        exact && !ExactQuantaAccurate(quanta),
        "MsfcQueueDisc: Weights=exact with the device's quantum: " TC_MSFC_EXACT_WEIGHTS_MSG);
    m_flowScale = m_isolate != ISOLATE_FLOW ? int64_t{1} << ISOLATE_SHIFT : 1;
    for (uint32_t p = 0; p < m_prios; ++p)
    {
        m_classes[p].quantum = quanta[p];
    }

    // DSCP map: the default rule, then the user's overrides (validated in CheckConfig).
    m_classifier.Configure(m_prios, m_dscpMapSpec, m_useSocketPriority);
    // Auto: the home class keeps the slots' state; T_up follows the interval
    m_home = m_classifier.ClassOfDscp(0);
    const uint64_t intervalTicks = static_cast<uint64_t>(m_codel.ToTicks(m_codel.GetIntervalNs()));
    m_autoUp = static_cast<uint32_t>(
        std::min<uint64_t>(TC_MSFC_AUTO_UP_INTERVALS * intervalTicks, AUTO_UP_MAX));
    // L4S marking: each class's threshold in CoDel units (one entry: every class), as the
    // kernel converts microseconds: (us * 1000) >> 10
    std::vector<int64_t> us;
    std::string ceError;
    NS_ABORT_MSG_IF(!ParseCeThreshold(m_ceThresholdSpec, us, ceError), ceError);
    NS_ABORT_MSG_IF(us.size() > 1 && us.size() != m_prios,
                    "MsfcQueueDisc: CeThreshold=" << m_ceThresholdSpec
                                                  << ": " TC_MSFC_CE_THRESHOLD_COUNT_MSG);
    m_ceThreshold.assign(m_prios, CE_THRESHOLD_OFF); // the lane: class 0's (CeThresholdOf)
    for (uint32_t p = 0; p < m_prios && !us.empty(); ++p)
    {
        const int64_t v = us.size() == 1 ? us[0] : us[p];
        m_ceThreshold[p] = v == CE_THRESHOLD_OFF ? CE_THRESHOLD_OFF : m_codel.ToTicks(v * 1000);
    }
}

void
MsfcQueueDisc::AllocateTables()
{
    // the classes, then the least-effort lane (index Prios), each with Flows flow records
    m_classes.assign(m_prios + 1, Class{});
    static_assert(sizeof(Flow) == 88, "flow record size is documented (docs/design.md)");
    m_flows.assign(static_cast<size_t>(m_prios + 1) * m_nFlows, Flow{});
    // Auto: every slot starts at its record's class, its time the allocation's
    const uint32_t now = CoDelNow();
    for (size_t i = 0; i < m_flows.size(); ++i)
    {
        m_flows[i].level = static_cast<uint8_t>(i / m_nFlows);
        m_flows[i].clean = now;
        m_flows[i].last = now;
    }
    m_activeHead = m_activeTail = NIL;
    m_round = 1; // every class's round is 0 again (Class{})
    ResetHostTables();
}

void
MsfcQueueDisc::ResetHostTables()
{
    const size_t hosts = m_isolate != ISOLATE_FLOW ? m_nFlows : 0;
    for (Class& c : m_classes)
    {
        c.srcLoad.assign(hosts, 0);
        c.dstLoad.assign(hosts, 0);
        c.srcDeficit.assign(hosts, 0);
        c.dstDeficit.assign(hosts, 0);
    }
    m_flowHosts.assign(hosts ? m_flows.size() : 0, FlowHosts{});
}

void
MsfcQueueDisc::UnlistAll()
{
    for (Class& c : m_classes)
    {
        // the old list, the new one (Boost on or across leaves emptied flows on it), the NQB one
        for (uint32_t head : {c.head, c.newHead, c.nqbHead})
        {
            for (uint32_t idx = head; idx != NIL;)
            {
                Flow& flow = m_flows[idx];
                idx = flow.next;
                flow.next = NIL;
                flow.active = false;
                flow.nqb = false;
            }
        }
        c.head = c.tail = c.newHead = c.newTail = c.nqbHead = c.nqbTail = NIL;
        c.nFlows = 0;
        c.nNqb = 0;
        c.next = NIL;
        c.active = false;
    }
    m_activeHead = m_activeTail = NIL;
}

MsfcQueueDisc::Settings
MsfcQueueDisc::SaveSettings() const
{
    return Settings{m_prios,
                    m_nFlows,
                    m_quantumAttr,
                    m_ratio,
                    m_target,
                    m_interval,
                    m_dropBatchSize,
                    m_useEcn,
                    m_useSocketPriority,
                    m_dscpMapSpec,
                    m_overload,
                    m_weights,
                    m_inversion,
                    m_isolate,
                    m_boost,
                    m_order,
                    m_auto,
                    m_quantaSpec,
                    GetMaxSize(),
                    m_ceThresholdSpec,
                    m_ceSelector,
                    m_ceMask};
}

void
MsfcQueueDisc::RestoreSettings(const Settings& s)
{
    m_prios = s.prios;
    m_nFlows = s.nFlows;
    m_quantumAttr = s.quantumAttr;
    m_ratio = s.ratio;
    m_target = s.target;
    m_interval = s.interval;
    m_dropBatchSize = s.dropBatchSize;
    m_useEcn = s.useEcn;
    m_useSocketPriority = s.useSocketPriority;
    m_dscpMapSpec = s.dscpMapSpec;
    m_overload = s.overload;
    m_weights = s.weights;
    m_inversion = s.inversion;
    m_isolate = s.isolate;
    m_boost = s.boost;
    m_order = s.order;
    m_auto = s.autoMode;
    m_quantaSpec = s.quantaSpec;
    SetMaxSize(s.maxSize);
    m_ceThresholdSpec = s.ceThresholdSpec;
    m_ceSelector = s.ceSelector;
    m_ceMask = s.ceMask;
}

MsfcQueueDisc::ChangeResult
MsfcQueueDisc::Change(const std::vector<std::pair<std::string, std::string>>& attributes,
                      std::string& error)
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_classes.empty(),
                    "MsfcQueueDisc::Change: the queue disc is not initialized yet (set its "
                    "attributes instead)");
    // what `tc qdisc change` can change (Perturbation cannot: queued packets would change flow)
    static const std::set<std::string> changeable = {"Prios",
                                                     "Flows",
                                                     "Quantum",
                                                     "Ratio",
                                                     "MaxSize",
                                                     "DropBatchSize",
                                                     "Target",
                                                     "Interval",
                                                     "UseEcn",
                                                     "Overload",
                                                     "Weights",
                                                     "Inversion",
                                                     "Isolate",
                                                     "Boost",
                                                     "Order",
                                                     "Auto",
                                                     "Quanta",
                                                     "CeThreshold",
                                                     "CeThresholdSelector",
                                                     "CeThresholdMask",
                                                     "DscpMap",
                                                     "UseSocketPriority"};
    const Settings old = SaveSettings();
    for (const auto& [name, value] : attributes)
    {
        if (!changeable.count(name))
        {
            RestoreSettings(old);
            error = "MsfcQueueDisc: attribute " + name + " cannot be changed";
            return CHANGE_INVALID;
        }
        // a mode's word: ns-3's enum checker asserts on an unknown one, so check it first
        const std::string words = GetAttributeRange(name);
        const bool mode = words.find('|') != std::string::npos;
        if ((mode && ("|" + words + "|").find("|" + value + "|") == std::string::npos) ||
            !SetAttributeFailSafe(name, StringValue(value)))
        {
            RestoreSettings(old);
            std::string range = GetAttributeRange(name);
            error = "MsfcQueueDisc: " + name + "=" + value + ": invalid value" +
                    (range.empty() ? "" : " (allowed: " + range + ")");
            return CHANGE_INVALID;
        }
    }
    std::string invalid = ValidateConfiguration();
    if (!invalid.empty())
    {
        RestoreSettings(old);
        error = invalid;
        return CHANGE_INVALID;
    }
    const bool resize = m_prios != old.prios || m_nFlows != old.nFlows;
    const bool reisolate = m_isolate != old.isolate;
    if ((resize || reisolate) && GetNPackets() > 0)
    {
        RestoreSettings(old);
        error = resize ? TC_MSFC_RESIZE_BUSY_MSG : TC_MSFC_ISOLATE_BUSY_MSG;
        return CHANGE_BUSY;
    }

    if (resize)
    {
        // 1. new records (the queue disc is idle); the counters of the classes that remain
        // and of the least-effort lane
        std::vector<MsfcClassStats> stats;
        for (uint32_t p = 0; p < std::min(old.prios, m_prios); ++p)
        {
            stats.push_back(m_classes[p].stats);
        }
        const MsfcClassStats lane = m_classes[old.prios].stats;
        AllocateTables();
        for (uint32_t p = 0; p < stats.size(); ++p)
        {
            m_classes[p].stats = stats[p];
        }
        m_classes[m_prios].stats = lane;
    }
    else if (reisolate)
    {
        // 2. flows left on their lists leave them; no host load or deficit of the old mode
        // survives (and Isolate=flow -> another mode: the host tables are allocated here)
        UnlistAll();
        ResetHostTables();
        // nor a flow deficit kept in the old mode's unit (Boost=across): fresh quanta for all
        for (Flow& f : m_flows)
        {
            f.sparse = false;
        }
    }
    if (m_weights != old.weights)
    {
        // 3. every class's deficit in the new unit (also a class out of the active list: with
        // Order=priority one that returns in the same round gets it back): rounded -> exact
        // * 65536, exact -> rounded floor(d / 65536) (an arithmetic shift in C++20, also below
        // 0); a rounded deficit is at most 2^40 bytes, so the product fits
        for (Class& c : m_classes)
        {
            int64_t& d = c.deficit;
            d = m_weights == WEIGHTS_EXACT ? d * (int64_t{1} << EXACT_SHIFT) : d >> EXACT_SHIFT;
        }
    }
    if (m_order == ORDER_PRIORITY && old.order != ORDER_PRIORITY)
    {
        // 4. the listed classes have taken part in a new round, with the credit they have
        // (priority -> round: they keep their deficits and take turns in the list's order)
        ++m_round;
        for (uint32_t cls = m_activeHead; cls != NIL; cls = m_classes[cls].next)
        {
            m_classes[cls].round = m_round;
        }
    }
    // 5. what follows from the new values; deficits keep theirs
    ApplyParameters();
    // 6. a lower limit drops from the victims of Overload, keeping the rest
    while (GetCurrentSize() > GetMaxSize())
    {
        if (OverloadDrop() == 0)
        {
            break;
        }
    }
    return CHANGE_OK;
}

uint32_t
MsfcQueueDisc::GetNClasses() const
{
    return m_prios;
}

uint64_t
MsfcQueueDisc::GetClassQuantum(uint32_t cls) const
{
    NS_ASSERT_MSG(cls < m_classes.size(), "class index out of range or not initialized");
    return m_classes[cls].quantum;
}

uint32_t
MsfcQueueDisc::GetFlowQuantum() const
{
    return m_quantum;
}

MsfcClassStats
MsfcQueueDisc::GetClassStats(uint32_t cls) const
{
    NS_ASSERT_MSG(cls < m_classes.size(), "class index out of range or not initialized");
    MsfcClassStats s = m_classes[cls].stats;
    s.activeFlows = 0;
    for (uint32_t head : {m_classes[cls].head, m_classes[cls].newHead, m_classes[cls].nqbHead})
    {
        for (uint32_t f = head; f != NIL; f = m_flows[f].next)
        {
            ++s.activeFlows;
        }
    }
    return s;
}

uint64_t
MsfcQueueDisc::GetNqbDemotions() const
{
    return m_nqbDemotions;
}

uint32_t
MsfcQueueDisc::ClassOfDscp(uint8_t dscp) const
{
    return m_classifier.EntryOfDscp(dscp) == DscpClassifier::ENTRY_LE
               ? m_prios
               : m_classifier.ClassOfDscp(dscp);
}

uint8_t
MsfcQueueDisc::DscpForDefaultClass(uint32_t cls)
{
    return DscpClassifier::DscpForDefaultClass(cls);
}

uint32_t
MsfcQueueDisc::Classify(Ptr<const QueueDiscItem> item) const
{
    bool autoPacket;
    bool promote;
    bool nqb;
    const uint32_t slot = m_flows.empty() ? 0 : item->Hash(m_perturbation) % m_nFlows;
    return ClassifyAuto(item, slot, autoPacket, promote, nqb);
}

uint32_t
MsfcQueueDisc::ClassifyAuto(Ptr<const QueueDiscItem> item,
                            uint32_t slot,
                            bool& autoPacket,
                            bool& promote,
                            bool& nqb) const
{
    DscpClassifier::Origin origin;
    uint8_t dscp;
    const DscpClassifier::Treatment t = m_classifier.ClassifyTreatment(item, origin, dscp);
    promote = false;
    // an auto packet: classified by the DSCP map (no explicit class, an IP packet), with
    // Auto=unmarked unmarked (DSCP 0); its mark, LE and NQB included, is ignored
    autoPacket = m_auto != AUTO_OFF && !m_flows.empty() && origin == DscpClassifier::Origin::DSCP &&
                 (m_auto == AUTO_ALL || dscp == 0);
    if (!autoPacket)
    {
        bool lane = t.lane;
        nqb = t.nqb;
        if (origin == DscpClassifier::Origin::SOCKET_PRIORITY)
        {
            // an explicit class has neither, unless the item names them (trace replays)
            auto e = dynamic_cast<const ExplicitTreatmentItem*>(PeekPointer(item));
            lane = e && e->LeastEffort();
            nqb = e && !lane && e->Nqb();
        }
        return lane ? m_prios : t.cls;
    }
    nqb = false;
    // its slot's level, one up when the slot's flow queue there is empty and the slot has
    // been sparse at its class for T_up (an idle slot is sparse from this packet on, which
    // DoEnqueue records)
    const Flow& s = m_flows[m_home * m_nFlows + slot];
    const uint32_t c = s.level;
    const uint32_t now = CoDelNow();
    promote = c + 1 < m_prios && m_flows[c * m_nFlows + slot].packets.IsEmpty() &&
              !SlotIdle(s, now) && now - s.clean >= m_autoUp; // modulo 2^32
    return promote ? c + 1 : c;
}

bool
MsfcQueueDisc::SlotIdle(const Flow& s, uint32_t now) const
{
    return now - s.last >= m_autoUp; // modulo 2^32
}

uint32_t
MsfcQueueDisc::CoDelNow() const
{
    return static_cast<uint32_t>(m_codel.ToTicks(Simulator::Now().GetNanoSeconds()));
}

void
MsfcQueueDisc::AutoMove(uint32_t slot, uint32_t to, bool promotion)
{
    Flow& s = m_flows[m_home * m_nFlows + slot];
    const uint32_t from = s.level;
    s.level = static_cast<uint8_t>(to);
    s.clean = CoDelNow();
    MsfcClassStats& st = m_classes[from].stats;
    if (promotion)
    {
        m_autoPromotions++;
        st.autoPromotions++;
    }
    else
    {
        m_autoDemotions++;
        st.autoDemotions++;
    }
    NS_LOG_LOGIC("Auto: slot " << slot << " from class " << from << " to " << to);
    m_autoLevelTrace(slot, from, to);
}

void
MsfcQueueDisc::AutoDequeued(uint32_t cls, uint32_t idx)
{
    const uint32_t slot = idx % m_nFlows;
    const Flow& f = m_flows[idx];
    Flow& s = m_flows[m_home * m_nFlows + slot];
    if (s.level != cls)
    {
        return;
    }
    // CoDel's "may drop" on the packet just taken, read from the flow's state after its
    // test on that packet
    if (m_codel.MayDrop(f.codel, m_codel.ToTicks(Simulator::Now().GetNanoSeconds())))
    {
        AutoMove(slot, cls > 0 ? cls - 1 : 0, false);
    }
    else if (f.packets.bytes > m_quantum)
    {
        // more than one quantum left queued: the flow is not sparse, its time to climb
        // starts again
        s.clean = CoDelNow();
    }
}

uint32_t
MsfcQueueDisc::GetAutoHomeClass() const
{
    return m_home;
}

uint32_t
MsfcQueueDisc::GetAutoLevel(uint32_t slot) const
{
    NS_ASSERT_MSG(slot < m_nFlows && !m_flows.empty(), "flow slot out of range or not initialized");
    return m_flows[m_home * m_nFlows + slot].level;
}

uint64_t
MsfcQueueDisc::GetAutoPromotions() const
{
    return m_autoPromotions;
}

uint64_t
MsfcQueueDisc::GetAutoDemotions() const
{
    return m_autoDemotions;
}

Time
MsfcQueueDisc::GetAutoUpTime() const
{
    return m_codel.TicksToTime(m_autoUp);
}

uint32_t
MsfcQueueDisc::HostSlot(Ptr<const QueueDiscItem> item, bool destination) const
{
    // the address and the perturbation hashed together, as QueueDiscItem::Hash does the 5-tuple
    uint8_t buf[20];
    size_t len = 0;
    if (auto h = dynamic_cast<const HostHashItem*>(PeekPointer(item)))
    {
        return h->HostHash(destination, m_perturbation) % m_nFlows;
    }
    if (auto v4 = DynamicCast<const Ipv4QueueDiscItem>(item))
    {
        const Ipv4Header& hdr = v4->GetHeader();
        (destination ? hdr.GetDestination() : hdr.GetSource()).Serialize(buf);
        len = 4;
    }
    else if (auto v6 = DynamicCast<const Ipv6QueueDiscItem>(item))
    {
        const Ipv6Header& hdr = v6->GetHeader();
        (destination ? hdr.GetDestination() : hdr.GetSource()).Serialize(buf);
        len = 16;
    }
    else
    {
        return 0;
    }
    std::memcpy(buf + len, &m_perturbation, sizeof(m_perturbation));
    return Hash32(reinterpret_cast<const char*>(buf), len + sizeof(m_perturbation)) % m_nFlows;
}

uint32_t
MsfcQueueDisc::HostLoad(uint32_t cls, const Flow& flow) const
{
    const Class& c = m_classes[cls];
    const FlowHosts& h = m_flowHosts[&flow - m_flows.data()];
    // At least 1 for a listed flow: it counts in both of its slots from its activation until it
    // leaves its list, and Change() clears the loads only after every flow has left its lists.
    switch (m_isolate)
    {
    case ISOLATE_SRC:
        return c.srcLoad[h.src];
    case ISOLATE_DST:
        return c.dstLoad[h.dst];
    default:
        return std::max(c.srcLoad[h.src], c.dstLoad[h.dst]);
    }
}

int64_t
MsfcQueueDisc::FlowQuantum(uint32_t cls, const Flow& flow) const
{
    if (m_isolate == ISOLATE_FLOW)
    {
        return m_quantum;
    }
    // safe: HostLoad is 1 .. Flows (<= 65536) for a listed flow, so the refill is >= 1 unit
    const uint32_t load = HostLoad(cls, flow);
    NS_ASSERT_MSG(load > 0, "a listed flow with no host load");
    return (int64_t{m_quantum} << ISOLATE_SHIFT) / load;
}

int64_t&
MsfcQueueDisc::HostDeficit(uint32_t cls, const Flow& flow)
{
    Class& c = m_classes[cls];
    const FlowHosts& h = m_flowHosts[&flow - m_flows.data()];
    if (m_isolate == ISOLATE_SRC ||
        (m_isolate == ISOLATE_BOTH && c.srcLoad[h.src] >= c.dstLoad[h.dst]))
    {
        return c.srcDeficit[h.src];
    }
    return c.dstDeficit[h.dst];
}

bool
MsfcQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    const uint32_t slot = item->Hash(m_perturbation) % m_nFlows; // Flows >= 1 (checker)
    bool autoPacket = false;
    bool promote = false;
    bool nqb = false;
    // a class, or Prios: the least-effort lane
    const uint32_t cls = ClassifyAuto(item, slot, autoPacket, promote, nqb);
    if (autoPacket)
    {
        Flow& s = m_flows[m_home * m_nFlows + slot];
        const uint32_t now = CoDelNow();
        if (SlotIdle(s, now))
        {
            s.clean = now; // idle for T_up or more: sparse from now on, not from before
        }
        s.last = now;
    }
    if (promote)
    {
        AutoMove(slot, cls, true);
    }
    uint32_t idx = cls * m_nFlows + slot;
    Flow& flow = m_flows[idx];
    Class& c = m_classes[cls];

    uint32_t size = item->GetSize();
    m_store->PushBack(flow.packets, item, autoPacket ? AUTO_MARK : 0);
    c.stats.enqueuedPackets++;
    c.stats.enqueuedBytes += size;
    c.stats.backlogPackets++;
    c.stats.backlogBytes += size;
    m_classifiedTrace(item, cls, slot, autoPacket);
    m_classBacklogTrace(cls, c.stats.backlogPackets, c.stats.backlogBytes);

    if (!flow.active)
    {
        flow.active = true;
        if (m_isolate != ISOLATE_FLOW)
        {
            // the hosts of the packet that makes the flow active, until it leaves the list
            FlowHosts& h = m_flowHosts[idx];
            h.src = static_cast<uint16_t>(HostSlot(item, false));
            h.dst = static_cast<uint16_t>(HostSlot(item, true));
            c.srcLoad[h.src]++;
            c.dstLoad[h.dst]++;
            // a host that had no active flow in the class starts with a fresh quantum
            const int64_t fresh = int64_t{m_quantum} << ISOLATE_SHIFT;
            if (c.srcLoad[h.src] == 1)
            {
                c.srcDeficit[h.src] = fresh;
            }
            if (c.dstLoad[h.dst] == 1)
            {
                c.dstDeficit[h.dst] = fresh;
            }
        }
        // a flow that left from the new flows (Boost=across) or the NQB flows comes back with
        // the deficit it left with, not a fresh quantum
        if (!flow.sparse)
        {
            flow.deficit = FlowQuantum(cls, flow);
            flow.stamp = c.refills;
        }
        flow.sparse = false;
        c.nFlows++;
        if (nqb)
        {
            flow.nqb = true;
            c.nNqb++;
            PushFlow(c.nqbHead, c.nqbTail, idx);
        }
        else if (m_boost != BOOST_OFF)
        {
            PushFlow(c.newHead, c.newTail, idx);
        }
        else
        {
            PushFlow(c.head, c.tail, idx);
        }
    }
    if (flow.nqb && flow.packets.bytes > m_quantum)
    {
        // queue protection: an NQB flow holding more than a quantum (this packet included)
        // goes behind the old flows, where it stays until it is found empty
        UnlinkFlow(c.nqbHead, c.nqbTail, idx);
        flow.nqb = false;
        c.nNqb--;
        PushFlow(c.head, c.tail, idx);
        c.stats.nqbDemotions++;
        m_nqbDemotions++;
        m_nqbDemotionTrace(cls, slot);
    }
    if (cls < m_prios && !c.active) // the least-effort lane is not in the outer DRR
    {
        c.active = true;
        // Order=priority: a class back in the round it already took part in keeps what it had
        // left (no fresh quantum for draining and returning)
        if (m_order == ORDER_ROUND)
        {
            c.deficit = ClassQuantum(cls);
        }
        else if (c.round != m_round)
        {
            c.deficit = ClassQuantum(cls);
            c.round = m_round;
        }
        c.next = NIL;
        if (m_activeTail == NIL)
        {
            m_activeHead = cls;
        }
        else
        {
            m_classes[m_activeTail].next = cls;
        }
        m_activeTail = cls;
    }

    if (GetCurrentSize() > GetMaxSize())
    {
        NS_LOG_DEBUG("Overload, dropping from the fattest flow");
        OverloadDrop();
    }
    return true;
}

uint32_t
MsfcQueueDisc::OverloadVictim() const
{
    // Flows searched: all of them, or (Overload=class) those of the class with the largest
    // backlog / quantum, the backlog in MaxSize's unit, compared exactly as
    // B_a * Q_b > B_b * Q_a (ties: lowest class).
    // the least-effort lane first: while it holds a packet its flows are the only candidates
    uint32_t first = 0;
    uint32_t end = m_prios * m_nFlows;
    if (m_classes[m_prios].stats.backlogPackets > 0)
    {
        first = end;
        end = first + m_nFlows;
    }
    else if (m_overload == OVERLOAD_CLASS)
    {
        const bool inPackets = GetMaxSize().GetUnit() == QueueSizeUnit::PACKETS;
        auto backlog = [inPackets](const Class& c) -> unsigned __int128 {
            return inPackets ? c.stats.backlogPackets : c.stats.backlogBytes;
        };
        // the quanta the outer DRR uses: with Inversion=prevent the effective ones
        std::array<uint64_t, MAX_PRIOS> q;
        EffectiveQuanta(m_prios, q);
        uint32_t victim = 0;
        for (uint32_t p = 1; p < m_prios; ++p)
        {
            if (backlog(m_classes[p]) * q[victim] > backlog(m_classes[victim]) * q[p])
            {
                victim = p;
            }
        }
        first = victim * m_nFlows;
        end = first + m_nFlows;
    }
    uint32_t fat = NIL;
    uint64_t maxBytes = 0;
    if (m_isolate != ISOLATE_FLOW)
    {
        // the flow most above its host's share: largest backlog * load (ties: lowest index)
        unsigned __int128 maxWeight = 0;
        for (uint32_t i = first; i < end; ++i)
        {
            const Flow& f = m_flows[i];
            if (f.active && f.packets.bytes > 0)
            {
                unsigned __int128 w =
                    static_cast<unsigned __int128>(f.packets.bytes) * HostLoad(i / m_nFlows, f);
                if (w > maxWeight)
                {
                    maxWeight = w;
                    fat = i;
                }
            }
        }
        return fat;
    }
    for (uint32_t i = first; i < end; ++i)
    {
        if (m_flows[i].packets.bytes > maxBytes)
        {
            maxBytes = m_flows[i].packets.bytes;
            fat = i;
        }
    }
    return fat;
}

void
MsfcQueueDisc::EffectiveQuanta(uint32_t upto, std::array<uint64_t, MAX_PRIOS>& eff) const
{
    for (uint32_t p = 0; p < m_prios; ++p)
    {
        eff[p] = m_classes[p].quantum;
    }
    const bool explicitQuanta = !m_explicitQuanta.empty();
    if (m_inversion == INVERSION_ALLOW || (!explicitQuanta && m_ratioFixed == RATIO_ONE_FIXED))
    {
        return; // ratio 1: no class ranks above another
    }
    // from the most important class down: class Prios-1 first when Ratio > 1 or the quanta
    // are explicit, class 0 when Ratio < 1; one class down, a flow weighs 1/Ratio (below 1:
    // Ratio) flows of the class above, with explicit quanta Q_{k-1} / Q_k
    const bool ascending = m_ratioFixed > RATIO_ONE_FIXED || explicitQuanta;
    uint64_t num = ascending ? RATIO_ONE_FIXED : m_ratioFixed;
    uint64_t den = ascending ? m_ratioFixed : RATIO_ONE_FIXED;
    bool above = false;   // a class with flows above
    uint64_t perFlow = 0; // the smallest floor(eff_k / n_k) of the classes above, scaled
    for (uint32_t i = 0; i < m_prios; ++i)
    {
        const uint32_t p = ascending ? m_prios - 1 - i : i;
        const Class& c = m_classes[p];
        if (c.nFlows > 0)
        {
            if (above)
            {
                unsigned __int128 lowered = static_cast<unsigned __int128>(c.nFlows) * perFlow;
                eff[p] = std::max<uint64_t>(
                    1,
                    static_cast<uint64_t>(std::min<unsigned __int128>(lowered, c.quantum)));
            }
            // divisions by the flows of a class that has some
            perFlow = above ? std::min<uint64_t>(perFlow, eff[p] / c.nFlows) : eff[p] / c.nFlows;
            above = true;
        }
        if (p == upto)
        {
            break;
        }
        if (explicitQuanta && p > 0)
        {
            num = m_explicitQuanta[p - 1];
            den = m_explicitQuanta[p];
        }
        // den is Ratio (>= 1 in 16.16, the checker's minimum), 65536 or a quantum (>= 1 byte)
        perFlow = static_cast<uint64_t>(static_cast<unsigned __int128>(perFlow) * num / den);
    }
}

int64_t
MsfcQueueDisc::ClassQuantum(uint32_t cls) const
{
    if (m_inversion == INVERSION_ALLOW)
    {
        return static_cast<int64_t>(m_classes[cls].quantum);
    }
    std::array<uint64_t, MAX_PRIOS> eff;
    EffectiveQuanta(cls, eff);
    return static_cast<int64_t>(eff[cls]);
}

uint32_t
MsfcQueueDisc::OverloadDrop()
{
    NS_LOG_FUNCTION(this);
    m_overloadEvents++;
    uint32_t fat = OverloadVictim();
    if (fat == NIL)
    {
        return 0;
    }
    Flow& flow = m_flows[fat];
    uint64_t maxBytes = flow.packets.bytes;
    uint32_t cls = fat / m_nFlows;
    // Drop until half of the flow's backlog is gone or the batch is full.
    uint64_t dropped = 0;
    uint32_t n = 0;
    while (n < m_dropBatchSize && 2 * dropped < maxBytes)
    {
        Ptr<QueueDiscItem> item = PopHead(cls, flow);
        if (!item)
        {
            break;
        }
        dropped += item->GetSize();
        ++n;
        m_classes[cls].stats.overloadDrops++;
        DropAfterDequeue(item, OVERLOAD_DROP);
        m_overloadDropTrace(item, cls, fat % m_nFlows);
    }
    NS_LOG_DEBUG("Dropped " << n << " packets (" << dropped << " bytes) from flow " << fat);
    return n;
}

Ptr<QueueDiscItem>
MsfcQueueDisc::PopHead(uint32_t cls, Flow& flow, uint8_t* marks)
{
    Ptr<QueueDiscItem> item = m_store->PopFront(flow.packets, marks);
    if (item)
    {
        uint32_t size = item->GetSize();
        Class& c = m_classes[cls];
        c.stats.backlogPackets--;
        c.stats.backlogBytes -= size;
        m_classBacklogTrace(cls, c.stats.backlogPackets, c.stats.backlogBytes);
    }
    return item;
}

Ptr<QueueDiscItem>
MsfcQueueDisc::CoDelDequeue(uint32_t cls, Flow& flow, bool& autoPacket)
{
    /// The flow's operations as CoDelCore needs them.
    struct Ops
    {
        MsfcQueueDisc* q;
        uint32_t cls;
        Flow& flow;
        uint8_t marks{0}; //!< of the packet taken last: CoDelCore returns that one (or null)

        Ptr<QueueDiscItem> Pop()
        {
            return q->PopHead(cls, flow, &marks);
        }

        uint64_t Backlog() const
        {
            return flow.packets.bytes;
        }

        bool Mark(Ptr<QueueDiscItem> item)
        {
            if (q->m_useEcn && q->QueueDisc::Mark(item, CODEL_MARK))
            {
                q->m_classes[cls].stats.ecnMarks++;
                return true;
            }
            return false;
        }

        void Drop(Ptr<QueueDiscItem> item)
        {
            q->m_classes[cls].stats.codelDrops++;
            q->DropAfterDequeue(item, CODEL_DROP);
        }
    } ops{this, cls, flow};

    CoDelVars before = flow.codel;
    Ptr<QueueDiscItem> item = m_codel.Dequeue(flow.codel, Simulator::Now().GetNanoSeconds(), ops);
    const CoDelVars& after = flow.codel;
    if (after.dropping != before.dropping || after.count != before.count ||
        after.dropNext != before.dropNext)
    {
        m_codelStateTrace(cls,
                          static_cast<uint32_t>(&flow - m_flows.data()) % m_nFlows,
                          after.dropping,
                          after.count,
                          m_codel.TicksToTime(after.dropNext));
    }
    autoPacket = item && (ops.marks & AUTO_MARK);
    return item;
}

int64_t
MsfcQueueDisc::CeThresholdOf(uint32_t cls) const
{
    return m_ceThreshold[cls < m_prios ? cls : 0];
}

void
MsfcQueueDisc::ThresholdMark(uint32_t cls, Ptr<QueueDiscItem> item)
{
    // the sojourn CoDel's test computed for this packet (the kernel's ldelay), in its units;
    // both it and the threshold stay below 2^31 units, where the kernel's comparison holds
    const int64_t sojourn = m_codel.ToTicks(Simulator::Now().GetNanoSeconds()) -
                            m_codel.ToTicks(item->GetTimeStamp().GetNanoSeconds());
    uint8_t tos = 0;
    if (sojourn <= CeThresholdOf(cls) || !item->GetUint8Value(QueueItem::IP_DSFIELD, tos))
    {
        return;
    }
    // ECT(1) or ECT(0) only: a packet already CE (it came so, or CoDel has just marked it) is
    // left as it is and not counted, so that CoDel's marks and these are counted apart
    const uint8_t ecn = tos & 0x3;
    if ((ecn != 0x1 && ecn != 0x2) || (tos & m_ceMask) != m_ceSelector)
    {
        return;
    }
    if (QueueDisc::Mark(item, CE_THRESHOLD_MARK))
    {
        m_classes[cls].stats.ceThresholdMarks++;
    }
}

void
MsfcQueueDisc::PushFlow(uint32_t& head, uint32_t& tail, uint32_t idx)
{
    m_flows[idx].next = NIL;
    if (tail == NIL)
    {
        head = idx;
    }
    else
    {
        m_flows[tail].next = idx;
    }
    tail = idx;
}

uint32_t
MsfcQueueDisc::PopFlow(uint32_t& head, uint32_t& tail)
{
    uint32_t idx = head;
    head = m_flows[idx].next;
    if (head == NIL)
    {
        tail = NIL;
    }
    m_flows[idx].next = NIL;
    return idx;
}

void
MsfcQueueDisc::UnlinkFlow(uint32_t& head, uint32_t& tail, uint32_t idx)
{
    uint32_t prev = NIL;
    for (uint32_t i = head; i != idx; i = m_flows[i].next)
    {
        NS_ASSERT_MSG(i != NIL, "flow " << idx << " is not on the list");
        prev = i;
    }
    const uint32_t next = m_flows[idx].next;
    if (prev == NIL)
    {
        head = next;
    }
    else
    {
        m_flows[prev].next = next;
    }
    if (tail == idx)
    {
        tail = prev;
    }
    m_flows[idx].next = NIL;
}

void
MsfcQueueDisc::FlowLeaves(uint32_t cls, uint32_t idx)
{
    Class& c = m_classes[cls];
    m_flows[idx].active = false;
    c.nFlows--;
    if (m_isolate != ISOLATE_FLOW)
    {
        c.srcLoad[m_flowHosts[idx].src]--;
        c.dstLoad[m_flowHosts[idx].dst]--;
    }
}

Ptr<QueueDiscItem>
MsfcQueueDisc::ClassDequeue(uint32_t cls, bool newOnly)
{
    Class& c = m_classes[cls];
    for (;;)
    {
        // the NQB flows first, then (Boost on or across) the new flows, then the old ones;
        // Boost=across's path (newOnly): the NQB and new flows only
        const bool fromNqb = c.nqbHead != NIL;
        const bool fromNew = !fromNqb && c.newHead != NIL;
        if (newOnly && !fromNqb && !fromNew)
        {
            return nullptr;
        }
        uint32_t& head = fromNqb ? c.nqbHead : fromNew ? c.newHead : c.head;
        uint32_t& tail = fromNqb ? c.nqbTail : fromNew ? c.newTail : c.tail;
        if (head == NIL)
        {
            return nullptr;
        }
        uint32_t idx = head;
        Flow& flow = m_flows[idx];
        // Isolate != flow: a flow sends while it and its host have credit; a visit that does
        // not send refills the host (to at most one quantum) and, while not positive, the flow
        int64_t* host = m_isolate != ISOLATE_FLOW ? &HostDeficit(cls, flow) : nullptr;
        if (flow.deficit <= 0 || (host && *host <= 0))
        {
            const int64_t q = FlowQuantum(cls, flow);
            if (flow.deficit <= 0)
            {
                flow.deficit += q;
            }
            if (host)
            {
                *host = std::min(*host + q, int64_t{m_quantum} << ISOLATE_SHIFT);
            }
            // an NQB flow keeps its place among the NQB flows only when the class's other
            // flows (n_c of them) have had as many refills since its last quantum as there
            // are of them, about a round (modulo 2^32)
            if (fromNqb && c.refills - flow.stamp >= c.nFlows - c.nNqb)
            {
                flow.stamp = c.refills;
                if (c.nqbTail != idx)
                {
                    PopFlow(head, tail);
                    PushFlow(c.nqbHead, c.nqbTail, idx);
                }
                continue;
            }
            if (!fromNqb)
            {
                c.refills++; // once per refill of a flow that is not NQB (modulo 2^32)
            }
            else
            {
                flow.nqb = false;
                c.nNqb--;
            }
            // an NQB flow above its share and a new flow that spent its quantum become old;
            // an old one goes round
            if (fromNqb || fromNew || c.tail != idx)
            {
                PopFlow(head, tail);
                PushFlow(c.head, c.tail, idx);
            }
            continue;
        }
        bool autoPacket;
        Ptr<QueueDiscItem> item = CoDelDequeue(cls, flow, autoPacket);
        if (item && CeThresholdOf(cls) != CE_THRESHOLD_OFF)
        {
            ThresholdMark(cls, item);
        }
        if (autoPacket && m_auto != AUTO_OFF)
        {
            AutoDequeued(cls, idx); // CoDel's test on the packet fired: the slot may sink
        }
        if (!item)
        {
            PopFlow(head, tail);
            if (fromNqb)
            {
                // an emptied NQB flow leaves with its deficit: its next packet does not bring
                // a fresh quantum
                flow.nqb = false;
                c.nNqb--;
                flow.sparse = true;
                FlowLeaves(cls, idx);
            }
            else if (fromNew && c.head != NIL && m_boost != BOOST_ACROSS)
            {
                // Boost=on: an emptied new flow waits behind the old flows before it may leave
                PushFlow(c.head, c.tail, idx);
            }
            else
            {
                // Boost=across: an emptied new flow leaves with its deficit; its next packet
                // makes it new again, spending what is left of its quantum
                flow.sparse = fromNew && m_boost == BOOST_ACROSS;
                FlowLeaves(cls, idx);
            }
            continue;
        }
        flow.deficit -= item->GetSize() * m_flowScale;
        if (host)
        {
            *host -= item->GetSize() * m_flowScale; // loads unchanged since the visit began
        }
        m_sojournTrace(cls, idx % m_nFlows, Simulator::Now() - item->GetTimeStamp());
        return item;
    }
}

void
MsfcQueueDisc::RemoveActiveClass(uint32_t cls)
{
    uint32_t prev = NIL;
    for (uint32_t i = m_activeHead; i != cls; i = m_classes[i].next)
    {
        NS_ASSERT_MSG(i != NIL, "class " << cls << " is not in the active class list");
        prev = i;
    }
    const uint32_t next = m_classes[cls].next;
    if (prev == NIL)
    {
        m_activeHead = next;
    }
    else
    {
        m_classes[prev].next = next;
    }
    if (m_activeTail == cls)
    {
        m_activeTail = prev;
    }
    m_classes[cls].next = NIL;
    m_classes[cls].active = false;
}

Ptr<QueueDiscItem>
MsfcQueueDisc::DequeuePriority()
{
    while (m_activeHead != NIL)
    {
        // the most important class (the highest index) in the list with credit left
        uint32_t cls = m_prios;
        while (cls > 0 && !(m_classes[cls - 1].active && m_classes[cls - 1].deficit > 0))
        {
            --cls;
        }
        if (cls == 0)
        {
            // every active class spent its credit: k refills for all, k the fewest refills a
            // class needs to become positive (k rounds in which no class could send)
            std::array<int64_t, MAX_PRIOS> q;
            uint64_t k = UINT64_MAX;
            for (uint32_t a = m_activeHead; a != NIL; a = m_classes[a].next)
            {
                q[a] = ClassQuantum(a);
                // safe: a class quantum is at least one unit (Q_p >= 1 by the checks of
                // ValidateConfiguration, eff_p >= 1 by EffectiveQuanta); the deficit is <= 0
                // here and above -(2^56 + 2^48) (Boost=across's limit, one class quantum and
                // one packet below 0), so its negation fits
                NS_ASSERT_MSG(q[a] > 0, "class " << a << " has a quantum of 0");
                const uint64_t refills = static_cast<uint64_t>(-m_classes[a].deficit) / q[a] + 1;
                k = std::min(k, refills);
            }
            // k <= every class's refills, so no deficit passes its quantum: no overflow
            for (uint32_t a = m_activeHead; a != NIL; a = m_classes[a].next)
            {
                m_classes[a].deficit += static_cast<int64_t>(k) * q[a];
                m_classes[a].round = m_round + k;
            }
            m_round += k;
            continue;
        }
        --cls;
        Ptr<QueueDiscItem> item = ClassDequeue(cls);
        if (!item)
        {
            RemoveActiveClass(cls); // it keeps its deficit and its round
            continue;
        }
        return ChargeClass(cls, item);
    }
    NS_LOG_LOGIC("No class has a packet");
    return nullptr;
}

Ptr<QueueDiscItem>
MsfcQueueDisc::DequeueAcross()
{
    // the classes from the most important (the highest index) down; an active class is in the
    // list exactly while its active flag is set, and a class with new or NQB flows is active
    for (uint32_t cls = m_prios; cls-- > 0;)
    {
        Class& c = m_classes[cls];
        if (!c.active || (c.newHead == NIL && c.nqbHead == NIL)) // NQB flows count as new
        {
            continue;
        }
        // the borrowing limit, deficit > -class quantum in the deficit's unit: a class quantum
        // is at most 2^56 units (ValidateConfiguration) and at least one (Q_p >= 1, eff_p >= 1
        // by EffectiveQuanta), so its negation fits; a positive deficit passes whatever the
        // quantum, which is computed (an O(Prios) pass with Inversion=prevent) only for a
        // class in debt, from the flows listed now
        if (c.deficit <= 0 && c.deficit <= -ClassQuantum(cls))
        {
            continue;
        }
        Ptr<QueueDiscItem> item = ClassDequeue(cls, true);
        if (item)
        {
            // the class stays in the active class list even if its flows all left: its next
            // visit in the round removes it
            return ChargeClass(cls, item);
        }
    }
    return nullptr;
}

Ptr<QueueDiscItem>
MsfcQueueDisc::ChargeClass(uint32_t cls, Ptr<QueueDiscItem> item)
{
    Class& c = m_classes[cls];
    uint32_t size = item->GetSize();
    c.deficit -= size * m_classScale;
    c.stats.dequeuedPackets++;
    c.stats.dequeuedBytes += size;
    NS_LOG_LOGIC("Dequeued " << size << " bytes from class " << cls);
    return item;
}

Ptr<QueueDiscItem>
MsfcQueueDisc::DoDequeue()
{
    NS_LOG_FUNCTION(this);
    if (Ptr<QueueDiscItem> item = ClassesDequeue())
    {
        return item;
    }
    // the least-effort lane: only what every class leaves (no deficit, no round)
    Ptr<QueueDiscItem> item = ClassDequeue(m_prios);
    if (!item)
    {
        NS_LOG_LOGIC("Queue empty");
        return nullptr;
    }
    MsfcClassStats& st = m_classes[m_prios].stats;
    st.dequeuedPackets++;
    st.dequeuedBytes += item->GetSize();
    NS_LOG_LOGIC("Dequeued " << item->GetSize() << " bytes from the least-effort lane");
    return item;
}

Ptr<QueueDiscItem>
MsfcQueueDisc::ClassesDequeue()
{
    if (m_boost == BOOST_ACROSS)
    {
        if (Ptr<QueueDiscItem> item = DequeueAcross())
        {
            return item;
        }
    }
    if (m_order == ORDER_PRIORITY)
    {
        return DequeuePriority();
    }
    while (m_activeHead != NIL)
    {
        uint32_t cls = m_activeHead;
        Class& c = m_classes[cls];
        if (c.deficit <= 0)
        {
            c.deficit += ClassQuantum(cls);
            if (m_activeTail != cls)
            {
                m_activeHead = c.next;
                c.next = NIL;
                m_classes[m_activeTail].next = cls;
                m_activeTail = cls;
            }
            continue;
        }
        Ptr<QueueDiscItem> item = ClassDequeue(cls);
        if (!item)
        {
            m_activeHead = c.next;
            if (m_activeHead == NIL)
            {
                m_activeTail = NIL;
            }
            c.next = NIL;
            c.active = false;
            continue;
        }
        return ChargeClass(cls, item);
    }
    NS_LOG_LOGIC("No class has a packet");
    return nullptr;
}

} // namespace ns3
