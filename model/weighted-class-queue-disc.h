/*
 * A work-conserving weighted class scheduler with per-class AQM: the DiffServ
 * "WFQ + WRED" architecture and seed 003's "WFQ + rate-based AQM".
 *
 * Packets are classified into Classes priority classes exactly as MSFC classifies them
 * (DscpClassifier: DSCP map, optionally socket priority); class Classes-1 is the most
 * important.  Each class is a FIFO with work quantum W_i (Weights, bytes).  Two service
 * disciplines:
 *   - Wfq: seed 003's low-jitter WFQ: in every round each class may send W_i bytes; the
 *     most important class with enough credit for its head packet is served first, so a
 *     higher class is served at once while it has not used its quantum in the round.
 *     An idle class keeps at most MaxS bytes of credit (the burst it may send at once).
 *   - Drr: deficit round robin over the backlogged classes with quantum W_i.
 * AQM per class at enqueue: none (drop tail at MaxSize), WRED, or RB.  The definitions are
 * in docs/class-aqm.md.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef WEIGHTED_CLASS_QUEUE_DISC_H
#define WEIGHTED_CLASS_QUEUE_DISC_H

#include "class-aqm.h"
#include "dscp-classifier.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/queue-disc.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace ns3
{

/** Per-class counters of a WeightedClassQueueDisc. */
struct WeightedClassStats
{
    uint64_t enqueuedPackets{0}; //!< packets accepted
    uint64_t enqueuedBytes{0};   //!< bytes accepted
    uint64_t dequeuedPackets{0}; //!< packets handed to the device
    uint64_t dequeuedBytes{0};   //!< bytes handed to the device
    uint64_t aqmDrops{0};        //!< packets dropped by WRED or RB
    uint64_t aqmMarks{0};        //!< packets CE-marked by WRED or RB instead of dropped
    uint64_t overflowDrops{0};   //!< packets dropped because the queue disc was full
    uint32_t backlogPackets{0};  //!< packets queued now
    uint64_t backlogBytes{0};    //!< bytes queued now
};

/**
 * @ingroup traffic-control
 * Weighted class scheduler (low-jitter WFQ or DRR) with drop tail, WRED or rate-based AQM.
 */
class WeightedClassQueueDisc : public QueueDisc
{
  public:
    /** Service discipline. */
    enum Discipline
    {
        LOW_JITTER_WFQ, //!< seed 003's low-jitter WFQ
        DRR             //!< deficit round robin
    };

    /** Queue management of each class. */
    enum Aqm
    {
        DROP_TAIL, //!< only the shared MaxSize limit
        WRED,      //!< weighted RED
        RB         //!< rate-based AQM of seed 003
    };

    static constexpr const char* AQM_DROP = "AQM drop";                  //!< WRED / RB drop
    static constexpr const char* AQM_MARK = "AQM mark";                  //!< WRED / RB CE mark
    static constexpr const char* OVERFLOW_DROP = "Overflow drop";        //!< above MaxSize
    static constexpr uint32_t MAX_CLASSES = DscpClassifier::MAX_CLASSES; //!< most classes

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    WeightedClassQueueDisc();
    ~WeightedClassQueueDisc() override;

    /** @return the number of classes */
    uint32_t GetNClasses() const;
    /** @return W of class cls in bytes (valid after initialization) */
    uint32_t GetWeight(uint32_t cls) const;
    /** @return the counters of class cls */
    WeightedClassStats GetClassStats(uint32_t cls) const;
    /** @return the class of a packet (no side effects; valid after initialization) */
    uint32_t Classify(Ptr<const QueueDiscItem> item) const;
    /** @return the rate-based AQM state (meaningful with Aqm=Rb) */
    const RateBasedAqm& GetRateBasedAqm() const;
    /** @return WRED's weighted average backlog of class cls (packets) */
    double GetWredAverage(uint32_t cls) const;
    /** @return the link rate used by RB (bit/s; 0 when not needed and not known) */
    double GetLinkRate() const;

    /**
     * Parse a comma-separated list of positive numbers ("1000, 2000").
     * @param spec the text
     * @param out the values
     * @param error set when the text is malformed
     * @return true on success
     */
    static bool ParseList(const std::string& spec, std::vector<double>& out, std::string& error);

    /**
     * Check the configured attributes (not the link rate, which needs the device).
     * @return empty when valid, else a message naming the attribute and the allowed values
     */
    std::string ValidateConfiguration() const;

    /**
     * Assign a fixed random variable stream number to the random variables used by this model.
     * @param stream first stream index to use
     * @return the number of stream indices assigned by this model
     */
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;

    Ptr<QueueDiscItem> DequeueWfq();
    Ptr<QueueDiscItem> DequeueDrr();
    Ptr<QueueDiscItem> TakeHead(uint32_t cls);
    uint32_t HeadSize(uint32_t cls) const;

    // Attributes
    uint32_t m_nClasses;       //!< Classes
    std::string m_weightsSpec; //!< Weights
    Discipline m_discipline;   //!< Discipline
    uint32_t m_maxS;           //!< MaxS (0: the class's quantum)
    Aqm m_aqm;                 //!< Aqm
    bool m_useEcn;             //!< UseEcn
    std::string m_dscpMapSpec; //!< DscpMap
    bool m_useSocketPriority;  //!< UseSocketPriority
    double m_wredWeight;       //!< WredWeight
    double m_wredMinTh;        //!< WredMinTh
    double m_wredMaxTh;        //!< WredMaxTh (the seed's q)
    double m_wredMaxP;         //!< WredMaxP
    std::string m_rbUtilSpec;  //!< RbUtilisation
    uint32_t m_rbHistory;      //!< RbHistory (H)
    Time m_rbTau;              //!< RbTimeConstant
    double m_rbGain;           //!< RbGain
    double m_rbMinStep;        //!< RbMinStep (k)
    bool m_rbFairShare;        //!< RbFairShare
    DataRate m_linkRate;       //!< LinkRate (0: the device's)

    // State
    DscpClassifier m_classifier;             //!< classification
    std::vector<uint32_t> m_weights;         //!< W_i in bytes
    std::vector<int64_t> m_credit;           //!< WFQ credit / DRR deficit (bytes)
    std::vector<uint8_t> m_inDrrList;        //!< DRR: class in the active list
    std::deque<uint32_t> m_drrList;          //!< DRR: active classes
    std::vector<WeightedClassStats> m_stats; //!< per-class counters
    std::vector<WredClassState> m_wred;      //!< WRED per class
    RateBasedAqm m_rb;                       //!< RB
    double m_linkBps{0};                     //!< link rate used by RB
    Ptr<UniformRandomVariable> m_uv;         //!< drop decisions
};

} // namespace ns3

#endif /* WEIGHTED_CLASS_QUEUE_DISC_H */
