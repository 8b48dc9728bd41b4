/*
 * Shared code of the seed-experiment scenario programs (scenario-thin-streams,
 * scenario-starvation, scenario-sfq-fairness, scenario-class-aqm) beyond the common
 * scenario framework (options.h, run-output.h, scenario-run.h, dumbbell.h): the schedulers
 * under test, the DSCPs of the MSFC classes, a periodic sender and flow lookups.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef MSFC_SCENARIOS_LIB_SEEDS_SCENARIO_H
#define MSFC_SCENARIOS_LIB_SEEDS_SCENARIO_H

#include "dumbbell.h"
#include "scenario-run.h"

#include "ns3/core-module.h"
#include "ns3/flow-monitor-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/scheduler-registry.h"
#include "ns3/traffic-control-module.h"

#include <map>
#include <string>
#include <vector>

namespace seeds
{

using namespace ns3;
using namespace msfc::scenario;

/** Finds the scenario's flow id for a 5-tuple after the run. */
class FlowIds
{
  public:
    FlowIds(Ptr<Ipv4FlowClassifier> classifier, Ptr<FlowMonitor> monitor);

    /// @return the flow id, or -1 when FlowMonitor has no such flow
    int64_t Find(Ipv4Address src, uint16_t sport, Ipv4Address dst, uint16_t dport) const;

    static std::string Key(Ipv4Address s, uint16_t sp, Ipv4Address d, uint16_t dp);

  private:
    std::map<std::string, FlowId> m_ids;
};

/// The schedulers the seed experiments compare: names from the SchedulerRegistry.
std::vector<std::string> SchedulerChoices();

/**
 * Make the queue disc named by a scheduler choice, through the SchedulerRegistry.
 * @param name one of SchedulerChoices()
 * @param limitPackets packets the scheduler holds at most (0: the scheduler's own default)
 * @param sfqPerturb SFQ perturbation period
 * @param msfcPrios classes of MSFC (for "Msfc")
 */
Ptr<QueueDisc> MakeScheduler(const std::string& name,
                             uint32_t limitPackets,
                             Time sfqPerturb,
                             uint32_t msfcPrios);

/** DSCP code points used for the MSFC classes with 3 classes (docs/algorithm.md). */
constexpr uint8_t DSCP_CS1 = 8; //!< class 0
constexpr uint8_t DSCP_BE = 0;  //!< class 1
constexpr uint8_t DSCP_EF = 46; //!< class 2

/**
 * An application that writes `size` bytes every interval (uniform in [minGap, maxGap]) to a
 * TCP or UDP socket: the thin streams of seed 001 (gaming, VoIP, Skype-like UDP).
 */
class PeriodicSender : public Application
{
  public:
    static TypeId GetTypeId();

    void Setup(TypeId socketType,
               Address peer,
               uint32_t size,
               Time minGap,
               Time maxGap,
               uint8_t tos,
               Ptr<UniformRandomVariable> rng);

  private:
    void StartApplication() override;
    void StopApplication() override;
    void Send();

    TypeId m_socketType;
    Address m_peer;
    uint32_t m_size{100};
    Time m_minGap;
    Time m_maxGap;
    uint8_t m_tos{0};
    Ptr<UniformRandomVariable> m_rng;
    Ptr<Socket> m_socket;
    EventId m_event;
};

/** The 5-tuple of an IPv4 queue disc item (ports 0 for non-TCP/UDP). */
bool ItemTuple(Ptr<const QueueDiscItem> item,
               Ipv4Address& src,
               Ipv4Address& dst,
               uint16_t& sport,
               uint16_t& dport);

} // namespace seeds

#endif
