"""Shared helpers of the seed-experiment scripts: run a scenario program into a directory,
read its raw files (docs/data-format.md), small statistics.

Only the raw files are read, never the programs' printed text.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def published() -> dict:
    with open(HERE / "published.json") as f:
        return json.load(f)


def common_args(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument(
        "results", type=Path, help="results directory (created; runs go to RESULTS/runs/...)"
    )
    p.add_argument(
        "--build-dir",
        type=Path,
        default=REPO / "build",
        help="CMake build directory holding the scenario-* programs (default: %(default)s)",
    )
    p.add_argument(
        "--reuse",
        action="store_true",
        help="keep runs whose meta.json already exists instead of re-running them",
    )
    p.add_argument("--rng-run", type=int, default=1, help="ns-3 RngRun of every simulation")
    return p


def program(build_dir: Path, scenario: str) -> Path:
    exe = build_dir / f"scenario-{scenario}"
    if not exe.is_file():
        sys.exit(
            f"error: {exe} not found: build the project first "
            f"(cmake -S . -B build -G Ninja && cmake --build build -j2) or pass --build-dir"
        )
    return exe


def run(build_dir: Path, scenario: str, out: Path, opts: dict, reuse: bool = False) -> Path:
    """Run one simulation into `out` (skipped with reuse when it already finished)."""
    if reuse and (out / "meta.json").is_file():
        return out
    exe = program(build_dir, scenario)
    cmd = [str(exe), f"--out={out}"] + [f"--{k}={v}" for k, v in opts.items()]
    t0 = time.time()
    print("run:", " ".join(cmd), file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.splitlines() if not ln.startswith("progress ")]
        sys.exit(
            f"error: {' '.join(cmd)} failed (exit {proc.returncode}):\n" + "\n".join(lines[-20:])
        )
    print(f"  done in {time.time() - t0:.1f} s", file=sys.stderr, flush=True)
    return out


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def flows(run_dir: Path) -> list[dict]:
    return read_csv(run_dir / "flows.csv")


def throughput_kbps(row: dict) -> float:
    """docs/data-format.md: rx_bytes * 8 / active_s / 1000."""
    active = float(row["active_s"])
    return int(row["rx_bytes"]) * 8 / active / 1000 if active > 0 else 0.0


def jain(values: list[float]) -> float:
    s = sum(values)
    q = sum(v * v for v in values)
    return s * s / (len(values) * q) if q > 0 else 0.0


def percentile(sorted_values: list[float], p: float) -> float:
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def write_table(path: Path, header: list[str], rows: list[list]) -> None:
    """A CSV table and the same as Markdown next to it (path.md)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    md = path.with_suffix(".md")
    with open(md, "w") as f:
        f.write("| " + " | ".join(header) + " |\n")
        f.write("|" + "---|" * len(header) + "\n")
        for r in rows:
            f.write("| " + " | ".join(fmt(x) for x in r) + " |\n")


def fmt(x) -> str:
    if isinstance(x, float):
        if x != x:
            return "-"
        return f"{x:.3g}" if abs(x) < 100 else f"{x:.0f}"
    return str(x)


def plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    return pyplot
