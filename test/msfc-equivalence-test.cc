/*
 * MSFC with one class is DRR over flows with per-flow CoDel and no new-flow list: the
 * FQ-CoDel variant without new-flow priority ("WP") is the same scheduler written
 * independently (it differs only in computing 1/sqrt(count) exactly instead of by Newton
 * steps). Fed the same open-loop arrivals, both must drop and deliver the same per flow.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msfc-test-item.h"

#include "ns3/boolean.h"
#include "ns3/fq-codel-variant-queue-disc.h"
#include "ns3/msfc-queue-disc.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <array>
#include <cmath>
#include <functional>

using namespace ns3;

namespace
{

/** Per-flow outcome of one open-loop run. */
struct FlowCounts
{
    std::array<uint64_t, 2> drops{0, 0};     //!< packets dropped, per flow
    std::array<uint64_t, 2> delivered{0, 0}; //!< packets dequeued, per flow
    std::array<double, 2> sojournSum{0, 0};  //!< seconds queued, summed over delivered packets
};

/**
 * Drive a queue disc for `seconds`: flow 0 arrives at 52 Mbit/s, flow 1 alternates each
 * second between 45 and 53 Mbit/s, the queue disc is served at 100 Mbit/s, 1500-byte packets.
 * Flow 0 is always a little above its fair share, flow 1 below it, then above it: CoDel's
 * control law, not the overload, sets how many packets are dropped and how long the rest wait.
 */
FlowCounts
Drive(Ptr<QueueDisc> q, double seconds)
{
    FlowCounts c;
    const uint32_t size = 1500;
    const double bits = size * 8.0;
    q->TraceConnectWithoutContext("Drop",
                                  MakeCallback(+[](FlowCounts* c, Ptr<const QueueDiscItem> item) {
                                      c->drops[DynamicCast<const MsfcTestItem>(item)->GetTag()]++;
                                  }).Bind(&c));
    std::function<void()> arriveA = [&]() {
        q->Enqueue(MsfcTestItem::Flow(size, 11, 0));
        Simulator::Schedule(Seconds(bits / 52e6), arriveA);
    };
    std::function<void()> arriveB = [&]() {
        q->Enqueue(MsfcTestItem::Flow(size, 22, 1));
        bool high = static_cast<int>(Simulator::Now().GetSeconds()) % 2 == 1;
        Simulator::Schedule(Seconds(bits / (high ? 53e6 : 45e6)), arriveB);
    };
    std::function<void()> serve = [&]() {
        Ptr<QueueDiscItem> item = q->Dequeue();
        if (item)
        {
            uint32_t f = DynamicCast<MsfcTestItem>(item)->GetTag();
            c.delivered[f]++;
            c.sojournSum[f] += (Simulator::Now() - item->GetTimeStamp()).GetSeconds();
        }
        Simulator::Schedule(Seconds(bits / 100e6), serve);
    };
    Simulator::Schedule(Seconds(0), arriveA);
    Simulator::Schedule(MicroSeconds(50), arriveB);
    Simulator::Schedule(MicroSeconds(25), serve);
    Simulator::Stop(Seconds(seconds));
    Simulator::Run();
    Simulator::Destroy();
    return c;
}

} // namespace

/** MSFC (one class) and FQ-CoDel WP make the same decisions on the same arrivals. */
class MsfcOneClassIsFqCoDelWpTest : public TestCase
{
  public:
    MsfcOneClassIsFqCoDelWpTest()
        : TestCase("MSFC with one class drops and delivers per flow as FQ-CoDel without "
                   "new-flow priority")
    {
    }

  private:
    void DoRun() override
    {
        const double seconds = 8;
        Ptr<MsfcQueueDisc> msfc = CreateObject<MsfcQueueDisc>();
        msfc->SetAttribute("Prios", UintegerValue(1));
        msfc->SetAttribute("Quantum", UintegerValue(1500));
        msfc->Initialize();
        FlowCounts m = Drive(msfc, seconds);

        Ptr<FqCoDelVariantQueueDisc> wp = CreateObject<FqCoDelVariantQueueDisc>();
        wp->SetAttribute("NewFlowPriority", BooleanValue(false));
        wp->SetAttribute("UseEcn", BooleanValue(false));
        wp->SetAttribute("Quantum", UintegerValue(1500));
        wp->Initialize();
        FlowCounts w = Drive(wp, seconds);

        for (int f = 0; f < 2; ++f)
        {
            // the arrivals must make CoDel work on both flows, or this tests nothing
            NS_TEST_ASSERT_MSG_GT(m.drops[f], 100, "flow " << f << ": CoDel barely dropped");
            // the two compute 1/sqrt(count) differently (Newton steps against exact): a few
            // per cent apart in drops and waiting time, no more
            double dropDiff = std::abs(static_cast<double>(m.drops[f]) - w.drops[f]);
            NS_TEST_ASSERT_MSG_LT(dropDiff,
                                  0.05 * w.drops[f],
                                  "flow " << f << ": MSFC dropped " << m.drops[f]
                                          << ", FQ-CoDel WP " << w.drops[f]);
            double delivDiff = std::abs(static_cast<double>(m.delivered[f]) - w.delivered[f]);
            NS_TEST_ASSERT_MSG_LT(delivDiff,
                                  0.005 * w.delivered[f],
                                  "flow " << f << ": MSFC delivered " << m.delivered[f]
                                          << ", FQ-CoDel WP " << w.delivered[f]);
            double ms = m.sojournSum[f] / m.delivered[f];
            double ws = w.sojournSum[f] / w.delivered[f];
            NS_TEST_ASSERT_MSG_LT(std::abs(ms - ws),
                                  0.05 * ws,
                                  "flow " << f << ": mean wait " << ms * 1e3 << " ms under MSFC, "
                                          << ws * 1e3 << " ms under FQ-CoDel WP");
        }
    }
};

/** Cross-check of MSFC against an independent implementation of the same scheduling. */
class MsfcEquivalenceTestSuite : public TestSuite
{
  public:
    MsfcEquivalenceTestSuite()
        : TestSuite("msfc-equivalence", Type::UNIT)
    {
        AddTestCase(new MsfcOneClassIsFqCoDelWpTest, TestCase::Duration::QUICK);
    }
};

static MsfcEquivalenceTestSuite g_msfcEquivalenceTestSuite; //!< static instance
