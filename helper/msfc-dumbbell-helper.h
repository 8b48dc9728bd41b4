/*
 * A dumbbell network for quick experiments with a scheduler at the
 * bottleneck: senders -> left router -> (bottleneck) -> right router -> one
 * receiver.  Each flow is bulk TCP or constant-rate UDP with a DSCP of its
 * own.  Used by the msfc-dumbbell example and the end-to-end tests.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef MSFC_DUMBBELL_HELPER_H
#define MSFC_DUMBBELL_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/msfc-queue-disc.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** One flow of the dumbbell. */
struct DumbbellFlow
{
    uint8_t dscp{0};           //!< DSCP of the flow's packets (sets its MSFC class)
    bool tcp{true};            //!< TCP bulk transfer, or UDP at `rate`
    DataRate rate{"1Mbps"};    //!< UDP sending rate (unused for TCP)
    uint32_t packetSize{1448}; //!< application payload per packet (bytes)
    std::string label;         //!< free text for reports
};

/** What to build and run. */
struct DumbbellConfig
{
    std::string scheduler{"Msfc"};          //!< SchedulerRegistry name for the bottleneck
    DataRate bottleneckRate{"10Mbps"};      //!< bottleneck link rate
    Time bottleneckDelay{MilliSeconds(10)}; //!< bottleneck one-way delay
    DataRate accessRate{"1Gbps"};           //!< sender/receiver link rate
    Time accessDelay{MilliSeconds(1)};      //!< sender/receiver link delay
    Time duration{Seconds(10)};             //!< simulated time
    Time warmup{Seconds(2)};                //!< throughput is measured after this
    uint32_t rngRun{1};                     //!< RNG run number
    std::vector<DumbbellFlow> flows;        //!< the flows
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
    std::vector<DumbbellFlowResult> flows;   //!< in the order of DumbbellConfig::flows
    std::vector<MsfcClassStats> msfcClasses; //!< bottleneck class counters (Msfc only)
    double wallSeconds{0};                   //!< wall-clock time of the run
    uint64_t events{0};                      //!< simulator events executed
};

/**
 * Build the dumbbell, run it and collect the results.  The simulator is
 * destroyed afterwards, so runs can follow each other in one process.
 * @param config what to run
 * @return the results
 */
DumbbellResult RunDumbbell(const DumbbellConfig& config);

} // namespace ns3

#endif /* MSFC_DUMBBELL_HELPER_H */
