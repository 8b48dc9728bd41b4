/*
 * Unit tests of MsfcQueueDisc: scheduling shares, fairness, work
 * conservation, CoDel, overload, classification, configuration checks and changes.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msfc-test-item.h"

#include "ns3/double.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/ipv6-header.h"
#include "ns3/ipv6-queue-disc-item.h"
#include "ns3/msfc-queue-disc.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"
#include "ns3/tcp-header.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"
#include "ns3/udp-l4-protocol.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

using Attrs = std::vector<std::pair<std::string, std::string>>;

Ptr<MsfcQueueDisc>
NewDisc(const Attrs& attrs, bool initialize = true)
{
    ObjectFactory f;
    f.SetTypeId("ns3::MsfcQueueDisc");
    for (const auto& [k, v] : attrs)
    {
        f.Set(k, StringValue(v));
    }
    Ptr<MsfcQueueDisc> q = f.Create<MsfcQueueDisc>();
    if (initialize)
    {
        q->Initialize();
    }
    return q;
}

Ptr<MsfcTestItem>
Item(uint32_t size, uint32_t hash, uint32_t cls, uint32_t tag)
{
    return Create<MsfcTestItem>(size, hash, MsfcQueueDisc::DscpForDefaultClass(cls), false, tag);
}

double
RelErr(double got, double want)
{
    return std::fabs(got - want) / want;
}

} // namespace

/**
 * Saturated classes with equal packet sizes share bytes 1 : Ratio : Ratio^2.
 */
class MsfcRatioShareTestCase : public TestCase
{
  public:
    MsfcRatioShareTestCase()
        : TestCase("Saturated classes get bytes in ratio 1 : Ratio : Ratio^2")
    {
    }

  private:
    void DoRun() override
    {
        for (double ratio : {2.0, 1.5, 3.0})
        {
            Ptr<MsfcQueueDisc> q = NewDisc(
                {{"Ratio", std::to_string(ratio)}, {"Quantum", "1500"}, {"MaxSize", "100000p"}});
            for (uint32_t p = 0; p < 3; ++p)
            {
                for (int i = 0; i < 8; ++i)
                {
                    q->Enqueue(Item(1000, 1, p, p));
                }
            }
            double bytes[3] = {0, 0, 0};
            for (int i = 0; i < 40000; ++i)
            {
                auto item = DynamicCast<MsfcTestItem>(q->Dequeue());
                NS_TEST_ASSERT_MSG_NE(item, nullptr, "a saturated queue disc returned nothing");
                if (!item)
                {
                    return; // the assertion above reported the failure
                }
                bytes[item->GetTag()] += item->GetSize();
                q->Enqueue(Item(1000, 1, item->GetTag(), item->GetTag()));
            }
            NS_TEST_EXPECT_MSG_LT(RelErr(bytes[1] / bytes[0], ratio),
                                  0.02,
                                  "class 1 : class 0 should be " << ratio);
            NS_TEST_EXPECT_MSG_LT(RelErr(bytes[2] / bytes[0], ratio * ratio),
                                  0.02,
                                  "class 2 : class 0 should be " << ratio * ratio);
            q->Dispose();
        }
    }
};

/**
 * Quanta: the operator's class quanta replace Quantum * Ratio^p.  A diffserv4-like split (bulk
 * 95, best effort 1514, video 757, voice 378 bytes) with every class backlogged and the voice
 * class flooding: class p gets Q_p / sum(Q) of the bytes, with both weights; bad lists are
 * refused in the kernel's words; a new Prios needs new Quanta; "ratio" goes back.
 */
class MsfcExplicitQuantaTestCase : public TestCase
{
  public:
    MsfcExplicitQuantaTestCase()
        : TestCase("Quanta: class p gets Q_p over sum(Q); bad lists, Prios alone refused")
    {
    }

  private:
    void DoRun() override
    {
        const double quanta[4] = {95, 1514, 757, 378};
        const double sum = 95 + 1514 + 757 + 378;
        for (const char* weights : {"rounded", "exact"})
        {
            Ptr<MsfcQueueDisc> q = NewDisc({{"Prios", "4"},
                                            {"Quantum", "1514"},
                                            {"Quanta", "95,1514,757,378"},
                                            {"Weights", weights},
                                            {"MaxSize", "100000p"}});
            for (uint32_t p = 0; p < 4; ++p)
            {
                NS_TEST_EXPECT_MSG_EQ(q->GetClassQuantum(p),
                                      static_cast<uint64_t>(quanta[p])
                                          << (std::string(weights) == "exact" ? 16 : 0),
                                      "class " << p << " quantum");
                // the voice class floods: four times the packets of each other class
                for (int i = 0; i < (p == 3 ? 32 : 8); ++i)
                {
                    q->Enqueue(Item(200 + 300 * p, 1, p, p));
                }
            }
            double bytes[4] = {0, 0, 0, 0};
            double total = 0;
            for (int i = 0; i < 40000; ++i)
            {
                auto item = DynamicCast<MsfcTestItem>(q->Dequeue());
                NS_TEST_ASSERT_MSG_NE(item, nullptr, "a saturated queue disc returned nothing");
                if (!item)
                {
                    return; // the assertion above reported the failure
                }
                bytes[item->GetTag()] += item->GetSize();
                total += item->GetSize();
                q->Enqueue(Item(item->GetSize(), 1, item->GetTag(), item->GetTag()));
            }
            for (uint32_t p = 0; p < 4; ++p)
            {
                NS_TEST_EXPECT_MSG_LT(RelErr(bytes[p] / total, quanta[p] / sum),
                                      0.01,
                                      "weights " << weights << ": class " << p << " got "
                                                 << bytes[p] / total << " of the bytes, Q_p / "
                                                 << "sum(Q) is " << quanta[p] / sum);
            }
            q->Dispose();
        }

        const std::vector<std::pair<Attrs, std::string>> bad = {
            {{{"Quanta", "95,1514,757,378"}}, TC_MSFC_QUANTA_COUNT_MSG},
            {{{"Prios", "2"}, {"Quanta", "0,1514"}}, TC_MSFC_QUANTA_RANGE_MSG},
            {{{"Prios", "2"}, {"Quanta", "1048577,1514"}}, TC_MSFC_QUANTA_RANGE_MSG},
            {{{"Prios", "2"}, {"Quanta", "95,,1514"}}, "quanta must be byte counts joined by"},
            {{{"Prios", "2"}, {"Quanta", "95;1514"}}, "quanta must be byte counts joined by"},
        };
        for (const auto& [attrs, expect] : bad)
        {
            std::string msg = NewDisc(attrs, false)->ValidateConfiguration();
            NS_TEST_EXPECT_MSG_NE(msg.find(expect),
                                  std::string::npos,
                                  "expected '" << expect << "' in '" << msg << "'");
        }

        Ptr<MsfcQueueDisc> q =
            NewDisc({{"Prios", "4"}, {"Quantum", "1514"}, {"Quanta", "95,1514,757,378"}});
        std::string error;
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Prios", "5"}}, error),
                              MsfcQueueDisc::CHANGE_INVALID,
                              "a new Prios without new Quanta is refused");
        NS_TEST_EXPECT_MSG_NE(error.find(TC_MSFC_QUANTA_COUNT_MSG),
                              std::string::npos,
                              "the count message: " << error);
        NS_TEST_EXPECT_MSG_EQ(q->GetNClasses(), 4, "the refused change changed nothing");
        NS_TEST_EXPECT_MSG_EQ(
            q->Change({{"Prios", "5"}, {"Quanta", "95,1514,757,378,3000"}}, error),
            MsfcQueueDisc::CHANGE_OK,
            "Prios with as many Quanta: " << error);
        NS_TEST_EXPECT_MSG_EQ(q->GetClassQuantum(4), 3000, "class 4's quantum as given");
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Quanta", "ratio"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "back to Quantum * Ratio^p: " << error);
        NS_TEST_EXPECT_MSG_EQ(q->GetClassQuantum(1), 3028, "class 1: 1514 * 2");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassQuantum(4), 1514 * 16, "class 4: 1514 * 2^4");
        q->Dispose();
    }
};

/**
 * CeThreshold (L4S marking, docs/algorithm.md): an ECT packet whose TOS byte matches the
 * selector is CE-marked when its sojourn, in CoDel's 1024 ns units, is above the threshold
 * (1 ms = 976 units: 976 is not above, 977 is); Not-ECT and CE packets are left alone, the
 * marks counted per class apart from CoDel's; selector 0/0, per-class lists, refusals in the
 * kernel's words, and a new Prios without a new list refused.
 */
class MsfcCeThresholdTestCase : public TestCase
{
  public:
    MsfcCeThresholdTestCase()
        : TestCase("CeThreshold: ECT(1) CE-marked above the threshold, in CoDel units")
    {
    }

  private:
    /// A UDP packet of source port `sport` (its own flow) with TOS byte `tos`.
    static Ptr<Ipv4QueueDiscItem> Udp(uint16_t sport, uint8_t tos)
    {
        Ptr<Packet> p = Create<Packet>(100);
        UdpHeader udp;
        udp.SetSourcePort(sport);
        udp.SetDestinationPort(5001);
        p->AddHeader(udp);
        Ipv4Header h;
        h.SetSource(Ipv4Address("10.0.0.1"));
        h.SetDestination(Ipv4Address("10.0.0.2"));
        h.SetProtocol(UdpL4Protocol::PROT_NUMBER);
        h.SetPayloadSize(p->GetSize());
        h.SetTos(tos);
        return Create<Ipv4QueueDiscItem>(p, Address(), 0x0800, h);
    }

    /**
     * One packet of each TOS byte, enqueued now and dequeued `ns` later.
     * @return the TOS bytes they leave with, in the order given
     */
    static std::vector<uint8_t> Round(Ptr<MsfcQueueDisc> q,
                                      const std::vector<uint8_t>& tos,
                                      int64_t ns)
    {
        for (size_t i = 0; i < tos.size(); ++i)
        {
            q->Enqueue(Udp(static_cast<uint16_t>(1000 + i), tos[i]));
        }
        Simulator::Stop(NanoSeconds(ns));
        Simulator::Run();
        std::vector<uint8_t> out(tos.size());
        for (size_t i = 0; i < tos.size(); ++i)
        {
            auto item = DynamicCast<Ipv4QueueDiscItem>(q->Dequeue());
            if (!item)
            {
                return {};
            }
            UdpHeader udp;
            item->GetPacket()->PeekHeader(udp);
            out[udp.GetSourcePort() - 1000] = item->GetHeader().GetTos();
        }
        return out;
    }

    void DoRun() override
    {
        // ECT(1), ECT(0), Not-ECT, CE, EF + ECT(1): all in class 1 of 2
        const std::vector<uint8_t> tos = {0x01, 0x02, 0x00, 0x03, 0xb9};
        Ptr<MsfcQueueDisc> q = NewDisc({{"Prios", "2"}, {"CeThreshold", "1ms"}});
        NS_TEST_EXPECT_MSG_EQ((Round(q, tos, 976 * 1024) == tos),
                              true,
                              "a sojourn of 976 units is not above 1 ms (976 units)");
        std::vector<uint8_t> got = Round(q, tos, 977 * 1024);
        NS_TEST_EXPECT_MSG_EQ(
            (got == std::vector<uint8_t>{0x03, 0x02, 0x00, 0x03, 0xbb}),
            true,
            "977 units: ECT(1) (any DSCP, mask 0x03) leaves CE, the others as they came");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).ceThresholdMarks, 2, "two marks counted");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).ecnMarks, 0, "none of CoDel's");

        std::string error;
        NS_TEST_EXPECT_MSG_EQ(
            q->Change({{"CeThresholdSelector", "0"}, {"CeThresholdMask", "0"}}, error),
            MsfcQueueDisc::CHANGE_OK,
            "selector 0/0: " << error);
        got = Round(q, tos, MilliSeconds(2).GetNanoSeconds());
        NS_TEST_EXPECT_MSG_EQ((got == std::vector<uint8_t>{0x03, 0x03, 0x00, 0x03, 0xbb}),
                              true,
                              "selector 0/0: every ECT packet, Classic ECT(0) too");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).ceThresholdMarks, 5, "three more");

        NS_TEST_EXPECT_MSG_EQ(q->Change({{"CeThreshold", "1ms,off"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "one per class: " << error);
        NS_TEST_EXPECT_MSG_EQ((Round(q, tos, MilliSeconds(2).GetNanoSeconds()) == tos),
                              true,
                              "no threshold in class 1");
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Prios", "3"}}, error),
                              MsfcQueueDisc::CHANGE_INVALID,
                              "a new Prios without a new list is refused");
        NS_TEST_EXPECT_MSG_NE(error.find(TC_MSFC_CE_THRESHOLD_COUNT_MSG),
                              std::string::npos,
                              "the count message: " << error);
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Prios", "3"}, {"CeThreshold", "500us"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "Prios with one threshold: " << error);
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"CeThreshold", "off"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "off: " << error);
        NS_TEST_EXPECT_MSG_EQ((Round(q, tos, MilliSeconds(2).GetNanoSeconds()) == tos),
                              true,
                              "no marks once off");
        q->Dispose();
        Simulator::Destroy();

        const std::vector<std::pair<Attrs, std::string>> bad = {
            {{{"CeThreshold", "1ms,2ms"}}, TC_MSFC_CE_THRESHOLD_COUNT_MSG},
            {{{"CeThreshold", "2001s"}}, TC_MSFC_CE_THRESHOLD_RANGE_MSG},
            {{{"CeThreshold", "5"}}, "ce_threshold must be a time"},
            {{{"CeThreshold", "1.5us"}}, "ce_threshold must be a time"},
            {{{"CeThreshold", "1ms,,off"}}, "ce_threshold must be a time"},
            {{{"CeThresholdSelector", "2"}, {"CeThresholdMask", "1"}}, TC_MSFC_CE_SELECTOR_MSG},
            {{{"CeThresholdMask", "0"}}, TC_MSFC_CE_SELECTOR_MSG},
        };
        for (const auto& [attrs, expect] : bad)
        {
            std::string msg = NewDisc(attrs, false)->ValidateConfiguration();
            NS_TEST_EXPECT_MSG_NE(msg.find(expect),
                                  std::string::npos,
                                  "expected '" << expect << "' in '" << msg << "'");
        }
    }
};

/**
 * The share of a class does not depend on how many flows it has.
 */
class MsfcFlowCountIndependenceTestCase : public TestCase
{
  public:
    MsfcFlowCountIndependenceTestCase()
        : TestCase("One flow in class 1 gets Ratio over 1+Ratio against 100 flows in class 0")
    {
    }

  private:
    void DoRun() override
    {
        for (double ratio : {2.0, 3.0})
        {
            Ptr<MsfcQueueDisc> q =
                NewDisc({{"Ratio", std::to_string(ratio)}, {"Prios", "2"}, {"MaxSize", "100000p"}});
            for (uint32_t h = 0; h < 100; ++h)
            {
                q->Enqueue(Item(1200, h, 0, 0));
                q->Enqueue(Item(1200, h, 0, 0));
            }
            for (int i = 0; i < 4; ++i)
            {
                q->Enqueue(Item(1200, 7, 1, 1));
            }
            double bytes[2] = {0, 0};
            std::set<uint32_t> class0Flows;
            for (int i = 0; i < 30000; ++i)
            {
                auto item = DynamicCast<MsfcTestItem>(q->Dequeue());
                NS_TEST_ASSERT_MSG_NE(item, nullptr, "a saturated queue disc returned nothing");
                if (!item)
                {
                    return; // the assertion above reported the failure
                }
                bytes[item->GetTag()] += item->GetSize();
                q->Enqueue(Item(1200, item->Hash(0), item->GetTag(), item->GetTag()));
            }
            double share = bytes[1] / (bytes[0] + bytes[1]);
            NS_TEST_EXPECT_MSG_LT(RelErr(share, ratio / (1 + ratio)),
                                  0.02,
                                  "the single class-1 flow should get Ratio/(1+Ratio)");
            q->Dispose();
        }
    }
};

/**
 * Inversion: the thesis's example both ways, every flow backlogged, Ratio 2.  One flow in
 * class 1 against 100 in class 0: class 1 is not crowded and keeps 2/3 in both modes.
 * 100 flows in class 1 against one in class 0: Inversion=allow gives the class-0 flow 1/3 of
 * the link, 50 times a class-1 flow; Inversion=prevent refills class 0 with 3000 / 100 / 2 =
 * 15 bytes, so the class-0 flow gets 1/201 and each class-1 flow twice that.
 */
class MsfcInversionTestCase : public TestCase
{
  public:
    MsfcInversionTestCase()
        : TestCase("Inversion=prevent: no class gives its flows less each than a lower class")
    {
    }

  private:
    /// Share of class `high` with `many` flows in class `crowded` and one in the other.
    double Share(const std::string& mode, uint32_t crowded, uint32_t high)
    {
        Ptr<MsfcQueueDisc> q = NewDisc(
            {{"Prios", "2"}, {"Quantum", "1500"}, {"MaxSize", "100000p"}, {"Inversion", mode}});
        for (uint32_t h = 0; h < 100; ++h)
        {
            q->Enqueue(Item(1500, h, crowded, crowded));
            q->Enqueue(Item(1500, h, crowded, crowded));
        }
        for (int i = 0; i < 4; ++i)
        {
            q->Enqueue(Item(1500, 700, 1 - crowded, 1 - crowded));
        }
        double bytes[2] = {0, 0};
        for (int i = 0; i < 30300; ++i)
        {
            auto item = DynamicCast<MsfcTestItem>(q->Dequeue());
            if (!item)
            {
                NS_TEST_EXPECT_MSG_NE(item, nullptr, "a saturated queue disc returned nothing");
                return -1;
            }
            bytes[item->GetTag()] += item->GetSize();
            q->Enqueue(Item(1500, item->Hash(0), item->GetTag(), item->GetTag()));
        }
        q->Dispose();
        return bytes[high] / (bytes[0] + bytes[1]);
    }

    void DoRun() override
    {
        for (const char* mode : {"allow", "prevent"})
        {
            NS_TEST_EXPECT_MSG_LT(RelErr(Share(mode, 0, 1), 2.0 / 3),
                                  0.02,
                                  mode << ": one class-1 flow against 100 in class 0");
        }
        NS_TEST_EXPECT_MSG_LT(RelErr(Share("allow", 1, 0), 1.0 / 3),
                              0.02,
                              "allow: the one class-0 flow takes 1/3");
        NS_TEST_EXPECT_MSG_LT(RelErr(Share("prevent", 1, 0), 1.0 / 201),
                              0.02,
                              "prevent: the one class-0 flow gets half what a class-1 flow gets");
        NS_TEST_EXPECT_MSG_EQ(NewDisc({})->GetAttributeRange("Inversion"),
                              "allow|prevent",
                              "range shown to users");
    }
};

/**
 * Flows of one class get equal bytes whatever their packet sizes.
 */
class MsfcInnerFairnessTestCase : public TestCase
{
  public:
    MsfcInnerFairnessTestCase()
        : TestCase("64 B and 1500 B flows of one class get equal bytes")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<MsfcQueueDisc> q = NewDisc({{"Quantum", "1514"}, {"MaxSize", "100000p"}});
        const uint32_t sizes[2] = {64, 1500};
        for (uint32_t f = 0; f < 2; ++f)
        {
            for (int i = 0; i < 40; ++i)
            {
                q->Enqueue(Item(sizes[f], 100 + f, 1, f));
            }
        }
        double bytes[2] = {0, 0};
        for (int i = 0; i < 50000; ++i)
        {
            auto item = DynamicCast<MsfcTestItem>(q->Dequeue());
            NS_TEST_ASSERT_MSG_NE(item, nullptr, "a saturated queue disc returned nothing");
            if (!item)
            {
                return; // the assertion above reported the failure
            }
            uint32_t f = item->GetTag();
            bytes[f] += item->GetSize();
            q->Enqueue(Item(sizes[f], 100 + f, 1, f));
        }
        NS_TEST_EXPECT_MSG_LT(RelErr(bytes[0], bytes[1]), 0.02, "flows should get equal bytes");
        q->Dispose();
    }
};

/**
 * Isolate=src|dst|both: a host with 8 saturated flows and a host with 1 get equal bytes
 * (Isolate=flow: 8 to 1); hosts hashed from the IPv4 addresses.
 */
class MsfcIsolateHostsTestCase : public TestCase
{
  public:
    MsfcIsolateHostsTestCase()
        : TestCase("Isolate: a host of 8 flows and a host of 1 get equal bytes")
    {
    }

  private:
    /// UDP packet of flow f (0-7: host A, 8: host B); `byDst`: the hosts are destinations
    static Ptr<QueueDiscItem> Packet1500(uint32_t f, bool byDst)
    {
        Ptr<Packet> p = Create<Packet>(1472);
        UdpHeader udp;
        udp.SetSourcePort(static_cast<uint16_t>(1000 + f));
        udp.SetDestinationPort(5001);
        p->AddHeader(udp);
        Ipv4Header h;
        Ipv4Address host(f < 8 ? "10.0.0.1" : "10.0.0.2");
        Ipv4Address other(Ipv4Address("10.0.1.1").Get() + f); // one per flow
        h.SetSource(byDst ? other : host);
        h.SetDestination(byDst ? host : other);
        h.SetProtocol(UdpL4Protocol::PROT_NUMBER);
        h.SetPayloadSize(p->GetSize());
        return Create<Ipv4QueueDiscItem>(p, Address(), 0x0800, h);
    }

    void DoRun() override
    {
        for (const char* mode : {"flow", "src", "dst", "both"})
        {
            for (bool byDst : {false, true})
            {
                Ptr<MsfcQueueDisc> q =
                    NewDisc({{"Prios", "1"}, {"Isolate", mode}, {"MaxSize", "100000p"}});
                for (uint32_t f = 0; f < 9; ++f)
                {
                    for (int i = 0; i < 4; ++i)
                    {
                        q->Enqueue(Packet1500(f, byDst));
                    }
                }
                NS_TEST_ASSERT_MSG_EQ(q->GetClassStats(0).activeFlows, 9u, "9 distinct flows");
                double bytes[2] = {0, 0};
                for (int i = 0; i < 20000; ++i)
                {
                    auto item = DynamicCast<Ipv4QueueDiscItem>(q->Dequeue());
                    NS_TEST_ASSERT_MSG_NE(item, nullptr, "a saturated queue disc returned nothing");
                    const Ipv4Header& h = item->GetHeader();
                    Ipv4Address host = byDst ? h.GetDestination() : h.GetSource();
                    bool b = host == Ipv4Address("10.0.0.2");
                    bytes[b] += item->GetSize();
                    uint16_t sport = 0;
                    UdpHeader udp;
                    item->GetPacket()->PeekHeader(udp);
                    sport = udp.GetSourcePort();
                    q->Enqueue(Packet1500(sport - 1000, byDst));
                }
                std::string m = mode;
                bool isolated = m == "both" || (m == "src" && !byDst) || (m == "dst" && byDst);
                double want = isolated ? bytes[1] : 8 * bytes[1];
                NS_TEST_EXPECT_MSG_LT(RelErr(bytes[0], want),
                                      0.01,
                                      "Isolate=" << m << (byDst ? ", hosts as destinations" : "")
                                                 << ": " << bytes[0] << " vs " << bytes[1]);
                q->Dispose();
            }
        }
    }
};

/**
 * An idle class's share goes to the others; a lone class gets everything.
 */
class MsfcWorkConservationTestCase : public TestCase
{
  public:
    MsfcWorkConservationTestCase()
        : TestCase("Idle classes leave their share to the busy ones")
    {
    }

  private:
    void DoRun() override
    {
        // Class 2 idle: classes 0 and 1 share 1 : Ratio.
        Ptr<MsfcQueueDisc> q = NewDisc({{"MaxSize", "100000p"}});
        for (uint32_t p = 0; p < 2; ++p)
        {
            for (int i = 0; i < 5; ++i)
            {
                q->Enqueue(Item(800, 3, p, p));
            }
        }
        double bytes[2] = {0, 0};
        for (int i = 0; i < 30000; ++i)
        {
            auto item = DynamicCast<MsfcTestItem>(q->Dequeue());
            NS_TEST_ASSERT_MSG_NE(item, nullptr, "work-conserving queue disc returned nothing");
            if (!item)
            {
                return; // the assertion above reported the failure
            }
            bytes[item->GetTag()] += item->GetSize();
            q->Enqueue(Item(800, 3, item->GetTag(), item->GetTag()));
        }
        NS_TEST_EXPECT_MSG_LT(RelErr(bytes[1] / bytes[0], 2.0), 0.02, "1 : Ratio without class 2");
        q->Dispose();

        // A lone class (the lowest) is served until the queue disc is empty.
        q = NewDisc({{"MaxSize", "100000p"}});
        const int n = 5000;
        for (int i = 0; i < n; ++i)
        {
            q->Enqueue(Item(100 + (i % 1400), i % 17, 0, 0));
        }
        int got = 0;
        while (auto item = q->Dequeue())
        {
            NS_TEST_ASSERT_MSG_EQ(DynamicCast<MsfcTestItem>(item)->GetTag(), 0u, "wrong class");
            ++got;
        }
        NS_TEST_EXPECT_MSG_EQ(got, n, "every packet of the lone class is delivered");
        NS_TEST_EXPECT_MSG_EQ(q->GetNPackets(), 0u, "queue disc is empty");
        MsfcClassStats s = q->GetClassStats(0);
        NS_TEST_EXPECT_MSG_EQ(s.dequeuedPackets, static_cast<uint64_t>(n), "class counters");
        NS_TEST_EXPECT_MSG_EQ(s.backlogPackets, 0u, "no backlog left");
        NS_TEST_EXPECT_MSG_EQ(s.activeFlows, 0u, "no flow left in the round");
        q->Dispose();
    }
};

/**
 * CoDel acts per flow: a standing queue above target for more than an
 * interval is dropped (or marked); a thin flow in the same class is not.
 */
class MsfcCoDelPerFlowTestCase : public TestCase
{
  public:
    MsfcCoDelPerFlowTestCase(bool ecn)
        : TestCase(ecn ? "CoDel marks a standing queue, spares the thin flow (ECN)"
                       : "CoDel drops a standing queue, spares the thin flow"),
          m_ecn(ecn)
    {
    }

  private:
    void DoRun() override
    {
        m_q = NewDisc({{"Prios", "1"},
                       {"Quantum", "1500"},
                       {"MaxSize", "100000p"},
                       {"UseEcn", m_ecn ? "true" : "false"}});
        m_q->TraceConnectWithoutContext("DropAfterDequeue",
                                        MakeCallback(&MsfcCoDelPerFlowTestCase::Dropped, this));
        // Fat flow: 1000 B every 1 ms into a 4 Mbps service (one packet per 2 ms).
        for (int i = 0; i < 3000; ++i)
        {
            Simulator::Schedule(MilliSeconds(i), [this]() {
                m_q->Enqueue(Create<MsfcTestItem>(1000, 1, 0, m_ecn, 1));
            });
        }
        // Thin flow: 100 B every 100 ms.
        for (int i = 0; i < 30; ++i)
        {
            Simulator::Schedule(MilliSeconds(100 * i + 3), [this]() {
                m_q->Enqueue(Create<MsfcTestItem>(100, 2, 0, m_ecn, 2));
                m_thinSent++;
            });
        }
        for (int i = 1; i <= 1500; ++i)
        {
            Simulator::Schedule(MilliSeconds(2 * i), &MsfcCoDelPerFlowTestCase::Serve, this);
        }
        Simulator::Run();
        Simulator::Destroy();
        while (Ptr<QueueDiscItem> item = m_q->Dequeue())
        {
            if (DynamicCast<MsfcTestItem>(item)->GetTag() == 2)
            {
                m_thinReceived++;
            }
        }
        MsfcClassStats s = m_q->GetClassStats(0);
        if (m_ecn)
        {
            NS_TEST_EXPECT_MSG_EQ(s.codelDrops, 0u, "with ECN CoDel marks instead of dropping");
            NS_TEST_EXPECT_MSG_GT(s.ecnMarks, 0u, "CoDel should mark the standing queue");
            NS_TEST_EXPECT_MSG_GT(m_fatMarked, 0u, "marked packets reach the device");
            NS_TEST_EXPECT_MSG_GT(m_firstAction.GetMilliSeconds(), 100, "not before an interval");
        }
        else
        {
            NS_TEST_EXPECT_MSG_GT(s.codelDrops, 10u, "CoDel should drop from the standing queue");
            NS_TEST_EXPECT_MSG_EQ(m_thinDropped, 0u, "the thin flow must not be dropped");
            NS_TEST_EXPECT_MSG_GT(
                m_firstAction.GetMilliSeconds(),
                100,
                "the first drop comes only after sojourn > target for an interval");
        }
        NS_TEST_EXPECT_MSG_EQ(m_thinReceived, m_thinSent, "all thin packets are delivered");
        NS_TEST_EXPECT_MSG_LT(m_thinMaxDelay.GetMilliSeconds(), 5, "thin flow stays below target");
        m_q->Dispose();
    }

    void Serve()
    {
        Ptr<QueueDiscItem> item = m_q->Dequeue();
        if (!item)
        {
            return;
        }
        auto t = DynamicCast<MsfcTestItem>(item);
        if (t->GetTag() == 2)
        {
            m_thinReceived++;
            m_thinMaxDelay = std::max(m_thinMaxDelay, Simulator::Now() - item->GetTimeStamp());
        }
        else if (t->IsMarked())
        {
            if (m_fatMarked++ == 0)
            {
                m_firstAction = Simulator::Now();
            }
        }
    }

    void Dropped(Ptr<const QueueDiscItem> item, const char* reason)
    {
        auto t = DynamicCast<const MsfcTestItem>(item);
        if (t->GetTag() == 2)
        {
            m_thinDropped++;
        }
        else if (m_firstAction.IsZero())
        {
            m_firstAction = Simulator::Now();
        }
    }

    bool m_ecn;
    Ptr<MsfcQueueDisc> m_q;
    uint32_t m_thinSent{0};
    uint32_t m_thinReceived{0};
    uint32_t m_thinDropped{0};
    uint32_t m_fatMarked{0};
    Time m_thinMaxDelay{0};
    Time m_firstAction{0};
};

/**
 * Above MaxSize the fattest flow loses packets, in batches; the thin flow keeps its packets.
 */
class MsfcOverloadTestCase : public TestCase
{
  public:
    MsfcOverloadTestCase()
        : TestCase("MaxSize is never exceeded and overload drops hit the fattest flow")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<MsfcQueueDisc> q = NewDisc({{"MaxSize", "100p"}, {"DropBatchSize", "16"}});
        uint32_t dropped = 0;
        uint32_t thinDropped = 0;
        q->TraceConnectWithoutContext("DropAfterDequeue",
                                      Callback<void, Ptr<const QueueDiscItem>, const char*>(
                                          [&](Ptr<const QueueDiscItem> item, const char*) {
                                              dropped++;
                                              if (DynamicCast<const MsfcTestItem>(item)->GetTag() ==
                                                  2)
                                              {
                                                  thinDropped++;
                                              }
                                          }));
        // Thin flow in the top class, 5 packets; fat flow in class 0; medium flow in class 1.
        for (int i = 0; i < 5; ++i)
        {
            q->Enqueue(Item(200, 9, 2, 2));
        }
        uint32_t maxSeen = 0;
        for (int i = 0; i < 1000; ++i)
        {
            uint32_t before = dropped;
            q->Enqueue(Item(1500, 1, 0, 0));
            NS_TEST_ASSERT_MSG_LT_OR_EQ(dropped - before, 16u, "a batch drops at most 16");
            if (i < 50 && i % 10 == 0)
            {
                q->Enqueue(Item(1500, 2, 1, 1));
            }
            maxSeen = std::max(maxSeen, q->GetNPackets());
        }
        NS_TEST_EXPECT_MSG_LT_OR_EQ(maxSeen, 100u, "never more than MaxSize packets");
        NS_TEST_EXPECT_MSG_EQ(thinDropped, 0u, "the thin flow loses nothing");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(2).overloadDrops, 0u, "thin class untouched");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).overloadDrops, 0u, "medium flow untouched");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(0).overloadDrops,
                              static_cast<uint64_t>(dropped),
                              "all overload drops hit the fat flow");
        uint32_t thin = 0;
        while (auto item = q->Dequeue())
        {
            thin += DynamicCast<MsfcTestItem>(item)->GetTag() == 2;
        }
        NS_TEST_EXPECT_MSG_EQ(thin, 5u, "all thin packets are delivered");
        q->Dispose();

        // Byte limit: MaxSize in bytes.
        q = NewDisc({{"MaxSize", "30000B"}});
        for (int i = 0; i < 200; ++i)
        {
            q->Enqueue(Item(1500, 1, 1, 1));
            NS_TEST_ASSERT_MSG_LT_OR_EQ(q->GetNBytes(), 30000u, "byte limit respected");
        }
        q->Dispose();
    }
};

/**
 * Overload=class: a flood of small packets in many flows of class 0 is dropped from class 0,
 * not from the fatter flow of class 1 that holds less than its share (Overload=flow drops
 * that one); a class above its share is the victim whatever its flows look like.
 */
class MsfcOverloadClassTestCase : public TestCase
{
  public:
    MsfcOverloadClassTestCase()
        : TestCase("Overload=class drops from the class most above its share of the buffer")
    {
    }

  private:
    /// 3 x 1500 B in one flow of class 1, then `flood` 228-byte packets over 45 flows of class 0.
    static Ptr<MsfcQueueDisc> Fill(const std::string& mode, uint32_t fat, uint32_t flood)
    {
        Ptr<MsfcQueueDisc> q =
            NewDisc({{"MaxSize", "33p"}, {"Quantum", "1500"}, {"Overload", mode}});
        for (uint32_t i = 0; i < fat; ++i)
        {
            q->Enqueue(Item(1500, 1, 1, 1));
        }
        for (uint32_t i = 0; i < flood; ++i)
        {
            q->Enqueue(Item(228, 100 + i % 45, 0, 0));
        }
        return q;
    }

    void DoRun() override
    {
        Ptr<MsfcQueueDisc> thesis = Fill("flow", 3, 100);
        NS_TEST_EXPECT_MSG_GT(thesis->GetClassStats(1).overloadDrops,
                              0u,
                              "Overload=flow drops from the fattest flow, class 1's");
        thesis->Dispose();

        Ptr<MsfcQueueDisc> q = Fill("class", 3, 100);
        NS_TEST_EXPECT_MSG_EQ(q->GetNPackets(), 33u, "MaxSize held");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).overloadDrops,
                              0u,
                              "class 1 (3 packets of Q=3000) is within its share of the buffer");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).backlogBytes, 4500u, "class 1 keeps all");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(0).overloadDrops, 70u, "the flood pays");
        q->Dispose();

        // Class 1 above its share: 28 packets / 3000 > 6 / 1500; its flow loses half.
        q = Fill("class", 28, 6);
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(0).overloadDrops, 0u, "flood within its share");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).overloadDrops, 14u, "class 1 is the victim");
        q->Dispose();

        // MaxSize in bytes: shares in bytes. At the 9th flood packet (6552 B > 6500 B) class 0
        // holds 9 x 228 B / 1500 < 3 x 1500 B / 3000 (in packets it would be the victim).
        q = NewDisc({{"MaxSize", "6500B"}, {"Quantum", "1500"}, {"Overload", "class"}});
        for (uint32_t i = 0; i < 3; ++i)
        {
            q->Enqueue(Item(1500, 1, 1, 1));
        }
        for (uint32_t i = 0; i < 9; ++i)
        {
            q->Enqueue(Item(228, 100 + i, 0, 0));
        }
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).overloadDrops, 2u, "class 1 is above, in bytes");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(0).overloadDrops, 0u, "flood within, in bytes");
        q->Dispose();

        NS_TEST_EXPECT_MSG_EQ(NewDisc({{"Overload", "class"}})->GetAttributeRange("Overload"),
                              "flow|class",
                              "range shown to users");
    }
};

/**
 * Weights=exact: with every class backlogged, measured byte shares follow Ratio^p / sum within
 * 0.5 % for Prios 16 Ratio 0.5 and Prios 8 Ratio 0.5 Quantum 4000; Weights=rounded does not.
 * Class p sends packets of about its quantum (at least 1 byte), so that even the smallest class
 * sends enough packets in the measurement for a 0.1 % resolution.
 */
class MsfcExactWeightsTestCase : public TestCase
{
  public:
    MsfcExactWeightsTestCase()
        : TestCase("Weights=exact: class shares are Ratio^p over their sum within 0.5 %")
    {
    }

  private:
    /// Largest relative error of a class's byte share against Ratio^p / sum.
    static double MaxShareError(const std::string& weights,
                                uint32_t prios,
                                uint32_t quantum,
                                uint32_t rounds)
    {
        // DSCP p -> class p (the class selectors of Item() name only 8 classes)
        std::string map;
        for (uint32_t p = 0; p < prios; ++p)
        {
            map += (p ? ", " : "") + std::to_string(p) + "=" + std::to_string(p);
        }
        Ptr<MsfcQueueDisc> q = NewDisc({{"Prios", std::to_string(prios)},
                                        {"Ratio", "0.5"},
                                        {"Quantum", std::to_string(quantum)},
                                        {"MaxSize", "100000p"},
                                        {"DscpMap", map},
                                        {"Weights", weights}});
        std::vector<uint32_t> size(prios);
        std::vector<uint32_t> queued(prios, 0);
        std::vector<double> bytes(prios, 0);
        for (uint32_t p = 0; p < prios; ++p)
        {
            size[p] = std::max<uint32_t>(1, quantum >> p);
        }
        auto topUp = [&]() {
            for (uint32_t p = 0; p < prios; ++p)
            {
                while (queued[p] < 4)
                {
                    q->Enqueue(Create<MsfcTestItem>(size[p], p, p, false, p));
                    ++queued[p];
                }
            }
        };
        // class 0 sends about one packet a round
        for (uint32_t i = 0; i < rounds * 4; ++i)
        {
            topUp();
            auto item = DynamicCast<MsfcTestItem>(q->Dequeue());
            uint32_t p = item->GetTag();
            --queued[p];
            bytes[p] += item->GetSize();
        }
        q->Dispose();
        double total = 0;
        double ideal = 0;
        for (uint32_t p = 0; p < prios; ++p)
        {
            total += bytes[p];
            ideal += std::pow(0.5, p);
        }
        double worst = 0;
        for (uint32_t p = 0; p < prios; ++p)
        {
            worst = std::max(worst, RelErr(bytes[p] / total, std::pow(0.5, p) / ideal));
        }
        return worst;
    }

    void DoRun() override
    {
        double e16 = MaxShareError("exact", 16, 1514, 20000);
        NS_TEST_EXPECT_MSG_LT(e16, 0.005, "Prios 16 Ratio 0.5: shares within 0.5 %");
        double e8 = MaxShareError("exact", 8, 4000, 20000);
        NS_TEST_EXPECT_MSG_LT(e8, 0.005, "Prios 8 Ratio 0.5 Quantum 4000: within 0.5 %");
        double r16 = MaxShareError("rounded", 16, 1514, 20000);
        NS_TEST_EXPECT_MSG_GT(r16, 1.0, "rounded: classes 11-15 get 1 byte a round each");
        double r8 = MaxShareError("rounded", 8, 4000, 20000);
        NS_TEST_EXPECT_MSG_GT(r8, 0.02, "rounded: class 7 gets 32 bytes for 31.25");
        std::cout << "worst class share error, exact / rounded: " << e16 * 100 << " % / "
                  << r16 * 100 << " % (Prios 16, Ratio 0.5), " << e8 * 100 << " % / " << r8 * 100
                  << " % (Prios 8, Ratio 0.5, Quantum 4000)" << std::endl;

        using V = std::vector<uint64_t>;
        NS_TEST_EXPECT_MSG_EQ(
            (MsfcQueueDisc::ComputeClassQuanta(4000, 1 << 15, 8, true) ==
             V{262144000, 131072000, 65536000, 32768000, 16384000, 8192000, 4096000, 2048000}),
            true,
            "exact quanta in 1/65536 byte: 4000 / 128 = 31.25 bytes for class 7");
        Ptr<MsfcQueueDisc> bad =
            NewDisc({{"Prios", "16"}, {"Ratio", "0.5"}, {"Quantum", "1"}, {"Weights", "exact"}},
                    false);
        bool named =
            bad->ValidateConfiguration().find(TC_MSFC_EXACT_WEIGHTS_MSG) != std::string::npos;
        NS_TEST_EXPECT_MSG_EQ(named, true, "too small exact quanta are rejected naming the fix");
    }
};

/**
 * Classification of IPv4/IPv6 TCP/UDP/other packets and of non-IP packets.
 */
class MsfcClassificationTestCase : public TestCase
{
  public:
    MsfcClassificationTestCase()
        : TestCase("DSCP map, socket priority, IPv4, IPv6, TCP, UDP, ICMP and non-IP packets")
    {
    }

  private:
    /// 200 bytes behind a TCP (6) or UDP (17) header; other protocols get no L4 header.
    static Ptr<Packet> Payload(uint8_t proto, uint16_t sport, uint16_t tcpDport)
    {
        Ptr<Packet> p = Create<Packet>(200);
        if (proto == 6)
        {
            TcpHeader tcp;
            tcp.SetSourcePort(sport);
            tcp.SetDestinationPort(tcpDport);
            p->AddHeader(tcp);
        }
        else if (proto == 17)
        {
            UdpHeader udp;
            udp.SetSourcePort(sport);
            udp.SetDestinationPort(53);
            p->AddHeader(udp);
        }
        return p;
    }

    static Ptr<QueueDiscItem> V4(uint8_t proto, Ipv4Header::DscpType dscp, uint16_t sport)
    {
        Ptr<Packet> p = Payload(proto, sport, 80);
        Ipv4Header h;
        h.SetSource(Ipv4Address("10.0.0.1"));
        h.SetDestination(Ipv4Address("10.0.1.1"));
        h.SetProtocol(proto);
        h.SetDscp(dscp);
        h.SetPayloadSize(p->GetSize());
        return Create<Ipv4QueueDiscItem>(p, Address(), 0x0800, h);
    }

    static Ptr<QueueDiscItem> V6(uint8_t proto, Ipv6Header::DscpType dscp, uint16_t sport)
    {
        Ptr<Packet> p = Payload(proto, sport, 443);
        Ipv6Header h;
        h.SetSource(Ipv6Address("2001:db8::1"));
        h.SetDestination(Ipv6Address("2001:db8:1::1"));
        h.SetNextHeader(proto);
        h.SetDscp(dscp);
        h.SetPayloadLength(p->GetSize());
        return Create<Ipv6QueueDiscItem>(p, Address(), 0x86DD, h);
    }

    void DoRun() override
    {
        Ptr<MsfcQueueDisc> q = NewDisc({});
        // Default map with 3 classes.
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(0), 1u, "BE -> 1");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(1), 3u, "LE -> the least-effort lane (Prios)");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(45), 1u, "NQB -> 1 (as an NQB flow)");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(8), 0u, "CS1 -> 0");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(10), 1u, "AF11 -> 1");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(18), 2u, "AF21 -> 2");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(46), 2u, "EF -> 2");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(56), 2u, "CS7 -> 2");

        std::vector<std::pair<Ptr<QueueDiscItem>, uint32_t>> items = {
            {V4(6, Ipv4Header::DSCP_EF, 1000), 2},
            {V4(6, Ipv4Header::DSCP_EF, 1001), 2},
            {V4(17, Ipv4Header::DscpDefault, 2000), 1},
            {V4(1, Ipv4Header::DSCP_CS1, 0), 0},
            {V6(6, Ipv6Header::DSCP_AF41, 3000), 2},
            {V6(17, Ipv6Header::DSCP_CS1, 3001), 0},
            {V6(58, Ipv6Header::DscpDefault, 0), 1},
            {Create<MsfcTestItem>(60, 0, -1), 1}, // non-IP: class of DSCP 0
        };
        for (auto& [item, cls] : items)
        {
            NS_TEST_EXPECT_MSG_EQ(q->Classify(item), cls, "class of " << *item);
            q->Enqueue(item);
        }
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(2).activeFlows, 3u, "3 distinct flows in class 2");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).enqueuedPackets, 3u, "3 packets in class 1");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(0).enqueuedPackets, 2u, "2 packets in class 0");
        uint32_t n = 0;
        while (q->Dequeue())
        {
            ++n;
        }
        NS_TEST_EXPECT_MSG_EQ(n, items.size(), "every packet comes out");
        q->Dispose();

        // Overrides, more classes, clamping.
        q = NewDisc({{"Prios", "5"}, {"DscpMap", "EF=4, cs1=1, 10=0, 0:2, AF41=9"}});
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(46), 4u, "EF=4");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(8), 1u, "cs1=1 (case-insensitive)");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(10), 0u, "10=0");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(0), 2u, "0:2");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(34), 4u, "AF41=9 is clamped to Prios-1");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(24), 3u, "CS3 -> precedence 3");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(48), 4u, "CS6 -> min(6, 4)");
        q->Dispose();

        // A named map as the base, overrides on top.
        q = NewDisc({{"Prios", "4"}, {"DscpMap", "diffserv4, AF41=3"}});
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(1), 0u, "diffserv4: LE -> bulk");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(0), 1u, "diffserv4: best effort");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(24), 2u, "diffserv4: CS3 -> video");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(46), 3u, "diffserv4: EF -> voice");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(34), 3u, "AF41=3 on top of diffserv4");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(41), 1u, "diffserv4: unnamed 41 -> best effort");
        q->Dispose();

        // Socket priority when enabled, DSCP otherwise.
        q = NewDisc({{"UseSocketPriority", "true"}});
        Ptr<QueueDiscItem> tagged = V4(17, Ipv4Header::DSCP_CS1, 5000);
        SocketPriorityTag tag;
        tag.SetPriority(1);
        tagged->GetPacket()->AddPacketTag(tag);
        NS_TEST_EXPECT_MSG_EQ(q->Classify(tagged), 1u, "priority tag wins over DSCP");
        Ptr<QueueDiscItem> high = V4(17, Ipv4Header::DscpDefault, 5001);
        tag.SetPriority(7);
        high->GetPacket()->AddPacketTag(tag);
        NS_TEST_EXPECT_MSG_EQ(q->Classify(high), 2u, "priority >= Prios is clamped to Prios-1");
        NS_TEST_EXPECT_MSG_EQ(q->Classify(V4(17, Ipv4Header::DSCP_CS1, 5002)),
                              0u,
                              "untagged packets use DSCP");
        q->Dispose();
        q = NewDisc({});
        NS_TEST_EXPECT_MSG_EQ(q->Classify(tagged), 0u, "tags are ignored unless enabled");
        q->Dispose();
    }
};

/**
 * Class quanta are exact and bounded.
 */
class MsfcQuantaTestCase : public TestCase
{
  public:
    MsfcQuantaTestCase()
        : TestCase("Class quanta Quantum * Ratio^p in fixed point")
    {
    }

  private:
    void DoRun() override
    {
        using V = std::vector<uint64_t>;
        NS_TEST_EXPECT_MSG_EQ(
            (MsfcQueueDisc::ComputeClassQuanta(1500, 2 << 16, 3) == V{1500, 3000, 6000}),
            true,
            "ratio 2");
        NS_TEST_EXPECT_MSG_EQ(
            (MsfcQueueDisc::ComputeClassQuanta(1500, 98304, 4) == V{1500, 2250, 3375, 5063}),
            true,
            "ratio 1.5 (5062.5 rounds half up)");
        NS_TEST_EXPECT_MSG_EQ(
            (MsfcQueueDisc::ComputeClassQuanta(1500, 3 << 16, 3) == V{1500, 4500, 13500}),
            true,
            "ratio 3");
        NS_TEST_EXPECT_MSG_EQ(
            (MsfcQueueDisc::ComputeClassQuanta(1500, 1 << 15, 3) == V{1500, 750, 375}),
            true,
            "ratio 0.5");
        NS_TEST_EXPECT_MSG_EQ((MsfcQueueDisc::ComputeClassQuanta(10, 1, 3) == V{10, 1, 1}),
                              true,
                              "at least one byte");
        // Largest allowed: 1048576 * 16^7 = 2^48 is too big, 1500 * 16^7 fits.
        NS_TEST_EXPECT_MSG_EQ(MsfcQueueDisc::ComputeClassQuanta(1048576, 16 << 16, 8).empty(),
                              true,
                              "overflow is reported");
        auto q = MsfcQueueDisc::ComputeClassQuanta(1500, 16 << 16, 8);
        NS_TEST_EXPECT_MSG_EQ(q.size(), 8u, "fits");
        NS_TEST_EXPECT_MSG_EQ(q.back(), 1500ull << 28, "1500 * 16^7 exactly");

        Ptr<MsfcQueueDisc> d = NewDisc({{"Ratio", "1.5"}});
        NS_TEST_EXPECT_MSG_EQ(d->GetFlowQuantum(), 1500u, "no device: 1500 bytes");
        NS_TEST_EXPECT_MSG_EQ(d->GetClassQuantum(2), 3375u, "Q_2 for ratio 1.5");
        d->Dispose();
    }
};

/**
 * The attribute checkers hold the ranges of pkt_sched_msfc.h (those of the kernel qdisc and
 * tc): every boundary is accepted, the value beyond it refused.
 */
class MsfcCheckerRangesTestCase : public TestCase
{
  public:
    MsfcCheckerRangesTestCase()
        : TestCase("Attribute checkers accept the boundaries of the kernel's ranges only")
    {
    }

  private:
    void DoRun() override
    {
        TypeId tid = MsfcQueueDisc::GetTypeId();
        auto checker = [&tid](const std::string& name) {
            TypeId::AttributeInformation info;
            NS_ABORT_MSG_UNLESS(tid.LookupAttributeByName(name, &info), name);
            return info.checker;
        };

        struct UintCase
        {
            std::string name;
            uint64_t lo;
            uint64_t hi;
        };

        for (const auto& c : std::vector<UintCase>{
                 {"Prios", TC_MSFC_PRIOS_MIN, TC_MSFC_PRIOS_MAX},
                 {"Flows", TC_MSFC_FLOWS_MIN, TC_MSFC_FLOWS_MAX},
                 {"Quantum", 0, TC_MSFC_QUANTUM_MAX}, // 0: the device MTU
                 {"DropBatchSize", TC_MSFC_DROP_BATCH_MIN, TC_MSFC_DROP_BATCH_MAX},
             })
        {
            auto ck = checker(c.name);
            NS_TEST_EXPECT_MSG_EQ(ck->Check(UintegerValue(c.lo)), true, c.name << " lo");
            NS_TEST_EXPECT_MSG_EQ(ck->Check(UintegerValue(c.hi)), true, c.name << " hi");
            NS_TEST_EXPECT_MSG_EQ(ck->Check(UintegerValue(c.hi + 1)), false, c.name << " hi+1");
            if (c.lo > 0)
            {
                NS_TEST_EXPECT_MSG_EQ(ck->Check(UintegerValue(c.lo - 1)), false, c.name << " lo-1");
            }
        }
        auto ratio = checker("Ratio");
        NS_TEST_EXPECT_MSG_EQ(ratio->Check(DoubleValue(TC_MSFC_RATIO_MIN / 65536.0)), true, "");
        NS_TEST_EXPECT_MSG_EQ(ratio->Check(DoubleValue(TC_MSFC_RATIO_MAX / 65536.0)), true, "");
        NS_TEST_EXPECT_MSG_EQ(ratio->Check(DoubleValue(0.5 / 65536)), false, "below 1/65536");
        NS_TEST_EXPECT_MSG_EQ(ratio->Check(DoubleValue(16.0001)), false, "above 16");
        NS_TEST_EXPECT_MSG_EQ(ratio->Check(DoubleValue(0)), false, "zero");
        for (const char* name : {"Target", "Interval"})
        {
            auto ck = checker(name);
            Time lo = MicroSeconds(std::string(name) == "Target" ? TC_MSFC_TARGET_MIN
                                                                 : TC_MSFC_INTERVAL_MIN);
            Time hi = MicroSeconds(std::string(name) == "Target" ? TC_MSFC_TARGET_MAX
                                                                 : TC_MSFC_INTERVAL_MAX);
            NS_TEST_EXPECT_MSG_EQ(ck->Check(TimeValue(lo)), true, name << " lo");
            NS_TEST_EXPECT_MSG_EQ(ck->Check(TimeValue(hi)), true, name << " hi");
            NS_TEST_EXPECT_MSG_EQ(ck->Check(TimeValue(lo - NanoSeconds(1))), false, name);
            NS_TEST_EXPECT_MSG_EQ(ck->Check(TimeValue(hi + NanoSeconds(1))), false, name);
            NS_TEST_EXPECT_MSG_EQ(ck->Check(TimeValue(Seconds(0))), false, name << " 0");
        }
        NS_TEST_EXPECT_MSG_EQ(MsfcQueueDisc::GetAttributeRange("Prios"),
                              TC_MSFC_PRIOS_RANGE,
                              "range text");
        NS_TEST_EXPECT_MSG_EQ(MsfcQueueDisc::GetAttributeRange("Target"),
                              "2 us .. 2000 s, below Interval",
                              "range text in the kernel's words");
    }
};

/**
 * Configurations whose attributes are each in range but not together are rejected with the
 * kernel's message.
 */
class MsfcInvalidConfigTestCase : public TestCase
{
  public:
    MsfcInvalidConfigTestCase()
        : TestCase("Invalid configurations are rejected with their message")
    {
    }

  private:
    void DoRun() override
    {
        struct Case
        {
            Attrs attrs;
            std::string expect;
        };

        std::vector<Case> cases = {
            {{{"Target", "200ms"}},
             "MsfcQueueDisc: Target=+200ms, Interval=+100ms: target must be at least 2 us and "
             "below interval"},
            {{{"Target", "100ms"}}, "Target=+100ms, Interval=+100ms: " TC_MSFC_TARGET_INTERVAL_MSG},
            {{{"DscpMap", "EF"}}, "'EF' is not of the form DSCP=CLASS"},
            {{{"DscpMap", "XY=1"}}, "'XY' is neither a DSCP number 0..63 nor a code point name"},
            {{{"DscpMap", "64=1"}}, "'64' is neither a DSCP number"},
            {{{"DscpMap", "EF=x"}}, "class 'x': dscp map entries must be classes 0 .. 15"},
            {{{"DscpMap", "EF=16"}}, "class '16': " TC_MSFC_DSCP_MAP_MSG},
            {{{"Prios", "16"}, {"Ratio", "16"}, {"Quantum", "1048576"}},
             "Quantum=1048576, Ratio=16, Prios=16: quantum * ratio^(prios-1) exceeds 2^40 bytes: "
             "lower ratio, prios or quantum"},
        };
        for (const auto& c : cases)
        {
            Ptr<MsfcQueueDisc> q = NewDisc(c.attrs, false);
            std::string msg = q->ValidateConfiguration();
            NS_TEST_EXPECT_MSG_NE(msg.find(c.expect),
                                  std::string::npos,
                                  "expected '" << c.expect << "' in '" << msg << "'");
        }
        NS_TEST_EXPECT_MSG_EQ(NewDisc({}, false)->ValidateConfiguration(),
                              "",
                              "defaults are valid");
        NS_TEST_EXPECT_MSG_EQ(NewDisc({{"Prios", "8"}, {"Ratio", "16"}, {"Quantum", "4096"}}, false)
                                  ->ValidateConfiguration(),
                              "",
                              "a large but representable configuration is valid");
        NS_TEST_EXPECT_MSG_EQ(
            NewDisc({{"Target", "2us"}, {"Interval", "3us"}}, false)->ValidateConfiguration(),
            "",
            "the smallest CoDel times are valid");
    }
};

/**
 * Boost=on: a flow that becomes active is served before the backlogged flows of its class
 * (Boost=off: after them); an emptied new flow waits behind the old flows instead of
 * leaving, so its next packet is not boosted again (docs/algorithm.md).
 */
class MsfcBoostTestCase : public TestCase
{
  public:
    MsfcBoostTestCase()
        : TestCase("Boost=on: new flows first, for one quantum; emptied ones wait behind old flows")
    {
    }

  private:
    /// Tag of the next packet dequeued, 0 if none.
    static uint32_t Next(Ptr<MsfcQueueDisc> q)
    {
        auto item = DynamicCast<MsfcTestItem>(q->Dequeue());
        return item ? item->GetTag() : 0;
    }

    /// Dequeues until the thin flow's packet (tag 99) comes out, with four bulk flows queued.
    static uint32_t ThinWait(const std::string& boost)
    {
        Ptr<MsfcQueueDisc> q =
            NewDisc({{"Prios", "1"}, {"Flows", "64"}, {"Quantum", "1500"}, {"Boost", boost}});
        for (uint32_t i = 0; i < 10; ++i)
        {
            for (uint32_t f = 1; f <= 4; ++f)
            {
                q->Enqueue(Item(1500, f, 0, f));
            }
        }
        for (uint32_t i = 0; i < 5; ++i)
        {
            Next(q); // each bulk flow sends its quantum (Boost=on: they become old flows)
        }
        q->Enqueue(Item(100, 40, 0, 99));
        for (uint32_t n = 1; n <= 50; ++n)
        {
            if (Next(q) == 99)
            {
                return n;
            }
        }
        return 0;
    }

    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(ThinWait("on"), 1, "Boost=on serves the new flow first");
        NS_TEST_EXPECT_MSG_EQ(ThinWait("off"), 4, "Boost=off: after the round of bulk flows");

        // an old bulk flow (tag 1); a thin flow (tag 2) sends one packet, is found empty and
        // (Boost=on) moves behind the bulk flow, so its next packet is not boosted
        for (const std::string boost : {"on", "off"})
        {
            Ptr<MsfcQueueDisc> q =
                NewDisc({{"Prios", "1"}, {"Flows", "64"}, {"Quantum", "1500"}, {"Boost", boost}});
            for (uint32_t i = 0; i < 20; ++i)
            {
                q->Enqueue(Item(500, 1, 0, 1));
            }
            for (uint32_t i = 0; i < 4; ++i)
            {
                Next(q);
            }
            q->Enqueue(Item(100, 2, 0, 2));
            std::vector<uint32_t> order;
            order.push_back(Next(q));
            order.push_back(Next(q));
            q->Enqueue(Item(100, 2, 0, 2));
            order.push_back(Next(q));
            order.push_back(Next(q));
            std::vector<uint32_t> want = boost == "on" ? std::vector<uint32_t>{2, 1, 1, 2}
                                                       : std::vector<uint32_t>{1, 1, 2, 2};
            NS_TEST_EXPECT_MSG_EQ((order == want),
                                  true,
                                  "Boost=" << boost << ": order " << order[0] << order[1]
                                           << order[2] << order[3]);
        }
    }
};

/**
 * Boost=across (docs/algorithm.md, "Sparse flows across classes"), three classes at ratio 2
 * (class quanta 1500, 3000, 6000 bytes): a sparse packet of the top class is the next one
 * dequeued even when its class has just spent its credit in its turn (Boost=on: after the turns
 * of classes 0 and 1); sparse flows of the top class go ahead of the round until it has borrowed
 * one class quantum (6000 bytes of credit and 6000 borrowed: 12 packets of 1000 bytes), with
 * either Weights and either Order, then wait; a sender that makes every top-class packet look
 * sparse still gets the shares 1 : 2 : 4, never more than its credit, a class quantum and a
 * packet ahead of its share.  The same decisions as the reference model's
 * test_boost_across_* tests.
 */
class MsfcBoostAcrossTestCase : public TestCase
{
  public:
    MsfcBoostAcrossTestCase()
        : TestCase("Boost=across: new flows ahead of the class round, within one class quantum")
    {
    }

  private:
    /// Class of the next packet dequeued (the tag is class * 100 + flow), UINT32_MAX if none.
    static uint32_t NextClass(Ptr<MsfcQueueDisc> q, uint32_t* flow = nullptr)
    {
        auto item = DynamicCast<MsfcTestItem>(q->Dequeue());
        if (!item)
        {
            return UINT32_MAX;
        }
        if (flow)
        {
            *flow = item->GetTag() % 100;
        }
        return item->GetTag() / 100;
    }

    /// A packet of a class and flow, tagged class * 100 + flow.
    static Ptr<MsfcTestItem> Pkt(uint32_t size, uint32_t cls, uint32_t flow)
    {
        return Item(size, flow, cls, cls * 100 + flow);
    }

    static Ptr<MsfcQueueDisc> Disc(const std::string& boost,
                                   const std::string& order,
                                   const std::string& weights = "rounded")
    {
        return NewDisc({{"Prios", "3"},
                        {"Flows", "64"},
                        {"Quantum", "1500"},
                        {"Ratio", "2"},
                        {"Boost", boost},
                        {"Order", order},
                        {"Weights", weights}});
    }

    /// Classes of the packets dequeued before a 100-byte packet of a new flow of class 2 that
    /// arrives when class 2 has sent its quantum (four 1500-byte packets), all three classes
    /// backlogged.
    static std::vector<uint32_t> SparseWait(const std::string& boost, const std::string& order)
    {
        Ptr<MsfcQueueDisc> q = Disc(boost, order);
        for (uint32_t i = 0; i < 20; ++i)
        {
            for (uint32_t cls = 0; cls < 3; ++cls)
            {
                q->Enqueue(Pkt(1500, cls, 1));
            }
        }
        for (uint32_t top = 0; top < 6000 / 1500;)
        {
            top += NextClass(q) == 2;
        }
        q->Enqueue(Pkt(100, 2, 40));
        std::vector<uint32_t> before;
        uint32_t flow = 0;
        for (uint32_t n = 0; n < 50; ++n)
        {
            uint32_t cls = NextClass(q, &flow);
            if (cls == 2 && flow == 40)
            {
                break;
            }
            before.push_back(cls);
        }
        q->Dispose();
        return before;
    }

    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(MsfcQueueDisc::GetAttributeRange("Boost"),
                              "off|on|across",
                              "Boost's words");
        for (const std::string order : {"round", "priority"})
        {
            NS_TEST_EXPECT_MSG_EQ(SparseWait("across", order).size(),
                                  0u,
                                  "across, order " << order << ": the sparse packet first");
            std::vector<uint32_t> on = SparseWait("on", order);
            std::sort(on.begin(), on.end());
            NS_TEST_EXPECT_MSG_EQ((on == std::vector<uint32_t>{0, 1, 1}),
                                  true,
                                  "on, order " << order << ": after the quanta of classes 0, 1");
        }

        // the borrowing limit: 20 sparse flows of class 2, one 1000-byte packet each
        for (const std::string weights : {"rounded", "exact"})
        {
            for (const std::string order : {"round", "priority"})
            {
                Ptr<MsfcQueueDisc> q = Disc("across", order, weights);
                for (uint32_t i = 0; i < 20; ++i)
                {
                    q->Enqueue(Pkt(1500, 0, 1));
                    q->Enqueue(Pkt(1500, 1, 1));
                }
                for (uint32_t f = 10; f < 30; ++f)
                {
                    q->Enqueue(Pkt(1000, 2, f));
                }
                const uint32_t borrow = (6000 + 6000) / 1000; // credit and one class quantum
                uint32_t top = 0;
                while (top < borrow + 1 && NextClass(q) == 2)
                {
                    ++top;
                }
                NS_TEST_EXPECT_MSG_EQ(top,
                                      borrow,
                                      "weights " << weights << ", order " << order
                                                 << ": class 2's packets ahead of the round");
                q->Dispose();
            }
        }

        // a new sparse flow of class 2 before every dequeue: the shares stay 1 : 2 : 4
        for (const std::string order : {"round", "priority"})
        {
            Ptr<MsfcQueueDisc> q = Disc("across", order);
            for (uint32_t i = 0; i < 400; ++i)
            {
                q->Enqueue(Pkt(1500, 0, 1));
                q->Enqueue(Pkt(1500, 1, 1));
            }
            int64_t sent[3] = {0, 0, 0};
            int64_t ahead = 0; // 7 x class 2's bytes ahead of its 4/7
            for (uint32_t i = 0; i < 700; ++i)
            {
                q->Enqueue(Pkt(1500, 2, 10 + i % 50));
                uint32_t cls = NextClass(q);
                NS_TEST_ASSERT_MSG_LT(cls, 3u, "a backlogged queue disc returned nothing");
                sent[cls] += 1500;
                ahead = std::max(ahead, 7 * sent[2] - 4 * (sent[0] + sent[1] + sent[2]));
            }
            // never further ahead than its credit at activation, one class quantum and a packet
            NS_TEST_EXPECT_MSG_LT_OR_EQ(ahead,
                                        7 * (6000 + 6000 + 1500),
                                        "order " << order << ": class 2 ran ahead of its share");
            const int64_t total = sent[0] + sent[1] + sent[2];
            for (uint32_t cls = 0; cls < 3; ++cls)
            {
                const int64_t want = total * (int64_t{1} << cls) / 7;
                // within one class quantum and one packet (6000 + 1500 bytes)
                NS_TEST_EXPECT_MSG_LT_OR_EQ(std::abs(sent[cls] - want),
                                            7500,
                                            "order " << order << ", class " << cls << ": "
                                                     << sent[cls] << " bytes of " << total);
            }
            q->Dispose();
        }
    }
};

/**
 * Order=priority (docs/algorithm.md, "Priority order inside the round"): a sparse packet of the
 * top class that arrives after its class's turn is the next one dequeued (Order=round: after
 * the other classes' turns); backlogged classes still share 1 : 2 : 4 within a packet per
 * class a round, the round served from the most important class down; a class that drains and
 * returns within a round keeps what it had left.  The same decisions as the reference model's
 * test_priority_order_* tests.
 */
class MsfcPriorityOrderTestCase : public TestCase
{
  public:
    MsfcPriorityOrderTestCase()
        : TestCase("Order=priority: the most important class with credit left in the round first")
    {
    }

  private:
    /// Class (the tag) of the next packet dequeued, UINT32_MAX if none.
    static uint32_t Next(Ptr<MsfcQueueDisc> q)
    {
        auto item = DynamicCast<MsfcTestItem>(q->Dequeue());
        return item ? item->GetTag() : UINT32_MAX;
    }

    /// Packets of classes 0 and 1 dequeued before a class-2 packet that arrives when class 2
    /// has credit left (6000 - 100 bytes) and classes 0 and 1 are backlogged.
    static uint32_t SparseWait(const std::string& order)
    {
        Ptr<MsfcQueueDisc> q = NewDisc({{"Prios", "3"},
                                        {"Flows", "4"},
                                        {"Quantum", "1500"},
                                        {"Ratio", "2"},
                                        {"Order", order}});
        for (int i = 0; i < 40; ++i)
        {
            q->Enqueue(Item(1500, 0, 0, 0));
            q->Enqueue(Item(1500, 0, 1, 1));
        }
        q->Enqueue(Item(100, 0, 2, 2));
        while (Next(q) != 2) // the top class's packet, then one of another class
        {
        }
        Next(q);
        q->Enqueue(Item(100, 0, 2, 2));
        uint32_t n = 0;
        for (uint32_t cls = Next(q); cls != 2 && cls != UINT32_MAX; cls = Next(q))
        {
            ++n;
        }
        q->Dispose();
        return n;
    }

    /// A disc of three classes, one flow each, Quantum 1000, Ratio 2, Order=priority.
    static Ptr<MsfcQueueDisc> Backlogged(uint32_t packets)
    {
        Ptr<MsfcQueueDisc> q = NewDisc({{"Prios", "3"},
                                        {"Flows", "1"},
                                        {"Quantum", "1000"},
                                        {"Ratio", "2"},
                                        {"MaxSize", "10000p"},
                                        {"Order", "priority"}});
        for (uint32_t cls = 0; cls < 3; ++cls)
        {
            for (uint32_t i = 0; i < packets; ++i)
            {
                q->Enqueue(Item(500, 0, cls, cls));
            }
        }
        return q;
    }

    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(SparseWait("round"), 2u, "round: the other classes' turns first");
        NS_TEST_EXPECT_MSG_EQ(SparseWait("priority"), 0u, "priority: no other class first");

        // the shares of the weights: 1 : 2 : 4 of 350 packets of 500 bytes
        Ptr<MsfcQueueDisc> q = Backlogged(300);
        uint64_t sent[3] = {0, 0, 0};
        for (int i = 0; i < 350; ++i)
        {
            uint32_t cls = Next(q);
            NS_TEST_ASSERT_MSG_LT(cls, 3u, "a backlogged queue disc returned nothing");
            sent[cls] += 500;
        }
        const uint64_t sum = sent[0] + sent[1] + sent[2];
        for (uint32_t cls = 0; cls < 3; ++cls)
        {
            NS_TEST_EXPECT_MSG_EQ(sent[cls] * 7 / sum,
                                  uint64_t{1} << cls,
                                  "class " << cls << "'s share of 7");
        }
        q->Dispose();

        // a round: class 2 (4000 bytes) first, then class 1 (2000), then class 0 (1000)
        q = Backlogged(20);
        std::vector<uint32_t> order;
        for (int i = 0; i < 14; ++i)
        {
            order.push_back(Next(q));
        }
        std::vector<uint32_t> want(8, 2);
        want.insert(want.end(), 4, 1);
        want.insert(want.end(), 2, 0);
        NS_TEST_EXPECT_MSG_EQ((order == want), true, "one round in priority order");
        q->Dispose();

        // a class that drains and returns in the same round keeps what it had left
        q = NewDisc({{"Prios", "2"},
                     {"Flows", "1"},
                     {"Quantum", "1000"},
                     {"Ratio", "2"},
                     {"Order", "priority"}});
        for (int i = 0; i < 10; ++i)
        {
            q->Enqueue(Item(500, 0, 0, 0));
        }
        q->Enqueue(Item(1500, 0, 1, 1));
        NS_TEST_EXPECT_MSG_EQ(Next(q), 1u, "class 1: 2000 - 1500 = 500 left");
        NS_TEST_EXPECT_MSG_EQ(Next(q), 0u, "class 1 found empty leaves with 500; class 0 sends");
        q->Enqueue(Item(1500, 0, 1, 1));
        NS_TEST_EXPECT_MSG_EQ(Next(q), 1u, "back in the same round: its 500, first again");
        q->Enqueue(Item(1500, 0, 1, 1));
        NS_TEST_EXPECT_MSG_EQ(Next(q), 0u, "class 1 in debt (-1000): class 0 spends its 500");
        NS_TEST_EXPECT_MSG_EQ(Next(q), 1u, "a new round: 1000 each, class 1 first");
        q->Dispose();
    }
};

/**
 * Change() (tc qdisc change, docs/algorithm.md "Changing the configuration"): a flow left on
 * the new-flow list by Boost=on leaves it when Isolate changes (Linux once divided by its host
 * load, 0, and here it was served with host tables that did not exist); Prios, Flows and Isolate
 * cannot change with packets queued; an invalid change restores every attribute; the deficits of
 * classes are converted when Weights changes (exact -> rounded rounds down, also below 0); a
 * lower MaxSize drops down to it; Order round -> priority starts a new round in which the listed
 * classes have taken part (rule 6), priority -> round keeps their deficits and the list's order;
 * Boost on <-> across changes no list and no deficit.
 */
class MsfcChangeTestCase : public TestCase
{
  public:
    MsfcChangeTestCase()
        : TestCase("Change: the tc qdisc change semantics, busy and invalid changes refused")
    {
    }

  private:
    /// A test item with its own source and destination host slots.
    class HostItem : public MsfcTestItem, public MsfcQueueDisc::HostHashItem
    {
      public:
        /**
         * @param size bytes
         * @param flow flow hash
         * @param src source host slot
         * @param dst destination host slot
         * @param tag read back with GetTag
         */
        HostItem(uint32_t size, uint32_t flow, uint32_t src, uint32_t dst, uint32_t tag)
            : MsfcTestItem(size, flow, MsfcQueueDisc::DscpForDefaultClass(0), false, tag),
              m_src(src),
              m_dst(dst)
        {
        }

        uint32_t HostHash(bool destination, uint32_t) const override
        {
            return destination ? m_dst : m_src;
        }

      private:
        uint32_t m_src; //!< source host slot
        uint32_t m_dst; //!< destination host slot
    };

    /// Tag of the next packet dequeued, UINT32_MAX if none.
    static uint32_t Next(Ptr<MsfcQueueDisc> q)
    {
        auto item = DynamicCast<MsfcTestItem>(q->Dequeue());
        return item ? item->GetTag() : UINT32_MAX;
    }

    /// An attribute's value as text.
    static std::string Get(Ptr<MsfcQueueDisc> q, const std::string& name)
    {
        StringValue v;
        q->GetAttribute(name, v);
        return v.Get();
    }

    /// Tags of the next n packets dequeued.
    static std::vector<uint32_t> Order(Ptr<MsfcQueueDisc> q, uint32_t n)
    {
        std::vector<uint32_t> tags;
        for (uint32_t i = 0; i < n; ++i)
        {
            tags.push_back(Next(q));
        }
        return tags;
    }

    /// The sequence of the Linux qdisc's divide error: Boost=on leaves an emptied flow listed, then
    /// Isolate changes.
    void IsolateAfterBoost()
    {
        Ptr<MsfcQueueDisc> q =
            NewDisc({{"Prios", "1"}, {"Flows", "16"}, {"Quantum", "1500"}, {"Boost", "on"}});
        q->Enqueue(Create<HostItem>(1000, 3, 1, 2, 1)); // flow A
        NS_TEST_EXPECT_MSG_EQ(Next(q), 1u, "flow A's packet");
        NS_TEST_EXPECT_MSG_EQ(q->GetNPackets(), 0u, "the queue disc is empty");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(0).activeFlows,
                              1u,
                              "Boost=on leaves the emptied flow A on the new-flow list");
        std::string error;
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Isolate", "src"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "an idle queue disc changes Isolate: " << error);
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(0).activeFlows, 0u, "flow A left its list");
        NS_TEST_EXPECT_MSG_EQ(Get(q, "Isolate"), "src", "Isolate changed");
        q->Enqueue(Create<HostItem>(1000, 7, 5, 6, 2)); // flow B, other hosts
        NS_TEST_EXPECT_MSG_EQ(Next(q), 2u, "flow B's packet, not a stale flow A");
        NS_TEST_EXPECT_MSG_EQ(Next(q), UINT32_MAX, "then nothing");

        // and back, with flows of two hosts queued meanwhile
        q->Enqueue(Create<HostItem>(1000, 7, 5, 6, 2));
        q->Enqueue(Create<HostItem>(1000, 8, 9, 6, 3));
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Isolate", "both"}}, error),
                              MsfcQueueDisc::CHANGE_BUSY,
                              "Isolate cannot change with packets queued");
        NS_TEST_EXPECT_MSG_EQ(error, TC_MSFC_ISOLATE_BUSY_MSG, "the kernel's message");
        NS_TEST_EXPECT_MSG_EQ(Get(q, "Isolate"), "src", "Isolate unchanged");
        std::set<uint32_t> tags = {Next(q), Next(q)};
        NS_TEST_EXPECT_MSG_EQ((tags == std::set<uint32_t>{2, 3}), true, "both packets served");
        NS_TEST_EXPECT_MSG_EQ(Next(q), UINT32_MAX, "then nothing");
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Isolate", "flow"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "idle again: " << error);
        q->Enqueue(Create<HostItem>(1000, 7, 5, 6, 4));
        NS_TEST_EXPECT_MSG_EQ(Next(q), 4u, "Isolate=flow serves");
        q->Dispose();
    }

    /// Busy and invalid changes change nothing; Prios, Flows and Quantum on an idle disc.
    void BusyAndInvalid()
    {
        Ptr<MsfcQueueDisc> q = NewDisc({{"Quantum", "1500"}});
        q->Enqueue(Item(1000, 1, 1, 1));
        std::string error;
        for (const Attrs& attrs : {Attrs{{"Prios", "4"}}, Attrs{{"Flows", "64"}}})
        {
            NS_TEST_EXPECT_MSG_EQ(q->Change(attrs, error),
                                  MsfcQueueDisc::CHANGE_BUSY,
                                  attrs[0].first << " cannot change with packets queued");
            NS_TEST_EXPECT_MSG_EQ(error,
                                  TC_MSFC_RESIZE_BUSY_MSG,
                                  "the kernel's message for " << attrs[0].first);
        }
        NS_TEST_EXPECT_MSG_EQ(q->GetNClasses(), 3u, "Prios unchanged");
        NS_TEST_EXPECT_MSG_EQ(Get(q, "Flows"), "1024", "Flows unchanged");
        // a busy change changes nothing, not even what it could change alone
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"DropBatchSize", "8"}, {"Prios", "2"}}, error),
                              MsfcQueueDisc::CHANGE_BUSY,
                              "busy");
        NS_TEST_EXPECT_MSG_EQ(Get(q, "DropBatchSize"), "64", "DropBatchSize restored");

        // invalid: every attribute of the change restored, the message of the rule
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"DropBatchSize", "8"}, {"Target", "200ms"}}, error),
                              MsfcQueueDisc::CHANGE_INVALID,
                              "target above interval");
        NS_TEST_EXPECT_MSG_NE(error.find(TC_MSFC_TARGET_INTERVAL_MSG),
                              std::string::npos,
                              "the rule's message: " << error);
        NS_TEST_EXPECT_MSG_EQ(Get(q, "DropBatchSize"), "64", "DropBatchSize restored");
        TimeValue target;
        q->GetAttribute("Target", target);
        NS_TEST_EXPECT_MSG_EQ(target.Get(), MilliSeconds(5), "Target restored");
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Quantum", "1000"}, {"Prios", "17"}}, error),
                              MsfcQueueDisc::CHANGE_INVALID,
                              "Prios out of range (before busy)");
        NS_TEST_EXPECT_MSG_NE(error.find("Prios=17"), std::string::npos, error);
        NS_TEST_EXPECT_MSG_EQ(Get(q, "Quantum"), "1500", "Quantum restored");
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Perturbation", "5"}}, error),
                              MsfcQueueDisc::CHANGE_INVALID,
                              "the flows of queued packets would change");

        // what may change while busy does; the queued packet is served with it
        NS_TEST_EXPECT_MSG_EQ(
            q->Change({{"Quantum", "1000"}, {"Ratio", "3"}, {"Isolate", "flow"}}, error),
            MsfcQueueDisc::CHANGE_OK,
            "Quantum, Ratio and an unchanged Isolate: " << error);
        NS_TEST_EXPECT_MSG_EQ(q->GetFlowQuantum(), 1000u, "new quantum");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassQuantum(2), 9000u, "new class quanta");
        NS_TEST_EXPECT_MSG_EQ(Next(q), 1u, "the queued packet");

        // idle: Prios and Flows change; class counters of the classes that remain are kept
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Prios", "4"}, {"Flows", "32"}, {"Quantum", "0"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "idle: " << error);
        NS_TEST_EXPECT_MSG_EQ(q->GetNClasses(), 4u, "4 classes");
        NS_TEST_EXPECT_MSG_EQ(q->GetFlowQuantum(), 1500u, "Quantum=0: the MTU (no device)");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassQuantum(3), 1500u * 27, "Q_3 = 1500 * 3^3");
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(24), 3u, "CS3 now in class 3");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).dequeuedPackets, 1u, "counters kept");
        for (uint32_t p = 0; p < 4; ++p)
        {
            q->Enqueue(Item(500, 40 + p, p, p));
        }
        std::set<uint32_t> tags;
        while (q->GetNPackets() > 0)
        {
            tags.insert(Next(q));
        }
        NS_TEST_EXPECT_MSG_EQ(tags.size(), 4u, "a packet of each of the 4 classes");
        q->Dispose();
    }

    /// Deficits of the classes converted when Weights changes; shares stay right.
    void Weights()
    {
        // rounded -> exact: class 1 (Q 3000) spent 1000 of its 3000 bytes; 2000 bytes are left
        // (2000 * 65536), two more packets before class 0 (unconverted: one)
        Ptr<MsfcQueueDisc> q = NewDisc({{"Prios", "2"}, {"Quantum", "1500"}});
        for (uint32_t i = 0; i < 6; ++i)
        {
            q->Enqueue(Create<MsfcTestItem>(1000, 0, 0, false, 1)); // DSCP 0: class 1
        }
        for (uint32_t i = 0; i < 4; ++i)
        {
            q->Enqueue(Create<MsfcTestItem>(1000, 0, 8, false, 0)); // DSCP 8 (CS1): class 0
        }
        NS_TEST_EXPECT_MSG_EQ(Next(q), 1u, "class 1 first");
        std::string error;
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Weights", "exact"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "Weights changes with packets queued: " << error);
        NS_TEST_EXPECT_MSG_EQ((Order(q, 5) == std::vector<uint32_t>{1, 1, 0, 0, 1}),
                              true,
                              "rounded -> exact: class 1 keeps its 2000 bytes");
        q->Dispose();

        // exact -> rounded, floor below 0: Ratio 1.1 makes Q_1 1650 bytes + 600 / 65536; after
        // a 1651-byte packet class 1 is at 600 - 65536, which becomes -1 byte (truncated: 0),
        // so after the next refill (+1650) a 1649-byte packet leaves it at 0, not 1: class 0
        // comes next
        q = NewDisc({{"Prios", "2"}, {"Quantum", "1500"}, {"Ratio", "1.1"}, {"Weights", "exact"}});
        q->Enqueue(Create<MsfcTestItem>(1651, 0, 0, false, 1));
        for (uint32_t i = 0; i < 4; ++i)
        {
            q->Enqueue(Create<MsfcTestItem>(1649, 0, 0, false, 1));
        }
        for (uint32_t i = 0; i < 4; ++i)
        {
            q->Enqueue(Create<MsfcTestItem>(1000, 0, 8, false, 0));
        }
        NS_TEST_EXPECT_MSG_EQ(Next(q), 1u, "class 1 first");
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Weights", "rounded"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "exact -> rounded: " << error);
        NS_TEST_EXPECT_MSG_EQ((Order(q, 5) == std::vector<uint32_t>{0, 0, 1, 0, 1}),
                              true,
                              "exact -> rounded: class 1's deficit rounded down");
        q->Dispose();

        // and the shares stay right after a change under load
        q = NewDisc({{"Prios", "2"}, {"Quantum", "1500"}, {"Ratio", "0.5"}, {"MaxSize", "1000p"}});
        double bytes[2] = {0, 0};
        for (uint32_t p = 0; p < 2; ++p)
        {
            for (int i = 0; i < 4; ++i)
            {
                q->Enqueue(Item(700, 1, p, p));
            }
        }
        for (int i = 0; i < 20000; ++i)
        {
            if (i == 10000 || i == 15000)
            {
                q->Change({{"Weights", i == 10000 ? "exact" : "rounded"}}, error);
            }
            auto item = DynamicCast<MsfcTestItem>(q->Dequeue());
            NS_TEST_ASSERT_MSG_NE(item, nullptr, "a saturated queue disc returned nothing");
            bytes[item->GetTag()] += item->GetSize();
            q->Enqueue(Item(700, 1, item->GetTag(), item->GetTag()));
        }
        NS_TEST_EXPECT_MSG_LT(RelErr(bytes[1] / bytes[0], 0.5), 0.02, "class 1 : class 0 = 0.5");
        q->Dispose();
    }

    /// A MaxSize below the backlog drops down to it from the fattest flows.
    void LowerLimit()
    {
        Ptr<MsfcQueueDisc> q = NewDisc({{"Quantum", "1500"}, {"DropBatchSize", "4"}});
        uint32_t traced = 0;
        q->TraceConnectWithoutContext(
            "OverloadDrop",
            Callback<void, Ptr<const QueueDiscItem>, uint32_t, uint32_t>(
                [&traced](Ptr<const QueueDiscItem>, uint32_t, uint32_t) { ++traced; }));
        for (int i = 0; i < 12; ++i)
        {
            q->Enqueue(Item(1500, 1, 0, 0)); // the fat flow
        }
        for (int i = 0; i < 3; ++i)
        {
            q->Enqueue(Item(1000, 2, 1, 1));
        }
        q->Enqueue(Item(100, 3, 2, 2));
        std::string error;
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"MaxSize", "5p"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "a lower limit: " << error);
        NS_TEST_EXPECT_MSG_EQ(q->GetNPackets(), 5u, "dropped down to the limit");
        NS_TEST_EXPECT_MSG_EQ(traced, 11u, "11 overload drops");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(0).overloadDrops + q->GetClassStats(1).overloadDrops,
                              11u,
                              "from the fat flows");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(2).backlogPackets, 1u, "the thin flow keeps its");
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"MaxSize", "3000B"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "a limit in bytes: " << error);
        NS_TEST_EXPECT_MSG_LT_OR_EQ(q->GetNBytes(), 3000u, "dropped down to the byte limit");
        q->Dispose();
    }

    /// Order both ways while classes are listed (the reference model takes the same decisions).
    void OrderChange()
    {
        Ptr<MsfcQueueDisc> q = NewDisc({{"Prios", "2"}, {"Flows", "1"}, {"Quantum", "1000"}});
        for (int i = 0; i < 10; ++i)
        {
            q->Enqueue(Item(500, 0, 0, 0));
        }
        q->Enqueue(Item(1500, 0, 1, 1));
        NS_TEST_EXPECT_MSG_EQ(Next(q), 0u, "Order=round: class 0 activated first, goes first");
        NS_TEST_EXPECT_MSG_EQ(Get(q, "Order"), "round", "the default, TC_MSFC_ORDER_DEFAULT");
        NS_TEST_EXPECT_MSG_EQ(MsfcQueueDisc::GetAttributeRange("Order"),
                              "round|priority",
                              "Order's words");
        std::string error;
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Order", "priority"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "Order on a busy queue disc: " << error);
        NS_TEST_EXPECT_MSG_EQ(Get(q, "Order"), "priority", "Order changed");
        // class 0 has 500 left, class 1 its 2000: both have taken part in the new round
        NS_TEST_EXPECT_MSG_EQ(Next(q), 1u, "priority: class 1 (2000 - 1500 = 500 left)");
        NS_TEST_EXPECT_MSG_EQ(Next(q), 0u, "class 1 empty, leaves; class 0 spends its 500");
        q->Enqueue(Item(1500, 0, 1, 1));
        q->Enqueue(Item(1500, 0, 1, 1));
        // class 1 returns in the round it took part in: 500, not a fresh 2000
        NS_TEST_EXPECT_MSG_EQ((Order(q, 3) == std::vector<uint32_t>{1, 1, 0}),
                              true,
                              "class 1 with its 500 (-1000), a new round, class 1 again (-500)");
        q->Enqueue(Item(1500, 0, 1, 1));
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Order", "round"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "back to round: " << error);
        // class 0 (500) then class 1 (-500) take turns in the list's order
        NS_TEST_EXPECT_MSG_EQ((Order(q, 5) == std::vector<uint32_t>{0, 0, 0, 1, 0}),
                              true,
                              "round: class 0's 500, its turn of 1000, then class 1's");
        q->Dispose();

        // Prios with Order=priority on an idle disc: new records, a fresh round counter
        q = NewDisc({{"Prios", "2"}, {"Flows", "1"}, {"Quantum", "1000"}, {"Order", "priority"}});
        q->Enqueue(Item(1500, 0, 1, 1));
        NS_TEST_EXPECT_MSG_EQ(Next(q), 1u, "class 1's packet (500 left)");
        NS_TEST_EXPECT_MSG_EQ(Next(q), UINT32_MAX, "then nothing");
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Prios", "3"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "Prios on an idle disc: " << error);
        q->Enqueue(Item(1500, 0, 1, 1));
        q->Enqueue(Item(1500, 0, 1, 1));
        q->Enqueue(Item(500, 0, 0, 0));
        NS_TEST_EXPECT_MSG_EQ((Order(q, 3) == std::vector<uint32_t>{1, 1, 0}),
                              true,
                              "class 1 with a fresh 2000 sends twice before class 0");
        q->Dispose();
    }

    /// Boost on <-> across while flows are listed changes no list and no deficit: a disc
    /// changed to across and back dequeues as one that stayed on; changed to across, the top
    /// class's new flow goes ahead of class 0's turn (the reference model's
    /// test_change_boost_on_across_changes_no_list_and_no_deficit).
    void BoostAcross()
    {
        auto busy = []() {
            Ptr<MsfcQueueDisc> q = NewDisc({{"Prios", "2"},
                                            {"Flows", "8"},
                                            {"Quantum", "1000"},
                                            {"Ratio", "2"},
                                            {"Boost", "on"}});
            for (int i = 0; i < 6; ++i)
            {
                q->Enqueue(Item(500, 1, 0, 1));
                q->Enqueue(Item(500, 1, 1, 11));
            }
            Order(q, 6);                     // class 0 sends its 1000 bytes, class 1 its 2000
            q->Enqueue(Item(300, 5, 1, 15)); // a new flow of class 1, which has spent its credit
            return q;
        };
        std::string error;
        Ptr<MsfcQueueDisc> stayed = busy();
        Ptr<MsfcQueueDisc> back = busy();
        NS_TEST_EXPECT_MSG_EQ(back->Change({{"Boost", "across"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "on -> across with packets queued: " << error);
        NS_TEST_EXPECT_MSG_EQ(Get(back, "Boost"), "across", "Boost changed");
        NS_TEST_EXPECT_MSG_EQ(back->Change({{"Boost", "on"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "across -> on: " << error);
        const std::vector<uint32_t> want = Order(stayed, 8);
        NS_TEST_EXPECT_MSG_EQ(want[0], 1u, "Boost=on: class 0's turn first");
        NS_TEST_EXPECT_MSG_EQ((Order(back, 8) == want), true, "across and back: nothing changed");
        Ptr<MsfcQueueDisc> across = busy();
        NS_TEST_EXPECT_MSG_EQ(across->Change({{"Boost", "across"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "on -> across: " << error);
        NS_TEST_EXPECT_MSG_EQ(Next(across), 15u, "Boost=across: class 1's new flow first");
        stayed->Dispose();
        back->Dispose();
        across->Dispose();
    }

    void DoRun() override
    {
        IsolateAfterBoost();
        BoostAcross();
        BusyAndInvalid();
        Weights();
        LowerLimit();
        OrderChange();
    }
};

/**
 * Auto (docs/algorithm.md, "Automatic priorities") through the real classification of IPv4
 * packets, three classes (DSCP 0 -> home class 1, EF -> 2, CS1 -> 0), 16 flow slots, Interval
 * 100 ms (T_up = 10 intervals = 976560 CoDel units = 999.99744 ms):
 * - Auto=off: DSCP 0 goes to the home class, whatever the time;
 * - a thin unmarked flow climbs one class at its first packet at T_up after the allocation (not
 *   one CoDel unit before), to the top class, and only when its flow queue there is empty;
 * - beside it, a bulk unmarked flow that builds a standing queue sinks to class 0 and stays
 *   (CoDel's test keeps firing there: demotions at class 0), while the thin flow climbs;
 * - marked packets keep their class under Auto=unmarked and are auto packets under Auto=all;
 *   a socket priority (UseSocketPriority) and a non-IP packet keep theirs under both;
 * - Change: Auto off and on keeps the levels, Interval changes T_up, Flows resets the slots.
 */
class MsfcAutoTestCase : public TestCase
{
  public:
    MsfcAutoTestCase()
        : TestCase("Auto: thin unmarked flows climb, standing queues sink, marks and socket "
                   "priorities keep their class")
    {
    }

  private:
    static constexpr uint32_t FLOWS = 16;         //!< flow slots
    static constexpr int64_t T_UP_NS = 999997440; //!< 10 x (100 ms >> 10) CoDel units, in ns

    /// An IPv4 UDP packet of `size` bytes from source port `sport`, with a DSCP and, when
    /// `priority` >= 0, a SocketPriorityTag.
    static Ptr<QueueDiscItem> V4(uint32_t size,
                                 uint16_t sport,
                                 Ipv4Header::DscpType dscp,
                                 int priority = -1)
    {
        Ptr<Packet> p = Create<Packet>(size - 28);
        UdpHeader udp;
        udp.SetSourcePort(sport);
        udp.SetDestinationPort(9);
        p->AddHeader(udp);
        if (priority >= 0)
        {
            SocketPriorityTag tag;
            tag.SetPriority(static_cast<uint8_t>(priority));
            p->AddPacketTag(tag);
        }
        Ipv4Header h;
        h.SetSource(Ipv4Address("10.0.0.1"));
        h.SetDestination(Ipv4Address("10.0.1.1"));
        h.SetProtocol(UdpL4Protocol::PROT_NUMBER);
        h.SetDscp(dscp);
        h.SetPayloadSize(p->GetSize());
        return Create<Ipv4QueueDiscItem>(p, Address(), Ipv4L3Protocol::PROT_NUMBER, h);
    }

    /// A source port whose packets hash to flow slot `slot` (perturbation 0).
    static uint16_t PortOfSlot(uint32_t slot)
    {
        for (uint16_t port = 1000;; ++port)
        {
            if (V4(100, port, Ipv4Header::DscpDefault)->Hash(0) % FLOWS == slot)
            {
                return port;
            }
        }
    }

    /// Run the simulator until `at` (nothing is scheduled unless a part schedules it).
    static void RunUntil(Time at)
    {
        if (at > Simulator::Now())
        {
            Simulator::Stop(at - Simulator::Now());
            Simulator::Run();
        }
    }

    /// A queue disc of three classes and FLOWS slots, its classifications and level changes
    /// recorded.
    Ptr<MsfcQueueDisc> Disc(const std::string& mode, bool socketPriority = false)
    {
        Ptr<MsfcQueueDisc> q = NewDisc({{"Prios", "3"},
                                        {"Flows", std::to_string(FLOWS)},
                                        {"Quantum", "1500"},
                                        {"Auto", mode},
                                        {"UseSocketPriority", socketPriority ? "true" : "false"}});
        m_last.clear();
        m_moves.clear();
        m_demotedBy.clear();
        m_demoting = false;
        q->TraceConnectWithoutContext("Sojourn", MakeCallback(&MsfcAutoTestCase::Dequeued, this));
        q->TraceConnectWithoutContext("Classified",
                                      MakeCallback(&MsfcAutoTestCase::Classified, this));
        q->TraceConnectWithoutContext("AutoLevel", MakeCallback(&MsfcAutoTestCase::Moved, this));
        return q;
    }

    void Classified(Ptr<const QueueDiscItem> item, uint32_t cls, uint32_t flow, bool autoPacket)
    {
        m_last[flow] = {cls, autoPacket};
    }

    void Moved(uint32_t slot, uint32_t from, uint32_t to)
    {
        m_moves.push_back({slot, from, to});
        m_demoting = to <= from; // a demotion: fired by the packet dequeued now (Sojourn)
    }

    /// The class of every packet whose dequeue moved its slot down (Sojourn follows AutoLevel).
    void Dequeued(uint32_t cls, uint32_t flow, Time sojourn)
    {
        if (m_demoting)
        {
            m_demotedBy.push_back(cls);
            m_demoting = false;
        }
    }

    /// Enqueue a packet; return "<class>" or "<class> auto" as the queue disc classified it.
    std::string Put(Ptr<MsfcQueueDisc> q, Ptr<QueueDiscItem> item)
    {
        const uint32_t slot = item->Hash(0) % FLOWS;
        m_last.erase(slot);
        q->Enqueue(item);
        auto it = m_last.find(slot);
        if (it == m_last.end())
        {
            return "none";
        }
        return std::to_string(it->second.first) + (it->second.second ? " auto" : "");
    }

    /// Dequeue everything.
    static void Drain(Ptr<MsfcQueueDisc> q)
    {
        while (q->Dequeue())
        {
        }
    }

    /// A sparse auto flow from `port`: a 100-byte DSCP 0 packet every 100 ms from now until
    /// `to`, each dequeued at once (a slot climbs only while it sends, never after a pause).
    void Sparse(Ptr<MsfcQueueDisc> q, uint16_t port, Time to)
    {
        for (Time t = Simulator::Now() + MilliSeconds(100); t <= to; t += MilliSeconds(100))
        {
            RunUntil(t);
            Put(q, V4(100, port, Ipv4Header::DscpDefault));
            Drain(q);
        }
    }

    /// Auto=off: DSCP 0 in the home class, marks by the map, however long a slot waits.
    void Off()
    {
        Ptr<MsfcQueueDisc> q = Disc("off");
        const uint16_t thin = PortOfSlot(3);
        NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, thin, Ipv4Header::DscpDefault)), "1", "off: H");
        Drain(q);
        RunUntil(Seconds(3));
        NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, thin, Ipv4Header::DscpDefault)), "1", "off: no climb");
        NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, thin, Ipv4Header::DSCP_EF)), "2", "off: EF");
        NS_TEST_EXPECT_MSG_EQ(q->GetAutoPromotions() + q->GetAutoDemotions(), 0u, "off");
        q->Dispose();
        Simulator::Destroy();
    }

    /// A thin unmarked flow climbs at T_up, to the top class, only over an empty flow queue.
    void Climb()
    {
        Ptr<MsfcQueueDisc> q = Disc("unmarked");
        NS_TEST_EXPECT_MSG_EQ(q->GetAutoHomeClass(), 1u, "DSCP 0's class");
        NS_TEST_EXPECT_MSG_EQ(q->GetAutoUpTime(), NanoSeconds(T_UP_NS), "T_up: 10 intervals");
        const uint16_t thin = PortOfSlot(3);
        const uint16_t queued = PortOfSlot(9);
        NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, thin, Ipv4Header::DscpDefault)),
                              "1 auto",
                              "a slot starts at the home class");
        Drain(q);
        NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, queued, Ipv4Header::DscpDefault)), "1 auto", "");
        RunUntil(NanoSeconds(T_UP_NS - 1));
        NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, thin, Ipv4Header::DscpDefault)),
                              "1 auto",
                              "one CoDel unit before T_up: no climb");
        Drain(q);
        // slot 9's next packet stays queued in its flow queue of class 1 over T_up
        NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, queued, Ipv4Header::DscpDefault)), "1 auto", "");
        RunUntil(NanoSeconds(T_UP_NS));
        NS_TEST_EXPECT_MSG_EQ(q->Classify(V4(100, thin, Ipv4Header::DscpDefault)),
                              2u,
                              "Classify says where the packet would go");
        NS_TEST_EXPECT_MSG_EQ(q->GetAutoLevel(3), 1u, "Classify promotes nothing");
        NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, thin, Ipv4Header::DscpDefault)),
                              "2 auto",
                              "at T_up the thin flow climbs to the top class");
        NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, queued, Ipv4Header::DscpDefault)),
                              "1 auto",
                              "a slot whose flow queue holds a packet does not climb");
        NS_TEST_EXPECT_MSG_EQ(q->GetAutoLevel(3), 2u, "level of the thin slot");
        NS_TEST_EXPECT_MSG_EQ(q->GetAutoLevel(9), 1u, "level of the queued slot");
        Drain(q);
        NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, queued, Ipv4Header::DscpDefault)),
                              "2 auto",
                              "its flow queue emptied: it climbs");
        Drain(q);
        RunUntil(Seconds(5));
        NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, thin, Ipv4Header::DscpDefault)),
                              "2 auto",
                              "the top class is the last");
        NS_TEST_EXPECT_MSG_EQ(q->GetAutoPromotions(), 2u, "two promotions");
        NS_TEST_EXPECT_MSG_EQ(q->GetAutoDemotions(), 0u, "no demotion");
        // per class: both slots left class 1 (the class of DSCP 0) upward
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).autoPromotions, 2u, "promoted out of class 1");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(0).autoPromotions +
                                  q->GetClassStats(2).autoPromotions,
                              0u,
                              "no promotion out of classes 0 and 2");
        NS_TEST_EXPECT_MSG_EQ(m_moves.size(), 2u, "AutoLevel fired twice");
        if (m_moves.size() == 2)
        {
            NS_TEST_EXPECT_MSG_EQ((m_moves[0] == std::array<uint32_t, 3>{3, 1, 2}), true, "");
            NS_TEST_EXPECT_MSG_EQ((m_moves[1] == std::array<uint32_t, 3>{9, 1, 2}), true, "");
        }
        q->Dispose();
        Simulator::Destroy();
    }

    /// A bulk unmarked flow (1000 B every ms into 500 packets/s) sinks to class 0 and stays;
    /// a thin one beside it (100 B every 50 ms) climbs and keeps a low delay.
    void BulkAndThin()
    {
        Ptr<MsfcQueueDisc> q = Disc("unmarked");
        const uint16_t bulk = PortOfSlot(5);
        const uint16_t thin = PortOfSlot(3);
        uint32_t thinTop = 0;  // thin packets put in class 2
        uint32_t bulkLow = 0;  // bulk packets put in class 0
        uint32_t bulkHigh = 0; // bulk packets put in class 2
        Time thinWorst;        // of the thin packets from 1 s on
        for (int i = 0; i < 3000; ++i)
        {
            Simulator::Schedule(MilliSeconds(i), [&, this]() {
                std::string c = Put(q, V4(1000, bulk, Ipv4Header::DscpDefault));
                bulkLow += c == "0 auto";
                bulkHigh += c == "2 auto";
            });
        }
        for (int i = 0; i < 60; ++i)
        {
            Simulator::Schedule(MilliSeconds(50 * i + 1), [&, this]() {
                thinTop += Put(q, V4(100, thin, Ipv4Header::DscpDefault)) == "2 auto";
            });
        }
        for (int i = 1; i <= 1500; ++i)
        {
            Simulator::Schedule(MilliSeconds(2 * i), [&]() {
                Ptr<QueueDiscItem> item = q->Dequeue();
                if (item && item->GetSize() < 1000 && item->GetTimeStamp() > Seconds(1))
                {
                    thinWorst = std::max(thinWorst, Simulator::Now() - item->GetTimeStamp());
                }
            });
        }
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(q->GetAutoLevel(5), 0u, "the bulk flow sank to class 0");
        NS_TEST_EXPECT_MSG_EQ(q->GetAutoLevel(3), 2u, "the thin flow climbed to class 2");
        NS_TEST_EXPECT_MSG_EQ(bulkHigh, 0u, "the bulk flow never reached the top class");
        NS_TEST_EXPECT_MSG_GT(bulkLow, 2000u, "most bulk packets went to class 0");
        // the thin flow climbs at its first packet from T_up (999.997 ms) on: 1.001 s
        NS_TEST_EXPECT_MSG_EQ(thinTop, 40u, "thin packets from 1.001 s on in class 2");
        NS_TEST_EXPECT_MSG_LT(thinWorst,
                              MilliSeconds(2),
                              "in class 2 a thin packet is the next one dequeued");
        NS_TEST_EXPECT_MSG_GT(q->GetClassStats(0).codelDrops, 0u, "CoDel drops in class 0");
        NS_TEST_EXPECT_MSG_EQ(q->GetAutoPromotions(), 1u, "one promotion: the thin flow");
        NS_TEST_EXPECT_MSG_GT(q->GetAutoDemotions(), 2u, "the bulk flow keeps firing");
        // per class: the bulk slot left class 1 once, then stayed in class 0 at every demotion
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).autoDemotions, 1u, "one demotion out of 1");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(0).autoDemotions,
                              q->GetAutoDemotions() - 1,
                              "the others at class 0");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).autoPromotions, 1u, "the thin slot, from 1");
        // the bulk slot's first move is 1 -> 0 after about an interval, then 0 -> 0; each
        // demotion made by a packet of the slot's class (the bulk packets left in class 1 by
        // the first one change nothing)
        bool first = true;
        bool atZero = false;
        size_t demotion = 0;
        NS_TEST_EXPECT_MSG_EQ(m_demotedBy.size(), q->GetAutoDemotions(), "Sojourn after each");
        for (const auto& m : m_moves)
        {
            if (m[0] != 5)
            {
                NS_TEST_EXPECT_MSG_EQ((m == std::array<uint32_t, 3>{3, 1, 2}), true, "thin");
                continue;
            }
            NS_TEST_EXPECT_MSG_EQ(m[1], first ? 1u : 0u, "bulk slot: from");
            NS_TEST_EXPECT_MSG_EQ(m[2], 0u, "bulk slot: to");
            if (demotion < m_demotedBy.size())
            {
                NS_TEST_EXPECT_MSG_EQ(m_demotedBy[demotion], m[1], "fired by a packet of class");
            }
            ++demotion;
            atZero = atZero || !first;
            first = false;
        }
        NS_TEST_EXPECT_MSG_EQ(atZero, true, "a demotion at class 0 keeps the slot there");
        q->Dispose();
        Simulator::Destroy();
    }

    /// Marks under unmarked and all, socket priorities, non-IP packets.
    void Marks()
    {
        const uint16_t m = PortOfSlot(7);
        for (const std::string mode : {"unmarked", "all"})
        {
            const bool all = mode == "all";
            Ptr<MsfcQueueDisc> q = Disc(mode, true);
            NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, m, Ipv4Header::DSCP_EF)),
                                  all ? "1 auto" : "2",
                                  mode << ": EF");
            Drain(q);
            NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, m, Ipv4Header::DSCP_CS1)),
                                  all ? "1 auto" : "0",
                                  mode << ": CS1");
            Drain(q);
            NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, m, Ipv4Header::DscpDefault, 0)),
                                  "0",
                                  mode << ": DSCP 0 with socket priority 0 keeps class 0");
            NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, m, Ipv4Header::DSCP_EF, 1)),
                                  "1",
                                  mode << ": EF with socket priority 1 keeps class 1");
            Drain(q);
            Ptr<MsfcTestItem> nonIp = Create<MsfcTestItem>(100, 7, -1);
            NS_TEST_EXPECT_MSG_EQ(Put(q, nonIp), "1", mode << ": non-IP: H, not auto");
            Drain(q);
            RunUntil(Seconds(2));
            // explicit and marked packets do not move the slot (under unmarked)
            Put(q, V4(100, m, Ipv4Header::DscpDefault, 1));
            Drain(q);
            NS_TEST_EXPECT_MSG_EQ(q->GetAutoLevel(7), 1u, mode << ": explicit class: no climb");
            // a slot idle for T_up starts its time again at its next auto packet (2 s) and
            // climbs T_up of sparse sending later (3 s), not before
            NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, m, Ipv4Header::DscpDefault)),
                                  "1 auto",
                                  mode << ": idle for T_up: no climb at the first packet");
            Drain(q);
            Sparse(q, m, MilliSeconds(2900));
            NS_TEST_EXPECT_MSG_EQ(q->GetAutoLevel(7), 1u, mode << ": sparse for 0.9 s");
            Sparse(q, m, MilliSeconds(3000));
            NS_TEST_EXPECT_MSG_EQ(q->GetAutoLevel(7), 2u, mode << ": sparse for T_up");
            NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, m, Ipv4Header::DSCP_EF)),
                                  all ? "2 auto" : "2",
                                  mode << ": EF after T_up");
            Drain(q);
            NS_TEST_EXPECT_MSG_EQ(q->GetAutoPromotions(), 1u, mode << ": promotions");
            NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, m, Ipv4Header::DSCP_CS1)),
                                  all ? "2 auto" : "0",
                                  mode << ": CS1 after T_up");
            Drain(q);
            NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, m, Ipv4Header::DscpDefault)),
                                  "2 auto",
                                  mode << ": unmarked after T_up");
            NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, m, Ipv4Header::DscpDefault, 0)),
                                  "0",
                                  mode << ": socket priority after T_up");
            q->Dispose();
            Simulator::Destroy();
        }
    }

    /// Change: Auto off and on keeps the levels; Interval changes T_up; Flows resets.
    void Changes()
    {
        Ptr<MsfcQueueDisc> q = Disc("unmarked");
        const uint16_t thin = PortOfSlot(3);
        std::string error;
        Sparse(q, thin, MilliSeconds(1100)); // sparse from 0.1 s: climbs at 1 s, T_up after 0
        NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, thin, Ipv4Header::DscpDefault)), "2 auto", "");
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Auto", "off"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "Auto=off with a packet queued: " << error);
        NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, thin, Ipv4Header::DscpDefault)), "1", "off: H");
        NS_TEST_EXPECT_MSG_EQ(q->GetAutoLevel(3), 2u, "off keeps the level");
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Auto", "all"}}, error), MsfcQueueDisc::CHANGE_OK, "");
        NS_TEST_EXPECT_MSG_EQ(Put(q, V4(100, thin, Ipv4Header::DSCP_CS1)),
                              "2 auto",
                              "on again: the level resumes");
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Auto", "some"}}, error),
                              MsfcQueueDisc::CHANGE_INVALID,
                              "an unknown mode");
        NS_TEST_EXPECT_MSG_EQ(error,
                              "MsfcQueueDisc: Auto=some: invalid value (allowed: off|unmarked|all)",
                              "");
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Interval", "50ms"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              "");
        NS_TEST_EXPECT_MSG_EQ(q->GetAutoUpTime(),
                              NanoSeconds(int64_t{10} * (50000000 >> 10) << 10),
                              "T_up follows the interval");
        Drain(q);
        RunUntil(Seconds(3));
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Flows", "8"}}, error), MsfcQueueDisc::CHANGE_OK, "");
        const uint32_t slot = V4(100, thin, Ipv4Header::DscpDefault)->Hash(0) % 8;
        NS_TEST_EXPECT_MSG_EQ(q->GetAutoLevel(slot), 1u, "new records: every slot at H");
        m_last.clear();
        q->Enqueue(V4(100, thin, Ipv4Header::DscpDefault));
        NS_TEST_EXPECT_MSG_EQ(m_last.count(slot), 1u, "classified");
        NS_TEST_EXPECT_MSG_EQ(m_last[slot].first, 1u, "the slots' time is the change's");
        Drain(q);
        Sparse(q, thin, MilliSeconds(3400)); // (Put's slot is of 16 flows: its answer unused)
        RunUntil(Seconds(3) + q->GetAutoUpTime());
        m_last.clear();
        q->Enqueue(V4(100, thin, Ipv4Header::DscpDefault));
        NS_TEST_EXPECT_MSG_EQ(m_last[slot].first, 2u, "T_up (0.5 s) after the change it climbs");
        q->Dispose();
        Simulator::Destroy();
    }

    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(MsfcQueueDisc::GetAttributeRange("Auto"), "off|unmarked|all", "");
        Off();
        Climb();
        BulkAndThin();
        Marks();
        Changes();
    }

    std::map<uint32_t, std::pair<uint32_t, bool>> m_last; //!< slot -> last class, auto
    std::vector<std::array<uint32_t, 3>> m_moves;         //!< AutoLevel: slot, from, to
    bool m_demoting{false};                               //!< a demotion awaits its Sojourn
    std::vector<uint32_t> m_demotedBy; //!< class of the packet that made each demotion
};

/**
 * The least-effort lane (DscpMap entry le) and NQB flows (<class>+nqb), docs/algorithm.md
 * "LE and NQB": the lane sends only what every class leaves and is the first overload victim;
 * an NQB flow goes ahead of its class's flows while shallow and within its share, queue
 * protection moves a deep one behind the old flows, and one sending above its share gets no
 * more than its share.
 */
class MsfcLeNqbTestCase : public TestCase
{
  public:
    MsfcLeNqbTestCase()
        : TestCase("LE lane: only what the classes leave, overload victim first; NQB flows ahead "
                   "within their share, queue protection")
    {
    }

  private:
    static constexpr uint8_t LE = 1;   //!< DSCP LE: the lane in the default map
    static constexpr uint8_t NQB = 45; //!< DSCP NQB: class 1, NQB, in the default map

    /// A packet of DSCP `dscp` in flow `flow`, tagged `tag`.
    static Ptr<MsfcTestItem> Pkt(uint32_t size, uint32_t flow, uint8_t dscp, uint32_t tag)
    {
        return Create<MsfcTestItem>(size, flow, dscp, false, tag);
    }

    /// Tag of the next packet dequeued, UINT32_MAX if none.
    static uint32_t Next(Ptr<MsfcQueueDisc> q)
    {
        auto item = DynamicCast<MsfcTestItem>(q->Dequeue());
        return item ? item->GetTag() : UINT32_MAX;
    }

    void Sojourn(uint32_t cls, uint32_t, Time)
    {
        m_sojournClasses.push_back(cls);
    }

    void Demoted(uint32_t cls, uint32_t flow)
    {
        m_demotions.emplace_back(cls, flow);
    }

    /// The lane sends only when no class has a packet, whatever Order and Boost are.
    void LaneLast()
    {
        for (const Attrs& modes : std::vector<Attrs>{{{"Order", "round"}, {"Boost", "off"}},
                                                     {{"Order", "priority"}, {"Boost", "on"}},
                                                     {{"Order", "round"}, {"Boost", "across"}}})
        {
            Attrs attrs = {{"Prios", "3"}, {"Flows", "16"}, {"Quantum", "1500"}};
            attrs.insert(attrs.end(), modes.begin(), modes.end());
            Ptr<MsfcQueueDisc> q = NewDisc(attrs);
            const std::string m = modes[0].second + "/" + modes[1].second;
            NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(LE), 3u, "LE: the lane is class Prios");
            m_sojournClasses.clear();
            q->TraceConnectWithoutContext("Sojourn",
                                          MakeCallback(&MsfcLeNqbTestCase::Sojourn, this));
            for (uint32_t i = 0; i < 3; ++i)
            {
                q->Enqueue(Pkt(1000, 1, LE, 900 + i)); // the lane first in time
            }
            for (uint32_t i = 0; i < 2; ++i)
            {
                q->Enqueue(Item(1000, 2, 0, 0)); // class 0
                q->Enqueue(Item(1000, 3, 2, 2)); // class 2
            }
            std::vector<uint32_t> got;
            for (uint32_t i = 0; i < 2; ++i)
            {
                got.push_back(Next(q));
            }
            // a class packet arriving while the lane waits goes before it too
            q->Enqueue(Item(500, 4, 1, 1));
            for (uint32_t i = 0; i < 6; ++i)
            {
                got.push_back(Next(q));
            }
            const uint32_t n =
                std::count_if(got.begin(), got.begin() + 5, [](uint32_t t) { return t < 900; });
            NS_TEST_EXPECT_MSG_EQ(n, 5u, m << ": the five class packets first");
            NS_TEST_EXPECT_MSG_EQ((std::vector<uint32_t>(got.begin() + 5, got.end()) ==
                                   std::vector<uint32_t>{900, 901, 902}),
                                  true,
                                  m << ": then the lane, in order");
            NS_TEST_EXPECT_MSG_EQ(Next(q), UINT32_MAX, m << ": empty");
            const MsfcClassStats lane = q->GetClassStats(3);
            NS_TEST_EXPECT_MSG_EQ(lane.enqueuedPackets, 3u, m << ": lane enqueued");
            NS_TEST_EXPECT_MSG_EQ(lane.dequeuedBytes, 3000u, m << ": lane dequeued");
            NS_TEST_EXPECT_MSG_EQ(lane.backlogPackets, 0u, m << ": lane backlog");
            NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(0).enqueuedPackets, 2u, m << ": class 0");
            NS_TEST_EXPECT_MSG_EQ(m_sojournClasses.size(), 8u, m << ": Sojourn per packet");
            NS_TEST_EXPECT_MSG_EQ(m_sojournClasses.back(), 3u, m << ": Sojourn says class Prios");
            q->Dispose();
        }
    }

    /// While the lane holds a packet the overload victim is its fattest flow.
    void LaneOverload()
    {
        for (const char* overload : {"flow", "class"})
        {
            Ptr<MsfcQueueDisc> q = NewDisc(
                {{"Prios", "3"}, {"Flows", "16"}, {"MaxSize", "10p"}, {"Overload", overload}});
            q->Enqueue(Pkt(1000, 1, LE, 900));
            q->Enqueue(Pkt(1000, 1, LE, 901));
            q->Enqueue(Pkt(1000, 5, LE, 950));
            for (uint32_t i = 0; i < 7; ++i)
            {
                q->Enqueue(Item(1500, 2, 2, 2)); // a fatter flow in class 2
            }
            NS_TEST_EXPECT_MSG_EQ(q->GetCurrentSize().GetValue(), 10u, "at the limit");
            q->Enqueue(Item(1500, 2, 2, 2));
            // the lane's fattest flow, 2000 bytes: half of it, one packet
            NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(3).overloadDrops,
                                  1u,
                                  overload << ": dropped from the lane");
            NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(2).overloadDrops,
                                  0u,
                                  overload << ": not from class 2");
            q->Enqueue(Item(1500, 2, 2, 2));
            q->Enqueue(Item(1500, 2, 2, 2));
            NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(3).backlogPackets,
                                  0u,
                                  overload << ": the lane emptied first");
            NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(2).overloadDrops,
                                  0u,
                                  overload << ": class 2 still whole");
            q->Enqueue(Item(1500, 2, 2, 2));
            NS_TEST_EXPECT_MSG_GT(q->GetClassStats(2).overloadDrops,
                                  0u,
                                  overload << ": then the classes");
            q->Dispose();
        }
    }

    /// Prios changes re-allocate the lane (refused while it holds packets); its counters stay.
    void LaneChange()
    {
        Ptr<MsfcQueueDisc> q = NewDisc({{"Prios", "3"}, {"Flows", "16"}});
        q->Enqueue(Pkt(1000, 1, LE, 900));
        std::string error;
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Prios", "4"}}, error),
                              MsfcQueueDisc::CHANGE_BUSY,
                              "the lane's packet makes the queue disc busy");
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Isolate", "src"}}, error),
                              MsfcQueueDisc::CHANGE_BUSY,
                              "Isolate too");
        NS_TEST_EXPECT_MSG_EQ(Next(q), 900u, "the lane's packet");
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Prios", "4"}}, error), MsfcQueueDisc::CHANGE_OK, error);
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(LE), 4u, "the lane is class Prios");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(4).dequeuedPackets, 1u, "its counters stay");
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"Isolate", "src"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              error);
        q->Enqueue(Pkt(1000, 1, LE, 901));
        q->Enqueue(Item(300, 2, 0, 0));
        NS_TEST_EXPECT_MSG_EQ(Next(q), 0u, "Isolate=src: class 0 first");
        NS_TEST_EXPECT_MSG_EQ(Next(q), 901u, "then the lane");
        NS_TEST_EXPECT_MSG_EQ(Next(q), UINT32_MAX, "empty");
        // the old placement: LE in class 0 (no lane)
        NS_TEST_EXPECT_MSG_EQ(q->Change({{"DscpMap", "le:0"}}, error),
                              MsfcQueueDisc::CHANGE_OK,
                              error);
        NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(LE), 0u, "LE=0: class 0");
        q->Dispose();
    }

    /// An NQB flow goes ahead of its class's flows; queue protection moves a deep one back.
    void NqbAhead()
    {
        for (const char* boost : {"off", "on", "across"})
        {
            Ptr<MsfcQueueDisc> q =
                NewDisc({{"Prios", "3"}, {"Flows", "16"}, {"Quantum", "1500"}, {"Boost", boost}});
            m_demotions.clear();
            q->TraceConnectWithoutContext("NqbDemotion",
                                          MakeCallback(&MsfcLeNqbTestCase::Demoted, this));
            NS_TEST_EXPECT_MSG_EQ(q->ClassOfDscp(NQB), 1u, "NQB: class 1");
            for (uint32_t i = 0; i < 6; ++i)
            {
                q->Enqueue(Pkt(1000, 1, 0, 1)); // a bulk flow of class 1 (best effort)
            }
            q->Enqueue(Pkt(200, 2, NQB, 2));
            q->Enqueue(Pkt(200, 2, NQB, 2));
            NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).activeFlows, 2u, boost << ": two flows");
            NS_TEST_EXPECT_MSG_EQ(Next(q), 2u, boost << ": the NQB flow first");
            NS_TEST_EXPECT_MSG_EQ(Next(q), 2u, boost << ": both of its packets");
            NS_TEST_EXPECT_MSG_EQ(Next(q), 1u, boost << ": then the bulk flow");
            // the NQB flow left with its deficit (1100); its next packet goes first again
            q->Enqueue(Pkt(200, 2, NQB, 2));
            NS_TEST_EXPECT_MSG_EQ(Next(q), 2u, boost << ": an NQB packet ahead again");
            // queue protection: 1000 + 1000 bytes > one quantum
            q->Enqueue(Pkt(1000, 2, NQB, 3));
            NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).nqbDemotions, 0u, boost << ": shallow");
            q->Enqueue(Pkt(1000, 2, NQB, 3));
            NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).nqbDemotions, 1u, boost << ": demoted");
            NS_TEST_EXPECT_MSG_EQ(q->GetNqbDemotions(), 1u, boost << ": the qdisc's counter");
            NS_TEST_EXPECT_MSG_EQ(m_demotions.size(), 1u, boost << ": NqbDemotion fired");
            NS_TEST_EXPECT_MSG_EQ(
                (m_demotions.size() == 1 && m_demotions[0] == std::pair<uint32_t, uint32_t>{1, 2}),
                true,
                boost << ": class 1, flow 2");
            // behind the old flows: the bulk flow spends what is left of its quantum first, then
            // they take turns
            std::vector<uint32_t> got;
            for (uint32_t i = 0; i < 4; ++i)
            {
                got.push_back(Next(q));
            }
            NS_TEST_EXPECT_MSG_EQ((got == std::vector<uint32_t>{1, 3, 1, 3}),
                                  true,
                                  boost << ": the demoted flow waits for the bulk flow's turn: "
                                        << got[0] << " " << got[1] << " " << got[2] << " "
                                        << got[3]);
            q->Dispose();
        }
    }

    /// An NQB flow below its share always goes first; one above it gets no more than it.
    void NqbShare()
    {
        Ptr<MsfcQueueDisc> q =
            NewDisc({{"Prios", "3"}, {"Flows", "16"}, {"Quantum", "1500"}, {"MaxSize", "100000p"}});
        for (uint32_t i = 0; i < 20; ++i)
        {
            q->Enqueue(Pkt(1000, 1, 0, 1));
        }
        // 100 bytes every 10 packets: far below half the class; served at once, every time
        uint32_t first = 0;
        for (uint32_t i = 0; i < 1000; ++i)
        {
            if (i % 10 == 0)
            {
                q->Enqueue(Pkt(100, 2, NQB, 2));
                first += Next(q) == 2;
            }
            else
            {
                NS_TEST_ASSERT_MSG_EQ(Next(q), 1u, "the bulk flow");
            }
            q->Enqueue(Pkt(1000, 1, 0, 1));
        }
        NS_TEST_EXPECT_MSG_EQ(first, 100u, "every thin NQB packet went first");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).nqbDemotions, 0u, "never demoted");

        // a burst of two 700-byte packets (shallow: within one quantum) each time the NQB flow
        // has drained, so it always has a packet: far above its share (half the class); it
        // gets a quantum as NQB only once the bulk flow has had its own, about once a round
        uint64_t bytes[2] = {0, 0};
        uint32_t queued = 0; // NQB packets queued
        for (uint32_t i = 0; i < 20000; ++i)
        {
            if (queued == 0)
            {
                q->Enqueue(Pkt(700, 2, NQB, 2));
                q->Enqueue(Pkt(700, 2, NQB, 2));
                queued = 2;
            }
            auto item = DynamicCast<MsfcTestItem>(q->Dequeue());
            NS_TEST_ASSERT_MSG_NE(item, nullptr, "a backlogged queue disc");
            bytes[item->GetTag() - 1] += item->GetSize();
            if (item->GetTag() == 1)
            {
                q->Enqueue(Pkt(1000, 1, 0, 1)); // the bulk flow stays backlogged
            }
            else
            {
                --queued;
            }
        }
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).nqbDemotions, 0u, "no queue protection");
        const double share = double(bytes[1]) / double(bytes[0] + bytes[1]);
        NS_TEST_EXPECT_MSG_LT(share, 0.51, "the NQB flow gets no more than its share");
        NS_TEST_EXPECT_MSG_GT(share, 0.45, "and about its share");
        q->Dispose();
    }

    /// An explicit class naming the lane or NQB (ExplicitTreatmentItem), as trace packets do.
    class ExplicitItem : public MsfcTestItem, public MsfcQueueDisc::ExplicitTreatmentItem
    {
      public:
        ExplicitItem(uint32_t size, uint32_t flow, uint32_t cls, bool lane, bool nqb, uint32_t tag)
            : MsfcTestItem(size, flow, 0, false, tag),
              m_lane(lane),
              m_nqb(nqb)
        {
            SocketPriorityTag t;
            t.SetPriority(static_cast<uint8_t>(cls));
            GetPacket()->AddPacketTag(t);
        }

        bool LeastEffort() const override
        {
            return m_lane;
        }

        bool Nqb() const override
        {
            return m_nqb;
        }

      private:
        bool m_lane; //!< names the lane
        bool m_nqb;  //!< names the NQB flag
    };

    /// Auto=all ignores the marks, LE and NQB too; an explicit class keeps what it names.
    void AutoAndExplicit()
    {
        Ptr<MsfcQueueDisc> q = NewDisc(
            {{"Prios", "3"}, {"Flows", "16"}, {"Auto", "all"}, {"UseSocketPriority", "true"}});
        NS_TEST_EXPECT_MSG_EQ(q->Classify(Pkt(100, 1, LE, 0)),
                              q->GetAutoLevel(1),
                              "Auto=all: an LE packet is an auto packet");
        NS_TEST_EXPECT_MSG_EQ(q->Classify(Create<ExplicitItem>(100, 1, 0, true, false, 0)),
                              3u,
                              "an explicit lane packet goes to the lane");
        q->Enqueue(Create<ExplicitItem>(1000, 1, 1, false, false, 1)); // bulk, class 1
        q->Enqueue(Create<ExplicitItem>(1000, 1, 1, false, false, 1));
        q->Enqueue(Create<ExplicitItem>(100, 2, 1, false, true, 2));  // NQB, class 1
        q->Enqueue(Create<ExplicitItem>(100, 3, 0, true, false, 3));  // the lane
        q->Enqueue(Create<ExplicitItem>(100, 4, 1, false, false, 4)); // no NQB
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(3).enqueuedPackets, 1u, "in the lane");
        NS_TEST_EXPECT_MSG_EQ(Next(q), 2u, "the explicit NQB packet first");
        NS_TEST_EXPECT_MSG_EQ(Next(q), 1u, "then the bulk flow");
        NS_TEST_EXPECT_MSG_EQ(Next(q), 1u, "its second packet");
        NS_TEST_EXPECT_MSG_EQ(Next(q), 4u, "then the other flow");
        NS_TEST_EXPECT_MSG_EQ(Next(q), 3u, "the lane last");
        q->Dispose();
        // without UseSocketPriority the item has no explicit class: the DSCP map decides
        q = NewDisc({{"Prios", "3"}, {"Flows", "16"}});
        q->Enqueue(Create<ExplicitItem>(100, 3, 0, true, false, 3));
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(3).enqueuedPackets, 0u, "DSCP 0: class 1");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassStats(1).enqueuedPackets, 1u, "DSCP 0: class 1");
        q->Dispose();
    }

    /// Boost=across: a class with NQB flows is a class with new flows; its NQB flows first.
    void NqbAcross()
    {
        Ptr<MsfcQueueDisc> q = NewDisc({{"Prios", "3"},
                                        {"Flows", "16"},
                                        {"Quantum", "1500"},
                                        {"Ratio", "2"},
                                        {"Boost", "across"}});
        for (uint32_t i = 0; i < 20; ++i)
        {
            q->Enqueue(Item(1500, 1, 0, 0)); // class 0
            q->Enqueue(Item(1500, 1, 2, 2)); // class 2
            q->Enqueue(Pkt(1500, 1, 0, 1));  // class 1 (best effort)
        }
        // one round (class 0 one packet, class 2 four, class 1 two; each flow became old after
        // its first quantum), then class 0's next turn: class 2's turn comes next
        for (uint32_t i = 0; i < 8; ++i)
        {
            Next(q);
        }
        q->Enqueue(Pkt(100, 5, NQB, 5)); // an NQB packet of class 1
        NS_TEST_EXPECT_MSG_EQ(Next(q), 5u, "ahead of class 2's turn, as a new flow would be");
        NS_TEST_EXPECT_MSG_EQ(Next(q), 2u, "then class 2's turn");
        q->Dispose();
    }

    void DoRun() override
    {
        LaneLast();
        LaneOverload();
        LaneChange();
        NqbAhead();
        NqbShare();
        AutoAndExplicit();
        NqbAcross();
    }

    std::vector<uint32_t> m_sojournClasses;                 //!< Sojourn: class of each packet
    std::vector<std::pair<uint32_t, uint32_t>> m_demotions; //!< NqbDemotion: class, flow
};

/**
 * The MSFC unit test suite.
 */
class MsfcQueueDiscTestSuite : public TestSuite
{
  public:
    MsfcQueueDiscTestSuite()
        : TestSuite("msfc-queue-disc", Type::UNIT)
    {
        AddTestCase(new MsfcQuantaTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcRatioShareTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcExplicitQuantaTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcCeThresholdTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcFlowCountIndependenceTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcInversionTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcInnerFairnessTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcIsolateHostsTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcWorkConservationTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcCoDelPerFlowTestCase(false), TestCase::Duration::QUICK);
        AddTestCase(new MsfcCoDelPerFlowTestCase(true), TestCase::Duration::QUICK);
        AddTestCase(new MsfcOverloadTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcOverloadClassTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcExactWeightsTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcBoostTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcBoostAcrossTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcPriorityOrderTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcAutoTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcChangeTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcLeNqbTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcClassificationTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcCheckerRangesTestCase(), TestCase::Duration::QUICK);
        AddTestCase(new MsfcInvalidConfigTestCase(), TestCase::Duration::QUICK);
    }
};

static MsfcQueueDiscTestSuite g_msfcQueueDiscTestSuite; //!< static instance
