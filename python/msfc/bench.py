"""``msfc bench NAME [options]``: the project's benchmarks and the seeds' experiments.

Every benchmark is a function ``(argv, prog) -> exit code`` (a module's ``main``). The
simulation benchmarks start every simulation through :func:`msfc.sim.runner.run_scenario`; the
seed 002 experiment boots the UML test kernel instead (kernel/scripts/shaping_boot.py), and
``qdisc-cost`` and ``dumbbell`` run one C++ program that prints its own result. ``msfc bench NAME --help`` shows a
benchmark's own options.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from .errors import SimulationError, UserError

#: name -> (module, or module:function, one line on what it measures)
BENCHMARKS: dict[str, tuple[str, str]] = {
    "qdisc-cost": (
        "msfc.sim.program_bench:qdisc_cost",
        "per-packet enqueue+dequeue cost of MSFC and FQ-CoDel (msfc-qdisc-cost)",
    ),
    "dumbbell": (
        "msfc.sim.program_bench:dumbbell",
        "schedulers on a dumbbell with TCP flows in three classes (msfc-dumbbell)",
    ),
    "isp-cost": (
        "msfc.sim.isp_cost",
        "simulation cost of the ISP tree per scheduler (wall, CPU, events)",
    ),
    "linux-testbed": (
        "msfc.linux.__main__:bench_main",
        "Flent's and the testbed's tests through msfc, cake, fq_codel, sqm, fq_pie, pfifo_fast "
        "on real stacks in the time-travel UML kernel, 2-100 Mbit/s (make bench-linux)",
    ),
    "linux-vm": (
        "msfc.linux.vm:bench_main",
        "msfc beside cake, sqm-style HTB, fq_codel, pfifo_fast in Debian's kernel under qemu "
        "(make bench-linux-vm prepares the VM)",
    ),
    "linux-cost": (
        "msfc.linux.vm:cost_main",
        "per-packet cost of msfc, fq_codel, cake, pfifo in Debian's kernel, timed by a probe "
        "module (make bench-linux-cost prepares the VM)",
    ),
    "seed001-thin-streams": (
        "msfc.seeds.thin_streams",
        "seed 001 sec. IV: queueing delay of thin TCP streams next to bulk flows",
    ),
    "seed001-starvation": (
        "msfc.seeds.starvation",
        "seed 001 sec. V: TCP throughput against thin unresponsive UDP flows, and the DoS case",
    ),
    "seed002": (
        "msfc.seeds.seed002",
        "seed 002: tbf/htb shaping accuracy and HTB vs MSFC guarantees in the UML kernel",
    ),
    "seed003": (
        "msfc.seeds.seed003",
        "seed 003: WFQ with WRED or rate-based AQM against MSFC, three scenarios",
    ),
    "seed004-sfq-fairness": (
        "msfc.seeds.sfq_fairness",
        "seed 004: CUBIC vs BBR through a TBF bottleneck, without and with a fair scheduler",
    ),
}


def add_parser(sub) -> None:
    """The ``bench`` subcommand (called by msfc.cli.build_parser)."""
    lines = [f"  {n:<22} {d}" for n, (_, d) in BENCHMARKS.items()]
    p = sub.add_parser(
        "bench",
        help="the benchmarks and seed experiments (msfc bench NAME --help)",
        description="Run one of the project's benchmarks or seed experiments.",
        epilog="benchmarks:\n" + "\n".join(lines),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # NAME is checked by run(), so that `msfc bench` alone lists the benchmarks
    p.add_argument("name", nargs="?", metavar="NAME", help="which benchmark")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="...", help="the benchmark's options")


def cmd_bench(args) -> int:
    return run(args.name, args.args)


def run(name: str, argv: list[str]) -> int:
    if name is None:
        raise UserError(
            f"msfc bench needs the NAME of a benchmark: {', '.join(BENCHMARKS)} "
            f"(msfc bench --help says what each runs)"
        )
    if name not in BENCHMARKS:
        raise UserError(f"unknown benchmark '{name}'; benchmarks: {', '.join(BENCHMARKS)}")
    module_name, _, function = BENCHMARKS[name][0].partition(":")
    entry = getattr(importlib.import_module(module_name), function or "main")
    try:
        return int(entry(argv, prog=f"msfc bench {name}") or 0)
    except SimulationError as e:
        print(f"msfc bench {name}: {e}\n  command: {' '.join(e.argv)}", file=sys.stderr)
        if e.stderr_tail:
            print("  " + e.stderr_tail.replace("\n", "\n  "), file=sys.stderr)
        return 1


def common_args(prog: str, description: str) -> argparse.ArgumentParser:
    """Options every simulation benchmark takes: RESULTS, --build-dir, --reuse, --rng-run."""
    p = argparse.ArgumentParser(prog=prog, description=description, allow_abbrev=False)
    p.add_argument(
        "results",
        type=Path,
        help="results directory (created; every simulation is kept in RESULTS/runs/<hash>/)",
    )
    p.add_argument(
        "--build-dir",
        type=Path,
        default=None,
        help="build directory holding the scenario-* programs "
        "(default: $MSFC_BUILD_DIR, ./build, the source tree's build/)",
    )
    p.add_argument(
        "--reuse",
        action="store_true",
        help="keep finished simulations instead of running them again",
    )
    p.add_argument("--rng-run", type=int, default=1, help="ns-3 RngRun of every simulation")
    return p


def build_dir(args) -> Path:
    """The build directory the benchmark's programs are taken from."""
    from .sim.programs import resolve_build_dir

    return resolve_build_dir(args.build_dir)
