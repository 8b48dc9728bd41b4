"""msfc diff: per-flow records of two runs, column by column."""

import json
import shutil

import pytest
from msfc.cli import main


@pytest.fixture(scope="module")
def runs(tmp_path_factory, fake_build):
    root = tmp_path_factory.mktemp("diff")
    out = {}
    for name, seed in (("a", 1), ("a2", 1), ("b", 2)):
        d = root / name
        assert (
            main(
                [
                    "run",
                    "fake",
                    "--build-dir",
                    str(fake_build),
                    "--set",
                    "duration=1",
                    "--run",
                    str(seed),
                    "--out",
                    str(d),
                    "--no-progress",
                ]
            )
            == 0
        )
        out[name] = next(d.glob("runs/*"))
    return out


def test_same_seed_is_identical(runs, capsys):
    assert main(["diff", str(runs["a"]), str(runs["a2"])]) == 0
    assert "identical" in capsys.readouterr().out


def test_other_seed_differs_and_names_the_columns(runs, capsys):
    assert main(["diff", str(runs["a"]), str(runs["b"]), "--json"]) == 1
    d = json.loads(capsys.readouterr().out)
    assert d["identical"] is False and "rx_packets" in d["columns"]
    assert d["columns"]["rx_packets"]["rows_differing"] >= 1
    assert d["columns"]["rx_packets"]["max_abs_diff"] > 0


def test_ignored_label_columns(runs, tmp_path, capsys):
    # a copy whose labels differ: identical once the label columns are ignored
    c = tmp_path / "relabelled"
    shutil.copytree(runs["a"], c)
    lines = (c / "flows.csv").read_text().splitlines()
    head = lines[0].split(",")
    i = head.index("priority")
    rows = [ln.split(",") for ln in lines[1:]]
    for r in rows:
        r[i] = str(int(r[i]) + 1)
    (c / "flows.csv").write_text("\n".join([lines[0]] + [",".join(r) for r in rows]) + "\n")
    # an edited finished run is noticed (done.json recorded its raw files) ...
    assert main(["diff", str(runs["a"]), str(c)]) == 1
    assert "flows.csv has changed since the run finished" in capsys.readouterr().err
    (c / "done.json").unlink()  # ... a hand-made flows.csv is compared as it is
    assert main(["diff", str(runs["a"]), str(c)]) == 1
    out = capsys.readouterr().out
    assert "priority:" in out and "rx_packets" not in out
    assert main(["diff", str(runs["a"]), str(c), "--ignore", "priority"]) == 0


def test_bad_inputs(runs, tmp_path, capsys):
    assert main(["diff", str(runs["a"]), str(tmp_path)]) == 2
    assert "has no flows.csv" in capsys.readouterr().err
    assert (
        main(["diff", str(runs["a"].parent.parent), str(runs["a2"])]) == 0
    )  # results dir of one run
    capsys.readouterr()
    multi = tmp_path / "multi"
    shutil.copytree(runs["a"], multi / "runs" / "x")
    shutil.copytree(runs["b"], multi / "runs" / "y")
    assert main(["diff", str(multi), str(runs["a"])]) == 2
    assert "results directory with 2 runs; give one of them" in capsys.readouterr().err
    assert main(["diff", str(runs["a"]), str(runs["b"]), "--ignore", "nonsense"]) == 2
    assert "no such column" in capsys.readouterr().err


def test_results_dir_compares_its_last_commands_run(runs, fake_build, tmp_path, capsys):
    """A results directory re-used with other settings keeps the earlier run in runs/; diff
    takes the run its study names (the last command's), not 'one of 2 runs'."""
    d = tmp_path / "reused"
    for seed in ("2", "1"):
        argv = ["run", "fake", "--build-dir", str(fake_build), "--set", "duration=1"]
        assert main([*argv, "--run", seed, "--out", str(d), "--no-progress"]) == 0
    assert len(list(d.glob("runs/*/flows.csv"))) == 2
    capsys.readouterr()
    assert main(["diff", str(d), str(runs["a"])]) == 0  # seed 1, as the last command
    assert "identical" in capsys.readouterr().out
    study = json.loads((d / "study.json").read_text())
    (d / "runs" / study["configs"][0] / "flows.csv").unlink()
    assert main(["diff", str(d), str(runs["a"])]) == 2
    err = capsys.readouterr().err
    assert "has not finished" in err and "Traceback" not in err, err


def test_runs_of_different_scenarios_are_said_to_be_so_first(
    runs, fake_isp_build, tmp_path, capsys
):
    """An isp-tree run against a run of another scenario listed every column as differing
    without saying why: the first line says the scenarios differ and what is comparable."""
    isp = tmp_path / "isp"
    argv = ["run", "isp-tree", "--build-dir", str(fake_isp_build), "--set", "duration=1"]
    assert main([*argv, "--run", "2", "--out", str(isp), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["diff", str(isp), str(runs["a"])]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(
        "different scenarios: A is a run of isp-tree, B of fake. Their flows are other flows"
    ), first
    assert "only runs of one scenario are comparable flow by flow" in first
    assert main(["diff", str(isp), str(runs["a"]), "--json"]) == 1
    d = json.loads(capsys.readouterr().out)
    assert d["scenarios"] == ["isp-tree", "fake"] and d["same_scenario"] is False


def test_settings_that_differ_are_named(runs, fake_build, tmp_path, capsys):
    """Two runs of one scenario: the settings in which they differ, in one line, before the
    columns (the same flows, other conditions)."""
    c = tmp_path / "codel"
    argv = ["run", "fake", "--build-dir", str(fake_build), "--set", "duration=1"]
    assert main([*argv, "--scheduler", "CoDel", "--out", str(c), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["diff", str(runs["a"]), str(c)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "the runs' settings differ (A / B): scheduler Msfc / CoDel" in out[2], out
    assert not out[0].startswith("different scenarios")
    assert main(["diff", str(runs["a"]), str(runs["a2"])]) == 0
    assert "settings differ" not in capsys.readouterr().out
