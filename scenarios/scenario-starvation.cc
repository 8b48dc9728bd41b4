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

int
Run(int argc, char** argv)
{
    SimulationRun run;
    Options opt("starvation",
                "seed 001 sec. V: one bulk TCP flow vs N thin unresponsive UDP flows on a 2 Mbps "
                "dumbbell; TCP throughput per scheduler");
    AddSeed001Params(opt, "FqCoDel", 2);
    opt.Add({"thin-flows", ParamType::Int, "30", "number of thin UDP flows", "", 0, 1000});
    opt.Add(
        {"thin-size", ParamType::Int, "100", "UDP payload of a thin-flow packet", "B", 1, 1472});
    opt.Add({"thin-interval", ParamType::Time, "30ms", "time between two packets of a thin flow"});
    opt.Add({"thin-class",
             ParamType::Choice,
             "same",
             "MSFC class of the thin flows: same as the TCP flow (BE), higher (EF) or lower "
             "(CS1); sets their DSCP",
             "",
             std::nullopt,
             std::nullopt,
             {"same", "higher", "lower"}});
    opt.Add({"tcp-start", ParamType::Double, "1", "start of the bulk TCP flow", "s", 0, 1000});
    opt.AddPreset("paper", "the seed's 60 s runs", {{"duration", "60"}});
    opt.AddPreset("tiny",
                  "12 s with 40 thin flows (tests)",
                  {{"duration", "12"}, {"thin-flows", "40"}});
    // Thin traffic above the link rate (45 x 228-byte packets / 30 ms = 2.7 Mbit/s): a DoS.
    opt.AddPreset(
        "dos",
        "thin traffic above the link rate",
        {{"duration", "30"}, {"thin-flows", "45"}, {"thin-size", "200"}, {"buffer", "1000"}});
    opt.SetDefaultPreset("paper");
    std::optional<Options::Request> req = ParseCommandLine(opt, argc, argv);
    if (!req)
    {
        return 0;
    }
    ConfigureSeed001(opt);

    double duration = opt.GetDouble("duration");
    double tcpStart = opt.GetDouble("tcp-start");
    if (tcpStart >= duration)
    {
        throw ConfigError("--tcp-start=" + opt.Get("tcp-start") +
                          " must be below --duration=" + opt.Get("duration"));
    }
    uint32_t nThin = static_cast<uint32_t>(opt.GetInt("thin-flows"));
    std::string thinClass = opt.Get("thin-class");
    uint8_t thinDscp = thinClass == "same" ? DSCP_BE : (thinClass == "higher" ? DSCP_EF : DSCP_CS1);
    int thinPrio = thinClass == "same" ? 1 : (thinClass == "higher" ? 2 : 0);

    Dumbbell d = BuildSeed001(opt, nThin + 1);
    FlowLabels labels;
    AddBulk(d, 0, 5000, DSCP_BE, tcpStart, duration);
    labels.Add(d.receiverAddr[0], 5000, {0, "Bulk", 1, true, duration - tcpStart});
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    Time gap = opt.GetTime("thin-interval");
    for (uint32_t k = 0; k < nThin; ++k)
    {
        uint16_t port = static_cast<uint16_t>(6000 + k);
        AddPeriodic(d,
                    k + 1,
                    port,
                    false,
                    static_cast<uint32_t>(opt.GetInt("thin-size")),
                    gap,
                    gap,
                    thinDscp,
                    0.1,
                    duration,
                    rng);
        labels.Add(d.receiverAddr[k + 1], port, {k + 1, "ThinUdp", thinPrio, true, duration - 0.1});
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
