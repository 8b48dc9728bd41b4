#!/usr/bin/env python3
"""Simulation cost of the ISP-tree benchmark per scheduler: wall time, CPU time, events.

    .venv/bin/python benchmarks/isp_cost.py results/isp-cost                  # quick, 2 rounds
    .venv/bin/python benchmarks/isp_cost.py results/isp-cost --preset quick-wifi --rounds 1

Runs `build/scenario-isp-tree --preset=P --scheduler=S` for every scheduler, round after round
(the schedulers alternate, so a change in the machine's load hits all of them alike), reads
each run's meta.json and writes `<out>/<preset>/cost.csv` (one row per run) and `cost.md`
(medians per scheduler, and each scheduler's ratio to the reference, FqCoDel by default).
CPU time is the figure to compare on a machine shared with other work; wall time follows the
load. Issue target: MSFC at most 1.1x the cost of ns-3's FQ-CoDel on the same preset.
"""

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIELDS = [
    "preset",
    "scheduler",
    "round",
    "wall_seconds",
    "run_wall_seconds",
    "cpu_seconds",
    "run_cpu_seconds",
    "events",
    "events_per_cpu_second",
    "sim_seconds",
]


def run_one(program: Path, preset: str, scheduler: str, out: Path, extra: list[str]) -> dict:
    if out.exists():
        shutil.rmtree(out)
    p = subprocess.run(
        [
            str(program),
            f"--preset={preset}",
            f"--scheduler={scheduler}",
            "--progress=false",
            f"--out={out}",
            *extra,
        ],
        capture_output=True,
        text=True,
    )
    if p.returncode != 0:
        sys.exit(f"isp_cost: {scheduler} failed (exit {p.returncode}):\n{p.stderr[-2000:]}")
    meta = json.loads((out / "meta.json").read_text())
    if "run_cpu_seconds" not in meta:
        sys.exit(f"isp_cost: {out}/meta.json has no run_cpu_seconds: rebuild (make build)")
    return meta


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path, help="results directory")
    ap.add_argument("--preset", default="quick")
    ap.add_argument("--schedulers", default="FqCoDel,Msfc,CoDel,PfifoFast")
    ap.add_argument("--reference", default="FqCoDel", help="scheduler the ratios are taken to")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument(
        "--build-dir", type=Path, default=Path(os.environ.get("MSFC_BUILD_DIR", ROOT / "build"))
    )
    ap.add_argument("extra", nargs="*", help="further scenario options, after --")
    a = ap.parse_args()
    program = a.build_dir / "scenario-isp-tree"
    if not program.exists():
        sys.exit(f"isp_cost: {program} not found: run `make build` first")
    if a.rounds < 1:
        sys.exit("isp_cost: --rounds must be at least 1")
    scheds = [s for s in a.schedulers.split(",") if s]
    if a.reference not in scheds:
        sys.exit(f"isp_cost: the reference {a.reference} is not among --schedulers")

    base = a.out / a.preset
    rows = []
    for r in range(1, a.rounds + 1):
        for s in scheds:
            m = run_one(program, a.preset, s, base / "runs" / f"{s}-{r}", a.extra)
            rows.append(
                {
                    "preset": a.preset,
                    "scheduler": s,
                    "round": r,
                    "wall_seconds": m["wall_seconds"],
                    "run_wall_seconds": m["run_wall_seconds"],
                    "cpu_seconds": m["cpu_seconds"],
                    "run_cpu_seconds": m["run_cpu_seconds"],
                    "events": m["events"],
                    "events_per_cpu_second": m["events"] / max(m["run_cpu_seconds"], 1e-9),
                    "sim_seconds": m["sim_seconds"],
                }
            )
            print(
                f"{s} round {r}: {m['run_wall_seconds']:.1f} s wall, "
                f"{m['run_cpu_seconds']:.1f} s CPU, {m['events'] / 1e6:.2f} M events",
                flush=True,
            )

    tmp = base / "cost.csv.tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    tmp.replace(base / "cost.csv")

    def med(s, k):
        return statistics.median(x[k] for x in rows if x["scheduler"] == s)

    ref_wall, ref_cpu = med(a.reference, "run_wall_seconds"), med(a.reference, "run_cpu_seconds")
    lines = [
        f"Preset `{a.preset}`, {a.rounds} round(s), medians of the simulation loop; "
        f"ratios to {a.reference}.",
        "",
        "| scheduler | events (M) | wall s | CPU s | k events / CPU s "
        f"| wall / {a.reference} | CPU / {a.reference} |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in scheds:
        lines.append(
            f"| {s} | {med(s, 'events') / 1e6:.2f} | {med(s, 'run_wall_seconds'):.1f} "
            f"| {med(s, 'run_cpu_seconds'):.1f} "
            f"| {med(s, 'events_per_cpu_second') / 1e3:.0f} "
            f"| {med(s, 'run_wall_seconds') / ref_wall:.2f} "
            f"| {med(s, 'run_cpu_seconds') / ref_cpu:.2f} |"
        )
    (base / "cost.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"Output: {base / 'cost.csv'}, {base / 'cost.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
