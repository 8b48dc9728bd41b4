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


@pytest.mark.parametrize(
    "argv, message",
    [
        # a queue that holds nothing: ran and printed a normal-looking table
        (
            ["run", "fake", "--set", "Msfc.MaxSize=0p"],
            "Msfc.MaxSize=0p: limit must be at least 1 packet or byte; give at least 1p",
        ),
        (
            ["sweep", "fake", "--grid", "Msfc.MaxSize=100p,0B"],
            "Msfc.MaxSize=0B: limit must be at least 1 packet or byte",
        ),
        # decimal.InvalidOperation tracebacks
        (
            ["run", "fake", "--set", "Msfc.Ratio=inf"],
            "attribute 'Ratio': bad value 'inf': not a finite number; give a value in the "
            "allowed range 1/65536 .. 16",
        ),
        (
            ["run", "fake", "--set", "Msfc.Ratio=1e400"],
            "attribute 'Ratio': bad value '1e400': not a finite number",
        ),
        (
            ["sweep", "fake", "--grid", "Msfc.Ratio=2,1e400"],
            "attribute 'Ratio': bad value '1e400': not a finite number",
        ),
        # NaN passed every range check ("nan < lo" is false)
        (
            ["run", "fake", "--set", "duration=nan"],
            "option 'duration': bad value 'nan': not a finite number; give a value in the "
            "allowed range 0.1 .. 1000",
        ),
        # refused by the ns-3 model only once the simulation had started (exit 1)
        (
            ["run", "fake", "--set", "Msfc.Weights=exact", "--set", "Msfc.Ratio=0.001"],
            "Msfc.Weights=exact with Quantum 1500, Ratio 0.001, Prios 3: class quanta too small "
            "for exact weights (shares could be off by more than 0.5 %): raise quantum or ratio, "
            "or lower prios, or use Msfc.Weights=rounded",
        ),
    ],
)
def test_values_no_simulation_can_use_are_refused_before_anything_runs(
    fake_build, tmp_path, capsys, argv, message
):
    out = tmp_path / "o"
    assert main([*argv, "--build-dir", str(fake_build), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err  # one line
    assert not out.exists()  # nothing written


def test_exact_weights_that_can_be_exact_are_accepted(fake_build, tmp_path):
    """The rule is the kernel's and the model's (sum of 2^32 / Q_p at most 2^32 / 200), not a
    blanket refusal: a small ratio with a larger quantum passes."""
    from msfc.sim.config import exact_weights_possible

    assert exact_weights_possible(0, 2, 3) and exact_weights_possible(100, 0.01, 3)
    assert not exact_weights_possible(0, 0.001, 3) and not exact_weights_possible(1, 1 / 65536, 3)
    argv = ["run", "fake", "--build-dir", str(fake_build), "--out", str(tmp_path / "o")]
    argv += ["--set", "Msfc.Weights=exact", "--set", "Msfc.Ratio=0.01", "--set", "Msfc.Quantum=100"]
    assert main([*argv, "--no-progress"]) == 0


NS3_ABORT = """#!/bin/sh
echo 'isp-tree: Msfc, 7 gateways' >&2
echo 'aborted. cond="!(iss.eof())", msg="Attribute value "5 ms" is not properly formatted", \
file=/gcl-builds/src/core/model/time.cc, line=519' >&2
echo 'NS_FATAL, terminating' >&2
echo 'terminate called without an active exception' >&2
kill -ABRT $$
"""


def test_the_programs_own_message_is_passed_through(tmp_path):
    """An ns-3 abort in the program's --check (an attribute value ns-3's parser refuses) is a
    bad value, exit 2, in ns-3's words and naming the setting, not 'rebuild with make build'
    (the last stderr line, 'terminate called without an active exception', was shown)."""
    from msfc.errors import UserError
    from msfc.sim.config import RunConfig, check_with_program

    prog = tmp_path / "scenario-x"
    prog.write_text(NS3_ABORT)
    prog.chmod(0o755)
    cfg = RunConfig(
        scenario="x",
        attrs={"Msfc.Target": "5 ms"},
        attr_ids={"Msfc.Target": "ns3::MsfcQueueDisc::Target"},
    )
    with pytest.raises(UserError) as e:
        check_with_program(prog, [cfg])
    assert e.value.exit_code == 2
    assert str(e.value) == (
        "scenario 'x' rejects this configuration: ns-3 says: Attribute value \"5 ms\" is not "
        "properly formatted (from Msfc.Target=5 ms); correct that value"
    )


def test_a_crashed_simulation_is_named_with_the_values_set(tmp_path):
    """A simulation that dies of SIGFPE said only 'exit code -8': the signal, what it means and
    the values that were set."""
    from msfc.errors import SimulationError
    from msfc.sim.config import RunConfig
    from msfc.sim.runner import run_simulation

    prog = tmp_path / "scenario-x"
    prog.write_text("#!/bin/sh\necho 'x: starting' >&2\nkill -FPE $$\n")
    prog.chmod(0o755)
    cfg = RunConfig(
        scenario="x",
        attrs={"FqCoDel.Flows": "0"},
        attr_ids={"FqCoDel.Flows": "ns3::FqCoDelQueueDisc::Flows"},
    )
    with pytest.raises(SimulationError) as e:
        run_simulation(prog, cfg, tmp_path / "out")
    assert str(e.value) == (
        "scenario-x failed (exit code -8): it crashed with SIGFPE (an arithmetic error, such as "
        "a division by zero); the values set (FqCoDel.Flows=0) are the likely cause: check them "
        "against `msfc list x`"
    )


def test_an_ns3_abort_during_the_simulation_is_shown_as_its_message(tmp_path):
    """A value ns-3 refuses only when the simulation builds its queue discs (ns-3's FqCoDel
    parses its Target string there): its message in the error line, with the setting."""
    from msfc.errors import SimulationError
    from msfc.sim.config import RunConfig
    from msfc.sim.runner import run_simulation

    prog = tmp_path / "scenario-x"
    prog.write_text(NS3_ABORT.replace("5 ms", "5 parsecs"))
    prog.chmod(0o755)
    cfg = RunConfig(
        scenario="x",
        attrs={"FqCoDel.Target": "5 parsecs"},
        attr_ids={"FqCoDel.Target": "ns3::FqCoDelQueueDisc::Target"},
    )
    with pytest.raises(SimulationError) as e:
        run_simulation(prog, cfg, tmp_path / "out")
    assert str(e.value) == (
        'scenario-x failed (exit code -6): ns-3 says: Attribute value "5 parsecs" is not properly '
        "formatted (from FqCoDel.Target=5 parsecs); correct that value"
    )
