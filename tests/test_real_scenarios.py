"""Against the real ns-3 scenario programs in build/ (built by `make build`; `make test` builds first).

Skipped only when no build/scenario-* exists. The smallest scenario is used with its shortest
duration; MSFC_TEST_SCENARIO picks another one.
"""

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from conftest import FIXTURES, real_build_dir
from msfc.analysis import metrics as M
from msfc.cli import main
from msfc.sim.config import option_aliases
from msfc.sim.programs import describe_scenario, describe_schedulers, find_scenarios

BUILD = real_build_dir()
DESCRIBE_BUILD = real_build_dir("msfc-describe")
needs_scenarios = pytest.mark.skipif(
    BUILD is None,
    reason="no build/scenario-* programs: run `make build` "
    "(or set MSFC_BUILD_DIR) to test against the real ns-3 scenarios",
)
needs_describe = pytest.mark.skipif(
    DESCRIBE_BUILD is None,
    reason="no build/msfc-describe: run `make build` "
    "(or set MSFC_BUILD_DIR) to test against the real scheduler attributes",
)
TYPES = {"int", "double", "bool", "string", "choice", "datarate", "time", "path"}
PREFERRED = ["isp-tree"]


def pick():
    """The scenario to run: $MSFC_TEST_SCENARIO, else isp-tree, else the first one built."""
    names = list(find_scenarios(BUILD))
    want = os.environ.get("MSFC_TEST_SCENARIO")
    if want:
        return want
    for n in PREFERRED:
        if n in names:
            return n
    return names[0]


def tiny_preset(info):
    for p in ("tiny", "test"):
        if p in info.presets:
            return ["--preset", p]
    return []


def tiny_sets(info):
    sets = []
    d = info.params.get("duration")
    if d is not None:
        lo = float(d.min) if d.min is not None else 0.5
        sets.append(f"duration={max(lo, 1.0)}")
    return sets


@needs_scenarios
def test_describe_follows_the_contract():
    for name in find_scenarios(BUILD):
        info = describe_scenario(name, BUILD)
        assert info.name == name
        assert info.params, name
        for p in info.params.values():
            assert p.type in TYPES, (name, p.name, p.type)
            if p.type == "choice":
                assert p.choices and str(p.default) in map(str, p.choices), (name, p.name)
        for preset, values in info.presets.items():
            assert set(values) <= set(info.params), (name, preset)
        if info.default_preset is not None:
            assert info.default_preset in info.presets


@needs_scenarios
@needs_describe
def test_options_that_set_an_attribute_take_its_default_and_range():
    """A scenario option that sets a scheduler attribute (``sets``) has the attribute's default
    and limits, exactly (isp-tree's ratio down to 1/65536), a scenario's own lower maximum
    apart; msfc folds the attribute into the option through ``sets``."""
    from msfc.model import params as P

    s = describe_schedulers(DESCRIBE_BUILD)
    seen = 0
    for name in find_scenarios(BUILD):
        info = describe_scenario(name, BUILD)
        for p in info.params.values():
            if not p.sets:
                continue
            seen += 1
            owner, attr = p.sets.rsplit("::", 1)
            sched = next(x for x in s.values() if x.type_id == owner)
            assert float(p.default) == float(sched.attributes[attr].default), (name, p.name)
            if owner == "ns3::MsfcQueueDisc":
                lim = P.param(P.NS3_ATTRIBUTES[attr])
                one = P.RATIO_ONE if attr == "Ratio" else 1
                assert p.min == lim.min / one, (name, p.name, p.min)
                assert p.max <= lim.max / one, (name, p.name, p.max)
                assert p.max == lim.max / one or (name, p.name) == ("isp-tree", "prios")
            assert option_aliases(info)[p.sets] == p.name
    assert seen >= 4  # isp-tree's prios and ratio, msfc-prios of sfq-fairness and seed 001


@needs_describe
def test_msfc_describe_attributes_are_understood():
    s = describe_schedulers(DESCRIBE_BUILD)
    assert s and all(x.type_id.startswith("ns3::") for x in s.values())
    assert "Msfc" in s and s["Msfc"].type_id == "ns3::MsfcQueueDisc"
    ratio = s["Msfc"].attributes["Ratio"]
    lo, hi = (float(v) for _, v in ratio.constraints())
    assert (lo, hi) == (1 / 65536, 16.0), f"misread the range of Msfc.Ratio: {ratio.range!r}"
    # every numeric attribute's default lies inside the limits msfc reads from its range
    from msfc.sim.config import _attr_kind, validate_attr

    for sched in s.values():
        for a in sched.attributes.values():
            if _attr_kind(a) in ("int", "uint", "double", "time") and a.default not in (None, ""):
                validate_attr(sched, a, a.default)


@needs_describe
def test_the_fake_msfc_describe_prints_what_the_real_one_does():
    """tests/fixtures/fake-msfc-describe, which most tests read instead of the real program,
    prints its schedulers as build/msfc-describe does, help texts apart: an attribute added to
    or changed in the ns-3 model must be added or changed there too."""

    def schedulers(*cmd):
        out = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, check=True)
        return {s["name"]: s for s in json.loads(out.stdout)["schedulers"]}

    def without_help(s):
        attrs = [{k: v for k, v in a.items() if k != "help"} for a in s["attributes"]]
        return {**s, "attributes": attrs}

    real = schedulers(DESCRIBE_BUILD / "msfc-describe")
    fake = schedulers(sys.executable, FIXTURES / "fake-msfc-describe")
    assert fake and set(fake) <= set(real)
    for name, s in fake.items():
        assert without_help(s) == without_help(real[name]), name
        assert all(a["help"] for a in s["attributes"]), name


@needs_describe
def test_real_attributes_reach_the_program(fake_build, tmp_path, capsys):
    """The real msfc-describe beside the fake scenario: Msfc.Ratio is validated by its real range
    and passed on as an ns-3 attribute."""
    import shutil

    b = tmp_path / "b"
    b.mkdir()
    shutil.copy(fake_build / "scenario-fake", b / "scenario-fake")
    (b / "msfc-describe").symlink_to(DESCRIBE_BUILD / "msfc-describe")
    assert (
        main(
            [
                "run",
                "fake",
                "--build-dir",
                str(b),
                "--set",
                "Msfc.Ratio=3",
                "--set",
                "duration=1",
                "--out",
                str(tmp_path / "o"),
                "--no-progress",
            ]
        )
        == 0
    )
    (h,) = json.loads((tmp_path / "o" / "study.json").read_text())["configs"]
    argv = json.loads((tmp_path / "o" / "runs" / h / "config.json").read_text())["argv"]
    assert "--ns3::MsfcQueueDisc::Ratio=3" in argv
    capsys.readouterr()
    assert (
        main(["run", "fake", "--build-dir", str(b), "--set", "Msfc.Ratio=1000", "--no-progress"])
        == 2
    )
    assert "Msfc.Ratio=1000: ratio must be 1/65536 .. 16" in capsys.readouterr().err


@needs_scenarios
def test_real_run_and_two_task_sweep(tmp_path, capsys):
    name = pick()
    info = describe_scenario(name, BUILD)
    sets = sum((["--set", x] for x in tiny_sets(info)), [])
    out = tmp_path / "run"
    assert (
        main(
            [
                "run",
                name,
                "--build-dir",
                str(BUILD),
                *tiny_preset(info),
                *sets,
                "--out",
                str(out),
                "--no-progress",
                "--timeout",
                "900",
            ]
        )
        == 0
    )
    s = pd.read_parquet(out / "summary.parquet")
    o = s[(s.level == "overall") & (s.direction == "all")].iloc[0]
    assert o.flows > 0 and o.throughput_total_kbps > 0
    (h,) = json.loads((out / "study.json").read_text())["configs"]
    meta = json.loads((out / "runs" / h / "meta.json").read_text())
    assert meta["format_version"] == 1  # the raw-file contract of docs/data-format.md
    done = json.loads((out / "runs" / h / "done.json").read_text())
    assert done["tables_version"] == M.TABLES_VERSION  # the derived tables' definitions
    flows = pd.read_csv(out / "runs" / h / "flows.csv")
    assert list(flows.columns[: len(M.FLOW_COLUMNS)]) == M.FLOW_COLUMNS or set(
        M.FLOW_COLUMNS
    ) <= set(flows.columns)
    # two tasks on a local Dask cluster: two values of the MSFC ratio when msfc-describe knows it
    # (the attribute reaches the program as --ns3::MsfcQueueDisc::Ratio), else two RNG runs
    scheds = describe_schedulers(BUILD, required=False) or {}
    if "Msfc" in scheds and "Ratio" in scheds["Msfc"].attributes and "Msfc" in info.schedulers:
        # recorded as the scenario option that sets it, when there is one (isp-tree's ratio)
        opt = option_aliases(info).get(scheds["Msfc"].type_id + "::Ratio")
        grid, seeds, col, values = (
            ["--scheduler", "Msfc", "--grid", "Msfc.Ratio=1,4"],
            "1",
            f"cfg.{opt}" if opt else "attr.Msfc.Ratio",
            ["1", "4"],
        )
    else:
        grid, seeds, col, values = ["--grid", "rng-run=1,2"], "1", "rng_run", [1, 2]
    sw = tmp_path / "sweep"
    rc = main(
        [
            "sweep",
            name,
            "--build-dir",
            str(BUILD),
            *tiny_preset(info),
            *sets,
            *grid,
            "--seeds",
            seeds,
            "--out",
            str(sw),
            "--jobs",
            "2",
            "--no-progress",
            "--timeout",
            "900",
        ]
    )
    assert rc == 0, capsys.readouterr().err
    s = pd.read_parquet(sw / "summary.parquet")
    assert sorted(s[col].unique()) == values
    assert main(["report", str(sw)]) == 0
    assert (sw / "report" / "index.html").exists()
