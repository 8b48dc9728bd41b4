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
	TCA_MSFC_PRIOS,		/* u32, number of classes */
	TCA_MSFC_FLOWS,		/* u32, flow queues per class */
	TCA_MSFC_QUANTUM,	/* u32, bytes */
	TCA_MSFC_RATIO,		/* u32, class quantum ratio, 16.16 fixed point */
	TCA_MSFC_TARGET,	/* u32, CoDel target in us */
	TCA_MSFC_INTERVAL,	/* u32, CoDel interval in us */
	TCA_MSFC_LIMIT,		/* u32, packets */
	TCA_MSFC_MEMORY_LIMIT,	/* u32, bytes */
	TCA_MSFC_DROP_BATCH,	/* u32, packets */
	TCA_MSFC_ECN,		/* u32, 0 or 1 */
	TCA_MSFC_DSCP_MAP,	/* binary, 64 x u8: class of each DSCP (TC_MSFC_DSCP_*) */
	TCA_MSFC_OVERLOAD,	/* u32, enum tc_msfc_overload: victim of overload drops */
	TCA_MSFC_WEIGHTS,	/* u32, enum tc_msfc_weights: class quanta resolution */
	TCA_MSFC_INVERSION,	/* u32, enum tc_msfc_inversion: per-flow priority order */
	TCA_MSFC_ISOLATE,	/* u32, enum tc_msfc_isolate: fairness per flow or per host */
	TCA_MSFC_BOOST,		/* u32, enum tc_msfc_boost: sparse-flow boost */
	TCA_MSFC_ORDER,		/* u32, enum tc_msfc_order: order of the classes in a round */
	TCA_MSFC_QUANTA,	/* binary, prios x u32: class quanta in bytes (empty: from ratio) */
	TCA_MSFC_PAD,		/* alignment of the u64 attributes */
	TCA_MSFC_BANDWIDTH,	/* u64, shaper rate in bytes/s, 0: no shaper */
	TCA_MSFC_OVERHEAD,	/* s32, bytes added to the network-layer length */
	TCA_MSFC_RAW,		/* u32, 1: charge the kernel's length (MAC header), no overhead */
	TCA_MSFC_MPU,		/* u32, minimum charged length in bytes */
	TCA_MSFC_FRAMING,	/* u32, enum tc_msfc_framing: link-layer cells */
	TCA_MSFC_INGRESS,	/* u32, 0 or 1: dropped packets are charged to the shaper too */
	TCA_MSFC_AUTO,		/* u32, enum tc_msfc_auto: automatic priorities */
	TCA_MSFC_CE_THRESHOLD,	/* binary, 1 or prios x u32: L4S CE-mark threshold in us
				 * (TC_MSFC_CE_THRESHOLD_OFF: none in that class; empty: none)
				 */
	TCA_MSFC_CE_THRESHOLD_SELECTOR,	/* u32, TOS byte value the threshold applies to */
	TCA_MSFC_CE_THRESHOLD_MASK,	/* u32, TOS bits it compares (0: every ECT packet) */
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

/* Whether a class may give its flows less each than a lower class gives its own */
enum tc_msfc_inversion {
	TC_MSFC_INVERSION_ALLOW,	/* class quantum Q_p, whatever the flow counts */
	TC_MSFC_INVERSION_PREVENT,	/* classes below a crowded one: per-flow weights */
	__TC_MSFC_INVERSION_MAX
};

/* Fairness inside a class: per flow, or per host first (then per flow of the host) */
enum tc_msfc_isolate {
	TC_MSFC_ISOLATE_FLOW,	/* every flow one share */
	TC_MSFC_ISOLATE_SRC,	/* every source host one share */
	TC_MSFC_ISOLATE_DST,	/* every destination host one share */
	TC_MSFC_ISOLATE_BOTH,	/* a flow's share: its busier host's, source or destination */
	__TC_MSFC_ISOLATE_MAX
};

/* Flows that become active inside a class */
enum tc_msfc_boost {
	TC_MSFC_BOOST_OFF,	/* join the class's one round at its tail */
	TC_MSFC_BOOST_ON,	/* served first, for one quantum (new-flow list) */
	TC_MSFC_BOOST_ACROSS,	/* on, and new flows go ahead of the class round */
	__TC_MSFC_BOOST_MAX
};

/* Which class the outer DRR serves next */
enum tc_msfc_order {
	TC_MSFC_ORDER_ROUND,	/* the classes take turns, each its quantum (the thesis) */
	TC_MSFC_ORDER_PRIORITY,	/* the most important class with credit left in the round */
	__TC_MSFC_ORDER_MAX
};

/* Automatic priorities: which packets get the class their flow's behaviour earned */
enum tc_msfc_auto {
	TC_MSFC_AUTO_OFF,	/* none: the class comes from the mark (the thesis) */
	TC_MSFC_AUTO_UNMARKED,	/* packets classified by the DSCP map whose DSCP is 0 */
	TC_MSFC_AUTO_ALL,	/* every packet classified by the DSCP map, whatever its DSCP */
	__TC_MSFC_AUTO_MAX
};

/* Link-layer framing the shaper charges (after overhead and mpu) */
enum tc_msfc_framing {
	TC_MSFC_FRAMING_NONE,	/* the length as it is */
	TC_MSFC_FRAMING_ATM,	/* ATM cells: 48 bytes of payload in 53 */
	TC_MSFC_FRAMING_PTM,	/* PTM (VDSL2): 64b/65b, one byte per 64 or part of it */
	__TC_MSFC_FRAMING_MAX
};

#define TC_MSFC_MAX_PRIOS	TC_MSFC_PRIOS_MAX
#define TC_MSFC_DSCP_MAP_LEN	64

/*
 * The one definition of every parameter's range, default and the words that name the
 * range in error messages ("<name> must be <RANGE>"); the qdisc's netlink policy, tc, the
 * ns-3 model, the msfc Python package and the docs' tables all take them from here.
 * Times are in microseconds, ratio in 16.16 fixed point.  Every value below is a plain
 * decimal number or string: the Python side reads this block.
 */
#define TC_MSFC_PRIOS_MIN		1
#define TC_MSFC_PRIOS_MAX		16
#define TC_MSFC_PRIOS_DEFAULT		3
#define TC_MSFC_PRIOS_RANGE		"1 .. 16"
#define TC_MSFC_FLOWS_MIN		1
#define TC_MSFC_FLOWS_MAX		65536
#define TC_MSFC_FLOWS_DEFAULT		1024
#define TC_MSFC_FLOWS_RANGE		"1 .. 65536"
#define TC_MSFC_QUANTUM_MIN		1
#define TC_MSFC_QUANTUM_MAX		1048576
#define TC_MSFC_QUANTUM_RANGE		"1 .. 1048576 bytes"
#define TC_MSFC_RATIO_MIN		1
#define TC_MSFC_RATIO_MAX		1048576
#define TC_MSFC_RATIO_DEFAULT		131072
#define TC_MSFC_RATIO_RANGE		"1/65536 .. 16 (16.16 fixed point 1 .. 1048576)"
#define TC_MSFC_TARGET_MIN		2
#define TC_MSFC_TARGET_MAX		2000000000
#define TC_MSFC_TARGET_DEFAULT		5000
#define TC_MSFC_TARGET_RANGE		"2 us .. 2000 s"
#define TC_MSFC_INTERVAL_MIN		2
#define TC_MSFC_INTERVAL_MAX		2000000000
#define TC_MSFC_INTERVAL_DEFAULT	100000
#define TC_MSFC_INTERVAL_RANGE		"2 us .. 2000 s"
#define TC_MSFC_LIMIT_MIN		1
#define TC_MSFC_LIMIT_MAX		4294967295
#define TC_MSFC_LIMIT_DEFAULT		10240
#define TC_MSFC_LIMIT_RANGE		"at least 1 packet"
#define TC_MSFC_MEMORY_LIMIT_MIN	1
#define TC_MSFC_MEMORY_LIMIT_MAX	2147483648
#define TC_MSFC_MEMORY_LIMIT_DEFAULT	33554432
#define TC_MSFC_MEMORY_LIMIT_RANGE	"1 .. 2^31 bytes"
#define TC_MSFC_DROP_BATCH_MIN		1
#define TC_MSFC_DROP_BATCH_MAX		65536
#define TC_MSFC_DROP_BATCH_DEFAULT	64
#define TC_MSFC_DROP_BATCH_RANGE	"1 .. 65536"
#define TC_MSFC_ECN_MIN			0
#define TC_MSFC_ECN_MAX			1
#define TC_MSFC_ECN_DEFAULT		0
#define TC_MSFC_ECN_RANGE		"0 or 1"
#define TC_MSFC_OVERLOAD_MIN		0
#define TC_MSFC_OVERLOAD_MAX		1
#define TC_MSFC_OVERLOAD_DEFAULT	0
#define TC_MSFC_OVERLOAD_RANGE		"0 (flow) or 1 (class)"
#define TC_MSFC_WEIGHTS_MIN		0
#define TC_MSFC_WEIGHTS_MAX		1
#define TC_MSFC_WEIGHTS_DEFAULT		0
#define TC_MSFC_WEIGHTS_RANGE		"0 (rounded) or 1 (exact)"
#define TC_MSFC_INVERSION_MIN		0
#define TC_MSFC_INVERSION_MAX		1
#define TC_MSFC_INVERSION_DEFAULT	0
#define TC_MSFC_INVERSION_RANGE		"0 (allow) or 1 (prevent)"
#define TC_MSFC_ISOLATE_MIN		0
#define TC_MSFC_ISOLATE_MAX		3
#define TC_MSFC_ISOLATE_DEFAULT		0
#define TC_MSFC_ISOLATE_RANGE		"0 (flow), 1 (src), 2 (dst) or 3 (both)"
#define TC_MSFC_BOOST_MIN		0
#define TC_MSFC_BOOST_MAX		2
#define TC_MSFC_BOOST_DEFAULT		0
#define TC_MSFC_BOOST_RANGE		"0 (off), 1 (on) or 2 (across)"
#define TC_MSFC_ORDER_MIN		0
#define TC_MSFC_ORDER_MAX		1
#define TC_MSFC_ORDER_DEFAULT		0
#define TC_MSFC_ORDER_RANGE		"0 (round) or 1 (priority)"
#define TC_MSFC_AUTO_MIN		0
#define TC_MSFC_AUTO_MAX		2
#define TC_MSFC_AUTO_DEFAULT		0
#define TC_MSFC_AUTO_RANGE		"0 (off), 1 (unmarked) or 2 (all)"
/*
 * auto: a flow slot climbs one class when a packet of its finds its flow queue empty and
 * the slot has been sparse at its class (no CoDel firing, never more than a quantum queued,
 * no pause) for TC_MSFC_AUTO_UP_INTERVALS CoDel intervals (at most 2^31 - 1 CoDel time
 * units); docs/algorithm.md, "Automatic priorities".
 */
#define TC_MSFC_AUTO_UP_INTERVALS	10

/*
 * The shaper (docs/kernel.md, "Built-in shaper"): bandwidth in bytes/s (tc reads a rate:
 * 100mbit), 0 without a shaper; overhead is signed; the charged length is
 * framing(max(length + overhead, mpu)).
 */
#define TC_MSFC_BANDWIDTH_MIN		0
#define TC_MSFC_BANDWIDTH_MAX		125000000000
#define TC_MSFC_BANDWIDTH_DEFAULT	0
#define TC_MSFC_BANDWIDTH_RANGE		"0 (no shaper) or 8 bit/s .. 1 Tbit/s"
#define TC_MSFC_OVERHEAD_MIN		-64
#define TC_MSFC_OVERHEAD_MAX		256
#define TC_MSFC_OVERHEAD_DEFAULT	0
#define TC_MSFC_OVERHEAD_RANGE		"-64 .. 256 bytes"
#define TC_MSFC_MPU_MIN			0
#define TC_MSFC_MPU_MAX			256
#define TC_MSFC_MPU_DEFAULT		0
#define TC_MSFC_MPU_RANGE		"0 .. 256 bytes"
#define TC_MSFC_FRAMING_MIN		0
#define TC_MSFC_FRAMING_MAX		2
#define TC_MSFC_FRAMING_DEFAULT		0
#define TC_MSFC_FRAMING_RANGE		"0 (noatm), 1 (atm) or 2 (ptm)"
#define TC_MSFC_RAW_MIN			0
#define TC_MSFC_RAW_MAX			1
#define TC_MSFC_RAW_DEFAULT		1
#define TC_MSFC_RAW_RANGE		"0 or 1"
#define TC_MSFC_INGRESS_MIN		0
#define TC_MSFC_INGRESS_MAX		1
#define TC_MSFC_INGRESS_DEFAULT		0
#define TC_MSFC_INGRESS_RANGE		"0 or 1"

/*
 * L4S marking (docs/algorithm.md, "L4S marking"): a packet whose TOS byte matches the
 * selector ((tos & mask) == selector) and that is ECT(0) or ECT(1) is CE-marked when it leaves
 * its flow queue after more than ce_threshold, CoDel's sojourn time in its 1024 ns units.  One
 * threshold applies to every class, or one per class (an entry TC_MSFC_CE_THRESHOLD_OFF: none
 * in that class); none by default.  The selector defaults to ECT(1), the L4S identifier of
 * RFC 9331 (value 0x01, mask 0x03); with mask 0 every ECT packet is marked.
 */
#define TC_MSFC_CE_THRESHOLD_MIN	0
#define TC_MSFC_CE_THRESHOLD_MAX	2000000000
#define TC_MSFC_CE_THRESHOLD_OFF	4294967295
#define TC_MSFC_CE_THRESHOLD_RANGE	"0 us .. 2000 s"
#define TC_MSFC_CE_THRESHOLD_SELECTOR_MIN	0
#define TC_MSFC_CE_THRESHOLD_SELECTOR_MAX	255
#define TC_MSFC_CE_THRESHOLD_SELECTOR_DEFAULT	1
#define TC_MSFC_CE_THRESHOLD_SELECTOR_RANGE	"0 .. 255"
#define TC_MSFC_CE_THRESHOLD_MASK_MIN	0
#define TC_MSFC_CE_THRESHOLD_MASK_MAX	255
#define TC_MSFC_CE_THRESHOLD_MASK_DEFAULT	3
#define TC_MSFC_CE_THRESHOLD_MASK_RANGE	"0 .. 255"

/*
 * With a bandwidth and no target (interval) given, CoDel's target is at least the time
 * TC_MSFC_SCALED_TARGET_MTUS (in tenths) MTU-sized packets take at that rate, and the
 * interval at least the target plus TC_MSFC_SCALED_INTERVAL_EXTRA us.
 */
#define TC_MSFC_SCALED_TARGET_MTUS	15
#define TC_MSFC_SCALED_INTERVAL_EXTRA	95000

/*
 * Presets: one tc word for a set of words, expanded by tc where it stands (words after it
 * override it).  diffserv3: the recommended modes on the thesis's three classes (LE, CS1 /
 * best effort / everything marked higher); diffserv4: the same on cake diffserv4's four
 * classes (bulk: LE, CS1; best effort; video: CS2, AF2x, CS3, AF3x, AF4x; voice: CS4 ..
 * CS7, VA, EF) with quanta in the proportions of its tins (bulk 1/16, best effort 1,
 * video 1/2, voice 1/4).
 */
#define TC_MSFC_PRESET_DIFFSERV3	"overload class weights exact boost across"
#define TC_MSFC_PRESET_DIFFSERV4 \
	"prios 4 quanta 95,1514,757,378 dscp_map cs3:2,af31:2,af32:2,af33:2,af41:2,af42:2,af43:2 overload class weights exact boost across"

/* Rules between parameters and of the DSCP map, as error messages. */
#define TC_MSFC_TARGET_INTERVAL_MSG	"target must be at least 2 us and below interval"
#define TC_MSFC_CLASS_QUANTUM_MAX_LOG2	40
#define TC_MSFC_CLASS_QUANTUM_MSG \
	"quantum * ratio^(prios-1) exceeds 2^40 bytes: lower ratio, prios or quantum"
#define TC_MSFC_EXACT_WEIGHTS_MSG \
	"class quanta too small for exact weights (shares could be off by more than 0.5 %): raise quantum or ratio, or lower prios"
#define TC_MSFC_ISOLATE_BUSY_MSG \
	"isolate cannot change while packets are queued: change it on an idle link, or delete and re-add the qdisc"
#define TC_MSFC_RESIZE_BUSY_MSG \
	"prios and flows cannot change while packets are queued: change them on an idle link, or delete and re-add the qdisc"
#define TC_MSFC_DSCP_MAP_MSG \
	"dscp map entries must be classes 0 .. 15, a class with nqb (64 + class), or le (128)"
#define TC_MSFC_QUANTA_LEN_MSG \
	"quanta must be a list of u32 byte counts, one per class (attribute length 4 x prios, or 0 to take the class quanta from ratio again)"
#define TC_MSFC_QUANTA_RANGE_MSG	"quanta entries must be 1 .. 1048576 bytes"
#define TC_MSFC_QUANTA_COUNT_MSG \
	"quanta must have one entry per class (prios entries): give as many as prios, with a new prios in the same change, or quanta ratio"
#define TC_MSFC_CE_THRESHOLD_LEN_MSG \
	"ce_threshold must be a list of u32 times in us: one for every class, or one per class (attribute length 4 or 4 x prios, or 0 for none)"
#define TC_MSFC_CE_THRESHOLD_RANGE_MSG \
	"ce_threshold entries must be 0 us .. 2000 s, or off"
#define TC_MSFC_CE_THRESHOLD_COUNT_MSG \
	"ce_threshold must have one entry (every class) or one per class (prios entries): give a new list with a new prios in the same change, or one threshold"
#define TC_MSFC_CE_SELECTOR_MSG \
	"ce_threshold_selector must have no bits outside its mask (value & ~mask must be 0)"

/*
 * A DSCP map entry is a class (0 .. 15, clamped to prios - 1 when used), a class with the NQB
 * flag (TC_MSFC_DSCP_NQB + class: the packet's flow is served as a non-queue-building flow of
 * that class, RFC 9956), or TC_MSFC_DSCP_LE (the packet goes to the least-effort lane below
 * class 0, served only while every class is empty, RFC 8622).  docs/algorithm.md, "LE and NQB".
 */
#define TC_MSFC_DSCP_CLASS_MASK		15
#define TC_MSFC_DSCP_NQB		64
#define TC_MSFC_DSCP_LE			128

/*
 * Default DSCP map: LE (1) -> the least-effort lane (128); CS1 (8) -> 0; NQB (45) -> 1 with
 * the NQB flag (65); every other code point of precedence 0 or 1 -> 1; precedence k >= 2 -> k.
 */
#define TC_MSFC_DEFAULT_DSCP_MAP {			\
	1, 128, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1,	\
	2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,	\
	4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 65, 5, 5,	\
	6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7,	\
}

/*
 * Named DSCP maps: the whole map in one word ("dscp_map diffserv4" in tc, "diffserv4" as the
 * base of ns-3's DscpMap), for an operator coming from cake or feeding a Wi-Fi link.  Class 0
 * is the least important, as in every msfc map; a class at or above prios is clamped to
 * prios - 1, so each map names the prios it is meant for (TC_MSFC_DSCP_MAP_<NAME>_PRIOS).
 * DSCP 2 and 4 are the old TOS bits "maximise throughput" and "minimise delay".  NQB (45)
 * keeps the class cake gives it (best effort; wifi: AC_VI, UP 5 as RFC 9956 maps it) with the
 * NQB flag; LE stays in class 0 with CS1, as in cake's maps: only the default map has the
 * least-effort lane ("diffserv4,le:le" adds it).
 *
 * diffserv3, cake's three-tin map, its tins ordered by importance (cake numbers them best
 * effort 0, bulk 1, voice 2):
 *   0 bulk:        LE, CS1
 *   1 best effort: every code point not named here
 *   2 voice:       TOS4 (4), VA, EF, CS6, CS7
 * CS2 .. CS5 and all of AF1x .. AF4x stay best effort: cake gives priority only to traffic
 * that is small and latency-bound by its marking.
 */
#define TC_MSFC_DSCP_MAP_DIFFSERV3_PRIOS	3
#define TC_MSFC_DSCP_MAP_DIFFSERV3 {			\
	1, 0, 1, 1, 2, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1,	\
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,	\
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 65, 2, 1,	\
	2, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1,	\
}

/*
 * diffserv4, cake's four-tin map, ordered by importance (cake: best effort 0, bulk 1,
 * video 2, voice 3):
 *   0 bulk:        LE, CS1
 *   1 best effort: every code point not named here (AF1x, TOS2 included)
 *   2 video:       TOS4 (4), CS2, AF2x, CS3, AF3x, AF4x
 *   3 voice:       CS4, CS5, VA, EF, CS6, CS7
 * It differs from the default map with prios 4 in TOS4 (video here, best effort there), in
 * CS3, AF3x and AF4x (video here, voice there) and in the unnamed code points of precedence
 * 2 .. 7 (best effort here, their precedence's class there).
 */
#define TC_MSFC_DSCP_MAP_DIFFSERV4_PRIOS	4
#define TC_MSFC_DSCP_MAP_DIFFSERV4 {			\
	1, 0, 1, 1, 2, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1,	\
	2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1,	\
	3, 1, 2, 1, 2, 1, 2, 1, 3, 1, 1, 1, 3, 65, 3, 1,	\
	3, 1, 1, 1, 1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1,	\
}

/*
 * diffserv8, cake's eight-tin map; cake's tin numbers already rise with importance, so
 * class = tin:
 *   0 background:       LE
 *   1 high throughput:  CS1, TOS2 (2), AF1x
 *   2 best effort:      every code point not named here
 *   3 video streaming:  CS3, AF3x, AF4x
 *   4 low-latency data: TOS4 (4), AF2x
 *   5 interactive:      CS2 (operations and management, e.g. ssh)
 *   6 minimum latency:  CS4, CS5, VA, EF
 *   7 network control:  CS6, CS7
 * Unlike diffserv3 and diffserv4, CS1 is above best effort here (with AF1x), not with LE.
 */
#define TC_MSFC_DSCP_MAP_DIFFSERV8_PRIOS	8
#define TC_MSFC_DSCP_MAP_DIFFSERV8 {			\
	2, 0, 1, 2, 4, 2, 2, 2, 1, 2, 1, 2, 1, 2, 1, 2,	\
	5, 2, 4, 2, 4, 2, 4, 2, 3, 2, 3, 2, 3, 2, 3, 2,	\
	6, 2, 3, 2, 3, 2, 3, 2, 6, 2, 2, 2, 6, 66, 6, 2,	\
	7, 2, 2, 2, 2, 2, 2, 2, 7, 2, 2, 2, 2, 2, 2, 2,	\
}

/*
 * wifi, RFC 8325 section 4 (DSCP -> 802.11 user priority UP) followed by the UP's access
 * category (UP 1, 2: AC_BK; 0, 3: AC_BE; 4, 5: AC_VI; 6, 7: AC_VO), one class per category:
 *   0 AC_BK: CS1 (UP 1), LE (UP 1, RFC 8622)
 *   1 AC_BE: DF, AF1x, CS2 (UP 0), AF2x (UP 3), every unused code point (UP 0)
 *   2 AC_VI: CS3, AF3x, CS4, AF4x (UP 4), CS5 (UP 5)
 *   3 AC_VO: VA, EF (UP 6), CS6, CS7 (UP 6, 7)
 * and NQB (45) in AC_VI with the NQB flag (RFC 9956 updates RFC 8325: UP 5).
 * RFC 8325 section 8.2 asks that CS6 and CS7 go to UP 0 where the Wi-Fi link is the
 * network's edge and end hosts mark their own packets: "dscp_map wifi,cs6:1,cs7:1".
 */
#define TC_MSFC_DSCP_MAP_WIFI_PRIOS	4
#define TC_MSFC_DSCP_MAP_WIFI {				\
	1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1,	\
	1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 2, 1, 2, 1, 2, 1,	\
	2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 1, 1, 3, 66, 3, 1,	\
	3, 1, 1, 1, 1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1,	\
}

/*
 * The maps user space accepts by name (lower case): name, the prios it is meant for (the
 * default map's 8 are its precedence classes, meant to be clamped), and the 64 classes.
 */
#define TC_MSFC_DSCP_MAPS {						\
	{ "default", 8, TC_MSFC_DEFAULT_DSCP_MAP },			\
	{ "diffserv3", TC_MSFC_DSCP_MAP_DIFFSERV3_PRIOS, TC_MSFC_DSCP_MAP_DIFFSERV3 },	\
	{ "diffserv4", TC_MSFC_DSCP_MAP_DIFFSERV4_PRIOS, TC_MSFC_DSCP_MAP_DIFFSERV4 },	\
	{ "diffserv8", TC_MSFC_DSCP_MAP_DIFFSERV8_PRIOS, TC_MSFC_DSCP_MAP_DIFFSERV8 },	\
	{ "wifi", TC_MSFC_DSCP_MAP_WIFI_PRIOS, TC_MSFC_DSCP_MAP_WIFI },		\
}

/* The names of TC_MSFC_DSCP_MAPS as the error messages list them */
#define TC_MSFC_DSCP_MAP_NAMES		"default, diffserv3, diffserv4, diffserv8 or wifi"

/* DSCP names user space accepts for a code point (case-insensitive), name and DSCP. */
#define TC_MSFC_DSCP_NAMES {						\
	{ "be", 0 }, { "cs0", 0 }, { "le", 1 }, { "cs1", 8 },		\
	{ "af11", 10 }, { "af12", 12 }, { "af13", 14 }, { "cs2", 16 },	\
	{ "af21", 18 }, { "af22", 20 }, { "af23", 22 }, { "cs3", 24 },	\
	{ "af31", 26 }, { "af32", 28 }, { "af33", 30 }, { "cs4", 32 },	\
	{ "af41", 34 }, { "af42", 36 }, { "af43", 38 }, { "cs5", 40 },	\
	{ "va", 44 }, { "nqb", 45 }, { "ef", 46 }, { "cs6", 48 },	\
	{ "cs7", 56 },							\
}

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
	__u64	bandwidth;		/* shaper rate in bytes/s, 0: no shaper */
	__u64	throttled;		/* dequeues the shaper deferred (watchdog armed) */
	__u64	auto_promotions;	/* auto: flow slots moved one class up */
	__u64	auto_demotions;		/* auto: flow slots moved down (or kept at 0) */
	__u64	ce_threshold_marks;	/* packets CE-marked by ce_threshold (L4S) */
	__u64	nqb_demotions;		/* NQB flows moved to the old flows by queue protection */
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
	__u64	ce_threshold_marks;	/* packets CE-marked by ce_threshold (L4S) */
	__u64	nqb_demotions;		/* NQB flows moved to the old flows by queue protection */
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
