// SPDX-License-Identifier: GPL-2.0
/*
 * MSFC (Multilevel Stochastically Fair CoDel) as a BPF qdisc (struct_ops
 * Qdisc_ops, Linux >= 6.16).  docs/algorithm.md is the specification and
 * kernel/net/sched/sch_msfc.c the module this follows; docs/kernel.md, "BPF
 * qdisc", says what is left out and why.
 *
 * Packets are classified by the DSCP map into classes; a DRR round over the
 * active classes gives class p its quantum Q_p per round; inside a class the
 * packets are hashed into flow queues served by a DRR with the quantum;
 * CoDel (the kernel's arithmetic, include/net/codel_impl.h) runs on every
 * flow queue; over limit or memory_limit the flow holding the most bytes
 * loses up to half of them (drop_batch packets at most) from its head.  An
 * optional shaper (bandwidth) gates the dequeue as the module's does.
 *
 * LE and NQB (docs/algorithm.md, "LE and NQB"): a DSCP map entry le sends a
 * packet to the least-effort lane, one more class record after the classes
 * with its own flows and inner DRR, outside the class round: it is served
 * only when the classes have nothing to send, and the overload drop takes
 * from it first.  An entry <class>+nqb makes the packet's flow an NQB flow
 * of its class: on the class's NQB list, served ahead of its other flows
 * while it holds at most a quantum of bytes and within one quantum a round.
 *
 * Storage.  BPF qdiscs keep their state in maps.  The packets are held in a
 * store, an array map whose entries hold an sk_buff kptr, the index of the
 * next packet of the same flow and the packet's length, truesize and
 * enqueue time; free entries form a list.  Flow queues are an array map
 * (prios x flows entries, class-major as in the module); the lists of active
 * flows and active classes are chains of indices.  Scheduling decisions read
 * the store's metadata only: an skb reference is taken out of the store just
 * before it is dropped (and released at once) or returned, so no loop holds
 * a reference across iterations.
 *
 * The state is global to the program: one qdisc at a time (a second tc
 * qdisc add fails with EBUSY).  Enqueue and dequeue run under the qdisc's
 * lock, so plain map updates need no further locking.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>
#include "pkt_sched_msfc.h"
#include "msfc_bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define NIL		MSFC_BPF_NIL
#define NET_XMIT_SUCCESS 0x00
#define NET_XMIT_DROP	0x01
#define NET_XMIT_CN	0x02
#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD
#define EINVAL		22
#define EBUSY		16
#define CODEL_SHIFT	10
#define REC_INV_SQRT_SHIFT 16
#define CODEL_MAX_DROPS_PER_DEQUEUE 256
#define EXACT_SHIFT	16
/* Scheduler steps (a refill, a flow or class leaving, a CoDel pass) per
 * dequeue; skipped rounds keep the refills few, so this bound is reached
 * only by a configuration far outside the usual (the watchdog then calls
 * again at once, the queue does not stall).
 */
#define MAX_STEPS	4096
/* memory_limit: rounds of overload drops per enqueue */
#define MAX_OVERLOAD_ROUNDS 64
/* Class records: the classes 0 .. prios - 1, then the least-effort lane at
 * index prios (so at most index 16); a power of two, to bound indices by a
 * mask the verifier follows.
 */
#define CLS_SLOTS	(2 * MSFC_BPF_MAX_PRIOS)
#define CLS_MASK	(CLS_SLOTS - 1)

struct msfc_pkt {
	struct sk_buff __kptr * skb;
	__u32 next;		/* next packet of the flow, or free entry */
	__u32 len;		/* qdisc_pkt_len() */
	__u32 truesize;
	__u32 enq;		/* CoDel time of the enqueue */
	__u32 link;		/* the length the shaper charges */
	__u32 is_auto;		/* auto: the class came from the flow slot's level */
};

struct msfc_flowq {
	__u32 head;		/* store indices */
	__u32 tail;
	__u32 next;		/* next flow on the class's list */
	__u32 backlog;
	__u32 qlen;
	__u32 active;
	__s64 deficit;
	/* CoDel's variables (struct codel_vars) */
	__u32 count;
	__u32 lastcount;
	__u32 dropping;
	__u32 sparse;		/* left the new (boost across) or NQB flows, deficit kept */
	__u32 nqb;		/* on its class's NQB list */
	__u32 stamp;		/* the class's refills when it last got a quantum as NQB */
	__u32 prev;		/* NQB list: previous flow, NIL at its head */
	__u32 src;		/* isolate: host slots since activation */
	__u32 dst;
	/* auto, in the home class's records: the flow slot's state */
	__u32 level;		/* its class */
	__u32 clean;		/* since when it has been sparse (CoDel time) */
	__u32 last;		/* when its last auto packet came */
	__u32 rec_inv_sqrt;
	__u32 first_above_time;
	__u32 drop_next;
	__u32 ldelay;
};

/* isolate: per class, direction (source, destination) and slot */
struct msfc_host {
	__s64 deficit;		/* inner DRR credit, 2^-16 byte */
	__u32 load;		/* active flows of the host in the class */
	__u32 pad;
};

struct msfc_class {
	__s64 deficit;
	__u64 quantum;
	__u64 round;		/* order priority: round of its last quantum */
	__u32 head;		/* active flows (boost on: the old flows) */
	__u32 tail;
	__u32 nhead;		/* boost on: flows that became active */
	__u32 ntail;
	__u32 qhead;		/* NQB flows, served first (doubly linked) */
	__u32 qtail;
	__u32 nqb_flows;	/* flows on the NQB list */
	__u32 refills;		/* refills of flows not on the NQB list, mod 2^32 */
	__u32 next;		/* next active class */
	__u32 active;
	__u32 qlen;
	__u32 backlog;
	__u32 active_flows;
};

struct msfc_state {
	struct msfc_bpf_cfg cfg;
	struct msfc_class cls[CLS_SLOTS];	/* the classes, the lane at prios */
	__u32 chead;		/* active classes */
	__u32 ctail;
	__u32 free_head;	/* free store entries */
	__u32 used;		/* store entries ever handed out */
	__u32 memory_usage;
	__u32 active_flows;
	__u32 owner_handle;	/* the qdisc that owns the state */
	__u32 owner_ifindex;
	__u32 owned;
	__u32 next_frac;	/* shaper clock: 2^-32 ns beyond next_send */
	__u64 next_send;
	__u64 round;		/* order priority: the round counter */
	/* Loop-carried values live here, not in registers: the verifier then
	 * sees every iteration start from the same (unknown) values and stops
	 * exploring after a few instead of once per iteration.
	 */
	__u32 ov_victim;
	__u32 ov_max;
	__u32 ov_len;
	__u32 ov_dropped;
	__u32 cd_drops;
	__u32 crefills;
	__u32 frefills;
	__u32 sk_i;
	__u32 sk_n;
	__u32 ax_c;		/* boost across: next class to try, NIL when done */
	__u32 ax_ok;		/* boost across: class ax_c passed the borrowing test */
	__u32 cv_victim;	/* overload class: the fullest class so far */
	__u32 perturbation;	/* isolate: keys the host hash */
	__u64 ov_weight;	/* overload, isolate: the largest bytes x load so far */
	__u64 sk_k;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct msfc_bpf_cfg);
} msfc_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MSFC_BPF_STATS_ENTRIES);
	__type(key, __u32);
	__type(value, struct msfc_bpf_stats);
} msfc_stats SEC(".maps");

/* sizes set by the loader: (prios + 1) x flows (the lane's flows last), and
 * the store's packets
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 3 * 1024);
	__type(key, __u32);
	__type(value, struct msfc_flowq);
} msfc_flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 10241);
	__type(key, __u32);
	__type(value, struct msfc_pkt);
} msfc_pkts SEC(".maps");

/* isolate: 2 x (prios + 1) x flows entries (sized by the loader; 1 with isolate flow) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct msfc_host);
} msfc_hosts SEC(".maps");

static struct msfc_state st;

static __always_inline struct msfc_flowq *flow_at(__u32 i)
{
	return bpf_map_lookup_elem(&msfc_flows, &i);
}

static __always_inline struct msfc_pkt *pkt_at(__u32 i)
{
	return bpf_map_lookup_elem(&msfc_pkts, &i);
}

static __always_inline struct msfc_bpf_stats *stats_at(__u32 i)
{
	return bpf_map_lookup_elem(&msfc_stats, &i);
}

/* Class record @c: a class, or the least-effort lane (index prios). */
static __always_inline struct msfc_class *cls_at(__u32 c)
{
	return &st.cls[c & CLS_MASK];
}

/* The counters of class record @c: a class's entry, or the lane's. */
static __always_inline struct msfc_bpf_stats *class_stats(__u32 c)
{
	return stats_at(c < st.cfg.prios ? c : MSFC_BPF_STATS_LANE);
}

static __always_inline __u32 codel_now(void)
{
	return bpf_ktime_get_ns() >> CODEL_SHIFT;
}

static __always_inline bool owns(struct Qdisc *sch)
{
	return st.owned && st.owner_handle == sch->handle &&
	       st.owner_ifindex == sch->dev_queue->dev->ifindex;
}

/* ---- packet store ---- */

static __always_inline __u32 store_alloc(void)
{
	__u32 i = st.free_head;
	struct msfc_pkt *p;

	if (i != NIL) {
		p = pkt_at(i);
		if (!p)
			return NIL;
		st.free_head = p->next;
		return i;
	}
	if (st.used < st.cfg.packets)
		return st.used++;
	return NIL;
}

static __always_inline void store_free(__u32 i, struct msfc_pkt *p)
{
	p->next = st.free_head;
	st.free_head = i;
}

/* ---- classification ---- */

/* The DS field of an IPv4 or IPv6 packet, -1 for anything else.  The header
 * is read through a (read-only) skb dynptr, whose offset 0 is skb->data.
 */
static __always_inline __u32 skb_netoff(struct sk_buff *skb)
{
	return (__u32)((__u64)skb->head + skb->network_header - (__u64)skb->data);
}

static __always_inline int skb_dsfield(struct sk_buff *skb)
{
	__u32 off = skb_netoff(skb);
	struct bpf_dynptr ptr;
	__u8 b[2];

	if (skb->protocol != bpf_htons(ETH_P_IP) && skb->protocol != bpf_htons(ETH_P_IPV6))
		return -1;
	if (bpf_dynptr_from_skb((struct __sk_buff *)skb, 0, &ptr))
		return -1;
	if (bpf_dynptr_read(b, sizeof(b), &ptr, off, 0))
		return -1;
	if (skb->protocol == bpf_htons(ETH_P_IP))
		return b[1];
	return ((b[0] & 0x0f) << 4) | (b[1] >> 4);
}

/* ---- the shaper (sch_msfc.c: msfc_shaper_charge(), msfc_shaper_wake()) ---- */

static __always_inline void shaper_charge(__u32 len, __u64 now)
{
	__u64 npb = st.cfg.ns_per_byte;
	__u64 dur = (npb >> 32) * len + (((npb & 0xffffffffULL) * len) >> 32);
	__u64 lo;

	if (st.next_send + dur < now) {
		st.next_send = now - dur;
		st.next_frac = 0;
	}
	lo = (npb & 0xffffffffULL) * len + st.next_frac;
	st.next_frac = (__u32)lo;
	st.next_send = st.next_send + (npb >> 32) * len + (lo >> 32);
}

/* The length the shaper charges for @len bytes of which @netoff are the
 * link-layer header: framing(max(len' + overhead, mpu)), len' = @len with
 * raw, else @len - @netoff (msfc_link_len()).
 */
static __always_inline __u32 link_len(__u32 len, __u32 netoff)
{
	__s64 l = st.cfg.raw ? (__s64)len :
		  (__s64)len - (netoff < len ? netoff : len) + st.cfg.overhead;

	if (l < (__s64)st.cfg.mpu)
		l = st.cfg.mpu;
	if (l < 0)
		l = 0;
	if (st.cfg.framing == TC_MSFC_FRAMING_ATM)
		return (__u32)((l + 47) / 48 * 53);
	if (st.cfg.framing == TC_MSFC_FRAMING_PTM)
		return (__u32)(l + (l + 63) / 64);
	return (__u32)l;
}

/* A packet's charged length; a GSO packet as its segments (the qdisc
 * control block's pkt_segs, from gso_segs) of their average length.
 */
static __always_inline __u32 skb_link_len(struct sk_buff *skb, __u32 len)
{
	__u32 segs = ((struct qdisc_skb_cb *)skb->cb)->pkt_segs, netoff = skb_netoff(skb);

	if (segs <= 1)
		return link_len(len, netoff);
	return segs * link_len(len / segs, netoff);
}

/* ingress: a dropped packet is charged too (msfc_shaper_drop()) */
static __always_inline void shaper_drop(struct msfc_pkt *p)
{
	if (st.cfg.bandwidth && st.cfg.ingress)
		shaper_charge(p->link, bpf_ktime_get_ns());
}

static __always_inline void shaper_wake(void)
{
	__u64 now = bpf_ktime_get_ns();

	if (st.next_send < now) {
		st.next_send = now;
		st.next_frac = 0;
	}
}

/* ---- flow lists ---- */

/* Flow @fi (@f) joins the tail of the singly linked list @head .. @tail (the
 * old or the new flows of a class).
 */
static __always_inline void chain_append(__u32 *head, __u32 *tail, __u32 fi,
					 struct msfc_flowq *f)
{
	struct msfc_flowq *t;

	f->next = NIL;
	if (*tail == NIL) {
		*head = fi;
	} else {
		t = flow_at(*tail);
		if (t)
			t->next = fi;
	}
	*tail = fi;
}

/* The NQB list of a class (docs/algorithm.md, "LE and NQB") is doubly linked:
 * queue protection takes a flow out of its middle at once, with no search.
 * Both return 0, or -1 if a map lookup failed.
 */
static __always_inline int nqb_append(struct msfc_class *cl, __u32 fi, struct msfc_flowq *f)
{
	struct msfc_flowq *t;

	f->next = NIL;
	f->prev = cl->qtail;
	if (cl->qtail == NIL) {
		cl->qhead = fi;
	} else {
		t = flow_at(cl->qtail);
		if (!t)
			return -1;
		t->next = fi;
	}
	cl->qtail = fi;
	return 0;
}

static __always_inline int nqb_remove(struct msfc_class *cl, struct msfc_flowq *f)
{
	struct msfc_flowq *t;

	if (f->prev == NIL) {
		cl->qhead = f->next;
	} else {
		t = flow_at(f->prev);
		if (!t)
			return -1;
		t->next = f->next;
	}
	if (f->next == NIL) {
		cl->qtail = f->prev;
	} else {
		t = flow_at(f->next);
		if (!t)
			return -1;
		t->prev = f->prev;
	}
	f->next = NIL;
	f->prev = NIL;
	return 0;
}

/* ---- flow queues ---- */

/* Takes the head packet off flow @f of class @c (codel's dequeue_func):
 * its store index, or NIL.
 */
static __always_inline __u32 flow_pop(struct Qdisc *sch, struct msfc_flowq *f, __u32 c)
{
	struct msfc_class *cl = cls_at(c);
	__u32 i = f->head;
	struct msfc_pkt *p;

	if (i == NIL)
		return NIL;
	p = pkt_at(i);
	if (!p)
		return NIL;
	f->head = p->next;
	if (f->head == NIL)
		f->tail = NIL;
	f->backlog -= p->len;
	f->qlen--;
	cl->qlen--;
	cl->backlog -= p->len;
	st.memory_usage -= p->truesize;
	sch->q.qlen--;
	sch->qstats.backlog -= p->len;
	return i;
}

/* Frees a packet taken off its flow: dropped by CoDel (dequeue side). */
static __always_inline void drop_popped(struct Qdisc *sch, __u32 i, __u32 c)
{
	struct msfc_bpf_stats *cs = class_stats(c), *qs = stats_at(MSFC_BPF_STATS_QDISC);
	struct msfc_pkt *p = pkt_at(i);
	struct sk_buff *skb;

	if (!p)
		return;
	skb = bpf_kptr_xchg(&p->skb, NULL);
	if (skb)
		bpf_kfree_skb(skb);
	shaper_drop(p);
	store_free(i, p);
	sch->qstats.drops++;
	if (cs)
		cs->codel_drops++;
	if (qs)
		qs->codel_drops++;
}

/* ---- CoDel (include/net/codel_impl.h, without ECN) ---- */

static __always_inline void codel_newton_step(struct msfc_flowq *f)
{
	__u32 invsqrt = f->rec_inv_sqrt << REC_INV_SQRT_SHIFT;
	__u32 invsqrt2 = ((__u64)invsqrt * invsqrt) >> 32;
	__u64 val = (3ULL << 32) - ((__u64)f->count * invsqrt2);

	val >>= 2;
	val = (val * invsqrt) >> (32 - 2 + 1);
	f->rec_inv_sqrt = (val >> REC_INV_SQRT_SHIFT) & 0xffff;
}

static __always_inline __u32 codel_control_law(__u32 t, __u32 interval, __u32 rec_inv_sqrt)
{
	__u32 inc = ((__u64)interval * (__u32)(rec_inv_sqrt << REC_INV_SQRT_SHIFT)) >> 32;

	return t + (inc ? inc : 1);
}

static __always_inline bool codel_should_drop(__u32 i, struct msfc_flowq *f, __u32 now)
{
	struct msfc_pkt *p;

	if (i == NIL) {
		f->first_above_time = 0;
		return false;
	}
	p = pkt_at(i);
	if (!p) {
		f->first_above_time = 0;
		return false;
	}
	f->ldelay = now - p->enq;
	if ((__s32)(f->ldelay - st.cfg.target) < 0 || f->backlog <= st.cfg.quantum) {
		f->first_above_time = 0;
		return false;
	}
	if (f->first_above_time == 0) {
		f->first_above_time = now + st.cfg.interval;
		return false;
	}
	return (__s32)(now - f->first_above_time) > 0;
}

/* codel_dequeue() on flow @f of class @c: the store index of the packet to
 * send, or NIL when the flow is (or became) empty.
 */
static __always_inline __u32 codel_dequeue(struct Qdisc *sch, struct msfc_flowq *f, __u32 c)
{
	__u32 interval = st.cfg.interval;
	__u32 i = flow_pop(sch, f, c);
	__u32 now, delta;
	bool drop;
	int k;

	if (i == NIL) {
		f->first_above_time = 0;
		f->dropping = 0;
		return NIL;
	}
	now = codel_now();
	drop = codel_should_drop(i, f, now);
	if (f->dropping) {
		if (!drop) {
			f->dropping = 0;
		} else if ((__s32)(now - f->drop_next) >= 0) {
			st.cd_drops = 0;
			bpf_for(k, 0, CODEL_MAX_DROPS_PER_DEQUEUE + 1) {
				if (!f->dropping || (__s32)(now - f->drop_next) < 0)
					break;
				if (++st.cd_drops > CODEL_MAX_DROPS_PER_DEQUEUE) {
					f->drop_next = codel_control_law(now, interval,
									 f->rec_inv_sqrt);
					break;
				}
				f->count++;
				codel_newton_step(f);
				drop_popped(sch, i, c);
				i = flow_pop(sch, f, c);
				if (!codel_should_drop(i, f, now))
					f->dropping = 0;
				else
					f->drop_next = codel_control_law(f->drop_next, interval,
									 f->rec_inv_sqrt);
			}
		}
	} else if (drop) {
		drop_popped(sch, i, c);
		i = flow_pop(sch, f, c);
		codel_should_drop(i, f, now);
		f->dropping = 1;
		delta = f->count - f->lastcount;
		if (delta > 1 && (__s32)(16 * interval - (now - f->drop_next)) > 0) {
			f->count = delta;
			codel_newton_step(f);
		} else {
			f->count = 1;
			f->rec_inv_sqrt = 0xffff;
		}
		f->lastcount = f->count;
		f->drop_next = codel_control_law(now, interval, f->rec_inv_sqrt);
	}
	return i;
}

/* ---- inversion prevent (msfc_effective_quanta()) ---- */

/* (a * num) / den for den <= 2^20 without a 128-bit product: a's high word
 * times num fits (a < 2^57, num <= 2^20), and so does the remainder's
 * carry into the low word.
 */
static __always_inline __u64 mul_div_small(__u64 a, __u32 num, __u32 den)
{
	__u64 hi = (a >> 32) * num, lo = (a & 0xffffffffULL) * num;
	__u64 qhi = hi / den, rhi = hi % den;

	return (qhi << 32) + ((rhi << 32) + lo) / den;
}

/* inversion prevent: the effective quantum of class @last, from the most
 * important class down (class prios - 1 first when ratio > 1 or the quanta
 * are explicit, class 0 when ratio is below 1): eff_c = max(1, min(Q_c,
 * n_c * P)), P the smallest quantum per flow of the classes above with
 * flows, scaled at every class down by 1 / ratio (explicit quanta: by
 * Q_{k-1} / Q_k); n the active flows.  A global function: the verifier
 * checks it once, not at every call.
 */
__noinline __u64 msfc_effective_quantum(__u32 last)
{
	bool ascending = st.cfg.ratio > 65536 || st.cfg.n_explicit, above = false;
	__u32 num = ascending ? 65536 : st.cfg.ratio;
	__u32 den = ascending ? st.cfg.ratio : 65536;
	__u64 per_flow = 0, e = 0;
	__u32 i, p, n;

	if (!den)
		return 1;
	for (i = 0; i < MSFC_BPF_MAX_PRIOS; i++) {
		if (i >= st.cfg.prios)
			break;
		p = (ascending ? st.cfg.prios - 1 - i : i) & (MSFC_BPF_MAX_PRIOS - 1);
		e = st.cfg.quanta[p];
		n = st.cls[p].active_flows;
		if (n) {
			if (above) {
				/* n * per_flow < e, without overflow */
				if (e && per_flow <= (e - 1) / n)
					e = n * per_flow > 1 ? n * per_flow : 1;
				if (e / n < per_flow)
					per_flow = e / n;
			} else {
				per_flow = e / n;
			}
			above = true;
		}
		if (p == last)
			break;
		if (st.cfg.n_explicit && p) {
			num = st.cfg.explicit_quanta[(p - 1) & (MSFC_BPF_MAX_PRIOS - 1)];
			den = st.cfg.explicit_quanta[p];
			if (!den)
				return e ? e : 1;
		}
		per_flow = mul_div_small(per_flow, num, den);
	}
	return e;
}

/* What class @c's deficit is refilled with: Q_c, or with inversion
 * prevent (and classes ranked by ratio or explicit quanta) its effective
 * quantum.  Global, as msfc_effective_quantum().
 */
__noinline __u64 class_quantum(__u32 c)
{
	c &= MSFC_BPF_MAX_PRIOS - 1;
	if (st.cfg.inversion != TC_MSFC_INVERSION_PREVENT ||
	    (st.cfg.ratio == 65536 && !st.cfg.n_explicit))
		return st.cls[c].quantum;
	return msfc_effective_quantum(c);
}

/* ---- DRR ---- */

/* ---- isolate: fairness per host (sch_msfc.c: msfc_flow_load() and others) ---- */

#define ISOLATE_SHIFT	16
#define JHASH_INITVAL	0xdeadbeef

static __always_inline __u32 rol32(__u32 w, unsigned int s)
{
	return (w << s) | (w >> (32 - s));
}

/* the kernel's jhash_1word() */
static __always_inline __u32 jhash_1word(__u32 a, __u32 initval)
{
	__u32 b, c;

	a += JHASH_INITVAL + (1 << 2) + initval;
	b = JHASH_INITVAL + (1 << 2) + initval;
	c = JHASH_INITVAL + (1 << 2) + initval;
	c ^= b; c -= rol32(b, 14);
	a ^= c; a -= rol32(c, 11);
	b ^= a; b -= rol32(a, 25);
	c ^= b; c -= rol32(b, 16);
	a ^= c; a -= rol32(c, 4);
	b ^= a; b -= rol32(a, 14);
	c ^= b; c -= rol32(b, 24);
	return c;
}

static __always_inline struct msfc_host *host_at(__u32 c, __u32 dir, __u32 slot)
{
	__u32 i = (c * 2 + dir) * st.cfg.flows + slot;

	return bpf_map_lookup_elem(&msfc_hosts, &i);
}

/* Host slots of a packet's source and destination: the keyed hash of the
 * address (IPv6: the XOR of its words, as ipv6_addr_hash()), reduced to
 * flows slots; non-IP packets: slot 0 (msfc_host_slots()).
 */
static __always_inline void host_slots(struct sk_buff *skb, __u32 *src, __u32 *dst)
{
	__u32 off = skb_netoff(skb), a[8], hs, hd;
	struct bpf_dynptr ptr;

	*src = 0;
	*dst = 0;
	if (bpf_dynptr_from_skb((struct __sk_buff *)skb, 0, &ptr))
		return;
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		if (bpf_dynptr_read(a, 8, &ptr, off + 12, 0))
			return;
		hs = a[0];
		hd = a[1];
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		if (bpf_dynptr_read(a, 32, &ptr, off + 8, 0))
			return;
		hs = a[0] ^ a[1] ^ a[2] ^ a[3];
		hd = a[4] ^ a[5] ^ a[6] ^ a[7];
	} else {
		return;
	}
	*src = ((__u64)jhash_1word(hs, st.perturbation) * st.cfg.flows) >> 32;
	*dst = ((__u64)jhash_1word(hd, st.perturbation) * st.cfg.flows) >> 32;
}

/* Active flows of the flow's host in class @c: its source's, destination's
 * or the larger; at least 1.
 */
static __always_inline __u32 flow_load(struct msfc_flowq *f, __u32 c)
{
	struct msfc_host *hs = host_at(c, 0, f->src), *hd = host_at(c, 1, f->dst);
	__u32 src = hs ? hs->load : 0, dst = hd ? hd->load : 0, load;

	if (st.cfg.isolate == TC_MSFC_ISOLATE_SRC)
		load = src;
	else if (st.cfg.isolate == TC_MSFC_ISOLATE_DST)
		load = dst;
	else
		load = src > dst ? src : dst;
	return load ? load : 1;
}

/* The host entry a flow draws on: its source's (src), destination's (dst),
 * or with both the side of the larger load (ties: source).
 */
static __always_inline struct msfc_host *flow_host(struct msfc_flowq *f, __u32 c)
{
	struct msfc_host *hs = host_at(c, 0, f->src), *hd = host_at(c, 1, f->dst);

	if (st.cfg.isolate == TC_MSFC_ISOLATE_SRC)
		return hs;
	if (st.cfg.isolate == TC_MSFC_ISOLATE_DST)
		return hd;
	if (!hs || !hd)
		return hs;
	return hs->load >= hd->load ? hs : hd;
}

/* A host deficit never exceeds one quantum (msfc_host_add()). */
static __always_inline void host_add(struct msfc_host *h, __s64 amount)
{
	__s64 cap = (__s64)st.cfg.quantum << ISOLATE_SHIFT;

	h->deficit = h->deficit + amount < cap ? h->deficit + amount : cap;
}

/* The inner DRR refill of a flow: quantum bytes (isolate flow), else
 * quantum / load in 2^-16 byte (msfc_flow_quantum()).
 */
static __always_inline __u64 flow_quantum(struct msfc_flowq *f, __u32 c)
{
	if (st.cfg.isolate == TC_MSFC_ISOLATE_FLOW)
		return st.cfg.quantum;
	return ((__u64)st.cfg.quantum << ISOLATE_SHIFT) / flow_load(f, c);
}

/* A flow leaves its list: its hosts lose one active flow. */
static __always_inline void flow_leaves(struct msfc_flowq *f, __u32 c)
{
	struct msfc_host *h;

	if (st.cfg.isolate == TC_MSFC_ISOLATE_FLOW)
		return;
	h = host_at(c, 0, f->src);
	if (h && h->load)
		h->load--;
	h = host_at(c, 1, f->dst);
	if (h && h->load)
		h->load--;
}

static __always_inline __u64 refills(__s64 deficit, __u64 quantum)
{
	return deficit > 0 ? 0 : (__u64)(-deficit) / quantum + 1;
}

/* The fewest refills an active class needs to have credit (~0 with none active). */
static __always_inline __u64 fewest_class_refills(void)
{
	__u64 k = ~0ULL, r;
	__u32 c = st.chead;
	int j;

	for (j = 0; j < MSFC_BPF_MAX_PRIOS && c != NIL; j++) {
		struct msfc_class *cl = &st.cls[c & (MSFC_BPF_MAX_PRIOS - 1)];

		r = refills(cl->deficit, class_quantum(c));
		if (r < k)
			k = r;
		c = cl->next;
	}
	return k;
}

/* Rounds in which every active class only refills, added at once
 * (sch_msfc.c: msfc_skip_class_rounds()).
 */
static __always_inline void skip_class_rounds(void)
{
	__u64 k = fewest_class_refills();
	__u32 c;
	int j;

	if (k < 2 || k == ~0ULL)
		return;
	c = st.chead;
	for (j = 0; j < MSFC_BPF_MAX_PRIOS && c != NIL; j++) {
		struct msfc_class *cl = &st.cls[c & (MSFC_BPF_MAX_PRIOS - 1)];

		cl->deficit += (k - 1) * class_quantum(c);
		c = cl->next;
	}
}

/* The same for the flows of class @cl (msfc_skip_flow_rounds()): the rounds
 * of its old flows, or of its NQB flows when it has no other flow.  Such a
 * round refills every flow of the list once and leaves the list in its
 * order; the old flows' refills advance the class's refill counter, an NQB
 * flow's refill (with no other flow it always stays NQB) sets its stamp to
 * the counter.  NQB flows beside other flows are not skipped: each of their
 * refills may move one to the old flows, so the next refills are not rounds.
 */
static __noinline void skip_flow_rounds(struct msfc_class *cl, __u32 c)
{
	bool nqb = cl->qhead != NIL;
	struct msfc_flowq *f;
	struct msfc_host *h;
	__u64 r, q, rh;
	int j;

	if (nqb && cl->nqb_flows != cl->active_flows)
		return;
	st.sk_k = ~0ULL;
	st.sk_n = 0;
	st.sk_i = nqb ? cl->qhead : cl->head;
	bpf_for(j, 0, st.cfg.flows) {
		if (st.sk_i == NIL)
			break;
		f = flow_at(st.sk_i);
		if (!f)
			break;
		q = flow_quantum(f, c);
		r = refills(f->deficit, q);
		if (st.cfg.isolate != TC_MSFC_ISOLATE_FLOW) {
			/* a visit refills while the flow's or its host's
			 * deficit is <= 0; the host gains at most load x the
			 * flow quantum a round
			 */
			h = flow_host(f, c);
			rh = h ? refills(h->deficit, flow_load(f, c) * q) : 0;
			if (rh > r)
				r = rh;
		}
		if (r < st.sk_k)
			st.sk_k = r;
		st.sk_n++;
		st.sk_i = f->next;
	}
	if (st.sk_k < 2 || st.sk_k == ~0ULL)
		return;
	st.sk_i = nqb ? cl->qhead : cl->head;
	bpf_for(j, 0, st.cfg.flows) {
		if (st.sk_i == NIL)
			break;
		f = flow_at(st.sk_i);
		if (!f)
			break;
		q = flow_quantum(f, c);
		if (st.cfg.isolate == TC_MSFC_ISOLATE_FLOW) {
			f->deficit += (st.sk_k - 1) * q;
		} else {
			r = refills(f->deficit, q);
			f->deficit += q * (st.sk_k - 1 < r ? st.sk_k - 1 : r);
			h = flow_host(f, c);
			if (h)
				host_add(h, (st.sk_k - 1) * q);
		}
		if (nqb)
			f->stamp = cl->refills;
		st.sk_i = f->next;
	}
	if (!nqb)
		cl->refills += (__u32)((st.sk_k - 1) * st.sk_n);
}

static __always_inline void update_gauges(struct Qdisc *sch, __u32 c)
{
	struct msfc_bpf_stats *cs = class_stats(c), *qs = stats_at(MSFC_BPF_STATS_QDISC);
	struct msfc_class *cl = cls_at(c);

	if (cs) {
		cs->qlen = cl->qlen;
		cs->backlog = cl->backlog;
		cs->active_flows = cl->active_flows;
	}
	if (qs) {
		qs->memory_usage = st.memory_usage;
		qs->qlen = sch->q.qlen;
		qs->backlog = sch->qstats.backlog;
		qs->active_flows = st.active_flows;
	}
}

/* ---- auto: automatic priorities (msfc_auto_class(), msfc_auto_dequeued()) ---- */

/* auto: the class of an auto packet of flow slot @fidx arriving at @now.
 * The slot climbs one class first when its flow queue at its level is empty
 * and it has been sparse there, and not idle, for T_up.
 */
static __always_inline __u32 auto_class(__u32 fidx, __u32 now)
{
	__u32 home = st.cfg.dscp_map[0] & (MSFC_BPF_MAX_PRIOS - 1), c, i;
	struct msfc_flowq *slot, *q;
	struct msfc_bpf_stats *qs;

	slot = flow_at(home * st.cfg.flows + fidx);
	if (!slot)
		return home;
	c = slot->level < st.cfg.prios ? slot->level : st.cfg.prios - 1;
	if (now - slot->last >= st.cfg.auto_up)
		slot->clean = now;
	slot->last = now;
	if (c + 1 < st.cfg.prios && now - slot->clean >= st.cfg.auto_up) {
		i = c * st.cfg.flows + fidx;
		q = flow_at(i);
		if (q && q->head == NIL) {
			slot->level = ++c;
			slot->clean = now;
			qs = stats_at(MSFC_BPF_STATS_QDISC);
			if (qs)
				qs->auto_promotions++;
		}
	}
	return c & (MSFC_BPF_MAX_PRIOS - 1);
}

/* auto: an auto packet enqueued at @enq has just left flow @f of class @c
 * (slot @fidx) through CoDel.  If CoDel's test on it said "may drop", the
 * slot sinks one class; else if the flow still holds more than a quantum,
 * its time to climb starts again.
 */
static __always_inline void auto_dequeued(struct msfc_flowq *f, __u32 c, __u32 fidx, __u32 enq)
{
	__u32 home = st.cfg.dscp_map[0] & (MSFC_BPF_MAX_PRIOS - 1), fat, now;
	struct msfc_bpf_stats *qs;
	struct msfc_flowq *slot;

	slot = flow_at(home * st.cfg.flows + fidx);
	if (!slot || slot->level != c)
		return;
	now = enq + f->ldelay;
	fat = f->first_above_time;
	if (fat && (__s32)(now - fat) > 0) {
		slot->level = c ? c - 1 : 0;
		slot->clean = now;
		qs = stats_at(MSFC_BPF_STATS_QDISC);
		if (qs)
			qs->auto_demotions++;
	} else if (f->backlog > st.cfg.quantum) {
		slot->clean = now;
	}
}

/* ---- overload ---- */

/* overload class: backlog(a) / qa > backlog(b) / qb, exactly (the backlog
 * in bytes or packets; 96-bit cross products as msfc_class_fuller()).
 */
static __always_inline bool class_fuller(__u32 ba, __u64 qa, __u32 bb, __u64 qb)
{
	__u64 al = (__u64)ba * (__u32)qb;
	__u64 ah = (__u64)ba * (qb >> 32) + (al >> 32);
	__u64 bl = (__u64)bb * (__u32)qa;
	__u64 bh = (__u64)bb * (qa >> 32) + (bl >> 32);

	if (ah != bh)
		return ah > bh;
	return (__u32)al > (__u32)bl;
}

/* overload class: the class most above its share of the buffer, its
 * backlog counted in packets over limit (@bytes 0), in bytes over
 * memory_limit only (ties: the lowest class).  Global, and the victim so
 * far kept in memory: the verifier checks the loop once, not once per
 * possible victim.
 */
__noinline __u32 class_victim(__u32 bytes)
{
	__u32 p, v;

	st.cv_victim = 0;
	for (p = 1; p < MSFC_BPF_MAX_PRIOS; p++) {
		if (p >= st.cfg.prios)
			break;
		v = st.cv_victim & (MSFC_BPF_MAX_PRIOS - 1);
		if (class_fuller(bytes ? st.cls[p].backlog : st.cls[p].qlen, class_quantum(p),
				 bytes ? st.cls[v].backlog : st.cls[v].qlen, class_quantum(v)))
			st.cv_victim = p;
	}
	return st.cv_victim & (MSFC_BPF_MAX_PRIOS - 1);
}

/* Over limit or memory_limit: the flow holding the most bytes (ties: the
 * lowest index) over all classes (overload flow) or inside the class
 * class_victim() picks (overload class) loses packets from its head until
 * half of its bytes or drop_batch packets are gone (msfc_overload_drop(),
 * isolate flow).  While the least-effort lane holds a packet the victim is
 * the lane's fattest flow, whatever overload is.  Returns the packets
 * dropped.
 */
static __noinline __u32 overload_drop(struct Qdisc *sch, struct bpf_sk_buff_ptr *to_free,
				      bool over_memory)
{
	__u32 n = st.cfg.prios * st.cfg.flows, dropped, i, c;
	struct msfc_bpf_stats *cs, *qs;
	__u64 w;
	struct msfc_flowq *f;
	struct msfc_class *cl;
	struct msfc_pkt *p;
	struct sk_buff *skb;
	int j;

	__u32 start = 0;

	if (cls_at(st.cfg.prios)->qlen) {
		start = st.cfg.prios * st.cfg.flows;
		n = start + st.cfg.flows;
	} else if (st.cfg.overload == TC_MSFC_OVERLOAD_CLASS) {
		start = class_victim(sch->q.qlen <= st.cfg.limit) * st.cfg.flows;
		n = start + st.cfg.flows;
	}
	st.ov_victim = start;
	st.ov_max = 0;
	st.ov_weight = 0;
	if (st.cfg.isolate == TC_MSFC_ISOLATE_FLOW) {
		bpf_for(j, start, n) {
			f = flow_at(j);
			if (f && f->backlog > st.ov_max) {
				st.ov_max = f->backlog;
				st.ov_victim = j;
			}
		}
	} else if (st.cfg.flows) {
		/* the flow most above its host's share: bytes x load */
		bpf_for(j, start, n) {
			f = flow_at(j);
			if (!f || !f->backlog)
				continue;
			w = (__u64)f->backlog * flow_load(f, (__u32)j / st.cfg.flows);
			if (w > st.ov_weight) {
				st.ov_weight = w;
				st.ov_victim = j;
			}
		}
		f = flow_at(st.ov_victim);
		if (f)
			st.ov_max = f->backlog;
	}
	f = flow_at(st.ov_victim);
	if (!f || !st.cfg.flows)
		return 0;
	c = (st.ov_victim / st.cfg.flows) & CLS_MASK;
	st.ov_len = 0;
	st.ov_dropped = 0;
	bpf_for(j, 0, st.cfg.drop_batch) {
		if ((__u64)st.ov_len * 2 >= st.ov_max)
			break;
		f = flow_at(st.ov_victim);
		if (!f)
			break;
		i = f->head;
		if (i == NIL)
			break;
		p = pkt_at(i);
		if (!p)
			break;
		f->head = p->next;
		if (f->head == NIL)
			f->tail = NIL;
		skb = bpf_kptr_xchg(&p->skb, NULL);
		if (skb)
			bpf_qdisc_skb_drop(skb, to_free);
		shaper_drop(p);
		cl = cls_at(c);
		st.ov_len += p->len;
		f->backlog -= p->len;
		f->qlen--;
		cl->qlen--;
		cl->backlog -= p->len;
		st.memory_usage -= p->truesize;
		sch->q.qlen--;
		sch->qstats.backlog -= p->len;
		store_free(i, p);
		st.ov_dropped++;
	}
	dropped = st.ov_dropped;
	sch->qstats.drops += dropped;
	sch->qstats.overlimits += dropped;
	cs = class_stats(c);
	qs = stats_at(MSFC_BPF_STATS_QDISC);
	if (cs) {
		cs->overload_drops += dropped;
		if (over_memory)
			cs->overmemory_drops += dropped;
	}
	if (qs) {
		qs->overload_drops += dropped;
		qs->overload_events++;
		if (over_memory)
			qs->overmemory_drops += dropped;
	}
	update_gauges(sch, c);
	return dropped;
}

/* ---- Qdisc_ops ---- */

SEC("struct_ops/msfc_enqueue")
int BPF_PROG(msfc_enqueue, struct sk_buff *skb, struct Qdisc *sch,
	     struct bpf_sk_buff_ptr *to_free)
{
	__u32 len = ((struct qdisc_skb_cb *)skb->cb)->pkt_len, truesize = skb->truesize;
	struct msfc_bpf_stats *cs, *qs;
	struct msfc_class *cl;
	struct msfc_flowq *f;
	struct msfc_pkt *p;
	__u32 c, fidx, idx, i, hsrc = 0, hdst = 0, now, entry;
	bool over, is_auto, nqb = false;
	int ds, j;

	ds = skb_dsfield(skb);
	entry = st.cfg.dscp_map[(ds < 0 ? 0 : ds >> 2) & 63];
	fidx = ds < 0 ? 0 : ((__u64)bpf_skb_get_hash(skb) * st.cfg.flows) >> 32;
	now = codel_now();
	/* auto: an IP packet (unmarked: of DSCP 0) takes its slot's level */
	is_auto = st.cfg.auto_mode != TC_MSFC_AUTO_OFF && ds >= 0 &&
		  (st.cfg.auto_mode == TC_MSFC_AUTO_ALL || !(ds >> 2));
	if (is_auto) {
		c = auto_class(fidx, now);
	} else if (entry & TC_MSFC_DSCP_LE) {
		/* the least-effort lane: the class record after the classes */
		c = st.cfg.prios & CLS_MASK;
	} else {
		c = entry & TC_MSFC_DSCP_CLASS_MASK;
		nqb = entry & TC_MSFC_DSCP_NQB;
	}
	idx = c * st.cfg.flows + fidx;
	f = flow_at(idx);
	cs = class_stats(c);
	qs = stats_at(MSFC_BPF_STATS_QDISC);
	if (!f || !cs || !qs)
		goto drop;
	i = store_alloc();
	if (i == NIL) {
		cs->store_drops++;
		qs->store_drops++;
		goto drop;
	}
	p = pkt_at(i);
	if (!p)
		goto drop;
	if (st.cfg.bandwidth && !sch->q.qlen)
		shaper_wake();
	/* isolate: host slots are hashed when the flow becomes active */
	if (st.cfg.isolate != TC_MSFC_ISOLATE_FLOW && !f->active)
		host_slots(skb, &hsrc, &hdst);
	p->len = len;
	p->link = st.cfg.bandwidth ? skb_link_len(skb, len) : len;
	p->truesize = truesize;
	p->enq = now;
	p->is_auto = is_auto;
	p->next = NIL;
	skb = bpf_kptr_xchg(&p->skb, skb);
	if (skb)	/* the entry was free: never holds a packet */
		bpf_qdisc_skb_drop(skb, to_free);

	if (f->tail == NIL) {
		f->head = i;
	} else {
		p = pkt_at(f->tail);
		if (p)
			p->next = i;
	}
	f->tail = i;
	f->backlog += len;
	f->qlen++;
	cl = cls_at(c);
	cl->qlen++;
	cl->backlog += len;
	cs->enq_packets++;
	cs->enq_bytes += len;
	qs->enq_packets++;
	qs->enq_bytes += len;
	if (!f->active) {
		f->active = 1;
		f->next = NIL;
		if (nqb) {
			/* an NQB packet: its flow is served ahead of the class's
			 * other flows while it stays shallow
			 */
			f->nqb = 1;
			cl->nqb_flows++;
			nqb_append(cl, idx, f);
		} else if (st.cfg.boost) {
			/* boost on: served first, for one quantum */
			chain_append(&cl->nhead, &cl->ntail, idx, f);
		} else {
			chain_append(&cl->head, &cl->tail, idx, f);
		}
		if (st.cfg.isolate != TC_MSFC_ISOLATE_FLOW) {
			struct msfc_host *h;

			f->src = hsrc;
			f->dst = hdst;
			/* a host that had no active flow in the class starts
			 * with a fresh quantum
			 */
			h = host_at(c, 0, f->src);
			if (h && ++h->load == 1)
				h->deficit = (__s64)st.cfg.quantum << ISOLATE_SHIFT;
			h = host_at(c, 1, f->dst);
			if (h && ++h->load == 1)
				h->deficit = (__s64)st.cfg.quantum << ISOLATE_SHIFT;
		}
		cl->active_flows++;
		st.active_flows++;
		/* boost across: a flow that left from the new flows (or the
		 * NQB flows) comes back with the deficit it left with
		 */
		if (!f->sparse) {
			f->deficit = flow_quantum(f, c);
			f->stamp = cl->refills;
		}
		f->sparse = 0;
	}
	/* queue protection: an NQB flow holding more than a quantum of bytes
	 * (this packet included) goes behind the old flows, until it is
	 * found empty
	 */
	if (f->nqb && f->backlog > st.cfg.quantum) {
		nqb_remove(cl, f);
		f->nqb = 0;
		cl->nqb_flows--;
		chain_append(&cl->head, &cl->tail, idx, f);
		cs->nqb_demotions++;
		qs->nqb_demotions++;
	}
	/* the lane is not in the outer DRR */
	if (!cl->active && c < st.cfg.prios) {
		cl->active = 1;
		cl->next = NIL;
		if (st.ctail == NIL)
			st.chead = c;
		else
			cls_at(st.ctail)->next = c;
		st.ctail = c;
		/* order priority: a class back in the round it took part in
		 * keeps what it had left
		 */
		if (!st.cfg.order) {
			cl->deficit = class_quantum(c);
		} else if (cl->round != st.round) {
			cl->deficit = class_quantum(c);
			cl->round = st.round;
		}
	}
	sch->q.qlen++;
	sch->qstats.backlog += len;
	st.memory_usage += truesize;
	update_gauges(sch, c);

	over = st.memory_usage > st.cfg.memory_limit;
	if (sch->q.qlen <= st.cfg.limit && !over)
		return NET_XMIT_SUCCESS;
	/* one round of drops; memory_limit is a hard bound: drop on until
	 * the packets fit
	 */
	bpf_for(j, 0, MAX_OVERLOAD_ROUNDS) {
		if (j > 0 && st.memory_usage <= st.cfg.memory_limit)
			break;
		if (!overload_drop(sch, to_free, over || j > 0))
			break;
	}
	/* the new packet is at its flow's tail and drops take heads: it was
	 * dropped iff its flow is empty now
	 */
	f = flow_at(idx);
	if (f && f->head == NIL)
		return NET_XMIT_CN;
	return NET_XMIT_SUCCESS;

drop:
	sch->qstats.drops++;
	bpf_qdisc_skb_drop(skb, to_free);
	return NET_XMIT_DROP;
}

/* boost across: may class @cl send a new flow's packet ahead of the round?
 * While its deficit is above minus its class quantum (msfc_may_borrow()).
 */
static __always_inline bool may_borrow(__u32 c)
{
	struct msfc_class *cl = &st.cls[c & (MSFC_BPF_MAX_PRIOS - 1)];

	if (cl->deficit > 0)
		return true;
	return (__u64)(-cl->deficit) < class_quantum(c);
}

/* order priority: the most important active class (the highest index) with
 * credit left in the round, NIL when none has (msfc_dequeue_priority()).
 */
static __always_inline __u32 priority_pick(void)
{
	__u32 c = st.chead, best = NIL;
	int j;

	for (j = 0; j < MSFC_BPF_MAX_PRIOS && c != NIL; j++) {
		struct msfc_class *cl = &st.cls[c & (MSFC_BPF_MAX_PRIOS - 1)];

		if (cl->deficit > 0 && (best == NIL || c > best))
			best = c;
		c = cl->next;
	}
	return best;
}

/* order priority: every active class has spent its credit: k rounds at once,
 * k the fewest refills any of them needs (msfc_priority_new_round()).
 */
static __always_inline void priority_new_round(void)
{
	__u64 k = fewest_class_refills();
	__u32 c;
	int j;

	if (k == ~0ULL)
		return;
	c = st.chead;
	for (j = 0; j < MSFC_BPF_MAX_PRIOS && c != NIL; j++) {
		struct msfc_class *cl = &st.cls[c & (MSFC_BPF_MAX_PRIOS - 1)];

		cl->deficit += k * class_quantum(c);
		cl->round = st.round + k;
		c = cl->next;
	}
	st.round += k;
}

/* Active class @c leaves the list of active classes. */
static __always_inline void class_unlink(__u32 c)
{
	__u32 prev = NIL, x = st.chead, next;
	int j;

	c &= MSFC_BPF_MAX_PRIOS - 1;
	for (j = 0; j < MSFC_BPF_MAX_PRIOS && x != NIL; j++) {
		if (x == c) {
			next = st.cls[c].next;
			if (prev == NIL)
				st.chead = next;
			else
				st.cls[prev & (MSFC_BPF_MAX_PRIOS - 1)].next = next;
			if (st.ctail == c)
				st.ctail = prev;
			break;
		}
		prev = x;
		x = st.cls[x & (MSFC_BPF_MAX_PRIOS - 1)].next;
	}
	st.cls[c].active = 0;
	st.cls[c].next = NIL;
}

/* Flow @fi (@f), the head of the new flows (@fromnew) or of the old flows of
 * @cl, goes to the tail of the old flows.  0, or -1 if a map lookup failed.
 */
static __always_inline int flow_requeue(struct msfc_class *cl, __u32 fi, struct msfc_flowq *f,
					bool fromnew)
{
	struct msfc_flowq *t;

	if (fromnew) {
		cl->nhead = f->next;
		if (cl->nhead == NIL)
			cl->ntail = NIL;
	} else {
		cl->head = f->next;
		if (cl->head == NIL)
			cl->tail = NIL;
	}
	f->next = NIL;
	if (cl->tail == NIL) {
		cl->head = fi;
	} else {
		t = flow_at(cl->tail);
		if (!t)
			return -1;
		t->next = fi;
	}
	cl->tail = fi;
	return 0;
}

SEC("struct_ops/msfc_dequeue")
struct sk_buff *BPF_PROG(msfc_dequeue, struct Qdisc *sch)
{
	__u32 c = NIL, fi, sel = NIL, i = NIL, len, link;
	struct msfc_bpf_stats *cs, *qs;
	struct msfc_class *cl;
	struct msfc_flowq *f;
	struct msfc_pkt *p;
	struct sk_buff *skb;
	__u64 now = 0;
	struct msfc_host *host;
	bool fromnew, across, qn, lane;
	__u32 enq, is_auto;
	__u64 fq;
	int n;

	if (st.cfg.bandwidth) {
		if (!sch->q.qlen)
			return NULL;
		now = bpf_ktime_get_ns();
		if (now < st.next_send) {
			qs = stats_at(MSFC_BPF_STATS_QDISC);
			if (qs)
				qs->throttled++;
			bpf_qdisc_watchdog_schedule(sch, st.next_send, 0);
			return NULL;
		}
	}
	st.crefills = 0;
	st.frefills = 0;
	/* boost across: before the round, the most important class with new
	 * flows that may still borrow sends a new flow's packet
	 */
	st.ax_c = st.cfg.boost == TC_MSFC_BOOST_ACROSS ? st.cfg.prios - 1 : NIL;
	st.ax_ok = 0;
	bpf_for(n, 0, MAX_STEPS) {
		/* the classes have nothing to send: the least-effort lane, its
		 * inner DRR alone (no class deficit, no round)
		 */
		lane = st.chead == NIL;
		across = !lane && st.ax_c != NIL;
		if (lane) {
			c = st.cfg.prios & CLS_MASK;
		} else if (across) {
			/* a class with NQB flows counts as one with new flows;
			 * the borrowing limit is tested once, when the pass
			 * comes to the class (its class quantum with inversion
			 * prevent is that of the flows listed then), and the
			 * class is served until its NQB and new flows are gone
			 */
			c = st.ax_c & (MSFC_BPF_MAX_PRIOS - 1);
			cl = &st.cls[c];
			if ((cl->qhead == NIL && cl->nhead == NIL) ||
			    (!st.ax_ok && !may_borrow(c))) {
				st.ax_c = c ? c - 1 : NIL;
				st.ax_ok = 0;
				st.frefills = 0;
				continue;
			}
			st.ax_ok = 1;
		} else if (st.cfg.order == TC_MSFC_ORDER_PRIORITY) {
			c = priority_pick();
			if (c == NIL) {
				priority_new_round();
				continue;
			}
		} else {
			c = st.chead;
		}
		cl = cls_at(c);
		if (!lane && !across && cl->deficit <= 0) {
			/* order round: refill, to the tail */
			if (++st.crefills > st.cfg.prios) {
				skip_class_rounds();
				st.crefills = 0;
			}
			cl->deficit += class_quantum(c);
			if (cl->next != NIL) {
				st.chead = cl->next;
				st.cls[st.ctail & (MSFC_BPF_MAX_PRIOS - 1)].next = c;
				st.ctail = c;
				cl->next = NIL;
			}
			st.frefills = 0;
			continue;
		}
		/* the inner DRR: NQB flows first, then new flows (boost on),
		 * then the old
		 */
		qn = cl->qhead != NIL;
		fromnew = !qn && cl->nhead != NIL;
		fi = qn ? cl->qhead : fromnew ? cl->nhead : cl->head;
		if (fi == NIL) {
			/* the lane is empty too: nothing to send */
			if (lane)
				break;
			/* no flow left: the class leaves (order priority: it
			 * keeps its deficit and round)
			 */
			class_unlink(c);
			st.frefills = 0;
			continue;
		}
		f = flow_at(fi);
		if (!f)
			break;
		/* isolate: a flow sends only while its host has credit too */
		host = st.cfg.isolate != TC_MSFC_ISOLATE_FLOW ? flow_host(f, c) : NULL;
		if (f->deficit <= 0 || (host && host->deficit <= 0)) {
			/* refill, to the tail of the old flows (an NQB flow:
			 * of the NQB flows, or of the old); rounds of refills
			 * are skipped on the old flows, or on the NQB flows of
			 * a class that has no other flows
			 */
			if (++st.frefills > cl->active_flows &&
			    (!qn || cl->nqb_flows == cl->active_flows)) {
				skip_flow_rounds(cl, c);
				st.frefills = 0;
			}
			fq = flow_quantum(f, c);
			if (f->deficit <= 0)
				f->deficit += fq;
			if (host)
				host_add(host, fq);
			if (qn) {
				/* an NQB flow keeps its place with its next
				 * quantum once the class's other flows have
				 * had as many refills since its last one as
				 * there are of them (about a round); else it
				 * becomes an old flow
				 */
				if (cl->refills - f->stamp >= cl->active_flows - cl->nqb_flows) {
					f->stamp = cl->refills;
					if (f->next != NIL &&
					    (nqb_remove(cl, f) || nqb_append(cl, fi, f)))
						break;
					continue;
				}
				if (nqb_remove(cl, f))
					break;
				f->nqb = 0;
				cl->nqb_flows--;
				chain_append(&cl->head, &cl->tail, fi, f);
				continue;
			}
			cl->refills++;
			if ((fromnew || f->next != NIL) && flow_requeue(cl, fi, f, fromnew))
				break;
			continue;
		}
		i = codel_dequeue(sch, f, c);
		if (i == NIL && qn) {
			/* an emptied NQB flow leaves with what is left of
			 * its deficit, as boost across's new flows do
			 */
			if (nqb_remove(cl, f))
				break;
			f->nqb = 0;
			cl->nqb_flows--;
			f->sparse = 1;
			f->active = 0;
			flow_leaves(f, c);
			cl->active_flows--;
			st.active_flows--;
			update_gauges(sch, c);
			continue;
		}
		if (i == NIL) {
			/* boost across: an emptied new flow leaves, keeping
			 * its deficit; boost on: it waits behind the old
			 * flows if there are any, so that it cannot starve
			 * them by leaving and coming back new
			 */
			if (fromnew && st.cfg.boost == TC_MSFC_BOOST_ACROSS) {
				f->sparse = 1;
			} else if (fromnew && cl->head != NIL) {
				if (flow_requeue(cl, fi, f, fromnew))
					break;
				continue;
			}
			/* emptied: the flow leaves its class's round */
			if (fromnew) {
				cl->nhead = f->next;
				if (cl->nhead == NIL)
					cl->ntail = NIL;
			} else {
				cl->head = f->next;
				if (cl->head == NIL)
					cl->tail = NIL;
			}
			f->next = NIL;
			f->active = 0;
			flow_leaves(f, c);
			cl->active_flows--;
			st.active_flows--;
			update_gauges(sch, c);
			continue;
		}
		sel = fi;
		break;
	}
	if (i == NIL) {
		/* steps used up with packets queued: come back at once */
		if (sch->q.qlen)
			bpf_qdisc_watchdog_schedule(sch, bpf_ktime_get_ns(), 0);
		return NULL;
	}
	p = pkt_at(i);
	if (!p)
		return NULL;
	skb = bpf_kptr_xchg(&p->skb, NULL);
	len = p->len;
	link = p->link;
	enq = p->enq;
	is_auto = p->is_auto;
	store_free(i, p);
	if (!skb)
		return NULL;
	c &= CLS_MASK;
	cl = cls_at(c);
	f = flow_at(sel);
	if (f && is_auto && st.cfg.auto_mode != TC_MSFC_AUTO_OFF && st.cfg.flows)
		auto_dequeued(f, c, sel - c * st.cfg.flows, enq);
	if (f && st.cfg.isolate == TC_MSFC_ISOLATE_FLOW) {
		f->deficit -= len;
	} else if (f) {
		f->deficit -= (__s64)len << ISOLATE_SHIFT;
		host = flow_host(f, c);
		if (host)
			host->deficit -= (__s64)len << ISOLATE_SHIFT;
	}
	/* the lane has no class deficit */
	if (c < st.cfg.prios)
		cl->deficit -= (__s64)len << (st.cfg.weights ? EXACT_SHIFT : 0);
	cs = class_stats(c);
	qs = stats_at(MSFC_BPF_STATS_QDISC);
	if (cs) {
		cs->deq_packets++;
		cs->deq_bytes += len;
	}
	if (qs) {
		qs->deq_packets++;
		qs->deq_bytes += len;
	}
	update_gauges(sch, c);
	if (st.cfg.bandwidth)
		shaper_charge(link, now);
	bpf_qdisc_bstats_update(sch, skb);
	return skb;
}

/* Empties the store and the lists (reset, and init). */
static __always_inline void msfc_clear(struct Qdisc *sch, bool init)
{
	__u32 n = (st.cfg.prios + 1) * st.cfg.flows, used = st.used, now, level, clean, last;
	struct msfc_flowq *f;
	struct msfc_pkt *p;
	struct sk_buff *skb;
	int j;

	bpf_for(j, 0, used) {
		p = pkt_at(j);
		if (!p)
			continue;
		skb = bpf_kptr_xchg(&p->skb, NULL);
		if (skb)
			bpf_kfree_skb(skb);
	}
	now = codel_now();
	bpf_for(j, 0, n) {
		f = flow_at(j);
		if (!f)
			continue;
		/* auto: a reset keeps the flow slots' levels; a new qdisc
		 * starts every record at its own class, sparse since now
		 */
		level = init ? (__u32)j / (st.cfg.flows ? st.cfg.flows : 1) : f->level;
		clean = init ? now : f->clean;
		last = init ? now : f->last;
		__builtin_memset(f, 0, sizeof(*f));
		f->head = NIL;
		f->tail = NIL;
		f->next = NIL;
		f->prev = NIL;
		f->level = level;
		f->clean = clean;
		f->last = last;
	}
	if (st.cfg.isolate != TC_MSFC_ISOLATE_FLOW) {
		bpf_for(j, 0, 2 * n) {
			struct msfc_host *h = bpf_map_lookup_elem(&msfc_hosts, &j);

			if (h) {
				h->deficit = 0;
				h->load = 0;
			}
		}
	}
	st.chead = NIL;
	st.ctail = NIL;
	st.free_head = NIL;
	st.used = 0;
	st.memory_usage = 0;
	st.active_flows = 0;
	st.next_send = 0;
	st.next_frac = 0;
	st.round = 1;
	sch->q.qlen = 0;
	sch->qstats.backlog = 0;
	/* the classes and the lane (index prios: no quantum) */
	for (j = 0; j <= MSFC_BPF_MAX_PRIOS; j++) {
		struct msfc_class *cl = cls_at(j);

		__builtin_memset(cl, 0, sizeof(*cl));
		cl->quantum = j < st.cfg.prios ? st.cfg.quanta[j & (MSFC_BPF_MAX_PRIOS - 1)] : 0;
		cl->head = NIL;
		cl->tail = NIL;
		cl->nhead = NIL;
		cl->ntail = NIL;
		cl->qhead = NIL;
		cl->qtail = NIL;
		cl->next = NIL;
		if (j <= st.cfg.prios)
			update_gauges(sch, j);
	}
}

SEC("struct_ops/msfc_init")
int BPF_PROG(msfc_init, struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
	struct msfc_bpf_cfg *cfg;
	struct msfc_bpf_stats *s;
	__u32 zero = 0;
	int j;

	if (st.owned)
		return -EBUSY;
	cfg = bpf_map_lookup_elem(&msfc_cfg, &zero);
	if (!cfg || cfg->magic != MSFC_BPF_CFG_MAGIC || cfg->prios < 1 ||
	    cfg->prios > MSFC_BPF_MAX_PRIOS || cfg->flows < 1 || cfg->quantum < 1)
		return -EINVAL;
	__builtin_memcpy(&st.cfg, cfg, sizeof(st.cfg));
	for (j = 0; j < MSFC_BPF_MAX_PRIOS; j++)
		if (j < st.cfg.prios && !st.cfg.quanta[j])
			return -EINVAL;
	for (j = 0; j < MSFC_BPF_STATS_ENTRIES; j++) {
		s = stats_at(j);
		if (s)
			__builtin_memset(s, 0, sizeof(*s));
	}
	st.used = 0;
	st.perturbation = bpf_get_prandom_u32();
	msfc_clear(sch, true);
	sch->limit = st.cfg.limit;
	st.owner_handle = sch->handle;
	st.owner_ifindex = sch->dev_queue->dev->ifindex;
	st.owned = 1;
	return 0;
}

SEC("struct_ops/msfc_reset")
void BPF_PROG(msfc_reset, struct Qdisc *sch)
{
	if (owns(sch))
		msfc_clear(sch, false);
}

SEC("struct_ops/msfc_destroy")
void BPF_PROG(msfc_destroy, struct Qdisc *sch)
{
	if (owns(sch)) {
		msfc_clear(sch, false);
		st.owned = 0;
	}
}

SEC(".struct_ops.link")
struct Qdisc_ops msfc = {
	.enqueue = (void *)msfc_enqueue,
	.dequeue = (void *)msfc_dequeue,
	.init = (void *)msfc_init,
	.reset = (void *)msfc_reset,
	.destroy = (void *)msfc_destroy,
	.id = MSFC_BPF_NAME,
};
