"""The supporting seeds' experiments (docs/seeds.md), started with ``msfc bench NAME``.

Each module is one experiment's driver: it runs the scenario programs through the package's
runner (:func:`msfc.sim.runner.run_scenario`), reads their raw files, aggregates them with the
metric definitions of :mod:`msfc.analysis.metrics` and writes tables (CSV, and the same as
Markdown) and figures. Seed 002 runs in the UML kernel instead: ``seed002`` boots it through
kernel/scripts/shaping_boot.py, ``shaping_metrics`` turns the boots' results into rows and
``shaping`` holds the checks and tables the kernel's make targets run
(``python -m msfc.seeds.shaping``). This module holds what the drivers share: the seeds'
published numbers and the table and figure writers.
"""

from __future__ import annotations

import csv
import io
import json
from importlib import resources
from pathlib import Path


def published() -> dict:
    """Numbers and findings the seed documents publish (package data seeds-published.json)."""
    return json.loads(resources.files("msfc").joinpath("data/seeds-published.json").read_text())


def fmt(x) -> str:
    """A table cell as the Markdown tables show it: 3 significant digits, whole numbers from 100."""
    if isinstance(x, float):
        if x != x:
            return "-"
        return f"{x:.3g}" if abs(x) < 100 else f"{x:.0f}"
    return str(x)


def markdown_table(header: list[str], rows: list[list]) -> str:
    """The Markdown rendering of a table (what ``write_table`` puts next to the CSV)."""
    out = io.StringIO()
    out.write("| " + " | ".join(header) + " |\n")
    out.write("|" + "---|" * len(header) + "\n")
    for r in rows:
        out.write("| " + " | ".join(fmt(x) for x in r) + " |\n")
    return out.getvalue()


def write_table(path: Path, header: list[str], rows: list[list]) -> None:
    """A CSV table and the same as Markdown next to it (path.md)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    path.with_suffix(".md").write_text(markdown_table(header, rows))


def write_rows(path, rows: list[dict]) -> None:
    """Tidy rows (dicts with the same keys, the first row's order) as a CSV file, its folder
    made if missing; no rows, no file."""
    if not rows:
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def cell(text: str):
    """A CSV cell as the value the writer had: an int, a float, or text."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def read_table(path: Path) -> tuple[list[str], list[list]]:
    """A table written by ``write_table`` read back (header, rows of ``cell`` values)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise ValueError(f"{path} is empty")
    return rows[0], [[cell(c) for c in r] for r in rows[1:]]


def pyplot():
    """matplotlib's pyplot without a display."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
