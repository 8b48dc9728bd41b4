/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "codel-core.h"

#include <cmath>

namespace ns3
{

namespace
{
// Reciprocal square root in Q0.16, widened to Q0.32 for the arithmetic (as Linux).
constexpr int REC_INV_SQRT_BITS = 16;
constexpr int REC_INV_SQRT_SHIFT = 32 - REC_INV_SQRT_BITS;
// Linux's CoDel clock: nanoseconds >> 10 (codel_time_t).
constexpr int CODEL_SHIFT = 10;
} // namespace

void
CoDelCore::Configure(Time target, Time interval, uint64_t minBacklog, Flavour flavour)
{
    m_flavour = flavour;
    m_targetTime = target;
    m_interval = interval;
    m_target = ToTicks(target.GetNanoSeconds());
    m_intervalTicks = ToTicks(interval.GetNanoSeconds());
    m_minBacklog = minBacklog;
}

int64_t
CoDelCore::GetTargetNs() const
{
    return m_targetTime.GetNanoSeconds();
}

int64_t
CoDelCore::GetIntervalNs() const
{
    return m_interval.GetNanoSeconds();
}

int64_t
CoDelCore::ToTicks(int64_t ns) const
{
    return m_flavour == Flavour::LINUX ? ns >> CODEL_SHIFT : ns;
}

Time
CoDelCore::TicksToTime(int64_t ticks) const
{
    return NanoSeconds(m_flavour == Flavour::LINUX ? ticks << CODEL_SHIFT : ticks);
}

bool
CoDelCore::ReenteredSoon(int64_t now, int64_t dropNext) const
{
    if (m_flavour == Flavour::LINUX)
    {
        auto elapsed = static_cast<uint32_t>(now - dropNext);
        auto limit = static_cast<uint32_t>(16 * m_intervalTicks);
        return static_cast<int32_t>(elapsed - limit) < 0;
    }
    return now - dropNext < 16 * m_intervalTicks;
}

void
CoDelCore::NewtonStep(CoDelVars& vars)
{
    // One Newton iteration of x' = x * (3 - count * x^2) / 2 in fixed point.
    uint32_t invsqrt = static_cast<uint32_t>(vars.recInvSqrt) << REC_INV_SQRT_SHIFT;
    uint32_t invsqrt2 = static_cast<uint32_t>((static_cast<uint64_t>(invsqrt) * invsqrt) >> 32);
    uint64_t val = (uint64_t{3} << 32) - static_cast<uint64_t>(vars.count) * invsqrt2;
    val >>= 2;
    val = (val * invsqrt) >> (32 - 2 + 1);
    vars.recInvSqrt = static_cast<uint16_t>(val >> REC_INV_SQRT_SHIFT);
}

int64_t
CoDelCore::ControlLaw(int64_t t, const CoDelVars& vars) const
{
    if (m_flavour == Flavour::LINUX)
    {
        // t + interval / sqrt(count), with 1/sqrt(count) in Q0.16
        unsigned __int128 scaled = static_cast<unsigned __int128>(m_intervalTicks) *
                                   (static_cast<uint32_t>(vars.recInvSqrt) << REC_INV_SQRT_SHIFT);
        return t + static_cast<int64_t>(scaled >> 32);
    }
    Time step =
        Time::FromDouble(m_interval.GetDouble() / std::sqrt(static_cast<double>(vars.count)),
                         Time::GetResolution());
    return t + step.GetNanoSeconds();
}

void
CoDelCore::CountDrop(CoDelVars& vars) const
{
    vars.count++;
    if (m_flavour == Flavour::LINUX)
    {
        NewtonStep(vars);
    }
}

bool
CoDelCore::ShouldDrop(CoDelVars& vars,
                      Ptr<const QueueDiscItem> item,
                      int64_t now,
                      uint64_t backlog) const
{
    if (!item)
    {
        vars.firstAboveTime = 0;
        return false;
    }
    int64_t sojourn = now - ToTicks(item->GetTimeStamp().GetNanoSeconds());
    // The packet has left the queue: the flow's backlog is what remains.
    if (sojourn < m_target || backlog <= m_minBacklog)
    {
        vars.firstAboveTime = 0;
        return false;
    }
    if (vars.firstAboveTime == 0)
    {
        vars.firstAboveTime = now + m_intervalTicks;
        return false;
    }
    return MayDrop(vars, now);
}

bool
CoDelCore::MayDrop(const CoDelVars& vars, int64_t now) const
{
    return vars.firstAboveTime != 0 &&
           (m_flavour == Flavour::LINUX ? now > vars.firstAboveTime : now >= vars.firstAboveTime);
}

} // namespace ns3
