"""The cross-check traces as C arrays for the Linux qdisc's KUnit replay (sch_msfc_vectors.h).

The header holds test/vectors/*.trace with their *.expected, then the first N traces of the
generated differential set (msfc.model.vectors, default N = GENERATED_COUNT) with the
reference's decisions: each trace's parameters, operations, expected decisions and the
netlink attributes of its changes (kernel/net/sched/sch_msfc_test.c replays them).
kernel/scripts/prepare_tree.py runs this command when it adds MSFC to a Linux tree.

    python -m msfc.model.kunit [--generated N] [--dir DIR] [--out FILE]

Without --out the header goes to stdout; with it FILE is written only when its content
changes, so the kernel's build does not recompile an unchanged test.
"""

from __future__ import annotations

import argparse
import os
import sys

from . import reference as ref
from . import vectors
from .traceformat import KEYS as TRACE_KEYS

#: the class of the least-effort lane in the C tables (MSFC_TEST_LANE of sch_msfc_test.c): a
#: trace's LANE_CLASS, in its operations and in its decisions
LANE_C = 0xFF

#: how a C line's value travels in its netlink attribute (pkt_sched_msfc.h), by the key's
#: kind in the trace format's key table (msfc.model.traceformat); QUANTA and TIMES are arrays
_NETLINK_VALUE = {
    "INT": lambda key, value: int(value),
    "RATIO": lambda key, value: ref.ratio_fp_unchecked(value),
    "MODE": lambda key, value: ref.CHANGE_MODES[key].index(value),
}


def _c_quanta(quanta) -> str:
    """Explicit class quanta (a tuple, or None: from ratio) as a C array expression."""
    if quanta is None:
        return "NULL"
    return "(const u32[]){ " + ", ".join(str(x) for x in quanta) + " }"


def _c_ce_threshold(thresholds) -> str:
    """ce_threshold (a tuple of us, None for an entry off; or None: none) as a C array
    expression, an entry off as TC_MSFC_CE_THRESHOLD_OFF."""
    if thresholds is None:
        return "NULL"
    entries = ("TC_MSFC_CE_THRESHOLD_OFF" if t is None else str(t) for t in thresholds)
    return "(const u32[]){ " + ", ".join(entries) + " }"


def _c_attr(key, value) -> str:
    """One change's attribute as a struct msfc_test_attr initialiser (TCA_MSFC_QUANTA and
    TCA_MSFC_CE_THRESHOLD: the length in bytes and the payload, empty for none)."""
    k = TRACE_KEYS[key]
    if k.kind in ("QUANTA", "TIMES"):
        n = 0 if value is None else len(value)
        array = _c_quanta(value) if k.kind == "QUANTA" else _c_ce_threshold(value)
        return f"{{ {k.netlink}, {4 * n}, {array} }}"
    return f"{{ {k.netlink}, {_NETLINK_VALUE[k.kind](key, value)} }}"


def _c_changes(i, ops):
    """The C lines of trace `i` -> one attribute list each (struct msfc_test_attr[])."""
    out, names = [], []
    for op in ops:
        if op[0] != "C":
            continue
        name = f"msfc_vec_chg_{i}_{len(names)}"
        attrs = [_c_attr(k, v) for k, v in op[1].items()]
        out.append(
            f"static const struct msfc_test_attr {name}[] = {{ {', '.join(attrs)}, {{ 0 }} }};"
        )
        names.append(name)
    if names:
        out.append(f"static const struct msfc_test_attr *const msfc_vec_chg_{i}[] = {{")
        out += [f"\t{n}," for n in names] + ["};"]
    return out, (f"msfc_vec_chg_{i}" if names else "NULL")


def _c_class(token) -> int:
    """A class in a trace's decision line (a number, or LANE_CLASS) as the C tables hold it."""
    return LANE_C if token == ref.LANE_CLASS else int(token)


def _c_enqueue(c):
    """An enqueue's class field (msfc.model.reference.parse) -> the C operation and class: an
    auto packet ("E a", the queue disc decides its class) is an 'A' operation, an NQB packet
    ("E <c>n") a 'Q' operation of class c, a packet of the least-effort lane ("E l") an 'E'
    operation of class LANE_C."""
    if c == ref.AUTO_CLASS:
        return "A", 0
    if c == ref.LANE_CLASS:
        return "E", LANE_C
    if isinstance(c, str) and c.endswith(ref.NQB_SUFFIX):
        return "Q", ref.class_number(c)
    return "E", c


def _c_ops(ops):
    """Trace operations (msfc.model.reference.parse) -> C initialisers; long time steps split;
    a change refers to its attribute list by number (len); an enqueue as _c_enqueue gives
    it."""
    out = []
    changes = 0
    for op in ops:
        if op[0] == "C":
            out.append(f"{{ 'C', 0, 0, 0, {changes} }}")
            changes += 1
        elif op[0] == "E":
            hosts = f", {op[5]}, {op[6]}" if op[5] or op[6] else ""  # else 0, 0
            kind, cls = _c_enqueue(op[1])
            out.append(f"{{ '{kind}', {cls}, {op[4]}, {op[2]}, {op[3]}{hosts} }}")
        elif op[0] == "D":
            out.append("{ 'D', 0, 0, 0, 0 }")
        else:
            ns = op[1]
            while True:
                step = min(ns, 0xFFFFFFFF)
                out.append(f"{{ 'T', 0, 0, 0, {step} }}")
                ns -= step
                if not ns:
                    break
    return out


def _c_decisions(lines):
    """Decision lines (docs/algorithm.md) -> C initialisers."""
    out = []
    for line in lines:
        f = line.split()
        if f == ["-"]:
            out.append("{ 'N', 0, 0, 0, 0 }")
        elif f[0] == "change":
            kind = {(): "K", ("busy",): "B", ("invalid",): "I"}[tuple(f[1:])]
            out.append(f"{{ '{kind}', 0, 0, 0, 0 }}")
        elif f[0] == "drop":
            kind = {"codel": "C", "overload": "O"}[f[1]]
            out.append(f"{{ '{kind}', {_c_class(f[2])}, 0, {int(f[3])}, {int(f[4])} }}")
        else:
            ce = {(): 0, ("ce",): 1, ("ce", "threshold"): 2}[tuple(f[3:])]
            out.append(f"{{ 'P', {_c_class(f[0])}, {ce}, {int(f[1])}, {int(f[2])} }}")
    return out


def vectors_header(generated: int, vdir: str) -> str:
    """The *.trace files of `vdir` with their *.expected, then `generated` traces of the
    generated differential set with the reference's decisions, as C arrays."""
    traces = []
    for name in sorted(f[:-6] for f in os.listdir(vdir) if f.endswith(".trace")):
        text = open(os.path.join(vdir, name + ".trace")).read()
        exp = open(os.path.join(vdir, name + ".expected")).read().splitlines()
        traces.append((name, text, exp))
    for name, text in vectors.generated_traces(generated):
        traces.append((name, text, ref.replay(text.splitlines())))
    out = [
        "/* SPDX-License-Identifier: GPL-2.0-only */",
        "/* Generated by python -m msfc.model.kunit from test/vectors and the generated",
        " * differential set of msfc.model.vectors: do not edit.",
        " */",
        "",
    ]
    tables = []
    for i, (name, text, exp) in enumerate(traces):
        params, ops = ref.parse(text.splitlines())
        chg, chg_name = _c_changes(i, ops)
        out += chg + ([""] if chg else [])
        ops = _c_ops(ops)
        exp = _c_decisions(exp)
        out.append(f"static const struct msfc_vec_op msfc_vec_ops_{i}[] = {{")
        out += ["\t" + o + "," for o in ops] + ["};", ""]
        out.append(f"static const struct msfc_vec_op msfc_vec_exp_{i}[] = {{")
        out += ["\t" + o + "," for o in exp] + ["};", ""]
        fields = [
            f'"{name}"',
            params["prios"],
            params["flows"],
            params["quantum"],
            ref.ratio_to_fp(params["ratio"]),
            params["limit"],
            params["drop_batch"],
            params["target"],
            params["interval"],
            params["ecn"],
            ref.OVERLOAD_MODES.index(params.get("overload", "flow")),
            ref.WEIGHT_MODES.index(params.get("weights", "rounded")),
            ref.INVERSION_MODES.index(params.get("inversion", "allow")),
            ref.ISOLATE_MODES.index(params.get("isolate", "flow")),
            ref.BOOST_MODES.index(params.get("boost", "off")),
            ref.ORDER_MODES.index(params.get("order", "round")),
            ref.AUTO_MODES.index(params.get("auto", "off")),
            f"msfc_vec_ops_{i}",
            len(ops),
            f"msfc_vec_exp_{i}",
            len(exp),
            chg_name,
            _c_quanta(params["quanta"]),
            0 if params["quanta"] is None else len(params["quanta"]),
            _c_ce_threshold(params["ce_threshold"]),
            0 if params["ce_threshold"] is None else len(params["ce_threshold"]),
            params["ce_threshold_selector"],
            params["ce_threshold_mask"],
        ]
        tables.append("\t{ " + ", ".join(str(x) for x in fields) + " },")
    out.append("static const struct msfc_vector msfc_vectors[] = {")
    out += tables + ["};", ""]
    return "\n".join(out)


def write_if_changed(path: str, text: str) -> bool:
    """Write `text` to `path` unless it already holds it; whether it wrote."""
    try:
        with open(path) as fh:
            if fh.read() == text:
                return False
    except OSError:
        pass
    with open(path, "w") as fh:
        fh.write(text)
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m msfc.model.kunit", description=__doc__.splitlines()[0]
    )
    ap.add_argument(
        "--generated",
        type=int,
        default=vectors.GENERATED_COUNT,
        metavar="N",
        help="traces of the generated differential set after the committed ones "
        f"(default {vectors.GENERATED_COUNT})",
    )
    ap.add_argument(
        "--dir",
        default=None,
        help="the committed traces (default: test/vectors/ of the source tree)",
    )
    ap.add_argument("--out", metavar="FILE", help="write FILE (when changed) instead of stdout")
    a = ap.parse_args(argv)
    if a.generated < 0:
        ap.error(f"--generated {a.generated}: give a number of traces, 0 or more")
    vdir = a.dir or vectors.default_dir()
    if not os.path.isdir(vdir):
        print(
            f"msfc.model.kunit: no trace directory {vdir}: run from the source tree or pass "
            "--dir (its test/vectors/)",
            file=sys.stderr,
        )
        return 2
    try:
        text = vectors_header(a.generated, vdir)
    except (OSError, ref.TraceError) as e:
        print(f"msfc.model.kunit: {vdir}: {e}", file=sys.stderr)
        return 1
    if a.out:
        write_if_changed(a.out, text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
