"""Against the real ns-3 scenario programs in build/ (built by `make build`; `make test` builds first).

Skipped only when no build/scenario-* exists. The smallest scenario is used with its shortest
duration; MSFC_TEST_SCENARIO picks another one.
"""
import json
import os

import pandas as pd
import pytest

from conftest import real_build_dir
from msfc import metrics as M
from msfc.cli import main
from msfc.programs import describe_scenario, describe_schedulers, find_scenarios

BUILD = real_build_dir()
pytestmark = pytest.mark.skipif(BUILD is None, reason="no build/scenario-* programs: run `make build` "
                                "(or set MSFC_BUILD_DIR) to test against the real ns-3 scenarios")
TYPES = {"int", "double", "bool", "string", "choice", "datarate", "time", "path"}
PREFERRED = ["dumbbell"]


def pick():
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


def test_msfc_describe_lists_schedulers():
    if not (BUILD / "msfc-describe").exists():
        pytest.skip("build/msfc-describe is not built yet (`make build`)")
    s = describe_schedulers(BUILD)
    assert s and all(x.type_id.startswith("ns3::") for x in s.values())


def test_real_run_and_two_task_sweep(tmp_path, capsys):
    name = pick()
    info = describe_scenario(name, BUILD)
    sets = sum((["--set", x] for x in tiny_sets(info)), [])
    out = tmp_path / "run"
    assert main(["run", name, "--build-dir", str(BUILD), *tiny_preset(info), *sets, "--out", str(out), "--no-progress",
                 "--timeout", "900"]) == 0
    s = pd.read_parquet(out / "summary.parquet")
    o = s[(s.level == "overall") & (s.direction == "all")].iloc[0]
    assert o.flows > 0 and o.throughput_total_kbps > 0
    (h,) = json.loads((out / "study.json").read_text())["configs"]
    meta = json.loads((out / "runs" / h / "meta.json").read_text())
    assert meta["metrics_version"] == M.METRICS_VERSION
    flows = pd.read_csv(out / "runs" / h / "flows.csv")
    assert list(flows.columns[:len(M.FLOW_COLUMNS)]) == M.FLOW_COLUMNS or set(M.FLOW_COLUMNS) <= set(flows.columns)
    # two tasks on a local Dask cluster: two values of the MSFC ratio when msfc-describe knows it
    # (the attribute reaches the program as --ns3::MsfcQueueDisc::Ratio), else two RNG runs
    scheds = describe_schedulers(BUILD, required=False) or {}
    if "Msfc" in scheds and "Ratio" in scheds["Msfc"].attributes and "Msfc" in info.schedulers:
        grid, seeds, col, values = ["--scheduler", "Msfc", "--grid", "Msfc.Ratio=1,4"], "1", "attr.Msfc.Ratio", ["1", "4"]
    else:
        grid, seeds, col, values = ["--grid", "rng-run=1,2"], "1", "rng_run", [1, 2]
    sw = tmp_path / "sweep"
    rc = main(["sweep", name, "--build-dir", str(BUILD), *tiny_preset(info), *sets, *grid, "--seeds", seeds,
               "--out", str(sw), "--workers", "2", "--no-progress", "--timeout", "900"])
    assert rc == 0, capsys.readouterr().err
    s = pd.read_parquet(sw / "summary.parquet")
    assert sorted(s[col].unique()) == values
    assert main(["report", str(sw)]) == 0
    assert (sw / "report" / "index.html").exists()
