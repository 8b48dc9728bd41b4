#!/usr/bin/python3
"""Netlink fuzzer of sch_msfc, run as the workload of a User-Mode Linux kernel (fuzz_init.sh).

Raw rtnetlink (no tc in the loop), seeded and reproducible: the same --seed gives the same
sequence of requests and packets.  It adds, changes, replaces (also by and with another qdisc
kind) and deletes msfc as root qdisc, as child of tbf and as leaf of an htb class, with random
and boundary values of every TCA_MSFC_* attribute, wrong lengths, NLA_F_NESTED where it does
not belong or missing, malformed nests, trailing bytes, duplicate and unknown attributes, and
changes one or two parameters at a time to valid values (isolate, boost, order, auto,
inversion, weights, overload, prios, flows, quantum, ratio and the others).

Traffic is sent by the fuzzer itself, synchronously, in bursts between the requests: UDP
frames of several flows, DSCPs (ECT or not; DSCP 0, the packets auto unmarked classifies
by their flow, and marked ones), socket priorities (10:N selects a class),
source and destination hosts (IPv4 and IPv6 through a packet socket, and UDP sockets bound
to addresses of the veth), and non-IP frames.  After a burst it waits (guest time: with
time-travel=inf-cpu a sleep only moves the clock) until the device has sent everything, or
for part of that, or not at all, so a request meets msfc busy (packets queued) or idle; as
leaf of htb an idle msfc still lists the flows it emptied last (htb does not dequeue an
empty leaf again), the state in which a change of isolate once left a stale flow behind
(a divide error in msfc_dequeue at the next packet).

An oracle holds the ranges of pkt_sched_msfc.h (docs/algorithm.md and tc-msfc.8 state them)
and checks after every request:
  - a request the oracle calls valid is accepted (the only allowed refusals: a prios/flows or
    isolate change while packets are queued (EBUSY; never on an idle qdisc), an allocation
    failure (ENOMEM)) and the dumped options equal the expected configuration;
  - a request the oracle calls invalid is refused, and the qdisc is unchanged;
  - every refusal carries an extack message;
  - the statistics are consistent (qlen <= limit + 1 peeked packet, memory_usage <=
    memory_limit; an empty qdisc holds no bytes and no memory; every packet of a burst is
    either sent or dropped once the device is idle);
  - a backlog drains (no stall) within twice the time the parent's rate needs, plus 2 s.
Every operation is logged before it is sent ("fuzz: #N ..."), so a kernel report in the log
follows the operation that caused it.
With --flood it instead measures the memory bound: minimum-size frames of 4096 flows flood a
small memory_limit behind a 1 Mbit/s tbf; memory_usage is sampled as fast as netlink allows.

Usage: fuzz_netlink.py --seed N --ops N --result FILE [--flood SECONDS]
"""

import argparse
import errno
import json
import os
import random
import socket
import struct
import subprocess
import sys
import time

# rtnetlink
RTM_NEWQDISC, RTM_DELQDISC, RTM_GETQDISC, RTM_GETTCLASS = 36, 37, 38, 42
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NLM_F_REPLACE, NLM_F_EXCL, NLM_F_CREATE = 0x100, 0x200, 0x400
NLM_F_ACK_TLVS = 0x200
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLMSGERR_ATTR_MSG = 1
SOL_NETLINK, NETLINK_CAP_ACK, NETLINK_EXT_ACK = 270, 10, 11
NLA_F_NESTED = 0x8000
TCA_KIND, TCA_OPTIONS, TCA_STATS2, TCA_XSTATS = 1, 2, 7, 4
TCA_STATS_BASIC, TCA_STATS_QUEUE, TCA_STATS_APP = 1, 3, 4

# include/uapi/linux/pkt_sched_msfc.h
(
    PRIOS,
    FLOWS,
    QUANTUM,
    RATIO,
    TARGET,
    INTERVAL,
    LIMIT,
    MEMORY_LIMIT,
    DROP_BATCH,
    ECN,
    DSCP_MAP,
    OVERLOAD,
    WEIGHTS,
    INVERSION,
    ISOLATE,
    BOOST,
    ORDER,
    QUANTA,
    PAD,
    BANDWIDTH,
    OVERHEAD,
    RAW,
    MPU,
    FRAMING,
    INGRESS,
    AUTO,
    CE_THRESHOLD,
    CE_SELECTOR,
    CE_MASK,
) = range(1, 30)
MSFC_MAX = CE_MASK
# PAD only aligns the dumped u64: the qdisc's policy refuses it (sent as an unknown attribute)
ATTRS = [t for t in range(PRIOS, MSFC_MAX + 1) if t != PAD]
U32_ATTRS = [t for t in ATTRS if t not in (DSCP_MAP, QUANTA, BANDWIDTH, OVERHEAD, CE_THRESHOLD)]
# the attributes that are lists of u32s (their entries checked by the qdisc, in the last
# instance of a duplicate only)
LIST_ATTRS = (QUANTA, CE_THRESHOLD)
# the shaper's attributes: dumped only when they differ from no shaper (OVERHEAD: None when
# the length is raw, the default); RAW is never dumped, the model has OVERHEAD None for it
SHAPER_DEFAULTS = {BANDWIDTH: 0, OVERHEAD: None, MPU: 0, FRAMING: 0, INGRESS: 0}
NAMES = {
    PRIOS: "prios",
    FLOWS: "flows",
    QUANTUM: "quantum",
    RATIO: "ratio",
    TARGET: "target",
    INTERVAL: "interval",
    LIMIT: "limit",
    MEMORY_LIMIT: "memory_limit",
    DROP_BATCH: "drop_batch",
    ECN: "ecn",
    DSCP_MAP: "dscp_map",
    OVERLOAD: "overload",
    WEIGHTS: "weights",
    INVERSION: "inversion",
    ISOLATE: "isolate",
    BOOST: "boost",
    ORDER: "order",
    QUANTA: "quanta",
    PAD: "pad",
    BANDWIDTH: "bandwidth",
    OVERHEAD: "overhead",
    RAW: "raw",
    MPU: "mpu",
    FRAMING: "framing",
    INGRESS: "ingress",
    AUTO: "auto",
    CE_THRESHOLD: "ce_threshold",
    CE_SELECTOR: "ce_threshold_selector",
    CE_MASK: "ce_threshold_mask",
}
U32_MAX = 2**32 - 1
# the ranges and defaults of include/uapi/linux/pkt_sched_msfc.h, through the msfc package's
# reader of that header (python/msfc/model/params.py needs nothing but the standard library; the
# boot's init puts the checkout's python/ on PYTHONPATH, test/uml_env.sh)
from msfc.model import params as _params  # noqa: E402
from msfc.model.reference import TraceError as _TraceError  # noqa: E402
from msfc.model.reference import class_quanta as _class_quanta  # noqa: E402

_DEFS = _params.definitions()
RANGES = {
    t: (_DEFS.params[NAMES[t]].min, _DEFS.params[NAMES[t]].max) for t in range(PRIOS, ECN + 1)
}
RANGES.update(
    {
        t: (_DEFS.choices[NAMES[t]].min, _DEFS.choices[NAMES[t]].max)
        for t in (OVERLOAD, WEIGHTS, INVERSION, ISOLATE, BOOST, ORDER, AUTO)
    }
)
RANGES.update(
    {
        t: (_DEFS.shaper[NAMES[t]].min, _DEFS.shaper[NAMES[t]].max)
        for t in (BANDWIDTH, OVERHEAD, RAW, MPU, FRAMING, INGRESS)
    }
)
RANGES.update(
    {
        t: (_DEFS.ce[NAMES[t]].min, _DEFS.ce[NAMES[t]].max)
        for t in (CE_THRESHOLD, CE_SELECTOR, CE_MASK)
    }
)
BANDWIDTH_MAX = RANGES[BANDWIDTH][1]
# bandwidths (bytes/s) at which CoDel's target stays the default even for the largest charged
# MTU (1500 + 256 bytes in ATM cells, 1961 bytes: 1.5 of them take under 5 ms at 600000
# bytes/s), so the model's target and interval need no rule of the rate; lower rates are
# the KUnit suite's and the boot test's
BANDWIDTH_VALUES = [0, 625_000, 1_250_000, 12_500_000, 125_000_000, 1_250_000_000, BANDWIDTH_MAX]
BUSY_MSG = _DEFS.resize_busy_msg
ISOLATE_BUSY_MSG = _DEFS.isolate_busy_msg
# boost across: new flows go ahead of the class round (a change to or from it is counted)
BOOST_ACROSS = _params.CHOICES["boost"].index("across")
# quanta: u32 byte counts, one per class, each in quantum's range (an empty list: from ratio)
QUANTA_RANGE = (_DEFS.params["quantum"].min, _DEFS.params["quantum"].max)
QUANTA_VALUES = [1, 95, 378, 757, 1514, 3000, QUANTA_RANGE[1]]
# ce_threshold (L4S marking): u32 us, one for every class or one per class, an entry OFF
# for none in its class (an empty list: none)
CE_OFF = _DEFS.ce_threshold_off
CE_VALUES = [0, 1, 500, 1000, 5000, CE_OFF, RANGES[CE_THRESHOLD][1]]

DEV = "va"
HANDLE = 0x000A0000  # 10:
TBF_HANDLE = 0x00010000  # 1: (tbf or htb)
TC_H_ROOT = 0xFFFFFFFF
# msfc's place, switched every SEGMENT operations in this order: as leaf of an htb class
# (htb stops dequeuing a leaf once it is empty: an idle msfc keeps its flows listed), as
# child of a tbf (which peeks), at the root of the veth (drained at once)
PARENT_CYCLE = ("htb", "tbf", "htb", "root")
SEGMENT = 250
PARENT_RATE = {"htb": 10_000_000, "tbf": 2_000_000}  # bit/s
# traffic: raw frames carry any addresses; the UDP sockets are bound to UDP_SRC addresses of
# the veth and send to UDP_DST addresses (routed on the veth, with permanent neighbours)
SRC_HOSTS = [f"10.0.0.{i}" for i in range(1, 7)]
DST_HOSTS = [f"10.1.0.{i}" for i in range(1, 7)]
SRC6_HOSTS = [f"fd00::1:{i}" for i in range(1, 4)]
DST6_HOSTS = [f"fd00::2:{i}" for i in range(1, 4)]
UDP_SRC = [f"10.2.0.{i}" for i in range(1, 5)]
UDP_DST = [f"10.3.0.{i}" for i in range(1, 5)]
# DSCPs of every class of the default map (LE: its lane), and one of them with each ECN
# codepoint; the random maps give them NQB entries and the lane too
DSCPS = [0, 1, 8, 10, 18, 26, 34, 46, 48, 56]


def default_dscp_map():
    return list(_DEFS.default_dscp_map)


# DSCP map entries (docs/algorithm.md, "LE and NQB"): every entry the UAPI defines (a class,
# TC_MSFC_DSCP_NQB + a class, TC_MSFC_DSCP_LE), and values it does not (a class above the
# mask, alone or with NQB; LE with NQB or a class; others); the header's numbers and the
# oracle (params.valid_map_entry) through the msfc package
DSCP_LE, DSCP_NQB, DSCP_CLASS_MASK = _DEFS.dscp_le, _DEFS.dscp_nqb, _DEFS.dscp_class_mask
DSCP_ENTRIES = [*range(DSCP_CLASS_MASK + 1)]
DSCP_ENTRIES += [DSCP_NQB | c for c in range(DSCP_CLASS_MASK + 1)] + [DSCP_LE]
DSCP_BAD_ENTRIES = [DSCP_CLASS_MASK + 1, DSCP_NQB | (DSCP_CLASS_MASK + 1), 100, 200, 255]
DSCP_BAD_ENTRIES += [DSCP_LE | DSCP_NQB, DSCP_LE | 1]


def dscp_map_valid(m):
    """64 entries, each one the qdisc takes (the attribute's length is the policy's)."""
    return len(m) == 64 and all(_params.valid_map_entry(v) for v in m)


def defaults():
    d = {t: _DEFS.params[NAMES[t]].default for t in range(PRIOS, ECN + 1)}
    d[QUANTUM] = 1514  # the device's MTU + link header: psched_mtu() of the veth
    d[DSCP_MAP] = default_dscp_map()
    d[QUANTA] = []  # the class quanta from quantum and ratio
    d[CE_THRESHOLD] = []  # no L4S marking
    d[CE_SELECTOR] = _DEFS.ce["ce_threshold_selector"].default
    d[CE_MASK] = _DEFS.ce["ce_threshold_mask"].default
    d.update(SHAPER_DEFAULTS)
    d.update(
        {
            t: _DEFS.choices[NAMES[t]].default
            for t in (OVERLOAD, WEIGHTS, INVERSION, ISOLATE, BOOST, ORDER, AUTO)
        }
    )
    return d


def apply_attrs(base, attrs):
    """The configuration after a request that sets attrs: RAW 1 (the only valid value the
    fuzzer sends) makes the length raw, an OVERHEAD without it ends raw."""
    new = {**base, **{t: v for t, v in attrs.items() if t != RAW}}
    if attrs.get(RAW) == 1:
        new[OVERHEAD] = None
    return new


def codel_units(us):
    return (us * 1000) >> 10


def config_valid(c):
    """The documented cross-parameter rules (ranges are checked per attribute)."""
    if codel_units(c[TARGET]) < 1 or codel_units(c[TARGET]) >= codel_units(c[INTERVAL]):
        return False
    if len(c.get(CE_THRESHOLD, [])) > 1 and len(c[CE_THRESHOLD]) != c[PRIOS]:
        return False  # one threshold for every class, or one per class
    if c.get(CE_SELECTOR, 0) & ~c.get(CE_MASK, 0):
        return False  # the selector's bits within its mask
    if c.get(QUANTA):  # explicit class quanta: one per class; within both bounds
        return len(c[QUANTA]) == c[PRIOS]
    # the class quanta as the reference model derives them: refused above 2^40 bytes, and
    # with weights exact (1/65536 byte) when a share could be off by more than 0.5 %
    try:
        _class_quanta(c[PRIOS], c[QUANTUM], c[RATIO], c.get(WEIGHTS, 0) == 1)
    except _TraceError:
        return False
    return True


# ---------------------------------------------------------------------------------------
# netlink


def nla(atype, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, atype) + payload + b"\0" * ((4 - n % 4) % 4)


def parse_attrs(buf):
    out, off = {}, 0
    while off + 4 <= len(buf):
        n, t = struct.unpack_from("=HH", buf, off)
        if n < 4:
            break
        out[t & 0x3FFF] = buf[off + 4 : off + n]
        off += (n + 3) & ~3
    return out


class Netlink:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
        self.s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.s.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.s.bind((0, 0))
        self.seq = 0

    def request(self, mtype, flags, body):
        """Send one request; returns (errno, extack message, [reply payloads])."""
        self.seq += 1
        msg = struct.pack("=IHHII", 16 + len(body), mtype, flags | NLM_F_REQUEST, self.seq, 0)
        self.s.send(msg + body)
        replies = []
        while True:
            data = self.s.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                n, t, f, seq, _ = struct.unpack_from("=IHHII", data, off)
                payload = data[off + 16 : off + n]
                off += (n + 3) & ~3
                if seq != self.seq:
                    continue
                if t == NLMSG_DONE:
                    return 0, None, replies
                if t == NLMSG_ERROR:
                    err = -struct.unpack_from("=i", payload)[0]
                    msg = None
                    if f & NLM_F_ACK_TLVS:
                        tl = parse_attrs(payload[4 + 16 :])
                        if NLMSGERR_ATTR_MSG in tl:
                            msg = tl[NLMSGERR_ATTR_MSG].rstrip(b"\0").decode(errors="replace")
                    return err, msg, replies
                replies.append((t, payload))


def tcmsg(ifindex, handle, parent):
    return struct.pack("=BBHiIII", 0, 0, 0, ifindex, handle, parent, 0)


class Qdiscs:
    """Requests and dumps of the qdiscs of one device."""

    def __init__(self, nl, ifindex):
        self.nl, self.ifindex = nl, ifindex

    def modify(self, flags, handle, parent, kind, options=None, mtype=RTM_NEWQDISC):
        body = tcmsg(self.ifindex, handle, parent)
        if kind is not None:
            body += nla(TCA_KIND, kind)
        if options is not None:
            body += options
        return self.nl.request(mtype, flags | NLM_F_ACK, body)

    def dump(self):
        """{handle: {"kind", "parent", "options", "stats"}} of the device."""
        err, msg, replies = self.nl.request(RTM_GETQDISC, NLM_F_DUMP, tcmsg(0, 0, 0))
        if err:
            raise RuntimeError(f"qdisc dump failed: {err} {msg}")
        out = {}
        for _, p in replies:
            _, _, _, ifindex, handle, parent, _ = struct.unpack_from("=BBHiIII", p)
            if ifindex != self.ifindex:
                continue
            a = parse_attrs(p[20:])
            entry = {"kind": a.get(TCA_KIND, b"").rstrip(b"\0").decode(), "parent": parent}
            if TCA_OPTIONS in a:
                entry["options"] = parse_attrs(a[TCA_OPTIONS])
            if TCA_STATS2 in a:
                st = parse_attrs(a[TCA_STATS2])
                entry["stats"] = st
            out[handle] = entry
        return out

    def classes(self, parent):
        err, _, replies = self.nl.request(RTM_GETTCLASS, NLM_F_DUMP, tcmsg(self.ifindex, 0, parent))
        return err, len(replies)


def msfc_stats(entry):
    """qlen, backlog, drops, sent bytes and the msfc xstats of a dump entry."""
    st = entry.get("stats", {})
    out = {}
    if TCA_STATS_BASIC in st:
        out["bytes"], out["packets"] = struct.unpack_from("=QI", st[TCA_STATS_BASIC])
    if TCA_STATS_QUEUE in st:
        out["qlen"], out["backlog"], out["drops"], _, _ = struct.unpack_from(
            "=IIIII", st[TCA_STATS_QUEUE]
        )
    app = st.get(TCA_STATS_APP)
    if app and len(app) >= 8 + 88 and struct.unpack_from("=I", app)[0] == 0:
        # auto's counters, after the shaper's bandwidth and throttled
        out["auto_promotions"], out["auto_demotions"] = struct.unpack_from("=QQ", app, 8 + 72)
    if app and len(app) >= 8 + 96 and struct.unpack_from("=I", app)[0] == 0:
        # ce_threshold's marks, after auto's counters
        (out["ce_threshold_marks"],) = struct.unpack_from("=Q", app, 8 + 88)
    if app and len(app) >= 8 + 104 and struct.unpack_from("=I", app)[0] == 0:
        # NQB flows moved by queue protection, after ce_threshold's marks
        (out["nqb_demotions"],) = struct.unpack_from("=Q", app, 8 + 96)
    if app and len(app) >= 8 + 56:
        (t,) = struct.unpack_from("=I", app)
        if t == 0:
            (
                out["codel_drops"],
                out["overload_drops"],
                out["overmemory_drops"],
                out["ecn_marks"],
                out["overload_events"],
                out["maxpacket"],
                out["memory_usage"],
                out["active_classes"],
                out["active_flows"],
            ) = struct.unpack_from("=QQQQQIIII", app, 8)
    return out


def decode_options(opts):
    c = {}
    for t in U32_ATTRS:
        if t in opts:
            c[t] = struct.unpack("=I", opts[t][:4])[0]
    if DSCP_MAP in opts:
        c[DSCP_MAP] = list(opts[DSCP_MAP][:64])
    q = opts.get(QUANTA, b"")  # dumped only when set
    c[QUANTA] = list(struct.unpack(f"={len(q) // 4}I", q[: len(q) // 4 * 4]))
    q = opts.get(CE_THRESHOLD, b"")  # dumped only when set
    c[CE_THRESHOLD] = list(struct.unpack(f"={len(q) // 4}I", q[: len(q) // 4 * 4]))
    c.update(SHAPER_DEFAULTS)  # the shaper's attributes: dumped only when set
    for t in (MPU, FRAMING, INGRESS):
        if t in opts:
            c[t] = struct.unpack("=I", opts[t][:4])[0]
    c.pop(RAW, None)
    if BANDWIDTH in opts:
        c[BANDWIDTH] = struct.unpack("=Q", opts[BANDWIDTH][:8])[0]
    if OVERHEAD in opts:
        c[OVERHEAD] = struct.unpack("=i", opts[OVERHEAD][:4])[0]
    return c


def quanta_valid(v):
    """Entries in range and no more than classes can be (the count is config_valid's)."""
    return len(v) <= _DEFS.params["prios"].max and all(
        QUANTA_RANGE[0] <= x <= QUANTA_RANGE[1] for x in v
    )


def ce_threshold_valid(v):
    """Entries in range or off, and no more than classes can be (the count is
    config_valid's)."""
    lo, hi = RANGES[CE_THRESHOLD]
    return len(v) <= _DEFS.params["prios"].max and all(x == CE_OFF or lo <= x <= hi for x in v)


def list_valid(t, v):
    return quanta_valid(v) if t == QUANTA else ce_threshold_valid(v)


def payload_of(t, v):
    """An attribute's payload: the DSCP map's bytes, a list's u32s, or a u32."""
    if t == DSCP_MAP:
        return bytes(v)
    if t in LIST_ATTRS:
        return struct.pack(f"={len(v)}I", *v)
    if t == BANDWIDTH:
        return struct.pack("=Q", v)
    if t == OVERHEAD:
        return struct.pack("=i", v)
    return struct.pack("=I", v)


# ---------------------------------------------------------------------------------------
# traffic


def traffic(ifindex, seed, flows, min_size, stop_after=None):
    """Child process: frames of `flows` UDP flows (and some non-IP frames) through DEV."""
    rng = random.Random(seed)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((DEV, 0))
    s.setblocking(False)
    t_end = time.time() + stop_after if stop_after else None
    eth = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01"
    n = 0
    while t_end is None or time.time() < t_end:
        if not min_size and rng.random() < 0.05:
            # priority major 10: selects the class directly (minor 0..20, clamped)
            s.setsockopt(
                socket.SOL_SOCKET,
                socket.SO_PRIORITY,
                rng.choice([0, 6, HANDLE | rng.randrange(0, 21)]),
            )
        if not min_size and rng.random() < 0.03:
            frame = eth + b"\x08\x06" + bytes(rng.randrange(28, 100))  # ARP: non-IP
        else:
            size = 18 if min_size else rng.choice([18, 100, 500, 1000, 1472])
            tos = rng.choice([0, 8 << 2, 1 << 2, 10 << 2, 34 << 2, 46 << 2, 56 << 2]) | rng.choice(
                [0, 1, 2]
            )
            sport = 1024 + rng.randrange(flows)
            udp = struct.pack("!HHHH", sport, 5001, 8 + size, 0) + bytes(size)
            ip = (
                struct.pack(
                    "!BBHHHBBH4s4s",
                    0x45,
                    tos,
                    20 + len(udp),
                    0,
                    0,
                    64,
                    17,
                    0,
                    bytes([10, 0, sport >> 8 & 255, sport & 255]),
                    bytes([10, 1, 0, 2]),
                )
                + udp
            )
            frame = eth + b"\x08\x00" + ip
        try:
            s.send(frame)
        except OSError:
            pass  # ENOBUFS when the qdisc drops: keep sending
        n += 1
        if min_size and n % 100 == 0:
            time.sleep(0.001)  # 100 frames a millisecond: 48 Mbit/s of 60-byte frames
        elif not min_size and n % 64 == 0:
            time.sleep(0.002)  # leave CPU to the fuzzer (UML has one CPU)


def start_traffic(ifindex, seed, flows=512, min_size=False, stop_after=None):
    pid = os.fork()
    if pid == 0:
        try:
            traffic(ifindex, seed, flows, min_size, stop_after)
        finally:
            os._exit(0)
    return pid


class Traffic:
    """Bursts of frames sent synchronously by the fuzzer (its own seeded generator): each
    send() goes through the qdiscs of DEV before it returns."""

    ETH = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01"

    def __init__(self, seed):
        self.rng = random.Random(seed * 1_000_003 + 26)
        self.raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.raw.bind((DEV, 0))
        self.raw.setblocking(False)
        self.udp = []
        for a in UDP_SRC:
            u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            u.bind((a, 0))
            u.setblocking(False)
            self.udp.append(u)
        self.prio = {}
        self.counts = {}

    def count(self, key, n=1):
        self.counts[key] = self.counts.get(key, 0) + n

    def set_prio(self, sock, prio):
        if self.prio.get(sock) != prio:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, prio)
            self.prio[sock] = prio

    def profile(self):
        """The mix of one burst: how many hosts, flows, classes take part."""
        r = self.rng
        return {
            "src": r.choice([1, 1, 2, 3, len(SRC_HOSTS)]),
            "dst": r.choice([1, 2, len(DST_HOSTS)]),
            "ports": r.choice([1, 2, 4, 16, 256]),
            "dscps": r.sample(DSCPS, r.choice([1, 2, 3, len(DSCPS)])),
            "prios": r.choice([[0], [0, 6], [0, HANDLE | r.randrange(0, 21)], None]),
            "sizes": r.choice([[18], [100, 1472], [18, 100, 500, 1000, 1472], [1472]]),
            "v6": r.choice([0, 0, 0.2]),
            "udp": r.choice([0, 0.2, 1.0]),
            "nonip": r.choice([0, 0, 0.05]),
        }

    def thin_stream(self, seconds, gap):
        """One IPv4 flow of DSCP 0 and no priority (auto unmarked classifies it by its flow):
        a 100-byte packet every `gap` s of guest time for `seconds`; returns how many reached
        the device."""
        r = self.rng
        src, dst, sport = r.choice(SRC_HOSTS), r.choice(DST_HOSTS), 1024 + r.randrange(256)
        self.set_prio(self.raw, 0)
        reached = 0
        for _ in range(int(seconds / gap)):
            try:
                self.raw.send(self.ETH + b"\x08\x00" + ipv4_udp(src, dst, 0, sport, 100))
                reached += 1
            except BlockingIOError:
                self.count("frames_eagain")
            except OSError as e:
                if e.errno != errno.ENOBUFS:
                    raise
                reached += 1
            time.sleep(gap)
        self.count("frames_thin_stream", reached)
        self.count("frames", reached)
        return reached

    def burst(self, n):
        """Sends n frames; returns how many reached the device (EAGAIN: the socket's send
        buffer is full of queued packets, the frame never reached a qdisc)."""
        r, p = self.rng, self.profile()
        reached = 0
        for _ in range(n):
            prio = r.choice(p["prios"]) if p["prios"] else HANDLE | r.randrange(0, 21)
            tos = r.choice(p["dscps"]) << 2 | r.choice([0, 0, 1, 2, 3])
            size = r.choice(p["sizes"])
            sport = 1024 + r.randrange(p["ports"])
            roll = r.random()
            try:
                if roll < p["nonip"]:
                    self.set_prio(self.raw, prio)
                    self.raw.send(self.ETH + b"\x08\x06" + bytes(r.randrange(28, 100)))
                    self.count("frames_nonip")
                elif roll < p["nonip"] + p["udp"]:
                    u = self.udp[r.randrange(min(p["src"], len(self.udp)))]
                    self.set_prio(u, prio)
                    u.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
                    dst = UDP_DST[r.randrange(min(p["dst"], len(UDP_DST)))]
                    u.sendto(bytes(size), (dst, 5001 + sport % 4))
                    self.count("frames_udp_socket")
                elif roll < p["nonip"] + p["udp"] + p["v6"]:
                    self.set_prio(self.raw, prio)
                    src = SRC6_HOSTS[r.randrange(min(p["src"], len(SRC6_HOSTS)))]
                    dst = DST6_HOSTS[r.randrange(min(p["dst"], len(DST6_HOSTS)))]
                    frame = ipv6_udp(src, dst, tos, sport, min(size, 1452))  # 1500-byte MTU
                    self.raw.send(self.ETH + b"\x86\xdd" + frame)
                    self.count("frames_ipv6")
                else:
                    self.set_prio(self.raw, prio)
                    src = SRC_HOSTS[r.randrange(p["src"])]
                    dst = DST_HOSTS[r.randrange(p["dst"])]
                    self.raw.send(self.ETH + b"\x08\x00" + ipv4_udp(src, dst, tos, sport, size))
                    self.count("frames_ipv4")
                reached += 1
            except BlockingIOError:
                self.count("frames_eagain")
            except OSError as e:
                if e.errno != errno.ENOBUFS:
                    raise
                reached += 1  # the qdisc dropped it (and counted the drop)
                self.count("frames_enobufs")
        self.count("frames", reached)
        self.count("bursts")
        return reached, p


def ipv4_udp(src, dst, tos, sport, size):
    udp = struct.pack("!HHHH", sport, 5001, 8 + size, 0) + bytes(size)
    return (
        struct.pack(
            "!BBHHHBBH4s4s",
            0x45,
            tos,
            20 + len(udp),
            0,
            0,
            64,
            17,
            0,
            socket.inet_aton(src),
            socket.inet_aton(dst),
        )
        + udp
    )


def ipv6_udp(src, dst, tc, sport, size):
    udp = struct.pack("!HHHH", sport, 5001, 8 + size, 0) + bytes(size)
    return (
        struct.pack("!IHBB", 6 << 28 | tc << 20, len(udp), 17, 64)
        + socket.inet_pton(socket.AF_INET6, src)
        + socket.inet_pton(socket.AF_INET6, dst)
        + udp
    )


# ---------------------------------------------------------------------------------------
# fuzzer


# the parameters a "tweak" changes (one, sometimes two at a time, to valid values), weighted
# toward the modes whose change meets state left from the traffic
TWEAK_WEIGHTS = {
    ISOLATE: 4,
    BOOST: 3,
    ORDER: 3,
    AUTO: 3,
    INVERSION: 2,
    WEIGHTS: 2,
    OVERLOAD: 2,
    PRIOS: 2,
    FLOWS: 2,
    QUANTUM: 2,
    RATIO: 2,
    TARGET: 1,
    INTERVAL: 1,
    LIMIT: 1,
    MEMORY_LIMIT: 1,
    DROP_BATCH: 1,
    ECN: 1,
    DSCP_MAP: 1,
    QUANTA: 2,
    CE_THRESHOLD: 2,
    CE_SELECTOR: 1,
    CE_MASK: 1,
    BANDWIDTH: 2,
    OVERHEAD: 1,
    RAW: 1,
    MPU: 1,
    FRAMING: 1,
    INGRESS: 1,
}
TWEAK_VALUES = {
    PRIOS: [1, 2, 3, 4, 8, 16],
    FLOWS: [1, 2, 16, 64, 1024],
    QUANTUM: [64, 300, 1514, 3000, 9000],
    RATIO: [1 << 15, 1 << 16, 3 << 15, 2 << 16, 4 << 16],
    TARGET: [1000, 5000, 20000],
    INTERVAL: [50000, 100000, 300000],
    LIMIT: [2, 16, 100, 10240],
    MEMORY_LIMIT: [1 << 14, 1 << 18, 1 << 25],
    DROP_BATCH: [1, 4, 64],
    ECN: [0, 1],
    BANDWIDTH: BANDWIDTH_VALUES,
    OVERHEAD: [-64, 0, 18, 38, 44, 256],
    RAW: [1],
    MPU: [0, 64, 84, 256],
    FRAMING: [0, 1, 2],
    INGRESS: [0, 1],
    CE_SELECTOR: [0, 1, 2, 3],
    CE_MASK: [0, 1, 3, 0xFF],
}
CHOICE_ATTRS = (OVERLOAD, WEIGHTS, INVERSION, ISOLATE, BOOST, ORDER, AUTO)


class Fuzzer:
    def __init__(self, q, rng, log, traffic=None):
        self.q, self.rng, self.log = q, rng, log
        self.traffic = traffic  # None: no packets (tests of the fuzzer itself)
        self.cur = None  # expected msfc configuration, None: no msfc
        self.last = {}  # statistics of the last dump
        self.parent = TC_H_ROOT
        self.kind = "root"  # msfc's parent: root, tbf or htb
        # no packet queued anywhere on DEV: the traffic is the fuzzer's own, so this is known
        # after a drain until the next burst; a change then must not meet EBUSY
        self.idle = True
        self.opno = 0
        self.counts = {}
        self.failures = []
        self.no_extack = []

    def count(self, key, n=1):
        self.counts[key] = self.counts.get(key, 0) + n

    def fail(self, what):
        self.failures.append(f"#{self.opno} {self.kind}: {what}")
        self.log(f"FAIL #{self.opno} {self.kind}: {what}")

    def note(self, what):
        """The operation about to be sent, before it is (a kernel report follows it)."""
        self.log(f"#{self.opno} {self.kind} {what}")

    def where(self):
        """The state a request meets, for its log line."""
        if self.cur is None:
            return "[no msfc]"
        return f"[{self.state_key()}, {self.last.get('active_flows', 0)} flows listed]"

    def state_key(self):
        """busy, idle or idle_listed (idle, msfc still lists flows it emptied) right now."""
        if not self.idle:
            return "busy" if self.last.get("qlen") else "maybe_busy"
        return "idle_listed" if self.last.get("active_flows") else "idle"

    def count_changes(self, base, new):
        """Counts the accepted changes by parameter and by the state they met."""
        st = self.state_key()
        for t in new:
            if new[t] != base.get(t):
                self.count(f"changed_{NAMES[t]}@{st}")
        if new.get(BOOST) != base.get(BOOST) and BOOST_ACROSS in (new.get(BOOST), base.get(BOOST)):
            self.count(f"changed_boost_across@{st}")

    # -- traffic -----------------------------------------------------------------------

    def root_stats(self, d):
        for e in d.values():
            if e["parent"] == TC_H_ROOT:
                return msfc_stats(e)
        return {}

    def msfc_arrivals(self):
        """Packets msfc has seen: sent + dropped + queued (a dump's counters)."""
        e = self.state()
        if e is None or e["kind"] != "msfc":
            return None
        st = msfc_stats(e)
        return st.get("packets", 0) + st.get("drops", 0) + st.get("qlen", 0)

    def traffic_step(self, force=False):
        """A burst of 1..64 frames, then: wait until the device has sent every packet
        (idle), or wait a little (part of them still queued), or not at all."""
        if self.traffic is None or (not force and self.rng.random() < 0.3):
            return
        r = self.rng
        if r.random() < 0.05:
            # a thin stream over seconds of guest time (free with time-travel=inf-cpu): auto
            # moves a flow slot up only after T_up (10 intervals) of packets with at most a
            # quantum queued and no pause of T_up, which random bursts never give
            self.note("thin stream")
            if self.traffic.thin_stream(r.choice([1.2, 2.5, 3.5]), 0.05):
                self.idle = False
            self.count("thin_streams")
        n = r.choice([1, 1, 2, 3, 5, 8, 16, 32, 64])
        after = r.choices(["drain", "part", "none"], weights=[45, 35, 20])[0]
        # exact accounting only from an idle start (a packet tbf peeked counts as sent)
        before = self.msfc_arrivals() if after == "drain" and self.idle else None
        self.note(f"burst {n} then {after}")
        sent, _ = self.traffic.burst(n)
        if sent:
            self.idle = False
        if after == "drain":
            self.drain(before, sent)
            return
        if after == "part":
            time.sleep(r.choice([0.001, 0.002, 0.005, 0.01, 0.02]))
            self.count("partial_drains")
        d = self.q.dump()
        if not self.root_stats(d).get("qlen"):
            self.idle = True  # sent already (root msfc: always, the veth takes every frame)
        e = d.get(HANDLE)
        if e is not None and e["kind"] == "msfc":
            self.last = msfc_stats(e)

    def drain(self, before=None, sent=0):
        """Sleeps (guest time) until the device's root qdisc holds no packet; checks the
        idle msfc."""
        rate = PARENT_RATE.get(self.kind)
        if self.cur and self.cur.get(BANDWIDTH):  # msfc's own shaper may be the slower
            rate = min(rate or 1 << 62, self.cur[BANDWIDTH] * 8)
        d = self.q.dump()
        st = self.root_stats(d)
        budget = 2 + (2 * st.get("backlog", 0) * 8 / rate if rate else 0)
        waited = 0.0
        while st.get("qlen"):
            if waited > budget:
                self.fail(
                    f"stall: {st['qlen']} packets ({st.get('backlog')} bytes) still queued "
                    f"after {waited:.3f} s of guest time"
                )
                self.last = msfc_stats(d[HANDLE]) if HANDLE in d else {}
                return False
            dt = min(0.2, max(0.001, st.get("backlog", 0) * 8 / rate)) if rate else 0.001
            time.sleep(dt)
            waited += dt
            d = self.q.dump()
            st = self.root_stats(d)
        self.idle = True
        self.count("drains")
        e = d.get(HANDLE)
        if e is None or e["kind"] != "msfc" or self.cur is None:
            return True
        m = msfc_stats(e)
        self.last = m
        if m.get("backlog") or m.get("memory_usage"):
            self.fail(
                f"empty msfc holds {m.get('backlog')} bytes of backlog, "
                f"memory_usage {m.get('memory_usage')}"
            )
        if m.get("active_flows"):
            self.count("idle_with_flows_listed")
        if before is not None and sent:
            got = m.get("packets", 0) + m.get("drops", 0) - before
            if got != sent:
                self.fail(
                    f"{sent} frames sent into msfc, its sent + dropped counters moved by {got}"
                )
            self.count("bursts_accounted")
        return True

    # -- attribute generation ----------------------------------------------------------

    def value(self, t):
        r = self.rng
        if t == DSCP_MAP:
            kind = r.random()
            if kind < 0.4:  # classes only
                return [r.randrange(DSCP_CLASS_MASK + 1) for _ in range(64)], True
            if kind < 0.8:  # every kind of entry, and from 0.6 one the UAPI does not define
                m = [r.choice(DSCP_ENTRIES) for _ in range(64)]
                if kind >= 0.6:
                    m[r.randrange(64)] = r.choice(DSCP_BAD_ENTRIES)
                return m, dscp_map_valid(m)
            return default_dscp_map(), True
        if t == QUANTA:
            prios = self.cur[PRIOS] if self.cur else _DEFS.params["prios"].default
            kind = r.random()
            n = prios if kind < 0.6 else r.randint(0, 17)
            v = [r.choice(QUANTA_VALUES) for _ in range(n)]
            if r.random() < 0.15 and v:
                v[r.randrange(n)] = r.choice([0, QUANTA_RANGE[1] + 1, U32_MAX])
            return v, quanta_valid(v)
        if t == CE_THRESHOLD:
            prios = self.cur[PRIOS] if self.cur else _DEFS.params["prios"].default
            kind = r.random()
            n = r.choice([1, prios]) if kind < 0.6 else r.randint(0, 17)
            v = [r.choice(CE_VALUES) for _ in range(n)]
            if r.random() < 0.15 and v:
                v[r.randrange(n)] = r.choice([RANGES[CE_THRESHOLD][1] + 1, U32_MAX - 1])
            return v, ce_threshold_valid(v)
        if t == BANDWIDTH:
            if r.random() < 0.85:
                return r.choice(BANDWIDTH_VALUES), True
            return r.choice([BANDWIDTH_MAX + 1, 2**64 - 1, 1 << 63]), False
        if t == OVERHEAD:
            v = r.choice([-65, -64, -1, 0, 18, 44, 256, 257, -(2**31), 2**31 - 1])
            return v, RANGES[OVERHEAD][0] <= v <= RANGES[OVERHEAD][1]
        if t == RAW:  # 0 would end raw with the overhead last given: not modelled
            v = r.choice([1, 1, 1, 2, U32_MAX])
            return v, v == 1
        lo, hi = RANGES[t]
        kind = r.random()
        if kind < 0.6:  # ordinary values
            typical = {
                PRIOS: (1, 8),
                FLOWS: (1, 2048),
                QUANTUM: (64, 9000),
                RATIO: (1 << 15, 4 << 16),
                TARGET: (100, 50000),
                INTERVAL: (20000, 500000),
                LIMIT: (1, 20000),
                MEMORY_LIMIT: (1 << 12, 1 << 24),
                DROP_BATCH: (1, 256),
                ECN: (0, 1),
                OVERLOAD: (0, 1),
                WEIGHTS: (0, 1),
                INVERSION: (0, 1),
                ISOLATE: (0, 3),
                BOOST: (0, 2),
                ORDER: (0, 1),
                AUTO: (0, 2),
                MPU: (0, 256),
                FRAMING: (0, 2),
                INGRESS: (0, 1),
                CE_SELECTOR: (0, 3),
                CE_MASK: (0, 3),
            }[t]
            v = r.randint(*typical)
        elif kind < 0.9:  # boundaries
            v = r.choice(
                [lo, hi, lo - 1, hi + 1, 0, 1, 2, U32_MAX, 1 << 31, (1 << 31) - 1, hi // 2]
            )
        else:
            v = r.randrange(0, 1 << 32)
        v &= U32_MAX
        return v, lo <= v <= hi

    def options(self, force_valid=False):
        """Returns (TCA_OPTIONS bytes or None, attrs dict the kernel should apply or None
        when the request is malformed/out of range, description)."""
        r = self.rng
        if r.random() < 0.05:
            return None, {}, "no TCA_OPTIONS"
        ok = True  # every attribute well-formed (length, flags)
        applied = {}  # the last value of each type and whether in range
        body = b""
        desc = []
        types = r.sample(ATTRS, r.randint(0, 4))
        if r.random() < 0.1:
            # duplicate: the last counts (not of quanta, whose form only the last is checked for)
            types.append(r.choice([t for t in types if t not in LIST_ATTRS] or [LIMIT]))
        for t in types:
            v, good = self.value(t)
            if force_valid and not good:
                continue
            payload = payload_of(t, v)
            atype = t
            mutation = r.random() if not force_valid else 1.0
            if mutation < 0.04:  # wrong length
                if t in LIST_ATTRS:  # not a whole number of u32s
                    payload = payload + bytes(r.choice([1, 2, 3]))
                else:
                    payload = (
                        payload[: r.choice([0, 1, 2, 3])]
                        if t != DSCP_MAP
                        else payload[: r.choice([0, 4, 63])]
                    )
                good = False
                desc.append(f"{NAMES[t]}:short")
            elif mutation < 0.07:
                payload = payload + bytes(r.choice([1, 4, 8] if t not in LIST_ATTRS else [1, 2, 3]))
                good = False
                desc.append(f"{NAMES[t]}:long")
            elif mutation < 0.09:
                atype |= NLA_F_NESTED
                good = False
                desc.append(f"{NAMES[t]}:nested-flag")
            else:
                desc.append(
                    f"{NAMES[t]}={v if t != DSCP_MAP else 'map'}"
                    + ("" if good else "(out of range)")
                )
                applied[t] = (v, good)  # netlink: the last of duplicates is applied
                # but the policy's ranges check every u32 instance, a duplicate too (the
                # DSCP map's and the quanta's entries are checked by the qdisc in the last
                # one only)
                good = good or t in (DSCP_MAP, *LIST_ATTRS)
            ok &= good
            body += nla(atype, payload)
        roll = r.random() if not force_valid else 1.0
        nested_flag = NLA_F_NESTED
        if roll < 0.04:
            body += nla(
                r.choice([0, PAD, MSFC_MAX + 1, MSFC_MAX + 2, 100, 0x3FFF]),
                struct.pack("=I", r.randrange(1 << 32)),
            )
            ok = False
            desc.append("unknown-attr")
        elif roll < 0.07:
            nested_flag = 0
            if not body:
                body = nla(LIMIT, struct.pack("=I", 100))
            ok = False
            desc.append("no-NLA_F_NESTED")
        elif roll < 0.10:
            body += bytes(r.choice([1, 2, 3]))
            ok = False
            desc.append("trailing-bytes")
        elif roll < 0.13:
            # an attribute header claiming more than the nest holds
            body += struct.pack("=HH", r.choice([8, 12, 200]), r.randint(1, MSFC_MAX))
            ok = False
            desc.append("truncated-attr")
        elif roll < 0.15:
            body += struct.pack("=HH", r.choice([0, 1, 2, 3]), LIMIT) + b"\0\0\0\0"
            ok = False
            desc.append("bad-nla_len")
        opts = struct.pack("=HH", 4 + len(body), TCA_OPTIONS | nested_flag) + body
        if len(opts) % 4:
            opts += b"\0" * (4 - len(opts) % 4)
        if not ok or not all(good for _, good in applied.values()):
            return opts, None, " ".join(desc)
        return opts, {t: v for t, (v, _) in applied.items()}, " ".join(desc) or "empty nest"

    # -- checks ------------------------------------------------------------------------

    def state(self):
        d = self.q.dump()
        return d.get(HANDLE)

    def verify(self, what):
        e = self.state()
        if self.cur is None:
            if e is not None and e["kind"] == "msfc":
                self.fail(f"{what}: msfc present, expected none")
            return
        if e is None or e["kind"] != "msfc":
            self.fail(f"{what}: msfc missing (found {e and e['kind']})")
            self.cur = None
            return
        got = decode_options(e.get("options", {}))
        if got != self.cur:
            diff = {
                NAMES[k]: (self.cur.get(k), got.get(k))
                for k in self.cur
                if self.cur.get(k) != got.get(k)
            }
            self.fail(f"{what}: options differ from the expected (expected, got): {diff}")
            self.cur = got if len(got) == len(self.cur) else self.cur
        st = msfc_stats(e)
        self.last = st
        # auto's counters move (slots climbed or sank under the traffic)
        if st.get("auto_promotions"):
            self.count("dumps_auto_promoted")
        if st.get("auto_demotions"):
            self.count("dumps_auto_demoted")
        if st.get("ce_threshold_marks"):
            self.count("dumps_ce_threshold_marked")
        if st.get("nqb_demotions"):
            self.count("dumps_nqb_demoted")
        if "memory_usage" in st and st["memory_usage"] > self.cur[MEMORY_LIMIT]:
            self.fail(
                f"{what}: memory_usage {st['memory_usage']} over memory_limit "
                f"{self.cur[MEMORY_LIMIT]}"
            )
        if "qlen" in st and st["qlen"] > self.cur[LIMIT] + 1:
            self.fail(f"{what}: qlen {st['qlen']} over limit {self.cur[LIMIT]}")
        if self.rng.random() < 0.2:
            # the classes, then the least-effort lane (class prios + 1)
            err, n = self.q.classes(HANDLE)
            if err or n != self.cur[PRIOS] + 1:
                self.fail(
                    f"{what}: class dump gave {n} classes (error {err}), expected "
                    f"{self.cur[PRIOS] + 1} (prios and the lane)"
                )

    def outcome(self, op, err, msg, expect_ok, busy_possible, what):
        self.count("requests")
        if err:
            self.count("refused")
            if not msg:
                self.no_extack.append(f"{op} {what}: error {err} without extack message")
                self.fail(f"{op} {what}: error {err} without an extack message")
        if expect_ok and err:
            if err == 16 and busy_possible and msg and msg.startswith(busy_possible):
                self.count("refused_busy")
                return False
            if err == 12:
                self.count("refused_nomem")
                return False
            self.fail(f"{op} {what}: valid request refused: {err} {msg}")
            return False
        if not expect_ok and not err:
            self.fail(f"{op} {what}: invalid request accepted")
            return True
        if not err:
            self.count("accepted")
        return not err

    # -- operations --------------------------------------------------------------------

    def op_modify(self, mode):
        opts, applied, what = self.options()
        exists = self.cur is not None
        base = self.cur if exists else defaults()
        new = apply_attrs(base, applied or {})
        valid = applied is not None and config_valid(new)
        flags = {
            "add": NLM_F_CREATE | NLM_F_EXCL,
            "change": 0,
            "replace": NLM_F_CREATE | NLM_F_REPLACE,
        }[mode]
        self.note(f"{mode} {what} {self.where()}")
        err, msg, _ = self.q.modify(flags, HANDLE, self.parent, b"msfc\0", opts)
        # add refuses an existing qdisc, change a missing one
        expect_ok = (
            valid and not (mode == "add" and exists) and not (mode == "change" and not exists)
        )
        busy = self.busy_msg(base, new) if exists else None
        if self.outcome(mode, err, msg, expect_ok, busy, what):
            if exists:
                self.count_changes(base, new)
            if exists and self.last.get("qlen", 0) > new[LIMIT]:
                self.count("limit_lowered_below_qlen")
            if exists and self.last.get("memory_usage", 0) > new[MEMORY_LIMIT]:
                self.count("memory_limit_lowered_below_usage")
            if exists and self.last.get("qlen") and busy == BUSY_MSG:
                self.count("prios_flows_changed_after_drain")
            if exists and self.last.get("qlen") and busy == ISOLATE_BUSY_MSG:
                self.count("isolate_changed_after_drain")
            self.cur = new
        self.count(f"op_{mode}")
        self.verify(f"{mode} {what}")

    def busy_msg(self, base, new):
        """The message of the refusal a change may meet while packets are queued; None on
        an idle qdisc (the fuzzer knows: it sends every packet itself)."""
        if self.idle:
            return None
        if new[PRIOS] != base[PRIOS] or new[FLOWS] != base[FLOWS]:
            return BUSY_MSG
        if new[ISOLATE] != base[ISOLATE]:
            return ISOLATE_BUSY_MSG
        return None

    def tweak_value(self, t):
        r = self.rng
        if t in CHOICE_ATTRS:
            lo, hi = RANGES[t]
            if r.random() < 0.05:
                return hi + 1
            return r.choice([v for v in range(lo, hi + 1) if v != self.cur[t]])
        if t == DSCP_MAP:
            return [r.choice(DSCP_ENTRIES) for _ in range(64)]
        if t == QUANTA:
            kind = r.random()
            if kind < 0.2:
                return []  # back to quantum * ratio^p
            n = self.cur[PRIOS] if kind < 0.85 else r.randint(1, 16)
            return [r.choice(QUANTA_VALUES) for _ in range(n)]
        if t == CE_THRESHOLD:
            kind = r.random()
            if kind < 0.2:
                return []  # no L4S marking
            n = r.choice([1, self.cur[PRIOS]]) if kind < 0.85 else r.randint(1, 16)
            return [r.choice(CE_VALUES) for _ in range(n)]
        return r.choice(TWEAK_VALUES[t])

    def op_tweak(self):
        """A change of one or two parameters to (mostly) valid values, in the state the
        traffic left (busy, idle, idle with flows listed), then more traffic."""
        if self.cur is None:
            self.readd()
            return
        r = self.rng
        types = list(TWEAK_WEIGHTS)
        picked = []
        for _ in range(1 if r.random() < 0.75 else 2):
            t = r.choices(types, weights=[TWEAK_WEIGHTS[x] for x in types])[0]
            if t not in picked:
                picked.append(t)
        attrs = {t: self.tweak_value(t) for t in picked}
        body = b""
        for t, v in attrs.items():
            body += nla(t, payload_of(t, v))
        valid = all(
            list_valid(t, v)
            if t in LIST_ATTRS
            else dscp_map_valid(v)
            if t == DSCP_MAP
            else RANGES[t][0] <= v <= RANGES[t][1]
            for t, v in attrs.items()
        )
        new = apply_attrs(self.cur, attrs)
        valid = valid and config_valid(new)
        mode = "change" if r.random() < 0.85 else "replace"
        flags = 0 if mode == "change" else NLM_F_CREATE | NLM_F_REPLACE
        what = " ".join(
            f"{NAMES[t]}={'map' if t == DSCP_MAP else ','.join(map(str, v)) if t in LIST_ATTRS else v}"
            for t, v in attrs.items()
        )
        self.note(f"tweak {mode} {what} {self.where()}")
        err, msg, _ = self.q.modify(
            flags, HANDLE, self.parent, b"msfc\0", nla(TCA_OPTIONS | NLA_F_NESTED, body)
        )
        base = self.cur
        if self.outcome(mode, err, msg, valid, self.busy_msg(base, new), what):
            self.count_changes(base, new)
            self.cur = new
        self.count("op_tweak")
        self.verify(f"tweak {what}")
        self.traffic_step(force=True)

    def readd(self):
        """msfc back with valid random options (after a delete or a switch of parent)."""
        opts, applied, what = self.options(force_valid=True)
        self.note(f"add {what}")
        err, msg, _ = self.q.modify(NLM_F_CREATE | NLM_F_EXCL, HANDLE, self.parent, b"msfc\0", opts)
        new = apply_attrs(defaults(), applied or {})
        if self.outcome("add", err, msg, config_valid(new), False, what):
            self.cur = new
        self.count("op_add")
        self.verify(f"add {what}")

    def op_shrink(self):
        """tc qdisc change to a limit / memory_limit below what is queued right now."""
        qlen, mem = self.last.get("qlen", 0), self.last.get("memory_usage", 0)
        if self.cur is None or qlen < 2:
            self.op_modify("change")
            return
        attrs = {LIMIT: self.rng.randint(1, qlen - 1)}
        if mem > 1 and self.rng.random() < 0.5:
            attrs = {MEMORY_LIMIT: self.rng.randint(1, mem - 1)}
        body = b"".join(nla(t, struct.pack("=I", v)) for t, v in attrs.items())
        what = " ".join(f"{NAMES[t]}={v}" for t, v in attrs.items())
        self.note(f"shrink {what} (qlen {qlen}, memory_usage {mem})")
        err, msg, _ = self.q.modify(
            0, HANDLE, self.parent, b"msfc\0", nla(TCA_OPTIONS | NLA_F_NESTED, body)
        )
        if self.outcome("shrink", err, msg, True, False, what):
            self.cur = {**self.cur, **attrs}
            self.count(
                "limit_lowered_below_qlen" if LIMIT in attrs else "memory_limit_lowered_below_usage"
            )
        self.count("op_shrink")
        self.verify(f"shrink {what}")

    def op_delete(self):
        self.note("delete")
        err, msg, _ = self.q.modify(0, HANDLE, self.parent, None, None, RTM_DELQDISC)
        self.outcome("delete", err, msg, self.cur is not None, False, "")
        if not err:
            self.cur = None
        self.count("op_delete")
        self.verify("delete")

    def op_other_kind(self):
        """Replace msfc by another qdisc kind (packets queued are freed) or create it."""
        kind = self.rng.choice([b"pfifo\0", b"fq_codel\0", b"pfifo_fast\0"])
        self.note(f"replace by {kind[:-1].decode()} and delete")
        err, msg, _ = self.q.modify(NLM_F_CREATE | NLM_F_REPLACE, HANDLE, self.parent, kind)
        self.count("op_other_kind")
        self.count("requests")
        if err:
            self.count("refused")
            if not msg:
                self.fail(f"replace by {kind}: error {err} without an extack message")
        else:
            self.count("accepted")
            self.cur = None
        # and delete it (or msfc, if the replace was refused) so msfc can come back
        err, msg, _ = self.q.modify(0, HANDLE, self.parent, None, None, RTM_DELQDISC)
        self.count("requests")
        if not err:
            self.cur = None
        self.verify(f"other kind {kind}")

    def op_bad_kind(self):
        kind = self.rng.choice([b"msfc", b"msf\0", b"msfcx\0", b"\0", b""])
        opts, _, what = self.options()
        flags = self.rng.choice([NLM_F_CREATE | NLM_F_EXCL, 0, NLM_F_CREATE | NLM_F_REPLACE])
        self.note(f"kind {kind} {what}")
        err, msg, _ = self.q.modify(flags, HANDLE, self.parent, kind, opts)
        # "msfc" without its NUL still names msfc (nla_strcmp): valid if the rest is
        if kind == b"msfc":
            self.count("requests")
            if err and not msg:
                self.fail(f"kind {kind}: error {err} without an extack message")
            if not err:
                self.count("accepted")
                self.sync()
            else:
                self.count("refused")
        else:
            self.outcome("bad-kind", err, msg, False, False, f"{kind} {what}")
        self.count("op_bad_kind")
        self.verify(f"bad kind {kind}")

    def sync(self):
        e = self.state()
        self.cur = decode_options(e["options"]) if e and e["kind"] == "msfc" else None

    def move(self, kind):
        """msfc's parent becomes `kind`: root of the veth, child of a 2 Mbit/s tbf, or leaf
        of a 10 Mbit/s htb class (msfc is deleted with the old tree)."""
        self.note(f"parent {kind}")
        self.q.modify(0, 0, TC_H_ROOT, None, None, RTM_DELQDISC)
        self.cur = None
        self.idle = True  # the deleted tree took its packets with it
        self.last = {}
        cmds = {
            "tbf": [f"qdisc add dev {DEV} root handle 1: tbf rate 2mbit burst 4000 latency 200ms"],
            "htb": [
                f"qdisc add dev {DEV} root handle 1: htb default 1",
                f"class add dev {DEV} parent 1: classid 1:1 htb rate 10mbit",
            ],
            "root": [],
        }[kind]
        for c in cmds:
            p = subprocess.run([TC] + c.split(), capture_output=True, text=True, check=False)
            if p.returncode:
                raise RuntimeError(f"tc {c}: {p.stderr}")
        self.parent = TC_H_ROOT if kind == "root" else TBF_HANDLE | 1
        self.kind = kind
        self.count("moves")

    def run(self, ops):
        opnames = (
            ["add"] * 14
            + ["change"] * 40
            + ["replace"] * 16
            + ["delete"] * 8
            + ["shrink"] * 6
            + ["other"] * 3
            + ["badkind"] * 4
            + ["dump"] * 5
            + ["tweak"] * 45
        )
        for i in range(ops):
            self.opno = i
            if i % SEGMENT == 0:
                self.move(PARENT_CYCLE[i // SEGMENT % len(PARENT_CYCLE)])
            # packets first: every request meets the state a burst left (busy, or idle with
            # or without flows still listed)
            self.traffic_step()
            if self.cur is None and self.rng.random() < 0.5:
                self.readd()
                continue
            op = self.rng.choice(opnames)
            if op in ("add", "change", "replace"):
                self.op_modify(op)
            elif op == "tweak":
                self.op_tweak()
            elif op == "delete":
                self.op_delete()
            elif op == "shrink":
                self.op_shrink()
            elif op == "other":
                self.op_other_kind()
            elif op == "badkind":
                self.op_bad_kind()
            else:
                self.note("dump")
                self.count("op_dump")
                self.verify("dump")
            if self.failures and len(self.failures) > 50:
                break
        self.opno = ops


TC = None


def ip(*args):
    subprocess.run(["ip"] + list(args), check=True)


def setup(kdir):
    global TC
    TC = os.path.join(kdir, "build/iproute2-src/iproute2-6.1.0/tc/tc")
    ip("link", "add", DEV, "type", "veth", "peer", "name", "vb")
    ip("link", "set", DEV, "up")
    ip("link", "set", "vb", "up")
    return socket.if_nametoindex(DEV)


def setup_hosts():
    """The UDP sockets' side of the hosts: their source addresses on the veth, a route to
    the destinations over it, and permanent neighbours (no ARP: nothing but the fuzzer's
    own packets crosses the qdisc)."""
    for a in UDP_SRC:
        ip("addr", "add", f"{a}/24", "dev", DEV)
    ip("route", "add", "10.3.0.0/24", "dev", DEV)
    for i, a in enumerate(UDP_DST, 1):
        ip("neigh", "add", a, "lladdr", f"02:00:00:00:03:{i:02x}", "dev", DEV, "nud", "permanent")


def meminfo():
    out = {}
    with open("/proc/meminfo") as fh:
        for line in fh:
            k, v = line.split(":")
            out[k] = int(v.split()[0])
    return {k: out.get(k) for k in ("MemFree", "Slab", "SUnreclaim", "VmallocUsed")}


def kmemleak(action):
    path = "/sys/kernel/debug/kmemleak"
    if not os.path.exists(path):
        return None
    if action == "scan":
        with open(path, "w") as fh:
            fh.write("scan")
        with open(path) as fh:
            text = fh.read()
        return text.count("unreferenced object"), text
    with open(path, "w") as fh:
        fh.write(action)
    return None


def run_fuzz(a, log):
    ifindex = setup(a.kdir)
    nl = Netlink()
    q = Qdiscs(nl, ifindex)
    res = {"mode": "fuzz", "seed": a.seed, "ops": a.ops}
    # leaks of the boot (KUnit suite included) are reported separately from the fuzz's
    if kmemleak("scan") is not None:
        n, text = kmemleak("scan")
        res["kmemleak_before"] = n
        res["kmemleak_before_report"] = text[:20000]
        kmemleak("clear")
    res["meminfo_before"] = meminfo()
    setup_hosts()
    traffic = Traffic(a.seed)
    rng = random.Random(a.seed)
    f = Fuzzer(q, rng, log, traffic)
    t0 = time.time()
    f.run(a.ops)
    res["guest_s"] = round(time.time() - t0, 1)
    # everything back to empty
    q.modify(0, 0, TC_H_ROOT, None, None, RTM_DELQDISC)
    for sock in [traffic.raw] + traffic.udp:
        sock.close()
    ip("link", "del", DEV)
    time.sleep(2)  # RCU callbacks free the qdiscs
    res["meminfo_after"] = meminfo()
    if kmemleak("scan") is not None:
        time.sleep(1)
        n, text = kmemleak("scan")
        res["kmemleak_after"] = n
        res["kmemleak_after_report"] = text[:20000]
    res["counts"] = f.counts
    res["traffic"] = traffic.counts
    res["failures"] = f.failures[:100]
    res["no_extack"] = f.no_extack[:50]
    return res


def run_flood(a, log):
    """Minimum-size frames of 4096 flows into memory_limit MEM behind a 1 Mbit/s tbf."""
    ifindex = setup(a.kdir)
    nl = Netlink()
    q = Qdiscs(nl, ifindex)
    mem_limit = 65536
    subprocess.run(
        [
            TC,
            "qdisc",
            "add",
            "dev",
            DEV,
            "root",
            "handle",
            "1:",
            "tbf",
            "rate",
            "1mbit",
            "burst",
            "4000",
            "latency",
            "10s",
        ],
        check=True,
    )
    opts = nla(
        TCA_OPTIONS | NLA_F_NESTED,
        nla(MEMORY_LIMIT, struct.pack("=I", mem_limit))
        + nla(FLOWS, struct.pack("=I", 1024))
        + nla(PRIOS, struct.pack("=I", 3)),
    )
    err, msg, _ = q.modify(NLM_F_CREATE | NLM_F_EXCL, HANDLE, TBF_HANDLE | 1, b"msfc\0", opts)
    if err:
        raise RuntimeError(f"msfc add: {err} {msg}")
    pid = start_traffic(ifindex, a.seed, flows=4096, min_size=True, stop_after=a.flood)
    samples, peak, peak_qlen = 0, 0, 0
    t0 = t_mark = time.time()
    d = q.dump()
    b0 = b_mark = msfc_stats(d[TBF_HANDLE])["bytes"]
    intervals = []  # bit/s through the tbf in each 0.5 s
    while True:
        wp, _ = os.waitpid(pid, os.WNOHANG)
        time.sleep(0.001)  # lets the guest's clock move (time-travel=inf-cpu)
        d = q.dump()
        st = msfc_stats(d[HANDLE])
        samples += 1
        peak = max(peak, st.get("memory_usage", 0))
        peak_qlen = max(peak_qlen, st.get("qlen", 0))
        now = time.time()
        if now - t_mark >= 0.5 or wp:
            b = msfc_stats(d[TBF_HANDLE])["bytes"]
            intervals.append(round((b - b_mark) * 8 / (now - t_mark)))
            t_mark, b_mark = now, b
        if wp:
            break
    t1 = time.time()
    m1 = msfc_stats(d[HANDLE])
    forwarded = (b_mark - b0) * 8 / (t1 - t0)
    res = {
        "mode": "flood",
        "memory_limit": mem_limit,
        "flows": 4096,
        "frame_bytes": 60,
        "samples": samples,
        "peak_memory_usage": peak,
        "peak_qlen": peak_qlen,
        "seconds": round(t1 - t0, 1),
        "forwarded_bit_s": round(forwarded),
        "min_interval_bit_s": min(intervals[1:-1] or intervals),
        "overmemory_drops": m1.get("overmemory_drops"),
        "overload_drops": m1.get("overload_drops"),
        "sent_packets": m1.get("packets"),
    }
    res["failures"] = []
    if peak > mem_limit:
        res["failures"].append(f"memory_usage reached {peak} over memory_limit {mem_limit}")
    if not m1.get("overmemory_drops"):
        res["failures"].append("the flood never reached memory_limit (no overmemory drops)")
    if res["min_interval_bit_s"] < 0.5e6:
        res["failures"].append(
            f"forwarding stalled: a 0.5 s interval carried only "
            f"{res['min_interval_bit_s']} bit/s through the 1 Mbit/s tbf"
        )
    q.modify(0, 0, TC_H_ROOT, None, None, RTM_DELQDISC)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kdir", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ops", type=int, default=2000)
    ap.add_argument("--flood", type=float, default=0)
    ap.add_argument("--result", required=True)
    a = ap.parse_args()

    def log(s):
        print(f"fuzz: {s}", flush=True)

    try:
        res = run_flood(a, log) if a.flood else run_fuzz(a, log)
    except Exception as e:  # noqa: BLE001 - the result file must say what went wrong
        res = {"error": f"{type(e).__name__}: {e}", "failures": [f"fuzzer error: {e}"]}
    log(json.dumps({k: v for k, v in res.items() if not k.endswith("_report")}))
    with open(a.result, "w") as fh:
        json.dump(res, fh, indent=1)
    return 0 if not res["failures"] else 1


if __name__ == "__main__":
    sys.exit(main())
