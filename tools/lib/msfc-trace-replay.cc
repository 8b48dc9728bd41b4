/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msfc-trace-replay.h"

#include "ns3/msfc-queue-disc.h"
#include "ns3/object-factory.h"
#include "ns3/packet.h"
#include "ns3/queue-item.h"
#include "ns3/socket.h"
#include "ns3/string.h"

#include <fstream>
#include <map>
#include <sstream>

namespace ns3
{

namespace
{

/// A packet addressed to a given flow; the class travels in a SocketPriorityTag.
class TraceItem : public QueueDiscItem
{
  public:
    TraceItem(uint32_t cls, uint32_t flow, uint32_t len)
        : QueueDiscItem(Create<Packet>(len), Address(), 0),
          m_cls(cls),
          m_flow(flow)
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
        return false;
    }

    uint32_t Hash(uint32_t) const override
    {
        return m_flow;
    }

    uint32_t m_cls;  //!< class from the trace
    uint32_t m_flow; //!< flow from the trace
};

} // namespace

bool
ReplayMsfcTrace(const std::string& path, std::vector<std::string>& output, std::string& error)
{
    std::ifstream in(path);
    if (!in)
    {
        error = "cannot open " + path;
        return false;
    }
    std::map<std::string, std::string> params = {{"drop_batch", "64"},
                                                 {"overload", "flow"},
                                                 {"weights", "rounded"}};
    Ptr<MsfcQueueDisc> q;
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
        auto where = [&]() { return path + ":" + std::to_string(lineNo) + ": "; };
        if (op == "P")
        {
            std::string kv;
            while (ls >> kv)
            {
                auto eq = kv.find('=');
                if (eq == std::string::npos)
                {
                    error = where() + "parameter '" + kv + "' is not key=value";
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
            f.Set("Target", StringValue("1000s"));
            f.Set("Interval", StringValue("2000s"));
            f.Set("UseSocketPriority", StringValue("true"));
            q = f.Create<MsfcQueueDisc>();
            std::string invalid = q->ValidateConfiguration();
            if (!invalid.empty())
            {
                error = where() + invalid;
                return false;
            }
            q->Initialize();
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
            if (!(ls >> cls >> flow >> len) || len == 0)
            {
                error = where() + "expected 'E <class> <flow> <len>'";
                return false;
            }
            q->Enqueue(Create<TraceItem>(cls, flow, len));
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
                output.push_back(std::to_string(t->m_cls) + " " + std::to_string(t->m_flow) + " " +
                                 std::to_string(item->GetSize()));
            }
        }
        else
        {
            error = where() + "unknown operation '" + op + "' (expected P, E or D)";
            return false;
        }
    }
    if (q)
    {
        q->Dispose();
    }
    return true;
}

} // namespace ns3
