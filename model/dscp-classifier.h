/*
 * Classification of packets into priority classes by DSCP (or socket priority), for any
 * class-based queue disc (MSFC and the weighted class scheduler use it).  The default map
 * and the DscpMap syntax are those of docs/algorithm.md; this file is their one definition
 * on the ns-3 side.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef DSCP_CLASSIFIER_H
#define DSCP_CLASSIFIER_H

#include "ns3/queue-disc.h"

#include <array>
// The TC_MSFC_* definitions shared with the Linux qdisc (kernel/include/uapi/linux/)
#include <cstdint>
#include <linux/types.h>
#include <pkt_sched_msfc.h>
#include <string>

namespace ns3
{

/**
 * @ingroup traffic-control
 * DSCP -> class table: the default rule of docs/algorithm.md (CS1 and LE -> class 0,
 * otherwise max(1, DSCP >> 3)) or a named map of pkt_sched_msfc.h, the user's DscpMap
 * overrides on top, classes clamped to nClasses-1.  Optionally the packet's SocketPriorityTag wins
 * (class = priority, clamped).
 */
class DscpClassifier
{
  public:
    /// Largest number of classes (class numbers 0..15 in a DscpMap).
    static constexpr uint32_t MAX_CLASSES = TC_MSFC_PRIOS_MAX;

    /**
     * Build the table.
     * @param nClasses number of classes (>= 1)
     * @param dscpMapSpec overrides in the DscpMap syntax ("EF=2, CS1=0, 10=0"), optionally
     *        after a map name ("diffserv4, EF=2")
     * @param useSocketPriority classify by SocketPriorityTag when a packet has one
     * @return an empty string, or the parse error of dscpMapSpec (the table is then the default)
     */
    std::string Configure(uint32_t nClasses,
                          const std::string& dscpMapSpec,
                          bool useSocketPriority);

    /// Where Classify() found a packet's class.
    enum class Origin : uint8_t
    {
        SOCKET_PRIORITY, //!< its SocketPriorityTag (useSocketPriority): an explicit class
        DSCP,            //!< the DSCP map
        NON_IP,          //!< no DSCP field (non-IP): the class of DSCP 0
    };

    /**
     * @param item the packet
     * @return its class (non-IP packets: the class of DSCP 0)
     */
    uint32_t Classify(Ptr<const QueueDiscItem> item) const;
    /**
     * Classify() that also says where the class came from (MSFC's automatic priorities
     * treat packets classified by the DSCP map apart).
     * @param item the packet
     * @param origin set to where the class came from
     * @param dscp set to the packet's DSCP (0..63) when origin is Origin::DSCP, else 0
     * @return its class
     */
    uint32_t Classify(Ptr<const QueueDiscItem> item, Origin& origin, uint8_t& dscp) const;
    /**
     * @param dscp DSCP 0..63
     * @return the class
     */
    uint32_t ClassOfDscp(uint8_t dscp) const;
    /**
     * The default rule before overrides and clamping.
     * @param dscp DSCP 0..63
     * @return the class
     */
    static uint32_t DefaultClassOfDscp(uint8_t dscp);
    /**
     * A DSCP that the default map puts in class `cls` (when there are more than `cls`
     * classes): CS1 for 0, best effort (CS0) for 1, CS<cls> for 2..7.  Only class selectors
     * are used, so ns-3's TOS-to-socket-priority mapping gives every one of them socket
     * priority 0.
     * @param cls class 0..7 (aborts otherwise: class selectors name eight classes)
     * @return the DSCP code point
     */
    static uint8_t DscpForDefaultClass(uint32_t cls);
    /**
     * Parse a DSCP map specification ("EF=2, CS1=0, 10=0"; entries separated by ',' or ';',
     * '=' or ':' between code point and class; code points by name or number 0..63, classes
     * 0..MAX_CLASSES-1). The first entry may instead name a whole map of pkt_sched_msfc.h
     * (TC_MSFC_DSCP_MAPS, any case: "default", "diffserv3", "diffserv4", "diffserv8",
     * "wifi"), which the entries after it change ("wifi, CS6=1, CS7=1").
     * @param spec the text
     * @param map filled with class numbers for the listed code points and, after a map name,
     *        that map's class for every other one; -1 elsewhere (the default map applies)
     * @param error set to a message naming the bad entry when the text is malformed
     * @return true on success
     */
    static bool ParseDscpMap(const std::string& spec,
                             std::array<int32_t, 64>& map,
                             std::string& error);

  private:
    std::array<uint8_t, 64> m_class{}; //!< DSCP -> class
    uint32_t m_nClasses{1};            //!< number of classes
    bool m_useSocketPriority{false};   //!< SocketPriorityTag wins
};

} // namespace ns3

#endif /* DSCP_CLASSIFIER_H */
