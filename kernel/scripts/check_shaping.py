"""Test of the seed 002 findings with the real Linux qdiscs (part of `make -C kernel test`).

Two boots of the UML test kernel (HZ=100) in time-travel=inf-cpu mode, so the results do not
depend on the host's load:

1. high-resolution timers on: tbf (one-frame bucket) and htb shape 0.5, 1 and 2 Mbit/s within
   2 %; under a 12 Mbit/s UDP flood through a 10 Mbit/s bottleneck the TCP flow guaranteed
   1 Mbit/s keeps >= 0.9 Mbit/s on average with HTB and with MSFC (TCP in the top class), with
   no 100 ms interval empty and no delivery gap over 0.3 s, while with a plain FIFO it falls
   below the guarantee;
2. high-resolution timers off (timers on the 10 ms tick): the 2001 quantisation is back for
   tbf with a one-frame bucket (0.5 Mbit/s -> one frame per 3 ticks, 2 Mbit/s -> at most one
   frame per tick, within 3 % of the tick model of tbf), while htb, whose default burst tc sizes from the
   timer resolution the kernel reports, stays within 3 %.

Usage (from kernel/): python -m scripts.check_shaping LINUX OUT_DIR   (exit 0 iff every check
passed; run it with the project's venv python, which has the msfc package: the shaping metrics
are shared with the seed 002 benchmark)
"""

import os
import sys

from msfc.seeds import shaping_metrics as sm

from . import shaping_boot

HZ = 100
RATE_EXP = {
    "experiment": "rate",
    "duration": 6,
    "warmup": 1,
    "offer": 1.5,
    "shapers": [{"name": "tbf-mtu", "kind": "tbf", "burst": 1514}, {"name": "htb", "kind": "htb"}],
    "rates": [500000, 1000000, 2000000],
}
INTERFERENCE_EXP = {
    "experiment": "interference",
    "schedulers": ["fifo", "htb", "msfc"],
    "flood_mbit": [12],
    "link_mbit": 10,
    "guarantee_mbit": 1,
    "tcp_mbit": 1.5,
    "duration": 12,
    "flood_start": 3,
    "flood_end": 10,
    "bin": 0.1,
}

failures = []
count = 0


def check(ok, what):
    global count
    count += 1
    print(f"{'ok' if ok else 'not ok'} {count} - {what}", flush=True)
    if not ok:
        failures.append(what)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: python -m scripts.check_shaping LINUX OUT_DIR   (from kernel/)")
    linux, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)

    fine = shaping_boot.boot(
        linux,
        HZ,
        "on",
        "inf-cpu",
        {"label": "test-fine", "experiments": [RATE_EXP, INTERFERENCE_EXP]},
        os.path.join(out, "fine.json"),
        timeout=900,
    )
    print(f"# boot with high-res timers: {fine['boot']['wall_s']} s", flush=True)
    for r in sm.rate_rows(fine):
        check(
            abs(r["ratio"] - 1) <= 0.02,
            f"fine timers: {r['shaper']} at {r['configured_bps'] / 1e6:g} Mbit/s achieves "
            f"{r['achieved_bps'] / 1e6:.4f} (ratio {r['ratio']}, allowed 0.98-1.02)",
        )
    rows = {r["scheduler"]: r for r in sm.interference_rows(fine)}
    for s in ("htb", "msfc"):
        r = rows[s]
        check(
            r["tcp_during_mbit"] >= 0.9,
            f"{s}: TCP keeps {r['tcp_during_mbit']} Mbit/s (>= 0.9) under a 12 Mbit/s flood",
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

    coarse_exp = dict(RATE_EXP, rates=[500000, 2000000])
    coarse = shaping_boot.boot(
        linux,
        HZ,
        "off",
        "inf-cpu",
        {"label": "test-coarse", "experiments": [coarse_exp]},
        os.path.join(out, "coarse.json"),
        timeout=900,
    )
    print(f"# boot without high-res timers: {coarse['boot']['wall_s']} s", flush=True)
    for r in sm.rate_rows(coarse):
        rate = r["configured_bps"]
        if r["kind"] == "tbf":
            model = sm.tbf_tick_rate(rate, HZ, 1514)
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

    if failures:
        print(
            f"check_shaping: {len(failures)} of {count} checks failed (results in {out})",
            file=sys.stderr,
        )
        sys.exit(1)
    print(f"check_shaping: all {count} checks passed")


if __name__ == "__main__":
    main()
