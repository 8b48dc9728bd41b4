#include "flow-types.h"

#include "options.h"

#include "ns3/attribute.h"
#include "ns3/random-variable-stream.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace msfc
{
namespace scenario
{

namespace
{

/// Where the shipped flow-type files live (scenarios/flow-types, set by CMake).
std::filesystem::path
ShippedFlowTypeDir()
{
    return std::filesystem::path(MSFC_FLOW_TYPE_DIR);
}

} // namespace

std::string
CheckRandomVariable(const std::string& spec)
{
    static const std::regex re(R"(^(ns3::[A-Za-z0-9_]+)(\[(.*)\])?$)");
    std::smatch m;
    if (!std::regex_match(spec, m, re))
    {
        return "expected an ns-3 random variable such as ns3::ConstantRandomVariable[Constant=1]";
    }
    std::string type = m[1].str();
    ns3::TypeId tid;
    if (!ns3::TypeId::LookupByNameFailSafe(type, &tid))
    {
        return "ns-3 has no type '" + type +
               "'; expected e.g. ns3::ConstantRandomVariable, ns3::UniformRandomVariable, "
               "ns3::NormalRandomVariable, ns3::ExponentialRandomVariable";
    }
    if (!tid.IsChildOf(ns3::RandomVariableStream::GetTypeId()) || !tid.HasConstructor())
    {
        return "'" + type + "' is not a random variable; expected e.g. ns3::ConstantRandomVariable";
    }
    if (!m[2].matched || m[3].str().empty())
    {
        return "";
    }
    std::string attrs = m[3].str();
    std::stringstream ss(attrs);
    std::string item;
    while (std::getline(ss, item, '|'))
    {
        auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
        {
            return "attribute '" + item + "' of " + type + " is not written Name=value";
        }
        std::string name = item.substr(0, eq);
        std::string value = item.substr(eq + 1);
        ns3::TypeId::AttributeInformation info;
        if (!tid.LookupAttributeByName(name, &info))
        {
            std::string names;
            for (uint32_t i = 0; i < tid.GetAttributeN(); ++i)
            {
                names += (names.empty() ? "" : ", ") + tid.GetAttribute(i).name;
            }
            return type + " has no attribute '" + name + "'; its attributes are: " + names;
        }
        std::string why = CheckAttributeValue(info.checker, value);
        if (!why.empty())
        {
            return "'" + value + "' is not a valid value for " + type + "'s attribute " + name +
                   " (" + why + ")";
        }
    }
    return "";
}

std::vector<FlowType>
ReadFlowTypes(const std::string& path, uint32_t prios)
{
    std::ifstream in(path);
    if (!in)
    {
        throw ConfigError("cannot read flow-type file '" + path +
                          "': check the option flow-types (a path, or thesis / wrong-priorities "
                          "for the shipped files)");
    }
    static const char* fieldNames[] = {"name",
                                       "protocol",
                                       "count-ratio",
                                       "data-rate",
                                       "priority",
                                       "directions",
                                       "packet-size",
                                       "on-time",
                                       "off-time"};
    std::vector<FlowType> types;
    std::set<std::string> names;
    std::string line;
    int n = 0;
    while (std::getline(in, line))
    {
        ++n;
        std::istringstream ls(StripComment(line));
        std::vector<std::string> f;
        std::string tok;
        while (ls >> tok)
        {
            f.push_back(tok);
        }
        if (f.empty())
        {
            continue;
        }
        std::string where = "flow-type file " + path + ", line " + std::to_string(n);
        if (f.size() != 9)
        {
            throw ConfigError(where +
                              ": expected 9 fields (name protocol count-ratio data-rate "
                              "priority directions packet-size on-time off-time), found " +
                              std::to_string(f.size()) +
                              " (random variables must not contain spaces)");
        }
        auto bad = [&](int i, const std::string& expected) {
            return ConfigError(where + ", field " + std::to_string(i + 1) + " (" + fieldNames[i] +
                               "): '" + f[i] + "': " + expected);
        };
        FlowType t;
        t.line = n;
        static const std::regex nameRe(R"(^[A-Za-z0-9_.\-]+$)");
        if (!std::regex_match(f[0], nameRe))
        {
            throw bad(0, "expected a name of letters, digits, '_', '-' or '.'");
        }
        if (!names.insert(f[0]).second)
        {
            throw bad(0, "this name is already used by an earlier line; names must be unique");
        }
        t.name = f[0];
        if (f[1] == "TCP" || f[1] == "tcp")
        {
            t.udp = false;
        }
        else if (f[1] == "UDP" || f[1] == "udp")
        {
            t.udp = true;
        }
        else
        {
            throw bad(1, "expected TCP or UDP");
        }
        int64_t v = 0;
        if (!ParseInt(f[2], &v) || v < 0 || v > 1000000)
        {
            throw bad(2, "expected an integer count ratio between 0 and 1000000");
        }
        t.countRatio = static_cast<uint32_t>(v);
        uint64_t bps = 0;
        if (!ParseDataRate(f[3], &bps) || bps == 0)
        {
            throw bad(3, "expected a positive ns-3 data rate such as 60kbps or 15Mbps");
        }
        t.dataRate = f[3];
        t.dataRateBps = bps;
        if (!ParseInt(f[4], &v) || v < 0)
        {
            throw bad(4, "expected a non-negative integer priority (0 = least important class)");
        }
        if (v >= static_cast<int64_t>(prios))
        {
            throw bad(
                4,
                "priority must be below the number of classes prios=" + std::to_string(prios) +
                    " (use 0.." + std::to_string(prios - 1) + ", or raise the option prios)");
        }
        t.priority = static_cast<uint32_t>(v);
        if (f[5] == "bi")
        {
            t.bidirectional = true;
        }
        else if (f[5] == "one")
        {
            t.bidirectional = false;
        }
        else
        {
            throw bad(5, "expected bi (download and upload) or one (download only)");
        }
        if (!ParseInt(f[6], &v) || v < 1 || v > 65507)
        {
            throw bad(6, "expected a packet size in bytes between 1 and 65507");
        }
        t.packetSize = static_cast<uint32_t>(v);
        for (int i : {7, 8})
        {
            std::string why = CheckRandomVariable(f[i]);
            if (!why.empty())
            {
                throw bad(i, why);
            }
        }
        t.onTime = f[7];
        t.offTime = f[8];
        types.push_back(t);
    }
    if (types.empty())
    {
        throw ConfigError("flow-type file " + path +
                          " defines no flow type; it needs at least "
                          "one line of 9 fields");
    }
    uint64_t total = 0;
    for (const auto& t : types)
    {
        total += t.countRatio;
    }
    if (total == 0)
    {
        throw ConfigError("flow-type file " + path +
                          ": every count ratio is 0; at least one type needs a positive count "
                          "ratio");
    }
    return types;
}

std::string
ResolveFlowTypePath(const std::string& v)
{
    if (std::filesystem::exists(v))
    {
        return v;
    }
    if (v.find('/') == std::string::npos)
    {
        auto shipped = ShippedFlowTypeDir() / v;
        if (std::filesystem::exists(shipped))
        {
            return shipped.string();
        }
        shipped = ShippedFlowTypeDir() / (v + ".in");
        if (std::filesystem::exists(shipped))
        {
            return shipped.string();
        }
    }
    throw ConfigError("option 'flow-types': no file '" + v +
                      "'; give a path to a flow-type file, or thesis / wrong-priorities for the "
                      "files shipped in " +
                      ShippedFlowTypeDir().string());
}

} // namespace scenario
} // namespace msfc
