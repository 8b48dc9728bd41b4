"""Ctrl-C and SIGTERM stop a sweep, or a comparison with more runs than --jobs, at once: no
queued simulation starts, the running ones are stopped and leave nothing half-written, the
finished ones are kept, the exit status is the conventional one (130, 143) and the same command
resumes (issue 29)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, real_build_dir

BUILD = real_build_dir("scenario-isp-tree")
#: what an interrupted simulation leaves in its run directory (no raw file, table or done.json)
LEFT = {"config.json", "stderr.txt", "stdout.txt", ".lock"}


def _start(args, cwd):
    return subprocess.Popen(
        [sys.executable, "-m", "msfc.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO / "python")),
        cwd=cwd,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        # a shell that starts the test suite in the background hands its children SIGINT
        # ignored, and an ignored signal stays so: restore Ctrl-C's default
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _wait_for(pattern: str, root: Path, proc, timeout: float = 120.0) -> None:
    deadline = time.time() + timeout
    while not list(root.glob(pattern)):
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, f"no {pattern} within {timeout:g} s"
        time.sleep(0.05)


def _send(proc, sig) -> None:
    if sig == signal.SIGINT:
        os.killpg(proc.pid, sig)  # a terminal's Ctrl-C reaches the whole foreground group
    else:
        os.kill(proc.pid, sig)  # kill, timeout, a batch system: msfc alone


def _check_run_dirs(out: Path) -> list[Path]:
    """The finished runs; every other run directory holds nothing half-written."""
    done = []
    for d in sorted((out / "runs").iterdir()):
        if (d / "done.json").exists():
            done.append(d)
        else:
            assert {f.name for f in d.iterdir()} <= LEFT, sorted(f.name for f in d.iterdir())
    return done


@pytest.mark.skipif(BUILD is None, reason="no build/scenario-isp-tree: run `make build`")
@pytest.mark.parametrize(
    "sig, jobs", [(signal.SIGINT, "1"), (signal.SIGTERM, "1"), (signal.SIGTERM, "2")]
)
def test_a_signal_stops_a_real_sweep_and_the_same_command_resumes(tmp_path, sig, jobs):
    out = tmp_path / "sw"
    args = ["sweep", "isp-tree", "--preset", "tiny", "--build-dir", str(BUILD)]
    args += ["--grid", "Msfc.Ratio=1.5,2,3", "--seeds", "2", "--jobs", jobs]
    args += ["--out", str(out), "--no-progress"]
    proc = _start(args, tmp_path)
    _wait_for("runs/*/done.json", out, proc)  # the first run has finished
    started = len(list((out / "runs").iterdir()))
    t0 = time.monotonic()
    _send(proc, sig)
    _, err = proc.communicate(timeout=60)
    took = time.monotonic() - t0
    # before: every queued simulation was started and finished first, then exit 130 for both
    assert proc.returncode == 128 + sig, err
    now = len(list((out / "runs").iterdir()))
    assert now <= started + 1 and now < 6, f"{now - started} simulations started after the signal"
    done = _check_run_dirs(out)
    assert 1 <= len(done) < 6, f"{len(done)} of 6 runs finished"
    assert took < 5, f"took {took:.1f} s to stop"
    name = "Ctrl-C" if sig == signal.SIGINT else "SIGTERM"
    assert f"msfc: interrupted ({name}); finished simulations are kept" in err, err
    assert "sweep interrupted:" in err and "Traceback" not in err and "FAILED" not in err, err
    assert not list(out.glob("runs/*/failed.json"))
    status = json.loads((out / "sweep-status.json").read_text())["results"]
    assert {r["status"] for r in status} <= {"done", "interrupted"}
    assert sum(r["status"] == "done" for r in status) == len(done)
    if sig == signal.SIGTERM and jobs == "1":
        # the same command runs only what is not finished
        again = subprocess.run(
            [sys.executable, "-m", "msfc.cli", *args],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(REPO / "python")),
            cwd=tmp_path,
            timeout=300,
        )
        assert again.returncode == 0, again.stderr
        assert f"{len(done)} of 6 configurations already done" in again.stderr, again.stderr
        assert len(_check_run_dirs(out)) == 6


def test_sigterm_stops_a_comparison_with_more_runs_than_jobs(fake_build, tmp_path):
    """compare --jobs 2 with 6 runs of ~4 s each: SIGTERM after the first progress line stops
    the two running simulations and starts none of the four queued ones."""
    out = tmp_path / "cmp"
    args = ["compare", "fake", "--build-dir", str(fake_build), "--schedulers", "FqCoDel,Msfc"]
    args += ["--seeds", "3", "--jobs", "2", "--set", "duration=2", "--set", "sleep=2"]
    args += ["--out", str(out), "--no-progress"]
    proc = _start(args, tmp_path)
    _wait_for("runs/*/progress.txt", out, proc, 60)
    t0 = time.monotonic()
    _send(proc, signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    took = time.monotonic() - t0
    assert proc.returncode == 143, err
    assert took < 3, f"took {took:.1f} s to stop"  # before: all six ran, 12 s
    assert "interrupted (SIGTERM)" in err and "Traceback" not in err, err
    assert len(list((out / "runs").iterdir())) <= 2  # the queued ones never started
    assert _check_run_dirs(out) == []
