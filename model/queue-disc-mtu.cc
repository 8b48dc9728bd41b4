/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "queue-disc-mtu.h"

#include "ns3/net-device-queue-interface.h"
#include "ns3/net-device.h"

namespace ns3
{

uint32_t
QueueDiscDeviceMtu(const QueueDisc& q)
{
    Ptr<NetDeviceQueueInterface> ndqi = q.GetNetDeviceQueueInterface();
    Ptr<NetDevice> dev = ndqi ? ndqi->GetObject<NetDevice>() : nullptr;
    return dev ? dev->GetMtu() : 0;
}

} // namespace ns3
