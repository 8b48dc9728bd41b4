/*
 * Shared code of the seed-experiment scenario programs (scenario-thin-streams,
 * scenario-starvation, scenario-sfq-fairness) beyond the common scenario framework
 * (scenario-options.h, run-output.h, scenario-run.h): the schedulers under test, the
 * DSCPs of the MSFC classes, a periodic sender and flow lookups.
 *
 * Header-only: every scenarios/*.cc is its own program.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SEEDS_SCENARIO_H
#define SEEDS_SCENARIO_H

#include "scenario-run.h"

#include "ns3/core-module.h"
#include "ns3/flow-monitor-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/scheduler-registry.h"
#include "ns3/traffic-control-module.h"

#include <map>
#include <sstream>
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
    FlowIds(Ptr<Ipv4FlowClassifier> classifier, Ptr<FlowMonitor> monitor)
    {
        for (auto& [id, st] : monitor->GetFlowStats())
        {
            auto t = classifier->FindFlow(id);
            m_ids[Key(t.sourceAddress, t.sourcePort, t.destinationAddress, t.destinationPort)] = id;
        }
    }

    /// @return the flow id, or -1 when FlowMonitor has no such flow
    int64_t Find(Ipv4Address src, uint16_t sport, Ipv4Address dst, uint16_t dport) const
    {
        auto it = m_ids.find(Key(src, sport, dst, dport));
        return it == m_ids.end() ? -1 : static_cast<int64_t>(it->second);
    }

    static std::string Key(Ipv4Address s, uint16_t sp, Ipv4Address d, uint16_t dp)
    {
        std::ostringstream o;
        o << s << ":" << sp << ">" << d << ":" << dp;
        return o.str();
    }

  private:
    std::map<std::string, FlowId> m_ids;
};

/// The schedulers the seed experiments compare: names from the SchedulerRegistry.
inline std::vector<std::string>
SchedulerChoices()
{
    return SchedulerRegistry::Select({"Fifo",
                                      "CoDel",
                                      "Sfq",
                                      "FqCoDel",
                                      "FqCoDelVariant",
                                      "FqCoDelWP",
                                      "FqCoDelWP100",
                                      "FqCoDelWSPM",
                                      "Msfc",
                                      "Msfc1"});
}

/**
 * Make the queue disc named by a scheduler choice, through the SchedulerRegistry.
 * @param name one of SchedulerChoices()
 * @param limitPackets packets the scheduler holds at most (0: the scheduler's own default)
 * @param sfqPerturb SFQ perturbation period
 * @param msfcPrios classes of MSFC (for "Msfc")
 */
inline Ptr<QueueDisc>
MakeScheduler(const std::string& name, uint32_t limitPackets, Time sfqPerturb, uint32_t msfcPrios)
{
    if (!SchedulerRegistry::Find(name))
    {
        throw ConfigError("--scheduler=" + name +
                          ": not a scheduler of this build; valid: " + SchedulerRegistry::Names());
    }
    ObjectFactory f =
        SchedulerRegistry::MakeFactory(name, QueueSize(QueueSizeUnit::PACKETS, limitPackets));
    if (name == "Sfq")
    {
        f.Set("PerturbPeriod", TimeValue(sfqPerturb));
    }
    if (name == "Msfc")
    {
        f.Set("Prios", UintegerValue(msfcPrios));
    }
    Ptr<QueueDisc> q = f.Create<QueueDisc>();
    SchedulerRegistry::PrepareWithoutDevice(q);
    return q;
}

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
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("seeds::PeriodicSender")
                                .SetParent<Application>()
                                .AddConstructor<PeriodicSender>();
        return tid;
    }

    void Setup(TypeId socketType,
               Address peer,
               uint32_t size,
               Time minGap,
               Time maxGap,
               uint8_t tos,
               Ptr<UniformRandomVariable> rng)
    {
        m_socketType = socketType;
        m_peer = peer;
        m_size = size;
        m_minGap = minGap;
        m_maxGap = maxGap;
        m_tos = tos;
        m_rng = rng;
    }

  private:
    void StartApplication() override
    {
        m_socket = Socket::CreateSocket(GetNode(), m_socketType);
        m_socket->SetIpTos(m_tos);
        m_socket->Bind();
        m_socket->Connect(m_peer);
        // A random phase so that many periodic flows do not send in lockstep.
        m_event = Simulator::Schedule(Seconds(m_rng->GetValue(0, m_maxGap.GetSeconds())),
                                      &PeriodicSender::Send,
                                      this);
    }

    void StopApplication() override
    {
        m_event.Cancel();
        if (m_socket)
        {
            m_socket->Close();
        }
    }

    void Send()
    {
        m_socket->Send(Create<Packet>(m_size));
        Time gap = m_minGap == m_maxGap
                       ? m_minGap
                       : Seconds(m_rng->GetValue(m_minGap.GetSeconds(), m_maxGap.GetSeconds()));
        m_event = Simulator::Schedule(gap, &PeriodicSender::Send, this);
    }

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
inline bool
ItemTuple(Ptr<const QueueDiscItem> item,
          Ipv4Address& src,
          Ipv4Address& dst,
          uint16_t& sport,
          uint16_t& dport)
{
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ip)
    {
        return false;
    }
    const Ipv4Header& h = ip->GetHeader();
    src = h.GetSource();
    dst = h.GetDestination();
    sport = dport = 0;
    Ptr<Packet> p = ip->GetPacket();
    if (h.GetProtocol() == 6)
    {
        TcpHeader th;
        p->PeekHeader(th);
        sport = th.GetSourcePort();
        dport = th.GetDestinationPort();
    }
    else if (h.GetProtocol() == 17)
    {
        UdpHeader uh;
        p->PeekHeader(uh);
        sport = uh.GetSourcePort();
        dport = uh.GetDestinationPort();
    }
    return true;
}

} // namespace seeds

#endif /* SEEDS_SCENARIO_H */
