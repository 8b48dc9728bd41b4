/*
 * The MTU of the device a queue disc sends on, for queue discs whose
 * default quantum is "one MTU".
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef QUEUE_DISC_MTU_H
#define QUEUE_DISC_MTU_H

#include "ns3/queue-disc.h"

#include <cstdint>

namespace ns3
{

/// MTU assumed where a queue disc sees no device (a child of TBF, a unit test):
/// the largest IP packet on Ethernet.
constexpr uint32_t QUEUE_DISC_DEFAULT_MTU = 1500;

/**
 * @param q a queue disc (attached to its device, or not)
 * @return the MTU of q's device, or 0 when q sees no device (e.g. it is a child queue disc)
 */
uint32_t QueueDiscDeviceMtu(const QueueDisc& q);

} // namespace ns3

#endif /* QUEUE_DISC_MTU_H */
