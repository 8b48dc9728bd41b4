#!/usr/bin/env python3
"""The committed cross-check traces replayed into the BPF qdisc in the qemu VM, packet by
packet, and its decisions compared with the reference's (test/vectors/*.expected).

docs/kernel.md, "BPF qdisc", says which traces a replay can drive and why not the others: the
replay module (bpf/replay/msfc_bpf_replay.c) gives each packet its class as its DS field and
its flow slot as its flow hash, and runs enqueue and dequeue in the kernel under the qdisc
lock; it cannot move the BPF qdisc's clock, change its configuration in place or choose its
host slots.  A trace with no clock (T), no change (C), no host slots (isolate), no automatic
classes (auto), no packet that comes CE-marked and no ce_threshold is driven; the CoDel target is set beyond
any replay's duration, which is what a clock that never moves gives.  The outputs must equal
the .expected files byte for byte.  A version 7 trace's NQB packets (`E <c>n`) and packets of
the least-effort lane (`E l`) are sent with DSCPs the loader's map makes NQB and LE.

    make -C bpf replay
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOP = HERE.parent
VECTORS = TOP / "test" / "vectors"
#: P keys the loader takes with the same meaning (tc's words)
WORDS = ("prios", "flows", "quantum", "ratio", "limit", "drop_batch")
MODES = ("overload", "weights", "inversion", "boost", "order")
#: the loader's words for a trace whose clock never moves: CoDel never above its target
STILL_CLOCK = ["target", "1000s", "interval", "2000s"]
#: the packets carry their trace class as DSCP (bpf/replay/msfc_bpf_replay.c): k for class k,
#: 16 + k for an NQB packet of class k (`kn`), 32 for the least-effort lane (`l`)
DSCP_MAP = [
    "dscp_map",
    ",".join(
        [f"{k}:{k}" for k in range(16)] + [f"{16 + k}:{k}+nqb" for k in range(16)] + ["32:le"]
    ),
]


def plan(trace: Path) -> tuple[list[str], int, list[str]] | str:
    """(loader words, flows, E/D lines) of a trace the replay can drive, or why not."""
    head: dict[str, str] = {}
    ops: list[str] = []
    for raw in trace.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        kind, *rest = line.split()
        if kind == "P":
            head = dict(w.split("=", 1) for w in rest)
        elif kind == "T":
            return "its clock moves (T): the BPF qdisc's clock is the kernel's"
        elif kind == "C":
            return "it changes the configuration (C): the BPF qdisc copies it when created"
        elif kind == "E":
            # with a clock that never moves neither CoDel nor a threshold marks, so the ECN
            # field matters only when it comes CE (the output says so); host slots matter
            # only with isolate
            if len(rest) > 3 and rest[3] == "3":
                return "packets that come CE-marked (the replay module sends Not-ECT)"
            if rest[0] == "a":
                return "automatic classes (class a)"
            ops.append(f"E {rest[0]} {rest[1]} {rest[2]}")
        elif kind == "D":
            ops.append("D")
        else:
            return f"unknown operation {kind}"
    if head.get("isolate", "flow") != "flow":
        return "isolate: the host slots are hashed from the addresses with a random key"
    if head.get("auto", "off") != "off":
        return "auto: the slots' levels follow the clock"
    if head.get("ce_threshold", "off") != "off" or head.get("ecn", "0") != "0":
        return "ECN marking: the BPF qdisc cannot write packet data"
    known = {"version", "target", "interval", "ecn", "quanta", *WORDS, *MODES}
    if set(head) - known:
        return f"keys {sorted(set(head) - known)}"
    words: list[str] = []
    for k in WORDS + MODES:
        if k in head:
            words += [k, head[k]]
    if head.get("quanta", "ratio") != "ratio":
        words += ["quanta", head["quanta"]]
    return words + STILL_CLOCK + DSCP_MAP, int(head.get("flows", 1024)), ops


def compare(got: str, want: str) -> tuple[bool, str]:
    if got == want:
        return True, ""
    g, w = got.splitlines(), want.splitlines()
    for i, (a, b) in enumerate(zip(g, w, strict=False)):
        if a != b:
            return False, f"decision {i + 1}: {a!r}, the reference {b!r}"
    return False, f"{len(g)} decisions, the reference {len(w)}"


def traces() -> tuple[dict[str, tuple[list[str], int, list[str]]], dict[str, str]]:
    """The committed traces a replay drives (name -> plan) and the others (name -> why not)."""
    driven, skipped = {}, {}
    for t in sorted(VECTORS.glob("*.trace")):
        p = plan(t)
        if isinstance(p, str):
            skipped[t.stem] = p
        else:
            driven[t.stem] = p
    return driven, skipped


def job_files(module: Path) -> dict[str, bytes]:
    """The guest's part: replay.sh as job/replay.sh, the module, each trace's plan."""
    job = {
        "job/replay.sh": (HERE / "replay.sh").read_bytes(),
        "job/msfc_bpf_replay.ko": module.read_bytes(),
    }
    for name, (words, flows, ops) in traces()[0].items():
        job[f"job/replay/{name}.words"] = (" ".join(words) + "\n").encode()
        job[f"job/replay/{name}.flows"] = f"{flows}\n".encode()
        job[f"job/replay/{name}.ops"] = ("\n".join(ops) + "\n").encode()
    return job


def check(res, out: Path | None = None) -> tuple[list[tuple[str, bool, str]], dict]:
    """[(name, ok, detail)] of a boot that ran replay.sh, and a summary."""
    sys.path.insert(0, str(TOP / "kernel"))
    from scripts import splats  # noqa: PLC0415

    driven, skipped = traces()
    rows = []
    for name, (_, _, ops) in driven.items():
        got = res.text(f"replay/{name}.out")
        want = (VECTORS / f"{name}.expected").read_text()
        if out is not None:
            (out / f"{name}.out").write_text(got)
        rc = res.text(f"replay/{name}.rc").split()
        ok, why = compare(got, want)
        if rc != ["0"] * 5:
            steps = res.text(f"replay/{name}.load").strip()[-300:]
            ok, why = False, f"steps load add replay del unload: {rc}: {steps}"
        rows.append(
            {
                "trace": name,
                "operations": len(ops),
                "decisions": len(want.splitlines()),
                "identical": ok,
                "first_difference": why,
            }
        )
    same = [r for r in rows if r["identical"]]
    checks = [
        (
            f"replay: {len(same)} of {len(rows)} traces identical to the reference "
            f"({sum(r['decisions'] for r in same)} decisions)",
            bool(rows) and len(same) == len(rows),
            "\n".join(f"{r['trace']}: {r['first_difference']}" for r in rows if not r["identical"]),
        )
    ]
    dmesg = res.text("replay_dmesg.txt")
    reports = splats.find(dmesg.splitlines())
    checks.append(
        (
            "replay: no kernel report",
            bool(dmesg) and not reports,
            "; ".join(r[2] for r in reports[:3]),
        )
    )
    return checks, {"traces": rows, "not_driven": skipped}


def main() -> int:
    from msfc.linux import qemu  # noqa: PLC0415

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", type=Path, required=True)
    ap.add_argument("--initrd", type=Path, required=True)
    ap.add_argument("--loader", type=Path, required=True)
    ap.add_argument("--module", type=Path, required=True, help="msfc_bpf_replay.ko")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--accel", default="tcg", help="tcg (default), kvm or auto")
    a = ap.parse_args()
    job = {
        "job/run.sh": b". /job/replay.sh\n",
        "job/net.sh": b"",
        "job/msfc-bpf": a.loader.read_bytes(),
        **job_files(a.module),
    }
    a.out.mkdir(parents=True, exist_ok=True)
    res = qemu.boot(
        a.kernel, a.initrd, job, accel=a.accel, timeout=900, failure_log=a.out / "boot.log"
    )
    (a.out / "boot.log").write_text(res.full_log())
    checks, summary = check(res, a.out)
    for r in summary["traces"]:
        print(
            f"{'ok  ' if r['identical'] else 'FAIL'} {r['trace']}: {r['decisions']} decisions"
            + (f": {r['first_difference']}" if r["first_difference"] else "")
        )
    for name, why in summary["not_driven"].items():
        print(f"not driven {name}: {why}")
    for name, ok, detail in checks:
        print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""))
    summary |= {"accel": res.accel, "wall_seconds": round(res.wall_seconds, 1)}
    (a.out / "result.json").write_text(json.dumps(summary, indent=1) + "\n")
    failed = sum(not ok for _, ok, _ in checks)
    print(
        f"bpf replay: {len(checks) - failed}/{len(checks)} checks passed, "
        f"{len(summary['not_driven'])} traces not driven; {res.accel}, {res.wall_seconds:.0f} s"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
