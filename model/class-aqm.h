/*
 * The per-class active queue management of the weighted class scheduler
 * (WeightedClassQueueDisc): WRED (backlog based) and the rate-based AQM (RB) of seed 003.
 * Plain classes without ns-3 objects, so that the estimators can be tested on their own.
 * The definitions are in docs/class-aqm.md.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CLASS_AQM_H
#define CLASS_AQM_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * WRED state of one class: an EWMA of the class's backlog (packets), updated at every
 * arrival, and a drop probability linear in it between MinTh and MaxTh.
 */
class WredClassState
{
  public:
    /**
     * Update the weighted average with the class backlog seen by an arriving packet.
     * @param backlogPackets packets queued in the class before the arrival
     * @param weight EWMA weight w (0 < w <= 1): avg <- (1-w) avg + w backlog
     */
    void Update(uint32_t backlogPackets, double weight);
    /**
     * @param minTh below this average nothing is dropped (packets)
     * @param maxTh at and above this average every packet is dropped (packets, > minTh)
     * @param maxP probability just below maxTh
     * @return maxP (avg - minTh) / (maxTh - minTh) in [minTh, maxTh), 0 below, 1 above
     */
    double Probability(double minTh, double maxTh, double maxP) const;

    /** @return the weighted average backlog (packets) */
    double Average() const
    {
        return m_avg;
    }

  private:
    double m_avg{0.0}; //!< EWMA of the backlog
};

/**
 * The rate-based AQM of seed 003 for N classes sharing a work-conserving weighted
 * scheduler.  Per class i: the arrival rate x_i (exponentially averaged over the
 * interarrival times with time constant Tau), the service share S_i (bytes of class i among
 * the last H packets served, times the link rate), the guaranteed minimum
 * M_i = W_i / sum(W) * link, the allocated capacity c_i = max(M_i, S_i), for bottlenecked
 * classes (sending, and P_i > 0 or x_i >= u_i c_i) the fair share F_i, and the marking/dropping
 * probability P_i <- P_i + dP_i * sign(x_i - u_i c_i), dP_i = max(k, g |x_i - u_i c_i| / (u_i
 * c_i)), clamped to [0, 1].  Rates are in bit/s, times in nanoseconds.
 */
class RateBasedAqm
{
  public:
    /** Parameters. */
    struct Config
    {
        std::vector<double> weights;     //!< W_i (> 0)
        std::vector<double> utilisation; //!< u_i (0 < u_i <= 1)
        double linkBps{0};               //!< link capacity S (bit/s)
        uint32_t history{100};           //!< H: served packets remembered
        double tauSeconds{0.1};          //!< time constant of the arrival rate estimate
        double gain{0.01};               //!< g: step per unit relative excess demand
        double minStep{0.001};           //!< k: smallest step of P
        bool fairShare{true};            //!< use the fair share F_i for bottlenecked classes
    };

    /**
     * (Re)start with the given parameters; all estimates zero.
     * @param cfg parameters (validated by the caller)
     */
    void Configure(const Config& cfg);
    /**
     * A packet of class cls arrives: update x_cls, then c_cls and P_cls.
     * @param cls class
     * @param bytes packet size
     * @param nowNs arrival time
     * @return the new P_cls
     */
    double OnArrival(uint32_t cls, uint32_t bytes, int64_t nowNs);
    /**
     * A packet of class cls has been handed to the link: it enters the service history.
     * @param cls class
     * @param bytes packet size
     */
    void OnService(uint32_t cls, uint32_t bytes);

    /** @return x_cls decayed to nowNs (no arrival since the last one), bit/s */
    double ArrivalRate(uint32_t cls, int64_t nowNs) const;
    /** @return S_cls: the class's share of the last H served bytes times the link rate */
    double ServiceShare(uint32_t cls) const;
    /** @return M_cls = W_cls / sum(W) * link */
    double Minimum(uint32_t cls) const;
    /** @return c_cls = max(M_cls, S_cls) (eq. 4 of the seed) */
    double BasicCapacity(uint32_t cls) const;
    /**
     * The capacity the control uses: the basic one for a class that is not bottlenecked;
     * for a bottlenecked one (see Bottlenecked) the fair share, if enabled:
     * F_i = max(M_i, W_i / sum_{j in B} W_j * (link - sum_{k not in B} x_k)).
     * @param cls class
     * @param nowNs time the rates are taken at
     * @return c_cls in bit/s
     */
    double Capacity(uint32_t cls, int64_t nowNs) const;
    /**
     * @return true when class cls still sends (x >= u M / 2) and is curbed (P > 0) or at its
     *         target (x >= u BasicCapacity), at nowNs
     */
    bool Bottlenecked(uint32_t cls, int64_t nowNs) const;

    /** @return P_cls */
    double Probability(uint32_t cls) const
    {
        return m_p[cls];
    }

    /** @return the number of classes configured */
    uint32_t NClasses() const
    {
        return static_cast<uint32_t>(m_cfg.weights.size());
    }

  private:
    Config m_cfg;                        //!< parameters
    double m_sumW{0};                    //!< sum of the weights
    std::vector<double> m_x;             //!< arrival rate at the last arrival (bit/s)
    std::vector<int64_t> m_lastArrival;  //!< time of the last arrival (ns), -1 = none
    std::vector<double> m_p;             //!< marking/dropping probability
    std::vector<uint64_t> m_servedBytes; //!< bytes per class in the history
    uint64_t m_servedTotal{0};           //!< bytes in the history
    std::vector<uint32_t> m_histClass;   //!< ring: class of each served packet
    std::vector<uint32_t> m_histBytes;   //!< ring: size of each served packet
    uint32_t m_histNext{0};              //!< ring: next slot
    uint32_t m_histCount{0};             //!< ring: entries in use
};

} // namespace ns3

#endif /* CLASS_AQM_H */
