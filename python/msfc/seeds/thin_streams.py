"""Seed 001, section IV: queueing delay of thin TCP streams next to 1-5 bulk TCP flows.

Part A/B (sec. IV-A, IV-B): one gaming flow (100 B every 638 ms) and 1..5 bulk flows; CDF of
the gaming flow's queueing delay at the bottleneck under CoDel, SFQ, FQ-CoDel WP,
FQ-CoDel WP 100 ms, FQ-CoDel and MSFC (thin flow in the bulk flows' class, and in a higher
class; and MSFC with one class, which is FQ-CoDel without new-flow priority like WP).
Part C (sec. IV-C): gaming (600-1000 ms) and VoIP (20-30 ms) flows, cases
(1) 1 gaming + 1 bulk + 1 VoIP, (2) 1 gaming + 1 bulk + 5 VoIP, (3) 1 gaming + 5 bulk + 1 VoIP.

Writes RESULTS/thin_streams_cdf.png, thin_streams.csv (+ .md), thin_streams_voip.png,
thin_streams_voip.csv (+ .md).

    msfc bench seed001-thin-streams results/seeds           # ~15 min
    msfc bench seed001-thin-streams results/seeds --quick   # short runs
    msfc bench seed001-thin-streams results/seeds --only MSFC   # the MSFC rows alone
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .. import bench, seeds
from ..analysis import metrics as M
from ..errors import UserError
from ..sim.runner import load_raw, run_scenario

# MSFC with the sparse-flow boost (docs/algorithm.md, `boost`)
BOOST_ON = {"Msfc.Boost": "on"}
# MSFC with automatic priorities for the unmarked thin and bulk flows (docs/algorithm.md,
# `auto`): no marks needed; alone, and with sparse flows ahead of the class round
AUTO = {"Msfc.Auto": "unmarked"}
AUTO_ACROSS = {"Msfc.Auto": "unmarked", "Msfc.Boost": "across"}
# (label, scheduler, thin-class, scheduler attributes)
SCHEDULERS = [
    ("CoDel", "CoDel", "same", {}),
    ("SFQ", "Sfq", "same", {}),
    ("FQ-CoDel WP", "FqCoDelWP", "same", {}),
    ("FQ-CoDel WP 100ms", "FqCoDelWP100", "same", {}),
    ("FQ-CoDel", "FqCoDelVariant", "same", {}),
    ("MSFC 1 class", "Msfc1", "same", {}),
    ("MSFC, thin in bulk's class", "Msfc", "same", {}),
    ("MSFC, thin in higher class", "Msfc", "higher", {}),
    ("MSFC boost=on, thin in bulk's class", "Msfc", "same", BOOST_ON),
    ("MSFC boost=on, thin in higher class", "Msfc", "higher", BOOST_ON),
    ("MSFC boost=across, thin in bulk's class", "Msfc", "same", {"Msfc.Boost": "across"}),
    ("MSFC auto=unmarked, all unmarked", "Msfc", "same", AUTO),
    ("MSFC auto=unmarked boost=across, all unmarked", "Msfc", "same", AUTO_ACROSS),
]

VOIP_CASES = [
    ("(1) 1 bulk, 1 VoIP", 1, 1),
    ("(2) 1 bulk, 5 VoIP", 1, 5),
    ("(3) 5 bulk, 1 VoIP", 5, 1),
]


def delays_ms(run_dir: Path, types) -> list[float]:
    """Queueing-delay samples (ms) of the downstream flows whose type is in `types`
    (qdelay.csv: one row per packet of the thin flows, docs/data-format.md)."""
    flows = load_raw(run_dir)[0]
    ids = set(flows.loc[flows["type"].isin(types) & (flows["direction"] == "down"), "flow_id"])
    q = pd.read_csv(run_dir / "qdelay.csv")
    return sorted(float(x) * 1000 for x in q.loc[q["flow_id"].isin(ids), "delay_s"])


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    ap = bench.common_args(prog, __doc__.splitlines()[0])
    ap.add_argument(
        "--bulk",
        type=int,
        nargs="+",
        default=[1, 2, 3, 4, 5],
        help="numbers of bulk flows (default 1..5)",
    )
    ap.add_argument("--duration", type=float, default=300.0, help="simulated seconds per run")
    ap.add_argument("--quick", action="store_true", help="bulk 1 3 5, 60 s runs")
    ap.add_argument("--skip-voip", action="store_true", help="only parts A/B")
    ap.add_argument(
        "--only",
        metavar="TEXT",
        help="only the schedulers whose label contains TEXT (e.g. MSFC)",
    )
    a = ap.parse_args(argv)
    scheds = [x for x in SCHEDULERS if a.only is None or a.only in x[0]]
    if not scheds:
        raise UserError(
            f"--only {a.only}: no scheduler label contains it; labels: "
            + ", ".join(x[0] for x in SCHEDULERS),
            2,
        )
    if a.quick:
        a.bulk, a.duration = [1, 3, 5], 60.0
    build = bench.build_dir(a)
    pub = seeds.published()["seed001"]["thin_streams"]

    # Parts A/B
    res = {}
    for label, sched, cls, attrs in scheds:
        for n in a.bulk:
            out = run_scenario(
                build,
                "thin-streams",
                a.results,
                {
                    "scheduler": sched,
                    "thin-class": cls,
                    "bulk-flows": n,
                    "duration": a.duration,
                    **attrs,
                },
                rng_run=a.rng_run,
                force=not a.reuse,
            )
            res[(label, n)] = delays_ms(out, {"Gaming"})
    header = [
        "scheduler",
        "bulk_flows",
        "samples",
        "delay_p50_ms",
        "delay_p90_ms",
        "delay_p99_ms",
        "delay_mean_ms",
        "seed_001",
    ]
    rows = []
    for label, _, _, _ in scheds:
        for n in a.bulk:
            d = res[(label, n)]
            seed = ""
            if label == "SFQ" and n == 5:
                seed = f">= {pub['sfq_thin_delay_with_5_bulk_ms_at_least']} ms (5 x 6 ms)"
            rows.append(
                [
                    label,
                    n,
                    len(d),
                    M.sample_percentile(d, 50),
                    M.sample_percentile(d, 90),
                    M.sample_percentile(d, 99),
                    sum(d) / len(d) if d else float("nan"),
                    seed,
                ]
            )
    seeds.write_table(a.results / "thin_streams.csv", header, rows)

    plt = seeds.pyplot()
    cols = 4
    nrow = (len(scheds) + cols - 1) // cols
    fig, axes = plt.subplots(nrow, cols, figsize=(4 * cols, 3.2 * nrow), sharex=True, sharey=True)
    xmax = max([M.sample_percentile(d, 99) for d in res.values() if d] + [10])
    for ax, (label, _, _, _) in zip(axes.flat, scheds, strict=False):
        for n in a.bulk:
            d = res[(label, n)]
            if d:
                ax.step(
                    d, [(i + 1) / len(d) for i in range(len(d))], where="post", label=f"{n} bulk"
                )
        ax.set_title(label, fontsize=9)
        ax.grid(alpha=0.3)
        ax.set_xlim(0, xmax * 1.05)
    for ax in axes.flat[len(scheds) :]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    for ax in axes[-1]:
        ax.set_xlabel("gaming-flow queueing delay [ms]")
    for ax in axes[:, 0]:
        ax.set_ylabel("CDF")
    fig.suptitle("Seed 001 sec. IV-A/B: thin TCP flow (100 B / 638 ms) vs bulk TCP, 2 Mbps, 100 ms")
    fig.tight_layout()
    fig.savefig(a.results / "thin_streams_cdf.png", dpi=110)
    print(f"wrote {a.results / 'thin_streams_cdf.png'}, {a.results / 'thin_streams.csv'}")
    if a.skip_voip:
        return 0

    # Part C
    vres = {}
    for label, sched, cls, attrs in scheds:
        for case, nb, nv in VOIP_CASES:
            out = run_scenario(
                build,
                "thin-streams",
                a.results,
                {
                    "preset": "voip",
                    "scheduler": sched,
                    "thin-class": cls,
                    "bulk-flows": nb,
                    "voip-flows": nv,
                    "duration": a.duration,
                    **attrs,
                },
                rng_run=a.rng_run,
                force=not a.reuse,
            )
            vres[(label, case)] = (delays_ms(out, {"Gaming"}), delays_ms(out, {"Voip"}))
    header = ["scheduler", "case", "gaming_p50_ms", "gaming_p90_ms", "voip_p50_ms", "voip_p90_ms"]
    rows = []
    for label, _, _, _ in scheds:
        for case, _, _ in VOIP_CASES:
            g, v = vres[(label, case)]
            rows.append(
                [
                    label,
                    case,
                    M.sample_percentile(g, 50),
                    M.sample_percentile(g, 90),
                    M.sample_percentile(v, 50),
                    M.sample_percentile(v, 90),
                ]
            )
    seeds.write_table(a.results / "thin_streams_voip.csv", header, rows)
    fig, axes = plt.subplots(1, len(VOIP_CASES), figsize=(5 * len(VOIP_CASES), 4), sharey=True)
    x = range(len(scheds))
    for ax, (case, _, _) in zip(axes, VOIP_CASES, strict=False):
        g = [M.sample_percentile(vres[(ln, case)][0], 50) for ln, _, _, _ in scheds]
        v = [M.sample_percentile(vres[(ln, case)][1], 50) for ln, _, _, _ in scheds]
        ax.bar([i - 0.2 for i in x], g, width=0.4, label="gaming (median)")
        ax.bar([i + 0.2 for i in x], v, width=0.4, label="VoIP (median)")
        ax.set_xticks(list(x))
        ax.set_xticklabels([ln for ln, _, _, _ in scheds], rotation=60, ha="right", fontsize=7)
        ax.set_title(case, fontsize=9)
        ax.grid(alpha=0.3, axis="y")
    axes[0].set_ylabel("queueing delay [ms]")
    axes[0].legend(fontsize=7)
    fig.suptitle("Seed 001 sec. IV-C: gaming (600-1000 ms) and VoIP (20-30 ms) thin TCP flows")
    fig.tight_layout()
    fig.savefig(a.results / "thin_streams_voip.png", dpi=110)
    print(f"wrote {a.results / 'thin_streams_voip.png'}, {a.results / 'thin_streams_voip.csv'}")
    return 0
