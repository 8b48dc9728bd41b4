"""Benchmarks that are one C++ program printing its own result: the per-packet cost of the queue
discs (``msfc-qdisc-cost``, CSV) and the dumbbell comparison (``msfc-dumbbell``, a table, and
the same figures as tidy rows in ``dumbbell.csv``).
``msfc bench qdisc-cost RESULTS`` / ``msfc bench dumbbell RESULTS`` run them like every other
benchmark, print what they print and keep it in RESULTS; options after ``--`` go to the program.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from .. import bench
from ..errors import SimulationError, UserError
from .programs import BUILD_HINT


def run_program(
    name: str,
    out_name: str,
    argv: list[str] | None,
    prog: str | None,
    description: str,
    csv_name: str | None = None,
) -> int:
    """Run `name` with the options after ``--``, printing and keeping its output in
    RESULTS/`out_name`; with `csv_name`, the program also writes its tidy rows there (--csv).
    A failed run leaves neither file."""
    ap = argparse.ArgumentParser(prog=prog, description=description, allow_abbrev=False)
    ap.add_argument("results", type=Path, help=f"results directory (gets {out_name})")
    ap.add_argument(
        "--build-dir",
        type=Path,
        default=None,
        help="build directory (default: $MSFC_BUILD_DIR, ./build, the source tree's build/)",
    )
    ap.epilog = f"Options after -- go to {name} (e.g. -- --PrintHelp)."
    argv = list(sys.argv[1:] if argv is None else argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    exe = bench.build_dir(a) / name
    if not exe.is_file():
        raise UserError(f"{exe} not found; {BUILD_HINT}")
    cmd = [str(exe), *argv[cut + 1 :]]
    a.results.mkdir(parents=True, exist_ok=True)
    out = a.results / out_name
    tmp = out.with_name(f".{out.name}.tmp")
    csv_out = a.results / csv_name if csv_name else None
    csv_tmp = csv_out.with_name(f".{csv_out.name}.tmp") if csv_out else None
    if csv_tmp:
        cmd.append(f"--csv={csv_tmp}")
    with open(tmp, "w") as f:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1)
        assert proc.stdout is not None
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            f.write(line)
        rc = proc.wait()
    if rc != 0:
        tmp.unlink()
        if csv_tmp:
            csv_tmp.unlink(missing_ok=True)
        raise SimulationError(f"{name} failed (exit code {rc})", rc, "", cmd)
    tmp.replace(out)
    if csv_tmp:
        csv_tmp.replace(csv_out)
        print(f"Output: {out}, {csv_out}")
    else:
        print(f"Output: {out}")
    return 0


def qdisc_cost(argv: list[str] | None = None, prog: str | None = None) -> int:
    return run_program(
        "msfc-qdisc-cost",
        "qdisc-cost.csv",
        argv,
        prog,
        "Per-packet enqueue+dequeue cost of MSFC and FQ-CoDel (msfc-qdisc-cost), as CSV.",
    )


def dumbbell(argv: list[str] | None = None, prog: str | None = None) -> int:
    return run_program(
        "msfc-dumbbell",
        "dumbbell.txt",
        argv,
        prog,
        "Schedulers on a dumbbell with TCP flows in three priority classes (msfc-dumbbell);"
        " its figures also as tidy rows in dumbbell.csv.",
        csv_name="dumbbell.csv",
    )
