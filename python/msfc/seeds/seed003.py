"""Seed 003: weighted class scheduling with WRED or rate-based AQM (RB), and MSFC.

Runs build/scenario-class-aqm for the seed's three scenarios and writes, in RESULTS:

- seed003_s1_rates.png, seed003_s1_backlog.png, seed003_s1.csv (+ .md): scenario 1, four TCP
  classes switched on and off: per-class rate over time against the W-proportional share,
  aggregate backlog over time, per phase; RB (WfqRb), WRED q=10 (WfqWred), MSFC.
- seed003_s2_rates.png, seed003_s2.csv (+ .md): scenario 2, UDP + TCP classes.
- seed003_s3.png, seed003_s3.csv (+ .md): scenario 3, goodput of the real-time class
  delivered within 50 ms of queueing delay against its number of sessions, for WRED
  q = 5/10/20, RB u = 0.8/0.85 and MSFC.
- seed003_wall.csv: wall time of every simulation.

    msfc bench seed003 results/seeds            # the seed's runs (~10 min)
    msfc bench seed003 results/seeds --quick    # the test presets (~1 min)
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from .. import bench, seeds
from ..sim.config import parse_datarate
from ..sim.runner import run_scenario

SCENARIO = "class-aqm"

# Scenario 1 and 2: (label, scheduler, extra options)
S12 = [
    ("RB + WFQ", "WfqRb", {}),
    ("WRED (q=10) + WFQ", "WfqWred", {"wred-q": 10}),
    ("MSFC (4 classes, ratio 2)", "Msfc", {}),
]
# Scenario 3
S3 = [
    ("WRED5", "WfqWred", {"wred-q": 5}),
    ("WRED10", "WfqWred", {"wred-q": 10}),
    ("WRED20", "WfqWred", {"wred-q": 20}),
    ("RB80", "WfqRb", {"rb-u": "0.95,0.8"}),
    ("RB85", "WfqRb", {"rb-u": "0.95,0.85"}),
    ("MSFC (2 classes, ratio 1)", "Msfc", {}),
]


def timeseries(run_dir: Path) -> list[dict]:
    """class_timeseries.csv: one row per class and sample."""
    df = pd.read_csv(run_dir / "class_timeseries.csv")
    types = dict.fromkeys(("time_s", "offered_bps", "rate_bps", "deadline_bps", "aqm_p"), float)
    types.update(dict.fromkeys(("class", "active_sources", "drops", "backlog_packets"), int))
    return df.astype(types).to_dict("records")


def backlog(run_dir: Path) -> tuple[list[float], list[float]]:
    df = pd.read_csv(run_dir / "backlog.csv")
    return [float(x) for x in df["time_s"]], [float(x) for x in df["backlog_packets"]]


def config(run_dir: Path) -> dict:
    return json.loads((run_dir / "meta.json").read_text())["config"]


def numbers(text: str) -> list[float]:
    return [float(x) for x in str(text).split(",")]


def phases(cfg: dict) -> list[tuple[float, float]]:
    """Intervals between consecutive class start/stop times."""
    edges = sorted(
        set(
            numbers(cfg["class-start"]) + numbers(cfg["class-stop"]) + [0.0, float(cfg["duration"])]
        )
    )
    return [(a, b) for a, b in zip(edges, edges[1:], strict=False) if b > a]


def expected_shares(cfg: dict, t: float, offered: dict[int, float]) -> dict[int, float]:
    """W-proportional max-min shares (bit/s) of the classes active at t; a class offering
    less than its share (UDP) keeps its rate and leaves the rest to the others."""
    w = numbers(cfg["weights"])
    start, stop = numbers(cfg["class-start"]), numbers(cfg["class-stop"])
    link = parse_datarate(cfg["bottleneck-rate"])
    active = [c for c in range(len(w)) if start[c] <= t < stop[c]]
    share: dict[int, float] = {}
    left, todo = link, list(active)
    while todo:
        total_w = sum(w[c] for c in todo)
        capped = [c for c in todo if c in offered and offered[c] < left * w[c] / total_w]
        if not capped:
            for c in todo:
                share[c] = left * w[c] / total_w
            break
        for c in capped:
            share[c] = offered[c]
            left -= offered[c]
            todo.remove(c)
    return share


def phase_table(runs: dict[str, Path], udp_offered=None) -> tuple[list, list]:
    """One row per scheduler and phase (an interval with a fixed set of active classes,
    its first 5 s left out): mean rate of every seed class, its W-proportional share of the
    link (max-min: a UDP class sending less keeps its rate), the largest deviation from the
    shares, the mean aggregate backlog and the utilisation."""
    first = next(iter(runs.values()))
    n = int(config(first)["classes"])
    header = (
        ["scheduler", "phase_s"]
        + [f"class{k}_kbps" for k in range(1, n + 1)]
        + [f"class{k}_share_kbps" for k in range(1, n + 1)]
        + ["max_dev_from_share", "mean_backlog_pkts", "utilisation"]
    )
    rows = []
    for label, out in runs.items():
        cfg = config(out)
        ts = timeseries(out)
        bt, bb = backlog(out)
        link = parse_datarate(cfg["bottleneck-rate"])
        offered = udp_offered(cfg) if udp_offered else {}
        for a, b in phases(cfg):
            lo = a + min(5.0, (b - a) / 4)
            sel = [r for r in ts if lo < r["time_s"] <= b]
            if not sel:
                continue
            shares = expected_shares(cfg, (a + b) / 2, offered)
            nt = len({r["time_s"] for r in sel})
            rate = {c: sum(r["rate_bps"] for r in sel if r["class"] == c) / nt for c in range(n)}
            bsel = [v for t, v in zip(bt, bb, strict=False) if lo < t <= b]
            dev = max(
                (abs(rate[c] / shares[c] - 1) for c in shares if shares[c] > 0),
                default=float("nan"),
            )
            # seed class k is class n - k
            rows.append(
                [label, f"{a:g}-{b:g}"]
                + [rate[n - k] / 1e3 for k in range(1, n + 1)]
                + [shares.get(n - k, 0.0) / 1e3 for k in range(1, n + 1)]
                + [dev, sum(bsel) / len(bsel) if bsel else float("nan"), sum(rate.values()) / link]
            )
    return header, rows


def seed_class(cfg: dict, c: int) -> int:
    return int(cfg["classes"]) - c


def plot_rates(runs: dict[str, Path], path: Path, title: str) -> None:
    plt = seeds.pyplot()
    fig, axes = plt.subplots(len(runs), 1, figsize=(8, 2.6 * len(runs)), sharex=True)
    for ax, (label, out) in zip(axes, runs.items(), strict=False):
        cfg = config(out)
        ts = timeseries(out)
        for c in sorted({r["class"] for r in ts}, reverse=True):
            t = [r["time_s"] for r in ts if r["class"] == c]
            v = [r["rate_bps"] / 1e3 for r in ts if r["class"] == c]
            ax.plot(t, v, label=f"class {seed_class(cfg, c)} (W={numbers(cfg['weights'])[c]:g} B)")
        ax.set_ylabel("kbit/s")
        ax.set_title(label, fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, ncol=4)
    axes[-1].set_xlabel("time [s]")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_backlog(runs: dict[str, Path], path: Path, title: str) -> None:
    plt = seeds.pyplot()
    fig, axes = plt.subplots(len(runs), 1, figsize=(8, 2.4 * len(runs)), sharex=True, sharey=True)
    for ax, (label, out) in zip(axes, runs.items(), strict=False):
        t, b = backlog(out)
        ax.plot(t, b, lw=0.4, color="tab:blue", label="backlog")
        # running mean over about 300 packet times (the seed's thick line)
        cfg = config(out)
        pkt_s = 8000 / parse_datarate(cfg["bottleneck-rate"])
        dt = t[1] - t[0] if len(t) > 1 else 1
        k = max(1, int(round(300 * pkt_s / dt)))
        avg = [
            sum(b[max(0, i - k + 1) : i + 1]) / len(b[max(0, i - k + 1) : i + 1])
            for i in range(len(b))
        ]
        ax.plot(t, avg, lw=2, color="black", label="mean over ~300 packets")
        ax.set_ylabel("packets")
        ax.set_title(label, fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    axes[-1].set_xlabel("time [s]")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def s3_points(out: Path, rt_class: int = 1) -> list[tuple[int, float, float]]:
    """(sessions, Mbit/s within the deadline, Mbit/s served) of the real-time class per sample."""
    return [
        (r["active_sources"], r["deadline_bps"] / 1e6, r["rate_bps"] / 1e6)
        for r in timeseries(out)
        if r["class"] == rt_class
    ]


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    ap = bench.common_args(prog, __doc__.splitlines()[0])
    ap.add_argument(
        "--quick",
        action="store_true",
        help="the programs' short test presets instead of the seed's runs",
    )
    ap.add_argument(
        "--only",
        choices=["s1", "s2", "s3"],
        nargs="+",
        default=["s1", "s2", "s3"],
        help="scenarios to run",
    )
    a = ap.parse_args(argv)
    build = bench.build_dir(a)
    suffix = "-test" if a.quick else ""
    pub = seeds.published()["seed003"]
    wall = []

    def go(preset: str, label: str, sched: str, extra: dict) -> Path:
        out = run_scenario(
            build,
            SCENARIO,
            a.results,
            {"preset": preset + suffix, "scheduler": sched, **extra},
            rng_run=a.rng_run,
            force=not a.reuse,
        )
        meta = json.loads((out / "meta.json").read_text())
        wall.append(
            [preset + suffix, label, meta["wall_seconds"], meta["sim_seconds"], meta["events"]]
        )
        return out

    a.results.mkdir(parents=True, exist_ok=True)
    if "s1" in a.only:
        runs = {label: go("s1", label, s, x) for label, s, x in S12}
        plot_rates(
            runs,
            a.results / "seed003_s1_rates.png",
            "Seed 003 scenario 1: per-class rate (1 s bins), W = 8001/4001/2001/1001",
        )
        plot_backlog(
            runs,
            a.results / "seed003_s1_backlog.png",
            "Seed 003 scenario 1: aggregate backlog (seed Fig. 5 RB, Fig. 7 WRED)",
        )
        h, rows = phase_table(runs)
        seeds.write_table(a.results / "seed003_s1.csv", h, rows)

    if "s2" in a.only:
        runs = {label: go("s2", label, s, x) for label, s, x in S12}
        plot_rates(
            runs,
            a.results / "seed003_s2_rates.png",
            "Seed 003 scenario 2: UDP 0.8 Mbps (class 1), TCP (2, 3), UDP 0.05 Mbps (4)",
        )

        def udp(cfg):
            kinds = cfg["class-kind"].split(",")
            rates = numbers(cfg["class-udp-mbps"])
            return {c: rates[c] * 1e6 for c, k in enumerate(kinds) if k == "udp"}

        h, rows = phase_table(runs, udp)
        seeds.write_table(a.results / "seed003_s2.csv", h, rows)

    if "s3" in a.only:
        runs = {label: go("s3", label, s, x) for label, s, x in S3}
        plt = seeds.pyplot()
        fig, ax = plt.subplots(figsize=(7.5, 4.5))
        header = [
            "scheduler",
            "sessions",
            "rt_within_deadline_mbps",
            "rt_served_mbps",
            "bulk_served_mbps",
        ]
        rows = []
        bins = list(range(50, 451, 50)) if not a.quick else list(range(20, 121, 20))
        for label, out in runs.items():
            pts = s3_points(out, 1)
            bulk = [r["rate_bps"] / 1e6 for r in timeseries(out) if r["class"] == 0]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            ax.plot(xs, ys, marker=".", lw=1, label=label)
            for lo, hi in zip(bins, bins[1:], strict=False):
                sel = [i for i, p in enumerate(pts) if lo <= p[0] < hi]
                if sel:
                    rows.append(
                        [
                            label,
                            f"{lo}-{hi}",
                            sum(pts[i][1] for i in sel) / len(sel),
                            sum(pts[i][2] for i in sel) / len(sel),
                            sum(bulk[i] for i in sel) / len(sel),
                        ]
                    )
        ax.axhline(1.0, color="grey", ls=":", label="class 1's guaranteed 1 Mbps")
        ax.set_xlabel("real-time TCP sessions (class 1)")
        ax.set_ylabel("Mbit/s delivered within 50 ms queueing delay")
        ax.set_title(
            "Seed 003 scenario 3 (seed Fig. 9): 2 Mbps, class 1 real time vs 8 bulk TCP", fontsize=9
        )
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(a.results / "seed003_s3.png", dpi=120)
        plt.close(fig)
        seeds.write_table(a.results / "seed003_s3.csv", header, rows)

    seeds.write_table(
        a.results / "seed003_wall.csv", ["preset", "scheduler", "wall_s", "sim_s", "events"], wall
    )
    print("seed 003 findings (text):", "; ".join(pub["findings"].values()))
    print(f"Output: {a.results}/seed003_*.png, seed003_*.csv (+ .md)")
    return 0
