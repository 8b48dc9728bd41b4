/*
 * The schedulers (queue discs) the project's programs know by name: one list
 * shared by every scenario program, msfc-describe and the Python CLI (which
 * reads it through msfc-describe).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef MSFC_SCHEDULER_REGISTRY_H
#define MSFC_SCHEDULER_REGISTRY_H

#include "ns3/traffic-control-helper.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/** A scheduler known by its short name. */
struct SchedulerInfo
{
    std::string name;        //!< short name used on command lines ("Msfc")
    std::string typeId;      //!< ns-3 TypeId name ("ns3::MsfcQueueDisc")
    std::string description; //!< one line for listings
    /// attribute values that make this entry what it is (a variant's switches), at most 4
    std::vector<std::pair<std::string, std::string>> attributes{};
};

/** Lookup of schedulers by short name. */
class SchedulerRegistry
{
  public:
    /** @return every known scheduler, in listing order */
    static const std::vector<SchedulerInfo>& All();
    /**
     * @param name short name (case-sensitive)
     * @return the scheduler, or nullptr when unknown
     */
    static const SchedulerInfo* Find(const std::string& name);
    /** @return the short names, comma-separated, for error messages */
    static std::string Names();
    /**
     * A TrafficControlHelper installing the named scheduler as root queue disc.
     * Aborts with a message listing the valid names if the name is unknown.
     * @param name short name
     * @return the helper
     */
    static TrafficControlHelper MakeHelper(const std::string& name);
    /**
     * Replace the root queue disc of each device (the InternetStackHelper
     * installs a default one) by the named scheduler.
     * @param name short name
     * @param devices the devices
     * @return the installed queue discs
     */
    static QueueDiscContainer Install(const std::string& name, const NetDeviceContainer& devices);
};

} // namespace ns3

#endif /* MSFC_SCHEDULER_REGISTRY_H */
