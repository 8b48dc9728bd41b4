/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scheduler-registry.h"

#include "ns3/abort.h"
#include "ns3/fq-cobalt-queue-disc.h"
#include "ns3/fq-codel-queue-disc.h"
#include "ns3/fq-pie-queue-disc.h"
#include "ns3/queue-disc-mtu.h"
#include "ns3/string.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/type-id.h"

namespace ns3
{

const std::vector<SchedulerInfo>&
SchedulerRegistry::All()
{
    // Schedulers written in this project register themselves in the list by
    // TypeId name; a name whose TypeId is not linked in is left out.
    static const std::vector<SchedulerInfo> known = {
        {"PfifoFast", "ns3::PfifoFastQueueDisc", "Linux default: three FIFO bands by priority"},
        {"CoDel", "ns3::CoDelQueueDisc", "single-queue CoDel AQM"},
        {"FqCoDel", "ns3::FqCoDelQueueDisc", "flow-queue CoDel (RFC 8290)"},
        {"Msfc", "ns3::MsfcQueueDisc", "Multilevel Stochastically Fair CoDel"},
        {"FqCobalt", "ns3::FqCobaltQueueDisc", "flow queues with COBALT (CoDel + BLUE)"},
        {"Pie", "ns3::PieQueueDisc", "single-queue PIE AQM"},
        {"FqPie", "ns3::FqPieQueueDisc", "flow queues with PIE"},
        {"Sfq", "ns3::SfqQueueDisc", "Stochastic Fairness Queueing (Linux sfq)"},
        {"FqCoDelVariant",
         "ns3::FqCoDelVariantQueueDisc",
         "the project's FQ-CoDel (both switches on): baseline of the WP and WSPM variants"},
        {"FqCoDelWP",
         "ns3::FqCoDelVariantQueueDisc",
         "FQ-CoDel without new-flow priority",
         {{"NewFlowPriority", "false"}}},
        {"FqCoDelWP100",
         "ns3::FqCoDelVariantQueueDisc",
         "FQ-CoDel without new-flow priority, 100 ms target",
         {{"NewFlowPriority", "false"}, {"Target", "100ms"}}},
        {"FqCoDelWSPM",
         "ns3::FqCoDelVariantQueueDisc",
         "FQ-CoDel without starvation prevention",
         {{"StarvationPrevention", "false"}}},
        {"Fifo", "ns3::FifoQueueDisc", "plain FIFO (drop tail)"},
        {"Msfc1", "ns3::MsfcQueueDisc", "MSFC with a single class", {{"Prios", "1"}}},
        {"Wfq",
         "ns3::WeightedClassQueueDisc",
         "low-jitter weighted fair class queueing (seed 003), drop tail",
         {{"Discipline", "Wfq"}, {"Aqm", "DropTail"}}},
        {"WfqWred",
         "ns3::WeightedClassQueueDisc",
         "low-jitter WFQ with WRED per class (DiffServ WFQ+WRED)",
         {{"Discipline", "Wfq"}, {"Aqm", "Wred"}}},
        {"WfqRb",
         "ns3::WeightedClassQueueDisc",
         "low-jitter WFQ with the rate-based AQM per class (seed 003)",
         {{"Discipline", "Wfq"}, {"Aqm", "Rb"}}},
        {"Drr",
         "ns3::WeightedClassQueueDisc",
         "deficit round robin over weighted classes, drop tail",
         {{"Discipline", "Drr"}, {"Aqm", "DropTail"}}},
        {"DrrWred",
         "ns3::WeightedClassQueueDisc",
         "deficit round robin over weighted classes with WRED",
         {{"Discipline", "Drr"}, {"Aqm", "Wred"}}},
        {"DrrRb",
         "ns3::WeightedClassQueueDisc",
         "deficit round robin over weighted classes with the rate-based AQM",
         {{"Discipline", "Drr"}, {"Aqm", "Rb"}}},
    };
    static const std::vector<SchedulerInfo> available = [] {
        std::vector<SchedulerInfo> out;
        for (const auto& s : known)
        {
            TypeId tid;
            if (TypeId::LookupByNameFailSafe(s.typeId, &tid))
            {
                out.push_back(s);
            }
        }
        return out;
    }();
    return available;
}

const SchedulerInfo*
SchedulerRegistry::Find(const std::string& name)
{
    for (const auto& s : All())
    {
        if (s.name == name)
        {
            return &s;
        }
    }
    return nullptr;
}

std::string
SchedulerRegistry::Names()
{
    std::string out;
    for (const auto& s : All())
    {
        out += (out.empty() ? "" : ", ") + s.name;
    }
    return out;
}

std::vector<std::string>
SchedulerRegistry::AllNames()
{
    std::vector<std::string> out;
    for (const auto& s : All())
    {
        out.push_back(s.name);
    }
    return out;
}

std::vector<std::string>
SchedulerRegistry::Select(const std::vector<std::string>& names)
{
    std::vector<std::string> out;
    for (const auto& n : names)
    {
        if (Find(n))
        {
            out.push_back(n);
        }
    }
    return out;
}

ObjectFactory
SchedulerRegistry::MakeFactory(const std::string& name, QueueSize maxSize)
{
    const SchedulerInfo* s = Find(name);
    NS_ABORT_MSG_IF(!s, "unknown scheduler '" << name << "'; valid: " << Names());
    ObjectFactory f;
    f.SetTypeId(s->typeId);
    for (const auto& [attr, value] : s->attributes)
    {
        f.Set(attr, StringValue(value));
    }
    if (maxSize.GetValue() > 0)
    {
        f.Set("MaxSize", QueueSizeValue(maxSize));
    }
    return f;
}

Ptr<QueueDisc>
SchedulerRegistry::Create(const std::string& name, QueueSize maxSize)
{
    Ptr<QueueDisc> q = MakeFactory(name, maxSize).Create<QueueDisc>();
    PrepareWithoutDevice(q);
    return q;
}

void
SchedulerRegistry::PrepareWithoutDevice(Ptr<QueueDisc> q)
{
    // ns-3's flow-queue schedulers take their quantum only from the device's MTU and refuse
    // to start without one; a child queue disc (e.g. under TBF) sees no device, so give them
    // the Ethernet MTU, as this project's queue discs assume in that case.
    if (auto fq = DynamicCast<FqCoDelQueueDisc>(q))
    {
        fq->SetQuantum(QUEUE_DISC_DEFAULT_MTU);
    }
    else if (auto fc = DynamicCast<FqCobaltQueueDisc>(q))
    {
        fc->SetQuantum(QUEUE_DISC_DEFAULT_MTU);
    }
    else if (auto fp = DynamicCast<FqPieQueueDisc>(q))
    {
        fp->SetQuantum(QUEUE_DISC_DEFAULT_MTU);
    }
}

TrafficControlHelper
SchedulerRegistry::MakeHelper(const std::string& name)
{
    const SchedulerInfo* s = Find(name);
    NS_ABORT_MSG_IF(!s, "unknown scheduler '" << name << "'; valid: " << Names());
    TrafficControlHelper tch;
    const auto& a = s->attributes;
    auto v = [&](size_t i) { return StringValue(a[i].second); };
    switch (a.size())
    {
    case 0:
        tch.SetRootQueueDisc(s->typeId);
        break;
    case 1:
        tch.SetRootQueueDisc(s->typeId, a[0].first, v(0));
        break;
    case 2:
        tch.SetRootQueueDisc(s->typeId, a[0].first, v(0), a[1].first, v(1));
        break;
    case 3:
        tch.SetRootQueueDisc(s->typeId, a[0].first, v(0), a[1].first, v(1), a[2].first, v(2));
        break;
    case 4:
        tch.SetRootQueueDisc(s->typeId,
                             a[0].first,
                             v(0),
                             a[1].first,
                             v(1),
                             a[2].first,
                             v(2),
                             a[3].first,
                             v(3));
        break;
    default:
        NS_ABORT_MSG("scheduler '" << name << "' sets more than 4 attributes");
    }
    return tch;
}

QueueDiscContainer
SchedulerRegistry::Install(const std::string& name, const NetDeviceContainer& devices)
{
    TrafficControlHelper tch = MakeHelper(name);
    for (auto it = devices.Begin(); it != devices.End(); ++it)
    {
        Ptr<TrafficControlLayer> tc = (*it)->GetNode()->GetObject<TrafficControlLayer>();
        NS_ABORT_MSG_IF(!tc, "install the Internet stack before the scheduler");
        if (tc->GetRootQueueDiscOnDevice(*it))
        {
            tc->DeleteRootQueueDiscOnDevice(*it);
        }
    }
    return tch.Install(devices);
}

} // namespace ns3
