"""Pure-Python reference of the MSFC scheduler (docs/algorithm.md), CoDel disabled.

It replays a cross-check trace (docs/algorithm.md, "Cross-check traces") and prints one
line per dequeue: "<class> <flow> <len>" or "-".  The ns-3 model and the Linux qdisc must
produce the same output byte for byte.

Usage: python -m msfc.reference TRACE [-o OUT]
"""

from __future__ import annotations

import argparse
import sys
from collections import deque
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

MAX_CLASS_QUANTUM = 1 << 40
#: values of the ``overload`` parameter (docs/algorithm.md): the thesis's rule first
OVERLOAD_MODES = ("flow", "class")
#: values of the ``weights`` parameter: whole-byte class quanta (the thesis), or 1/65536 byte
WEIGHT_MODES = ("rounded", "exact")
#: weights=exact: class quanta and deficits in 1/65536 byte
EXACT_SHIFT = 16


class TraceError(ValueError):
    pass


def ratio_to_fp(text: str) -> int:
    """ratio as a decimal string -> 16.16 fixed point, rounded half up."""
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise TraceError(
            f"ratio '{text}' is not a number: write e.g. ratio=2 or ratio=1.5"
        ) from None
    fp = int((value * 65536).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    if not 1 <= fp <= 16 * 65536:
        raise TraceError(f"ratio {text} is outside 1/65536 .. 16")
    return fp


def class_quanta(prios: int, quantum: int, ratio_fp: int, exact: bool = False) -> list[int]:
    """Q_0 .. Q_{prios-1}: whole bytes (at least 1), or with ``exact`` 1/65536 bytes."""
    if not exact:
        q = [quantum]
        for _ in range(1, prios):
            q.append(max(1, (q[-1] * ratio_fp + 32768) >> 16))
    else:
        q = [quantum << EXACT_SHIFT]
        for _ in range(1, prios):
            q.append((q[-1] * ratio_fp + 32768) >> 16)
    if max(q) > MAX_CLASS_QUANTUM << (EXACT_SHIFT if exact else 0):
        raise TraceError(
            "quantum * ratio^(prios-1) exceeds 2^40 bytes: lower ratio, prios or quantum"
        )
    # every rounding step is at most half a unit: a share is off by at most sum(1 / q_k)
    if exact and (0 in q or sum((1 << 32) // x for x in q) > (1 << 32) // 200):
        raise TraceError(
            "class quanta too small for exact weights (shares could be off by more than 0.5 %): "
            "raise quantum or ratio, or lower prios"
        )
    return q


class Flow:
    __slots__ = ("cls", "idx", "pkts", "backlog", "deficit", "active")

    def __init__(self, cls: int, idx: int):
        self.cls, self.idx = cls, idx
        self.pkts: deque[int] = deque()
        self.backlog = 0
        self.deficit = 0
        self.active = False


class Class:
    __slots__ = ("idx", "quantum", "flows", "deficit", "active", "packets")

    def __init__(self, idx: int, quantum: int):
        self.idx, self.quantum = idx, quantum
        self.flows: deque[Flow] = deque()
        self.deficit = 0
        self.active = False
        self.packets = 0  # packets queued in the class


class Msfc:
    def __init__(
        self,
        prios=3,
        flows=1024,
        quantum=1514,
        ratio="2",
        limit=10240,
        drop_batch=64,
        overload="flow",
        weights="rounded",
    ):
        if not 1 <= prios <= 16:
            raise TraceError(f"prios={prios} outside 1..16")
        if not 1 <= flows <= 65536:
            raise TraceError(f"flows={flows} outside 1..65536")
        if not 1 <= quantum <= 1048576:
            raise TraceError(f"quantum={quantum} outside 1..1048576")
        if limit < 1:
            raise TraceError(f"limit={limit} must be >= 1")
        if not 1 <= drop_batch <= 65536:
            raise TraceError(f"drop_batch={drop_batch} outside 1..65536")
        if overload not in OVERLOAD_MODES:
            raise TraceError(f"overload={overload} unknown: use overload=flow or overload=class")
        self.overload = overload
        if weights not in WEIGHT_MODES:
            raise TraceError(f"weights={weights} unknown: use weights=rounded or weights=exact")
        # bytes -> class deficit units
        self.cscale = 1 << EXACT_SHIFT if weights == "exact" else 1
        self.prios, self.nflows, self.quantum = prios, flows, quantum
        self.limit, self.drop_batch = limit, drop_batch
        self.ratio_fp = ratio_to_fp(str(ratio))
        self.cq = class_quanta(prios, quantum, self.ratio_fp, weights == "exact")
        self.classes = [Class(c, self.cq[c]) for c in range(prios)]
        self.flow = [[Flow(c, f) for f in range(flows)] for c in range(prios)]
        self.active_classes: deque[Class] = deque()
        self.packets = 0
        self.bytes = 0
        self.overload_events = 0
        self.overload_drops = 0

    def enqueue(self, c: int, f: int, length: int) -> bool:
        """Returns False if the enqueued packet itself was dropped by overload_drop()."""
        cl = self.classes[c]
        fl = self.flow[c][f]
        fl.pkts.append(length)
        fl.backlog += length
        cl.packets += 1
        self.packets += 1
        self.bytes += length
        if not fl.active:
            fl.active = True
            fl.deficit = self.quantum
            cl.flows.append(fl)
        if not cl.active:
            cl.active = True
            cl.deficit = cl.quantum
            self.active_classes.append(cl)
        if self.packets > self.limit:
            before = len(fl.pkts)
            victim = self.overload_drop()
            # the new packet sits at the tail of its flow: it was dropped iff its flow was the
            # victim and lost every packet it held
            return not (victim is fl and not fl.pkts and before > 0)
        return True

    def overload_drop(self) -> Flow:
        self.overload_events += 1
        if self.overload == "class":
            # the class with the largest backlog / quantum, the backlog counted in packets as the
            # limit is (ties: lowest class), then its fattest flow (ties: lowest flow)
            victim = self.classes[0]
            for cl in self.classes[1:]:
                if cl.packets * victim.quantum > victim.packets * cl.quantum:
                    victim = cl
            candidates = [self.flow[victim.idx]]
        else:
            candidates = self.flow
        best = None
        for cl_flows in candidates:  # class 0 first, then flow 0 first: ties keep lowest
            for fl in cl_flows:
                if best is None or fl.backlog > best.backlog:
                    best = fl
        threshold = best.backlog  # "at least half": stop once 2*dropped >= threshold
        dropped_bytes = dropped = 0
        while best.pkts and dropped_bytes * 2 < threshold and dropped < self.drop_batch:
            length = best.pkts.popleft()
            best.backlog -= length
            self.classes[best.cls].packets -= 1
            self.packets -= 1
            self.bytes -= length
            dropped_bytes += length
            dropped += 1
        self.overload_drops += dropped
        return best

    def dequeue(self):
        while True:
            if not self.active_classes:
                return None
            cl = self.active_classes[0]
            if cl.deficit <= 0:
                cl.deficit += cl.quantum
                self.active_classes.rotate(-1)
                continue
            pkt = self._class_dequeue(cl)
            if pkt is None:
                self.active_classes.popleft()
                cl.active = False
                continue
            cl.deficit -= pkt[2] * self.cscale
            return pkt

    def _class_dequeue(self, cl: Class):
        while True:
            if not cl.flows:
                return None
            fl = cl.flows[0]
            if fl.deficit <= 0:
                fl.deficit += self.quantum
                cl.flows.rotate(-1)
                continue
            if not fl.pkts:
                cl.flows.popleft()
                fl.active = False
                continue
            length = fl.pkts.popleft()
            fl.backlog -= length
            cl.packets -= 1
            self.packets -= 1
            self.bytes -= length
            fl.deficit -= length
            return (cl.idx, fl.idx, length)


def parse_header(line: str) -> dict:
    fields = line.split()
    if not fields or fields[0] != "P":
        raise TraceError(
            "first non-comment line must be the parameter line 'P prios=.. flows=.. ...'"
        )
    params = {}
    for item in fields[1:]:
        key, sep, value = item.partition("=")
        if not sep:
            raise TraceError(f"parameter '{item}' is not key=value")
        if key in ("ratio", "overload", "weights"):
            params[key] = value
        elif key in ("prios", "flows", "quantum", "limit", "drop_batch"):
            try:
                params[key] = int(value)
            except ValueError:
                raise TraceError(f"parameter {key}={value} is not an integer") from None
        else:
            raise TraceError(
                f"unknown parameter '{key}' (known: prios flows quantum ratio limit drop_batch overload weights)"
            )
    return params


def replay(lines) -> list[str]:
    q = None
    out = []
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            if q is None:
                q = Msfc(**parse_header(line))
                continue
            f = line.split()
            if f[0] == "E" and len(f) == 4:
                c, fl, length = int(f[1]), int(f[2]), int(f[3])
                if not (0 <= c < q.prios and 0 <= fl < q.nflows and length >= 1):
                    raise TraceError(
                        f"enqueue '{line}' out of range (prios={q.prios}, flows={q.nflows})"
                    )
                q.enqueue(c, fl, length)
            elif f[0] == "D" and len(f) == 1:
                p = q.dequeue()
                out.append("-" if p is None else f"{p[0]} {p[1]} {p[2]}")
            else:
                raise TraceError(
                    f"unknown operation '{line}' (expected 'E <class> <flow> <len>' or 'D')"
                )
        except (TraceError, ValueError) as e:
            raise TraceError(f"line {lineno}: {e}") from None
    if q is None:
        raise TraceError("trace has no parameter line")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("-o", "--output", help="write the replay output here (default stdout)")
    a = ap.parse_args(argv)
    try:
        with open(a.trace) as fh:
            out = replay(fh)
    except (OSError, TraceError) as e:
        print(f"msfc.reference: {a.trace}: {e}", file=sys.stderr)
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
