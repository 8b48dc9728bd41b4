/*
 * Tests of DscpClassifier on its own (no queue disc): the default map, the named maps,
 * DscpMap overrides, clamping, socket priority, the least-effort lane and NQB entries and the
 * DscpMap parser's errors.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msfc-test-item.h"

#include "ns3/dscp-classifier.h"
#include "ns3/socket.h"
#include "ns3/test.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

/**
 * The table: default rule, overrides, clamping to the number of classes.
 */
class DscpClassifierMapTestCase : public TestCase
{
  public:
    DscpClassifierMapTestCase()
        : TestCase("default map, overrides and clamping")
    {
    }

  private:
    void DoRun() override
    {
        DscpClassifier c;
        NS_TEST_ASSERT_MSG_EQ(c.Configure(8, "", false), "", "empty map is valid");
        NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(8), 0, "CS1 -> 0");
        NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(1), 0, "LE -> the lane, class 0 for a class reader");
        NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(0), 1, "best effort -> 1");
        NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(10), 1, "AF11 -> 1");
        NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(46), 5, "EF -> 46 >> 3 = 5");
        NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(56), 7, "CS7 -> 7");
        for (uint32_t cls = 0; cls < 8; ++cls)
        {
            NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(DscpClassifier::DscpForDefaultClass(cls)),
                                  cls,
                                  "DscpForDefaultClass inverts the default map");
        }

        NS_TEST_ASSERT_MSG_EQ(c.Configure(3, "EF=0; af41:2, 10=2", false), "", "valid map");
        NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(46), 0, "override by name");
        NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(34), 2, "lower-case name, ':' separator");
        NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(10), 2, "override by number");
        NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(56), 2, "CS7 clamped to the top class");
        NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(0), 1, "unlisted code points keep the default");

        NS_TEST_ASSERT_MSG_EQ(c.Configure(1, "EF=2", false), "", "valid map");
        NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(46), 0, "one class: everything in class 0");
    }
};

/**
 * Classify: DSCP of IP packets, DSCP 0 for non-IP packets, socket priority when enabled.
 */
class DscpClassifierPacketTestCase : public TestCase
{
  public:
    DscpClassifierPacketTestCase()
        : TestCase("packets: DSCP, non-IP, socket priority")
    {
    }

  private:
    void DoRun() override
    {
        DscpClassifier c;
        c.Configure(4, "", false);
        NS_TEST_EXPECT_MSG_EQ(c.Classify(Create<MsfcTestItem>(100, 0, 26)), 3, "AF31 -> 3");
        NS_TEST_EXPECT_MSG_EQ(c.Classify(Create<MsfcTestItem>(100, 0, 8)), 0, "CS1 -> 0");
        NS_TEST_EXPECT_MSG_EQ(c.Classify(Create<MsfcTestItem>(100, 0, -1)), 1, "non-IP");

        Ptr<MsfcTestItem> tagged = Create<MsfcTestItem>(100, 0, 8);
        SocketPriorityTag tag;
        tag.SetPriority(2);
        tagged->GetPacket()->AddPacketTag(tag);
        NS_TEST_EXPECT_MSG_EQ(c.Classify(tagged), 0, "tag ignored by default");
        c.Configure(4, "", true);
        NS_TEST_EXPECT_MSG_EQ(c.Classify(tagged), 2, "tag wins when enabled");
        tag.SetPriority(9);
        tagged->GetPacket()->ReplacePacketTag(tag);
        NS_TEST_EXPECT_MSG_EQ(c.Classify(tagged), 3, "priority clamped to the top class");
        NS_TEST_EXPECT_MSG_EQ(c.Classify(Create<MsfcTestItem>(100, 0, 26)), 3, "no tag: DSCP");
    }
};

/**
 * The map entries of the least-effort lane ("le") and of NQB flows ("<class>+nqb"): the
 * default and named maps' entries, the parser, the clamp of the class bits only, the
 * treatment of packets, the printed form, and the entries refused.
 */
class DscpClassifierLeNqbTestCase : public TestCase
{
  public:
    DscpClassifierLeNqbTestCase()
        : TestCase("LE and NQB entries: le, <class>+nqb")
    {
    }

  private:
    void DoRun() override
    {
        constexpr uint8_t LE = DscpClassifier::ENTRY_LE;
        constexpr uint8_t NQB = DscpClassifier::ENTRY_NQB;
        DscpClassifier c;
        NS_TEST_ASSERT_MSG_EQ(c.Configure(3, "", false), "", "the default map");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(1)}, unsigned{LE}, "LE -> the lane");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(45)}, NQB + 1u, "NQB -> 1+nqb");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(8)}, 0u, "CS1 -> 0");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(44)}, 2u, "VA -> 5, clamped to 2");
        NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(45), 1u, "a class reader sees NQB's class");
        NS_TEST_EXPECT_MSG_EQ(DscpClassifier::DefaultClassOfDscp(45), 1u, "default class of NQB");
        NS_TEST_EXPECT_MSG_EQ(unsigned{DscpClassifier::DefaultEntryOfDscp(1)},
                              unsigned{LE},
                              "default entry of LE");

        // the clamp applies to the class bits: the flag stays, the lane is never clamped
        NS_TEST_ASSERT_MSG_EQ(c.Configure(3, "NQB=7+nqb, EF=le, CS1=0+NQB", false), "", "valid");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(45)}, NQB + 2u, "7+nqb -> 2+nqb");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(46)}, unsigned{LE}, "EF=le");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(8)}, NQB + 0u, "any case");
        NS_TEST_ASSERT_MSG_EQ(c.Configure(1, "", false), "", "one class");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(1)}, unsigned{LE}, "the lane, one class");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(45)}, NQB + 0u, "1+nqb -> 0+nqb");
        // the old placement back (docs/algorithm.md)
        NS_TEST_ASSERT_MSG_EQ(c.Configure(8, "le:0, nqb:5", false), "", "le:0,nqb:5");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(1)}, 0u, "LE in class 0");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(45)}, 5u, "NQB in class 5, not NQB");

        // the named maps: NQB with the flag, LE in class 0 unless the lane is asked for
        NS_TEST_ASSERT_MSG_EQ(c.Configure(4, "diffserv4", false), "", "diffserv4");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(45)}, NQB + 1u, "diffserv4: 1+nqb");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(1)}, 0u, "diffserv4: LE in bulk");
        NS_TEST_ASSERT_MSG_EQ(c.Configure(4, "diffserv4, le:le", false), "", "diffserv4,le:le");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(1)}, unsigned{LE}, "diffserv4,le:le");
        NS_TEST_ASSERT_MSG_EQ(c.Configure(4, "wifi", false), "", "wifi");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(45)}, NQB + 2u, "wifi: AC_VI, NQB");
        NS_TEST_ASSERT_MSG_EQ(c.Configure(8, "diffserv8", false), "", "diffserv8");
        NS_TEST_EXPECT_MSG_EQ(unsigned{c.EntryOfDscp(45)}, NQB + 2u, "diffserv8: 2+nqb");

        // packets
        NS_TEST_ASSERT_MSG_EQ(c.Configure(3, "", true), "", "default map, socket priority");
        DscpClassifier::Origin origin;
        uint8_t dscp;
        auto t = c.ClassifyTreatment(Create<MsfcTestItem>(100, 0, 1), origin, dscp);
        NS_TEST_EXPECT_MSG_EQ((t.lane && !t.nqb && t.cls == 0), true, "an LE packet: the lane");
        t = c.ClassifyTreatment(Create<MsfcTestItem>(100, 0, 45), origin, dscp);
        NS_TEST_EXPECT_MSG_EQ((!t.lane && t.nqb && t.cls == 1), true, "an NQB packet");
        NS_TEST_EXPECT_MSG_EQ(unsigned{dscp}, 45u, "its DSCP");
        t = c.ClassifyTreatment(Create<MsfcTestItem>(100, 0, 0), origin, dscp);
        NS_TEST_EXPECT_MSG_EQ((!t.lane && !t.nqb && t.cls == 1), true, "best effort");
        Ptr<MsfcTestItem> tagged = Create<MsfcTestItem>(100, 0, 45);
        SocketPriorityTag tag;
        tag.SetPriority(2);
        tagged->GetPacket()->AddPacketTag(tag);
        t = c.ClassifyTreatment(tagged, origin, dscp);
        NS_TEST_EXPECT_MSG_EQ((!t.lane && !t.nqb && t.cls == 2),
                              true,
                              "an explicit class addresses the classes only");
        NS_TEST_ASSERT_MSG_EQ(c.Configure(3, "BE=le", false), "", "BE=le");
        t = c.ClassifyTreatment(Create<MsfcTestItem>(100, 0, -1), origin, dscp);
        NS_TEST_EXPECT_MSG_EQ((t.lane && origin == DscpClassifier::Origin::NON_IP),
                              true,
                              "a non-IP packet takes DSCP 0's entry");

        // printed and checked as the UAPI carries them
        NS_TEST_EXPECT_MSG_EQ(DscpClassifier::FormatEntry(LE), "le", "le");
        NS_TEST_EXPECT_MSG_EQ(DscpClassifier::FormatEntry(NQB + 3), "3+nqb", "3+nqb");
        NS_TEST_EXPECT_MSG_EQ(DscpClassifier::FormatEntry(15), "15", "15");
        for (uint32_t v : {0u, 15u, 64u, 79u, 128u})
        {
            NS_TEST_EXPECT_MSG_EQ(DscpClassifier::ValidEntry(v), true, v << " is an entry");
        }
        for (uint32_t v : {16u, 63u, 80u, 127u, 129u, 192u, 255u})
        {
            NS_TEST_EXPECT_MSG_EQ(DscpClassifier::ValidEntry(v), false, v << " is no entry");
        }

        std::array<int32_t, 64> map;
        std::string error;
        NS_TEST_EXPECT_MSG_EQ(
            DscpClassifier::ParseDscpMap("LE=le, NQB = 1+nqb, 2=15+nqb", map, error),
            true,
            "valid entries: " << error);
        NS_TEST_EXPECT_MSG_EQ(map[1], int32_t{LE}, "le");
        NS_TEST_EXPECT_MSG_EQ(map[45], NQB + 1, "1+nqb");
        NS_TEST_EXPECT_MSG_EQ(map[2], NQB + 15, "15+nqb");
        for (const char* bad : {"EF=le+nqb",
                                "EF=16+nqb",
                                "EF=+nqb",
                                "EF=1+nq",
                                "EF=nqb",
                                "EF=1+nqb+nqb",
                                "EF=lee",
                                "EF=1 + nqb"})
        {
            error.clear();
            NS_TEST_EXPECT_MSG_EQ(DscpClassifier::ParseDscpMap(bad, map, error),
                                  false,
                                  "'" << bad << "' is rejected");
            NS_TEST_EXPECT_MSG_NE(error.find(TC_MSFC_DSCP_MAP_MSG),
                                  std::string::npos,
                                  "the UAPI's words: " << error);
            NS_TEST_EXPECT_MSG_NE(error.find(std::string("entry '") + bad + "'"),
                                  std::string::npos,
                                  "the message names the entry: " << error);
        }
    }
};

/**
 * ParseDscpMap rejects malformed entries with a message naming the entry.
 */
class DscpClassifierParseTestCase : public TestCase
{
  public:
    DscpClassifierParseTestCase()
        : TestCase("DscpMap parse errors")
    {
    }

  private:
    void DoRun() override
    {
        std::array<int32_t, 64> map;
        std::string error;
        NS_TEST_EXPECT_MSG_EQ(DscpClassifier::ParseDscpMap(" EF = 2 ,, CS1=0 ", map, error),
                              true,
                              "spaces and empty entries are fine");
        NS_TEST_EXPECT_MSG_EQ(map[46], 2, "EF");
        NS_TEST_EXPECT_MSG_EQ(map[8], 0, "CS1");
        NS_TEST_EXPECT_MSG_EQ(map[0], -1, "unlisted");
        for (const char* bad : {"EF", "XX=1", "64=1", "EF=16", "EF=-1", "EF=one"})
        {
            error.clear();
            NS_TEST_EXPECT_MSG_EQ(DscpClassifier::ParseDscpMap(bad, map, error),
                                  false,
                                  "'" << bad << "' is rejected");
            NS_TEST_EXPECT_MSG_NE(error.find("DscpMap entry"),
                                  std::string::npos,
                                  "message names the entry: " << error);
        }
        DscpClassifier c;
        NS_TEST_EXPECT_MSG_NE(c.Configure(3, "EF=0, XX=1", false), "", "Configure reports it");
        NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(46), 2, "and falls back to the default map");
    }
};

/**
 * The named maps of pkt_sched_msfc.h as DscpMap bases: the classes cake's diffserv3 / 4 / 8
 * and RFC 8325's access categories give the named code points (class 0 least important),
 * overrides on top, any case, clamping, and a name anywhere but first refused.
 */
class DscpClassifierNamedMapTestCase : public TestCase
{
  public:
    DscpClassifierNamedMapTestCase()
        : TestCase("named maps: diffserv3, diffserv4, diffserv8, wifi")
    {
    }

  private:
    /// DSCP -> expected class under the map `spec` with `prios` classes
    void Expect(const std::string& spec,
                uint32_t prios,
                const std::vector<std::pair<uint8_t, uint32_t>>& expected)
    {
        DscpClassifier c;
        NS_TEST_ASSERT_MSG_EQ(c.Configure(prios, spec, false), "", spec << " is valid");
        for (const auto& [dscp, cls] : expected)
        {
            NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(dscp),
                                  cls,
                                  spec << ", prios " << prios << ": DSCP " << unsigned{dscp});
        }
    }

    void DoRun() override
    {
        // LE 1, TOS2 2, TOS4 4, CS1 8, AF11 10, CS2 16, AF21 18, unnamed 17, CS3 24, AF31 26,
        // CS4 32, AF41 34, CS5 40, unnamed 41, VA 44, EF 46, CS6 48, CS7 56, unnamed 63
        Expect("diffserv3",
               3,
               {{0, 1},
                {1, 0},
                {2, 1},
                {4, 2},
                {8, 0},
                {10, 1},
                {16, 1},
                {24, 1},
                {34, 1},
                {40, 1},
                {44, 2},
                {46, 2},
                {48, 2},
                {56, 2},
                {63, 1}});
        Expect("diffserv4", 4, {{0, 1},  {1, 0},  {2, 1},  {4, 2},  {8, 0},  {10, 1}, {16, 2},
                                {17, 1}, {18, 2}, {24, 2}, {26, 2}, {32, 3}, {34, 2}, {40, 3},
                                {41, 1}, {44, 3}, {46, 3}, {48, 3}, {56, 3}, {63, 1}});
        Expect("diffserv8",
               8,
               {{0, 2},
                {1, 0},
                {2, 1},
                {4, 4},
                {8, 1},
                {10, 1},
                {16, 5},
                {17, 2},
                {18, 4},
                {24, 3},
                {26, 3},
                {32, 6},
                {34, 3},
                {40, 6},
                {44, 6},
                {46, 6},
                {48, 7},
                {56, 7},
                {63, 2}});
        Expect("wifi",
               4,
               {{0, 1},
                {1, 0},
                {2, 1},
                {4, 1},
                {8, 0},
                {10, 1},
                {16, 1},
                {18, 1},
                {24, 2},
                {26, 2},
                {32, 2},
                {34, 2},
                {40, 2},
                {41, 1},
                {44, 3},
                {46, 3},
                {48, 3},
                {56, 3},
                {63, 1}});
        // the default map by name is the empty DscpMap's
        Expect("default", 8, {{0, 1}, {1, 0}, {8, 0}, {46, 5}, {56, 7}});
        // a base in any case, then overrides in either syntax
        Expect("WiFi, CS6=1; cs7:1, 0=2", 4, {{48, 1}, {56, 1}, {0, 2}, {46, 3}, {8, 0}});
        Expect("DiffServ4, EF=0", 4, {{46, 0}, {44, 3}, {34, 2}});
        // fewer classes than the map has: clamped to the top class
        Expect("diffserv4", 3, {{46, 2}, {34, 2}, {0, 1}, {8, 0}});
        Expect("diffserv8", 4, {{48, 3}, {46, 3}, {4, 3}, {24, 3}, {0, 2}, {8, 1}, {1, 0}});

        std::array<int32_t, 64> map;
        std::string error;
        NS_TEST_EXPECT_MSG_EQ(DscpClassifier::ParseDscpMap("diffserv4", map, error),
                              true,
                              "a name alone");
        NS_TEST_EXPECT_MSG_EQ(map[0], 1, "the base fills every code point");
        NS_TEST_EXPECT_MSG_EQ(map[63], 1, "the base fills every code point");
        error.clear();
        NS_TEST_EXPECT_MSG_EQ(DscpClassifier::ParseDscpMap("EF=2, wifi", map, error),
                              false,
                              "a name after an entry");
        NS_TEST_EXPECT_MSG_NE(error.find("'wifi' must come first"),
                              std::string::npos,
                              "the message says where the name goes: " << error);
        error.clear();
        NS_TEST_EXPECT_MSG_EQ(DscpClassifier::ParseDscpMap("diffserv9", map, error),
                              false,
                              "an unknown name");
        NS_TEST_EXPECT_MSG_NE(error.find(TC_MSFC_DSCP_MAP_NAMES),
                              std::string::npos,
                              "the message lists the map names: " << error);
    }
};

/**
 * DscpClassifier, independent of any queue disc.
 */
class DscpClassifierTestSuite : public TestSuite
{
  public:
    DscpClassifierTestSuite()
        : TestSuite("dscp-classifier", Type::UNIT)
    {
        AddTestCase(new DscpClassifierMapTestCase, TestCase::Duration::QUICK);
        AddTestCase(new DscpClassifierPacketTestCase, TestCase::Duration::QUICK);
        AddTestCase(new DscpClassifierParseTestCase, TestCase::Duration::QUICK);
        AddTestCase(new DscpClassifierNamedMapTestCase, TestCase::Duration::QUICK);
        AddTestCase(new DscpClassifierLeNqbTestCase, TestCase::Duration::QUICK);
    }
};

static DscpClassifierTestSuite g_dscpClassifierTestSuite; //!< static instance
