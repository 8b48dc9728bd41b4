/*
 * Multilevel Stochastically Fair CoDel (MSFC) queue disc.
 *
 * Packets are classified into priority classes; a non-fair deficit round
 * robin (DRR) serves the classes with quantum Quantum * Ratio^p; inside each
 * class the 5-tuple hash selects one of Flows queues, served by a fair DRR;
 * every flow queue is managed by CoDel.  The normative definition is
 * docs/algorithm.md; the Linux qdisc sch_msfc implements the same page.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef MSFC_QUEUE_DISC_H
#define MSFC_QUEUE_DISC_H

#include "codel-core.h"
#include "dscp-classifier.h"
#include "flow-packet-store.h"

#include "ns3/nstime.h"
#include "ns3/queue-disc.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * @ingroup traffic-control
 * Per-class counters of an MsfcQueueDisc.
 */
struct MsfcClassStats
{
    uint64_t enqueuedPackets{0};  //!< packets accepted into the class
    uint64_t enqueuedBytes{0};    //!< bytes accepted into the class
    uint64_t dequeuedPackets{0};  //!< packets handed to the device
    uint64_t dequeuedBytes{0};    //!< bytes handed to the device
    uint64_t codelDrops{0};       //!< packets dropped by CoDel
    uint64_t overloadDrops{0};    //!< packets dropped because the queue disc was over MaxSize
    uint64_t ecnMarks{0};         //!< packets CE-marked by CoDel instead of dropped
    uint64_t ceThresholdMarks{0}; //!< packets CE-marked by CeThreshold (L4S), apart from ecnMarks
    uint64_t nqbDemotions{0};     //!< NQB flows moved to the old flows by queue protection
    uint64_t autoPromotions{0};   //!< Auto: flow slots that moved from this class one class up
    uint64_t autoDemotions{0};    //!< Auto: flow slots that moved down from it (class 0: stayed)
    uint32_t backlogPackets{0};   //!< packets queued now
    uint64_t backlogBytes{0};     //!< bytes queued now
    uint32_t activeFlows{0};      //!< flows in the class's lists now (NQB, new and old)
};

/**
 * @ingroup traffic-control
 *
 * The MSFC scheduler.  See docs/algorithm.md for the exact algorithm.
 *
 * The least-effort lane (DscpMap entry "le") is one more class record, below class 0 and
 * outside the outer DRR, served only when no class has a packet to send; its counters are
 * GetClassStats(Prios), and the trace sources give it class Prios.  NQB packets (entry
 * "<class>+nqb") make their flow an NQB flow of their class (docs/algorithm.md, "LE and NQB").
 *
 * Memory: one small record per class and one per flow queue
 * ((Prios + 1) x Flows records of 88 bytes, the lane's included, allocated in InitializeParams
 * and again by Change()
 * when Prios or Flows change; Auto's level and time of a flow slot take 8 of them);
 * the packets of all flows are held in one FlowPacketStore (Auto's bit per packet: in its
 * packet record's marks).
 */
class MsfcQueueDisc : public QueueDisc
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    MsfcQueueDisc();
    ~MsfcQueueDisc() override;

    // Reasons for dropping or marking packets (QueueDisc statistics keys)
    static constexpr const char* CODEL_DROP = "CoDel drop"; //!< CoDel dropped the packet
    static constexpr const char* CODEL_MARK = "CoDel mark"; //!< CoDel CE-marked the packet
    static constexpr const char* CE_THRESHOLD_MARK = "CE threshold mark"; //!< CeThreshold's mark
    static constexpr const char* OVERLOAD_DROP = "Overload drop";         //!< dropped above MaxSize

    /// How an overload drop picks its victim (attribute "Overload", docs/algorithm.md).
    enum OverloadMode
    {
        OVERLOAD_FLOW,  //!< "flow": the fattest flow over all classes (the thesis)
        OVERLOAD_CLASS, //!< "class": the class most above its share, then its fattest flow
    };

    /// How class quanta and deficits are kept (attribute "Weights", docs/algorithm.md).
    enum WeightsMode
    {
        WEIGHTS_ROUNDED, //!< "rounded": whole bytes, at least 1 (the thesis)
        WEIGHTS_EXACT,   //!< "exact": 1/65536 byte
    };

    /// Whether a class may give its flows less each than a lower class (attribute "Inversion").
    enum InversionMode
    {
        INVERSION_ALLOW,   //!< "allow": the class quanta as configured (the thesis)
        INVERSION_PREVENT, //!< "prevent": classes below a crowded class lowered to per-flow weights
    };

    /// Fairness inside a class (docs/algorithm.md, "Per-host isolation").
    enum IsolateMode
    {
        ISOLATE_FLOW, //!< "flow": every flow one share (the thesis)
        ISOLATE_SRC,  //!< "src": every source host one share, split among its flows
        ISOLATE_DST,  //!< "dst": every destination host one share
        ISOLATE_BOTH, //!< "both": a flow's share is that of its busier host, source or destination
    };

    /// Isolate != flow: flow quanta and deficits in 1/65536 byte.
    static constexpr uint32_t ISOLATE_SHIFT = 16;

    /**
     * A queue disc item that hashes its own hosts, as QueueDiscItem::Hash hashes its flow
     * (items of other kinds: IPv4 and IPv6 items hash their addresses, any other is host 0).
     */
    class HostHashItem
    {
      public:
        virtual ~HostHashItem() = default;
        /**
         * @param destination the destination host (else the source)
         * @param perturbation the queue disc's hash perturbation
         * @return the host's hash; the queue disc takes it modulo Flows
         */
        virtual uint32_t HostHash(bool destination, uint32_t perturbation) const = 0;
    };

    /**
     * A queue disc item with an explicit class (a SocketPriorityTag, UseSocketPriority) that
     * also names the least-effort lane or the NQB flag, as the cross-check traces' packets
     * "E l" and "E <c>n" do (docs/algorithm.md, "Cross-check traces"): explicit as its class
     * is, it is never an auto packet.  A packet without an explicit class gets both from the
     * DSCP map only.
     */
    class ExplicitTreatmentItem
    {
      public:
        virtual ~ExplicitTreatmentItem() = default;
        /** @return whether it goes to the least-effort lane (its class is then not used) */
        virtual bool LeastEffort() const = 0;
        /** @return whether it is an NQB packet of its class */
        virtual bool Nqb() const = 0;
    };

    /// Flows that become active inside a class (attribute "Boost", docs/algorithm.md); the
    /// values are those of enum tc_msfc_boost.
    enum BoostMode
    {
        BOOST_OFF,    //!< "off": they join the class's one round at its tail (the thesis)
        BOOST_ON,     //!< "on": served first, for one quantum (fq_codel's new-flow list)
        BOOST_ACROSS, //!< "across": "on", and new flows go ahead of the class round
    };

    /// Which class the outer DRR serves (attribute "Order", docs/algorithm.md, "Priority order
    /// inside the round"); the values are those of enum tc_msfc_order.
    enum OrderMode
    {
        ORDER_ROUND,    //!< "round": the classes take turns, each its quantum (the thesis)
        ORDER_PRIORITY, //!< "priority": the most important class with credit left in the round
    };

    /// Automatic priorities (attribute "Auto", docs/algorithm.md, "Automatic priorities"): which
    /// packets get the class their flow slot has earned; the values are those of enum
    /// tc_msfc_auto.
    enum AutoMode
    {
        AUTO_OFF,      //!< "off": the class comes from the mark (the thesis)
        AUTO_UNMARKED, //!< "unmarked": packets the DSCP map classifies whose DSCP is 0
        AUTO_ALL,      //!< "all": every packet the DSCP map classifies, whatever its DSCP
    };

    /// weights=exact: class quanta and deficits in 1/2^EXACT_SHIFT byte.
    static constexpr uint32_t EXACT_SHIFT = 16;

    /// Largest number of classes.
    static constexpr uint32_t MAX_PRIOS = DscpClassifier::MAX_CLASSES;
    /// Largest class quantum accepted (bytes).
    static constexpr uint64_t MAX_CLASS_QUANTUM = uint64_t{1} << TC_MSFC_CLASS_QUANTUM_MAX_LOG2;

    /** @return the number of classes (Prios). */
    uint32_t GetNClasses() const;
    /**
     * @param cls class index, 0 .. Prios-1
     * @return the outer-DRR quantum of the class in bytes, with Weights=exact in 1/65536 byte
     *         (valid after initialization)
     */
    uint64_t GetClassQuantum(uint32_t cls) const;
    /** @return the inner-DRR quantum in bytes (valid after initialization). */
    uint32_t GetFlowQuantum() const;

    /**
     * Host slot of a packet's source or destination: the keyed hash of its address modulo
     * Flows (IPv4/IPv6), or HostHashItem::HostHash; 0 for other packets.
     * @param item the packet
     * @param destination the destination host (else the source)
     * @return the slot, 0 .. Flows-1
     */
    uint32_t HostSlot(Ptr<const QueueDiscItem> item, bool destination) const;
    /**
     * @param cls class index, 0 .. Prios-1, or Prios: the least-effort lane
     * @return the counters of the class (or the lane)
     */
    MsfcClassStats GetClassStats(uint32_t cls) const;
    /** @return NQB flows moved to the old flows by queue protection, over all classes */
    uint64_t GetNqbDemotions() const;
    /**
     * Class a packet would be put in now (classification only, no side effects): with Auto,
     * for an auto packet the class of its flow slot, one up if the enqueue would promote it.
     * @param item the packet
     * @return the class index, Prios for the least-effort lane
     */
    uint32_t Classify(Ptr<const QueueDiscItem> item) const;
    /**
     * Auto: the home class H, where DSCP 0 goes (ClassOfDscp(0)), which keeps the flow
     * slots' levels.
     * @return the class index
     */
    uint32_t GetAutoHomeClass() const;
    /**
     * Auto: the class the auto packets of a flow slot go to now (before a promotion the next
     * one may make); also kept while Auto is off.
     * @param slot the flow slot (the flow hash modulo Flows), 0 .. Flows-1
     * @return the class index
     */
    uint32_t GetAutoLevel(uint32_t slot) const;
    /** @return Auto: times a flow slot moved one class up */
    uint64_t GetAutoPromotions() const;
    /** @return Auto: times a flow slot moved one class down or, at class 0, stayed there */
    uint64_t GetAutoDemotions() const;
    /**
     * Auto: the CoDel time units a flow slot keeps its class before it may climb (T_up):
     * TC_MSFC_AUTO_UP_INTERVALS intervals, at most 2^31 - 1.
     * @return T_up as a Time
     */
    Time GetAutoUpTime() const;
    /**
     * The class a DSCP value maps to with the current DscpMap and Prios.
     * @param dscp the DSCP value (0..63)
     * @return the class index (an NQB entry: its class), Prios for the least-effort lane
     */
    uint32_t ClassOfDscp(uint8_t dscp) const;
    /**
     * A DSCP that the default map puts in class `cls` when Prios > cls
     * (DscpClassifier::DscpForDefaultClass).
     * @param cls class 0..7 (aborts otherwise: class selectors name eight classes)
     * @return the DSCP code point
     */
    static uint8_t DscpForDefaultClass(uint32_t cls);

    /**
     * Compute the class quanta of docs/algorithm.md.
     * @param quantum Q_0 in bytes
     * @param ratioFixed ratio in 16.16 fixed point
     * @param prios number of classes
     * @param exact Weights=exact: in 1/65536 byte, not rounded to whole bytes
     * @return Q_0 .. Q_{prios-1}; empty if one exceeds MAX_CLASS_QUANTUM bytes
     */
    static std::vector<uint64_t> ComputeClassQuanta(uint64_t quantum,
                                                    uint32_t ratioFixed,
                                                    uint32_t prios,
                                                    bool exact = false);
    /**
     * Whether exact class quanta (1/65536 byte) keep every class share within 0.5 % of
     * Ratio^p / sum: the bound sum(1 / q_k) of docs/algorithm.md.
     * @param quanta the class quanta in 1/65536 byte
     * @return true when accurate enough
     */
    static bool ExactQuantaAccurate(const std::vector<uint64_t>& quanta);
    /**
     * Read the Quanta attribute's text: byte counts joined by commas, one per class from
     * class 0 ("95,1514,757,378"), or "" / "ratio" for none (the class quanta from Quantum and
     * Ratio).  Checks the form and each entry's range, not the count against Prios.
     * @param spec the text
     * @param quanta receives the byte counts (empty for none)
     * @param error receives what is wrong, in the kernel's words where it has them
     * @return true when the text is valid
     */
    static bool ParseQuanta(const std::string& spec,
                            std::vector<uint32_t>& quanta,
                            std::string& error);
    /// A CeThreshold entry that sets no threshold in its class (TC_MSFC_CE_THRESHOLD_OFF).
    static constexpr int64_t CE_THRESHOLD_OFF = -1;
    /**
     * Read the CeThreshold attribute's text: a time for every class ("1ms"), one time or
     * "off" per class from class 0 joined by commas ("off,1ms,500us"), or "" / "off" for none
     * (docs/algorithm.md, "L4S marking").  Checks the form and each entry's range (whole
     * microseconds, 0 us .. 2000 s), not the count against Prios.
     * @param spec the text
     * @param us receives the entries in microseconds, CE_THRESHOLD_OFF for "off" (empty: none)
     * @param error receives what is wrong, in the kernel's words where it has them
     * @return true when the text is valid
     */
    static bool ParseCeThreshold(const std::string& spec,
                                 std::vector<int64_t>& us,
                                 std::string& error);
    /**
     * Check the configured attributes (Quantum 0 counts as the device MTU once the queue disc
     * is initialized, as 1500 bytes before).
     * @return an empty string when valid, else a message naming the attribute,
     *         the bad value and the allowed range
     */
    std::string ValidateConfiguration() const;

    /// Outcome of Change().
    enum ChangeResult
    {
        CHANGE_OK,      //!< the change was applied
        CHANGE_BUSY,    //!< refused, nothing changed: Prios, Flows or Isolate with packets queued
        CHANGE_INVALID, //!< refused, nothing changed: a bad value or an invalid configuration
    };

    /**
     * Change some attributes of a running queue disc: the ns-3 side of `tc qdisc change`
     * (docs/algorithm.md, "Changing the configuration").  The named attributes take their new
     * values through the attribute system, the others keep theirs; the resulting configuration
     * is checked as at initialization (ValidateConfiguration, with the device MTU for
     * Quantum=0).  A bad value or configuration, or (with packets queued) a change of Prios,
     * Flows or Isolate, is refused and changes nothing.  An accepted change resets what the
     * algorithm resets (Prios or Flows: every class and flow record; Isolate: the flows and
     * classes left on their lists and the host tables), converts every class's deficit
     * when Weights changes, starts a new round for the listed classes when Order
     * changes from round to priority (Prios or Flows: the round counter is 1 again and every
     * class's round 0), recomputes the quanta, and overload-drops while the queue disc holds
     * more than MaxSize.  Call it only after the queue disc is initialized.
     * @param attributes attribute names and values, set in the order given; the names: Prios,
     *        Flows, Quantum (0: the device MTU), Ratio, MaxSize, DropBatchSize, Target, Interval,
     *        UseEcn, Overload, Weights, Inversion, Isolate, Boost, Order, Auto, Quanta, DscpMap,
     *        UseSocketPriority (Auto: the flow slots keep their levels and times; Prios or
     *        Flows changed: every slot starts again at the home class)
     * @param error set to the reason when the change is refused: the attribute and value, or
     *        ValidateConfiguration()'s message (CHANGE_INVALID); TC_MSFC_ISOLATE_BUSY_MSG or
     *        TC_MSFC_RESIZE_BUSY_MSG (CHANGE_BUSY)
     * @return CHANGE_OK, CHANGE_BUSY or CHANGE_INVALID
     */
    ChangeResult Change(const std::vector<std::pair<std::string, std::string>>& attributes,
                        std::string& error);

    /**
     * Allowed range of a numeric attribute in the kernel qdisc's words ("1 .. 16").
     * @param attribute attribute name
     * @return the range text, empty when the attribute has no numeric range
     */
    static std::string GetAttributeRange(const std::string& attribute);

    /**
     * TracedCallback signature of the "ClassBacklog" trace source.
     * @param cls the class
     * @param packets packets now queued in the class
     * @param bytes bytes now queued in the class
     */
    typedef void (*ClassBacklogCallback)(uint32_t cls, uint32_t packets, uint64_t bytes);
    /**
     * TracedCallback signature of the "Sojourn" trace source.
     * @param cls the class of the dequeued packet
     * @param flow its flow queue within the class (0 .. Flows-1)
     * @param sojourn the time it spent in the queue disc
     */
    typedef void (*SojournCallback)(uint32_t cls, uint32_t flow, Time sojourn);
    /**
     * TracedCallback signature of the "CoDelState" trace source.
     * @param cls the class of the flow queue
     * @param flow the flow queue within the class (0 .. Flows-1)
     * @param dropping whether CoDel is in the dropping state
     * @param count CoDel's count (drops since entering the dropping state)
     * @param dropNext the time of the next drop while dropping
     */
    typedef void (*CoDelStateCallback)(uint32_t cls,
                                       uint32_t flow,
                                       bool dropping,
                                       uint32_t count,
                                       Time dropNext);
    /**
     * TracedCallback signature of the "OverloadDrop" trace source.
     * @param item the dropped packet
     * @param cls its class
     * @param flow its flow queue within the class (0 .. Flows-1)
     */
    typedef void (*OverloadDropCallback)(Ptr<const QueueDiscItem> item,
                                         uint32_t cls,
                                         uint32_t flow);
    /**
     * TracedCallback signature of the "Classified" trace source.
     * @param item the packet accepted
     * @param cls the class it was put in
     * @param flow its flow queue within the class (0 .. Flows-1)
     * @param autoPacket whether Auto chose the class (an auto packet)
     */
    typedef void (*ClassifiedCallback)(Ptr<const QueueDiscItem> item,
                                       uint32_t cls,
                                       uint32_t flow,
                                       bool autoPacket);
    /**
     * TracedCallback signature of the "AutoLevel" trace source.
     * @param slot the flow slot (0 .. Flows-1)
     * @param from its class before
     * @param to its class now (from + 1: a promotion; from - 1, or 0 at 0: a demotion)
     */
    typedef void (*AutoLevelCallback)(uint32_t slot, uint32_t from, uint32_t to);
    /**
     * TracedCallback signature of the "NqbDemotion" trace source.
     * @param cls the class of the flow queue (Prios: the least-effort lane)
     * @param flow the flow queue within the class (0 .. Flows-1)
     */
    typedef void (*NqbDemotionCallback)(uint32_t cls, uint32_t flow);

  protected:
    void DoDispose() override;

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;

    static constexpr uint32_t NIL = UINT32_MAX; //!< empty link

    /// A flow queue: intrusive list link, DRR deficit and CoDel state; in the home class's
    /// records also Auto's state of the flow slot.
    struct Flow
    {
        FlowPacketStore::Fifo packets; //!< packets queued (in m_store)
        int64_t deficit{0};            //!< DRR credit in bytes
        uint32_t next{NIL};            //!< next flow in the class's list it is on
        bool active{false};            //!< on one of the class's lists
        bool sparse{false}; //!< left from the new flows (Boost=across) or the NQB flows: keeps
                            //!< its deficit
        uint8_t level{0};   //!< Auto: class of the slot's auto packets (at first the record's)
        bool nqb{false};    //!< on its class's NQB list
        uint32_t clean{0};  //!< Auto: CoDel time (u32) since which the slot is sparse at its level
        uint32_t last{0};   //!< Auto: CoDel time (u32) of the slot's last auto packet
        uint32_t stamp{0};  //!< the class's refill counter when it last got a quantum as NQB
        CoDelVars codel;    //!< CoDel state
    };

    /// FlowPacketStore marks: the packet is an auto packet (its class from its slot's level).
    static constexpr uint8_t AUTO_MARK = 1;

    /// Isolate != flow: the host slots of a flow, from the packet that made it active.
    struct FlowHosts
    {
        uint16_t src{0}; //!< source host slot (Flows <= 65536)
        uint16_t dst{0}; //!< destination host slot
    };

    /// A priority class (or the least-effort lane): outer DRR state and its active flow lists.
    struct Class
    {
        uint32_t nqbHead{NIL}; //!< first NQB flow
        uint32_t nqbTail{NIL}; //!< last NQB flow
        uint32_t nNqb{0};      //!< flows on the NQB list
        uint32_t refills{0};   //!< refills of its flows that are not NQB (modulo 2^32)
        uint64_t quantum{0};   //!< Q_p
        int64_t deficit{0};    //!< outer DRR credit
        uint32_t head{NIL};    //!< first active flow (index into m_flows); Boost!=off: old flows
        uint32_t tail{NIL};    //!< last active flow
        uint32_t newHead{NIL}; //!< Boost!=off: first new flow
        uint32_t newTail{NIL}; //!< Boost!=off: last new flow
        uint32_t next{NIL};    //!< next class in the active class list
        bool active{false};    //!< in the active class list
        uint32_t nFlows{0};    //!< flows in the active flow lists, NQB ones included (n_p)
        uint64_t round{0};     //!< Order=priority: the round R in which it last got a quantum
        MsfcClassStats stats;  //!< counters
        std::vector<uint32_t> srcLoad;   //!< Isolate != flow: active flows per source host slot
        std::vector<uint32_t> dstLoad;   //!< and per destination host slot
        std::vector<int64_t> srcDeficit; //!< Isolate != flow: credit per source host slot
        std::vector<int64_t> dstDeficit; //!< and per destination host slot (1/65536 byte)
    };

    /// The attributes Change() may set, as they were before it (to restore them).
    struct Settings
    {
        uint32_t prios;              //!< Prios
        uint32_t nFlows;             //!< Flows
        uint32_t quantumAttr;        //!< Quantum
        double ratio;                //!< Ratio
        Time target;                 //!< Target
        Time interval;               //!< Interval
        uint32_t dropBatchSize;      //!< DropBatchSize
        bool useEcn;                 //!< UseEcn
        bool useSocketPriority;      //!< UseSocketPriority
        std::string dscpMapSpec;     //!< DscpMap
        OverloadMode overload;       //!< Overload
        WeightsMode weights;         //!< Weights
        InversionMode inversion;     //!< Inversion
        IsolateMode isolate;         //!< Isolate
        BoostMode boost;             //!< Boost
        OrderMode order;             //!< Order
        AutoMode autoMode;           //!< Auto
        std::string quantaSpec;      //!< Quanta
        QueueSize maxSize;           //!< MaxSize
        std::string ceThresholdSpec; //!< CeThreshold
        uint32_t ceSelector;         //!< CeThresholdSelector
        uint32_t ceMask;             //!< CeThresholdMask
    };

    /** @return the attributes Change() may set, as they are now */
    Settings SaveSettings() const;
    /**
     * Set the attributes Change() may set back to saved values.
     * @param s the saved values
     */
    void RestoreSettings(const Settings& s);
    /**
     * What follows from the attributes, for InitializeParams and Change: the inner quantum
     * (Quantum, or the device MTU for 0), CoDel's parameters, the deficit scales, Ratio in
     * fixed point, the class quanta and the classifier.  The class records must exist.
     */
    void ApplyParameters();
    /**
     * New class, flow and host records for Prios x Flows: every list empty, every deficit 0,
     * every CoDel state initial (codel_vars_init).  The queue disc must hold no packet.
     */
    void AllocateTables();
    /**
     * The host tables for the current Isolate: all loads and deficits 0 (Isolate != flow),
     * or none (Isolate = flow).
     */
    void ResetHostTables();
    /**
     * Every flow still on one of its class's lists (old or new) leaves it and every class
     * leaves the active class list; flow deficits and CoDel states are kept.  For an idle queue
     * disc only (its listed flows hold no packet).
     */
    void UnlistAll();

    /**
     * Classification (with Auto, docs/algorithm.md, "Automatic priorities"): the class of a
     * packet, whether it is an auto packet, whose class is its flow slot's level, and whether
     * it is an NQB packet.
     * @param item the packet
     * @param slot its flow slot
     * @param autoPacket set to whether it is an auto packet (Auto on, its class from the DSCP
     *        map, with Auto=unmarked its DSCP 0)
     * @param promote set to whether its enqueue moves the slot one class up (auto packets)
     * @param nqb set to whether it is an NQB packet (its DscpMap entry "<class>+nqb")
     * @return the class, Prios for the least-effort lane (its DscpMap entry "le")
     */
    uint32_t ClassifyAuto(Ptr<const QueueDiscItem> item,
                          uint32_t slot,
                          bool& autoPacket,
                          bool& promote,
                          bool& nqb) const;
    /**
     * Auto: a dequeued auto packet of class `cls` whose flow's CoDel test said "may drop"
     * (first_above_time set and passed) moves its slot one class down (at 0: keeps it there),
     * if the slot's level is that class; one that left more than a quantum queued restarts
     * the slot's time to climb.
     * @param cls the class of the flow queue
     * @param idx the flow record (index into m_flows)
     */
    void AutoDequeued(uint32_t cls, uint32_t idx);
    /**
     * Auto: set a flow slot's level and time (its home-class record), count and trace it.
     * @param slot the flow slot
     * @param to the new level
     * @param promotion a promotion (else a demotion)
     */
    void AutoMove(uint32_t slot, uint32_t to, bool promotion);
    /** @return the simulator's clock in CoDel units (1024 ns), modulo 2^32 */
    uint32_t CoDelNow() const;
    /**
     * Auto: whether a slot's last auto packet came T_up or more before `now`, so that it is
     * sparse from `now` on, not from before its pause.
     * @param s the slot's record (in the home class)
     * @param now CoDelNow()
     * @return true when idle for T_up or more
     */
    bool SlotIdle(const Flow& s, uint32_t now) const;
    /**
     * The inner DRR of a class (or the lane): its NQB flows first, then its new flows, then
     * its old flows.
     * @param cls the class (Prios: the lane)
     * @param newOnly Boost=across's path: the NQB and new flows only, null once there are none
     * @return the packet, or null when the class (newOnly: its NQB and new-flow lists) holds
     *         none
     */
    Ptr<QueueDiscItem> ClassDequeue(uint32_t cls, bool newOnly = false);
    /**
     * The outer DRR (Boost=across's path first, then Order's round).
     * @return the packet, or null when no class has one to send
     */
    Ptr<QueueDiscItem> ClassesDequeue();
    /**
     * Remove a flow from a list, wherever it is in it.
     * @param head the list's head
     * @param tail the list's tail
     * @param idx the flow (on the list)
     */
    void UnlinkFlow(uint32_t& head, uint32_t& tail, uint32_t idx);
    /**
     * A listed flow leaves its class's lists (it is no longer active).
     * @param cls the class
     * @param idx the flow, already off its list
     */
    void FlowLeaves(uint32_t cls, uint32_t idx);
    /**
     * The CeThreshold of a class in CoDel units (the lane has class 0's).
     * @param cls the class, or Prios for the lane
     * @return the threshold, or CE_THRESHOLD_OFF
     */
    int64_t CeThresholdOf(uint32_t cls) const;
    /**
     * Boost=across, before the class round (docs/algorithm.md, "Sparse flows across
     * classes"): the most important active class with new flows whose deficit is above minus
     * its class quantum sends a new flow's packet, charged to its deficit.
     * @return the packet, or null when no class may or can send one this way
     */
    Ptr<QueueDiscItem> DequeueAcross();
    /**
     * Order=priority: the outer DRR's dequeue (docs/algorithm.md, "Priority order inside the
     * round"): the most important active class with a positive deficit sends; when no active
     * class has one, every active class is refilled as many times as the class that needs the
     * fewest refills, and the round counter moves on by as many rounds.
     * @return the packet, or null when no class holds one
     */
    Ptr<QueueDiscItem> DequeuePriority();
    /**
     * Remove a class from the active class list, wherever it is in it (the list keeps the
     * order of the others).
     * @param cls the class (in the list)
     */
    void RemoveActiveClass(uint32_t cls);
    /**
     * Charge a dequeued packet to its class: deficit (in class deficit units) and counters.
     * @param cls the class
     * @param item the packet
     * @return item
     */
    Ptr<QueueDiscItem> ChargeClass(uint32_t cls, Ptr<QueueDiscItem> item);
    /**
     * Append a flow to a list of flows (head and tail indices into m_flows).
     * @param head the list's head
     * @param tail the list's tail
     * @param idx the flow
     */
    void PushFlow(uint32_t& head, uint32_t& tail, uint32_t idx);
    /**
     * Remove the first flow of a non-empty list.
     * @param head the list's head
     * @param tail the list's tail
     * @return the flow removed
     */
    uint32_t PopFlow(uint32_t& head, uint32_t& tail);
    /**
     * CoDel's dequeue of a flow (codel_dequeue), with the drops and marks it makes.
     * @param cls the class
     * @param flow the flow
     * @param autoPacket set to whether the packet returned is an auto packet
     * @return the packet, or null when the flow is empty
     */
    Ptr<QueueDiscItem> CoDelDequeue(uint32_t cls, Flow& flow, bool& autoPacket);
    /**
     * L4S marking (docs/algorithm.md, "L4S marking"): CE-mark a packet CoDel has just
     * delivered when its class has a threshold, its sojourn in CoDel units is above it, it is
     * ECT(0) or ECT(1) and its TOS byte matches the selector.
     * @param cls the class
     * @param item the packet
     */
    void ThresholdMark(uint32_t cls, Ptr<QueueDiscItem> item);
    /**
     * Take the head packet of a flow out of the queue disc (class backlog and its trace).
     * @param cls the class
     * @param flow the flow
     * @param marks when not null, set to the packet's FlowPacketStore marks
     * @return the packet, or null when the flow is empty
     */
    Ptr<QueueDiscItem> PopHead(uint32_t cls, Flow& flow, uint8_t* marks = nullptr);
    uint32_t OverloadDrop();
    uint32_t OverloadVictim() const;
    /**
     * Active flows of the flow's host in its class (its source's, destination's or the larger).
     * @param cls the class
     * @param flow the flow (active)
     * @return the load, at least 1
     */
    uint32_t HostLoad(uint32_t cls, const Flow& flow) const;
    /**
     * The inner DRR refill of a flow: Quantum bytes, or with Isolate != flow
     * Quantum / HostLoad in 1/65536 byte, rounded down.
     * @param cls the class
     * @param flow the flow
     * @return the refill in flow deficit units
     */
    int64_t FlowQuantum(uint32_t cls, const Flow& flow) const;
    /**
     * The host deficit a flow draws on (Isolate != flow): its source slot's (src), its
     * destination slot's (dst), or with both the side of the larger load (ties: source).
     * @param cls the class
     * @param flow the flow (active)
     * @return the host deficit, in 1/65536 byte
     */
    int64_t& HostDeficit(uint32_t cls, const Flow& flow);
    /**
     * What a class's deficit is refilled with (activation and every outer DRR round): Q_p, or
     * with Inversion=prevent its effective quantum (docs/algorithm.md).
     * @param cls the class
     * @return class deficit units
     */
    int64_t ClassQuantum(uint32_t cls) const;
    /**
     * Inversion=prevent: the effective quanta eff_k of the classes from the most important down
     * to `upto` (docs/algorithm.md); classes without flows, and those below `upto`, keep Q_k.
     * @param upto the last class computed
     * @param eff receives Prios quanta
     */
    void EffectiveQuanta(uint32_t upto, std::array<uint64_t, MAX_PRIOS>& eff) const;

    // Attributes
    uint32_t m_prios;              //!< number of classes
    uint32_t m_nFlows;             //!< flow queues per class
    uint32_t m_quantumAttr;        //!< Quantum attribute (0 = device MTU)
    double m_ratio;                //!< Ratio attribute
    Time m_target;                 //!< CoDel target
    Time m_interval;               //!< CoDel interval
    uint32_t m_dropBatchSize;      //!< max packets per overload drop
    bool m_useEcn;                 //!< mark instead of drop
    uint32_t m_perturbation;       //!< hash perturbation
    bool m_useSocketPriority;      //!< classify by SocketPriorityTag when present
    std::string m_dscpMapSpec;     //!< DscpMap attribute
    OverloadMode m_overload;       //!< Overload attribute
    WeightsMode m_weights;         //!< Weights attribute
    InversionMode m_inversion;     //!< Inversion attribute
    IsolateMode m_isolate;         //!< Isolate attribute
    BoostMode m_boost;             //!< Boost attribute
    OrderMode m_order;             //!< Order attribute
    AutoMode m_auto;               //!< Auto attribute
    std::string m_quantaSpec;      //!< Quanta attribute ("" or "ratio": from Quantum and Ratio)
    std::string m_ceThresholdSpec; //!< CeThreshold attribute ("" or "off": none)
    uint32_t m_ceSelector;         //!< CeThresholdSelector attribute
    uint32_t m_ceMask;             //!< CeThresholdMask attribute

    // Derived at initialization
    uint32_t m_quantum{0};    //!< inner quantum (bytes)
    int64_t m_classScale{1};  //!< bytes -> class deficit units (65536 with Weights=exact)
    uint32_t m_ratioFixed{0}; //!< Ratio in 16.16 fixed point
    std::vector<uint32_t> m_explicitQuanta; //!< Quanta in bytes, one per class, or empty
    std::vector<int64_t> m_ceThreshold;     //!< per class: threshold in CoDel units, or OFF
    int64_t m_flowScale{1};       //!< bytes -> flow deficit units (65536 with Isolate != flow)
    uint32_t m_mtu{0};            //!< device MTU (bytes): the default quantum
    CoDelCore m_codel;            //!< control law (Linux arithmetic, backlog exemption quantum)
    DscpClassifier m_classifier;  //!< DSCP / socket priority -> class
    std::vector<Class> m_classes; //!< Prios classes, then the least-effort lane (index Prios)
    std::vector<Flow> m_flows;    //!< (Prios + 1) x Flows flow records (the lane's last)
    std::vector<FlowHosts> m_flowHosts; //!< Isolate != flow: per flow record, else empty
    Ptr<FlowPacketStore> m_store;       //!< the packets of every flow
    uint32_t m_activeHead{NIL};         //!< first active class
    uint32_t m_activeTail{NIL};         //!< last active class
    uint64_t m_round{1};                //!< Order=priority: the round counter R
    uint64_t m_overloadEvents{0};       //!< times OverloadDrop ran
    uint32_t m_home{0};                 //!< Auto: the home class (ClassOfDscp(0))
    uint32_t m_autoUp{0};               //!< Auto: T_up in CoDel units
    uint64_t m_autoPromotions{0};       //!< Auto: slots moved one class up
    uint64_t m_autoDemotions{0};        //!< Auto: slots moved down (or kept at 0)
    uint64_t m_nqbDemotions{0};         //!< NQB flows moved by queue protection

    // Trace sources
    TracedCallback<uint32_t, uint32_t, uint64_t> m_classBacklogTrace;           //!< "ClassBacklog"
    TracedCallback<uint32_t, uint32_t, Time> m_sojournTrace;                    //!< "Sojourn"
    TracedCallback<uint32_t, uint32_t, bool, uint32_t, Time> m_codelStateTrace; //!< "CoDelState"
    TracedCallback<Ptr<const QueueDiscItem>, uint32_t, uint32_t>
        m_overloadDropTrace; //!< "OverloadDrop"
    TracedCallback<Ptr<const QueueDiscItem>, uint32_t, uint32_t, bool>
        m_classifiedTrace;                                         //!< "Classified"
    TracedCallback<uint32_t, uint32_t, uint32_t> m_autoLevelTrace; //!< "AutoLevel"
    TracedCallback<uint32_t, uint32_t> m_nqbDemotionTrace;         //!< "NqbDemotion"
};

} // namespace ns3

#endif /* MSFC_QUEUE_DISC_H */
