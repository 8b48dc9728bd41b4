"""The docs' generated tables (msfc.analysis.doctables): each is what its committed data gives, and no
data is older than the code it depends on."""

import json

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
    ns3 = [t for t in D.TABLES.values() if "model" in t.depends]
    assert len(bad) == len(ns3) and len(ns3) >= 11
    assert all("model" in b and "measure it again" in b and "--stamp" in b for b in bad)


def test_a_change_to_a_seed_driver_makes_only_its_tables_stale(monkeypatch):
    driver = "python/msfc/seeds/seed003.py"
    before = D.problems()
    real = D.digest
    monkeypatch.setattr(D, "digest", lambda p, c=None: "changed" if p == driver else real(p, c))
    bad = [b for b in D.problems() if b not in before]
    assert sorted(b.split(" ")[0] for b in bad) == [
        "docs/seeds/seed003_s1.csv",
        "docs/seeds/seed003_s2.csv",
        "docs/seeds/seed003_s3.csv",
        "docs/seeds/seed003_s3_test.csv",
    ]
    assert all(driver in b and "msfc bench seed003" in b for b in bad)


def test_seed_data_without_a_stamp_is_found(monkeypatch, tmp_path):
    t = D.TABLES["seed003-s1"]
    before = D.problems()
    real = D.stamp_path
    monkeypatch.setattr(
        D, "stamp_path", lambda tab: tmp_path / "none.json" if tab is t else real(tab)
    )
    bad = [b for b in D.problems() if b not in before]
    assert len(bad) == 1 and "has no" in bad[0] and "--stamp seed003-s1" in bad[0]
    assert "msfc bench seed003" in bad[0]


def test_a_markdown_table_beside_the_data_that_is_not_its_rendering_is_found(monkeypatch):
    t = D.TABLES["seed003-s2"]
    before = D.problems()
    real = D.S.read_table

    def read(path):
        header, rows = real(path)
        if path == D.ROOT / t.data:
            rows[0][2] = -1.0
        return header, rows

    monkeypatch.setattr(D.S, "read_table", read)
    bad = [b for b in D.problems() if b not in before]
    assert len(bad) == 1 and "docs/seeds/seed003_s2.md is not what" in bad[0]


def test_every_seed_csv_is_a_doc_tables_data():
    """No published ns-3 seed table escapes the check (seed 002's are in docs/seeds/seed002)."""
    csvs = {p.relative_to(D.ROOT).as_posix() for p in (D.ROOT / "docs" / "seeds").glob("*.csv")}
    assert csvs == {t.data for t in D.TABLES.values() if t.beside_md}


def test_every_seed_table_names_its_data_commit_date_and_command():
    for t in (t for t in D.TABLES.values() if t.beside_md):
        meta = json.loads(D.stamp_path(t).read_text())
        commit = meta["commit"].split(" ")[0]
        assert D._git("rev-parse", "--verify", "--quiet", commit + "^{commit}"), t.name
        last = D.rendered(t).splitlines()[-1]
        assert last.startswith(f"Data: [seeds/{t.data.split('/')[-1]}]"), t.name
        assert commit[:7] in last and f"`{meta['command']}`" in last, t.name
        assert meta.get("measured", meta.get("stamped"))[:10] in last, t.name


def test_a_stamp_at_a_commit_records_the_dependencies_there(monkeypatch, tmp_path):
    t = D.TABLES["seed003-s3"]
    monkeypatch.setattr(D, "stamp_path", lambda tab: tmp_path / "s.json")
    D.stamp(t, commit="HEAD~1", measured="2026-01-02T03:04:05Z")
    meta = json.loads((tmp_path / "s.json").read_text())
    sha = D._git("rev-parse", "HEAD~1")
    assert meta["commit"] == sha and meta["measured"] == "2026-01-02T03:04:05Z"
    assert meta["depends"] == {p: D.digest(p, sha) for p in t.depends}
    with pytest.raises(UserError, match="not a commit"):
        D.stamp(t, commit="no-such-commit")
    with pytest.raises(UserError, match="not a date"):
        D.stamp(t, commit="HEAD", measured="yesterday")


def test_a_dependency_the_stamp_does_not_list_counts_as_at_its_commit():
    sha = D._git("rev-parse", "HEAD")
    path = "python/msfc/seeds/seed003.py"
    assert D.recorded_digest({"commit": sha, "depends": {}}, path) == D.digest(path, sha)
    assert D.recorded_digest({"commit": sha, "depends": {path: "x"}}, path) == "x"
    dirty = {"commit": f"{sha} (with uncommitted changes)", "depends": {}}
    assert D.recorded_digest(dirty, path) is None


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
