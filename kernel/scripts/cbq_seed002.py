"""Seed 002 with CBQ: the rate-accuracy and minimum-rate-guarantee experiments in the Linux 5.10
UML kernel with CBQ (build/uml-5.10, `make -C kernel kernel-5.10`), beside HTB (and, for the
rates, tbf) in the same kernel.

    python -m scripts.cbq_seed002 LINUX OUT_DIR          the benchmark (bench-shaping-5.10)
    python -m scripts.cbq_seed002 --check LINUX OUT_DIR  the short check (shaping-test-5.10)

The benchmark boots the kernel three times in time-travel=inf-cpu mode and once in real time:
high-resolution timers on and off (HZ=100, UML's only value in 5.10) with the rate sweep of
`msfc bench seed002` (cbq, htb, tbf with a one-frame bucket at 0.1-10 Mbit/s) and the
interference runs (fifo, htb, cbq; TCP guaranteed 1 Mbit/s under 8, 10, 12 Mbit/s floods
through 10 Mbit/s), and in real time a short rate sweep and the 12 Mbit/s flood.  It writes
rate_accuracy.csv, interference_summary.csv (tidy, msfc.seeds.shaping_metrics' rows),
multiflow_summary.csv (the seed's Figures 17/18 setting, both time-travel boots: UDP flows
each in a class at its guarantee, one of them of small packets, then a 5 Mbit/s flow in a
2 Mbit/s class), tables.md and raw/ (each boot's result JSON and log).

The check (one time-travel boot, high-resolution timers, about 1 minute): cbq shapes 0.5, 1
and 2 Mbit/s within 2 %, and under a 12 Mbit/s flood through 10 Mbit/s the TCP flow in the
1 Mbit/s CBQ class keeps >= 0.9 Mbit/s with no empty 100 ms interval and no gap over 0.3 s.
Run it with the project's venv python (msfc.seeds.shaping_metrics).
"""

import argparse
import csv
import os
import sys

from msfc.seeds import shaping_metrics as sm

from . import shaping_boot

HZ = 100
RATES = (
    [100_000 * k for k in range(1, 10)]
    + [1_000_000 + 100_000 * k for k in range(0, 3)]
    + [2_000_000, 5_000_000, 10_000_000]
)
SHAPERS = [
    {"name": "cbq", "kind": "cbq"},
    {"name": "htb", "kind": "htb"},
    {"name": "tbf-mtu", "kind": "tbf", "burst": 1514},
]


def rate_exp(rates, shapers, duration=11, warmup=3):
    return {
        "experiment": "rate",
        "duration": duration,
        "warmup": warmup,
        "offer": 1.5,
        "shapers": shapers,
        "rates": rates,
    }


def interference_exp(schedulers, floods, duration=22, flood_start=5, flood_end=15):
    return {
        "experiment": "interference",
        "schedulers": schedulers,
        "flood_mbit": floods,
        "link_mbit": 10,
        "guarantee_mbit": 1,
        "tcp_mbit": 1.5,
        "duration": duration,
        "flood_start": flood_start,
        "flood_end": flood_end,
        "bin": 0.1,
    }


# Seed Figures 17/18: three UDP flows join one by one, each in a class at its guarantee
# (borrowing allowed), then a 5 Mbit/s flow in a 2 Mbit/s class; C sends 100-byte IP packets.
MULTIFLOW = {
    "experiment": "multiflow",
    "schedulers": ["cbq", "htb"],
    "link_mbit": 10,
    "duration": 20,
    "bin": 0.1,
    "flows": [
        {"name": "A", "mbit": 1.5, "ip_len": 1400, "class_mbit": 2, "start": 0, "stop": 20},
        {"name": "B", "mbit": 1.0, "ip_len": 1400, "class_mbit": 0.5, "start": 2, "stop": 20},
        {"name": "C", "mbit": 2.0, "ip_len": 100, "class_mbit": 2, "start": 4, "stop": 20},
        {"name": "D", "mbit": 5.0, "ip_len": 1400, "class_mbit": 2, "start": 8, "stop": 16},
    ],
}


def multiflow_rows(res):
    """One row per (scheduler, flow) of the multiflow runs: frame Mbit/s in the 3 s before the
    last flow starts and while it runs, and the lowest 100 ms interval while it runs."""
    b = res["boot"]
    rows = []
    for exp in sm.experiments(res, "multiflow"):
        s = exp["spec"]
        binw = s.get("bin", 0.1)
        last = s["flows"][-1]
        i_b, i_s, i_e = (
            int(round(x / binw)) for x in (last["start"] - 3, last["start"], last["stop"])
        )
        for run in exp["runs"]:
            for f in s["flows"]:
                bins = run["flows"][f["name"]]["bins"]
                mbit = [x * 8 / binw / 1e6 for x in bins]
                before, during = mbit[i_b:i_s], mbit[i_s:i_e]
                rows.append(
                    {
                        "hz": b["hz"],
                        "highres": b["highres"],
                        "time_travel": b["time_travel"],
                        "scheduler": run["scheduler"],
                        "flow": f["name"],
                        "offered_mbit": f["mbit"],
                        "ip_len": f["ip_len"],
                        "guarantee_mbit": f["class_mbit"],
                        "before_mbit": round(sum(before) / len(before), 3),
                        "during_mbit": round(sum(during) / len(during), 3),
                        "min_100ms_during_mbit": round(min(during), 3),
                    }
                )
    return rows


BOOTS = [
    (
        "highres",
        "on",
        "inf-cpu",
        [
            rate_exp(RATES, SHAPERS),
            interference_exp(["fifo", "htb", "cbq", "cbq-bw100"], [8, 10, 12]),
            MULTIFLOW,
        ],
    ),
    (
        "lowres",
        "off",
        "inf-cpu",
        [
            rate_exp(RATES, SHAPERS),
            interference_exp(["fifo", "htb", "cbq", "cbq-bw100"], [8, 10, 12]),
            MULTIFLOW,
        ],
    ),
    (
        "realtime",
        "on",
        "off",
        [
            rate_exp([500_000, 1_000_000, 2_000_000], SHAPERS, duration=7, warmup=2),
            interference_exp(["fifo", "htb", "cbq", "cbq-bw100"], [12]),
        ],
    ),
]


def write_csv(path, rows):
    if not rows:
        return
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def timers(row):
    t = "high-res" if row["highres"] == "on" else f"tick (HZ={row['hz']})"
    return t + (", real time" if row["time_travel"] == "off" else "")


def tables(rate_rows, inter_rows, multi_rows):
    out = []
    setups = []
    for r in rate_rows:
        key = (r["highres"], r["time_travel"])
        if key not in setups:
            setups.append(key)
    shapers = [s["name"] for s in SHAPERS]
    cols = [(s, sh) for s in setups for sh in shapers]
    label = {
        ("on", "inf-cpu"): "hr on",
        ("off", "inf-cpu"): "hr off",
        ("on", "off"): "hr on, real time",
    }
    out.append("Achieved kbit/s, Linux 5.10 (HZ=100), `hr` = high-resolution timers:\n")
    head = ["configured kbit/s"] + [f"{label[s]}: {sh}" for s, sh in cols]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    by = {(r["highres"], r["time_travel"], r["shaper"], r["configured_bps"]): r for r in rate_rows}
    for rate in sorted({r["configured_bps"] for r in rate_rows}):
        cells = [f"{rate // 1000}"]
        for (hr, tt), sh in cols:
            r = by.get((hr, tt, sh, rate))
            cells.append(f"{r['achieved_bps'] / 1000:.0f}" if r else "")
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out.append("TCP (guarantee 1 Mbit/s, demand 1.57) during the flood, Mbit/s of frames:\n")
    out.append(
        "| scheduler | flood Mbit/s | timers | TCP during flood | lowest 100 ms "
        "| intervals < 0.9 Mbit/s | empty | longest gap | flood got |"
    )
    out.append("|---|---|---|---|---|---|---|---|---|")
    for r in inter_rows:
        out.append(
            f"| {r['scheduler']} | {r['flood_mbit']} | {timers(r)} | "
            f"{r['tcp_during_mbit']:.3f} | {r['tcp_min_100ms_mbit']:.3f} | "
            f"{r['intervals_below_guarantee']} of {r['intervals']} | {r['intervals_empty']} | "
            f"{r['longest_gap_s'] * 1000:.0f} ms | {r['flood_delivered_mbit']:.2f} |"
        )
    out.append("")
    out.append(
        "Seed Figures 17/18: Mbit/s of frames per flow in the 3 s before D starts / while D "
        "runs (lowest 100 ms while D runs):\n"
    )
    flows = []
    for r in multi_rows:
        if r["flow"] not in flows:
            flows.append(r["flow"])
    first = {r["flow"]: r for r in multi_rows}
    out.append(
        "| scheduler | timers | "
        + " | ".join(
            f"{f} ({first[f]['offered_mbit']} Mbit/s, {first[f]['ip_len']} B, "
            f"class {first[f]['guarantee_mbit']})"
            for f in flows
        )
        + " |"
    )
    out.append("|---|---|" + "---|" * len(flows))
    keys = []
    for r in multi_rows:
        k = (r["scheduler"], r["highres"], r["time_travel"])
        if k not in keys:
            keys.append(k)
    by = {(r["scheduler"], r["highres"], r["time_travel"], r["flow"]): r for r in multi_rows}
    for k in keys:
        cells = []
        for f in flows:
            r = by[(*k, f)]
            cells.append(
                f"{r['before_mbit']:.2f} / {r['during_mbit']:.2f} ({r['min_100ms_during_mbit']:.2f})"
            )
        out.append(f"| {k[0]} | {timers(by[(*k, flows[0])])} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def bench(linux, out):
    raw = os.path.join(out, "raw")
    os.makedirs(raw, exist_ok=True)
    rate_rows, inter_rows, multi_rows = [], [], []
    for name, highres, tt, exps in BOOTS:
        res = shaping_boot.boot(
            linux,
            HZ,
            highres,
            tt,
            {"label": f"cbq-{name}", "experiments": exps},
            os.path.join(raw, f"{name}.json"),
            timeout=3600,
        )
        print(f"cbq_seed002: {name}: {res['boot']['wall_s']} s", flush=True)
        rate_rows += sm.rate_rows(res)
        inter_rows += sm.interference_rows(res)
        multi_rows += multiflow_rows(res)
    write_csv(os.path.join(out, "rate_accuracy.csv"), rate_rows)
    write_csv(os.path.join(out, "interference_summary.csv"), inter_rows)
    write_csv(os.path.join(out, "multiflow_summary.csv"), multi_rows)
    text = tables(rate_rows, inter_rows, multi_rows)
    with open(os.path.join(out, "tables.md"), "w") as fh:
        fh.write(text)
    print(text)
    return 0


def check(linux, out):
    exps = [
        rate_exp([500_000, 1_000_000, 2_000_000], [SHAPERS[0]], duration=6, warmup=1),
        interference_exp(["cbq"], [12], duration=12, flood_start=3, flood_end=10),
    ]
    res = shaping_boot.boot(
        linux,
        HZ,
        "on",
        "inf-cpu",
        {"label": "cbq-check", "experiments": exps},
        os.path.join(out, "cbq-check.json"),
        timeout=900,
    )
    fails, n = [], 0

    def ok(cond, what):
        nonlocal n
        n += 1
        print(f"{'ok' if cond else 'not ok'} {n} - {what}", flush=True)
        if not cond:
            fails.append(what)

    ok(res["timer"].get("kernel", "").startswith("5.10."), f"kernel {res['timer'].get('kernel')}")
    for r in sm.rate_rows(res):
        ok(
            abs(r["ratio"] - 1) <= 0.02,
            f"cbq {r['configured_bps'] // 1000} kbit/s: achieved "
            f"{r['achieved_bps'] / 1000:.1f} kbit/s, within 2 %",
        )
    for r in sm.interference_rows(res):
        ok(r["tcp_during_mbit"] >= 0.9, f"cbq flood 12: TCP {r['tcp_during_mbit']} >= 0.9 Mbit/s")
        ok(r["intervals_empty"] == 0, "cbq flood 12: no empty 100 ms interval")
        ok(r["longest_gap_s"] <= 0.3, f"cbq flood 12: longest gap {r['longest_gap_s']} s <= 0.3")
    print(
        f"cbq checks: {n - len(fails)} passed, {len(fails)} failed (boot {res['boot']['wall_s']} s)"
    )
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="the short check of the 5.10 kernel")
    ap.add_argument("linux")
    ap.add_argument("out")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    sys.exit(check(a.linux, a.out) if a.check else bench(a.linux, a.out))


if __name__ == "__main__":
    main()
