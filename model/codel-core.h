/*
 * The CoDel controller shared by the project's flow-queueing disciplines (MsfcQueueDisc and
 * FqCoDelVariantQueueDisc), in the way Linux's include/net/codel_impl.h serves several qdiscs:
 * each flow keeps a small CoDelVars record, the queue disc keeps one CoDelCore with the
 * parameters, and CoDelCore::Dequeue runs the control law on a flow through four operations
 * the queue disc supplies (take the head packet, read the backlog, CE-mark, drop).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CODEL_CORE_H
#define CODEL_CORE_H

#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/queue-item.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup traffic-control
 * CoDel state of one flow queue (RFC 8289 names).
 */
struct CoDelVars
{
    int64_t firstAboveTime{0}; //!< when the sojourn went above target + interval (ticks), 0 = not
    int64_t dropNext{0};       //!< time of the next drop while dropping (ticks)
    uint32_t count{0};         //!< drops since entering the dropping state
    uint32_t lastCount{0};     //!< count when the dropping state was last entered
    uint16_t recInvSqrt{0};    //!< 1/sqrt(count) in Q0.16 (Flavour::LINUX only)
    bool dropping{false};      //!< in the dropping state
};

/**
 * @ingroup traffic-control
 *
 * The CoDel control law (RFC 8289) for per-flow queues, in integer nanoseconds.
 *
 * Two flavours keep the exact arithmetic each user was written with:
 * - Flavour::LINUX, as Linux codel_impl.h: interval / sqrt(count) from a reciprocal square
 *   root in Q0.16 refined by one Newton step per count change; a packet may be dropped once
 *   `now` is strictly after first_above_time (used by MsfcQueueDisc, so that it matches the
 *   kernel qdisc sch_msfc);
 * - Flavour::RFC8289, as the RFC's pseudo-code: interval / sqrt(count) in floating point;
 *   dropping may start when `now` reaches first_above_time (used by FqCoDelVariantQueueDisc).
 *
 * In both, the sojourn time counts as below target while the flow's backlog, after the head
 * packet left, is at most MinBacklog bytes (one MTU or one quantum, as the user chooses).
 */
class CoDelCore
{
  public:
    /// Arithmetic of the control law and the first-drop test.
    enum class Flavour
    {
        LINUX,  //!< Linux codel_impl.h: time in units of 1024 ns (codel_time_t), Newton-step
                //!< reciprocal square root, drop strictly after first_above_time
        RFC8289 //!< floating-point square root, drop at or after first_above_time
    };

    /**
     * Set the parameters.
     * @param target target sojourn time (> 0)
     * @param interval interval (> 0)
     * @param minBacklog backlog in bytes at or below which the sojourn counts as below target
     * @param flavour the arithmetic
     */
    void Configure(Time target, Time interval, uint64_t minBacklog, Flavour flavour);

    /** @return the target in nanoseconds */
    int64_t GetTargetNs() const;
    /** @return the interval in nanoseconds */
    int64_t GetIntervalNs() const;

    /**
     * The clock of the flavour: nanoseconds (RFC8289) or units of 1024 ns (LINUX, the
     * kernel's codel_time_t; timestamps are truncated to it as the kernel does).
     * @param ns a time in nanoseconds
     * @return the time in ticks
     */
    int64_t ToTicks(int64_t ns) const;

    /**
     * @param ticks a time of CoDelVars (firstAboveTime, dropNext)
     * @return the same time as a Time
     */
    Time TicksToTime(int64_t ticks) const;

    /**
     * Whether the dropping state is entered again soon after the last one, so that it resumes
     * near its drop rate: now - dropNext below 16 intervals. LINUX compares as
     * codel_time_before does on the kernel's u32 clock, with 16 * interval taken modulo 2^32
     * and the difference as a signed 32-bit number: above 2^31 units (an interval above
     * 137 s) the kernel finds a near re-entry not soon, and so does this flavour.
     * @param now the time of the dequeue (ticks)
     * @param dropNext the last drop time of the flow (ticks)
     * @return true to resume at the last count
     */
    bool ReenteredSoon(int64_t now, int64_t dropNext) const;

    /**
     * The "may drop" part of CoDel's test: the sojourn has been above target since
     * firstAboveTime, which `now` has passed (LINUX: strictly, as codel_time_after).  What
     * the last test on a flow's packet said can be read again from its state after Dequeue.
     * @param vars the flow's state
     * @param now the time of the test (ticks)
     * @return true when a packet tested at `now` may be dropped
     */
    bool MayDrop(const CoDelVars& vars, int64_t now) const;

    /**
     * Take the next packet of a flow through CoDel: dequeue the head, and drop (or CE-mark)
     * as the control law says.  `ops` supplies the flow's operations:
     * - `Ptr<QueueDiscItem> Pop()`: remove and return the head packet (nullptr when empty),
     *   updating the flow's backlog;
     * - `uint64_t Backlog() const`: bytes still queued in the flow;
     * - `bool Mark(Ptr<QueueDiscItem>)`: CE-mark the packet if ECN is in use and the packet is
     *   ECN-capable, returning true when it was marked (it is then delivered);
     * - `void Drop(Ptr<QueueDiscItem>)`: report the packet dropped by CoDel.
     *
     * @param vars the flow's CoDel state
     * @param nowNs the current time in nanoseconds
     * @param ops the flow's operations
     * @return the packet to deliver, or nullptr when the flow has none left
     */
    template <typename FlowOps>
    Ptr<QueueDiscItem> Dequeue(CoDelVars& vars, int64_t nowNs, FlowOps& ops) const;

    /**
     * The control law: the time of the next drop after `t`.
     * @param t a time in ticks
     * @param vars the flow's state (count, recInvSqrt)
     * @return t + interval / sqrt(count)
     */
    int64_t ControlLaw(int64_t t, const CoDelVars& vars) const;

    /**
     * One Newton iteration of recInvSqrt towards 1/sqrt(count) (Q0.16, as Linux).
     * @param vars the flow's state
     */
    static void NewtonStep(CoDelVars& vars);

  private:
    /**
     * CoDel's test on a packet just taken from the flow; updates firstAboveTime.
     * @param vars the flow's state
     * @param item the packet (nullptr: the flow is empty)
     * @param now the current time (ticks)
     * @param backlog the bytes still queued in the flow
     * @return true when the packet may be dropped
     */
    bool ShouldDrop(CoDelVars& vars,
                    Ptr<const QueueDiscItem> item,
                    int64_t now,
                    uint64_t backlog) const;

    /**
     * Advance count (and recInvSqrt) for one more drop in the dropping state.
     * @param vars the flow's state
     */
    void CountDrop(CoDelVars& vars) const;

    int64_t m_target{0};               //!< target (ticks)
    int64_t m_intervalTicks{0};        //!< interval (ticks)
    Time m_targetTime;                 //!< target as configured
    Time m_interval;                   //!< interval (Flavour::RFC8289 arithmetic)
    uint64_t m_minBacklog{0};          //!< backlog exemption (bytes)
    Flavour m_flavour{Flavour::LINUX}; //!< arithmetic
};

template <typename FlowOps>
Ptr<QueueDiscItem>
CoDelCore::Dequeue(CoDelVars& vars, int64_t nowNs, FlowOps& ops) const
{
    const int64_t now = ToTicks(nowNs);
    Ptr<QueueDiscItem> item = ops.Pop();
    if (!item)
    {
        // An empty queue is not above target (also when the flow was emptied by other means
        // than CoDel, e.g. an overload drop), as Linux codel_dequeue() and RFC 8289.
        vars.firstAboveTime = 0;
        vars.dropping = false;
        return nullptr;
    }
    bool drop = ShouldDrop(vars, item, now, ops.Backlog());
    if (vars.dropping)
    {
        if (!drop)
        {
            vars.dropping = false;
        }
        else
        {
            while (vars.dropping && now >= vars.dropNext)
            {
                CountDrop(vars);
                if (ops.Mark(item))
                {
                    vars.dropNext = ControlLaw(vars.dropNext, vars);
                    return item;
                }
                ops.Drop(item);
                item = ops.Pop();
                if (!ShouldDrop(vars, item, now, ops.Backlog()))
                {
                    vars.dropping = false;
                }
                else
                {
                    vars.dropNext = ControlLaw(vars.dropNext, vars);
                }
            }
        }
    }
    else if (drop)
    {
        if (!ops.Mark(item))
        {
            ops.Drop(item);
            item = ops.Pop();
            ShouldDrop(vars, item, now, ops.Backlog());
        }
        vars.dropping = true;
        uint32_t delta = vars.count - vars.lastCount;
        if (delta > 1 && ReenteredSoon(now, vars.dropNext))
        {
            // Re-entering soon after the last dropping state: resume near its drop rate.
            vars.count = delta;
            if (m_flavour == Flavour::LINUX)
            {
                NewtonStep(vars);
            }
        }
        else
        {
            vars.count = 1;
            vars.recInvSqrt = UINT16_MAX;
        }
        vars.lastCount = vars.count;
        vars.dropNext = ControlLaw(now, vars);
    }
    return item;
}

} // namespace ns3

#endif /* CODEL_CORE_H */
