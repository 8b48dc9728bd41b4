// What every scenario program does around its simulation (docs/data-format.md):
// command-line handling and exit codes, progress lines, the FlowMonitor files
// (flows.csv, delay_hist.csv, jitter_hist.csv), qdisc.csv and meta.json.
#ifndef MSFC_SCENARIOS_LIB_SCENARIO_RUN_H
#define MSFC_SCENARIOS_LIB_SCENARIO_RUN_H

#include "options.h"
#include "run-output.h"

#include "ns3/flow-monitor-helper.h"
#include "ns3/flow-monitor.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-flow-classifier.h"
#include "ns3/queue-disc.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace msfc
{
namespace scenario
{

/// A number as the output files write it (up to 12 significant digits).
std::string Fmt(double v);

/// The current time, ISO 8601 UTC.
std::string UtcNow();

/**
 * Parses the command line of a scenario program.  Prints the --describe document or
 * the --help text and returns nothing when that was asked for; otherwise returns the
 * request, which always has an output directory.  Throws ConfigError.
 */
std::optional<Options::Request> ParseCommandLine(Options& opt, int argc, char** argv);

/**
 * True for --check: the configuration passed every check the program makes before it
 * simulates; prints "configuration valid" on stdout.  Call it where the checks end, before
 * RunOutput; the program then exits 0 without simulating or writing anything.
 */
bool CheckOnly(const Options::Request& req);

/**
 * Runs a scenario program's body with the exit codes of docs/data-format.md: 2 for a
 * configuration error (the message names the option and what is allowed), 1 for any
 * other failure.
 */
int Main(const std::string& program, const std::function<int()>& body);

/**
 * The simulation run with its wall-clock times and progress lines
 * ("progress <done> <total>" on stderr once per simulated second and at the end).
 */
class SimulationRun
{
  public:
    /// Starts the wall clock (call it first thing in the program).
    SimulationRun();

    /// Runs the simulation for `duration` simulated seconds (plus `extraSeconds` to let
    /// events scheduled at the end run).
    void Run(double duration, bool progress = true, double extraSeconds = 0.0);

    /// Wall seconds since the program started.
    double WallSeconds() const;
    /// Wall seconds of Simulator::Run.
    double RunWallSeconds() const;
    /// CPU seconds (user + system) of this process so far: the cost of a run on a machine
    /// shared with other work, where wall time depends on the load.
    static double CpuSeconds();

    /// CPU seconds of Simulator::Run.
    double RunCpuSeconds() const
    {
        return m_runCpuEnd - m_runCpuStart;
    }

    uint64_t Events() const
    {
        return m_events;
    }

    double EventsPerSecond() const;

    double Duration() const
    {
        return m_duration;
    }

    const std::string& StartedUtc() const
    {
        return m_startedUtc;
    }

  private:
    static void Progress(double total);

    std::string m_startedUtc;
    std::chrono::steady_clock::time_point m_wallStart;
    std::chrono::steady_clock::time_point m_runStart;
    double m_runCpuStart{0};
    double m_runCpuEnd{0};
    std::chrono::steady_clock::time_point m_runEnd;
    uint64_t m_events = 0;
    double m_duration = 0;
};

/// The scenario's labels of one measured direction of an application (flows.csv).
struct FlowLabel
{
    int64_t app;      ///< the scenario's application number
    std::string type; ///< e.g. "TVStream", "Bulk"
    int64_t priority; ///< the class the scheduler is meant to give it
    bool down;        ///< direction of the data
    double activeS;   ///< configured active time (throughput denominator)
};

/// Labels by the address and port of the data's receiver (the sink).
class FlowLabels
{
  public:
    void Add(ns3::Ipv4Address sink, uint16_t port, FlowLabel label);
    const FlowLabel* Find(ns3::Ipv4Address sink, uint16_t port) const;

  private:
    struct Key
    {
        ns3::Ipv4Address addr;
        uint16_t port;

        bool operator<(const Key& o) const
        {
            return addr < o.addr || (addr == o.addr && port < o.port);
        }
    };

    std::map<Key, FlowLabel> m_labels;
};

/**
 * Writes flows.csv, delay_hist.csv and jitter_hist.csv from FlowMonitor.  A flow to a
 * labelled sink is that application's data; a flow from it is the acknowledgements
 * (kind "ack", the opposite direction).
 * @param unlabelledActiveS active_s written for flows no label matches
 * @return the number of flows no label matches
 */
uint32_t WriteFlowFiles(RunOutput& out,
                        ns3::Ptr<ns3::FlowMonitor> monitor,
                        ns3::Ptr<ns3::Ipv4FlowClassifier> classifier,
                        const FlowLabels& labels,
                        double unlabelledActiveS);

/// FlowMonitor on every node, with the histogram bin widths of the options.
class FlowMeasurement
{
  public:
    FlowMeasurement(double delayBinSeconds, double jitterBinSeconds);

    ns3::Ptr<ns3::FlowMonitor> Monitor() const
    {
        return m_monitor;
    }

    ns3::Ptr<ns3::Ipv4FlowClassifier> Classifier();

    /// Writes the flow files (see WriteFlowFiles); returns the number of unlabelled flows.
    uint32_t Write(RunOutput& out, const FlowLabels& labels, double unlabelledActiveS);

  private:
    ns3::FlowMonitorHelper m_helper;
    ns3::Ptr<ns3::FlowMonitor> m_monitor;
};

/// One queue disc of qdisc.csv.
struct QdiscRecord
{
    std::string node;      ///< node name or number
    std::string device;    ///< device name, number or the peer it leads to
    std::string scheduler; ///< scheduler name
    ns3::Ptr<ns3::QueueDisc> qdisc;
};

/// Splits a queue disc's drops into AQM drops (CoDel's "target exceeded", PIE's
/// unforced drops, MSFC's CoDel drops, WRED / RB drops) and drops for exceeding a limit
/// (everything else).
void SplitDrops(const ns3::QueueDisc::Stats& st, uint64_t* aqm, uint64_t* overload);

/**
 * Writes qdisc.csv: one row per queue disc (class -1), or one per class for MSFC and the
 * weighted class scheduler (its WRED / RB drops in codel_drops, i.e. the AQM's drops).
 * `dequeued_*` counts what the queue disc handed on (to the device or its parent): ns-3's
 * own "dequeued" also counts packets dropped after dequeue (CoDel's drops), MSFC's class
 * counters do not, so the ns-3 figure is reduced by those drops and every row means the same.
 */
void WriteQdiscFile(RunOutput& out, const std::vector<QdiscRecord>& qdiscs);

/**
 * Writes meta.json.
 * @param extra further "key": value pairs (values already JSON), after the common keys
 */
void WriteMeta(RunOutput& out,
               const Options& opt,
               const std::string& scheduler,
               const SimulationRun& run,
               const std::vector<std::pair<std::string, std::string>>& extra = {});

/**
 * The end of every run: writes qdisc.csv and meta.json, renames all files into place
 * and destroys the simulation.
 */
void FinishRun(RunOutput& out,
               const Options& opt,
               const std::string& scheduler,
               const SimulationRun& run,
               const std::vector<QdiscRecord>& qdiscs,
               const std::vector<std::pair<std::string, std::string>>& extraMeta = {});

} // namespace scenario
} // namespace msfc

#endif
