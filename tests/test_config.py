"""Parsing and validating options against what the programs describe."""

import pytest
from msfc.errors import UserError
from msfc.model import params as P
from msfc.sim.config import (
    build_config,
    check_dscp_map,
    class_quanta_overflow,
    parse_assignments,
    parse_datarate,
    parse_time,
    read_config_file,
    split_key,
)
from msfc.sim.programs import SchedulerAttr, describe_scenario, describe_schedulers


@pytest.fixture
def info(fake_build):
    return describe_scenario("fake", fake_build)


@pytest.fixture
def scheds(fake_build):
    return describe_schedulers(fake_build)


def cfg(info, scheds, *sets, **kw):
    return build_config(info, parse_assignments(list(sets)), schedulers=scheds, **kw)


def test_describe_is_read_from_the_program(info, scheds):
    assert info.params["duration"].min == 0.1 and info.params["duration"].max == 1000
    assert info.schedulers == ["PfifoFast", "CoDel", "FqCoDel", "Msfc"]
    assert info.default_preset == "quick"
    assert scheds["Msfc"].type_id == "ns3::MsfcQueueDisc"
    assert scheds["Msfc"].attributes["Isolate"].range == "flow|src|dst|both"
    assert scheds["CoDel"].attributes["MinBytes"].constraints() == [
        (">=", "0"),
        ("<=", "4294967295"),
    ]
    assert scheds["CoDel"].attributes["Interval"].constraints() == [
        (">=", "-9.22337e+18ns"),
        ("<=", "+9.22337e+18ns"),
    ]


def test_range_forms():
    """The forms of an attribute's range that msfc reads limits from."""

    def limits(r):
        return SchedulerAttr("A", "ns3::DoubleValue", "1", r, "").constraints()

    assert limits("0.0000153..16") == [(">=", "0.0000153"), ("<=", "16")]
    assert limits([1, 50]) == [(">=", "1"), ("<=", "50")]
    assert limits({"min": 2, "max": None}) == [(">=", "2")]
    assert limits(">= 1") == [(">=", "1")]
    assert limits("> 0 and < Interval") == [(">", "0")]
    assert limits("bool") == []
    # Msfc's Ratio as msfc-describe prints it: the first span, its fraction as a number (the
    # fixed-point span in parentheses is not the attribute's range)
    ratio = "1/65536 .. 16 (16.16 fixed point 1 .. 1048576)"
    assert limits(ratio) == [(">=", repr(1 / 65536)), ("<=", "16")]


def test_parse_assignments():
    assert parse_assignments(["a=1", "--b = x=y"]) == [("a", "1"), ("b", "x=y")]
    with pytest.raises(UserError, match="expected KEY=VALUE"):
        parse_assignments(["duration"])
    with pytest.raises(UserError, match="key is empty"):
        parse_assignments(["=3"])


def test_config_file(tmp_path):
    f = tmp_path / "c.conf"
    f.write_text("# comment\nduration = 5   # seconds\n\nscheduler=CoDel\n")
    assert read_config_file(f) == [("duration", "5"), ("scheduler", "CoDel")]
    f.write_text("duration 5\n")
    with pytest.raises(UserError, match=r"c.conf:1: expected 'key = value'"):
        read_config_file(f)
    with pytest.raises(UserError, match="cannot read config file"):
        read_config_file(tmp_path / "missing.conf")


def test_time_and_rate_parsing():
    assert parse_time("5ms") == pytest.approx(0.005)
    assert parse_time("1.5") == 1.5
    assert parse_time("2min") == 120
    assert parse_datarate("100Mbps") == 100e6
    assert parse_datarate("1.5Gb/s") == 1.5e9
    assert parse_datarate("10KiBps") == 10 * 1024 * 8
    assert parse_datarate("64000") == 64000
    for bad in ("fast", "10M", "5 parsecs"):
        with pytest.raises(ValueError):
            parse_datarate(bad)
    with pytest.raises(ValueError):
        parse_time("5 parsecs")


def test_unknown_option_lists_the_valid_ones(info, scheds):
    with pytest.raises(UserError) as e:
        cfg(info, scheds, "durration=3")
    msg = str(e.value)
    assert "no option 'durration'" in msg and "did you mean 'duration'" in msg
    for p in info.params:
        assert p in msg


def test_out_of_range_gives_the_range(info, scheds):
    with pytest.raises(UserError, match=r"out of range; allowed range 0.1 .. 1000"):
        cfg(info, scheds, "duration=5000")
    with pytest.raises(UserError, match=r"expected an integer; allowed range 1 .. 50"):
        cfg(info, scheds, "flows-per-type=2.5")
    with pytest.raises(UserError, match="true or false"):
        cfg(info, scheds, "fail=maybe")
    with pytest.raises(UserError, match="not a data rate"):
        cfg(info, scheds, "link-rate=fast")


def test_choices_and_scheduler(info, scheds):
    c = cfg(info, scheds, scheduler="codel")
    assert c.scheduler == "CoDel"
    with pytest.raises(UserError, match="valid values: PfifoFast, CoDel, FqCoDel, Msfc"):
        cfg(info, scheds, scheduler="Sfq")


def test_scheduler_attributes_map_to_ns3_attributes(info, scheds, tmp_path):
    c = cfg(info, scheds, "Msfc.Ratio=3", "Msfc.UseEcn=1")
    argv = c.argv("/bin/prog", tmp_path)
    assert "--ns3::MsfcQueueDisc::Ratio=3" in argv
    assert "--ns3::MsfcQueueDisc::UseEcn=true" in argv
    assert argv[-2:] == ["--RngRun=1", f"--out={tmp_path}"]
    c = cfg(info, scheds, "ns3::CoDelQueueDisc::Interval=50ms", scheduler="CoDel")
    assert "--ns3::CoDelQueueDisc::Interval=50ms" in c.argv("/bin/prog", tmp_path)
    # MSFC's ranges are the kernel qdisc's (msfc.model.params), in its words
    with pytest.raises(UserError, match=r"Msfc.Ratio=0: ratio must be 1/65536 \.\. 16"):
        cfg(info, scheds, "Msfc.Ratio=0")
    with pytest.raises(UserError, match=r"Msfc.Prios=17: prios must be 1 \.\. 16"):
        cfg(info, scheds, "Msfc.Prios=17")
    with pytest.raises(
        UserError, match=r"Prios': bad value '2.5': expected a non-negative integer"
    ):
        cfg(info, scheds, "Msfc.Prios=2.5")
    with pytest.raises(UserError, match=r"Msfc.Target=0ms: target must be 2 us \.\. 2000 s"):
        cfg(info, scheds, "Msfc.Target=0ms")
    with pytest.raises(UserError, match=r"Msfc.Interval=2h: interval must be 2 us \.\. 2000 s"):
        cfg(info, scheds, "Msfc.Interval=2h")
    with pytest.raises(UserError, match=r"MaxSize': bad value '10 packets'; use packets or bytes"):
        cfg(info, scheds, "Msfc.MaxSize=10 packets")
    assert (
        cfg(info, scheds, "Msfc.MaxSize=2000p", "Msfc.Interval=30min").attrs["Msfc.MaxSize"]
        == "2000p"
    )
    with pytest.raises(
        UserError,
        match=r"has no attribute 'Ration'.*did you mean 'Ratio'.*Prios, Flows, Quantum, Ratio, Target",
    ):
        cfg(info, scheds, "Msfc.Ration=3")
    with pytest.raises(UserError, match=r"unknown scheduler 'Sfq'.*Msfc, CoDel"):
        cfg(info, scheds, "Sfq.Perturb=1")
    with pytest.raises(UserError, match="not a time"):
        cfg(info, scheds, "Msfc.Target=soon")
    assert split_key("duration") is None


def test_enum_attribute_values_are_checked(info, scheds, tmp_path):
    c = cfg(info, scheds, "Msfc.Overload=class")
    assert "--ns3::MsfcQueueDisc::Overload=class" in c.argv("/bin/prog", tmp_path)
    with pytest.raises(
        UserError, match=r"Overload': unknown value 'clas'.*did you mean 'class'.*flow, class"
    ):
        cfg(info, scheds, "Msfc.Overload=clas")
    # every mode takes the words of the kernel's and tc's keyword, and only those
    for key, words in P.CHOICES.items():
        attr = key.capitalize()
        for w in words:
            assert cfg(info, scheds, f"Msfc.{attr}={w}").attrs[f"Msfc.{attr}"] == w
        with pytest.raises(UserError, match=rf"{attr}': unknown value 'x'.*{', '.join(words)}"):
            cfg(info, scheds, f"Msfc.{attr}=x")


def test_attributes_need_msfc_describe(fake_build_no_describe):
    info = describe_scenario("fake", fake_build_no_describe)
    with pytest.raises(
        UserError, match="msfc-describe, which does not exist; build it with `make build`"
    ):
        build_config(
            info,
            [("Msfc.Ratio", "3")],
            schedulers_loader=lambda: describe_schedulers(fake_build_no_describe),
        )
    # scenario options alone do not need it
    assert build_config(info, [("duration", "2")]).resolved["duration"] == "2"


def test_preset_resolution_and_hash(info, scheds):
    base = cfg(info, scheds)
    assert base.resolved["duration"] == "3"  # default preset 'quick'
    same = cfg(info, scheds, "duration=3")  # equal to the preset: same run
    assert same.hash() == base.hash()
    assert cfg(info, scheds, "duration=4").hash() != base.hash()
    assert cfg(info, scheds, rng_run=2).hash() != base.hash()
    assert cfg(info, scheds, "Msfc.Ratio=2").hash() != base.hash()
    long = cfg(info, scheds, preset="long")
    assert long.resolved["duration"] == "20" and long.resolved["flows-per-type"] == "4"
    assert "--preset=long" in long.argv("p", "o")
    with pytest.raises(UserError, match="valid presets: quick, long"):
        cfg(info, scheds, preset="huge")
    # hash is stable across processes (no Python hash randomisation)
    assert base.hash() == cfg(info, scheds).hash() and len(base.hash()) == 16


def test_rng_run_validation(info, scheds):
    assert cfg(info, scheds, "run=4").rng_run == 4
    with pytest.raises(UserError, match=">= 1"):
        cfg(info, scheds, rng_run=0)
    with pytest.raises(UserError, match="--out"):
        cfg(info, scheds, "out=/tmp/x")


def test_unknown_scenario_lists_valid(fake_build, tmp_path):
    with pytest.raises(UserError, match="unknown scenario 'isp'; valid scenarios: fake"):
        describe_scenario("isp", fake_build)
    with pytest.raises(UserError, match="make build"):
        describe_scenario("fake", tmp_path / "nowhere")


def test_attributes_of_a_scheduler_the_run_does_not_use(info, scheds):
    with pytest.raises(
        UserError, match=r"'Msfc.Ratio' applies to the scheduler Msfc only, but this "
    ):
        cfg(info, scheds, "Msfc.Ratio=3", scheduler="FqCoDel")
    c = cfg(info, scheds, "Msfc.Ratio=3", scheduler="FqCoDel", other_scheduler="drop")
    assert c.attrs == {} and c.ignored == ["Msfc.Ratio"]
    assert c.hash() == cfg(info, scheds, scheduler="FqCoDel").hash()  # the same simulation


def test_constraints_between_attributes_in_the_kernels_words(info, scheds):
    msg = r"Msfc: target must be at least 2 us and below interval \(Target 200ms, Interval 100ms\)"
    with pytest.raises(UserError, match=msg):
        cfg(info, scheds, "Msfc.Target=200ms")
    with pytest.raises(UserError, match="target must be at least 2 us and below interval"):
        cfg(info, scheds, "Msfc.Target=10ms", "Msfc.Interval=10ms")
    assert cfg(info, scheds, "Msfc.Target=20ms", "Msfc.Interval=200ms").attrs["Msfc.Target"]
    with pytest.raises(
        UserError, match=r"Msfc.DscpMap: .*class '16': dscp map entries must be classes 0 .. 15"
    ):
        cfg(info, scheds, "Msfc.DscpMap=EF=16")
    assert cfg(info, scheds, "Msfc.DscpMap=EF=2, CS1=0; 10:0, af41=1").attrs["Msfc.DscpMap"]
    assert "not of the form DSCP=CLASS" in check_dscp_map("EF")
    assert "DSCP 64 is not a code point 0 .. 63" in check_dscp_map("64=1")
    assert "neither a DSCP number" in check_dscp_map("XY=1")
    assert check_dscp_map("LE=le, NQB=1+nqb, EF = 2+NQB, CS1=LE") is None
    for bad in ("le+nqb", "16+nqb", "+nqb", "1+nq", "nqb", "1+nqb+nqb", "1 + nqb"):
        assert "dscp map entries must be" in check_dscp_map(f"EF={bad}"), bad
    # the class quanta: Quantum * Ratio^(Prios-1) up to 2^40 bytes (1500 * 16^7 ~ 4e11 fits)
    assert class_quanta_overflow(0, 16, 9) and not class_quanta_overflow(0, 16, 8)
    assert class_quanta_overflow(65535, 16, 8) and not class_quanta_overflow(65535, 1, 16)
    over = r"Msfc: quantum \* ratio\^\(prios-1\) exceeds 2\^40 bytes: lower ratio, prios or quantum"
    with pytest.raises(UserError, match=over + r" \(Quantum 1500, Ratio 16, Prios 16\)"):
        cfg(info, scheds, "Msfc.Ratio=16", "Msfc.Prios=16")
    assert cfg(info, scheds, "Msfc.Ratio=16", "Msfc.Prios=8").attrs["Msfc.Prios"] == "8"


def test_class_quanta_checked_with_the_scenario_option_that_sets_prios(fake_isp_build):
    """isp-tree sets MSFC's Prios and Ratio through its options prios and ratio: they count."""
    isp = describe_scenario("isp-tree", fake_isp_build)
    sch = describe_schedulers(fake_isp_build)
    with pytest.raises(UserError, match=r"exceeds 2\^40 bytes.*Ratio 16, Prios 8"):
        cfg(isp, sch, "prios=8", "ratio=16", "Msfc.Quantum=65535", scheduler="Msfc")
    # under another scheduler MSFC's quanta do not matter
    assert cfg(isp, sch, "prios=8", scheduler="FqCoDel").resolved["prios"] == "8"


def test_a_time_needs_its_unit(info, scheds):
    with pytest.raises(UserError, match=r"'delay-bin': bad value '5': '5' has no unit; write it "):
        cfg(info, scheds, "delay-bin=5")
    with pytest.raises(UserError, match=r"'Target': bad value '5': '5' has no unit"):
        cfg(info, scheds, "Msfc.Target=5")
    assert cfg(info, scheds, "delay-bin=1ms").params["delay-bin"] == "1ms"


def test_attribute_set_through_a_scenario_option_is_recorded_as_it(fake_isp_build):
    """isp-tree's option ratio sets ns3::MsfcQueueDisc::Ratio (``sets`` in --describe)."""
    isp = describe_scenario("isp-tree", fake_isp_build)
    sch = describe_schedulers(fake_isp_build)
    with pytest.raises(
        UserError,
        match=r"ratio=3 and Msfc.Ratio=1.5 both set ns3::MsfcQueueDisc::Ratio, to different values",
    ):
        cfg(isp, sch, "ratio=3", "Msfc.Ratio=1.5")
    c = cfg(isp, sch, "Msfc.Ratio=1.5")
    assert c.attrs == {} and c.params["ratio"] == "1.5" and c.resolved["ratio"] == "1.5"
    assert c.hash() == cfg(isp, sch, "ratio=1.5").hash()
    assert cfg(isp, sch, "ratio=3", "Msfc.Ratio=3.0").resolved["ratio"] == "3"
    # Prios through the option 'prios', so that the program checks the flow types against it
    c = cfg(isp, sch, "Msfc.Prios=2")
    assert c.resolved["prios"] == "2" and "--prios=2" in c.argv("p", "o")
    with pytest.raises(UserError, match=r"Msfc.Prios=12: scenario 'isp-tree' sets .* 'prios'"):
        cfg(isp, sch, "Msfc.Prios=12")
    # the attribute of a scheduler the run does not use, given through the option that sets it
    with pytest.raises(UserError, match=r"'Msfc.Ratio' applies to the scheduler Msfc"):
        cfg(isp, sch, "Msfc.Ratio=3", scheduler="FqCoDel")
    c = cfg(isp, sch, "Msfc.Ratio=3", scheduler="FqCoDel", other_scheduler="drop")
    assert c.resolved["ratio"] == "2" and c.ignored == ["Msfc.Ratio"]
    # the option itself is the scenario's: it may do more (prios also bounds the priorities)
    assert cfg(isp, sch, "prios=2", scheduler="FqCoDel").resolved["prios"] == "2"
