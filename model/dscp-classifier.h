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
 * DSCP -> map entry table: the default map of docs/algorithm.md (LE -> the least-effort lane,
 * CS1 -> class 0, NQB -> class 1 as an NQB flow, otherwise max(1, DSCP >> 3)) or a named map
 * of pkt_sched_msfc.h, the user's DscpMap overrides on top.  An entry is a class (clamped to
 * nClasses-1), a class with the NQB flag (the class clamped, the flag kept) or the
 * least-effort lane (docs/algorithm.md, "LE and NQB").  Optionally the packet's
 * SocketPriorityTag wins (class = priority, clamped; never the lane nor NQB).
 *
 * Schedulers without a least-effort lane or NQB flows (the weighted class scheduler, the
 * class-AQM scenarios) read only the class: ClassOfDscp() and Classify() give the class bits of
 * an entry, 0 for the lane (the least important class) and the class of an NQB entry.
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

    /// A map entry with the NQB flag: the class in the low bits (TC_MSFC_DSCP_CLASS_MASK).
    static constexpr uint8_t ENTRY_NQB = TC_MSFC_DSCP_NQB;
    /// The map entry of the least-effort lane.
    static constexpr uint8_t ENTRY_LE = TC_MSFC_DSCP_LE;

    /// How a packet is to be served (ClassifyTreatment).
    struct Treatment
    {
        uint32_t cls{0};  //!< its class (the lane: 0)
        bool lane{false}; //!< the least-effort lane (map entry le)
        bool nqb{false};  //!< an NQB packet of class cls (map entry <class>+nqb)
    };

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
     * Classify() with the least-effort lane and the NQB flag of the packet's map entry
     * (a packet with an explicit class, origin SOCKET_PRIORITY, has neither).
     * @param item the packet
     * @param origin set to where the class came from
     * @param dscp set to the packet's DSCP (0..63) when origin is Origin::DSCP, else 0
     * @return its treatment
     */
    Treatment ClassifyTreatment(Ptr<const QueueDiscItem> item, Origin& origin, uint8_t& dscp) const;
    /**
     * @param dscp DSCP 0..63
     * @return the class (the class bits of its entry: 0 for the lane)
     */
    uint32_t ClassOfDscp(uint8_t dscp) const;
    /**
     * @param dscp DSCP 0..63
     * @return its map entry: a class clamped to nClasses-1, ENTRY_NQB + a class so clamped,
     *         or ENTRY_LE
     */
    uint8_t EntryOfDscp(uint8_t dscp) const;
    /**
     * A map entry as DscpMap writes it: "2", "1+nqb" or "le".
     * @param entry a valid map entry (ValidEntry)
     * @return its text
     */
    static std::string FormatEntry(uint32_t entry);
    /**
     * @param entry a value of the UAPI's 64-byte map
     * @return whether it is a class 0..15, TC_MSFC_DSCP_NQB + such a class or TC_MSFC_DSCP_LE
     *         (anything else is refused with TC_MSFC_DSCP_MAP_MSG)
     */
    static bool ValidEntry(uint32_t entry);
    /**
     * The default rule before overrides and clamping.
     * @param dscp DSCP 0..63
     * @return the class (the class bits of its entry: 0 for the lane)
     */
    static uint32_t DefaultClassOfDscp(uint8_t dscp);
    /**
     * The default map's entry before overrides and clamping.
     * @param dscp DSCP 0..63
     * @return the entry (a class, ENTRY_NQB + class or ENTRY_LE)
     */
    static uint8_t DefaultEntryOfDscp(uint8_t dscp);
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
     * Parse a DSCP map specification ("EF=2, CS1=0, 10=0, LE=le, NQB=1+nqb"; entries separated
     * by ',' or ';', '=' or ':' between code point and entry; code points by name or number
     * 0..63; entries a class 0..MAX_CLASSES-1, a class with "+nqb" or "le", any case). The
     * first entry may instead name a whole map of pkt_sched_msfc.h
     * (TC_MSFC_DSCP_MAPS, any case: "default", "diffserv3", "diffserv4", "diffserv8",
     * "wifi"), which the entries after it change ("wifi, CS6=1, CS7=1").
     * @param spec the text
     * @param map filled with the entries (a class, ENTRY_NQB + class or ENTRY_LE) of the listed
     *        code points and, after a map name, that map's entry for every other one; -1
     *        elsewhere (the default map applies)
     * @param error set to a message naming the bad entry when the text is malformed
     * @return true on success
     */
    static bool ParseDscpMap(const std::string& spec,
                             std::array<int32_t, 64>& map,
                             std::string& error);

  private:
    std::array<uint8_t, 64> m_entry{}; //!< DSCP -> map entry (classes clamped)
    uint32_t m_nClasses{1};            //!< number of classes
    bool m_useSocketPriority{false};   //!< SocketPriorityTag wins
};

} // namespace ns3

#endif /* DSCP_CLASSIFIER_H */
