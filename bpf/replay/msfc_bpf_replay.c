// SPDX-License-Identifier: GPL-2.0-only
/*
 * Replay of cross-check traces (docs/algorithm.md, "Cross-check traces") into the root
 * qdisc of a device, packet by packet, for the BPF qdisc msfc_bpf (bpf/replay.py)
 *
 * A trace drives a queue disc with the class and the flow slot given.  The BPF qdisc
 * finds both itself, so each E packet is an IPv4/UDP packet whose DS field names the class
 * and whose flow hash, set as a NIC's receive hash is
 * (skb_set_hash), is the one reciprocal_scale() takes to the flow slot; its length is the
 * qdisc_skb_cb's pkt_len, as the stack sets it.  Each operation runs under the qdisc lock
 * as the stack runs it; the clock is the kernel's (the traces replayed have none: bpf/
 * replay.py loads the qdisc with a CoDel target no replay reaches).
 *
 *   echo "dev DEV flows N" > /proc/msfc_bpf_replay     a new replay: the qdisc, its flow count
 *   cat OPS > /proc/msfc_bpf_replay                     E <class> <flow> <len> | D, a line each
 *   cat /proc/msfc_bpf_replay                           the decisions, in the trace output
 *                                                       format; reading empties them
 *
 * <class> is a trace's (version 7): k, a packet of class k (0 .. 15), sent with DSCP k; kn,
 * an NQB packet of class k, sent with DSCP 16 + k; l, a packet of the least-effort lane,
 * sent with DSCP 32.  bpf/replay.py loads the qdisc with the DSCP map that undoes this
 * (k:k, 16+k:k+nqb, 32:le; docs/algorithm.md, "LE and NQB").
 *
 * Decisions: "<class> <flow> <len>" per packet dequeued (from the mark the packet was given:
 * its DSCP; k and kn print as k, the lane as l),
 * "-" for a dequeue that found nothing, "drop overload <class> <flow> <len>" per packet the
 * enqueue gave back to free, in the order the qdisc dropped them.
 */

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/in.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>
#include <linux/mutex.h>
#include <net/net_namespace.h>
#include <net/sch_generic.h>

#define REPLAY_OUT_MAX (4 << 20)
#define REPLAY_LINE_MAX 128
/* the DS fields of a trace's classes: k, then k + NQB for kn, and the lane */
#define REPLAY_DSCP_NQB 16
#define REPLAY_DSCP_LANE 32

static DEFINE_MUTEX(replay_lock);
static char replay_dev[IFNAMSIZ];
static u32 replay_flows = 1;
static char *replay_out;
static size_t replay_out_len;
static char replay_line[REPLAY_LINE_MAX];
static size_t replay_line_len;
static bool replay_overflow;

static void replay_emit(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (replay_overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(replay_out + replay_out_len, REPLAY_OUT_MAX - replay_out_len, fmt, ap);
	va_end(ap);
	if (n < 0 || replay_out_len + n >= REPLAY_OUT_MAX)
		replay_overflow = true;
	else
		replay_out_len += n;
}

/* The flow hash that reciprocal_scale(hash, flows) takes to slot @flow. */
static u32 replay_hash(u32 flow, u32 flows)
{
	return (u32)div_u64(((u64)flow << 32) + flows - 1, flows);
}

/* A trace's class token ("3", "3n", "l"): its DSCP, or -EINVAL. */
static int replay_dscp(const char *tok)
{
	size_t n = strlen(tok);
	bool nqb = n > 1 && tok[n - 1] == 'n';
	unsigned int k;
	char num[4];

	if (!strcmp(tok, "l"))
		return REPLAY_DSCP_LANE;
	if (nqb)
		n--;
	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, tok, n);
	num[n] = '\0';
	if (kstrtouint(num, 10, &k) || k > 15)
		return -EINVAL;
	return nqb ? REPLAY_DSCP_NQB + k : k;
}

static struct sk_buff *replay_skb(u32 dscp, u32 flow, u32 len)
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
	iph->tos = dscp << 2;
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->tot_len = htons(sizeof(*iph) + sizeof(*uh));
	iph->saddr = htonl(0x0a000001);
	iph->daddr = htonl(0x0a000002);
	skb_set_transport_header(skb, sizeof(*iph));
	uh = (struct udphdr *)(iph + 1);
	uh->source = htons(10000 + flow);
	uh->dest = htons(5001);
	skb->protocol = htons(ETH_P_IP);
	skb->mark = dscp << 16 | flow;
	skb_set_hash(skb, replay_hash(flow, replay_flows), PKT_HASH_TYPE_L4);
	qdisc_skb_cb(skb)->pkt_len = len;
	return skb;
}

static void replay_report(const char *what, struct sk_buff *skb)
{
	u32 dscp = skb->mark >> 16;

	if (dscp == REPLAY_DSCP_LANE)
		replay_emit("%sl %u %u\n", what, skb->mark & 0xffff, qdisc_skb_cb(skb)->pkt_len);
	else
		replay_emit("%s%u %u %u\n", what, dscp % REPLAY_DSCP_NQB, skb->mark & 0xffff,
			    qdisc_skb_cb(skb)->pkt_len);
}

/* One operation of a trace (or the set-up line); under RTNL. */
static int replay_op(char *line)
{
	struct sk_buff *skb, *to_free = NULL, *rev = NULL;
	struct net_device *dev;
	struct Qdisc *sch;
	u32 flow, len;
	char name[IFNAMSIZ + 1], tok[8];
	int dscp;

	if (sscanf(line, "dev %16s flows %u", name, &flow) == 2) {
		if (!flow || flow > 65536)
			return -EINVAL;
		/* a new replay: its decisions only */
		strscpy(replay_dev, name, sizeof(replay_dev));
		replay_flows = flow;
		replay_out_len = 0;
		replay_overflow = false;
		return 0;
	}
	dev = __dev_get_by_name(&init_net, replay_dev);
	sch = dev ? rtnl_dereference(dev->qdisc) : NULL;
	if (!sch || !sch->enqueue || sch == &noop_qdisc)
		return -ENODEV;
	if (line[0] == 'D' && !line[1]) {
		spin_lock_bh(qdisc_lock(sch));
		skb = sch->dequeue(sch);
		spin_unlock_bh(qdisc_lock(sch));
		if (!skb) {
			replay_emit("-\n");
			return 0;
		}
		replay_report("", skb);
		kfree_skb(skb);
		return 0;
	}
	if (sscanf(line, "E %7s %u %u", tok, &flow, &len) != 3 || flow >= replay_flows ||
	    flow > 0xffff)
		return -EINVAL;
	dscp = replay_dscp(tok);
	if (dscp < 0)
		return dscp;
	skb = replay_skb(dscp, flow, len);
	if (!skb)
		return -ENOMEM;
	spin_lock_bh(qdisc_lock(sch));
	rcu_read_lock_bh();
	sch->enqueue(skb, sch, &to_free);
	rcu_read_unlock_bh();
	spin_unlock_bh(qdisc_lock(sch));
	/* the list is built head first: the first drop is its last entry */
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
		replay_report("drop overload ", skb);
		kfree_skb(skb);
	}
	return 0;
}

static ssize_t replay_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	size_t i;
	int err = 0;
	char c;

	mutex_lock(&replay_lock);
	rtnl_lock();
	for (i = 0; i < count && !err; i++) {
		if (get_user(c, buf + i)) {
			err = -EFAULT;
			break;
		}
		if (c != '\n') {
			if (replay_line_len + 1 >= REPLAY_LINE_MAX)
				err = -EINVAL;
			else
				replay_line[replay_line_len++] = c;
			continue;
		}
		replay_line[replay_line_len] = '\0';
		replay_line_len = 0;
		if (replay_line[0])
			err = replay_op(replay_line);
		cond_resched();
	}
	rtnl_unlock();
	mutex_unlock(&replay_lock);
	return err ? err : count;
}

static ssize_t replay_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	ssize_t n;

	mutex_lock(&replay_lock);
	if (replay_overflow) {
		n = -EFBIG;
	} else {
		n = simple_read_from_buffer(buf, count, ppos, replay_out, replay_out_len);
		if (n == 0) {	/* read to the end: the next replay starts afresh */
			replay_out_len = 0;
			*ppos = 0;
		}
	}
	mutex_unlock(&replay_lock);
	return n;
}

static const struct proc_ops replay_ops = {
	.proc_write = replay_write,
	.proc_read = replay_read,
	.proc_lseek = noop_llseek,
};

static int __init replay_init(void)
{
	replay_out = kvmalloc(REPLAY_OUT_MAX, GFP_KERNEL);
	if (!replay_out)
		return -ENOMEM;
	if (!proc_create("msfc_bpf_replay", 0600, NULL, &replay_ops)) {
		kvfree(replay_out);
		return -ENOMEM;
	}
	return 0;
}

static void __exit replay_exit(void)
{
	remove_proc_entry("msfc_bpf_replay", NULL);
	kvfree(replay_out);
}

module_init(replay_init);
module_exit(replay_exit);
MODULE_DESCRIPTION("Replay of MSFC cross-check traces into a device's root qdisc");
MODULE_LICENSE("GPL");
