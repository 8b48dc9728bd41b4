/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msfc-trace-replay.h"

#include "ns3/msfc-queue-disc.h"
#include "ns3/object-factory.h"
#include "ns3/packet.h"
#include "ns3/queue-item.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace ns3
{

namespace
{

/// What a header key's value is (msfc-trace-keys.def says what each kind takes).
enum class Kind
{
    INT,
    RATIO,
    MODE,
    QUANTA,
    TIMES
};

/// A header key of the trace format: its one definition is msfc-trace-keys.def.
struct TraceKey
{
    const char* name;         ///< the word before '=' on a P or C line
    int version;              ///< the first trace version that may name it
    const char* defaultValue; ///< its value when a P line omits it
    Kind kind;                ///< what its value is
    const char* attribute;    ///< the MsfcQueueDisc attribute it sets
};

/// Newest trace format version this replayer reads.
#define MSFC_TRACE_FORMAT(v) constexpr int TRACE_VERSION = v;
#define MSFC_TRACE_KEY(key, version, def, kind, attribute, netlink)
#include "msfc-trace-keys.def"
#undef MSFC_TRACE_FORMAT
#undef MSFC_TRACE_KEY

/// Every header key, in the order of msfc-trace-keys.def.
const TraceKey TRACE_KEYS[] = {
#define MSFC_TRACE_FORMAT(v)
#define MSFC_TRACE_KEY(key, version, def, kind, attribute, netlink)                                \
    {#key, version, def, Kind::kind, attribute},
#include "msfc-trace-keys.def"
#undef MSFC_TRACE_FORMAT
#undef MSFC_TRACE_KEY
};

/**
 * Look up a header key.
 * @param name the key's word
 * @return its entry, or nullptr for a word that is no header key ("version" is none)
 */
const TraceKey*
FindKey(const std::string& name)
{
    for (const TraceKey& k : TRACE_KEYS)
    {
        if (name == k.name)
        {
            return &k;
        }
    }
    return nullptr;
}

/**
 * The keys of a P or C line that its trace's version cannot have.
 * @param keys the keys the line names
 * @param version the trace's version
 * @param line "P" or "C"
 * @return an empty string, or the error (the same words as the reference model's)
 */
std::string
NeedsVersion(const std::vector<std::string>& keys, int version, const std::string& line)
{
    std::string late;
    int need = 0;
    size_t count = 0;
    for (const std::string& key : keys)
    {
        const TraceKey* k = FindKey(key);
        if (k && k->version > version)
        {
            late += (count++ ? " " : "") + key;
            need = std::max(need, k->version);
        }
    }
    if (late.empty())
    {
        return "";
    }
    return late + (line == "P" ? "" : " on a C line") + (count == 1 ? " needs" : " need") +
           " version=" + std::to_string(need) + " on the P line";
}

/// A trace's class field for an auto packet, whose class the queue disc decides (version 5).
constexpr const char* AUTO_CLASS = "a";
/// A trace's class field for a packet of the least-effort lane, and the output's class of the
/// lane (version 7).
constexpr const char* LANE_CLASS = "l";
/// The suffix of a trace's class field for an NQB packet of that class, "2n" (version 7).
constexpr char NQB_SUFFIX = 'n';

/// How a trace's packet is classified.
enum class Marking
{
    EXPLICIT, //!< E <class>: an explicit class (SocketPriorityTag)
    AUTO,     //!< E a (version 5): unmarked, classified by the DSCP map
    LANE,     //!< E l (version 7): explicitly the least-effort lane
    NQB,      //!< E <class>n (version 7): an explicit class, NQB
};

/// A packet addressed to a given flow and host slots; the class travels in a SocketPriorityTag.
/// An auto packet (E a, version 5) has no tag and DSCP 0: the queue disc classifies it by its
/// DSCP map, which makes it an auto packet, and the "Classified" trace tells its class.  A
/// packet of the least-effort lane or an NQB packet (version 7) has the tag too (class 0 for
/// the lane, which does not use it) and names its treatment (ExplicitTreatmentItem): like any
/// packet with a class of its own, it is never an auto packet.
class TraceItem : public QueueDiscItem,
                  public MsfcQueueDisc::HostHashItem,
                  public MsfcQueueDisc::ExplicitTreatmentItem
{
  public:
    TraceItem(uint32_t cls,
              uint32_t flow,
              uint32_t len,
              uint8_t ecn,
              uint32_t src,
              uint32_t dst,
              Marking marking)
        : QueueDiscItem(Create<Packet>(len), Address(), 0),
          m_cls(cls),
          m_flow(flow),
          m_tos(ecn),
          m_src(src),
          m_dst(dst),
          m_marking(marking)
    {
        if (marking != Marking::AUTO)
        {
            SocketPriorityTag tag;
            tag.SetPriority(static_cast<uint8_t>(cls));
            GetPacket()->AddPacketTag(tag);
        }
    }

    bool GetUint8Value(Uint8Values field, uint8_t& value) const override
    {
        if (field == IP_DSFIELD)
        {
            value = m_tos; // DSCP 0 (an auto packet: unmarked) and the ECN field
            return true;
        }
        return false;
    }

    void AddHeader() override
    {
    }

    /// As INET_ECN_set_ce(): an ECN-capable packet (ECT or CE already) leaves CE.
    bool Mark() override
    {
        if ((m_tos & 0x3) == 0)
        {
            return false;
        }
        m_tos |= 0x3;
        return true;
    }

    uint32_t Hash(uint32_t) const override
    {
        return m_flow;
    }

    uint32_t HostHash(bool destination, uint32_t) const override
    {
        return destination ? m_dst : m_src;
    }

    bool LeastEffort() const override
    {
        return m_marking == Marking::LANE;
    }

    bool Nqb() const override
    {
        return m_marking == Marking::NQB;
    }

    /// @return "<class> <flow> <len>" of this packet ("l" for the least-effort lane)
    std::string Describe() const
    {
        return (m_lane ? std::string(LANE_CLASS) : std::to_string(m_cls)) + " " +
               std::to_string(m_flow) + " " + std::to_string(GetSize());
    }

    uint32_t m_cls;          //!< class from the trace, or the queue disc's
    uint32_t m_flow;         //!< flow from the trace
    uint8_t m_tos;           //!< the ECN field from the trace (changed by CE marks)
    uint32_t m_src;          //!< source host slot from the trace
    uint32_t m_dst;          //!< destination host slot from the trace
    Marking m_marking;       //!< how it is classified
    bool m_lane{false};      //!< the queue disc put it in the least-effort lane
    bool m_threshold{false}; //!< CE-marked by CeThreshold
};

/// Notes a packet CeThreshold marked ("Mark" trace source of the queue disc).
void
RecordMark(Ptr<const QueueDiscItem> item, const char* reason)
{
    auto t = DynamicCast<TraceItem>(ConstCast<QueueDiscItem>(item));
    if (t && std::strcmp(reason, MsfcQueueDisc::CE_THRESHOLD_MARK) == 0)
    {
        t->m_threshold = true;
    }
}

/// The class the queue disc put a packet in ("Classified"): an auto packet's is its decision;
/// class Prios is the least-effort lane.
void
RecordClass(const MsfcQueueDisc* q, Ptr<const QueueDiscItem> item, uint32_t cls, uint32_t, bool)
{
    if (auto t = DynamicCast<TraceItem>(ConstCast<QueueDiscItem>(item)))
    {
        t->m_cls = cls;
        t->m_lane = cls == q->GetNClasses();
    }
}

/// Records each dropped packet with its reason, in order.
void
RecordDrop(std::vector<std::string>* output, Ptr<const QueueDiscItem> item, const char* reason)
{
    std::string why = std::strcmp(reason, MsfcQueueDisc::CODEL_DROP) == 0      ? "codel"
                      : std::strcmp(reason, MsfcQueueDisc::OVERLOAD_DROP) == 0 ? "overload"
                                                                               : reason;
    auto t = DynamicCast<const TraceItem>(item);
    output->push_back("drop " + why + " " + (t ? t->Describe() : "?"));
}

/**
 * The attribute and value a P or C line's key=value sets (one mapping for both).
 * @param key the trace's parameter name (not "version")
 * @param value its value in the trace
 * @return the MsfcQueueDisc attribute and its value
 */
std::pair<std::string, std::string>
AttributeOf(const std::string& key, const std::string& value)
{
    const std::string name = FindKey(key)->attribute;
    if (key == "limit")
    {
        return {name, value + "p"};
    }
    if (key == "target" || key == "interval")
    {
        return {name, value + "us"};
    }
    if (key == "ecn")
    {
        return {name, value == "1" ? "true" : "false"};
    }
    if (key == "ce_threshold")
    {
        // microseconds (or off) joined by commas -> times with their unit
        std::string spec;
        for (size_t start = 0; start <= value.size();)
        {
            const size_t comma = std::min(value.find(',', start), value.size());
            const std::string part = value.substr(start, comma - start);
            spec += (start ? "," : "") + (part == "off" ? part : part + "us");
            start = comma + 1;
        }
        return {name, spec};
    }
    return {name, value};
}

/**
 * Check a mode's word (the trace's words, which are the attributes').
 * @param key a key of kind MODE
 * @param value its value in the trace
 * @return an empty string, or what is wrong
 */
std::string
CheckMode(const std::string& key, const std::string& value)
{
    // the words of the attribute's enum, "flow|class"
    TypeId::AttributeInformation info;
    MsfcQueueDisc::GetTypeId().LookupAttributeByName(FindKey(key)->attribute, &info);
    std::vector<std::string> words;
    std::istringstream names(info.checker->GetUnderlyingTypeInformation());
    for (std::string word; std::getline(names, word, '|');)
    {
        words.push_back(word);
    }
    if (std::find(words.begin(), words.end(), value) != words.end())
    {
        return "";
    }
    std::string use;
    for (size_t i = 0; i < words.size(); ++i)
    {
        use += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + key + "=" + words[i];
    }
    return key + "=" + value + " unknown: use " + use;
}

/**
 * Check the modes of a P line's configuration, and its ecn.
 * @param params the trace's parameters
 * @return an empty string, or what is wrong
 */
std::string
CheckModes(std::map<std::string, std::string>& params)
{
    if (params["ecn"] != "0" && params["ecn"] != "1")
    {
        return "ecn=" + params["ecn"] + " must be 0 or 1";
    }
    for (const TraceKey& k : TRACE_KEYS)
    {
        std::string bad = k.kind == Kind::MODE ? CheckMode(k.name, params[k.name]) : "";
        if (!bad.empty())
        {
            return bad;
        }
    }
    return "";
}

/**
 * A C line's value of a numeric key as the qdisc's netlink attribute carries it: a u32 (ratio:
 * a decimal number whose 16.16 fixed point fits a u32).
 * @param key the trace's parameter name
 * @param value its value in the trace; set to the number written plainly
 * @return an empty string, or what is wrong (the trace is malformed)
 */
std::string
CheckU32(const std::string& key, std::string& value)
{
    if (key == "ce_threshold")
    {
        // off (an empty attribute), or u32 microseconds or off joined by commas
        bool ok = value == "off";
        for (size_t start = 0; !ok && start <= value.size();)
        {
            const size_t comma = std::min(value.find(',', start), value.size());
            const std::string part = value.substr(start, comma - start);
            if (part != "off" && (part.empty() || part.size() > 10 ||
                                  part.find_first_not_of("0123456789") != std::string::npos ||
                                  std::stoull(part) >= UINT32_MAX))
            {
                break;
            }
            ok = comma == value.size();
            start = comma + 1;
        }
        return ok ? ""
                  : "ce_threshold=" + value + " is not a list of times in us: write e.g. " +
                        "ce_threshold=1000 (every class), ce_threshold=off,1000,500 (one per " +
                        "class) or ce_threshold=off";
    }
    if (key == "quanta")
    {
        // ratio (an empty attribute), or u32 byte counts joined by commas
        bool ok = value == "ratio";
        for (size_t start = 0; !ok && start <= value.size();)
        {
            const size_t comma = std::min(value.find(',', start), value.size());
            const std::string part = value.substr(start, comma - start);
            if (part.empty() || part.size() > 10 ||
                part.find_first_not_of("0123456789") != std::string::npos ||
                std::stoull(part) > UINT32_MAX)
            {
                break;
            }
            ok = comma == value.size();
            start = comma + 1;
        }
        return ok ? ""
                  : "quanta=" + value + " is not a list of byte counts: write e.g. " +
                        "quanta=95,1514,757,378 (one per class) or quanta=ratio";
    }
    const char* begin = value.c_str();
    char* end = nullptr;
    errno = 0;
    if (key == "ratio")
    {
        double r = std::strtod(begin, &end);
        if (value.empty() || *end != '\0' || errno != 0 || !std::isfinite(r))
        {
            return "ratio '" + value + "' is not a number: write e.g. ratio=2 or ratio=1.5";
        }
        const double fixed = std::round(r * 65536.0);
        if (fixed < 0 || fixed > UINT32_MAX)
        {
            return key + "=" + value + " does not fit the qdisc's 32-bit attribute";
        }
        return "";
    }
    long long n = std::strtoll(begin, &end, 10);
    if (value.empty() || *end != '\0' || errno != 0)
    {
        return "parameter " + key + "=" + value + " is not an integer";
    }
    if (n < 0 || n > UINT32_MAX)
    {
        return key + "=" + value + " does not fit the qdisc's 32-bit attribute";
    }
    value = std::to_string(n);
    return "";
}

/// Advance the simulator clock by `ns` nanoseconds (nothing else is scheduled).
void
AdvanceClock(uint64_t ns)
{
    if (ns > 0)
    {
        Simulator::Stop(NanoSeconds(ns));
        Simulator::Run();
    }
}

bool
ReplayLines(std::istream& in,
            const std::string& name,
            std::vector<std::string>& output,
            std::string& error)
{
    // the defaults of the trace format (docs/algorithm.md, "Cross-check traces")
    std::map<std::string, std::string> params = {{"version", "1"}};
    for (const TraceKey& k : TRACE_KEYS)
    {
        params[k.name] = k.defaultValue;
    }
    Ptr<MsfcQueueDisc> q;
    int version = 1;
    std::string line;
    uint32_t lineNo = 0;
    while (std::getline(in, line))
    {
        ++lineNo;
        std::istringstream ls(line);
        std::string op;
        if (!(ls >> op) || op[0] == '#')
        {
            continue;
        }
        auto where = [&]() { return name + ":" + std::to_string(lineNo) + ": "; };
        if (op == "P")
        {
            if (q)
            {
                error = where() + "a second P line";
                return false;
            }
            std::string kv;
            std::vector<std::string> given; // the keys the line names
            while (ls >> kv)
            {
                auto eq = kv.find('=');
                if (eq == std::string::npos)
                {
                    error = where() + "parameter '" + kv + "' is not key=value";
                    return false;
                }
                const std::string key = kv.substr(0, eq);
                if (key != "version" && !FindKey(key))
                {
                    error = where() + "unknown parameter '" + key + "'";
                    return false;
                }
                given.push_back(key);
                params[key] = kv.substr(eq + 1);
            }
            std::string bad = CheckModes(params);
            if (bad.empty())
            {
                bad = CheckU32("quanta", params["quanta"]);
            }
            for (const char* key : {"ce_threshold", "ce_threshold_selector", "ce_threshold_mask"})
            {
                if (bad.empty())
                {
                    bad = CheckU32(key, params[key]);
                }
            }
            if (!bad.empty())
            {
                error = where() + bad;
                return false;
            }
            version = std::atoi(params["version"].c_str());
            if (version < 1 || version > TRACE_VERSION)
            {
                error = where() + "trace version " + params["version"] +
                        " is not supported (this replayer reads 1.." +
                        std::to_string(TRACE_VERSION) + ")";
                return false;
            }
            bad = NeedsVersion(given, version, "P");
            if (!bad.empty())
            {
                error = where() + bad;
                return false;
            }
            ObjectFactory f;
            f.SetTypeId("ns3::MsfcQueueDisc");
            for (const auto& [key, value] : params)
            {
                if (key != "version")
                {
                    auto [attribute, v] = AttributeOf(key, value);
                    f.Set(attribute, StringValue(v));
                }
            }
            f.Set("UseSocketPriority", StringValue("true"));
            q = f.Create<MsfcQueueDisc>();
            std::string invalid = q->ValidateConfiguration();
            if (!invalid.empty())
            {
                error = where() + invalid;
                return false;
            }
            q->Initialize();
            q->TraceConnectWithoutContext("DropAfterDequeue",
                                          MakeBoundCallback(&RecordDrop, &output));
            q->TraceConnectWithoutContext("DropBeforeEnqueue",
                                          MakeBoundCallback(&RecordDrop, &output));
            q->TraceConnectWithoutContext("Classified",
                                          MakeBoundCallback(&RecordClass, PeekPointer(q)));
            q->TraceConnectWithoutContext("Mark", MakeCallback(&RecordMark));
        }
        else if (!q)
        {
            error = where() + "operation before the P line";
            return false;
        }
        else if (op == "E")
        {
            std::string clsField;
            uint32_t cls = 0;
            uint32_t flow;
            uint32_t len;
            uint32_t ect = 0;
            uint32_t src = 0;
            uint32_t dst = 0;
            const auto malformed = [&]() {
                error = where() + "expected 'E <class> <flow> <len> [<ect> [<src> <dst>]]' " +
                        "(<class> " + AUTO_CLASS + ": an auto packet, version 5; " + LANE_CLASS +
                        ": a packet of the least-effort lane, <class>" + NQB_SUFFIX +
                        ": an NQB packet of the class, version 7)";
                return false;
            };
            if (!(ls >> clsField))
            {
                return malformed();
            }
            Marking marking = Marking::EXPLICIT;
            if (clsField == AUTO_CLASS)
            {
                marking = Marking::AUTO;
            }
            else if (clsField == LANE_CLASS)
            {
                marking = Marking::LANE;
            }
            else
            {
                std::string number = clsField;
                if (number.size() > 1 && number.back() == NQB_SUFFIX)
                {
                    marking = Marking::NQB;
                    number.pop_back();
                }
                if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos)
                {
                    return malformed();
                }
                std::istringstream cs(number);
                if (!(cs >> cls) || !cs.eof())
                {
                    return malformed();
                }
            }
            const int needs = marking == Marking::AUTO                              ? 5
                              : marking == Marking::LANE || marking == Marking::NQB ? 7
                                                                                    : 1;
            if (version < needs)
            {
                // the reference model's words
                error = where() +
                        (marking == Marking::NQB
                             ? std::string("the NQB class '<class>") + NQB_SUFFIX + "'"
                             : "the class '" + clsField + "'") +
                        " of 'E' needs version=" + std::to_string(needs) + " on the P line";
                return false;
            }
            const bool autoPacket = marking == Marking::AUTO;
            const bool lanePacket = marking == Marking::LANE;
            if (!(ls >> flow >> len) || len == 0)
            {
                return malformed();
            }
            if ((ls >> ect) && (version < 2 || ect > 3 || (ect > 1 && version < 6)))
            {
                error = where() + "the ECT field is 0 or 1 (version 2), 2 (ECT(1)) or 3 (CE) " +
                        "from version 6";
                return false;
            }
            // the configuration in force (a change refused keeps the old prios and flows)
            UintegerValue nFlows;
            q->GetAttribute("Flows", nFlows);
            const uint32_t prios = q->GetNClasses();
            const uint32_t flows = static_cast<uint32_t>(nFlows.Get());
            if ((!autoPacket && !lanePacket && cls >= prios) || flow >= flows)
            {
                error = where() + "enqueue out of range: class 0 .. " + std::to_string(prios - 1) +
                        ", flow 0 .. " + std::to_string(flows - 1) +
                        " (prios=" + std::to_string(prios) + ", flows=" + std::to_string(flows) +
                        ")";
                return false;
            }
            if (ls >> src)
            {
                if (!(ls >> dst) || version < 3 || src >= flows || dst >= flows)
                {
                    error = where() + "the host fields are '<src> <dst>', each 0 .. flows-1, " +
                            "and need version=3";
                    return false;
                }
            }
            // the trace's ECN field -> the ECN bits: Not-ECT, ECT(0), ECT(1), CE
            static const uint8_t ecnBits[4] = {0x0, 0x2, 0x1, 0x3};
            q->Enqueue(Create<TraceItem>(cls, flow, len, ecnBits[ect], src, dst, marking));
        }
        else if (op == "D")
        {
            Ptr<QueueDiscItem> item = q->Dequeue();
            if (!item)
            {
                output.emplace_back("-");
            }
            else
            {
                auto t = DynamicCast<TraceItem>(item);
                output.push_back(t->Describe() + (t->m_threshold            ? " ce threshold"
                                                  : (t->m_tos & 0x3) == 0x3 ? " ce"
                                                                            : ""));
            }
        }
        else if (op == "C" && version >= 4)
        {
            // Malformed (a replay error) is only what the qdisc's netlink attributes cannot
            // carry: an unknown key or mode, a value that is not a u32, a ratio that is not a
            // number. Whether the queue disc takes the change is its decision, in the output.
            std::vector<std::pair<std::string, std::string>> attributes;
            bool inRange = true; // values the attributes accept but the qdisc does not
            std::string kv;
            while (ls >> kv)
            {
                auto eq = kv.find('=');
                if (eq == std::string::npos)
                {
                    error = where() + "parameter '" + kv + "' is not key=value";
                    return false;
                }
                const std::string key = kv.substr(0, eq);
                std::string value = kv.substr(eq + 1);
                const TraceKey* k = FindKey(key);
                if (!k)
                {
                    error = where() + "unknown parameter '" + key + "' of a C line";
                    return false;
                }
                const std::string late = NeedsVersion({key}, version, "C");
                if (!late.empty())
                {
                    error = where() + late;
                    return false;
                }
                const bool mode = k->kind == Kind::MODE;
                std::string bad = mode ? CheckMode(key, value) : CheckU32(key, value);
                if (!bad.empty())
                {
                    error = where() + bad;
                    return false;
                }
                // ecn is a flag (UseEcn a bool); quantum 0 is the device MTU only in ns-3
                if ((key == "ecn" && value != "0" && value != "1") ||
                    (key == "quantum" && value == "0"))
                {
                    inRange = false;
                }
                attributes.push_back(AttributeOf(key, value));
            }
            if (attributes.empty())
            {
                error = where() + "expected 'C key=value [key=value ...]'";
                return false;
            }
            // "change" first, then the overload drops the change makes (RecordDrop)
            const size_t at = output.size();
            output.emplace_back("change");
            std::string why;
            switch (inRange ? q->Change(attributes, why) : MsfcQueueDisc::CHANGE_INVALID)
            {
            case MsfcQueueDisc::CHANGE_OK:
                break;
            case MsfcQueueDisc::CHANGE_BUSY:
                output[at] = "change busy";
                break;
            case MsfcQueueDisc::CHANGE_INVALID:
                output[at] = "change invalid";
                break;
            }
        }
        else if (op == "T" && version >= 2)
        {
            int64_t ns;
            if (!(ls >> ns) || ns < 0)
            {
                error = where() + "expected 'T <ns>' with ns >= 0";
                return false;
            }
            AdvanceClock(ns);
        }
        else
        {
            error = where() + "unknown operation '" + op +
                    "' (expected P, E, D, T or, from version 4, C)";
            return false;
        }
    }
    if (q)
    {
        q->Dispose();
    }
    return true;
}

} // namespace

bool
ReplayMsfcTrace(std::istream& in,
                const std::string& name,
                std::vector<std::string>& output,
                std::string& error)
{
    bool ok = ReplayLines(in, name, output, error);
    Simulator::Destroy(); // the next trace starts at time 0 again
    return ok;
}

bool
ReplayMsfcTrace(const std::string& path, std::vector<std::string>& output, std::string& error)
{
    std::ifstream in(path);
    if (!in)
    {
        error = "cannot open " + path;
        return false;
    }
    return ReplayMsfcTrace(in, path, output, error);
}

} // namespace ns3
