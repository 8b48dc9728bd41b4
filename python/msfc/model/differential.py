"""Differential testing of the MSFC implementations (docs/differential.md): the same trace
through the reference model (msfc.model.reference) and the ns-3 model (the msfc-trace-replay tool),
decision by decision.  The Linux qdisc replays the same traces in its KUnit suite.

Usage: python -m msfc.model.differential [--count N] [--seed S] [--build-dir DIR]
compares the seeded generated traces (msfc.model.vectors.random_trace) and prints the figures.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from ..sim.programs import resolve_build_dir
from . import reference as ref
from . import vectors


class ReplayError(RuntimeError):
    pass


class Ns3Replay:
    """One `msfc-trace-replay --stream` process answering trace after trace."""

    def __init__(self, tool: str | Path):
        tool = Path(tool)
        if not tool.is_file():
            raise ReplayError(
                f"{tool} does not exist: build it with `make build` (or pass --build-dir)"
            )
        self.proc = subprocess.Popen(
            [str(tool), "--stream"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def replay(self, trace: str) -> list[str]:
        if "\n.\n" in "\n" + trace:
            raise ReplayError("a trace line '.' would end the trace early")
        self.proc.stdin.write(trace if trace.endswith("\n") else trace + "\n")
        self.proc.stdin.write(".\n")
        self.proc.stdin.flush()
        out = []
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            if line == ".":
                if out and out[0].startswith("! "):
                    raise ReplayError(out[0][2:])
                return out
            out.append(line)
        raise ReplayError(f"msfc-trace-replay exited (status {self.proc.wait()})")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def first_difference(want: list[str], got: list[str]) -> str | None:
    """None when equal, else where the two decision lists part."""
    for i, (w, g) in enumerate(zip(want, got, strict=False)):
        if w != g:
            return f"decision #{i + 1}: reference '{w}', got '{g}'"
    if len(want) != len(got):
        n = min(len(want), len(got))
        return (
            f"reference has {len(want)} decisions, got {len(got)}; "
            f"first extra: '{(want if len(want) > n else got)[n]}'"
        )
    return None


def decision_kind(line: str) -> str:
    """'dequeue', 'ce' (dequeued CE-marked), 'empty', 'drop <reason>', or 'change' /
    'change busy' / 'change invalid'."""
    if line == "-":
        return "empty"
    if line.startswith("drop "):
        return "drop " + line.split()[1]
    if line.startswith("change"):
        return line
    return "ce" if line.endswith(" ce") else "dequeue"


def count_ops(trace: str) -> Counter:
    c = Counter()
    for line in trace.splitlines():
        if line[:1] in ("E", "D", "T", "C"):
            c[line[0]] += 1
    return c


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m msfc.model.differential", description=__doc__)
    ap.add_argument("--count", type=int, default=vectors.GENERATED_COUNT)
    ap.add_argument("--seed", type=int, default=vectors.GENERATED_SEED0, help="first seed")
    ap.add_argument("--build-dir", help="where msfc-trace-replay is (default: as msfc run)")
    a = ap.parse_args(argv)
    tool = resolve_build_dir(a.build_dir) / "msfc-trace-replay"
    kinds: Counter = Counter()
    ops: Counter = Counter()
    failures = 0
    start = time.monotonic()
    try:
        with Ns3Replay(tool) as ns3:
            for seed in range(a.seed, a.seed + a.count):
                trace = vectors.random_trace(seed)
                want = ref.replay(trace.splitlines())
                got = ns3.replay(trace)
                diff = first_difference(want, got)
                if diff:
                    failures += 1
                    print(
                        f"gen-{seed}: ns-3 differs from the reference: {diff} "
                        f"(the trace: python -m msfc.model.vectors --generated {seed})",
                        file=sys.stderr,
                    )
                kinds.update(decision_kind(x) for x in want)
                ops.update(count_ops(trace))
    except ReplayError as e:
        print(f"msfc.model.differential: {e}", file=sys.stderr)
        return 2
    took = time.monotonic() - start
    print(
        f"{a.count} traces (seeds {a.seed}..{a.seed + a.count - 1}), "
        f"{ops['E']} enqueues, {ops['D']} dequeue calls, {ops['T']} time steps, "
        f"{ops['C']} changes; "
        f"{sum(kinds.values())} decisions compared: "
        + ", ".join(f"{k} {kinds[k]}" for k in sorted(kinds))
        + f"; {failures} traces differ; {took:.1f} s"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
