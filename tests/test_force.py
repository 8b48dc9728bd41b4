"""`--force` into a directory that already holds results, and one writer per directory: a
second msfc command (or a simulation still running for an interrupted sweep) is refused instead
of writing the same files, which left runs whose files changed after done.json recorded them."""

import fcntl
import json
import os
import subprocess
import sys
import time

import pandas as pd
from conftest import REPO
from msfc.cli import main


def _sweep(fake_build, out, *extra):
    return [
        "sweep",
        "fake",
        "--build-dir",
        str(fake_build),
        "--out",
        str(out),
        "--no-progress",
        *extra,
    ]


def _done_times(out) -> dict:
    return {p.parent.name: p.stat().st_mtime_ns for p in out.glob("runs/*/done.json")}


def test_force_while_another_command_writes_the_directory(fake_build, tmp_path, capsys):
    out = tmp_path / "s"
    grid = ["--grid", "duration=2,3", "--set", "sleep=1", "--jobs", "2"]  # 2-3 s of wall time
    proc = subprocess.Popen(
        [sys.executable, "-m", "msfc.cli", *_sweep(fake_build, out, *grid)],
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(REPO / "python")),
    )
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not list(out.glob("runs/*/progress.txt")):
            time.sleep(0.1)
        assert main(_sweep(fake_build, out, *grid, "--force")) == 1
        err = capsys.readouterr().err
        assert f"{out} is in use by another msfc command (pid {proc.pid}" in err, err
        assert "msfc sweep fake" in err and "give --out another directory" in err
        assert "Traceback" not in err
    finally:
        _, first_err = proc.communicate(timeout=120)
    assert proc.returncode == 0, first_err
    # the first command's results are whole, and the directory is free again
    assert main(["report", str(out)]) == 0
    assert main(_sweep(fake_build, out, "--grid", "duration=1", "--force")) == 0


def test_a_configuration_running_elsewhere_is_not_started_again(fake_build, tmp_path, capsys):
    """A Dask worker goes on with the task of an interrupted sweep; repeating the sweep (with or
    without --force) must not start a second simulation into the same run directory."""
    out = tmp_path / "d"
    args = _sweep(fake_build, out, "--grid", "duration=1,2")
    assert main(args) == 0
    runs = sorted((out / "runs").iterdir())
    busy = runs[0]
    capsys.readouterr()
    fd = os.open(busy / ".lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, json.dumps({"pid": 4242, "host": "worker1"}).encode())
        before = _done_times(out)
        assert main(args + ["--force"]) == 1
        err = capsys.readouterr().err
        assert f"another process is running this configuration into {busy}" in err, err
        assert "pid 4242 on worker1" in err and "0 already done, 1 failed" in err
        assert "Traceback" not in err
        after = _done_times(out)
        assert after[busy.name] == before[busy.name]  # untouched
        assert after[runs[1].name] != before[runs[1].name]  # the other one ran again
    finally:
        os.close(fd)
    assert main(args + ["--force"]) == 0
    assert main(["report", str(out)]) == 0


def test_force_with_another_grid_replaces_the_study(fake_build, tmp_path, capsys):
    out = tmp_path / "g"
    assert main(_sweep(fake_build, out, "--grid", "duration=1,2")) == 0
    old = set(json.loads((out / "study.json").read_text())["configs"])
    before = _done_times(out)
    assert main(_sweep(fake_build, out, "--grid", "flows-per-type=1,3", "--force")) == 0
    assert _done_times(out).items() >= before.items()  # other configurations' runs are kept
    study = json.loads((out / "study.json").read_text())
    assert study["grid"] == [{"key": "flows-per-type", "values": ["1", "3"]}]
    assert "--force" in study["argv"] and not old & set(study["configs"])
    s = pd.read_csv(out / "summary.csv")
    assert set(s["config_hash"]) == set(study["configs"])
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    # a forced study none of whose runs finishes leaves no tables of the earlier one behind
    assert (
        main(_sweep(fake_build, out, "--grid", "duration=3", "--set", "fail=true", "--force")) == 1
    )
    assert not (out / "summary.csv").exists() and not (out / "flows.parquet").exists()
    assert "no finished simulation" in (
        subprocess.run(
            [sys.executable, "-m", "msfc.cli", "report", str(out)],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(REPO / "python")),
        ).stderr
    )


def test_force_after_an_interrupted_run(fake_build, tmp_path, capsys):
    """Leftovers of a run that never finished (no done.json) are replaced, not mistaken for it."""
    out = tmp_path / "i"
    args = _sweep(fake_build, out, "--grid", "duration=1")
    assert main(args) == 0
    d = sorted((out / "runs").iterdir())[0]
    (d / "done.json").unlink()
    (d / "meta.json").write_text("{")  # half-written by the killed program
    assert main(args + ["--force"]) == 0
    assert json.loads((d / "meta.json").read_text())
    assert main(["report", str(out)]) == 0


def test_raw_files_written_again_are_recorded_again(fake_build, tmp_path):
    """A run directory whose raw files are written anew (the Linux testbed writes its runs into
    the same directory each time) is recorded anew; a table rebuild keeps the first record, so
    an edit made since is still noticed."""
    from msfc.sim.config import RunConfig
    from msfc.sim.runner import postprocess, raw_problem, refresh_derived

    out = tmp_path / "t"
    assert main(_sweep(fake_build, out, "--grid", "duration=1")) == 0
    d = next((out / "runs").iterdir())
    cfg = RunConfig.from_json(json.loads((d / "config.json").read_text()))
    meta = json.loads((d / "meta.json").read_text())
    (d / "meta.json").write_text(json.dumps({**meta, "wall_seconds": 99.0}))
    postprocess(d, cfg)  # as testbed.write_run after writing the files again
    assert raw_problem(d) is None
    (d / "meta.json").write_text(json.dumps(meta))
    (d / "summary.parquet").unlink()
    refresh_derived(d)
    assert raw_problem(d) == "meta.json has changed since the run finished (SHA-256 differs)"
