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

int
main(int argc, char** argv)
{
    Options opt("starvation",
                "seed 001 sec. V: one bulk TCP flow vs N thin unresponsive UDP flows on a 2 Mbps "
                "dumbbell; TCP throughput per scheduler");
    AddSeed001Params(opt, "FqCoDel", 2);
    opt.Add({"thin-flows", "int", "30", "number of thin UDP flows", "", 0, 1000});
    opt.Add({"thin-size", "int", "100", "UDP payload of a thin-flow packet", "B", 1, 1472});
    opt.Add({"thin-interval", "time", "30ms", "time between two packets of a thin flow"});
    opt.Add({"thin-class", "choice", "same",
             "MSFC class of the thin flows: same as the TCP flow (BE), higher (EF) or lower "
             "(CS1); sets their DSCP",
             "", NAN, NAN, {"same", "higher", "lower"}});
    opt.Add({"tcp-start", "double", "1", "start of the bulk TCP flow", "s", 0, 1000});
    opt.AddPreset("paper", {{"duration", "60"}});
    opt.AddPreset("tiny", {{"duration", "12"}, {"thin-flows", "40"}});
    // Thin traffic above the link rate (45 x 228-byte packets / 30 ms = 2.7 Mbit/s): a DoS.
    opt.AddPreset("dos", {{"duration", "30"}, {"thin-flows", "45"}, {"thin-size", "200"},
                          {"buffer", "1000"}});
    opt.SetDefaultPreset("paper");
    opt.Parse(argc, argv);
    if (opt.OutDir().empty())
    {
        ConfigError("--out=DIR is required (where meta.json, flows.csv, ... are written)");
    }
    ConfigureSeed001(opt);

    double duration = opt.GetDouble("duration");
    double tcpStart = opt.GetDouble("tcp-start");
    if (tcpStart >= duration)
    {
        ConfigError("--tcp-start=" + opt.Get("tcp-start") + " must be below --duration=" +
                    opt.Get("duration"));
    }
    uint32_t nThin = static_cast<uint32_t>(opt.GetInt("thin-flows"));
    std::string thinClass = opt.Get("thin-class");
    uint8_t thinDscp = thinClass == "same" ? DSCP_BE : (thinClass == "higher" ? DSCP_EF : DSCP_CS1);
    int thinPrio = thinClass == "same" ? 1 : (thinClass == "higher" ? 2 : 0);

    Dumbbell d = BuildSeed001(opt, nThin + 1);
    std::vector<AppInfo> apps;
    AddBulk(d, 0, 5000, DSCP_BE, tcpStart, duration);
    apps.push_back({0, "Bulk", 1, "TCP", d.senderAddr[0], d.receiverAddr[0], 5000,
                    duration - tcpStart});
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    Time gap = opt.GetTime("thin-interval");
    for (uint32_t k = 0; k < nThin; ++k)
    {
        uint16_t port = static_cast<uint16_t>(6000 + k);
        AddPeriodic(d, k + 1, port, false, static_cast<uint32_t>(opt.GetInt("thin-size")), gap,
                    gap, thinDscp, 0.1, duration, rng);
        apps.push_back({static_cast<int>(k + 1), "ThinUdp", thinPrio, "UDP", d.senderAddr[k + 1],
                        d.receiverAddr[k + 1], port, duration - 0.1});
    }

    FlowMonitorHelper fmh;
    fmh.SetMonitorAttribute("DelayBinWidth", DoubleValue(opt.GetDouble("delay-bin")));
    fmh.SetMonitorAttribute("JitterBinWidth", DoubleValue(opt.GetDouble("delay-bin")));
    Ptr<FlowMonitor> monitor = fmh.InstallAll();

    RunOutput out(opt.OutDir());
    std::string started = UtcNow();
    auto t0 = std::chrono::steady_clock::now();
    ScheduleProgress(duration);
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    Ptr<Ipv4FlowClassifier> cls = DynamicCast<Ipv4FlowClassifier>(fmh.GetClassifier());
    WriteFlowFiles(out, monitor, cls, apps);
    WriteQdiscFile(out, {{d.r1->GetId(), d.bottleneckDev->GetIfIndex(), opt.Get("scheduler"),
                          d.bottleneckQdisc}});
    WriteMeta(out, opt, opt.Get("scheduler"), wall, duration, started);
    out.Commit();
    Simulator::Destroy();
    return 0;
}
