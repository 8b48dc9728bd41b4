/*
 * Tests of WeightedClassQueueDisc: low-jitter WFQ and DRR shares and order, MaxS, WRED's
 * linear drop probability, and the rate-based AQM's estimators, capacity allocation,
 * fair share and control of an unresponsive source (docs/class-aqm.md).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msfc-test-item.h"

#include "ns3/boolean.h"
#include "ns3/class-aqm.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/msfc-queue-disc.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"
#include "ns3/weighted-class-queue-disc.h"

#include <array>
#include <vector>

using namespace ns3;

namespace
{

/// DSCP of each class with 4 classes (the default map: CS1, BE, CS2, CS3).
constexpr std::array<int, 4> kDscp = {8, 0, 16, 24};

Ptr<MsfcTestItem>
Item(uint32_t cls, uint32_t size = 1000, bool ect = false)
{
    return Create<MsfcTestItem>(size, cls, kDscp[cls], ect, cls);
}

uint32_t
ClassOf(Ptr<QueueDiscItem> item)
{
    return DynamicCast<MsfcTestItem>(item)->GetTag();
}

std::string
Join(const std::vector<uint32_t>& v)
{
    std::string s;
    for (uint32_t x : v)
    {
        s += std::to_string(x);
    }
    return s;
}

Ptr<WeightedClassQueueDisc>
Make(const std::string& discipline,
     const std::string& weights,
     const std::string& aqm = "DropTail",
     uint32_t maxS = 0,
     uint32_t limit = 100000)
{
    Ptr<WeightedClassQueueDisc> q = CreateObject<WeightedClassQueueDisc>();
    q->SetAttribute("Classes", UintegerValue(4));
    q->SetAttribute("Weights", StringValue(weights));
    q->SetAttribute("Discipline", StringValue(discipline));
    q->SetAttribute("Aqm", StringValue(aqm));
    q->SetAttribute("MaxS", UintegerValue(maxS));
    q->SetAttribute("MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)));
    q->SetAttribute("LinkRate", StringValue("1Mbps"));
    q->AssignStreams(1);
    return q;
}

/** Configuration errors, classification as MSFC's. */
class WcqConfigTest : public TestCase
{
  public:
    WcqConfigTest()
        : TestCase("bad attributes give messages naming them; classes follow MSFC's DSCP map")
    {
    }

  private:
    void DoRun() override
    {
        auto msg = [](const std::string& attr, const std::string& value) {
            Ptr<WeightedClassQueueDisc> q = CreateObject<WeightedClassQueueDisc>();
            q->SetAttribute(attr, StringValue(value));
            return q->ValidateConfiguration();
        };
        NS_TEST_ASSERT_MSG_EQ(msg("Weights", "1000,2000,4000,8000"), "", "valid weights");
        NS_TEST_ASSERT_MSG_NE(msg("Weights", "1000,2000").find("one per class"),
                              std::string::npos,
                              "weight count");
        NS_TEST_ASSERT_MSG_NE(msg("Weights", "1000,x,1,1").find("not a number"),
                              std::string::npos,
                              "weight syntax");
        NS_TEST_ASSERT_MSG_NE(msg("Weights", "0,1,1,1").find("1.."), std::string::npos, "zero");
        NS_TEST_ASSERT_MSG_NE(msg("RbUtilisation", "1.2").find("(0, 1]"), std::string::npos, "u");
        NS_TEST_ASSERT_MSG_NE(msg("RbUtilisation", "0.9,0.8").find("one for all"),
                              std::string::npos,
                              "u count");
        NS_TEST_ASSERT_MSG_NE(msg("WredMaxTh", "0").find("WredMinTh < WredMaxTh"),
                              std::string::npos,
                              "thresholds");
        NS_TEST_ASSERT_MSG_NE(msg("DscpMap", "EF").find("DSCP=CLASS"), std::string::npos, "map");

        Ptr<WeightedClassQueueDisc> q = Make("Wfq", "");
        q->Initialize();
        NS_TEST_ASSERT_MSG_EQ(q->GetWeight(0), 1500, "default W_0");
        NS_TEST_ASSERT_MSG_EQ(q->GetWeight(3), 12000, "default W_3 = 1500 * 2^3");
        Ptr<MsfcQueueDisc> m = CreateObject<MsfcQueueDisc>();
        m->SetAttribute("Prios", UintegerValue(4));
        m->Initialize();
        for (uint32_t dscp = 0; dscp < 64; ++dscp)
        {
            Ptr<MsfcTestItem> it = Create<MsfcTestItem>(100, 0, static_cast<int>(dscp));
            // LE: MSFC's least-effort lane (class Prios there), the least class here
            const uint32_t msfc = dscp == 1 ? 0u : m->Classify(it);
            NS_TEST_ASSERT_MSG_EQ(q->Classify(it), msfc, "same class as MSFC");
        }
        for (uint32_t c = 0; c < 4; ++c)
        {
            NS_TEST_ASSERT_MSG_EQ(q->Classify(Item(c)), c, "test DSCPs");
        }
        q->Dispose();
        m->Dispose();
    }
};

/** Backlogged classes share in proportion to W under both disciplines. */
class WcqSharesTest : public TestCase
{
  public:
    WcqSharesTest()
        : TestCase("backlogged classes get bytes in proportion to W (Wfq and Drr)")
    {
    }

  private:
    void DoRun() override
    {
        for (std::string d : {"Wfq", "Drr"})
        {
            // The seed's W (in bits) scaled to bytes, 1000-byte packets.
            Ptr<WeightedClassQueueDisc> q = Make(d, "125,250,500,1000");
            q->Initialize();
            for (uint32_t i = 0; i < 3000; ++i)
            {
                for (uint32_t c = 0; c < 4; ++c)
                {
                    q->Enqueue(Item(c));
                }
            }
            std::array<uint32_t, 4> served{};
            for (uint32_t i = 0; i < 3000; ++i)
            {
                Ptr<QueueDiscItem> it = q->Dequeue();
                NS_TEST_ASSERT_MSG_NE(it, nullptr, "work conserving");
                ++served[ClassOf(it)];
            }
            for (uint32_t c = 0; c < 4; ++c)
            {
                double expected = 3000.0 * (1u << c) / 15.0;
                NS_TEST_ASSERT_MSG_EQ_TOL(served[c],
                                          expected,
                                          expected * 0.02,
                                          d << " class " << c);
                NS_TEST_ASSERT_MSG_EQ(q->GetClassStats(c).dequeuedPackets, served[c], "stats");
            }
            // Work conserving: a single backlogged class gets everything.
            Ptr<WeightedClassQueueDisc> one = Make(d, "125,250,500,1000");
            one->Initialize();
            for (uint32_t i = 0; i < 50; ++i)
            {
                one->Enqueue(Item(0));
            }
            for (uint32_t i = 0; i < 50; ++i)
            {
                NS_TEST_ASSERT_MSG_NE(one->Dequeue(), nullptr, d << ": lone class 0 served");
            }
            NS_TEST_ASSERT_MSG_EQ(one->Dequeue(), nullptr, "empty");
            q->Dispose();
            one->Dispose();
        }
    }
};

/**
 * Low jitter: a packet of a higher class with quantum left is served next (WFQ), where DRR
 * lets the busy class finish its deficit; MaxS bounds the burst of a class that was idle.
 */
class WcqLowJitterTest : public TestCase
{
  public:
    WcqLowJitterTest()
        : TestCase("low-jitter WFQ serves a higher class at once; MaxS bounds an idle class's "
                   "burst; DRR does not")
    {
    }

  private:
    std::vector<uint32_t> Sequence(const std::string& d, uint32_t maxS)
    {
        Ptr<WeightedClassQueueDisc> q = Make(d, "3000,1000,1000,3000", "DropTail", maxS);
        q->Initialize();
        for (uint32_t i = 0; i < 100; ++i)
        {
            q->Enqueue(Item(0));
        }
        std::vector<uint32_t> seq;
        seq.push_back(ClassOf(q->Dequeue()));
        seq.push_back(ClassOf(q->Dequeue()));
        for (uint32_t i = 0; i < 5; ++i)
        {
            q->Enqueue(Item(3));
        }
        for (uint32_t i = 0; i < 8; ++i)
        {
            seq.push_back(ClassOf(q->Dequeue()));
        }
        q->Dispose();
        return seq;
    }

    void DoRun() override
    {
        // W_0 = W_3 = 3000 B: class 3 (idle, full credit) preempts class 0 at once.
        std::vector<uint32_t> wfq = Sequence("Wfq", 0);
        std::vector<uint32_t> wfqExpected = {0, 0, 3, 3, 3, 0, 3, 3, 0, 0};
        NS_TEST_ASSERT_MSG_EQ(Join(wfq), Join(wfqExpected), "Wfq order with MaxS = W");
        // MaxS = 1000 B: the idle class keeps one packet of credit, then waits for the round.
        std::vector<uint32_t> capped = Sequence("Wfq", 1000);
        std::vector<uint32_t> cappedExpected = {0, 0, 3, 0, 0, 3, 3, 3, 0, 0};
        NS_TEST_ASSERT_MSG_EQ(Join(capped), Join(cappedExpected), "Wfq order with MaxS = 1000");
        // DRR: class 3 joins the back of the round; class 0 first uses its deficit.
        std::vector<uint32_t> drr = Sequence("Drr", 0);
        NS_TEST_ASSERT_MSG_EQ(drr[2], 0, "Drr: class 0 continues");
        NS_TEST_ASSERT_MSG_EQ(drr[3], 3, "Drr: then class 3");
    }
};

/** WRED: EWMA and probability linear between the thresholds. */
class WcqWredTest : public TestCase
{
  public:
    WcqWredTest()
        : TestCase("WRED drops with probability avg over q (seed 003's P = alpha Bw), marks ECT")
    {
    }

  private:
    void DoRun() override
    {
        WredClassState s;
        s.Update(10, 0.5);
        NS_TEST_ASSERT_MSG_EQ_TOL(s.Average(), 5.0, 1e-12, "EWMA");
        NS_TEST_ASSERT_MSG_EQ_TOL(s.Probability(0, 10, 1), 0.5, 1e-12, "linear");
        NS_TEST_ASSERT_MSG_EQ_TOL(s.Probability(2, 10, 0.1), 0.0375, 1e-12, "min/max/maxP");
        NS_TEST_ASSERT_MSG_EQ(s.Probability(6, 10, 1), 0.0, "below min");
        s.Update(20, 1.0);
        NS_TEST_ASSERT_MSG_EQ(s.Probability(0, 10, 1), 1.0, "above max");

        for (bool ecn : {false, true})
        {
            // Weight 1: the average is the backlog an arrival sees; hold it at 5 of q = 10.
            Ptr<WeightedClassQueueDisc> q = Make("Wfq", "", "Wred");
            q->SetAttribute("WredWeight", DoubleValue(1.0));
            q->SetAttribute("WredMaxTh", DoubleValue(10.0));
            q->SetAttribute("UseEcn", BooleanValue(ecn));
            q->Initialize();
            uint64_t drops = 0;
            uint64_t marks = 0;
            for (uint32_t i = 0; i < 4000; ++i)
            {
                while (q->GetClassStats(1).backlogPackets > 5)
                {
                    q->Dequeue();
                }
                while (q->GetClassStats(1).backlogPackets < 5)
                {
                    q->Enqueue(Create<MsfcTestItem>(1000, 1, kDscp[1], false, 1));
                }
                WeightedClassStats before = q->GetClassStats(1);
                q->Enqueue(Item(1, 1000, true)); // ECN capable
                WeightedClassStats after = q->GetClassStats(1);
                drops += after.aqmDrops - before.aqmDrops;
                marks += after.aqmMarks - before.aqmMarks;
            }
            double signalled = static_cast<double>(ecn ? marks : drops);
            NS_TEST_ASSERT_MSG_EQ_TOL(signalled / 4000.0, 0.5, 0.04, "P = 5/10, ecn " << ecn);
            if (ecn)
            {
                NS_TEST_ASSERT_MSG_EQ(drops, 0, "ECT packets are marked, not dropped");
            }
            NS_TEST_ASSERT_MSG_EQ(q->GetClassStats(0).aqmDrops, 0, "other classes untouched");
            q->Dispose();
        }
    }
};

/** RB estimators, capacity, fair share and the integrator, without a queue disc. */
class RbEstimatorTest : public TestCase
{
  public:
    RbEstimatorTest()
        : TestCase("RB: arrival rate, S_i from the last H packets, c_i = max(M_i, S_i), fair "
                   "share, integrating P")
    {
    }

  private:
    void DoRun() override
    {
        RateBasedAqm rb;
        RateBasedAqm::Config cfg;
        cfg.weights = {3000, 1000, 1000};
        cfg.utilisation = {0.9};
        cfg.linkBps = 1e6;
        cfg.history = 10;
        cfg.tauSeconds = 0.1;
        cfg.gain = 0.0;
        cfg.minStep = 0.01;
        rb.Configure(cfg);
        // 1000 B every 8 ms = 1 Mbit/s.
        int64_t t = 0;
        for (int i = 0; i < 500; ++i, t += 8000000)
        {
            rb.OnArrival(1, 1000, t);
        }
        t -= 8000000;
        NS_TEST_ASSERT_MSG_EQ_TOL(rb.ArrivalRate(1, t), 1e6, 1e4, "x = 1 Mbit/s");
        NS_TEST_ASSERT_MSG_EQ_TOL(rb.ArrivalRate(1, t + 100000000),
                                  1e6 * std::exp(-1.0),
                                  1e4,
                                  "x decays with time constant tau");
        NS_TEST_ASSERT_MSG_EQ_TOL(rb.Minimum(0), 0.6e6, 1, "M_0 = 3/5 link");
        NS_TEST_ASSERT_MSG_EQ_TOL(rb.Minimum(1), 0.2e6, 1, "M_1 = 1/5 link");
        // History: 20 packets of class 1 (only the last 10 count), then 5 of class 0.
        for (int i = 0; i < 20; ++i)
        {
            rb.OnService(1, 1000);
        }
        NS_TEST_ASSERT_MSG_EQ_TOL(rb.ServiceShare(1), 1e6, 1, "S_1 = link");
        for (int i = 0; i < 5; ++i)
        {
            rb.OnService(0, 1000);
        }
        NS_TEST_ASSERT_MSG_EQ_TOL(rb.ServiceShare(1), 0.5e6, 1, "S_1 over the last H = 10");
        NS_TEST_ASSERT_MSG_EQ_TOL(rb.BasicCapacity(0), 0.6e6, 1, "c_0 = M_0 > S_0");
        NS_TEST_ASSERT_MSG_EQ_TOL(rb.BasicCapacity(1), 0.5e6, 1, "c_1 = S_1 > M_1");
        NS_TEST_ASSERT_MSG_EQ_TOL(rb.BasicCapacity(2), 0.2e6, 1, "idle class keeps M_2");
        // Class 1 is bottlenecked (1 Mbit/s >= 0.5); classes 0 and 2 send nothing: the fair
        // share gives it the whole link.
        NS_TEST_ASSERT_MSG_EQ(rb.Bottlenecked(1, t), true, "class 1 bottlenecked");
        NS_TEST_ASSERT_MSG_EQ_TOL(rb.Capacity(1, t), 1e6, 1, "F_1 = link");
        // Class 0 at 1 Mbit/s too: both bottlenecked, the link splits 3:1.
        for (int i = 0; i < 500; ++i)
        {
            rb.OnArrival(0, 1000, t);
            rb.OnArrival(1, 1000, t);
            t += 8000000;
        }
        t -= 8000000;
        NS_TEST_ASSERT_MSG_EQ_TOL(rb.Capacity(0, t), 0.75e6, 2e4, "F_0 = 3/4 link");
        NS_TEST_ASSERT_MSG_EQ_TOL(rb.Capacity(1, t), 0.25e6, 1e4, "F_1 = 1/4 link");
        // Integrator: x far above u c: P rises by k per arrival (gain 0), up to 1.
        NS_TEST_ASSERT_MSG_EQ(rb.Probability(1), 1.0, "P_1 saturated at 1");

        RateBasedAqm r2;
        cfg.gain = 0.0;
        cfg.minStep = 0.01;
        r2.Configure(cfg);
        for (int i = 0; i < 200; ++i)
        {
            r2.OnService(0, 1000); // S_0 = link, class 0 uncongested by others
        }
        t = 0;
        double prev = 0;
        for (int i = 0; i < 30; ++i, t += 4000000)
        {
            double p = r2.OnArrival(0, 1000, t); // 2 Mbit/s > u c = 0.9 Mbit/s after ~a few
            NS_TEST_ASSERT_MSG_GT_OR_EQ(p + 1e-12, prev, "P does not fall while x > u c");
            prev = p;
        }
        NS_TEST_ASSERT_MSG_GT(prev, 0.1, "P has risen");
        for (int i = 0; i < 100; ++i, t += 80000000)
        {
            r2.OnArrival(0, 1000, t); // 0.1 Mbit/s < u c
        }
        NS_TEST_ASSERT_MSG_EQ(r2.Probability(0), 0.0, "P falls back to 0 below u c");
    }
};

/** RB in the queue disc holds an unresponsive source at u c with a short queue. */
class RbControlTest : public TestCase
{
  public:
    RbControlTest()
        : TestCase("RB holds unresponsive 2 Mbps sources at u x their fair share of a 1 Mbps "
                   "link with a short queue; drop tail fills its buffer")
    {
    }

  private:
    struct Result
    {
        std::array<double, 4> servedBps{};
        double meanBacklog{0};
    };

    Result Simulate(const std::string& aqm, std::vector<uint32_t> classes)
    {
        Ptr<WeightedClassQueueDisc> q = Make("Wfq", "125,250,500,1000", aqm, 0, 200);
        q->SetAttribute("RbUtilisation", StringValue("0.9"));
        q->Initialize();
        const Time arrivalGap = MilliSeconds(4); // 1000 B: 2 Mbit/s per class
        const Time serviceGap = MilliSeconds(8); // 1 Mbit/s link
        const double stop = 40.0;
        const double from = 20.0;
        double backlogSum = 0;
        uint64_t samples = 0;
        std::array<uint64_t, 4> servedAtFrom{};
        for (uint32_t c : classes)
        {
            for (Time t = Seconds(0); t < Seconds(stop); t += arrivalGap)
            {
                Simulator::Schedule(t + MicroSeconds(c * 100), [q, c]() { q->Enqueue(Item(c)); });
            }
        }
        for (Time t = Seconds(0); t < Seconds(stop); t += serviceGap)
        {
            Simulator::Schedule(t + MicroSeconds(50), [&, q, t]() {
                q->Dequeue();
                if (t >= Seconds(from))
                {
                    backlogSum += q->GetNPackets();
                    ++samples;
                }
            });
        }
        Simulator::Schedule(Seconds(from), [&, q]() {
            for (uint32_t c = 0; c < 4; ++c)
            {
                servedAtFrom[c] = q->GetClassStats(c).dequeuedBytes;
            }
        });
        Simulator::Stop(Seconds(stop));
        Simulator::Run();
        Result r;
        for (uint32_t c = 0; c < 4; ++c)
        {
            r.servedBps[c] =
                (q->GetClassStats(c).dequeuedBytes - servedAtFrom[c]) * 8.0 / (stop - from);
        }
        r.meanBacklog = backlogSum / samples;
        Simulator::Destroy();
        q->Dispose();
        return r;
    }

    void DoRun() override
    {
        Result one = Simulate("Rb", {3});
        NS_TEST_ASSERT_MSG_EQ_TOL(one.servedBps[3], 0.9e6, 0.05e6, "one class: u x link");
        NS_TEST_ASSERT_MSG_LT(one.meanBacklog, 10.0, "RB keeps the queue short");
        Result tail = Simulate("DropTail", {3});
        NS_TEST_ASSERT_MSG_GT(tail.meanBacklog, 150.0, "drop tail keeps its buffer full");

        // Classes 1 and 3 (W 250 and 1000) both bottlenecked: 1:4 of the link.
        Result two = Simulate("Rb", {1, 3});
        double total = two.servedBps[1] + two.servedBps[3];
        NS_TEST_ASSERT_MSG_EQ_TOL(total, 0.9e6, 0.06e6, "two classes: u x link in all");
        NS_TEST_ASSERT_MSG_EQ_TOL(two.servedBps[3] / total, 0.8, 0.05, "shares in proportion to W");
        NS_TEST_ASSERT_MSG_LT(two.meanBacklog, 15.0, "short queue");
    }
};

class WeightedClassQueueDiscTestSuite : public TestSuite
{
  public:
    WeightedClassQueueDiscTestSuite()
        : TestSuite("weighted-class-queue-disc", Type::UNIT)
    {
        AddTestCase(new WcqConfigTest(), TestCase::Duration::QUICK);
        AddTestCase(new WcqSharesTest(), TestCase::Duration::QUICK);
        AddTestCase(new WcqLowJitterTest(), TestCase::Duration::QUICK);
        AddTestCase(new WcqWredTest(), TestCase::Duration::QUICK);
        AddTestCase(new RbEstimatorTest(), TestCase::Duration::QUICK);
        AddTestCase(new RbControlTest(), TestCase::Duration::QUICK);
    }
};

static WeightedClassQueueDiscTestSuite g_weightedClassQueueDiscTestSuite;

} // namespace
