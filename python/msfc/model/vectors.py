"""Generate the seeded cross-check traces (*.trace) and their expected replay (*.expected)
in test/vectors/ of the source tree.

Every trace is deterministic (fixed seed): rerunning this module reproduces the committed
files byte for byte (`python -m msfc.model.vectors --check` verifies that). Expected outputs come
from the reference model, msfc.model.reference.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

from ..sim.programs import _package_repo_root
from . import reference as ref


def default_dir() -> str:
    """test/vectors/ of the source tree this package is in (else ./test/vectors)."""
    root = _package_repo_root()
    return str((root if root else Path.cwd()) / "test" / "vectors")


# name, seed, header parameters, phases; a phase is (ops, active classes, P(enqueue), sizes)
# sizes: "mtu" (mostly 1500 with some small), "mix" (64..1500 uniform), "small" (40..300),
# "jumbo" (1000..9000, larger than the quantum), "tiny" (1..8, below the small classes' quanta)
TRACES = [
    (
        "basic-3x8-r2",
        11,
        dict(prios=3, flows=8, quantum=1500, ratio="2", limit=10240),
        [(600, (0, 1, 2), 0.75, "mix"), (400, (0, 1, 2), 0.5, "mix"), (300, (), 0.0, "mix")],
    ),
    (
        "ratio1.5-4x16",
        23,
        dict(prios=4, flows=16, quantum=1514, ratio="1.5", limit=10240),
        [
            (500, (0, 1, 2, 3), 0.7, "mtu"),
            (300, (0, 3), 0.55, "mix"),
            (300, (1, 2), 0.6, "small"),
            (400, (0, 1, 2, 3), 0.5, "mix"),
            (200, (), 0.0, "mix"),
        ],
    ),
    (
        "ratio3-2x4-smallq",
        37,
        dict(prios=2, flows=4, quantum=300, ratio="3", limit=10240),
        [
            (500, (0, 1), 0.65, "jumbo"),
            (300, (1,), 0.5, "mix"),
            (300, (0, 1), 0.6, "mix"),
            (200, (), 0.0, "mix"),
        ],
    ),
    (
        "idle-return-3x4",
        41,
        dict(prios=3, flows=4, quantum=1000, ratio="2", limit=10240),
        [
            (200, (0, 1, 2), 0.7, "mix"),
            (150, (2,), 0.3, "mix"),
            (200, (0,), 0.6, "small"),
            (150, (), 0.0, "mix"),
            (200, (1, 2), 0.7, "mtu"),
            (200, (0, 1, 2), 0.5, "mix"),
            (150, (), 0.0, "mix"),
        ],
    ),
    (
        "fq-1x32",
        53,
        dict(prios=1, flows=32, quantum=1000, ratio="2", limit=10240),
        [(800, (0,), 0.7, "mix"), (400, (0,), 0.45, "mix"), (200, (), 0.0, "mix")],
    ),
    (
        "ratio0.5-5x6",
        67,
        dict(prios=5, flows=6, quantum=3000, ratio="0.5", limit=10240),
        [(600, (0, 1, 2, 3, 4), 0.7, "mix"), (400, (0, 4), 0.5, "mtu"), (200, (), 0.0, "mix")],
    ),
    (
        "ratio1.3-8x3",
        79,
        dict(prios=8, flows=3, quantum=1514, ratio="1.3", limit=10240),
        [(800, tuple(range(8)), 0.7, "mix"), (300, (1, 6), 0.5, "mix"), (200, (), 0.0, "mix")],
    ),
    (
        "overload-3x4-limit40",
        97,
        dict(prios=3, flows=4, quantum=1500, ratio="2", limit=40, drop_batch=8),
        [(700, (0, 1, 2), 0.8, "mix"), (300, (0, 2), 0.6, "mtu"), (200, (), 0.0, "mix")],
    ),
    (
        # overload=class: the victim is the class most above its share, then its fattest flow
        "overload-class-3x8-limit30",
        103,
        dict(prios=3, flows=8, quantum=1500, ratio="2", limit=30, drop_batch=4, overload="class"),
        [
            (600, (0, 1, 2), 0.8, "mix"),
            (400, (0, 2), 0.75, "mtu"),
            (300, (1,), 0.8, "small"),
            (300, (0, 1, 2), 0.7, "jumbo"),
            (200, (), 0.0, "mix"),
        ],
    ),
    (
        # weights=exact: class quanta in 1/65536 byte; classes 11-15 get 0.74 .. 0.046 bytes a
        # round (weights=rounded: 1 byte each)
        "weights-exact-16x2-r0.5",
        107,
        dict(prios=16, flows=2, quantum=1514, ratio="0.5", limit=10240, weights="exact"),
        [
            (1500, tuple(range(16)), 0.7, "tiny"),
            (300, tuple(range(8, 16)), 0.6, "tiny"),
            (300, (), 0.0, "tiny"),
        ],
    ),
    (
        # inversion=prevent: a class's quantum raised to its active flows times the largest
        # per-flow quantum of the backlogged classes below it (ratio 2: class 0 lowest)
        "inversion-prevent-3x16-r2",
        113,
        dict(prios=3, flows=16, quantum=1500, ratio="2", limit=10240, inversion="prevent"),
        [
            (1500, (0, 1, 2), 0.7, "mix"),
            (600, (0, 2), 0.65, "mtu"),
            (300, (), 0.0, "mix"),
        ],
    ),
    (
        # ratio below 1 (class 3 lowest), exact weights, and overload=class comparing backlogs
        # with the effective quanta
        "inversion-prevent-4x8-r0.5-overload",
        127,
        dict(
            prios=4,
            flows=8,
            quantum=1514,
            ratio="0.5",
            limit=40,
            drop_batch=4,
            overload="class",
            weights="exact",
            inversion="prevent",
        ),
        [
            (1500, (0, 1, 2, 3), 0.7, "mix"),
            (500, (1, 3), 0.6, "mix"),
            (300, (), 0.0, "mix"),
        ],
    ),
    (
        "weights-exact-8x3-r0.5-q4000",
        109,
        dict(prios=8, flows=3, quantum=4000, ratio="0.5", limit=10240, weights="exact"),
        [
            (1200, tuple(range(8)), 0.7, "mix"),
            (300, (5, 6, 7), 0.6, "small"),
            (300, (), 0.0, "mix"),
        ],
    ),
    (
        # isolate=src: flow refills of quantum / (active flows of the source host), in 1/65536
        # byte; a few hosts, one of them with most flows
        "isolate-src-2x16",
        113,
        dict(version=3, prios=2, flows=16, quantum=1514, ratio="2", limit=10240, isolate="src"),
        [
            (800, (0, 1), 0.7, "mtu"),
            (400, (0,), 0.6, "mix"),
            (300, (0, 1), 0.5, "small"),
            (300, (), 0.0, "mix"),
        ],
    ),
    (
        "isolate-dst-3x8-q300",
        127,
        dict(version=3, prios=3, flows=8, quantum=300, ratio="2", limit=10240, isolate="dst"),
        [
            (800, (0, 1, 2), 0.7, "mix"),
            (300, (2,), 0.6, "jumbo"),
            (300, (), 0.0, "mix"),
        ],
    ),
    (
        # isolate=both with overload drops: the victim has the largest backlog * load
        "isolate-both-2x8-limit30",
        131,
        dict(
            version=3,
            prios=2,
            flows=8,
            quantum=1500,
            ratio="2",
            limit=30,
            drop_batch=4,
            isolate="both",
        ),
        [
            (700, (0, 1), 0.8, "mix"),
            (300, (1,), 0.8, "mtu"),
            (300, (), 0.0, "mix"),
        ],
    ),
    (
        "isolate-src-overload-class-3x8-limit24",
        137,
        dict(
            version=3,
            prios=3,
            flows=8,
            quantum=1500,
            ratio="2",
            limit=24,
            drop_batch=3,
            overload="class",
            isolate="src",
        ),
        [
            (700, (0, 1, 2), 0.8, "mix"),
            (300, (0,), 0.85, "mtu"),
            (200, (), 0.0, "mix"),
        ],
    ),
    (
        # boost=on: flows that become active are served first for one quantum; low loads and
        # small packets make many flows sparse, so they drain, leave and come back new
        "boost-on-2x16-sparse",
        113,
        dict(prios=2, flows=16, quantum=1000, ratio="2", limit=10240, boost="on"),
        [
            (600, (0, 1), 0.55, "small"),
            (400, (0, 1), 0.7, "mix"),
            (300, (1,), 0.5, "mtu"),
            (300, (0, 1), 0.45, "jumbo"),
            (200, (), 0.0, "mix"),
        ],
    ),
    (
        # boost=on with overload drops: emptied new flows move behind the old ones
        "boost-on-overload-1x8-limit20",
        127,
        dict(prios=1, flows=8, quantum=1500, ratio="2", limit=20, drop_batch=4, boost="on"),
        [(700, (0,), 0.8, "mix"), (400, (0,), 0.45, "small"), (200, (), 0.0, "mix")],
    ),
    (
        # changes of every mode between phases (docs/algorithm.md, "Changing the
        # configuration"): isolate on an idle qdisc whose emptied flows are still listed,
        # also on the new-flow list (boost=on), and refused while packets are queued; weights
        # both ways with classes in the round; boost off with flows on the new list
        "change-modes-3x8-boost",
        131,
        dict(version=4, prios=3, flows=8, quantum=1500, ratio="2", limit=10240, boost="on"),
        [
            (300, (0, 1, 2), 0.55, "small"),
            "drain",
            "C isolate=src",
            (300, (0, 1, 2), 0.6, "mix"),
            "C isolate=dst",
            "C weights=exact",
            (300, (0, 1, 2), 0.6, "mtu"),
            "C boost=off inversion=prevent",
            (200, (1, 2), 0.7, "small"),
            "drain",
            "C isolate=both boost=on",
            (300, (0, 1, 2), 0.6, "mix"),
            "C weights=rounded overload=class",
            (300, (0, 1, 2), 0.65, "jumbo"),
            "drain",
            "C isolate=flow",
            (200, (0, 2), 0.6, "small"),
            (100, (), 0.0, "mix"),
        ],
    ),
    (
        # order=priority: the most important class with credit left in the round goes first;
        # sparse top-class packets among backlogged lower classes, classes that drain and
        # return within a round, jumbo packets that put a class in debt for several rounds
        "order-priority-3x8",
        139,
        dict(version=4, prios=3, flows=8, quantum=1500, ratio="2", limit=10240, order="priority"),
        [
            (500, (0, 1), 0.7, "mtu"),
            (400, (0, 1, 2), 0.55, "small"),
            (300, (2,), 0.45, "mix"),
            "drain",
            (400, (0, 1, 2), 0.6, "jumbo"),
            (300, (0, 1, 2), 0.5, "mix"),
            (200, (), 0.0, "mix"),
        ],
    ),
    (
        # order=priority with the other modes (ratio below 1: class 3 is still the most
        # important), and changes of order both ways while classes are in the round
        "order-priority-modes-4x8-r0.5",
        149,
        dict(
            version=4,
            prios=4,
            flows=8,
            quantum=1000,
            ratio="0.5",
            limit=40,
            drop_batch=8,
            overload="class",
            weights="exact",
            inversion="prevent",
            boost="on",
            order="priority",
        ),
        [
            (500, (0, 1, 2, 3), 0.7, "mix"),
            "C order=round",
            (300, (0, 1, 2, 3), 0.65, "mix"),
            "C order=priority",
            (300, (0, 3), 0.6, "small"),
            "drain",
            "C isolate=src order=round",
            (200, (1, 2, 3), 0.6, "mtu"),
            "C order=priority weights=rounded",
            (300, (0, 1, 2, 3), 0.6, "mix"),
            (200, (), 0.0, "mix"),
        ],
    ),
    (
        # boost=across: new flows of every class go ahead of the class round, most important
        # first, while their class has borrowed less than its class quantum; sparse top-class
        # flows among backlogged lower classes, then many sparse flows in every class, so that
        # classes reach the borrowing limit and wait for their refills
        "boost-across-3x8",
        151,
        dict(prios=3, flows=8, quantum=1500, ratio="2", limit=10240, boost="across"),
        [
            (500, (0, 1), 0.75, "mtu"),
            (500, (0, 1, 2), 0.6, "small"),
            (300, (2,), 0.45, "mix"),
            "drain",
            (400, (0, 1, 2), 0.7, "small"),
            (300, (0, 1, 2), 0.55, "jumbo"),
            (200, (), 0.0, "mix"),
        ],
    ),
    (
        # boost=across with the other modes (ratio below 1: class 3 is still the most
        # important; exact weights; effective quanta in the borrowing limit; overload drops
        # that empty new flows), with order=priority, and changes between off, on and across
        # with packets queued and on an idle queue disc that still lists flows
        "boost-across-modes-4x8-r0.5",
        157,
        dict(
            version=4,
            prios=4,
            flows=8,
            quantum=1000,
            ratio="0.5",
            limit=40,
            drop_batch=8,
            overload="class",
            weights="exact",
            inversion="prevent",
            boost="across",
            order="priority",
        ),
        [
            (500, (0, 1, 2, 3), 0.7, "small"),
            "C boost=on",
            (300, (0, 1, 2, 3), 0.65, "mix"),
            "C boost=across order=round",
            (300, (0, 3), 0.6, "small"),
            "drain",
            "C boost=off isolate=src",
            (200, (1, 2, 3), 0.6, "mtu"),
            "C boost=across weights=rounded",
            (300, (0, 1, 2, 3), 0.6, "small"),
            "drain",
            "C order=priority isolate=both",
            (300, (0, 1, 2, 3), 0.6, "mix"),
            (200, (), 0.0, "mix"),
        ],
    ),
    (
        # boost=across's emptied new flows: sparse flows of every class drain, leave with what
        # their quantum had left and come back with it; a change to on while flows are marked
        # (their next activation keeps the deficit), back to across with a smaller quantum,
        # and an isolate change that clears every mark (docs/algorithm.md, "Changing the
        # configuration")
        "boost-across-return-3x8",
        173,
        dict(version=4, prios=3, flows=8, quantum=1500, ratio="2", limit=10240, boost="across"),
        [
            (400, (0, 1, 2), 0.45, "small"),
            (200, (0, 1), 0.7, "mtu"),
            "C boost=on",
            (300, (0, 1, 2), 0.45, "small"),
            "C boost=across quantum=600",
            (300, (0, 1, 2), 0.5, "mix"),
            "drain",
            "C isolate=src",
            (300, (0, 1, 2), 0.45, "small"),
            (100, (), 0.0, "mix"),
        ],
    ),
    (
        # explicit class quanta, a diffserv4-like split (bulk 1/16, best effort, video 1/2,
        # voice 1/4 of best effort's quantum) with the voice class flooding: it keeps the share
        # of its quantum; overload=class and a small limit drop from the flood; boost=across
        # borrows within the explicit quanta; changes of the quanta with packets queued, a new
        # prios without quanta refused, then with them, and back to quantum * ratio^p
        "quanta-diffserv4-4x8",
        163,
        dict(
            version=4,
            prios=4,
            flows=8,
            quantum=1514,
            ratio="2",
            limit=48,
            drop_batch=8,
            overload="class",
            boost="across",
            quanta="95,1514,757,378",
        ),
        [
            (600, (0, 1, 2, 3, 3, 3, 3, 3), 0.75, "mtu"),
            (300, (1, 2, 3), 0.55, "small"),
            "C quanta=95,3028,757,200",
            (300, (0, 1, 2, 3, 3, 3), 0.7, "mix"),
            "C prios=5",
            "C quanta=0,1514,757,378",
            "C quanta=95,1514,757",
            "C order=priority weights=exact",
            (300, (0, 1, 2, 3, 3), 0.65, "mtu"),
            "drain",
            "C prios=5 quanta=95,1514,757,378,1048576",
            (300, (0, 1, 2, 3, 4), 0.6, "mix"),
            "C quanta=ratio",
            (200, (0, 1, 2, 3, 4), 0.6, "mix"),
            (150, (), 0.0, "mix"),
        ],
    ),
    (
        # explicit quanta with inversion=prevent (class prios-1 first, a per-flow quantum
        # scaled by the quanta of adjacent classes, which need not grow with the class) and
        # overload=class on the effective quanta; crowded classes above and below, exact and
        # rounded weights, both orders
        "quanta-prevent-4x16",
        167,
        dict(
            version=4,
            prios=4,
            flows=16,
            quantum=1000,
            ratio="0.5",
            limit=60,
            drop_batch=4,
            overload="class",
            inversion="prevent",
            weights="exact",
            quanta="300,4000,1000,2500",
        ),
        [
            (500, (0, 1, 2, 3), 0.7, "mix"),
            (400, (0, 3, 3, 3), 0.65, "small"),
            "C order=priority",
            (400, (1, 2, 2, 2), 0.65, "mtu"),
            "C weights=rounded quanta=2500,1000,4000,300",
            (400, (0, 1, 2, 3), 0.6, "small"),
            "C quanta=1,1,1,1",
            (200, (0, 1, 2, 3), 0.6, "mix"),
            "C quanta=ratio ratio=1",
            (200, (0, 1, 2, 3), 0.6, "mix"),
            (200, (), 0.0, "mix"),
        ],
    ),
    (
        # quantum, ratio, limit and drop_batch on a busy qdisc (a lower limit drops at once);
        # prios and flows refused while packets are queued, then taken when idle; invalid
        # changes refused
        "change-sizes-2x4",
        137,
        dict(version=4, prios=2, flows=4, quantum=1000, ratio="2", limit=10240),
        [
            (300, (0, 1), 0.75, "mix"),
            "C quantum=300 ratio=3",
            (200, (0, 1), 0.6, "jumbo"),
            "C limit=10 drop_batch=3",
            (100, (0, 1), 0.7, "mix"),
            "C prios=4 flows=8",
            "C prios=17",
            "C ratio=0.5 weights=exact quantum=1",
            "C limit=10240",
            "drain",
            "C prios=4 flows=8",
            (300, (0, 1), 0.7, "mix"),
            (150, (), 0.0, "mix"),
        ],
    ),
]


# Timed traces (format version 5) for automatic priorities: sources that send at fixed
# periods while the queue disc is dequeued at a fixed rate, so that bulk flows build standing
# queues (CoDel's drop test fires) and thin ones do not.  name, seed, header parameters,
# phases; a phase is (ticks, sources), a C line or "drain"; every tick advances the clock by
# TIMED_TICK_US, enqueues what the sources send then and dequeues `deq` packets.  A source is
# (class or "a", flow, period in ticks, sizes[, ECN field]): one packet every `period` ticks at
# a random phase (period 1: every tick), ECT(0) or not at random unless the source gives its
# trace ECN field (0 Not-ECT, 1 ECT(0), 2 ECT(1), 3 CE; format version 6).
TIMED_TICK_US = 1000
BULK = "mtu"
THIN = "small"
TIMED_TRACES = [
    (
        # unmarked bulk and thin flows with marked flows beside them: the bulk flows sink to
        # class 0 (and stay, firing again there), the thin ones climb to the top after T_up
        # (10 intervals), one class each T_up; auto off keeps the levels and sends unmarked
        # packets to the home class; auto all; a change of prios starts every slot again
        "auto-3x16",
        181,
        dict(
            version=5,
            prios=3,
            flows=16,
            quantum=1514,
            ratio="2",
            limit=120,
            drop_batch=8,
            target=2000,
            interval=20000,
            ecn=1,
            auto="unmarked",
        ),
        [
            (
                520,
                [
                    ("a", 1, 1, BULK),
                    ("a", 2, 1, BULK),
                    ("a", 3, 2, BULK),
                    ("a", 7, 20, THIN),
                    ("a", 9, 30, THIN),
                    (2, 4, 5, "mix"),
                    (0, 5, 1, BULK),
                ],
                2,
            ),
            "C auto=off",
            (60, [("a", 1, 1, BULK), ("a", 7, 20, THIN), (2, 4, 5, "mix")], 2),
            "C auto=all interval=10000",
            (200, [("a", 2, 1, BULK), ("a", 9, 10, THIN), ("a", 11, 1, BULK)], 2),
            "drain",
            "C prios=4",
            (300, [("a", 1, 1, BULK), ("a", 7, 20, THIN), (3, 7, 3, "mix")], 2),
            (40, [], 3),
        ],
    ),
    (
        # auto with the recommended modes and a diffserv4-like split: boost across (a
        # promoted thin flow goes ahead of the round), exact weights, overload by class,
        # isolation by source host, order priority; a thin flow that turns bulk sinks, a bulk
        # flow that pauses climbs again
        "auto-modes-4x8",
        191,
        dict(
            version=5,
            prios=4,
            flows=8,
            quantum=1514,
            ratio="2",
            limit=60,
            drop_batch=4,
            target=1000,
            interval=10000,
            overload="class",
            weights="exact",
            boost="across",
            isolate="src",
            quanta="95,1514,757,378",
            auto="all",
        ),
        [
            (300, [("a", 0, 1, BULK), ("a", 1, 1, BULK), ("a", 2, 10, THIN), (3, 3, 7, THIN)], 2),
            "C order=priority",
            (200, [("a", 0, 1, BULK), ("a", 2, 1, BULK), ("a", 5, 15, THIN), (0, 6, 1, BULK)], 2),
            (150, [("a", 5, 15, THIN)], 2),
            (250, [("a", 0, 1, BULK), ("a", 1, 1, BULK), ("a", 5, 15, THIN)], 2),
            (30, [], 3),
        ],
    ),
    (
        # L4S marking (format version 6): in one class an ECT(1) bulk flow, a Classic ECT(0)
        # bulk flow, a Not-ECT flow and a thin ECT(1) flow, beside an ECT(1) flow in class 0.
        # Queues above the 1 ms threshold CE-mark the ECT(1) packets only, CoDel drops (then,
        # with ecn, marks) the Classic ones at its 5 ms target; light load stays below the
        # threshold.  Then per-class thresholds, a selector for every ECT packet, packets that
        # arrive CE, refused changes (selector bits outside the mask, a list of the wrong
        # length, prios without a new list), prios 3 with a list of three and threshold 0,
        # and the threshold off again.
        "l4s-threshold-2x8",
        193,
        dict(
            version=6,
            prios=2,
            flows=8,
            quantum=1514,
            ratio="2",
            limit=80,
            drop_batch=4,
            target=5000,
            interval=50000,
            ecn=0,
            ce_threshold=1000,
        ),
        [
            (
                300,
                [
                    (1, 1, 1, BULK, 2),
                    (1, 2, 1, BULK, 1),
                    (1, 3, 3, "mix", 0),
                    (1, 4, 25, THIN, 2),
                    (0, 5, 2, BULK, 2),
                ],
                2,
            ),
            (120, [(1, 1, 3, BULK, 2), (1, 2, 3, BULK, 1), (1, 4, 7, THIN, 2)], 2),
            "C ecn=1",
            (200, [(1, 1, 1, BULK, 2), (1, 2, 1, BULK, 1), (0, 5, 1, BULK, 2)], 2),
            "C ce_threshold=3000,500",
            (
                200,
                [(1, 1, 1, BULK, 2), (1, 2, 1, BULK, 1), (0, 5, 1, BULK, 2), (1, 6, 4, "mix", 3)],
                2,
            ),
            "C ce_threshold_selector=0 ce_threshold_mask=0",
            (150, [(1, 1, 1, BULK, 2), (1, 2, 1, BULK, 1), (1, 3, 2, "mix", 0)], 2),
            "C ce_threshold_selector=2 ce_threshold_mask=1",
            "C ce_threshold=1000,2000,3000",
            "C ce_threshold_selector=1 ce_threshold_mask=3 ce_threshold=off,1000",
            (100, [(1, 1, 1, BULK, 2), (0, 5, 1, BULK, 2)], 2),
            "drain",
            "C prios=3",
            "C prios=3 ce_threshold=0,off,2000",
            (
                200,
                [(2, 1, 1, BULK, 2), (2, 2, 1, BULK, 1), (0, 5, 1, BULK, 2), (1, 4, 2, "mix", 2)],
                2,
            ),
            "C ce_threshold=off",
            (100, [(2, 1, 1, BULK, 2), (2, 2, 1, BULK, 1)], 2),
            (60, [], 3),
        ],
    ),
    (
        # the least-effort lane (format version 7; class l): LE bulk flows beside busy
        # classes (served only when the classes are empty; over the limit the lane is dropped
        # first), then light classes (the lane takes what is left), order=priority with
        # boost=across, class 0's ce_threshold on the lane's ECT(1) packets, per-host
        # isolation in the lane, fewer classes, and overload=class
        "le-lane-3x8",
        197,
        dict(
            version=7,
            prios=3,
            flows=8,
            quantum=1514,
            ratio="2",
            limit=40,
            drop_batch=4,
            target=2000,
            interval=20000,
        ),
        [
            (200, [("l", 1, 1, BULK), ("l", 2, 2, BULK), (1, 3, 2, BULK), (2, 4, 10, THIN)], 2),
            (150, [("l", 1, 1, BULK), (1, 3, 4, BULK)], 2),
            "C order=priority boost=across",
            (150, [("l", 1, 1, BULK), ("l", 5, 3, THIN), (0, 3, 2, BULK), (2, 4, 5, THIN)], 2),
            "C ce_threshold=1000,off,off",
            (100, [("l", 1, 1, BULK, 2), (0, 3, 3, BULK, 2), (1, 6, 2, BULK, 2)], 2),
            "drain",
            "C isolate=src",
            (100, [("l", 1, 1, BULK), ("l", 2, 1, BULK), (1, 3, 3, BULK)], 2),
            "drain",
            "C prios=2 ce_threshold=off",
            (80, [("l", 1, 2, BULK), (1, 2, 2, BULK)], 2),
            "C overload=class",
            (100, [("l", 1, 1, BULK), (0, 2, 1, BULK), (1, 3, 1, BULK)], 2),
            (60, [], 3),
        ],
    ),
    (
        # NQB flows (format version 7; class 1n): a thin NQB flow and a small-packet NQB flow
        # beside bulk flows of their class (served first), an NQB flow that sends bulk (queue
        # protection moves it to the old flows), with boost on and across, per-host isolation,
        # and an NQB flow above its fair share beside one bulk flow (the refill rule keeps it
        # to its share)
        "nqb-flows-2x8",
        199,
        dict(
            version=7,
            prios=2,
            flows=8,
            quantum=1514,
            ratio="2",
            limit=200,
            drop_batch=8,
            target=5000,
            interval=50000,
        ),
        [
            (
                250,
                [
                    (1, 1, 1, BULK),
                    (1, 2, 1, BULK),
                    (1, 3, 2, BULK),
                    ("1n", 4, 10, THIN),
                    ("1n", 5, 1, THIN),
                    ("1n", 7, 1, BULK),
                    ("1n", 0, 25, "jumbo"),
                    (0, 6, 3, BULK),
                ],
                2,
            ),
            "C boost=on",
            (150, [(1, 1, 1, BULK), (1, 2, 2, BULK), ("1n", 4, 7, THIN), ("1n", 5, 1, THIN)], 2),
            "C boost=across",
            (
                150,
                [(1, 1, 1, BULK), ("1n", 4, 7, THIN), ("0n", 3, 5, THIN), (0, 6, 1, BULK)],
                2,
            ),
            "drain",
            "C isolate=both boost=off",
            (
                150,
                [(1, 1, 1, BULK), (1, 2, 1, BULK), ("1n", 4, 5, THIN), ("1n", 0, 9, "jumbo")],
                2,
            ),
            "drain",
            "C isolate=flow",
            (250, [(1, 1, 1, BULK), ("1n", 5, 1, "mix")], 1),
            (60, [], 3),
        ],
    ),
]


def make_timed_trace(name, seed, params, phases) -> str:
    """A timed trace (TIMED_TRACES): its sources' packets every tick, then `deq` dequeues."""
    rng = random.Random(seed)
    hdr = " ".join(f"{k}={v}" for k, v in params.items())
    lines = [
        f"# {name}: seed {seed}, generated by python -m msfc.model.vectors",
        "# T advances the clock, E enqueues (class a: automatic priorities), D dequeues,"
        " C changes (see docs/algorithm.md)",
        f"P {hdr}",
    ]
    hosts = params.get("isolate", "flow") != "flow"
    for phase in phases:
        if phase == "drain":
            lines += drain(lines)
            continue
        if isinstance(phase, str):
            lines.append(phase)
            continue
        ticks, sources, deq = phase
        offsets = [rng.randrange(src[2]) for src in sources]
        for t in range(ticks):
            lines.append(f"T {TIMED_TICK_US * 1000}")
            for (c, f, period, kind, *ecn), off in zip(sources, offsets, strict=True):
                if t % period == off:
                    ect = ecn[0] if ecn else rng.randint(0, 1)
                    extra = f" {f % 3} 0" if hosts else ""
                    lines.append(f"E {c} {f} {size(rng, kind)} {ect}{extra}")
            lines += ["D"] * deq
    return "\n".join(lines) + "\n"


def size(rng: random.Random, kind: str) -> int:
    if kind == "mtu":
        return 1500 if rng.random() < 0.7 else rng.choice((64, 120, 576, 1200))
    if kind == "small":
        return rng.randint(40, 300)
    if kind == "jumbo":
        return rng.randint(1000, 9000)
    if kind == "tiny":
        return rng.randint(1, 8)
    return rng.randint(64, 1500)


def host_slots(rng: random.Random, prios: int, flows: int) -> dict:
    """(class, flow) -> (src, dst) host slots for a trace with isolate != flow: a few hosts
    per direction, the first of them behind about half of the flows."""
    hosts = max(1, min(flows, 4))
    pick = lambda: 0 if rng.random() < 0.5 else rng.randrange(hosts)  # noqa: E731
    return {(c, f): (pick(), pick()) for c in range(prios) for f in range(flows)}


def drain(lines: list[str]) -> list[str]:
    """The dequeues that empty the queue disc after `lines` (a trace so far), and not one
    more: its emptied flows stay listed, as behind a parent that stops asking once the
    backlog is 0."""
    params, ops = ref.parse(lines)
    q = ref.run(params, ops)
    out = []
    while q.packets:
        q.dequeue()
        out.append("D")
    return out


def make_trace(name, seed, params, phases) -> str:
    """A phase is (ops, active classes, P(enqueue), sizes), or a string: a C line (format
    version 4, whose enqueues always carry host slots), or "drain" (dequeues until empty)."""
    rng = random.Random(seed)
    isolate = params.get("isolate", "flow") != "flow" or params.get("version", 1) >= 4
    # host slots from a generator of their own, redrawn per phase (a flow keeps the slots of
    # the packet that made it active)
    hrng = random.Random(f"hosts-{seed}")
    hdr = " ".join(f"{k}={v}" for k, v in params.items())
    lines = [
        f"# {name}: seed {seed}, generated by python -m msfc.model.vectors",
        "# E <class> <flow> <len> enqueues, D dequeues"
        + (", C changes" if params.get("version", 1) >= 4 else "")
        + " (see docs/algorithm.md)",
        f"P {hdr}",
    ]
    flows = params["flows"]
    for phase in phases:
        if phase == "drain":
            lines += drain(lines)
            continue
        if isinstance(phase, str):
            lines.append(phase)
            continue
        ops, active, p_enq, kind = phase
        # each class uses a random subset of its flows in this phase, some heavier than others
        used = {c: rng.sample(range(flows), k=rng.randint(1, flows)) for c in active}
        # (a phase after a change of prios may use more classes than the P line has)
        classes = max((params["prios"], *(c + 1 for c in active)))
        hosts = host_slots(hrng, classes, flows) if isolate else {}
        for _ in range(ops):
            if active and rng.random() < p_enq:
                c = rng.choice(active)
                f = rng.choice(used[c] + used[c][:1])  # the first flow is twice as likely
                extra = " 0 {} {}".format(*hosts[c, f]) if isolate else ""
                lines.append(f"E {c} {f} {size(rng, kind)}{extra}")
            else:
                lines.append("D")
    return "\n".join(lines) + "\n"


# The generated differential set (docs/differential.md): seeded random traces of format
# version 2 with time, CoDel, ECN and small limits.  `make test` replays GENERATED_COUNT of them
# through the reference, the ns-3 model and the kernel; `make diff-test N=...` runs more.
GENERATED_COUNT = 300
GENERATED_SEED0 = 1


def random_trace(seed: int, max_ops: int = 400) -> str:
    """One seeded random trace (format version 2): random classes, flows, sizes, idle gaps,
    load that builds sojourn times so CoDel drops and marks, sometimes a small limit, and
    any overload, weights, inversion, isolate and boost mode (isolate != flow: format version 3
    with host slots), and in a third of them changes of the configuration between phases
    (format version 4); later versions add auto, L4S marking, and the least-effort lane with
    NQB flows (version 7)."""
    rng = random.Random(seed)
    prios = rng.randint(1, 5)
    flows = rng.choice((1, 2, 3, 4, 8, 16))
    quantum = rng.choice((300, 1000, 1500, 1514, rng.randint(64, 3000)))
    ratio = rng.choice(("2", "1.5", "3", "0.5", "1.3", "1"))
    limit = rng.choice((10240, 10240, rng.randint(4, 60)))
    drop_batch = rng.choice((64, rng.randint(1, 16)))
    target = rng.choice((500, 1000, 2000, 5000))  # us
    interval = target * rng.choice((4, 10, 20))
    ecn = rng.randint(0, 1)
    params = dict(
        version=2,
        prios=prios,
        flows=flows,
        quantum=quantum,
        ratio=ratio,
        limit=limit,
        drop_batch=drop_batch,
        target=target,
        interval=interval,
        ecn=ecn,
    )
    # the modes beyond the thesis, drawn from a generator of their own so that the rest of
    # every trace stays what the seed made before they existed
    modes = random.Random(f"modes-{seed}")
    params["overload"] = modes.choice(ref.OVERLOAD_MODES)
    params["weights"] = modes.choice(ref.WEIGHT_MODES)
    params["inversion"] = modes.choice(ref.INVERSION_MODES)
    params["boost"] = modes.choice(ref.BOOST_MODES)
    try:
        ref.class_quanta(prios, quantum, ref.ratio_to_fp(ratio), params["weights"] == "exact")
    except ref.TraceError:  # quanta too small for exact weights: the thesis's rounding
        params["weights"] = "rounded"
    isolate = modes.choice(ref.ISOLATE_MODES)
    if isolate != "flow":
        params["version"] = 3
        params["isolate"] = isolate
    hosts = host_slots(random.Random(f"hosts-{seed}"), prios, flows)
    # a third of the traces change the configuration between phases (format version 4), from a
    # generator of their own: the other lines are those the seed made before changes existed
    # order=priority in half the traces, from a generator of its own (format version 4)
    if random.Random(f"order-{seed}").random() < 0.5:
        params["version"] = 4
        params["order"] = "priority"
    changes = random.Random(f"changes-{seed}")
    changing = changes.random() < 1 / 3
    if changing:
        params["version"] = 4
        isolate = params.setdefault("isolate", "flow")
    # automatic priorities in a quarter of the traces (format version 5), from a generator of
    # their own: most packets of the home class become unmarked ("E a"), classified by the
    # queue disc
    autos = random.Random(f"auto-{seed}")
    auto = autos.random() < 1 / 4
    home = min(1, prios - 1)
    if auto:
        params["version"] = 5
        params["auto"] = autos.choice(ref.AUTO_MODES[1:])
    # L4S marking in a quarter of the traces (format version 6), from a generator of its own:
    # a threshold for every class or one per class, sometimes a selector other than ECT(1),
    # and the ECN-capable flows ECT(1) or ECT(0) (a few packets arrive CE)
    l4s_rng = random.Random(f"l4s-{seed}")
    l4s = l4s_rng.random() < 1 / 4
    if l4s:
        params["version"] = 6
        params["ce_threshold"] = random_ce_threshold(l4s_rng, prios, target, valid=True)
        if l4s_rng.random() < 0.3:
            params["ce_threshold_selector"], params["ce_threshold_mask"] = l4s_rng.choice(
                ((0, 0), (2, 3), (1, 1), (1, 3))
            )
    # the least-effort lane and NQB flows in a quarter of the traces (format version 7), from a
    # generator of their own: some packets go to the lane (class l), some flows are NQB
    lenqb_rng = random.Random(f"lenqb-{seed}")
    lenqb = lenqb_rng.random() < 1 / 4
    if lenqb:
        params["version"] = 7
    nqb = {(c, f): lenqb and lenqb_rng.random() < 0.3 for c in range(prios) for f in range(flows)}
    hdr = " ".join(f"{k}={v}" for k, v in params.items())
    lines = [f"# gen-{seed}: python -m msfc.model.vectors --generated {seed}", f"P {hdr}"]
    ect = {(c, f): rng.random() < 0.5 for c in range(prios) for f in range(flows)}
    # the trace's ECN field of each flow: 0 Not-ECT, 1 ECT(0), with L4S also 2 ECT(1)
    field = {k: int(v) for k, v in ect.items()}
    if l4s:
        field = {k: (l4s_rng.choice((1, 2, 2)) if v else 0) for k, v in ect.items()}
    n_ops = rng.randint(max_ops // 6, max_ops)
    ops = 0
    while ops < n_ops:
        # a phase: some classes and flows active, a load and a time step per operation
        active = rng.sample(range(prios), k=rng.randint(0, prios))
        used = {c: rng.sample(range(flows), k=rng.randint(1, flows)) for c in active}
        p_enq = rng.uniform(0.4, 0.9) if active else 0.0
        step_ns = int(target * 1000 * rng.choice((0.05, 0.2, 0.5, 1.0)))
        kind = rng.choice(("mtu", "mix", "small", "jumbo"))
        for _ in range(rng.randint(20, 200)):
            if rng.random() < 0.7:
                lines.append(f"T {rng.randint(0, 2 * step_ns)}")
            if active and rng.random() < p_enq:
                c = rng.choice(active)
                f = rng.choice(used[c] + used[c][:1])
                extra = " {} {}".format(*hosts[c, f]) if isolate != "flow" or changing else ""
                cls = ref.AUTO_CLASS if auto and c == home and autos.random() < 0.8 else c
                if lenqb and cls != ref.AUTO_CLASS:
                    if lenqb_rng.random() < 0.15:
                        cls = ref.LANE_CLASS
                    elif nqb[c, f]:
                        cls = f"{c}{ref.NQB_SUFFIX}"
                ecn = field[c, f]
                if l4s and ecn and l4s_rng.random() < 0.03:
                    ecn = 3  # arrives CE
                lines.append(f"E {cls} {f} {size(rng, kind)} {ecn}{extra}")
            else:
                lines.append("D")
            ops += 1
        if rng.random() < 0.3:  # an idle gap: queues drain, CoDel state ages
            lines.append(f"T {rng.randint(1, 3 * interval) * 1000}")
        if changing and changes.random() < 0.6:
            drained = changes.random() < 0.4
            if drained:  # drain first, so that isolate, prios or flows apply
                lines += drain(lines)
            lines.append(
                random_change(changes, prios, flows, "isolate" if drained else None, auto, l4s)
            )
    return "\n".join(lines) + "\n"


def random_ce_threshold(rng: random.Random, prios: int, target: int, valid: bool = False) -> str:
    """A ce_threshold value: one threshold for every class, or one per class (some off), in us
    around a fraction of the CoDel target; unless `valid`, now and then a list of the wrong
    length (refused)."""
    pick = lambda: rng.choice((0, 100, 250, 500, 1000, 2000, target // 4, target))  # noqa: E731
    r = rng.random()
    if r < 0.5:
        return str(pick())
    n = prios if r < 0.9 or valid else prios + 1
    return ",".join("off" if rng.random() < 0.25 else str(pick()) for _ in range(n))


def random_change(
    rng: random.Random,
    prios: int,
    flows: int,
    key: str | None = None,
    auto: bool = False,
    l4s: bool = False,
) -> str:
    """A C line of one to three random parameters, mostly valid.  prios and flows only grow
    (or are invalid): the trace's enqueues stay within the configuration whether the change
    is taken or refused while packets are queued.  `key`: one of the parameters; `auto`:
    auto is one of the choices (a version 5 trace); `l4s`: so are ce_threshold and its
    selector (a version 6 trace)."""
    choices = {
        "prios": lambda: rng.choice((rng.randint(prios, 5), 17)),
        "flows": lambda: rng.choice([f for f in (1, 2, 3, 4, 8, 16) if f >= flows]),
        "quantum": lambda: rng.choice((300, 1000, 1500, rng.randint(64, 3000), 0)),
        "ratio": lambda: rng.choice(("2", "1.5", "3", "0.5", "1.3", "1", "16")),
        "limit": lambda: rng.choice((10240, rng.randint(2, 60))),
        "drop_batch": lambda: rng.choice((64, rng.randint(1, 16))),
        "target": lambda: rng.choice((500, 1000, 2000, 5000, 50000)),
        "interval": lambda: rng.choice((5000, 10000, 20000, 100000)),
        "ecn": lambda: rng.randint(0, 1),
        "overload": lambda: rng.choice(ref.OVERLOAD_MODES),
        "weights": lambda: rng.choice(ref.WEIGHT_MODES),
        "inversion": lambda: rng.choice(ref.INVERSION_MODES),
        "isolate": lambda: rng.choice(ref.ISOLATE_MODES),
        "boost": lambda: rng.choice(ref.BOOST_MODES),
        "order": lambda: rng.choice(ref.ORDER_MODES),
    }
    if auto:
        choices["auto"] = lambda: rng.choice(ref.AUTO_MODES)
    if l4s:
        choices["ce_threshold"] = lambda: rng.choice(
            ("off", random_ce_threshold(rng, prios, 5000), random_ce_threshold(rng, prios, 1000))
        )
        choices["ce_threshold_selector"] = lambda: rng.choice((0, 1, 2, 3))
        choices["ce_threshold_mask"] = lambda: rng.choice((0, 1, 3, 255))
    keys = rng.sample(sorted(choices), k=rng.randint(1, 3))
    if key and key not in keys:
        keys[0] = key
    return "C " + " ".join(f"{k}={choices[k]()}" for k in keys)


def generated_traces(count: int = GENERATED_COUNT, seed0: int = GENERATED_SEED0):
    """[(name, trace text)] of the generated differential set."""
    return [(f"gen-{s}", random_trace(s)) for s in range(seed0, seed0 + count)]


def expected_text(trace: str) -> str:
    return "".join(x + "\n" for x in ref.replay(trace.splitlines()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m msfc.model.vectors", description=__doc__.splitlines()[0]
    )
    ap.add_argument(
        "--check",
        action="store_true",
        help="do not write; fail if a committed file differs from what would be generated",
    )
    ap.add_argument(
        "--dir",
        default=None,
        help="where the files are (default: test/vectors/ of the source tree)",
    )
    ap.add_argument(
        "--generated",
        type=int,
        metavar="SEED",
        help="print the generated trace of this seed (the differential set) and exit",
    )
    a = ap.parse_args(argv)
    if a.generated is not None:
        sys.stdout.write(random_trace(a.generated))
        return 0
    a.dir = a.dir or default_dir()
    bad = 0
    files = {}
    for name, seed, params, phases in TRACES:
        files[name] = make_trace(name, seed, params, phases)
    for name, seed, params, phases in TIMED_TRACES:
        files[name] = make_timed_trace(name, seed, params, phases)
    # committed traces that are not generated (regression traces): only their .expected
    for fn in sorted(os.listdir(a.dir)):
        if fn.endswith(".trace") and fn[:-6] not in files:
            files[fn[:-6]] = None
    for name, trace in files.items():
        generated = trace is not None
        if not generated:
            trace = open(os.path.join(a.dir, f"{name}.trace")).read()
        try:
            expected = expected_text(trace)
        except ref.TraceError as e:
            print(f"msfc.model.vectors: {name}.trace: {e}", file=sys.stderr)
            bad += 1
            continue
        outputs = (
            (("trace", trace), ("expected", expected)) if generated else (("expected", expected),)
        )
        for ext, text in outputs:
            path = os.path.join(a.dir, f"{name}.{ext}")
            if a.check:
                try:
                    same = open(path).read() == text
                except OSError:
                    same = False
                if not same:
                    print(
                        f"msfc.model.vectors: {path} differs from the generator output: "
                        f"regenerate with `python -m msfc.model.vectors`",
                        file=sys.stderr,
                    )
                    bad += 1
            else:
                with open(path, "w") as fh:
                    fh.write(text)
        if not a.check:
            print(f"{name}: {expected.count(chr(10))} decisions")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
