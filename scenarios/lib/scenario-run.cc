#include "scenario-run.h"

#include "json.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/msfc-queue-disc.h"
#include "ns3/traffic-control-module.h"
#include "ns3/weighted-class-queue-disc.h"

#include <ctime>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <sys/resource.h>

namespace msfc
{
namespace scenario
{

namespace
{

constexpr const char* kNs3Version = "3.44";
constexpr const char* kMsfcVersion = MSFC_VERSION; // from the top-level VERSION file (CMake)

} // namespace

std::string
Fmt(double v)
{
    std::ostringstream os;
    os << std::setprecision(12) << v;
    return os.str();
}

/// The current time, ISO 8601 UTC.
std::string
UtcNow()
{
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

std::optional<Options::Request>
ParseCommandLine(Options& opt, int argc, char** argv)
{
    Options::Request req = opt.Parse(argc, argv);
    if (req.describe)
    {
        std::cout << opt.DescribeJson();
        return std::nullopt;
    }
    if (req.help)
    {
        std::cout << opt.HelpText(std::filesystem::path(argv[0]).filename().string());
        return std::nullopt;
    }
    if (req.outDir.empty() && !req.check)
    {
        throw ConfigError("no output directory: give --out=DIR (see --help)");
    }
    return req;
}

bool
CheckOnly(const Options::Request& req)
{
    if (req.check)
    {
        std::cout << "configuration valid" << std::endl;
    }
    return req.check;
}

int
Main(const std::string& program, const std::function<int()>& body)
{
    try
    {
        return body();
    }
    catch (const ConfigError& e)
    {
        std::cerr << program << ": error: " << e.what() << std::endl;
        return 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << program << ": failed: " << e.what() << std::endl;
        return 1;
    }
}

SimulationRun::SimulationRun()
    : m_startedUtc(UtcNow()),
      m_wallStart(std::chrono::steady_clock::now())
{
}

void
SimulationRun::Run(double duration, bool progress, double extraSeconds)
{
    m_duration = duration;
    if (progress)
    {
        ns3::Simulator::Schedule(ns3::Seconds(1.0), &SimulationRun::Progress, duration);
    }
    m_runStart = std::chrono::steady_clock::now();
    m_runCpuStart = CpuSeconds();
    ns3::Simulator::Stop(ns3::Seconds(duration) + ns3::Seconds(extraSeconds));
    ns3::Simulator::Run();
    m_runEnd = std::chrono::steady_clock::now();
    m_runCpuEnd = CpuSeconds();
    m_events = ns3::Simulator::GetEventCount();
    if (progress)
    {
        std::cerr << "progress " << Fmt(duration) << " " << Fmt(duration) << std::endl;
    }
}

double
SimulationRun::WallSeconds() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_wallStart).count();
}

double
SimulationRun::RunWallSeconds() const
{
    return std::chrono::duration<double>(m_runEnd - m_runStart).count();
}

double
SimulationRun::CpuSeconds()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
           1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

double
SimulationRun::EventsPerSecond() const
{
    double w = RunWallSeconds();
    return w > 0 ? m_events / w : 0.0;
}

void
SimulationRun::Progress(double total)
{
    double now = ns3::Simulator::Now().GetSeconds();
    std::cerr << "progress " << Fmt(now) << " " << Fmt(total) << std::endl;
    if (now + 1.0 < total - 1e-9)
    {
        ns3::Simulator::Schedule(ns3::Seconds(1.0), &SimulationRun::Progress, total);
    }
}

void
FlowLabels::Add(ns3::Ipv4Address sink, uint16_t port, FlowLabel label)
{
    m_labels[{sink, port}] = std::move(label);
}

const FlowLabel*
FlowLabels::Find(ns3::Ipv4Address sink, uint16_t port) const
{
    auto it = m_labels.find({sink, port});
    return it == m_labels.end() ? nullptr : &it->second;
}

uint32_t
WriteFlowFiles(RunOutput& out,
               ns3::Ptr<ns3::FlowMonitor> monitor,
               ns3::Ptr<ns3::Ipv4FlowClassifier> classifier,
               const FlowLabels& labels,
               double unlabelledActiveS)
{
    monitor->CheckForLostPackets();
    std::ofstream& flows = out.Open("flows.csv");
    flows << "flow_id,app_id,type,priority,direction,protocol,src,dst,src_port,dst_port,"
             "tx_packets,tx_bytes,rx_packets,rx_bytes,lost_packets,delay_sum_s,jitter_sum_s,"
             "first_tx_s,last_tx_s,first_rx_s,last_rx_s,active_s,kind,dscp\n";
    std::ofstream& dh = out.Open("delay_hist.csv");
    dh << "flow_id,bin_start_s,bin_width_s,count\n";
    std::ofstream& jh = out.Open("jitter_hist.csv");
    jh << "flow_id,bin_start_s,bin_width_s,count\n";
    uint32_t unmatched = 0;
    for (const auto& [fid, st] : monitor->GetFlowStats())
    {
        ns3::Ipv4FlowClassifier::FiveTuple ft = classifier->FindFlow(fid);
        std::string kind = "data";
        bool down = true;
        const FlowLabel* lab = labels.Find(ft.destinationAddress, ft.destinationPort);
        if (lab != nullptr)
        {
            down = lab->down;
        }
        else if ((lab = labels.Find(ft.sourceAddress, ft.sourcePort)) != nullptr)
        {
            down = !lab->down;
            kind = "ack";
        }
        else
        {
            ++unmatched;
        }
        // The DSCP seen by the classifier (most frequent, if several).
        int dscp = -1;
        uint32_t best = 0;
        for (const auto& [d, n] : classifier->GetDscpCounts(fid))
        {
            if (n > best)
            {
                best = n;
                dscp = static_cast<int>(d);
            }
        }
        std::string proto = ft.protocol == 6    ? "TCP"
                            : ft.protocol == 17 ? "UDP"
                                                : std::to_string(ft.protocol);
        std::ostringstream src;
        std::ostringstream dst;
        src << ft.sourceAddress;
        dst << ft.destinationAddress;
        flows << fid << "," << (lab ? lab->app : -1) << ","
              << (lab ? lab->type : std::string("unknown")) << "," << (lab ? lab->priority : -1)
              << "," << (down ? "down" : "up") << "," << proto << "," << src.str() << ","
              << dst.str() << "," << ft.sourcePort << "," << ft.destinationPort << ","
              << st.txPackets << "," << st.txBytes << "," << st.rxPackets << "," << st.rxBytes
              << "," << st.lostPackets << "," << Fmt(st.delaySum.GetSeconds()) << ","
              << Fmt(st.jitterSum.GetSeconds()) << "," << Fmt(st.timeFirstTxPacket.GetSeconds())
              << "," << Fmt(st.timeLastTxPacket.GetSeconds()) << ","
              << Fmt(st.timeFirstRxPacket.GetSeconds()) << ","
              << Fmt(st.timeLastRxPacket.GetSeconds()) << ","
              << Fmt(lab ? lab->activeS : unlabelledActiveS) << "," << kind << "," << dscp << "\n";
        for (auto [h, os] :
             {std::pair{&st.delayHistogram, &dh}, std::pair{&st.jitterHistogram, &jh}})
        {
            for (uint32_t b = 0; b < h->GetNBins(); ++b)
            {
                uint32_t n = h->GetBinCount(b);
                if (n > 0)
                {
                    *os << fid << "," << Fmt(h->GetBinStart(b)) << "," << Fmt(h->GetBinWidth(b))
                        << "," << n << "\n";
                }
            }
        }
    }
    return unmatched;
}

FlowMeasurement::FlowMeasurement(double delayBinSeconds, double jitterBinSeconds)
{
    m_helper.SetMonitorAttribute("DelayBinWidth", ns3::DoubleValue(delayBinSeconds));
    m_helper.SetMonitorAttribute("JitterBinWidth", ns3::DoubleValue(jitterBinSeconds));
    m_monitor = m_helper.InstallAll();
}

ns3::Ptr<ns3::Ipv4FlowClassifier>
FlowMeasurement::Classifier()
{
    return ns3::DynamicCast<ns3::Ipv4FlowClassifier>(m_helper.GetClassifier());
}

uint32_t
FlowMeasurement::Write(RunOutput& out, const FlowLabels& labels, double unlabelledActiveS)
{
    return WriteFlowFiles(out, m_monitor, Classifier(), labels, unlabelledActiveS);
}

void
SplitDrops(const ns3::QueueDisc::Stats& st, uint64_t* aqm, uint64_t* overload)
{
    auto isAqm = [](const std::string& reason) {
        std::string l = Lower(reason);
        return l.find("target exceeded") != std::string::npos ||
               l.find("codel drop") != std::string::npos ||
               l.find("unforced drop") != std::string::npos ||
               l.find("aqm drop") != std::string::npos;
    };
    *aqm = 0;
    *overload = 0;
    for (const auto* m : {&st.nDroppedPacketsBeforeEnqueue, &st.nDroppedPacketsAfterDequeue})
    {
        for (const auto& [reason, n] : *m)
        {
            (isAqm(reason) ? *aqm : *overload) += n;
        }
    }
}

void
WriteQdiscFile(RunOutput& out, const std::vector<QdiscRecord>& qdiscs)
{
    std::ofstream& qd = out.Open("qdisc.csv");
    qd << "node,device,scheduler,class,enqueued_packets,enqueued_bytes,dequeued_packets,"
          "dequeued_bytes,codel_drops,overload_drops,ecn_marks,ce_threshold_marks,auto_promotions,"
          "auto_demotions\n";
    // one row: the queue disc's identity, then the counters in the header's order
    auto row = [&qd](const QdiscRecord& r, int64_t cls, std::initializer_list<uint64_t> counters) {
        qd << r.node << "," << r.device << "," << r.scheduler << "," << cls;
        for (uint64_t c : counters)
        {
            qd << "," << c;
        }
        qd << "\n";
    };
    for (const auto& r : qdiscs)
    {
        if (ns3::Ptr<ns3::MsfcQueueDisc> m = ns3::DynamicCast<ns3::MsfcQueueDisc>(r.qdisc))
        {
            ns3::UintegerValue prios;
            m->GetAttribute("Prios", prios);
            for (uint32_t p = 0; p < prios.Get(); ++p)
            {
                auto cs = m->GetClassStats(p);
                row(r,
                    p,
                    {cs.enqueuedPackets,
                     cs.enqueuedBytes,
                     cs.dequeuedPackets,
                     cs.dequeuedBytes,
                     cs.codelDrops,
                     cs.overloadDrops,
                     cs.ecnMarks,
                     cs.ceThresholdMarks,
                     cs.autoPromotions,
                     cs.autoDemotions});
            }
            continue;
        }
        if (auto w = ns3::DynamicCast<ns3::WeightedClassQueueDisc>(r.qdisc))
        {
            for (uint32_t c = 0; c < w->GetNClasses(); ++c)
            {
                auto cs = w->GetClassStats(c);
                row(r,
                    c,
                    {cs.enqueuedPackets,
                     cs.enqueuedBytes,
                     cs.dequeuedPackets,
                     cs.dequeuedBytes,
                     cs.aqmDrops,
                     cs.overflowDrops,
                     cs.aqmMarks,
                     0,
                     0,
                     0});
            }
            continue;
        }
        const ns3::QueueDisc::Stats& st = r.qdisc->GetStats();
        uint64_t aqm = 0;
        uint64_t overload = 0;
        SplitDrops(st, &aqm, &overload);
        row(r,
            -1,
            {st.nTotalEnqueuedPackets,
             st.nTotalEnqueuedBytes,
             uint64_t{st.nTotalDequeuedPackets} - st.nTotalDroppedPacketsAfterDequeue,
             st.nTotalDequeuedBytes - st.nTotalDroppedBytesAfterDequeue,
             aqm,
             overload,
             st.nTotalMarkedPackets,
             0,
             0,
             0});
    }
}

void
WriteMeta(RunOutput& out,
          const Options& opt,
          const std::string& scheduler,
          const SimulationRun& run,
          const std::vector<std::pair<std::string, std::string>>& extra)
{
    std::ofstream& meta = out.Open("meta.json");
    meta << "{\n  \"scenario\": " << json::Quote(opt.Scenario())
         << ",\n  \"preset\": " << json::Quote(opt.PresetName())
         << ",\n  \"config\": " << opt.ResolvedJson()
         << ",\n  \"scheduler\": " << json::Quote(scheduler)
         << ",\n  \"rng_run\": " << ns3::RngSeedManager::GetRun()
         << ",\n  \"rng_seed\": " << ns3::RngSeedManager::GetSeed()
         << ",\n  \"ns3_version\": " << json::Quote(kNs3Version)
         << ",\n  \"msfc_version\": " << json::Quote(kMsfcVersion)
         << ",\n  \"wall_seconds\": " << json::Number(run.WallSeconds())
         << ",\n  \"run_wall_seconds\": " << json::Number(run.RunWallSeconds())
         << ",\n  \"cpu_seconds\": " << json::Number(SimulationRun::CpuSeconds())
         << ",\n  \"run_cpu_seconds\": " << json::Number(run.RunCpuSeconds())
         << ",\n  \"sim_seconds\": " << json::Number(run.Duration())
         << ",\n  \"events\": " << run.Events()
         << ",\n  \"events_per_second\": " << json::Number(run.EventsPerSecond())
         << ",\n  \"started_utc\": " << json::Quote(run.StartedUtc());
    for (const auto& [k, v] : extra)
    {
        meta << ",\n  " << json::Quote(k) << ": " << v;
    }
    meta << ",\n  \"format_version\": 1\n}\n";
}

void
FinishRun(RunOutput& out,
          const Options& opt,
          const std::string& scheduler,
          const SimulationRun& run,
          const std::vector<QdiscRecord>& qdiscs,
          const std::vector<std::pair<std::string, std::string>>& extraMeta)
{
    WriteQdiscFile(out, qdiscs);
    WriteMeta(out, opt, scheduler, run, extraMeta);
    out.Commit();
    ns3::Simulator::Destroy();
}

} // namespace scenario
} // namespace msfc
