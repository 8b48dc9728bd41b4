/*
 * The dumbbell network of the seed experiments: n sender hosts -- R1 == bottleneck == R2 --
 * n receiver hosts, one host pair per application, the scheduler under test at R1's
 * bottleneck egress.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef MSFC_SCENARIOS_LIB_DUMBBELL_H
#define MSFC_SCENARIOS_LIB_DUMBBELL_H

#include "scenario-run.h"

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/queue-disc.h"

#include <cstdint>
#include <string>
#include <vector>

namespace msfc
{
namespace scenario
{

/** The links of a dumbbell. */
struct DumbbellLinks
{
    uint32_t pairs{1};                                //!< host pairs
    ns3::DataRate bottleneckRate{"10Mbps"};           //!< bottleneck rate
    ns3::Time bottleneckDelay{ns3::MilliSeconds(10)}; //!< one-way delay of the bottleneck
    ns3::DataRate accessRate{"1Gbps"};                //!< rate of the host links
    ns3::Time accessDelay{ns3::MilliSeconds(1)};      //!< one-way delay of each host link
    uint32_t otherQdiscPackets{1000}; //!< FIFO size of every other egress (drop tail)
};

/** The built dumbbell. */
struct Dumbbell
{
    ns3::NodeContainer senders;                 //!< left hosts
    ns3::NodeContainer receivers;               //!< right hosts
    ns3::Ptr<ns3::Node> r1;                     //!< left router (bottleneck egress)
    ns3::Ptr<ns3::Node> r2;                     //!< right router
    ns3::Ptr<ns3::NetDevice> bottleneckDev;     //!< R1's bottleneck device
    ns3::Ptr<ns3::QueueDisc> bottleneckQdisc;   //!< the scheduler under test
    std::vector<ns3::Ipv4Address> senderAddr;   //!< address of sender i
    std::vector<ns3::Ipv4Address> receiverAddr; //!< address of receiver i
};

/**
 * Build the dumbbell.  Device queues hold one packet: queueing happens in the queue discs.
 * @param links the links
 * @param root the queue disc for R1's bottleneck egress
 */
Dumbbell BuildDumbbell(const DumbbellLinks& links, ns3::Ptr<ns3::QueueDisc> root);

/** The qdisc.csv row of the scheduler under test. */
QdiscRecord BottleneckRecord(const Dumbbell& d, const std::string& scheduler);

} // namespace scenario
} // namespace msfc

#endif
