/*
 * FQ-CoDel with switchable new-flow priority and starvation prevention, for the
 * experiments of Kuhn et al., "FQ-CoDel and thin streams" (the "WP" and "WSPM" variants).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FQ_CODEL_VARIANT_QUEUE_DISC_H
#define FQ_CODEL_VARIANT_QUEUE_DISC_H

#include "codel-core.h"
#include "flow-packet-store.h"

#include "ns3/nstime.h"
#include "ns3/queue-disc.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <list>
#include <vector>

namespace ns3
{

/**
 * @ingroup traffic-control
 *
 * @brief FQ-CoDel (RFC 8290, as Linux sch_fq_codel schedules) whose two scheduling
 * features can be switched off:
 *
 * - `NewFlowPriority=false` ("FQ-CoDel WP"): there is no new-flow list; a flow that becomes
 *   active joins the tail of the single (old) list with a full quantum, so flows are served
 *   plain deficit round robin, like SFQ, each with its own CoDel.
 * - `StarvationPrevention=false` ("FQ-CoDel WSPM"): a flow of the new list that is found
 *   empty is removed (becomes inactive) instead of being moved to the tail of the old list;
 *   its next packet makes it a new flow again, with priority.
 *
 * With both true the scheduler is ordinary FQ-CoDel. Each flow queue has its own CoDel
 * (RFC 8289 control law; the sojourn counts as below target while the flow holds at most
 * one quantum of bytes). When more than MaxSize packets are queued, packets are dropped
 * from the head of the flow with the most bytes until half of its bytes or DropBatchSize
 * packets are gone.
 */
class FqCoDelVariantQueueDisc : public QueueDisc
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    FqCoDelVariantQueueDisc();
    ~FqCoDelVariantQueueDisc() override;

    /// Drop reasons
    static constexpr const char* OVERLIMIT_DROP = "Overlimit drop";
    static constexpr const char* TARGET_EXCEEDED_DROP = "Target exceeded drop";
    static constexpr const char* CE_MARK = "CE mark (target exceeded)";

    /// Scheduling state of a flow queue
    enum FlowStatus
    {
        INACTIVE,
        NEW_FLOW,
        OLD_FLOW
    };

    /**
     * @param item a packet
     * @return the flow queue index the packet maps to
     */
    uint32_t Classify(Ptr<const QueueDiscItem> item) const;

    /**
     * @param flow a flow queue index
     * @return its scheduling state
     */
    FlowStatus GetFlowStatus(uint32_t flow) const;

    /// @return the quantum in use (after resolving 0 to the device MTU)
    uint32_t GetQuantum() const;

    /**
     * TracedCallback signature of the "Sojourn" trace source.
     * @param flow the flow queue of the dequeued packet
     * @param sojourn the time it spent in the queue disc
     */
    typedef void (*SojournCallback)(uint32_t flow, Time sojourn);
    /**
     * TracedCallback signature of the "CoDelState" trace source.
     * @param flow the flow queue
     * @param dropping whether CoDel is in the dropping state
     * @param count CoDel's count (drops since entering the dropping state)
     * @param dropNext the time of the next drop while dropping
     */
    typedef void (*CoDelStateCallback)(uint32_t flow, bool dropping, uint32_t count, Time dropNext);

  protected:
    void DoDispose() override;

  private:
    /// One flow queue
    struct Flow
    {
        FlowPacketStore::Fifo packets; //!< queued packets (in m_store)
        int64_t deficit{0};            //!< DRR credit
        FlowStatus status{INACTIVE};   //!< list membership
        CoDelVars codel;               //!< CoDel state
    };

    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;

    /// Remove the head packet of a flow (keeping byte counts).
    Ptr<QueueDiscItem> PopHead(Flow& f);
    /// CoDel dequeue from flow queue idx (may drop or mark).
    Ptr<QueueDiscItem> CoDelDequeue(uint32_t idx);
    /// Overload: drop a batch from the fattest flow. @return its index
    uint32_t DropFromFattest();

    // Attributes
    bool m_newFlowPriority;      //!< keep the new-flow list
    bool m_starvationPrevention; //!< move emptied new flows to the old list
    bool m_useEcn;               //!< CE-mark instead of dropping
    Time m_target;               //!< CoDel target
    Time m_interval;             //!< CoDel interval
    uint32_t m_quantumAttr;      //!< Quantum attribute (0: device MTU)
    uint32_t m_flows;            //!< number of flow queues
    uint32_t m_dropBatchSize;    //!< packets dropped at most per overload
    uint32_t m_perturbation;     //!< hash perturbation

    // State
    uint32_t m_quantum;             //!< quantum in use
    CoDelCore m_codel;              //!< control law (RFC 8289 arithmetic, exemption m_quantum)
    std::vector<Flow> m_flowQueues; //!< all flow queues
    std::list<uint32_t> m_newFlows; //!< new list
    std::list<uint32_t> m_oldFlows; //!< old list
    Ptr<FlowPacketStore> m_store;   //!< the packets of every flow

    TracedCallback<uint32_t, Time> m_sojournTrace;                    //!< "Sojourn"
    TracedCallback<uint32_t, bool, uint32_t, Time> m_codelStateTrace; //!< "CoDelState"
};

} // namespace ns3

#endif /* FQ_CODEL_VARIANT_QUEUE_DISC_H */
