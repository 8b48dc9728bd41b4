"""Sweeps on a local Dask cluster: grid expansion, failures kept apart, resume."""

import json
import re

import pandas as pd
import pytest
from msfc.cli import main
from msfc.errors import UserError
from msfc.programs import describe_scenario, describe_schedulers
from msfc.sweep import expand, parse_grid


def test_parse_grid():
    assert parse_grid(["Msfc.Ratio=1,2,4", "duration=2"]) == [
        ("Msfc.Ratio", ["1", "2", "4"]),
        ("duration", ["2"]),
    ]
    with pytest.raises(UserError, match="given twice"):
        parse_grid(["duration=1", "duration=2"])
    with pytest.raises(UserError, match="repeated"):
        parse_grid(["duration=1,1"])
    with pytest.raises(UserError, match="empty value"):
        parse_grid(["duration=1,,2"])


def test_expand_validates_every_point(fake_build):
    info = describe_scenario("fake", fake_build)
    sch = describe_schedulers(fake_build)
    cfgs = expand(
        info,
        parse_grid(["Msfc.Ratio=1,2", "scheduler=Msfc,CoDel"]),
        [("duration", "1")],
        preset=None,
        scheduler=None,
        seeds=3,
        schedulers_loader=lambda: sch,
    )
    # CoDel ignores Msfc.Ratio: its two grid points are one simulation, run once per seed
    assert len(cfgs) == 2 * 2 * 3 and len({c.hash() for c in cfgs}) == 2 * 3 + 3
    assert all(
        c.attrs == {} and c.ignored == ["Msfc.Ratio"] for c in cfgs if c.scheduler == "CoDel"
    )
    assert {c.rng_run for c in cfgs} == {1, 2, 3}
    for sched in ("CoDel", None):  # the attribute of a scheduler the sweep never runs
        with pytest.raises(UserError, match=r"'Msfc.Ratio' applies to (a|the) scheduler "):
            expand(
                info,
                parse_grid(["Msfc.Ratio=1,2"] + ([] if sched else ["scheduler=CoDel,FqCoDel"])),
                [],
                preset=None,
                scheduler=sched,
                seeds=1,
                schedulers_loader=lambda: sch,
            )
    with pytest.raises(UserError, match="allowed range 0.0000153..16"):
        expand(
            info,
            parse_grid(["Msfc.Ratio=1,100"]),
            [],
            preset=None,
            scheduler=None,
            seeds=1,
            schedulers_loader=lambda: sch,
        )


def test_two_task_sweep_with_a_failure_then_resume(fake_build, tmp_path, capsys):
    out = tmp_path / "sw"
    args = [
        "sweep",
        "fake",
        "--build-dir",
        str(fake_build),
        "--grid",
        "fail=false,true",
        "--set",
        "duration=1",
        "--out",
        str(out),
        "--workers",
        "2",
        "--no-progress",
    ]
    assert main(args) == 1  # one task failed ...
    err = capsys.readouterr().err
    assert re.search(
        r"FAILED duration=1 fail=true run=1 \(exit code 1", err
    )  # ... reported with its config
    assert "failed on purpose" in err  # ... and its stderr tail
    assert "1 ran, 0 already done, 1 failed" in err
    status = json.loads((out / "sweep-status.json").read_text())["results"]
    assert sorted(r["status"] for r in status) == ["done", "failed"]
    s = pd.read_parquet(out / "summary.parquet")  # ... the rest is kept
    assert set(s["cfg.fail"]) == {"false"}
    done_file = next((out / "runs").glob("*/done.json"))
    mtime = done_file.stat().st_mtime_ns
    assert main(args) == 1  # resume: only the failed one runs again
    err = capsys.readouterr().err
    assert "1 of 2 configurations already done" in err and "0 ran, 1 already done, 1 failed" in err
    assert done_file.stat().st_mtime_ns == mtime


def test_sweep_with_seeds_on_an_existing_cluster(fake_build, tmp_path, capsys):
    from dask.distributed import LocalCluster

    out = tmp_path / "sw2"
    with LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=False,
        protocol="tcp://",
        dashboard_address=None,
    ) as cluster:
        assert (
            main(
                [
                    "sweep",
                    "fake",
                    "--build-dir",
                    str(fake_build),
                    "--grid",
                    "Msfc.Ratio=1,4",
                    "--seeds",
                    "2",
                    "--set",
                    "duration=1",
                    "--set",
                    "flows-per-type=1",
                    "--out",
                    str(out),
                    "--scheduler-address",
                    cluster.scheduler_address,
                    "--no-progress",
                ]
            )
            == 0
        )
    s = pd.read_parquet(out / "summary.parquet")
    o = s[(s.level == "overall") & (s.direction == "down")]
    assert len(o) == 4 and set(o["attr.Msfc.Ratio"]) == {"1", "4"} and set(o["rng_run"]) == {1, 2}
    text = capsys.readouterr().out
    assert "Msfc.Ratio=1" in text and "Msfc.Ratio=4" in text
    study = json.loads((out / "study.json").read_text())
    assert study["grid_columns"] == ["attr.Msfc.Ratio"]


def test_unreachable_scheduler_address(fake_build, tmp_path, capsys):
    rc = main(
        [
            "sweep",
            "fake",
            "--build-dir",
            str(fake_build),
            "--grid",
            "duration=1",
            "--out",
            str(tmp_path / "x"),
            "--scheduler-address",
            "tcp://127.0.0.1:9",
            "--no-progress",
        ]
    )
    assert rc == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in capsys.readouterr().err
