"""The msfc command: run, compare, list, errors and resume, on the fake scenario program."""

import json
import os
import subprocess
import sys

import pandas as pd
from conftest import REPO
from msfc.cli import main


def msfc_subprocess(*args, cwd=None, env=None):
    """The command as users run it (a separate process), to check exit codes and stderr."""
    e = dict(os.environ, PYTHONPATH=str(REPO / "python"), **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "msfc.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=e,
        timeout=120,
    )


def test_list(fake_build, capsys):
    assert main(["list", "--build-dir", str(fake_build)]) == 0
    out = capsys.readouterr().out
    assert "Scenario fake" in out and "flows-per-type" in out and "[1 .. 50]" in out
    assert "Msfc (ns3::MsfcQueueDisc)" in out and "Ratio" in out and "[1/65536 .. 16 " in out
    assert main(["list", "--build-dir", str(fake_build), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["scenarios"][0]["scenario"] == "fake" and d["schedulers"][0]["name"] == "Msfc"


def test_list_without_msfc_describe_names_make_build(fake_build_no_describe, capsys):
    assert main(["list", "--build-dir", str(fake_build_no_describe)]) == 0
    assert "msfc-describe is missing; build it with `make build`" in capsys.readouterr().out


def test_build_dir_from_environment(fake_build, monkeypatch, capsys):
    monkeypatch.setenv("MSFC_BUILD_DIR", str(fake_build))
    assert main(["list"]) == 0
    assert "Scenario fake" in capsys.readouterr().out


def test_user_errors_have_no_traceback(fake_build, tmp_path, capsys):
    cases = [
        (["run", "nosuch", "--build-dir", str(fake_build)], "valid scenarios: fake"),
        (["run", "fake", "--build-dir", str(tmp_path / "empty")], "make build"),
        (
            ["run", "fake", "--build-dir", str(fake_build), "--set", "duration=0"],
            "allowed range 0.1 .. 1000",
        ),
        (
            ["run", "fake", "--build-dir", str(fake_build), "--scheduler", "Cake"],
            "valid values: PfifoFast",
        ),
        (
            ["run", "fake", "--build-dir", str(fake_build), "--set", "Msfc.Ratio=100"],
            "Msfc.Ratio=100: ratio must be 1/65536 .. 16",
        ),
        (
            ["compare", "fake", "--build-dir", str(fake_build), "--schedulers", "CoDel,Sfq"],
            "valid values",
        ),
        (["report", str(tmp_path)], "not an msfc results directory"),
        (["sweep", "fake", "--build-dir", str(fake_build), "--grid", "duration="], "empty value"),
        (
            ["compare", "fake", "--build-dir", str(fake_build), "--schedulers", "CoDel"]
            + ["--jobs", "0"],
            "--jobs 0 is out of range",
        ),
        (["run", "fake", "--build-dir", str(fake_build), "--timeout", "-1"], "> 0"),
    ]
    for args, expect in cases:
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert expect in err, (args, err)
        assert err.startswith("msfc: error: ")
        assert not (tmp_path / "results").exists(), args  # nothing written
    for args, expect in cases[:2]:  # as a separate process: no traceback
        r = msfc_subprocess(*args, cwd=tmp_path)
        assert r.returncode == 2, (args, r.stderr)
        assert expect in r.stderr and "Traceback" not in r.stderr


def test_run_writes_tidy_data(fake_build, tmp_path, capsys):
    out = tmp_path / "res"
    rc = main(
        [
            "run",
            "fake",
            "--build-dir",
            str(fake_build),
            "--scheduler",
            "Msfc",
            "--set",
            "duration=2",
            "--set",
            "Msfc.Ratio=4",
            "--run",
            "3",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert "Per flow type (down)" in text and "TVStream" in text and "Per priority" in text
    study = json.loads((out / "study.json").read_text())
    (h,) = study["configs"]
    d = out / "runs" / h
    for f in (
        "flows.csv",
        "delay_hist.csv",
        "meta.json",
        "config.json",
        "done.json",
        "flow_metrics.parquet",
        "flow_metrics.csv",
        "summary.parquet",
        "summary.csv",
    ):
        assert (d / f).exists(), f
    # the latest progress line is kept for watching long runs
    assert (d / "progress.txt").read_text().split()[:2] == ["2", "2"]
    cfg = json.loads((d / "config.json").read_text())
    assert "--ns3::MsfcQueueDisc::Ratio=4" in cfg["argv"] and "--RngRun=3" in cfg["argv"]
    s = pd.read_parquet(out / "summary.parquet")
    assert set(s["direction"]) == {"down", "up", "all"}
    assert set(s["scheduler"]) == {"Msfc"} and set(s["rng_run"]) == {3}
    assert set(s["attr.Msfc.Ratio"]) == {"4"} and set(s["cfg.duration"]) == {"2"}
    assert "meta.wall_seconds" in s.columns
    f = pd.read_parquet(out / "flows.parquet")
    assert {"throughput_kbps", "delay_mean_ms", "config_hash"} <= set(f.columns)
    assert pd.read_csv(d / "summary.csv").shape == pd.read_parquet(d / "summary.parquet").shape


def test_run_resumes_and_force_reruns(fake_build, tmp_path, capsys):
    args = [
        "run",
        "fake",
        "--build-dir",
        str(fake_build),
        "--out",
        str(tmp_path / "r"),
        "--no-progress",
    ]
    assert main(args) == 0
    (h,) = json.loads((tmp_path / "r" / "study.json").read_text())["configs"]
    done = tmp_path / "r" / "runs" / h / "done.json"
    first = done.stat().st_mtime_ns
    capsys.readouterr()
    assert main(args) == 0
    assert "already done" in capsys.readouterr().err
    assert done.stat().st_mtime_ns == first
    assert main(args + ["--force"]) == 0
    assert done.stat().st_mtime_ns != first


def test_interrupted_run_is_redone(fake_build, tmp_path, capsys):
    """A directory without done.json (a killed run) is not taken as a result."""
    args = [
        "run",
        "fake",
        "--build-dir",
        str(fake_build),
        "--out",
        str(tmp_path / "r"),
        "--no-progress",
    ]
    assert main(args) == 0
    (h,) = json.loads((tmp_path / "r" / "study.json").read_text())["configs"]
    d = tmp_path / "r" / "runs" / h
    (d / "done.json").unlink()
    (d / "flows.csv").write_text("flow_id\n")  # half-written leftovers
    capsys.readouterr()
    assert main(args) == 0
    assert "already done" not in capsys.readouterr().err
    assert (d / "done.json").exists() and len(pd.read_csv(d / "flows.csv")) > 1


def test_failed_run_reports_stderr_and_exit_code(fake_build, tmp_path):
    r = msfc_subprocess(
        "run",
        "fake",
        "--build-dir",
        str(fake_build),
        "--set",
        "fail=true",
        "--out",
        str(tmp_path / "f"),
        cwd=tmp_path,
    )
    assert r.returncode == 1
    assert "failed (exit code 1)" in r.stderr and "failed on purpose" in r.stderr
    assert "Traceback" not in r.stderr
    (h,) = json.loads((tmp_path / "f" / "study.json").read_text())["configs"]
    assert json.loads((tmp_path / "f" / "runs" / h / "failed.json").read_text())["returncode"] == 1


def test_progress_lines_when_not_a_tty(fake_build, tmp_path):
    r = msfc_subprocess(
        "run",
        "fake",
        "--build-dir",
        str(fake_build),
        "--set",
        "duration=3",
        "--out",
        str(tmp_path / "p"),
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if "sim-s" in ln]
    assert lines and lines[-1].endswith("3/3 sim-s")
    assert "\r" not in r.stderr  # no bar redraws in a log


def test_default_out_is_keyed_by_the_request(fake_build, tmp_path, capsys):
    assert main(["run", "fake", "--build-dir", str(fake_build), "--no-progress"]) == 0
    assert main(["run", "fake", "--build-dir", str(fake_build), "--no-progress"]) == 0
    dirs = list((tmp_path / "results").iterdir())
    assert len(dirs) == 1 and dirs[0].name.startswith("fake-run-")


def test_compare_tables_and_thesis(fake_isp_build, tmp_path, capsys):
    out = tmp_path / "c"
    args = ["compare", "isp-tree", "--build-dir", str(fake_isp_build), "--schedulers"]
    args += ["Msfc,CoDel", "--seeds", "2", "--out", str(out), "--thesis", "--no-progress"]
    rc = main(args + ["--preset", "thesis", "--jobs", "2"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "Overall (down, like thesis Table 3.4)" in text
    assert "Harmonic-mean delay (ms)" in text
    header = [ln for ln in text.splitlines() if ln.startswith("type") and "Msfc" in ln][0]
    assert header.index("Msfc") < header.index("CoDel")  # the order asked for
    assert "Table 3.7" in text and "Msfc thesis" in text and "3185.29" in text
    assert "x0.25" not in text and "differs from the thesis" not in text  # like with like
    s = pd.read_parquet(out / "summary.parquet")
    assert sorted(s["rng_run"].unique()) == [1, 2] and set(s["scheduler"]) == {"Msfc", "CoDel"}
    study = json.loads((out / "study.json").read_text())
    assert len(study["configs"]) == 4 and study["thesis"]["scale"] == 1.0
    # the same command with --format markdown reprints the finished runs as pipe tables
    rc = main(args + ["--preset", "thesis", "--format", "markdown"])
    assert rc == 0
    cap = capsys.readouterr()
    assert cap.err.count("already done") == 4  # nothing simulated again
    assert "| type | Msfc | CoDel |" in cap.out and "**Table 3.7:" in cap.out
    assert "| TV | 3185.29 | " in cap.out  # thesis Msfc: the order asked for


def test_thesis_columns_of_a_scaled_preset_are_scaled_and_say_so(fake_isp_build, tmp_path, capsys):
    args = ["compare", "isp-tree", "--build-dir", str(fake_isp_build), "--schedulers", "Msfc"]
    args += ["--thesis", "--no-progress", "--out", str(tmp_path / "q")]
    for fmt in ("text", "markdown"):
        assert main(args + ["--preset", "quick", "--format", fmt]) == 0
        text = capsys.readouterr().out
        # Table 3.7, TV under MSFC: 3185.29 kbps at full scale, x0.25 here
        assert "Msfc thesis x0.25" in text and "796.32" in text and "3185.29" not in text
        t37 = [ln for ln in text.splitlines() if "Table 3.7" in ln][0]
        assert "thesis throughput x0.25" in t37 and "duration 3 s (thesis 100 s)" in t37
        assert "last-hop p2p (thesis wifi)" in t37
        t36 = [ln for ln in text.splitlines() if "Table 3.6" in ln][0]
        assert "losses left out" in t36
        lost = text[text.index("Table 3.6") :].splitlines()
        tv = [ln for ln in lost if ln.replace("|", " ").split()[:1] == ["TV"]][0]
        assert tv.replace("|", " ").split()[1] == "-"  # thesis column: 2 lost, not shown
    report = tmp_path / "q" / "report"
    assert main(["report", str(tmp_path / "q"), "--out", str(report)]) == 0
    page = (report / "index.html").read_text()
    assert "Msfc thesis x0.25" in page and "thesis throughputs scaled x0.25" in page


def test_thesis_columns_refused_where_they_do_not_compare(fake_isp_build, tmp_path, capsys):
    base = ["compare", "--build-dir", str(fake_isp_build), "--schedulers", "Msfc"]
    base += ["--no-progress", "--out", str(tmp_path / "x")]
    cases = [
        (["fake", "--thesis"], "scenario 'fake' has no published counterpart"),
        (["isp-tree", "--preset", "tiny", "--thesis"], "apps=34 (thesis 280)"),
        (["isp-tree", "--preset", "wrong-priorities", "--thesis", "A"], "use --thesis B"),
    ]
    for extra, expect in cases:
        assert main(base + extra) == 2, extra
        err = capsys.readouterr().err
        assert expect in err and err.startswith("msfc: error: --thesis"), err
        assert not (tmp_path / "x").exists()  # nothing ran
    # a bare --thesis with the wrong-priorities preset picks simulation B (Table 3.9)
    assert main(base + ["isp-tree", "--preset", "wrong-priorities", "--thesis"]) == 0
    text = capsys.readouterr().out
    assert "Table 3.9" in text and "Table 3.7" not in text


def test_timeout_kills_a_hanging_simulation(fake_build, tmp_path, capsys):
    rc = main(
        [
            "run",
            "fake",
            "--build-dir",
            str(fake_build),
            "--set",
            "sleep=5",
            "--set",
            "duration=3",
            "--timeout",
            "1",
            "--out",
            str(tmp_path / "t"),
            "--no-progress",
        ]
    )
    assert rc == 1
    assert "time limit of 1 s" in capsys.readouterr().err


def test_tables_of_finished_runs_follow_metric_changes(fake_build, tmp_path, capsys):
    """A run finished under older metric definitions gets its tables rebuilt from the raw
    files, without simulating again."""
    from msfc.analysis import metrics as M
    from msfc.sim.runner import collect

    args = [
        "run",
        "fake",
        "--build-dir",
        str(fake_build),
        "--out",
        str(tmp_path / "r"),
        "--no-progress",
    ]
    assert main(args) == 0
    (h,) = json.loads((tmp_path / "r" / "study.json").read_text())["configs"]
    d = tmp_path / "r" / "runs" / h
    done = json.loads((d / "done.json").read_text())
    assert done["tables_version"] == M.TABLES_VERSION
    raw_mtime = (d / "flows.csv").stat().st_mtime_ns
    (d / "summary.parquet").unlink()
    done["tables_version"] = M.TABLES_VERSION - 1
    (d / "done.json").write_text(json.dumps(done))
    summary, _ = collect(tmp_path / "r")
    assert len(summary) > 0
    assert (d / "summary.parquet").exists()
    assert json.loads((d / "done.json").read_text())["tables_version"] == M.TABLES_VERSION
    assert (d / "flows.csv").stat().st_mtime_ns == raw_mtime


def _run_args(fake_build, out, *extra):
    return ["run", "fake", "--build-dir", str(fake_build), "--out", str(out), "--no-progress"] + [
        *extra
    ]


def test_out_naming_a_file_or_a_read_only_directory(fake_build, tmp_path, capsys, monkeypatch):
    f = tmp_path / "file"
    f.write_text("x")
    assert main(_run_args(fake_build, f)) == 2
    err = capsys.readouterr().err
    assert f"--out {f} is a file, not a directory; give --out a directory" in err
    out = tmp_path / "ro"
    assert main(_run_args(fake_build, out)) == 0
    capsys.readouterr()
    import msfc.sim.runner

    real_access = os.access

    def read_only(path, mode, **kw):  # as a mount that is read-only, even for root
        if str(path).startswith(str(out)) and mode & os.W_OK:
            return False
        return real_access(path, mode, **kw)

    monkeypatch.setattr(msfc.sim.runner.os, "access", read_only)
    for args in (_run_args(fake_build, out), ["report", str(out)]):  # reprint, report
        rc = main(args)
        err = capsys.readouterr().err
        assert rc == 2 and "is not writable (read-only)" in err, err
        assert err.count("\n") == 1 and "Traceback" not in err
    assert "msfc report " in err and "--out DIR" in err
    assert not (out / "report").exists()


def test_resume_rebuilds_missing_tidy_files(fake_build, tmp_path, capsys):
    out = tmp_path / "r"
    assert main(_run_args(fake_build, out)) == 0
    first = capsys.readouterr().out
    for f in list(out.glob("runs/*/summary.*")) + list(out.glob("runs/*/flow_metrics.*")):
        f.unlink()
    for f in out.glob("*.parquet"):
        f.unlink()
    assert main(_run_args(fake_build, out)) == 0
    cap = capsys.readouterr()
    assert "already done" in cap.err and cap.out == first  # same tables, nothing re-simulated
    assert list(out.glob("runs/*/summary.parquet"))


def test_truncated_raw_records_are_noticed(fake_build, tmp_path, capsys):
    out = tmp_path / "t"
    assert main(_run_args(fake_build, out)) == 0
    (run,) = out.glob("runs/*")
    done = json.loads((run / "done.json").read_text())
    assert done["files"]["flows.csv"]["lines"] == len((run / "flows.csv").read_text().splitlines())
    lines = (run / "flows.csv").read_text().splitlines(keepends=True)
    (run / "flows.csv").write_text("".join(lines[:-3]))
    capsys.readouterr()
    for args in (["report", str(out)], ["diff", str(run), str(run)]):
        assert main(args) == 1, args
        err = capsys.readouterr().err
        assert f"flows.csv has {len(lines) - 3} lines, {len(lines)} when the run finished" in err
        assert "--force" in err and "Traceback" not in err
    # run notices it too, and simulates it again
    assert main(_run_args(fake_build, out)) == 0
    err = capsys.readouterr().err
    assert "flows.csv has" in err and "running it again" in err
    assert len((run / "flows.csv").read_text().splitlines()) == len(lines)


def test_an_interrupted_simulation_is_not_a_failed_configuration(fake_build, tmp_path):
    """Ctrl-C reaches the whole process group: the simulation dies of SIGINT, msfc says
    'interrupted', keeps no failed.json, and the same command resumes."""
    import signal
    import time

    out = tmp_path / "i"
    args = ["sweep", "fake", "--build-dir", str(fake_build), "--grid", "duration=4,5"]
    # 8-10 s of wall time per run, the signal comes after the first 2
    args += ["--set", "sleep=2", "--out", str(out), "--no-progress", "--jobs", "2"]
    e = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "msfc.cli", *args],
        stderr=subprocess.PIPE,
        text=True,
        env=e,
        cwd=tmp_path,
        start_new_session=True,
        # as from a terminal: a shell that starts the test suite in the background (`make test
        # &`, a CI runner) hands its children SIGINT ignored, and an ignored signal stays so
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 60
    while time.time() < deadline and len(list(out.glob("runs/*/progress.txt"))) < 2:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "FAILED" not in err and "Traceback" not in err, err
    assert not list(out.glob("runs/*/failed.json"))


def test_sigterm_stops_like_ctrl_c(fake_build, tmp_path):
    """kill / timeout / a batch system send SIGTERM to msfc alone: it stops its simulation and
    says 'interrupted', as for Ctrl-C, with the exit status of a command ended by SIGTERM."""
    import time

    out = tmp_path / "term"
    args = ["run", "fake", "--build-dir", str(fake_build), "--set", "sleep=2"]
    args += ["--set", "duration=8", "--out", str(out), "--no-progress"]  # 16 s unless stopped
    e = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "msfc.cli", *args], stderr=subprocess.PIPE, text=True, env=e
    )
    deadline = time.time() + 60
    while time.time() < deadline and not list(out.glob("runs/*/progress.txt")):
        time.sleep(0.2)
    proc.terminate()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and "interrupted (SIGTERM)" in err, err
    assert "Traceback" not in err, err
    assert not list(out.glob("runs/*/failed.json")) and not list(out.glob("runs/*/done.json"))


def test_output_says_where_the_report_will_be(fake_build, tmp_path, capsys):
    out = tmp_path / "w"
    assert main(_run_args(fake_build, out)) == 0
    assert f"`msfc report {out}` writes {out}/report/index.html" in capsys.readouterr().out
    assert main(["report", str(out)]) == 0
    assert f"Report: {out}/report/index.html" in capsys.readouterr().out


def test_priorities_above_msfc_prios_are_pointed_out(fake_build, tmp_path, capsys):
    """The fake scenario labels priorities 0..2 and has no option for MSFC's classes: with
    Msfc.Prios=2 the priority-2 flows run in class 1, and msfc says so."""
    assert main(_run_args(fake_build, tmp_path / "p", "--set", "Msfc.Prios=2")) == 0
    err = capsys.readouterr().err
    assert (
        "Msfc.Prios=2, yet flows are labelled priority 2: MSFC ran them in its top class 1" in err
    )
    assert main(_run_args(fake_build, tmp_path / "p3", "--set", "Msfc.Prios=3")) == 0
    assert "note: Msfc.Prios" not in capsys.readouterr().err


def test_flow_type_priorities_are_checked_before_anything_runs(fake_isp_build, tmp_path, capsys):
    """The scenario program's own checks (``--check``: flow-type priorities below prios) run
    before msfc writes anything, in run, compare and sweep alike."""
    b = str(fake_isp_build)
    out = tmp_path / "x"
    cases = [
        ["run", "isp-tree", "--set", "prios=2"],
        ["run", "isp-tree", "--scheduler", "Msfc", "--set", "Msfc.Prios=2"],
        ["compare", "isp-tree", "--schedulers", "FqCoDel,Msfc", "--set", "prios=2"],
        ["sweep", "isp-tree", "--grid", "prios=2,3"],
    ]
    for args in cases:
        rc = main(args + ["--build-dir", b, "--out", str(out), "--no-progress"])
        err = capsys.readouterr().err
        assert rc == 2, (args, err)
        assert err.startswith("msfc: error: scenario 'isp-tree' rejects this configuration: ")
        assert "priority must be below the number of classes prios=2" in err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert not out.exists(), args  # nothing written, not even the results directory
    rc = main(cases[1] + ["--build-dir", b, "--out", str(out), "--no-progress"])
    assert "(Msfc.Prios sets the option prios)" in capsys.readouterr().err
    assert main(["run", "isp-tree", "--build-dir", b, "--out", str(out), "--no-progress"]) == 0


def test_an_option_of_another_scheduler_is_refused_or_left_out(fake_isp_build, tmp_path, capsys):
    """isp-tree's ratio only affects MSFC (--describe: "schedulers": ["Msfc"]): under FQ-CoDel
    alone it is refused; swept together with the scheduler, FQ-CoDel runs once per seed."""
    b = ["--build-dir", str(fake_isp_build), "--no-progress"]
    out = tmp_path / "s"
    for args in (
        ["sweep", "isp-tree", "--scheduler", "FqCoDel", "--grid", "ratio=1,2,4"],
        ["run", "isp-tree", "--scheduler", "FqCoDel", "--set", "ratio=3"],
        ["compare", "isp-tree", "--schedulers", "FqCoDel,CoDel", "--set", "ratio=3"],
    ):
        assert main(args + b + ["--out", str(out)]) == 2, args
        err = capsys.readouterr().err
        assert "'ratio' applies to " in err and "change nothing" in err, err
        assert not out.exists()
    args = ["sweep", "isp-tree", "--grid", "scheduler=FqCoDel,Msfc", "--grid", "ratio=1,2,4"]
    assert main(args + b + ["--out", str(out), "--jobs", "2"]) == 0
    cap = capsys.readouterr()
    err = cap.err
    assert "scheduler=FqCoDel (no ratio)" in cap.out and "nan" not in cap.out
    assert "sweep: 4 configurations" in err
    assert "note: 'ratio' leaves the FqCoDel runs unchanged" in err
    assert len(list(out.glob("runs/*/done.json"))) == 4
    s = pd.read_csv(out / "summary.csv")
    s = s[(s["level"] == "overall") & (s["direction"] == "down")]
    assert s[s["scheduler"] == "FqCoDel"]["cfg.ratio"].isna().all()  # FQ-CoDel has no ratio
    assert sorted(s[s["scheduler"] == "Msfc"]["cfg.ratio"]) == [1, 2, 4]
    # the report: FQ-CoDel one point labelled "(no ratio)", not a line called "ratio=nan"
    assert main(["report", str(out)]) == 0
    page = (out / "report" / "index.html").read_text()
    assert "scheduler=FqCoDel (no ratio)" in page and "nan" not in page
    svg = (out / "report" / "sweep-throughput_total_kbps.svg").read_text()
    assert "(no ratio)" in svg and "ratio=4" in svg  # FQ-CoDel once, at its own category


def test_a_scheduler_without_the_swept_option_is_a_line_across_its_axis(fake_isp_build, tmp_path):
    out = tmp_path / "r"
    args = ["sweep", "isp-tree", "--build-dir", str(fake_isp_build), "--no-progress"]
    args += ["--grid", "ratio=1,2", "--grid", "scheduler=FqCoDel,Msfc", "--out", str(out)]
    assert main(args) == 0
    assert main(["report", str(out)]) == 0
    svg = (out / "report" / "sweep-throughput_total_kbps.svg").read_text()
    assert "scheduler=FqCoDel, no ratio" in svg and "scheduler=Msfc" in svg


def test_compare_tables_carry_the_interval_over_rng_runs(fake_build, tmp_path, capsys):
    """3 RNG runs: every mean with the half-width of its 95 % CI, the title says so (issue 29)."""
    argv = ["compare", "fake", "--build-dir", str(fake_build), "--schedulers", "FqCoDel,Msfc"]
    argv += ["--seeds", "3", "--set", "duration=1", "--out", str(tmp_path / "c"), "--no-progress"]
    assert main(argv + ["--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "(3 RNG runs, 95% CI" in out and ": mean ± half-width" in out
    row = next(ln for ln in out.splitlines() if ln.startswith("| TVStream |"))
    assert row.count(" ± ") == 2, row
