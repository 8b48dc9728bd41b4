/*
 * Dumbbell topology of the seed experiments: n sender hosts -- R1 == bottleneck == R2 --
 * n receiver hosts, one host pair per application, the scheduler under test at R1's
 * bottleneck egress.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SEEDS_DUMBBELL_H
#define SEEDS_DUMBBELL_H

#include "seeds-scenario.h"

#include "ns3/point-to-point-module.h"

namespace seeds
{

/** The built dumbbell. */
struct Dumbbell
{
    NodeContainer senders;                 //!< left hosts
    NodeContainer receivers;               //!< right hosts
    Ptr<Node> r1;                          //!< left router (bottleneck egress)
    Ptr<Node> r2;                          //!< right router
    Ptr<NetDevice> bottleneckDev;          //!< R1's bottleneck device
    Ptr<QueueDisc> bottleneckQdisc;        //!< the scheduler under test
    std::vector<Ipv4Address> senderAddr;   //!< address of sender i
    std::vector<Ipv4Address> receiverAddr; //!< address of receiver i
};

/**
 * Build the dumbbell.
 * @param pairs host pairs
 * @param bottleneckRate bottleneck rate
 * @param bottleneckDelay one-way delay of the bottleneck link
 * @param accessRate rate of the host links
 * @param accessDelay one-way delay of each host link
 * @param root the queue disc for R1's bottleneck egress
 * @param otherQdiscPackets FIFO size of every other egress (the seed's DropTail)
 */
inline Dumbbell
BuildDumbbell(uint32_t pairs,
              DataRate bottleneckRate,
              Time bottleneckDelay,
              DataRate accessRate,
              Time accessDelay,
              Ptr<QueueDisc> root,
              uint32_t otherQdiscPackets)
{
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
    access.SetDeviceAttribute("DataRate", DataRateValue(accessRate));
    access.SetChannelAttribute("Delay", TimeValue(accessDelay));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", DataRateValue(bottleneckRate));
    bottleneck.SetChannelAttribute("Delay", TimeValue(bottleneckDelay));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));

    std::vector<NetDeviceContainer> links;
    NetDeviceContainer core = bottleneck.Install(d.r1, d.r2);
    d.bottleneckDev = core.Get(0);
    for (uint32_t i = 0; i < pairs; ++i)
    {
        links.push_back(access.Install(d.senders.Get(i), d.r1));
    }
    for (uint32_t i = 0; i < pairs; ++i)
    {
        links.push_back(access.Install(d.r2, d.receivers.Get(i)));
    }

    // Queue discs before addresses (address assignment would install ns-3's default).
    auto install = [](Ptr<NetDevice> dev, Ptr<QueueDisc> qd) {
        Ptr<TrafficControlLayer> tc = dev->GetNode()->GetObject<TrafficControlLayer>();
        tc->SetRootQueueDiscOnDevice(dev, qd);
    };
    auto fifo = [otherQdiscPackets]() {
        Ptr<QueueDisc> q = CreateObject<FifoQueueDisc>();
        q->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, otherQdiscPackets));
        return q;
    };
    install(core.Get(0), root);
    install(core.Get(1), fifo());
    for (auto& l : links)
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
        Ipv4InterfaceContainer ifc = addr.Assign(links[i]);
        d.senderAddr.push_back(ifc.GetAddress(0));
    }
    for (uint32_t i = 0; i < pairs; ++i)
    {
        std::ostringstream net;
        net << "10." << (101 + i / 250) << "." << (i % 250) << ".0";
        addr.SetBase(net.str().c_str(), "255.255.255.0");
        Ipv4InterfaceContainer ifc = addr.Assign(links[pairs + i]);
        d.receiverAddr.push_back(ifc.GetAddress(1));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    return d;
}

/** The qdisc.csv row of the scheduler under test. */
inline QdiscRecord
BottleneckRecord(const Dumbbell& d, const std::string& scheduler)
{
    return {std::to_string(d.r1->GetId()),
            std::to_string(d.bottleneckDev->GetIfIndex()),
            scheduler,
            d.bottleneckQdisc};
}

} // namespace seeds

#endif /* SEEDS_DUMBBELL_H */
