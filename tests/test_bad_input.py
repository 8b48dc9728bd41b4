"""Options that choose the same thing twice are refused with the fix, before anything runs."""

import pytest
from msfc.cli import main


@pytest.mark.parametrize(
    "argv, message",
    [
        # argparse took --scheduler for an abbreviation of --schedulers: it ran Msfc alone
        (
            ["compare", "fake", "--schedulers", "Msfc,CoDel", "--scheduler", "Msfc"],
            "compare runs every scheduler of --schedulers; --scheduler Msfc is for run and sweep",
        ),
        (
            ["compare", "fake", "--schedulers", "Msfc,CoDel", "--set", "scheduler=CoDel"],
            "compare runs every scheduler of --schedulers; leave out --set scheduler=CoDel",
        ),
        (
            ["run", "fake", "--scheduler", "Msfc", "--set", "scheduler=CoDel"],
            "--scheduler Msfc and --set scheduler=CoDel both choose the scheduler",
        ),
        (
            ["sweep", "fake", "--scheduler", "Msfc", "--grid", "scheduler=Msfc,CoDel"],
            "--scheduler Msfc and --grid scheduler=Msfc,CoDel both choose the scheduler; "
            "leave out --scheduler",
        ),
        (
            ["sweep", "fake", "--grid", "Msfc.Ratio=1,2", "--set", "Msfc.Ratio=3"],
            "--set Msfc.Ratio=3 and --grid Msfc.Ratio=1,2 both set Msfc.Ratio",
        ),
    ],
)
def test_conflicting_choices_are_refused(fake_build, tmp_path, capsys, argv, message):
    out = tmp_path / "o"
    assert main([*argv, "--build-dir", str(fake_build), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err
    assert not out.exists()  # nothing written


@pytest.mark.parametrize("text", ["[]", '{"kind": "sweep", "configs": "abc"}', '"x"'])
def test_a_study_json_that_is_not_a_study(fake_build, tmp_path, capsys, text):
    """Valid JSON of the wrong shape is named, without a traceback, by report and diff; run
    replaces it (the directory's study is the command's)."""
    out = tmp_path / "s"
    out.mkdir()
    (out / "study.json").write_text(text)
    assert main(["report", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{out / 'study.json'} is not an msfc study" in err and "Traceback" not in err, err
    argv = ["run", "fake", "--build-dir", str(fake_build), "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    assert main(["report", str(out)]) == 0


@pytest.mark.parametrize(
    "argv, bad",
    [
        (["run", "fake", "--pre", "tiny"], "--pre tiny"),
        (["sweep", "fake", "--grid", "Msfc.Ratio=1,2", "--see", "2"], "--see 2"),
        (["bench", "seed001-starvation", "RESULTS", "--dos"], "--dos"),
    ],
)
def test_abbreviated_options_are_refused(fake_build, tmp_path, capsys, argv, bad):
    """An abbreviation would change its meaning when an option with the same prefix is added
    (--scheduler once ran as --schedulers); only whole option names are taken."""
    out = tmp_path / "o"
    argv = [str(out) if a == "RESULTS" else a for a in argv]
    with pytest.raises(SystemExit) as e:
        main([*argv, "--build-dir", str(fake_build)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: " + bad in err, err
    assert not out.exists()


def test_report_against_itself_is_refused(fake_build, tmp_path, capsys):
    """Plotting a results directory against itself compares nothing: refused with the fix."""
    out = tmp_path / "s"
    argv = ["run", "fake", "--build-dir", str(fake_build), "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    assert main(["report", str(out), "--against", str(out) + "/"]) == 2
    err = capsys.readouterr().err
    assert "is the results directory being reported" in err and "Traceback" not in err, err
    assert not list(out.glob("report-against-*"))


@pytest.mark.parametrize("argv", [["bench"], ["bench", "nosuch"]])
def test_bench_without_a_known_name_lists_the_benchmarks(capsys, argv):
    """`msfc bench` alone, or with a name it does not know, names every benchmark."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "qdisc-cost" in err and "seed001-starvation" in err and "Traceback" not in err, err
