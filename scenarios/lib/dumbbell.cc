/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "dumbbell.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/scheduler-registry.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <sstream>

namespace msfc
{
namespace scenario
{

using namespace ns3;

Dumbbell
BuildDumbbell(const DumbbellLinks& links, Ptr<QueueDisc> root)
{
    const uint32_t pairs = links.pairs;
    Dumbbell d;
    d.senders.Create(pairs);
    d.receivers.Create(pairs);
    d.r1 = CreateObject<Node>();
    d.r2 = CreateObject<Node>();
    InternetStackHelper stack;
    stack.Install(d.senders);
    stack.Install(d.receivers);
    stack.Install(d.r1);
    stack.Install(d.r2);

    // Device queues of one packet: queueing happens in the queue discs.
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(links.accessRate));
    access.SetChannelAttribute("Delay", TimeValue(links.accessDelay));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", DataRateValue(links.bottleneckRate));
    bottleneck.SetChannelAttribute("Delay", TimeValue(links.bottleneckDelay));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));

    std::vector<NetDeviceContainer> hostLinks;
    NetDeviceContainer core = bottleneck.Install(d.r1, d.r2);
    d.bottleneckDev = core.Get(0);
    for (uint32_t i = 0; i < pairs; ++i)
    {
        hostLinks.push_back(access.Install(d.senders.Get(i), d.r1));
    }
    for (uint32_t i = 0; i < pairs; ++i)
    {
        hostLinks.push_back(access.Install(d.r2, d.receivers.Get(i)));
    }

    // Queue discs before addresses (address assignment would install ns-3's default).
    auto install = [](Ptr<NetDevice> dev, Ptr<QueueDisc> qd) {
        Ptr<TrafficControlLayer> tc = dev->GetNode()->GetObject<TrafficControlLayer>();
        tc->SetRootQueueDiscOnDevice(dev, qd);
    };
    const uint32_t otherPackets = links.otherQdiscPackets;
    auto fifo = [otherPackets]() {
        Ptr<QueueDisc> q = CreateObject<FifoQueueDisc>();
        q->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, otherPackets));
        return q;
    };
    install(core.Get(0), root);
    install(core.Get(1), fifo());
    for (auto& l : hostLinks)
    {
        install(l.Get(0), fifo());
        install(l.Get(1), fifo());
    }
    d.bottleneckQdisc = root;

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    addr.Assign(core);
    for (uint32_t i = 0; i < pairs; ++i)
    {
        std::ostringstream net;
        net << "10." << (1 + i / 250) << "." << (i % 250) << ".0";
        addr.SetBase(net.str().c_str(), "255.255.255.0");
        Ipv4InterfaceContainer ifc = addr.Assign(hostLinks[i]);
        d.senderAddr.push_back(ifc.GetAddress(0));
    }
    for (uint32_t i = 0; i < pairs; ++i)
    {
        std::ostringstream net;
        net << "10." << (101 + i / 250) << "." << (i % 250) << ".0";
        addr.SetBase(net.str().c_str(), "255.255.255.0");
        Ipv4InterfaceContainer ifc = addr.Assign(hostLinks[pairs + i]);
        d.receiverAddr.push_back(ifc.GetAddress(1));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    return d;
}

QdiscRecord
BottleneckRecord(const Dumbbell& d, const std::string& scheduler)
{
    return {std::to_string(d.r1->GetId()),
            std::to_string(d.bottleneckDev->GetIfIndex()),
            scheduler,
            d.bottleneckQdisc};
}

DumbbellResult
RunDumbbell(const DumbbellConfig& config)
{
    auto wallStart = std::chrono::steady_clock::now();
    RngSeedManager::SetRun(config.rngRun);
    const uint32_t n = config.flows.size();
    if (n == 0)
    {
        throw ConfigError("the dumbbell experiment has no flows: add at least one");
    }
    if (!SchedulerRegistry::Find(config.scheduler))
    {
        throw ConfigError("unknown scheduler '" + config.scheduler +
                          "'; valid: " + SchedulerRegistry::Names());
    }

    // ---- topology: one host pair per flow ----
    DumbbellLinks links = config.links;
    links.pairs = n;
    Dumbbell d = BuildDumbbell(links, SchedulerRegistry::Create(config.scheduler));

    // ---- traffic ----
    std::vector<Ptr<PacketSink>> sinks;
    const uint16_t basePort = 5000;
    const Time start = Seconds(0.1);
    for (uint32_t i = 0; i < n; ++i)
    {
        const DumbbellFlow& f = config.flows[i];
        std::string factory = f.tcp ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory";
        uint16_t port = basePort + i;
        PacketSinkHelper sinkHelper(factory, InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sinkHelper.Install(d.receivers.Get(i));
        sinkApp.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(sinkApp.Get(0)));

        InetSocketAddress peer(d.receiverAddr[i], port);
        ApplicationContainer src;
        if (f.tcp)
        {
            BulkSendHelper bulk(factory, peer);
            bulk.SetAttribute("SendSize", UintegerValue(f.packetSize));
            bulk.SetAttribute("Tos", UintegerValue(f.dscp << 2));
            src = bulk.Install(d.senders.Get(i));
        }
        else
        {
            OnOffHelper onoff(factory, peer);
            onoff.SetConstantRate(f.rate, f.packetSize);
            onoff.SetAttribute("Tos", UintegerValue(f.dscp << 2));
            src = onoff.Install(d.senders.Get(i));
        }
        // Small start offsets so flows do not synchronise.
        src.Start(start + MilliSeconds(7 * i));
        src.Stop(config.duration);
    }

    // ---- measurement ----
    std::vector<uint64_t> rxAtWarmup(n, 0);
    Simulator::Schedule(config.warmup, [&]() {
        for (uint32_t i = 0; i < n; ++i)
        {
            rxAtWarmup[i] = sinks[i]->GetTotalRx();
        }
    });
    FlowMonitorHelper fmHelper;
    Ptr<FlowMonitor> monitor = fmHelper.InstallAll();

    uint64_t eventsBefore = Simulator::GetEventCount();
    Simulator::Stop(config.duration + Seconds(0.5));
    Simulator::Run();

    DumbbellResult result;
    result.flows.resize(n);
    double measured = (config.duration - config.warmup).GetSeconds();
    for (uint32_t i = 0; i < n; ++i)
    {
        result.flows[i].goodputMbps =
            (sinks[i]->GetTotalRx() - rxAtWarmup[i]) * 8.0 / measured / 1e6;
    }
    monitor->CheckForLostPackets();
    auto classifier = DynamicCast<Ipv4FlowClassifier>(fmHelper.GetClassifier());
    for (const auto& [id, st] : monitor->GetFlowStats())
    {
        Ipv4FlowClassifier::FiveTuple t = classifier->FindFlow(id);
        if (t.destinationPort < basePort || t.destinationPort >= basePort + n)
        {
            continue; // acknowledgements
        }
        DumbbellFlowResult& r = result.flows[t.destinationPort - basePort];
        r.txPackets += st.txPackets;
        r.rxPackets += st.rxPackets;
        r.lostPackets += st.lostPackets;
        r.meanDelayMs = st.rxPackets ? st.delaySum.GetSeconds() * 1e3 / st.rxPackets : 0;
    }
    if (auto msfc = DynamicCast<MsfcQueueDisc>(d.bottleneckQdisc))
    {
        for (uint32_t c = 0; c < msfc->GetNClasses(); ++c)
        {
            result.msfcClasses.push_back(msfc->GetClassStats(c));
        }
    }
    result.events = Simulator::GetEventCount() - eventsBefore;
    Simulator::Destroy();
    result.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return result;
}

} // namespace scenario
} // namespace msfc
