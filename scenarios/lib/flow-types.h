// Flow-type files: the format of the MSFC thesis benchmark (thesis appendix A.2).
//
// One flow type per line, nine fields separated by white space:
//
//   name protocol count-ratio data-rate priority directions packet-size on-time off-time
//
//   name         identifier shown in the results: letters, digits, '_', '-', '.'; unique
//   protocol     TCP or UDP
//   count-ratio  integer >= 0: applications of this type per cycle over the types
//   data-rate    ns-3 data rate of the on/off source while on (e.g. 60kbps, 15Mbps), > 0
//   priority     integer >= 0, the class (0 = least important); must be below `prios`
//   directions   "one" (download only) or "bi" (download and upload)
//   packet-size  bytes per application write, 1..65507
//   on-time      ns-3 random variable, e.g. ns3::ConstantRandomVariable[Constant=1]
//   off-time     ns-3 random variable, e.g. ns3::NormalRandomVariable[Mean=1|Variance=1|Bound=1]
//
// Blank lines and everything after '#' are ignored.  Any other deviation is an
// error naming the file, line, field and what was expected.
#ifndef MSFC_SCENARIOS_LIB_FLOW_TYPES_H
#define MSFC_SCENARIOS_LIB_FLOW_TYPES_H

#include "scenario-options.h"

#include "ns3/attribute.h"
#include "ns3/random-variable-stream.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace msfc
{
namespace scenario
{

struct FlowType
{
    std::string name;
    bool udp = false;
    uint32_t countRatio = 0;
    std::string dataRate; ///< as written, valid ns-3 DataRate
    uint64_t dataRateBps = 0;
    uint32_t priority = 0;
    bool bidirectional = false;
    uint32_t packetSize = 0;
    std::string onTime;  ///< ns-3 random variable string, validated
    std::string offTime; ///< ns-3 random variable string, validated
    int line = 0;
};

/// Checks an ns-3 random variable specification "ns3::Name[Attr=v|Attr=v]".
/// Returns an empty string if valid, otherwise what is wrong.
inline std::string
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

/// Reads and validates a flow-type file.  `prios` is the number of classes:
/// every priority must be below it.  Throws ConfigError on the first problem.
inline std::vector<FlowType>
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

} // namespace scenario
} // namespace msfc

#endif
