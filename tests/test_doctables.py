"""The docs' generated tables (msfc.analysis.doctables): each is what its committed data gives, and no
data is older than the code it depends on."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from msfc.analysis import doctables as D
from msfc.analysis import thesis as TH
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


def test_every_seed_table_csv_is_a_doc_tables_data():
    """No published seed table escapes the check: the ns-3 seeds' CSVs, seed 002's tables
    (*_table.csv; its other CSVs are the benchmark's tidy rows, time series and real-time
    cross-check) and the CBQ run's tidy CSVs."""
    seeds = D.ROOT / "docs" / "seeds"
    csvs = {
        *seeds.glob("*.csv"),
        *(seeds / "seed002").glob("*_table.csv"),
        *(seeds / "seed002-cbq").glob("*.csv"),
    }
    tables = {t.data for t in D.TABLES.values() if t.doc == "docs/seeds.md"}
    assert {p.relative_to(D.ROOT).as_posix() for p in csvs} == tables


def test_every_seed_table_names_its_data_commit_date_and_command():
    for t in (t for t in D.TABLES.values() if t.doc == "docs/seeds.md"):
        assert t.provenance, t.name
        meta = json.loads(D.stamp_path(t).read_text())
        commit = meta["commit"].split(" ")[0]
        assert D._git("rev-parse", "--verify", "--quiet", commit + "^{commit}"), t.name
        last = D.rendered(t).splitlines()[-1]
        assert last.startswith(f"Data: [{t.data.removeprefix('docs/')}]"), t.name
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


def _summary(path, study_rows, scale=0.25):
    """A summary.csv as msfc sweep writes it, with the columns the ISP collector reads: per
    configuration (scheduler, Msfc.Inversion) a row per type and direction, and the totals, at
    rate scale `scale`."""
    path.mkdir(parents=True)
    rows, flows = [], []
    for sched, attr, group, tp in study_rows:
        h = f"{sched}-{attr}"
        # two clients per type: one gets three times the other's bytes
        for k, share in enumerate((1, 3)):
            flows.append(
                {
                    "config_hash": h,
                    "direction": "down",
                    "kind": "data",
                    "dst": f"10.0.{len(flows)}.{k}",
                    "rx_bytes": 1000 * share,
                    "active_s": 8.0,
                }
            )
        levels = [("type", "down", group), ("type", "up", group)]
        if group == "torrent":  # once per configuration
            levels += [("overall", "down", "all"), ("overall", "up", "all")]
        for level, direction, g in levels:
            rows.append(
                {
                    "scenario": "isp-tree",
                    "scheduler": sched,
                    "rng_run": 1,
                    "config_hash": h,
                    "cfg.flow-types": "thesis",
                    "cfg.priorities": "download=0",
                    "cfg.rate-scale": scale,
                    "attr.Msfc.Inversion": attr,
                    "meta.msfc_version": "0.2.0",
                    "direction": direction,
                    "level": level,
                    "group": g,
                    "flows": 9,
                    "throughput_kbps": tp,
                    "throughput_total_kbps": 74814.08 + tp,
                    "delay_mean_ms": 67.123,
                    "delay_hmean_ms": 98.2776,
                    "delay_p99_ms": 73.8,
                    "jitter_mean_ms": 4.2345,
                    "lost_packets": 3,
                    "loss_ratio": 0.34459,
                }
            )
    D.pd.DataFrame(rows).to_csv(path / "summary.csv", index=False)
    D.pd.DataFrame(flows).to_csv(path / "flows.csv", index=False)


def test_an_isp_table_is_collected_from_its_runs_summaries(monkeypatch, tmp_path):
    t = D.DocTable(
        "isp-x",
        "docs/isp-tree.md",
        "x.csv",
        D._isp_types(
            D.IspCol("Msfc", "one", attributes="Msfc.Inversion=allow"),
            D.IspCol("{thesis}", "one", attributes="Msfc.Inversion=allow", thesis="3.7"),
            D.IspCol("prevent", "two", attributes="Msfc.Inversion=prevent", metric="summary"),
            D.IspCol("FqCoDel lost", "two", "FqCoDel", metric="lost_packets"),
        ),
        "",
        (),
        isp=("one", "two"),
    )
    monkeypatch.setitem(D.TABLES, "isp-x", t)
    monkeypatch.setattr(D, "ROOT", tmp_path)
    types = list(D.ISP_TYPES)
    _summary(
        tmp_path / "res" / "one", [("Msfc", "allow", g, 10.0 + i) for i, g in enumerate(types)]
    )
    _summary(
        tmp_path / "two",
        [("Msfc", "prevent", g, 20.0) for g in types] + [("FqCoDel", "", g, 30.0) for g in types],
    )
    run = tmp_path / "res" / "one" / "runs" / "Msfc-allow"
    run.mkdir(parents=True)
    (run / "meta.json").write_text('{"device_queue_drops": 7}')
    # a directory that holds a study, and a study's own --out directory
    assert D.collect_isp("isp-x", [tmp_path / "res", tmp_path / "two"]) == tmp_path / "x.csv"
    d = D.pd.read_csv(tmp_path / "x.csv")
    assert len(d) == 3 * (len(types) + 1)  # the download rows per type, and the totals
    assert set(d["attributes"].fillna("")) == {
        "Msfc.Inversion=allow",
        "Msfc.Inversion=prevent",
        "",
    }
    # the totals rows carry how the clients shared the download: 1 and 3 kB over 8 s per pair
    tot = d[(d["type"] == "all") & (d["study"] == "one")].iloc[0]
    assert tot["clients"] == 2 * len(types) and tot["clients_jain"] == 0.8
    assert (tot["clients_p10_kbps"], tot["clients_p90_kbps"]) == (1.0, 3.0)
    assert d[d["type"] == "SSH"]["clients_jain"].isna().all()
    # and the drops of the device queues behind the scheduler, from the run's meta.json
    assert (
        tot["device_queue_drops"] == 7 and d[d["type"] == "SSH"]["device_queue_drops"].isna().all()
    )
    assert d[(d["type"] == "all") & (d["study"] == "two")]["device_queue_drops"].isna().all()
    lines = t.render(d).splitlines()
    assert lines[0] == "| type | Msfc | thesis/4 | prevent | FqCoDel lost |"
    # SSH: ours, the thesis's Table 3.7 MSFC value x 0.25, throughput, mean / p99 delay
    ssh = TH.load()["tables"]["3.7"]["values"]["SSH"]["MSFC"] * 0.25
    assert lines[2] == f"| SSH | 10.0 | {D._thesis_cell(ssh)} | 20.0, 67.1 / 73.8 | 3 |"
    assert lines[-1].startswith("| Torrent | 16.0 |")
    with pytest.raises(UserError, match="no three/summary.csv"):
        D._isp_summary("three", [tmp_path])
    with pytest.raises(UserError, match="not an ISP-tree table"):
        D.collect_isp("seed003-s1", [tmp_path])


def test_every_isp_table_names_its_data_commit_date_and_command():
    for t in (t for t in D.TABLES.values() if t.isp and t.provenance):
        meta = json.loads(D.stamp_path(t).read_text())
        last = D.rendered(t).splitlines()[-1]
        # (docs/results.md's summary of make bench shares the quick comparison's data)
        assert last.startswith(f"Data: [isp-tree/{Path(t.data).name}]"), t.name
        assert meta["commit"][:7] in last and f"`{meta['command']}`" in last, t.name
        # every study the collector reads is the last part of one of the commands' --out
        outs = re.findall(r"--out (\S+)", t.command)
        assert sorted(o.rsplit("/", 1)[-1] for o in outs) == sorted(t.isp), t.name


def _two_studies(monkeypatch, tmp_path):
    """The data of a table of two studies, "one" (Inversion=allow, 10 kbit/s per flow) and
    "two" (prevent, 20), as collect_isp writes it."""
    types = list(D.ISP_TYPES)
    _summary(tmp_path / "one", [("Msfc", "allow", g, 10.0) for g in types])
    _summary(tmp_path / "two", [("Msfc", "prevent", g, 20.0) for g in types])
    t = D.DocTable("isp-y", "docs/isp-tree.md", "y.csv", None, "", (), isp=("one", "two"))
    monkeypatch.setitem(D.TABLES, "isp-y", t)
    monkeypatch.setattr(D, "ROOT", tmp_path)
    return D.pd.read_csv(D.collect_isp("isp-y", [tmp_path]))


def test_an_isp_totals_table_has_a_row_per_configuration(monkeypatch, tmp_path):
    data = _two_studies(monkeypatch, tmp_path)
    render = D._isp_overall(
        ("priorities", "`Inversion`"),
        D.IspCol("thesis | `allow`", "one", attributes="Msfc.Inversion=allow"),
        D.IspCol("thesis | `prevent`", "two", attributes="Msfc.Inversion=prevent"),
    )
    assert render(data).splitlines() == [
        "| priorities | `Inversion` | total kbps | harmonic-mean delay (ms) | loss ratio |",
        "|---|---|---:|---:|---:|",
        "| thesis | `allow` | 74824 | 98.3 | 0.3446 |",
        "| thesis | `prevent` | 74834 | 98.3 | 0.3446 |",
    ]


def test_the_full_scale_thesis_tables_put_ours_beside_the_published_values(monkeypatch, tmp_path):
    types = list(D.ISP_TYPES)
    runs = [
        (s, "", g, 100.0 * k + i)
        for k, s in enumerate(D.ISP_SCHEDULERS)
        for i, g in enumerate(types)
    ]
    _summary(tmp_path / "full", runs, scale=1)
    _summary(tmp_path / "wrong", [("Msfc", "", g, 1000.0 + i) for i, g in enumerate(types)], 1)
    t = D.DocTable("isp-z", "docs/isp-tree.md", "z.csv", None, "", (), isp=("full", "wrong"))
    monkeypatch.setitem(D.TABLES, "isp-z", t)
    monkeypatch.setattr(D, "ROOT", tmp_path)
    D.collect_isp("isp-z", [tmp_path])
    d = D.pd.read_csv(tmp_path / "z.csv")
    text = D._isp_full_thesis("full")(d)
    t39 = D._isp_full_thesis("full", "wrong")(d)
    published = TH.load()["tables"]
    captions = [line for line in text.splitlines() if line.startswith("Table ")]
    assert [c.split(",")[0] for c in captions] == [
        "Table 3.7",
        "Table 3.4",
        "Table 3.5",
        "Table 3.6",
    ]
    assert t39.startswith("Table 3.9, ") and t39.count("\nTable ") == 0
    heads = "| PfifoFast thesis | PfifoFast ours | CoDel thesis | CoDel ours | FqCoDel thesis |"
    assert text.splitlines()[2].startswith("| type " + heads)
    # TV (the 4th type): the thesis's value, then ours, per scheduler
    tv = published["3.7"]["values"]["TV"]
    assert f"| TV | {tv['pfifo fast']:.2f} | 3.00 | {tv['CoDel']:.2f} | 103.00 |" in text
    assert f"| {tv['MSFC']:.2f} | 303.00 |" in text
    # Table 3.9: the class-blind schedulers' thesis runs, MSFC's run of the wrong priorities
    tv9 = published["3.9"]["values"]["TV"]
    assert f"| TV | {tv9['pfifo fast']:.2f} | 3.00 |" in t39
    assert (
        t39.rstrip()
        .splitlines()[-1]
        .endswith(f"| {published['3.9']['values']['Torrent']['MSFC']:.2f} | 1006.00 |")
    )
    overall = published["3.4"]["values"]["jitter_mean_ms"]
    assert f"| Jitter (ms) | {overall['pfifo fast']:.2f} | 4.23 |" in text
    assert "| Lost packets (packets) |" in text and "| Torrent | " in text
    # runs of another rate scale are not the thesis's full scale
    _summary(tmp_path / "quick", runs)
    t2 = D.DocTable("isp-q", "docs/isp-tree.md", "q.csv", None, "", (), isp=("quick", "wrong"))
    monkeypatch.setitem(D.TABLES, "isp-q", t2)
    D.collect_isp("isp-q", [tmp_path])
    with pytest.raises(UserError, match="need runs of the `thesis` and"):
        D._isp_full_thesis("quick")(D.pd.read_csv(tmp_path / "q.csv"))


def test_a_per_type_table_can_end_with_its_configurations_totals(monkeypatch, tmp_path):
    data = _two_studies(monkeypatch, tmp_path)
    cols = (
        D.IspCol("allow", "one", attributes="Msfc.Inversion=allow"),
        D.IspCol("prevent", "two", attributes="Msfc.Inversion=prevent"),
    )
    text = D._isp_types(*cols, overall=cols, lost=("TVStream",))(data)
    assert text.splitlines()[-1] == (
        "Overall, total kbps / harmonic-mean delay (ms) / loss ratio / TV packets lost:"
        " allow 74824 / 98.3 / 0.3446 / 3; prevent 74834 / 98.3 / 0.3446 / 3."
    )
    assert text.splitlines()[-2] == "" and text.splitlines()[-3].startswith("| Torrent |")


def test_the_links_table_has_each_classs_flows_and_what_it_sent_at_the_root(monkeypatch, tmp_path):
    # one study, two configurations; each type's two download flows in the class of the
    # thesis's priorities, and a qdisc.csv per run: the root router's links to its children
    # count, its link to the server and the other routers' links do not
    types = list(D.ISP_TYPES)
    prio = {"SSH": 2, "voip": 2, "game": 2, "TVStream": 2, "http": 1, "download": 0, "torrent": 0}
    rows = [("Msfc", m, g, 10.0) for m in ("allow", "prevent") for g in types]
    _summary(tmp_path / "one", rows)
    flows = D.pd.read_csv(tmp_path / "one" / "flows.csv")
    flows["type"] = [g for _ in ("allow", "prevent") for g in types for _ in (1, 3)]
    flows["priority"] = flows["type"].map(prio)
    flows["cfg.duration"] = 20
    flows.to_csv(tmp_path / "one" / "flows.csv", index=False)
    for k, m in enumerate(("allow", "prevent"), 1):
        run = tmp_path / "one" / "runs" / f"Msfc-{m}"
        run.mkdir(parents=True)
        q = [("G1", "G2", c, 1000000 * k * (c + 1)) for c in range(3)]
        q += [("G1", "G3", c, 500000) for c in range(3)]
        q += [("G1", "server", c, 7777777) for c in range(3)]
        q += [("G2", "G5", c, 9999999) for c in range(3)]
        D.pd.DataFrame(q, columns=["node", "device", "class", "dequeued_bytes"]).to_csv(
            run / "qdisc.csv", index=False
        )
    t = D.DocTable("isp-l", "docs/isp-tree.md", "l.csv", None, "", (), isp=("one",))
    monkeypatch.setitem(D.TABLES, "isp-l", t)
    monkeypatch.setattr(D, "ROOT", tmp_path)
    data = D.pd.read_csv(D.collect_isp("isp-l", [tmp_path]))
    render = D._isp_links(
        D.IspCol("allow", "one", attributes="Msfc.Inversion=allow"),
        D.IspCol("prevent", "one", attributes="Msfc.Inversion=prevent"),
    )
    # class 2 with allow: (3 000 000 + 500 000) bytes x 8 / 20 s = 1.4 Mbit/s
    assert render(data).splitlines() == [
        "| class | flows | allow (Mbit/s) | prevent (Mbit/s) |",
        "|---|---:|---:|---:|",
        "| 2 (SSH, VoIP, Game, TV) | 8 | 1.40 | 2.60 |",
        "| 1 (HTTP) | 2 | 1.00 | 1.80 |",
        "| 0 (Download, Torrent) | 4 | 0.60 | 1.00 |",
    ]
    # runs that kept no qdisc.csv: the table names what is missing
    for m in ("allow", "prevent"):
        (tmp_path / "one" / "runs" / f"Msfc-{m}" / "qdisc.csv").unlink()
    data = D.pd.read_csv(D.collect_isp("isp-l", [tmp_path]))
    with pytest.raises(UserError, match="no class<c>_root_mbps in the data of column 'allow'"):
        render(data)


def test_an_option_only_some_schedulers_take_is_not_a_swept_one(monkeypatch, tmp_path):
    # ratio is MSFC's: unset (empty) in FQ-CoDel's runs, the same in MSFC's; no attribute
    types = list(D.ISP_TYPES)
    _summary(tmp_path / "one", [(s, "", g, 10.0) for s in ("Msfc", "FqCoDel") for g in types])
    s = D.pd.read_csv(tmp_path / "one" / "summary.csv")
    s["cfg.ratio"] = s["scheduler"].map({"Msfc": 2.0})
    s.to_csv(tmp_path / "one" / "summary.csv", index=False)
    t = D.DocTable("isp-r", "docs/isp-tree.md", "r.csv", None, "", (), isp=("one",))
    monkeypatch.setitem(D.TABLES, "isp-r", t)
    monkeypatch.setattr(D, "ROOT", tmp_path)
    d = D.pd.read_csv(D.collect_isp("isp-r", [tmp_path]))
    assert set(d["attributes"].astype(object).fillna("")) == {""}
    # swept in MSFC's runs: named where it is set
    s["cfg.ratio"] = s["scheduler"].map({"Msfc": 16.0})
    s.loc[(s["scheduler"] == "Msfc") & (s["group"] == "SSH"), "cfg.ratio"] = 2.0
    s.to_csv(tmp_path / "one" / "summary.csv", index=False)
    d = D.pd.read_csv(D.collect_isp("isp-r", [tmp_path]))
    assert set(d["attributes"].fillna("")) == {"", "ratio=2", "ratio=16"}


def test_a_reviewed_model_change_can_be_accepted_for_a_full_scale_table(monkeypatch, tmp_path):
    # a change under model/ makes an ISP table stale; --accept records the review in a copy
    # of its stamp, and the check is content again
    t = D.TABLES["isp-quick-thesis"]
    stamp = tmp_path / "isp-quick-thesis.stamp.json"
    stamp.write_text(D.stamp_path(t).read_text())
    real_stamp = D.stamp_path
    # (the tables of one data file share its stamp: docs/results.md's summary of make bench)
    monkeypatch.setattr(
        D, "stamp_path", lambda table: stamp if table.data == t.data else real_stamp(table)
    )
    real = D.digest
    monkeypatch.setattr(D, "digest", lambda p, c=None: "changed" if p == "model" else real(p, c))
    bad = [b for b in D.problems() if "(table isp-quick-thesis in" in b]
    assert len(bad) == 1 and "--stamp isp-quick-thesis" in bad[0] and "--accept" in bad[0]
    assert [b for b in D.problems() if "(table results-quick in" in b]
    D.accept("isp-quick-thesis", "a mend that moves no decision")
    meta = json.loads(stamp.read_text())
    assert meta["depends"]["model"] == "changed"
    assert meta["accepted"][-1]["paths"] == ["model"]
    assert meta["accepted"][-1]["why"] == "a mend that moves no decision"
    assert not [b for b in D.problems() if "isp-quick-thesis" in b and "measured before" in b]
    assert D.main(["--accept", "isp-quick-thesis"]) == 2  # --why is required
    assert D.main(["--accept", "no-such-table", "--why", "x"]) == 2


def _rows(study, attributes, values, rng_run=1):
    """Collected ISP rows of one configuration: {type: (throughput, lost packets)}."""
    return [
        dict(
            study=study,
            scheduler="Msfc",
            attributes=attributes,
            type=t,
            rng_run=rng_run,
            throughput_kbps=tp,
            lost_packets=lost,
        )
        for t, (tp, lost) in values.items()
    ]


def test_the_ratio_table_says_whether_the_torrents_are_below_every_class_1_type():
    rows = []
    for ratio, torrent in ((2, 1800.0), (8, 1100.0), (16, 800.0)):
        values = {"TVStream": (1500.0, 0), "http": (1000.0, 0), "download": (1200.0, 0)}
        values["torrent"] = (torrent, 0)
        rows += _rows("r", f"Msfc.Inversion=prevent ratio={ratio}", values)
    text = D._isp_ratio("r", (2, 8, 16))(D.pd.DataFrame(rows))
    assert text.splitlines()[2:] == [
        "| 2 (the thesis) | 1500.0 | 1000.0 | 1200.0 | 1800.0 | no |",
        "| 8 | 1500.0 | 1000.0 | 1200.0 | 1100.0 | no (HTTP 1000.0) |",
        "| 16 | 1500.0 | 1000.0 | 1200.0 | 800.0 | yes |",
    ]


def test_the_rng_runs_table_has_a_row_per_run_and_their_means():
    rows = []
    for run in (1, 2):
        for mode, tv, lost in (("allow", 3000.0, 40), ("prevent", 2800.0 + run, 60 + run)):
            values = {"TVStream": (tv, lost), "torrent": (2000.0 * run, 0)}
            rows += _rows("s", f"Msfc.Inversion={mode}", values, run)
    text = D._isp_runs("s", 2)(D.pd.DataFrame(rows))
    assert text.splitlines()[0].startswith("| RNG run | TV allow (kbps) | TV prevent (kbps) |")
    assert text.splitlines()[2:] == [
        "| 1 | 3000.0 | 2801.0 | 40 | 61 | 2000.0 | 2000.0 |",
        "| 2 | 3000.0 | 2802.0 | 40 | 62 | 4000.0 | 4000.0 |",
        "| mean | 3000.0 | 2801.5 | 40 | 62 | 3000.0 | 3000.0 |",
    ]
    with pytest.raises(UserError, match="Msfc.Inversion=allow, RNG run 3"):
        D._isp_runs("s", 3)(D.pd.DataFrame(rows))


def test_the_ratio_16_runs_table_shows_the_device_queue_drops_of_the_unit_asked_for():
    rows = []
    for run in (1, 2, 3):
        for unit, drops in (("bytes", 100 * run), ("packets", 0)):
            values = {t: (1000.0 + run + (unit == "packets"), 5 * run) for t in D.ISP_R16_TYPES}
            values["all"] = (9000.0, 0)
            rows += _rows("r", f"Msfc.Inversion=prevent device-queue-unit={unit}", values, run)
            rows[-1]["device_queue_drops"] = drops
    d = D.pd.DataFrame(rows)
    lines = D._isp_r16_runs("r", "bytes")(d).splitlines()
    assert lines[0] == "| RNG run | TV | HTTP | Download | Torrent | TV lost | device-queue drops |"
    assert lines[2:] == [
        "| 1 | 1001.0 | 1001.0 | 1001.0 | 1001.0 | 5 | 100 |",
        "| 2 | 1002.0 | 1002.0 | 1002.0 | 1002.0 | 10 | 200 |",
        "| 3 | 1003.0 | 1003.0 | 1003.0 | 1003.0 | 15 | 300 |",
        "| mean | 1002.0 | 1002.0 | 1002.0 | 1002.0 | 10 | 200 |",
    ]
    assert D._isp_r16_runs("r", "packets")(d).splitlines()[-1].endswith("| 10 | 0 |")
    # data collected before the collector kept the drops
    with pytest.raises(UserError, match="no device_queue_drops: collect it again"):
        D._isp_r16_runs("r", "bytes")(d.drop(columns="device_queue_drops"))


def test_a_column_of_one_rng_run_takes_that_runs_rows():
    rows = []
    for run in (1, 2):
        rows += _rows("s", "", {t: (100.0 * run, run) for t in D.ISP_TYPES}, run)
    d = D.pd.DataFrame(rows)
    text = D._isp_types(D.IspCol("run 2", "s", rng_run=2), D.IspCol("run 1", "s", rng_run=1))(d)
    assert text.splitlines()[2] == "| SSH | 200.0 | 100.0 |"
    with pytest.raises(UserError, match="RNG run 3"):
        D._isp_types(D.IspCol("run 3", "s", rng_run=3))(d)


def test_the_80211ac_table_sets_each_single_queue_run_beside_the_thesis():
    d = D.pd.read_csv(D.ROOT / "docs/isp-tree/isp-thesis.csv")
    ac = d.assign(study="ac", throughput_total_kbps=d["throughput_total_kbps"] + 1000)
    lines = D._isp_ac("isp-thesis", "ac")(D.pd.concat([d, ac])).splitlines()
    assert lines[0].startswith("| | PfifoFast thesis | PfifoFast 802.11n | PfifoFast 802.11ac |")
    assert len(lines) == 2 + len(D.ISP_AC_ROWS) + len(D.ISP_TYPES)
    total = [c.strip() for c in lines[2].split("|")[2:-1]]
    theirs = TH.thesis_table(TH.load(), "3.4")
    assert total[0] == f"{theirs.at['throughput_total_kbps', 'PfifoFast']:.0f}"
    assert int(total[2]) == int(total[1]) + 1000 and int(total[5]) == int(total[4]) + 1000
    with pytest.raises(UserError, match="no rows of study ac, CoDel"):
        D._isp_ac("isp-thesis", "ac")(D.pd.concat([d, ac[ac["scheduler"] != "CoDel"]]))


def test_the_cost_table_is_the_medians_of_the_probes_tidy_rows(tmp_path):
    # the boot's results as bench_init.sh writes them, three repetitions per qdisc and flows
    results = []
    for q, base in (("msfc", 130), ("msfc isolate both", 400), ("fq_codel", 100)):
        for f in (1, 64):
            for ns in (base + f, base + f + 2, base + f + 90):  # one repetition disturbed
                results.append(
                    {
                        "qdisc": q,
                        "result": f"ok root flows {f} rounds 4000 packets 256 ns_per_packet {ns} mean_ns {ns} lost 0",
                    }
                )
    src = tmp_path / "bench-result.json"
    src.write_text(json.dumps(results))
    out = tmp_path / "bench-cost.csv"
    script = D.ROOT / "kernel/scripts/bench_summary.py"
    p = subprocess.run(
        [sys.executable, script, src, "--csv", out], capture_output=True, text=True, check=True
    )
    assert "| `msfc` | 133 ns (min 131, max 221, n=3) |" in p.stdout
    lines = D._kernel_cost(D.pd.read_csv(out)).splitlines()
    assert lines[0] == "| qdisc | 1 flow | 64 flows | ratio to `msfc` | ratio to `fq_codel` |"
    assert lines[2:] == [
        "| `msfc` | 133 ns | 196 ns | 1 | 1.29, 1.18 |",
        "| `msfc isolate both` | 403 ns | 466 ns | 3.03, 2.38 | 3.91, 2.81 |",
        "| `fq_codel` | 103 ns | 166 ns | 0.77, 0.85 | 1 |",
    ]
    src.write_text("[]")
    p = subprocess.run([sys.executable, script, src], capture_output=True, text=True)
    assert p.returncode != 0 and "holds no result" in p.stderr
    with pytest.raises(UserError, match="no fq_codel"):
        D._kernel_cost(D.pd.read_csv(out).query("qdisc != 'fq_codel'"))


def test_the_guarantee_table_takes_its_floods_per_timer_set_up_and_the_seeds_figures():
    d = D.pd.read_csv(D.ROOT / "docs/seeds/seed002-cbq/interference_summary.csv")
    lines = D._seed002_guarantee((10,), (12,), seed_rows=True)(d).splitlines()
    rows = [line.split(" | ")[:3] for line in lines[2:]]
    assert ["| fifo", "10", "high-res"] in rows and ["| fifo", "12", "high-res"] not in rows
    assert ["| fifo", "12", "tick (HZ=100)"] in rows and [
        "| fifo",
        "10",
        "tick (HZ=100)",
    ] not in rows
    assert ["| cbq", "12", "high-res, real time"] in rows
    # the seed's Figure 9: TCP stopped from 17 to 42 s (msfc/data/seeds-published.json)
    assert (
        lines[-1]
        == "| seed Fig. 9 (no scheduler) | 12 | jiffies, HZ=100 | stopped for 25 s | | | | | |"
    )
    with pytest.raises(UserError, match="lacks a group of rows"):
        D._seed002_guarantee((10,), (12,))(d[d["highres"] == "on"])


def test_the_seeds_figure_14_cell_says_met_below_or_nothing():
    from msfc.seeds import seed002

    pub = D.S.published()["seed002"]
    assert [seed002.seed_fig14(k * 1e3, pub) for k in (400, 500, 600, 2000)] == [
        "met",
        "< 400",
        "",
        "",
    ]


def test_the_ns3_cost_table_sets_each_mode_against_the_thesis_mode_of_the_same_run():
    # msfc-qdisc-cost's CSV: the median ns per step of each scheduler
    rows = [
        dict(workload=w, scheduler=s, flows=f, ns_per_packet=ns * (2 if w == "overload" else 1))
        for w in ("backlogged", "overload")
        for f in (1, 10000)
        for s, ns in (("FqCoDel", 4000.0), ("Msfc", 2000.0), ("Msfc Isolate=both", 5000.0))
    ]
    lines = D._ns3_cost(D.pd.DataFrame(rows)).splitlines()
    assert (
        lines[0]
        == "| workload | flows | FqCoDel | Msfc | Msfc / FqCoDel | `Isolate=both` (/ Msfc) |"
    )
    assert lines[2] == "| backlogged | 1 | 4000 | 2000 | 0.50 | 5000 (2.50) |"
    assert lines[-1] == "| overload | 10000 | 8000 | 4000 | 0.50 | 10000 (2.50) |"
    with pytest.raises(UserError, match="no FqCoDel"):
        D._ns3_cost(D.pd.DataFrame([r for r in rows if r["scheduler"] != "FqCoDel"]))


def _cost_rounds(qdiscs: dict[str, float], rounds=(1, 2, 3), flows=(1, 64)) -> "D.pd.DataFrame":
    """cost.csv's rows: each qdisc at `ns` per packet, round r adding r ns to fq_codel only."""
    rows = [
        dict(
            kernel="k",
            accel="tcg",
            round=r,
            flows=f,
            qdisc=q,
            ns_per_packet=ns + (r if q == "fq_codel" else 0),
            lost=0,
        )
        for r in rounds
        for f in flows
        for q, ns in qdiscs.items()
    ]
    return D.pd.DataFrame(rows)


def test_the_bpf_cost_tables_take_each_ratio_within_a_round():
    ns = {q: 100.0 for q in D.BPF_COST_ROWS} | {"msfc_bpf": 300.0, "msfc": 200.0}
    text = D._bpf_cost(_cost_rounds(ns))
    first, second = text.split("\n\n")
    assert first.splitlines()[0] == "| qdisc | 1 flow | 64 flows |"
    assert "| `fq_codel` | 102 | 102 |" in first  # the median over rounds 101-103
    assert "| `msfc_bpf` / `msfc` | 1.50 (1.50-1.50) | 1.50 (1.50-1.50) |" in second
    # against fq_codel the rounds differ: 300 / 101 .. 300 / 103
    assert "| `msfc_bpf` / `fq_codel` | 2.94 (2.91-2.97) | 2.94 (2.91-2.97) |" in second
    with pytest.raises(UserError, match="no cake"):
        D._bpf_cost(_cost_rounds({q: 1.0 for q in D.BPF_COST_ROWS if q != "cake"}))


def test_the_stock_kernel_cost_table_is_the_testbeds_summary():
    d = _cost_rounds({"fq_codel": 100.0, "msfc": 150.0, "msfc_keephash": 60.0})
    lines = D._vm_cost(d).splitlines()
    assert lines[0] == "| qdisc | tc | 1 flow | 64 flows |"
    assert lines[2] == "| fq_codel | `fq_codel` | 102 ns, **1.00** (1.00-1.00) | " + (
        "102 ns, **1.00** (1.00-1.00) |"
    )
    assert lines[3].startswith("| msfc | `msfc` | 150 ns, **1.47** (1.46-1.49) |")
    assert lines[4].startswith("| msfc_keephash | `msfc` (hash kept) | 60 ns, **0.59**")
    with pytest.raises(UserError, match="does not"):
        D._vm_cost(_cost_rounds({"fq_codel": 1.0, "sfq": 2.0}))
    prof = D.pd.DataFrame(
        [
            dict(qdisc="msfc", percent=30.0, symbol="s1", group="qdisc's own code"),
            dict(qdisc="msfc", percent=5.0, symbol="s2", group="qdisc's own code"),
            dict(qdisc="fq_codel", percent=40.0, symbol="s3", group="other kernel code"),
        ]
    )
    table = D._vm_profile(prof)
    assert "| qdisc's own code | 35.0 | 0.0 |" in table
    assert "| other kernel code | 0.0 | 40.0 |" in table


def test_a_table_of_sweeps_collects_every_run_and_shows_mean_and_interval(monkeypatch, tmp_path):
    """--collect-sweeps keeps each RNG run's per-type and overall download rows of each
    study; the modes table renders the mean over the runs with its interval, matching the
    configurations by the attributes they set (a --set one among them)."""
    rows = []
    for run, (off, on) in enumerate(((500.0, 0.0), (504.0, 0.0), (508.0, 0.0)), 1):
        for attr, tp in (("allow", off), ("prevent", on)):
            for level, direction, group in (
                ("type", "down", "Bulk"),
                ("type", "up", "Bulk"),
                ("overall", "down", "all"),
            ):
                rows.append(
                    {
                        "scenario": "starvation",
                        "preset": "modes",
                        "scheduler": "Msfc",
                        "rng_run": run,
                        "attr.Msfc.Overload": "class",
                        "attr.Msfc.Inversion": attr,
                        "meta.msfc_version": "0.2.0",
                        "direction": direction,
                        "level": level,
                        "group": group,
                        "flows": 1,
                        "throughput_kbps": tp,
                        "delay_mean_ms": 10.0,
                        "delay_p99_ms": 20.0,
                        "delay_hmean_ms": 9.0,
                        "lost_packets": 0,
                    }
                )
    (tmp_path / "inv").mkdir()
    D.pd.DataFrame(rows).to_csv(tmp_path / "inv" / "summary.csv", index=False)
    t = D.DocTable("sw", "docs/cli.md", "sw.csv", None, "", (), sweeps=("inv",))
    monkeypatch.setitem(D.TABLES, "sw", t)
    monkeypatch.setattr(D, "ROOT", tmp_path)
    assert D.main(["--collect-sweeps", "sw", str(tmp_path)]) == 0
    data = D.pd.read_csv(tmp_path / "sw.csv")
    assert len(data) == 12  # 3 runs x 2 configurations x (Bulk, all), download only
    assert set(data["attributes"]) == {
        "Msfc.Overload=class Msfc.Inversion=allow",
        "Msfc.Overload=class Msfc.Inversion=prevent",
    }
    row = D.ModeRow(
        "m",
        "starvation",
        "TCP",
        "inv",
        "Msfc.Inversion=allow Msfc.Overload=class",  # in another order
        "Msfc.Overload=class Msfc.Inversion=prevent",
        "throughput_kbps",
        ("Bulk",),
    )
    monkeypatch.setattr(D, "MODE_ROWS", (row,))
    last = D._modes(data).splitlines()[-1]
    # 504 ± the t interval's half-width over 500, 504, 508 (4 x t(0.975, 2) / sqrt(3) = 9.94)
    assert last == "| m | starvation | TCP | 504.00 ± 9.94 | 0.00 ± 0.00 |"
    monkeypatch.setattr(D, "MODE_ROWS", (D.replace(row, types=("Gaming",)),))
    with pytest.raises(UserError, match="no rows of inv"):
        D._modes(data)
    assert D.main(["--collect-sweeps", "isp-thesis", str(tmp_path)]) == 2  # not a sweeps table
    assert D.main(["--collect-sweeps", "sw"]) == 2  # no results named


def test_the_dumbbell_table_shows_groups_then_msfcs_class_counters():
    rows = [
        dict(
            scheduler="Msfc",
            kind="group",
            name="class0",
            goodput_mbps=1.3527,
            share=0.1442,
            delay_ms=41.03,
            lost_packets=211,
        ),
        dict(
            scheduler="Msfc",
            kind="class",
            name="0",
            enqueued_packets=6682,
            dequeued_packets=6471,
            dequeued_bytes=3802372,
            codel_drops=211,
            overload_drops=0,
            ecn_marks=0,
        ),
        dict(
            scheduler="FqCoDel",
            kind="group",
            name="class0",
            goodput_mbps=3.13,
            share=0.3335,
            delay_ms=29.51,
            lost_packets=165,
        ),
    ]
    text = D._dumbbell(D.pd.DataFrame(rows))
    assert "| Msfc | class0 | 1.353 | 0.144 | 41.0 | 211 |" in text
    assert "| FqCoDel | class0 | 3.130 | 0.334 | 29.5 | 165 |" in text
    assert "| Msfc | 0 | 6682 | 6471 | 3802372 | 211 | 0 | 0 |" in text
    with pytest.raises(UserError, match="lacks share"):
        D._dumbbell(D.pd.DataFrame(rows).drop(columns="share"))


def test_every_table_of_measured_figures_is_a_doc_table_or_listed_with_its_reason():
    """A Markdown table of measured figures outside the markers is a decision: listed in
    doctables.HAND_TABLES with why it is not made from data (a record of particular runs,
    timings, the qemu testbed not yet collected, ...); a listed one that became a doc table
    leaves the list."""
    docs = sorted(p.relative_to(D.ROOT).as_posix() for p in (D.ROOT / "docs").glob("*.md"))
    found = D.hand_tables([*docs, "README.md"])
    unlisted = [
        f"{d}:{line}: | {head} |" for d, head, line in found if (d, head) not in D.HAND_TABLES
    ]
    assert not unlisted, "neither doc tables nor in doctables.HAND_TABLES:\n" + "\n".join(unlisted)
    gone = set(D.HAND_TABLES) - {(d, head) for d, head, _ in found}
    assert not gone, f"doctables.HAND_TABLES lists tables the docs no longer have: {sorted(gone)}"
    # the scan sees a table of figures and not one of words
    assert ("docs/results.md", "build | backlogged, `Isolate=both` | ratio") in {
        (d, h) for d, h, _ in found
    }


def test_the_shaper_tables_charged_bytes_follow_the_documented_rule():
    # docs/kernel.md: framing(max(length + overhead, mpu)), overhead from the network header
    assert D._charged_bytes(["overhead", "38", "mpu", "84"], 1414) == 1438
    assert D._charged_bytes(["atm"], 1414) == 30 * 53
    assert D._charged_bytes([], 1414) == 1414
    assert D._charged_bytes(["mpu", "2000"], 1414) == 2000
    # kernel.md's example: 1514-byte frames under `overhead 18 mpu 64 ptm` are charged 1542
    assert D._charged_bytes(["overhead", "18", "mpu", "64", "ptm", "ingress"], 1514) == 1542
    with pytest.raises(UserError, match="overhead N or raw"):
        D._charged_bytes(["raw", "overhead", "38"], 1414)
    # every shaper of the spec has its column
    assert set(D._msfc_shaper_spec()) == set(D.MSFC_SHAPER_COLUMNS)
