"""Reference model against the ns-3 model, decision by decision (docs/differential.md).

- the generated differential set (msfc.model.vectors.generated_traces, seeded) through both;
- a Hypothesis property: any trace the strategies below draw gives the same decisions; a
  failure is shrunk to a small trace, printed ready to be committed in test/vectors/;
- a Hypothesis state machine that changes the configuration (any parameter, valid or not)
  between enqueues, dequeues and clock steps, with the queue disc busy or idle and flows
  still listed (docs/algorithm.md, "Changing the configuration").

The ns-3 side is build/msfc-trace-replay (`make build`; `make test` builds first).
MSFC_DIFF_EXAMPLES sets the number of Hypothesis examples (default 200; `make diff-test N=...`
sets it and turns derandomisation off).
"""

import os

import pytest
from conftest import real_build_dir
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule
from msfc.model import reference as ref
from msfc.model import vectors
from msfc.model.differential import Ns3Replay, decision_kind, first_difference

BUILD = real_build_dir("msfc-trace-replay")
needs_ns3 = pytest.mark.skipif(
    BUILD is None,
    reason="no build/msfc-trace-replay: run `make build` (or set MSFC_BUILD_DIR)",
)
EXAMPLES = int(os.environ.get("MSFC_DIFF_EXAMPLES", "200"))
RANDOM = os.environ.get("MSFC_DIFF_RANDOM") == "1"


@pytest.fixture(scope="module")
def ns3():
    with Ns3Replay(BUILD / "msfc-trace-replay") as r:
        yield r


@needs_ns3
def test_generated_set_reference_equals_ns3(ns3):
    kinds = {}
    for name, trace in vectors.generated_traces():
        want = ref.replay(trace.splitlines())
        diff = first_difference(want, ns3.replay(trace))
        assert diff is None, f"{name}: ns-3 differs from the reference: {diff}"
        for line in want:
            k = decision_kind(line)
            kinds[k] = kinds.get(k, 0) + 1
    # the set exercises every kind of decision
    for k in ("dequeue", "ce", "empty", "drop codel", "drop overload", "change"):
        assert kinds.get(k, 0) > 100, kinds
    for k in ("change busy", "change invalid"):
        assert kinds.get(k, 0) >= 10, kinds


@needs_ns3
def test_committed_vectors_reference_equals_ns3(ns3):
    vdir = vectors.default_dir()
    for fn in sorted(os.listdir(vdir)):
        if fn.endswith(".trace"):
            trace = open(os.path.join(vdir, fn)).read()
            diff = first_difference(ref.replay(trace.splitlines()), ns3.replay(trace))
            assert diff is None, f"{fn}: {diff}"


HEADER = st.fixed_dictionaries(
    dict(
        prios=st.integers(1, 4),
        flows=st.integers(1, 4),
        quantum=st.sampled_from((300, 1000, 1500)) | st.integers(1, 3000),
        ratio=st.sampled_from(("2", "1.5", "3", "0.5", "1.3", "1")),
        limit=st.just(10240) | st.integers(1, 30),
        drop_batch=st.just(64) | st.integers(1, 8),
        target=st.sampled_from((100, 500, 1000)),
        interval=st.integers(2, 20),  # times target
        ecn=st.integers(0, 1),
        overload=st.sampled_from(ref.OVERLOAD_MODES),
        weights=st.sampled_from(ref.WEIGHT_MODES),
        inversion=st.sampled_from(ref.INVERSION_MODES),
        isolate=st.sampled_from(ref.ISOLATE_MODES),
        boost=st.sampled_from(ref.BOOST_MODES),
        order=st.sampled_from(ref.ORDER_MODES),
        auto=st.sampled_from(ref.AUTO_MODES),
    )
)
# class, flow, length, ECT, source and destination host slots (used with isolate != flow),
# NQB (a packet of a class only)
PACKET = st.tuples(
    st.integers(0, 15),
    st.integers(0, 15),
    st.integers(1, 3000),
    st.integers(0, 1),
    st.integers(0, 3),
    st.integers(0, 3),
    st.booleans(),
)


def class_field(c: int, prios: int, nqb: bool):
    """A drawn class -> a trace's class field: of prios + 2 values, one is an unmarked packet
    (classified by auto), one a packet of the least-effort lane, the others classes, NQB or
    not (docs/algorithm.md, "LE and NQB")."""
    c %= prios + 2
    if c == prios:
        return ref.AUTO_CLASS
    if c == prios + 1:
        return ref.LANE_CLASS
    return f"{c}{ref.NQB_SUFFIX}" if nqb else c


# a round: some enqueues, some dequeues, then a clock step in units of target/8; more enqueues
# than dequeues build sojourn times so CoDel acts, long steps let queues drain and go idle
ROUNDS = st.lists(
    st.tuples(
        st.lists(PACKET, min_size=1, max_size=6),
        st.integers(0, 4),
        st.integers(0, 16) | st.integers(0, 400),
    ),
    min_size=1,
    max_size=80,
)


def make_trace(hdr: dict, rounds) -> str:
    p = dict(hdr, interval=hdr["target"] * hdr["interval"])
    lines = ["P version=7 " + " ".join(f"{k}={v}" for k, v in p.items())]
    for pkts, deqs, step in rounds:
        for c, f, length, ect, src, dst, nqb in pkts:
            hosts = f" {src % p['flows']} {dst % p['flows']}" if p["isolate"] != "flow" else ""
            cls = class_field(c, p["prios"], nqb)
            lines.append(f"E {cls} {f % p['flows']} {length} {ect}{hosts}")
        lines += ["D"] * deqs
        lines.append(f"T {step * p['target'] * 125}")  # target / 8 in ns
    return "\n".join(lines) + "\n"


@needs_ns3
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not RANDOM,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(hdr=HEADER, rounds=ROUNDS)
def test_property_reference_equals_ns3(ns3, hdr, rounds):
    try:
        ref.class_quanta(
            hdr["prios"],
            hdr["quantum"],
            ref.ratio_to_fp(hdr["ratio"]),
            hdr["weights"] == "exact",
        )
    except ref.TraceError:
        return  # a configuration both reject (tested elsewhere)
    trace = make_trace(hdr, rounds)
    diff = first_difference(ref.replay(trace.splitlines()), ns3.replay(trace))
    assert diff is None, f"ns-3 differs from the reference: {diff}\n--- trace ---\n{trace}"


# what a change may set: mostly valid values, some out of range or against another parameter
CHANGE_VALUES = {
    "prios": st.integers(1, 5) | st.just(17),
    "flows": st.integers(1, 6),
    "quantum": st.sampled_from((300, 1000, 1500, 0)) | st.integers(1, 3000),
    "ratio": st.sampled_from(("2", "1.5", "3", "0.5", "1.3", "1", "16", "17")),
    "limit": st.just(10240) | st.integers(1, 30) | st.just(0),
    "drop_batch": st.just(64) | st.integers(1, 8),
    "target": st.sampled_from((100, 500, 1000, 50000)),
    "interval": st.sampled_from((1000, 5000, 20000, 100)),
    "ecn": st.integers(0, 1),
    "overload": st.sampled_from(ref.OVERLOAD_MODES),
    "weights": st.sampled_from(ref.WEIGHT_MODES),
    "inversion": st.sampled_from(ref.INVERSION_MODES),
    "isolate": st.sampled_from(ref.ISOLATE_MODES),
    "boost": st.sampled_from(ref.BOOST_MODES),
    "order": st.sampled_from(ref.ORDER_MODES),
    "auto": st.sampled_from(ref.AUTO_MODES),
}
CHANGE = st.lists(
    st.sampled_from(sorted(CHANGE_VALUES)), min_size=1, max_size=3, unique=True
).flatmap(lambda keys: st.fixed_dictionaries({k: CHANGE_VALUES[k] for k in keys}))


class ChangingQueueDisc(RuleBasedStateMachine):
    """Enqueues, dequeues, clock steps and changes in any order, written as a version 7 trace
    while the reference runs it (so that every enqueue fits the configuration in force: a
    change refused as busy keeps the old prios and flows); at the end the trace goes through
    the ns-3 model and both must have decided the same."""

    ns3 = None  # set by the test

    @initialize(hdr=HEADER)
    def start(self, hdr):
        p = dict(hdr, interval=hdr["target"] * hdr["interval"])
        try:
            self.q = ref.Msfc(**p)
        except ref.TraceError:  # a configuration both reject: start from the defaults
            p = dict(ref.DEFAULTS, prios=3, flows=4)
            self.q = ref.Msfc(**p)
        self.lines = ["P version=7 " + " ".join(f"{k}={v}" for k, v in p.items())]

    @rule(pkt=PACKET, n=st.integers(1, 4))
    def enqueue(self, pkt, n):
        c, f, length, ect, src, dst, nqb = pkt
        c, f, src, dst = (
            class_field(c, self.q.prios, nqb),
            f % self.q.nflows,
            src % self.q.nflows,
            dst % self.q.nflows,
        )
        for _ in range(n):
            self.q.enqueue(c, f, length, bool(ect), src, dst)
            self.lines.append(f"E {c} {f} {length} {ect} {src} {dst}")

    @rule(n=st.integers(1, 6))
    def dequeue(self, n):
        for _ in range(n):
            self.q.dequeue()
            self.lines.append("D")

    @precondition(lambda self: self.q.packets > 0)
    @rule()
    def drain(self):
        """Dequeues until empty and not one more: emptied flows stay listed."""
        while self.q.packets:
            self.q.dequeue()
            self.lines.append("D")

    @precondition(lambda self: self.q.packets > 0)
    @rule(changes=CHANGE, isolate=st.sampled_from(ref.ISOLATE_MODES))
    def drain_and_change(self, changes, isolate):
        """A change on an idle queue disc whose emptied flows are still listed (the state a
        parent such as HTB leaves it in), with isolate among the parameters."""
        self.drain()
        self.change(dict(changes, isolate=isolate))

    @rule(step=st.integers(0, 16) | st.integers(0, 400))
    def clock(self, step):
        ns = step * self.q.params["target"] * 125  # target / 8
        self.q.advance(ns)
        self.lines.append(f"T {ns}")

    @rule(changes=CHANGE)
    def change(self, changes):
        self.q.change(**changes)
        self.lines.append("C " + " ".join(f"{k}={v}" for k, v in changes.items()))

    def teardown(self):
        if not hasattr(self, "lines"):
            return
        trace = "\n".join(self.lines) + "\n"
        want = [ref.format_event(ev) for ev in self.q.events]
        assert want == ref.replay(trace.splitlines())  # the trace says what the machine did
        diff = first_difference(want, self.ns3.replay(trace))
        assert diff is None, f"ns-3 differs from the reference: {diff}\n--- trace ---\n{trace}"


@needs_ns3
def test_changes_reference_equals_ns3(ns3):
    ChangingQueueDisc.ns3 = ns3
    run = ChangingQueueDisc.TestCase
    run.settings = settings(
        max_examples=EXAMPLES,
        stateful_step_count=60,
        deadline=None,
        derandomize=not RANDOM,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    run("runTest").runTest()
