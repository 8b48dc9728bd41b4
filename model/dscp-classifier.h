/*
 * Classification of packets into priority classes by DSCP (or socket priority), shared by
 * every class-based queue disc of the project (MSFC, the weighted class scheduler).  The
 * default map and the DscpMap syntax are those of docs/algorithm.md.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef DSCP_CLASSIFIER_H
#define DSCP_CLASSIFIER_H

#include "ns3/queue-disc.h"

#include <array>
#include <cstdint>
#include <string>

namespace ns3
{

/**
 * @ingroup traffic-control
 * DSCP -> class table: the default rule of docs/algorithm.md (CS1 and LE -> class 0,
 * otherwise max(1, DSCP >> 3)), the user's DscpMap overrides on top, classes clamped to
 * nClasses-1.  Optionally the packet's SocketPriorityTag wins (class = priority, clamped).
 */
class DscpClassifier
{
  public:
    /**
     * Build the table.
     * @param nClasses number of classes (>= 1)
     * @param dscpMapSpec overrides in the DscpMap syntax ("EF=2, CS1=0, 10=0")
     * @param useSocketPriority classify by SocketPriorityTag when a packet has one
     * @return an empty string, or the parse error of dscpMapSpec (the table is then the default)
     */
    std::string Configure(uint32_t nClasses,
                          const std::string& dscpMapSpec,
                          bool useSocketPriority);
    /**
     * @param item the packet
     * @return its class (non-IP packets: the class of DSCP 0)
     */
    uint32_t Classify(Ptr<const QueueDiscItem> item) const;
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

  private:
    std::array<uint8_t, 64> m_class{}; //!< DSCP -> class
    uint32_t m_nClasses{1};            //!< number of classes
    bool m_useSocketPriority{false};   //!< SocketPriorityTag wins
};

} // namespace ns3

#endif /* DSCP_CLASSIFIER_H */
