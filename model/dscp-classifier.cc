/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "dscp-classifier.h"

#include "msfc-queue-disc.h"

#include "ns3/socket.h"

#include <algorithm>

namespace ns3
{

uint32_t
DscpClassifier::DefaultClassOfDscp(uint8_t dscp)
{
    dscp &= 0x3f;
    if (dscp == 1 || dscp == 8)
    {
        return 0; // LE, CS1: the scavenger class
    }
    return std::max<uint32_t>(1, dscp >> 3);
}

std::string
DscpClassifier::Configure(uint32_t nClasses, const std::string& dscpMapSpec, bool useSocketPriority)
{
    m_nClasses = std::max<uint32_t>(1, nClasses);
    m_useSocketPriority = useSocketPriority;
    std::array<int32_t, 64> overrides;
    std::string error;
    if (!MsfcQueueDisc::ParseDscpMap(dscpMapSpec, overrides, error))
    {
        overrides.fill(-1);
    }
    for (uint32_t dscp = 0; dscp < 64; ++dscp)
    {
        uint32_t cls = overrides[dscp] >= 0 ? static_cast<uint32_t>(overrides[dscp])
                                            : DefaultClassOfDscp(static_cast<uint8_t>(dscp));
        m_class[dscp] = static_cast<uint8_t>(std::min(cls, m_nClasses - 1));
    }
    return error;
}

uint32_t
DscpClassifier::ClassOfDscp(uint8_t dscp) const
{
    return m_class[dscp & 0x3f];
}

uint32_t
DscpClassifier::Classify(Ptr<const QueueDiscItem> item) const
{
    if (m_useSocketPriority)
    {
        SocketPriorityTag tag;
        if (item->GetPacket()->PeekPacketTag(tag))
        {
            return std::min<uint32_t>(tag.GetPriority(), m_nClasses - 1);
        }
    }
    uint8_t ds = 0;
    if (!item->GetUint8Value(QueueItem::IP_DSFIELD, ds))
    {
        ds = 0; // non-IP: the class of DSCP 0
    }
    return m_class[ds >> 2];
}

} // namespace ns3
