/*
 * Impossible configurations of the project's queue discs are refused when the queue disc is
 * initialised, through ns-3's error path (NS_ABORT_MSG) with a message naming the attribute,
 * and attribute checkers refuse values outside their ranges when they are set.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

using Attrs = std::vector<std::pair<std::string, std::string>>;

/// What happened to a child process that initialised a queue disc.
struct Outcome
{
    bool aborted{false};    //!< the child ended by a signal or a non-zero exit
    std::string stderrText; //!< what it wrote to stderr
};

/**
 * Create and initialise a queue disc in a child process (an ns-3 fatal error ends the
 * process) and collect its fate and its stderr.
 * @param type TypeId name
 * @param attrs attributes
 * @return the outcome
 */
Outcome
InitialiseInChild(const std::string& type, const Attrs& attrs)
{
    int fds[2];
    Outcome out;
    if (pipe(fds) != 0)
    {
        out.stderrText = "pipe() failed";
        return out;
    }
    pid_t pid = fork();
    if (pid == 0)
    {
        struct rlimit noCore = {0, 0};
        setrlimit(RLIMIT_CORE, &noCore);
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        ObjectFactory f;
        f.SetTypeId(type);
        for (const auto& [k, v] : attrs)
        {
            f.Set(k, StringValue(v));
        }
        Ptr<Object> q = f.Create();
        q->Initialize();
        _exit(0);
    }
    close(fds[1]);
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof(buf))) > 0)
    {
        out.stderrText.append(buf, static_cast<size_t>(n));
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    out.aborted = !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return out;
}

} // namespace

/**
 * CheckConfig refuses impossible values with the attribute's message, through ns-3's error
 * path; valid configurations initialise.
 */
class ConfigErrorsAtInitialisationTestCase : public TestCase
{
  public:
    ConfigErrorsAtInitialisationTestCase()
        : TestCase("impossible configurations end the simulation with their message")
    {
    }

  private:
    void DoRun() override
    {
        struct Case
        {
            std::string type;
            Attrs attrs;
            std::string expect; //!< empty: must initialise
        };

        std::vector<Case> cases = {
            {"ns3::MsfcQueueDisc", {}, ""},
            {"ns3::MsfcQueueDisc",
             {{"Target", "200ms"}},
             "MsfcQueueDisc: Target=+200ms, Interval=+100ms: target must be at least 2 us and "
             "below interval"},
            // out of the checker's range: refused when set, by ns-3's attribute system
            {"ns3::MsfcQueueDisc",
             {{"Prios", "17"}},
             "Invalid value for attribute set (Prios) on ns3::MsfcQueueDisc"},
            {"ns3::MsfcQueueDisc",
             {{"Interval", "2001s"}},
             "Invalid value for attribute set (Interval) on ns3::MsfcQueueDisc"},
            {"ns3::MsfcQueueDisc",
             {{"DscpMap", "EF=x"}},
             "class 'x': dscp map entries must be classes 0 .. 15"},
            {"ns3::MsfcQueueDisc", {{"DscpMap", "wifi, CS6=1"}}, ""},
            {"ns3::MsfcQueueDisc",
             {{"DscpMap", "wlan"}},
             "nor a map name (default, diffserv3, diffserv4, diffserv8 or wifi, first)"},
            {"ns3::FqCoDelVariantQueueDisc", {}, ""},
            {"ns3::FqCoDelVariantQueueDisc",
             {{"Target", "200ms"}},
             "FqCoDelVariantQueueDisc: Target=+200ms must be > 0 and at most Interval=+100ms"},
            {"ns3::FqCoDelVariantQueueDisc",
             {{"MaxSize", "0p"}},
             "FqCoDelVariantQueueDisc: MaxSize=0p must be at least 1 packet, in packets"},
            {"ns3::SfqQueueDisc", {}, ""},
            {"ns3::SfqQueueDisc",
             {{"MaxSize", "0p"}},
             "SfqQueueDisc: MaxSize=0p must be at least 1p"},
            {"ns3::WeightedClassQueueDisc", {}, ""},
            {"ns3::WeightedClassQueueDisc",
             {{"Classes", "17"}},
             "WeightedClassQueueDisc: Classes=17 is out of range: allowed 1..16"},
        };
        for (const auto& c : cases)
        {
            Outcome o = InitialiseInChild(c.type, c.attrs);
            if (c.expect.empty())
            {
                NS_TEST_EXPECT_MSG_EQ(o.aborted,
                                      false,
                                      c.type << " with defaults initialises: " << o.stderrText);
                continue;
            }
            NS_TEST_EXPECT_MSG_EQ(o.aborted, true, c.type << " refuses '" << c.expect << "'");
            NS_TEST_EXPECT_MSG_NE(o.stderrText.find(c.expect),
                                  std::string::npos,
                                  "expected '" << c.expect << "' in '" << o.stderrText << "'");
        }
    }
};

/**
 * Attribute checkers carry the ranges of the FQ-CoDel variant's Quantum, Target and Interval.
 */
class ConfigCheckerRangesTestCase : public TestCase
{
  public:
    ConfigCheckerRangesTestCase()
        : TestCase("attribute checkers refuse out-of-range values")
    {
    }

  private:
    void DoRun() override
    {
        TypeId tid = TypeId::LookupByName("ns3::FqCoDelVariantQueueDisc");
        TypeId::AttributeInformation info;
        NS_TEST_ASSERT_MSG_EQ(tid.LookupAttributeByName("Quantum", &info), true, "Quantum");
        NS_TEST_EXPECT_MSG_EQ(info.checker->Check(UintegerValue(1048576)), true, "max quantum");
        NS_TEST_EXPECT_MSG_EQ(info.checker->Check(UintegerValue(1048577)), false, "too large");
        for (const char* name : {"Target", "Interval"})
        {
            NS_TEST_ASSERT_MSG_EQ(tid.LookupAttributeByName(name, &info), true, name);
            NS_TEST_EXPECT_MSG_EQ(info.checker->Check(TimeValue(NanoSeconds(1))), true, name);
            NS_TEST_EXPECT_MSG_EQ(info.checker->Check(TimeValue(Seconds(0))), false, name);
        }
    }
};

/**
 * Configuration errors.
 */
class ConfigErrorsTestSuite : public TestSuite
{
  public:
    ConfigErrorsTestSuite()
        : TestSuite("queue-disc-config-errors", Type::UNIT)
    {
        AddTestCase(new ConfigErrorsAtInitialisationTestCase, TestCase::Duration::QUICK);
        AddTestCase(new ConfigCheckerRangesTestCase, TestCase::Duration::QUICK);
    }
};

static ConfigErrorsTestSuite g_configErrorsTestSuite; //!< static instance
