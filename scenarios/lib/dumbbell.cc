/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "dumbbell.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

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

} // namespace scenario
} // namespace msfc
