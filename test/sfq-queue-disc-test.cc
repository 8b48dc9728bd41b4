/*
 * Tests of SfqQueueDisc: round-robin fairness, perturbation, limits, drop from the longest
 * flow, head vs tail drop.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "msfc-test-item.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/nstime.h"
#include "ns3/queue-size.h"
#include "ns3/sfq-queue-disc.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <map>
#include <set>
#include <vector>

using namespace ns3;

namespace
{

Ptr<SfqQueueDisc>
MakeSfq(uint32_t limit, uint32_t depth, bool headDrop = false, uint32_t flows = 128)
{
    Ptr<SfqQueueDisc> q = CreateObject<SfqQueueDisc>();
    q->SetAttribute("MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)));
    q->SetAttribute("Depth", UintegerValue(depth));
    q->SetAttribute("HeadDrop", BooleanValue(headDrop));
    q->SetAttribute("Flows", UintegerValue(flows));
    q->SetAttribute("Quantum", UintegerValue(1500));
    q->Initialize();
    return q;
}

Ptr<MsfcTestItem>
Item(uint32_t size, uint32_t key, uint32_t id = 0)
{
    return MsfcTestItem::Flow(size, key, id);
}

uint32_t
KeyOf(Ptr<QueueDiscItem> item)
{
    return DynamicCast<MsfcTestItem>(item)->GetKey();
}

uint32_t
IdOf(Ptr<QueueDiscItem> item)
{
    return DynamicCast<MsfcTestItem>(item)->GetTag();
}

} // namespace

/** Backlogged flows with different packet sizes get the same bytes, within 2 %. */
class SfqFairnessTest : public TestCase
{
  public:
    SfqFairnessTest()
        : TestCase("SFQ round robin: backlogged flows with 1500, 1000, 576 and 64 B packets share "
                   "bytes equally")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<SfqQueueDisc> q = MakeSfq(10000, 1000);
        const std::vector<uint32_t> sizes{1500, 1000, 576, 64};
        for (uint32_t k = 0; k < sizes.size(); ++k)
        {
            for (int i = 0; i < 50; ++i)
            {
                q->Enqueue(Item(sizes[k], k + 1));
            }
        }
        std::map<uint32_t, uint64_t> bytes;
        uint64_t total = 0;
        while (total < 3'000'000)
        {
            Ptr<QueueDiscItem> item = q->Dequeue();
            NS_TEST_ASSERT_MSG_NE(item, nullptr, "backlogged queue returned nothing");
            uint32_t k = KeyOf(item);
            bytes[k] += item->GetSize();
            total += item->GetSize();
            q->Enqueue(Item(sizes[k - 1], k)); // keep the flow backlogged
        }
        double fair = static_cast<double>(total) / sizes.size();
        for (uint32_t k = 1; k <= sizes.size(); ++k)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(static_cast<double>(bytes[k]) / fair,
                                      1.0,
                                      0.02,
                                      "flow " << k << " got an unfair share");
        }
        NS_TEST_EXPECT_MSG_EQ(q->GetStats().nTotalDroppedPackets, 0, "no drops expected");
        q->Dispose();
    }
};

/** One packet of a new flow waits for one round, not for the whole backlog of others. */
class SfqRoundRobinOrderTest : public TestCase
{
  public:
    SfqRoundRobinOrderTest()
        : TestCase(
              "SFQ round robin: flows alternate quantum by quantum, a new flow joins the round")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<SfqQueueDisc> q = MakeSfq(1000, 1000);
        for (int i = 0; i < 10; ++i)
        {
            q->Enqueue(Item(1500, 1));
            q->Enqueue(Item(1500, 2));
        }
        // quantum 1500 = one packet: strict alternation 1,2,1,2...
        std::vector<uint32_t> order;
        for (int i = 0; i < 4; ++i)
        {
            order.push_back(KeyOf(q->Dequeue()));
        }
        NS_TEST_EXPECT_MSG_EQ((order == std::vector<uint32_t>{1, 2, 1, 2}),
                              true,
                              "not alternating");
        q->Enqueue(Item(100, 3));
        // Flow 3 is queued behind the two active flows: served within the next 3 packets.
        bool seen = false;
        for (int i = 0; i < 3 && !seen; ++i)
        {
            seen = KeyOf(q->Dequeue()) == 3;
        }
        NS_TEST_EXPECT_MSG_EQ(seen, true, "a new flow must be served within one round");
        q->Dispose();
    }
};

/** Perturbation re-keys the hash: mapping changes, queued packets are kept in order. */
class SfqPerturbationTest : public TestCase
{
  public:
    SfqPerturbationTest()
        : TestCase("SFQ perturbation changes the flow-to-bucket mapping and keeps queued packets")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<SfqQueueDisc> q = MakeSfq(10000, 1000);
        // Mapping of 200 keys under two perturbations.
        uint32_t changed = 0;
        std::vector<uint32_t> before;
        for (uint32_t k = 1; k <= 200; ++k)
        {
            before.push_back(q->Classify(Item(100, k)));
        }
        // Keys 5 and 5 + 1024 collide under perturbation 0 (hash mod 1024).
        NS_TEST_ASSERT_MSG_EQ(q->Classify(Item(100, 5)), q->Classify(Item(100, 5 + 1024)), "setup");
        for (uint32_t i = 0; i < 10; ++i)
        {
            q->Enqueue(Item(1000, 5, i));
            q->Enqueue(Item(1000, 5 + 1024, 100 + i));
            q->Enqueue(Item(1000, 77, 200 + i));
        }
        NS_TEST_EXPECT_MSG_EQ(q->GetNActiveFlows(), 2, "colliding flows share one slot");
        q->Perturb(0x9e3779b9U);
        for (uint32_t k = 1; k <= 200; ++k)
        {
            changed += q->Classify(Item(100, k)) != before[k - 1];
        }
        NS_TEST_EXPECT_MSG_GT(changed, 190u, "perturbation should remap nearly every flow");
        NS_TEST_EXPECT_MSG_NE(q->Classify(Item(100, 5)),
                              q->Classify(Item(100, 5 + 1024)),
                              "after perturbation the colliding flows should separate");
        NS_TEST_EXPECT_MSG_EQ(q->GetNActiveFlows(), 3, "queued packets rehashed into 3 slots");
        NS_TEST_EXPECT_MSG_EQ(q->GetNPackets(), 30, "rehash must keep every packet");
        std::map<uint32_t, uint32_t> next{{5, 0}, {5 + 1024, 100}, {77, 200}};
        for (int i = 0; i < 30; ++i)
        {
            Ptr<QueueDiscItem> item = q->Dequeue();
            uint32_t k = KeyOf(item);
            NS_TEST_EXPECT_MSG_EQ(IdOf(item), next[k], "per-flow order broken by rehash");
            next[k]++;
        }
        q->Dispose();

        // The same with real IPv4/UDP packets and ns-3's 5-tuple hash.
        Ptr<SfqQueueDisc> r = MakeSfq(1000, 100);
        auto udp = [](uint16_t sport) {
            Ptr<Packet> p = Create<Packet>(100);
            UdpHeader u;
            u.SetSourcePort(sport);
            u.SetDestinationPort(9);
            p->AddHeader(u);
            Ipv4Header h;
            h.SetSource(Ipv4Address("10.0.0.1"));
            h.SetDestination(Ipv4Address("10.0.0.2"));
            h.SetProtocol(17);
            h.SetPayloadSize(p->GetSize());
            return Create<Ipv4QueueDiscItem>(p, Address(), 0x0800, h);
        };
        std::vector<uint32_t> ipBefore;
        for (uint16_t port = 1000; port < 1200; ++port)
        {
            ipBefore.push_back(r->Classify(udp(port)));
        }
        std::set<uint32_t> distinct(ipBefore.begin(), ipBefore.end());
        NS_TEST_EXPECT_MSG_GT(distinct.size(), 150u, "5-tuple hash should spread 200 flows");
        r->Perturb(12345);
        uint32_t ipChanged = 0;
        for (uint16_t port = 1000; port < 1200; ++port)
        {
            ipChanged += r->Classify(udp(port)) != ipBefore[port - 1000];
        }
        NS_TEST_EXPECT_MSG_GT(ipChanged, 190u, "perturbation should remap IPv4 flows too");
        r->Dispose();

        // The periodic timer draws new perturbation values.
        Ptr<SfqQueueDisc> p = CreateObject<SfqQueueDisc>();
        p->SetAttribute("Quantum", UintegerValue(1500));
        p->SetAttribute("PerturbPeriod", TimeValue(Seconds(1)));
        p->Initialize();
        std::set<uint32_t> values;
        for (int t = 1; t <= 4; ++t)
        {
            Simulator::Schedule(Seconds(t) + MilliSeconds(500),
                                [p, &values]() { values.insert(p->GetPerturbation()); });
        }
        Simulator::Stop(Seconds(5));
        Simulator::Run();
        Simulator::Destroy();
        NS_TEST_EXPECT_MSG_EQ(values.size(), 4u, "perturbation did not change every period");
        p->Dispose();
    }
};

/** Depth, total limit, slot exhaustion; the total limit drops from the longest flow. */
class SfqLimitsTest : public TestCase
{
  public:
    SfqLimitsTest()
        : TestCase(
              "SFQ limits: per-flow depth, total limit (drop from the longest flow), flow slots")
    {
    }

  private:
    void DoRun() override
    {
        // Depth 5: 8 packets of one flow -> 3 dropped.
        Ptr<SfqQueueDisc> q = MakeSfq(100, 5);
        for (uint32_t i = 0; i < 8; ++i)
        {
            q->Enqueue(Item(500, 1, i));
        }
        NS_TEST_EXPECT_MSG_EQ(q->GetNPackets(), 5, "depth not enforced");
        NS_TEST_EXPECT_MSG_EQ(q->GetStats().GetNDroppedPackets(SfqQueueDisc::DEPTH_DROP),
                              3,
                              "depth drops");
        q->Dispose();

        // Total limit 10: A has 6, B 4; one more packet of C -> one dropped from A (longest).
        q = MakeSfq(10, 127);
        for (uint32_t i = 0; i < 6; ++i)
        {
            q->Enqueue(Item(500, 1, i));
        }
        for (uint32_t i = 0; i < 4; ++i)
        {
            q->Enqueue(Item(500, 2, 10 + i));
        }
        q->Enqueue(Item(500, 3, 20));
        NS_TEST_EXPECT_MSG_EQ(q->GetNPackets(), 10, "total limit not enforced");
        NS_TEST_EXPECT_MSG_EQ(q->GetStats().GetNDroppedPackets(SfqQueueDisc::OVERLIMIT_DROP),
                              1,
                              "one overlimit drop");
        NS_TEST_EXPECT_MSG_EQ(q->GetBucketPackets(q->Classify(Item(1, 1))), 5, "A loses one");
        NS_TEST_EXPECT_MSG_EQ(q->GetBucketPackets(q->Classify(Item(1, 2))), 4, "B untouched");
        NS_TEST_EXPECT_MSG_EQ(q->GetBucketPackets(q->Classify(Item(1, 3))), 1, "C kept");
        // Tail drop: A's newest packet (id 5) is the one gone.
        std::set<uint32_t> ids;
        while (Ptr<QueueDiscItem> item = q->Dequeue())
        {
            ids.insert(IdOf(item));
        }
        NS_TEST_EXPECT_MSG_EQ(ids.count(5), 0u, "the tail of the longest flow must be dropped");
        NS_TEST_EXPECT_MSG_EQ(ids.count(0), 1u, "the head of the longest flow must stay");
        q->Dispose();

        // Two slots: a third concurrent flow is refused.
        q = MakeSfq(100, 127, false, 2);
        q->Enqueue(Item(500, 1));
        q->Enqueue(Item(500, 2));
        q->Enqueue(Item(500, 3));
        NS_TEST_EXPECT_MSG_EQ(q->GetNPackets(), 2, "third flow needs a slot");
        NS_TEST_EXPECT_MSG_EQ(q->GetStats().GetNDroppedPackets(SfqQueueDisc::SLOTS_EXHAUSTED_DROP),
                              1,
                              "slot exhaustion drop");
        q->Dequeue();
        q->Dequeue(); // flow 1 and 2 leave, slots free again
        q->Enqueue(Item(500, 3));
        NS_TEST_EXPECT_MSG_EQ(q->GetNPackets(), 1, "freed slot reused");
        q->Dispose();
    }
};

/** HeadDrop drops the oldest packets, tail drop the newest. */
class SfqHeadTailDropTest : public TestCase
{
  public:
    SfqHeadTailDropTest()
        : TestCase("SFQ head drop keeps the newest packets, tail drop keeps the oldest")
    {
    }

  private:
    std::vector<uint32_t> Survivors(bool headDrop, uint32_t limit, uint32_t depth)
    {
        Ptr<SfqQueueDisc> q = MakeSfq(limit, depth, headDrop);
        for (uint32_t i = 1; i <= 5; ++i)
        {
            q->Enqueue(Item(500, 1, i));
        }
        std::vector<uint32_t> out;
        while (Ptr<QueueDiscItem> item = q->Dequeue())
        {
            out.push_back(IdOf(item));
        }
        q->Dispose();
        return out;
    }

    void DoRun() override
    {
        // per-flow depth
        NS_TEST_EXPECT_MSG_EQ((Survivors(false, 100, 3) == std::vector<uint32_t>{1, 2, 3}),
                              true,
                              "tail drop at depth");
        NS_TEST_EXPECT_MSG_EQ((Survivors(true, 100, 3) == std::vector<uint32_t>{3, 4, 5}),
                              true,
                              "head drop at depth");
        // total limit
        NS_TEST_EXPECT_MSG_EQ((Survivors(false, 3, 127) == std::vector<uint32_t>{1, 2, 3}),
                              true,
                              "tail drop at limit");
        NS_TEST_EXPECT_MSG_EQ((Survivors(true, 3, 127) == std::vector<uint32_t>{3, 4, 5}),
                              true,
                              "head drop at limit");
    }
};

/** The SFQ test suite */
class SfqQueueDiscTestSuite : public TestSuite
{
  public:
    SfqQueueDiscTestSuite()
        : TestSuite("sfq-queue-disc", Type::UNIT)
    {
        AddTestCase(new SfqFairnessTest, TestCase::Duration::QUICK);
        AddTestCase(new SfqRoundRobinOrderTest, TestCase::Duration::QUICK);
        AddTestCase(new SfqPerturbationTest, TestCase::Duration::QUICK);
        AddTestCase(new SfqLimitsTest, TestCase::Duration::QUICK);
        AddTestCase(new SfqHeadTailDropTest, TestCase::Duration::QUICK);
    }
};

static SfqQueueDiscTestSuite g_sfqQueueDiscTestSuite; //!< static instance
