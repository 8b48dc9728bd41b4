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

#include <cstdint>
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
std::string CheckRandomVariable(const std::string& spec);

/// Reads and validates a flow-type file.  `prios` is the number of classes:
/// every priority must be below it.  Throws ConfigError on the first problem.
std::vector<FlowType> ReadFlowTypes(const std::string& path, uint32_t prios);

/// The flow-type file an option names: an existing path, or the name of a file shipped in
/// scenarios/flow-types (with or without its ".in").  Throws ConfigError if there is none.
std::string ResolveFlowTypePath(const std::string& value);

} // namespace scenario
} // namespace msfc

#endif
