// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-packet CPU cost of a device's root qdisc
 *
 * Any qdisc kind (msfc, fq_codel, pfifo, ...): the probe only uses the
 * qdisc's public enqueue/dequeue entry points, so it is built on its own
 * (CONFIG_NET_SCH_MSFC_BENCH, test kernels only).
 *
 *   echo "DEV FLOWS ROUNDS" > /sys/module/sch_msfc_bench/parameters/bench
 *   cat /sys/module/sch_msfc_bench/parameters/bench
 *
 * enqueues a batch of 256 synthetic IPv4/UDP packets (FLOWS 5-tuples, DSCP
 * CS1/BE/AF41 in turn, 64..1500 bytes) into the root qdisc of DEV in the
 * caller's network namespace and dequeues them again, ROUNDS times, under the
 * qdisc lock; reports ns per packet (enqueue + dequeue).  The packets are
 * reused and their flow hash cleared before every enqueue.
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
#include <linux/nsproxy.h>
#include <net/net_namespace.h>
#include <net/sch_generic.h>

#define MSFC_BENCH_BATCH 256

static char msfc_bench_result[160] = "idle";

static struct sk_buff *msfc_bench_skb(u32 i, u32 flows)
{
	struct sk_buff *skb = alloc_skb(128, GFP_KERNEL);
	static const u8 tos[3] = { 8 << 2, 0, 34 << 2 };
	struct iphdr *iph;
	struct udphdr *uh;

	if (!skb)
		return NULL;
	skb_reset_network_header(skb);
	iph = skb_put_zero(skb, sizeof(*iph) + sizeof(*uh));
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = tos[i % 3];
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

static int msfc_bench_set(const char *val, const struct kernel_param *kp)
{
	struct sk_buff **pool;
	char name[IFNAMSIZ + 1] = "";
	u32 flows = 64, rounds = 2000, r, i, n = 0, lost = 0;
	struct net_device *dev;
	struct Qdisc *sch;
	u64 t0, t1;
	int err = 0;

	if (sscanf(val, "%16s %u %u", name, &flows, &rounds) < 1 || !flows || !rounds)
		return -EINVAL;

	pool = kcalloc(MSFC_BENCH_BATCH, sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return -ENOMEM;
	rtnl_lock();
	dev = __dev_get_by_name(current->nsproxy->net_ns, name);
	sch = dev ? rtnl_dereference(dev->qdisc) : NULL;
	if (!sch || !sch->enqueue || sch == &noop_qdisc) {
		rtnl_unlock();
		kfree(pool);
		snprintf(msfc_bench_result, sizeof(msfc_bench_result),
			 "error: %s has no root qdisc to measure", name);
		return -ENODEV;
	}
	for (i = 0; i < MSFC_BENCH_BATCH; i++) {
		pool[i] = msfc_bench_skb(i, flows);
		if (!pool[i]) {
			err = -ENOMEM;
			goto out;
		}
	}
	n = MSFC_BENCH_BATCH;

	t0 = ktime_get_ns();
	for (r = 0; r < rounds; r++) {
		struct sk_buff *to_free = NULL;

		spin_lock_bh(qdisc_lock(sch));
		rcu_read_lock_bh();
		for (i = 0; i < n; i++) {
			skb_clear_hash(pool[i]);
			pool[i]->next = NULL;
			sch->enqueue(pool[i], sch, &to_free);
		}
		rcu_read_unlock_bh();
		for (i = 0; i < n; i++) {
			pool[i] = sch->dequeue(sch);
			if (!pool[i])
				break;
		}
		spin_unlock_bh(qdisc_lock(sch));
		/* a qdisc may drop (e.g. CoDel after a long run): keep the rest */
		if (i < n || to_free) {
			lost += n - i;
			n = i;
			kfree_skb_list(to_free);
		}
		if (!n)
			break;
		cond_resched();
	}
	t1 = ktime_get_ns();
	snprintf(msfc_bench_result, sizeof(msfc_bench_result),
		 "%s %s flows %u packets %llu ns_per_packet %llu lost %u",
		 name, sch->ops->id, flows, (u64)r * MSFC_BENCH_BATCH,
		 r ? div64_u64(t1 - t0, (u64)r * MSFC_BENCH_BATCH) : 0, lost);
out:
	for (i = 0; i < n; i++)
		kfree_skb(pool[i]);
	rtnl_unlock();
	kfree(pool);
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
MODULE_PARM_DESC(bench, "test kernels: \"DEV FLOWS ROUNDS\" measures the root qdisc of DEV");
