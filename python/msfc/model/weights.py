"""How far the class shares of a backlogged msfc are from ``ratio^p / sum`` with
``weights=rounded`` and ``weights=exact`` (docs/algorithm.md, "Exact class weights"), measured
on the reference model.

Every class is kept backlogged with four packets of about its quantum (``quantum >> p`` bytes,
at least one), so that even the smallest class sends enough packets for a 0.1 % resolution;
the model dequeues ``rounds * 4`` packets, and the result is the largest relative error of a
class's byte share against its ideal share. The traffic is that of the ns-3 test
``msfc-queue-disc`` ("Weights=exact"), and the cross-check traces ``weights-exact-*`` hold
the reference, ns-3 and the Linux qdisc to the same decisions, so the three give the same
figures.

    python -m msfc.model.weights                      # the table as text
    python -m msfc.model.weights --csv FILE           # its rows as CSV (docs/algorithm/weights.csv)
"""

from __future__ import annotations

import argparse
import csv
import sys
from dataclasses import dataclass
from pathlib import Path

from . import reference as R

#: (prios, ratio, quantum) of the published table: sixteen classes at ratio 0.5, where the
#: rounded quanta of the lowest classes fall to one byte, and eight at quantum 4000, where
#: class 7's quantum is 31.25 bytes
CONFIGS = ((16, "0.5", 1514), (8, "0.5", 4000))
WEIGHTS = ("rounded", "exact")
ROUNDS = 20000
COLUMNS = [
    "prios",
    "ratio",
    "quantum",
    "weights",
    "dequeues",
    "worst_class",
    "share_over_ideal",
    "max_error_pct",
]


@dataclass(frozen=True)
class ShareError:
    worst_class: int  # the class whose share is furthest from its ideal
    share_over_ideal: float  # that class's byte share over its ideal share
    max_error_pct: float  # |share_over_ideal - 1| in %


def share_error(weights: str, prios: int, ratio: str, quantum: int, rounds: int = ROUNDS):
    """The largest relative error of a class's byte share against ``ratio^p / sum`` with
    every class backlogged, over ``rounds * 4`` dequeues."""
    if rounds < 1:
        raise ValueError(f"rounds={rounds}: give at least 1")
    m = R.Msfc(prios=prios, ratio=ratio, quantum=quantum, weights=weights, limit=100000)
    size = [max(1, quantum >> p) for p in range(prios)]
    queued = [0] * prios
    sent = [0] * prios
    for _ in range(rounds * 4):
        for p in range(prios):
            while queued[p] < 4:
                m.enqueue(p, p, size[p])
                queued[p] += 1
        c, _, length, _ = m.dequeue()
        queued[c] -= 1
        sent[c] += length
    r = R.ratio_to_fp(ratio) / 65536
    ideal = [r**p / sum(r**k for k in range(prios)) for p in range(prios)]
    total = sum(sent)
    over = [sent[p] / total / ideal[p] for p in range(prios)]
    worst = max(range(prios), key=lambda p: abs(over[p] - 1))
    return ShareError(worst, over[worst], abs(over[worst] - 1) * 100)


def rows(rounds: int = ROUNDS) -> list[dict]:
    """One row per configuration of CONFIGS and weights mode."""
    out = []
    for prios, ratio, quantum in CONFIGS:
        for w in WEIGHTS:
            e = share_error(w, prios, ratio, quantum, rounds)
            out.append(
                dict(
                    zip(
                        COLUMNS,
                        (
                            prios,
                            ratio,
                            quantum,
                            w,
                            rounds * 4,
                            e.worst_class,
                            f"{e.share_over_ideal:.6g}",
                            f"{e.max_error_pct:.6g}",
                        ),
                        strict=True,
                    )
                )
            )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m msfc.model.weights", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--csv", help="write the rows to this CSV file")
    ap.add_argument("--rounds", type=int, default=ROUNDS, help=f"dequeues / 4 (default {ROUNDS})")
    a = ap.parse_args(argv)
    if a.rounds < 1:
        ap.error(f"--rounds {a.rounds}: give at least 1")
    got = rows(a.rounds)
    if a.csv:
        out = Path(a.csv)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        with tmp.open("w", newline="") as fh:
            w = csv.DictWriter(fh, COLUMNS, lineterminator="\n")
            w.writeheader()
            w.writerows(got)
        tmp.replace(out)
        print(f"wrote {out}")
    else:
        for r in got:
            print(
                f"prios {r['prios']} ratio {r['ratio']} quantum {r['quantum']} "
                f"weights={r['weights']}: {r['max_error_pct']} % (class {r['worst_class']})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
