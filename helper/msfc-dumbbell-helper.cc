/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msfc-dumbbell-helper.h"

#include "scheduler-registry.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/flow-monitor-helper.h"
#include "ns3/internet-module.h"
#include "ns3/ipv4-flow-classifier.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>

namespace ns3
{

DumbbellResult
RunDumbbell(const DumbbellConfig& config)
{
    auto wallStart = std::chrono::steady_clock::now();
    RngSeedManager::SetRun(config.rngRun);
    const uint32_t n = config.flows.size();
    NS_ABORT_MSG_IF(n == 0, "RunDumbbell: no flows configured");
    NS_ABORT_MSG_IF(!SchedulerRegistry::Find(config.scheduler),
                    "unknown scheduler '" << config.scheduler
                                          << "'; valid: " << SchedulerRegistry::Names());

    NodeContainer senders(n);
    NodeContainer routers(2);
    NodeContainer receiver(1);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(config.accessRate));
    access.SetChannelAttribute("Delay", TimeValue(config.accessDelay));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", DataRateValue(config.bottleneckRate));
    bottleneck.SetChannelAttribute("Delay", TimeValue(config.bottleneckDelay));
    // A short device queue, so that packets wait in the queue disc (like BQL).
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("2p"));

    InternetStackHelper stack;
    stack.InstallAll();

    Ipv4AddressHelper addr;
    std::vector<NetDeviceContainer> senderLinks;
    for (uint32_t i = 0; i < n; ++i)
    {
        NetDeviceContainer d = access.Install(senders.Get(i), routers.Get(0));
        addr.SetBase(Ipv4Address((10u << 24) | (1u << 16) | (i << 2)), "255.255.255.252");
        addr.Assign(d);
        senderLinks.push_back(d);
    }
    NetDeviceContainer core = bottleneck.Install(routers.Get(0), routers.Get(1));
    addr.SetBase("10.2.0.0", "255.255.255.252");
    addr.Assign(core);
    NetDeviceContainer last = access.Install(routers.Get(1), receiver.Get(0));
    addr.SetBase("10.3.0.0", "255.255.255.252");
    Ipv4InterfaceContainer lastIf = addr.Assign(last);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    QueueDiscContainer qdiscs =
        SchedulerRegistry::Install(config.scheduler, NetDeviceContainer(core.Get(0)));

    Ipv4Address sinkAddr = lastIf.GetAddress(1);
    std::vector<Ptr<PacketSink>> sinks;
    const uint16_t basePort = 5000;
    const Time start = Seconds(0.1);
    for (uint32_t i = 0; i < n; ++i)
    {
        const DumbbellFlow& f = config.flows[i];
        std::string factory = f.tcp ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory";
        uint16_t port = basePort + i;
        PacketSinkHelper sinkHelper(factory, InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sinkHelper.Install(receiver.Get(0));
        sinkApp.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(sinkApp.Get(0)));

        ApplicationContainer src;
        if (f.tcp)
        {
            BulkSendHelper bulk(factory, InetSocketAddress(sinkAddr, port));
            bulk.SetAttribute("SendSize", UintegerValue(f.packetSize));
            bulk.SetAttribute("Tos", UintegerValue(f.dscp << 2));
            src = bulk.Install(senders.Get(i));
        }
        else
        {
            OnOffHelper onoff(factory, InetSocketAddress(sinkAddr, port));
            onoff.SetConstantRate(f.rate, f.packetSize);
            onoff.SetAttribute("Tos", UintegerValue(f.dscp << 2));
            src = onoff.Install(senders.Get(i));
        }
        // Small start offsets so flows do not synchronise.
        src.Start(start + MilliSeconds(7 * i));
        src.Stop(config.duration);
    }

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
    if (auto msfc = DynamicCast<MsfcQueueDisc>(qdiscs.Get(0)))
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

} // namespace ns3
