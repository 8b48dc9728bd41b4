"""Test of the seed 002 findings with the real Linux qdiscs (part of `make -C kernel test`).

Two boots of the UML test kernel (HZ=100) in time-travel=inf-cpu mode, so the results do not
depend on the host's load:

1. high-resolution timers on: tbf (one-frame bucket) and htb shape 0.5, 1 and 2 Mbit/s; a
   12 Mbit/s UDP flood through a 10 Mbit/s bottleneck next to a TCP flow guaranteed 1 Mbit/s,
   with HTB, with MSFC (TCP in the top class) and with a plain FIFO;
2. high-resolution timers off (timers on the 10 ms tick): tbf with a one-frame bucket and htb
   at 0.5 and 2 Mbit/s.

The msfc package's command `python -m msfc.seeds.shaping check OUT_DIR/fine.json
OUT_DIR/coarse.json` then checks the results (its help lists the checks): tbf and htb within
2 %, the TCP flow keeping its guarantee with HTB and MSFC but not with the FIFO, the 2001
quantisation of tbf back on the tick and htb within 3 % there.

Usage (from kernel/): python -m scripts.check_shaping LINUX OUT_DIR   (exit 0 iff every check
passed; run it with the project's venv python, which has the msfc package)
"""

import os
import subprocess
import sys

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


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: python -m scripts.check_shaping LINUX OUT_DIR   (from kernel/)")
    linux, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    fine, coarse = os.path.join(out, "fine.json"), os.path.join(out, "coarse.json")
    shaping_boot.boot(
        linux,
        HZ,
        "on",
        "inf-cpu",
        {"label": "test-fine", "experiments": [RATE_EXP, INTERFERENCE_EXP]},
        fine,
        timeout=900,
    )
    shaping_boot.boot(
        linux,
        HZ,
        "off",
        "inf-cpu",
        {"label": "test-coarse", "experiments": [dict(RATE_EXP, rates=[500000, 2000000])]},
        coarse,
        timeout=900,
    )
    argv = [sys.executable, "-m", "msfc.seeds.shaping", "check", fine, coarse]
    status = subprocess.run(argv).returncode
    if status:
        sys.exit(
            f"check_shaping: the checks failed or could not run ({' '.join(argv)}: exit "
            f"{status}; the msfc package is in the project's .venv); results in {out}"
        )


if __name__ == "__main__":
    main()
