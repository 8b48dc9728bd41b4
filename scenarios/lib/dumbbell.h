/*
 * The dumbbell network of the scenario programs, the msfc-dumbbell example and the
 * end-to-end tests: n sender hosts -- R1 == bottleneck == R2 -- n receiver hosts, one
 * host pair per application, the scheduler under test at R1's bottleneck egress.
 *
 * BuildDumbbell builds the network; RunDumbbell is a complete small experiment on it
 * (bulk TCP or constant-rate UDP flows, each with its DSCP, goodput and delay per flow).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef MSFC_SCENARIOS_LIB_DUMBBELL_H
#define MSFC_SCENARIOS_LIB_DUMBBELL_H

#include "scenario-run.h"

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/msfc-queue-disc.h"
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

/** One flow of the dumbbell experiment. */
struct DumbbellFlow
{
    uint8_t dscp{0};             //!< DSCP of the flow's packets (sets its MSFC class)
    bool tcp{true};              //!< TCP bulk transfer, or UDP at `rate`
    ns3::DataRate rate{"1Mbps"}; //!< UDP sending rate (unused for TCP)
    uint32_t packetSize{1448};   //!< application payload per packet (bytes)
    std::string label;           //!< free text for reports
};

/** What the dumbbell experiment builds and runs. */
struct DumbbellConfig
{
    std::string scheduler{"Msfc"};        //!< SchedulerRegistry name for the bottleneck
    DumbbellLinks links;                  //!< the network (`pairs` is ignored: one per flow)
    ns3::Time duration{ns3::Seconds(10)}; //!< simulated time
    ns3::Time warmup{ns3::Seconds(2)};    //!< throughput is measured after this
    uint32_t rngRun{1};                   //!< RNG run number
    std::vector<DumbbellFlow> flows;      //!< the flows, flow i from sender i to receiver i
};

/** Per-flow outcome. */
struct DumbbellFlowResult
{
    double goodputMbps{0};   //!< application bytes received after warm-up / time
    double meanDelayMs{0};   //!< mean one-way delay of data packets (whole run)
    uint64_t txPackets{0};   //!< data packets sent
    uint64_t rxPackets{0};   //!< data packets received
    uint64_t lostPackets{0}; //!< data packets lost
};

/** Outcome of one run. */
struct DumbbellResult
{
    std::vector<DumbbellFlowResult> flows;        //!< in the order of DumbbellConfig::flows
    std::vector<ns3::MsfcClassStats> msfcClasses; //!< bottleneck class counters (Msfc only)
    double wallSeconds{0};                        //!< wall-clock time of the run
    uint64_t events{0};                           //!< simulator events executed
};

/**
 * Build the dumbbell, run the experiment and collect the results.  The simulator is
 * destroyed afterwards, so runs can follow each other in one process.  Throws ConfigError
 * for an unknown scheduler or no flows.
 * @param config what to run
 * @return the results
 */
DumbbellResult RunDumbbell(const DumbbellConfig& config);

} // namespace scenario
} // namespace msfc

#endif
