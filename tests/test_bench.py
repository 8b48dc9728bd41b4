"""`msfc bench`: the registry of benchmarks, the runner they share (run_scenario), and the
benchmarks that run one C++ program (program_bench), with the fake programs of tests/fixtures."""

import json
import stat

import pytest
from msfc import bench
from msfc.analysis import metrics
from msfc.cli import main
from msfc.errors import SimulationError, UserError
from msfc.sim.runner import is_done, run_scenario


def test_bench_lists_every_benchmark(capsys):
    with pytest.raises(SystemExit) as e:
        main(["bench", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for name in bench.BENCHMARKS:
        assert name in out
    with pytest.raises(SystemExit) as e:
        main(["bench", "seed003", "--help"])
    assert e.value.code == 0
    assert "--quick" in capsys.readouterr().out, "a benchmark's own options"


def test_every_registered_benchmark_has_an_entry_point():
    import importlib

    for name, (target, _) in bench.BENCHMARKS.items():
        module, _, function = target.partition(":")
        assert callable(getattr(importlib.import_module(module), function or "main")), name


def test_run_scenario_validates_runs_and_keeps_finished_runs(fake_build, tmp_path, capsys):
    opts = {"preset": "quick", "scheduler": "FqCoDel", "duration": 1.0, "flows-per-type": 1}
    d = run_scenario(fake_build, "fake", tmp_path, opts)
    assert is_done(d) and d.parent == tmp_path / "runs"
    cfg = json.loads((d / "config.json").read_text())
    assert cfg["preset"] == "quick" and cfg["resolved"]["scheduler"] == "FqCoDel"
    assert (d / "summary.parquet").is_file(), "the tidy tables of msfc run"
    assert "run:" in capsys.readouterr().err
    mtime = (d / "done.json").stat().st_mtime_ns
    assert run_scenario(fake_build, "fake", tmp_path, opts) == d
    assert (d / "done.json").stat().st_mtime_ns == mtime, "a finished run is kept"
    assert "kept:" in capsys.readouterr().err
    run_scenario(fake_build, "fake", tmp_path, opts, force=True)
    assert (d / "done.json").stat().st_mtime_ns != mtime, "force runs it again"


def test_run_scenario_rejects_bad_options_and_reports_failures(fake_build, tmp_path):
    with pytest.raises(UserError, match="flows-per-type"):
        run_scenario(fake_build, "fake", tmp_path, {"flows-per-type": 0})
    with pytest.raises(UserError, match="no option 'nope'"):
        run_scenario(fake_build, "fake", tmp_path, {"nope": 1})
    with pytest.raises(SimulationError):
        run_scenario(fake_build, "fake", tmp_path, {"fail": True})


def _program(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_program_bench_keeps_the_output(tmp_path, capsys):
    build = tmp_path / "build"
    build.mkdir()
    _program(build / "msfc-qdisc-cost", '#!/bin/sh\necho "a,b"\necho "$1,2"\n')
    out = tmp_path / "res"
    args = ["bench", "qdisc-cost", str(out), "--build-dir", str(build), "--", "x"]
    assert main(args) == 0
    assert (out / "qdisc-cost.csv").read_text() == "a,b\nx,2\n"
    assert "a,b\nx,2\n" in capsys.readouterr().out
    _program(build / "msfc-qdisc-cost", '#!/bin/sh\necho "half"\nexit 3\n')
    assert main(args) == 1
    assert (out / "qdisc-cost.csv").read_text() == "a,b\nx,2\n", "a failed run leaves no file"
    assert "exit code 3" in capsys.readouterr().err
    assert main(["bench", "dumbbell", str(out), "--build-dir", str(build)]) == 2


def test_host_throughput_sums_a_hosts_flows():
    import pandas as pd

    f = pd.DataFrame(
        dict(
            dst=["a", "a", "b", "c"],
            src=["s", "s", "s", "t"],
            direction=["down", "down", "down", "up"],
            kind=["data", "data", "data", "data"],
            rx_bytes=[1000, 3000, 2000, 9000],
            active_s=[8.0, 4.0, 8.0, 8.0],
        )
    )
    per_host = metrics.host_throughput(f)  # over the longest active time, 8 s
    assert per_host.to_dict() == {"a": pytest.approx(4.0), "b": pytest.approx(2.0)}
    assert metrics.host_throughput(f, by="src", direction="up").to_dict() == {"t": 9.0}


def test_sample_percentile_and_jain_index():
    assert metrics.sample_percentile([3, 1, 2, 4], 50) == 2.5
    assert metrics.sample_percentile([5], 90) == 5
    assert metrics.sample_percentile([], 50) != metrics.sample_percentile([], 50)  # NaN
    assert metrics.sample_percentile(range(11), 90) == pytest.approx(9.0)
    with pytest.raises(ValueError):
        metrics.sample_percentile([1], 101)
    assert metrics.jain_index([5, 5, 5]) == pytest.approx(1.0)
    assert metrics.jain_index([1, 0, 0, 0]) == pytest.approx(0.25)
    assert metrics.jain_index([0, 0]) == 0.0
    assert metrics.rate_bps(1250, 0.1) == pytest.approx(100_000)
    assert metrics.rate_bps(1250, 0) == 0.0


def test_dumbbell_bench_keeps_the_programs_csv_only_when_it_succeeds(tmp_path):
    """msfc bench dumbbell hands the program --csv=<a temporary file> and keeps it as
    dumbbell.csv beside dumbbell.txt; a failed run leaves neither."""
    build = tmp_path / "build"
    build.mkdir()
    script = '#!/bin/sh\nfor a; do case "$a" in --csv=*) echo "s,k" > "${a#--csv=}";; esac; done\n'
    _program(build / "msfc-dumbbell", script + 'echo "table $1"\n')
    out = tmp_path / "res"
    args = ["bench", "dumbbell", str(out), "--build-dir", str(build), "--", "--duration=5"]
    assert main(args) == 0
    assert (out / "dumbbell.txt").read_text() == "table --duration=5\n"
    assert (out / "dumbbell.csv").read_text() == "s,k\n"
    assert sorted(p.name for p in out.iterdir()) == ["dumbbell.csv", "dumbbell.txt"]
    (out / "dumbbell.csv").unlink()
    _program(build / "msfc-dumbbell", script + "exit 4\n")
    assert main(args) == 1
    assert sorted(p.name for p in out.iterdir()) == ["dumbbell.txt"]  # no CSV, no temporary
