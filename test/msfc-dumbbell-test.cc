/*
 * End-to-end: TCP flows in three classes over a 10 Mbps dumbbell; MSFC's
 * measured goodput shares follow 1 : Ratio : Ratio^2, FqCoDel's are equal.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scenarios/lib/dumbbell.h"

#include "ns3/core-module.h"
#include "ns3/test.h"

#include <cmath>

using namespace ns3;
using namespace msfc::scenario;

/**
 * Goodput shares of three TCP classes through one bottleneck.
 */
class MsfcDumbbellShareTestCase : public TestCase
{
  public:
    MsfcDumbbellShareTestCase(std::string scheduler, double ratio)
        : TestCase("TCP goodput shares under " + scheduler + " with Ratio " +
                   std::to_string(ratio).substr(0, 3)),
          m_scheduler(scheduler),
          m_ratio(ratio)
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::MsfcQueueDisc::Ratio", DoubleValue(m_ratio));
        DumbbellConfig cfg;
        cfg.scheduler = m_scheduler;
        cfg.duration = Seconds(20);
        cfg.warmup = Seconds(5);
        for (uint32_t c = 0; c < 3; ++c)
        {
            for (int i = 0; i < 2; ++i)
            {
                DumbbellFlow f;
                f.dscp = MsfcQueueDisc::DscpForDefaultClass(c);
                cfg.flows.push_back(f);
            }
        }
        DumbbellResult r = RunDumbbell(cfg);
        double cls[3] = {0, 0, 0};
        double total = 0;
        for (size_t i = 0; i < r.flows.size(); ++i)
        {
            cls[i / 2] += r.flows[i].goodputMbps;
            total += r.flows[i].goodputMbps;
        }
        NS_TEST_ASSERT_MSG_GT(total, 9.0, "the 10 Mbps bottleneck is used");
        double weights[3] = {1, 1, 1};
        if (m_scheduler == "Msfc")
        {
            weights[1] = m_ratio;
            weights[2] = m_ratio * m_ratio;
        }
        double wsum = weights[0] + weights[1] + weights[2];
        for (int c = 0; c < 3; ++c)
        {
            double want = weights[c] / wsum;
            double got = cls[c] / total;
            // Stated tolerance: 5 % of the expected share (TCP dynamics, 15 s measured).
            NS_TEST_EXPECT_MSG_LT(std::fabs(got - want) / want,
                                  0.05,
                                  "class " << c << " share " << got << ", expected " << want);
        }
        Config::Reset();
    }

    std::string m_scheduler;
    double m_ratio;
};

/**
 * End-to-end suite (a few seconds of wall time per case).
 */
class MsfcDumbbellTestSuite : public TestSuite
{
  public:
    MsfcDumbbellTestSuite()
        : TestSuite("msfc-dumbbell", Type::SYSTEM)
    {
        AddTestCase(new MsfcDumbbellShareTestCase("Msfc", 2.0), TestCase::Duration::QUICK);
        AddTestCase(new MsfcDumbbellShareTestCase("Msfc", 1.5), TestCase::Duration::QUICK);
        AddTestCase(new MsfcDumbbellShareTestCase("FqCoDel", 2.0), TestCase::Duration::QUICK);
    }
};

static MsfcDumbbellTestSuite g_msfcDumbbellTestSuite; //!< static instance
