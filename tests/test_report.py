"""Reports on fake-scenario results: every figure exists and is a valid image; links resolve."""

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from msfc.cli import main
from msfc.report import violin_density
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
        assert f"{name}.svg" in refs and f"{name}.png" in refs
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
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
            "throughput-type",
        ],
    )
    html = index.read_text()
    assert "Harmonic-mean delay" in html and "TVStream" in html
    # a comparison of the fake scenario has no thesis counterpart: no thesis tables beside it
    assert "Table 3.7" not in html and "thesis" not in html.split("<h2>Per flow type")[1]
    assert "delay_hmean_ms" in html  # definitions section
    assert "Queue disc counters" in html and "class 2" in html  # from qdisc.csv
    assert "Where packets are dropped" in html


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
        tmp_path / "rep" / "index.html", ["delay-violin-type", "delay-cdf-type", "throughput-type"]
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


def test_violin_density_is_weighted():
    h = pd.DataFrame(
        {"bin_start_s": [0.0, 0.01, 0.5], "bin_width_s": [0.01, 0.01, 0.01], "count": [100, 300, 4]}
    )
    y, d, above = violin_density(h, top=0.1, points=100)
    assert above == pytest.approx(4 / 404)
    # the bin with three times the packets is about three times as dense
    assert d[np.argmin(abs(y - 0.015))] / d[np.argmin(abs(y - 0.005))] == pytest.approx(3, rel=0.35)


def test_drop_locations_sum_drops_per_hop_kind():
    from msfc.report import drop_locations

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
