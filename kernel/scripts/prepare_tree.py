#!/usr/bin/env python3
"""Add MSFC to a Linux source tree (6.x) in place; idempotent.

- net/sched/sch_msfc.c, sch_msfc_test.c, sch_msfc_bench.c: symlinks to kernel/net/sched/ of
  this repository
- net/sched/Kconfig, net/sched/Makefile: NET_SCH_MSFC (+ KUnit and benchmark probe options),
  sch_msfc.o, sch_msfc_bench.o
- include/uapi/linux/pkt_sched.h: the TCA_MSFC_* block of kernel/include/uapi/linux/pkt_sched_msfc.h
- net/sched/sch_msfc_vectors.h: test/vectors/*.trace + *.expected and the first N traces of the
  generated differential set (msfc.model.vectors, default N = GENERATED_COUNT) with the reference's
  decisions, as C arrays (KUnit replay)

Usage (from kernel/, with the project's Python that has the msfc package, see `make setup`):
    python -m scripts.prepare_tree [--generated N] [--copy] LINUX_TREE
    (--copy: copy instead of symlinks)
"""

import os
import sys

from msfc.model import reference as ref
from msfc.model import vectors

HERE = os.path.dirname(os.path.abspath(__file__))
KDIR = os.path.dirname(HERE)
REPO = os.path.dirname(KDIR)


def write_if_changed(path, text):
    try:
        if open(path).read() == text:
            return
    except OSError:
        pass
    with open(path, "w") as fh:
        fh.write(text)


UAPI_START = "/* MSFC (Multilevel Stochastically Fair CoDel) */\n"
UAPI_LAST = "struct tc_msfc_xstats {"  # the block's last definition


def uapi_block():
    lines = open(os.path.join(KDIR, "include/uapi/linux/pkt_sched_msfc.h")).read().splitlines()
    start = lines.index("#ifndef TCA_MSFC_MAX")
    end = max(i for i, x in enumerate(lines) if x.startswith("#endif"))
    body = "\n".join(lines[start + 1 : end]).strip("\n")
    assert body.rstrip().endswith("};") and UAPI_LAST in body, "pkt_sched_msfc.h: layout changed"
    return UAPI_START + "\n" + body + "\n"


# C line keys -> the netlink attribute a change sends (pkt_sched_msfc.h) and its value
CHANGE_ATTRS = {
    "prios": ("TCA_MSFC_PRIOS", int),
    "flows": ("TCA_MSFC_FLOWS", int),
    "quantum": ("TCA_MSFC_QUANTUM", int),
    "ratio": ("TCA_MSFC_RATIO", ref.ratio_fp_unchecked),
    "limit": ("TCA_MSFC_LIMIT", int),
    "drop_batch": ("TCA_MSFC_DROP_BATCH", int),
    "target": ("TCA_MSFC_TARGET", int),
    "interval": ("TCA_MSFC_INTERVAL", int),
    "ecn": ("TCA_MSFC_ECN", int),
    "overload": ("TCA_MSFC_OVERLOAD", ref.OVERLOAD_MODES.index),
    "weights": ("TCA_MSFC_WEIGHTS", ref.WEIGHT_MODES.index),
    "inversion": ("TCA_MSFC_INVERSION", ref.INVERSION_MODES.index),
    "isolate": ("TCA_MSFC_ISOLATE", ref.ISOLATE_MODES.index),
    "boost": ("TCA_MSFC_BOOST", ref.BOOST_MODES.index),
    "order": ("TCA_MSFC_ORDER", ref.ORDER_MODES.index),
    "auto": ("TCA_MSFC_AUTO", ref.AUTO_MODES.index),
}


def _c_quanta(quanta) -> str:
    """Explicit class quanta (a tuple, or None: from ratio) as a C array expression."""
    if quanta is None:
        return "NULL"
    return "(const u32[]){ " + ", ".join(str(x) for x in quanta) + " }"


def _c_attr(key, value) -> str:
    """One change's attribute as a struct msfc_test_attr initialiser (TCA_MSFC_QUANTA: its
    length in bytes and its payload, empty to take the quanta from ratio again)."""
    if key == "quanta":
        n = 0 if value is None else len(value)
        return f"{{ TCA_MSFC_QUANTA, {4 * n}, {_c_quanta(value)} }}"
    return f"{{ {CHANGE_ATTRS[key][0]}, {CHANGE_ATTRS[key][1](value)} }}"


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


def _c_ops(ops):
    """Trace operations (msfc.model.reference.parse) -> C initialisers; long time steps split; a
    change refers to its attribute list by number (len); an auto packet ("E a", the queue
    disc decides its class) is an 'A' operation."""
    out = []
    changes = 0
    for op in ops:
        if op[0] == "C":
            out.append(f"{{ 'C', 0, 0, 0, {changes} }}")
            changes += 1
        elif op[0] == "E":
            hosts = f", {op[5]}, {op[6]}" if op[5] or op[6] else ""  # else 0, 0
            kind, cls = ("A", 0) if op[1] == ref.AUTO_CLASS else ("E", op[1])
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
            out.append(f"{{ '{kind}', {int(f[2])}, 0, {int(f[3])}, {int(f[4])} }}")
        else:
            ce = 1 if f[3:] == ["ce"] else 0
            out.append(f"{{ 'P', {int(f[0])}, {ce}, {int(f[1])}, {int(f[2])} }}")
    return out


def vectors_header(generated):
    """test/vectors/*.trace with their *.expected, then `generated` traces of the generated
    differential set with the reference's decisions, as C arrays."""
    vdir = os.path.join(REPO, "test", "vectors")
    traces = []
    for name in sorted(f[:-6] for f in os.listdir(vdir) if f.endswith(".trace")):
        text = open(os.path.join(vdir, name + ".trace")).read()
        exp = open(os.path.join(vdir, name + ".expected")).read().splitlines()
        traces.append((name, text, exp))
    for name, text in vectors.generated_traces(generated):
        traces.append((name, text, ref.replay(text.splitlines())))
    out = [
        "/* SPDX-License-Identifier: GPL-2.0-only */",
        "/* Generated by kernel/scripts/prepare_tree.py from test/vectors and the generated",
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
        ]
        tables.append("\t{ " + ", ".join(str(x) for x in fields) + " },")
    out.append("static const struct msfc_vector msfc_vectors[] = {")
    out += tables + ["};", ""]
    return "\n".join(out)


def main():
    args = sys.argv[1:]
    generated = vectors.GENERATED_COUNT
    if len(args) >= 2 and args[0] == "--generated":
        try:
            generated = int(args[1])
        except ValueError:
            sys.exit(f"prepare_tree: --generated {args[1]}: give a number of traces")
        args = args[2:]
    copy = len(args) == 2 and args[0] == "--copy"
    if len(args) != 1 and not copy:
        sys.exit(__doc__)
    tree = args[-1]
    sched = os.path.join(tree, "net", "sched")
    if not os.path.isfile(os.path.join(sched, "sch_fq_codel.c")):
        sys.exit(f"prepare_tree: {tree} is not a Linux source tree (no net/sched/sch_fq_codel.c)")
    for f in ("sch_msfc.c", "sch_msfc_test.c", "sch_msfc_bench.c"):
        dst = os.path.join(sched, f)
        src = os.path.join(KDIR, "net", "sched", f)
        if copy:
            write_if_changed(dst, open(src).read())
            continue
        if os.path.islink(dst) and os.readlink(dst) == src:
            continue
        if os.path.lexists(dst):
            os.unlink(dst)
        os.symlink(src, dst)

    kconfig = os.path.join(sched, "Kconfig")
    text = open(kconfig).read()
    anchor = "config NET_SCH_CODEL\n"
    assert anchor in text, "net/sched/Kconfig: no 'config NET_SCH_CODEL' to insert before"
    if "config NET_SCH_MSFC\n" in text:  # an earlier version: replace it
        start = text.index("config NET_SCH_MSFC\n")
        text = text[:start] + text[text.index(anchor, start) :]
    block = open(os.path.join(KDIR, "net/sched/Kconfig.msfc")).read()
    write_if_changed(kconfig, text.replace(anchor, block + anchor, 1))

    mk = os.path.join(sched, "Makefile")
    text = open(mk).read()
    if "sch_msfc.o" not in text:
        anchor = "obj-$(CONFIG_NET_SCH_FQ_CODEL)\t+= sch_fq_codel.o\n"
        assert anchor in text, "net/sched/Makefile: no fq_codel line to insert after"
        text = text.replace(anchor, anchor + "obj-$(CONFIG_NET_SCH_MSFC)\t+= sch_msfc.o\n", 1)
    if "sch_msfc_bench.o" not in text:
        anchor = "obj-$(CONFIG_NET_SCH_MSFC)\t+= sch_msfc.o\n"
        text = text.replace(
            anchor, anchor + "obj-$(CONFIG_NET_SCH_MSFC_BENCH)\t+= sch_msfc_bench.o\n", 1
        )
    write_if_changed(mk, text)

    # the block is replaced when the UAPI header changed (ranges, defaults, messages)
    uapi = os.path.join(tree, "include", "uapi", "linux", "pkt_sched.h")
    text = open(uapi).read()
    start = text.find(UAPI_START)
    if start >= 0:
        end = text.index(UAPI_LAST, start)
        end = text.index("\n};\n", end) + len("\n};\n") + 1  # and the blank line after it
        text = text[:start] + text[end:]
    end = text.rindex("#endif")
    text = text[:end] + uapi_block() + "\n" + text[end:]
    write_if_changed(uapi, text)

    write_if_changed(os.path.join(sched, "sch_msfc_vectors.h"), vectors_header(generated))


if __name__ == "__main__":
    main()
