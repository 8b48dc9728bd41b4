"""Simulation cost of the ISP-tree benchmark per scheduler: wall time, CPU time, events.

    msfc bench isp-cost results/isp-cost                  # quick, 2 rounds
    msfc bench isp-cost results/isp-cost --preset quick-wifi --rounds 1

Runs the ISP tree (`scenario-isp-tree --preset=P --scheduler=S`) for every scheduler, round
after round (the schedulers alternate, so a change in the machine's load hits all of them
alike), reads each run's meta.json and writes `<out>/<preset>/cost.csv` (one row per run) and
`cost.md` (medians per scheduler, and each scheduler's ratio to the reference, FqCoDel by
default). Scheduler names are checked against the scheduler registry (`msfc-describe`).
CPU time is the figure to compare on a machine shared with other work; wall time follows the
load. Target: MSFC at most 1.1x the cost of ns-3's FQ-CoDel on the same preset.
"""

from __future__ import annotations

import csv
import json
import statistics
from pathlib import Path

from .. import bench
from ..errors import UserError
from .config import parse_assignments
from .programs import describe_schedulers
from .runner import run_scenario

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
#: the thesis's four schedulers, the default comparison (as `make bench`)
DEFAULT_SCHEDULERS = "FqCoDel,Msfc,CoDel,PfifoFast"


def table(rows: list[dict], reference: str = "FqCoDel") -> str:
    """The Markdown table of cost.csv's rows (one per run): per scheduler, in the rows' order,
    the medians over its rounds of the events, the simulation loop's wall and CPU seconds and
    the events per CPU second, and the wall and CPU ratios to ``reference``'s medians."""
    scheds = list(dict.fromkeys(r["scheduler"] for r in rows))
    if reference not in scheds:
        raise UserError(f"the cost rows have no run of the reference {reference}", 1)

    def med(s, k):
        return statistics.median(float(x[k]) for x in rows if x["scheduler"] == s)

    ref_wall, ref_cpu = med(reference, "run_wall_seconds"), med(reference, "run_cpu_seconds")
    lines = [
        "| scheduler | events (M) | wall s | CPU s | k events / CPU s "
        f"| wall / {reference} | CPU / {reference} |",
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
    return "\n".join(lines)


def registry_names(build: Path) -> list[str]:
    """Every scheduler name of the registry, as msfc-describe lists it."""
    return list(describe_schedulers(build, required=True))


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    ap = bench.common_args(prog, __doc__.split("\n")[0])
    ap.add_argument("--preset", default="quick")
    ap.add_argument(
        "--schedulers",
        default=DEFAULT_SCHEDULERS,
        help="comma-separated names from the scheduler registry (default: %(default)s; "
        "`msfc list` shows them all)",
    )
    ap.add_argument("--reference", default="FqCoDel", help="scheduler the ratios are taken to")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument(
        "--set",
        dest="sets",
        action="append",
        metavar="KEY=VALUE",
        help="a further scenario option (repeatable)",
    )
    a = ap.parse_args(argv)
    build = bench.build_dir(a)
    if a.rounds < 1:
        raise UserError(f"--rounds {a.rounds} is out of range; it must be at least 1")
    known = registry_names(build)
    scheds = [s for s in a.schedulers.split(",") if s]
    unknown = [s for s in scheds if s not in known]
    if unknown:
        raise UserError(
            f"--schedulers: unknown scheduler {', '.join(unknown)}; the registry has "
            f"{', '.join(known)}"
        )
    if a.reference not in scheds:
        raise UserError(f"the reference {a.reference} is not among --schedulers")
    extra = dict(parse_assignments(a.sets))

    base = a.results / a.preset
    rows = []
    for r in range(1, a.rounds + 1):
        for s in scheds:
            d = run_scenario(
                build,
                "isp-tree",
                base,
                {"preset": a.preset, "scheduler": s, **extra},
                rng_run=a.rng_run,
                force=True,
            )
            m = json.loads((d / "meta.json").read_text())
            if "run_cpu_seconds" not in m:
                raise UserError(f"{d}/meta.json has no run_cpu_seconds: rebuild (make build)", 1)
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

    lines = [
        f"Preset `{a.preset}`, {a.rounds} round(s), medians of the simulation loop; "
        f"ratios to {a.reference}.",
        "",
        table(rows, a.reference),
    ]
    (base / "cost.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"Output: {base / 'cost.csv'}, {base / 'cost.md'}")
    return 0
