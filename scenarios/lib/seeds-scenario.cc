/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "seeds-scenario.h"

#include <sstream>

namespace seeds
{

FlowIds::FlowIds(Ptr<Ipv4FlowClassifier> classifier, Ptr<FlowMonitor> monitor)
{
    for (auto& [id, st] : monitor->GetFlowStats())
    {
        auto t = classifier->FindFlow(id);
        m_ids[Key(t.sourceAddress, t.sourcePort, t.destinationAddress, t.destinationPort)] = id;
    }
}

int64_t
FlowIds::Find(Ipv4Address src, uint16_t sport, Ipv4Address dst, uint16_t dport) const
{
    auto it = m_ids.find(Key(src, sport, dst, dport));
    return it == m_ids.end() ? -1 : static_cast<int64_t>(it->second);
}

std::string
FlowIds::Key(Ipv4Address s, uint16_t sp, Ipv4Address d, uint16_t dp)
{
    std::ostringstream o;
    o << s << ":" << sp << ">" << d << ":" << dp;
    return o.str();
}

std::vector<std::string>
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

Ptr<QueueDisc>
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

TypeId
PeriodicSender::GetTypeId()
{
    static TypeId tid =
        TypeId("seeds::PeriodicSender").SetParent<Application>().AddConstructor<PeriodicSender>();
    return tid;
}

void
PeriodicSender::Setup(TypeId socketType,
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

void
PeriodicSender::StartApplication()
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

void
PeriodicSender::StopApplication()
{
    m_event.Cancel();
    if (m_socket)
    {
        m_socket->Close();
    }
}

void
PeriodicSender::Send()
{
    m_socket->Send(Create<Packet>(m_size));
    Time gap = m_minGap == m_maxGap
                   ? m_minGap
                   : Seconds(m_rng->GetValue(m_minGap.GetSeconds(), m_maxGap.GetSeconds()));
    m_event = Simulator::Schedule(gap, &PeriodicSender::Send, this);
}

bool
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
