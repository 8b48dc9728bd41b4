"""The note that a mode beyond the thesis changed nothing (msfc.analysis.modes, issue 29): in the output
of `msfc sweep`, in the report of a sweep and in `msfc report A --against B`, one line per
configuration whose per-flow records equal those of the thesis's value of the mode, with the
reason where the runs' records show it."""

import hashlib
import json

import pytest
from msfc.analysis.modes import unchanged_notes
from msfc.cli import main


def _sweep(fake_build, out, *grid, seeds="2"):
    argv = ["sweep", "fake", "--build-dir", str(fake_build), "--no-progress", "--jobs", "2"]
    argv += ["--set", "duration=1", "--seeds", seeds, "--out", str(out)]
    for g in grid:
        argv += ["--grid", g]
    return main(argv)


def test_a_sweep_says_which_mode_changed_nothing_and_why(fake_build, tmp_path, capsys):
    """The fake scenario never overflows a queue disc (qdisc.csv: no overload drop), so
    Overload=class leaves its records as they are; Isolate=src changes them (the fake draws
    other delays for it). One note, naming the reason and the runs compared."""
    out = tmp_path / "sw"
    assert _sweep(fake_build, out, "Msfc.Overload=flow,class", "Msfc.Isolate=flow,src") == 0
    text = capsys.readouterr().out
    notes = [ln for ln in text.splitlines() if ln.startswith("Note: ")]
    assert notes == [
        "Note: Msfc.Overload=class changed nothing (at Msfc.Isolate=flow) in this scenario: no "
        "queue disc overflowed (no overload drop); its per-flow records are those of "
        "Msfc.Overload=flow, the default, in all 2 RNG runs",
        "Note: Msfc.Overload=class changed nothing (at Msfc.Isolate=src) in this scenario: no "
        "queue disc overflowed (no overload drop); its per-flow records are those of "
        "Msfc.Overload=flow, the default, in all 2 RNG runs",
    ]
    assert "Msfc.Isolate=src changed nothing" not in text
    # the sweep's report says the same
    assert main(["report", str(out)]) == 0
    page = (out / "report" / "index.html").read_text()
    assert page.count("<p class='note'>Note: Msfc.Overload=class changed nothing") == 2
    assert "Msfc.Isolate=src changed nothing" not in page


def test_a_mode_that_changed_the_runs_gets_no_note(fake_build, tmp_path, capsys):
    out = tmp_path / "sw"
    assert _sweep(fake_build, out, "Msfc.Boost=off,on", seeds="1") == 0
    assert "changed nothing" not in capsys.readouterr().out


def test_against_notes_a_mode_that_changed_nothing(fake_build, tmp_path, capsys):
    """A run with the thesis's modes against the same run with Overload=class: the report
    plotted B on the diagonal, and now also says why."""
    b = ["--build-dir", str(fake_build), "--no-progress", "--set", "duration=1"]
    a, c = tmp_path / "a", tmp_path / "c"
    assert main(["run", "fake", *b, "--out", str(a)]) == 0
    assert main(["run", "fake", *b, "--set", "Msfc.Overload=class", "--out", str(c)]) == 0
    assert main(["report", str(a), "--against", str(c)]) == 0
    page = (a / "report-against-c" / "index.html").read_text()
    assert (
        "Note: Msfc.Overload=class changed nothing in this scenario: no queue disc overflowed "
        "(no overload drop); its per-flow records are those of Msfc.Overload=flow, the "
        "default, in its one RNG run"
    ) in page


# ------------------------------------------------------------------ runs written by hand

FLOWS = "flow_id,type,priority,direction,src,dst,rx_bytes\n"


def _run(root, name, attrs, flows, qdisc=None, rng_run=1, **resolved):
    """A finished run directory as the runner leaves it (config.json, done.json with the
    SHA-256 of flows.csv, flows.csv, qdisc.csv)."""
    d = root / "runs" / name
    d.mkdir(parents=True)
    (d / "flows.csv").write_text(FLOWS + flows)
    cfg = {
        "scenario": "x",
        "attrs": attrs,
        "attr_ids": {k: f"ns3::MsfcQueueDisc::{k.split('.')[1]}" for k in attrs},
        "rng_run": rng_run,
        "rng_option": "rng-run",
        "resolved": {"scheduler": "Msfc", "rng-run": str(rng_run), **resolved},
    }
    (d / "config.json").write_text(json.dumps(cfg))
    sha = hashlib.sha256((d / "flows.csv").read_bytes()).hexdigest()
    (d / "done.json").write_text(json.dumps({"files": {"flows.csv": {"sha256": sha}}}))
    head = "node,device,scheduler,class,enqueued_packets,overload_drops\n"
    (d / "qdisc.csv").write_text(head + (qdisc or "R,0,Msfc,0,10,0\nR,0,Msfc,1,10,3\n"))
    return d


TWO_HOSTS = "1,a,1,down,s1,c1,100\n2,b,1,down,s2,c2,100\n3,c,0,down,s1,c3,50\n"


@pytest.mark.parametrize(
    ("attr", "qdisc", "flows", "why"),
    [
        # one class per queue disc: the modes that act between classes have nothing to do
        (
            "Msfc.Inversion=prevent",
            "R,0,Msfc,1,10,3\nS,0,Msfc,0,10,0\n",
            TWO_HOSTS,
            "every queue disc carried packets of one class only (the mode acts between classes)",
        ),
        ("Msfc.Order=priority", "R,0,Msfc,1,10,3\n", TWO_HOSTS, "every queue disc carried"),
        ("Msfc.Overload=class", "R,0,Msfc,1,10,0\nR,0,Msfc,0,5,0\n", TWO_HOSTS, "no queue disc"),
        # each source host one flow per class; with dst, c1 receives two flows of class 1
        ("Msfc.Isolate=src", None, TWO_HOSTS, "no source host has more than one flow in a class"),
        ("Msfc.Isolate=dst", None, "1,a,1,down,s1,c1,1\n2,a,1,down,s2,c1,1\n", ""),
        ("Msfc.Boost=on", None, "1,a,1,down,s1,c1,1\n2,a,0,down,s2,c1,1\n", "no class holds"),
        # two classes at one queue disc: the reason is not shown, only that nothing changed
        ("Msfc.Weights=exact", None, TWO_HOSTS, ""),
    ],
)
def test_the_reason_comes_from_the_runs_records(tmp_path, attr, qdisc, flows, why):
    key, value = attr.split("=")
    mode = key.split(".")[1]
    runs = [
        _run(tmp_path, f"{r}{n}", a, flows, qdisc, rng_run=n)
        for n in (1, 2)
        for r, a in (
            ("off", {}),
            ("on", {key: value}),
        )
    ]
    (note,) = unchanged_notes(runs)
    same = f"its per-flow records are those of {key}="
    assert note.startswith(f"{attr} changed nothing in this scenario: ")
    assert same in note and note.endswith("the default, in all 2 RNG runs")
    assert mode in note
    if why:
        assert note.split(": ", 1)[1].startswith(why)
    else:
        assert note.split(": ", 1)[1].startswith(same)


def test_auto_unmarked_with_every_flow_marked_says_why(tmp_path):
    """Auto=unmarked leaves marked packets to the DSCP map: when every flow carries a mark the
    note says so; one unmarked flow and the reason is not shown."""
    for dscps, why in (((46, 10), True), ((46, 0), False)):
        root = tmp_path / str(dscps[1])
        flows = "".join(f"{i},a,1,down,s{i},c{i},100,{d}\n" for i, d in enumerate(dscps))
        runs = [
            _run(root, f"{r}1", a, "", None)
            for r, a in (("off", {}), ("on", {"Msfc.Auto": "unmarked"}))
        ]
        for d in runs:  # flows.csv with its dscp column, and done.json's digest of it
            (d / "flows.csv").write_text(FLOWS.rstrip("\n") + ",dscp\n" + flows)
            sha = hashlib.sha256((d / "flows.csv").read_bytes()).hexdigest()
            (d / "done.json").write_text(json.dumps({"files": {"flows.csv": {"sha256": sha}}}))
        (note,) = unchanged_notes(runs)
        text = note.split(": ", 1)[1]
        assert text.startswith("every flow carries a DSCP mark") == why, note


@pytest.mark.parametrize(
    ("value", "dscps", "moves", "why"),
    [
        # no promotion, a demotion only at class 0 (the slot stays there): nothing moved
        ("unmarked", (0, 10), ((0, 0), (0, 0)), True),
        ("unmarked", (0, 10), ((0, 5), (0, 0)), True),
        ("all", (0, 0), ((0, 0), (0, 0)), True),
        # Auto=all also takes marked packets out of their DSCP class
        ("all", (0, 10), ((0, 0), (0, 0)), False),
        # one promotion out of class 1, or one demotion out of it
        ("unmarked", (0, 10), ((0, 0), (1, 0)), False),
        ("unmarked", (0, 10), ((0, 5), (0, 1)), False),
    ],
)
def test_auto_with_no_slot_moving_says_why(tmp_path, value, dscps, moves, why):
    """qdisc.csv's auto counters per class (flow slots that left the class up / down): when no
    slot left the class of unmarked traffic the automatic packets went where the map puts them."""
    head = "node,device,scheduler,class,enqueued_packets,overload_drops,auto_promotions,"
    qdisc = head + "auto_demotions\n"
    qdisc += "".join(f"R,0,Msfc,{c},10,0,{up},{down}\n" for c, (up, down) in enumerate(moves))
    flows = "".join(f"{i},a,1,down,s{i},c{i},100,{d}\n" for i, d in enumerate(dscps))
    runs = [
        _run(tmp_path, f"{r}1", a, "", None) for r, a in (("off", {}), ("on", {"Msfc.Auto": value}))
    ]
    for d in runs:
        (d / "flows.csv").write_text(FLOWS.rstrip("\n") + ",dscp\n" + flows)
        sha = hashlib.sha256((d / "flows.csv").read_bytes()).hexdigest()
        (d / "done.json").write_text(json.dumps({"files": {"flows.csv": {"sha256": sha}}}))
        (d / "qdisc.csv").write_text(qdisc)
    (note,) = unchanged_notes(runs)
    text = note.split(": ", 1)[1]
    assert text.startswith("no flow slot left the class of unmarked traffic") == why, note


def test_no_note_without_identical_records_in_every_run(tmp_path):
    off = [_run(tmp_path, f"off{n}", {}, TWO_HOSTS, rng_run=n) for n in (1, 2)]
    on1 = _run(tmp_path, "on1", {"Msfc.Boost": "on"}, TWO_HOSTS, rng_run=1)
    on2 = _run(tmp_path, "on2", {"Msfc.Boost": "on"}, TWO_HOSTS.replace("50", "51"), rng_run=2)
    assert unchanged_notes([*off, on1, on2]) == []
    # a configuration compared in fewer runs than it has is not called unchanged either
    assert (
        unchanged_notes([off[0], on1, _run(tmp_path, "on3", {"Msfc.Boost": "on"}, "", None, 3)])
        == []
    )
    # the thesis's value given explicitly is the thesis's configuration
    explicit = _run(tmp_path, "explicit", {"Msfc.Boost": "off"}, TWO_HOSTS, rng_run=1)
    assert len(unchanged_notes([explicit, on1])) == 1
    # other settings must agree: another option is another configuration
    other = _run(tmp_path, "other", {}, TWO_HOSTS, rng_run=1, duration="9")
    assert unchanged_notes([other, on1]) == []
