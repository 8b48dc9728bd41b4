/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "seeds-seed001.h"

#include "ns3/applications-module.h"
#include "ns3/msfc-queue-disc.h"

namespace seeds
{

std::vector<Param>
Seed001Params(const std::string& defaultScheduler, double minDuration)
{
    return {
        Param{"duration", ParamType::Double, "60", "simulated seconds", "s", minDuration, 100000},
        Param{"scheduler",
              ParamType::Choice,
              defaultScheduler,
              "scheduler at the bottleneck",
              "",
              std::nullopt,
              std::nullopt,
              SchedulerChoices()},
        Param{"bottleneck-rate", ParamType::DataRate, "2Mbps", "bottleneck rate"},
        Param{"rtt",
              ParamType::Time,
              "100ms",
              "base round-trip time (bottleneck links carry all but 5 ms)"},
        Param{"access-rate", ParamType::DataRate, "100Mbps", "rate of the other links"},
        Param{"buffer",
              ParamType::Int,
              "0",
              "bottleneck scheduler limit in packets; 0: 2 x BDP in 1500-byte packets",
              "packets",
              0,
              1e6},
        Param{"sfq-perturb",
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
        Param{"rng-run", ParamType::Int, "1", "ns-3 RngRun (independent replications)", "", 1, 1e9},
        Param{"rng-seed", ParamType::Int, "1", "ns-3 RngSeed", "", 1, 1e9},
        Param{"delay-bin",
              ParamType::Double,
              "0.0005",
              "FlowMonitor delay histogram bin width",
              "s",
              1e-6,
              1},
    };
}

void
ConfigureSeed001(const Options& opt, TypeId tcp)
{
    RngSeedManager::SetSeed(static_cast<uint32_t>(opt.GetInt("rng-seed")));
    RngSeedManager::SetRun(static_cast<uint64_t>(opt.GetInt("rng-run")));
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(tcp));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448)); // 1500 B packets
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(3));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 20));
    opt.ApplyNs3Defaults(); // the user's --ns3::Type::Attribute values win over ours
}

uint32_t
Seed001Buffer(const Options& opt)
{
    if (opt.GetInt("buffer") > 0)
    {
        return static_cast<uint32_t>(opt.GetInt("buffer"));
    }
    double bdpBytes =
        opt.GetDataRate("bottleneck-rate").GetBitRate() / 8.0 * opt.GetTime("rtt").GetSeconds();
    return std::max<uint32_t>(2, static_cast<uint32_t>(std::lround(2 * bdpBytes / 1500)));
}

Dumbbell
BuildSeed001(const Options& opt, uint32_t pairs)
{
    Time rtt = opt.GetTime("rtt");
    Time access = MicroSeconds(1250); // 1.25 ms per host link as in the seed
    Time core = rtt / 2 - 2 * access;
    if (!core.IsStrictlyPositive())
    {
        throw ConfigError("--rtt=" + opt.Get("rtt") +
                          " is too small: it must exceed 5ms (the host "
                          "links take 1.25 ms, two of them each way)");
    }
    Ptr<QueueDisc> root = MakeScheduler(opt.Get("scheduler"),
                                        Seed001Buffer(opt),
                                        opt.GetTime("sfq-perturb"),
                                        static_cast<uint32_t>(opt.GetInt("msfc-prios")));
    return BuildDumbbell({pairs,
                          opt.GetDataRate("bottleneck-rate"),
                          core,
                          opt.GetDataRate("access-rate"),
                          access,
                          300},
                         root);
}

void
AddBulk(Dumbbell& d, uint32_t i, uint16_t port, uint8_t dscp, double start, double stop)
{
    BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(d.receiverAddr[i], port));
    bulk.SetAttribute("MaxBytes", UintegerValue(0));
    bulk.SetAttribute("SendSize", UintegerValue(1448));
    bulk.SetAttribute("Tos", UintegerValue(dscp << 2));
    ApplicationContainer a = bulk.Install(d.senders.Get(i));
    a.Start(Seconds(start));
    a.Stop(Seconds(stop));
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer s = sink.Install(d.receivers.Get(i));
    s.Start(Seconds(0));
}

void
AddPeriodic(Dumbbell& d,
            uint32_t i,
            uint16_t port,
            bool tcp,
            uint32_t size,
            Time minGap,
            Time maxGap,
            uint8_t dscp,
            double start,
            double stop,
            Ptr<UniformRandomVariable> rng)
{
    std::string factory = tcp ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory";
    Ptr<PeriodicSender> app = CreateObject<PeriodicSender>();
    app->Setup(TypeId::LookupByName(factory),
               InetSocketAddress(d.receiverAddr[i], port),
               size,
               minGap,
               maxGap,
               dscp << 2,
               rng);
    d.senders.Get(i)->AddApplication(app);
    app->SetStartTime(Seconds(start));
    app->SetStopTime(Seconds(stop));
    PacketSinkHelper sink(factory, InetSocketAddress(Ipv4Address::GetAny(), port));
    sink.Install(d.receivers.Get(i)).Start(Seconds(0));
}

} // namespace seeds
