"""The result tables under docs/seeds/ that are not doc tables are what the benchmarks'
aggregation code makes.

docs/seeds/ keeps the CSV tables of the last full runs (`make bench-seeds SEEDS_OUT=docs/seeds`,
`make bench-seed002 SEEDS_OUT=docs/seeds`); the figures are not committed. The CSVs of seeds
001, 003 and 004 and seed 002's rate and guarantee tables are doc tables' data:
msfc.analysis.doctables checks them, their stamps and the Markdown table beside each
(tests/test_doctables.py). Here: every other Markdown table (seed 002's real-time
cross-check) must be the rendering of its CSV, and seed 002's derived tables must be what
msfc.seeds.seed002 computes from the tidy CSVs next to them.
"""

from __future__ import annotations

import shutil

import pytest
from conftest import REPO
from msfc import seeds
from msfc.analysis import doctables
from msfc.seeds import seed002

DOCS = REPO / "docs" / "seeds"
#: the Markdown tables beside doc tables' data, which msfc.analysis.doctables checks
DOC_TABLES = {(REPO / t.data).with_suffix(".md") for t in doctables.TABLES.values() if t.beside_md}
TABLES = sorted(md for md in DOCS.rglob("*.md") if md not in DOC_TABLES)


def test_docs_seeds_has_tables():
    seed002_dir = DOCS / "seed002"
    assert seed002_dir / "rate_accuracy_realtime.md" in TABLES, (
        f"no real-time table in {seed002_dir}"
    )
    derived = {seed002_dir / f"{n}_table.md" for n in ("rate_accuracy", "interference_summary")}
    assert derived <= DOC_TABLES, "seed 002's rate and guarantee tables are doc tables' data"


@pytest.mark.parametrize("md", TABLES, ids=lambda p: str(p.relative_to(DOCS)))
def test_markdown_table_is_its_csv(md):
    csv = md.with_suffix(".csv")
    assert csv.is_file(), f"{md} has no {csv.name}: the tables are written together"
    header, rows = seeds.read_table(csv)
    assert md.read_text() == seeds.markdown_table(header, rows), (
        f"{md} differs from {csv.name}: regenerate with the benchmark (docs/seeds.md)"
    )


def test_seed002_tables_from_the_tidy_csvs(tmp_path):
    """`msfc bench seed002 --from-csv` remakes the derived tables (and draws the figures)."""
    for name in ("rate_accuracy.csv", "interference_summary.csv", "interference_timeseries.csv"):
        shutil.copy(DOCS / "seed002" / name, tmp_path / name)
    assert seed002.main(["--out", str(tmp_path), "--from-csv"]) == 0
    for name in ("rate_accuracy", "interference_timeseries", "interference_vs_flood"):
        assert (tmp_path / f"{name}.png").stat().st_size > 10_000, name
    for name in (
        "rate_accuracy_table.csv",
        "rate_accuracy_table.md",
        "interference_summary_table.csv",
        "interference_summary_table.md",
    ):
        assert (tmp_path / name).read_text() == (DOCS / "seed002" / name).read_text(), name
