// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for sch_msfc.  Included by sch_msfc.c (the qdisc ops and
 * helpers are static), built with CONFIG_NET_SCH_MSFC_KUNIT_TEST.
 */

#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/delay.h>

/* attribute list terminated by type 0; DSCP map passed separately */
struct msfc_test_attr {
	int type;
	u64 val;		/* TCA_MSFC_QUANTA, TCA_MSFC_CE_THRESHOLD: the
				 * attribute's length in bytes; TCA_MSFC_BANDWIDTH is
				 * a u64, every other a u32
				 */
	const void *data;	/* TCA_MSFC_QUANTA, TCA_MSFC_CE_THRESHOLD: its payload */
};

/* the class of the least-effort lane in the tables (a trace's "l") */
#define MSFC_TEST_LANE	0xff

struct msfc_vec_op {
	char op;	/* trace: 'E' enqueue, 'Q' enqueue an NQB packet (the
			 * trace's "E <c>n"), 'A' enqueue an auto packet (the
			 * trace's "E a": the qdisc decides its class), 'D'
			 * dequeue, 'T' advance the clock, 'C' change (len: its
			 * number in msfc_vector.changes);
			 * decisions: 'P' packet dequeued, 'N' none, 'C' CoDel drop,
			 * 'O' overload drop, 'K' change applied, 'B' change refused
			 * as busy, 'I' change refused as invalid
			 */
	u8 cls;		/* MSFC_TEST_LANE: the least-effort lane */
	u8 ect;		/* E: the trace's ECN field (0 Not-ECT, 1 ECT(0), 2
			 * ECT(1), 3 CE); P: 1 dequeued CE-marked, 2 CE-marked
			 * by ce_threshold
			 */
	u16 flow;
	u32 len;	/* T: nanoseconds */
	u16 src;	/* E: host slots (isolate) */
	u16 dst;
};

struct msfc_vector {
	const char *name;
	u32 prios, flows, quantum, ratio, limit, drop_batch;
	u32 target_us, interval_us, ecn;
	u32 overload, weights, inversion, isolate, boost, order, auto_mode;
	const struct msfc_vec_op *ops;
	u32 nops;
	const struct msfc_vec_op *exp;
	u32 nexp;
	const struct msfc_test_attr *const *changes;	/* of the 'C' operations */
	const u32 *quanta;	/* explicit class quanta, or NULL: from ratio */
	u32 nquanta;
	const u32 *ce_threshold;	/* us per entry, or NULL: none */
	u32 nce_threshold;
	u32 ce_selector, ce_mask;
};

#include "sch_msfc_vectors.h"

#define MSFC_TEST_HANDLE	0x00010000U

struct msfc_test_ctx {
	struct net_device *dev;
	struct Qdisc *sch;
};

static int msfc_test_change(struct Qdisc *sch, const struct msfc_test_attr *attrs,
			    const u8 *map, int maplen,
			    struct netlink_ext_ack *extack)
{
	struct sk_buff *nskb = alloc_skb(1024, GFP_KERNEL);
	struct nlattr *nest;
	int err;

	if (!nskb)
		return -ENOMEM;
	nest = nla_nest_start(nskb, TCA_OPTIONS);
	for (; attrs && attrs->type; attrs++) {
		if (attrs->type == TCA_MSFC_QUANTA || attrs->type == TCA_MSFC_CE_THRESHOLD)
			nla_put(nskb, attrs->type, attrs->val, attrs->data);
		else if (attrs->type == TCA_MSFC_BANDWIDTH)
			nla_put_u64_64bit(nskb, attrs->type, attrs->val, TCA_MSFC_PAD);
		else
			nla_put_u32(nskb, attrs->type, attrs->val);
	}
	if (map)
		nla_put(nskb, TCA_MSFC_DSCP_MAP, maplen, map);
	nla_nest_end(nskb, nest);
	rtnl_lock();
	err = msfc_change(sch, nest, extack);
	rtnl_unlock();
	kfree_skb(nskb);
	return err;
}

static struct Qdisc *msfc_test_create(struct kunit *test,
				      const struct msfc_test_attr *attrs)
{
	struct msfc_test_ctx *ctx = test->priv;
	struct netlink_ext_ack extack = {};
	struct Qdisc *sch;

	rtnl_lock();
	sch = qdisc_create_dflt(netdev_get_tx_queue(ctx->dev, 0),
				&msfc_qdisc_ops, TC_H_ROOT, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_NOT_NULL(test, sch);
	sch->handle = MSFC_TEST_HANDLE;
	ctx->sch = sch;
	/* the root lock taken by change/dump is that of the queue's qdisc */
	rcu_assign_pointer(netdev_get_tx_queue(ctx->dev, 0)->qdisc_sleeping, sch);
	if (attrs)
		KUNIT_ASSERT_EQ_MSG(test, msfc_test_change(sch, attrs, NULL, 0, &extack),
				    0, "config rejected: %s", extack._msg ?: "");
	return sch;
}

static const struct net_device_ops msfc_test_netdev_ops = {};

static void msfc_test_release(struct kunit *test)
{
	struct msfc_test_ctx *ctx = test->priv;

	if (!ctx->sch)
		return;
	rcu_assign_pointer(netdev_get_tx_queue(ctx->dev, 0)->qdisc_sleeping, &noop_qdisc);
	rtnl_lock();
	qdisc_put(ctx->sch);
	rtnl_unlock();
	ctx->sch = NULL;
}

static int msfc_test_init(struct kunit *test)
{
	struct msfc_test_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->dev = alloc_netdev(0, "msfct%d", NET_NAME_UNKNOWN, ether_setup);
	KUNIT_ASSERT_NOT_NULL(test, ctx->dev);
	/* not registered: no ops yet (tcf_block_get() looks at them), and a root
	 * qdisc on the queue whose lock init can take
	 */
	ctx->dev->netdev_ops = &msfc_test_netdev_ops;
	rcu_assign_pointer(netdev_get_tx_queue(ctx->dev, 0)->qdisc_sleeping, &noop_qdisc);
	test->priv = ctx;
	return 0;
}

static void msfc_test_exit(struct kunit *test)
{
	struct msfc_test_ctx *ctx = test->priv;

	WRITE_ONCE(msfc_test_clock, false);

	msfc_test_release(test);
	free_netdev(ctx->dev);
}

/* A non-IP packet of @len bytes (as the qdisc sees it). */
static struct sk_buff *msfc_test_skb(u32 len, u32 mark)
{
	struct sk_buff *skb = alloc_skb(64, GFP_KERNEL);

	if (!skb)
		return NULL;
	skb_put_zero(skb, 14);
	skb_reset_network_header(skb);
	skb->protocol = htons(ETH_P_ARP);
	skb->mark = mark;
	qdisc_skb_cb(skb)->pkt_len = len;
	return skb;
}

/* An IPv4/UDP packet with the given DS field and source port. */
static struct sk_buff *msfc_test_ip_skb(u32 len, u8 tos, u16 sport)
{
	struct sk_buff *skb = alloc_skb(128, GFP_KERNEL);
	struct iphdr *iph;
	__be16 *ports;

	if (!skb)
		return NULL;
	skb_reset_network_header(skb);
	iph = skb_put_zero(skb, sizeof(*iph) + 8);
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = tos;
	iph->ttl = 64;
	iph->tot_len = htons(sizeof(*iph) + 8);
	iph->protocol = IPPROTO_UDP;
	iph->saddr = htonl(0x0a000001);
	iph->daddr = htonl(0x0a000002);
	skb_set_transport_header(skb, sizeof(*iph));
	ports = (__be16 *)(iph + 1);
	ports[0] = htons(sport);
	ports[1] = htons(5001);
	skb->protocol = htons(ETH_P_IP);
	qdisc_skb_cb(skb)->pkt_len = len;
	return skb;
}

static int msfc_test_enqueue(struct Qdisc *sch, struct sk_buff *skb)
{
	struct sk_buff *to_free = NULL;
	int ret;

	rcu_read_lock_bh();
	ret = msfc_enqueue(skb, sch, &to_free);
	rcu_read_unlock_bh();
	kfree_skb_list(to_free);
	return ret;
}

static int msfc_test_enqueue_flow(struct Qdisc *sch, u32 cls, u32 flow, u32 len)
{
	struct sk_buff *to_free = NULL;
	struct sk_buff *skb = msfc_test_skb(len, cls << 16 | flow);
	int ret;

	if (!skb)
		return -ENOMEM;
	ret = msfc_enqueue_flow(skb, sch, cls, flow, NULL, false, false, &to_free);
	kfree_skb_list(to_free);
	return ret;
}

/* Enqueues a non-IP packet of @len bytes of flow @flow in class 0 with the
 * given host slots.
 */
static void msfc_test_enqueue_hosts(struct kunit *test, struct Qdisc *sch, u32 flow,
				    u16 src, u16 dst, u32 len)
{
	struct sk_buff *skb = msfc_test_skb(len, flow);
	const u16 hosts[2] = { src, dst };
	struct sk_buff *to_free = NULL;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, msfc_enqueue_flow(skb, sch, 0, flow, hosts, false, false,
						&to_free),
			NET_XMIT_SUCCESS);
}

/* The packets CoDel dropped during one dequeue, in order (their destructor
 * records them).
 */
#define MSFC_TEST_MAX_DROPS	4096
static u32 msfc_test_dropped[MSFC_TEST_MAX_DROPS];	/* mark: cls << 16 | flow */
static u32 msfc_test_dropped_len[MSFC_TEST_MAX_DROPS];
static u32 msfc_test_ndropped;

static void msfc_test_record_drop(struct sk_buff *skb)
{
	if (msfc_test_ndropped < MSFC_TEST_MAX_DROPS) {
		msfc_test_dropped[msfc_test_ndropped] = skb->mark;
		msfc_test_dropped_len[msfc_test_ndropped] = qdisc_pkt_len(skb);
	}
	msfc_test_ndropped++;
}

/* The next expected decision must be @kind for class/flow of @mark, @len. */
static void msfc_test_expect(struct kunit *test, const struct msfc_vector *vec,
			     u32 *d, char kind, u32 mark, u32 len)
{
	const struct msfc_vec_op *exp;

	KUNIT_ASSERT_LT_MSG(test, *d, vec->nexp, "%s: more decisions than expected (%c %u %u %u)",
			    vec->name, kind, mark >> 16, mark & 0xffff, len);
	exp = &vec->exp[(*d)++];
	KUNIT_ASSERT_TRUE_MSG(test, exp->op == kind && mark == ((u32)exp->cls << 16 | exp->flow) &&
			      len == exp->len,
			      "%s: decision %u: expected %c %u %u %u, got %c %u %u %u", vec->name,
			      *d, exp->op, exp->cls, exp->flow, exp->len, kind, mark >> 16,
			      mark & 0xffff, len);
}

/* the trace's ECN field -> the packet's ECN bits */
static const u8 msfc_test_trace_ecn[4] = {
	INET_ECN_NOT_ECT, INET_ECN_ECT_0, INET_ECN_ECT_1, INET_ECN_CE,
};

static struct sk_buff *msfc_test_vec_skb(const struct msfc_vec_op *op)
{
	struct sk_buff *skb = msfc_test_ip_skb(op->len, msfc_test_trace_ecn[op->ect & 3], 0);

	if (!skb)
		return NULL;
	skb->mark = (u32)op->cls << 16 | op->flow;
	skb->destructor = msfc_test_record_drop;
	return skb;
}

/* Each trace of test/vectors and of the generated differential set replays
 * to exactly the decisions of the reference model: every dequeued packet
 * (and its CE mark), every CoDel drop and every overload drop, in order.
 */
static void msfc_test_vectors(struct kunit *test)
{
	u64 nops = 0, ndec = 0, deq = 0, marks = 0, thr = 0, cdrops = 0, odrops = 0;
	u64 changes = 0;
	int v;

	for (v = 0; v < ARRAY_SIZE(msfc_vectors); v++) {
		const struct msfc_vector *vec = &msfc_vectors[v];
		const struct msfc_test_attr attrs[] = {
			{ TCA_MSFC_PRIOS, vec->prios },
			{ TCA_MSFC_FLOWS, vec->flows },
			{ TCA_MSFC_QUANTUM, vec->quantum },
			{ TCA_MSFC_RATIO, vec->ratio },
			{ TCA_MSFC_LIMIT, vec->limit },
			{ TCA_MSFC_DROP_BATCH, vec->drop_batch },
			{ TCA_MSFC_OVERLOAD, vec->overload },
			{ TCA_MSFC_WEIGHTS, vec->weights },
			{ TCA_MSFC_INVERSION, vec->inversion },
			{ TCA_MSFC_ISOLATE, vec->isolate },
			{ TCA_MSFC_BOOST, vec->boost },
			{ TCA_MSFC_ORDER, vec->order },
			{ TCA_MSFC_AUTO, vec->auto_mode },
			{ TCA_MSFC_MEMORY_LIMIT, 1U << 31 },
			{ TCA_MSFC_TARGET, vec->target_us },
			{ TCA_MSFC_INTERVAL, vec->interval_us },
			{ TCA_MSFC_ECN, vec->ecn },
			{ TCA_MSFC_QUANTA, vec->nquanta * sizeof(u32), vec->quanta },
			{ TCA_MSFC_CE_THRESHOLD, vec->nce_threshold * sizeof(u32),
			  vec->ce_threshold },
			{ TCA_MSFC_CE_THRESHOLD_SELECTOR, vec->ce_selector },
			{ TCA_MSFC_CE_THRESHOLD_MASK, vec->ce_mask },
			{ 0 }
		};
		struct msfc_sched_data *q;
		struct Qdisc *sch;
		u32 i, k, d = 0;
		u64 marked;

		/* the trace's clock from 0, also for the flow slots' clean
		 * times that the qdisc's tables start with (auto)
		 */
		WRITE_ONCE(msfc_test_now_ns, 0);
		WRITE_ONCE(msfc_test_clock, true);
		sch = msfc_test_create(test, attrs);
		q = qdisc_priv(sch);
		for (i = 0; i < vec->nops; i++) {
			const struct msfc_vec_op *op = &vec->ops[i];
			struct sk_buff *skb, *to_free = NULL, *rev = NULL;
			const u16 hosts[2] = { op->src, op->dst };

			if (op->op == 'T') {
				WRITE_ONCE(msfc_test_now_ns, msfc_test_now_ns + op->len);
				continue;
			}
			if (op->op == 'C') {
				struct netlink_ext_ack extack = {};
				u32 first;
				int err;

				/* the drops of a lower limit are freed in reverse
				 * order of dropping: reverse what they recorded
				 */
				msfc_test_ndropped = 0;
				err = msfc_test_change(sch, vec->changes[op->len], NULL, 0,
						       &extack);
				/* refused as invalid: a policy range (ERANGE) or a
				 * rule between parameters (EINVAL), with a message
				 */
				KUNIT_ASSERT_TRUE_MSG(test, !err || extack._msg,
						      "%s: change %u: %d without a message",
						      vec->name, op->len, err);
				msfc_test_expect(test, vec, &d,
						 !err ? 'K' : err == -EBUSY ? 'B' : 'I', 0, 0);
				KUNIT_ASSERT_LE(test, msfc_test_ndropped, MSFC_TEST_MAX_DROPS);
				for (k = msfc_test_ndropped; k > 0; k--) {
					first = k - 1;
					msfc_test_expect(test, vec, &d, 'O',
							 msfc_test_dropped[first],
							 msfc_test_dropped_len[first]);
				}
				odrops += msfc_test_ndropped;
				changes++;
				continue;
			}
			if (op->op == 'E' || op->op == 'Q' || op->op == 'A') {
				bool is_auto = false;
				u32 cls = op->cls;

				KUNIT_ASSERT_TRUE_MSG(test, (op->cls < q->prios ||
							     (op->cls == MSFC_TEST_LANE &&
							      op->op == 'E')) &&
						      max3(op->flow, op->src, op->dst) <
						      q->flows_cnt,
						      "%s: operation %u out of range",
						      vec->name, i);
				/* an auto packet: the class msfc_enqueue() gives
				 * one (with auto off: the home class, no bit)
				 */
				skb = msfc_test_vec_skb(op);
				KUNIT_ASSERT_NOT_NULL(test, skb);
				if (op->op == 'A') {
					is_auto = q->auto_mode != TC_MSFC_AUTO_OFF;
					cls = is_auto ? msfc_auto_class(q, skb, op->flow) :
					      msfc_home(q);
				}
				skb->mark = cls << 16 | op->flow;
				/* the lane: table index prios, marked as the trace
				 * names it
				 */
				if (cls == MSFC_TEST_LANE)
					cls = q->prios;
				msfc_enqueue_flow(skb, sch, cls, op->flow, hosts, is_auto,
						  op->op == 'Q', &to_free);
				/* __qdisc_drop() pushes on the front: reverse to drop order */
				while (to_free) {
					skb = to_free;
					to_free = skb->next;
					skb->next = rev;
					rev = skb;
				}
				while (rev) {
					skb = rev;
					rev = skb->next;
					skb->next = NULL;
					skb->destructor = NULL;
					msfc_test_expect(test, vec, &d, 'O', skb->mark,
							 qdisc_pkt_len(skb));
					odrops++;
					kfree_skb(skb);
				}
				continue;
			}
			msfc_test_ndropped = 0;
			marked = q->ce_threshold_marks;
			skb = msfc_dequeue(sch);
			KUNIT_ASSERT_LE_MSG(test, msfc_test_ndropped, MSFC_TEST_MAX_DROPS,
					    "%s: too many drops in one dequeue", vec->name);
			for (k = 0; k < msfc_test_ndropped; k++)
				msfc_test_expect(test, vec, &d, 'C', msfc_test_dropped[k],
						 msfc_test_dropped_len[k]);
			cdrops += msfc_test_ndropped;
			if (!skb) {
				msfc_test_expect(test, vec, &d, 'N', 0, 0);
				continue;
			}
			skb->destructor = NULL;
			msfc_test_expect(test, vec, &d, 'P', skb->mark, qdisc_pkt_len(skb));
			KUNIT_ASSERT_EQ_MSG(test, INET_ECN_is_ce(ipv4_get_dsfield(ip_hdr(skb))),
					    !!vec->exp[d - 1].ect, "%s: decision %u: CE mark",
					    vec->name, d);
			/* and who set it: ce_threshold's counter moves iff it did */
			KUNIT_ASSERT_EQ_MSG(test, q->ce_threshold_marks - marked,
					    (u64)(vec->exp[d - 1].ect == 2),
					    "%s: decision %u: mark of ce_threshold", vec->name, d);
			marks += !!vec->exp[d - 1].ect;
			thr += vec->exp[d - 1].ect == 2;
			deq++;
			kfree_skb(skb);
		}
		WRITE_ONCE(msfc_test_clock, false);
		KUNIT_EXPECT_EQ_MSG(test, d, vec->nexp, "%s: decision count", vec->name);
		nops += vec->nops;
		ndec += d;
		msfc_test_release(test);
	}
	kunit_info(test,
		   "%zu traces, %llu operations, %llu decisions identical to the reference: %llu dequeued (%llu CE-marked, %llu of them by ce_threshold), %llu CoDel drops, %llu overload drops, %llu changes\n",
		   ARRAY_SIZE(msfc_vectors), nops, ndec, deq, marks, thr, cdrops, odrops, changes);
}

/* Backlogged classes share bytes as 1 : ratio : ratio^2 (+- one quantum). */
static void msfc_test_ratio_shares(struct kunit *test)
{
	static const u32 ratios[] = { 2 << 16, 3 << 16, 3 << 15 /* 1.5 */ };
	int r;

	for (r = 0; r < ARRAY_SIZE(ratios); r++) {
		const struct msfc_test_attr attrs[] = {
			{ TCA_MSFC_PRIOS, 3 }, { TCA_MSFC_QUANTUM, 1514 },
			{ TCA_MSFC_RATIO, ratios[r] }, { 0 }
		};
		struct Qdisc *sch = msfc_test_create(test, attrs);
		struct msfc_sched_data *q = qdisc_priv(sch);
		u64 bytes[3] = {}, total = 0;
		int p, i;

		/* priority handle 1:1 .. 1:3 selects class 0 .. 2 */
		for (i = 0; i < 600; i++) {
			for (p = 0; p < 3; p++) {
				u32 len = 64 + (i * 97 + p * 31) % 1437;
				struct sk_buff *skb = msfc_test_ip_skb(len, 0, 1000 + i % 7);
				int ret;

				KUNIT_ASSERT_NOT_NULL(test, skb);
				skb->priority = MSFC_TEST_HANDLE | (p + 1);
				ret = msfc_test_enqueue(sch, skb);
				KUNIT_ASSERT_EQ(test, ret, NET_XMIT_SUCCESS);
			}
		}
		KUNIT_EXPECT_EQ(test, q->classes[0].qlen, 600);
		KUNIT_EXPECT_EQ(test, q->classes[2].qlen, 600);
		/* dequeue while all three stay backlogged */
		for (i = 0; i < 500; i++) {
			struct sk_buff *skb = msfc_dequeue(sch);

			KUNIT_ASSERT_NOT_NULL(test, skb);
			bytes[TC_H_MIN(skb->priority) - 1] += qdisc_pkt_len(skb);
			total += qdisc_pkt_len(skb);
			kfree_skb(skb);
		}
		for (p = 0; p < 3; p++) {
			u64 sum_q = q->classes[0].quantum + q->classes[1].quantum +
				    q->classes[2].quantum;
			s64 want = div64_u64(total * q->classes[p].quantum, sum_q);
			s64 err = (s64)bytes[p] - want;

			/* a partial round can favour a class by up to its quantum */
			KUNIT_EXPECT_LE_MSG(test, abs(err), q->classes[2].quantum + 1500,
					    "ratio %u/65536 class %d: %llu bytes, want %lld",
					    ratios[r], p, bytes[p], want);
		}
		KUNIT_EXPECT_EQ(test, q->classes[2].quantum,
				ratios[r] == (3 << 15) ? 3407ULL :
				1514ULL * (ratios[r] >> 16) * (ratios[r] >> 16));
		msfc_test_release(test);
	}
}

/* Flows of one class get equal bytes, whatever their packet sizes. */
static void msfc_test_flow_fairness(struct kunit *test)
{
	const struct msfc_test_attr attrs[] = {
		{ TCA_MSFC_PRIOS, 2 }, { TCA_MSFC_FLOWS, 16 }, { TCA_MSFC_QUANTUM, 1500 }, { 0 }
	};
	static const u32 sizes[4] = { 64, 576, 1500, 1000 };
	struct Qdisc *sch = msfc_test_create(test, attrs);
	u64 bytes[4] = {};
	int i, f;

	for (f = 0; f < 4; f++)
		for (i = 0; i < 3000 / (sizes[f] / 64 + 1) + 50; i++)
			KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 1, 3 + f, sizes[f]),
					NET_XMIT_SUCCESS);
	for (i = 0; i < 300; i++) {
		struct sk_buff *skb = msfc_dequeue(sch);

		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_ASSERT_EQ(test, skb->mark >> 16, 1);
		bytes[(skb->mark & 0xffff) - 3] += qdisc_pkt_len(skb);
		kfree_skb(skb);
	}
	for (f = 1; f < 4; f++)
		KUNIT_EXPECT_LE_MSG(test, abs((s64)bytes[f] - (s64)bytes[0]), 1500 + 1500,
				    "flow %d: %llu bytes vs flow 0: %llu", f, bytes[f], bytes[0]);
}

/* isolate src and dst: a host with 8 flows and a host with 1 get equal
 * bytes (isolate flow: 8 to 1); hosts are hashed from the IPv4 addresses.
 */
static void msfc_test_isolate_hosts(struct kunit *test)
{
	static const u32 modes[] = {
		TC_MSFC_ISOLATE_FLOW, TC_MSFC_ISOLATE_SRC,
		TC_MSFC_ISOLATE_DST, TC_MSFC_ISOLATE_BOTH,
	};
	const struct msfc_test_attr to_flow[] = { { TCA_MSFC_ISOLATE, 0 }, { 0 } };
	struct netlink_ext_ack extack = {};
	struct sk_buff *to_free = NULL;
	struct msfc_sched_data *q;
	struct Qdisc *sch = NULL;
	int m, i, f;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		const struct msfc_test_attr attrs[] = {
			{ TCA_MSFC_PRIOS, 1 }, { TCA_MSFC_FLOWS, 1024 }, { TCA_MSFC_QUANTUM, 1500 },
			{ TCA_MSFC_ISOLATE, modes[m] }, { 0 }
		};
		u64 bytes[2] = {};

		if (sch)
			msfc_test_release(test);
		sch = msfc_test_create(test, attrs);
		q = qdisc_priv(sch);
		/* flow f of host 0 from 10.0.0.1 to 10.0.1.1 (src) or from
		 * 10.0.1.1 to 10.0.0.1 (dst); host 1 (flow 8) with .2
		 */
		q->perturbation = 1;	/* no host slots collide */
		for (i = 0; i < 100; i++) {
			for (f = 0; f < 9; f++) {
				struct sk_buff *skb = msfc_test_ip_skb(1500, 0, 1000 + f);
				__be32 host = htonl(f < 8 ? 0x0a000001 : 0x0a000002);

				KUNIT_ASSERT_NOT_NULL(test, skb);
				if (modes[m] == TC_MSFC_ISOLATE_DST) {
					ip_hdr(skb)->saddr = htonl(0x0a000101);
					ip_hdr(skb)->daddr = host;
				} else {
					ip_hdr(skb)->saddr = host;
					ip_hdr(skb)->daddr = htonl(0x0a000101 + f);
				}
				skb->mark = f < 8 ? 0 : 1;
				/* flow queue f (the flow hash is keyed per boot);
				 * the hosts come from the addresses
				 */
				KUNIT_ASSERT_EQ(test, msfc_enqueue_flow(skb, sch, 0, f, NULL,
									false, false,
									&to_free),
						NET_XMIT_SUCCESS);
			}
		}
		KUNIT_ASSERT_EQ(test, q->classes[0].active_flows, 9);
		for (i = 0; i < 180; i++) {
			struct sk_buff *skb = msfc_dequeue(sch);

			KUNIT_ASSERT_NOT_NULL(test, skb);
			bytes[skb->mark] += qdisc_pkt_len(skb);
			kfree_skb(skb);
		}
		if (modes[m] == TC_MSFC_ISOLATE_FLOW) {
			KUNIT_EXPECT_LE(test, abs((s64)bytes[0] - 8 * (s64)bytes[1]), 9 * 1500);
		} else {
			/* equal within 5 % (flows activated one by one got
			 * larger first quanta)
			 */
			KUNIT_EXPECT_LE_MSG(test, 20 * abs((s64)bytes[0] - (s64)bytes[1]),
					    bytes[0] + bytes[1],
					    "isolate %u: host of 8 flows %llu bytes, of 1 flow %llu",
					    modes[m], bytes[0], bytes[1]);
		}
	}
	/* the mode changes only on an idle qdisc */
	KUNIT_EXPECT_EQ(test, msfc_test_change(sch, to_flow, NULL, 0, &extack), -EBUSY);
	KUNIT_EXPECT_STREQ(test, extack._msg, TC_MSFC_ISOLATE_BUSY_MSG);
	while (sch->q.qlen) {
		struct sk_buff *skb = msfc_dequeue(sch);

		KUNIT_ASSERT_NOT_NULL(test, skb);
		kfree_skb(skb);
	}
	KUNIT_EXPECT_EQ(test, msfc_test_change(sch, to_flow, NULL, 0, &extack), 0);
	q = qdisc_priv(sch);
	for (i = 0; i < 2 * 1024; i++)
		KUNIT_EXPECT_EQ(test, q->host_loads[i], 0);
}

/* Default DSCP map with 3 classes, a custom map, non-IP, clamping. */
static void msfc_test_dscp_classes(struct kunit *test)
{
	static const struct { u8 dscp; u8 cls; } cases[] = {
		{ 0, 1 }, { 8, 0 }, { 8, 0 }, { 10, 1 }, { 14, 1 }, { 16, 2 },
		{ 18, 2 }, { 26, 2 }, { 46, 2 }, { 56, 2 },
	};
	const struct msfc_test_attr attrs[] = { { TCA_MSFC_PRIOS, 3 }, { 0 } };
	struct Qdisc *sch = msfc_test_create(test, attrs);
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct netlink_ext_ack extack = {};
	u8 map[64];
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u32 before = q->classes[cases[i].cls].qlen;

		u8 tos = cases[i].dscp << 2 | INET_ECN_ECT_0;

		KUNIT_ASSERT_EQ(test, msfc_test_enqueue(sch, msfc_test_ip_skb(100, tos, 7)),
				NET_XMIT_SUCCESS);
		KUNIT_EXPECT_EQ_MSG(test, q->classes[cases[i].cls].qlen, before + 1,
				    "DSCP %u should go to class %u", cases[i].dscp, cases[i].cls);
	}
	/* non-IP goes with DSCP 0 (class 1) */
	KUNIT_ASSERT_EQ(test, msfc_test_enqueue(sch, msfc_test_skb(60, 0)), NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, q->classes[1].qlen, 4);
	/* priority minor above prios is clamped to the top class */
	{
		struct sk_buff *skb = msfc_test_ip_skb(100, 0, 9);

		skb->priority = MSFC_TEST_HANDLE | 9;
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue(sch, skb), NET_XMIT_SUCCESS);
		KUNIT_EXPECT_EQ(test, q->classes[2].qlen, 6);
	}
	/* custom map: everything to class 0 except EF to 15 (clamped to 2) */
	memset(map, 0, sizeof(map));
	map[46] = 15;
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, NULL, map, 64, &extack), 0);
	KUNIT_ASSERT_EQ(test, msfc_test_enqueue(sch, msfc_test_ip_skb(100, 46 << 2, 7)),
			NET_XMIT_SUCCESS);
	KUNIT_ASSERT_EQ(test, msfc_test_enqueue(sch, msfc_test_ip_skb(100, 34 << 2, 7)),
			NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, q->classes[2].qlen, 7);
	KUNIT_EXPECT_EQ(test, q->classes[0].qlen, 3);
}

/* A standing queue above target for longer than interval gets CoDel drops,
 * or CE marks with ecn; sojourn below target never does.
 */
static void msfc_test_codel(struct kunit *test)
{
	int ecn;

	for (ecn = 0; ecn <= 1; ecn++) {
		const struct msfc_test_attr attrs[] = {
			{ TCA_MSFC_PRIOS, 2 }, { TCA_MSFC_QUANTUM, 300 },
			{ TCA_MSFC_TARGET, 1000 }, { TCA_MSFC_INTERVAL, 5000 },
			{ TCA_MSFC_ECN, ecn }, { 0 }
		};
		struct Qdisc *sch = msfc_test_create(test, attrs);
		struct msfc_sched_data *q = qdisc_priv(sch);
		u32 got = 0, ce = 0;
		struct sk_buff *skb;
		int i;

		for (i = 0; i < 60; i++) {
			skb = msfc_test_ip_skb(1000, INET_ECN_ECT_0, 4242);
			KUNIT_ASSERT_EQ(test, msfc_test_enqueue(sch, skb), NET_XMIT_SUCCESS);
		}
		msleep(20);
		skb = msfc_dequeue(sch);	/* above target: starts the interval */
		KUNIT_ASSERT_NOT_NULL(test, skb);
		kfree_skb(skb);
		KUNIT_EXPECT_EQ(test, q->codel_drops, 0);
		msleep(20);
		while ((skb = msfc_dequeue(sch))) {
			got++;
			ce += INET_ECN_is_ce(ip_hdr(skb)->tos);
			kfree_skb(skb);
		}
		if (ecn) {
			KUNIT_EXPECT_EQ(test, q->codel_drops, 0);
			KUNIT_EXPECT_GT(test, ce, 0);
			KUNIT_EXPECT_EQ(test, q->classes[1].ecn_marks, ce);
			KUNIT_EXPECT_EQ(test, got, 59);
		} else {
			KUNIT_EXPECT_GT(test, q->codel_drops, 0);
			KUNIT_EXPECT_EQ(test, q->classes[1].codel_drops, q->codel_drops);
			KUNIT_EXPECT_EQ(test, got + q->codel_drops, 59);
			KUNIT_EXPECT_EQ(test, sch->qstats.drops, q->codel_drops);
		}
		KUNIT_EXPECT_EQ(test, sch->q.qlen, 0);
		KUNIT_EXPECT_EQ(test, sch->qstats.backlog, 0);
		KUNIT_EXPECT_EQ(test, q->memory_usage, 0);
		msfc_test_release(test);
	}
}

/* limit: the fattest flow loses half its backlog; memory_limit likewise. */
static void msfc_test_limits(struct kunit *test)
{
	const struct msfc_test_attr attrs[] = {
		{ TCA_MSFC_PRIOS, 3 }, { TCA_MSFC_FLOWS, 8 }, { TCA_MSFC_LIMIT, 20 }, { 0 }
	};
	struct Qdisc *sch = msfc_test_create(test, attrs);
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct netlink_ext_ack extack = {};
	struct msfc_test_attr mem[] = { { TCA_MSFC_MEMORY_LIMIT, 0 }, { 0 } };
	u32 truesize;
	int i;

	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 0, 1, 100), NET_XMIT_SUCCESS);
	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 2, 5, 500), NET_XMIT_SUCCESS);
	/* 21st packet: class 2 flow 5 (5000 bytes) loses 5 packets */
	KUNIT_EXPECT_EQ(test, msfc_test_enqueue_flow(sch, 1, 0, 100), NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 16);
	KUNIT_EXPECT_EQ(test, q->backlogs[2 * 8 + 5], 2500);
	KUNIT_EXPECT_EQ(test, q->classes[2].overload_drops, 5);
	KUNIT_EXPECT_EQ(test, sch->qstats.overlimits, 5);
	KUNIT_EXPECT_EQ(test, sch->qstats.backlog, 1000 + 2500 + 100);
	/* a packet into the fattest flow, which it empties: NET_XMIT_CN */
	rtnl_lock();
	qdisc_reset(sch);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, q->memory_usage, 0);
	for (i = 0; i < 20; i++)
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 0, i % 4, 100),
				NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, msfc_test_enqueue_flow(sch, 1, 7, 9000), NET_XMIT_CN);
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 20);
	KUNIT_EXPECT_EQ(test, q->classes[1].backlog, 0);

	/* memory_limit of 6 packets' truesize keeps at most 6 packets */
	rtnl_lock();
	qdisc_reset(sch);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 0, 0, 100), NET_XMIT_SUCCESS);
	truesize = q->memory_usage;
	KUNIT_ASSERT_GT(test, truesize, 0);
	mem[0].val = 6 * truesize;
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, mem, NULL, 0, &extack), 0);
	for (i = 0; i < 30; i++)
		msfc_test_enqueue_flow(sch, i % 3, i % 8, 100);
	KUNIT_EXPECT_LE(test, sch->q.qlen, 6);
	KUNIT_EXPECT_LE(test, q->memory_usage, 6 * truesize);
	KUNIT_EXPECT_GT(test, q->overmemory_drops, 0);
	KUNIT_EXPECT_EQ(test, q->overmemory_drops, q->overload_drops - 5 - 1);
}

/* memory_limit is a hard bound, also when the new packet's truesize is larger
 * than that of the packets the overload drop takes from the fattest flow.
 */
static void msfc_test_memory_bound(struct kunit *test)
{
	const struct msfc_test_attr attrs[] = {
		{ TCA_MSFC_PRIOS, 2 }, { TCA_MSFC_FLOWS, 8 }, { 0 }
	};
	struct Qdisc *sch = msfc_test_create(test, attrs);
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct msfc_test_attr mem[] = { { TCA_MSFC_MEMORY_LIMIT, 0 }, { 0 } };
	struct netlink_ext_ack extack = {};
	struct sk_buff *to_free = NULL, *big = NULL;
	u32 small, size, i;
	int ret;

	/* the fattest flow by bytes: 1000-byte packets of a small truesize */
	KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 0, 0, 1000), NET_XMIT_SUCCESS);
	small = q->memory_usage;
	mem[0].val = 8 * small;
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, mem, NULL, 0, &extack), 0);
	for (i = 1; i < 8; i++)
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 0, 0, 1000), NET_XMIT_SUCCESS);
	KUNIT_ASSERT_EQ(test, q->memory_usage, 8 * small);

	/* a 100-byte packet with a truesize of many small ones, in another flow:
	 * half of the fat flow's bytes (4 packets) do not make room for it
	 */
	for (size = 1024; size < 16 * small; size += 256) {
		big = alloc_skb(size, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, big);
		if (big->truesize > 4 * small && big->truesize <= 7 * small)
			break;
		kfree_skb(big);
		big = NULL;
	}
	KUNIT_ASSERT_NOT_NULL_MSG(test, big, "no skb of 4..7 times the truesize %u", small);
	skb_put_zero(big, 14);
	big->protocol = htons(ETH_P_ARP);
	big->mark = 1 << 16 | 3;
	qdisc_skb_cb(big)->pkt_len = 100;
	ret = msfc_enqueue_flow(big, sch, 1, 3, NULL, false, false, &to_free);
	kfree_skb_list(to_free);
	KUNIT_EXPECT_LE(test, q->memory_usage, 8 * small);
	/* it fits once enough of the fat flow is gone */
	KUNIT_EXPECT_EQ(test, ret, NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, q->classes[1].qlen, 1);

	/* and under a mixed flood the bound holds after every enqueue */
	for (i = 0; i < 400; i++) {
		struct sk_buff *skb = alloc_skb((i * 7919) % 5 ? 64 : size, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, skb);
		skb_put_zero(skb, 14);
		skb->protocol = htons(ETH_P_ARP);
		qdisc_skb_cb(skb)->pkt_len = 64 + (i * 37) % 1400;
		to_free = NULL;
		msfc_enqueue_flow(skb, sch, i % 2, (i * 13) % 8, NULL, false, false, &to_free);
		kfree_skb_list(to_free);
		KUNIT_ASSERT_LE_MSG(test, q->memory_usage, 8 * small,
				    "memory_usage over memory_limit after enqueue %u", i);
		if (i % 3 == 0)
			kfree_skb(msfc_dequeue(sch));
	}
	KUNIT_EXPECT_EQ(test, sch->q.qlen,
			q->classes[0].qlen + q->classes[1].qlen);
}

/* Quantum 1 and huge packets: a flow needs 2^30 DRR rounds per packet.  The
 * rounds in which nobody can send are skipped at once; stepping through them
 * one by one would keep this case busy for hours.  The order of service is
 * that of plain DRR: every flow in turn, twice.
 */
static void msfc_test_small_quantum(struct kunit *test)
{
	const struct msfc_test_attr attrs[] = {
		{ TCA_MSFC_PRIOS, 1 }, { TCA_MSFC_FLOWS, 1024 }, { TCA_MSFC_QUANTUM, 1 },
		{ TCA_MSFC_TARGET, 1000000000 }, { TCA_MSFC_INTERVAL, 2000000000 }, { 0 }
	};
	struct Qdisc *sch = msfc_test_create(test, attrs);
	struct sk_buff *skb;
	u32 i, n = 0;

	for (i = 0; i < 2 * 1024; i++)
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 0, i % 1024, 1U << 30),
				NET_XMIT_SUCCESS);
	while ((skb = msfc_dequeue(sch))) {
		KUNIT_EXPECT_EQ_MSG(test, skb->mark, n % 1024, "dequeue %u", n);
		kfree_skb(skb);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 2 * 1024);
}

/* The same with isolate src: the rounds skipped are those in which every
 * flow's deficit or its host's stays <= 0.  Host 0 has flow 0 (two 2^30-byte
 * packets) and flows 1-511 (one 64-byte packet each); flows 512-1023 are
 * hosts 1-512 (two 2^30-byte packets each).  Flow 0 spends its second
 * 2^30 / (1/512) rounds in debt while its host's deficit is back at one
 * quantum: rounds that must be skipped too.
 */
static void msfc_test_small_quantum_isolate(struct kunit *test)
{
	const struct msfc_test_attr attrs[] = {
		{ TCA_MSFC_PRIOS, 1 }, { TCA_MSFC_FLOWS, 1024 }, { TCA_MSFC_QUANTUM, 1 },
		{ TCA_MSFC_ISOLATE, TC_MSFC_ISOLATE_SRC },
		{ TCA_MSFC_TARGET, 1000000000 }, { TCA_MSFC_INTERVAL, 2000000000 }, { 0 }
	};
	struct Qdisc *sch = msfc_test_create(test, attrs);
	u32 f, n = 0, first = U32_MAX, last = U32_MAX;
	static u8 served[1024];
	struct sk_buff *skb;

	memset(served, 0, sizeof(served));
	for (f = 0; f < 1024; f++) {
		u32 packets = f == 0 || f >= 512 ? 2 : 1;
		u32 len = packets == 2 ? 1U << 30 : 64;

		while (packets--)
			msfc_test_enqueue_hosts(test, sch, f, f < 512 ? 0 : f - 511, 0, len);
	}
	while ((skb = msfc_dequeue(sch))) {
		f = skb->mark;
		kfree_skb(skb);
		KUNIT_ASSERT_LT(test, f, 1024);
		served[f]++;
		if (first == U32_MAX)
			first = f;
		last = f;
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 2 * 1024 - 511);
	for (f = 0; f < 1024; f++)
		KUNIT_EXPECT_EQ_MSG(test, served[f], f == 0 || f >= 512 ? 2 : 1, "flow %u", f);
	KUNIT_EXPECT_EQ(test, first, 0);
	KUNIT_EXPECT_EQ(test, last, 0);
}

/* diffserv4-like class quanta: bulk 1/16, best effort, video 1/2, voice 1/4 */
static const u32 msfc_test_quanta[4] = { 95, 1514, 757, 378 };
static const u32 msfc_test_quanta_zero[3] = { 1514, 0, 757 };
/* ce_threshold lists: 1 ms; 1 ms, none, 2 ms; one above 2000 s; the bounds */
static const u32 msfc_test_ce_list[3] = { 1000, TC_MSFC_CE_THRESHOLD_OFF, 2000 };
static const u32 msfc_test_ce_big[1] = { TC_MSFC_CE_THRESHOLD_MAX + 1 };
static const u32 msfc_test_ce_min[1] = { TC_MSFC_CE_THRESHOLD_MIN };
static const u32 msfc_test_ce_max[1] = { TC_MSFC_CE_THRESHOLD_MAX };
static const u32 msfc_test_quanta_big[18] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, (1 << 20) + 1, 1
};

struct msfc_bad_case {
	const char *what;
	struct msfc_test_attr attrs[4];
	int maplen;
	u8 mapval;
	const char *msg;	/* the extack message; NULL: the netlink core's own */
};

#define MSFC_MSG(name, NAME)	name " must be " TC_MSFC_##NAME##_RANGE

/* Every invalid attribute is rejected with its extack message (pkt_sched.h's words) and
 * changes nothing; the boundaries of every range are accepted.
 */
static void msfc_test_invalid(struct kunit *test)
{
	static const struct msfc_bad_case cases[] = {
		{ "prios 0", { { TCA_MSFC_PRIOS, 0 } }, 0, 0, MSFC_MSG("prios", PRIOS) },
		{ "prios 17", { { TCA_MSFC_PRIOS, 17 } }, 0, 0, MSFC_MSG("prios", PRIOS) },
		{ "flows 0", { { TCA_MSFC_FLOWS, 0 } }, 0, 0, MSFC_MSG("flows", FLOWS) },
		{ "flows 65537", { { TCA_MSFC_FLOWS, 65537 } }, 0, 0, MSFC_MSG("flows", FLOWS) },
		{ "quantum 0", { { TCA_MSFC_QUANTUM, 0 } }, 0, 0, MSFC_MSG("quantum", QUANTUM) },
		{ "quantum 2^20+1", { { TCA_MSFC_QUANTUM, (1 << 20) + 1 } }, 0, 0,
		  MSFC_MSG("quantum", QUANTUM) },
		{ "ratio 0", { { TCA_MSFC_RATIO, 0 } }, 0, 0, MSFC_MSG("ratio", RATIO) },
		{ "ratio 16+", { { TCA_MSFC_RATIO, (16 << 16) + 1 } }, 0, 0,
		  MSFC_MSG("ratio", RATIO) },
		{ "target 0", { { TCA_MSFC_TARGET, 0 } }, 0, 0, MSFC_MSG("target", TARGET) },
		{ "target 1us", { { TCA_MSFC_TARGET, 1 } }, 0, 0, MSFC_MSG("target", TARGET) },
		{ "target > 2000 s", { { TCA_MSFC_TARGET, 2000000001 } }, 0, 0,
		  MSFC_MSG("target", TARGET) },
		{ "interval 0", { { TCA_MSFC_INTERVAL, 0 } }, 0, 0,
		  MSFC_MSG("interval", INTERVAL) },
		{ "interval 1us", { { TCA_MSFC_INTERVAL, 1 } }, 0, 0,
		  MSFC_MSG("interval", INTERVAL) },
		{ "interval > 2000 s", { { TCA_MSFC_INTERVAL, 2000000001 } }, 0, 0,
		  MSFC_MSG("interval", INTERVAL) },
		{ "target >= interval",
		  { { TCA_MSFC_TARGET, 100000 }, { TCA_MSFC_INTERVAL, 100000 } }, 0, 0,
		  TC_MSFC_TARGET_INTERVAL_MSG },
		{ "target above default interval", { { TCA_MSFC_TARGET, 200000 } }, 0, 0,
		  TC_MSFC_TARGET_INTERVAL_MSG },
		{ "limit 0", { { TCA_MSFC_LIMIT, 0 } }, 0, 0, MSFC_MSG("limit", LIMIT) },
		{ "memory_limit 0", { { TCA_MSFC_MEMORY_LIMIT, 0 } }, 0, 0,
		  MSFC_MSG("memory_limit", MEMORY_LIMIT) },
		{ "memory_limit 2^31+1", { { TCA_MSFC_MEMORY_LIMIT, (1U << 31) + 1 } }, 0, 0,
		  MSFC_MSG("memory_limit", MEMORY_LIMIT) },
		{ "drop_batch 0", { { TCA_MSFC_DROP_BATCH, 0 } }, 0, 0,
		  MSFC_MSG("drop_batch", DROP_BATCH) },
		{ "drop_batch 65537", { { TCA_MSFC_DROP_BATCH, 65537 } }, 0, 0,
		  MSFC_MSG("drop_batch", DROP_BATCH) },
		{ "ecn 2", { { TCA_MSFC_ECN, 2 } }, 0, 0, MSFC_MSG("ecn", ECN) },
		{ "overload 2", { { TCA_MSFC_OVERLOAD, 2 } }, 0, 0,
		  MSFC_MSG("overload", OVERLOAD) },
		{ "weights 2", { { TCA_MSFC_WEIGHTS, 2 } }, 0, 0, MSFC_MSG("weights", WEIGHTS) },
		{ "inversion 2", { { TCA_MSFC_INVERSION, 2 } }, 0, 0,
		  MSFC_MSG("inversion", INVERSION) },
		{ "isolate 4", { { TCA_MSFC_ISOLATE, 4 } }, 0, 0, MSFC_MSG("isolate", ISOLATE) },
		{ "boost 3", { { TCA_MSFC_BOOST, 3 } }, 0, 0, MSFC_MSG("boost", BOOST) },
		{ "order 2", { { TCA_MSFC_ORDER, 2 } }, 0, 0, MSFC_MSG("order", ORDER) },
		{ "auto 3", { { TCA_MSFC_AUTO, TC_MSFC_AUTO_MAX + 1 } }, 0, 0,
		  MSFC_MSG("auto", AUTO) },
		{ "exact class quanta below 1/65536 byte",
		  { { TCA_MSFC_PRIOS, 3 }, { TCA_MSFC_RATIO, 1 }, { TCA_MSFC_WEIGHTS, 1 } }, 0, 0,
		  TC_MSFC_EXACT_WEIGHTS_MSG },
		{ "class quantum over 2^40",
		  { { TCA_MSFC_PRIOS, 16 }, { TCA_MSFC_RATIO, 16 << 16 } }, 0, 0,
		  TC_MSFC_CLASS_QUANTUM_MSG },
		{ "quanta length 6", { { TCA_MSFC_QUANTA, 6, msfc_test_quanta } }, 0, 0,
		  TC_MSFC_QUANTA_LEN_MSG },
		{ "quanta 2 entries for prios 3",
		  { { TCA_MSFC_QUANTA, 8, msfc_test_quanta } }, 0, 0, TC_MSFC_QUANTA_COUNT_MSG },
		{ "quanta 17 entries", { { TCA_MSFC_QUANTA, 68, msfc_test_quanta_big } }, 0, 0,
		  TC_MSFC_QUANTA_COUNT_MSG },
		{ "quanta for prios 4 with prios 3",
		  { { TCA_MSFC_PRIOS, 3 }, { TCA_MSFC_QUANTA, 16, msfc_test_quanta } }, 0, 0,
		  TC_MSFC_QUANTA_COUNT_MSG },
		{ "quanta entry 0", { { TCA_MSFC_QUANTA, 12, msfc_test_quanta_zero } }, 0, 0,
		  TC_MSFC_QUANTA_RANGE_MSG },
		{ "quanta entry 2^20+1",
		  { { TCA_MSFC_QUANTA, 64, msfc_test_quanta_big + 1 } }, 0, 0,
		  TC_MSFC_QUANTA_RANGE_MSG },
		{ "ce_threshold length 6", { { TCA_MSFC_CE_THRESHOLD, 6, msfc_test_ce_list } }, 0,
		  0, TC_MSFC_CE_THRESHOLD_LEN_MSG },
		{ "ce_threshold 2 entries for prios 3",
		  { { TCA_MSFC_CE_THRESHOLD, 8, msfc_test_ce_list } }, 0, 0,
		  TC_MSFC_CE_THRESHOLD_COUNT_MSG },
		{ "ce_threshold 3 entries with prios 2",
		  { { TCA_MSFC_PRIOS, 2 }, { TCA_MSFC_CE_THRESHOLD, 12, msfc_test_ce_list } },
		  0, 0, TC_MSFC_CE_THRESHOLD_COUNT_MSG },
		{ "ce_threshold 17 entries",
		  { { TCA_MSFC_CE_THRESHOLD, 68, msfc_test_quanta_big } }, 0, 0,
		  TC_MSFC_CE_THRESHOLD_COUNT_MSG },
		{ "ce_threshold above 2000 s",
		  { { TCA_MSFC_CE_THRESHOLD, 4, msfc_test_ce_big } }, 0, 0,
		  TC_MSFC_CE_THRESHOLD_RANGE_MSG },
		{ "ce_threshold_selector 256", { { TCA_MSFC_CE_THRESHOLD_SELECTOR, 256 } }, 0, 0,
		  MSFC_MSG("ce_threshold_selector", CE_THRESHOLD_SELECTOR) },
		{ "ce_threshold_mask 256", { { TCA_MSFC_CE_THRESHOLD_MASK, 256 } }, 0, 0,
		  MSFC_MSG("ce_threshold_mask", CE_THRESHOLD_MASK) },
		{ "ce_threshold_selector outside its mask",
		  { { TCA_MSFC_CE_THRESHOLD_SELECTOR, 2 }, { TCA_MSFC_CE_THRESHOLD_MASK, 1 } },
		  0, 0, TC_MSFC_CE_SELECTOR_MSG },
		{ "ce_threshold_mask 0 under the default selector",
		  { { TCA_MSFC_CE_THRESHOLD_MASK, 0 } }, 0, 0, TC_MSFC_CE_SELECTOR_MSG },
		{ "dscp map short", { { 0 } }, 63, 0 },
		{ "dscp map long", { { 0 } }, 65, 0 },
		{ "dscp map entry 16", { { 0 } }, 64, 16, TC_MSFC_DSCP_MAP_MSG },
		{ "dscp map entry le with nqb", { { 0 } }, 64,
		  TC_MSFC_DSCP_LE | TC_MSFC_DSCP_NQB, TC_MSFC_DSCP_MAP_MSG },
		{ "dscp map entry 200", { { 0 } }, 64, 200, TC_MSFC_DSCP_MAP_MSG },
		{ "dscp map entry le with a class", { { 0 } }, 64, TC_MSFC_DSCP_LE | 1,
		  TC_MSFC_DSCP_MAP_MSG },
		{ "dscp map entry nqb with class 16", { { 0 } }, 64, TC_MSFC_DSCP_NQB | 16,
		  TC_MSFC_DSCP_MAP_MSG },
		{ "bandwidth over 1 Tbit/s",
		  { { TCA_MSFC_BANDWIDTH, TC_MSFC_BANDWIDTH_MAX + 1 } }, 0, 0,
		  MSFC_MSG("bandwidth", BANDWIDTH) },
		{ "overhead -65", { { TCA_MSFC_OVERHEAD, (u32)-65 } }, 0, 0,
		  MSFC_MSG("overhead", OVERHEAD) },
		{ "overhead 257", { { TCA_MSFC_OVERHEAD, 257 } }, 0, 0,
		  MSFC_MSG("overhead", OVERHEAD) },
		{ "mpu 257", { { TCA_MSFC_MPU, 257 } }, 0, 0, MSFC_MSG("mpu", MPU) },
		{ "framing 3", { { TCA_MSFC_FRAMING, 3 } }, 0, 0, MSFC_MSG("framing", FRAMING) },
		{ "raw 2", { { TCA_MSFC_RAW, 2 } }, 0, 0, MSFC_MSG("raw", RAW) },
		{ "ingress 2", { { TCA_MSFC_INGRESS, 2 } }, 0, 0, MSFC_MSG("ingress", INGRESS) },
		{ "scaled target above the interval given",
		  { { TCA_MSFC_BANDWIDTH, 125000 }, { TCA_MSFC_INTERVAL, 10000 } }, 0, 0,
		  TC_MSFC_TARGET_INTERVAL_MSG },
	};
	/* accepted one after the other, starting from the defaults */
	static const struct msfc_test_attr bounds[][3] = {
		{ { TCA_MSFC_FLOWS, TC_MSFC_FLOWS_MIN } },
		{ { TCA_MSFC_FLOWS, TC_MSFC_FLOWS_MAX } },
		{ { TCA_MSFC_FLOWS, TC_MSFC_FLOWS_DEFAULT } },
		{ { TCA_MSFC_PRIOS, TC_MSFC_PRIOS_MIN } },
		{ { TCA_MSFC_PRIOS, TC_MSFC_PRIOS_MAX } },
		{ { TCA_MSFC_PRIOS, TC_MSFC_PRIOS_DEFAULT } },
		{ { TCA_MSFC_QUANTUM, TC_MSFC_QUANTUM_MIN } },
		{ { TCA_MSFC_QUANTUM, TC_MSFC_QUANTUM_MAX } },
		{ { TCA_MSFC_RATIO, TC_MSFC_RATIO_MIN } },
		{ { TCA_MSFC_RATIO, TC_MSFC_RATIO_MAX } },
		{ { TCA_MSFC_TARGET, TC_MSFC_TARGET_MIN } },
		{ { TCA_MSFC_INTERVAL, TC_MSFC_INTERVAL_MAX } },
		{ { TCA_MSFC_TARGET, TC_MSFC_TARGET_MIN }, { TCA_MSFC_INTERVAL, 3 } },
		{ { TCA_MSFC_TARGET, 5000 }, { TCA_MSFC_INTERVAL, 100000 } },
		{ { TCA_MSFC_LIMIT, TC_MSFC_LIMIT_MIN } },
		{ { TCA_MSFC_LIMIT, TC_MSFC_LIMIT_MAX } },
		{ { TCA_MSFC_MEMORY_LIMIT, TC_MSFC_MEMORY_LIMIT_MIN } },
		{ { TCA_MSFC_MEMORY_LIMIT, TC_MSFC_MEMORY_LIMIT_MAX } },
		{ { TCA_MSFC_DROP_BATCH, TC_MSFC_DROP_BATCH_MIN } },
		{ { TCA_MSFC_DROP_BATCH, TC_MSFC_DROP_BATCH_MAX } },
		{ { TCA_MSFC_ECN, TC_MSFC_ECN_MIN } },
		{ { TCA_MSFC_ECN, TC_MSFC_ECN_MAX } },
		{ { TCA_MSFC_AUTO, TC_MSFC_AUTO_MAX } },
		{ { TCA_MSFC_AUTO, TC_MSFC_AUTO_MIN } },
		{ { TCA_MSFC_BANDWIDTH, TC_MSFC_BANDWIDTH_MAX } },
		{ { TCA_MSFC_BANDWIDTH, 1 } },
		{ { TCA_MSFC_BANDWIDTH, 0 } },
		{ { TCA_MSFC_OVERHEAD, (u32)TC_MSFC_OVERHEAD_MIN } },
		{ { TCA_MSFC_OVERHEAD, TC_MSFC_OVERHEAD_MAX } },
		{ { TCA_MSFC_MPU, TC_MSFC_MPU_MAX } },
		{ { TCA_MSFC_FRAMING, TC_MSFC_FRAMING_MAX } },
		{ { TCA_MSFC_RAW, TC_MSFC_RAW_MAX } },
		{ { TCA_MSFC_INGRESS, TC_MSFC_INGRESS_MAX } },
		{ { TCA_MSFC_CE_THRESHOLD, 4, msfc_test_ce_min } },
		{ { TCA_MSFC_CE_THRESHOLD, 4, msfc_test_ce_max } },
		{ { TCA_MSFC_CE_THRESHOLD, 12, msfc_test_ce_list } },
		{ { TCA_MSFC_CE_THRESHOLD_SELECTOR, TC_MSFC_CE_THRESHOLD_SELECTOR_MAX },
		  { TCA_MSFC_CE_THRESHOLD_MASK, TC_MSFC_CE_THRESHOLD_MASK_MAX } },
		{ { TCA_MSFC_CE_THRESHOLD_SELECTOR, TC_MSFC_CE_THRESHOLD_SELECTOR_MIN },
		  { TCA_MSFC_CE_THRESHOLD_MASK, TC_MSFC_CE_THRESHOLD_MASK_MIN } },
		{ { TCA_MSFC_CE_THRESHOLD, 0, NULL } },
	};
	static const u8 entries[] = {
		0, TC_MSFC_DSCP_CLASS_MASK, TC_MSFC_DSCP_NQB, TC_MSFC_DSCP_NQB | 1,
		TC_MSFC_DSCP_NQB | TC_MSFC_DSCP_CLASS_MASK, TC_MSFC_DSCP_LE,
	};
	struct Qdisc *sch = msfc_test_create(test, NULL);
	struct msfc_sched_data *q = qdisc_priv(sch);
	u8 *before = kunit_kmalloc(test, sizeof(*q), GFP_KERNEL);
	u8 map[65];
	int i;

	KUNIT_ASSERT_NOT_NULL(test, before);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct netlink_ext_ack extack = {};
		const u8 *dscp_map = NULL;
		int err;

		memcpy(before, q, sizeof(*q));
		memset(map, cases[i].mapval, sizeof(map));
		if (cases[i].maplen)
			dscp_map = map;
		err = msfc_test_change(sch, cases[i].attrs, dscp_map, cases[i].maplen,
				       &extack);
		/* netlink policy violations give -ERANGE, our own checks -EINVAL */
		KUNIT_EXPECT_TRUE_MSG(test, err == -EINVAL || err == -ERANGE,
				      "%s: error %d", cases[i].what, err);
		KUNIT_EXPECT_NOT_NULL_MSG(test, extack._msg, "%s: no error message",
					  cases[i].what);
		if (cases[i].msg && extack._msg)
			KUNIT_EXPECT_STREQ_MSG(test, extack._msg, cases[i].msg, "%s",
					       cases[i].what);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(before, q, sizeof(*q)), 0,
				    "%s changed the qdisc", cases[i].what);
		if (extack._msg)
			kunit_info(test, "%s: %s\n", cases[i].what, extack._msg);
	}

	for (i = 0; i < ARRAY_SIZE(bounds); i++) {
		struct netlink_ext_ack extack = {};

		int err = msfc_test_change(sch, bounds[i], NULL, 0, &extack);

		KUNIT_EXPECT_EQ_MSG(test, err, 0, "bound %d (attribute %d = %llu) refused: %s", i,
				    bounds[i][0].type, bounds[i][0].val, extack._msg ?: "");
	}

	/* every kind of map entry, at its bounds: a class, a class with NQB, the lane */
	for (i = 0; i < ARRAY_SIZE(entries); i++) {
		struct netlink_ext_ack extack = {};
		int err;

		memset(map, entries[i], sizeof(map));
		err = msfc_test_change(sch, NULL, map, TC_MSFC_DSCP_MAP_LEN, &extack);
		KUNIT_EXPECT_EQ_MSG(test, err, 0, "dscp map entry %u refused: %s", entries[i],
				    extack._msg ?: "");
		KUNIT_EXPECT_EQ(test, q->dscp_map[63], entries[i]);
	}
}

/* One packet of each TOS byte in @tos into class @cls at 0 ns, dequeued at
 * @at_ns: returns the TOS bytes they leave with, in @out.
 */
static void msfc_test_ce_round(struct kunit *test, struct Qdisc *sch, u32 cls,
			       const u8 *tos, int n, u64 at_ns, u8 *out)
{
	struct sk_buff *skb;
	int i;

	WRITE_ONCE(msfc_test_now_ns, 0);
	for (i = 0; i < n; i++) {
		skb = msfc_test_ip_skb(100, tos[i], 1000 + i);	/* one flow each */
		KUNIT_ASSERT_NOT_NULL(test, skb);
		skb->priority = MSFC_TEST_HANDLE | (cls + 1);
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue(sch, skb), NET_XMIT_SUCCESS);
	}
	WRITE_ONCE(msfc_test_now_ns, at_ns);
	for (i = 0; i < n; i++) {
		skb = msfc_dequeue(sch);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		/* the flows are served in their order of arrival: match by port */
		out[ntohs(((__be16 *)(ip_hdr(skb) + 1))[0]) - 1000] = ip_hdr(skb)->tos;
		kfree_skb(skb);
	}
	KUNIT_ASSERT_NULL(test, msfc_dequeue(sch));
}

/* L4S marking: above the threshold (strictly, in CoDel's 1024 ns units) an
 * ECT packet whose TOS byte matches the selector leaves CE; Not-ECT, CE and
 * packets the selector does not take are left alone, as is every packet at
 * or below the threshold; per-class lists, the selector on the DSCP, and the
 * counters, apart from CoDel's.
 */
static void msfc_test_ce_threshold(struct kunit *test)
{
	/* ECT(1), ECT(0), Not-ECT, CE, EF + ECT(1) */
	static const u8 tos[] = { 0x01, 0x02, 0x00, 0x03, 0xb9 };
	static const u32 one_ms[1] = { 1000 };
	static const u32 second_only[2] = { TC_MSFC_CE_THRESHOLD_OFF, 1000 };
	const struct msfc_test_attr attrs[] = {
		{ TCA_MSFC_PRIOS, 2 }, { TCA_MSFC_ECN, 1 },
		{ TCA_MSFC_CE_THRESHOLD, sizeof(one_ms), one_ms }, { 0 }
	};
	const struct msfc_test_attr dscp_too[] = {
		{ TCA_MSFC_CE_THRESHOLD_MASK, 0xff }, { 0 }
	};
	const struct msfc_test_attr every_ect[] = {
		{ TCA_MSFC_CE_THRESHOLD_SELECTOR, 0 }, { TCA_MSFC_CE_THRESHOLD_MASK, 0 }, { 0 }
	};
	const struct msfc_test_attr per_class[] = {
		{ TCA_MSFC_CE_THRESHOLD, sizeof(second_only), second_only }, { 0 }
	};
	const struct msfc_test_attr none[] = { { TCA_MSFC_CE_THRESHOLD, 0, NULL }, { 0 } };
	const struct msfc_test_attr prios3[] = { { TCA_MSFC_PRIOS, 3 }, { 0 } };
	struct netlink_ext_ack extack = {};
	struct msfc_sched_data *q;
	struct Qdisc *sch;
	u8 out[ARRAY_SIZE(tos)];

	WRITE_ONCE(msfc_test_clock, true);
	sch = msfc_test_create(test, attrs);
	q = qdisc_priv(sch);
	/* 1 ms is 976 units of 1024 ns: a sojourn of 976 units is not above it */
	KUNIT_EXPECT_EQ(test, q->ce_threshold[0], 976);
	KUNIT_EXPECT_EQ(test, q->ce_threshold[1], 976);
	msfc_test_ce_round(test, sch, 1, tos, ARRAY_SIZE(tos), 976 * 1024, out);
	KUNIT_EXPECT_EQ(test, memcmp(out, tos, sizeof(tos)), 0);
	KUNIT_EXPECT_EQ(test, q->ce_threshold_marks, 0);
	/* 977 units: ECT(1) with any DSCP (the default mask 0x03) leaves CE */
	msfc_test_ce_round(test, sch, 1, tos, ARRAY_SIZE(tos), 977 * 1024, out);
	KUNIT_EXPECT_EQ(test, out[0], 0x03);
	KUNIT_EXPECT_EQ(test, out[1], 0x02);
	KUNIT_EXPECT_EQ(test, out[2], 0x00);
	KUNIT_EXPECT_EQ(test, out[3], 0x03);
	KUNIT_EXPECT_EQ(test, out[4], 0xbb);
	KUNIT_EXPECT_EQ(test, q->classes[1].ce_threshold_marks, 2);
	KUNIT_EXPECT_EQ(test, q->ce_threshold_marks, 2);
	/* the packet that came CE is not counted; CoDel (5 ms target) marked none */
	KUNIT_EXPECT_EQ(test, q->cstats.ecn_mark, 0);

	/* the selector on the whole TOS byte: DSCP 0 and ECT(1) only */
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, dscp_too, NULL, 0, &extack), 0);
	msfc_test_ce_round(test, sch, 0, tos, ARRAY_SIZE(tos), 2 * NSEC_PER_MSEC, out);
	KUNIT_EXPECT_EQ(test, out[0], 0x03);
	KUNIT_EXPECT_EQ(test, out[4], 0xb9);
	KUNIT_EXPECT_EQ(test, q->classes[0].ce_threshold_marks, 1);

	/* mask 0: every ECT packet, Classic ECT(0) too */
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, every_ect, NULL, 0, &extack), 0);
	msfc_test_ce_round(test, sch, 0, tos, ARRAY_SIZE(tos), 2 * NSEC_PER_MSEC, out);
	KUNIT_EXPECT_EQ(test, out[0], 0x03);
	KUNIT_EXPECT_EQ(test, out[1], 0x03);
	KUNIT_EXPECT_EQ(test, out[2], 0x00);
	KUNIT_EXPECT_EQ(test, out[4], 0xbb);
	KUNIT_EXPECT_EQ(test, q->classes[0].ce_threshold_marks, 4);

	/* one threshold per class: none in class 0, 1 ms in class 1 */
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, per_class, NULL, 0, &extack), 0);
	KUNIT_EXPECT_EQ(test, q->ce_classes, BIT(1));
	msfc_test_ce_round(test, sch, 0, tos, ARRAY_SIZE(tos), 2 * NSEC_PER_MSEC, out);
	KUNIT_EXPECT_EQ(test, memcmp(out, tos, sizeof(tos)), 0);
	msfc_test_ce_round(test, sch, 1, tos, 1, 2 * NSEC_PER_MSEC, out);
	KUNIT_EXPECT_EQ(test, out[0], 0x03);
	KUNIT_EXPECT_EQ(test, q->classes[1].ce_threshold_marks, 3);
	/* a new prios must bring its own list; one threshold follows any prios */
	KUNIT_EXPECT_EQ(test, msfc_test_change(sch, prios3, NULL, 0, &extack), -EINVAL);
	KUNIT_EXPECT_STREQ(test, extack._msg, TC_MSFC_CE_THRESHOLD_COUNT_MSG);

	/* off: nothing is marked, the counters stay */
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, none, NULL, 0, &extack), 0);
	KUNIT_EXPECT_EQ(test, q->ce_classes, 0);
	msfc_test_ce_round(test, sch, 1, tos, ARRAY_SIZE(tos), 2 * NSEC_PER_MSEC, out);
	KUNIT_EXPECT_EQ(test, memcmp(out, tos, sizeof(tos)), 0);
	KUNIT_EXPECT_EQ(test, q->ce_threshold_marks, 7);
	WRITE_ONCE(msfc_test_clock, false);
}

/* change and reset with packets queued */
static void msfc_test_change_reset(struct kunit *test)
{
	const struct msfc_test_attr attrs[] = {
		{ TCA_MSFC_PRIOS, 3 }, { TCA_MSFC_FLOWS, 32 }, { 0 }
	};
	const struct msfc_test_attr live[] = {
		{ TCA_MSFC_QUANTUM, 3000 }, { TCA_MSFC_RATIO, 3 << 16 }, { 0 }
	};
	const struct msfc_test_attr live2[] = {
		{ TCA_MSFC_TARGET, 10000 }, { TCA_MSFC_INTERVAL, 200000 }, { 0 }
	};
	const struct msfc_test_attr lower[] = { { TCA_MSFC_LIMIT, 40 }, { 0 } };
	const struct msfc_test_attr resize[] = { { TCA_MSFC_PRIOS, 4 }, { 0 } };
	struct Qdisc *sch = msfc_test_create(test, attrs);
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct netlink_ext_ack extack = {};
	struct sk_buff *skb;
	u32 n = 0;
	int i;

	for (i = 0; i < 90; i++)
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, i % 3, i % 32, 200 + i),
				NET_XMIT_SUCCESS);
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, live, NULL, 0, &extack), 0);
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, live2, NULL, 0, &extack), 0);
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 90);
	KUNIT_EXPECT_EQ(test, q->classes[2].quantum, 27000);
	KUNIT_EXPECT_EQ(test, q->cparams.interval, 195312);
	KUNIT_EXPECT_EQ(test, q->interval_us, 200000);

	/* prios/flows need an empty qdisc */
	extack._msg = NULL;
	KUNIT_EXPECT_EQ(test, msfc_test_change(sch, resize, NULL, 0, &extack), -EBUSY);
	KUNIT_EXPECT_NOT_NULL(test, extack._msg);
	KUNIT_EXPECT_EQ(test, q->prios, 3);

	/* a lower limit drops down to it from the fattest flows */
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, lower, NULL, 0, &extack), 0);
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 40);
	KUNIT_EXPECT_EQ(test, q->classes[0].qlen + q->classes[1].qlen + q->classes[2].qlen, 40);
	for (i = 0; i < 10; i++) {
		skb = msfc_dequeue(sch);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		kfree_skb(skb);
	}
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 30);

	rtnl_lock();
	qdisc_reset(sch);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 0);
	KUNIT_EXPECT_EQ(test, sch->qstats.backlog, 0);
	KUNIT_EXPECT_EQ(test, q->memory_usage, 0);
	KUNIT_EXPECT_EQ(test, q->active_flows, 0);
	KUNIT_EXPECT_NULL(test, msfc_dequeue(sch));

	/* empty: prios and flows can change; the qdisc works afterwards */
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, resize, NULL, 0, &extack), 0);
	KUNIT_EXPECT_EQ(test, q->prios, 4);
	KUNIT_EXPECT_EQ(test, q->classes[3].quantum, 81000);
	for (i = 0; i < 8; i++)
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, i % 4, 31, 100),
				NET_XMIT_SUCCESS);
	while ((skb = msfc_dequeue(sch))) {
		n++;
		kfree_skb(skb);
	}
	KUNIT_EXPECT_EQ(test, n, 8);
}

/* The sequence of the divide error in msfc_dequeue: with boost on, a flow
 * whose one packet has left stays on its class's new-flow list while the
 * qdisc is idle (a parent such as htb does not dequeue again); isolate
 * changes on the idle qdisc; the next packet, of another flow, is dequeued
 * without the stale flow being refilled by its host load (0 then).  Also the
 * same with every isolate mode from every other, and a weights change on a
 * busy qdisc.
 */
static void msfc_test_change_listed_flows(struct kunit *test)
{
	const struct msfc_test_attr attrs[] = { { TCA_MSFC_BOOST, TC_MSFC_BOOST_ON }, { 0 } };
	struct msfc_sched_data *q;
	struct netlink_ext_ack extack = {};
	struct sk_buff *skb;
	struct Qdisc *sch;
	u32 from, to, cls, n;

	for (from = 0; from <= TC_MSFC_ISOLATE_MAX; from++) {
		for (to = 0; to <= TC_MSFC_ISOLATE_MAX; to++) {
			const struct msfc_test_attr first[] = {
				{ TCA_MSFC_ISOLATE, from }, { 0 }
			};
			const struct msfc_test_attr change[] = {
				{ TCA_MSFC_ISOLATE, to }, { 0 }
			};

			if (from == to)
				continue;
			sch = msfc_test_create(test, attrs);
			q = qdisc_priv(sch);
			KUNIT_ASSERT_EQ(test, msfc_test_change(sch, first, NULL, 0, &extack), 0);
			/* flow A: 10.0.0.1 -> 10.0.0.2, one packet, dequeued */
			skb = msfc_test_ip_skb(100, 0, 1000);
			KUNIT_ASSERT_NOT_NULL(test, skb);
			KUNIT_ASSERT_EQ(test, msfc_test_enqueue(sch, skb), NET_XMIT_SUCCESS);
			skb = msfc_dequeue(sch);
			KUNIT_ASSERT_NOT_NULL(test, skb);
			kfree_skb(skb);
			cls = q->dscp_map[0];
			KUNIT_ASSERT_EQ(test, sch->q.qlen, 0);
			KUNIT_ASSERT_FALSE_MSG(test, list_empty(&q->classes[cls].new_flows),
					       "flow A should still be listed while idle");

			KUNIT_ASSERT_EQ_MSG(test, msfc_test_change(sch, change, NULL, 0, &extack),
					    0, "isolate %u -> %u refused: %s", from, to,
					    extack._msg ?: "");
			KUNIT_EXPECT_TRUE(test, list_empty(&q->classes[cls].new_flows));
			KUNIT_EXPECT_TRUE(test, list_empty(&q->classes[cls].flows));
			KUNIT_EXPECT_TRUE(test, list_empty(&q->active_classes));
			KUNIT_EXPECT_EQ(test, q->classes[cls].active_flows, 0);
			KUNIT_EXPECT_EQ(test, q->active_flows, 0);

			/* flow B: 10.0.0.1 -> 10.0.0.3 */
			skb = msfc_test_ip_skb(200, 0, 2000);
			KUNIT_ASSERT_NOT_NULL(test, skb);
			ip_hdr(skb)->daddr = htonl(0x0a000003);
			KUNIT_ASSERT_EQ(test, msfc_test_enqueue(sch, skb), NET_XMIT_SUCCESS);
			skb = msfc_dequeue(sch);
			KUNIT_ASSERT_NOT_NULL_MSG(test, skb, "isolate %u -> %u: B not dequeued",
						  from, to);
			KUNIT_EXPECT_EQ(test, qdisc_pkt_len(skb), 200);
			kfree_skb(skb);
			KUNIT_EXPECT_NULL(test, msfc_dequeue(sch));
			KUNIT_EXPECT_EQ(test, q->active_flows, 0);
			msfc_test_release(test);
		}
	}

	/* weights on a busy qdisc: class 0's credit of 700 bytes is kept */
	{
		const struct msfc_test_attr two[] = {
			{ TCA_MSFC_PRIOS, 2 }, { TCA_MSFC_QUANTUM, 1000 }, { 0 }
		};
		const struct msfc_test_attr exact[] = {
			{ TCA_MSFC_WEIGHTS, TC_MSFC_WEIGHTS_EXACT }, { 0 }
		};
		const struct msfc_test_attr rounded[] = {
			{ TCA_MSFC_WEIGHTS, TC_MSFC_WEIGHTS_ROUNDED }, { 0 }
		};

		sch = msfc_test_create(test, two);
		q = qdisc_priv(sch);
		for (n = 0; n < 4; n++) {
			msfc_test_enqueue_flow(sch, 0, 0, 300);
			msfc_test_enqueue_flow(sch, 1, 0, 300);
		}
		skb = msfc_dequeue(sch);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		kfree_skb(skb);
		KUNIT_ASSERT_EQ(test, q->classes[0].deficit, 700);
		KUNIT_ASSERT_EQ(test, msfc_test_change(sch, exact, NULL, 0, &extack), 0);
		KUNIT_EXPECT_EQ(test, q->classes[0].deficit, 700LL << 16);
		KUNIT_EXPECT_EQ(test, q->classes[1].quantum, 2000ULL << 16);
		q->classes[0].deficit = -(300LL << 16) + 1;
		KUNIT_ASSERT_EQ(test, msfc_test_change(sch, rounded, NULL, 0, &extack), 0);
		KUNIT_EXPECT_EQ(test, q->classes[0].deficit, -300);
		KUNIT_EXPECT_EQ(test, q->classes[1].quantum, 2000);
		n = 0;
		while ((skb = msfc_dequeue(sch))) {
			n++;
			kfree_skb(skb);
		}
		KUNIT_EXPECT_EQ(test, n, 7);
	}
}

/* A child qdisc under an msfc class is refused with the reason. */
static void msfc_test_graft(struct kunit *test)
{
	struct Qdisc *sch = msfc_test_create(test, NULL);
	struct netlink_ext_ack extack = {};
	struct Qdisc *old = NULL;

	KUNIT_EXPECT_EQ(test, msfc_graft(sch, 1, &noop_qdisc, &old, &extack), -EOPNOTSUPP);
	KUNIT_EXPECT_NOT_NULL(test, extack._msg);
	KUNIT_EXPECT_NULL(test, old);
}

/* Parents such as TBF peek first: the peeked packet stays counted and is the
 * one dequeued next.
 */
static void msfc_test_peek(struct kunit *test)
{
	const struct msfc_test_attr attrs[] = { { TCA_MSFC_PRIOS, 2 }, { 0 } };
	struct Qdisc *sch = msfc_test_create(test, attrs);
	struct sk_buff *peeked, *skb;
	int i;

	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 1, i, 100 + i), NET_XMIT_SUCCESS);
	peeked = sch->ops->peek(sch);
	KUNIT_ASSERT_NOT_NULL(test, peeked);
	KUNIT_EXPECT_PTR_EQ(test, sch->ops->peek(sch), peeked);
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 3);
	KUNIT_EXPECT_EQ(test, sch->qstats.backlog, 303);
	skb = qdisc_dequeue_peeked(sch);
	KUNIT_EXPECT_PTR_EQ(test, skb, peeked);
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 2);
	kfree_skb(skb);
	for (i = 0; i < 2; i++) {
		skb = qdisc_dequeue_peeked(sch);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		kfree_skb(skb);
	}
	KUNIT_EXPECT_NULL(test, sch->ops->peek(sch));
	KUNIT_EXPECT_EQ(test, sch->qstats.backlog, 0);
}

/* overload class: 45 flows of 228-byte packets in class 0 against one flow of
 * three 1500-byte packets in class 1, limit 33.  The flood is above its share
 * of the buffer (30 packets / 1500 > 3 / 3000) and pays for every overload;
 * with overload flow the fattest flow, class 1's, pays instead.
 */
static void msfc_test_overload_class(struct kunit *test)
{
	static const u32 modes[] = { TC_MSFC_OVERLOAD_FLOW, TC_MSFC_OVERLOAD_CLASS };
	int m, i;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		const struct msfc_test_attr attrs[] = {
			{ TCA_MSFC_PRIOS, 2 }, { TCA_MSFC_FLOWS, 64 },
			{ TCA_MSFC_QUANTUM, 1500 }, { TCA_MSFC_LIMIT, 33 },
			{ TCA_MSFC_MEMORY_LIMIT, 1U << 31 },
			{ TCA_MSFC_OVERLOAD, modes[m] }, { 0 }
		};
		struct Qdisc *sch = msfc_test_create(test, attrs);
		struct msfc_sched_data *q = qdisc_priv(sch);

		for (i = 0; i < 3; i++)
			msfc_test_enqueue_flow(sch, 1, 0, 1500);
		for (i = 0; i < 100; i++)
			msfc_test_enqueue_flow(sch, 0, 1 + i % 45, 228);
		KUNIT_EXPECT_EQ(test, sch->q.qlen, 33);
		if (modes[m] == TC_MSFC_OVERLOAD_CLASS) {
			KUNIT_EXPECT_EQ(test, q->classes[1].overload_drops, 0);
			KUNIT_EXPECT_EQ(test, q->classes[1].backlog, 4500);
			KUNIT_EXPECT_EQ(test, q->classes[0].overload_drops, 70);
		} else {
			KUNIT_EXPECT_GT(test, q->classes[1].overload_drops, 0);
		}
		msfc_test_release(test);
	}
}

/* inversion: one flow in class 0 against ten in class 1, all backlogged with
 * 1500-byte packets, quantum 1500, ratio 2.  Allow (the thesis): class 0
 * takes 1/3 of the link for its one flow, each class-1 flow 1/15.  Prevent:
 * class 0 is refilled with 3000 / 10 / 2 = 150 bytes, so a class-1 flow gets
 * twice what the class-0 flow gets (2/21 against 1/21).
 */
static void msfc_test_inversion(struct kunit *test)
{
	static const u32 modes[] = { TC_MSFC_INVERSION_ALLOW, TC_MSFC_INVERSION_PREVENT };
	int m, i, f;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		const struct msfc_test_attr attrs[] = {
			{ TCA_MSFC_PRIOS, 2 }, { TCA_MSFC_FLOWS, 16 },
			{ TCA_MSFC_QUANTUM, 1500 }, { TCA_MSFC_INVERSION, modes[m] }, { 0 }
		};
		struct Qdisc *sch = msfc_test_create(test, attrs);
		u64 low = 0, high[10] = {}, least = U64_MAX;

		for (i = 0; i < 400; i++) {
			msfc_test_enqueue_flow(sch, 0, 0, 1500);
			for (f = 0; f < 10; f++)
				msfc_test_enqueue_flow(sch, 1, f, 1500);
		}
		for (i = 0; i < 1100; i++) {
			struct sk_buff *skb = msfc_dequeue(sch);

			KUNIT_ASSERT_NOT_NULL(test, skb);
			if (skb->mark >> 16)
				high[skb->mark & 0xffff] += qdisc_pkt_len(skb);
			else
				low += qdisc_pkt_len(skb);
			kfree_skb(skb);
		}
		for (f = 0; f < 10; f++)
			least = min(least, high[f]);
		if (modes[m] == TC_MSFC_INVERSION_ALLOW) {
			KUNIT_EXPECT_GT_MSG(test, low, 4 * least,
					    "allow: class 0 %llu, class-1 flow %llu", low, least);
		} else {
			KUNIT_EXPECT_LE_MSG(test, 2 * low, least + 4 * 1500,
					    "prevent: class 0 %llu, class-1 flow %llu", low, least);
			KUNIT_EXPECT_GE(test, low, 50 * 1500);
		}
		msfc_test_release(test);
	}
}

/* The flow of the next packet dequeued (U32_MAX: none). */
static u32 msfc_test_next_flow(struct Qdisc *sch)
{
	struct sk_buff *skb = msfc_dequeue(sch);
	u32 flow;

	if (!skb)
		return U32_MAX;
	flow = skb->mark & 0xffff;
	kfree_skb(skb);
	return flow;
}

/* The least-effort lane and NQB flows (docs/algorithm.md, "LE and NQB"): the
 * default map's LE goes to the lane and NQB to class 1 as an NQB flow; the
 * lane sends only when the classes are empty and loses packets first on
 * overload; an NQB flow goes ahead of its class's old flows and is moved
 * behind them once it holds more than a quantum, and gets no more than a
 * quantum a round; the lane is class prios + 1.
 */
static void msfc_test_le_nqb(struct kunit *test)
{
	const struct msfc_test_attr attrs[] = {
		{ TCA_MSFC_PRIOS, 3 }, { TCA_MSFC_QUANTUM, 1000 }, { TCA_MSFC_FLOWS, 16 },
		{ 0 }
	};
	const struct msfc_test_attr limit[] = { { TCA_MSFC_LIMIT, 4 }, { 0 } };
	const struct msfc_test_attr unlimited[] = { { TCA_MSFC_LIMIT, 10240 }, { 0 } };
	struct Qdisc *sch = msfc_test_create(test, attrs);
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct netlink_ext_ack extack = {};
	struct sk_buff *skb, *to_free = NULL;
	int i;

	/* classification by the default map */
	KUNIT_ASSERT_EQ(test, msfc_test_enqueue(sch, msfc_test_ip_skb(100, 1 << 2, 7)),
			NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, q->lane.qlen, 1);
	KUNIT_EXPECT_EQ(test, q->classes[0].qlen + q->classes[1].qlen + q->classes[2].qlen, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&q->active_classes));
	KUNIT_ASSERT_EQ(test, msfc_test_enqueue(sch, msfc_test_ip_skb(100, 45 << 2, 8)),
			NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, q->classes[1].qlen, 1);
	KUNIT_EXPECT_EQ(test, q->classes[1].nqb_active, 1);
	/* the lane goes last, after the class's packet */
	skb = msfc_dequeue(sch);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, ipv4_get_dsfield(ip_hdr(skb)) >> 2, 45);
	kfree_skb(skb);
	skb = msfc_dequeue(sch);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, ipv4_get_dsfield(ip_hdr(skb)) >> 2, 1);
	kfree_skb(skb);
	KUNIT_EXPECT_NULL(test, msfc_dequeue(sch));
	KUNIT_EXPECT_EQ(test, u64_stats_read(&q->lane.bstats.packets), 1);

	/* an NQB flow goes ahead of the old flows of its class, whatever came
	 * first, and is moved behind them at more than a quantum queued
	 */
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 1, 2, 1000), NET_XMIT_SUCCESS);
	skb = msfc_test_skb(400, 1 << 16 | 5);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, msfc_enqueue_flow(skb, sch, 1, 5, NULL, false, true, &to_free),
			NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, q->classes[1].nqb_active, 1);
	KUNIT_EXPECT_EQ(test, msfc_test_next_flow(sch), 5);
	for (i = 0; i < 3; i++) {
		skb = msfc_test_skb(400, 1 << 16 | 5);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_ASSERT_EQ(test, msfc_enqueue_flow(skb, sch, 1, 5, NULL, false, false,
							&to_free),
				NET_XMIT_SUCCESS);
	}
	/* 1200 bytes > quantum 1000: the third packet moved it */
	KUNIT_EXPECT_EQ(test, q->classes[1].nqb_active, 0);
	KUNIT_EXPECT_EQ(test, q->classes[1].nqb_demotions, 1);
	KUNIT_EXPECT_EQ(test, q->nqb_demotions, 1);
	KUNIT_EXPECT_EQ(test, msfc_test_next_flow(sch), 2);
	while ((skb = msfc_dequeue(sch)))
		kfree_skb(skb);

	KUNIT_EXPECT_NULL(test, to_free);

	/* overload: the lane's packets go first, whichever flow is fatter */
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, limit, NULL, 0, &extack), 0);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 2, 1, 1000), NET_XMIT_SUCCESS);
	KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 3, 4, 100), NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, q->lane.qlen, 1);
	KUNIT_EXPECT_EQ(test, msfc_test_enqueue_flow(sch, 2, 1, 1000), NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, q->lane.qlen, 0);
	KUNIT_EXPECT_EQ(test, q->lane.overload_drops, 1);
	KUNIT_EXPECT_EQ(test, q->classes[2].qlen, 4);
	KUNIT_EXPECT_EQ(test, q->classes[2].overload_drops, 0);

	/* the lane is class 4 of 3 */
	KUNIT_EXPECT_EQ(test, msfc_find(sch, MSFC_TEST_HANDLE | 4), 4UL);
	KUNIT_EXPECT_EQ(test, msfc_find(sch, MSFC_TEST_HANDLE | 5), 0UL);
	while ((skb = msfc_dequeue(sch)))
		kfree_skb(skb);

	/* an NQB flow that keeps two 500-byte packets queued beside a bulk flow
	 * of 1000-byte packets (quantum 1000) goes first, but once it has spent
	 * its quantum it waits for the bulk flow's refill: a quantum each a
	 * round, N N B N N B ...
	 */
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, unlimited, NULL, 0, &extack), 0);
	for (i = 0; i < 8; i++)
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 1, 2, 1000), NET_XMIT_SUCCESS);
	for (i = 0; i < 2; i++) {
		skb = msfc_test_skb(500, 1 << 16 | 5);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_ASSERT_EQ(test, msfc_enqueue_flow(skb, sch, 1, 5, NULL, false, true,
							&to_free),
				NET_XMIT_SUCCESS);
	}
	for (i = 0; i < 12; i++) {
		u32 want = i % 3 == 2 ? 2 : 5;

		KUNIT_EXPECT_EQ_MSG(test, msfc_test_next_flow(sch), want, "dequeue %d", i);
		if (want == 5) {
			skb = msfc_test_skb(500, 1 << 16 | 5);
			KUNIT_ASSERT_NOT_NULL(test, skb);
			KUNIT_ASSERT_EQ(test, msfc_enqueue_flow(skb, sch, 1, 5, NULL, false, true,
								&to_free),
					NET_XMIT_SUCCESS);
		}
	}
	KUNIT_EXPECT_EQ(test, q->classes[1].nqb_demotions, 1);
	KUNIT_EXPECT_NULL(test, to_free);
}

/* boost on: a flow that becomes active is served before the old flows of its
 * class (off: after them); a new flow found empty moves behind the old flows,
 * so its next packet is not boosted (docs/algorithm.md).
 */
static void msfc_test_boost(struct kunit *test)
{
	static const u32 order_on[] = { 2, 1, 1, 2 }, order_off[] = { 1, 1, 2, 2 };
	u32 boost;
	int i, n;

	for (boost = TC_MSFC_BOOST_OFF; boost <= TC_MSFC_BOOST_ON; boost++) {
		const struct msfc_test_attr attrs[] = {
			{ TCA_MSFC_PRIOS, 1 }, { TCA_MSFC_FLOWS, 64 },
			{ TCA_MSFC_QUANTUM, 1500 }, { TCA_MSFC_BOOST, boost }, { 0 }
		};
		const u32 *order = boost == TC_MSFC_BOOST_ON ? order_on : order_off;
		struct Qdisc *sch = msfc_test_create(test, attrs);

		/* four bulk flows have each sent their quantum; a thin packet */
		for (i = 0; i < 40; i++)
			msfc_test_enqueue_flow(sch, 0, 1 + i % 4, 1500);
		for (i = 0; i < 5; i++)
			msfc_test_next_flow(sch);
		msfc_test_enqueue_flow(sch, 0, 40, 100);
		n = 1;
		while (n <= 10 && msfc_test_next_flow(sch) != 40)
			n++;
		KUNIT_EXPECT_EQ_MSG(test, n, boost == TC_MSFC_BOOST_ON ? 1 : 4,
				    "boost %u: thin packet after %d dequeues", boost, n);
		msfc_test_release(test);

		/* an old bulk flow 1; flow 2 sends, is found empty, sends again */
		sch = msfc_test_create(test, attrs);
		for (i = 0; i < 20; i++)
			msfc_test_enqueue_flow(sch, 0, 1, 500);
		for (i = 0; i < 4; i++)
			msfc_test_next_flow(sch);
		msfc_test_enqueue_flow(sch, 0, 2, 100);
		for (i = 0; i < 4; i++) {
			if (i == 2)
				msfc_test_enqueue_flow(sch, 0, 2, 100);
			KUNIT_EXPECT_EQ_MSG(test, msfc_test_next_flow(sch), order[i],
					    "boost %u: dequeue %d", boost, i);
		}
		msfc_test_release(test);
	}
}

/* isolate src and both: host 0 with flow 0 and host 1 with flows 1-8, all
 * backlogged with 1500-byte packets, quantum 1500.  The flows of a host draw
 * on its host deficit as well as their own, so host 1 sends about one packet
 * a round, between host 0's: never three of one host in a row, and as many
 * of each.  Host 1 alone: its eight flows take turns.
 */
static void msfc_test_isolate_round(struct kunit *test)
{
	static const u32 modes[] = { TC_MSFC_ISOLATE_SRC, TC_MSFC_ISOLATE_BOTH };
	int m, i, f;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		const struct msfc_test_attr attrs[] = {
			{ TCA_MSFC_PRIOS, 1 }, { TCA_MSFC_FLOWS, 64 }, { TCA_MSFC_QUANTUM, 1500 },
			{ TCA_MSFC_ISOLATE, modes[m] }, { TCA_MSFC_LIMIT, 10000 },
			{ TCA_MSFC_TARGET, 1000000000 }, { TCA_MSFC_INTERVAL, 2000000000 },
			{ 0 }
		};
		struct Qdisc *sch = msfc_test_create(test, attrs);
		u32 sent[2] = {}, served[9] = {}, run = 0, last = 2, max_run = 0;

		for (i = 0; i < 60; i++) {
			msfc_test_enqueue_hosts(test, sch, 0, 0, 0, 1500);
			for (f = 1; f <= 8; f++)
				msfc_test_enqueue_hosts(test, sch, f, 1, 1 + f, 1500);
		}
		for (i = 0; i < 100; i++) {
			u32 flow = msfc_test_next_flow(sch);
			u32 host = flow != 0;

			KUNIT_ASSERT_NE(test, flow, U32_MAX);
			if (i < 10)
				continue;
			sent[host]++;
			run = host == last ? run + 1 : 1;
			last = host;
			max_run = max(max_run, run);
		}
		KUNIT_EXPECT_EQ_MSG(test, sent[0], sent[1], "isolate %u: host 0 %u, host 1 %u",
				    modes[m], sent[0], sent[1]);
		KUNIT_EXPECT_LE_MSG(test, max_run, 2, "isolate %u: %u in a row from one host",
				    modes[m], max_run);
		msfc_test_release(test);

		sch = msfc_test_create(test, attrs);
		for (i = 0; i < 60; i++)
			for (f = 1; f <= 8; f++)
				msfc_test_enqueue_hosts(test, sch, f, 1, 1 + f, 1500);
		for (i = 0; i < 80; i++) {
			u32 flow = msfc_test_next_flow(sch);

			KUNIT_ASSERT_GE(test, flow, 1);
			KUNIT_ASSERT_LE(test, flow, 8);
			served[flow]++;
		}
		for (f = 1; f <= 8; f++) {
			KUNIT_EXPECT_GE_MSG(test, served[f], 1, "isolate %u: flow %d not served",
					    modes[m], f);
			KUNIT_EXPECT_LE_MSG(test, served[f], 11, "isolate %u: flow %d served %u of 80",
					    modes[m], f, served[f]);
		}
		msfc_test_release(test);
	}
}

/* order: three classes at ratio 2 (quanta 1500, 3000, 6000 bytes), classes 0
 * and 1 backlogged with 1500-byte packets, a 100-byte packet of class 2 that
 * arrives after class 2 has had its turn and left the round.  With order
 * round it waits for the turns of classes 0 and 1 (the third packet out);
 * with order priority class 2 still has credit in the round and its packet
 * is the next one (docs/algorithm.md, "Priority order inside the round").
 * Then, with order priority, three backlogged classes share the link 1:2:4.
 */
static u32 msfc_test_next_class(struct Qdisc *sch, u32 *len)
{
	struct sk_buff *skb = msfc_dequeue(sch);
	u32 cls;

	if (!skb)
		return U32_MAX;
	cls = skb->mark >> 16;
	*len = qdisc_pkt_len(skb);
	kfree_skb(skb);
	return cls;
}

static void msfc_test_priority_order(struct kunit *test)
{
	u32 order, len;
	int i, n;

	for (order = TC_MSFC_ORDER_ROUND; order <= TC_MSFC_ORDER_PRIORITY; order++) {
		const struct msfc_test_attr attrs[] = {
			{ TCA_MSFC_PRIOS, 3 }, { TCA_MSFC_QUANTUM, 1500 },
			{ TCA_MSFC_RATIO, 2 << 16 }, { TCA_MSFC_ORDER, order }, { 0 }
		};
		struct Qdisc *sch = msfc_test_create(test, attrs);

		for (i = 0; i < 20; i++) {
			KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 0, 1, 1500),
					NET_XMIT_SUCCESS);
			KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 1, 1, 1500),
					NET_XMIT_SUCCESS);
		}
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 2, 1, 100), NET_XMIT_SUCCESS);
		/* class 2's turn: its packet, then it is found empty and leaves */
		for (n = 1; n <= 10 && msfc_test_next_class(sch, &len) != 2; n++)
			;
		KUNIT_ASSERT_EQ_MSG(test, n, order == TC_MSFC_ORDER_PRIORITY ? 1 : 4,
				    "order %u: class 2's first packet after %d dequeues", order, n);
		KUNIT_ASSERT_NE(test, msfc_test_next_class(sch, &len), 2);
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 2, 1, 100), NET_XMIT_SUCCESS);
		for (n = 1; n <= 10 && msfc_test_next_class(sch, &len) != 2; n++)
			;
		KUNIT_EXPECT_EQ_MSG(test, n, order == TC_MSFC_ORDER_PRIORITY ? 1 : 3,
				    "order %u: class 2's late packet after %d dequeues", order, n);
		msfc_test_release(test);
	}

	{
		const struct msfc_test_attr attrs[] = {
			{ TCA_MSFC_PRIOS, 3 }, { TCA_MSFC_QUANTUM, 1514 },
			{ TCA_MSFC_RATIO, 2 << 16 },
			{ TCA_MSFC_ORDER, TC_MSFC_ORDER_PRIORITY }, { 0 }
		};
		struct Qdisc *sch = msfc_test_create(test, attrs);
		struct msfc_sched_data *q = qdisc_priv(sch);
		u64 bytes[3] = {}, total = 0, sum_q;
		u32 cls;
		int p;

		for (i = 0; i < 600; i++) {
			for (p = 0; p < 3; p++) {
				len = 64 + (i * 97 + p * 31) % 1437;
				KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, p, i % 7, len),
						NET_XMIT_SUCCESS);
			}
		}
		/* dequeue while all three stay backlogged (class 2 sends 4/7) */
		for (i = 0; i < 500; i++) {
			cls = msfc_test_next_class(sch, &len);
			KUNIT_ASSERT_LT(test, cls, 3);
			bytes[cls] += len;
			total += len;
		}
		KUNIT_ASSERT_GT(test, q->classes[2].qlen, 0);
		sum_q = q->classes[0].quantum + q->classes[1].quantum + q->classes[2].quantum;
		KUNIT_EXPECT_EQ(test, sum_q, 7ULL * 1514);
		for (p = 0; p < 3; p++) {
			s64 want = div64_u64(total * q->classes[p].quantum, sum_q);
			s64 err = (s64)bytes[p] - want;

			/* a partial round can favour a class by up to its quantum */
			KUNIT_EXPECT_LE_MSG(test, abs(err), q->classes[2].quantum + 1500,
					    "order priority class %d: %llu bytes, want %lld",
					    p, bytes[p], want);
		}
		msfc_test_release(test);
	}
}

/* boost across, three classes at ratio 2 (class quanta 1500, 3000, 6000
 * bytes), classes 0 and 1 backlogged with 1500-byte packets
 * (docs/algorithm.md, "Sparse flows across classes"):
 * - class 2 backlogged too: once class 2 has sent its quantum in its turn, a
 *   100-byte packet of a new class-2 flow is the next one out with boost
 *   across, after the turns of classes 0 and 1 (three packets) with boost
 *   on, whatever the order;
 * - twenty new class-2 flows of one 1000-byte packet each: they go ahead of
 *   the round until class 2 has spent its 6000 bytes of credit and borrowed
 *   one class quantum more, twelve packets; the 13th is another class's and
 *   the deficit is at the limit, minus the class quantum (in 1/65536 byte
 *   with weights exact).
 */
static struct Qdisc *msfc_test_across_create(struct kunit *test, u32 boost,
					     u32 order, u32 weights)
{
	const struct msfc_test_attr attrs[] = {
		{ TCA_MSFC_PRIOS, 3 }, { TCA_MSFC_FLOWS, 64 }, { TCA_MSFC_QUANTUM, 1500 },
		{ TCA_MSFC_RATIO, 2 << 16 }, { TCA_MSFC_BOOST, boost },
		{ TCA_MSFC_ORDER, order }, { TCA_MSFC_WEIGHTS, weights }, { 0 }
	};
	struct Qdisc *sch = msfc_test_create(test, attrs);
	int i;

	for (i = 0; i < 20; i++) {
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 0, 1, 1500), NET_XMIT_SUCCESS);
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 1, 1, 1500), NET_XMIT_SUCCESS);
	}
	return sch;
}

/* The packets of each class dequeued before a sparse class-2 packet that
 * arrives once class 2 has sent its quantum (four 1500-byte packets).
 */
static void msfc_test_across_wait(struct kunit *test, u32 boost, u32 order,
				  u32 *before)
{
	struct Qdisc *sch = msfc_test_across_create(test, boost, order,
						    TC_MSFC_WEIGHTS_ROUNDED);
	struct msfc_sched_data *q = qdisc_priv(sch);
	u32 cls, len, top;
	int i;

	for (i = 0; i < 20; i++)
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 2, 1, 1500), NET_XMIT_SUCCESS);
	for (top = 0; top < 6000 / 1500;)
		top += msfc_test_next_class(sch, &len) == 2;
	KUNIT_EXPECT_LE(test, q->classes[2].deficit, 0);
	KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 2, 40, 100), NET_XMIT_SUCCESS);
	for (i = 0; i < 20; i++) {
		cls = msfc_test_next_class(sch, &len);
		KUNIT_ASSERT_LT(test, cls, 3);
		if (cls == 2 && len == 100)
			break;
		before[cls]++;
	}
	msfc_test_release(test);
}

/* Twenty sparse class-2 flows of one 1000-byte packet each: the class-2
 * packets dequeued before another class's.
 */
static u32 msfc_test_across_borrowed(struct kunit *test, u32 order, u32 weights,
				     s64 *deficit, s64 *limit)
{
	struct Qdisc *sch = msfc_test_across_create(test, TC_MSFC_BOOST_ACROSS, order,
						    weights);
	struct msfc_sched_data *q = qdisc_priv(sch);
	u32 top, len;
	int f;

	for (f = 10; f < 30; f++)
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 2, f, 1000), NET_XMIT_SUCCESS);
	for (top = 0; top < 20; top++)
		if (msfc_test_next_class(sch, &len) != 2)
			break;
	*deficit = q->classes[2].deficit;
	*limit = q->classes[2].quantum;
	msfc_test_release(test);
	return top;
}

static void msfc_test_boost_across(struct kunit *test)
{
	u32 boost, order, weights, top, want;
	s64 deficit, limit;

	for (order = TC_MSFC_ORDER_ROUND; order <= TC_MSFC_ORDER_PRIORITY; order++) {
		for (boost = TC_MSFC_BOOST_ON; boost <= TC_MSFC_BOOST_ACROSS; boost++) {
			u32 before[3] = {};

			msfc_test_across_wait(test, boost, order, before);
			/* on: the quanta of classes 0 and 1 first; across: nothing */
			want = boost == TC_MSFC_BOOST_ON;
			KUNIT_EXPECT_TRUE_MSG(test, before[0] == want && before[1] == 2 * want &&
					      before[2] == 0,
					      "boost %u order %u: %u %u %u packets first",
					      boost, order, before[0], before[1], before[2]);
		}
	}

	for (weights = TC_MSFC_WEIGHTS_ROUNDED; weights <= TC_MSFC_WEIGHTS_EXACT; weights++) {
		for (order = TC_MSFC_ORDER_ROUND; order <= TC_MSFC_ORDER_PRIORITY; order++) {
			top = msfc_test_across_borrowed(test, order, weights, &deficit, &limit);
			/* its credit (one class quantum) and one class quantum borrowed */
			want = div64_u64(2 * limit, (u64)1000 <<
					 (weights == TC_MSFC_WEIGHTS_EXACT ? MSFC_EXACT_SHIFT : 0));
			KUNIT_EXPECT_EQ(test, want, 12);
			KUNIT_EXPECT_EQ_MSG(test, top, want, "weights %u order %u: %u first",
					    weights, order, top);
			KUNIT_EXPECT_EQ(test, deficit, -limit);
		}
	}
}

/* quanta: four classes with the diffserv4-like quanta 95, 1514, 757, 378
 * bytes, every class backlogged and class 3 (voice) flooding with four times
 * the packets of each other class: class p gets Q_p / sum(Q) of the bytes,
 * within one quantum and a packet; the voice flood is held to 378 / 2744.
 * Then: a new prios without new quanta is refused (EINVAL, the count
 * message), with five quanta it is taken on the idle qdisc, and an empty
 * attribute takes the quanta from quantum and ratio again.
 */
static void msfc_test_quanta_shares(struct kunit *test)
{
	static const u32 five[5] = { 95, 1514, 757, 378, 3000 };
	const struct msfc_test_attr attrs[] = {
		{ TCA_MSFC_PRIOS, 4 }, { TCA_MSFC_QUANTUM, 1514 },
		{ TCA_MSFC_QUANTA, sizeof(msfc_test_quanta), msfc_test_quanta }, { 0 }
	};
	const struct msfc_test_attr prios5[] = { { TCA_MSFC_PRIOS, 5 }, { 0 } };
	const struct msfc_test_attr prios5q[] = {
		{ TCA_MSFC_PRIOS, 5 }, { TCA_MSFC_QUANTA, sizeof(five), five }, { 0 }
	};
	const struct msfc_test_attr from_ratio[] = { { TCA_MSFC_QUANTA, 0, NULL }, { 0 } };
	struct Qdisc *sch = msfc_test_create(test, attrs);
	struct msfc_sched_data *q = qdisc_priv(sch);
	struct netlink_ext_ack extack = {};
	u64 bytes[4] = {}, total = 0, sum_q = 0;
	struct sk_buff *skb;
	int p, i, n;

	for (p = 0; p < 4; p++) {
		KUNIT_EXPECT_EQ(test, q->classes[p].quantum, msfc_test_quanta[p]);
		sum_q += msfc_test_quanta[p];
	}
	for (i = 0; i < 400; i++) {
		for (p = 0; p < 4; p++) {
			for (n = 0; n < (p == 3 ? 4 : 1); n++) {
				u32 len = 64 + (i * 97 + p * 31 + n * 13) % 1437;

				skb = msfc_test_ip_skb(len, 0, 1000 + (i + n) % 7);
				KUNIT_ASSERT_NOT_NULL(test, skb);
				skb->priority = MSFC_TEST_HANDLE | (p + 1);
				KUNIT_ASSERT_EQ(test, msfc_test_enqueue(sch, skb),
						NET_XMIT_SUCCESS);
			}
		}
	}
	/* 600 packets: about 200 rounds of 2744 bytes, class 0 keeps a backlog */
	for (i = 0; i < 600; i++) {
		skb = msfc_dequeue(sch);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		bytes[TC_H_MIN(skb->priority) - 1] += qdisc_pkt_len(skb);
		total += qdisc_pkt_len(skb);
		kfree_skb(skb);
	}
	KUNIT_EXPECT_GT(test, q->classes[0].qlen, 0);
	for (p = 0; p < 4; p++) {
		s64 want = div64_u64(total * msfc_test_quanta[p], sum_q);
		s64 err = (s64)bytes[p] - want;

		/* a partial round can favour a class by up to a quantum and a packet */
		KUNIT_EXPECT_LE_MSG(test, abs(err), 1514 + 1500,
				    "class %d: %llu of %llu bytes, want %lld (Q_p / sum(Q))", p,
				    bytes[p], total, want);
	}

	KUNIT_EXPECT_EQ(test, msfc_test_change(sch, prios5, NULL, 0, &extack), -EINVAL);
	KUNIT_EXPECT_STREQ(test, extack._msg ?: "", TC_MSFC_QUANTA_COUNT_MSG);
	KUNIT_EXPECT_EQ(test, q->prios, 4);
	while ((skb = msfc_dequeue(sch)))
		kfree_skb(skb);
	extack._msg = NULL;
	KUNIT_ASSERT_EQ_MSG(test, msfc_test_change(sch, prios5q, NULL, 0, &extack), 0, "%s",
			    extack._msg ?: "");
	KUNIT_EXPECT_EQ(test, q->prios, 5);
	KUNIT_EXPECT_EQ(test, q->classes[4].quantum, 3000);
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, from_ratio, NULL, 0, &extack), 0);
	KUNIT_EXPECT_EQ(test, q->n_explicit, 0);
	KUNIT_EXPECT_EQ(test, q->classes[1].quantum, 3028);
	KUNIT_EXPECT_EQ(test, q->classes[4].quantum, 1514 * 16);
	msfc_test_release(test);
}

/* One link-layer set-up of the shaper tests: the charged length of a
 * 1514-byte frame (14 bytes of MAC header) under it.
 */
struct msfc_test_link {
	const char *what;
	u32 raw;
	s32 overhead;
	u32 mpu, framing;
	u32 frame_len;	/* charged for 1514 bytes */
	u32 small_len;	/* charged for 60 bytes */
};

static const struct msfc_test_link msfc_test_links[] = {
	{ "raw", 1, 0, 0, TC_MSFC_FRAMING_NONE, 1514, 60 },
	{ "overhead 38 mpu 84 (Ethernet)", 0, 38, 84, TC_MSFC_FRAMING_NONE, 1538, 84 },
	{ "overhead -64", 0, -64, 0, TC_MSFC_FRAMING_NONE, 1436, 0 },
	/* 1500 + 44 = 1544: 33 cells; 46 + 44 = 90: 2 cells */
	{ "atm overhead 44", 0, 44, 0, TC_MSFC_FRAMING_ATM, 33 * 53, 2 * 53 },
	/* raw 1514: 32 cells */
	{ "atm raw", 1, 0, 0, TC_MSFC_FRAMING_ATM, 32 * 53, 2 * 53 },
	/* 1500 + 30 = 1530 + 24; 46 + 30 = 76 + 2 */
	{ "ptm overhead 30", 0, 30, 0, TC_MSFC_FRAMING_PTM, 1554, 78 },
};

/* The shaper's clock over many packets: after N packets sent back to back
 * (each while the previous is still on the link) it stands at the sum of the
 * charged lengths times 10^9 / rate, to within 2 ns over 10^6 packets, at
 * 1 Mbit/s, 100 Mbit/s and 10 Gbit/s and every link-layer set-up; and the
 * charged lengths are those of cake's rules.
 */
static void msfc_test_shaper_rate(struct kunit *test)
{
	static const u64 rates[] = { 125000, 12500000, 1250000000 };
	const u32 n = 1000000;
	int r, l;

	for (l = 0; l < ARRAY_SIZE(msfc_test_links); l++) {
		const struct msfc_test_link *k = &msfc_test_links[l];

		KUNIT_EXPECT_EQ_MSG(test, msfc_link_len(1514, 14, k->raw, k->overhead, k->mpu,
							k->framing),
				    k->frame_len, "%s: 1514 bytes", k->what);
		KUNIT_EXPECT_EQ_MSG(test, msfc_link_len(60, 14, k->raw, k->overhead, k->mpu,
							k->framing),
				    k->small_len, "%s: 60 bytes", k->what);
	}
	for (r = 0; r < ARRAY_SIZE(rates); r++) {
		u64 nspb = msfc_ns_per_byte(rates[r]);

		for (l = 0; l < ARRAY_SIZE(msfc_test_links); l++) {
			const struct msfc_test_link *k = &msfc_test_links[l];
			u64 next = 1000, bytes = 0, ideal, err;
			u32 frac = 0, i, len;

			for (i = 0; i < n; i++) {
				/* frames of 1514 bytes and every seventh of 60 */
				len = i % 7 ? k->frame_len : k->small_len;
				next = msfc_shaper_add(next, &frac, nspb, len);
				bytes += len;
			}
			ideal = 1000 + div64_u64(bytes * NSEC_PER_SEC, rates[r]);
			err = next > ideal ? next - ideal : ideal - next;
			KUNIT_EXPECT_LE_MSG(test, err, 2,
					    "%llu bytes/s, %s: %llu ns after %u packets, ideal %llu",
					    rates[r], k->what, next, n, ideal);
		}
	}
}

/* CoDel's target and interval follow the bandwidth while neither is given:
 * max(5 ms, 1.5 MTU times), max(100 ms, target + 95 ms); a target given
 * stays, and the interval is then the default; without a bandwidth the
 * defaults come back.
 */
static void msfc_test_shaper_target(struct kunit *test)
{
	const struct msfc_test_attr mbit1[] = { { TCA_MSFC_BANDWIDTH, 125000 }, { 0 } };
	const struct msfc_test_attr mbit1_atm[] = {
		{ TCA_MSFC_OVERHEAD, 44 }, { TCA_MSFC_FRAMING, TC_MSFC_FRAMING_ATM }, { 0 } };
	const struct msfc_test_attr mbit10[] = { { TCA_MSFC_BANDWIDTH, 1250000 }, { 0 } };
	const struct msfc_test_attr given[] = {
		{ TCA_MSFC_BANDWIDTH, 125000 }, { TCA_MSFC_TARGET, 7000 }, { 0 } };
	const struct msfc_test_attr none[] = { { TCA_MSFC_BANDWIDTH, 0 }, { 0 } };
	struct netlink_ext_ack extack = {};
	struct Qdisc *sch = msfc_test_create(test, mbit1);
	struct msfc_sched_data *q = qdisc_priv(sch);

	/* 1514 bytes at 125000 bytes/s: 12112 us, 1.5 times 18168 */
	KUNIT_EXPECT_EQ(test, q->target_us, 18168);
	KUNIT_EXPECT_EQ(test, q->interval_us, 18168 + 95000);
	KUNIT_EXPECT_EQ(test, q->cparams.target, ((u64)18168 * NSEC_PER_USEC) >> CODEL_SHIFT);
	KUNIT_EXPECT_FALSE(test, sch->flags & TCQ_F_CAN_BYPASS);
	/* the charged MTU: 1500 + 44 in 33 cells of 53 bytes, 1749 bytes */
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, mbit1_atm, NULL, 0, &extack), 0);
	KUNIT_EXPECT_EQ(test, q->target_us, 1749 * 8 * 3 / 2);
	/* 10 Mbit/s: 1.5 MTU times are 1.8 ms, the default wins */
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, mbit10, NULL, 0, &extack), 0);
	KUNIT_EXPECT_EQ(test, q->target_us, TC_MSFC_TARGET_DEFAULT);
	KUNIT_EXPECT_EQ(test, q->interval_us, TC_MSFC_INTERVAL_DEFAULT);
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, given, NULL, 0, &extack), 0);
	KUNIT_EXPECT_EQ(test, q->target_us, 7000);
	KUNIT_EXPECT_EQ(test, q->interval_us, TC_MSFC_INTERVAL_DEFAULT);
	KUNIT_ASSERT_EQ(test, msfc_test_change(sch, none, NULL, 0, &extack), 0);
	KUNIT_EXPECT_EQ(test, q->target_us, 7000);
	KUNIT_EXPECT_EQ(test, q->interval_us, TC_MSFC_INTERVAL_DEFAULT);
	KUNIT_EXPECT_TRUE(test, sch->flags & TCQ_F_CAN_BYPASS);
	KUNIT_EXPECT_EQ(test, msfc_scaled_target_us(msfc_ns_per_byte(1), 1514),
			TC_MSFC_TARGET_MAX / 2);
}

/* The gate: with the shaper's clock ahead the dequeue returns nothing and
 * counts a deferral; once the clock allows, the packet is the one the
 * scheduler picks without a shaper, in the same order (the same sequence
 * of classes and flows as an unshaped qdisc fed the same packets).  A late
 * wake-up is made up by at most one packet; idle time by none.
 */
static void msfc_test_shaper_gate(struct kunit *test)
{
	/* CoDel never acts: the two runs see different sojourn times */
	const struct msfc_test_attr plain[] = {
		{ TCA_MSFC_PRIOS, 4 }, { TCA_MSFC_BOOST, TC_MSFC_BOOST_ACROSS },
		{ TCA_MSFC_TARGET, 1000000000 }, { TCA_MSFC_INTERVAL, 2000000000 }, { 0 } };
	const struct msfc_test_attr shaped[] = {
		{ TCA_MSFC_PRIOS, 4 }, { TCA_MSFC_BOOST, TC_MSFC_BOOST_ACROSS },
		{ TCA_MSFC_TARGET, 1000000000 }, { TCA_MSFC_INTERVAL, 2000000000 },
		{ TCA_MSFC_BANDWIDTH, 10 }, { 0 } };
	const struct msfc_test_attr fast[] = {
		{ TCA_MSFC_TARGET, 1000000000 }, { TCA_MSFC_INTERVAL, 2000000000 },
		{ TCA_MSFC_BANDWIDTH, 10000 }, { 0 } };
	u32 order[64], n = 0, i, deferred = 0;
	struct msfc_sched_data *q;
	struct Qdisc *sch;
	struct sk_buff *skb;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		sch = msfc_test_create(test, pass ? shaped : plain);
		q = qdisc_priv(sch);
		for (i = 0; i < 40; i++)
			KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, i % 4, i % 5,
								     100 + 50 * (i % 3)),
					NET_XMIT_SUCCESS);
		for (i = 0; i < 40; i++) {
			skb = msfc_dequeue(sch);
			if (pass && !skb) {
				/* 10 bytes/s: the last packet holds the gate
				 * for at least 10 s; open it as a watchdog
				 * firing on time would
				 */
				deferred++;
				KUNIT_EXPECT_GT(test, q->next_send, ktime_get_ns());
				q->next_send = ktime_get_ns();
				skb = msfc_dequeue(sch);
			}
			KUNIT_ASSERT_NOT_NULL(test, skb);
			if (!pass)
				order[n++] = skb->mark;
			else
				KUNIT_EXPECT_EQ_MSG(test, skb->mark, order[i],
						    "dequeue %u: other packet than unshaped", i);
			kfree_skb(skb);
		}
		KUNIT_EXPECT_NULL(test, msfc_dequeue(sch));
		if (pass) {
			KUNIT_EXPECT_EQ(test, deferred, 39);
			KUNIT_EXPECT_EQ(test, q->throttled, 39);
		}
		msfc_test_release(test);
	}

	/* 10000 bytes/s: a 100-byte packet takes 10 ms.  A wake-up long after
	 * the clock's time is made up by one packet only: two packets leave
	 * back to back, the third waits.
	 */
	sch = msfc_test_create(test, fast);
	q = qdisc_priv(sch);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 1, 0, 100), NET_XMIT_SUCCESS);
	q->next_send = ktime_get_ns() - 50 * NSEC_PER_MSEC;
	for (i = 0; i < 2; i++) {
		skb = msfc_dequeue(sch);
		KUNIT_EXPECT_NOT_NULL(test, skb);
		kfree_skb(skb);
	}
	KUNIT_EXPECT_NULL(test, msfc_dequeue(sch));
	/* idle time saves nothing: after the qdisc ran empty with its clock
	 * far behind, a packet arriving starts it from now, so the packet
	 * after it waits
	 */
	q->next_send = ktime_get_ns() - 50 * NSEC_PER_MSEC;
	skb = msfc_dequeue(sch);
	KUNIT_EXPECT_NOT_NULL(test, skb);
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, sch->q.qlen, 0);
	q->next_send = ktime_get_ns() - 50 * NSEC_PER_MSEC;
	KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 1, 0, 100), NET_XMIT_SUCCESS);
	skb = msfc_dequeue(sch);
	KUNIT_EXPECT_NOT_NULL(test, skb);
	kfree_skb(skb);
	KUNIT_ASSERT_EQ(test, msfc_test_enqueue_flow(sch, 1, 0, 100), NET_XMIT_SUCCESS);
	KUNIT_EXPECT_NULL(test, msfc_dequeue(sch));
	msfc_test_release(test);
}

/* auto (docs/algorithm.md, "Automatic priorities"), through msfc_enqueue()'s
 * classification and msfc_dequeue() on CoDel's clock (the test's): 3 classes,
 * home class 1 (DSCP 0), interval 10 ms, so T_up is 10 intervals (100 ms).
 */
struct msfc_test_auto_ctx {
	struct kunit *test;
	struct Qdisc *sch;
	struct msfc_sched_data *q;
};

static void msfc_test_auto_at(u64 ms)
{
	WRITE_ONCE(msfc_test_now_ns, ms * NSEC_PER_MSEC);
}

/* An IPv4/UDP packet of @len bytes, source port @sport, DSCP @dscp (and
 * ECT(0)), socket priority @prio.
 */
static struct sk_buff *msfc_test_auto_skb(struct kunit *test, u32 len, u8 dscp, u16 sport,
					  u32 prio)
{
	struct sk_buff *skb = msfc_test_ip_skb(len, dscp << 2 | INET_ECN_ECT_0, sport);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb->priority = prio;
	return skb;
}

/* The flow slot of source port @sport (the qdisc's own hash of the packet). */
static u32 msfc_test_auto_slot(struct msfc_test_auto_ctx *a, u16 sport)
{
	struct sk_buff *skb = msfc_test_auto_skb(a->test, 100, 0, sport, 0);
	u32 h = msfc_hash(a->q, skb, skb_get_dsfield(skb));

	kfree_skb(skb);
	return h;
}

/* Enqueues a packet through msfc_enqueue(); returns its class (the class
 * whose queue grew) and whether it carries the auto bit.
 */
static u32 msfc_test_auto_send(struct msfc_test_auto_ctx *a, u32 len, u8 dscp, u16 sport,
			       u32 prio, bool *is_auto)
{
	struct sk_buff *skb = msfc_test_auto_skb(a->test, len, dscp, sport, prio);
	u32 before[MSFC_MAX_PRIOS], p, cls = U32_MAX;

	for (p = 0; p < a->q->prios; p++)
		before[p] = a->q->classes[p].enq_packets;
	KUNIT_ASSERT_EQ(a->test, msfc_test_enqueue(a->sch, skb), NET_XMIT_SUCCESS);
	for (p = 0; p < a->q->prios; p++)
		if (a->q->classes[p].enq_packets != before[p])
			cls = p;
	KUNIT_ASSERT_LT(a->test, cls, a->q->prios);
	if (is_auto)	/* the packet is its flow's tail */
		*is_auto = msfc_skb_cb(a->q->flows[cls * a->q->flows_cnt +
						   msfc_test_auto_slot(a, sport)].tail)->is_auto;
	return cls;
}

/* The level of the flow slot of @sport (kept in the home class's record). */
static u32 msfc_test_auto_level(struct msfc_test_auto_ctx *a, u16 sport)
{
	return a->q->flows[msfc_home(a->q) * a->q->flows_cnt + msfc_test_auto_slot(a, sport)].level;
}

static void msfc_test_auto_drain(struct msfc_test_auto_ctx *a)
{
	struct sk_buff *skb;

	while ((skb = msfc_dequeue(a->sch)))
		kfree_skb(skb);
	KUNIT_ASSERT_EQ(a->test, a->sch->q.qlen, 0);
}

static void msfc_test_auto_mode(struct msfc_test_auto_ctx *a, u32 mode)
{
	const struct msfc_test_attr attrs[] = { { TCA_MSFC_AUTO, mode }, { 0 } };
	struct netlink_ext_ack extack = {};

	KUNIT_ASSERT_EQ(a->test, msfc_test_change(a->sch, attrs, NULL, 0, &extack), 0);
	KUNIT_ASSERT_EQ(a->test, a->q->auto_mode, mode);
}

#define MSFC_TEST_THIN	1000	/* source ports of the flows */
#define MSFC_TEST_BULK	2000
#define MSFC_TEST_NEW	3000
#define MSFC_TEST_BURST	4000
#define MSFC_TEST_DSCP_CS1	8
#define MSFC_TEST_DSCP_EF	46

static void msfc_test_auto(struct kunit *test)
{
	const struct msfc_test_attr attrs[] = {
		{ TCA_MSFC_PRIOS, 3 }, { TCA_MSFC_FLOWS, 1024 }, { TCA_MSFC_QUANTUM, 1514 },
		{ TCA_MSFC_TARGET, 1000 }, { TCA_MSFC_INTERVAL, 10000 }, { TCA_MSFC_ECN, 1 },
		{ TCA_MSFC_LIMIT, 10000 }, { TCA_MSFC_AUTO, TC_MSFC_AUTO_UNMARKED }, { 0 }
	};
	const struct msfc_test_attr prios4[] = { { TCA_MSFC_PRIOS, 4 }, { 0 } };
	const struct msfc_test_attr long_interval[] = {
		{ TCA_MSFC_INTERVAL, TC_MSFC_INTERVAL_MAX }, { 0 } };
	const struct msfc_test_attr interval20[] = { { TCA_MSFC_INTERVAL, 20000 }, { 0 } };
	const u16 ports[] = { MSFC_TEST_THIN, MSFC_TEST_BULK, MSFC_TEST_NEW, MSFC_TEST_BURST };
	struct msfc_test_auto_ctx a = { .test = test };
	struct netlink_ext_ack extack = {};
	u32 cls, i, j, k, slots[ARRAY_SIZE(ports)], first_up = 0, demotions;
	bool distinct;
	struct sk_buff *skb;
	bool is_auto;
	u64 t;

	/* the flow slots start clean at the time the tables are made: 0 */
	msfc_test_auto_at(0);
	WRITE_ONCE(msfc_test_clock, true);
	a.sch = msfc_test_create(test, attrs);
	a.q = qdisc_priv(a.sch);
	KUNIT_EXPECT_EQ(test, msfc_home(a.q), 1);
	KUNIT_EXPECT_EQ(test, a.q->auto_up,
			TC_MSFC_AUTO_UP_INTERVALS * (((u64)10000 * NSEC_PER_USEC) >> CODEL_SHIFT));
	/* the flows in slots of their own (the flow hash is keyed per qdisc) */
	for (i = 0; i < 100; i++) {
		distinct = true;
		for (j = 0; j < ARRAY_SIZE(ports); j++) {
			slots[j] = msfc_test_auto_slot(&a, ports[j]);
			for (k = 0; k < j; k++)
				distinct &= slots[k] != slots[j];
		}
		if (distinct)
			break;
		a.q->perturbation++;
	}
	KUNIT_ASSERT_LT(test, i, 100);

	/* a thin flow, one packet every 10 ms, dequeued at once: home (class 1)
	 * until T_up after the tables were made, then the top class (2); one
	 * promotion, the level kept in the home class's record.  Beside it a
	 * bursty flow, three 1500-byte packets every 50 ms, dequeued at once
	 * too (below target: CoDel never fires), stays home: the first packet
	 * of a burst leaves more than a quantum queued, so it is not sparse
	 */
	for (t = 10; t <= 200; t += 10) {
		msfc_test_auto_at(t);
		cls = msfc_test_auto_send(&a, 200, 0, MSFC_TEST_THIN, 0, &is_auto);
		KUNIT_EXPECT_TRUE(test, is_auto);
		if (cls == 2 && !first_up)
			first_up = t;
		KUNIT_EXPECT_EQ_MSG(test, cls, t < 100 ? 1 : 2, "thin flow at %llu ms", t);
		for (i = 0; t % 50 == 10 && i < 3; i++)
			KUNIT_EXPECT_EQ_MSG(test, msfc_test_auto_send(&a, 1500, 0, MSFC_TEST_BURST,
								      0, NULL), 1,
					    "bursty flow at %llu ms", t);
		msfc_test_auto_drain(&a);
	}
	KUNIT_EXPECT_EQ(test, first_up, 100);
	KUNIT_EXPECT_EQ(test, a.q->auto_promotions, 1);
	KUNIT_EXPECT_EQ(test, a.q->auto_demotions, 0);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_level(&a, MSFC_TEST_THIN), 2);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_level(&a, MSFC_TEST_BURST), 1);

	/* unmarked: marked packets and packets with an explicit class keep
	 * their class (EF 2, CS1 0, priority 10:1 class 0 in the thin flow's
	 * slot, at level 2), non-IP the home class; none moves a slot
	 */
	KUNIT_EXPECT_EQ(test, msfc_test_auto_send(&a, 100, MSFC_TEST_DSCP_EF, MSFC_TEST_NEW, 0,
						  &is_auto), 2);
	KUNIT_EXPECT_FALSE(test, is_auto);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_send(&a, 100, MSFC_TEST_DSCP_CS1, MSFC_TEST_NEW, 0,
						  &is_auto), 0);
	KUNIT_EXPECT_FALSE(test, is_auto);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_send(&a, 100, 0, MSFC_TEST_THIN,
						  MSFC_TEST_HANDLE | 1, &is_auto), 0);
	KUNIT_EXPECT_FALSE(test, is_auto);
	KUNIT_ASSERT_EQ(test, msfc_test_enqueue(a.sch, msfc_test_skb(60, 0)), NET_XMIT_SUCCESS);
	KUNIT_EXPECT_EQ(test, a.q->classes[1].qlen, 1);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_level(&a, MSFC_TEST_NEW), 1);
	msfc_test_auto_drain(&a);

	/* a bulk flow of DSCP 0 offered 2 packets a ms, 1 a ms served: its
	 * slot, idle since the tables were made, is sparse from its first
	 * packet only, so it starts home (1); an interval of standing queue
	 * (CoDel's test fires) sinks it to 0, where it stays; the thin flow
	 * beside it stays at 2
	 */
	for (t = 400; t < 800; t++) {
		msfc_test_auto_at(t);
		for (i = 0; i < 2; i++)
			msfc_test_auto_send(&a, 1500, 0, MSFC_TEST_BULK, 0, NULL);
		if (t % 10 == 0)
			KUNIT_EXPECT_EQ_MSG(test, msfc_test_auto_send(&a, 200, 0, MSFC_TEST_THIN,
								      0, NULL), 2,
					    "thin flow beside the bulk flow at %llu ms", t);
		skb = msfc_dequeue(a.sch);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		kfree_skb(skb);
		if (t == 400)
			KUNIT_EXPECT_EQ(test, msfc_test_auto_level(&a, MSFC_TEST_BULK), 1);
	}
	KUNIT_EXPECT_EQ(test, msfc_test_auto_level(&a, MSFC_TEST_BULK), 0);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_level(&a, MSFC_TEST_THIN), 2);
	KUNIT_EXPECT_EQ(test, a.q->auto_promotions, 1);
	/* down once, then again at every firing at class 0 */
	KUNIT_EXPECT_GT(test, a.q->auto_demotions, 2);
	KUNIT_EXPECT_GT(test, a.q->classes[0].enq_packets, 200);
	KUNIT_EXPECT_GT(test, a.q->cstats.ecn_mark, 0);
	/* drained at once: the bulk slot's last firing is now */
	demotions = a.q->auto_demotions;
	msfc_test_auto_drain(&a);
	KUNIT_EXPECT_GE(test, a.q->auto_demotions, demotions);

	/* auto all: the DSCP of a packet the map classifies is ignored: EF of
	 * the sunk bulk slot goes to class 0, CS1 of a new slot home (1) and,
	 * sent every 50 ms, to 2 after T_up; an explicit class is still kept
	 */
	msfc_test_auto_mode(&a, TC_MSFC_AUTO_ALL);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_send(&a, 100, MSFC_TEST_DSCP_EF, MSFC_TEST_BULK, 0,
						  &is_auto), 0);
	KUNIT_EXPECT_TRUE(test, is_auto);
	for (t = 800; t <= 900; t += 50) {
		msfc_test_auto_at(t);
		KUNIT_EXPECT_EQ_MSG(test, msfc_test_auto_send(&a, 100, MSFC_TEST_DSCP_CS1,
							      MSFC_TEST_NEW, 0, &is_auto),
				    t < 900 ? 1 : 2, "CS1 with auto all at %llu ms", t);
		KUNIT_EXPECT_TRUE(test, is_auto);
		msfc_test_auto_drain(&a);
	}
	KUNIT_EXPECT_EQ(test, a.q->auto_promotions, 2);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_send(&a, 100, MSFC_TEST_DSCP_EF, MSFC_TEST_THIN,
						  MSFC_TEST_HANDLE | 2, &is_auto), 1);
	KUNIT_EXPECT_FALSE(test, is_auto);
	/* and unmarked again: EF by the map */
	msfc_test_auto_mode(&a, TC_MSFC_AUTO_UNMARKED);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_send(&a, 100, MSFC_TEST_DSCP_EF, MSFC_TEST_BULK, 0,
						  &is_auto), 2);
	KUNIT_EXPECT_FALSE(test, is_auto);
	msfc_test_auto_drain(&a);

	/* auto off: DSCP 0 goes home without the bit, the levels stay; on
	 * again they apply as before
	 */
	msfc_test_auto_mode(&a, TC_MSFC_AUTO_OFF);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_send(&a, 100, 0, MSFC_TEST_THIN, 0, &is_auto), 1);
	KUNIT_EXPECT_FALSE(test, is_auto);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_send(&a, 100, 0, MSFC_TEST_BULK, 0, &is_auto), 1);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_level(&a, MSFC_TEST_THIN), 2);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_level(&a, MSFC_TEST_BULK), 0);
	msfc_test_auto_drain(&a);
	msfc_test_auto_mode(&a, TC_MSFC_AUTO_UNMARKED);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_send(&a, 100, 0, MSFC_TEST_THIN, 0, &is_auto), 2);
	KUNIT_EXPECT_TRUE(test, is_auto);
	msfc_test_auto_drain(&a);

	/* a new prios: every slot at the home class again, clean from the
	 * change; one class up T_up later (not straight to the top, 3)
	 */
	t = 1000;
	msfc_test_auto_at(t);
	KUNIT_ASSERT_EQ(test, msfc_test_change(a.sch, prios4, NULL, 0, &extack), 0);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_level(&a, MSFC_TEST_THIN), 1);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_level(&a, MSFC_TEST_BULK), 1);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_send(&a, 100, 0, MSFC_TEST_THIN, 0, NULL), 1);
	msfc_test_auto_drain(&a);
	msfc_test_auto_at(t + 99);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_send(&a, 100, 0, MSFC_TEST_THIN, 0, NULL), 1);
	msfc_test_auto_drain(&a);
	msfc_test_auto_at(t + 100);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_send(&a, 100, 0, MSFC_TEST_THIN, 0, NULL), 2);
	msfc_test_auto_drain(&a);
	msfc_test_auto_at(t + 150);
	KUNIT_EXPECT_EQ(test, msfc_test_auto_send(&a, 100, 0, MSFC_TEST_THIN, 0, NULL), 2);
	msfc_test_auto_drain(&a);

	/* T_up follows the interval, at most 2^31 - 1 CoDel units */
	KUNIT_ASSERT_EQ(test, msfc_test_change(a.sch, interval20, NULL, 0, &extack), 0);
	KUNIT_EXPECT_EQ(test, a.q->auto_up,
			TC_MSFC_AUTO_UP_INTERVALS * (((u64)20000 * NSEC_PER_USEC) >> CODEL_SHIFT));
	KUNIT_ASSERT_EQ(test, msfc_test_change(a.sch, long_interval, NULL, 0, &extack), 0);
	KUNIT_EXPECT_EQ(test, a.q->auto_up, S32_MAX);
	WRITE_ONCE(msfc_test_clock, false);
}

static struct kunit_case msfc_test_cases[] = {
	KUNIT_CASE(msfc_test_vectors),
	KUNIT_CASE(msfc_test_ratio_shares),
	KUNIT_CASE(msfc_test_flow_fairness),
	KUNIT_CASE(msfc_test_isolate_hosts),
	KUNIT_CASE(msfc_test_isolate_round),
	KUNIT_CASE(msfc_test_dscp_classes),
	KUNIT_CASE(msfc_test_le_nqb),
	KUNIT_CASE(msfc_test_codel),
	KUNIT_CASE(msfc_test_limits),
	KUNIT_CASE(msfc_test_overload_class),
	KUNIT_CASE(msfc_test_inversion),
	KUNIT_CASE(msfc_test_boost),
	KUNIT_CASE(msfc_test_priority_order),
	KUNIT_CASE(msfc_test_boost_across),
	KUNIT_CASE(msfc_test_quanta_shares),
	KUNIT_CASE(msfc_test_memory_bound),
	KUNIT_CASE(msfc_test_small_quantum),
	KUNIT_CASE(msfc_test_small_quantum_isolate),
	KUNIT_CASE(msfc_test_invalid),
	KUNIT_CASE(msfc_test_ce_threshold),
	KUNIT_CASE(msfc_test_change_reset),
	KUNIT_CASE(msfc_test_change_listed_flows),
	KUNIT_CASE(msfc_test_graft),
	KUNIT_CASE(msfc_test_peek),
	KUNIT_CASE(msfc_test_shaper_rate),
	KUNIT_CASE(msfc_test_shaper_target),
	KUNIT_CASE(msfc_test_shaper_gate),
	KUNIT_CASE(msfc_test_auto),
	{}
};

static struct kunit_suite msfc_test_suite = {
	.name = "sch_msfc",
	.init = msfc_test_init,
	.exit = msfc_test_exit,
	.test_cases = msfc_test_cases,
};

kunit_test_suite(msfc_test_suite);
