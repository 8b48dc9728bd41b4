/*
 * Tests of DscpClassifier on its own (no queue disc): the default map, DscpMap overrides,
 * clamping, socket priority and the DscpMap parser's errors.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msfc-test-item.h"

#include "ns3/dscp-classifier.h"
#include "ns3/socket.h"
#include "ns3/test.h"

#include <array>
#include <string>

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
        NS_TEST_EXPECT_MSG_EQ(c.ClassOfDscp(1), 0, "LE -> 0");
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
    }
};

static DscpClassifierTestSuite g_dscpClassifierTestSuite; //!< static instance
