"""The seed 002 shaping experiments in the UML kernel, from their boots' results (the result
JSON of kernel/scripts/shaping_boot.py) to checks and tables: what the kernel's make targets
run after booting.

    python -m msfc.seeds.shaping check FINE.json COARSE.json
        the checks of `make -C kernel shaping-test` (kernel/scripts/check_shaping.py boots the
        HZ=100 kernel twice, high-resolution timers on, then off):
        FINE:   tbf (one-frame bucket) and htb shape every rate within 2 %; under the UDP flood
                the TCP flow guaranteed 1 Mbit/s keeps >= 0.9 Mbit/s on average with htb and
                with msfc, with no 100 ms interval empty, no delivery gap over 0.3 s, at most
                10 % of the intervals below 90 % of the guarantee and >= 7.5 Mbit/s left for
                the flood, while with a plain FIFO it falls below the guarantee;
        COARSE: tbf with a one-frame bucket is quantised to the tick (within 3 % of the tick
                model of tbf, msfc.seeds.shaping_metrics.tbf_tick_rate, and at most 0.8 of the
                configured rate), htb stays within 3 %
    python -m msfc.seeds.shaping check-cbq RESULT.json
        the checks of `make -C kernel shaping-test-5.10`: a 5.10 kernel, cbq shapes every rate
        within 2 %, and under the flood the TCP flow in the 1 Mbit/s CBQ class keeps >= 0.9
        Mbit/s with no empty 100 ms interval and no gap over 0.3 s
    python -m msfc.seeds.shaping rate-rows OUT.csv RESULT.json ...
        the rate experiments' rows of the boots (msfc.seeds.shaping_metrics.rate_rows) as one
        CSV: docs/kernel.md's table of msfc's own shaper (`make bench-msfc-shaper`)
    python -m msfc.seeds.shaping cbq-tables OUT RESULT.json ...
        the CBQ benchmark's tables (`make -C kernel bench-shaping-5.10`) from its boots:
        OUT/rate_accuracy.csv, interference_summary.csv, multiflow_summary.csv (tidy rows of
        msfc.seeds.shaping_metrics) and tables.md, which is printed too

Each check prints one line ("ok N - ..." or "not ok N - ..."); the exit status is 0 iff every
check passed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from . import shaping_metrics as sm
from . import write_rows


class Checks:
    """Numbered check lines; the failures are kept."""

    def __init__(self):
        self.count = 0
        self.failures = []

    def __call__(self, ok: bool, what: str) -> None:
        self.count += 1
        print(f"{'ok' if ok else 'not ok'} {self.count} - {what}", flush=True)
        if not ok:
            self.failures.append(what)


def read_result(path: str) -> dict:
    """One boot's result JSON (kernel/scripts/shaping_boot.py)."""
    try:
        with open(path) as fh:
            res = json.load(fh)
    except (OSError, ValueError) as e:
        raise SystemExit(f"msfc.seeds.shaping: {path}: not a shaping result ({e})") from None
    if "boot" not in res or "experiments" not in res:
        raise SystemExit(
            f"msfc.seeds.shaping: {path}: no 'boot' or 'experiments' (a result of "
            "kernel/scripts/shaping_boot.py has both)"
        )
    return res


def check_fine(res: dict, check: Checks) -> None:
    """High-resolution timers: rate accuracy and the minimum-rate guarantee."""
    print(f"# boot with high-res timers: {res['boot']['wall_s']} s", flush=True)
    for r in sm.rate_rows(res):
        check(
            abs(r["ratio"] - 1) <= 0.02,
            f"fine timers: {r['shaper']} at {r['configured_bps'] / 1e6:g} Mbit/s achieves "
            f"{r['achieved_bps'] / 1e6:.4f} (ratio {r['ratio']}, allowed 0.98-1.02)",
        )
    rows = {r["scheduler"]: r for r in sm.interference_rows(res)}
    for s in ("htb", "msfc"):
        r = rows[s]
        check(
            r["tcp_during_mbit"] >= 0.9,
            f"{s}: TCP keeps {r['tcp_during_mbit']} Mbit/s (>= 0.9) under a "
            f"{r['flood_mbit']} Mbit/s flood",
        )
        check(
            r["intervals_empty"] == 0 and r["longest_gap_s"] <= 0.3,
            f"{s}: TCP never stalls (empty 100 ms intervals {r['intervals_empty']}, "
            f"longest gap {r['longest_gap_s']} s <= 0.3)",
        )
        check(
            r["intervals_below_guarantee"] <= 0.1 * r["intervals"],
            f"{s}: {r['intervals_below_guarantee']} of {r['intervals']} 100 ms intervals below "
            f"90 % of 1 Mbit/s (<= 10 %)",
        )
        check(
            r["flood_delivered_mbit"] >= 7.5,
            f"{s}: the flood still gets the rest of the link ({r['flood_delivered_mbit']} Mbit/s >= 7.5)",
        )
    r = rows["fifo"]
    check(
        r["tcp_during_mbit"] < 0.9,
        f"fifo: without a scheduler TCP falls below the guarantee ({r['tcp_during_mbit']} Mbit/s < 0.9)",
    )


def check_coarse(res: dict, check: Checks) -> None:
    """Timers on the tick: tbf's quantisation as the tick model predicts, htb unaffected."""
    print(f"# boot without high-res timers: {res['boot']['wall_s']} s", flush=True)
    for r in sm.rate_rows(res):
        rate = r["configured_bps"]
        if r["kind"] == "tbf":
            model = sm.tbf_tick_rate(rate, r["hz"], r["burst_bytes"])
            check(
                abs(r["achieved_bps"] / model - 1) <= 0.03 and r["ratio"] <= 0.8,
                f"coarse timers: tbf one-frame bucket at {rate / 1e6:g} Mbit/s is quantised to "
                f"{r['achieved_bps'] / 1e6:.4f} (model {model / 1e6:.4f}, ratio {r['ratio']})",
            )
        else:
            check(
                abs(r["ratio"] - 1) <= 0.03,
                f"coarse timers: htb at {rate / 1e6:g} Mbit/s achieves "
                f"{r['achieved_bps'] / 1e6:.4f} (ratio {r['ratio']}, allowed 0.97-1.03)",
            )


def check_cbq(res: dict, check: Checks) -> None:
    """The 5.10 kernel's CBQ: rate accuracy and the guarantee under the flood."""
    kernel = res.get("timer", {}).get("kernel")
    check((kernel or "").startswith("5.10."), f"kernel {kernel}")
    for r in sm.rate_rows(res):
        check(
            abs(r["ratio"] - 1) <= 0.02,
            f"{r['shaper']} {r['configured_bps'] // 1000} kbit/s: achieved "
            f"{r['achieved_bps'] / 1000:.1f} kbit/s, within 2 %",
        )
    for r in sm.interference_rows(res):
        run = f"{r['scheduler']} flood {r['flood_mbit']}"
        check(r["tcp_during_mbit"] >= 0.9, f"{run}: TCP {r['tcp_during_mbit']} >= 0.9 Mbit/s")
        check(r["intervals_empty"] == 0, f"{run}: no empty 100 ms interval")
        check(r["longest_gap_s"] <= 0.3, f"{run}: longest gap {r['longest_gap_s']} s <= 0.3")


def timers(row) -> str:
    """A boot's timer set-up as the tables name it: "high-res", "tick (HZ=100)", and ", real
    time" without time travel (a tidy row: a dict or a pandas row)."""
    t = "high-res" if row["highres"] == "on" else f"tick (HZ={row['hz']})"
    return t + (", real time" if row["time_travel"] == "off" else "")


def guarantee_cells(r) -> list[str]:
    """One interference row's cells in the guarantee tables: scheduler, flood, timers, TCP
    during the flood, its lowest 100 ms, intervals below 90 % of the guarantee, empty ones,
    the longest gap, what the flood got."""
    return [
        str(r["scheduler"]),
        f"{r['flood_mbit']:g}",
        timers(r),
        f"{r['tcp_during_mbit']:.3f}",
        f"{r['tcp_min_100ms_mbit']:.3f}",
        f"{int(r['intervals_below_guarantee'])} of {int(r['intervals'])}",
        str(int(r["intervals_empty"])),
        f"{r['longest_gap_s'] * 1000:.0f} ms",
        f"{r['flood_delivered_mbit']:.2f}",
    ]


def multiflow_cell(r) -> str:
    """One flow of a multiflow run: Mbit/s before the last flow starts / while it runs (its
    lowest 100 ms while it runs)."""
    return f"{r['before_mbit']:.2f} / {r['during_mbit']:.2f} ({r['min_100ms_during_mbit']:.2f})"


def cbq_tables(rate_rows: list[dict], inter_rows: list[dict], multi_rows: list[dict]) -> str:
    """The CBQ benchmark's tables.md: achieved rates per timer set-up and shaper (in the order
    the boots measured them), the TCP flow under the floods, the seed's Figures 17/18."""
    out = []
    setups = []
    for r in rate_rows:
        key = (r["highres"], r["time_travel"])
        if key not in setups:
            setups.append(key)
    shapers = list(dict.fromkeys(r["shaper"] for r in rate_rows))
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
        out.append("| " + " | ".join(guarantee_cells(r)) + " |")
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
        cells = [multiflow_cell(by[(*k, f)]) for f in flows]
        out.append(f"| {k[0]} | {timers(by[(*k, flows[0])])} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def write_cbq_tables(out: str, results: list[dict]) -> str:
    """OUT's CSVs and tables.md from the boots' results, in the order given; the tables."""
    rate_rows, inter_rows, multi_rows = [], [], []
    for res in results:
        rate_rows += sm.rate_rows(res)
        inter_rows += sm.interference_rows(res)
        multi_rows += sm.multiflow_rows(res)
    if not rate_rows:
        raise SystemExit("msfc.seeds.shaping: cbq-tables: the results hold no rate experiment")
    os.makedirs(out, exist_ok=True)
    write_rows(os.path.join(out, "rate_accuracy.csv"), rate_rows)
    write_rows(os.path.join(out, "interference_summary.csv"), inter_rows)
    write_rows(os.path.join(out, "multiflow_summary.csv"), multi_rows)
    text = cbq_tables(rate_rows, inter_rows, multi_rows)
    with open(os.path.join(out, "tables.md"), "w") as fh:
        fh.write(text)
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m msfc.seeds.shaping",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("check", help="the checks of make -C kernel shaping-test")
    p.add_argument("fine", metavar="FINE.json", help="the boot with high-resolution timers")
    p.add_argument("coarse", metavar="COARSE.json", help="the boot with timers on the tick")
    p = sub.add_parser("check-cbq", help="the checks of make -C kernel shaping-test-5.10")
    p.add_argument("result", metavar="RESULT.json", help="the boot of the 5.10 kernel")
    p = sub.add_parser("rate-rows", help="the rate experiments' rows of boots, as a CSV")
    p.add_argument("out", metavar="OUT.csv", help="the CSV written (msfc.seeds.write_rows)")
    p.add_argument("results", metavar="RESULT.json", nargs="+", help="the boots")
    p = sub.add_parser("cbq-tables", help="the CBQ benchmark's CSVs and tables.md")
    p.add_argument("out", metavar="OUT", help="directory the tables are written to")
    p.add_argument("results", metavar="RESULT.json", nargs="+", help="the benchmark's boots")
    a = ap.parse_args(argv)

    if a.command == "rate-rows":
        rows = [r for path in a.results for r in sm.rate_rows(read_result(path))]
        if not rows:
            raise SystemExit(f"msfc.seeds.shaping: {', '.join(a.results)}: no rate experiment")
        write_rows(a.out, rows)
        print(f"msfc.seeds.shaping: {len(rows)} rows -> {a.out}")
        return 0
    if a.command == "cbq-tables":
        print(write_cbq_tables(a.out, [read_result(p) for p in a.results]))
        return 0
    check = Checks()
    if a.command == "check":
        check_fine(read_result(a.fine), check)
        check_coarse(read_result(a.coarse), check)
        where = f"{a.fine}, {a.coarse}"
    else:
        res = read_result(a.result)
        check_cbq(res, check)
        where = a.result
    if check.failures:
        print(
            f"msfc.seeds.shaping {a.command}: {len(check.failures)} of {check.count} checks "
            f"failed ({where})",
            file=sys.stderr,
        )
        return 1
    print(f"msfc.seeds.shaping {a.command}: all {check.count} checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
