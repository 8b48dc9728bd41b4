/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scheduler-registry.h"

#include "ns3/abort.h"
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

TrafficControlHelper
SchedulerRegistry::MakeHelper(const std::string& name)
{
    const SchedulerInfo* s = Find(name);
    NS_ABORT_MSG_IF(!s, "unknown scheduler '" << name << "'; valid: " << Names());
    TrafficControlHelper tch;
    tch.SetRootQueueDisc(s->typeId);
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
