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

Beside them (traces()): the still variant of each other committed trace where it can be driven
(no T lines, nothing from the first C on), of generated traces with the lane and NQB flows, and
edge traces, each against the reference's decisions on the same lines, computed here.

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


def plan(text: str, still: bool = False) -> tuple[list[str], int, list[str]] | str:
    """(loader words, flows, E/D lines) of a trace the replay can drive, or why not.  `still`:
    the trace's still variant instead: its clock lines left out and only its operations
    before its first change (C), the configuration of its header."""
    head: dict[str, str] = {}
    ops: list[str] = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        kind, *rest = line.split()
        if kind == "P":
            head = dict(w.split("=", 1) for w in rest)
        elif kind == "T":
            if not still:
                return "its clock moves (T): the BPF qdisc's clock is the kernel's"
        elif kind == "C":
            if still:
                break
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
    # without a clock CoDel never marks: ecn changes nothing in a still variant
    if head.get("ce_threshold", "off") != "off" or (head.get("ecn", "0") != "0" and not still):
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


def still_text(text: str) -> str:
    """A trace's still variant as a trace: no T lines, nothing from its first C on."""
    out = []
    for raw in text.splitlines():
        kind = raw.split("#", 1)[0].split()[:1]
        if kind == ["C"]:
            break
        if kind != ["T"]:
            out.append(raw)
    return "\n".join(out) + "\n"


def compare(got: str, want: str) -> tuple[bool, str]:
    if got == want:
        return True, ""
    g, w = got.splitlines(), want.splitlines()
    for i, (a, b) in enumerate(zip(g, w, strict=False)):
        if a != b:
            return False, f"decision {i + 1}: {a!r}, the reference {b!r}"
    return False, f"{len(g)} decisions, the reference {len(w)}"


#: generated traces (python/msfc/model/vectors.py's random_trace()) with the least-effort lane
#: and NQB flows (format version 7) whose still variant the replay drives, and the seeds tried
GENERATED_LENQB = 24
GENERATED_SEEDS = range(1, 5000)

Plan = tuple[list[str], int, list[str], str]  # loader words, flows, E/D lines, the decisions


def edge_traces() -> dict[str, str]:
    """Still traces (no clock, no change) at the edges of the BPF qdisc's LE and NQB code,
    name -> text: refills by the thousand (quantum 1 and 7, packets of up to 1500 bytes), so
    that rounds are skipped on the NQB flows of a class that has no other flows, on the old
    flows, and not while NQB flows share the class with others; and the lane at its largest
    index (prios 16, its record after class 15) with NQB flows of class 15, a small limit whose
    overload drops take the lane first, and order priority with boost across."""
    import random  # noqa: PLC0415

    out = {}
    cases = (
        ("edge-nqb-skip-2x8-q1", "prios=2 flows=8 quantum=1 ratio=2 limit=10240", 2, 8),
        (
            "edge-nqb-skip-3x4-q7-on",
            "prios=3 flows=4 quantum=7 ratio=2 limit=10240 boost=on",
            3,
            4,
        ),
        (
            "edge-lane-16x2-limit12",
            "prios=16 flows=2 quantum=300 ratio=1 limit=12 drop_batch=3 order=priority "
            "boost=across",
            16,
            2,
        ),
        ("edge-lane-1x4-limit8", "prios=1 flows=4 quantum=1514 ratio=2 limit=8", 1, 4),
    )
    for name, params, prios, flows in cases:
        rng = random.Random(name)
        lines = [f"# {name}: bpf/replay.py edge_traces()", f"P version=7 {params}"]
        for phase in range(6):
            # phase 0: NQB flows alone in the top class; then old flows join, then the lane
            top = prios - 1
            kinds = [f"{top}n"] + ([str(top)] if phase >= 1 else []) + (["l"] if phase >= 2 else [])
            if phase >= 3 and prios > 1:
                kinds += ["0", "0n"]
            for _ in range(rng.randint(30, 80)):
                if rng.random() < 0.55:
                    k = rng.choice(kinds)
                    f = rng.randrange(flows)
                    size = rng.choice((64, 200, 700, 1500))
                    lines.append(f"E {k} {f} {size} 0")
                else:
                    lines.append("D")
            if phase in (2, 4):
                lines += ["D"] * 40  # drain
        out[name] = "\n".join(lines) + "\n"
    return out


def traces(generated: int = GENERATED_LENQB) -> tuple[dict[str, Plan], dict[str, str]]:
    """The traces a replay drives (name -> plan with the reference's decisions) and the
    committed ones it does not (name -> why not).

    Driven: every committed trace that the replay can drive as it is, against its .expected;
    the still variant (still_text()) of each other committed trace where that can be driven,
    and of the first `generated` generated traces of format version 7 (the least-effort
    lane and NQB packets in every mode), and the edge_traces(), against the reference's
    decisions on the variant
    (python/msfc/model/reference.py, run here).  A clock that never moves is what the
    loader's target (STILL_CLOCK) gives the BPF qdisc, so CoDel acts in neither."""
    from msfc.model import reference as ref  # noqa: PLC0415
    from msfc.model import vectors  # noqa: PLC0415

    def decisions(text: str) -> str:
        return "".join(x + "\n" for x in ref.replay(text.splitlines()))

    driven: dict[str, Plan] = {}
    skipped: dict[str, str] = {}
    for t in sorted(VECTORS.glob("*.trace")):
        text = t.read_text()
        p = plan(text)
        if not isinstance(p, str):
            driven[t.stem] = (*p, (VECTORS / f"{t.stem}.expected").read_text())
            continue
        skipped[t.stem] = p
        s = plan(text, still=True)
        if not isinstance(s, str) and s[2]:
            driven[f"still-{t.stem}"] = (*s, decisions(still_text(text)))
    for name, text in edge_traces().items():
        s = plan(text)
        if isinstance(s, str):
            raise ValueError(f"{name}: {s}")
        driven[name] = (*s, decisions(text))
    n = 0
    for seed in GENERATED_SEEDS:
        if n == generated:
            break
        text = vectors.random_trace(seed)
        if "version=7" not in text.splitlines()[1]:
            continue
        s = plan(text, still=True)
        if isinstance(s, str) or not s[2]:
            continue
        driven[f"still-gen-{seed}"] = (*s, decisions(still_text(text)))
        n += 1
    return driven, skipped


def job_files(module: Path, generated: int = GENERATED_LENQB) -> dict[str, bytes]:
    """The guest's part: replay.sh as job/replay.sh, the module, each trace's plan."""
    job = {
        "job/replay.sh": (HERE / "replay.sh").read_bytes(),
        "job/msfc_bpf_replay.ko": module.read_bytes(),
    }
    for name, (words, flows, ops, _) in traces(generated)[0].items():
        job[f"job/replay/{name}.words"] = (" ".join(words) + "\n").encode()
        job[f"job/replay/{name}.flows"] = f"{flows}\n".encode()
        job[f"job/replay/{name}.ops"] = ("\n".join(ops) + "\n").encode()
    return job


def check(
    res, out: Path | None = None, generated: int = GENERATED_LENQB
) -> tuple[list[tuple[str, bool, str]], dict]:
    """[(name, ok, detail)] of a boot that ran replay.sh, and a summary."""
    sys.path.insert(0, str(TOP / "kernel"))
    from scripts import splats  # noqa: PLC0415

    driven, skipped = traces(generated)
    rows = []
    for name, (_, _, ops, want) in driven.items():
        got = res.text(f"replay/{name}.out")
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
    ap.add_argument(
        "--generated",
        type=int,
        default=GENERATED_LENQB,
        help=f"generated LE/NQB traces to drive (default {GENERATED_LENQB})",
    )
    a = ap.parse_args()
    job = {
        "job/run.sh": b". /job/replay.sh\n",
        "job/net.sh": b"",
        "job/msfc-bpf": a.loader.read_bytes(),
        **job_files(a.module, a.generated),
    }
    a.out.mkdir(parents=True, exist_ok=True)
    res = qemu.boot(
        a.kernel, a.initrd, job, accel=a.accel, timeout=900, failure_log=a.out / "boot.log"
    )
    (a.out / "boot.log").write_text(res.full_log())
    checks, summary = check(res, a.out, a.generated)
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
