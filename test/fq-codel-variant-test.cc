/*
 * Tests of FqCoDelVariantQueueDisc: FQ-CoDel, WP (no new-flow priority) and WSPM (no
 * starvation prevention).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "msfc-test-item.h"

#include "ns3/boolean.h"
#include "ns3/fq-codel-variant-queue-disc.h"
#include "ns3/nstime.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <vector>

using namespace ns3;

namespace
{

Ptr<FqCoDelVariantQueueDisc>
MakeVariant(bool priority, bool spm, uint32_t limit = 10000)
{
    Ptr<FqCoDelVariantQueueDisc> q = CreateObject<FqCoDelVariantQueueDisc>();
    q->SetAttribute("NewFlowPriority", BooleanValue(priority));
    q->SetAttribute("StarvationPrevention", BooleanValue(spm));
    q->SetAttribute("Quantum", UintegerValue(1500));
    q->SetAttribute("MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)));
    // Make CoDel inert: these tests are about the scheduler.
    q->SetAttribute("Target", TimeValue(Seconds(1000)));
    q->SetAttribute("Interval", TimeValue(Seconds(2000)));
    q->Initialize();
    return q;
}

uint32_t
KeyOf(Ptr<QueueDiscItem> item)
{
    return DynamicCast<MsfcTestItem>(item)->GetKey();
}

/**
 * Position (1-based) at which a single packet of a new flow leaves, when it arrives while a
 * backlogged bulk flow of 300-byte packets is being served with 1200 bytes of credit left.
 */
int
NewFlowPosition(bool priority)
{
    Ptr<FqCoDelVariantQueueDisc> q = MakeVariant(priority, true);
    for (int i = 0; i < 20; ++i)
    {
        q->Enqueue(MsfcTestItem::Flow(300, 1));
    }
    // Six packets: the bulk flow spends its first quantum (as a new flow under FQ-CoDel),
    // moves to the old list and sends one more: 1200 bytes of credit left.
    for (int i = 0; i < 6; ++i)
    {
        q->Dequeue();
    }
    q->Enqueue(MsfcTestItem::Flow(100, 2));
    int pos = 0;
    for (int i = 1; i <= 20; ++i)
    {
        if (KeyOf(q->Dequeue()) == 2)
        {
            pos = i;
            break;
        }
    }
    q->Dispose();
    return pos;
}

/**
 * Starvation case: one backlogged bulk flow (1500 B packets) and `thin` flows of single
 * 100-byte packets. Every "tick" one thin flow (in turn) sends a packet and the link sends
 * `perTick` packets. Returns the fraction of sent bytes that belong to the bulk flow.
 */
double
BulkShare(bool priority, bool spm, uint32_t thin, uint32_t arrivalsPerTick, uint32_t ticks)
{
    Ptr<FqCoDelVariantQueueDisc> q = MakeVariant(priority, spm);
    for (int i = 0; i < 200; ++i)
    {
        q->Enqueue(MsfcTestItem::Flow(1500, 1000));
    }
    uint64_t bulk = 0;
    uint64_t total = 0;
    uint32_t next = 0;
    for (uint32_t t = 0; t < ticks; ++t)
    {
        for (uint32_t a = 0; a < arrivalsPerTick; ++a)
        {
            q->Enqueue(MsfcTestItem::Flow(100, 1 + (next++ % thin)));
        }
        Ptr<QueueDiscItem> item = q->Dequeue();
        if (!item)
        {
            continue;
        }
        total += item->GetSize();
        if (KeyOf(item) == 1000)
        {
            bulk += item->GetSize();
            q->Enqueue(MsfcTestItem::Flow(1500, 1000)); // keep it backlogged
        }
    }
    q->Dispose();
    return static_cast<double>(bulk) / total;
}

} // namespace

/** FQ-CoDel serves a new flow at once; WP makes it wait for the current flow's quantum. */
class FqCoDelVariantPriorityTest : public TestCase
{
  public:
    FqCoDelVariantPriorityTest()
        : TestCase("FQ-CoDel gives new flows priority, the WP variant does not")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(NewFlowPosition(true), 1, "FQ-CoDel: new flow goes first");
        // WP: the bulk flow spends its remaining 1200 bytes (4 packets of 300 B) first.
        NS_TEST_EXPECT_MSG_EQ(NewFlowPosition(false), 5, "WP: new flow waits its turn");

        // Status bookkeeping: with priority a fresh flow is NEW, without it is OLD.
        for (bool prio : {true, false})
        {
            Ptr<FqCoDelVariantQueueDisc> q = MakeVariant(prio, true);
            Ptr<MsfcTestItem> it = MsfcTestItem::Flow(100, 7);
            uint32_t idx = q->Classify(it);
            q->Enqueue(it);
            NS_TEST_EXPECT_MSG_EQ(q->GetFlowStatus(idx),
                                  prio ? FqCoDelVariantQueueDisc::NEW_FLOW
                                       : FqCoDelVariantQueueDisc::OLD_FLOW,
                                  "status of a fresh flow");
            q->Dequeue();
            q->Dequeue();
            NS_TEST_EXPECT_MSG_EQ(q->GetFlowStatus(idx),
                                  FqCoDelVariantQueueDisc::INACTIVE,
                                  "empty flow leaves the lists");
            q->Dispose();
        }
    }
};

/** WP is deficit round robin: backlogged flows share bytes equally. */
class FqCoDelVariantFairnessTest : public TestCase
{
  public:
    FqCoDelVariantFairnessTest()
        : TestCase("FQ-CoDel WP shares bytes equally among backlogged flows (within 2 %)")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<FqCoDelVariantQueueDisc> q = MakeVariant(false, true);
        const std::vector<uint32_t> sizes{1500, 700, 90};
        for (uint32_t k = 0; k < sizes.size(); ++k)
        {
            for (int i = 0; i < 30; ++i)
            {
                q->Enqueue(MsfcTestItem::Flow(sizes[k], k + 1));
            }
        }
        std::vector<uint64_t> bytes(sizes.size() + 1, 0);
        uint64_t total = 0;
        while (total < 2'000'000)
        {
            Ptr<QueueDiscItem> item = q->Dequeue();
            uint32_t k = KeyOf(item);
            bytes[k] += item->GetSize();
            total += item->GetSize();
            q->Enqueue(MsfcTestItem::Flow(sizes[k - 1], k));
        }
        for (uint32_t k = 1; k <= sizes.size(); ++k)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(bytes[k] * sizes.size() / static_cast<double>(total),
                                      1.0,
                                      0.02,
                                      "flow " << k);
        }
        q->Dispose();
    }
};

/** Under a load of many thin flows WSPM starves the bulk flow more than FQ-CoDel. */
class FqCoDelVariantStarvationTest : public TestCase
{
  public:
    FqCoDelVariantStarvationTest()
        : TestCase("FQ-CoDel WSPM differs from FQ-CoDel when thin flows overload the scheduler")
    {
    }

  private:
    void DoRun() override
    {
        // 40 thin flows; per link packet slot 0.9 thin packets arrive on average (9 per 10).
        double fq = 0;
        double wspm = 0;
        double wp = 0;
        {
            fq = BulkShare(true, true, 40, 1, 20000);
            wspm = BulkShare(true, false, 40, 1, 20000);
            wp = BulkShare(false, true, 40, 1, 20000);
        }
        std::clog << "bulk byte share: FQ-CoDel " << fq << " WSPM " << wspm << " WP " << wp
                  << std::endl;
        NS_TEST_EXPECT_MSG_LT(wspm, fq / 10, "WSPM should starve the bulk flow");
        NS_TEST_EXPECT_MSG_GT(fq,
                              0.05,
                              "FQ-CoDel's old-list rotation should let the bulk flow send");
        NS_TEST_EXPECT_MSG_GT(wp, fq, "without priority the bulk flow does best");
    }
};

/** Overload drops from the head of the fattest flow; CoDel drops after the interval. */
class FqCoDelVariantDropTest : public TestCase
{
  public:
    FqCoDelVariantDropTest()
        : TestCase(
              "FQ-CoDel variant: overload drops from the fattest flow, CoDel drops standing queue")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<FqCoDelVariantQueueDisc> q = MakeVariant(true, true, 20);
        q->SetAttribute("DropBatchSize", UintegerValue(4));
        for (int i = 0; i < 15; ++i)
        {
            q->Enqueue(MsfcTestItem::Flow(1000, 1));
        }
        for (int i = 0; i < 6; ++i)
        {
            q->Enqueue(MsfcTestItem::Flow(1000, 2));
        }
        // 21 > 20: drop from flow 1 (15000 B): up to half its bytes or 4 packets -> 4.
        NS_TEST_EXPECT_MSG_EQ(q->GetNPackets(), 17, "one batch of 4 dropped");
        NS_TEST_EXPECT_MSG_EQ(
            q->GetStats().GetNDroppedPackets(FqCoDelVariantQueueDisc::OVERLIMIT_DROP),
            4,
            "overlimit drops");
        q->Dispose();

        // CoDel: a standing queue of 5 ms+ for more than an interval is dropped from.
        Ptr<FqCoDelVariantQueueDisc> c = CreateObject<FqCoDelVariantQueueDisc>();
        c->SetAttribute("Quantum", UintegerValue(1500));
        c->Initialize();
        // Enqueue 1000 packets of one flow at t=0; dequeue one every 1 ms.
        for (int i = 0; i < 1000; ++i)
        {
            c->Enqueue(MsfcTestItem::Flow(1500, 1));
        }
        uint32_t dropsAt104 = 99;
        for (int i = 1; i <= 400; ++i)
        {
            Simulator::Schedule(MilliSeconds(i), [c]() { c->Dequeue(); });
        }
        Simulator::Schedule(MilliSeconds(104) + MicroSeconds(500), [c, &dropsAt104]() {
            dropsAt104 = c->GetStats().nTotalDroppedPackets;
        });
        Simulator::Run();
        Simulator::Destroy();
        uint32_t drops =
            c->GetStats().GetNDroppedPackets(FqCoDelVariantQueueDisc::TARGET_EXCEEDED_DROP);
        // Sojourn = t. Above target from 5 ms, so the first drop is at 105 ms; then the
        // control law t + 100 ms / sqrt(count): 205, 275.7, 333.4, 383.4 (next 428 > 400).
        NS_TEST_EXPECT_MSG_EQ(dropsAt104, 0u, "no CoDel drop within the first interval");
        NS_TEST_EXPECT_MSG_EQ(drops, 5u, "CoDel control law: 5 drops in 400 ms");
        c->Dispose();
    }
};

/** The FQ-CoDel variant test suite */
class FqCoDelVariantTestSuite : public TestSuite
{
  public:
    FqCoDelVariantTestSuite()
        : TestSuite("fq-codel-variant-queue-disc", Type::UNIT)
    {
        AddTestCase(new FqCoDelVariantPriorityTest, TestCase::Duration::QUICK);
        AddTestCase(new FqCoDelVariantFairnessTest, TestCase::Duration::QUICK);
        AddTestCase(new FqCoDelVariantStarvationTest, TestCase::Duration::QUICK);
        AddTestCase(new FqCoDelVariantDropTest, TestCase::Duration::QUICK);
    }
};

static FqCoDelVariantTestSuite g_fqCoDelVariantTestSuite; //!< static instance
