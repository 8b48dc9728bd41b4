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
    assert f"classes 0 .. {D.max_class}" in D.dscp_map_msg
    assert f"nqb ({D.dscp_nqb} + class)" in D.dscp_map_msg and f"le ({D.dscp_le})" in D.dscp_map_msg
    assert D.dscp_class_mask == D.max_class and D.dscp_nqb > D.max_class
    assert f"2^{D.class_quantum_max.bit_length() - 1} bytes" in D.class_quantum_msg


def test_the_default_map_is_the_documented_rule():
    rule = {1: D.dscp_le, 8: 0, 45: 1 | D.dscp_nqb}
    assert list(D.default_dscp_map) == [rule.get(d, max(1, d >> 3)) for d in range(64)]
    assert [P.default_class(d) for d in (8, 0, 10, 16, 34, 45, 46, 56)] == [0, 1, 1, 2, 2, 1, 2, 2]
    assert P.default_class(1) == P.default_class(1, prios=16) == P.LANE
    assert P.default_class(46, prios=8) == 5 and P.default_class(46, prios=1) == 0
    assert P.entry_nqb(D.default_dscp_map[45]) and not P.entry_nqb(D.default_dscp_map[1])


def test_map_entries_in_tc_words():
    """A map entry: a class, a class with the NQB flag, the lane; nothing else."""
    assert [P.map_entry(t) for t in ("0", "15", "1+nqb", "LE", " 2+NQB ")] == [0, 15, 65, 128, 66]
    for bad in ("16", "1+", "+nqb", "le+nqb", "1+nqa", "-1", "x", "", "1 + nqb"):
        assert P.map_entry(bad) is None, bad
    for v in (0, 15, 64, 79, 128):
        assert P.valid_map_entry(v) and P.map_entry(P.format_map_entry(v)) == v
    for v in (16, 63, 80, 127, 129, 192, 255):
        assert not P.valid_map_entry(v), v
    assert P.dscp_map("le:0,nqb:5")[1] == 0 and P.dscp_map("le:0,nqb:5")[45] == 5
    assert P.dscp_map("diffserv4,le:le")[1] == D.dscp_le
    assert P.entry_class(65, prios=1) == 0 and P.entry_class(128, prios=1) == P.LANE
    with pytest.raises(UserError, match="CLASS\\+nqb or le"):
        P.dscp_map("ef:5+fast")
    assert check_dscp_map("LE=le, NQB=1+nqb, EF=2") is None
    assert "class '1+': " in check_dscp_map("NQB=1+")


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
            assert D.default_dscp_map[d] == P.map_entry(cls), f"{n}: default class"
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


# ---- the named DSCP maps (tc's `dscp_map NAME`, the base of ns-3's DscpMap)

MAP_NAMES = ["default", "diffserv3", "diffserv4", "diffserv8", "wifi"]


def test_named_maps_have_64_valid_classes():
    assert list(D.dscp_maps) == MAP_NAMES
    assert D.dscp_maps["default"] == (8, D.default_dscp_map)
    for name, (prios, classes) in D.dscp_maps.items():
        assert len(classes) == 64, name
        assert 1 <= prios <= D.params["prios"].max, name
        used = [c & D.dscp_class_mask for c in classes if c != D.dscp_le]
        assert all(P.valid_map_entry(c) for c in classes), f"{name}: an entry the qdisc refuses"
        assert all(0 <= c < prios for c in used), f"{name}: a class at or above prios {prios}"
        assert max(used) == prios - 1, f"{name}: uses every one of its {prios} classes"
        assert P.entry_nqb(classes[45]), f"{name}: NQB (45) is an NQB entry"
    # the words of the error messages name the same maps
    words = P._defines(P.HEADER.read_text())["TC_MSFC_DSCP_MAP_NAMES"].strip('"')
    assert words == f"{', '.join(MAP_NAMES[:-1])} or {MAP_NAMES[-1]}"


def _named_map_rows(rows, columns):
    """Check a table of code point | DSCP | one column per map against the header."""
    assert columns == MAP_NAMES, columns
    listed = set()
    for label, dscps, *classes in rows:
        if dscps.strip():
            ds = [int(d) for d in dscps.split(",")]
            listed.update(ds)
            for name, cls in zip(MAP_NAMES, classes, strict=True):
                for d in ds:
                    assert D.dscp_maps[name][1][d] == P.map_entry(cls), f"{label} ({d}) in {name}"
        elif label.startswith(("every other", "other")):
            for name, cls in zip(MAP_NAMES[1:], classes[1:], strict=True):
                others = {D.dscp_maps[name][1][d] for d in range(64) if d not in listed}
                assert others == {P.map_entry(cls)}, f"{name}: the code points the table leaves out"
        else:  # the prios each map is meant for
            for name, p in zip(MAP_NAMES, classes, strict=True):
                assert p.split(",")[0] == str(D.dscp_maps[name][0]), f"{name}: prios"
    assert listed == set(D.dscp_names.values()) | {2, 4}, "every named code point, TOS2, TOS4"


def test_algorithm_md_named_map_table_is_the_header():
    rows = md_rows(ROOT / "docs/algorithm.md", "| code point | DSCP |")
    header = next(
        line
        for line in (ROOT / "docs/algorithm.md").read_text().splitlines()
        if line.strip().startswith("| code point | DSCP |")
    )
    columns = [c.strip().strip("`") for c in header.strip().strip("|").split("|")][2:]
    _named_map_rows(rows, columns)


def test_man_page_named_map_table_is_the_header():
    man = (ROOT / "kernel/iproute2/tc-msfc.8").read_text()
    table = man[man.index(".TS\n") : man.index(".TE\n")].splitlines()[2:]
    header, rows = table[0].split("\t"), [r.split("\t") for r in table[2:]]
    rows = [[r[0], r[1].replace("..", ","), *r[2:]] for r in rows]
    for r in rows:  # "AF11..AF13" with "10,12,14"
        assert len(r) == 2 + len(MAP_NAMES), r
    _named_map_rows(rows, header[2:])
    text = man.replace("\n", " ")
    for name in MAP_NAMES:  # the synopsis' words and usage examples
        assert f" {name}" in text[text.index(".SS DSCP maps") :], name


def test_kernel_md_lists_the_named_maps():
    rows = md_rows(ROOT / "docs/kernel.md", "| map | prios | classes |")
    assert [r[0].strip("`") for r in rows] == MAP_NAMES
    for r in rows:
        assert r[1].split(",")[0] == str(D.dscp_maps[r[0].strip("`")][0]), r[0]


def test_named_maps_in_tc_words_and_the_cli():
    assert P.dscp_map("wifi") == D.dscp_maps["wifi"][1]
    assert P.dscp_map("") == P.dscp_map("default") == D.default_dscp_map
    changed = P.dscp_map("WiFi,cs6:1,56:1")
    assert (changed[48], changed[56], changed[46]) == (1, 1, 3)
    assert P.dscp_map("ef:0")[46] == 0 and P.dscp_map("ef:0")[8] == 0
    with pytest.raises(UserError, match="neither a map name"):
        P.dscp_map("wlan")
    for name in MAP_NAMES:
        assert check_dscp_map(name) is None and check_dscp_map(f"{name.upper()}, EF=2") is None
    assert "must come first" in check_dscp_map("EF=2, wifi")
    assert "nor a map name (default, diffserv3, diffserv4, diffserv8 or wifi" in check_dscp_map(
        "wlan"
    )
    assert cli_set("Msfc.DscpMap=diffserv4, EF=2").attrs["Msfc.DscpMap"]


def test_the_diffserv4_preset_keeps_its_own_map():
    """The preset's words change seven entries of the default map; cake's diffserv4 map agrees
    with it on every named code point but LE (the least-effort lane in the preset, cake's bulk
    class there) and differs in TOS4 and the 30 unnamed code points of precedence 2 .. 7
    (docs/algorithm.md, "Recommended settings")."""
    words = D.presets["diffserv4"].split()
    clamp = lambda c: c if c == D.dscp_le else min(c & D.dscp_class_mask, 3) | (c & D.dscp_nqb)  # noqa: E731
    preset = [clamp(c) for c in P.dscp_map(words[words.index("dscp_map") + 1])]
    named = D.dscp_maps["diffserv4"][1]
    differ = [d for d in range(64) if preset[d] != named[d]]
    assert set(differ) & set(D.dscp_names.values()) == {1}
    assert preset[1] == D.dscp_le and named[1] == 0
    assert differ[:2] == [1, 4] and len(differ) == 32
    assert all(d >> 3 >= 2 and named[d] == 1 for d in differ[2:])


def test_ce_threshold_ranges_are_the_header_and_documented():
    """L4S marking's ranges: the words state the numbers; the man page, docs/algorithm.md and
    tc-msfc(8) use the header's words; the off marker lies outside the threshold's range."""
    for p in D.ce.values():
        assert P.range_bounds(p) == (p.min, p.max), p.name
    assert not D.ce["ce_threshold"].contains(D.ce_threshold_off)
    assert D.ce_threshold_off == 2**32 - 1
    # the default selector is ECT(1) (RFC 9331), within its mask
    assert (D.ce["ce_threshold_selector"].default, D.ce["ce_threshold_mask"].default) == (1, 3)
    man = (ROOT / "kernel/iproute2/tc-msfc.8").read_text().replace("\n", " ")
    alg = (ROOT / "docs/algorithm.md").read_text().replace("\n", " ")
    for text in (man, alg):
        assert D.ce["ce_threshold"].range in text
    assert f"each {D.ce['ce_threshold_selector'].range}" in alg
