"""The docs' generated tables (msfc.analysis.doctables): each is what its committed data gives, and no
data is older than the code it depends on."""

import pytest
from msfc.analysis import doctables as D
from msfc.errors import UserError


def test_every_generated_table_is_its_data_and_current():
    assert D.problems() == []


def test_a_table_edited_by_hand_is_found(monkeypatch):
    t = D.TABLES["seed001-voip"]
    before = D.problems()  # (empty unless some data is stale: the first test says so)
    real = D.rendered
    monkeypatch.setattr(D, "rendered", lambda tab: "| x |\n" if tab is t else real(tab))
    bad = [b for b in D.problems() if b not in before]
    assert len(bad) == 1 and "seed001-voip" in bad[0] and "--write" in bad[0]


def test_data_older_than_its_code_is_found(monkeypatch):
    before = D.problems()
    real = D.digest
    monkeypatch.setattr(D, "digest", lambda p, c=None: "changed" if p == "model" else real(p, c))
    bad = [b for b in D.problems() if b not in before]
    assert len(bad) == sum("model" in t.depends for t in D.TABLES.values()) == 3
    assert all("model" in b and "measure it again" in b and "--stamp" in b for b in bad)


def test_missing_markers_are_named(tmp_path, monkeypatch):
    doc = tmp_path / "x.md"
    doc.write_text("no table here\n")
    with pytest.raises(UserError, match="no line '<!-- table: seed001-thin -->'"):
        D._span(doc.read_text(), "seed001-thin", "x.md")


def test_the_thin_stream_table_has_a_row_per_scheduler():
    t = D.TABLES["seed001-thin"]
    text = D.rendered(t)
    data = D.pd.read_csv(D.ROOT / t.data)
    rows = [line for line in text.splitlines() if line.startswith("| ")][1:]
    assert len(rows) == data["scheduler"].nunique() + 1  # and the seed's published SFQ figure
    assert rows[-1].startswith("| seed 001, SFQ |") and rows[-1].endswith(">= 30 ms (5 x 6 ms) |")
