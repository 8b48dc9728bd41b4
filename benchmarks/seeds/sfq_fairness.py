#!/usr/bin/env python3
"""Seed 004: CUBIC vs BBR through a TBF-shaped bottleneck, without and with a fair scheduler.

Runs build/scenario-sfq-fairness for None (TBF's FIFO), SFQ, FQ-CoDel and MSFC, then writes
RESULTS/sfq_fairness_<rate>.png (throughput of each flow over time per scheduler) and
RESULTS/sfq_fairness_<rate>.csv (+ .md): mean throughput per flow and Jain's index, with the
seed's published numbers beside ours (the seed measured at 1 Gbps).

    python3 benchmarks/seeds/sfq_fairness.py results/seeds                  # 100 Mbps, 60 s (~7 min)
    python3 benchmarks/seeds/sfq_fairness.py results/seeds --rate=1Gbps     # as the seed (~1 h)
"""

from __future__ import annotations

import seedlib

SCHEDULERS = [
    ("no fair scheduler", "None"),
    ("SFQ", "Sfq"),
    ("FQ-CoDel", "FqCoDelVariant"),
    ("MSFC", "Msfc"),
]


def main() -> None:
    ap = seedlib.common_args(__doc__.splitlines()[0])
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
    a = ap.parse_args()
    chosen = [(ln, s) for ln, s in SCHEDULERS if s in a.schedulers]
    if a.quick:
        a.duration = 20.0
    pub = seedlib.published()["seed004"]
    rate_tag = a.rate.replace(" ", "")
    tag = rate_tag + ("" if a.duration == 60.0 else f"-{int(a.duration)}s")

    res = {}
    for label, sched in chosen:
        out = a.results / "runs" / "sfq-fairness" / f"{sched}-{rate_tag}-{int(a.duration)}s"
        seedlib.run(
            a.build_dir,
            "sfq-fairness",
            out,
            {"scheduler": sched, "rate": a.rate, "duration": a.duration, "rng-run": a.rng_run},
            a.reuse,
        )
        data = [r for r in seedlib.flows(out) if r["direction"] == "down" and r["app_id"] != "-1"]
        by_id = {r["flow_id"]: r["type"] for r in data}
        series: dict[str, list[tuple[float, float]]] = {}
        for r in seedlib.read_csv(out / "timeseries.csv"):
            series.setdefault(by_id.get(r["flow_id"], r["flow_id"]), []).append(
                (float(r["time_s"]), float(r["throughput_bps"]) / 1e6)
            )
        mbps = {r["type"]: seedlib.throughput_kbps(r) / 1000 for r in data}
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
                seedlib.jain([mbps.get("Cubic", 0.0), mbps.get("Bbr", 0.0)]),
                seed["Cubic"] if seed else "",
                seed["Bbr"] if seed else "",
                seedlib.jain([seed["Cubic"], seed["Bbr"]]) if seed else "",
            ]
        )
    seedlib.write_table(a.results / f"sfq_fairness_{tag}.csv", header, rows)

    plt = seedlib.plt()
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
        j = seedlib.jain([mbps.get("Cubic", 0.0), mbps.get("Bbr", 0.0)])
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


if __name__ == "__main__":
    main()
