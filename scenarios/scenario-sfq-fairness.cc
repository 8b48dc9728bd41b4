/*
 * Seed 004: a CUBIC and a BBR flow share a bottleneck shaped by TBF (burst 500000 B, limit
 * one BDP), 20 ms RTT, 60 s, with no fair scheduler under the TBF, with SFQ (perturb 10 s),
 * with FQ-CoDel and with MSFC. Throughput of each flow over time, Jain's index.
 *
 * Extra output: timeseries.csv (time_s, flow_id, throughput_bps) of each data flow.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "lib/seeds-scenario.h"

#include "ns3/applications-module.h"
#include "ns3/msfc-queue-disc.h"
#include "ns3/point-to-point-module.h"

using namespace ns3;
using namespace seeds;

namespace
{

/** Bytes received per sampling interval by one sink. */
struct RateMeter
{
    uint64_t bytes = 0;
    std::vector<std::pair<double, double>> series; //!< (end of interval, bit/s)

    void OnRx(Ptr<const Packet> p, const Address&)
    {
        bytes += p->GetSize();
    }
};

/// The options and presets of the scenario.
ScenarioSpec
Spec()
{
    std::vector<std::string> choices{"None"};
    for (auto& c : SchedulerChoices())
    {
        if (c != "Fifo")
        {
            choices.push_back(c);
        }
    }
    return {"sfq-fairness",
            "seed 004: CUBIC vs BBR through a TBF-shaped bottleneck, with and without a fair "
            "scheduler under the TBF; throughput over time and Jain's index",
            {
                {"duration",
                 ParamType::Double,
                 "60",
                 "simulated seconds (both flows run all of it)",
                 "s",
                 1,
                 100000},
                {"scheduler",
                 ParamType::Choice,
                 "Sfq",
                 "scheduler under the TBF (None: TBF's own FIFO of one BDP, as without sfq)",
                 "",
                 std::nullopt,
                 std::nullopt,
                 choices},
                {"rate", ParamType::DataRate, "100Mbps", "TBF rate (the seed: 1Gbps)"},
                {"rtt", ParamType::Time, "20ms", "base round-trip time"},
                {"burst",
                 ParamType::Int,
                 "0",
                 "TBF bucket size; 0: 4 ms at --rate (the seed's 500000 B at 1 Gbps)",
                 "B",
                 0,
                 1e9},
                {"tbf-limit",
                 ParamType::Int,
                 "0",
                 "TBF limit (bytes queued); 0: one BDP at --rate",
                 "B",
                 0,
                 1e10},
                {"child-limit",
                 ParamType::Int,
                 "0",
                 "packets the scheduler under the TBF holds; 0: its default (SFQ 127 as Linux sfq, "
                 "FQ-CoDel and MSFC 10240)",
                 "packets",
                 0,
                 1e7},
                {"sfq-perturb",
                 ParamType::Time,
                 "10s",
                 "SFQ perturbation period (0s: off)",
                 "",
                 std::nullopt,
                 std::nullopt,
                 {},
                 {"Sfq"}},
                AttributeOption("msfc-prios",
                                "ns3::MsfcQueueDisc::Prios",
                                "MSFC classes for --scheduler=Msfc",
                                {"Msfc"}),
                {"cca-1",
                 ParamType::Choice,
                 "Cubic",
                 "congestion control of flow 1",
                 "",
                 std::nullopt,
                 std::nullopt,
                 {"Cubic", "Bbr", "NewReno"}},
                {"cca-2",
                 ParamType::Choice,
                 "Bbr",
                 "congestion control of flow 2",
                 "",
                 std::nullopt,
                 std::nullopt,
                 {"Cubic", "Bbr", "NewReno"}},
                {"sample-interval",
                 ParamType::Double,
                 "1",
                 "throughput sampling interval (timeseries.csv)",
                 "s",
                 0.01,
                 100},
                {"rng-run", ParamType::Int, "1", "ns-3 RngRun", "", 1, 1e9},
                {"rng-seed", ParamType::Int, "1", "ns-3 RngSeed", "", 1, 1e9},
                {"delay-bin",
                 ParamType::Double,
                 "0.0005",
                 "FlowMonitor delay histogram bin width",
                 "s",
                 1e-6,
                 1},
            },
            {
                {"fast", "100 Mbps, 60 s", {{"rate", "100Mbps"}, {"duration", "60"}}},
                {"seed",
                 "the seed's 1 Gbps, 60 s (hours of wall time)",
                 {{"rate", "1Gbps"}, {"duration", "60"}}},
                {"tiny", "50 Mbps, 10 s (tests)", {{"rate", "50Mbps"}, {"duration", "10"}}},
            },
            "fast"};
}

/// The bottleneck's sizes, derived from the options.
struct Shaping
{
    double bdp;        //!< bytes in flight at --rate and --rtt
    uint64_t tbfLimit; //!< TBF limit (bytes)
    uint32_t burst;    //!< TBF bucket (bytes)
};

Shaping
ResolveShaping(const Options& opt)
{
    DataRate rate = opt.GetDataRate("rate");
    Time rtt = opt.GetTime("rtt");
    if (rtt < MilliSeconds(1))
    {
        throw ConfigError("--rtt=" + opt.Get("rtt") + " must be at least 1ms");
    }
    Shaping s;
    s.bdp = rate.GetBitRate() / 8.0 * rtt.GetSeconds();
    s.tbfLimit = opt.GetInt("tbf-limit") > 0 ? static_cast<uint64_t>(opt.GetInt("tbf-limit"))
                                             : uint64_t(s.bdp);
    if (s.tbfLimit < 1500)
    {
        throw ConfigError("the TBF limit (" + std::to_string(s.tbfLimit) +
                          " B) is below one packet: raise --tbf-limit or --rate x --rtt");
    }
    s.burst = opt.GetInt("burst") > 0
                  ? static_cast<uint32_t>(opt.GetInt("burst"))
                  : std::max<uint32_t>(3000, static_cast<uint32_t>(rate.GetBitRate() / 8 * 0.004));
    if (s.burst < 1500)
    {
        throw ConfigError("--burst=" + opt.Get("burst") +
                          " is below one 1500-byte packet: TBF could never send");
    }
    return s;
}

/// The built network.
struct Topology
{
    NodeContainer hosts;                     //!< h1, h2 (senders), h3, h4 (receivers)
    NodeContainer sw;                        //!< s1, s2, s3
    NetDeviceContainer bottleneck;           //!< s2 -- s3
    Ptr<TbfQueueDisc> tbf;                   //!< at s2 towards s3
    Ptr<QueueDisc> child;                    //!< the scheduler under the TBF (none for "None")
    std::vector<Ipv4InterfaceContainer> ifs; //!< addresses of the six links
};

/// h1, h2 -- s1 ==(rtt/2 one way)== s2 --[TBF + scheduler]-- s3 -- h3, h4
Topology
BuildTopology(const Options& opt, const Shaping& shaping)
{
    DataRate rate = opt.GetDataRate("rate");
    Time rtt = opt.GetTime("rtt");
    Topology t;
    t.hosts.Create(4);
    t.sw.Create(3);
    InternetStackHelper stack;
    stack.Install(t.hosts);
    stack.Install(t.sw);
    DataRate fast(rate.GetBitRate() * 10);
    Time hostDelay = MicroSeconds(50);
    PointToPointHelper edge;
    edge.SetDeviceAttribute("DataRate", DataRateValue(fast));
    edge.SetChannelAttribute("Delay", TimeValue(hostDelay));
    edge.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    PointToPointHelper wan = edge;
    wan.SetChannelAttribute("Delay", TimeValue(rtt / 2 - 3 * hostDelay));
    NetDeviceContainer l1 = edge.Install(t.hosts.Get(0), t.sw.Get(0));
    NetDeviceContainer l2 = edge.Install(t.hosts.Get(1), t.sw.Get(0));
    NetDeviceContainer l3 = wan.Install(t.sw.Get(0), t.sw.Get(1));
    NetDeviceContainer l4 = edge.Install(t.sw.Get(1), t.sw.Get(2));
    NetDeviceContainer l5 = edge.Install(t.sw.Get(2), t.hosts.Get(2));
    NetDeviceContainer l6 = edge.Install(t.sw.Get(2), t.hosts.Get(3));
    t.bottleneck = l4;

    // The bottleneck: TBF at s2 towards s3, the scheduler as its child.
    t.tbf = CreateObject<TbfQueueDisc>();
    t.tbf->SetAttribute("Rate", DataRateValue(rate));
    t.tbf->SetAttribute("Burst", UintegerValue(shaping.burst));
    t.tbf->SetAttribute("MaxSize",
                        QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, shaping.tbfLimit)));
    std::string sched = opt.Get("scheduler");
    if (sched != "None")
    {
        t.child = MakeScheduler(sched,
                                static_cast<uint32_t>(opt.GetInt("child-limit")),
                                opt.GetTime("sfq-perturb"),
                                static_cast<uint32_t>(opt.GetInt("msfc-prios")));
        Ptr<QueueDiscClass> c = CreateObject<QueueDiscClass>();
        c->SetQueueDisc(t.child);
        t.tbf->AddQueueDiscClass(c);
    }
    auto install = [](Ptr<NetDevice> dev, Ptr<QueueDisc> qd) {
        dev->GetNode()->GetObject<TrafficControlLayer>()->SetRootQueueDiscOnDevice(dev, qd);
    };
    install(l4.Get(0), t.tbf);
    for (NetDeviceContainer* l : {&l1, &l2, &l3, &l4, &l5, &l6})
    {
        for (uint32_t k = 0; k < 2; ++k)
        {
            if (l == &l4 && k == 0)
            {
                continue;
            }
            Ptr<FifoQueueDisc> f = CreateObject<FifoQueueDisc>();
            f->SetMaxSize(QueueSize("1000p"));
            install(l->Get(k), f);
        }
    }
    Ipv4AddressHelper addr;
    int net = 1;
    for (NetDeviceContainer* l : {&l1, &l2, &l3, &l4, &l5, &l6})
    {
        std::string base = "10.0." + std::to_string(net++) + ".0";
        addr.SetBase(base.c_str(), "255.255.255.0");
        t.ifs.push_back(addr.Assign(*l));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    return t;
}

/// The two bulk TCP flows, h1 -> h3 and h2 -> h4, each with its congestion control; the
/// receivers' bytes go to `meters`.  Returns the flows' labels; `dst` gets their receivers.
FlowLabels
InstallTraffic(const Options& opt,
               Topology& t,
               std::vector<RateMeter>& meters,
               std::vector<Ipv4Address>& dst)
{
    const double duration = opt.GetDouble("duration");
    auto tcpType = [](const std::string& n) {
        return n == "Cubic" ? TcpCubic::GetTypeId()
                            : (n == "Bbr" ? TcpBbr::GetTypeId() : TcpNewReno::GetTypeId());
    };
    t.hosts.Get(0)->GetObject<TcpL4Protocol>()->SetAttribute(
        "SocketType",
        TypeIdValue(tcpType(opt.Get("cca-1"))));
    t.hosts.Get(1)->GetObject<TcpL4Protocol>()->SetAttribute(
        "SocketType",
        TypeIdValue(tcpType(opt.Get("cca-2"))));

    FlowLabels labels;
    dst = {t.ifs[4].GetAddress(1), t.ifs[5].GetAddress(1)};
    for (uint32_t k = 0; k < 2; ++k)
    {
        uint16_t port = static_cast<uint16_t>(5001 + k);
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(dst[k], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(1448 * 8));
        ApplicationContainer a = bulk.Install(t.hosts.Get(k));
        a.Start(Seconds(0.0 + 0.01 * k));
        a.Stop(Seconds(duration));
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(t.hosts.Get(2 + k));
        s.Start(Seconds(0));
        s.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&RateMeter::OnRx, &meters[k]));
        std::string type = opt.Get(k == 0 ? "cca-1" : "cca-2");
        labels.Add(dst[k], port, {k, type, 1, true, duration - 0.01 * k});
    }
    return labels;
}

/// Writes timeseries.csv: each flow's goodput per sampling interval.
void
WriteTimeseries(RunOutput& out,
                FlowMeasurement& flows,
                const std::vector<RateMeter>& meters,
                const std::vector<Ipv4Address>& dst)
{
    Ptr<Ipv4FlowClassifier> cls = flows.Classifier();
    std::ofstream& ts = out.Open("timeseries.csv");
    ts << "time_s,flow_id,throughput_bps\n";
    for (uint32_t k = 0; k < 2; ++k)
    {
        int64_t id = -1;
        for (auto& [fid, st] : flows.Monitor()->GetFlowStats())
        {
            auto t = cls->FindFlow(fid);
            if (t.destinationAddress == dst[k] && t.destinationPort == 5001 + k)
            {
                id = fid;
            }
        }
        for (auto& [t, bps] : meters[k].series)
        {
            ts << Fmt(t) << "," << id << "," << Fmt(bps) << "\n";
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
    RngSeedManager::SetSeed(static_cast<uint32_t>(opt.GetInt("rng-seed")));
    RngSeedManager::SetRun(static_cast<uint64_t>(opt.GetInt("rng-run")));
    const double duration = opt.GetDouble("duration");
    const Shaping shaping = ResolveShaping(opt);

    // TCP: 1500-byte packets, buffers of 8 x BDP as the seed's hosts.
    uint32_t buf = static_cast<uint32_t>(std::min(8 * shaping.bdp, 2e9));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(std::max(buf, 131072u)));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(std::max(buf, 131072u)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    opt.ApplyNs3Defaults(); // the user's --ns3::Type::Attribute values win over ours

    // topology, traffic
    Topology topo = BuildTopology(opt, shaping);
    std::vector<RateMeter> meters(2);
    std::vector<Ipv4Address> dst;
    FlowLabels labels = InstallTraffic(opt, topo, meters, dst);

    // measurement: goodput every sample-interval, FlowMonitor
    double step = opt.GetDouble("sample-interval");
    std::function<void()> sample = [&]() {
        double now = Simulator::Now().GetSeconds();
        for (auto& m : meters)
        {
            m.series.emplace_back(now, m.bytes * 8.0 / step);
            m.bytes = 0;
        }
        if (now + step <= duration + 1e-9)
        {
            Simulator::Schedule(Seconds(step), sample);
        }
    };
    Simulator::Schedule(Seconds(step), sample);
    if (CheckOnly(*req))
    {
        return 0;
    }
    RunOutput out(req->outDir); // checks the directory before the simulation
    FlowMeasurement flows(opt.GetDouble("delay-bin"), opt.GetDouble("delay-bin"));

    run.Run(duration, true, 0.001);

    flows.Write(out, labels, 0.0);
    WriteTimeseries(out, flows, meters, dst);
    const std::string sched = opt.Get("scheduler");
    const std::string node = std::to_string(topo.sw.Get(1)->GetId());
    const std::string dev = std::to_string(topo.bottleneck.Get(0)->GetIfIndex());
    std::vector<QdiscRecord> qds{{node, dev, "Tbf", topo.tbf}};
    if (topo.child)
    {
        qds.push_back({node, dev, sched, topo.child});
    }
    FinishRun(out, opt, sched, run, qds);
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    return Main("scenario-sfq-fairness", [&] { return Run(argc, argv); });
}
