#!/usr/bin/python3
"""Netlink fuzzer of sch_msfc, run as the workload of a User-Mode Linux kernel (fuzz_init.sh).

Raw rtnetlink (no tc in the loop), seeded and reproducible: the same --seed gives the same
sequence of requests.  While UDP and non-IP frames of many flows, DSCPs and priorities are
sent through the device, it adds, changes, replaces (also by and with another qdisc kind) and
deletes msfc as root qdisc and as child of tbf (so packets are queued: prios/flows changes
with packets queued, lower limit and memory_limit under load), with random and boundary
values of every TCA_MSFC_* attribute, wrong lengths, NLA_F_NESTED where it does not belong
or missing, malformed nests, trailing bytes, duplicate and unknown attributes.

An oracle holds the ranges of pkt_sched_msfc.h (docs/algorithm.md and tc-msfc.8 state them)
and checks after every request:
  - a request the oracle calls valid is accepted (the only allowed refusals: a prios/flows
    change while packets are queued (EBUSY), an allocation failure (ENOMEM)) and the dumped
    options equal the expected configuration;
  - a request the oracle calls invalid is refused, and the qdisc is unchanged;
  - every refusal carries an extack message;
  - the statistics are consistent (qlen <= limit + 1 peeked packet, memory_usage <=
    memory_limit).
With --flood it instead measures the memory bound: minimum-size frames of 4096 flows flood a
small memory_limit behind a 1 Mbit/s tbf; memory_usage is sampled as fast as netlink allows.

Usage: fuzz_netlink.py --seed N --ops N --result FILE [--flood SECONDS]
"""

import argparse
import json
import os
import random
import signal
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
) = range(1, 17)
MSFC_MAX = BOOST
U32_ATTRS = [t for t in range(PRIOS, MSFC_MAX + 1) if t != DSCP_MAP]
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
}
U32_MAX = 2**32 - 1
# the ranges and defaults of include/uapi/linux/pkt_sched_msfc.h, through the msfc package's
# reader of that header (python/msfc/params.py needs nothing but the standard library)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from msfc import params as _params  # noqa: E402

_DEFS = _params.definitions()
RANGES = {
    t: (_DEFS.params[NAMES[t]].min, _DEFS.params[NAMES[t]].max) for t in range(PRIOS, ECN + 1)
}
RANGES.update(
    {
        t: (_DEFS.choices[NAMES[t]].min, _DEFS.choices[NAMES[t]].max)
        for t in (OVERLOAD, WEIGHTS, INVERSION, ISOLATE, BOOST)
    }
)
BUSY_MSG = "prios and flows cannot change while packets are queued"
ISOLATE_BUSY_MSG = _DEFS.isolate_busy_msg

DEV = "va"
HANDLE = 0x000A0000  # 10:
TBF_HANDLE = 0x00010000  # 1:
TC_H_ROOT = 0xFFFFFFFF


def default_dscp_map():
    return list(_DEFS.default_dscp_map)


def defaults():
    d = {t: _DEFS.params[NAMES[t]].default for t in range(PRIOS, ECN + 1)}
    d[QUANTUM] = 1514  # the device's MTU + link header: psched_mtu() of the veth
    d[DSCP_MAP] = default_dscp_map()
    d.update(
        {t: _DEFS.choices[NAMES[t]].default for t in (OVERLOAD, WEIGHTS, INVERSION, ISOLATE, BOOST)}
    )
    return d


def codel_units(us):
    return (us * 1000) >> 10


def config_valid(c):
    """The documented cross-parameter rules (ranges are checked per attribute)."""
    if codel_units(c[TARGET]) < 1 or codel_units(c[TARGET]) >= codel_units(c[INTERVAL]):
        return False
    exact = c.get(WEIGHTS, 0) == 1  # class quanta in 1/65536 byte (docs/algorithm.md)
    shift = 16 if exact else 0
    qp = c[QUANTUM] << shift
    quanta = [qp]
    for _ in range(1, c[PRIOS]):
        qp = (qp * c[RATIO] + 32768) >> 16
        if not exact:
            qp = max(1, qp)
        if qp > 1 << (40 + shift):
            return False
        quanta.append(qp)
    if exact and (0 in quanta or sum((1 << 32) // q for q in quanta) > (1 << 32) // 200):
        return False  # shares could be off by more than 0.5 %
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
    return c


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


# ---------------------------------------------------------------------------------------
# fuzzer


class Fuzzer:
    def __init__(self, q, rng, log):
        self.q, self.rng, self.log = q, rng, log
        self.cur = None  # expected msfc configuration, None: no msfc
        self.last = {}  # statistics of the last dump
        self.parent = TC_H_ROOT
        self.counts = {}
        self.failures = []
        self.no_extack = []

    def count(self, key):
        self.counts[key] = self.counts.get(key, 0) + 1

    def fail(self, what):
        self.failures.append(what)
        self.log(f"FAIL {what}")

    # -- attribute generation ----------------------------------------------------------

    def value(self, t):
        r = self.rng
        if t == DSCP_MAP:
            kind = r.random()
            if kind < 0.6:
                return [r.randrange(16) for _ in range(64)], True
            if kind < 0.8:
                m = [r.randrange(16) for _ in range(64)]
                m[r.randrange(64)] = r.choice([16, 17, 100, 255])
                return m, False
            return default_dscp_map(), True
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
                BOOST: (0, 1),
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
        types = r.sample(range(PRIOS, MSFC_MAX + 1), r.randint(0, 4))
        if r.random() < 0.1:
            types.append(r.choice(types or [LIMIT]))  # duplicate: the last counts
        for t in types:
            v, good = self.value(t)
            if force_valid and not good:
                continue
            payload = bytes(v) if t == DSCP_MAP else struct.pack("=I", v)
            atype = t
            mutation = r.random() if not force_valid else 1.0
            if mutation < 0.04:  # wrong length
                payload = (
                    payload[: r.choice([0, 1, 2, 3])]
                    if t != DSCP_MAP
                    else payload[: r.choice([0, 4, 63])]
                )
                good = False
                desc.append(f"{NAMES[t]}:short")
            elif mutation < 0.07:
                payload = payload + bytes(r.choice([1, 4, 8]))
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
                # DSCP map's entries are checked by the qdisc in the last one only)
                good = good or t == DSCP_MAP
            ok &= good
            body += nla(atype, payload)
        roll = r.random() if not force_valid else 1.0
        nested_flag = NLA_F_NESTED
        if roll < 0.04:
            body += nla(
                r.choice([0, MSFC_MAX + 1, MSFC_MAX + 2, 100, 0x3FFF]),
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
        if "memory_usage" in st and st["memory_usage"] > self.cur[MEMORY_LIMIT]:
            self.fail(
                f"{what}: memory_usage {st['memory_usage']} over memory_limit "
                f"{self.cur[MEMORY_LIMIT]}"
            )
        if "qlen" in st and st["qlen"] > self.cur[LIMIT] + 1:
            self.fail(f"{what}: qlen {st['qlen']} over limit {self.cur[LIMIT]}")
        if self.rng.random() < 0.2:
            err, n = self.q.classes(HANDLE)
            if err or n != self.cur[PRIOS]:
                self.fail(
                    f"{what}: class dump gave {n} classes (error {err}), expected {self.cur[PRIOS]}"
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
        new = dict(base)
        if applied:
            new.update(applied)
        valid = applied is not None and config_valid(new)
        flags = {
            "add": NLM_F_CREATE | NLM_F_EXCL,
            "change": 0,
            "replace": NLM_F_CREATE | NLM_F_REPLACE,
        }[mode]
        err, msg, _ = self.q.modify(flags, HANDLE, self.parent, b"msfc\0", opts)
        # add refuses an existing qdisc, change a missing one
        expect_ok = (
            valid and not (mode == "add" and exists) and not (mode == "change" and not exists)
        )
        # the message of the refusal a change of these may meet while packets are queued
        busy = None
        if exists and (new[PRIOS] != base[PRIOS] or new[FLOWS] != base[FLOWS]):
            busy = BUSY_MSG
        elif exists and new[ISOLATE] != base[ISOLATE]:
            busy = ISOLATE_BUSY_MSG
        if self.outcome(mode, err, msg, expect_ok, busy, what):
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
        err, msg, _ = self.q.modify(
            0, HANDLE, self.parent, b"msfc\0", nla(TCA_OPTIONS | NLA_F_NESTED, body)
        )
        what = " ".join(f"{NAMES[t]}={v}" for t, v in attrs.items())
        if self.outcome("shrink", err, msg, True, False, what):
            self.cur = {**self.cur, **attrs}
            self.count(
                "limit_lowered_below_qlen" if LIMIT in attrs else "memory_limit_lowered_below_usage"
            )
        self.count("op_shrink")
        self.verify(f"shrink {what}")

    def op_delete(self):
        err, msg, _ = self.q.modify(0, HANDLE, self.parent, None, None, RTM_DELQDISC)
        self.outcome("delete", err, msg, self.cur is not None, False, "")
        if not err:
            self.cur = None
        self.count("op_delete")
        self.verify("delete")

    def op_other_kind(self):
        """Replace msfc by another qdisc kind (packets queued are freed) or create it."""
        kind = self.rng.choice([b"pfifo\0", b"fq_codel\0", b"pfifo_fast\0"])
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

    def move(self):
        """Switch between msfc as root and msfc as child of a 2 Mbit/s tbf."""
        self.q.modify(0, 0, TC_H_ROOT, None, None, RTM_DELQDISC)
        self.cur = None
        if self.parent == TC_H_ROOT:
            tbf = subprocess.run(
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
                    "2mbit",
                    "burst",
                    "4000",
                    "latency",
                    "200ms",
                ],
                capture_output=True,
                text=True,
                check=False,
            )
            if tbf.returncode:
                raise RuntimeError(f"tbf: {tbf.stderr}")
            self.parent = TBF_HANDLE | 1
        else:
            self.parent = TC_H_ROOT
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
        )
        for i in range(ops):
            # 1 ms between requests: with time-travel=inf-cpu the guest's clock only moves
            # while it sleeps, so the traffic (64 frames / 2 ms) and the tbf run meanwhile
            time.sleep(0.001)
            if i % 250 == 0:
                self.move()
            if self.cur is None and self.rng.random() < 0.5:
                opts, applied, what = self.options(force_valid=True)
                err, msg, _ = self.q.modify(
                    NLM_F_CREATE | NLM_F_EXCL, HANDLE, self.parent, b"msfc\0", opts
                )
                new = defaults()
                new.update(applied or {})
                if self.outcome("add", err, msg, config_valid(new), False, what):
                    self.cur = new
                self.count("op_add")
                self.verify(f"add {what}")
                continue
            op = self.rng.choice(opnames)
            if op in ("add", "change", "replace"):
                self.op_modify(op)
            elif op == "delete":
                self.op_delete()
            elif op == "shrink":
                self.op_shrink()
            elif op == "other":
                self.op_other_kind()
            elif op == "badkind":
                self.op_bad_kind()
            else:
                self.count("op_dump")
                self.verify("dump")
            if self.failures and len(self.failures) > 50:
                break


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
    pid = start_traffic(ifindex, a.seed)
    rng = random.Random(a.seed)
    f = Fuzzer(q, rng, log)
    t0 = time.time()
    try:
        f.run(a.ops)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    res["guest_s"] = round(time.time() - t0, 1)
    # everything back to empty
    q.modify(0, 0, TC_H_ROOT, None, None, RTM_DELQDISC)
    ip("link", "del", DEV)
    time.sleep(2)  # RCU callbacks free the qdiscs
    res["meminfo_after"] = meminfo()
    if kmemleak("scan") is not None:
        time.sleep(1)
        n, text = kmemleak("scan")
        res["kmemleak_after"] = n
        res["kmemleak_after_report"] = text[:20000]
    res["counts"] = f.counts
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
