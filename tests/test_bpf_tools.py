"""The host side of the BPF qdisc's VM tools (bpf/fuzz.py, bpf/replay.py): the fuzz step's
operations and oracle, and which cross-check traces a replay drives (no VM is booted)."""

import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "bpf"))

import fuzz  # noqa: E402
import replay  # noqa: E402


def test_fuzz_operations_are_the_seeds():
    a, b = fuzz.operations(7, 300), fuzz.operations(7, 300)
    assert [o.line(i) for i, o in enumerate(a)] == [o.line(i) for i, o in enumerate(b)]
    assert [o.line(i) for i, o in enumerate(a)] != [
        o.line(i) for i, o in enumerate(fuzz.operations(8, 300))
    ]
    verbs = {o.verb for o in a}
    assert verbs == {"load", "unload", "stats", "add", "replace", "del", "sleep"}
    loads = [o for o in a if o.verb == "load"]
    assert any(o.refuse is None for o in loads) and any(o.refuse for o in loads)


def test_fuzz_oracle_takes_the_headers_words_and_the_loaders_rules():
    assert fuzz.must_be("prios") == "prios must be 1 .. 16"
    assert fuzz.cross_rules({}) is None  # the defaults
    # quantum * ratio^(prios-1) beyond 2^40
    assert "exceeds 2^40" in fuzz.cross_rules({"prios": 16, "ratio": 16 << 16, "quantum": 1 << 20})
    assert fuzz.cross_rules({"prios": 11, "ratio": 16 << 16, "quantum": 1}) is None
    # exact weights: sum 2^32 / Q_p of 16 halving classes is far above 2^32 / 200
    exact = {"prios": 16, "ratio": 1 << 15, "quantum": 1, "weights": "exact"}
    assert "exact weights" in fuzz.cross_rules(exact)
    assert fuzz.cross_rules(exact | {"weights": "rounded"}) is None
    assert "below interval" in fuzz.cross_rules({"target": 100000, "interval": 100000})
    # a shaper of 1 byte/s scales the target to its maximum / 2, the interval above it
    assert fuzz.cross_rules({"bandwidth": 1}) is None
    assert "below interval" in fuzz.cross_rules({"bandwidth": 1, "interval": 100000})
    assert "one entry per class" in fuzz.cross_rules({"prios": 4, "quanta": [1, 2, 3]})


def test_fuzz_model_of_registration_and_instances():
    m = fuzz.Model()
    add = fuzz.Op("add", ["srv_r", fuzz.KIND])
    assert m.expect(add) == (False, "unknown")
    m.apply(fuzz.Op("load", ["prios", "3"], None, 3), True)
    assert m.expect(add) == (True, "")
    m.apply(add, True)
    assert m.expect(fuzz.Op("add", ["mq0:1", fuzz.KIND])) == (False, "busy")
    assert m.expect(fuzz.Op("replace", ["srv_r", fuzz.KIND]))[0] is True  # a change
    assert m.expect(fuzz.Op("load", [], None, 3)) == (False, "already loaded")
    m.apply(fuzz.Op("unload"), True)
    # the instance outlives its program; a new load may be added beside it
    m.apply(fuzz.Op("load", [], None, 3), True)
    assert m.expect(fuzz.Op("add", ["cli_r", fuzz.KIND])) == (True, "")
    assert m.expect(fuzz.Op("add", ["htb", fuzz.KIND])) == (False, "root or mq")
    assert m.expect(fuzz.Op("del", ["cli_r"]))[0] is False  # the default qdisc


def test_fuzz_results_parse_and_a_wrong_answer_fails():
    ops = [fuzz.Op("load", ["prios", "17"], fuzz.must_be("prios"), 17), fuzz.Op("unload")]
    good = (
        '@@ 0 1 0\nE msfc-bpf: prios must be 1 .. 16, got "17"\n'
        "@@ 1 1 0\nE msfc-bpf: msfc_bpf is not loaded (no /sys/fs/bpf/msfc_bpf/link)\n"
        "@@ final_add 2 0\nE Error: Specified qdisc kind is unknown.\n@@ final_show 0 0\n"
    )
    checks, counts = fuzz.check(ops, fuzz.parse_results(good), "[ 1.0] msfc-fuzz: op 0\n")
    assert all(ok for _, ok, _ in checks), checks
    assert counts["loads_invalid_refused"] == 1
    wrong = good.replace("prios must be 1 .. 16", "something else")
    checks, _ = fuzz.check(ops, fuzz.parse_results(wrong), "[ 1.0] x\n")
    assert not checks[0][1]
    splat = "[ 1.0] msfc-fuzz: op 0 load\n[ 1.1] WARNING: CPU: 0 PID: 1 at net/sched/x.c:1\n"
    checks, _ = fuzz.check(ops, fuzz.parse_results(good), splat)
    assert not dict((n, ok) for n, ok, _ in checks)["fuzz: no kernel report"]


def test_replay_drives_the_traces_without_clock_changes_or_host_slots():
    driven, skipped = replay.traces()
    assert "basic-3x8-r2" in driven and "order-priority-3x8" in driven
    words, flows, ops, want = driven["basic-3x8-r2"]
    assert flows == 8 and words[:2] == ["prios", "3"] and "1000s" in words
    assert ops[0] == "E 2 1 991" and "D" in ops
    assert want == (REPO / "test" / "vectors" / "basic-3x8-r2.expected").read_text()
    assert "clock" in skipped["regress-codel-clock-unit"]
    assert "changes" in skipped["change-sizes-2x4"]
    assert "isolate" in skipped["isolate-src-2x16"]
    committed = [n for n in driven if not n.startswith(("still-", "edge-"))]
    assert len(committed) + len(skipped) == len(list((REPO / "test" / "vectors").glob("*.trace")))
    # still variants: no clock, up to the first change; never of isolate, auto or L4S traces
    assert "still-le-lane-3x8" in driven and "still-nqb-flows-2x8" in driven
    assert "still-isolate-src-2x16" not in driven and "still-auto-3x16" not in driven
    _, _, ops, want = driven["still-le-lane-3x8"]
    assert all(op == "D" or op.startswith("E ") for op in ops)
    assert any(op.startswith("E l ") for op in ops) and "\nl " in "\n" + want
    # the generated LE/NQB traces and the edge traces
    gen = [n for n in driven if n.startswith("still-gen-")]
    assert len(gen) == replay.GENERATED_LENQB
    assert {"edge-nqb-skip-2x8-q1", "edge-lane-16x2-limit12"} <= set(driven)


def test_replay_still_text_and_the_map_that_carries_le_and_nqb():
    text = "P version=7 prios=2\nT 5\nE 1n 0 100 0\nD\nC boost=on\nE l 1 100 0\n"
    assert replay.still_text(text) == "P version=7 prios=2\nE 1n 0 100 0\nD\n"
    words, flows, ops = replay.plan(text, still=True)
    assert ops == ["E 1n 0 100", "D"] and flows == 1024
    assert "clock" in replay.plan(text)
    entries = replay.DSCP_MAP[1].split(",")
    assert "0:0" in entries and "17:1+nqb" in entries and "32:le" in entries


def test_replay_compare_names_the_first_difference():
    assert replay.compare("1 2 3\n-\n", "1 2 3\n-\n") == (True, "")
    ok, why = replay.compare("1 2 3\n0 1 5\n", "1 2 3\n-\n")
    assert not ok and "decision 2" in why
