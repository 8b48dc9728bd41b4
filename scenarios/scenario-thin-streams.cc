/*
 * Seed 001, section IV: queueing delay of thin TCP streams (gaming: 100 B every 638 ms, or
 * 600-1000 ms; VoIP: 100 B every 20-30 ms) sharing a 2 Mbps / 100 ms dumbbell with bulk TCP
 * flows, under CoDel, SFQ, FQ-CoDel and its variants, and MSFC.
 *
 * Extra output: qdelay.csv, one row per thin-stream packet leaving the bottleneck scheduler
 * (its sojourn time there).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "lib/seeds-seed001.h"

using namespace ns3;
using namespace seeds;

namespace
{

/** Queueing-delay samples of chosen flows at the bottleneck scheduler. */
struct DelaySampler
{
    std::map<std::string, bool> watched; //!< 5-tuple keys of thin flows
    std::map<std::string, std::vector<std::pair<double, double>>> samples; //!< key -> (t, d)

    void OnDequeue(Ptr<const QueueDiscItem> item)
    {
        Ipv4Address s;
        Ipv4Address d;
        uint16_t sp;
        uint16_t dp;
        if (!ItemTuple(item, s, d, sp, dp))
        {
            return;
        }
        // The sender's port is ephemeral: watch by destination (receiver address and port).
        std::ostringstream k;
        k << d << ":" << dp;
        auto it = watched.find(k.str());
        if (it == watched.end())
        {
            return;
        }
        std::ostringstream full;
        full << FlowIds::Key(s, sp, d, dp);
        samples[full.str()].emplace_back(Simulator::Now().GetSeconds(),
                                         (Simulator::Now() - item->GetTimeStamp()).GetSeconds());
    }
};

/// The options and presets of the scenario.
ScenarioSpec
Spec()
{
    std::vector<Param> params = Seed001Params("FqCoDel", 10);
    params.insert(
        params.end(),
        {
            {"bulk-flows", ParamType::Int, "5", "bulk TCP flows (1500-byte packets)", "", 0, 200},
            {"gaming-flows", ParamType::Int, "1", "thin TCP gaming flows", "", 0, 200},
            {"gaming-min-gap", ParamType::Time, "638ms", "shortest time between gaming packets"},
            {"gaming-max-gap", ParamType::Time, "638ms", "longest time between gaming packets"},
            {"voip-flows", ParamType::Int, "0", "thin TCP VoIP flows", "", 0, 200},
            {"voip-min-gap", ParamType::Time, "20ms", "shortest time between VoIP packets"},
            {"voip-max-gap", ParamType::Time, "30ms", "longest time between VoIP packets"},
            {"thin-size",
             ParamType::Int,
             "100",
             "application bytes per thin-stream packet",
             "B",
             1,
             1448},
            {"thin-class",
             ParamType::Choice,
             "same",
             "MSFC class of the thin streams: same as the bulk flows (BE) or higher (EF); "
             "sets their DSCP",
             "",
             std::nullopt,
             std::nullopt,
             {"same", "higher"}},
            {"warmup",
             ParamType::Double,
             "5",
             "thin-stream packets before this time are not sampled",
             "s",
             0,
             10000},
        });
    return {"thin-streams",
            "seed 001 sec. IV: queueing delay of thin TCP streams (gaming, VoIP) next to "
            "bulk TCP flows on a 2 Mbps dumbbell, per scheduler",
            params,
            {
                {"paper", "the seed's 300 s runs, gaming streams", {{"duration", "300"}}},
                {"voip",
                 "one bulk flow and one VoIP stream, 300 s",
                 {{"duration", "300"},
                  {"bulk-flows", "1"},
                  {"voip-flows", "1"},
                  {"gaming-min-gap", "600ms"},
                  {"gaming-max-gap", "1000ms"}}},
                {"tiny", "30 s (tests)", {{"duration", "30"}}},
            },
            "paper"};
}

/// Checks what the option table cannot: the gaps' order and the warm-up.
void
CheckOptions(const Options& opt)
{
    if (opt.GetTime("gaming-min-gap") > opt.GetTime("gaming-max-gap") ||
        opt.GetTime("voip-min-gap") > opt.GetTime("voip-max-gap") ||
        !opt.GetTime("gaming-min-gap").IsStrictlyPositive() ||
        !opt.GetTime("voip-min-gap").IsStrictlyPositive())
    {
        throw ConfigError("the thin-stream gaps must satisfy 0 < min-gap <= max-gap (got gaming " +
                          opt.Get("gaming-min-gap") + ".." + opt.Get("gaming-max-gap") + ", voip " +
                          opt.Get("voip-min-gap") + ".." + opt.Get("voip-max-gap") + ")");
    }
    if (opt.GetDouble("warmup") >= opt.GetDouble("duration"))
    {
        throw ConfigError("--warmup=" + opt.Get("warmup") +
                          " must be below --duration=" + opt.Get("duration"));
    }
}

/// The traffic: bulk flows first, then the gaming and the VoIP streams, one host pair each;
/// the thin streams' receivers are added to the sampler's watch list.
FlowLabels
InstallTraffic(const Options& opt,
               Dumbbell& d,
               uint32_t nBulk,
               uint32_t nGame,
               uint32_t nVoip,
               DelaySampler& sampler)
{
    const double duration = opt.GetDouble("duration");
    const bool higher = opt.Get("thin-class") == "higher";
    const uint8_t thinDscp = higher ? DSCP_EF : DSCP_BE;
    const int thinPrio = higher ? 2 : 1;
    const uint32_t size = static_cast<uint32_t>(opt.GetInt("thin-size"));

    FlowLabels labels;
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    uint32_t i = 0;
    for (uint32_t k = 0; k < nBulk; ++k, ++i)
    {
        uint16_t port = static_cast<uint16_t>(5000 + i);
        double start = rng->GetValue(0, 1);
        AddBulk(d, i, port, DSCP_BE, start, duration);
        labels.Add(d.receiverAddr[i], port, {i, "Bulk", 1, true, duration - start});
    }
    auto thin = [&](const std::string& type, Time minGap, Time maxGap) {
        uint16_t port = static_cast<uint16_t>(5000 + i);
        AddPeriodic(d, i, port, true, size, minGap, maxGap, thinDscp, 0.5, duration, rng);
        labels.Add(d.receiverAddr[i], port, {i, type, thinPrio, true, duration - 0.5});
        std::ostringstream k;
        k << d.receiverAddr[i] << ":" << port;
        sampler.watched[k.str()] = true;
        ++i;
    };
    for (uint32_t k = 0; k < nGame; ++k)
    {
        thin("Gaming", opt.GetTime("gaming-min-gap"), opt.GetTime("gaming-max-gap"));
    }
    for (uint32_t k = 0; k < nVoip; ++k)
    {
        thin("Voip", opt.GetTime("voip-min-gap"), opt.GetTime("voip-max-gap"));
    }
    return labels;
}

/// Writes qdelay.csv: the sampler's queueing delays with FlowMonitor's flow ids.
void
WriteQueueDelays(RunOutput& out, const DelaySampler& sampler, FlowMeasurement& flows)
{
    FlowIds ids(flows.Classifier(), flows.Monitor());
    std::ofstream& q = out.Open("qdelay.csv");
    q << "flow_id,time_s,delay_s\n";
    for (auto& [key, v] : sampler.samples)
    {
        // key is "src:sport>dst:dport"
        auto gt = key.find('>');
        auto c1 = key.find(':');
        auto c2 = key.find(':', gt);
        int64_t id = ids.Find(Ipv4Address(key.substr(0, c1).c_str()),
                              static_cast<uint16_t>(std::stoi(key.substr(c1 + 1, gt - c1 - 1))),
                              Ipv4Address(key.substr(gt + 1, c2 - gt - 1).c_str()),
                              static_cast<uint16_t>(std::stoi(key.substr(c2 + 1))));
        for (auto& [t, dl] : v)
        {
            q << id << "," << Fmt(t) << "," << Fmt(dl) << "\n";
        }
    }
}

int
Run(int argc, char** argv)
{
    SimulationRun run;
    Options opt(Spec());
    std::optional<Options::Request> req = ParseCommandLine(opt, argc, argv);
    if (!req)
    {
        return 0;
    }
    CheckOptions(opt);
    ConfigureSeed001(opt);
    const double duration = opt.GetDouble("duration");
    const uint32_t nBulk = static_cast<uint32_t>(opt.GetInt("bulk-flows"));
    const uint32_t nGame = static_cast<uint32_t>(opt.GetInt("gaming-flows"));
    const uint32_t nVoip = static_cast<uint32_t>(opt.GetInt("voip-flows"));
    if (nGame + nVoip == 0)
    {
        throw ConfigError(
            "no thin stream to measure: set --gaming-flows or --voip-flows to 1 or more");
    }

    // topology, traffic
    Dumbbell d = BuildSeed001(opt, nBulk + nGame + nVoip);
    DelaySampler sampler;
    FlowLabels labels = InstallTraffic(opt, d, nBulk, nGame, nVoip, sampler);

    // measurement: thin-stream delays at the bottleneck after the warm-up, FlowMonitor
    Simulator::Schedule(Seconds(opt.GetDouble("warmup")), [&sampler, &d]() {
        d.bottleneckQdisc->TraceConnectWithoutContext(
            "Dequeue",
            MakeCallback(&DelaySampler::OnDequeue, &sampler));
    });
    if (CheckOnly(*req))
    {
        return 0;
    }
    RunOutput out(req->outDir); // checks the directory before the simulation
    FlowMeasurement flows(opt.GetDouble("delay-bin"), opt.GetDouble("delay-bin"));
    run.Run(duration);
    flows.Write(out, labels, 0.0);
    WriteQueueDelays(out, sampler, flows);
    const std::string sched = opt.Get("scheduler");
    FinishRun(out, opt, sched, run, {BottleneckRecord(d, sched)});
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    return Main("scenario-thin-streams", [&] { return Run(argc, argv); });
}
