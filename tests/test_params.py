"""MSFC's parameter ranges, defaults, messages and DSCP map have one definition, the qdisc's UAPI
header (msfc.model.params reads it); the docs' tables, the man page, the command line's `--set` checks
and the ns-3 model must agree with it."""

import re
from pathlib import Path

import pytest
from conftest import real_build_dir
from msfc.errors import UserError
from msfc.model import params as P
from msfc.sim.config import build_config, check_dscp_map, parse_assignments
from msfc.sim.programs import ScenarioInfo, SchedulerAttr, SchedulerInfo, describe_schedulers

ROOT = Path(__file__).resolve().parent.parent
D = P.definitions()


def md_rows(path: Path, header: str) -> list[list[str]]:
    """The rows of the Markdown table whose header line starts with `header`."""
    lines = path.read_text().splitlines()
    start = next(i for i, x in enumerate(lines) if x.strip().startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        line = line.strip()
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def test_the_range_words_state_the_numbers():
    for p in D.params.values():
        assert P.range_bounds(p) == (p.min, p.max), p.name
        assert p.min <= (p.default if p.default is not None else p.min) <= p.max, p.name
    assert D.dscp_map_msg.endswith(f"0 .. {D.max_class}")
    assert f"2^{D.class_quantum_max.bit_length() - 1} bytes" in D.class_quantum_msg


def test_the_default_map_is_the_documented_rule():
    rule = [0 if d in (1, 8) else max(1, d >> 3) for d in range(64)]
    assert list(D.default_dscp_map) == rule
    assert [P.default_class(d) for d in (1, 8, 0, 10, 16, 34, 46, 56)] == [0, 0, 1, 1, 2, 2, 2, 2]
    assert P.default_class(46, prios=8) == 5 and P.default_class(46, prios=1) == 0


def test_a_changed_header_is_read_as_changed():
    text = P.HEADER.read_text().replace(
        '#define TC_MSFC_PRIOS_RANGE\t\t"1 .. 16"', '#define TC_MSFC_PRIOS_RANGE\t\t"1 .. 8"'
    )
    changed = P.parse_header(text.replace("TC_MSFC_PRIOS_MAX\t\t16", "TC_MSFC_PRIOS_MAX\t\t8"))
    assert changed.params["prios"].max == 8 and changed.params["prios"].range == "1 .. 8"
    with pytest.raises(UserError, match="no #define TC_MSFC_FLOWS_MIN"):
        P.parse_header(text.replace("TC_MSFC_FLOWS_MIN", "TC_MSFC_FLOWS_LOW"))


def _default_words(p: P.Param) -> str:
    if p.default is None:
        return ""
    if p.unit == "us":
        return f"{p.default // 1000} ms"
    if p.name == "ratio":
        return f"{p.default / P.RATIO_ONE:g}"
    if p.name == "memory_limit":
        return f"{p.default >> 20} MiB"
    if p.name == "ecn":
        return f"{p.default} ({'on' if p.default else 'off'})"
    return str(p.default)


def test_algorithm_md_parameter_table_is_the_header():
    rows = {r[0].strip("`"): r for r in md_rows(ROOT / "docs/algorithm.md", "| name | meaning")}
    assert set(rows) == set(D.params) | set(D.choices), "one row per parameter"
    for name, words in P.CHOICES.items():  # modes: tc's words, the default first
        assert rows[name][3] == ", ".join(f"`{w}`" for w in words), name
        assert rows[name][2] == f"`{words[D.choices[name].default]}`", name
    for name, p in D.params.items():
        allowed = rows[name][3].split(";")[0].strip()
        assert allowed == p.range, f"docs/algorithm.md '{name}': '{allowed}' != '{p.range}'"
        if p.default is not None:
            assert rows[name][2] == _default_words(p), name
        else:
            assert rows[name][2].startswith("device MTU"), name


def test_algorithm_md_dscp_table_is_the_header():
    rows = md_rows(ROOT / "docs/algorithm.md", "| name | DSCP | default class |")
    seen = {}
    for names, dscps, cls in rows:
        names = [n.strip().lower() for n in names.split(",")]
        dscps = [int(d) for d in dscps.split(",")]
        if len(dscps) == 1:
            dscps = dscps * len(names)
        for n, d in zip(names, dscps, strict=True):
            seen[n] = d
            assert D.default_dscp_map[d] == int(cls), f"{n}: default class"
    assert seen == D.dscp_names


def test_ns3_attribute_table_has_the_header_ranges():
    rows = {r[0].strip("`"): r for r in md_rows(ROOT / "doc/msfc.md", "| attribute | default")}
    for attr, name in P.NS3_ATTRIBUTES.items():
        assert P.param(name).range in rows[attr][2], f"doc/msfc.md {attr}: {rows[attr][2]}"


def test_man_page_has_the_header_ranges():
    man = (ROOT / "kernel/iproute2/tc-msfc.8").read_text()
    man = man[man.index(".SH PARAMETERS") :]
    for p in D.params.values():
        if p.name == "ecn":
            continue  # a flag: ecn | noecn
        m = re.search(rf"^\.TP\n\.B {p.name}\n(.*?)(?=^\.TP)", man, re.M | re.S)
        assert m, f"tc-msfc.8 has no paragraph for {p.name}"
        assert p.range in m.group(1).replace("\n", " "), f"tc-msfc.8 {p.name}: no '{p.range}'"


def test_man_page_has_the_shaper_ranges_and_the_presets():
    man = (ROOT / "kernel/iproute2/tc-msfc.8").read_text().replace("\n", " ")
    for p in D.shaper.values():
        if p.name in ("bandwidth", "overhead", "mpu"):
            assert p.range in man, f"tc-msfc.8: no '{p.range}' for {p.name}"
    for name, words in D.presets.items():
        assert f".B {name}" in man and words in man, f"tc-msfc.8: preset {name}"


def test_presets_are_tc_words_with_their_values():
    """Every preset is keyword-value pairs of the header's parameters and modes."""
    assert set(D.presets) == {"diffserv3", "diffserv4"}
    for name, text in D.presets.items():
        words = text.split()
        assert len(words) % 2 == 0, name
        for key, value in zip(words[::2], words[1::2], strict=True):
            if key in P.CHOICES:
                assert value in P.CHOICES[key], f"{name}: {key} {value}"
            else:
                assert key in D.params or key in ("quanta", "dscp_map"), f"{name}: {key}"


def test_kernel_md_lists_the_presets_as_the_header():
    rows = {r[0].strip("`"): r for r in md_rows(ROOT / "docs/kernel.md", "| word | expands to")}
    assert {k: v[1].strip("`") for k, v in rows.items()} == D.presets


# ---- the command line: `--set Msfc.X=...` refused before anything runs, in the kernel's words

MSFC = SchedulerInfo(
    "Msfc",
    "ns3::MsfcQueueDisc",
    {
        a.name: a
        for a in [
            SchedulerAttr("Prios", "ns3::UintegerValue", "3", "", ""),
            SchedulerAttr("Flows", "ns3::UintegerValue", "1024", "", ""),
            SchedulerAttr("Quantum", "ns3::UintegerValue", "0", "", ""),
            SchedulerAttr("Ratio", "ns3::DoubleValue", "2", "", ""),
            SchedulerAttr("Target", "ns3::TimeValue", "+5e+06ns", "", ""),
            SchedulerAttr("Interval", "ns3::TimeValue", "+1e+08ns", "", ""),
            SchedulerAttr("DropBatchSize", "ns3::UintegerValue", "64", "", ""),
            SchedulerAttr("DscpMap", "ns3::StringValue", "", "", ""),
        ]
    },
)
INFO = ScenarioInfo("x", Path("/bin/true"), "", {}, {}, None)


def cli_set(*sets):
    return build_config(INFO, parse_assignments(list(sets)), schedulers={"Msfc": MSFC})


# attribute -> (value below the range or None, lowest, highest, value above)
BOUNDS = {
    "Prios": ("0", "1", "16", "17"),
    "Flows": ("0", "1", "65536", "65537"),
    "Quantum": (None, "1", "1048576", "1048577"),
    "Ratio": ("0", "0.0000152587890625", "16", "16.0001"),
    "Target": ("1us", "2us", None, "2001s"),
    "Interval": ("1us", "3us", "2000s", "2000001ms"),
    "DropBatchSize": ("0", "1", "65536", "65537"),
}


@pytest.mark.parametrize("attr", sorted(BOUNDS))
def test_cli_refuses_out_of_range_in_the_kernels_words(attr):
    p = P.param(P.NS3_ATTRIBUTES[attr])
    below, lo, hi, above = BOUNDS[attr]
    extra = ["Msfc.Target=2us"] if attr == "Interval" else []  # target below interval
    for ok in (lo, hi):
        if ok is not None:
            assert cli_set(f"Msfc.{attr}={ok}", *extra).attrs[f"Msfc.{attr}"]
    for bad in (below, above):
        if bad is None:
            continue
        with pytest.raises(UserError) as e:
            cli_set(f"Msfc.{attr}={bad}")
        assert str(e.value).startswith(f"Msfc.{attr}={bad}: {p.message}")
    assert cli_set("Msfc.Quantum=0").attrs["Msfc.Quantum"] == "0"  # the device MTU


def test_cli_dscp_map_and_target_in_the_kernels_words():
    with pytest.raises(UserError, match=re.escape(D.dscp_map_msg)):
        cli_set("Msfc.DscpMap=EF=16")
    with pytest.raises(UserError, match=re.escape(D.target_interval_msg)):
        cli_set("Msfc.Target=10ms", "Msfc.Interval=10ms")
    for name in D.dscp_names:
        assert check_dscp_map(f"{name.upper()}=2, {name}=0") is None
    assert "neither a DSCP number" in check_dscp_map("XY=1")


DESCRIBE = real_build_dir("msfc-describe")


@pytest.mark.skipif(DESCRIBE is None, reason="no build/msfc-describe: run `make build`")
def test_the_ns3_model_states_the_header_ranges():
    msfc = describe_schedulers(DESCRIBE)["Msfc"]
    for attr, name in P.NS3_ATTRIBUTES.items():
        assert str(msfc.attributes[attr].range).startswith(P.param(name).range), attr
    assert msfc.attributes["Prios"].default == str(P.param("prios").default)
    assert msfc.attributes["Flows"].default == str(P.param("flows").default)
    assert msfc.attributes["DropBatchSize"].default == str(P.param("drop_batch").default)
