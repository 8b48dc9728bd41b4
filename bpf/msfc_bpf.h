/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MSFC as a BPF qdisc: what the loader (msfc-bpf.c) and the struct_ops program
 * (msfc.bpf.c) share.  BPF qdiscs get no netlink options, so the loader
 * validates the tc parameters (the ranges of pkt_sched_msfc.h), derives what
 * the module derives in msfc_change() (class quanta, CoDel times, the shaper's
 * ns per byte) and writes the result into the config map; the qdisc copies it
 * when it is created (tc qdisc add).
 *
 * The least-effort lane is a class record after the classes: index prios in
 * the class records, the flow map (prios + 1) x flows and the host map
 * 2 x (prios + 1) x flows entries.
 */
#ifndef MSFC_BPF_H
#define MSFC_BPF_H

#define MSFC_BPF_NAME		"msfc_bpf"	/* the qdisc kind tc names */
#define MSFC_BPF_MAX_PRIOS	16
#define MSFC_BPF_NIL		0xffffffffu	/* end of an index list */
#define MSFC_BPF_CFG_MAGIC	0x6d736663u	/* "msfc": the loader wrote the config */
/* The packet store holds at most this many packets (limit above it is capped). */
#define MSFC_BPF_MAX_PACKETS	1048576u	/* 2^20 */
/* Stats map: entries 0 .. 15 per class, MSFC_BPF_STATS_QDISC the whole qdisc,
 * MSFC_BPF_STATS_LANE the least-effort lane (docs/algorithm.md, "LE and NQB").
 */
#define MSFC_BPF_STATS_QDISC	MSFC_BPF_MAX_PRIOS
#define MSFC_BPF_STATS_LANE	(MSFC_BPF_MAX_PRIOS + 1)
#define MSFC_BPF_STATS_ENTRIES	(MSFC_BPF_MAX_PRIOS + 2)

struct msfc_bpf_cfg {
	__u32 magic;
	__u32 prios;
	__u32 flows;		/* flow queues per class */
	__u32 quantum;		/* inner DRR quantum, bytes; CoDel's "one MTU" */
	__u32 limit;		/* packets */
	__u32 memory_limit;	/* bytes of truesize */
	__u32 drop_batch;
	__u32 weights;		/* 1: class quanta and deficits in 1/65536 byte */
	__u32 target;		/* CoDel time units (ns >> 10) */
	__u32 interval;
	__u32 packets;		/* entries of the packet store */
	__u32 overload;		/* enum tc_msfc_overload */
	__u32 boost;		/* enum tc_msfc_boost: off or on */
	__u32 order;		/* enum tc_msfc_order */
	__s32 overhead;		/* shaper: bytes added to the network-layer length */
	__u32 mpu;		/* shaper: minimum charged length */
	__u32 framing;		/* enum tc_msfc_framing */
	__u32 raw;		/* 1: charge the kernel's length, no overhead */
	__u32 ingress;		/* 1: dropped packets are charged to the shaper too */
	__u32 inversion;	/* enum tc_msfc_inversion */
	__u32 ratio;		/* 16.16 fixed point */
	__u32 n_explicit;	/* quanta given as bytes: prios, else 0 */
	__u32 isolate;		/* enum tc_msfc_isolate */
	__u32 auto_mode;	/* enum tc_msfc_auto */
	__u32 auto_up;		/* auto: T_up in CoDel time units */
	__u32 explicit_quanta[MSFC_BPF_MAX_PRIOS];	/* bytes */
	__u32 pad;
	__u64 bandwidth;	/* bytes/s, 0: no shaper */
	__u64 ns_per_byte;	/* 32.32 fixed point */
	__u64 quanta[MSFC_BPF_MAX_PRIOS];	/* Q_p (weights exact: 2^-16 byte) */
	/* per DSCP: its class, already clamped to prios - 1, with TC_MSFC_DSCP_NQB for an
	 * NQB entry; or TC_MSFC_DSCP_LE, the least-effort lane
	 */
	__u8  dscp_map[64];
};

/* Per class (and, at MSFC_BPF_STATS_QDISC, for the qdisc) */
struct msfc_bpf_stats {
	__u64 enq_packets;
	__u64 enq_bytes;
	__u64 deq_packets;
	__u64 deq_bytes;
	__u64 codel_drops;
	__u64 overload_drops;
	__u64 overmemory_drops;	/* of the overload drops, over memory_limit */
	__u64 store_drops;	/* no free entry in the packet store */
	__u64 overload_events;
	__u64 throttled;	/* qdisc: dequeues the shaper deferred */
	__u32 qlen;
	__u32 backlog;
	__u32 active_flows;
	__u32 memory_usage;	/* qdisc: truesize held */
	__u64 auto_promotions;	/* qdisc, auto: flow slots moved one class up */
	__u64 auto_demotions;	/* qdisc, auto: moved down (or kept at 0) */
	__u64 nqb_demotions;	/* NQB flows moved to the old flows by queue protection */
};

#endif
