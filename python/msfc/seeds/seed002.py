"""Seed 002 with today's Linux: shaping accuracy of tbf/htb and the minimum-rate guarantee
(HTB vs MSFC), measured with the real qdiscs in the project's User-Mode Linux test kernel.

    make bench-seed002      (= make -C kernel bench-shaping: builds both kernels and tc,
                             then runs this)
    msfc bench seed002 --out results/seeds/seed002 \
        --linux-hz100 kernel/build/uml/linux --linux-hz1000 kernel/build/uml-hz1000/linux

Boots (all in time-travel=inf-cpu mode unless said otherwise; see docs/seeds.md):
  rate accuracy      HZ=100 and HZ=1000 kernels x high-resolution timers on/off;
                     tbf with a one-frame bucket (1514 B), tbf with a 10 KB bucket, htb with
                     tc's default burst; 100 kbit/s .. 10 Mbit/s, UDP, 1400-byte packets
  interference       10 Mbit/s bottleneck, TCP (application rate 1.5 Mbit/s, 1 Mbit/s
                     guaranteed) + UDP flood of 2..12 Mbit/s: fifo, htb, msfc; HZ=100 with
                     high-res timers on and off; the 12 Mbit/s case once more in real time
Outputs in --out: rate_accuracy.csv (every boot, tidy), rate_accuracy_table.csv/.md (time
travel boots, with the tick model and the seed's Figure 14), rate_accuracy_realtime.csv/.md,
interference_summary.csv (+ interference_summary_table.csv/.md), interference_timeseries.csv,
figures rate_accuracy.png, interference_timeseries.png, interference_timeseries_lowres.png,
interference_vs_flood.png, raw/*.json (every boot's result) and raw/*.log.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from .. import seeds
from ..errors import UserError
from ..sim.programs import _package_repo_root
from . import shaping_metrics as sm

RATES = [100_000 * k for k in range(1, 10)] + [
    1_000_000,
    1_100_000,
    1_200_000,
    2_000_000,
    5_000_000,
    10_000_000,
]
SHAPERS = [
    {"name": "tbf-mtu", "kind": "tbf", "burst": 1514},
    {"name": "tbf-10k", "kind": "tbf", "burst": 10240},
    {"name": "htb", "kind": "htb"},
]
SHAPER_LABEL = {
    "tbf-mtu": "tbf, bucket 1514 B (one frame)",
    "tbf-10k": "tbf, bucket 10 KB",
    "htb": "htb, tc's default burst",
}
SCHED_LABEL = {
    "fifo": "no scheduler (FIFO)",
    "htb": "HTB (TCP class rate 1 Mbit, prio 0)",
    "msfc": "MSFC (TCP top class, flood class 0)",
}


def rate_exp(quick: bool) -> dict:
    # warm-up: a 10 KB bucket drains at (offer - 1) x rate, 1.6 s at 100 kbit/s
    return {
        "experiment": "rate",
        "duration": 7 if quick else 11,
        "warmup": 2 if quick else 3,
        "offer": 1.5,
        "shapers": SHAPERS,
        "rates": RATES[::3] if quick else RATES,
    }


def interference_exp(floods, quick: bool) -> dict:
    if quick:
        return {
            "experiment": "interference",
            "schedulers": ["fifo", "htb", "msfc"],
            "flood_mbit": floods,
            "link_mbit": 10,
            "guarantee_mbit": 1,
            "tcp_mbit": 1.5,
            "duration": 14,
            "flood_start": 3,
            "flood_end": 10,
            "bin": 0.1,
        }
    return {
        "experiment": "interference",
        "schedulers": ["fifo", "htb", "msfc"],
        "flood_mbit": floods,
        "link_mbit": 10,
        "guarantee_mbit": 1,
        "tcp_mbit": 1.5,
        "duration": 22,
        "flood_start": 5,
        "flood_end": 15,
        "bin": 0.1,
    }


def boots(a) -> list[dict]:
    """(name, kernel, hz, highres, time travel, experiments) of every boot of the benchmark."""
    floods = [4, 12] if a.quick else [2, 4, 6, 8, 10, 12]
    out = [
        (
            "hz100-highres",
            a.linux_hz100,
            100,
            "on",
            "inf-cpu",
            [rate_exp(a.quick), interference_exp(floods, a.quick)],
        ),
        (
            "hz100-lowres",
            a.linux_hz100,
            100,
            "off",
            "inf-cpu",
            [rate_exp(a.quick), interference_exp(floods, a.quick)],
        ),
    ]
    if a.linux_hz1000:
        out += [
            ("hz1000-highres", a.linux_hz1000, 1000, "on", "inf-cpu", [rate_exp(a.quick)]),
            ("hz1000-lowres", a.linux_hz1000, 1000, "off", "inf-cpu", [rate_exp(a.quick)]),
        ]
    if not a.skip_realtime:
        # the same kernel in real time, on whatever else the host is running: how much of
        # the accuracy survives timer latency (one-frame bucket vs htb) and the 12 Mbit/s case
        rt_rate = {
            "experiment": "rate",
            "duration": 7,
            "warmup": 2,
            "offer": 1.5,
            "shapers": [SHAPERS[0], SHAPERS[2]],
            "rates": [500_000, 1_000_000, 2_000_000, 5_000_000],
        }
        out.append(
            (
                "hz100-highres-realtime",
                a.linux_hz100,
                100,
                "on",
                "off",
                [rt_rate, interference_exp([12], True)],
            )
        )
    return out


def seed_points(pub: dict) -> list[tuple[float, float, str]]:
    """Seed Figure 14 as far as its text gives numbers: (configured, achieved or bound, kind)."""
    t = pub["tbf_rate_accuracy"]["jiffies_hz100"]
    pts = [(k * 1e3, k * 1e3, "=") for k in range(100, t["exact_up_to_kbps"] + 1, 100)]
    pts += [(float(k) * 1e3, v * 1e3, "<") for k, v in t["achieved_below_kbps"].items()]
    return pts


def rate_figure(rows: list[dict], pub: dict, path: Path) -> None:
    plt = seeds.pyplot()
    setups = sorted({(r["hz"], r["highres"]) for r in rows}, key=lambda s: (s[1] == "on", s[0]))
    n = len(setups)
    cols = 2 if n > 1 else 1
    nrows = (n + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(6 * cols, 4.6 * nrows), squeeze=False)
    for ax, (hz, hr) in zip(axes.flat, setups, strict=False):
        sub = [r for r in rows if r["hz"] == hz and r["highres"] == hr]
        lim = max(r["configured_bps"] for r in sub) / 1e6
        ax.plot([0.05, lim * 1.1], [0.05, lim * 1.1], color="0.7", lw=1, label="configured")
        for name, mk in (("tbf-mtu", "o"), ("tbf-10k", "s"), ("htb", "^")):
            pts = sorted(
                (r["configured_bps"] / 1e6, r["achieved_bps"] / 1e6)
                for r in sub
                if r["shaper"] == name
            )
            if pts:
                ax.plot(*zip(*pts, strict=False), marker=mk, ms=4, lw=1, label=SHAPER_LABEL[name])
        if hr == "off":
            for name in ("tbf-mtu", "tbf-10k"):
                pts = sorted(
                    (r["configured_bps"], r["burst_bytes"]) for r in sub if r["shaper"] == name
                )
                ax.plot(
                    [x / 1e6 for x, _ in pts],
                    [sm.tbf_tick_rate(x, hz, b) / 1e6 for x, b in pts],
                    ":",
                    color="k",
                    lw=1,
                    label="tick model of tbf (sch_tbf tokens, watchdog on the tick)"
                    if name == "tbf-mtu"
                    else None,
                )
        if hz == 100 and hr == "off":
            sp = seed_points(pub)
            ax.scatter(
                [p[0] / 1e6 for p in sp if p[2] == "="],
                [p[1] / 1e6 for p in sp if p[2] == "="],
                marker="x",
                color="red",
                zorder=5,
                label="seed Fig. 14 (HZ=100): met",
            )
            ax.scatter(
                [p[0] / 1e6 for p in sp if p[2] == "<"],
                [p[1] / 1e6 for p in sp if p[2] == "<"],
                marker="v",
                color="red",
                zorder=5,
                label="seed Fig. 14: below this",
            )
        if hz == 1000 and hr == "off":
            ax.scatter(
                [2.0],
                [1.9],
                marker="v",
                color="red",
                zorder=5,
                label="seed Fig. 15 (HZ=1024): 2 Mbit/s -> 1.9",
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"HZ={hz}, high-resolution timers {hr}", fontsize=10)
        ax.set_xlabel("configured rate (Mbit/s)")
        ax.set_ylabel("achieved rate (Mbit/s)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.suptitle(
        "Rate limiting accuracy, Linux 6.12 (UML, time-travel=inf-cpu), 1400-byte UDP packets",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def rate_table(rows: list[dict], pub: dict, path: Path) -> None:
    """Achieved kbit/s per configured rate: one column per (timer set-up, shaper), the tick
    model of tbf with a one-frame bucket at HZ=100, and what the seed's text says (Fig. 14)."""
    setups = sorted({(r["hz"], r["highres"]) for r in rows}, key=lambda s: (s[1] == "on", s[0]))
    cols = [(hz, hr, sh["name"]) for hz, hr in setups for sh in SHAPERS]
    idx = {(r["hz"], r["highres"], r["shaper"], r["configured_bps"]): r for r in rows}
    header = (
        ["configured kbit/s"]
        + [f"HZ={hz} hr {hr}: {s}" for hz, hr, s in cols]
        + ["tick model HZ=100, 1514 B", "seed Fig. 14 (HZ=100)"]
    )
    out = []
    for rate in sorted({r["configured_bps"] for r in rows}):
        line = [f"{rate / 1e3:g}"]
        for hz, hr, s in cols:
            r = idx.get((hz, hr, s, rate))
            line.append(f"{r['achieved_bps'] / 1e3:.0f}" if r else "")
        line.append(f"{sm.tbf_tick_rate(rate, 100, 1514) / 1e3:.0f}")
        line.append(seed_fig14(rate, pub))
        out.append(line)
    seeds.write_table(path, header, out)


def seed_fig14(rate: float, pub: dict) -> str:
    """What the seed's text says of a configured rate (bit/s) in its Figure 14 (HZ=100,
    jiffies): "met", "< N" (kbit/s) or nothing."""
    seed = pub["tbf_rate_accuracy"]["jiffies_hz100"]
    k = f"{rate / 1e3:g}"
    if rate <= seed["exact_up_to_kbps"] * 1e3:
        return "met"
    if k in seed["achieved_below_kbps"]:
        return f"< {seed['achieved_below_kbps'][k]}"
    return ""


def interference_figures(series: list[dict], summary: list[dict], spec: dict, out: Path) -> None:
    plt = seeds.pyplot()
    fs, fe, g = spec["flood_start"], spec["flood_end"], spec["guarantee_mbit"]
    for hr in sorted({r["highres"] for r in series}):
        sub = [r for r in series if r["highres"] == hr and r["flood_mbit"] == 12]
        if not sub:
            continue
        fig, axes = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
        for ax, sched in zip(axes, ("fifo", "htb", "msfc"), strict=False):
            pts = [r for r in sub if r["scheduler"] == sched]
            ax.axvspan(fs, fe, color="orange", alpha=0.12, label="12 Mbit/s UDP flood")
            ax.plot(
                [r["t_s"] for r in pts],
                [r["flood_rx_mbit"] for r in pts],
                color="tab:orange",
                lw=0.8,
                label="flood delivered",
            )
            ax.plot(
                [r["t_s"] for r in pts],
                [r["tcp_mbit"] for r in pts],
                color="tab:blue",
                lw=1,
                label="TCP delivered (100 ms bins)",
            )
            ax.axhline(g, color="k", ls="--", lw=0.8, label="guarantee 1 Mbit/s")
            ax.set_ylim(0, 11)
            ax.set_ylabel("Mbit/s")
            ax.set_title(SCHED_LABEL[sched], fontsize=10)
            ax.legend(fontsize=7, loc="upper right")
        axes[-1].set_xlabel("time (s)")
        fig.suptitle(
            f"TCP (1.5 Mbit/s application rate) vs UDP flood through 10 Mbit/s, "
            f"HZ=100, high-res timers {hr}",
            fontsize=10,
        )
        fig.tight_layout()
        fig.savefig(out / f"interference_timeseries{'' if hr == 'on' else '_lowres'}.png", dpi=110)
        plt.close(fig)

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for sched, mk in (("fifo", "o"), ("htb", "s"), ("msfc", "^")):
        for hr, ls in (("on", "-"), ("off", ":")):
            pts = sorted(
                (r["flood_mbit"], r["tcp_during_mbit"], r["intervals_below_guarantee"])
                for r in summary
                if r["scheduler"] == sched and r["highres"] == hr and r["time_travel"] == "inf-cpu"
            )
            if not pts:
                continue
            lab = f"{sched}, high-res {hr}"
            axes[0].plot([p[0] for p in pts], [p[1] for p in pts], marker=mk, ls=ls, label=lab)
            axes[1].plot([p[0] for p in pts], [p[2] for p in pts], marker=mk, ls=ls, label=lab)
    axes[0].axhline(g, color="k", ls="--", lw=0.8)
    axes[0].set_ylabel("TCP during the flood (Mbit/s)")
    axes[1].set_ylabel(f"100 ms intervals below {g} Mbit/s (of {int((fe - fs) * 10)})")
    for ax in axes:
        ax.set_xlabel("UDP flood (Mbit/s)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "interference_vs_flood.png", dpi=110)
    plt.close(fig)


def kernel_dir(explicit: Path | None) -> Path:
    """The kernel/ directory of the source tree (its scripts boot the UML kernel)."""
    if explicit:
        d = Path(explicit)
    else:
        root = _package_repo_root()
        d = root / "kernel" if root else Path("kernel")
    if not (d / "scripts" / "shaping_boot.py").is_file():
        raise UserError(
            f"{d / 'scripts' / 'shaping_boot.py'} not found: run from the source tree or pass "
            f"--kernel-dir (the source tree's kernel/ directory)"
        )
    return d.resolve()


def boot(kdir: Path, linux, hz, highres, time_travel, spec: dict, out: Path) -> dict:
    """One boot of the UML kernel running the experiments of `spec`
    (kernel/scripts/shaping_boot.py); returns its result."""
    spec_path = out.with_suffix(".spec.json")
    spec_path.write_text(json.dumps(spec))
    argv = [
        sys.executable,
        str(kdir / "scripts" / "shaping_boot.py"),
        f"--linux={linux}",
        f"--hz={hz}",
        f"--highres={highres}",
        f"--time-travel={time_travel}",
        f"--spec={spec_path}",
        f"--out={out}",
        "--timeout=3600",
    ]
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    spec_path.unlink()
    if proc.returncode != 0:
        raise UserError(
            f"seed002: the boot failed (exit {proc.returncode}): {' '.join(argv)}\n"
            + proc.stderr.strip(),
            1,
        )
    return json.loads(out.read_text())


#: columns of the guarantee table (interference_summary_table)
SUMMARY_KEYS = [
    "hz",
    "highres",
    "time_travel",
    "scheduler",
    "flood_mbit",
    "tcp_before_mbit",
    "tcp_during_mbit",
    "tcp_after_mbit",
    "tcp_min_100ms_mbit",
    "intervals_below_guarantee",
    "intervals_empty",
    "intervals",
    "longest_gap_s",
    "flood_delivered_mbit",
]


def read_rows(path: Path) -> list[dict]:
    """A tidy CSV (rate_accuracy.csv, interference_summary.csv) with its numbers as numbers."""
    with open(path, newline="") as f:
        return [{k: seeds.cell(v) for k, v in r.items()} for r in csv.DictReader(f)]


def write_tables(out: Path, pub: dict) -> tuple[list[dict], list[dict]]:
    """The derived tables (rate_accuracy_table, rate_accuracy_realtime,
    interference_summary_table: CSV and Markdown) from the tidy rate_accuracy.csv and
    interference_summary.csv in `out`. Returns the time-travel rate rows and the summary rows."""
    rate_all = read_rows(out / "rate_accuracy.csv")
    rate = [r for r in rate_all if r["time_travel"] == "inf-cpu"]
    realtime = [r for r in rate_all if r["time_travel"] != "inf-cpu"]
    if realtime:
        seeds.write_table(
            out / "rate_accuracy_realtime.csv",
            ["shaper", "configured kbit/s", "achieved kbit/s", "ratio"],
            [
                [
                    r["shaper"],
                    f"{r['configured_bps'] / 1e3:g}",
                    f"{r['achieved_bps'] / 1e3:.0f}",
                    r["ratio"],
                ]
                for r in realtime
            ],
        )
    rate_table(rate, pub, out / "rate_accuracy_table.csv")
    inter = read_rows(out / "interference_summary.csv")
    seeds.write_table(
        out / "interference_summary_table.csv",
        SUMMARY_KEYS,
        [[r[k] for k in SUMMARY_KEYS] for r in inter],
    )
    return rate, inter


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog=prog, description=__doc__.split("\n\n")[0], allow_abbrev=False
    )
    ap.add_argument("--out", type=Path, required=True, help="results directory (created)")
    ap.add_argument("--linux-hz100", help="UML kernel built with HZ=100 (make -C kernel kernel)")
    ap.add_argument(
        "--linux-hz1000", help="UML kernel built with HZ=1000 (make -C kernel kernel-hz1000)"
    )
    ap.add_argument("--quick", action="store_true", help="fewer rates and floods, shorter runs")
    ap.add_argument("--reuse", action="store_true", help="keep boots whose raw result exists")
    ap.add_argument(
        "--skip-realtime",
        action="store_true",
        help="skip the real-time (no time travel) cross-check boot",
    )
    ap.add_argument(
        "--kernel-dir",
        type=Path,
        help="the source tree's kernel/ directory (default: the one this package is in)",
    )
    ap.add_argument(
        "--from-csv",
        action="store_true",
        help="boot nothing: redraw the tables and figures from the tidy CSVs already in --out "
        "(rate_accuracy.csv, interference_summary.csv, interference_timeseries.csv)",
    )
    a = ap.parse_args(argv)
    pub = seeds.published()["seed002"]
    if a.from_csv:
        return redraw(a.out, pub, a.quick)
    if not a.linux_hz100:
        raise UserError("--linux-hz100 is needed to boot (or --from-csv to redraw only)")
    kdir = kernel_dir(a.kernel_dir)
    for opt, linux in (("--linux-hz100", a.linux_hz100), ("--linux-hz1000", a.linux_hz1000)):
        if linux and not os.access(linux, os.X_OK):
            raise UserError(
                f"{opt} {linux}: no UML kernel there; build it first (make -C kernel kernel, "
                f"make -C kernel kernel-hz1000 for HZ=1000)"
            )
    raw = a.out / "raw"
    raw.mkdir(parents=True, exist_ok=True)

    results = []
    for name, linux, hz, hr, tt, exps in boots(a):
        path = raw / f"{name}.json"
        if a.reuse and path.exists():
            res = json.load(open(path))
            if res.get("ok") and "boot" in res:
                print(f"seed002: reusing {path}", flush=True)
                results.append(res)
                continue
        print(f"seed002: boot {name} (HZ={hz}, high-res timers {hr}, time travel {tt})", flush=True)
        res = boot(kdir, linux, hz, hr, tt, {"label": name, "experiments": exps}, path)
        print(f"seed002: boot {name} took {res['boot']['wall_s']} s", flush=True)
        results.append(res)

    series = [
        r
        for res in results
        if res["boot"]["time_travel"] == "inf-cpu"
        for r in sm.interference_series(res)
    ]
    seeds.write_rows(a.out / "rate_accuracy.csv", [r for res in results for r in sm.rate_rows(res)])
    seeds.write_rows(
        a.out / "interference_summary.csv",
        [r for res in results for r in sm.interference_rows(res)],
    )
    seeds.write_rows(a.out / "interference_timeseries.csv", series)
    return redraw(a.out, pub, a.quick)


def redraw(out: Path, pub: dict, quick: bool) -> int:
    """Tables and figures from the tidy CSVs in `out`; prints the two main tables."""
    missing = [
        n
        for n in ("rate_accuracy.csv", "interference_summary.csv", "interference_timeseries.csv")
        if not (out / n).is_file()
    ]
    if missing:
        raise UserError(
            f"{out} lacks {', '.join(missing)}: run the boots first (without --from-csv)"
        )
    rate, inter = write_tables(out, pub)
    rate_figure(rate, pub, out / "rate_accuracy.png")
    series = read_rows(out / "interference_timeseries.csv")
    interference_figures(series, inter, interference_exp([], quick), out)
    print("\nRate accuracy (achieved kbit/s):")
    print((out / "rate_accuracy_table.md").read_text())
    print("Minimum-rate guarantee (TCP, guaranteed 1 Mbit/s):")
    print((out / "interference_summary_table.md").read_text())
    print(f"seed002: outputs in {out}")
    return 0
