/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msfc-trace-replay.h"

#include "ns3/boolean.h"
#include "ns3/msfc-queue-disc.h"
#include "ns3/object-factory.h"
#include "ns3/packet.h"
#include "ns3/queue-item.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"

#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

/// Newest trace format version this replayer reads.
constexpr int TRACE_VERSION = 3;

/// A packet addressed to a given flow and host slots; the class travels in a SocketPriorityTag.
class TraceItem : public QueueDiscItem, public MsfcQueueDisc::HostHashItem
{
  public:
    TraceItem(uint32_t cls, uint32_t flow, uint32_t len, bool ect, uint32_t src, uint32_t dst)
        : QueueDiscItem(Create<Packet>(len), Address(), 0),
          m_cls(cls),
          m_flow(flow),
          m_ect(ect),
          m_src(src),
          m_dst(dst)
    {
        SocketPriorityTag tag;
        tag.SetPriority(static_cast<uint8_t>(cls));
        GetPacket()->AddPacketTag(tag);
    }

    void AddHeader() override
    {
    }

    bool Mark() override
    {
        if (m_ect)
        {
            m_ce = true;
        }
        return m_ect;
    }

    uint32_t Hash(uint32_t) const override
    {
        return m_flow;
    }

    uint32_t HostHash(bool destination, uint32_t) const override
    {
        return destination ? m_dst : m_src;
    }

    /// @return "<class> <flow> <len>" of this packet
    std::string Describe() const
    {
        return std::to_string(m_cls) + " " + std::to_string(m_flow) + " " +
               std::to_string(GetSize());
    }

    uint32_t m_cls;   //!< class from the trace
    uint32_t m_flow;  //!< flow from the trace
    bool m_ect;       //!< ECN-capable transport
    uint32_t m_src;   //!< source host slot from the trace
    uint32_t m_dst;   //!< destination host slot from the trace
    bool m_ce{false}; //!< CE-marked by the queue disc
};

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
    std::map<std::string, std::string> params = {{"version", "1"},
                                                 {"drop_batch", "64"},
                                                 {"target", "5000"},
                                                 {"interval", "100000"},
                                                 {"ecn", "0"},
                                                 {"overload", "flow"},
                                                 {"weights", "rounded"},
                                                 {"inversion", "allow"},
                                                 {"isolate", "flow"},
                                                 {"boost", "off"}};
    const std::set<std::string> known = {"version",
                                         "prios",
                                         "flows",
                                         "quantum",
                                         "ratio",
                                         "limit",
                                         "drop_batch",
                                         "target",
                                         "interval",
                                         "ecn",
                                         "overload",
                                         "weights",
                                         "inversion",
                                         "isolate",
                                         "boost"};
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
            while (ls >> kv)
            {
                auto eq = kv.find('=');
                if (eq == std::string::npos)
                {
                    error = where() + "parameter '" + kv + "' is not key=value";
                    return false;
                }
                if (!known.count(kv.substr(0, eq)))
                {
                    error = where() + "unknown parameter '" + kv.substr(0, eq) + "'";
                    return false;
                }
                params[kv.substr(0, eq)] = kv.substr(eq + 1);
            }
            for (const char* key : {"prios", "flows", "quantum", "ratio", "limit"})
            {
                if (!params.count(key))
                {
                    error = where() + "P line lacks " + key;
                    return false;
                }
            }
            if (params["overload"] != "flow" && params["overload"] != "class")
            {
                error = where() + "overload=" + params["overload"] +
                        " unknown: use overload=flow or overload=class";
                return false;
            }
            if (params["weights"] != "rounded" && params["weights"] != "exact")
            {
                error = where() + "weights=" + params["weights"] +
                        " unknown: use weights=rounded or weights=exact";
                return false;
            }
            if (params["inversion"] != "allow" && params["inversion"] != "prevent")
            {
                error = where() + "inversion=" + params["inversion"] +
                        " unknown: use inversion=allow or inversion=prevent";
                return false;
            }
            const std::string& iso = params["isolate"];
            if (iso != "flow" && iso != "src" && iso != "dst" && iso != "both")
            {
                error = where() + "isolate=" + iso +
                        " unknown: use isolate=flow, isolate=src, isolate=dst or isolate=both";
                return false;
            }
            if (params["boost"] != "off" && params["boost"] != "on")
            {
                error =
                    where() + "boost=" + params["boost"] + " unknown: use boost=off or boost=on";
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
            if (iso != "flow" && version < 3)
            {
                error = where() + "isolate needs version=3 on the P line";
                return false;
            }
            ObjectFactory f;
            f.SetTypeId("ns3::MsfcQueueDisc");
            f.Set("Prios", StringValue(params["prios"]));
            f.Set("Flows", StringValue(params["flows"]));
            f.Set("Quantum", StringValue(params["quantum"]));
            f.Set("Ratio", StringValue(params["ratio"]));
            f.Set("MaxSize", StringValue(params["limit"] + "p"));
            f.Set("DropBatchSize", StringValue(params["drop_batch"]));
            f.Set("Overload", StringValue(params["overload"]));
            f.Set("Weights", StringValue(params["weights"]));
            f.Set("Inversion", StringValue(params["inversion"]));
            f.Set("Isolate", StringValue(iso));
            f.Set("Boost", StringValue(params["boost"]));
            f.Set("Target", StringValue(params["target"] + "us"));
            f.Set("Interval", StringValue(params["interval"] + "us"));
            f.Set("UseEcn", BooleanValue(params["ecn"] == "1"));
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
        }
        else if (!q)
        {
            error = where() + "operation before the P line";
            return false;
        }
        else if (op == "E")
        {
            uint32_t cls;
            uint32_t flow;
            uint32_t len;
            uint32_t ect = 0;
            uint32_t src = 0;
            uint32_t dst = 0;
            if (!(ls >> cls >> flow >> len) || len == 0)
            {
                error = where() + "expected 'E <class> <flow> <len> [<ect> [<src> <dst>]]'";
                return false;
            }
            if ((ls >> ect) && (version < 2 || ect > 1))
            {
                error = where() + "the ECT field is 0 or 1 and needs version=2";
                return false;
            }
            if (ls >> src)
            {
                const uint32_t flows = std::stoul(params["flows"]);
                if (!(ls >> dst) || version < 3 || src >= flows || dst >= flows)
                {
                    error = where() + "the host fields are '<src> <dst>', each 0 .. flows-1, " +
                            "and need version=3";
                    return false;
                }
            }
            q->Enqueue(Create<TraceItem>(cls, flow, len, ect == 1, src, dst));
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
                output.push_back(t->Describe() + (t->m_ce ? " ce" : ""));
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
            error = where() + "unknown operation '" + op + "' (expected P, E, D or T)";
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
