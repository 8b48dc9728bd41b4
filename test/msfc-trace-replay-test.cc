/*
 * Cross-check: every trace in test/vectors replayed through MsfcQueueDisc
 * gives exactly the dequeue sequence in its .expected file (the same file the
 * Linux qdisc's KUnit suite checks against).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msfc-trace-replay.h"

#include "ns3/abort.h"
#include "ns3/test.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace ns3;

/**
 * One trace, replayed and compared line by line.
 */
class MsfcTraceReplayTestCase : public TestCase
{
  public:
    MsfcTraceReplayTestCase(const std::filesystem::path& trace)
        : TestCase("replay " + trace.stem().string()),
          m_trace(trace)
    {
    }

  private:
    void DoRun() override
    {
        std::vector<std::string> got;
        std::string replayError;
        bool ok = ReplayMsfcTrace(m_trace.string(), got, replayError);
        NS_TEST_ASSERT_MSG_EQ(ok, true, replayError);
        if (!ok)
        {
            return;
        }
        std::filesystem::path expectedPath = m_trace;
        expectedPath.replace_extension(".expected");
        std::ifstream in(expectedPath);
        NS_TEST_ASSERT_MSG_EQ(in.good(), true, "cannot read " << expectedPath);
        std::vector<std::string> want;
        std::string line;
        while (std::getline(in, line))
        {
            want.push_back(line);
        }
        NS_TEST_EXPECT_MSG_EQ(got.size(), want.size(), "number of dequeues");
        for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
        {
            if (got[i] != want[i])
            {
                NS_TEST_EXPECT_MSG_EQ(got[i], want[i], "first difference at dequeue #" << i + 1);
                return;
            }
        }
    }

    std::filesystem::path m_trace;
};

/**
 * All traces of test/vectors.
 */
class MsfcTraceReplayTestSuite : public TestSuite
{
  public:
    MsfcTraceReplayTestSuite()
        : TestSuite("msfc-trace-replay", Type::UNIT)
    {
        std::filesystem::path dir = std::filesystem::path(MSFC_SOURCE_DIR) / "test" / "vectors";
        std::vector<std::filesystem::path> traces;
        for (const auto& e : std::filesystem::directory_iterator(dir))
        {
            if (e.path().extension() == ".trace")
            {
                traces.push_back(e.path());
            }
        }
        std::sort(traces.begin(), traces.end());
        NS_ABORT_MSG_IF(traces.empty(), "no cross-check traces in " << dir.string());
        for (const auto& t : traces)
        {
            AddTestCase(new MsfcTraceReplayTestCase(t), TestCase::Duration::QUICK);
        }
    }
};

static MsfcTraceReplayTestSuite g_msfcTraceReplayTestSuite; //!< static instance
