/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "class-aqm.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

void
WredClassState::Update(uint32_t backlogPackets, double weight)
{
    m_avg = (1.0 - weight) * m_avg + weight * static_cast<double>(backlogPackets);
}

double
WredClassState::Probability(double minTh, double maxTh, double maxP) const
{
    if (m_avg < minTh)
    {
        return 0.0;
    }
    if (m_avg >= maxTh)
    {
        return 1.0;
    }
    return maxP * (m_avg - minTh) / (maxTh - minTh);
}

void
RateBasedAqm::Configure(const Config& cfg)
{
    m_cfg = cfg;
    uint32_t n = static_cast<uint32_t>(cfg.weights.size());
    if (m_cfg.utilisation.size() == 1 && n > 1)
    {
        m_cfg.utilisation.assign(n, cfg.utilisation[0]);
    }
    m_sumW = 0;
    for (double w : cfg.weights)
    {
        m_sumW += w;
    }
    m_x.assign(n, 0.0);
    m_lastArrival.assign(n, -1);
    m_p.assign(n, 0.0);
    m_servedBytes.assign(n, 0);
    m_servedTotal = 0;
    m_histClass.assign(std::max<uint32_t>(1, cfg.history), 0);
    m_histBytes.assign(std::max<uint32_t>(1, cfg.history), 0);
    m_histNext = 0;
    m_histCount = 0;
}

double
RateBasedAqm::ArrivalRate(uint32_t cls, int64_t nowNs) const
{
    if (m_lastArrival[cls] < 0)
    {
        return 0.0;
    }
    double dt = static_cast<double>(nowNs - m_lastArrival[cls]) * 1e-9;
    return m_x[cls] * std::exp(-dt / m_cfg.tauSeconds);
}

double
RateBasedAqm::ServiceShare(uint32_t cls) const
{
    if (m_servedTotal == 0)
    {
        return 0.0;
    }
    return m_cfg.linkBps * static_cast<double>(m_servedBytes[cls]) /
           static_cast<double>(m_servedTotal);
}

double
RateBasedAqm::Minimum(uint32_t cls) const
{
    return m_cfg.linkBps * m_cfg.weights[cls] / m_sumW;
}

double
RateBasedAqm::BasicCapacity(uint32_t cls) const
{
    return std::max(Minimum(cls), ServiceShare(cls));
}

bool
RateBasedAqm::Bottlenecked(uint32_t cls, int64_t nowNs) const
{
    // The control holds x_i at u_i c_i < c_i, so the seed's "x_i >= c_i" would never hold for
    // a class under control: a class is bottlenecked while its AQM curbs it (P_i > 0) or its
    // rate reaches its target u_i c_i -- as long as it still sends (x_i at least half its
    // guaranteed target u_i M_i; P_i of a class that stopped is not updated any more).
    double x = ArrivalRate(cls, nowNs);
    double u = m_cfg.utilisation[cls];
    return x >= 0.5 * u * Minimum(cls) && (m_p[cls] > 0 || x >= u * BasicCapacity(cls));
}

double
RateBasedAqm::Capacity(uint32_t cls, int64_t nowNs) const
{
    double basic = BasicCapacity(cls);
    if (!m_cfg.fairShare || !Bottlenecked(cls, nowNs))
    {
        return basic;
    }
    double wBottlenecked = 0;
    double xOthers = 0;
    for (uint32_t j = 0; j < NClasses(); ++j)
    {
        if (Bottlenecked(j, nowNs))
        {
            wBottlenecked += m_cfg.weights[j];
        }
        else
        {
            xOthers += ArrivalRate(j, nowNs);
        }
    }
    double fair = m_cfg.weights[cls] / wBottlenecked * std::max(0.0, m_cfg.linkBps - xOthers);
    return std::max(Minimum(cls), fair);
}

double
RateBasedAqm::OnArrival(uint32_t cls, uint32_t bytes, int64_t nowNs)
{
    // x <- e^{-dt/tau} x + (1 - e^{-dt/tau}) * bits / dt; the second term tends to bits / tau
    // as dt -> 0 (back-to-back arrivals).
    double bits = 8.0 * bytes;
    if (m_lastArrival[cls] < 0)
    {
        m_x[cls] = bits / m_cfg.tauSeconds;
    }
    else
    {
        double dt = static_cast<double>(nowNs - m_lastArrival[cls]) * 1e-9;
        double a = dt / m_cfg.tauSeconds;
        double decay = std::exp(-a);
        double fresh = a > 1e-9 ? -std::expm1(-a) / dt : 1.0 / m_cfg.tauSeconds;
        m_x[cls] = decay * m_x[cls] + fresh * bits;
    }
    m_lastArrival[cls] = nowNs;

    double target = m_cfg.utilisation[cls] * Capacity(cls, nowNs);
    double excess = m_x[cls] - target;
    double step = std::max(m_cfg.minStep,
                           target > 0 ? m_cfg.gain * std::fabs(excess) / target : m_cfg.minStep);
    if (excess > 0)
    {
        m_p[cls] = std::min(1.0, m_p[cls] + step);
    }
    else
    {
        m_p[cls] = std::max(0.0, m_p[cls] - step);
    }
    return m_p[cls];
}

void
RateBasedAqm::OnService(uint32_t cls, uint32_t bytes)
{
    uint32_t h = static_cast<uint32_t>(m_histClass.size());
    if (m_histCount == h)
    {
        m_servedBytes[m_histClass[m_histNext]] -= m_histBytes[m_histNext];
        m_servedTotal -= m_histBytes[m_histNext];
    }
    else
    {
        ++m_histCount;
    }
    m_histClass[m_histNext] = cls;
    m_histBytes[m_histNext] = bytes;
    m_servedBytes[cls] += bytes;
    m_servedTotal += bytes;
    m_histNext = (m_histNext + 1) % h;
}

} // namespace ns3
