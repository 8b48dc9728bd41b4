/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * MSFC (Multilevel Stochastically Fair CoDel) netlink attributes.
 *
 * This block is what the patch adds to include/uapi/linux/pkt_sched.h.  It is also usable
 * on its own (out-of-tree module, tc front end) against headers that lack it.
 */
#ifndef TCA_MSFC_MAX

enum {
	TCA_MSFC_UNSPEC,
	TCA_MSFC_PRIOS,		/* u32, number of classes, 1 .. 16 */
	TCA_MSFC_FLOWS,		/* u32, flow queues per class, 1 .. 65536 */
	TCA_MSFC_QUANTUM,	/* u32, bytes */
	TCA_MSFC_RATIO,		/* u32, class quantum ratio, 16.16 fixed point */
	TCA_MSFC_TARGET,	/* u32, CoDel target in us */
	TCA_MSFC_INTERVAL,	/* u32, CoDel interval in us */
	TCA_MSFC_LIMIT,		/* u32, packets */
	TCA_MSFC_MEMORY_LIMIT,	/* u32, bytes */
	TCA_MSFC_DROP_BATCH,	/* u32, packets */
	TCA_MSFC_ECN,		/* u32, 0 or 1 */
	TCA_MSFC_DSCP_MAP,	/* binary, 64 x u8: class of each DSCP */
	TCA_MSFC_OVERLOAD,	/* u32, enum tc_msfc_overload: victim of overload drops */
	TCA_MSFC_WEIGHTS,	/* u32, enum tc_msfc_weights: class quanta resolution */
	__TCA_MSFC_MAX
};

#define TCA_MSFC_MAX	(__TCA_MSFC_MAX - 1)

/* Victim of an overload drop (over limit or memory_limit) */
enum tc_msfc_overload {
	TC_MSFC_OVERLOAD_FLOW,	/* the fattest flow over all classes */
	TC_MSFC_OVERLOAD_CLASS,	/* the class most above its share, then its fattest flow */
	__TC_MSFC_OVERLOAD_MAX
};

/* Class quanta and deficits */
enum tc_msfc_weights {
	TC_MSFC_WEIGHTS_ROUNDED,	/* whole bytes, at least 1 */
	TC_MSFC_WEIGHTS_EXACT,		/* 1/65536 byte */
	__TC_MSFC_WEIGHTS_MAX
};

#define TC_MSFC_MAX_PRIOS	16
#define TC_MSFC_DSCP_MAP_LEN	64

enum {
	TCA_MSFC_XSTATS_QDISC,
	TCA_MSFC_XSTATS_CLASS,
};

struct tc_msfc_qd_stats {
	__u64	codel_drops;		/* packets dropped by CoDel */
	__u64	overload_drops;		/* packets dropped over limit/memory_limit */
	__u64	overmemory_drops;	/* of those, dropped over memory_limit */
	__u64	ecn_marks;		/* packets CE-marked by CoDel */
	__u64	overload_events;	/* fat-flow searches */
	__u32	maxpacket;		/* largest packet seen */
	__u32	memory_usage;		/* bytes (truesize) held */
	__u32	active_classes;
	__u32	active_flows;
};

struct tc_msfc_cl_stats {
	__u64	enq_packets;
	__u64	enq_bytes;
	__u64	codel_drops;
	__u64	overload_drops;
	__u64	ecn_marks;
	__s64	deficit;		/* outer DRR deficit, bytes (weights exact: 2^-16) */
	__u64	quantum;		/* outer DRR quantum Q_p, bytes (weights exact: 2^-16) */
	__u32	active_flows;
	__u32	pad;
};

struct tc_msfc_xstats {
	__u32	type;
	__u32	pad;
	union {
		struct tc_msfc_qd_stats qdisc_stats;
		struct tc_msfc_cl_stats class_stats;
	};
};

#endif /* TCA_MSFC_MAX */
