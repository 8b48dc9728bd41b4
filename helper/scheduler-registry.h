/*
 * The schedulers (queue discs) the project's programs know by name: one list
 * shared by every scenario program, msfc-describe and the Python CLI (which
 * reads it through msfc-describe).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef MSFC_SCHEDULER_REGISTRY_H
#define MSFC_SCHEDULER_REGISTRY_H

#include "ns3/object-factory.h"
#include "ns3/queue-disc.h"
#include "ns3/queue-size.h"
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
     * The given names, each checked against the registry: for a scenario that
     * accepts only some schedulers (its --scheduler choice list).  A name that
     * is not registered, or whose queue disc is not linked into the program,
     * is left out.
     * @param names short names
     * @return the registered ones, in the order given
     */
    static std::vector<std::string> Select(const std::vector<std::string>& names);
    /** @return every registered short name, in listing order */
    static std::vector<std::string> AllNames();
    /**
     * An ObjectFactory for the named scheduler with the entry's attributes set;
     * the caller may set more attributes before creating the queue disc (for
     * instance to use it as the child of a TBF).
     * Aborts with a message listing the valid names if the name is unknown.
     * @param name short name
     * @param maxSize the queue disc's MaxSize; a zero size keeps its own default
     * @return the factory
     */
    static ObjectFactory MakeFactory(const std::string& name, QueueSize maxSize = QueueSize());
    /**
     * Create the named scheduler (see MakeFactory).
     * @param name short name
     * @param maxSize the queue disc's MaxSize; a zero size keeps its own default
     * @return the queue disc, not yet installed on a device
     */
    static Ptr<QueueDisc> Create(const std::string& name, QueueSize maxSize = QueueSize());
    /**
     * Make a queue disc usable where no device gives it an MTU (a child of TBF, say): ns-3's
     * FqCoDel, FqCobalt and FqPie get a 1500-byte quantum.  Create() does this already.
     * @param q the queue disc, before it is initialized
     */
    static void PrepareWithoutDevice(Ptr<QueueDisc> q);
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
