#!/usr/bin/python3
"""Shaping experiments of seed 002, run as the workload of a User-Mode Linux boot.

Two network namespaces `a` (senders, shaped side) and `b` (receivers) joined by veth pairs;
the qdiscs under test sit on the `a` ends.  One single-threaded event loop paces every sender
and drains every receiver, so the measurement does not depend on process scheduling inside
the guest (in time-travel=inf-cpu mode guest CPU time is free and only timers move the clock).

Experiments (a spec file lists any number of them, run one after the other):

- "rate": one veth pair per (shaper, rate); a UDP flow of 1400-byte IP packets (1414-byte
  frames, the length tc's rate counts on veth) offered at `offer` x the configured rate, so
  the shaper is always backlogged.  Achieved rate = frame bytes received after `warmup`.
  Shapers: {"kind": "tbf", "burst": BYTES} (root tbf), {"kind": "htb"} (root htb, one class
  rate = ceil = the rate, tc's default burst and cburst), {"kind": "cbq"} (root cbq on a
  10 Mbit/s link, one bounded class at the rate; only in the Linux 5.10 kernel, kernel-5.10),
  {"kind": "msfc"} (root msfc with its own shaper, `bandwidth` = the rate; "args": more words).
- "interference": one veth pair, a 10 Mbit/s bottleneck; a TCP flow paced by its application
  at `tcp_mbit` runs for `duration`; a UDP flood of `flood_mbit` runs in [flood_start,
  flood_end].  Schedulers: "fifo" (htb class 10 Mbit + pfifo), "htb" (TCP class with the
  guaranteed rate, flood class with the rest), "msfc" (htb class 10 Mbit + msfc; TCP in the
  top class by DSCP AF41, the flood in class 0 by DSCP CS1), "cbq" (as "htb" with CBQ classes:
  a bounded, isolated 10 Mbit/s class, under it TCP at the guarantee and the flood at the rest,
  both borrowing; Linux 5.10 kernel only; CBQ's `bandwidth` 10 Mbit/s, the seed's link), "cbq-bw100"
  (the same with `bandwidth 100mbit`).
- "multiflow" (seed Figures 17/18): UDP flows with their own rates, IP packet sizes and
  start/stop times, each in a class at its guaranteed `class_mbit` under a bounded 10 Mbit/s
  link class, borrowing; schedulers "cbq" (Linux 5.10 kernel only) and "htb".

Usage: shaping.py KERNEL_DIR SPEC_JSON RESULT_JSON
The result JSON holds the spec, the guest's timer facts and one record per flow with its
received bytes per `bin` seconds.
"""

import ctypes
import errno
import json
import os
import select
import socket
import struct
import subprocess
import sys
import time

KDIR = sys.argv[1] if len(sys.argv) > 1 else ""
TC = os.path.join(KDIR, "build/iproute2-src/iproute2-6.1.0/tc/tc")
IP_LEN = 1400  # IP packet length of every UDP packet
FRAME = IP_LEN + 14  # what tc counts on veth (Ethernet header, no FCS)
PAYLOAD = IP_LEN - 28  # UDP payload
TOS_TCP = 34 << 2  # AF41 -> msfc class 2 of 3
TOS_FLOOD = 8 << 2  # CS1  -> msfc class 0
CLONE_NEWNET = 0x40000000
LIBC = ctypes.CDLL(None, use_errno=True)


def sh(cmd, ns=None):
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return p.stdout


def tc(*args):
    return sh([TC] + [str(a) for a in args], ns="a")


def htb_class(dev, parent, classid, rate, ceil, *extra):
    """`tc class add` of one htb class (rates as tc words, e.g. "10mbit"), then `extra`."""
    where = ["dev", dev, "parent", parent, "classid", classid]
    tc("class", "add", *where, "htb", "rate", rate, "ceil", ceil, *extra)


def qdisc_stats(devs):
    """`tc -s -j qdisc show` of each device; tc 6.1 prints CBQ's options as text inside its
    JSON, so a device whose JSON does not parse gets the plain `tc -s qdisc show` text."""
    out = []
    for dev in devs:
        raw = tc("-s", "-j", "qdisc", "show", "dev", dev)
        try:
            out += json.loads(raw)
        except ValueError:
            out.append({"dev": dev, "text": tc("-s", "qdisc", "show", "dev", dev)})
    return out


def enter_ns(name):
    fd = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        if LIBC.setns(fd, CLONE_NEWNET) != 0:
            e = ctypes.get_errno()
            raise OSError(e, f"setns({name}): {os.strerror(e)}")
    finally:
        os.close(fd)


def timer_facts():
    """hrtimer resolution as the kernel reports it to tc (4th field of /proc/net/psched)."""
    f = open("/proc/net/psched").read().split()
    res_hz = int(f[3], 16)
    cmdline = open("/proc/cmdline").read().strip()
    tt = "off"
    for w in cmdline.split():
        if w == "time-travel":
            tt = "basic"
        elif w.startswith("time-travel="):
            tt = w.split("=", 1)[1]
    clock = open("/sys/devices/system/clocksource/clocksource0/current_clocksource").read().strip()
    return {
        "psched_hz": res_hz,
        "highres": res_hz == 1000000000,
        "time_travel": tt,
        "clocksource": clock,
        "cmdline": cmdline,
        "kernel": os.uname().release,
    }


# ------------------------------------------------------------------ network set-up


def reset_netns():
    for ns in ("a", "b"):
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    sh(["ip", "netns", "add", "a"])
    sh(["ip", "netns", "add", "b"])
    sh(["ip", "link", "set", "lo", "up"], ns="a")
    sh(["ip", "link", "set", "lo", "up"], ns="b")


def add_pair(i):
    """veth pair va<i> (ns a, 10.<i+1>.0.1) -- vb<i> (ns b, 10.<i+1>.0.2); returns addresses."""
    va, vb = f"va{i}", f"vb{i}"
    sh(["ip", "link", "add", va, "netns", "a", "type", "veth", "peer", "name", vb, "netns", "b"])
    src, dst = f"10.{i + 1}.0.1", f"10.{i + 1}.0.2"
    sh(["ip", "addr", "add", src + "/24", "dev", va], ns="a")
    sh(["ip", "addr", "add", dst + "/24", "dev", vb], ns="b")
    # one TCP segment per skb, as on a router's wire (no 64 KB GSO packets through the shaper)
    sh(["ip", "link", "set", va, "gso_max_segs", "1", "up"], ns="a")
    sh(["ip", "link", "set", vb, "gso_max_segs", "1", "up"], ns="b")
    return va, src, dst


def setup_rate_shaper(dev, shaper, rate):
    kind = shaper["kind"]
    if kind == "tbf":
        tc(
            "qdisc",
            "add",
            "dev",
            dev,
            "root",
            "tbf",
            "rate",
            f"{rate}bit",
            "burst",
            f"{shaper['burst']}b",
            "limit",
            f"{shaper.get('limit', 30000)}b",
        )
    elif kind == "htb":
        tc("qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "1")
        extra = []
        if "burst" in shaper:
            extra = ["burst", f"{shaper['burst']}b", "cburst", f"{shaper['burst']}b"]
        htb_class(dev, "1:", "1:1", f"{rate}bit", f"{rate}bit", *extra)
        tc("qdisc", "add", "dev", dev, "parent", "1:1", "pfifo", "limit", "20")
    elif kind == "cbq":
        # a bounded CBQ class at the rate on a link of CBQ_LINK (the seed's CBQ limiter, its
        # Figure 16); CBQ needs a classifier: a u32 filter that matches every packet
        cbq_root(dev)
        cbq_class(dev, "1:", "1:1", rate, 5, "bounded")
        tc("qdisc", "add", "dev", dev, "parent", "1:1", "pfifo", "limit", "20")
        cbq_filter(dev, "1", ["match", "u32", "0", "0"], "1:1")
    elif kind == "msfc":
        # msfc's own shaper (bandwidth), no parent; "args": more msfc words (overhead, ...)
        words = ["bandwidth", f"{rate}bit", *shaper.get("args", [])]
        tc("qdisc", "add", "dev", dev, "root", "msfc", *words)
    else:
        raise ValueError(f"unknown shaper kind {kind!r} (use tbf, htb, cbq or msfc)")


# CBQ (Linux 5.10 kernel only, kernel-5.10): the link bandwidth CBQ's idle-time estimator
# assumes, and the average packet (every frame here is 1414 bytes)
CBQ_LINK = "10mbit"
CBQ_AVPKT = str(FRAME)


def cbq_root(dev, bandwidth=CBQ_LINK):
    tc(
        "qdisc",
        "add",
        "dev",
        dev,
        "root",
        "handle",
        "1:",
        "cbq",
        "bandwidth",
        bandwidth,
        "avpkt",
        CBQ_AVPKT,
    )


def cbq_class(dev, parent, classid, rate_bps, prio, *flags, bandwidth=CBQ_LINK):
    tc(
        "class",
        "add",
        "dev",
        dev,
        "parent",
        parent,
        "classid",
        classid,
        "cbq",
        "bandwidth",
        bandwidth,
        "rate",
        f"{rate_bps}bit",
        "allot",
        "1514",
        "prio",
        str(prio),
        "avpkt",
        CBQ_AVPKT,
        *flags,
    )


def cbq_filter(dev, prio, match, flowid):
    tc(
        "filter",
        "add",
        "dev",
        dev,
        "parent",
        "1:",
        "protocol",
        "ip",
        "prio",
        prio,
        "u32",
        *match,
        "flowid",
        flowid,
    )


def setup_cbq_bottleneck(dev, link_mbit, guarantee_mbit, bandwidth=CBQ_LINK):
    # as the htb scheduler: a bounded, isolated class is the link; under it the guaranteed
    # class (rate = guarantee, priority 1) and the flood class (the rest, priority 2), both
    # borrowing from the link class; u32 puts TCP in the first, everything else in the second.
    # `bandwidth` is the device speed CBQ assumes: the seed's 10 Mbit/s link ("cbq"), or
    # 100 Mbit/s ("cbq-bw100"), which leaves the 10 Mbit/s bound to the link class
    bw = {"bandwidth": bandwidth}
    cbq_root(dev, bandwidth)
    cbq_class(dev, "1:", "1:1", link_mbit * 10**6, 5, "bounded", "isolated", **bw)
    cbq_class(dev, "1:1", "1:10", int(guarantee_mbit * 10**6), 1, **bw)
    cbq_class(dev, "1:1", "1:20", int((link_mbit - guarantee_mbit) * 10**6), 2, **bw)
    tc("qdisc", "add", "dev", dev, "parent", "1:10", "pfifo", "limit", "100")
    tc("qdisc", "add", "dev", dev, "parent", "1:20", "pfifo", "limit", "100")
    cbq_filter(dev, "1", ["match", "ip", "protocol", "6", "0xff"], "1:10")
    cbq_filter(dev, "2", ["match", "u32", "0", "0"], "1:20")


def setup_bottleneck(dev, sched, link_mbit, guarantee_mbit):
    if sched in ("cbq", "cbq-bw100"):
        bandwidth = "100mbit" if sched == "cbq-bw100" else CBQ_LINK
        setup_cbq_bottleneck(dev, link_mbit, guarantee_mbit, bandwidth)
        return
    tc(
        "qdisc",
        "add",
        "dev",
        dev,
        "root",
        "handle",
        "1:",
        "htb",
        "default",
        "1" if sched != "htb" else "20",
    )
    htb_class(dev, "1:", "1:1", f"{link_mbit}mbit", f"{link_mbit}mbit")
    if sched == "fifo":
        tc("qdisc", "add", "dev", dev, "parent", "1:1", "pfifo", "limit", "100")
    elif sched == "msfc":
        tc(
            "qdisc",
            "add",
            "dev",
            dev,
            "parent",
            "1:1",
            "handle",
            "10:",
            "msfc",
            "prios",
            "3",
            "ratio",
            "2",
        )
    elif sched == "htb":
        # the guaranteed class (rate = guarantee) borrows first (prio 0); the flood class
        # gets the rest of the link as its rate and borrows after it (prio 1)
        htb_class(
            dev, "1:1", "1:10", f"{guarantee_mbit * 1000}kbit", f"{link_mbit}mbit", "prio", "0"
        )
        htb_class(
            dev,
            "1:1",
            "1:20",
            f"{(link_mbit - guarantee_mbit) * 1000}kbit",
            f"{link_mbit}mbit",
            "prio",
            "1",
        )
        tc("qdisc", "add", "dev", dev, "parent", "1:10", "pfifo", "limit", "100")
        tc("qdisc", "add", "dev", dev, "parent", "1:20", "pfifo", "limit", "100")
        tc(
            "filter",
            "add",
            "dev",
            dev,
            "parent",
            "1:",
            "protocol",
            "ip",
            "prio",
            "1",
            "u32",
            "match",
            "ip",
            "protocol",
            "6",
            "0xff",
            "flowid",
            "1:10",
        )
    else:
        raise ValueError(f"unknown scheduler {sched!r} (use fifo, htb, msfc, cbq or cbq-bw100)")


# ------------------------------------------------------------------ flows


class Recorder:
    """Bytes per bin, delivery gaps, and the span of the deliveries after `warmup`."""

    def __init__(self, t0, binw, nbins, warmup=0.0):
        self.t0, self.binw, self.warmup = t0, binw, warmup
        self.bins = [0] * nbins
        self.last = None
        self.gaps = []  # (start, length) of every delivery gap
        self.first = None
        self.w_first = self.w_last = None  # first / last delivery after warmup
        self.w_bytes = self.w_first_bytes = self.w_count = 0

    def add(self, now, nbytes):
        t = now - self.t0
        if t >= self.warmup:
            if self.w_first is None:
                self.w_first, self.w_first_bytes = t, nbytes
            self.w_last = t
            self.w_bytes += nbytes
            self.w_count += 1
        b = int(t / self.binw)
        if 0 <= b < len(self.bins):
            self.bins[b] += nbytes
        if self.last is not None:
            self.gaps.append((round(self.last, 6), round(t - self.last, 6)))
        if self.first is None:
            self.first = t
        self.last = t


class UdpFlow:
    """Paced UDP sender: sends every packet that is due (catches up after a late wake-up)."""

    def __init__(self, name, src, dst, port, bps, start, stop, tos=0, ip_len=IP_LEN):
        enter_ns("b")
        self.rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.rx.bind((dst, port))
        self.rx.setblocking(False)
        enter_ns("a")
        self.tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.tx.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
        self.tx.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
        self.tx.bind((src, 0))
        self.tx.connect((dst, port))
        self.tx.setblocking(False)
        self.name, self.bps, self.start, self.stop = name, bps, start, stop
        self.interval = (ip_len + 14) * 8 / bps
        self.sent = self.send_errors = 0
        self.payload = bytes(ip_len - 28)

    def next_time(self):
        t = self.start + self.sent * self.interval
        return t if t < self.stop else None

    def pump(self, now):
        while True:
            t = self.next_time()
            if t is None or t > now:
                return
            try:
                self.tx.send(self.payload)
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.ENOBUFS):
                    raise
                self.send_errors += 1
            self.sent += 1

    def drain(self, now, rec):
        while True:
            try:
                n = len(self.rx.recv(65536))
            except BlockingIOError:
                return
            rec.add(now, n + 42)  # UDP + IP + Ethernet headers: frame bytes


class TcpFlow:
    """TCP flow whose application produces data at `bps` (payload); the socket takes what it can."""

    def __init__(self, name, src, dst, port, bps, start, stop, tos=0):
        enter_ns("b")
        lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lst.bind((dst, port))
        lst.listen(1)
        enter_ns("a")
        self.tx = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tx.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
        self.tx.bind((src, 0))
        self.tx.connect((dst, port))
        self.rx, _ = lst.accept()
        lst.close()
        self.tx.setblocking(False)
        self.rx.setblocking(False)
        self.name, self.bps, self.start, self.stop = name, bps, start, stop
        self.chunk = 1400
        self.interval = self.chunk * 8 / bps
        self.produced = self.written = 0
        self.segs_seen = self.payload_received = 0
        self.buf = bytes(65536)

    def next_time(self):
        t = self.start + (self.produced // self.chunk) * self.interval
        return t if t < self.stop else None

    def pump(self, now):
        while True:
            t = self.next_time()
            if t is None or t > now:
                break
            self.produced += self.chunk
        while self.written < self.produced:
            n = min(self.produced - self.written, len(self.buf))
            try:
                self.written += self.tx.send(memoryview(self.buf)[:n])
            except BlockingIOError:
                return

    def data_segs_in(self):
        """(data segments received, TCP timestamps on) from the receiver's struct tcp_info."""
        info = self.rx.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
        return struct.unpack_from("I", info, 152)[0], bool(
            info[5] & 1
        )  # tcpi_data_segs_in, tcpi_options

    def drain(self, now, rec):
        """Records frame bytes as tc counts them: payload + headers of every data segment."""
        payload = 0
        while True:
            try:
                n = len(self.rx.recv(65536))
            except BlockingIOError:
                break
            if n == 0:
                break
            payload += n
        if payload:
            segs, ts = self.data_segs_in()
            hdr = 14 + 20 + 20 + (12 if ts else 0)
            rec.add(now, payload + hdr * (segs - self.segs_seen))
            self.segs_seen = segs
            self.payload_received += payload


def event_loop(flows, t0, end, binw, warmup=0.0):
    """Pace all senders and drain all receivers until `end` (absolute monotonic time)."""
    nbins = int(round((end - t0) / binw))
    recs = {f.name: Recorder(t0, binw, nbins, warmup) for f in flows}
    by_fd = {f.rx.fileno(): f for f in flows}
    fds = list(by_fd)
    wakeups = 0
    while True:
        now = time.monotonic()
        if now >= end:
            break
        for f in flows:
            f.pump(now - t0)
        nxt = [t for t in (f.next_time() for f in flows) if t is not None]
        wait = max(0.0, min([end - t0] + nxt) - (now - t0))
        ready, _, _ = select.select(fds, [], [], wait)
        for fd in ready:
            f = by_fd[fd]
            f.drain(time.monotonic(), recs[f.name])
        wakeups += 1
    # packets still in flight at `end` are not counted
    return recs, wakeups


# ------------------------------------------------------------------ experiments


def run_rate(exp):
    reset_netns()
    duration, warmup, binw = exp["duration"], exp["warmup"], exp.get("bin", 0.1)
    offer = exp.get("offer", 1.5)
    flows, meta = [], []
    port = 9000
    i = 0
    for _sh_i, shaper in enumerate(exp["shapers"]):
        for rate in exp["rates"]:
            dev, src, dst = add_pair(i)
            setup_rate_shaper(dev, shaper, rate)
            name = f"{shaper['name']}@{rate}"
            flows.append(UdpFlow(name, src, dst, port, rate * offer, 0.0, duration))
            meta.append(
                {
                    "name": name,
                    "dev": dev,
                    "shaper": shaper["name"],
                    "kind": shaper["kind"],
                    "burst": shaper.get("burst"),
                    "configured_bps": rate,
                    "offered_bps": rate * offer,
                }
            )
            i += 1
    t0 = time.monotonic()
    w0 = time.time()  # guest clock (virtual in time-travel mode)
    recs, wakeups = event_loop(flows, t0, t0 + duration, binw, warmup)
    guest = time.time() - w0
    qstats = qdisc_stats([m["dev"] for m in meta])
    out = []
    for f, m in zip(flows, meta, strict=False):
        r = recs[f.name]
        # rate of the output stream: bytes after the first delivery over the span of the
        # deliveries (exact for a periodic output, no window-edge error of +-1 packet)
        span = (r.w_last - r.w_first) if r.w_count >= 2 else 0.0
        achieved = (r.w_bytes - r.w_first_bytes) * 8 / span if span > 0 else 0.0
        m.update(
            {
                "achieved_bps": achieved,
                "delivered": r.w_count,
                "span_s": span,
                "window_bps": r.w_bytes * 8 / (duration - warmup),
                "bins": r.bins,
                "sent": f.sent,
                "send_errors": f.send_errors,
                "qdisc": [q for q in qstats if q.get("dev") == m["dev"]],
            }
        )
        out.append(m)
        print(
            f"shaping: {m['name']}: configured {m['configured_bps']} achieved "
            f"{m['achieved_bps']:.0f} ({m['achieved_bps'] / m['configured_bps']:.3f})",
            flush=True,
        )
    for f in flows:
        f.tx.close()
        f.rx.close()
    return {
        "experiment": "rate",
        "spec": exp,
        "flows": out,
        "wakeups": wakeups,
        "guest_s": round(guest, 1),
    }


def run_interference(exp):
    out = []
    for sched in exp["schedulers"]:
        for flood in exp["flood_mbit"]:
            reset_netns()
            dev, src, dst = add_pair(0)
            setup_bottleneck(dev, sched, exp["link_mbit"], exp["guarantee_mbit"])
            duration, binw = exp["duration"], exp.get("bin", 0.1)
            tcp = TcpFlow("tcp", src, dst, 5001, exp["tcp_mbit"] * 1e6, 0.0, duration, TOS_TCP)
            flows = [tcp]
            if flood > 0:
                flows.append(
                    UdpFlow(
                        "flood",
                        src,
                        dst,
                        9000,
                        flood * 1e6,
                        exp["flood_start"],
                        exp["flood_end"],
                        TOS_FLOOD,
                    )
                )
            t0 = time.monotonic()
            w0 = time.time()  # guest clock (virtual in time-travel mode)
            recs, wakeups = event_loop(flows, t0, t0 + duration, binw)
            guest = time.time() - w0
            info = sh(["ss", "-tin"], ns="a")
            qstats = qdisc_stats([dev])
            rec = {
                "scheduler": sched,
                "flood_mbit": flood,
                "guest_s": round(guest, 1),
                "wakeups": wakeups,
                "ss": info,
                "qdisc": qstats,
            }
            for f in flows:
                r = recs[f.name]
                rec[f.name] = {"bins": r.bins, "first": r.first, "last": r.last}
            # every gap between two deliveries of the TCP flow (start, length)
            rec["tcp"]["gaps"] = recs["tcp"].gaps
            rec["tcp"]["written"] = tcp.written
            rec["tcp"]["payload_received"] = tcp.payload_received
            rec["tcp"]["data_segs_in"] = tcp.segs_seen
            rec["tcp"]["produced"] = tcp.produced
            if flood > 0:
                rec["flood"]["sent"] = flows[1].sent
            for f in flows:
                f.tx.close()
                f.rx.close()
            fs, fe = exp["flood_start"], exp["flood_end"]
            b = rec["tcp"]["bins"][int(fs / binw) : int(fe / binw)]
            mean = sum(b) * 8 / (fe - fs) / 1e6 if b else 0
            print(
                f"shaping: interference {sched} flood {flood} Mbit/s: TCP {mean:.3f} Mbit/s "
                f"during the flood (guest clock {guest:.1f} s)",
                flush=True,
            )
            out.append(rec)
    return {"experiment": "interference", "spec": exp, "runs": out}


def setup_multiflow(dev, sched, link_mbit, flows):
    """The seed's Figures 17/18 tree: a bounded 10 Mbit/s link class, under it one class per
    flow at the flow's guaranteed rate (borrowing up to the link), the flow chosen by its UDP
    destination port (u32); `sched` is cbq or htb."""
    if sched == "cbq":
        cbq_root(dev)
        cbq_class(dev, "1:", "1:1", link_mbit * 10**6, 5, "bounded", "isolated")
    elif sched == "htb":
        tc("qdisc", "add", "dev", dev, "root", "handle", "1:", "htb")
        htb_class(dev, "1:", "1:1", f"{link_mbit}mbit", f"{link_mbit}mbit")
    else:
        raise ValueError(f"unknown scheduler {sched!r} for multiflow (use cbq or htb)")
    for i, f in enumerate(flows):
        cid = f"1:{10 + i}"
        rate = int(f["class_mbit"] * 10**6)
        if sched == "cbq":
            cbq_class(dev, "1:1", cid, rate, 1)
        else:
            htb_class(dev, "1:1", cid, f"{rate}bit", f"{link_mbit}mbit")
        tc("qdisc", "add", "dev", dev, "parent", cid, "pfifo", "limit", "100")
        cbq_filter(dev, "1", ["match", "ip", "dport", str(9000 + i), "0xffff"], cid)


def run_multiflow(exp):
    """UDP flows of given rates, packet sizes and start/stop times, each in its own class
    (seed Figures 17/18); per flow its frame bytes per `bin`."""
    out = []
    binw = exp.get("bin", 0.1)
    for sched in exp["schedulers"]:
        reset_netns()
        dev, src, dst = add_pair(0)
        setup_multiflow(dev, sched, exp["link_mbit"], exp["flows"])
        flows = [
            UdpFlow(
                f["name"],
                src,
                dst,
                9000 + i,
                f["mbit"] * 1e6,
                f["start"],
                f["stop"],
                ip_len=f["ip_len"],
            )
            for i, f in enumerate(exp["flows"])
        ]
        t0 = time.monotonic()
        recs, wakeups = event_loop(flows, t0, t0 + exp["duration"], binw)
        qstats = qdisc_stats([dev])
        rec = {"scheduler": sched, "wakeups": wakeups, "qdisc": qstats, "flows": {}}
        for f in flows:
            rec["flows"][f.name] = {
                "bins": recs[f.name].bins,
                "sent": f.sent,
                "send_errors": f.send_errors,
            }
            f.tx.close()
            f.rx.close()
        print(f"shaping: multiflow {sched} done ({wakeups} wake-ups)", flush=True)
        out.append(rec)
    return {"experiment": "multiflow", "spec": exp, "runs": out}


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: shaping.py KERNEL_DIR SPEC_JSON RESULT_JSON")
    spec = json.load(open(sys.argv[2]))
    # let the kernel finish switching timers (to high resolution, after the clocksource
    # change at boot, on a later tick); in time-travel mode the boot takes almost no guest time
    time.sleep(1.0)
    result = {"timer": timer_facts(), "label": spec.get("label"), "experiments": [], "ok": False}
    print("shaping: timer " + json.dumps(result["timer"]), flush=True)
    want = spec.get("expect_highres")
    if want is not None and want != result["timer"]["highres"]:
        result["error"] = (
            f"boot asked for high-resolution timers {'on' if want else 'off'} but "
            f"/proc/net/psched reports {result['timer']['psched_hz']} Hz resolution"
        )
    else:
        try:
            for exp in spec["experiments"]:
                fn = {
                    "rate": run_rate,
                    "interference": run_interference,
                    "multiflow": run_multiflow,
                }.get(exp["experiment"])
                if fn is None:
                    raise ValueError(f"unknown experiment {exp['experiment']!r}")
                result["experiments"].append(fn(exp))
            result["ok"] = True
        except Exception as e:  # reported in the result file, the host side fails on it
            result["error"] = f"{type(e).__name__}: {e}"
    tmp = sys.argv[3] + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(result, fh)
    os.replace(tmp, sys.argv[3])
    print(
        "shaping: " + ("done" if result["ok"] else "error: " + result.get("error", "")), flush=True
    )


if __name__ == "__main__":
    main()
