"""Pure-Python reference of MSFC (docs/algorithm.md): the scheduler, the overload drop and
CoDel with the arithmetic of Linux's codel_impl.h.

It replays a cross-check trace (docs/algorithm.md, "Cross-check traces") and prints every
decision in order: one line per dequeue ("<class> <flow> <len>", with " ce" when the packet
leaves CE-marked and " ce threshold" when ce_threshold marked it, or "-" when nothing was
dequeued) and one line per dropped packet
("drop <reason> <class> <flow> <len>").  The ns-3 model and the Linux qdisc must produce the
same output byte for byte.

Usage: python -m msfc.model.reference TRACE [-o OUT]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import deque

from . import params as P
from .traceformat import KEYS as TRACE_KEYS
from .traceformat import TRACE_VERSION  # the newest trace format this reference reads

CODEL_SHIFT = 10  # CoDel time unit: 1024 ns (Linux codel_time_t)
# a trace's clock stays below 2^31 CoDel units, so no time comparison wraps around
MAX_TRACE_NS = ((1 << 31) - 1) << CODEL_SHIFT
REC_INV_SQRT_SHIFT = 16
U32 = 0xFFFFFFFF
#: the ECN field of the TOS byte (RFC 3168): Not-ECT, ECT(1), ECT(0), CE
ECN_MASK, ECT_1, ECT_0, ECN_CE = 3, 1, 2, 3
#: a trace's ECN field of 'E' -> the packet's ECN bits: 0 Not-ECT, 1 ECT(0) (version 2),
#: 2 ECT(1), 3 CE (version 6)
TRACE_ECN = (0, ECT_0, ECT_1, ECN_CE)

#: values of the ``overload`` parameter (docs/algorithm.md): the thesis's rule first
OVERLOAD_MODES = P.CHOICES["overload"]
#: values of the ``weights`` parameter: whole-byte class quanta (the thesis), or 1/65536 byte
WEIGHT_MODES = P.CHOICES["weights"]
#: values of the ``inversion`` parameter: class quanta as configured (the thesis), or raised so
#: that no class gives its flows less each than a lower class gives its own
INVERSION_MODES = P.CHOICES["inversion"]
#: values of the ``boost`` parameter: one flow list per class (the thesis), fq_codel's
#: new-flow list in each class, or that list and the classes' new flows ahead of the class round
BOOST_MODES = P.CHOICES["boost"]
#: values of the ``order`` parameter: the classes take turns in a round (the thesis), or the
#: most important class with credit left in the round goes first
ORDER_MODES = P.CHOICES["order"]
#: values of the ``auto`` parameter: the class comes from the mark (the thesis), or unmarked
#: packets (or all packets the DSCP map classifies) get the class their flow slot has earned
AUTO_MODES = P.CHOICES["auto"]
#: a trace's class field for an auto packet: classified by the queue disc (version 5)
AUTO_CLASS = "a"
#: a trace's class field for a packet of the least-effort lane, and the lane's class in the
#: output (version 7; docs/algorithm.md, "LE and NQB")
LANE_CLASS = "l"
#: the suffix of a trace's class field for an NQB packet of that class: "1n" (version 7)
NQB_SUFFIX = "n"
#: weights=exact: class quanta and deficits in 1/65536 byte
EXACT_SHIFT = 16
#: values of the ``isolate`` parameter: fairness per flow (the thesis), or per source host,
#: destination host or both first, then per flow of the host
ISOLATE_MODES = P.CHOICES["isolate"]
#: isolate != flow: flow quanta and deficits in 1/65536 byte
ISOLATE_SHIFT = 16


class TraceError(ValueError):
    pass


def ratio_fp_unchecked(text: str) -> int:
    """ratio as a decimal string -> 16.16 fixed point (params.ratio_fixed: as tc and ns-3
    convert it), any size."""
    try:
        return P.ratio_fixed(text)
    except ValueError:
        raise TraceError(
            f"ratio '{text}' is not a number: write e.g. ratio=2 or ratio=1.5"
        ) from None


def ratio_to_fp(text: str) -> int:
    """ratio as a decimal string -> 16.16 fixed point, in its range."""
    fp = ratio_fp_unchecked(text)
    if not P.param("ratio").contains(fp):
        raise TraceError(f"ratio={text}: {P.param('ratio').message}")
    return fp


def check_quanta(prios: int, quanta) -> None:
    """Explicit class quanta (``quanta``): one byte count per class, each in quantum's range."""
    if quanta is None:
        return
    if not all(P.param("quantum").contains(x) for x in quanta):
        raise TraceError(f"quanta={format_quanta(quanta)}: {P.definitions().quanta_range_msg}")
    if len(quanta) != prios:
        raise TraceError(
            f"quanta={format_quanta(quanta)}, prios={prios}: {P.definitions().quanta_count_msg}"
        )


def check_ce_threshold(prios: int, thresholds, selector: int, mask: int) -> None:
    """L4S marking (docs/algorithm.md, "L4S marking"): one threshold (every class) or one per
    class, each in its range or None (off in that class); the selector a TOS value within its
    mask."""
    d = P.definitions()
    for name, v in (("ce_threshold_selector", selector), ("ce_threshold_mask", mask)):
        if not d.ce[name].contains(v):
            raise TraceError(f"{name}={v}: {d.ce[name].message}")
    if selector & ~mask:
        raise TraceError(
            f"ce_threshold_selector={selector}, ce_threshold_mask={mask}: {d.ce_selector_msg}"
        )
    if thresholds is None:
        return
    text = format_ce_threshold(thresholds)
    if not all(t is None or d.ce["ce_threshold"].contains(t) for t in thresholds):
        raise TraceError(f"ce_threshold={text}: {d.ce_threshold_range_msg}")
    if len(thresholds) not in (1, prios):
        raise TraceError(f"ce_threshold={text}, prios={prios}: {d.ce_threshold_count_msg}")


def format_ce_threshold(thresholds) -> str:
    """``ce_threshold`` as the traces write it: microseconds (or ``off``) joined by commas, or
    ``off`` for none."""
    if thresholds is None:
        return "off"
    return ",".join("off" if t is None else str(t) for t in thresholds)


def parse_ce_threshold(text: str):
    """A trace's ``ce_threshold`` value -> None (off) or a tuple of microseconds, None for an
    entry ``off``; only what the netlink attribute cannot carry (not a list of u32) is an error
    here."""
    if text == "off":
        return None
    parts = text.split(",")
    if not all(t == "off" or (re.fullmatch(r"[0-9]{1,10}", t) and int(t) < U32) for t in parts):
        raise TraceError(
            f"ce_threshold={text} is not a list of times in us: write e.g. ce_threshold=1000 "
            "(every class), ce_threshold=off,1000,500 (one per class) or ce_threshold=off"
        )
    return tuple(None if t == "off" else int(t) for t in parts)


def format_quanta(quanta) -> str:
    """``quanta`` as the traces and tc write it: the byte counts joined by commas, or
    ``ratio`` (the class quanta come from quantum and ratio)."""
    return "ratio" if quanta is None else ",".join(str(x) for x in quanta)


def parse_quanta(text: str):
    """A trace's ``quanta`` value -> a tuple of byte counts, or None for ``ratio``; only what
    the netlink attribute cannot carry (not a list of u32) is an error here."""
    if text == "ratio":
        return None
    parts = text.split(",")
    if not all(re.fullmatch(r"[0-9]{1,10}", t) and int(t) <= U32 for t in parts):
        raise TraceError(
            f"quanta={text} is not a list of byte counts: write e.g. quanta=95,1514,757,378 "
            "(one per class) or quanta=ratio"
        )
    return tuple(int(t) for t in parts)


def class_quanta(
    prios: int, quantum: int, ratio_fp: int, exact: bool = False, quanta=None
) -> list[int]:
    """Q_0 .. Q_{prios-1}: whole bytes (at least 1), or with ``exact`` 1/65536 bytes; from
    ``quanta`` (bytes, one per class) when given, else from quantum and ratio."""
    if quanta is not None:
        q = [x << (EXACT_SHIFT if exact else 0) for x in quanta]
    elif not exact:
        q = [quantum]
        for _ in range(1, prios):
            q.append(max(1, (q[-1] * ratio_fp + 32768) >> 16))
    else:
        q = [quantum << EXACT_SHIFT]
        for _ in range(1, prios):
            q.append((q[-1] * ratio_fp + 32768) >> 16)
    if max(q) > P.definitions().class_quantum_max << (EXACT_SHIFT if exact else 0):
        raise TraceError(P.definitions().class_quantum_msg)
    # every rounding step is at most half a unit: a share is off by at most sum(1 / q_k)
    if exact and (0 in q or sum((1 << 32) // x for x in q) > (1 << 32) // 200):
        raise TraceError(P.definitions().exact_weights_msg)
    return q


def refills(deficit: int, quantum: int) -> int:
    """Refills of `quantum` a deficit needs to become positive (0 if it is)."""
    return 0 if deficit > 0 else -deficit // quantum + 1


def _idx(cl) -> int:
    return cl.idx


def us_to_codel(us: int) -> int:
    return (us * 1000) >> CODEL_SHIFT


def _before(a: int, b: int) -> bool:
    """codel_time_before(a, b): (s32)(a - b) < 0 on u32 times."""
    return ((a - b) & U32) >= 0x80000000


def newton_step(rec_inv_sqrt: int, count: int) -> int:
    """One Newton iteration of 1/sqrt(count) in Q0.16, as Linux codel_Newton_step()."""
    invsqrt = (rec_inv_sqrt << REC_INV_SQRT_SHIFT) & U32
    invsqrt2 = (invsqrt * invsqrt) >> 32
    val = ((3 << 32) - count * invsqrt2) & 0xFFFFFFFFFFFFFFFF
    val >>= 2
    val = ((val * invsqrt) & 0xFFFFFFFFFFFFFFFF) >> (32 - 2 + 1)
    return (val >> REC_INV_SQRT_SHIFT) & 0xFFFF


def control_law(t: int, interval: int, rec_inv_sqrt: int) -> int:
    """t + interval / sqrt(count): reciprocal_scale(interval, rec_inv_sqrt << 16)."""
    return (t + ((interval * (rec_inv_sqrt << REC_INV_SQRT_SHIFT)) >> 32)) & U32


class Packet:
    __slots__ = ("length", "enq", "tos", "threshold", "auto")

    def __init__(self, length: int, enq: int, tos: int, auto: bool = False):
        self.length, self.enq = length, enq
        self.tos = tos  # the TOS byte (DSCP 0 in a trace: the ECN field only)
        self.threshold = False  # CE-marked by ce_threshold
        self.auto = auto  # classified by auto (its flow slot's level)

    def mark(self) -> bool:
        """INET_ECN_set_ce(): an ECN-capable packet (ECT or already CE) leaves with CE."""
        if self.tos & ECN_MASK == 0:
            return False
        self.tos |= ECN_CE
        return True

    @property
    def ce(self) -> int:
        """The output's mark: 0 none, 1 CE, 2 CE set by ce_threshold."""
        return 2 if self.threshold else int(self.tos & ECN_MASK == ECN_CE)


class Flow:
    __slots__ = (
        "cls",
        "idx",
        "pkts",
        "backlog",
        "deficit",
        "active",
        "new",
        "sparse",
        "nqb",
        "stamp",
        "first_above_time",
        "drop_next",
        "count",
        "lastcount",
        "rec_inv_sqrt",
        "dropping",
        "ldelay",
        "src",
        "dst",
        "level",
        "clean",
        "last",
    )

    def __init__(self, cls: int, idx: int, now: int = 0):
        self.cls, self.idx = cls, idx
        self.pkts: deque[Packet] = deque()
        self.backlog = 0
        self.deficit = 0
        self.active = False  # on one of its class's flow lists
        self.new = False  # boost=on or across: on the class's new-flow list
        # left from the new-flow list (boost=across) or from the NQB list; its next activation
        # keeps the deficit
        self.sparse = False
        self.nqb = False  # on its class's NQB list
        self.stamp = 0  # its class's refill counter when it last got a quantum as NQB (u32)
        # CoDel state (codel_vars), times in CoDel units
        self.first_above_time = 0
        self.drop_next = 0
        self.count = 0
        self.lastcount = 0
        self.rec_inv_sqrt = 0
        self.dropping = False
        self.ldelay = 0  # the sojourn of the packet tested last (codel_vars.ldelay)
        # isolate != flow: the host slots of the packet that made the flow active
        self.src = 0
        self.dst = 0
        # auto, used in the home class's records: the class of the slot's auto packets, and
        # when the slot last changed class (CoDel units; at first: when it was allocated)
        self.level = cls
        self.clean = now
        self.last = now  # auto: when the slot's last auto packet came


class Class:
    __slots__ = (
        "idx",
        "quantum",
        "flows",
        "new_flows",
        "nqb_flows",
        "refills",
        "nqb_demotions",
        "deficit",
        "active",
        "packets",
        "src_load",
        "dst_load",
        "src_deficit",
        "dst_deficit",
        "round",
    )

    def __init__(self, idx: int, quantum: int, nflows: int = 0):
        self.idx, self.quantum = idx, quantum
        self.flows: deque[Flow] = deque()  # the active flows; with boost on/across the old flows
        self.new_flows: deque[Flow] = deque()  # boost on/across: flows that became active
        self.nqb_flows: deque[Flow] = deque()  # NQB flows, served first
        self.refills = 0  # refills of the flows not on nqb_flows, modulo 2^32
        self.nqb_demotions = 0  # NQB flows moved to the old flows by queue protection
        self.deficit = 0
        self.active = False
        self.round = 0  # order=priority: the round in which the class last got a quantum
        self.packets = 0  # packets queued in the class
        # isolate != flow: active flows of each source / destination host slot
        self.src_load = [0] * nflows
        self.dst_load = [0] * nflows
        # isolate != flow: the inner DRR credit of each source / destination host slot, in
        # 1/65536 byte; a flow draws on its host's (docs/algorithm.md, "Per-host isolation")
        self.src_deficit = [0] * nflows
        self.dst_deficit = [0] * nflows


def check_params(
    prios,
    flows,
    quantum,
    ratio,
    limit,
    drop_batch,
    target,
    interval,
    ecn,
    overload,
    weights,
    inversion,
    isolate,
    boost,
    order="round",
    quanta=None,
    auto="off",
    ce_threshold=None,
    ce_threshold_selector=1,
    ce_threshold_mask=3,
) -> dict:
    """A configuration checked as the qdisc checks it (msfc.model.params: its ranges and words), as a
    dict of Msfc's keyword arguments; raises TraceError naming the first bad value."""
    given = dict(
        prios=prios,
        flows=flows,
        quantum=quantum,
        limit=limit,
        drop_batch=drop_batch,
        target=target,
        interval=interval,
    )
    for name, v in given.items():  # the qdisc's ranges and words (msfc.model.params)
        if not P.param(name).contains(v):
            raise TraceError(f"{name}={v}: {P.param(name).message}")
    if not 0 < us_to_codel(target) < us_to_codel(interval):
        raise TraceError(P.definitions().target_interval_msg)
    if ecn not in (0, 1):
        raise TraceError(f"ecn={ecn} must be 0 or 1")
    if overload not in OVERLOAD_MODES:
        raise TraceError(f"overload={overload} unknown: use overload=flow or overload=class")
    if weights not in WEIGHT_MODES:
        raise TraceError(f"weights={weights} unknown: use weights=rounded or weights=exact")
    if isolate not in ISOLATE_MODES:
        raise TraceError(
            f"isolate={isolate} unknown: use isolate={', isolate='.join(ISOLATE_MODES)}"
        )
    if boost not in BOOST_MODES:
        raise TraceError(f"boost={boost} unknown: use boost={', boost='.join(BOOST_MODES)}")
    if order not in ORDER_MODES:
        raise TraceError(f"order={order} unknown: use order=round or order=priority")
    if auto not in AUTO_MODES:
        raise TraceError(f"auto={auto} unknown: use auto={', auto='.join(AUTO_MODES)}")
    if inversion not in INVERSION_MODES:
        raise TraceError(f"inversion={inversion} unknown: use inversion=allow or inversion=prevent")
    check_quanta(prios, quanta)
    check_ce_threshold(prios, ce_threshold, ce_threshold_selector, ce_threshold_mask)
    class_quanta(prios, quantum, ratio_to_fp(str(ratio)), weights == "exact", quanta)  # bounds
    return dict(
        given,
        ratio=ratio,
        ecn=ecn,
        overload=overload,
        weights=weights,
        inversion=inversion,
        isolate=isolate,
        boost=boost,
        order=order,
        quanta=quanta,
        auto=auto,
        ce_threshold=ce_threshold,
        ce_threshold_selector=ce_threshold_selector,
        ce_threshold_mask=ce_threshold_mask,
    )


class Msfc:
    """The queue disc.  `now` is the clock in ns (advance it with `advance()`); every decision
    is appended to `events` as it happens: ("deq", cls, flow, len, ce), ("none",) or
    ("drop", reason, cls, flow, len)."""

    def __init__(self, **params):
        """Keyword arguments: the trace's header keys (msfc.model.traceformat), each
        defaulting to the trace format's default (DEFAULTS)."""
        unknown = sorted(set(params) - set(DEFAULTS))
        if unknown:
            raise TypeError(f"Msfc() got unknown parameters {', '.join(unknown)}")
        self.params = check_params(**{**DEFAULTS, **params})
        self.now = 0  # ns
        self._configure(self.params)
        self._allocate()
        self.auto_promotions = 0
        self.auto_demotions = 0
        self.packets = 0
        self.bytes = 0
        self.overload_events = 0
        self.overload_drops = 0
        self.codel_drops = 0
        self.ecn_marks = 0
        self.ce_threshold_marks = 0
        self.nqb_demotions = 0
        # per class and the lane (kept across changes)
        self.class_ce_threshold_marks = [0] * (P.definitions().params["prios"].max + 1)
        self.events: list[tuple] = []

    def _configure(self, p: dict) -> None:
        """Takes the parameters of a checked configuration (check_params) and what follows
        from them; allocates nothing."""
        self.params = p
        self.prios, self.nflows, self.quantum = p["prios"], p["flows"], p["quantum"]
        self.limit, self.drop_batch = p["limit"], p["drop_batch"]
        self.target, self.interval = us_to_codel(p["target"]), us_to_codel(p["interval"])
        self.ecn = p["ecn"]
        # L4S marking: each class's threshold in CoDel units (None: none), the TOS selector
        thr = p["ce_threshold"] or (None,)
        thr = thr * self.prios if len(thr) == 1 else thr
        self.ce_thr = [None if t is None else us_to_codel(t) for t in thr]
        self.ce_sel, self.ce_mask = p["ce_threshold_selector"], p["ce_threshold_mask"]
        self.overload, self.inversion, self.isolate = p["overload"], p["inversion"], p["isolate"]
        self.boost = p["boost"] != "off"  # flows that become active join the new-flow list
        self.across = p["boost"] == "across"  # and new flows go ahead of the class round
        self.order = p["order"]
        self.auto = p["auto"]
        # auto: the home class (DSCP 0's under the default map), where a slot starts and its
        # state is kept, and the CoDel units a slot keeps its class before it may climb
        self.home = P.default_class(0, self.prios)
        self.t_up = min(P.definitions().auto_up_intervals * self.interval, (1 << 31) - 1)
        # bytes -> flow deficit units
        self.fscale = 1 << ISOLATE_SHIFT if self.isolate != "flow" else 1
        # bytes -> class deficit units
        self.cscale = 1 << EXACT_SHIFT if p["weights"] == "exact" else 1
        self.ratio_fp = ratio_to_fp(str(p["ratio"]))
        self.explicit = p["quanta"]  # explicit class quanta in bytes, or None (from ratio)
        self.cq = class_quanta(
            self.prios, self.quantum, self.ratio_fp, p["weights"] == "exact", self.explicit
        )
        # inversion=prevent: the classes from the most important down (ratio 1: no order), and
        # the factor a per-flow quantum is scaled by from each class to the next one down
        # (explicit quanta: class prios-1 first, the factor that of the two classes' quanta)
        down = list(range(self.prios))[::-1]
        if self.explicit is not None:
            self.rank = down
            self.steps = {
                k: (self.explicit[k - 1], self.explicit[k]) if k else (1, 1) for k in down
            }
        else:
            self.rank = down if self.ratio_fp >= 65536 else down[::-1]
            step = (65536, self.ratio_fp) if self.ratio_fp >= 65536 else (self.ratio_fp, 65536)
            self.steps = dict.fromkeys(self.rank, step)

    def _allocate(self) -> None:
        """New class and flow records: nothing listed, every CoDel state initial."""
        hosts = self.nflows if self.isolate != "flow" else 0
        self.classes = [Class(c, self.cq[c], hosts) for c in range(self.prios)]
        # the least-effort lane: a class record below class 0, outside the outer DRR, its
        # flows the last row of `flow` (docs/algorithm.md, "LE and NQB")
        self.lane = Class(self.prios, 0, hosts)
        now = self._now_c()
        self.flow = [[Flow(c, f, now) for f in range(self.nflows)] for c in range(self.prios + 1)]
        self.active_classes: deque[Class] = deque()
        self.round = 1  # order=priority: the round counter R (every class's round starts at 0)

    def change(self, **changes) -> bool:
        """`tc qdisc change` (docs/algorithm.md, "Changing the configuration"): the named
        parameters take new values, the others keep theirs.  Returns False, changing nothing,
        when prios, flows or isolate would change while packets are queued (Linux: EBUSY), as
        the event ("change", "busy").  An invalid configuration is refused too (Linux: EINVAL or ERANGE), as the event
        ("change", "invalid")."""
        try:
            new = check_params(**dict(self.params, **changes))
        except TraceError:
            self.events.append(("change", "invalid"))
            return False
        resize = new["prios"] != self.prios or new["flows"] != self.nflows
        reisolate = new["isolate"] != self.isolate
        if (resize or reisolate) and self.packets:
            self.events.append(("change", "busy"))
            return False
        self.events.append(("change",))
        old_scale, old_order = self.cscale, self.order
        self._configure(new)
        if resize:
            self._allocate()
        elif reisolate:
            # every flow still listed (emptied, not yet visited: also on the new-flow list)
            # leaves; no host load or deficit of the old mode survives
            hosts = self.nflows if self.isolate != "flow" else 0
            for cl in (*self.classes, self.lane):
                for fl in (*cl.flows, *cl.new_flows, *cl.nqb_flows):
                    fl.active = fl.new = fl.nqb = False
                cl.flows.clear()
                cl.new_flows.clear()
                cl.nqb_flows.clear()
                cl.active = False
                cl.src_load, cl.dst_load = [0] * hosts, [0] * hosts
                cl.src_deficit, cl.dst_deficit = [0] * hosts, [0] * hosts
            self.active_classes.clear()
            for row in self.flow:
                for fl in row:
                    fl.sparse = False  # no deficit in the old mode's unit survives
        for cl in self.classes:
            cl.quantum = self.cq[cl.idx]
        if self.cscale != old_scale:  # weights changed: every class keeps its credit
            for cl in self.classes:  # order=priority: a class out of the round gets it back
                if self.cscale > old_scale:
                    cl.deficit *= self.cscale
                else:
                    cl.deficit >>= EXACT_SHIFT  # floor, also below 0
        if self.order == "priority" and old_order != "priority":
            # the listed classes have taken part in a new round, with the credit they have
            self.round += 1
            for cl in self.active_classes:
                cl.round = self.round
        # a lower limit drops from the fattest flows, keeping the rest
        while self.packets > self.limit:
            before = self.packets
            self.overload_drop()
            if self.packets == before:
                break
        return True

    # -- clock ------------------------------------------------------------------------------
    def advance(self, ns: int) -> None:
        if ns < 0:
            raise TraceError(f"time step {ns} is negative")
        if self.now + ns > MAX_TRACE_NS:
            raise TraceError(f"the clock would pass {MAX_TRACE_NS} ns (2^31 CoDel units)")
        self.now += ns

    def _now_c(self) -> int:
        return (self.now >> CODEL_SHIFT) & U32

    # -- the least-effort lane --------------------------------------------------------------
    def _class(self, c: int) -> Class:
        """The class record of class index c; index prios is the least-effort lane."""
        return self.lane if c == self.prios else self.classes[c]

    def _tok(self, c: int):
        """A class index as the output writes it: the lane as LANE_CLASS."""
        return LANE_CLASS if c == self.prios else c

    # -- per-host isolation -----------------------------------------------------------------
    def load(self, fl: Flow) -> int:
        """Active flows of the flow's host in its class (isolate != flow; at least 1 while the
        flow is active): its source's, its destination's, or the larger of both."""
        cl = self._class(fl.cls)
        if self.isolate == "src":
            return cl.src_load[fl.src]
        if self.isolate == "dst":
            return cl.dst_load[fl.dst]
        return max(cl.src_load[fl.src], cl.dst_load[fl.dst])

    def host_side(self, fl: Flow) -> str:
        """The host deficit a flow draws on (isolate != flow): its source slot's (src), its
        destination slot's (dst), or with both the side of the larger load (ties: source)."""
        if self.isolate == "both":
            cl = self._class(fl.cls)
            return "src" if cl.src_load[fl.src] >= cl.dst_load[fl.dst] else "dst"
        return self.isolate

    def host_deficit(self, fl: Flow) -> tuple[list[int], int]:
        """The host deficit a flow draws on (isolate != flow), as its table and slot."""
        cl = self._class(fl.cls)
        if self.host_side(fl) == "src":
            return cl.src_deficit, fl.src
        return cl.dst_deficit, fl.dst

    def flow_quantum(self, cl: Class, fl: Flow) -> int:
        """The inner DRR refill of a flow, in flow deficit units: quantum bytes (isolate=flow),
        else quantum / load in 1/65536 byte, rounded down."""
        if self.isolate == "flow":
            return self.quantum
        return (self.quantum << ISOLATE_SHIFT) // self.load(fl)

    def _flow_leaves(self, cl: Class, fl: Flow) -> None:
        fl.active = False
        if self.isolate != "flow":
            cl.src_load[fl.src] -= 1
            cl.dst_load[fl.dst] -= 1

    # -- enqueue ----------------------------------------------------------------------------
    def auto_class(self, f: int) -> int:
        """auto: the class of an auto packet of flow slot f, the slot climbing one class
        first when its flow queue there is empty and it has been sparse at its class, and
        not idle, for t_up (docs/algorithm.md, "Automatic priorities")."""
        slot = self.flow[self.home][f]
        c = slot.level
        now = self._now_c()
        if (now - slot.last) & U32 >= self.t_up:  # idle for t_up: sparse from now, not before
            slot.clean = now
        slot.last = now
        if (
            c < self.prios - 1
            and not self.flow[c][f].pkts
            and (now - slot.clean) & U32 >= self.t_up
        ):
            c = slot.level = c + 1
            slot.clean = now
            self.auto_promotions += 1
        return c

    def _auto_dequeued(self, fl: Flow, p: Packet) -> None:
        """auto: a packet of a slot's own class that CoDel found above target for an interval
        (its ok-to-drop test) moves the slot one class down (at class 0: keeps it there); one
        that leaves more than a quantum queued behind it starts the slot's time to climb
        again."""
        slot = self.flow[self.home][fl.idx]
        now = self._now_c()
        if slot.level != fl.cls:
            return
        if fl.first_above_time != 0 and _before(fl.first_above_time, now):
            slot.level = max(0, fl.cls - 1)
            slot.clean = now
            self.auto_demotions += 1
        elif fl.backlog > self.quantum:  # more than a quantum left: not sparse, wait again
            slot.clean = now

    def enqueue(self, c, f: int, length: int, ect: int = 0, src: int = 0, dst: int = 0) -> bool:
        """Returns False if the enqueued packet itself was dropped by overload_drop().  `ect` is
        the trace's ECN field (0 Not-ECT, 1 ECT(0), 2 ECT(1), 3 CE).  `src`
        and `dst` are the host slots of the packet (0 .. flows-1), used with isolate != flow.
        `c` is the class, AUTO_CLASS for an unmarked packet (with auto on, the class its flow
        slot has earned, else the home class), LANE_CLASS for a packet of the least-effort lane
        or "<class>n" for an NQB packet of that class (docs/algorithm.md, "LE and NQB")."""
        nqb = isinstance(c, str) and c.endswith(NQB_SUFFIX)
        if nqb:
            c = class_number(c)
        elif c == LANE_CLASS:
            c = self.prios
        auto = c == AUTO_CLASS and self.auto != "off"
        if c == AUTO_CLASS:
            c = self.auto_class(f) if auto else self.home
        cl = self._class(c)
        fl = self.flow[c][f]
        fl.pkts.append(Packet(length, self._now_c(), TRACE_ECN[int(ect)], auto))
        fl.backlog += length
        cl.packets += 1
        self.packets += 1
        self.bytes += length
        if not fl.active:
            fl.active = True
            if self.isolate != "flow":
                fl.src, fl.dst = src, dst
                cl.src_load[src] += 1
                cl.dst_load[dst] += 1
                # a host that had no active flow in the class starts with a fresh quantum
                if cl.src_load[src] == 1:
                    cl.src_deficit[src] = self.quantum << ISOLATE_SHIFT
                if cl.dst_load[dst] == 1:
                    cl.dst_deficit[dst] = self.quantum << ISOLATE_SHIFT
            # boost=across: a flow that left from the new flows comes back with the deficit it
            # left with, not a fresh quantum
            if not fl.sparse:
                fl.deficit = self.flow_quantum(cl, fl)
                fl.stamp = cl.refills
            fl.sparse = False
            if nqb:
                fl.nqb = True
                cl.nqb_flows.append(fl)
            elif self.boost:
                fl.new = True
                cl.new_flows.append(fl)
            else:
                cl.flows.append(fl)
        if fl.nqb and fl.backlog > self.quantum:
            # queue protection: an NQB flow that queues more than a quantum of bytes goes
            # behind the old flows of its class
            cl.nqb_flows.remove(fl)
            fl.nqb = False
            cl.flows.append(fl)
            cl.nqb_demotions += 1
            self.nqb_demotions += 1
        if not cl.active and cl is not self.lane:
            cl.active = True
            # order=priority: a class back in the round it already took part in keeps what it
            # had left (no fresh quantum for draining and returning)
            if self.order != "priority":
                cl.deficit = self.class_quantum(cl)
            elif cl.round != self.round:
                cl.deficit, cl.round = self.class_quantum(cl), self.round
            self.active_classes.append(cl)
        if self.packets > self.limit:
            before = len(fl.pkts)
            victim = self.overload_drop()
            # the new packet sits at the tail of its flow: it was dropped iff its flow was the
            # victim and lost every packet it held
            return not (victim is fl and not fl.pkts and before > 0)
        return True

    # -- quanta -----------------------------------------------------------------------------
    def effective_quanta(self, upto: Class | None = None) -> list[int]:
        """Class quanta as the outer DRR uses them (docs/algorithm.md, inversion): with
        inversion=prevent, from the most important class down, P = the smallest per-flow
        quantum floor(eff_k / n_k) of the classes above with flows, scaled down by the ratio
        (explicit quanta: by Q_{k-1} / Q_k) at every class down, rounded down;
        eff_c = max(1, min(Q_c, n_c * P)), n_c the flows in class c's list.  Stops after
        ``upto``.  Classes without flows keep Q_c."""
        q = [cl.quantum for cl in self.classes]
        if self.inversion == "allow" or (self.explicit is None and self.ratio_fp == 65536):
            return q
        per_flow = None  # no class with flows above yet
        for k in self.rank:
            cl = self.classes[k]
            n = len(cl.flows) + len(cl.new_flows) + len(cl.nqb_flows)  # every list of the class
            if n:
                if per_flow is not None:
                    q[k] = max(1, min(cl.quantum, n * per_flow))
                per_flow = q[k] // n if per_flow is None else min(per_flow, q[k] // n)
            if cl is upto:
                break
            if per_flow is not None:  # one class down: a flow there weighs Q_down / Q_k here
                num, den = self.steps[k]
                per_flow = per_flow * num // den
        return q

    def class_quantum(self, cl: Class) -> int:
        """What a class's deficit is refilled with (activation and every round)."""
        if self.inversion == "allow":
            return cl.quantum
        return self.effective_quanta(cl)[cl.idx]

    def overload_drop(self) -> Flow:
        self.overload_events += 1
        if self.lane.packets:  # the least-effort lane first, whatever the overload mode
            candidates = [self.flow[self.prios]]
        elif self.overload == "class":
            # the class with the largest backlog / quantum, the backlog counted in packets as the
            # limit is (ties: lowest class), then its fattest flow (ties: lowest flow)
            # (inversion=prevent: the effective quanta eff_c)
            q = self.effective_quanta()
            victim = self.classes[0]
            for cl in self.classes[1:]:
                if cl.packets * q[victim.idx] > victim.packets * q[cl.idx]:
                    victim = cl
            candidates = [self.flow[victim.idx]]
        else:
            candidates = self.flow[: self.prios]
        best = None
        if self.isolate == "flow":
            for cl_flows in candidates:  # class 0 first, then flow 0 first: ties keep lowest
                for fl in cl_flows:
                    if best is None or fl.backlog > best.backlog:
                        best = fl
        else:  # the flow most above its host's share: largest backlog * load
            weight = -1
            for cl_flows in candidates:
                for fl in cl_flows:
                    w = fl.backlog * self.load(fl) if fl.active else 0
                    if w > weight:
                        best, weight = fl, w
        threshold = best.backlog  # "at least half": stop once 2*dropped >= threshold
        dropped_bytes = dropped = 0
        while best.pkts and dropped_bytes * 2 < threshold and dropped < self.drop_batch:
            p = self._pop(best)
            self.events.append(("drop", "overload", self._tok(best.cls), best.idx, p.length))
            dropped_bytes += p.length
            dropped += 1
        self.overload_drops += dropped
        return best

    # -- dequeue ----------------------------------------------------------------------------
    def dequeue(self):
        """The next packet as (class, flow, len, ce), or None; also recorded in `events`."""
        pkt = self._dequeue()
        self.events.append(("none",) if pkt is None else ("deq", *pkt))
        return pkt

    def _dequeue(self):
        """The classes' outer DRR; when it has nothing, the least-effort lane."""
        pkt = self._dequeue_classes()
        return self._class_dequeue(self.lane) if pkt is None else pkt

    def _dequeue_classes(self):
        if self.across:
            pkt = self._dequeue_across()
            if pkt is not None:
                return pkt
        if self.order == "priority":
            return self._dequeue_priority()
        while True:
            if not self.active_classes:
                return None
            cl = self.active_classes[0]
            if cl.deficit <= 0:
                cl.deficit += self.class_quantum(cl)
                self.active_classes.rotate(-1)
                continue
            pkt = self._class_dequeue(cl)
            if pkt is None:
                self.active_classes.popleft()
                cl.active = False
                continue
            cl.deficit -= pkt[2] * self.cscale
            return pkt

    def _dequeue_priority(self):
        """order=priority: the most important active class with credit left in the round; when
        none has any, every active class gets its quantum as many times as the one that needs
        the fewest refills to become positive (a new round, docs/algorithm.md)."""
        while True:
            if not self.active_classes:
                return None
            cl = max((c for c in self.active_classes if c.deficit > 0), key=_idx, default=None)
            if cl is None:
                k = min(refills(c.deficit, self.class_quantum(c)) for c in self.active_classes)
                for c in self.active_classes:
                    c.deficit += k * self.class_quantum(c)
                    c.round = self.round + k
                self.round += k
                continue
            pkt = self._class_dequeue(cl)
            if pkt is None:
                self.active_classes.remove(cl)
                cl.active = False
                continue
            cl.deficit -= pkt[2] * self.cscale
            return pkt

    def _dequeue_across(self):
        """boost=across, before the class round: the most important active class with new
        flows whose deficit is above minus its class quantum sends a new flow's packet and pays
        for it from its deficit (docs/algorithm.md, "Sparse flows across classes").  None when
        no class can; a class whose new flows all left stays in the active class list."""
        for cl in sorted(self.active_classes, key=_idx, reverse=True):
            if (cl.nqb_flows or cl.new_flows) and cl.deficit > -self.class_quantum(cl):
                pkt = self._class_dequeue(cl, new_only=True)
                if pkt is not None:
                    cl.deficit -= pkt[2] * self.cscale
                    return pkt
        return None

    def _class_dequeue(self, cl: Class, new_only: bool = False):
        """The inner DRR; `new_only` (boost=across): the new-flow list only, None once it is
        empty."""
        while True:
            # the NQB flows first; boost on/across: then the new flows; then the old ones
            if cl.nqb_flows:
                lst = cl.nqb_flows
            else:
                lst = cl.new_flows if cl.new_flows or new_only else cl.flows
            if not lst:
                return None
            fl = lst[0]
            # isolate != flow: a flow sends when it and its host have credit; every visit that
            # does not send refills the host (at most to one quantum) and, while it is not
            # positive, the flow (docs/algorithm.md, "Per-host isolation")
            host, slot = self.host_deficit(fl) if self.isolate != "flow" else (None, 0)
            if fl.deficit <= 0 or (host is not None and host[slot] <= 0):
                q = self.flow_quantum(cl, fl)
                if fl.deficit <= 0:
                    fl.deficit += q
                if host is not None:
                    host[slot] = min(self.quantum << ISOLATE_SHIFT, host[slot] + q)
                if lst is cl.nqb_flows:
                    # an NQB flow stays NQB with its next quantum once the other flows of its
                    # class have had as many refills since its last one as there are of them
                    if (cl.refills - fl.stamp) & U32 >= len(cl.flows) + len(cl.new_flows):
                        fl.stamp = cl.refills
                        lst.rotate(-1)
                        continue
                else:
                    cl.refills = (cl.refills + 1) & U32
                lst.popleft()
                fl.new = fl.nqb = False
                cl.flows.append(fl)  # a new or NQB flow that spent its quantum becomes old
                continue
            p = self._codel_dequeue(fl)
            if p is not None:
                self._threshold_mark(cl, fl, p)
            if p is not None and p.auto and self.auto != "off":
                self._auto_dequeued(fl, p)
            if p is None:
                lst.popleft()
                if fl.nqb:
                    # an emptied NQB flow leaves with its deficit, as across's new flows do
                    fl.nqb = False
                    fl.sparse = True
                    self._flow_leaves(cl, fl)
                elif fl.new and self.across:
                    # an emptied new flow leaves with its deficit: its next packet makes it
                    # new again, spending what is left of its quantum
                    fl.new = False
                    fl.sparse = True
                    self._flow_leaves(cl, fl)
                elif fl.new and cl.flows:
                    # an emptied new flow goes behind the old flows before it may leave, so
                    # that a flow sending one packet at a time cannot keep the old flows waiting
                    fl.new = False
                    cl.flows.append(fl)
                else:
                    fl.new = False
                    self._flow_leaves(cl, fl)
                continue
            fl.deficit -= p.length * self.fscale
            if host is not None:
                host[slot] -= p.length * self.fscale
            return (self._tok(cl.idx), fl.idx, p.length, p.ce)

    def _pop(self, fl: Flow):
        if not fl.pkts:
            return None
        p = fl.pkts.popleft()
        fl.backlog -= p.length
        self._class(fl.cls).packets -= 1
        self.packets -= 1
        self.bytes -= p.length
        return p

    def _drop(self, fl: Flow, p: Packet) -> None:
        self.codel_drops += 1
        self.events.append(("drop", "codel", self._tok(fl.cls), fl.idx, p.length))

    def _mark(self, p: Packet) -> bool:
        if self.ecn and p.mark():
            self.ecn_marks += 1
            return True
        return False

    def _threshold_mark(self, cl: Class, fl: Flow, p: Packet) -> None:
        """L4S marking (docs/algorithm.md, "L4S marking"): a packet CoDel delivers is CE-marked
        when its class has a threshold, its sojourn (CoDel's, in CoDel units) is strictly above
        it, it is ECT(0) or ECT(1) (not CE already) and its TOS byte matches the selector."""
        thr = self.ce_thr[0 if cl is self.lane else cl.idx]  # the lane: class 0's
        if (
            thr is not None
            and _before(thr, fl.ldelay)  # codel_time_after(ldelay, threshold)
            and p.tos & ECN_MASK in (ECT_0, ECT_1)
            and p.tos & self.ce_mask == self.ce_sel
        ):
            p.mark()
            p.threshold = True
            self.ce_threshold_marks += 1
            self.class_ce_threshold_marks[cl.idx] += 1

    def _should_drop(self, fl: Flow, p, now: int) -> bool:
        """codel_should_drop(); the backlog is the flow's after taking p."""
        if p is None:
            fl.first_above_time = 0
            return False
        sojourn = fl.ldelay = (now - p.enq) & U32
        if _before(sojourn, self.target) or fl.backlog <= self.quantum:
            fl.first_above_time = 0
            return False
        if fl.first_above_time == 0:
            fl.first_above_time = (now + self.interval) & U32
            return False
        return _before(fl.first_above_time, now)  # codel_time_after(now, first_above_time)

    def _codel_dequeue(self, fl: Flow):
        """codel_dequeue() of Linux include/net/codel_impl.h."""
        p = self._pop(fl)
        if p is None:  # an empty flow is not above target (e.g. emptied by an overload drop)
            fl.first_above_time = 0
            fl.dropping = False
            return None
        now = self._now_c()
        drop = self._should_drop(fl, p, now)
        if fl.dropping:
            if not drop:
                fl.dropping = False
            else:
                while fl.dropping and not _before(now, fl.drop_next):
                    fl.count = (fl.count + 1) & U32
                    fl.rec_inv_sqrt = newton_step(fl.rec_inv_sqrt, fl.count)
                    if self._mark(p):
                        fl.drop_next = control_law(fl.drop_next, self.interval, fl.rec_inv_sqrt)
                        return p
                    self._drop(fl, p)
                    p = self._pop(fl)
                    if not self._should_drop(fl, p, now):
                        fl.dropping = False
                    else:
                        fl.drop_next = control_law(fl.drop_next, self.interval, fl.rec_inv_sqrt)
        elif drop:
            if not self._mark(p):
                self._drop(fl, p)
                p = self._pop(fl)
                self._should_drop(fl, p, now)
            fl.dropping = True
            delta = (fl.count - fl.lastcount) & U32
            if delta > 1 and _before((now - fl.drop_next) & U32, (16 * self.interval) & U32):
                fl.count = delta
                fl.rec_inv_sqrt = newton_step(fl.rec_inv_sqrt, fl.count)
            else:
                fl.count = 1
                fl.rec_inv_sqrt = 0xFFFF
            fl.lastcount = fl.count
            fl.drop_next = control_law(now, self.interval, fl.rec_inv_sqrt)
        return p


#: the parameters whose values are names, and the names
CHANGE_MODES = {k: P.CHOICES[k] for k, t in TRACE_KEYS.items() if t.kind == "MODE"}


def _needs_version(keys, version: int, line: str) -> None:
    """A TraceError naming the keys of a P or C line that its trace's version cannot have."""
    late = [k for k in keys if k in TRACE_KEYS and TRACE_KEYS[k].version > version]
    if late:
        need = max(TRACE_KEYS[k].version for k in late)
        where = "" if line == "P" else " on a C line"
        verb = "needs" if len(late) == 1 else "need"
        raise TraceError(f"{' '.join(late)}{where} {verb} version={need} on the P line")


def parse_settings(items, extra=()) -> dict:
    """key=value items of a P or C line -> parameters (integers but for the named modes)."""
    params = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise TraceError(f"parameter '{item}' is not key=value")
        kind = TRACE_KEYS[key].kind if key in TRACE_KEYS else "INT"
        if kind in ("RATIO", "MODE"):  # the values that are not integers
            params[key] = value
        elif kind == "QUANTA":
            params[key] = parse_quanta(value)
        elif kind == "TIMES":
            params[key] = parse_ce_threshold(value)
        elif key in TRACE_KEYS or key in extra:
            try:
                params[key] = int(value)
            except ValueError:
                raise TraceError(f"parameter {key}={value} is not an integer") from None
        else:
            known = " ".join((*extra, *TRACE_KEYS))
            raise TraceError(f"unknown parameter '{key}' (known: {known})")
    return params


#: header keys -> default (parsed as a trace's P line gives them): Msfc's keyword arguments
DEFAULTS = parse_settings(f"{k}={t.default}" for k, t in TRACE_KEYS.items())


def parse_header(line: str) -> dict:
    """The parameter line -> keyword arguments of Msfc, plus 'version'."""
    fields = line.split()
    if not fields or fields[0] != "P":
        raise TraceError(
            "first non-comment line must be the parameter line 'P prios=.. flows=.. ...'"
        )
    params = parse_settings(fields[1:], ("version",))
    version = params.setdefault("version", 1)
    if not 1 <= version <= TRACE_VERSION:
        raise TraceError(
            f"trace version {version} is not supported (this reference reads 1..{TRACE_VERSION})"
        )
    _needs_version(params, version, "P")
    return params


def header_params(params: dict) -> dict:
    """All parameters of a parsed header, defaults filled in (version dropped)."""
    return {k: params.get(k, v) for k, v in DEFAULTS.items()}


def format_event(ev: tuple) -> str:
    if ev[0] == "none":
        return "-"
    if ev[0] == "change":
        return " ".join(ev)
    if ev[0] == "deq":
        _, c, f, length, ce = ev
        return f"{c} {f} {length}" + ("", " ce", " ce threshold")[ce]
    _, reason, c, f, length = ev
    return f"drop {reason} {c} {f} {length}"


def parse_change(items) -> dict:
    """The key=value items of a C line -> the changes.  Only what a netlink attribute cannot
    carry is an error here (an unknown key or mode, a value that is not a u32, a ratio that
    is not a number); whether the qdisc takes the change is decided when it is replayed."""
    changes = parse_settings(items)
    for key, value in changes.items():
        kind = TRACE_KEYS[key].kind
        if kind == "MODE" and value not in CHANGE_MODES[key]:
            modes = CHANGE_MODES[key]
            raise TraceError(f"{key}={value} unknown: use {key}={f', {key}='.join(modes)}")
        if kind in ("INT", "RATIO"):  # parse_quanta and parse_ce_threshold checked the lists
            raw = ratio_fp_unchecked(value) if kind == "RATIO" else value
            if not 0 <= raw <= U32:
                raise TraceError(f"{key}={value} does not fit the qdisc's 32-bit attribute")
    return changes


def class_number(c) -> int:
    """A trace's class field of a class (an int, "2", or an NQB packet's "2n") -> the class;
    ValueError when it is none of these."""
    if isinstance(c, int):
        return c
    digits = c[: -len(NQB_SUFFIX)] if c.endswith(NQB_SUFFIX) else c
    if not digits.isdigit():
        raise ValueError(
            f"class '{c}' is not a class number, <class>{NQB_SUFFIX}, {LANE_CLASS} or {AUTO_CLASS}"
        )
    return int(digits)


def parse_op(line: str, cfg: dict, version: int):
    """One operation line -> ("E", c, f, len, ect, src, dst) | ("D",) | ("T", ns) |
    ("C", {key: value}); an enqueue is checked against `cfg`, the largest prios and flows of
    the P line and every C line (the replay checks it against the configuration then in
    force)."""
    f = line.split()
    if f[0] == "C" and len(f) > 1 and version >= 4:
        changes = parse_change(f[1:])
        _needs_version(changes, version, "C")
        for key in ("prios", "flows"):
            cfg[key] = max(cfg[key], changes.get(key, 0))
        return ("C", changes)
    if f[0] == "E" and len(f) in (4, 5, 7):
        if len(f) >= 5 and version < 2:
            raise TraceError("the ECT field of 'E' needs version=2 on the P line")
        if len(f) == 7 and version < 3:
            raise TraceError("the host fields of 'E' need version=3 on the P line")
        if f[1] == AUTO_CLASS and version < 5:
            raise TraceError(f"the class '{AUTO_CLASS}' of 'E' needs version=5 on the P line")
        if f[1] == LANE_CLASS and version < 7:
            raise TraceError(f"the class '{LANE_CLASS}' of 'E' needs version=7 on the P line")
        if f[1].endswith(NQB_SUFFIX) and version < 7:
            raise TraceError(
                f"the NQB class '<class>{NQB_SUFFIX}' of 'E' needs version=7 on the P line"
            )
        if f[1] in (AUTO_CLASS, LANE_CLASS):
            c = f[1]
        elif f[1].endswith(NQB_SUFFIX):
            c = f"{class_number(f[1])}{NQB_SUFFIX}"  # the NQB packet keeps its mark
        else:
            c = int(f[1])
        fl, length = int(f[2]), int(f[3])
        ect = int(f[4]) if len(f) >= 5 else 0
        if ect > 1 and version < 6:
            raise TraceError("the ECN fields 2 (ECT(1)) and 3 (CE) of 'E' need version=6")
        src, dst = (int(f[5]), int(f[6])) if len(f) == 7 else (0, 0)
        prios, nflows = cfg["prios"], cfg["flows"]
        if not (
            (c in (AUTO_CLASS, LANE_CLASS) or 0 <= class_number(c) < prios)
            and 0 <= fl < nflows
            and length >= 1
            and ect in (0, 1, 2, 3)
            and 0 <= src < nflows
            and 0 <= dst < nflows
        ):
            raise TraceError(
                f"enqueue '{line}' out of range (prios={prios}, flows={nflows}, "
                f"class 0 .. prios-1, <class>{NQB_SUFFIX}, {LANE_CLASS} or {AUTO_CLASS}, "
                "len >= 1, ect 0 .. 3, host slots 0 .. flows-1)"
            )
        return ("E", c, fl, length, ect, src, dst)
    if f[0] == "D" and len(f) == 1:
        return ("D",)
    if f[0] == "T" and len(f) == 2 and version >= 2:
        ns = int(f[1])
        if ns < 0:
            raise TraceError(f"'{line}': the time step must be >= 0 ns")
        return ("T", ns)
    raise TraceError(
        f"unknown operation '{line}' (expected 'E <class> <flow> <len> [<ect> [<src> <dst>]]', "
        "'D', from version 2 'T <ns>', from version 4 'C key=value ...', from version 5 "
        f"'E {AUTO_CLASS} ...', from version 7 'E {LANE_CLASS} ...' and 'E <class>{NQB_SUFFIX} ...')"
    )


def parse(lines):
    """A trace -> (header dict with defaults filled in, list of operations)."""
    params = None
    ops = []
    version = 1
    cfg = None
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            if params is None:
                parsed = parse_header(line)
                version = parsed["version"]
                params = header_params(parsed)
                cfg = check_params(**params)
                cfg = {"prios": cfg["prios"], "flows": cfg["flows"]}
                continue
            ops.append(parse_op(line, cfg, version))
        except (TraceError, ValueError) as e:
            raise TraceError(f"line {lineno}: {e}") from None
    if params is None:
        raise TraceError("trace has no parameter line")
    return params, ops


def run_ops(params: dict, ops) -> list[str]:
    return [format_event(ev) for ev in run(params, ops).events]


def run(params: dict, ops) -> Msfc:
    """The queue disc after replaying the operations."""
    q = Msfc(**params)
    for n, op in enumerate(ops, 1):
        if op[0] == "E":
            c, f, src, dst = op[1], op[2], op[5], op[6]
            if (c not in (AUTO_CLASS, LANE_CLASS) and class_number(c) >= q.prios) or max(
                f, src, dst
            ) >= q.nflows:
                raise TraceError(
                    f"operation {n}: enqueue 'E {op[1]} {op[2]} {op[3]}' with host slots "
                    f"{op[5]} {op[6]} is out of range of the configuration then in force "
                    f"(prios={q.prios}, flows={q.nflows})"
                )
            q.enqueue(op[1], op[2], op[3], op[4], op[5], op[6])
        elif op[0] == "D":
            q.dequeue()
        elif op[0] == "C":
            q.change(**op[1])
        else:
            q.advance(op[1])
    return q


def replay(lines) -> list[str]:
    """The decisions of a trace, one output line each."""
    try:
        params, ops = parse(lines)
        return run_ops(params, ops)
    except ValueError as e:
        if isinstance(e, TraceError):
            raise
        raise TraceError(str(e)) from None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("-o", "--output", help="write the replay output here (default stdout)")
    a = ap.parse_args(argv)
    try:
        with open(a.trace) as fh:
            out = replay(fh)
    except (OSError, TraceError) as e:
        print(f"msfc.model.reference: {a.trace}: {e}", file=sys.stderr)
        return 1
    text = "".join(x + "\n" for x in out)
    if a.output:
        with open(a.output, "w") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
