"""Bad values against the real ns-3 programs (build/scenario-isp-tree, build/msfc-describe), as
a new user tried them (issue 29): each is refused before anything runs, with exit code 2 and
one line naming the value and the fix, or works."""

import json

import pytest
from conftest import real_build_dir
from msfc.cli import main

BUILD = real_build_dir("scenario-isp-tree")
pytestmark = pytest.mark.skipif(
    BUILD is None or not (BUILD / "msfc-describe").exists(),
    reason="no build/scenario-isp-tree and build/msfc-describe: run `make build`",
)


def _run(tmp_path, *sets, scheduler=None):
    argv = ["run", "isp-tree", "--preset", "tiny", "--build-dir", str(BUILD), "--no-progress"]
    argv += ["--out", str(tmp_path / "o")]
    for s in sets:
        argv += ["--set", s]
    if scheduler:
        argv += ["--scheduler", scheduler]
    return main(argv)


@pytest.mark.parametrize(
    "sets, scheduler, message",
    [
        # simulated silently, a normal-looking table
        (
            ["Msfc.MaxSize=0p"],
            None,
            "Msfc.MaxSize=0p: limit must be at least 1 packet or byte; give at least 1p "
            "(packets) or 1B (bytes), e.g. the default Msfc.MaxSize=10240p",
        ),
        # decimal.InvalidOperation
        (["Msfc.Ratio=inf"], None, "attribute 'Ratio': bad value 'inf': not a finite number"),
        (["Msfc.Ratio=1e400"], None, "attribute 'Ratio': bad value '1e400': not a finite"),
        # "exit code -8": ns-3's FqCoDel divides by Flows (SIGFPE)
        (
            ["FqCoDel.Flows=0"],
            "FqCoDel",
            "FqCoDel.Flows=0: ns-3's FqCoDelQueueDisc needs at least 1 (it divides by the number "
            "of flow queues: the simulation would crash); give FqCoDel.Flows=1 or more",
        ),
        # exit 1 once the simulation had started
        (
            ["Msfc.Weights=exact", "Msfc.Ratio=0.001"],
            None,
            "Msfc.Weights=exact with Quantum 1500, Ratio 0.001, Prios 3: class quanta too small "
            "for exact weights",
        ),
        (
            ["Msfc.Weights=exact", "ratio=0.001"],  # through the scenario's own option
            None,
            "Msfc.Weights=exact with Quantum 1500, Ratio 0.001, Prios 3",
        ),
    ],
)
def test_refused_before_anything_runs(tmp_path, capsys, sets, scheduler, message):
    assert _run(tmp_path, *sets, scheduler=scheduler) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "o").exists()


def test_a_time_with_a_space_is_taken_as_ns3_writes_it(tmp_path, capsys):
    """ "5 ms" is a time (the scenario options take it so): it reaches ns-3 as 5ms, which ns-3's
    parser needs, instead of failing in --check with 'rebuild with make build'."""
    assert _run(tmp_path, "Msfc.Target=5 ms") == 0, capsys.readouterr().err
    (cfg,) = (tmp_path / "o").glob("runs/*/config.json")
    assert json.loads(cfg.read_text())["attrs"] == {"Msfc.Target": "5ms"}
