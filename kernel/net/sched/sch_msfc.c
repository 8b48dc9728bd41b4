// SPDX-License-Identifier: GPL-2.0-only
/*
 * Multilevel Stochastically Fair CoDel (MSFC)
 *
 * A fixed number of priority classes share the link by an outer deficit
 * round robin whose class quanta grow geometrically, Q_p = quantum * ratio^p,
 * so class p gets ratio times the share of class p-1 while both are
 * backlogged and no class ever starves (or quanta the operator states, one
 * per class, with quanta).  Inside a class packets are hashed
 * into flow queues served by an inner DRR with one quantum each (FQ-CoDel
 * without the new-flow list, unless boost is on or across), and every flow
 * queue runs CoDel.  With boost across, new flows also go ahead of the class
 * round, charged to their class, within one class quantum of borrowing.
 *
 * With a bandwidth the qdisc paces its own dequeues: a gate in front of the
 * dequeue lets the next packet go when the time the previous ones took at
 * that rate has passed, and arms the watchdog otherwise.  It changes when a
 * packet leaves, never which one.
 *
 * With ce_threshold (L4S, RFC 9330-9332) a packet that CoDel delivers after
 * more than its class's threshold is CE-marked when its TOS byte matches the
 * selector (ECT(1) by default) and it is ECT: L4S senders see the queue
 * early, Classic traffic is left to CoDel.
 *
 * Classification: skb->priority (major = qdisc handle, minor 1..prios),
 * then the tc filters attached to the qdisc (classid minor 1..prios), then
 * the DSCP of the packet through a 64-entry map.  A map entry may send a
 * packet to the least-effort lane, served only when every class is empty
 * (LE, RFC 8622), or mark its flow as NQB (RFC 9956): served ahead of its
 * class's other flows while it stays within a quantum of backlog and its
 * fair share.  With auto, a packet the
 * map classifies (unmarked: DSCP 0 only) gets the class its flow slot has
 * earned instead: a slot climbs one class when its flow queue there is empty
 * and it has been sparse at its class (no change of class, never more than a
 * quantum left queued, not idle) for 10 CoDel intervals, and sinks one class
 * whenever CoDel's drop test fires for one of its packets.
 *
 * The normative definition shared with the ns-3 model is docs/algorithm.md
 * of the MSFC project; a trace replayed through both gives the same
 * dequeue sequence.
 */

#include <linux/module.h>
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/jiffies.h>
#include <linux/string.h>
#include <linux/in.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/math64.h>
#include <linux/jhash.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/pkt_cls.h>
#include <net/inet_ecn.h>
#include <net/flow_dissector.h>
#include <net/ipv6.h>
#include <net/codel.h>
#if IS_ENABLED(CONFIG_NET_SCH_MSFC_KUNIT_TEST)
/* The KUnit trace replay sets CoDel's clock (enqueue timestamps and the
 * time of each dequeue) while msfc_test_clock is true; else the real one.
 */
static bool msfc_test_clock;
static u64 msfc_test_now_ns;

static codel_time_t msfc_codel_time(void)
{
	if (READ_ONCE(msfc_test_clock))
		return READ_ONCE(msfc_test_now_ns) >> CODEL_SHIFT;
	return codel_get_time();
}

#define codel_get_time() msfc_codel_time()
#endif
#include <net/codel_impl.h>
#include <net/codel_qdisc.h>

#ifndef TCA_MSFC_MAX
#include "pkt_sched_msfc.h"	/* out-of-tree build against unpatched headers */
#endif
#ifndef MODULE_ALIAS_NET_SCH	/* before 6.9 qdisc modules load as sch_<id> */
#define MODULE_ALIAS_NET_SCH(id)	MODULE_ALIAS("sch_" id)
#endif

/* Ranges, defaults and their messages: pkt_sched.h (TC_MSFC_*).  TC_MSFC_TARGET_MAX and
 * TC_MSFC_INTERVAL_MAX (2000 s) keep codel_time_t, which wraps at 2^31 units, from wrapping
 * in the comparisons with target and interval.  codel_dequeue()'s re-entry test compares
 * with 16 * interval, which passes 2^31 units above 137 s: as in every codel_impl.h user, a
 * near re-entry then restarts at count 1 (the reference and the ns-3 model do the same).
 */
#define MSFC_MAX_PRIOS		TC_MSFC_PRIOS_MAX
#define MSFC_MAX_CLASS_QUANTUM	BIT_ULL(TC_MSFC_CLASS_QUANTUM_MAX_LOG2)
#define MSFC_EXACT_SHIFT	16	/* weights exact: class quanta in 1/65536 byte */
#define MSFC_RATIO_ONE		65536	/* ratio 1 in 16.16 fixed point */
#define MSFC_ISOLATE_SHIFT	16	/* isolate != flow: flow deficits in 1/65536 byte */
#define MSFC_RATE_SHIFT		32	/* shaper: ns per byte in 32.32 fixed point */

struct msfc_flow {
	struct sk_buff	  *head;
	struct sk_buff	  *tail;
	struct list_head  flowchain;	/* in msfc_class.flows, .new_flows or .nqb_flows */
	s64		  deficit;
	struct codel_vars cvars;
	u8		  cls;
	u8		  level;	/* auto, home class's records: the slot's class */
	u16		  src;		/* isolate: host slots since activation */
	u16		  dst;
	u8		  sparse;	/* left from the new (across) or NQB flows: deficit kept */
	u8		  nqb;		/* on msfc_class.nqb_flows */
	codel_time_t	  clean;	/* auto: since when the slot has been sparse */
	codel_time_t	  last;		/* auto: when its last auto packet came */
	u32		  stamp;	/* NQB: class refills when it last got a quantum */
};

/* The qdisc's part of skb->cb: codel's (enqueue time, truesize), then the
 * auto bit: the class came from the packet's flow slot (msfc_auto_class()).
 * 12 bytes of QDISC_CB_PRIV_LEN (20 in Linux 6.1 .. 7.3), checked at build
 * time by qdisc_cb_private_validate().
 */
struct msfc_skb_cb {
	struct codel_skb_cb codel;	/* first: get_codel_cb() reads it */
	u8		  is_auto;
};

struct msfc_class {
	struct list_head  node;		/* in msfc_sched_data.active_classes */
	struct list_head  flows;	/* active flows of this class (boost: old) */
	struct list_head  new_flows;	/* boost on/across: flows that became active */
	struct list_head  nqb_flows;	/* NQB flows, served before the others */
	u32		  nqb_active;	/* flows on nqb_flows */
	u32		  refills;	/* refills of flows not NQB, modulo 2^32 */
	s64		  deficit;
	u64		  quantum;	/* Q_p */
	u64		  round;	/* order priority: round of its last quantum */
	u32		  qlen;
	u32		  backlog;
	u32		  active_flows;
	struct gnet_stats_basic_sync bstats;	/* dequeued */
	u64		  enq_packets;
	u64		  enq_bytes;
	u64		  codel_drops;
	u64		  overload_drops;
	u64		  ecn_marks;
	u64		  ce_threshold_marks;
	u64		  nqb_demotions;	/* NQB flows moved to the old flows */
};

struct msfc_sched_data {
	struct tcf_proto __rcu *filter_list;	/* optional external classifier */
	struct tcf_block *block;
	struct msfc_flow *flows;	/* [(prios + 1) * flows_cnt], class-major, the lane last */
	u32		*backlogs;	/* bytes, same index as flows */
	u32		*host_loads;	/* [prios + 1][src, dst][flows_cnt]: active flows */
	s64		*host_deficits;	/* same index: inner DRR credit, 1/65536 byte */
	struct list_head active_classes;
	u32		prios;
	u32		flows_cnt;
	u32		quantum;
	u32		ratio;		/* 16.16 fixed point */
	u32		n_explicit;	/* quanta: entries given (prios), or 0: from ratio */
	u32		explicit_quanta[MSFC_MAX_PRIOS];	/* quanta: bytes per class */
	u32		drop_batch;
	u32		overload;	/* enum tc_msfc_overload */
	u32		weights;	/* enum tc_msfc_weights */
	u32		inversion;	/* enum tc_msfc_inversion */
	u32		isolate;	/* enum tc_msfc_isolate */
	u32		boost;		/* enum tc_msfc_boost */
	u32		order;		/* enum tc_msfc_order */
	u32		auto_mode;	/* enum tc_msfc_auto */
	codel_time_t	auto_up;	/* auto: T_up, CoDel units a slot keeps its class */
	u64		round;		/* order priority: the round counter R */
	u32		memory_limit;
	u32		memory_usage;
	u32		active_flows;
	u32		target_us;	/* as configured, for dumps */
	u32		interval_us;
	u32		perturbation;	/* keys the flow hash per qdisc */
	struct codel_params cparams;
	struct codel_stats cstats;
	u64		codel_drops;
	u64		overload_drops;
	u64		overmemory_drops;
	u64		overload_events;
	u64		auto_promotions;
	u64		auto_demotions;
	u64		nqb_demotions;
	/* L4S marking: the threshold attribute as given (1 or prios entries in
	 * us, TC_MSFC_CE_THRESHOLD_OFF: none; 0 entries: none), each class's in
	 * CoDel units and the classes that have one
	 */
	u32		n_ce_threshold;
	u32		ce_threshold_us[MSFC_MAX_PRIOS];
	codel_time_t	ce_threshold[MSFC_MAX_PRIOS];
	u32		ce_classes;	/* bit p: class p has a threshold */
	u32		ce_selector;
	u32		ce_mask;
	u64		ce_threshold_marks;
	/* the shaper (bandwidth 0: none) */
	u64		bandwidth;	/* bytes/s */
	u64		ns_per_byte;	/* 2^-32 ns, (10^9 << 32) / bandwidth */
	u64		next_send;	/* ns: when the next packet may leave */
	u32		next_frac;	/* 2^-32 ns beyond next_send */
	s32		overhead;
	u32		raw;		/* 1: the kernel's length, overhead not added */
	u32		mpu;
	u32		framing;	/* enum tc_msfc_framing */
	u32		ingress;	/* dropped packets are charged too */
	bool		target_given;	/* target/interval set: not scaled to the rate */
	bool		interval_given;
	u64		throttled;
	struct qdisc_watchdog watchdog;
	u8		dscp_map[TC_MSFC_DSCP_MAP_LEN];
	struct msfc_class classes[MSFC_MAX_PRIOS];
	/* the least-effort lane: a class below class 0, outside the class
	 * round, with index prios in the flow and host tables
	 */
	struct msfc_class lane;
};

/* LE (RFC 8622) -> the least-effort lane, CS1 -> 0, NQB (RFC 9956) -> 1 as an NQB flow,
 * precedence 0/1 -> 1, precedence k -> k, each class clamped to prios - 1 when used.
 */
static const u8 msfc_default_dscp_map[TC_MSFC_DSCP_MAP_LEN] = TC_MSFC_DEFAULT_DSCP_MAP;

/* Q_0 = quantum, Q_p = max(1, round(Q_{p-1} * ratio)) in 16.16 fixed point,
 * or with @n_explicit (= prios) entries of @explicit_quanta those bytes;
 * weights exact: in 1/65536 byte, without the minimum of 1.  -ERANGE when a
 * quantum exceeds 2^40 bytes; -EDOM when exact quanta are so small that a
 * class share could be off by more than 0.5 % (sum of 1/Q_p above 1/200).
 * Explicit quanta (1 .. 2^20 bytes each) pass both checks.
 */
static int msfc_class_quanta(u32 prios, u32 quantum, u32 ratio, bool exact,
			     const u32 *explicit_quanta, u32 n_explicit, u64 *out)
{
	u32 shift = exact ? MSFC_EXACT_SHIFT : 0;
	u64 qp = (u64)quantum << shift, inv = 0;
	u32 p;

	out[0] = qp;
	for (p = 0; n_explicit && p < prios; p++)
		out[p] = (u64)explicit_quanta[p] << shift;
	for (p = 1; !n_explicit && p < prios; p++) {
		/* qp <= 2^56 and ratio <= 2^20: round(qp * ratio / 2^16),
		 * as (floor(qp * ratio / 2^15) + 1) / 2 without overflow
		 */
		qp = (mul_u64_u32_shr(qp, ratio, 15) + 1) >> 1;
		if (!exact)
			qp = max_t(u64, 1, qp);
		if (qp > MSFC_MAX_CLASS_QUANTUM << shift)
			return -ERANGE;
		out[p] = qp;
	}
	if (!exact)
		return 0;
	for (p = 0; p < prios; p++) {
		if (!out[p])	/* also keeps the division below from 0 */
			return -EDOM;
		inv += div64_u64(BIT_ULL(32), out[p]);
	}
	return inv > BIT_ULL(32) / 200 ? -EDOM : 0;
}

/* The shaper's ns per byte at @bandwidth bytes/s (>= 1) in 32.32 fixed
 * point: 10^9 * 2^32 < 2^62 fits, and at 1 Tbit/s (1.25 * 10^11 bytes/s) the
 * quotient is still about 2^35, so truncating it is off by less than 10^-10.
 */
static u64 msfc_ns_per_byte(u64 bandwidth)
{
	return div64_u64((u64)NSEC_PER_SEC << MSFC_RATE_SHIFT, bandwidth);
}

/* The length the shaper charges for @len bytes of which @netoff are the
 * link-layer header: framing(max(len' + overhead, mpu)), len' = @len with
 * raw, else @len - @netoff (the network-layer length, as cake counts it).
 */
static u32 msfc_link_len(u32 len, u32 netoff, bool raw, s32 overhead, u32 mpu,
			 u32 framing)
{
	s64 l = raw ? len : (s64)len - min(len, netoff) + overhead;

	l = max_t(s64, l, mpu);
	if (l < 0)
		l = 0;
	switch (framing) {
	case TC_MSFC_FRAMING_ATM:	/* whole cells of 48 bytes, 53 on the wire */
		return DIV_ROUND_UP_ULL(l, 48) * 53;
	case TC_MSFC_FRAMING_PTM:	/* one byte for every 64 or part of them */
		return l + DIV_ROUND_UP_ULL(l, 64);
	default:
		return l;
	}
}

/* A packet's charged length; a GSO packet is charged as gso_segs segments of
 * its average length (qdisc_pkt_len() already counts every segment's headers).
 */
static u32 msfc_skb_link_len(const struct msfc_sched_data *q,
			     const struct sk_buff *skb)
{
	u32 len = qdisc_pkt_len(skb), netoff = skb_network_offset(skb), segs = 1;

	if (skb_is_gso(skb))
		segs = max_t(u32, skb_shinfo(skb)->gso_segs, 1);
	if (segs == 1)
		return msfc_link_len(len, netoff, q->raw, q->overhead, q->mpu, q->framing);
	return segs * msfc_link_len(len / segs, netoff, q->raw, q->overhead, q->mpu,
				    q->framing);
}

/* The time @len bytes take at the rate, added to the shaper's clock
 * (@next ns and @frac 2^-32 ns): exact but for the rate's own rounding, the
 * fraction is carried from packet to packet.  @len < 2^32 and the ns per
 * byte < 2^62, so each product fits.
 */
static u64 msfc_shaper_add(u64 next, u32 *frac, u64 ns_per_byte, u32 len)
{
	u64 lo = (u64)lower_32_bits(ns_per_byte) * len + *frac;

	*frac = lower_32_bits(lo);
	return next + upper_32_bits(ns_per_byte) * (u64)len + (lo >> 32);
}

/* A packet of @len charged bytes leaves (or is dropped, ingress) at @now:
 * the next may leave once it has gone at the rate.  The clock runs on from
 * its own value while packets are queued, so a dequeue that comes late (the
 * watchdog fires after the clock's time) is made up by the next one; but
 * never by more than this packet's own time, so at most one packet more
 * leaves back to back, and an idle qdisc saves nothing (msfc_shaper_wake()).
 */
static void msfc_shaper_charge(struct msfc_sched_data *q, u32 len, u64 now)
{
	u64 dur = mul_u64_u32_shr(q->ns_per_byte, len, MSFC_RATE_SHIFT);

	if (q->next_send + dur < now) {
		q->next_send = now - dur;
		q->next_frac = 0;
	}
	q->next_send = msfc_shaper_add(q->next_send, &q->next_frac, q->ns_per_byte, len);
}

/* A packet arrives at an empty qdisc: the clock starts from now if it is
 * behind, no credit is kept from the idle time.
 */
static void msfc_shaper_wake(struct msfc_sched_data *q)
{
	u64 now = ktime_get_ns();

	if (q->next_send < now) {
		q->next_send = now;
		q->next_frac = 0;
	}
}

static void msfc_shaper_drop(struct msfc_sched_data *q, const struct sk_buff *skb)
{
	if (q->bandwidth && q->ingress)
		msfc_shaper_charge(q, msfc_skb_link_len(q, skb), ktime_get_ns());
}

/* CoDel's target with a bandwidth and no target given: the default, or the
 * time TC_MSFC_SCALED_TARGET_MTUS / 10 packets of @mtu bytes (charged as the
 * shaper charges them) take, if longer; in us.
 */
static u32 msfc_scaled_target_us(u64 ns_per_byte, u32 mtu_len)
{
	u64 ns = mul_u64_u32_shr(ns_per_byte, mtu_len, MSFC_RATE_SHIFT);
	u64 us = div_u64(ns * TC_MSFC_SCALED_TARGET_MTUS, 10 * NSEC_PER_USEC);

	return clamp_t(u64, us, TC_MSFC_TARGET_DEFAULT, TC_MSFC_TARGET_MAX / 2);
}

static u32 msfc_scaled_interval_us(u32 target_us)
{
	return max_t(u32, TC_MSFC_INTERVAL_DEFAULT,
		     target_us + TC_MSFC_SCALED_INTERVAL_EXTRA);
}

static u32 msfc_clamp_class(const struct msfc_sched_data *q, u32 cls)
{
	return min(cls, q->prios - 1);
}

/* The class record of table index @cidx: a class 0 .. prios - 1, or prios,
 * the least-effort lane.
 */
static struct msfc_class *msfc_class_of(struct msfc_sched_data *q, u32 cidx)
{
	return cidx < q->prios ? &q->classes[cidx] : &q->lane;
}

static struct msfc_class *msfc_flow_class(struct msfc_sched_data *q,
					  const struct msfc_flow *flow)
{
	return msfc_class_of(q, flow->cls);
}

/* A DSCP map entry: a class, a class with the NQB flag, or the lane. */
static bool msfc_dscp_entry_valid(u8 v)
{
	return v == TC_MSFC_DSCP_LE ||
	       !(v & ~(TC_MSFC_DSCP_NQB | TC_MSFC_DSCP_CLASS_MASK));
}

/* Returns the class index (prios: the least-effort lane), or -1 if a filter
 * action consumed the packet; *mapped: the class is the DSCP map's (no
 * priority or filter gave one); *nqb: the map's entry has the NQB flag.
 */
static int msfc_classify(struct sk_buff *skb, struct Qdisc *sch, int dsfield,
			 int *qerr, bool *mapped, bool *nqb)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct tcf_proto *filter;
	struct tcf_result res;
	int result;
	u8 entry;

	*mapped = false;
	*nqb = false;
	if (TC_H_MAJ(skb->priority) == sch->handle &&
	    TC_H_MIN(skb->priority) > 0)
		return msfc_clamp_class(q, TC_H_MIN(skb->priority) - 1);

	filter = rcu_dereference_bh(q->filter_list);
	if (filter) {
		*qerr = NET_XMIT_SUCCESS | __NET_XMIT_BYPASS;
		result = tcf_classify(skb, NULL, filter, &res, false);
		if (result >= 0) {
#ifdef CONFIG_NET_CLS_ACT
			switch (result) {
			case TC_ACT_STOLEN:
			case TC_ACT_QUEUED:
			case TC_ACT_TRAP:
				*qerr = NET_XMIT_SUCCESS | __NET_XMIT_STOLEN;
				fallthrough;
			case TC_ACT_SHOT:
			case TC_ACT_REDIRECT:	/* not supported from qdisc filters */
				return -1;
			}
#endif
			if (TC_H_MIN(res.classid) > 0)
				return msfc_clamp_class(q, TC_H_MIN(res.classid) - 1);
		}
	}

	/* non-IP packets use the entry of DSCP 0 */
	*mapped = true;
	entry = q->dscp_map[dsfield < 0 ? 0 : dsfield >> 2];
	if (entry == TC_MSFC_DSCP_LE)
		return q->prios;
	*nqb = entry & TC_MSFC_DSCP_NQB;
	return msfc_clamp_class(q, entry & TC_MSFC_DSCP_CLASS_MASK);
}

static struct msfc_skb_cb *msfc_skb_cb(const struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct msfc_skb_cb));
	return (struct msfc_skb_cb *)qdisc_skb_cb(skb)->data;
}

/* auto: the home class H, DSCP 0's class, whose flow records hold the state
 * of every flow slot (its level and clean time).  It is always a class: the
 * class bits of DSCP 0's entry (an NQB entry's class; the lane's entry has
 * none, so class 0).
 */
static u32 msfc_home(const struct msfc_sched_data *q)
{
	return msfc_clamp_class(q, q->dscp_map[0] & TC_MSFC_DSCP_CLASS_MASK);
}

/* auto: the class of @skb, an auto packet of flow slot @fidx (docs/algorithm.md,
 * "Automatic priorities").  The slot climbs one class first when its flow
 * queue at its level is empty (no packet of the flow then overtakes an older
 * one below) and it has been sparse at its level, and not idle, for T_up: no
 * change of class, no packet that left more than a quantum behind, and a
 * slot whose last auto packet came T_up ago or more is sparse from now only.
 * A level is always a class of the qdisc: the records start at their own
 * class and a level moves between 0 and prios - 1.  The clock's reading is
 * the packet's enqueue time too (msfc_enqueue_flow() leaves it).
 */
static u32 msfc_auto_class(struct msfc_sched_data *q, struct sk_buff *skb, u32 fidx)
{
	struct msfc_flow *slot = &q->flows[msfc_home(q) * q->flows_cnt + fidx];
	codel_time_t now = codel_get_time();
	u32 c = slot->level;

	get_codel_cb(skb)->enqueue_time = now;
	if (now - slot->last >= q->auto_up)
		slot->clean = now;
	slot->last = now;
	if (c + 1 < q->prios && !q->flows[c * q->flows_cnt + fidx].head &&
	    now - slot->clean >= q->auto_up) {
		slot->level = ++c;
		slot->clean = now;
		q->auto_promotions++;
	}
	return c;
}

/* auto: @skb, an auto packet, has just left @flow through codel_dequeue();
 * only a packet of its slot's level counts.  If CoDel's drop test on it said
 * "may drop" (first_above_time set and passed: the state codel_should_drop()
 * leaves, its last test having been on this packet), the slot sinks one
 * class (at class 0 it stays, its clean time set again).  Else, if the flow
 * still holds more than a quantum (CoDel's own backlog test), it is not
 * sparse: its time to climb starts again.  CoDel's now is the packet's
 * enqueue time plus the sojourn CoDel computed from it (ldelay): no second
 * clock read, and the same now as the test.
 */
static void msfc_auto_dequeued(struct msfc_sched_data *q, struct msfc_flow *flow,
			       const struct sk_buff *skb)
{
	u32 idx = flow - q->flows, fidx = idx - flow->cls * q->flows_cnt;
	struct msfc_flow *slot = &q->flows[msfc_home(q) * q->flows_cnt + fidx];
	codel_time_t fat = flow->cvars.first_above_time, now;

	if (slot->level != flow->cls)
		return;
	now = codel_get_enqueue_time(skb) + flow->cvars.ldelay;
	if (fat && codel_time_after(now, fat)) {
		slot->level = flow->cls ? flow->cls - 1 : 0;
		slot->clean = now;
		q->auto_demotions++;
	} else if (q->backlogs[idx] > q->quantum) {
		slot->clean = now;
	}
}

static u32 msfc_hash(const struct msfc_sched_data *q, struct sk_buff *skb,
		     int dsfield)
{
	if (dsfield < 0)	/* non-IP: flow 0 */
		return 0;
	/* skb_get_hash() reuses a hash the packet already carries (receive
	 * hash, socket hash) and dissects the headers only when it has none;
	 * the per-qdisc key keeps two qdiscs from sharing collisions.
	 */
	return reciprocal_scale(jhash_1word(skb_get_hash(skb), q->perturbation),
				q->flows_cnt);
}

/* Host slots of a packet's source and destination: the keyed hash of the
 * address, as flows are hashed (non-IP: slot 0).
 */
static void msfc_host_slots(const struct msfc_sched_data *q,
			    const struct sk_buff *skb, u16 *hosts)
{
	struct flow_keys keys;
	u32 src, dst;

	hosts[0] = 0;
	hosts[1] = 0;
	if (!skb_flow_dissect_flow_keys(skb, &keys, 0))
		return;
	switch (keys.control.addr_type) {
	case FLOW_DISSECTOR_KEY_IPV4_ADDRS:
		src = (__force u32)keys.addrs.v4addrs.src;
		dst = (__force u32)keys.addrs.v4addrs.dst;
		break;
	case FLOW_DISSECTOR_KEY_IPV6_ADDRS:
		src = ipv6_addr_hash(&keys.addrs.v6addrs.src);
		dst = ipv6_addr_hash(&keys.addrs.v6addrs.dst);
		break;
	default:
		return;
	}
	hosts[0] = reciprocal_scale(jhash_1word(src, q->perturbation), q->flows_cnt);
	hosts[1] = reciprocal_scale(jhash_1word(dst, q->perturbation), q->flows_cnt);
}

static u32 msfc_host_idx(const struct msfc_sched_data *q, u32 cidx, int dir, u16 slot)
{
	return (cidx * 2 + dir) * q->flows_cnt + slot;
}

static u32 *msfc_host_load(const struct msfc_sched_data *q, u32 cidx, int dir, u16 slot)
{
	return &q->host_loads[msfc_host_idx(q, cidx, dir, slot)];
}

/* Active flows of the flow's host in its class (isolate != flow; at least 1
 * while the flow is active): its source's, destination's or the larger.
 */
static u32 msfc_flow_load(const struct msfc_sched_data *q,
			  const struct msfc_flow *flow)
{
	u32 src = *msfc_host_load(q, flow->cls, 0, flow->src);
	u32 dst = *msfc_host_load(q, flow->cls, 1, flow->dst);
	u32 load;

	switch (q->isolate) {
	case TC_MSFC_ISOLATE_SRC:
		load = src;
		break;
	case TC_MSFC_ISOLATE_DST:
		load = dst;
		break;
	default:
		load = max(src, dst);
		break;
	}
	/* A listed flow counts in both of its slots from its activation until it
	 * leaves its list, and the loads change meaning only on an idle qdisc after
	 * every listed flow has left (msfc_forget_active()), so the load is at
	 * least 1 and at most flows (65536).  Callers divide by it: a 0 would be a
	 * broken invariant, reported and not turned into a divide error.
	 */
	if (WARN_ON_ONCE(!load))
		return 1;
	return load;
}

/* The host deficit a flow draws on (isolate != flow): its source slot's
 * (src), its destination slot's (dst), or with both the side of the larger
 * load (ties: source), the side whose load msfc_flow_load() returns.
 */
static s64 *msfc_host_deficit(const struct msfc_sched_data *q,
			      const struct msfc_flow *flow)
{
	int dir;

	switch (q->isolate) {
	case TC_MSFC_ISOLATE_SRC:
		dir = 0;
		break;
	case TC_MSFC_ISOLATE_DST:
		dir = 1;
		break;
	default:
		dir = *msfc_host_load(q, flow->cls, 0, flow->src) >=
		      *msfc_host_load(q, flow->cls, 1, flow->dst) ? 0 : 1;
		break;
	}
	return &q->host_deficits[msfc_host_idx(q, flow->cls, dir,
					       dir ? flow->dst : flow->src)];
}

/* Adds to a host deficit, which never exceeds one quantum (the cap keeps a
 * host whose flows are all in debt from saving up a burst).
 */
static void msfc_host_add(const struct msfc_sched_data *q, s64 *host, s64 amount)
{
	*host = min_t(s64, *host + amount, (s64)q->quantum << MSFC_ISOLATE_SHIFT);
}

/* The inner DRR refill of a flow: quantum bytes (isolate flow), else
 * quantum / load in 1/65536 byte, rounded down.  Safe: the load is 1 ..
 * 65536 (msfc_flow_load()), so the refill is at least 1 (quantum >= 1 byte)
 * and at most 2^36.
 */
static u64 msfc_flow_quantum(const struct msfc_sched_data *q,
			     const struct msfc_class *cl,
			     const struct msfc_flow *flow)
{
	if (q->isolate == TC_MSFC_ISOLATE_FLOW)
		return q->quantum;
	return div_u64((u64)q->quantum << MSFC_ISOLATE_SHIFT,
		       msfc_flow_load(q, flow));
}

static void msfc_flow_leaves(struct msfc_sched_data *q, struct msfc_flow *flow)
{
	if (q->isolate == TC_MSFC_ISOLATE_FLOW)
		return;
	(*msfc_host_load(q, flow->cls, 0, flow->src))--;
	(*msfc_host_load(q, flow->cls, 1, flow->dst))--;
}

static struct sk_buff *dequeue_head(struct msfc_flow *flow)
{
	struct sk_buff *skb = flow->head;

	flow->head = skb->next;
	skb_mark_not_on_list(skb);
	return skb;
}

static void flow_queue_add(struct msfc_flow *flow, struct sk_buff *skb)
{
	if (!flow->head)
		flow->head = skb;
	else
		flow->tail->next = skb;
	flow->tail = skb;
	skb->next = NULL;
}

/* inversion prevent: the effective class quanta from the most important
 * class down (class prios - 1 first when ratio > 1 or the quanta are
 * explicit, class 0 when ratio is below 1), until class @last:
 * eff_c = max(1, min(Q_c, n_c * P)), P the smallest floor(eff_k / n_k) of
 * the classes above with flows, scaled at every class down by 1 / ratio, or
 * with explicit quanta by Q_{k-1} / Q_k (rounded down); n the active flows
 * (on any of the class's lists, its NQB flows too: cl->active_flows).
 * Classes without flows, and the first with flows, keep Q_c.  Stores them in
 * @eff if given; returns eff_last.  O(prios), two divisions per class, all
 * safe: by a class's active flows only where it has some, by the ratio (>= 1
 * in 16.16, the policy's minimum) or 65536, or by an explicit quantum (>= 1
 * byte).  P stays at most Q_k units at class k (each scaling only rounds
 * down the quotient of two quanta), so explicit scaling cannot overflow.
 */
static u64 msfc_effective_quanta(const struct msfc_sched_data *q, u32 last,
				 u64 *eff)
{
	bool ascending = q->ratio > MSFC_RATIO_ONE || q->n_explicit,
	     above = false;
	u32 num = ascending ? MSFC_RATIO_ONE : q->ratio;
	u32 den = ascending ? q->ratio : MSFC_RATIO_ONE;
	u64 per_flow = 0, e = 0, lowered;
	const struct msfc_class *cl;
	u32 i, p;

	for (i = 0; i < q->prios; i++) {
		p = ascending ? q->prios - 1 - i : i;
		cl = &q->classes[p];
		e = cl->quantum;
		if (cl->active_flows) {
			if (above) {
				if (!check_mul_overflow((u64)cl->active_flows, per_flow,
							&lowered) && lowered < e)
					e = max_t(u64, lowered, 1);
				per_flow = min(per_flow, div_u64(e, cl->active_flows));
			} else {
				per_flow = div_u64(e, cl->active_flows);
			}
			above = true;
		}
		if (eff)
			eff[p] = e;
		if (p == last)
			break;
		if (q->n_explicit && p) {
			num = q->explicit_quanta[p - 1];
			den = q->explicit_quanta[p];
		}
		per_flow = mul_u64_u32_div(per_flow, num, den);
	}
	return e;
}

/* inversion prevent ranks the classes: by the ratio, none above another at
 * ratio 1, or by their index with explicit quanta.
 */
static bool msfc_ranked(const struct msfc_sched_data *q)
{
	return q->inversion == TC_MSFC_INVERSION_PREVENT &&
	       (q->ratio != MSFC_RATIO_ONE || q->n_explicit);
}

/* What a class's deficit is refilled with (activation and every outer
 * round): Q_c, or with inversion prevent its effective quantum.
 */
static u64 msfc_class_quantum(const struct msfc_sched_data *q,
			      const struct msfc_class *cl)
{
	if (!msfc_ranked(q))
		return cl->quantum;
	return msfc_effective_quanta(q, cl - q->classes, NULL);
}

/* backlog(a) / quantum qa > backlog(b) / quantum qb, exactly, the backlog in
 * bytes or packets: a backlog has 32 bits and a quantum at most 40 (56 with
 * weights exact), so each cross product fits in 96 bits.
 */
static bool msfc_class_fuller(const struct msfc_class *a, u64 qa,
			      const struct msfc_class *b, u64 qb, bool bytes)
{
	u32 ba = bytes ? a->backlog : a->qlen, bb = bytes ? b->backlog : b->qlen;
	u64 al = (u64)ba * lower_32_bits(qb);
	u64 ah = (u64)ba * upper_32_bits(qb) + (al >> 32);
	u64 bl = (u64)bb * lower_32_bits(qa);
	u64 bh = (u64)bb * upper_32_bits(qa) + (bl >> 32);

	if (ah != bh)
		return ah > bh;
	return lower_32_bits(al) > lower_32_bits(bl);
}

/* Over limit or memory_limit: drop from the head of the victim flow until
 * half of its backlog or max_packets packets are gone.  The victim is the
 * flow holding the most bytes (isolate != flow: the largest bytes * load of
 * its host, the flow most above its host's share; ties: lowest class, then
 * lowest flow): over
 * all classes (overload flow), or inside the class with the largest
 * backlog / quantum, the class most above its share of the buffer
 * (overload class; ties: lowest class), its backlog counted in packets over
 * limit and in bytes over memory_limit only (with inversion prevent, the
 * effective quanta).  While the least-effort lane holds a packet the victim
 * is its fattest flow (the same ties and weights), for both modes: LE traffic
 * is dropped before any class's.  Emptied flows and classes stay
 * on their lists and leave at their next dequeue visit.
 */
static void msfc_overload_drop(struct Qdisc *sch, u32 max_packets,
			       struct sk_buff **to_free)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	u32 maxbacklog = 0, idx = 0, i, n = q->prios * q->flows_cnt;
	u64 weight, maxweight = 0;
	unsigned int len = 0, mem = 0;
	struct msfc_flow *flow;
	struct msfc_class *cl;
	struct sk_buff *skb;

	i = 0;
	if (q->lane.qlen) {
		i = q->prios * q->flows_cnt;
		n = i + q->flows_cnt;
		idx = i;
	} else if (q->overload == TC_MSFC_OVERLOAD_CLASS) {
		bool bytes = sch->q.qlen <= sch->limit;
		u64 eff[MSFC_MAX_PRIOS];
		u32 p, victim = 0;

		for (p = 0; p < q->prios; p++)
			eff[p] = q->classes[p].quantum;
		if (msfc_ranked(q))
			msfc_effective_quanta(q, q->prios, eff);
		for (p = 1; p < q->prios; p++)
			if (msfc_class_fuller(&q->classes[p], eff[p],
					      &q->classes[victim], eff[victim],
					      bytes))
				victim = p;
		i = victim * q->flows_cnt;
		n = i + q->flows_cnt;
		idx = i;
	}
	if (q->isolate == TC_MSFC_ISOLATE_FLOW) {
		for (; i < n; i++) {
			if (q->backlogs[i] > maxbacklog) {
				maxbacklog = q->backlogs[i];
				idx = i;
			}
		}
	} else {
		for (; i < n; i++) {
			if (!q->backlogs[i])
				continue;
			weight = (u64)q->backlogs[i] *
				 msfc_flow_load(q, &q->flows[i]);
			if (weight > maxweight) {
				maxweight = weight;
				idx = i;
			}
		}
		maxbacklog = q->backlogs[idx];
	}

	flow = &q->flows[idx];
	cl = msfc_flow_class(q, flow);
	i = 0;
	while (flow->head && i < max_packets && (u64)len * 2 < maxbacklog) {
		skb = dequeue_head(flow);
		len += qdisc_pkt_len(skb);
		mem += get_codel_cb(skb)->mem_usage;
		msfc_shaper_drop(q, skb);
		__qdisc_drop(skb, to_free);
		i++;
	}

	q->overload_events++;
	q->overload_drops += i;
	q->backlogs[idx] -= len;
	q->memory_usage -= mem;
	cl->qlen -= i;
	cl->backlog -= len;
	cl->overload_drops += i;
	__qdisc_qstats_drop(sch, i);
	sch->qstats.overlimits += i;
	sch->qstats.backlog -= len;
	sch->q.qlen -= i;
}

/* Enqueue into a given class and flow; classification is done by the
 * caller (msfc_enqueue(), or the trace replay of the KUnit test).  @cidx: a
 * class, or prios for the least-effort lane.  @hosts: source and destination
 * host slots, or NULL to hash the packet's addresses (only done when the flow
 * becomes active and isolate is not flow).  @is_auto: the class is the flow
 * slot's level (msfc_auto_class(), which has set the packet's enqueue time).
 * @nqb: an NQB packet (its flow joins the NQB flows if it becomes active).
 */
static int msfc_enqueue_flow(struct sk_buff *skb, struct Qdisc *sch, u32 cidx,
			     u32 fidx, const u16 *hosts, bool is_auto, bool nqb,
			     struct sk_buff **to_free)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	unsigned int pkt_len = qdisc_pkt_len(skb);
	unsigned int prev_qlen, prev_backlog, dropped, dropped_len;
	u32 idx = cidx * q->flows_cnt + fidx;
	struct msfc_class *cl = msfc_class_of(q, cidx);
	struct msfc_flow *flow = &q->flows[idx];
	struct list_head *list;
	bool memory_limited;

	if (q->bandwidth && !sch->q.qlen)
		msfc_shaper_wake(q);
	if (!is_auto)
		codel_set_enqueue_time(skb);
	msfc_skb_cb(skb)->is_auto = is_auto;
	flow_queue_add(flow, skb);
	q->backlogs[idx] += pkt_len;
	cl->qlen++;
	cl->backlog += pkt_len;
	cl->enq_packets++;
	cl->enq_bytes += pkt_len;
	qdisc_qstats_backlog_inc(sch, skb);

	if (list_empty(&flow->flowchain)) {
		if (nqb) {
			flow->nqb = 1;
			cl->nqb_active++;
			list = &cl->nqb_flows;
		} else {
			list = q->boost != TC_MSFC_BOOST_OFF ? &cl->new_flows : &cl->flows;
		}
		list_add_tail(&flow->flowchain, list);
		if (q->isolate != TC_MSFC_ISOLATE_FLOW) {
			u16 slots[2];
			int dir;

			if (!hosts) {
				msfc_host_slots(q, skb, slots);
				hosts = slots;
			}
			flow->src = hosts[0];
			flow->dst = hosts[1];
			/* a host that had no active flow in the class
			 * starts with a fresh quantum
			 */
			for (dir = 0; dir < 2; dir++) {
				u16 slot = dir ? flow->dst : flow->src;
				u32 i = msfc_host_idx(q, cidx, dir, slot);

				if (++q->host_loads[i] == 1)
					q->host_deficits[i] = (s64)q->quantum <<
							      MSFC_ISOLATE_SHIFT;
			}
		}
		cl->active_flows++;
		q->active_flows++;
		/* a flow that left from the new flows (boost across) or the
		 * NQB flows comes back with the deficit it left with, not a
		 * fresh quantum, and its NQB stamp
		 */
		if (!flow->sparse) {
			flow->deficit = msfc_flow_quantum(q, cl, flow);
			flow->stamp = cl->refills;
		}
		flow->sparse = 0;
	}
	/* NQB queue protection: a flow holding more than a quantum (this
	 * packet included) is queue-building, and waits behind the old flows
	 */
	if (flow->nqb && q->backlogs[idx] > q->quantum) {
		flow->nqb = 0;
		cl->nqb_active--;
		list_move_tail(&flow->flowchain, &cl->flows);
		cl->nqb_demotions++;
		q->nqb_demotions++;
	}
	/* the lane is not in the class round */
	if (cl != &q->lane && list_empty(&cl->node)) {
		list_add_tail(&cl->node, &q->active_classes);
		/* order priority: a class back in the round it already took
		 * part in keeps what it had left (no fresh quantum for
		 * draining and returning)
		 */
		if (q->order != TC_MSFC_ORDER_PRIORITY) {
			cl->deficit = msfc_class_quantum(q, cl);
		} else if (cl->round != q->round) {
			cl->deficit = msfc_class_quantum(q, cl);
			cl->round = q->round;
		}
	}

	get_codel_cb(skb)->mem_usage = skb->truesize;
	q->memory_usage += skb->truesize;
	memory_limited = q->memory_usage > q->memory_limit;
	if (++sch->q.qlen <= sch->limit && !memory_limited)
		return NET_XMIT_SUCCESS;

	prev_qlen = sch->q.qlen;
	prev_backlog = sch->qstats.backlog;
	msfc_overload_drop(sch, q->drop_batch, to_free);
	/* memory_limit is a hard bound: half of the fattest flow's bytes may
	 * hold less truesize than the new packet, so drop on until it fits.
	 * Every round drops at least one packet while the flows hold any.
	 */
	while (q->memory_usage > q->memory_limit) {
		unsigned int qlen = sch->q.qlen;

		msfc_overload_drop(sch, q->drop_batch, to_free);
		if (sch->q.qlen == qlen)
			break;
	}
	dropped = prev_qlen - sch->q.qlen;
	dropped_len = prev_backlog - sch->qstats.backlog;
	if (memory_limited)
		q->overmemory_drops += dropped;

	/* The new packet sits at the tail of its flow and drops take heads: it
	 * was dropped iff its flow is now empty.  Then our parents do not count
	 * it (NET_XMIT_CN), so it is left out of the backlog reduction.
	 */
	if (!flow->head) {
		qdisc_tree_reduce_backlog(sch, dropped - 1, dropped_len - pkt_len);
		return NET_XMIT_CN;
	}
	qdisc_tree_reduce_backlog(sch, dropped, dropped_len);
	return NET_XMIT_SUCCESS;
}

static int msfc_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			struct sk_buff **to_free)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	int dsfield = skb_get_dsfield(skb);
	int ret = NET_XMIT_SUCCESS;
	bool mapped, is_auto, nqb;
	int cidx;
	u32 fidx;

	cidx = msfc_classify(skb, sch, dsfield, &ret, &mapped, &nqb);
	if (cidx < 0) {
		if (ret & __NET_XMIT_BYPASS)
			qdisc_qstats_drop(sch);
		__qdisc_drop(skb, to_free);
		return ret;
	}
	fidx = msfc_hash(q, skb, dsfield);
	/* auto: an IP packet the DSCP map classifies (unmarked: of DSCP 0);
	 * its map entry is not used, so neither is its lane or NQB flag
	 */
	is_auto = q->auto_mode != TC_MSFC_AUTO_OFF && mapped && dsfield >= 0 &&
		  (q->auto_mode == TC_MSFC_AUTO_ALL || !(dsfield >> 2));
	if (is_auto) {
		cidx = msfc_auto_class(q, skb, fidx);
		nqb = false;
	}
	return msfc_enqueue_flow(skb, sch, cidx, fidx, NULL, is_auto, nqb, to_free);
}

/* Called by codel_dequeue() to take the head packet of a flow. */
static struct sk_buff *dequeue_func(struct codel_vars *vars, void *ctx)
{
	struct Qdisc *sch = ctx;
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct msfc_flow *flow = container_of(vars, struct msfc_flow, cvars);
	struct msfc_class *cl = msfc_flow_class(q, flow);
	struct sk_buff *skb;
	unsigned int len;

	if (!flow->head)
		return NULL;
	skb = dequeue_head(flow);
	len = qdisc_pkt_len(skb);
	q->backlogs[flow - q->flows] -= len;
	q->memory_usage -= get_codel_cb(skb)->mem_usage;
	cl->qlen--;
	cl->backlog -= len;
	sch->q.qlen--;
	sch->qstats.backlog -= len;
	return skb;
}

static void drop_func(struct sk_buff *skb, void *ctx)
{
	struct Qdisc *sch = ctx;

	msfc_shaper_drop(qdisc_priv(sch), skb);
	kfree_skb_reason(skb, SKB_DROP_REASON_QDISC_DROP);
	qdisc_qstats_drop(sch);
}

/* Refills a deficit <= 0 needs to become positive.  Safe: every quantum
 * passed is at least 1: a flow's (msfc_flow_quantum()), a host's (load >= 1
 * times a flow's), a class's (msfc_class_quantum(): Q_p >= 1, rounded or
 * exact as msfc_class_quanta() checks, or an effective quantum >= 1).
 */
static u64 msfc_refills(s64 deficit, u64 quantum)
{
	return deficit > 0 ? 0 : div64_u64(-deficit, quantum) + 1;
}

/* The refill of a visit that does not send: the flow while its own deficit
 * is <= 0 and (isolate != flow, host non-NULL) its host by the flow's
 * quantum, up to one quantum, so that a host sends about one quantum a
 * round, spread over the round, while its flows still take turns.
 */
static void msfc_refill_flow(struct msfc_sched_data *q, struct msfc_class *cl,
			     struct msfc_flow *flow, s64 *host)
{
	u64 quantum = msfc_flow_quantum(q, cl, flow);

	if (flow->deficit <= 0)
		flow->deficit += quantum;
	if (host)
		msfc_host_add(q, host, quantum);
}

/* What @rounds skipped rounds of refills on @list (msfc_skip_flow_rounds())
 * leave beside the deficits: the class's refills count every refill of a flow
 * that is not NQB, and an NQB flow refilled on its list gets the refills as
 * its stamp.
 */
static void msfc_skipped_refills(struct msfc_class *cl, struct list_head *list,
				 u64 rounds)
{
	struct msfc_flow *flow;

	if (list == &cl->flows) {
		cl->refills += (u32)rounds * cl->active_flows;
		return;
	}
	list_for_each_entry(flow, list, flowchain)
		flow->stamp = cl->refills;
}

/* A DRR round in which every visit is a refill only adds one quantum to
 * each deficit and leaves the order as it was.  With a small quantum and
 * large packets that takes up to (packet size / quantum) rounds over all
 * active flows per packet (2^32 steps for 65536 flows, quantum 1 and 64 KB
 * packets), so such rounds are added at once: k - 1 of them when every
 * entry needs at least k refills.  The order of service is unchanged.
 *
 * isolate != flow: a visit is a refill while the flow's deficit or its
 * host's is <= 0.  The flow's stays <= 0 for k - 1 more refills if it needs
 * k.  Its host's gains at most load * flow quantum a round (no more than
 * load listed flows draw on it, each with that quantum; the loads do not
 * change in such rounds), so it stays <= 0 for k - 1 rounds if it needs k
 * refills of that size.  Then each flow adds its quantum k - 1 times to its
 * host (up to one quantum: additions capped at one bound compose) and to
 * itself while its own deficit is <= 0.  All k are taken before any deficit
 * changes: the flows of a host share its deficit.
 *
 * @list holds every active flow of the class: cl->flows while the NQB and
 * new flows are empty, each of the (k - 1) * active_flows visits skipped the
 * refill of a flow that is not NQB, counted in the class's refills (modulo
 * 2^32, as one by one); or cl->nqb_flows while the class has no other flows,
 * where each refill keeps the flow on the NQB list with its stamp set to the
 * refills, which do not move.
 */
static void msfc_skip_flow_rounds(struct msfc_sched_data *q,
				  struct msfc_class *cl, struct list_head *list)
{
	u64 k = U64_MAX, quantum;
	struct msfc_flow *flow;

	if (q->isolate == TC_MSFC_ISOLATE_FLOW) {
		list_for_each_entry(flow, list, flowchain)
			k = min(k, msfc_refills(flow->deficit,
						msfc_flow_quantum(q, cl, flow)));
		if (k < 2)
			return;
		list_for_each_entry(flow, list, flowchain)
			flow->deficit += (k - 1) * msfc_flow_quantum(q, cl, flow);
		msfc_skipped_refills(cl, list, k - 1);
		return;
	}
	list_for_each_entry(flow, list, flowchain) {
		quantum = msfc_flow_quantum(q, cl, flow);
		k = min(k, max(msfc_refills(flow->deficit, quantum),
			       msfc_refills(*msfc_host_deficit(q, flow),
					    msfc_flow_load(q, flow) * quantum)));
	}
	if (k < 2)
		return;
	list_for_each_entry(flow, list, flowchain) {
		quantum = msfc_flow_quantum(q, cl, flow);
		flow->deficit += quantum * min(k - 1, msfc_refills(flow->deficit, quantum));
		msfc_host_add(q, msfc_host_deficit(q, flow), (k - 1) * quantum);
	}
	msfc_skipped_refills(cl, list, k - 1);
}

static void msfc_skip_class_rounds(struct msfc_sched_data *q)
{
	struct msfc_class *cl;
	u64 k = U64_MAX;

	/* the quanta do not change in such rounds: no flow comes or goes */
	list_for_each_entry(cl, &q->active_classes, node)
		k = min(k, msfc_refills(cl->deficit, msfc_class_quantum(q, cl)));
	if (k < 2)
		return;
	list_for_each_entry(cl, &q->active_classes, node)
		cl->deficit += (k - 1) * msfc_class_quantum(q, cl);
}

/* L4S marking (docs/algorithm.md, "L4S marking"): @skb has just left @flow
 * of class @cl through codel_dequeue(), whose ldelay is its sojourn in CoDel
 * units.  Above the class's threshold (codel_time_after(), as CoDel compares
 * times; both stay below 2^31 units) an ECT(0) or ECT(1) packet whose TOS
 * byte matches the selector is CE-marked.  A packet already CE (it came so,
 * or CoDel has just marked it) is left as it is and not counted: the
 * threshold's marks and CoDel's are counted apart.
 */
static void msfc_threshold_mark(struct msfc_sched_data *q, struct msfc_class *cl,
				const struct msfc_flow *flow, struct sk_buff *skb)
{
	u32 p = cl == &q->lane ? 0 : cl - q->classes;	/* the lane: class 0's */
	int dsfield;

	if (!(q->ce_classes & BIT(p)) ||
	    !codel_time_after(flow->cvars.ldelay, q->ce_threshold[p]))
		return;
	dsfield = skb_get_dsfield(skb);
	if (dsfield < 0 || ((dsfield & INET_ECN_MASK) != INET_ECN_ECT_0 &&
			    (dsfield & INET_ECN_MASK) != INET_ECN_ECT_1) ||
	    (dsfield & q->ce_mask) != q->ce_selector)
		return;
	if (INET_ECN_set_ce(skb)) {
		cl->ce_threshold_marks++;
		q->ce_threshold_marks++;
	}
}

/* Inner DRR over the active flows of one class (or the lane): its NQB flows
 * first, then its new flows (boost on or across; the list stays empty with
 * boost off), then its old flows.  A new flow moves to the old flows when it
 * has spent its quantum, or when it is found empty while there are old flows
 * (so that it cannot starve them by leaving and coming back new); an old flow
 * found empty leaves.  An NQB flow that has spent its quantum gets the next
 * one on the NQB list only when the class's other flows have had as many
 * refills since its last one as there are of them (about a round: never more
 * than a quantum a round), else it moves to the old flows; an NQB flow found
 * empty leaves with its deficit (docs/algorithm.md, "LE and NQB").  @new_only
 * (boost across, msfc_dequeue_across()): the NQB and new flows only, NULL once
 * there are none.
 */
static struct sk_buff *msfc_class_dequeue(struct Qdisc *sch,
					  struct msfc_class *cl, bool new_only)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct list_head *head;
	struct msfc_flow *flow;
	s64 *host;
	struct sk_buff *skb;
	u32 drops, marks;
	u32 visits = 0;

	for (;;) {
		head = &cl->nqb_flows;
		if (list_empty(head))
			head = &cl->new_flows;
		if (list_empty(head)) {
			head = &cl->flows;
			if (new_only || list_empty(head))
				return NULL;
		}
		flow = list_first_entry(head, struct msfc_flow, flowchain);
		/* isolate != flow: a flow sends only while its host has credit
		 * too; the loads, and so the host, stay the same until the
		 * visit ends (skipped rounds do not change them)
		 */
		host = q->isolate != TC_MSFC_ISOLATE_FLOW ?
		       msfc_host_deficit(q, flow) : NULL;
		if (flow->deficit <= 0 || (host && *host <= 0)) {
			/* refills of new flows move them off their list, and an
			 * NQB flow stays on its list after a refill only while
			 * the class has no other flows or once in a visit, so
			 * rounds of refills are skipped on a list that holds
			 * every active flow: the old flows, or the NQB flows of
			 * a class that has no others; after skipped rounds this
			 * visit is still a refill
			 */
			if (++visits > cl->active_flows &&
			    (head == &cl->flows || cl->nqb_active == cl->active_flows)) {
				msfc_skip_flow_rounds(q, cl, head);
				visits = 0;
			}
			msfc_refill_flow(q, cl, flow, host);
			if (head == &cl->nqb_flows) {
				if (cl->refills - flow->stamp >=
				    cl->active_flows - cl->nqb_active) {
					flow->stamp = cl->refills;
					list_move_tail(&flow->flowchain, head);
					continue;
				}
				flow->nqb = 0;
				cl->nqb_active--;
			} else {
				cl->refills++;
			}
			list_move_tail(&flow->flowchain, &cl->flows);
			continue;
		}

		drops = q->cstats.drop_count;
		marks = q->cstats.ecn_mark;
		skb = codel_dequeue(sch, &q->backlogs[flow - q->flows],
				    &q->cparams, &flow->cvars, &q->cstats,
				    qdisc_pkt_len, codel_get_enqueue_time,
				    drop_func, dequeue_func);
		cl->codel_drops += q->cstats.drop_count - drops;
		q->codel_drops += q->cstats.drop_count - drops;
		cl->ecn_marks += q->cstats.ecn_mark - marks;

		if (!skb) {
			/* an emptied NQB flow, and with boost across an emptied
			 * new flow, leaves keeping its deficit (its next packet
			 * makes it NQB or new again, spending what is left of
			 * its quantum); boost on: an emptied new flow waits
			 * behind the old flows if there are any
			 */
			if (head == &cl->nqb_flows) {
				flow->nqb = 0;
				cl->nqb_active--;
				flow->sparse = 1;
			} else if (head == &cl->new_flows &&
				   q->boost == TC_MSFC_BOOST_ACROSS) {
				flow->sparse = 1;
			} else if (head == &cl->new_flows && !list_empty(&cl->flows)) {
				list_move_tail(&flow->flowchain, &cl->flows);
				continue;
			}
			list_del_init(&flow->flowchain);
			msfc_flow_leaves(q, flow);
			cl->active_flows--;
			q->active_flows--;
			continue;
		}
		if (q->ce_classes)
			msfc_threshold_mark(q, cl, flow, skb);
		if (q->auto_mode != TC_MSFC_AUTO_OFF && msfc_skb_cb(skb)->is_auto)
			msfc_auto_dequeued(q, flow, skb);
		if (!host) {
			flow->deficit -= qdisc_pkt_len(skb);
		} else {
			s64 len = (s64)qdisc_pkt_len(skb) << MSFC_ISOLATE_SHIFT;

			flow->deficit -= len;
			*host -= len;
		}
		return skb;
	}
}

/* A dequeued packet is charged to its class: its deficit (in 1/65536 byte
 * with weights exact) and its counters.
 */
static void msfc_charge_class(struct Qdisc *sch, struct msfc_class *cl,
			      struct sk_buff *skb)
{
	struct msfc_sched_data *q = qdisc_priv(sch);

	cl->deficit -= (s64)qdisc_pkt_len(skb) <<
		       (q->weights == TC_MSFC_WEIGHTS_EXACT ? MSFC_EXACT_SHIFT : 0);
	_bstats_update(&cl->bstats, qdisc_pkt_len(skb), 1);
	qdisc_bstats_update(sch, skb);
}

/* boost across: may a class send a new flow's packet ahead of the round?
 * While its deficit is above minus its class quantum, compared exactly in
 * the deficit's unit.  A positive deficit passes whatever the quantum (at
 * least 1), so the quantum, an O(prios) pass with inversion prevent, is
 * only computed for a class in debt, from the flows listed now.  Such a
 * deficit is at least minus a class quantum (2^40 bytes, 2^56 units with
 * weights exact) and a packet, so its negation fits and the comparison is
 * of two numbers below 2^57.
 */
static bool msfc_may_borrow(const struct msfc_sched_data *q,
			    const struct msfc_class *cl)
{
	if (cl->deficit > 0)
		return true;
	return (u64)-cl->deficit < msfc_class_quantum(q, cl);
}

/* boost across, before the class round: the most important class (the
 * highest index) with NQB or new flows that may still borrow sends a packet
 * of one of them, charged to its deficit (docs/algorithm.md, "Sparse flows
 * across classes").  A class with such flows is in the active list.  The classes
 * are found by a scan of at most prios (16) records, which cannot get out
 * of step as a bitmap of the classes with new flows could, every flow that
 * joins or leaves a new-flow list having to update it.  A class whose flows
 * all leave here stays in the active list: its next visit in the round
 * removes it, as for any class emptied between two visits.
 */
static struct sk_buff *msfc_dequeue_across(struct Qdisc *sch)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct msfc_class *cl;
	struct sk_buff *skb;
	u32 p;

	for (p = q->prios; p > 0; p--) {
		cl = &q->classes[p - 1];
		if ((list_empty(&cl->nqb_flows) && list_empty(&cl->new_flows)) ||
		    !msfc_may_borrow(q, cl))
			continue;
		skb = msfc_class_dequeue(sch, cl, true);
		if (skb) {
			msfc_charge_class(sch, cl, skb);
			return skb;
		}
	}
	return NULL;
}

/* order priority: every active class has spent its credit, so a new round
 * starts.  k, the fewest refills any active class needs to become positive,
 * is at least 1 (every deficit is <= 0); adding k quanta at once is k rounds
 * in which no class could send, as msfc_skip_class_rounds() does for order
 * round.  No sum overflows: k * quantum is at most -deficit + quantum for
 * the class that sets k and less for the others.  The quanta do not change
 * in the pass: no flow comes or goes.  The only division, in msfc_refills(),
 * is by a class quantum, at least 1 (msfc_refills()).
 */
static void msfc_priority_new_round(struct msfc_sched_data *q)
{
	struct msfc_class *cl;
	u64 k = U64_MAX;

	list_for_each_entry(cl, &q->active_classes, node)
		k = min(k, msfc_refills(cl->deficit, msfc_class_quantum(q, cl)));
	list_for_each_entry(cl, &q->active_classes, node) {
		cl->deficit += k * msfc_class_quantum(q, cl);
		cl->round = q->round + k;
	}
	q->round += k;
}

/* order priority: the most important active class (the highest index) with
 * credit left in the round.  The class is found by a scan of the active
 * list, at most prios (16) entries, simpler to keep right than a bitmap that
 * every deficit change would have to update.  When no class has credit, a
 * new round (msfc_priority_new_round()); a class found empty leaves the
 * list and keeps its deficit and round (docs/algorithm.md, "Priority order
 * inside the round").
 */
static struct sk_buff *msfc_dequeue_priority(struct Qdisc *sch)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct msfc_class *cl, *best;
	struct sk_buff *skb;

	for (;;) {
		if (list_empty(&q->active_classes))
			return NULL;
		best = NULL;
		list_for_each_entry(cl, &q->active_classes, node) {
			/* q->classes[] is in class order: a higher address is
			 * a more important class
			 */
			if (cl->deficit > 0 && (!best || cl > best))
				best = cl;
		}
		if (!best) {
			msfc_priority_new_round(q);
			continue;
		}
		skb = msfc_class_dequeue(sch, best, false);
		if (!skb) {
			list_del_init(&best->node);
			continue;
		}
		msfc_charge_class(sch, best, skb);
		return skb;
	}
}

/* order round: the outer DRR over the active classes. */
static struct sk_buff *msfc_dequeue_round(struct Qdisc *sch)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct msfc_class *cl;
	struct sk_buff *skb;
	u32 refills = 0;

	for (;;) {
		if (list_empty(&q->active_classes))
			return NULL;
		cl = list_first_entry(&q->active_classes, struct msfc_class,
				      node);
		if (cl->deficit <= 0) {
			if (++refills > q->prios) {
				msfc_skip_class_rounds(q);
				refills = 0;
			}
			cl->deficit += msfc_class_quantum(q, cl);
			list_move_tail(&cl->node, &q->active_classes);
			continue;
		}
		skb = msfc_class_dequeue(sch, cl, false);
		if (!skb) {
			list_del_init(&cl->node);
			continue;
		}
		msfc_charge_class(sch, cl, skb);
		return skb;
	}
}

/* The least-effort lane sends only what the classes leave: when the class
 * round (after boost across's new flows) finds nothing.  It has no class
 * deficit to charge, only its counters.
 */
static struct sk_buff *msfc_dequeue_lane(struct Qdisc *sch)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;

	skb = msfc_class_dequeue(sch, &q->lane, false);
	if (skb) {
		_bstats_update(&q->lane.bstats, qdisc_pkt_len(skb), 1);
		qdisc_bstats_update(sch, skb);
	}
	return skb;
}

/* The classes' outer DRR (order priority: msfc_dequeue_priority()), after
 * the new flows that may go ahead of it with boost across, then the lane.
 */
static struct sk_buff *__msfc_dequeue(struct Qdisc *sch)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb = NULL;

	if (q->boost == TC_MSFC_BOOST_ACROSS)
		skb = msfc_dequeue_across(sch);
	if (!skb && q->order == TC_MSFC_ORDER_PRIORITY)
		skb = msfc_dequeue_priority(sch);
	else if (!skb)
		skb = msfc_dequeue_round(sch);
	if (!skb)
		skb = msfc_dequeue_lane(sch);
	return skb;
}

/* The shaper is a gate in front of the scheduler: while its clock is ahead
 * of now nothing is dequeued (the watchdog wakes the qdisc when it is not),
 * else the scheduler picks the packet it always would and the clock moves on
 * by that packet's time at the rate.
 */
static struct sk_buff *msfc_dequeue(struct Qdisc *sch)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u64 now = 0;

	if (q->bandwidth) {
		if (!sch->q.qlen)
			return NULL;
		now = ktime_get_ns();
		if (now < q->next_send) {
			q->throttled++;
			qdisc_watchdog_schedule_ns(&q->watchdog, q->next_send);
			return NULL;
		}
	}
	skb = __msfc_dequeue(sch);
	if (skb && q->bandwidth)
		msfc_shaper_charge(q, msfc_skb_link_len(q, skb), now);

	if (q->cstats.drop_count) {
		qdisc_tree_reduce_backlog(sch, q->cstats.drop_count,
					  q->cstats.drop_len);
		q->cstats.drop_count = 0;
		q->cstats.drop_len = 0;
	}
	return skb;
}

/* The flow records of the classes and the lane: (prios + 1) * flows. */
static u32 msfc_flow_records(const struct msfc_sched_data *q)
{
	return (q->prios + 1) * q->flows_cnt;
}

/* A class (or the lane) lists no flow and is out of the class round. */
static void msfc_class_unlist(struct msfc_class *cl)
{
	INIT_LIST_HEAD(&cl->node);
	INIT_LIST_HEAD(&cl->flows);
	INIT_LIST_HEAD(&cl->new_flows);
	INIT_LIST_HEAD(&cl->nqb_flows);
	cl->active_flows = 0;
	cl->nqb_active = 0;
}

static void msfc_reset(struct Qdisc *sch)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	u32 i, n = msfc_flow_records(q);

	INIT_LIST_HEAD(&q->active_classes);
	for (i = 0; i <= MSFC_MAX_PRIOS; i++) {
		struct msfc_class *cl = i < MSFC_MAX_PRIOS ? &q->classes[i] : &q->lane;

		msfc_class_unlist(cl);
		cl->deficit = 0;
		cl->round = 0;
		cl->qlen = 0;
		cl->backlog = 0;
	}
	/* auto: the flow slots keep their levels, as across a change */
	for (i = 0; q->flows && i < n; i++) {
		struct msfc_flow *flow = &q->flows[i];

		rtnl_kfree_skbs(flow->head, flow->tail);
		flow->head = NULL;
		flow->deficit = 0;
		flow->sparse = 0;
		flow->nqb = 0;
		INIT_LIST_HEAD(&flow->flowchain);
		codel_vars_init(&flow->cvars);
	}
	if (q->backlogs)
		memset(q->backlogs, 0, n * sizeof(u32));
	if (q->host_loads)
		memset(q->host_loads, 0, 2 * n * sizeof(u32));
	if (q->host_deficits)
		memset(q->host_deficits, 0, 2 * n * sizeof(s64));
	q->memory_usage = 0;
	q->active_flows = 0;
	q->round = 1;
	q->next_send = 0;
	q->next_frac = 0;
	qdisc_watchdog_cancel(&q->watchdog);
}

/* not const: Linux 6.1 (Debian 12) points to them through a non-const pointer */
static struct netlink_range_validation msfc_flows_range = {
	.min = TC_MSFC_FLOWS_MIN, .max = TC_MSFC_FLOWS_MAX,
};

static struct netlink_range_validation msfc_quantum_range = {
	.min = TC_MSFC_QUANTUM_MIN, .max = TC_MSFC_QUANTUM_MAX,
};

static struct netlink_range_validation msfc_ratio_range = {
	.min = TC_MSFC_RATIO_MIN, .max = TC_MSFC_RATIO_MAX,
};

static struct netlink_range_validation msfc_target_range = {
	.min = TC_MSFC_TARGET_MIN, .max = TC_MSFC_TARGET_MAX,
};

static struct netlink_range_validation msfc_interval_range = {
	.min = TC_MSFC_INTERVAL_MIN, .max = TC_MSFC_INTERVAL_MAX,
};

static struct netlink_range_validation msfc_memory_limit_range = {
	.min = TC_MSFC_MEMORY_LIMIT_MIN, .max = TC_MSFC_MEMORY_LIMIT_MAX,
};

static struct netlink_range_validation msfc_drop_batch_range = {
	.min = TC_MSFC_DROP_BATCH_MIN, .max = TC_MSFC_DROP_BATCH_MAX,
};

static struct netlink_range_validation msfc_bandwidth_range = {
	.min = TC_MSFC_BANDWIDTH_MIN, .max = TC_MSFC_BANDWIDTH_MAX,
};

static const struct nla_policy msfc_policy[TCA_MSFC_MAX + 1] = {
	[TCA_MSFC_PRIOS]	= NLA_POLICY_RANGE(NLA_U32, TC_MSFC_PRIOS_MIN, TC_MSFC_PRIOS_MAX),
	[TCA_MSFC_FLOWS]	= NLA_POLICY_FULL_RANGE(NLA_U32, &msfc_flows_range),
	[TCA_MSFC_QUANTUM]	= NLA_POLICY_FULL_RANGE(NLA_U32, &msfc_quantum_range),
	[TCA_MSFC_RATIO]	= NLA_POLICY_FULL_RANGE(NLA_U32, &msfc_ratio_range),
	[TCA_MSFC_TARGET]	= NLA_POLICY_FULL_RANGE(NLA_U32, &msfc_target_range),
	[TCA_MSFC_INTERVAL]	= NLA_POLICY_FULL_RANGE(NLA_U32, &msfc_interval_range),
	[TCA_MSFC_LIMIT]	= NLA_POLICY_MIN(NLA_U32, TC_MSFC_LIMIT_MIN),
	[TCA_MSFC_MEMORY_LIMIT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &msfc_memory_limit_range),
	[TCA_MSFC_DROP_BATCH]	= NLA_POLICY_FULL_RANGE(NLA_U32, &msfc_drop_batch_range),
	[TCA_MSFC_ECN]		= NLA_POLICY_MAX(NLA_U32, TC_MSFC_ECN_MAX),
	[TCA_MSFC_DSCP_MAP]	= NLA_POLICY_EXACT_LEN(TC_MSFC_DSCP_MAP_LEN),
	[TCA_MSFC_OVERLOAD]	= NLA_POLICY_MAX(NLA_U32, TC_MSFC_OVERLOAD_MAX),
	[TCA_MSFC_WEIGHTS]	= NLA_POLICY_MAX(NLA_U32, TC_MSFC_WEIGHTS_MAX),
	[TCA_MSFC_INVERSION]	= NLA_POLICY_MAX(NLA_U32, TC_MSFC_INVERSION_MAX),
	[TCA_MSFC_ISOLATE]	= NLA_POLICY_MAX(NLA_U32, TC_MSFC_ISOLATE_MAX),
	[TCA_MSFC_BOOST]	= NLA_POLICY_MAX(NLA_U32, TC_MSFC_BOOST_MAX),
	[TCA_MSFC_ORDER]	= NLA_POLICY_MAX(NLA_U32, TC_MSFC_ORDER_MAX),
	[TCA_MSFC_QUANTA]	= { .type = NLA_BINARY },	/* msfc_parse_quanta() */
	[TCA_MSFC_BANDWIDTH]	= NLA_POLICY_FULL_RANGE(NLA_U64, &msfc_bandwidth_range),
	[TCA_MSFC_OVERHEAD]	= NLA_POLICY_RANGE(NLA_S32, TC_MSFC_OVERHEAD_MIN,
						   TC_MSFC_OVERHEAD_MAX),
	[TCA_MSFC_RAW]		= NLA_POLICY_MAX(NLA_U32, TC_MSFC_RAW_MAX),
	[TCA_MSFC_MPU]		= NLA_POLICY_MAX(NLA_U32, TC_MSFC_MPU_MAX),
	[TCA_MSFC_FRAMING]	= NLA_POLICY_MAX(NLA_U32, TC_MSFC_FRAMING_MAX),
	[TCA_MSFC_INGRESS]	= NLA_POLICY_MAX(NLA_U32, TC_MSFC_INGRESS_MAX),
	[TCA_MSFC_AUTO]		= NLA_POLICY_MAX(NLA_U32, TC_MSFC_AUTO_MAX),
	[TCA_MSFC_CE_THRESHOLD]	= { .type = NLA_BINARY },	/* msfc_parse_ce_threshold() */
	[TCA_MSFC_CE_THRESHOLD_SELECTOR] = NLA_POLICY_MAX(NLA_U32,
							  TC_MSFC_CE_THRESHOLD_SELECTOR_MAX),
	[TCA_MSFC_CE_THRESHOLD_MASK] = NLA_POLICY_MAX(NLA_U32, TC_MSFC_CE_THRESHOLD_MASK_MAX),
};

struct msfc_config {
	u32 prios, flows_cnt, quantum, ratio;
	codel_time_t target, interval;
	u32 target_us, interval_us;
	u32 limit, memory_limit, drop_batch, ecn, overload, weights, inversion, isolate,
	    boost, order, auto_mode;
	u8 dscp_map[TC_MSFC_DSCP_MAP_LEN];
	u32 n_explicit, explicit_quanta[MSFC_MAX_PRIOS];	/* quanta */
	u64 quanta[MSFC_MAX_PRIOS];
	u64 bandwidth;
	s32 overhead;	/* TCA_MSFC_OVERHEAD: also sets raw to 0 */
	u32 raw, mpu, framing, ingress;
	bool target_given, interval_given;
	u32 n_ce_threshold, ce_threshold_us[MSFC_MAX_PRIOS];	/* ce_threshold */
	u32 ce_selector, ce_mask;
};

/* Where each u32 attribute goes and the message naming its range (msfc_policy) */
struct msfc_field {
	size_t offset;		/* of the value in struct msfc_config */
	const char *msg;
};

#define MSFC_FIELD(field, name, range) \
	{ offsetof(struct msfc_config, field), name " must be " range }

static const struct msfc_field msfc_fields[TCA_MSFC_MAX + 1] = {
	[TCA_MSFC_PRIOS]	= MSFC_FIELD(prios, "prios", TC_MSFC_PRIOS_RANGE),
	[TCA_MSFC_FLOWS]	= MSFC_FIELD(flows_cnt, "flows", TC_MSFC_FLOWS_RANGE),
	[TCA_MSFC_QUANTUM]	= MSFC_FIELD(quantum, "quantum", TC_MSFC_QUANTUM_RANGE),
	[TCA_MSFC_RATIO]	= MSFC_FIELD(ratio, "ratio", TC_MSFC_RATIO_RANGE),
	[TCA_MSFC_TARGET]	= MSFC_FIELD(target_us, "target", TC_MSFC_TARGET_RANGE),
	[TCA_MSFC_INTERVAL]	= MSFC_FIELD(interval_us, "interval", TC_MSFC_INTERVAL_RANGE),
	[TCA_MSFC_LIMIT]	= MSFC_FIELD(limit, "limit", TC_MSFC_LIMIT_RANGE),
	[TCA_MSFC_MEMORY_LIMIT]	= MSFC_FIELD(memory_limit, "memory_limit",
					     TC_MSFC_MEMORY_LIMIT_RANGE),
	[TCA_MSFC_DROP_BATCH]	= MSFC_FIELD(drop_batch, "drop_batch", TC_MSFC_DROP_BATCH_RANGE),
	[TCA_MSFC_ECN]		= MSFC_FIELD(ecn, "ecn", TC_MSFC_ECN_RANGE),
	[TCA_MSFC_OVERLOAD]	= MSFC_FIELD(overload, "overload", TC_MSFC_OVERLOAD_RANGE),
	[TCA_MSFC_WEIGHTS]	= MSFC_FIELD(weights, "weights", TC_MSFC_WEIGHTS_RANGE),
	[TCA_MSFC_INVERSION]	= MSFC_FIELD(inversion, "inversion", TC_MSFC_INVERSION_RANGE),
	[TCA_MSFC_ISOLATE]	= MSFC_FIELD(isolate, "isolate", TC_MSFC_ISOLATE_RANGE),
	[TCA_MSFC_BOOST]	= MSFC_FIELD(boost, "boost", TC_MSFC_BOOST_RANGE),
	[TCA_MSFC_ORDER]	= MSFC_FIELD(order, "order", TC_MSFC_ORDER_RANGE),
	[TCA_MSFC_RAW]		= MSFC_FIELD(raw, "raw", TC_MSFC_RAW_RANGE),
	[TCA_MSFC_MPU]		= MSFC_FIELD(mpu, "mpu", TC_MSFC_MPU_RANGE),
	[TCA_MSFC_FRAMING]	= MSFC_FIELD(framing, "framing", TC_MSFC_FRAMING_RANGE),
	[TCA_MSFC_INGRESS]	= MSFC_FIELD(ingress, "ingress", TC_MSFC_INGRESS_RANGE),
	[TCA_MSFC_AUTO]		= MSFC_FIELD(auto_mode, "auto", TC_MSFC_AUTO_RANGE),
	[TCA_MSFC_CE_THRESHOLD_SELECTOR] = MSFC_FIELD(ce_selector, "ce_threshold_selector",
						      TC_MSFC_CE_THRESHOLD_SELECTOR_RANGE),
	[TCA_MSFC_CE_THRESHOLD_MASK] = MSFC_FIELD(ce_mask, "ce_threshold_mask",
						  TC_MSFC_CE_THRESHOLD_MASK_RANGE),
};

/* Range messages of the attributes that are not u32s */
static const char *msfc_wide_msg(const struct nlattr *attr)
{
	switch (nla_type(attr)) {
	case TCA_MSFC_BANDWIDTH:
		return nla_len(attr) == sizeof(u64) ?
		       "bandwidth must be " TC_MSFC_BANDWIDTH_RANGE : NULL;
	case TCA_MSFC_OVERHEAD:
		return nla_len(attr) == sizeof(s32) ?
		       "overhead must be " TC_MSFC_OVERHEAD_RANGE : NULL;
	default:
		return NULL;
	}
}

/* TCA_MSFC_QUANTA: u32 byte counts, one per class, each in quantum's range;
 * an empty attribute takes the class quanta from quantum and ratio again.
 * The count is checked against prios once prios is known.
 */
static int msfc_parse_quanta(const struct nlattr *attr, struct msfc_config *c,
			     struct netlink_ext_ack *extack)
{
	u32 len = nla_len(attr), n = len / sizeof(u32), p, v;
	const u8 *data = nla_data(attr);

	if (len % sizeof(u32)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, TC_MSFC_QUANTA_LEN_MSG);
		return -EINVAL;
	}
	if (n > MSFC_MAX_PRIOS) {
		NL_SET_ERR_MSG_ATTR(extack, attr, TC_MSFC_QUANTA_COUNT_MSG);
		return -EINVAL;
	}
	for (p = 0; p < n; p++) {
		memcpy(&v, data + p * sizeof(u32), sizeof(u32));
		if (v < TC_MSFC_QUANTUM_MIN || v > TC_MSFC_QUANTUM_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, attr, TC_MSFC_QUANTA_RANGE_MSG);
			return -ERANGE;
		}
		c->explicit_quanta[p] = v;
	}
	c->n_explicit = n;
	return 0;
}

/* TCA_MSFC_CE_THRESHOLD: u32 times in us, one for every class or one per
 * class, each in its range or TC_MSFC_CE_THRESHOLD_OFF (none in that class);
 * an empty attribute sets no threshold.  A list of more than one entry is
 * checked against prios once prios is known.
 */
static int msfc_parse_ce_threshold(const struct nlattr *attr, struct msfc_config *c,
				   struct netlink_ext_ack *extack)
{
	u32 len = nla_len(attr), n = len / sizeof(u32), p, v;
	const u8 *data = nla_data(attr);

	if (len % sizeof(u32)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, TC_MSFC_CE_THRESHOLD_LEN_MSG);
		return -EINVAL;
	}
	if (n > MSFC_MAX_PRIOS) {
		NL_SET_ERR_MSG_ATTR(extack, attr, TC_MSFC_CE_THRESHOLD_COUNT_MSG);
		return -EINVAL;
	}
	for (p = 0; p < n; p++) {
		memcpy(&v, data + p * sizeof(u32), sizeof(u32));
		if (v != TC_MSFC_CE_THRESHOLD_OFF &&
		    (v < TC_MSFC_CE_THRESHOLD_MIN || v > TC_MSFC_CE_THRESHOLD_MAX)) {
			NL_SET_ERR_MSG_ATTR(extack, attr, TC_MSFC_CE_THRESHOLD_RANGE_MSG);
			return -ERANGE;
		}
		c->ce_threshold_us[p] = v;
	}
	c->n_ce_threshold = n;
	return 0;
}

/* Parse and check everything before changing anything. */
static int msfc_parse(struct Qdisc *sch, struct nlattr *opt,
		      struct msfc_config *c, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCA_MSFC_MAX + 1];
	int err, i;

	err = nla_parse_nested(tb, TCA_MSFC_MAX, opt, msfc_policy, extack);
	if (err == -ERANGE && extack && extack->bad_attr &&
	    nla_len(extack->bad_attr) == sizeof(u32) &&
	    nla_type(extack->bad_attr) <= TCA_MSFC_MAX &&
	    msfc_fields[nla_type(extack->bad_attr)].msg) {
		/* a u32 of the right size out of the policy's range: name the
		 * parameter and its range instead of "integer out of range"
		 */
		extack->_msg = msfc_fields[nla_type(extack->bad_attr)].msg;
	} else if (err == -ERANGE && extack && extack->bad_attr &&
		   msfc_wide_msg(extack->bad_attr)) {
		extack->_msg = msfc_wide_msg(extack->bad_attr);
	}
	if (err < 0)
		return err;

	for (i = 0; i <= TCA_MSFC_MAX; i++) {
		if (msfc_fields[i].msg && tb[i])
			*(u32 *)((u8 *)c + msfc_fields[i].offset) = nla_get_u32(tb[i]);
	}

	if (tb[TCA_MSFC_DSCP_MAP]) {
		const u8 *map = nla_data(tb[TCA_MSFC_DSCP_MAP]);

		for (i = 0; i < TC_MSFC_DSCP_MAP_LEN; i++) {
			if (!msfc_dscp_entry_valid(map[i])) {
				NL_SET_ERR_MSG_ATTR(extack, tb[TCA_MSFC_DSCP_MAP],
						    TC_MSFC_DSCP_MAP_MSG);
				return -EINVAL;
			}
		}
		memcpy(c->dscp_map, map, TC_MSFC_DSCP_MAP_LEN);
	}
	if (tb[TCA_MSFC_QUANTA]) {
		err = msfc_parse_quanta(tb[TCA_MSFC_QUANTA], c, extack);
		if (err)
			return err;
	}
	if (c->n_explicit && c->n_explicit != c->prios) {
		/* also a new prios without new quanta */
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_MSFC_QUANTA] ?: tb[TCA_MSFC_PRIOS],
				    TC_MSFC_QUANTA_COUNT_MSG);
		return -EINVAL;
	}
	if (tb[TCA_MSFC_CE_THRESHOLD]) {
		err = msfc_parse_ce_threshold(tb[TCA_MSFC_CE_THRESHOLD], c, extack);
		if (err)
			return err;
	}
	if (c->n_ce_threshold > 1 && c->n_ce_threshold != c->prios) {
		/* also a new prios without a new list */
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_MSFC_CE_THRESHOLD] ?: tb[TCA_MSFC_PRIOS],
				    TC_MSFC_CE_THRESHOLD_COUNT_MSG);
		return -EINVAL;
	}
	if (c->ce_selector & ~c->ce_mask) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_MSFC_CE_THRESHOLD_SELECTOR] ?:
				    tb[TCA_MSFC_CE_THRESHOLD_MASK], TC_MSFC_CE_SELECTOR_MSG);
		return -EINVAL;
	}

	if (tb[TCA_MSFC_BANDWIDTH])
		c->bandwidth = nla_get_u64(tb[TCA_MSFC_BANDWIDTH]);
	if (tb[TCA_MSFC_OVERHEAD]) {
		c->overhead = nla_get_s32(tb[TCA_MSFC_OVERHEAD]);
		if (!tb[TCA_MSFC_RAW])
			c->raw = 0;
	}
	if (tb[TCA_MSFC_TARGET])
		c->target_given = true;
	if (tb[TCA_MSFC_INTERVAL])
		c->interval_given = true;

	/* with a bandwidth, the target follows the rate while it is not given,
	 * and the interval while neither is (cake's rule)
	 */
	if (c->bandwidth && !c->target_given)
		c->target_us = msfc_scaled_target_us(msfc_ns_per_byte(c->bandwidth),
						     msfc_link_len(psched_mtu(qdisc_dev(sch)),
								   qdisc_dev(sch)->hard_header_len,
								   c->raw, c->overhead, c->mpu,
								   c->framing));
	else if (!c->target_given)
		c->target_us = TC_MSFC_TARGET_DEFAULT;
	if (c->bandwidth && !c->interval_given && !c->target_given)
		c->interval_us = msfc_scaled_interval_us(c->target_us);
	else if (!c->interval_given)
		c->interval_us = TC_MSFC_INTERVAL_DEFAULT;
	c->target = ((u64)c->target_us * NSEC_PER_USEC) >> CODEL_SHIFT;
	c->interval = ((u64)c->interval_us * NSEC_PER_USEC) >> CODEL_SHIFT;
	if (!c->target || c->target >= c->interval) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_MSFC_TARGET] ?: tb[TCA_MSFC_INTERVAL],
				    TC_MSFC_TARGET_INTERVAL_MSG);
		return -EINVAL;
	}
	err = msfc_class_quanta(c->prios, c->quantum, c->ratio,
				c->weights == TC_MSFC_WEIGHTS_EXACT, c->explicit_quanta,
				c->n_explicit, c->quanta);
	if (err == -ERANGE) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_MSFC_RATIO] ?: tb[TCA_MSFC_PRIOS] ?:
				    tb[TCA_MSFC_QUANTUM],
				    TC_MSFC_CLASS_QUANTUM_MSG);
		return -EINVAL;
	}
	if (err) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_MSFC_WEIGHTS] ?: tb[TCA_MSFC_RATIO] ?:
				    tb[TCA_MSFC_PRIOS] ?: tb[TCA_MSFC_QUANTUM],
				    TC_MSFC_EXACT_WEIGHTS_MSG);
		return -EINVAL;
	}
	return 0;
}

static void msfc_get_config(struct Qdisc *sch, struct msfc_config *c)
{
	struct msfc_sched_data *q = qdisc_priv(sch);

	c->prios = q->prios;
	c->flows_cnt = q->flows_cnt;
	c->quantum = q->quantum;
	c->ratio = q->ratio;
	c->target = q->cparams.target;
	c->interval = q->cparams.interval;
	c->target_us = q->target_us;
	c->interval_us = q->interval_us;
	c->limit = sch->limit;
	c->memory_limit = q->memory_limit;
	c->drop_batch = q->drop_batch;
	c->ecn = q->cparams.ecn;
	c->overload = q->overload;
	c->weights = q->weights;
	c->inversion = q->inversion;
	c->isolate = q->isolate;
	c->boost = q->boost;
	c->order = q->order;
	c->auto_mode = q->auto_mode;
	memcpy(c->dscp_map, q->dscp_map, TC_MSFC_DSCP_MAP_LEN);
	c->n_explicit = q->n_explicit;
	memcpy(c->explicit_quanta, q->explicit_quanta, sizeof(c->explicit_quanta));
	c->bandwidth = q->bandwidth;
	c->overhead = q->overhead;
	c->raw = q->raw;
	c->mpu = q->mpu;
	c->framing = q->framing;
	c->ingress = q->ingress;
	c->target_given = q->target_given;
	c->interval_given = q->interval_given;
	c->n_ce_threshold = q->n_ce_threshold;
	memcpy(c->ce_threshold_us, q->ce_threshold_us, sizeof(c->ce_threshold_us));
	c->ce_selector = q->ce_selector;
	c->ce_mask = q->ce_mask;
}

/* New tables for the classes and the lane (index prios): every flow record
 * idle, and (auto) every flow slot at the home class, sparse since @now and
 * with its last packet then (a level starts at its record's own class: the
 * home class's records hold the slots' state).
 */
static int msfc_alloc_tables(u32 prios, u32 flows_cnt, codel_time_t now,
			     struct msfc_flow **flowsp, u32 **backlogsp,
			     u32 **host_loadsp, s64 **host_deficitsp)
{
	u32 n = (prios + 1) * flows_cnt, i;
	struct msfc_flow *flows;
	u32 *backlogs, *host_loads;
	s64 *host_deficits;

	flows = kvcalloc(n, sizeof(*flows), GFP_KERNEL);
	backlogs = kvcalloc(n, sizeof(*backlogs), GFP_KERNEL);
	host_loads = kvcalloc(2 * n, sizeof(*host_loads), GFP_KERNEL);
	host_deficits = kvcalloc(2 * n, sizeof(*host_deficits), GFP_KERNEL);
	if (!flows || !backlogs || !host_loads || !host_deficits) {
		kvfree(flows);
		kvfree(backlogs);
		kvfree(host_loads);
		kvfree(host_deficits);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		INIT_LIST_HEAD(&flows[i].flowchain);
		codel_vars_init(&flows[i].cvars);
		flows[i].cls = i / flows_cnt;
		flows[i].level = flows[i].cls;
		flows[i].clean = now;
		flows[i].last = now;
	}
	*flowsp = flows;
	*backlogsp = backlogs;
	*host_loadsp = host_loads;
	*host_deficitsp = host_deficits;
	return 0;
}

/* An idle qdisc whose isolate mode changes: flows left on their lists
 * (emptied, not yet visited: on the old list, with boost on or across also
 * on the new list, and on the NQB list), in the classes and the lane, leave
 * them, so that no host load or deficit of the
 * old mode survives and every listed flow has a host load of at least 1
 * afterwards (msfc_flow_quantum() divides by it).  No flow keeps a deficit
 * in the old mode's unit (bytes or 1/65536 byte) either: every flow gets a
 * fresh quantum when it becomes active again.
 */
static void msfc_forget_active(struct msfc_sched_data *q)
{
	u32 i, n = msfc_flow_records(q);

	/* a flow record is listed iff its flowchain is not empty */
	for (i = 0; i < n; i++) {
		INIT_LIST_HEAD(&q->flows[i].flowchain);
		q->flows[i].sparse = 0;
		q->flows[i].nqb = 0;
	}
	INIT_LIST_HEAD(&q->active_classes);
	for (i = 0; i < MSFC_MAX_PRIOS; i++)
		msfc_class_unlist(&q->classes[i]);
	msfc_class_unlist(&q->lane);
	q->active_flows = 0;
	memset(q->host_loads, 0, 2 * n * sizeof(u32));
	memset(q->host_deficits, 0, 2 * n * sizeof(s64));
}

/* weights changes: every class keeps its credit, in the new unit (1/65536
 * byte with weights exact, else bytes; rounded down).  A deficit is at most a
 * class quantum (2^40 bytes) and at least minus one packet, or minus a class
 * quantum and a packet after boost across borrowed, so the product fits in
 * s64.
 */
static void msfc_convert_class_deficits(struct msfc_sched_data *q, bool exact)
{
	u32 p;

	/* every class, listed or not: with order priority a class that left the
	 * round keeps its deficit and gets it back when it returns in that round
	 */
	for (p = 0; p < MSFC_MAX_PRIOS; p++) {
		struct msfc_class *cl = &q->classes[p];

		if (exact)
			cl->deficit *= 1 << MSFC_EXACT_SHIFT;
		else
			cl->deficit >>= MSFC_EXACT_SHIFT;	/* arithmetic: floor */
	}
}

/* What a change does to the state it finds (docs/algorithm.md, "Changing the
 * configuration"; the reference model and ns-3 do the same):
 * - prios or flows (idle qdisc only): new tables; nothing stays listed, every
 *   CoDel state, deficit and host load starts from zero;
 * - isolate (idle qdisc only): every flow still listed, on the old or the new
 *   list, leaves it; host loads and deficits are cleared;
 * - weights: the classes in the round keep their deficits, converted;
 * - order round -> priority: R + 1, and the classes in the round take part
 *   in it with the deficits they have (prios or flows: R 1, every round 0);
 * - auto: from the next packet; the flow slots keep their levels and times
 *   (prios or flows: every slot at the home class, clean and last now),
 *   queued packets their auto bit; a new interval changes T_up;
 * - everything else is read where it is used: class quanta are recomputed,
 *   deficits are kept (a host deficit above the new cap is capped at its
 *   next refill), boost applies to flows that become active from now on
 *   (on <-> across changes no list and no deficit: a class that borrowed
 *   repays its debt in the round);
 * - a lower limit or memory_limit drops from the fattest flows at once.
 */
static int msfc_change(struct Qdisc *sch, struct nlattr *opt,
		       struct netlink_ext_ack *extack)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct msfc_flow *new_flows = NULL, *old_flows = NULL;
	u32 *new_backlogs = NULL, *old_backlogs = NULL;
	u32 *new_host_loads = NULL, *old_host_loads = NULL;
	s64 *new_host_deficits = NULL, *old_host_deficits = NULL;
	unsigned int dropped = 0, dropped_len = 0;
	struct sk_buff *to_free = NULL;
	struct msfc_config c;
	bool resize, reisolate;
	int err;
	u32 p;

	msfc_get_config(sch, &c);
	if (opt) {
		err = msfc_parse(sch, opt, &c, extack);
		if (err)
			return err;
	} else {
		msfc_class_quanta(c.prios, c.quantum, c.ratio,
				  c.weights == TC_MSFC_WEIGHTS_EXACT, c.explicit_quanta,
				  c.n_explicit, c.quanta);
	}

	resize = !q->flows || c.prios != q->prios || c.flows_cnt != q->flows_cnt;
	reisolate = q->flows && c.isolate != q->isolate;
	if (reisolate && !resize && sch->q.qlen) {	/* resize says it below */
		NL_SET_ERR_MSG(extack, TC_MSFC_ISOLATE_BUSY_MSG);
		return -EBUSY;
	}
	if (resize) {
		if (q->flows && sch->q.qlen) {
			NL_SET_ERR_MSG(extack, TC_MSFC_RESIZE_BUSY_MSG);
			return -EBUSY;
		}
		err = msfc_alloc_tables(c.prios, c.flows_cnt, codel_get_time(),
					&new_flows, &new_backlogs, &new_host_loads,
					&new_host_deficits);
		if (err) {
			NL_SET_ERR_MSG(extack, "cannot allocate prios x flows flow records: lower flows");
			return err;
		}
	}

	sch_tree_lock(sch);
	if ((resize || reisolate) && q->flows && sch->q.qlen) {
		sch_tree_unlock(sch);
		kvfree(new_flows);
		kvfree(new_backlogs);
		kvfree(new_host_loads);
		kvfree(new_host_deficits);
		if (resize)
			NL_SET_ERR_MSG(extack, TC_MSFC_RESIZE_BUSY_MSG);
		else
			NL_SET_ERR_MSG(extack, TC_MSFC_ISOLATE_BUSY_MSG);
		return -EBUSY;
	}
	if (resize) {
		old_flows = q->flows;
		old_backlogs = q->backlogs;
		old_host_loads = q->host_loads;
		old_host_deficits = q->host_deficits;
		q->flows = new_flows;
		q->backlogs = new_backlogs;
		q->host_loads = new_host_loads;
		q->host_deficits = new_host_deficits;
		q->prios = c.prios;
		q->flows_cnt = c.flows_cnt;
		/* empty: nothing to free, only the lists to reset */
		INIT_LIST_HEAD(&q->active_classes);
		for (p = 0; p < MSFC_MAX_PRIOS; p++) {
			msfc_class_unlist(&q->classes[p]);
			q->classes[p].round = 0;
			q->classes[p].refills = 0;
		}
		msfc_class_unlist(&q->lane);
		q->lane.refills = 0;
		q->active_flows = 0;
		q->round = 1;
	} else if (reisolate) {
		msfc_forget_active(q);
	}

	if (c.weights != q->weights)
		msfc_convert_class_deficits(q, c.weights == TC_MSFC_WEIGHTS_EXACT);
	if (c.order == TC_MSFC_ORDER_PRIORITY && q->order != TC_MSFC_ORDER_PRIORITY) {
		struct msfc_class *cl;

		/* the listed classes have taken part in a new round */
		q->round++;
		list_for_each_entry(cl, &q->active_classes, node)
			cl->round = q->round;
	}
	WRITE_ONCE(q->quantum, c.quantum);
	WRITE_ONCE(q->ratio, c.ratio);
	for (p = 0; p < MSFC_MAX_PRIOS; p++) {
		q->classes[p].quantum = p < c.prios ? c.quanta[p] : 0;
		WRITE_ONCE(q->explicit_quanta[p], c.explicit_quanta[p]);
	}
	WRITE_ONCE(q->n_explicit, c.n_explicit);
	WRITE_ONCE(q->cparams.target, c.target);
	WRITE_ONCE(q->cparams.interval, c.interval);
	WRITE_ONCE(q->target_us, c.target_us);
	WRITE_ONCE(q->interval_us, c.interval_us);
	WRITE_ONCE(q->cparams.mtu, c.quantum);	/* "backlog <= one MTU" */
	WRITE_ONCE(q->cparams.ecn, !!c.ecn);
	WRITE_ONCE(sch->limit, c.limit);
	WRITE_ONCE(q->memory_limit, c.memory_limit);
	WRITE_ONCE(q->drop_batch, c.drop_batch);
	WRITE_ONCE(q->overload, c.overload);
	WRITE_ONCE(q->weights, c.weights);
	WRITE_ONCE(q->inversion, c.inversion);
	WRITE_ONCE(q->isolate, c.isolate);
	WRITE_ONCE(q->boost, c.boost);
	WRITE_ONCE(q->order, c.order);
	WRITE_ONCE(q->auto_mode, c.auto_mode);
	/* T_up: TC_MSFC_AUTO_UP_INTERVALS intervals, below 2^31 CoDel units so
	 * that the u32 comparison with the time since the last change holds
	 */
	q->auto_up = min_t(u64, (u64)TC_MSFC_AUTO_UP_INTERVALS * c.interval, S32_MAX);
	memcpy(q->dscp_map, c.dscp_map, TC_MSFC_DSCP_MAP_LEN);
	/* L4S marking from the next dequeue on: one entry applies to every class */
	q->ce_classes = 0;
	for (p = 0; p < MSFC_MAX_PRIOS; p++) {
		u32 us = c.n_ce_threshold == 1 ? c.ce_threshold_us[0] :
			 p < c.n_ce_threshold ? c.ce_threshold_us[p] : TC_MSFC_CE_THRESHOLD_OFF;

		WRITE_ONCE(q->ce_threshold_us[p], c.ce_threshold_us[p]);
		q->ce_threshold[p] = 0;
		if (p >= c.prios || us == TC_MSFC_CE_THRESHOLD_OFF)
			continue;
		q->ce_threshold[p] = ((u64)us * NSEC_PER_USEC) >> CODEL_SHIFT;
		q->ce_classes |= BIT(p);
	}
	WRITE_ONCE(q->n_ce_threshold, c.n_ce_threshold);
	WRITE_ONCE(q->ce_selector, c.ce_selector);
	WRITE_ONCE(q->ce_mask, c.ce_mask);
	q->target_given = c.target_given;
	q->interval_given = c.interval_given;
	if (c.bandwidth != q->bandwidth) {
		/* a new rate starts from now: a packet held back at the old
		 * rate may go at once (the watchdog, due now, dequeues it)
		 */
		q->next_send = 0;
		q->next_frac = 0;
		if (sch->q.qlen)
			qdisc_watchdog_schedule_ns(&q->watchdog, ktime_get_ns());
	}
	WRITE_ONCE(q->bandwidth, c.bandwidth);
	q->ns_per_byte = c.bandwidth ? msfc_ns_per_byte(c.bandwidth) : 0;
	WRITE_ONCE(q->overhead, c.overhead);
	WRITE_ONCE(q->raw, c.raw);
	WRITE_ONCE(q->mpu, c.mpu);
	WRITE_ONCE(q->framing, c.framing);
	WRITE_ONCE(q->ingress, c.ingress);
	/* a packet must not go round the shaper while the qdisc is empty */
	if (c.bandwidth)
		sch->flags &= ~TCQ_F_CAN_BYPASS;
	else
		sch->flags |= TCQ_F_CAN_BYPASS;

	/* a lower limit drops from the fattest flows, keeping the rest */
	while (sch->q.qlen > sch->limit || q->memory_usage > q->memory_limit) {
		unsigned int qlen = sch->q.qlen, backlog = sch->qstats.backlog;

		msfc_overload_drop(sch, q->drop_batch, &to_free);
		if (sch->q.qlen == qlen)
			break;
		dropped += qlen - sch->q.qlen;
		dropped_len += backlog - sch->qstats.backlog;
	}
	qdisc_tree_reduce_backlog(sch, dropped, dropped_len);
	sch_tree_unlock(sch);

	kfree_skb_list(to_free);
	kvfree(old_flows);
	kvfree(old_backlogs);
	kvfree(old_host_loads);
	kvfree(old_host_deficits);
	return 0;
}

static void msfc_destroy(struct Qdisc *sch)
{
	struct msfc_sched_data *q = qdisc_priv(sch);

	tcf_block_put(q->block);
	kvfree(q->backlogs);
	kvfree(q->flows);
	kvfree(q->host_loads);
	kvfree(q->host_deficits);
	qdisc_watchdog_cancel(&q->watchdog);
	q->flows = NULL;
	q->backlogs = NULL;
	q->host_loads = NULL;
	q->host_deficits = NULL;
}

static int msfc_init(struct Qdisc *sch, struct nlattr *opt,
		     struct netlink_ext_ack *extack)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	int err, p;

	qdisc_watchdog_init(&q->watchdog, sch);
	sch->limit = TC_MSFC_LIMIT_DEFAULT;
	q->prios = TC_MSFC_PRIOS_DEFAULT;
	q->flows_cnt = TC_MSFC_FLOWS_DEFAULT;
	q->quantum = clamp_t(u32, psched_mtu(qdisc_dev(sch)), TC_MSFC_QUANTUM_MIN,
			     TC_MSFC_QUANTUM_MAX);
	q->ratio = TC_MSFC_RATIO_DEFAULT;
	q->drop_batch = TC_MSFC_DROP_BATCH_DEFAULT;
	q->overload = TC_MSFC_OVERLOAD_DEFAULT;
	q->weights = TC_MSFC_WEIGHTS_DEFAULT;
	q->inversion = TC_MSFC_INVERSION_DEFAULT;
	q->isolate = TC_MSFC_ISOLATE_DEFAULT;
	q->boost = TC_MSFC_BOOST_DEFAULT;
	q->order = TC_MSFC_ORDER_DEFAULT;
	q->auto_mode = TC_MSFC_AUTO_DEFAULT;
	q->round = 1;
	q->memory_limit = TC_MSFC_MEMORY_LIMIT_DEFAULT;
	q->ce_selector = TC_MSFC_CE_THRESHOLD_SELECTOR_DEFAULT;
	q->ce_mask = TC_MSFC_CE_THRESHOLD_MASK_DEFAULT;
	memcpy(q->dscp_map, msfc_default_dscp_map, TC_MSFC_DSCP_MAP_LEN);
	get_random_bytes(&q->perturbation, sizeof(q->perturbation));
	INIT_LIST_HEAD(&q->active_classes);
	for (p = 0; p < MSFC_MAX_PRIOS; p++) {
		msfc_class_unlist(&q->classes[p]);
		gnet_stats_basic_sync_init(&q->classes[p].bstats);
	}
	msfc_class_unlist(&q->lane);
	gnet_stats_basic_sync_init(&q->lane.bstats);
	codel_params_init(&q->cparams);
	q->target_us = TC_MSFC_TARGET_DEFAULT;
	q->interval_us = TC_MSFC_INTERVAL_DEFAULT;
	q->cparams.target = ((u64)q->target_us * NSEC_PER_USEC) >> CODEL_SHIFT;
	q->cparams.interval = ((u64)q->interval_us * NSEC_PER_USEC) >> CODEL_SHIFT;
	codel_stats_init(&q->cstats);
	q->cparams.ecn = TC_MSFC_ECN_DEFAULT;
	q->raw = TC_MSFC_RAW_DEFAULT;

	err = tcf_block_get(&q->block, &q->filter_list, sch, extack);
	if (err)
		return err;

	/* msfc_change() sets TCQ_F_CAN_BYPASS unless there is a shaper */
	return msfc_change(sch, opt, extack);
}

static int msfc_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	u32 quanta[MSFC_MAX_PRIOS], thresholds[MSFC_MAX_PRIOS], n, n_ce, p;
	struct nlattr *opts;

	n = min_t(u32, READ_ONCE(q->n_explicit), MSFC_MAX_PRIOS);
	for (p = 0; p < n; p++)
		quanta[p] = READ_ONCE(q->explicit_quanta[p]);
	n_ce = min_t(u32, READ_ONCE(q->n_ce_threshold), MSFC_MAX_PRIOS);
	for (p = 0; p < n_ce; p++)
		thresholds[p] = READ_ONCE(q->ce_threshold_us[p]);
	opts = nla_nest_start(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;

	if (nla_put_u32(skb, TCA_MSFC_PRIOS, READ_ONCE(q->prios)) ||
	    nla_put_u32(skb, TCA_MSFC_FLOWS, READ_ONCE(q->flows_cnt)) ||
	    nla_put_u32(skb, TCA_MSFC_QUANTUM, READ_ONCE(q->quantum)) ||
	    nla_put_u32(skb, TCA_MSFC_RATIO, READ_ONCE(q->ratio)) ||
	    nla_put_u32(skb, TCA_MSFC_TARGET, READ_ONCE(q->target_us)) ||
	    nla_put_u32(skb, TCA_MSFC_INTERVAL, READ_ONCE(q->interval_us)) ||
	    nla_put_u32(skb, TCA_MSFC_LIMIT, READ_ONCE(sch->limit)) ||
	    nla_put_u32(skb, TCA_MSFC_MEMORY_LIMIT, READ_ONCE(q->memory_limit)) ||
	    nla_put_u32(skb, TCA_MSFC_DROP_BATCH, READ_ONCE(q->drop_batch)) ||
	    nla_put_u32(skb, TCA_MSFC_ECN, READ_ONCE(q->cparams.ecn)) ||
	    nla_put(skb, TCA_MSFC_DSCP_MAP, TC_MSFC_DSCP_MAP_LEN, q->dscp_map) ||
	    nla_put_u32(skb, TCA_MSFC_OVERLOAD, READ_ONCE(q->overload)) ||
	    nla_put_u32(skb, TCA_MSFC_WEIGHTS, READ_ONCE(q->weights)) ||
	    nla_put_u32(skb, TCA_MSFC_INVERSION, READ_ONCE(q->inversion)) ||
	    nla_put_u32(skb, TCA_MSFC_ISOLATE, READ_ONCE(q->isolate)) ||
	    nla_put_u32(skb, TCA_MSFC_BOOST, READ_ONCE(q->boost)) ||
	    nla_put_u32(skb, TCA_MSFC_ORDER, READ_ONCE(q->order)) ||
	    nla_put_u32(skb, TCA_MSFC_AUTO, READ_ONCE(q->auto_mode)))
		goto nla_put_failure;
	/* only when set: without it the class quanta come from quantum and ratio */
	if (n && nla_put(skb, TCA_MSFC_QUANTA, n * sizeof(u32), quanta))
		goto nla_put_failure;
	/* L4S marking: the thresholds only when set, the selector always (it is
	 * kept while no threshold is set, and checked against a new mask)
	 */
	if (n_ce && nla_put(skb, TCA_MSFC_CE_THRESHOLD, n_ce * sizeof(u32), thresholds))
		goto nla_put_failure;
	if (nla_put_u32(skb, TCA_MSFC_CE_THRESHOLD_SELECTOR, READ_ONCE(q->ce_selector)) ||
	    nla_put_u32(skb, TCA_MSFC_CE_THRESHOLD_MASK, READ_ONCE(q->ce_mask)))
		goto nla_put_failure;
	/* the shaper's attributes only when they differ from no shaper */
	if (READ_ONCE(q->bandwidth) &&
	    nla_put_u64_64bit(skb, TCA_MSFC_BANDWIDTH, READ_ONCE(q->bandwidth), TCA_MSFC_PAD))
		goto nla_put_failure;
	if (!READ_ONCE(q->raw) &&
	    nla_put_s32(skb, TCA_MSFC_OVERHEAD, READ_ONCE(q->overhead)))
		goto nla_put_failure;
	if (READ_ONCE(q->mpu) && nla_put_u32(skb, TCA_MSFC_MPU, READ_ONCE(q->mpu)))
		goto nla_put_failure;
	if (READ_ONCE(q->framing) &&
	    nla_put_u32(skb, TCA_MSFC_FRAMING, READ_ONCE(q->framing)))
		goto nla_put_failure;
	if (READ_ONCE(q->ingress) &&
	    nla_put_u32(skb, TCA_MSFC_INGRESS, READ_ONCE(q->ingress)))
		goto nla_put_failure;

	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -1;
}

static int msfc_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct tc_msfc_xstats st = { .type = TCA_MSFC_XSTATS_QDISC };
	struct list_head *pos;

	sch_tree_lock(sch);
	st.qdisc_stats.codel_drops = q->codel_drops;
	st.qdisc_stats.overload_drops = q->overload_drops;
	st.qdisc_stats.overmemory_drops = q->overmemory_drops;
	st.qdisc_stats.ecn_marks = q->cstats.ecn_mark;
	st.qdisc_stats.overload_events = q->overload_events;
	st.qdisc_stats.maxpacket = q->cstats.maxpacket;
	st.qdisc_stats.memory_usage = q->memory_usage;
	st.qdisc_stats.active_flows = q->active_flows;
	st.qdisc_stats.bandwidth = q->bandwidth;
	st.qdisc_stats.throttled = q->throttled;
	st.qdisc_stats.auto_promotions = q->auto_promotions;
	st.qdisc_stats.auto_demotions = q->auto_demotions;
	st.qdisc_stats.ce_threshold_marks = q->ce_threshold_marks;
	st.qdisc_stats.nqb_demotions = q->nqb_demotions;
	list_for_each(pos, &q->active_classes)
		st.qdisc_stats.active_classes++;
	sch_tree_unlock(sch);

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct Qdisc *msfc_leaf(struct Qdisc *sch, unsigned long arg)
{
	return NULL;
}

/* Classes 1 .. prios are the classes, prios + 1 the least-effort lane. */
static unsigned long msfc_find(struct Qdisc *sch, u32 classid)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	u32 minor = TC_H_MIN(classid);

	return minor >= 1 && minor <= q->prios + 1 ? minor : 0;
}

/* The classes are the qdisc's prios, with quanta from quantum and ratio (or quanta): tc class
 * add and change (which the core sends here) and tc class del get the way to change them,
 * instead of a bare EOPNOTSUPP.
 */
static int msfc_change_class(struct Qdisc *sch, u32 classid, u32 parentid,
			     struct nlattr **tca, unsigned long *arg,
			     struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(extack,
		       "msfc classes have no options of their own: prios sets their number, quantum and ratio or quanta their quanta (tc qdisc change ... msfc prios N quantum Q ratio R, or quanta Q0,Q1,...)");
	return -EOPNOTSUPP;
}

static int msfc_delete_class(struct Qdisc *sch, unsigned long cl,
			     struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(extack,
		       "msfc classes cannot be deleted: there are always prios of them (tc qdisc change ... msfc prios N)");
	return -EOPNOTSUPP;
}

/* Every class is a set of flow queues inside the qdisc: there is no leaf for a
 * child qdisc, so a graft gets the reason instead of a bare EOPNOTSUPP.
 */
static int msfc_graft(struct Qdisc *sch, unsigned long arg, struct Qdisc *new,
		      struct Qdisc **old, struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(extack,
		       "msfc classes cannot hold a child qdisc: each class is msfc's own flow queues, each run by CoDel (put msfc under another qdisc's class instead, or set target and interval)");
	return -EOPNOTSUPP;
}

static unsigned long msfc_bind(struct Qdisc *sch, unsigned long parent,
			       u32 classid)
{
	return 0;
}

static void msfc_unbind(struct Qdisc *q, unsigned long cl)
{
}

static struct tcf_block *msfc_tcf_block(struct Qdisc *sch, unsigned long cl,
					struct netlink_ext_ack *extack)
{
	struct msfc_sched_data *q = qdisc_priv(sch);

	if (cl)
		return NULL;
	return q->block;
}

static int msfc_dump_class(struct Qdisc *sch, unsigned long cl,
			   struct sk_buff *skb, struct tcmsg *tcm)
{
	tcm->tcm_handle |= TC_H_MIN(cl);
	return 0;
}

static int msfc_dump_class_stats(struct Qdisc *sch, unsigned long arg,
				 struct gnet_dump *d)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct tc_msfc_xstats xstats = { .type = TCA_MSFC_XSTATS_CLASS };
	struct gnet_stats_queue qs = { 0 };
	struct msfc_class *cl;
	u32 qlen;

	if (arg < 1 || arg > q->prios + 1)
		return -1;
	cl = msfc_class_of(q, arg - 1);	/* prios + 1: the lane (quantum 0) */

	sch_tree_lock(sch);
	qlen = cl->qlen;
	qs.backlog = cl->backlog;
	qs.drops = cl->codel_drops + cl->overload_drops;
	qs.overlimits = cl->overload_drops;
	xstats.class_stats.enq_packets = cl->enq_packets;
	xstats.class_stats.enq_bytes = cl->enq_bytes;
	xstats.class_stats.codel_drops = cl->codel_drops;
	xstats.class_stats.overload_drops = cl->overload_drops;
	xstats.class_stats.ecn_marks = cl->ecn_marks;
	xstats.class_stats.deficit = list_empty(&cl->node) ? 0 : cl->deficit;
	xstats.class_stats.quantum = cl->quantum;
	xstats.class_stats.active_flows = cl->active_flows;
	xstats.class_stats.ce_threshold_marks = cl->ce_threshold_marks;
	xstats.class_stats.nqb_demotions = cl->nqb_demotions;
	sch_tree_unlock(sch);

	if (gnet_stats_copy_basic(d, NULL, &cl->bstats, true) < 0 ||
	    gnet_stats_copy_queue(d, NULL, &qs, qlen) < 0)
		return -1;
	return gnet_stats_copy_app(d, &xstats, sizeof(xstats));
}

static void msfc_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	struct msfc_sched_data *q = qdisc_priv(sch);
	u32 p;

	if (arg->stop)
		return;
	for (p = 0; p <= q->prios; p++) {	/* the classes, then the lane */
		if (!tc_qdisc_stats_dump(sch, p + 1, arg))
			break;
	}
}

static const struct Qdisc_class_ops msfc_class_ops = {
	.graft		=	msfc_graft,
	.leaf		=	msfc_leaf,
	.find		=	msfc_find,
	.change		=	msfc_change_class,
	.delete		=	msfc_delete_class,
	.tcf_block	=	msfc_tcf_block,
	.bind_tcf	=	msfc_bind,
	.unbind_tcf	=	msfc_unbind,
	.dump		=	msfc_dump_class,
	.dump_stats	=	msfc_dump_class_stats,
	.walk		=	msfc_walk,
};

static struct Qdisc_ops msfc_qdisc_ops __read_mostly = {
	.cl_ops		=	&msfc_class_ops,
	.id		=	"msfc",
	.priv_size	=	sizeof(struct msfc_sched_data),
	.enqueue	=	msfc_enqueue,
	.dequeue	=	msfc_dequeue,
	.peek		=	qdisc_peek_dequeued,
	.init		=	msfc_init,
	.reset		=	msfc_reset,
	.destroy	=	msfc_destroy,
	.change		=	msfc_change,
	.dump		=	msfc_dump,
	.dump_stats	=	msfc_dump_stats,
	.owner		=	THIS_MODULE,
};
MODULE_ALIAS_NET_SCH("msfc");

static int __init msfc_module_init(void)
{
	return register_qdisc(&msfc_qdisc_ops);
}

static void __exit msfc_module_exit(void)
{
	unregister_qdisc(&msfc_qdisc_ops);
}

#if IS_ENABLED(CONFIG_NET_SCH_MSFC_KUNIT_TEST)
#include "sch_msfc_test.c"
#endif

module_init(msfc_module_init)
module_exit(msfc_module_exit)
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Multilevel Stochastically Fair CoDel queue discipline");
