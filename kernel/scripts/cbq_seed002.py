"""Seed 002 with CBQ: the rate-accuracy and minimum-rate-guarantee experiments in the Linux 5.10
UML kernel with CBQ (build/uml-5.10, `make -C kernel kernel-5.10`), beside HTB (and, for the
rates, tbf) in the same kernel.

    python -m scripts.cbq_seed002 LINUX OUT_DIR          the benchmark (bench-shaping-5.10)
    python -m scripts.cbq_seed002 --check LINUX OUT_DIR  the short check (shaping-test-5.10)

The benchmark boots the kernel three times in time-travel=inf-cpu mode and once in real time:
high-resolution timers on and off (HZ=100, UML's only value in 5.10) with the rate sweep of
`msfc bench seed002` (cbq, htb, tbf with a one-frame bucket at 0.1-10 Mbit/s) and the
interference runs (fifo, htb, cbq; TCP guaranteed 1 Mbit/s under 8, 10, 12 Mbit/s floods
through 10 Mbit/s), and in real time a short rate sweep and the 12 Mbit/s flood; the
multiflow runs of the seed's Figures 17/18 in both time-travel boots (UDP flows each in a class
at its guarantee, one of them of small packets, then a 5 Mbit/s flow in a 2 Mbit/s class).
It keeps raw/ (each boot's result JSON and log); the msfc package's command
`python -m msfc.seeds.shaping cbq-tables OUT_DIR raw/{highres,lowres,realtime}.json` writes
rate_accuracy.csv, interference_summary.csv, multiflow_summary.csv and tables.md from them.

The check (one time-travel boot, high-resolution timers, about 1 minute): cbq shapes 0.5, 1
and 2 Mbit/s and a 12 Mbit/s flood runs through 10 Mbit/s next to the TCP flow in the 1 Mbit/s
CBQ class; `python -m msfc.seeds.shaping check-cbq` checks the result (a 5.10 kernel, rates
within 2 %, TCP >= 0.9 Mbit/s with no empty 100 ms interval and no gap over 0.3 s).
Run it with the project's venv python, which has the msfc package.
"""

import argparse
import os
import subprocess
import sys

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


def package_command(*args):
    """Run `python -m msfc.seeds.shaping ARGS` with this Python; its exit status."""
    argv = [sys.executable, "-m", "msfc.seeds.shaping", *args]
    status = subprocess.run(argv).returncode
    if status:
        print(
            f"cbq_seed002: {' '.join(argv)}: exit {status} (the msfc package is in the "
            "project's .venv)",
            file=sys.stderr,
        )
    return status


def bench(linux, out):
    raw = os.path.join(out, "raw")
    os.makedirs(raw, exist_ok=True)
    results = []
    for name, highres, tt, exps in BOOTS:
        path = os.path.join(raw, f"{name}.json")
        res = shaping_boot.boot(
            linux,
            HZ,
            highres,
            tt,
            {"label": f"cbq-{name}", "experiments": exps},
            path,
            timeout=3600,
        )
        print(f"cbq_seed002: {name}: {res['boot']['wall_s']} s", flush=True)
        results.append(path)
    return package_command("cbq-tables", out, *results)


def check(linux, out):
    exps = [
        rate_exp([500_000, 1_000_000, 2_000_000], [SHAPERS[0]], duration=6, warmup=1),
        interference_exp(["cbq"], [12], duration=12, flood_start=3, flood_end=10),
    ]
    path = os.path.join(out, "cbq-check.json")
    res = shaping_boot.boot(
        linux,
        HZ,
        "on",
        "inf-cpu",
        {"label": "cbq-check", "experiments": exps},
        path,
        timeout=900,
    )
    print(f"# boot of the 5.10 kernel: {res['boot']['wall_s']} s", flush=True)
    return package_command("check-cbq", path)


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
