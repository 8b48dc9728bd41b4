/*
 * Seed 001, section V: one bulk TCP flow against many thin unresponsive UDP flows
 * (100 B every 30 ms) over a 2 Mbps / 100 ms dumbbell. Does the scheduler starve the TCP
 * flow? FQ-CoDel (with and without its starvation prevention), SFQ, MSFC.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "lib/seeds-seed001.h"

using namespace ns3;
using namespace seeds;

namespace
{

/// The options and presets of the scenario.
ScenarioSpec
Spec()
{
    std::vector<Param> params = Seed001Params("FqCoDel", 2);
    params.insert(
        params.end(),
        {
            {"thin-flows", ParamType::Int, "30", "number of thin UDP flows", "", 0, 1000},
            {"thin-size", ParamType::Int, "100", "UDP payload of a thin-flow packet", "B", 1, 1472},
            {"thin-interval", ParamType::Time, "30ms", "time between two packets of a thin flow"},
            {"thin-class",
             ParamType::Choice,
             "same",
             "MSFC class of the thin flows: same as the TCP flow (BE), higher (EF) or lower "
             "(CS1); sets their DSCP",
             "",
             std::nullopt,
             std::nullopt,
             {"same", "higher", "lower"}},
            {"thin-hosts",
             ParamType::Choice,
             "each",
             "hosts of the thin flows: each its own host pair (the seed), or one sender and "
             "one receiver for all (a flood from one host)",
             "",
             std::nullopt,
             std::nullopt,
             {"each", "one"}},
            {"tcp-start", ParamType::Double, "1", "start of the bulk TCP flow", "s", 0, 1000},
            {"rival-flows",
             ParamType::Int,
             "0",
             "bulk flows (TCP's class) from one more host pair, started with the TCP flow",
             "",
             0,
             1000},
            {"bulk-proto",
             ParamType::Choice,
             "tcp",
             "the bulk flow and the rival flows: TCP NewReno, or UDP sending 1500-byte "
             "packets at the bottleneck rate each (unresponsive, always backlogged)",
             "",
             std::nullopt,
             std::nullopt,
             {"tcp", "udp"}},
            {"cca",
             ParamType::Choice,
             "NewReno",
             "congestion control of the TCP flows (the seed: NewReno; Cubic: Linux's default)",
             "",
             std::nullopt,
             std::nullopt,
             {"NewReno", "Cubic"}},
        });
    return {
        "starvation",
        "seed 001 sec. V: one bulk TCP flow vs N thin unresponsive UDP flows on a 2 Mbps "
        "dumbbell; TCP throughput per scheduler",
        params,
        {
            {"paper", "the seed's 60 s runs", {{"duration", "60"}}},
            {"tiny", "12 s with 40 thin flows (tests)", {{"duration", "12"}, {"thin-flows", "40"}}},
            // Thin traffic above the link rate (45 x 228-byte packets / 30 ms = 2.7 Mbit/s):
            // a DoS.
            {"dos",
             "thin traffic above the link rate",
             {{"duration", "30"}, {"thin-flows", "45"}, {"thin-size", "200"}, {"buffer", "1000"}}},
            // The DoS from one host to one host in a class above the TCP flow's, with the
            // 2 x BDP buffer (33 packets) that the flood keeps full: the thesis's overload
            // drop and per-flow fairness starve the TCP flow, Overload=class and Isolate=src
            // each keep it going (docs/cli.md).
            {"modes",
             "for MSFC's modes beyond the thesis (Overload, Isolate): a flood from one host "
             "above the link rate in a higher class, 2 x BDP buffer, 20 s",
             {{"duration", "20"},
              {"thin-flows", "45"},
              {"thin-size", "200"},
              {"thin-hosts", "one"},
              {"thin-class", "higher"}}},
        },
        "paper"};
}

/// Host pairs: the bulk TCP flow's, the thin flows' (one, or one each), the rival flows' (one).
uint32_t
Pairs(const Options& opt)
{
    const uint32_t nThin = static_cast<uint32_t>(opt.GetInt("thin-flows"));
    const uint32_t thinPairs = opt.Get("thin-hosts") == "one" ? std::min(nThin, 1U) : nThin;
    return 1 + thinPairs + (opt.GetInt("rival-flows") > 0 ? 1 : 0);
}

/// The traffic: the bulk TCP flow on host pair 0, thin flow k on pair k + 1 (or all on pair
/// 1), the rival bulk flows on the last pair.
FlowLabels
InstallTraffic(const Options& opt, Dumbbell& d, uint32_t nThin)
{
    const double duration = opt.GetDouble("duration");
    const double tcpStart = opt.GetDouble("tcp-start");
    const std::string thinClass = opt.Get("thin-class");
    const uint8_t thinDscp =
        thinClass == "same" ? DSCP_BE : (thinClass == "higher" ? DSCP_EF : DSCP_CS1);
    const int thinPrio = thinClass == "same" ? 1 : (thinClass == "higher" ? 2 : 0);

    FlowLabels labels;
    const bool udpBulk = opt.Get("bulk-proto") == "udp";
    // UDP bulk: 1472-byte payloads (1500-byte packets) back to back at the bottleneck rate
    const Time udpGap = opt.GetDataRate("bottleneck-rate").CalculateBytesTxTime(1500);
    // created only for UDP bulk flows: a random variable created for nothing would shift the
    // streams of those made after it (the thin flows') and change the seed's runs
    Ptr<UniformRandomVariable> bulkRng = udpBulk ? CreateObject<UniformRandomVariable>() : nullptr;
    auto addBulk = [&](uint32_t pair, uint16_t port) {
        if (udpBulk)
        {
            AddPeriodic(d,
                        pair,
                        port,
                        false,
                        1472,
                        udpGap,
                        udpGap,
                        DSCP_BE,
                        tcpStart,
                        duration,
                        bulkRng);
        }
        else
        {
            AddBulk(d, pair, port, DSCP_BE, tcpStart, duration);
        }
    };
    addBulk(0, 5000);
    labels.Add(d.receiverAddr[0], 5000, {0, "Bulk", 1, true, duration - tcpStart});
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    Time gap = opt.GetTime("thin-interval");
    const bool oneHost = opt.Get("thin-hosts") == "one";
    for (uint32_t k = 0; k < nThin; ++k)
    {
        uint16_t port = static_cast<uint16_t>(6000 + k);
        const uint32_t pair = oneHost ? 1 : k + 1;
        AddPeriodic(d,
                    pair,
                    port,
                    false,
                    static_cast<uint32_t>(opt.GetInt("thin-size")),
                    gap,
                    gap,
                    thinDscp,
                    0.1,
                    duration,
                    rng);
        labels.Add(d.receiverAddr[pair], port, {k + 1, "ThinUdp", thinPrio, true, duration - 0.1});
    }
    const uint32_t nRival = static_cast<uint32_t>(opt.GetInt("rival-flows"));
    const uint32_t rivalPair = static_cast<uint32_t>(d.senders.GetN()) - 1;
    for (uint32_t k = 0; k < nRival; ++k)
    {
        uint16_t port = static_cast<uint16_t>(7000 + k);
        addBulk(rivalPair, port);
        labels.Add(d.receiverAddr[rivalPair],
                   port,
                   {nThin + 1 + k, "RivalBulk", 1, true, duration - tcpStart});
    }
    return labels;
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
    ConfigureSeed001(opt,
                     opt.Get("cca") == "Cubic" ? TcpCubic::GetTypeId() : TcpNewReno::GetTypeId());
    const double duration = opt.GetDouble("duration");
    if (opt.GetDouble("tcp-start") >= duration)
    {
        throw ConfigError("--tcp-start=" + opt.Get("tcp-start") +
                          " must be below --duration=" + opt.Get("duration"));
    }
    const uint32_t nThin = static_cast<uint32_t>(opt.GetInt("thin-flows"));

    // topology, traffic
    Dumbbell d = BuildSeed001(opt, Pairs(opt));
    FlowLabels labels = InstallTraffic(opt, d, nThin);

    // measurement
    if (CheckOnly(*req))
    {
        return 0;
    }
    RunOutput out(req->outDir); // checks the directory before the simulation
    FlowMeasurement flows(opt.GetDouble("delay-bin"), opt.GetDouble("delay-bin"));
    run.Run(duration);
    flows.Write(out, labels, 0.0);
    const std::string sched = opt.Get("scheduler");
    FinishRun(out, opt, sched, run, {BottleneckRecord(d, sched)});
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    return Main("scenario-starvation", [&] { return Run(argc, argv); });
}
