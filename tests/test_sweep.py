"""Sweeps on a local Dask cluster: grid expansion, failures kept apart, resume."""

import json
import re

import pandas as pd
import pytest
from msfc.cli import main
from msfc.errors import UserError
from msfc.sim.programs import describe_scenario, describe_schedulers
from msfc.sim.sweep import expand, parse_grid


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
    with pytest.raises(UserError, match=r"Msfc.Ratio=100: ratio must be 1/65536 \.\. 16"):
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
        "--jobs",
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


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_port(port: int, proc, seconds: float = 90.0) -> None:
    import socket
    import time

    end = time.time() + seconds
    while time.time() < end:
        assert proc.poll() is None, "the Dask process exited"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"nothing listens on port {port} after {seconds} s")


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    """A real `dask scheduler` (with its dashboard) and one `dask worker`, on 127.0.0.1 only,
    started from the installed dask[distributed] and stopped at the end."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from conftest import REPO

    dask = str(Path(sys.executable).parent / "dask")
    port, dash = _free_port(), _free_port()
    log = tmp_path_factory.mktemp("dask")
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    addr = f"tcp://127.0.0.1:{port}"
    procs = []
    try:
        procs.append(
            subprocess.Popen(
                [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port)]
                + ["--dashboard-address", f"127.0.0.1:{dash}", "--no-show"],
                stdout=open(log / "scheduler.log", "w"),
                stderr=subprocess.STDOUT,
                env=env,
            )
        )
        _wait_for_port(port, procs[0])
        _wait_for_port(dash, procs[0])
        procs.append(
            subprocess.Popen(
                [dask, "worker", addr, "--host", "127.0.0.1", "--nworkers", "1"]
                + ["--nthreads", "2", "--no-dashboard"],
                stdout=open(log / "worker.log", "w"),
                stderr=subprocess.STDOUT,
                env=env,
            )
        )
        yield {"address": addr, "dashboard": f"tcp://127.0.0.1:{dash}", "port": port}
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def test_sweep_with_seeds_on_an_existing_cluster(dask_cluster, fake_build, tmp_path, capsys):
    out = tmp_path / "sw2"
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
                "--dask",
                dask_cluster["address"],
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
            "--scheduler-address",  # the old spelling of --dask
            "tcp://127.0.0.1:9",
            "--no-progress",
        ]
    )
    assert rc == 2
    err = capsys.readouterr().err
    assert "--scheduler-address is now --dask (the old name still works)" in err
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err
    assert not (tmp_path / "x").exists()


def test_wrong_dask_addresses_end_in_one_message(dask_cluster, fake_build, tmp_path, capsys):
    """A wrong scheme, the dashboard's port, a service that is not Dask: one message each, quickly,
    and no results directory."""
    import socket
    import threading
    import time

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    held = []
    threading.Thread(target=lambda: held.append(silent.accept()), daemon=True).start()
    port = dask_cluster["port"]
    cases = [
        (f"http://127.0.0.1:{port}", "'http://' is not a Dask address (http:// is the address of"),
        (dask_cluster["dashboard"], "it is a web server: the Dask dashboard?"),
        (f"tcp://127.0.0.1:{silent.getsockname()[1]}", "it does not answer as a Dask scheduler"),
        ("tcp://127.0.0.1", "expected tcp://HOST:PORT"),
    ]
    for address, expect in cases:
        t0 = time.time()
        rc = main(
            ["sweep", "fake", "--build-dir", str(fake_build), "--grid", "duration=1"]
            + ["--out", str(tmp_path / "x"), "--dask", address, "--no-progress"]
        )
        err = capsys.readouterr().err
        assert rc == 2 and expect in err and err.startswith("msfc: error: --dask"), (address, err)
        assert "tcp://127.0.0.1:8786" in err  # the form of a right address
        assert time.time() - t0 < 30
        assert not (tmp_path / "x").exists()
    silent.close()


def test_workers_is_the_old_name_of_jobs(fake_build, tmp_path, capsys):
    args = ["sweep", "fake", "--build-dir", str(fake_build), "--grid", "duration=1,2"]
    args += ["--out", str(tmp_path / "w"), "--no-progress"]
    assert main(args + ["--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert (
        "--workers is now --jobs, as in msfc compare" in err and "--jobs 0 is out of range" in err
    )
    assert main(args + ["--jobs", "2"]) == 0
