"""Seed 003 in small: the scenario program's short presets (`s1-test`, `s2-test`, `s3-test`)
under RB, WRED and MSFC, asserting each experiment's main finding as we reproduce it
(docs/seeds.md), run through the runner the benchmarks use (msfc.sim.runner.run_scenario).
About 30 s of CPU in all. Run: `pytest tests/seeds` after building.

The programs' raw files are read, never their printed text.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO
from msfc.sim.runner import run_scenario

BUILD = Path(os.environ.get("MSFC_BUILD_DIR", REPO / "build"))
EXE = BUILD / "scenario-class-aqm"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Run each (preset, scheduler, options) once per module."""
    if not EXE.is_file():
        pytest.fail(f"{EXE} missing: build the project first (or set MSFC_BUILD_DIR)")
    base = tmp_path_factory.mktemp("seed003")
    cache: dict[tuple, Path] = {}

    def get(preset: str, scheduler: str, **opts) -> Path:
        key = (preset, scheduler, tuple(sorted(opts.items())))
        if key not in cache:
            options = {"preset": preset, "scheduler": scheduler}
            options.update({k.replace("_", "-"): v for k, v in opts.items()})
            cache[key] = run_scenario(BUILD, "class-aqm", base, options)
        return cache[key]

    return get


def series(out: Path) -> list[dict]:
    return pd.read_csv(out / "class_timeseries.csv").astype(float).to_dict("records")


def mean_rate(out: Path, cls: int, t0: float, t1: float, col: str = "rate_bps") -> float:
    v = [r[col] for r in series(out) if r["class"] == cls and t0 < r["time_s"] <= t1]
    assert v, f"no samples of class {cls} in ({t0}, {t1}]"
    return sum(v) / len(v)


def mean_backlog(out: Path, t0: float, t1: float) -> float:
    v = [
        float(r["backlog_packets"])
        for r in pd.read_csv(out / "backlog.csv").to_dict("records")
        if t0 < float(r["time_s"]) <= t1
    ]
    return sum(v) / len(v)


# ------------------------------------------------------------------ the contract


def test_describe_and_bad_options(tmp_path):
    d = json.loads(
        subprocess.run([str(EXE), "--describe"], capture_output=True, text=True, check=True).stdout
    )
    assert d["scenario"] == "class-aqm"
    assert {"s1", "s2", "s3", "s1-test", "s2-test", "s3-test"} <= set(d["presets"])
    sched = next(p for p in d["params"] if p["name"] == "scheduler")
    assert {"WfqRb", "WfqWred", "Msfc", "DrrRb"} <= set(sched["choices"])
    for bad, word in [
        ("--scheduler=Nope", "scheduler"),
        ("--weights=1,2", "weights"),
        ("--class-kind=tcp,tcp,tcp,xyz", "xyz"),
        ("--rb-u=1.5", "RbUtilisation"),
        ("--ramp-class=7", "ramp-class"),
    ]:
        p = subprocess.run(
            [str(EXE), "--preset=s1-test", bad, f"--out={tmp_path / 'x'}"],
            capture_output=True,
            text=True,
        )
        assert p.returncode == 2 and word in p.stderr, (bad, p.stderr)
    assert not any(tmp_path.iterdir()), "a failed run must leave nothing behind"


def test_output_files(runs):
    out = runs("s2-test", "WfqRb")
    for f in ["meta.json", "flows.csv", "qdisc.csv", "class_timeseries.csv", "backlog.csv"]:
        assert (out / f).is_file(), f
    meta = json.loads((out / "meta.json").read_text())
    assert meta["scenario"] == "class-aqm" and meta["preset"] == "s2-test"
    q = pd.read_csv(out / "qdisc.csv").to_dict("records")
    assert [int(r["class"]) for r in q] == [0, 1, 2, 3], "one qdisc row per class"
    # what the scheduler sent equals what the time series counted
    sent = sum(int(r["dequeued_bytes"]) for r in q)
    counted = sum(r["rate_bps"] for r in series(out)) / 8  # 1 s samples
    assert abs(sent - counted) < 0.02 * sent


# ------------------------------------------------------------------ scenario 1
# s1-test: seed classes 1..4 (our 3..0) start at 0/4/8/12 s and stop at 20/28/36/44 s;
# all four are active in (12, 20].


def test_s1_rb_keeps_backlog_below_wred(runs):
    rb, wred = runs("s1-test", "WfqRb"), runs("s1-test", "WfqWred", wred_q=10)
    b_rb, b_wred = mean_backlog(rb, 13, 20), mean_backlog(wred, 13, 20)
    assert b_rb < 0.5 * b_wred, (b_rb, b_wred)
    # WRED's backlog grows with the load (seed Fig. 7): four classes vs one
    assert mean_backlog(wred, 13, 20) > 2 * mean_backlog(wred, 1, 4)
    # RB does not buy its short queue by idling the link
    util = sum(mean_rate(rb, c, 13, 20) for c in range(4)) / 1e6
    assert util > 0.85, util


@pytest.mark.parametrize("scheduler", ["WfqRb", "Msfc"])
def test_s1_class_rates_ordered_by_weight(runs, scheduler):
    out = runs("s1-test", scheduler)
    r = [mean_rate(out, c, 13, 20) for c in range(4)]  # W grows with the class
    assert r[0] < r[1] < r[2] < r[3], r
    if scheduler == "Msfc":  # 8:4:2:1 of the link within 5 %
        for c in range(4):
            share = 1e6 * (1 << c) / 15
            assert abs(r[c] / share - 1) < 0.05, (c, r[c], share)


# ------------------------------------------------------------------ scenario 2
# s2-test: UDP 0.8 Mbit/s in seed class 1 (our 3) from 0 s, TCP in seed class 3 (our 1) from
# 10 s and seed class 2 (our 2) from 20 s, UDP 0.05 Mbit/s in seed class 4 (our 0).


def test_s2_udp_throttled_to_its_share(runs):
    out = runs("s2-test", "WfqRb")
    assert mean_rate(out, 3, 2, 10) > 0.75e6, "alone, the UDP class gets its 0.8 Mbit/s"
    # all four active: the UDP class's share is 1001/1879 of 0.95 Mbit/s = 0.51 Mbit/s
    udp = mean_rate(out, 3, 24, 30)
    assert udp < 0.65e6, udp
    assert mean_rate(out, 3, 24, 30, "offered_bps") > 0.75e6, "it still offers 0.8 Mbit/s"
    assert mean_rate(out, 2, 24, 30) > 0.15e6 and mean_rate(out, 1, 24, 30) > 0.07e6
    assert mean_rate(out, 0, 24, 30) > 0.045e6, "the thin UDP class keeps its rate"


# ------------------------------------------------------------------ scenario 3
# s3-test: real-time class 1 ramps 20..120 TCP sessions against 8 bulk TCP (class 0), 2 Mbit/s.


def test_s3_goodput_within_deadline(runs):
    rt = {
        name: runs("s3-test", sched, **opts)
        for name, sched, opts in [
            ("RB80", "WfqRb", {"rb_u": "0.95,0.8"}),
            ("WRED10", "WfqWred", {"wred_q": 10}),
            ("WRED20", "WfqWred", {"wred_q": 20}),
            ("MSFC", "Msfc", {}),
        ]
    }
    intime = {k: mean_rate(v, 1, 10, 60, "deadline_bps") for k, v in rt.items()}
    served = {k: mean_rate(v, 1, 10, 60) for k, v in rt.items()}
    # RB serves nearly everything of the real-time class within 50 ms
    assert intime["RB80"] > 0.9 * served["RB80"], (intime, served)
    # a larger WRED queue (q = 20) delays a good part of it beyond 50 ms (seed sec. 3.2)
    assert intime["WRED20"] < 0.8 * served["WRED20"], (intime, served)
    assert intime["WRED20"] / served["WRED20"] < intime["RB80"] / served["RB80"] - 0.15
    # MSFC's per-flow CoDel lets the queue of 100+ flows grow: little arrives in time
    assert intime["MSFC"] < 0.5 * intime["RB80"], intime
    assert intime["MSFC"] < 0.5 * intime["WRED10"], intime
