"""Reports on fake-scenario results: every figure exists and is a valid image; links resolve."""

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest
from msfc.analysis import metrics as M
from msfc.analysis.report import log_violin_density
from msfc.cli import main
from PIL import Image


def check_report(index: Path, expected_figures: list[str]) -> None:
    html = index.read_text()
    refs = set(re.findall(r"(?:src|href)='([^']+)'", html)) | set(
        re.findall(r'(?:src|href)="([^"]+)"', html)
    )
    assert refs, "the report references no files"
    for r in refs:
        assert (index.parent / r).is_file(), f"index.html references {r}, which does not exist"
    for name in expected_figures:
        png, svg = index.parent / f"{name}.png", index.parent / f"{name}.svg"
        pdf = index.parent / f"{name}.pdf"
        assert f"{name}.svg" in refs and f"{name}.png" in refs and f"{name}.pdf" in refs
        # the numbers it draws, for plotting it again elsewhere (issue 29)
        assert f"{name}.csv" in refs, f"{name} has no CSV of its data"
        data = pd.read_csv(index.parent / f"{name}.csv")
        assert len(data) and len(data.columns) >= 3, name
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert pdf.read_bytes()[:5] == b"%PDF-"
        # one column (3.5 in) or two (7 in) of a paper, at 200 dpi; the RNG runs on every one
        with Image.open(png) as im:
            assert im.size[0] in (700, 1400), (name, im.size)
        text = svg.read_text()
        assert re.search(r"\d+ RNG runs?", text) or "RNG run" in text, name
        with Image.open(png) as im:
            im.verify()
        with Image.open(png) as im:
            w, h = im.size
            assert w >= 300 and h >= 200
            assert sum(1 for c in im.convert("L").histogram() if c) > 10  # not a blank picture
        root = ET.parse(svg).getroot()
        assert root.tag.endswith("svg")
    assert not list(index.parent.glob(".*tmp*")), "temporary files left behind"


@pytest.fixture(scope="module")
def compare_dir(tmp_path_factory, fake_build):
    b = fake_build
    out = tmp_path_factory.mktemp("rep") / "cmp"
    assert (
        main(
            [
                "compare",
                "fake",
                "--build-dir",
                str(b),
                "--schedulers",
                "FqCoDel,Msfc",
                "--seeds",
                "2",
                "--set",
                "duration=2",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    return out, b


def test_compare_report(compare_dir, capsys):
    out, _ = compare_dir
    assert main(["report", str(out)]) == 0
    index = out / "report" / "index.html"
    check_report(
        index,
        [
            "delay-violin-type",
            "delay-violin-priority",
            "delay-cdf-overall",
            "delay-cdf-type",
            "delay-ccdf-type",
            "throughput-type",
            "class-share",
        ],
    )
    html = index.read_text()
    # 2 RNG runs: their spread min..max, not a 95 % CI (t = 12.7 with one degree of freedom)
    assert (
        "log axis" in html
        and "2 RNG runs, min..max, too few for a CI"
        in (out / "report" / "delay-violin-type.svg").read_text()
    )
    assert "record no goodput per class over time" in html  # and says which files would
    assert "e+0" not in html  # plain numbers in every table
    assert "Harmonic-mean delay" in html and "TVStream" in html
    # a comparison of the fake scenario has no thesis counterpart: no thesis tables beside it
    assert "Table 3.7" not in html and "thesis" not in html.split("<h2>Per flow type")[1]
    assert "delay_hmean_ms" in html  # definitions section
    assert "Queue disc counters" in html and "class 2" in html  # from qdisc.csv
    assert "Where packets are dropped" in html
    # the tables show their intervals: 2 RNG runs, mean ± half the spread min..max (issue 29)
    assert (
        " ± " in html and "2 RNG runs, min..max, too few for a CI: mean ± half the spread" in html
    )
    # every table also as LaTeX (booktabs) beside the page, named after the table
    tables = html.count("<table class='data'>") - 1  # the metric definitions are no result
    tex = sorted(p.name for p in (out / "report").glob("table-*.tex"))
    assert len(tex) == tables and "table-throughput_kbps-type.tex" in tex, tex
    t = (out / "report" / "table-throughput_kbps-type.tex").read_text()
    # Jain's index over the client hosts and per type, and every host's throughput (issue 29)
    assert "Jain&#x27;s fairness index" in html and "Throughput per client host" in html
    flows = pd.read_parquet(out / "flows.parquet")
    msfc = flows[flows["scheduler"] == "Msfc"]
    per_run = [M.jain_index(M.client_throughput(f)) for _, f in msfc.groupby("rng_run")]
    iv = M.mean_interval(per_run)
    row = re.search(r"<tr><th>all hosts \(\d+\)</th><td>[^<]*</td><td>([^<]*)</td>", html)
    assert row and row.group(1) == f"{iv.mean:.3f} ± {(iv.hi - iv.lo) / 2:.3f}", row
    assert {"table-jain.tex", "table-host-throughput.tex"} <= set(tex)
    assert (
        "\\toprule" in t and "\\ensuremath{\\pm}" in t and "\\label{tab:throughput-kbps-type}" in t
    )


def test_run_report_to_other_dir(compare_dir, tmp_path):
    out, b = compare_dir
    r = tmp_path / "run"
    assert (
        main(
            [
                "run",
                "fake",
                "--build-dir",
                str(b),
                "--set",
                "duration=1",
                "--out",
                str(r),
                "--no-progress",
            ]
        )
        == 0
    )
    assert main(["report", str(r), "--out", str(tmp_path / "rep"), "--direction", "all"]) == 0
    check_report(
        tmp_path / "rep" / "index.html",
        ["delay-violin-type", "delay-cdf-type", "delay-ccdf-type", "throughput-type"],
    )


def test_sweep_report_from_fixture(tmp_path, compare_dir):
    """A sweep report built from finished runs (a compare's runs relabelled as a sweep over scheduler)."""
    out, _ = compare_dir
    study = json.loads((out / "study.json").read_text())
    study.update(
        kind="sweep",
        grid=[{"key": "scheduler", "values": ["FqCoDel", "Msfc"]}],
        grid_columns=["scheduler"],
        seeds=2,
    )
    (out / "study.json").write_text(json.dumps(study))
    try:
        assert main(["report", str(out), "--out", str(tmp_path / "sw")]) == 0
    finally:
        study["kind"] = "compare"
        (out / "study.json").write_text(json.dumps(study))
    check_report(
        tmp_path / "sw" / "index.html",
        [
            "sweep-throughput_total_kbps",
            "sweep-delay_hmean_ms",
            "sweep-loss_ratio",
            "sweep-priority-throughput_kbps",
        ],
    )
    assert "95% confidence intervals" in (tmp_path / "sw" / "index.html").read_text()


def test_report_of_empty_results_is_an_error(tmp_path, capsys):
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "study.json").write_text(
        json.dumps({"kind": "run", "scenario": "x", "configs": ["abc"]})
    )
    assert main(["report", str(tmp_path / "e")]) == 1
    assert "no finished simulation" in capsys.readouterr().err


def test_log_violin_density_is_weighted():
    h = pd.DataFrame(
        {"bin_start_s": [0.001, 0.01, 0.5], "bin_width_s": [0.0005] * 3, "count": [100, 300, 4]}
    )
    y, d = log_violin_density(h, lo=0.0005, hi=1.0, points=200)
    # every packet is inside the axis, the outlier at 0.5 s too
    assert d[y > 0.3].sum() > 0
    # the bin with three times the packets is about three times as dense (same log width)
    near = d[(y > 0.0008) & (y < 0.0016)].max()
    far = d[(y > 0.008) & (y < 0.013)].max()
    assert far / near == pytest.approx(3, rel=0.35)


def test_drop_locations_sum_drops_per_hop_kind():
    from msfc.analysis.report import drop_locations

    q = pd.DataFrame(
        {
            "node": ["G1", "G1", "AP7", "AP11", "C3", "G1", "AP7"],
            "device": ["G4", "G2", "wifi", "wifi", "wifi", "G4", "wifi"],
            "codel_drops": [100, 20, 5, 0, 0, 7, 1],
            "overload_drops": [0, 0, 3, 2, 0, 0, 0],
            "run_scheduler": ["CoDel"] * 5 + ["FqCoDel"] * 2,
            "config_hash": ["a"] * 5 + ["b"] * 2,
        }
    )
    t = drop_locations(q)
    assert list(t.columns) == ["CoDel", "FqCoDel"]
    assert t.loc["G -> G", "CoDel"] == 120 and t.loc["AP -> wifi", "CoDel"] == 10
    assert t.loc["G -> G", "FqCoDel"] == 7 and t.loc["AP -> wifi", "FqCoDel"] == 1
    assert "C -> wifi" not in t.index  # no drops there
    # two runs of one scheduler: the mean, not the sum
    q2 = pd.concat(
        [
            q[q.run_scheduler == "FqCoDel"],
            q[q.run_scheduler == "FqCoDel"].assign(config_hash="c", codel_drops=[3, 3]),
        ]
    )
    assert drop_locations(q2).loc["G -> G", "FqCoDel"] == 5


def test_thesis_markers_time_series_and_two_results_against_each_other(
    fake_isp_build, tmp_path, capsys
):
    b = str(fake_isp_build)
    a, c = tmp_path / "a", tmp_path / "c"
    base = ["compare", "isp-tree", "--build-dir", b, "--schedulers", "FqCoDel,Msfc"]
    base += ["--thesis", "--no-progress"]
    assert main(base + ["--preset", "thesis", "--out", str(a)]) == 0
    assert main(base + ["--preset", "thesis", "--set", "Msfc.Ratio=4", "--out", str(c)]) == 0
    assert main(["report", str(a)]) == 0
    html = (a / "report" / "index.html").read_text()
    # like with like: the thesis's throughput (Table 3.7) and delay (3.5) as markers
    assert "Diamonds: thesis (Table 3.7" in html and "mean delay (Table 3.5)" in html
    assert "thesis mean" in (a / "report" / "delay-violin-type.svg").read_text()
    # a scaled preset: throughput markers scaled, no delay markers; a scenario that records
    # goodput and queue delay over time gets them plotted per class
    q = tmp_path / "q"
    assert main(base + ["--preset", "quick", "--set", "time-series=true", "--out", str(q)]) == 0
    assert main(["report", str(q)]) == 0
    html = (q / "report" / "index.html").read_text()
    assert "Diamonds: thesis x0.25" in html and "mean delay (Table 3.5)" not in html
    check_report(q / "report" / "index.html", ["goodput-time", "qdelay-time", "class-share"])
    assert "record no" not in html
    # B against A: the graphical twin of msfc diff
    capsys.readouterr()
    assert main(["report", str(a), "--against", str(c)]) == 0
    index = a / "report-against-c" / "index.html"
    assert str(index) in capsys.readouterr().out
    check_report(index, ["against"])
    page = index.read_text()
    assert "FqCoDel B/A" in page and "Msfc B/A" in page
    fq = [ln for ln in page.split("<tr>") if ln.startswith("<th>TVStream</th>")][0]
    assert "<td>1</td>" in fq  # FqCoDel ignores Msfc.Ratio: the same simulation, B/A = 1
    other = tmp_path / "other"
    assert main(base + ["--preset", "thesis", "--schedulers", "CoDel", "--out", str(other)]) == 0
    assert main(["report", str(a), "--against", str(other)]) == 2
    assert "no scheduler and flow type in common" in capsys.readouterr().err


def test_time_series_of_the_seed_scenarios(fake_build, tmp_path):
    """Per-flow goodput (timeseries.csv) and per-packet scheduler delay (qdelay.csv), as the
    seed scenarios write them, are plotted per class like isp-tree's class_series.csv."""
    out = tmp_path / "ts"
    args = ["compare", "fake", "--build-dir", str(fake_build), "--schedulers", "FqCoDel,Msfc"]
    assert main(args + ["--set", "time-series=true", "--out", str(out), "--no-progress"]) == 0
    assert main(["report", str(out)]) == 0
    check_report(out / "report" / "index.html", ["goodput-time", "qdelay-time"])
    html = (out / "report" / "index.html").read_text()
    assert "in the scheduler per class over time, mean per 0.1 s" in html
    assert "summed over their path" not in html


def test_against_a_sweep_keeps_its_configurations_apart(fake_build, tmp_path, capsys):
    """A run against a sweep of Msfc.Ratio 1, 2, 4 with 2 seeds: each ratio is a point of its own
    over its own 2 RNG runs (they were pooled as 6 "RNG runs", with a Student-t interval of
    t = 2.57 over configurations), and 2 runs show their spread min..max, not a CI."""
    from msfc.analysis.report import against_pairs, group_ci
    from msfc.sim.runner import collect

    b = ["--build-dir", str(fake_build), "--no-progress", "--set", "duration=1"]
    a, sw = tmp_path / "a", tmp_path / "sw"
    assert main(["run", "fake", *b, "--out", str(a)]) == 0
    grid = ["--grid", "Msfc.Ratio=1,2,4", "--seeds", "2", "--jobs", "2"]
    assert main(["sweep", "fake", *b, *grid, "--out", str(sw)]) == 0
    capsys.readouterr()
    assert main(["report", str(a), "--against", str(sw)]) == 0
    index = a / "report-against-sw" / "index.html"
    check_report(index, ["against"])
    page = index.read_text()
    for r in ("1", "2", "4"):
        assert f"Msfc Msfc.Ratio={r} B/A" in page, page
    svg = (a / "report-against-sw" / "against.svg").read_text()
    assert "A: 1 RNG run; B: 2 RNG runs, min..max, too few for a CI" in svg
    sa, _ = collect(a)
    sb, _ = collect(sw)
    pairs = against_pairs(sa, sb, "down")
    assert set(pairs["b_runs"]) == {2} and set(pairs["a_runs"]) == {1}
    assert set(pairs["config"]) == {"Msfc.Ratio=1", "Msfc.Ratio=2", "Msfc.Ratio=4"}
    # no interval reaches below 0: with 2 runs it is the runs' own min..max
    t = group_ci(sb, "throughput_kbps", "type", "down")
    assert (t["lo"] >= 0).all() and set(t["n"]) == {2}
    assert {iv.kind for iv in t["interval"]} == {"range"}
    # the sweep's own report says the same
    assert main(["report", str(sw)]) == 0
    html = (sw / "report" / "index.html").read_text()
    assert "the spread min..max where it has 2" in html
    assert "min..max, too few for a CI" in (sw / "report" / "sweep-loss_ratio.svg").read_text()


@pytest.mark.parametrize("name", ["summary.parquet", "flow_metrics.parquet"])
def test_a_damaged_tidy_table_is_rebuilt_from_the_raw_records(fake_build, tmp_path, capsys, name):
    """A corrupted runs/*/summary.parquet stopped `msfc report` with pyarrow's ArrowInvalid
    traceback. Tidy tables are derived data: a damaged one is made again from the raw records
    (checked against done.json first), as a missing one is, and the report says so."""
    out = tmp_path / "r"
    argv = ["run", "fake", "--build-dir", str(fake_build), "--set", "duration=1"]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 0
    (run,) = out.glob("runs/*")
    good = pd.read_parquet(run / name)
    (run / name).write_bytes(b"PAR1 this is not what was written")
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"msfc: {run / name} was damaged (" in err and "rebuilt it from the run's raw" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    pd.testing.assert_frame_equal(pd.read_parquet(run / name), good)
    # without the run's config.json it cannot be rebuilt: one line saying how to make it again
    (run / name).write_bytes(b"")
    (run / "config.json").unlink()
    assert main(["report", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"msfc: error: {run / name} is damaged (" in err, err
    assert f"Delete {run} and repeat the command that made it" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
