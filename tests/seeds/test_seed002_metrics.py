"""Metrics of the seed 002 shaping experiments (msfc.seeds.shaping_metrics) and the checks and
tables of msfc.seeds.shaping on hand-made results. The experiments themselves run in the UML
kernel: `make -C kernel test` (kernel/scripts/check_shaping.py) and `make bench-seed002`.
"""

from __future__ import annotations

import json

import pytest
from msfc.seeds import shaping
from msfc.seeds import shaping_metrics as sm


@pytest.mark.parametrize(
    "rate,hz,expected",
    [
        # one 1414-byte frame every ceil(frame time / tick) ticks
        (500_000, 100, 1414 * 8 * 100 / 3),  # 22.6 ms -> 3 ticks: 377 kbit/s (seed: < 400)
        (800_000, 100, 1414 * 8 * 100 / 2),  # 14.1 ms -> 2 ticks: 566 kbit/s (seed: < 600)
        (2_000_000, 100, 1414 * 8 * 100),  # faster than one frame per tick: capped
        (2_000_000, 1000, 1414 * 8 * 1000 / 6),  # 5.66 ms -> 6 ticks: 1.885 Mbit/s (seed: 1.9)
        (100_000, 100, 1414 * 8 * 100 / 12),  # 113.1 ms -> 12 ticks: 94 kbit/s
        (1414 * 8 * 10, 100, 1414 * 8 * 10),  # frame time exactly 10 ticks: the rate itself
    ],
)
def test_quantised_rate(rate, hz, expected):
    assert sm.quantised_rate(rate, hz) == pytest.approx(expected, rel=1e-9)


def boot(highres="on"):
    return {"hz": 100, "highres": highres, "time_travel": "inf-cpu"}


def test_rate_rows():
    res = {
        "boot": boot("off"),
        "experiments": [
            {
                "experiment": "rate",
                "flows": [
                    {
                        "shaper": "tbf-mtu",
                        "kind": "tbf",
                        "burst": 1514,
                        "configured_bps": 500_000,
                        "offered_bps": 750_000,
                        "achieved_bps": 377_066.7,
                        "delivered": 166,
                    }
                ],
            }
        ],
    }
    (r,) = sm.rate_rows(res)
    assert r["ratio"] == pytest.approx(0.7541, abs=1e-4)
    assert r["tick_model_bps"] == pytest.approx(377_066.7, abs=0.1)
    res["boot"]["highres"] = "on"
    assert sm.rate_rows(res)[0]["tick_model_bps"] == ""


@pytest.mark.parametrize(
    "rate,hz,bucket,expected",
    [
        (500_000, 100, 1514, 1414 * 8 * 100 / 3),  # the ceil model where no tokens carry over
        (1_000_000, 100, 1514, 1414 * 8 * 100 / 2),
        (2_000_000, 100, 1514, 1414 * 8 * 100),
        (2_000_000, 1000, 1514, 1414 * 8 * 1000 / 6),  # seed Fig. 15: 2 Mbit/s -> 1.9 at HZ=1024
        (10_000_000, 100, 10240, 7 * 1414 * 8 * 100),  # 10 KB bucket: 7 frames per 10 ms tick
        (1_000_000, 100, 10240, 1_000_000),  # bucket > one tick of tokens: exact
    ],
)
def test_tbf_tick_rate(rate, hz, bucket, expected):
    assert sm.tbf_tick_rate(rate, hz, bucket) == pytest.approx(expected, rel=2e-3)


def test_tbf_tick_rate_rejects_a_bucket_below_one_frame():
    with pytest.raises(ValueError, match="smaller than"):
        sm.tbf_tick_rate(1_000_000, 100, 1000)


def interference(bins, gaps, flood=None):
    spec = {"bin": 0.1, "flood_start": 1.0, "flood_end": 2.0, "guarantee_mbit": 1}
    run = {"scheduler": "htb", "flood_mbit": 12, "tcp": {"bins": bins, "gaps": gaps}}
    if flood is not None:
        run["flood"] = {"bins": flood}
    return {
        "boot": boot(),
        "experiments": [{"experiment": "interference", "spec": spec, "runs": [run]}],
    }


def test_interference_rows_counts_intervals_and_gaps():
    # 3 s in 100 ms bins; 1.5 Mbit/s = 18750 bytes per bin; in the flood window [1, 2) two bins
    # below 1 Mbit/s (12500 bytes), one of them empty; a 0.25 s gap starting at 1.4 s
    full, low = 18750, 10000
    bins = [full] * 10 + [full, full, full, full, 0, low, full, full, full, full] + [full] * 10
    gaps = [(1.4, 0.25), (0.3, 0.5), (2.5, 0.9)]  # the two others lie outside the flood
    flood = [0] * 10 + [106250] * 10 + [0] * 10  # 8.5 Mbit/s during the flood
    (r,) = sm.interference_rows(interference(bins, gaps, flood))
    assert r["intervals"] == 10
    assert r["intervals_below_guarantee"] == 2
    assert r["intervals_empty"] == 1
    assert r["longest_gap_s"] == pytest.approx(0.25)
    assert r["tcp_during_mbit"] == pytest.approx((8 * full + low) * 8 / 1e6)
    assert r["tcp_min_100ms_mbit"] == 0.0
    assert r["flood_delivered_mbit"] == pytest.approx(8.5)


def test_interference_rows_total_stall():
    bins = [18750] * 10 + [0] * 20
    (r,) = sm.interference_rows(interference(bins, [(0.95, 0.05)]))
    # no delivery at all during the flood: the gap is at least the whole flood window
    assert r["tcp_during_mbit"] == 0.0
    assert r["intervals_empty"] == 10
    assert r["longest_gap_s"] == pytest.approx(1.0)


def multiflow():
    spec = {
        "bin": 0.5,
        "flows": [
            {"name": "A", "mbit": 1.5, "ip_len": 1400, "class_mbit": 2, "start": 0, "stop": 6},
            {"name": "D", "mbit": 5.0, "ip_len": 1400, "class_mbit": 2, "start": 4, "stop": 6},
        ],
    }
    mbit = 1e6 / 8 * 0.5  # bytes per 0.5 s bin at 1 Mbit/s
    run = {
        "scheduler": "cbq",
        "flows": {
            "A": {"bins": [1.5 * mbit] * 8 + [1.0 * mbit, 0.5 * mbit, 1.5 * mbit, 1.5 * mbit]},
            "D": {"bins": [0] * 8 + [2 * mbit, 2 * mbit, 3 * mbit, 3 * mbit]},
        },
    }
    return {
        "boot": boot(),
        "experiments": [{"experiment": "multiflow", "spec": spec, "runs": [run]}],
    }


def test_multiflow_rows():
    # the 3 s before D starts (bins 2..7) and while it runs (bins 8..11)
    a, d = sm.multiflow_rows(multiflow())
    assert (a["flow"], d["flow"]) == ("A", "D")
    assert a["before_mbit"] == pytest.approx(1.5)
    assert a["during_mbit"] == pytest.approx(1.125)
    assert a["min_100ms_during_mbit"] == pytest.approx(0.5)
    assert d["before_mbit"] == 0.0
    assert d["during_mbit"] == pytest.approx(2.5)


def shaping_result(tmp_path, name, res):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(dict(res, timer={"kernel": "5.10.262"})))
    return str(path)


def test_check_cbq_command(tmp_path, capsys):
    """`python -m msfc.seeds.shaping check-cbq`: one line per check, exit 1 on a failure."""
    bins = [18750] * 30
    good = interference(bins, [(1.4, 0.05)], [106250] * 30)
    assert shaping.main(["check-cbq", shaping_result(tmp_path, "good", good)]) == 0
    out = capsys.readouterr().out
    assert "ok 1 - kernel 5.10.262" in out and "all 4 checks passed" in out
    stalled = interference([18750] * 10 + [0] * 20, [(0.95, 0.05)])
    assert shaping.main(["check-cbq", shaping_result(tmp_path, "stalled", stalled)]) == 1
    out = capsys.readouterr().out
    assert "not ok 3 - htb flood 12: no empty 100 ms interval" in out


def test_cbq_tables_command(tmp_path):
    """`python -m msfc.seeds.shaping cbq-tables` writes the tidy CSVs and tables.md."""
    res = interference([18750] * 30, [(1.4, 0.05)], [106250] * 30)
    res["experiments"] += multiflow()["experiments"]
    res["experiments"].append(
        {
            "experiment": "rate",
            "flows": [
                {
                    "shaper": "cbq",
                    "kind": "cbq",
                    "burst": None,
                    "configured_bps": 500_000,
                    "offered_bps": 750_000,
                    "achieved_bps": 499_300.0,
                    "delivered": 200,
                }
            ],
        }
    )
    out = tmp_path / "out"
    assert shaping.main(["cbq-tables", str(out), shaping_result(tmp_path, "r", res)]) == 0
    for name in ("rate_accuracy.csv", "interference_summary.csv", "multiflow_summary.csv"):
        assert (out / name).read_text().count("\n") >= 2
    tables = (out / "tables.md").read_text()
    assert "| 500 | 499 |" in tables
    assert "| htb | 12 | high-res | 1.500 |" in tables


def test_shaping_command_refuses_what_is_not_a_result(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("{}")
    with pytest.raises(SystemExit, match="no 'boot' or 'experiments'"):
        shaping.main(["check-cbq", str(path)])


def test_rate_rows_command_writes_the_rows_msfcs_shaper_table_reads(tmp_path):
    """`python -m msfc.seeds.shaping rate-rows`: every rate experiment's rows of the boots in
    one CSV, which docs/kernel.md's table of msfc's own shaper renders."""
    from msfc.analysis import doctables as D

    flows = []
    for name, ratio in (
        ("msfc", 1.0),
        ("msfc-codel-off", 1.0),
        ("msfc-overhead", 0.98331),
        ("msfc-atm", 0.889308),
    ):
        for rate in (1_000_000, 10_000_000):
            flows.append(
                {
                    "shaper": name,
                    "kind": "msfc",
                    "burst": None,
                    "configured_bps": rate,
                    "offered_bps": 1.5 * rate,
                    "achieved_bps": ratio * rate,
                    "delivered": 100,
                }
            )
    res = {"boot": boot(), "experiments": [{"experiment": "rate", "flows": flows}]}
    out = tmp_path / "rate.csv"
    assert shaping.main(["rate-rows", str(out), shaping_result(tmp_path, "r", res)]) == 0
    table = D._msfc_shaper(D.pd.read_csv(out)).splitlines()
    assert table[0].startswith("| bandwidth | msfc (CoDel on) | msfc, CoDel off |")
    assert "(charged 1438, expected 0.983310)" in table[0]
    assert table[2] == "| 1 Mbit/s | 1.000000 | 1.000000 | 0.983310 | 0.889308 |"
    assert table[3].startswith("| 10 Mbit/s |")
    with pytest.raises(D.UserError, match="no msfc-atm"):
        D._msfc_shaper(D.pd.read_csv(out).query("shaper != 'msfc-atm'"))
    empty = {"boot": boot(), "experiments": []}
    with pytest.raises(SystemExit, match="no rate experiment"):
        shaping.main(["rate-rows", str(out), shaping_result(tmp_path, "e", empty)])
