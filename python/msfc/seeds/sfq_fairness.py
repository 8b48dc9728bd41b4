"""Seed 004: CUBIC vs BBR through a TBF-shaped bottleneck, without and with a fair scheduler.

Runs build/scenario-sfq-fairness for None (TBF's FIFO), SFQ, FQ-CoDel and MSFC, then writes
RESULTS/sfq_fairness_<rate>.png (throughput of each flow over time per scheduler) and
RESULTS/sfq_fairness_<rate>.csv (+ .md): mean throughput per flow and Jain's index, with the
seed's published numbers beside ours (the seed measured at 1 Gbps).

    msfc bench seed004-sfq-fairness results/seeds                 # 100 Mbps, 60 s (~7 min)
    msfc bench seed004-sfq-fairness results/seeds --rate=1Gbps    # as the seed (hours)
"""

from __future__ import annotations

import pandas as pd

from .. import bench, seeds
from ..analysis import metrics as M
from ..sim.runner import load_raw, run_scenario

SCHEDULERS = [
    ("no fair scheduler", "None"),
    ("SFQ", "Sfq"),
    ("FQ-CoDel", "FqCoDelVariant"),
    ("MSFC", "Msfc"),
]


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    ap = bench.common_args(prog, __doc__.splitlines()[0])
    ap.add_argument("--rate", default="100Mbps", help="TBF rate (the seed: 1Gbps)")
    ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds per run")
    ap.add_argument("--quick", action="store_true", help="20 s runs")
    ap.add_argument(
        "--schedulers",
        nargs="+",
        default=[s for _, s in SCHEDULERS],
        choices=[s for _, s in SCHEDULERS],
        help="schedulers to run (default: all four)",
    )
    a = ap.parse_args(argv)
    build = bench.build_dir(a)
    chosen = [(ln, s) for ln, s in SCHEDULERS if s in a.schedulers]
    if a.quick:
        a.duration = 20.0
    pub = seeds.published()["seed004"]
    rate_tag = a.rate.replace(" ", "")
    tag = rate_tag + ("" if a.duration == 60.0 else f"-{int(a.duration)}s")

    res = {}
    for label, sched in chosen:
        out = run_scenario(
            build,
            "sfq-fairness",
            a.results,
            {"scheduler": sched, "rate": a.rate, "duration": a.duration},
            rng_run=a.rng_run,
            force=not a.reuse,
        )
        f = M.flow_metrics(load_raw(out)[0])
        data = f[(f["direction"] == "down") & (f["app_id"] != -1)]
        by_id = dict(zip(data["flow_id"], data["type"], strict=True))
        series: dict[str, list[tuple[float, float]]] = {}
        for r in pd.read_csv(out / "timeseries.csv").itertuples():
            series.setdefault(by_id.get(r.flow_id, str(r.flow_id)), []).append(
                (float(r.time_s), float(r.throughput_bps) / 1e6)
            )
        mbps = dict(zip(data["type"], data["throughput_kbps"].fillna(0.0) / 1000, strict=True))
        res[label] = (mbps, series)

    header = [
        "scheduler",
        "cubic_mbps",
        "bbr_mbps",
        "jain",
        "seed_cubic_mbps",
        "seed_bbr_mbps",
        "seed_jain",
    ]
    rows = []
    for label, sched in chosen:
        mbps, _ = res[label]
        seed = {"None": pub["throughput_mbps"]["no_sfq"], "Sfq": pub["throughput_mbps"]["sfq"]}.get(
            sched
        )
        rows.append(
            [
                label,
                mbps.get("Cubic", 0.0),
                mbps.get("Bbr", 0.0),
                M.jain_index([mbps.get("Cubic", 0.0), mbps.get("Bbr", 0.0)]),
                seed["Cubic"] if seed else "",
                seed["Bbr"] if seed else "",
                M.jain_index([seed["Cubic"], seed["Bbr"]]) if seed else "",
            ]
        )
    seeds.write_table(a.results / f"sfq_fairness_{tag}.csv", header, rows)

    plt = seeds.pyplot()
    fig, axes = plt.subplots(
        len(chosen),
        1,
        figsize=(8, 2.4 * len(chosen) + 0.6),
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    axes = axes[:, 0]
    for ax, (label, _) in zip(axes, chosen, strict=False):
        mbps, series = res[label]
        for name, pts in sorted(series.items()):
            ax.plot(
                [p[0] for p in pts],
                [p[1] for p in pts],
                label=f"{name} (mean {mbps.get(name, 0):.0f} Mbit/s)",
            )
        j = M.jain_index([mbps.get("Cubic", 0.0), mbps.get("Bbr", 0.0)])
        ax.set_title(f"{label}: Jain's index {j:.3f}", fontsize=9)
        ax.set_ylabel("Mbit/s")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")
    axes[-1].set_xlabel("time [s]")
    fig.suptitle(
        f"Seed 004: CUBIC vs BBR, TBF {a.rate}, 20 ms RTT "
        f"(seed at 1 Gbps: 100/850 Mbit/s without SFQ, 500/500 with)",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(a.results / f"sfq_fairness_{tag}.png", dpi=110)
    print(f"wrote {a.results / f'sfq_fairness_{tag}.png'}, {a.results / f'sfq_fairness_{tag}.csv'}")
    return 0
