/*
 * Trace sources of MsfcQueueDisc (ClassBacklog, Sojourn, CoDelState, OverloadDrop) and of
 * FqCoDelVariantQueueDisc (Sojourn, CoDelState): each fires with the values the queue disc's
 * own counters and the CoDel control law give.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msfc-test-item.h"

#include "ns3/boolean.h"
#include "ns3/callback.h"
#include "ns3/fq-codel-variant-queue-disc.h"
#include "ns3/msfc-queue-disc.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

using Attrs = std::vector<std::pair<std::string, std::string>>;

Ptr<MsfcQueueDisc>
NewMsfc(const Attrs& attrs)
{
    ObjectFactory f;
    f.SetTypeId("ns3::MsfcQueueDisc");
    for (const auto& [k, v] : attrs)
    {
        f.Set(k, StringValue(v));
    }
    Ptr<MsfcQueueDisc> q = f.Create<MsfcQueueDisc>();
    q->Initialize();
    return q;
}

Ptr<MsfcTestItem>
Item(uint32_t size, uint32_t hash, uint32_t cls, uint32_t tag = 0)
{
    return Create<MsfcTestItem>(size, hash, MsfcQueueDisc::DscpForDefaultClass(cls), false, tag);
}

/// One CoDelState event.
struct CoDelEvent
{
    uint32_t cls;   //!< class (MSFC) or 0
    uint32_t flow;  //!< flow queue
    bool dropping;  //!< dropping state
    uint32_t count; //!< count
    Time dropNext;  //!< drop_next
    Time at;        //!< when it fired
    uint64_t drops; //!< CoDel drops counted by the queue disc when it fired
};

} // namespace

/**
 * ClassBacklog reports every change of a class's backlog, equal to GetClassStats.
 */
class MsfcClassBacklogTraceTestCase : public TestCase
{
  public:
    MsfcClassBacklogTraceTestCase()
        : TestCase("ClassBacklog follows enqueues and dequeues")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<MsfcQueueDisc> q = NewMsfc({{"Target", "1000s"}, {"Interval", "2000s"}});
        std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> got;
        bool connected = q->TraceConnectWithoutContext(
            "ClassBacklog",
            MakeCallback(+[](std::vector<std::tuple<uint32_t, uint32_t, uint64_t>>* v,
                             uint32_t cls,
                             uint32_t packets,
                             uint64_t bytes) {
                v->emplace_back(cls, packets, bytes);
            }).Bind(&got));
        NS_TEST_ASSERT_MSG_EQ(connected, true, "ClassBacklog is a trace source");
        q->Enqueue(Item(1000, 1, 2));
        q->Enqueue(Item(500, 1, 2));
        q->Enqueue(Item(200, 2, 2));
        q->Enqueue(Item(300, 1, 0));
        while (q->Dequeue())
        {
        }
        std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> want = {
            {2, 1, 1000},
            {2, 2, 1500},
            {2, 3, 1700},
            {0, 1, 300},
            // Class 2 first (it became active first); its flow 1 sends 1000 B and, with
            // 500 B of its 1500 B quantum left, 500 B; then flow 2 sends 200 B.
            {2, 2, 700},
            {2, 1, 200},
            {2, 0, 0},
            {0, 0, 0},
        };
        NS_TEST_ASSERT_MSG_EQ(got.size(), want.size(), "one event per backlog change");
        for (size_t i = 0; i < want.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ((got[i] == want[i]), true, "event #" << i);
        }
        q->Dispose();
    }
};

/**
 * Sojourn reports class, flow and queueing time of every delivered packet.
 */
class MsfcSojournTraceTestCase : public TestCase
{
  public:
    MsfcSojournTraceTestCase()
        : TestCase("Sojourn gives class, flow and time in queue of each delivered packet")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<MsfcQueueDisc> q =
            NewMsfc({{"Target", "1000s"}, {"Interval", "2000s"}, {"Flows", "16"}});
        std::vector<std::tuple<uint32_t, uint32_t, Time>> got;
        q->TraceConnectWithoutContext(
            "Sojourn",
            MakeCallback(+[](std::vector<std::tuple<uint32_t, uint32_t, Time>>* v,
                             uint32_t cls,
                             uint32_t flow,
                             Time sojourn) {
                v->emplace_back(cls, flow, sojourn);
            }).Bind(&got));
        Simulator::Schedule(Seconds(0), [q]() {
            q->Enqueue(Item(1000, 3, 2));
            q->Enqueue(Item(1000, 3 + 16, 2)); // same flow queue: 19 % 16 = 3
        });
        Simulator::Schedule(MilliSeconds(1), [q]() { q->Enqueue(Item(1000, 5, 0)); });
        for (int ms : {4, 7, 9, 12})
        {
            Simulator::Schedule(MilliSeconds(ms), [q]() { q->Dequeue(); });
        }
        Simulator::Run();
        Simulator::Destroy();
        std::vector<std::tuple<uint32_t, uint32_t, Time>> want = {
            {2, 3, MilliSeconds(4)},
            {2, 3, MilliSeconds(7)},
            {0, 5, MilliSeconds(8)},
        };
        NS_TEST_ASSERT_MSG_EQ(got.size(), want.size(), "one event per delivered packet");
        for (size_t i = 0; i < want.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(std::get<0>(got[i]), std::get<0>(want[i]), "class #" << i);
            NS_TEST_EXPECT_MSG_EQ(std::get<1>(got[i]), std::get<1>(want[i]), "flow #" << i);
            NS_TEST_EXPECT_MSG_EQ(std::get<2>(got[i]), std::get<2>(want[i]), "sojourn #" << i);
        }
        q->Dispose();
    }
};

/**
 * CoDelState: one flow queue kept above target; the trace reports entering the dropping
 * state (count 1, drop_next one interval later), every further drop (count = drops so far)
 * and leaving the dropping state when the backlog falls to one MTU.
 */
class MsfcCoDelStateTraceTestCase : public TestCase
{
  public:
    MsfcCoDelStateTraceTestCase()
        : TestCase("CoDelState follows CoDel's dropping state, count and drop_next")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<MsfcQueueDisc> q = NewMsfc({{"Target", "5ms"}, {"Interval", "100ms"}, {"Flows", "8"}});
        std::vector<CoDelEvent> got;

        struct Ctx
        {
            Ptr<MsfcQueueDisc> q;
            std::vector<CoDelEvent>* events;
        } ctx{q, &got};

        q->TraceConnectWithoutContext("CoDelState",
                                      MakeCallback(+[](Ctx* c,
                                                       uint32_t cls,
                                                       uint32_t flow,
                                                       bool dropping,
                                                       uint32_t count,
                                                       Time dropNext) {
                                          c->events->push_back(
                                              CoDelEvent{cls,
                                                         flow,
                                                         dropping,
                                                         count,
                                                         dropNext,
                                                         Simulator::Now(),
                                                         c->q->GetClassStats(1).codelDrops});
                                      }).Bind(&ctx));
        Simulator::Schedule(Seconds(0), [q]() {
            for (uint32_t i = 0; i < 40; ++i)
            {
                q->Enqueue(Item(1000, 13, 1)); // flow queue 13 % 8 = 5 of class 1
            }
        });
        for (int i = 1; i <= 45; ++i)
        {
            Simulator::Schedule(MilliSeconds(10 * i), [q]() { q->Dequeue(); });
        }
        Simulator::Run();
        Simulator::Destroy();

        uint64_t drops = q->GetClassStats(1).codelDrops;
        NS_TEST_ASSERT_MSG_GT(drops, 1, "CoDel dropped in this set-up");
        NS_TEST_ASSERT_MSG_GT(got.size(), 2, "entering, a later drop and leaving were traced");
        // First drop: the sojourn went above target at 10 ms, so the first dequeue strictly
        // after 10 + 100 ms, at 120 ms, drops and enters the dropping state.
        const CoDelEvent& first = got.front();
        NS_TEST_EXPECT_MSG_EQ(first.cls, 1, "class");
        NS_TEST_EXPECT_MSG_EQ(first.flow, 5, "flow queue");
        NS_TEST_EXPECT_MSG_EQ(first.dropping, true, "enters dropping");
        NS_TEST_EXPECT_MSG_EQ(first.count, 1, "count 1");
        NS_TEST_EXPECT_MSG_EQ(first.at, MilliSeconds(120), "entered at 120 ms");
        // In CoDel's 1024 ns units: now = 120 ms >> 10 = 117187, interval = 100 ms >> 10 =
        // 97656, times 1/sqrt(1) = 0xffff / 2^16 (Q0.16) = 97654; (117187 + 97654) * 1024 ns
        NS_TEST_EXPECT_MSG_EQ(first.dropNext, NanoSeconds(219997184), "drop_next");
        uint32_t lastCount = 0;
        for (size_t i = 0; i < got.size(); ++i)
        {
            const CoDelEvent& e = got[i];
            // A single dropping episode: count is the number of CoDel drops so far.
            NS_TEST_EXPECT_MSG_EQ(e.count, e.drops, "count = drops, event #" << i);
            NS_TEST_EXPECT_MSG_GT_OR_EQ(e.count, lastCount, "count never falls, event #" << i);
            if (e.dropping)
            {
                NS_TEST_EXPECT_MSG_GT(e.dropNext, e.at, "drop_next is ahead, event #" << i);
            }
            lastCount = e.count;
        }
        NS_TEST_EXPECT_MSG_EQ(lastCount, drops, "every drop was traced");
        NS_TEST_EXPECT_MSG_EQ(got.back().dropping, false, "leaves dropping when drained");
        q->Dispose();
    }
};

/**
 * OverloadDrop: the packets dropped from the fattest flow, with their class and flow.
 */
class MsfcOverloadDropTraceTestCase : public TestCase
{
  public:
    MsfcOverloadDropTraceTestCase()
        : TestCase("OverloadDrop reports each packet dropped above MaxSize")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<MsfcQueueDisc> q = NewMsfc(
            {{"Target", "1000s"}, {"Interval", "2000s"}, {"Flows", "16"}, {"MaxSize", "10p"}});
        std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> got; // class, flow, tag
        q->TraceConnectWithoutContext(
            "OverloadDrop",
            MakeCallback(+[](std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>* v,
                             Ptr<const QueueDiscItem> item,
                             uint32_t cls,
                             uint32_t flow) {
                auto t = DynamicCast<const MsfcTestItem>(item);
                v->emplace_back(cls, flow, t ? t->GetTag() : 999);
            }).Bind(&got));
        q->Enqueue(Item(100, 0, 2, 100));
        for (uint32_t i = 0; i < 10; ++i)
        {
            q->Enqueue(Item(1000, 5, 1, i));
        }
        // 11 packets > 10: the fattest flow (class 1, flow 5, 10000 B) loses head packets
        // until half its bytes are gone.
        NS_TEST_ASSERT_MSG_EQ(q->GetClassStats(1).overloadDrops, 5, "5 overload drops");
        NS_TEST_ASSERT_MSG_EQ(got.size(), 5, "one event per overload drop");
        for (uint32_t i = 0; i < 5; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(std::get<0>(got[i]), 1, "class");
            NS_TEST_EXPECT_MSG_EQ(std::get<1>(got[i]), 5, "flow");
            NS_TEST_EXPECT_MSG_EQ(std::get<2>(got[i]), i, "head packets, oldest first");
        }
        q->Dispose();
    }
};

/**
 * FqCoDelVariantQueueDisc: Sojourn and CoDelState (RFC 8289 arithmetic: the first drop comes
 * when now reaches first_above_time, drop_next exactly one interval later).
 */
class FqCoDelVariantTraceTestCase : public TestCase
{
  public:
    FqCoDelVariantTraceTestCase()
        : TestCase("FQ-CoDel variant: Sojourn and CoDelState")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<FqCoDelVariantQueueDisc> q = CreateObject<FqCoDelVariantQueueDisc>();
        q->SetAttribute("Quantum", UintegerValue(1500));
        q->SetAttribute("Target", TimeValue(MilliSeconds(5)));
        q->SetAttribute("Interval", TimeValue(MilliSeconds(100)));
        q->Initialize();
        std::vector<std::pair<uint32_t, Time>> sojourns;
        std::vector<CoDelEvent> states;
        q->TraceConnectWithoutContext(
            "Sojourn",
            MakeCallback(+[](std::vector<std::pair<uint32_t, Time>>* v, uint32_t flow, Time s) {
                v->emplace_back(flow, s);
            }).Bind(&sojourns));
        q->TraceConnectWithoutContext(
            "CoDelState",
            MakeCallback(+[](std::vector<CoDelEvent>* v,
                             uint32_t flow,
                             bool dropping,
                             uint32_t count,
                             Time dropNext) {
                v->push_back(CoDelEvent{0, flow, dropping, count, dropNext, Simulator::Now(), 0});
            }).Bind(&states));
        Simulator::Schedule(Seconds(0), [q]() {
            for (uint32_t i = 0; i < 30; ++i)
            {
                q->Enqueue(MsfcTestItem::Flow(1000, 7));
            }
        });
        for (int i = 1; i <= 12; ++i)
        {
            Simulator::Schedule(MilliSeconds(10 * i), [q]() { q->Dequeue(); });
        }
        Simulator::Run();
        Simulator::Destroy();

        NS_TEST_ASSERT_MSG_EQ(sojourns.size(), 12, "one Sojourn event per delivered packet");
        NS_TEST_EXPECT_MSG_EQ(sojourns[0].first, 7, "flow queue of key 7");
        NS_TEST_EXPECT_MSG_EQ(sojourns[0].second, MilliSeconds(10), "first sojourn");
        // At 110 ms CoDel drops the head packet (enqueued at 0) and delivers the next.
        NS_TEST_EXPECT_MSG_EQ(sojourns[10].second, MilliSeconds(110), "after the drop");
        NS_TEST_ASSERT_MSG_EQ(states.size(), 1, "entering the dropping state");
        NS_TEST_EXPECT_MSG_EQ(states[0].flow, 7, "flow");
        NS_TEST_EXPECT_MSG_EQ(states[0].dropping, true, "dropping");
        NS_TEST_EXPECT_MSG_EQ(states[0].count, 1, "count");
        NS_TEST_EXPECT_MSG_EQ(states[0].at, MilliSeconds(110), "at first_above_time");
        NS_TEST_EXPECT_MSG_EQ(states[0].dropNext, MilliSeconds(210), "one interval later");
        q->Dispose();
    }
};

/**
 * The trace sources of the project's queue discs.
 */
class MsfcTraceSourcesTestSuite : public TestSuite
{
  public:
    MsfcTraceSourcesTestSuite()
        : TestSuite("msfc-trace-sources", Type::UNIT)
    {
        AddTestCase(new MsfcClassBacklogTraceTestCase, TestCase::Duration::QUICK);
        AddTestCase(new MsfcSojournTraceTestCase, TestCase::Duration::QUICK);
        AddTestCase(new MsfcCoDelStateTraceTestCase, TestCase::Duration::QUICK);
        AddTestCase(new MsfcOverloadDropTraceTestCase, TestCase::Duration::QUICK);
        AddTestCase(new FqCoDelVariantTraceTestCase, TestCase::Duration::QUICK);
    }
};

static MsfcTraceSourcesTestSuite g_msfcTraceSourcesTestSuite; //!< static instance
