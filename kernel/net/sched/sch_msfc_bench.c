// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-packet CPU cost of a device's root qdisc
 *
 * Any qdisc kind (msfc, fq_codel, cake, pfifo, ...): the probe only uses the
 * qdisc's public enqueue/dequeue entry points, so it is built on its own:
 * built in with CONFIG_NET_SCH_MSFC_BENCH (test kernels), or as an
 * out-of-tree module against a distribution kernel's headers (it needs no
 * kernel option beyond NET_SCHED).
 *
 *   echo "DEV FLOWS ROUNDS [keephash] [noparts]" > /sys/module/sch_msfc_bench/parameters/bench
 *   cat /sys/module/sch_msfc_bench/parameters/bench
 *
 * enqueues a batch of 256 synthetic IPv4/UDP packets (DSCP CS1/BE/AF41 in
 * turn, 64..1500 bytes, the UDP source port cycling through FLOWS values, so
 * FLOWS 5-tuples, also above the batch size) into the root qdisc of DEV in
 * the caller's network namespace and dequeues them again, ROUNDS times, under
 * the qdisc lock.  The packets are reused and their flow hash cleared before
 * every enqueue, so a qdisc dissects every packet; with "keephash" the hash
 * is set instead, as a NIC's receive hash or a local socket sets it.
 *
 * Reported, as "key value" pairs: ns_per_packet, the median over the rounds
 * of a round's enqueue + dequeue time per packet (a round the CPU spent
 * elsewhere, e.g. a preempted virtual CPU, lands in the tail, not in the
 * median), mean_ns, the mean over all packets, and lost, the packets the
 * qdisc dropped; and, timed the same way, what two common parts of a qdisc's
 * work cost here: hash_ns, dissecting a packet's flow and hashing it
 * (skb_get_hash() of a cleared skb), and clock_ns, one ktime_get_ns()
 * (CoDel's time read); "noparts" leaves these out (e.g. while a profiler
 * samples the qdisc).
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/in.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/sysfs.h>
#include <linux/sched.h>
#include <linux/sort.h>
#include <linux/nsproxy.h>
#include <net/net_namespace.h>
#include <net/sch_generic.h>

#define MSFC_BENCH_BATCH 256

static char msfc_bench_result[256] = "idle";

static const u8 msfc_bench_tos[3] = { 8 << 2, 0, 34 << 2 };

static struct sk_buff *msfc_bench_skb(u32 i, u32 flows)
{
	struct sk_buff *skb = alloc_skb(128, GFP_KERNEL);
	struct iphdr *iph;
	struct udphdr *uh;

	if (!skb)
		return NULL;
	skb_reset_network_header(skb);
	iph = skb_put_zero(skb, sizeof(*iph) + sizeof(*uh));
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = msfc_bench_tos[i % 3];
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->tot_len = htons(sizeof(*iph) + sizeof(*uh));
	iph->saddr = htonl(0x0a000001);
	iph->daddr = htonl(0x0a000002);
	skb_set_transport_header(skb, sizeof(*iph));
	uh = (struct udphdr *)(iph + 1);
	uh->source = htons(10000 + i % flows);
	uh->dest = htons(5001);
	skb->protocol = htons(ETH_P_IP);
	qdisc_skb_cb(skb)->pkt_len = 64 + (i * 379) % 1437;
	return skb;
}

/* Give a packet the flow (source port) 10000 + flow and, with keep_hash, the
 * flow hash a NIC or socket would have set; otherwise clear the hash.
 */
static void msfc_bench_mark(struct sk_buff *skb, u32 flow, bool keep_hash)
{
	u32 port = 10000 + flow;

	udp_hdr(skb)->source = htons(port);
	skb->next = NULL;
	if (keep_hash)
		skb_set_hash(skb, port * 0x9e3779b1U, PKT_HASH_TYPE_L4);
	else
		skb_clear_hash(skb);
}

static int msfc_bench_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* Median of the first n per-round values (reorders them). */
static u32 msfc_bench_median(u32 *v, u32 n)
{
	if (!n)
		return 0;
	sort(v, n, sizeof(*v), msfc_bench_cmp, NULL);
	return v[n / 2];
}

/* Median ns per skb_get_hash() of a cleared skb and per ktime_get_ns(). */
static void msfc_bench_parts(struct sk_buff **pool, u32 n, u32 rounds,
			     u32 *per_round, u32 *hash_ns, u32 *clock_ns)
{
	u64 t0;
	u32 r, i;

	for (r = 0; r < rounds; r++) {
		t0 = ktime_get_ns();
		for (i = 0; i < n; i++) {
			skb_clear_hash(pool[i]);
			skb_get_hash(pool[i]);
		}
		per_round[r] = div_u64(ktime_get_ns() - t0, n);
		cond_resched();
	}
	*hash_ns = msfc_bench_median(per_round, rounds);
	for (r = 0; r < rounds; r++) {
		t0 = ktime_get_ns();
		for (i = 0; i < n; i++)
			ktime_get_ns();
		per_round[r] = div_u64(ktime_get_ns() - t0, n);
		cond_resched();
	}
	*clock_ns = msfc_bench_median(per_round, rounds);
}

static int msfc_bench_set(const char *val, const struct kernel_param *kp)
{
	u32 flows = 64, rounds = 2000, r, i, n = 0, lost = 0, flow = 0, done = 0;
	char name[IFNAMSIZ + 1] = "", flag[2][16] = { "", "" };
	u32 *per_round, hash_ns = 0, clock_ns = 0;
	u64 t0, dt, t_sum = 0, sent = 0;
	struct sk_buff **pool;
	struct net_device *dev;
	struct Qdisc *sch;
	bool keep_hash = false, parts = true;
	int err = 0;

	if (sscanf(val, "%16s %u %u %15s %15s", name, &flows, &rounds, flag[0],
		   flag[1]) < 1 || !flows || !rounds || rounds > 1000000)
		return -EINVAL;
	for (i = 0; i < 2; i++) {
		if (!strcmp(flag[i], "keephash"))
			keep_hash = true;
		else if (!strcmp(flag[i], "noparts"))
			parts = false;
		else if (flag[i][0])
			return -EINVAL;
	}

	pool = kcalloc(MSFC_BENCH_BATCH, sizeof(*pool), GFP_KERNEL);
	per_round = kvmalloc_array(rounds, sizeof(*per_round), GFP_KERNEL);
	if (!pool || !per_round) {
		kfree(pool);
		kvfree(per_round);
		return -ENOMEM;
	}
	rtnl_lock();
	dev = __dev_get_by_name(current->nsproxy->net_ns, name);
	sch = dev ? rtnl_dereference(dev->qdisc) : NULL;
	if (!sch || !sch->enqueue || sch == &noop_qdisc) {
		snprintf(msfc_bench_result, sizeof(msfc_bench_result),
			 "error: %s has no root qdisc to measure", name);
		err = -ENODEV;
		goto out;
	}
	for (i = 0; i < MSFC_BENCH_BATCH; i++) {
		pool[i] = msfc_bench_skb(i, flows);
		if (!pool[i]) {
			err = -ENOMEM;
			goto out;
		}
		n = i + 1;
	}

	for (r = 0; r < rounds; r++) {
		struct sk_buff *to_free = NULL;
		u32 got;

		t0 = ktime_get_ns();
		spin_lock_bh(qdisc_lock(sch));
		rcu_read_lock_bh();
		for (i = 0; i < n; i++) {
			msfc_bench_mark(pool[i], flow, keep_hash);
			if (++flow == flows)
				flow = 0;
			sch->enqueue(pool[i], sch, &to_free);
		}
		rcu_read_unlock_bh();
		for (got = 0; got < n; got++) {
			pool[got] = sch->dequeue(sch);
			if (!pool[got])
				break;
		}
		spin_unlock_bh(qdisc_lock(sch));
		dt = ktime_get_ns() - t0;
		t_sum += dt;
		sent += n;
		per_round[done++] = div_u64(dt, n);
		/* a qdisc may drop (e.g. CoDel after a long run): keep the rest */
		if (got < n || to_free) {
			lost += n - got;
			n = got;
			kfree_skb_list(to_free);
		}
		if (!n)
			break;
		cond_resched();
	}
	snprintf(msfc_bench_result, sizeof(msfc_bench_result),
		 "%s %s flows %u rounds %u packets %llu ns_per_packet %u mean_ns %llu lost %u",
		 name, sch->ops->id, flows, done, sent,
		 msfc_bench_median(per_round, done), div64_u64(t_sum, sent),
		 lost);
	if (n && parts) {
		msfc_bench_parts(pool, n, rounds, per_round, &hash_ns, &clock_ns);
		i = strlen(msfc_bench_result);
		snprintf(msfc_bench_result + i, sizeof(msfc_bench_result) - i,
			 " hash_ns %u clock_ns %u", hash_ns, clock_ns);
	}
	if (keep_hash)
		strlcat(msfc_bench_result, " keephash",
			sizeof(msfc_bench_result));
out:
	for (i = 0; i < n; i++)
		kfree_skb(pool[i]);
	rtnl_unlock();
	kfree(pool);
	kvfree(per_round);
	return err;
}

static int msfc_bench_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", msfc_bench_result);
}

static const struct kernel_param_ops msfc_bench_ops = {
	.set = msfc_bench_set,
	.get = msfc_bench_get,
};
module_param_cb(bench, &msfc_bench_ops, NULL, 0600);
MODULE_PARM_DESC(bench, "\"DEV FLOWS ROUNDS [keephash] [noparts]\" measures the root qdisc of DEV");
MODULE_DESCRIPTION("Per-packet CPU cost probe of a device's root qdisc");
MODULE_LICENSE("GPL");
