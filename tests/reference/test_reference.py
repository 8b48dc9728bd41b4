"""Hand-computed checks of the reference model msfc.model.reference, and the committed cross-check
traces against what msfc.model.vectors generates."""

import copy
import unittest

from msfc.model import reference as ref
from msfc.model import vectors


def run(lines):
    return ref.replay(lines)


class ReferenceTest(unittest.TestCase):
    def test_quanta_fixed_point(self):
        self.assertEqual(ref.ratio_to_fp("2"), 131072)
        self.assertEqual(ref.ratio_to_fp("1.5"), 98304)
        self.assertEqual(ref.ratio_to_fp("1.3"), 85197)  # 85196.8 rounds up
        # the value read is the nearest double, as tc's strtod and ns-3 read it: this text is
        # a hair below 1 + 2^-17 in decimal, but its double is 1 + 2^-17 exactly, whose half
        # unit rounds away from 0 (llround in tc and ns-3)
        self.assertEqual(ref.ratio_to_fp("1.0000076293945312"), 65537)
        self.assertEqual(ref.ratio_to_fp("1.00000762939453125"), 65537)
        self.assertEqual(ref.ratio_to_fp("1.0000076293945"), 65536)
        for bad in ("nan", "inf", "-inf", "x", "1e999"):
            with self.assertRaises(ref.TraceError):
                ref.ratio_to_fp(bad)
        self.assertEqual(ref.class_quanta(3, 1514, 98304), [1514, 2271, 3407])  # 3406.5 -> 3407
        self.assertEqual(ref.class_quanta(3, 1, 32768), [1, 1, 1])  # never below 1
        with self.assertRaises(ref.TraceError):
            ref.class_quanta(16, 1500, 16 * 65536)  # 1500 * 16^15 > 2^40

    def test_ratio_two_pattern(self):
        lines = ["P prios=2 flows=1 quantum=1000 ratio=2"]
        lines += ["E 0 0 500"] * 10 + ["E 1 0 500"] * 10 + ["D"] * 12
        out = [x.split()[0] for x in run(lines)]
        self.assertEqual(out, list("001111001111"))

    def test_fair_flows_inside_class(self):
        lines = ["P prios=1 flows=4 quantum=1500 ratio=2"]
        lines += ["E 0 0 1500", "E 0 0 1500", "E 0 1 500", "E 0 1 500", "E 0 1 500", "E 0 1 500"]
        lines += ["D"] * 7
        self.assertEqual(
            run(lines), ["0 0 1500", "0 1 500", "0 1 500", "0 1 500", "0 0 1500", "0 1 500", "-"]
        )

    def test_empty_and_return(self):
        lines = [
            "P prios=3 flows=2 quantum=100 ratio=2",
            "D",
            "E 2 1 60",
            "D",
            "D",
            "E 0 0 70",
            "D",
        ]
        self.assertEqual(run(lines), ["-", "2 1 60", "-", "0 0 70"])

    def test_overload_drops_half_of_fattest(self):
        q = ref.Msfc(prios=2, flows=2, quantum=1500, ratio="2", limit=4, drop_batch=64)
        for c, f, n in ((0, 0, 100), (0, 0, 100), (1, 1, 300), (1, 1, 300)):
            self.assertTrue(q.enqueue(c, f, n))
        # fifth packet: fattest flow is class 1 flow 1 (600 bytes), half = 300 -> one packet
        self.assertTrue(q.enqueue(0, 1, 50))
        self.assertEqual((q.packets, q.overload_drops), (4, 1))
        self.assertEqual([p.length for p in q.flow[1][1].pkts], [300])
        # a tie between equal flows picks the lowest class, then lowest flow
        q2 = ref.Msfc(prios=2, flows=2, quantum=1500, ratio="2", limit=2, drop_batch=64)
        q2.enqueue(1, 0, 100)
        q2.enqueue(0, 1, 100)
        self.assertTrue(q2.enqueue(0, 1, 100))
        self.assertEqual(
            [p.length for p in q2.flow[0][1].pkts], [100]
        )  # (0,1) had 200 bytes: fattest
        # the new packet itself is dropped when it was all its flow held and its flow is fattest
        q3 = ref.Msfc(prios=1, flows=2, quantum=1500, ratio="2", limit=1, drop_batch=64)
        q3.enqueue(0, 0, 100)
        self.assertFalse(q3.enqueue(0, 1, 900))
        self.assertEqual(q3.packets, 1)

    def test_overload_drops_are_decisions(self):
        lines = ["P prios=1 flows=2 quantum=1500 ratio=2 limit=2", "E 0 0 100", "E 0 0 200"]
        lines += ["E 0 1 50", "D", "D"]
        # (0, 0) holds 300 bytes: dropping "at least half" takes both of its packets
        self.assertEqual(
            run(lines), ["drop overload 0 0 100", "drop overload 0 0 200", "0 1 50", "-"]
        )

    # CoDel, hand-computed in CoDel units of 1024 ns: target 1000 us -> 976, interval
    # 10000 us -> 9765; eight 100-byte packets at t=0, quantum 100.
    CODEL = [
        "P version=2 prios=1 flows=1 quantum=100 ratio=2 target=1000 interval=10000 ecn={ecn}",
        *["E 0 0 100 1"] * 8,
        "T 2000000",  # now 1953: above target, first_above_time = 1953 + 9765 = 11718
        "D",
        "T 9000000",  # now 10742
        "D",
        "T 1000000",  # now 11718: not strictly after first_above_time
        "D",
        "T 1000",  # now 11719: drop (or mark) p4; dropping, count 1, drop_next = 11719 + 9764
        "D",
        "T {step}",  # 9997592 ns -> now 21483 = drop_next: drop p6, then p7's backlog 100 <= 100
        "D",
        "D",
        "D",
    ]

    def codel(self, ecn, step):
        return run([x.format(ecn=ecn, step=step) for x in self.CODEL])

    def test_codel_first_drop_and_control_law(self):
        d, c = "0 0 100", "drop codel 0 0 100"
        self.assertEqual(self.codel(0, 9997592), [d, d, d, c, d, c, d, d, "-"])
        # one ns earlier the clock is one unit short of drop_next: no second drop
        self.assertEqual(self.codel(0, 9997591), [d, d, d, c, d, d, d, d])
        # with ECN the ECT packets are marked instead and delivered: p4 on entering the
        # dropping state, p5 at drop_next; p6 is before the next drop_next, p7 leaves 100 bytes
        self.assertEqual(self.codel(1, 9997592), [d, d, d, d + " ce", d + " ce", d, d])

    def test_newton_step_and_control_law(self):
        # the values of Linux codel_Newton_step() from count 1 (rec_inv_sqrt 0xffff)
        r, seq = 0xFFFF, []
        for count in range(2, 7):
            r = ref.newton_step(r, count)
            seq.append(r)
        self.assertEqual(seq, [32769, 36864, 31968, 28935, 26481])
        self.assertEqual(ref.control_law(11719, 9765, 0xFFFF), 11719 + 9764)
        self.assertEqual(ref.us_to_codel(5000), 4882)

    def test_overload_class_spares_a_class_within_its_share(self):
        # class 0 (Q=1500) holds a flood of 100-byte packets in many flows, class 1 (Q=3000)
        # one flow of two 1500-byte packets: the fattest flow is class 1's, but class 1 is
        # within its share of the 42-packet buffer (2 packets / 3000 < 41 packets / 1500).
        def fill(mode):
            q = ref.Msfc(prios=2, flows=64, quantum=1500, ratio="2", limit=42, overload=mode)
            for f in range(40):
                q.enqueue(0, f, 100)  # class 0: 4000 bytes, 4000 / 1500 = 2.67 per quantum byte
            q.enqueue(1, 0, 1500)
            q.enqueue(1, 0, 1500)  # class 1: 3000 bytes, 3000 / 3000 = 1.0 per quantum byte
            self.assertEqual(q.overload_drops, 0)
            q.enqueue(0, 50, 100)  # 43 packets > limit 42
            return q

        thesis = fill("flow")  # the fattest flow overall: class 1's, loses one 1500-byte packet
        self.assertEqual(
            ([p.length for p in thesis.flow[1][0].pkts], thesis.overload_drops), ([1500], 1)
        )
        byclass = fill("class")  # class 0 is above its share (its flows tie: flow 0 loses)
        self.assertEqual([p.length for p in byclass.flow[1][0].pkts], [1500, 1500])
        self.assertEqual(
            ([p.length for p in byclass.flow[0][0].pkts], byclass.overload_drops), ([], 1)
        )
        self.assertEqual((byclass.classes[0].packets, byclass.classes[1].packets), (40, 2))
        # class 1 above its share (5 packets / 3000 > 2 / 1500): its fattest flow loses half
        q = ref.Msfc(prios=2, flows=4, quantum=1500, ratio="2", limit=6, overload="class")
        for c, f, n in ((0, 0, 1000), (1, 1, 1500), (1, 1, 1500), (1, 1, 1500), (1, 1, 1500)):
            q.enqueue(c, f, n)
        q.enqueue(1, 2, 100)
        q.enqueue(0, 0, 100)
        self.assertEqual([p.length for p in q.flow[1][1].pkts], [1500, 1500])
        self.assertEqual([p.length for p in q.flow[0][0].pkts], [1000, 100])
        with self.assertRaises(ref.TraceError):
            run(["P prios=2 flows=2 quantum=1500 ratio=2 limit=4 overload=fattest"])

    def test_inversion_prevent_lowers_the_classes_below_a_crowded_one(self):
        # one flow in class 0 against ten in class 1, quantum 1500, ratio 2: allow serves
        # class 0 once and class 1 twice a round; prevent refills class 0 with 1 x 3000 / 10
        # / 2 = 150 bytes, so after its first two packets (the second on the credit of its
        # first refill) it sends one every 10 rounds of 2 class-1 packets: 1 + 1 + 15 in 330
        lines = ["P prios=2 flows=16 quantum=1500 ratio=2 inversion=MODE"]
        lines += ["E 0 0 1500"] * 200 + [f"E 1 {f} 1500" for f in range(10)] * 40 + ["D"] * 330
        for mode, low in (("allow", 110), ("prevent", 17)):
            out = run([lines[0].replace("MODE", mode)] + lines[1:])
            self.assertEqual(sum(1 for x in out if x.startswith("0 ")), low, mode)

        def crowd(ratio, counts, flows=200):
            q = ref.Msfc(prios=len(counts), flows=flows, quantum=1514, ratio=ratio)
            q.inversion = "prevent"
            for c, n in enumerate(counts):
                for f in range(n):
                    q.enqueue(c, f, 1000)
            return q

        # the thesis's example: 100 flows in class 0, one in class 1: nothing changes
        self.assertEqual(crowd("2", (100, 1, 0)).effective_quanta(), [1514, 3028, 6056])
        # the reverse: 100 flows in class 2 above 3 in class 1 and one in class 0: P = 6056 /
        # 100 = 60, halved to 30: eff_1 = 3 x 30; then 15: eff_0 = 15
        q = crowd("2", (1, 3, 100))
        self.assertEqual(q.effective_quanta(), [15, 90, 6056])
        self.assertEqual(q.class_quantum(q.classes[1]), 90)
        self.assertEqual(q.effective_quanta(q.classes[1]), [1514, 90, 6056])
        # ratio below 1: class 0 is the most important; ratio 1: no order, nothing changes
        self.assertEqual(crowd("0.5", (100, 3, 1)).effective_quanta(), [1514, 21, 3])
        self.assertEqual(crowd("1", (100, 3, 1)).effective_quanta(), [1514] * 3)
        # never below one unit: 4096 flows above give P = 3028 // 4096 = 0
        self.assertEqual(crowd("2", (1, 4096), flows=4096).effective_quanta(), [1, 3028])
        with self.assertRaisesRegex(ref.TraceError, "use inversion=allow or inversion=prevent"):
            run(["P prios=2 flows=1 quantum=400 ratio=2 inversion=deny"])

    def test_exact_weights(self):
        # prios 8, ratio 0.5, quantum 4000: class 7 gets 31.25 bytes a round, not 32
        q = ref.class_quanta(8, 4000, 32768, exact=True)
        self.assertEqual(q[7], 31 * 65536 + 16384)
        self.assertEqual(ref.class_quanta(8, 4000, 32768)[7], 32)  # rounded: 2.4 % more
        # prios 16, ratio 0.5: classes 11-15 all get 1 byte rounded, halving shares exact
        self.assertEqual(ref.class_quanta(16, 1514, 32768)[11:], [1] * 5)
        self.assertEqual(ref.class_quanta(16, 1514, 32768, exact=True)[15], 3028)
        with self.assertRaisesRegex(ref.TraceError, "raise quantum or ratio, or lower prios"):
            ref.class_quanta(3, 1514, 1, exact=True)  # 1514 / 65536^2 bytes: rounds to 0
        # the outer DRR in 1/65536 byte: class 1 (quantum 100 bytes, ratio 0.25) sends one
        # 100-byte packet a round after class 0's four
        lines = ["P prios=2 flows=1 quantum=400 ratio=0.25 weights=exact"]
        lines += ["E 0 0 100"] * 40 + ["E 1 0 100"] * 10 + ["D"] * 50
        out = "".join(x.split()[0] for x in run(lines))
        self.assertEqual(out, "00001" * 10)
        with self.assertRaises(ref.TraceError):
            run(["P prios=2 flows=1 quantum=400 ratio=2 weights=fine"])

    def test_isolate_shares_bytes_per_host(self):
        # host 0 sends from flows 0-4, host 1 from flow 5; all backlogged with MTU packets
        def served(isolate, field):
            lines = [f"P version=3 prios=1 flows=8 quantum=1500 isolate={isolate}"]
            for _ in range(100):
                for f in range(6):
                    host = 0 if f < 5 else 1
                    # the other direction: one host per flow
                    hosts = (host, 2 + f) if field == "src" else (2 + f, host)
                    lines.append(f"E 0 {f} 1500 0 {hosts[0]} {hosts[1]}")
            lines += ["D"] * 150
            flows = [int(x.split()[1]) for x in run(lines)]
            return sum(f < 5 for f in flows), sum(f == 5 for f in flows)

        self.assertEqual(served("flow", "src"), (125, 25))
        for isolate, field in (("src", "src"), ("dst", "dst"), ("both", "src"), ("both", "dst")):
            a, b = served(isolate, field)
            # equal after the first round (flows activated one by one got larger first quanta)
            self.assertLessEqual(abs(a - b), 4, (isolate, field, a, b))
        # one host per flow in the other direction: isolation by it is per flow again
        self.assertEqual(served("dst", "src"), (125, 25))

    def test_isolate_spreads_a_host_over_the_round(self):
        # host 0: flow 0; host 1: flows 1-8, all backlogged with 1500-byte packets.  The host's
        # flows draw on one host deficit as well as their own, so host 1 sends about one packet
        # a round, between host 0's (never more than two in a row); with deficits per flow
        # only, its eight flows, refilled by 1500/8 together, would turn positive in the same
        # round and send four and more packets in a row
        for isolate in ("src", "both"):
            q = ref.Msfc(prios=1, flows=64, quantum=1500, isolate=isolate)
            for _ in range(60):
                q.enqueue(0, 0, 1500, src=0, dst=0)
                for f in range(1, 9):
                    q.enqueue(0, f, 1500, src=1, dst=1 + f)
            hosts = [0 if q.dequeue()[1] == 0 else 1 for _ in range(100)]
            steady = hosts[10:]
            self.assertEqual(steady.count(0), steady.count(1), isolate)
            self.assertNotIn("000", "".join(map(str, steady)), isolate)
            self.assertNotIn("111", "".join(map(str, steady)), isolate)
            # the eight flows of host 1 take turns
            q2 = ref.Msfc(prios=1, flows=64, quantum=1500, isolate=isolate)
            for _ in range(60):
                for f in range(1, 9):
                    q2.enqueue(0, f, 1500, src=1, dst=1 + f)
            served = [q2.dequeue()[1] for _ in range(80)]
            self.assertEqual(sorted(set(served)), list(range(1, 9)))
            self.assertLessEqual(max(served.count(f) for f in range(1, 9)), 11, served)

    def test_isolate_flow_quantum_keeps_fractions(self):
        q = ref.Msfc(prios=1, flows=64, quantum=1514, isolate="src")
        for f in range(50):
            q.enqueue(0, f, 100, src=3)
        fl = q.flow[0][49]
        self.assertEqual(q.load(fl), 50)
        self.assertEqual(q.flow_quantum(q.classes[0], fl), (1514 << 16) // 50)
        self.assertEqual(ref.Msfc(prios=1, flows=4).flow_quantum(None, None), 1514)

    def test_isolate_overload_victim_is_most_above_its_host_share(self):
        # host 0: flows 0-3 with 3 packets each; host 1: flow 4 with 8 packets; limit 20
        lines = ["P version=3 prios=1 flows=8 quantum=1500 limit=20 drop_batch=1 isolate=src"]
        for _ in range(3):
            lines += [f"E 0 {f} 1000 0 0 0" for f in range(4)]
        lines += ["E 0 4 1000 0 1 0"] * 8 + ["E 0 5 1000 0 1 0"]
        # flows 0-3: 3000 * 4 = 12000 each; flow 4: 8000 * 2 = 16000: flow 4 goes over
        self.assertEqual(run(lines), ["drop overload 0 4 1000"])
        lines[0] = lines[0].replace("isolate=src", "isolate=flow")
        self.assertEqual(run(lines), ["drop overload 0 4 1000"])
        # by host load the four flows of host 0 weigh 4 each: 3000 * 4 > 5000 * 2 > 4000 * 2
        lines = lines[:1] + lines[1:13] + ["E 0 4 1000 0 1 0"] * 4 + ["E 0 5 1000 0 1 0"] * 5
        lines[0] = lines[0].replace("isolate=flow", "isolate=src")
        self.assertEqual(run(lines), ["drop overload 0 0 1000"])
        lines[0] = lines[0].replace("isolate=src", "isolate=flow")
        self.assertEqual(run(lines), ["drop overload 0 5 1000"])

    def test_boost(self):
        # four bulk flows of 1500-byte packets, quantum 1500, each has sent its quantum (so
        # with boost=on they are old flows); then a thin packet arrives: boost=on serves it
        # next, boost=off after the other three bulk flows
        for boost, wait in (("on", 1), ("off", 4)):
            lines = [f"P prios=1 flows=64 quantum=1500 ratio=2 boost={boost}"]
            lines += ["E 0 1 1500", "E 0 2 1500", "E 0 3 1500", "E 0 4 1500"] * 10
            lines += ["D"] * 5 + ["E 0 40 100"] + ["D"] * 6
            self.assertEqual(run(lines).index("0 40 100"), 4 + wait, boost)
        # an old flow 1 (500-byte packets); flow 2 sends one packet, is found empty and moves
        # behind flow 1 (boost=on), so its next packet is not boosted (without that rule it
        # would leave and come back new); boost=off: flow 2 waits for flow 1's deficit
        for boost, order in (("on", [2, 1, 1, 2]), ("off", [1, 1, 2, 2])):
            lines = [f"P prios=1 flows=64 quantum=1500 ratio=2 boost={boost}"]
            lines += ["E 0 1 500"] * 20 + ["D"] * 4
            lines += ["E 0 2 100", "D", "D", "E 0 2 100", "D", "D"]
            self.assertEqual([int(x.split()[1]) for x in run(lines)[4:]], order, boost)
        # a new flow that has sent its quantum becomes old: 1500 bytes of flow 2, then flow 1
        lines = ["P prios=1 flows=4 quantum=1500 ratio=2 boost=on", "E 0 1 1500", "D"]
        lines += ["E 0 1 1500"] * 3 + ["E 0 2 500"] * 5 + ["D"] * 5
        self.assertEqual([int(x.split()[1]) for x in run(lines)], [1, 2, 2, 2, 1, 2])
        # the class DRR is unchanged: class shares do not depend on the boost
        for boost in ("off", "on"):
            lines = [f"P prios=2 flows=8 quantum=1000 ratio=2 boost={boost}"]
            lines += [f"E {c} {f} 500" for f in range(8) for c in (0, 1)] * 3 + ["D"] * 24
            out = "".join(x.split()[0] for x in run(lines))
            self.assertEqual(out, "001111" * 4, boost)
        with self.assertRaises(ref.TraceError):
            run(["P prios=1 flows=1 quantum=1500 ratio=2 boost=yes"])
        # a class's new flows go ahead of the class round only with boost=across: class 1's
        # new flow waits for class 0's turn with boost=on
        for boost, first in (("on", "0"), ("across", "1")):
            lines = [f"P prios=2 flows=8 quantum=1000 ratio=2 boost={boost}"]
            lines += ["E 0 1 500", "E 1 1 100", "D"]
            self.assertEqual(run(lines)[0].split()[0], first, boost)

    # -- automatic priorities (docs/algorithm.md, "Automatic priorities") -------------------
    MS = 1_000_000

    def _auto(self, **kw):
        params = dict(prios=3, flows=16, quantum=1500, target=1000, interval=10000, auto="unmarked")
        params.update(kw)
        return ref.Msfc(**params)

    def test_auto_thin_flow_climbs_one_class_per_t_up(self):
        """A flow that never keeps a standing queue climbs from the home class (1) one class
        each T_up = 10 intervals (100 ms here), only at a packet that finds its queue empty."""
        q = self._auto()
        self.assertEqual((q.home, q.t_up), (1, 10 * (10_000_000 >> 10)))  # 10 intervals
        classes = []
        for _ in range(30):  # a packet every 10 ms, each dequeued at once
            q.advance(10 * self.MS)
            q.enqueue(ref.AUTO_CLASS, 3, 200)
            classes.append(q.dequeue()[0])
        # t = 10 .. 90 ms: home; from 100 ms (t_up after the allocation at 0): class 2, the top
        self.assertEqual(classes[:9], [1] * 9)
        self.assertEqual(classes[9:], [2] * 21)
        self.assertEqual(q.auto_promotions, 1)
        self.assertEqual(q.flow[1][3].level, 2)  # the state is kept in the home class's record

    def _sparse(self, q, f, ms, every=10):
        """A sparse auto flow in slot f: a 100-byte packet every `every` ms for `ms` ms, each
        dequeued at once; the classes it was dequeued in."""
        out = []
        for _ in range(ms // every):
            q.advance(every * self.MS)
            q.enqueue(ref.AUTO_CLASS, f, 100)
            out.append(q.dequeue()[0])
        return out

    def test_auto_climbs_only_into_an_empty_queue(self):
        """A slot whose flow queue at its level holds a packet keeps its class (no packet of a
        flow could then overtake an older one below it)."""
        q = self._auto()
        self.assertEqual(self._sparse(q, 5, 90), [1] * 9)  # sparse, T_up not yet over
        q.advance(20 * self.MS)
        q.enqueue(1, 5, 100)  # a marked packet in the same slot of the home class
        q.enqueue(ref.AUTO_CLASS, 5, 100)
        self.assertEqual(q.flow[1][5].level, 1)
        self.assertEqual(len(q.flow[1][5].pkts), 2)
        q.dequeue(), q.dequeue()
        q.enqueue(ref.AUTO_CLASS, 5, 100)  # now its queue is empty: it climbs
        self.assertEqual(len(q.flow[2][5].pkts), 1)

    def test_auto_idle_time_does_not_count(self):
        """A slot idle for T_up or longer starts its time to climb again at its next packet: an
        on-off flow cannot climb by pausing, and a new flow starts where its slot is."""
        q = self._auto()
        q.advance(500 * self.MS)
        # idle for 550 ms, then sparse from 550 ms: it climbs at 650 ms, not at its first packet
        self.assertEqual(self._sparse(q, 4, 150, every=50), [1, 1, 2])
        q = self._auto()
        self.assertEqual(self._sparse(q, 4, 150, every=50), [1, 2, 2])  # sparse since 0
        q.advance(120 * self.MS)
        q.enqueue(ref.AUTO_CLASS, 4, 100)  # 120 ms idle at the top: stays there
        self.assertEqual(q.dequeue()[0], 2)

    def test_auto_bulk_flow_sinks_when_codel_may_drop(self):
        """A flow whose queue stays above target for an interval sinks one class at the first
        packet CoDel's test says it may drop, then one more after another interval in the class
        below, and stays at 0, where every firing counts again."""
        q = self._auto(ecn=1)
        levels = []
        for i in range(1200):  # 2 packets per ms offered, 1 served: a standing queue
            q.advance(self.MS // 2)
            q.enqueue(ref.AUTO_CLASS, 7, 1500, ect=True)
            if i % 2:
                q.dequeue()
            levels.append(q.flow[1][7].level)
        first_down = levels.index(0)
        self.assertGreater(first_down, 2 * 10)  # not before an interval of standing queue
        self.assertLess(first_down, 2 * 20)
        self.assertEqual(set(levels[first_down:]), {0})
        self.assertGreaterEqual(q.auto_demotions, 1)
        self.assertEqual(q.auto_promotions, 0)
        # marked packets in another slot never move a slot
        self.assertEqual({q.flow[1][f].level for f in range(16) if f != 7}, {1})

    def test_auto_demotion_needs_the_slots_own_packets(self):
        """A marked bulk flow in the same slot of the home class fires CoDel's test, but its
        packets are not auto packets: the slot keeps its class."""
        q = self._auto()
        for i in range(1200):
            q.advance(self.MS // 2)
            q.enqueue(1, 7, 1500)
            if i % 2:
                q.dequeue()
        self.assertGreater(q.codel_drops, 0)
        self.assertEqual((q.flow[1][7].level, q.auto_demotions), (1, 0))

    def test_auto_off_sends_unmarked_packets_home_and_keeps_levels(self):
        q = self._auto()
        self.assertEqual(self._sparse(q, 2, 200)[-1], 2)
        q.change(auto="off")
        self.assertEqual(self._sparse(q, 2, 200), [1] * 20)  # off: the home class
        self.assertEqual(q.flow[1][2].level, 2)
        q.change(auto="all")
        q.enqueue(ref.AUTO_CLASS, 2, 100)
        self.assertEqual(q.dequeue()[0], 2)  # on again: the level it had
        # a new prios starts every slot again at the home class, clean from the change
        q.change(prios=4)
        self.assertEqual(q.flow[1][2].level, 1)
        q.enqueue(ref.AUTO_CLASS, 2, 100)
        self.assertEqual(q.dequeue()[0], 1)

    def test_auto_trace_lines(self):
        hdr = "P version=5 prios=3 flows=2 target=1000 interval=10000 auto=all"
        sparse = ["T 50000000", "E a 1 100", "D"] * 3
        out = run([hdr, *sparse, "C auto=off", "E a 1 100", "D"])
        self.assertEqual(out, ["1 1 100", "2 1 100", "2 1 100", "change", "1 1 100"])
        out = run([hdr.replace("auto=all", "auto=unmarked"), *sparse * 2])  # climbs at 100 ms
        self.assertEqual(out, ["1 1 100"] + ["2 1 100"] * 5)
        out = run([hdr.replace("auto=all", "auto=off"), "E a 0 100", "D"])
        self.assertEqual(out, ["1 0 100"])  # home: min(1, prios-1)
        out = run(["P version=5 prios=1 flows=2 auto=all", "T 200000000", "E a 1 9", "D"])
        self.assertEqual(out, ["0 1 9"])  # one class: nowhere to climb

    def test_boost_across_serves_a_sparse_flow_ahead_of_the_round(self):
        """boost=across: a sparse packet of the top class goes ahead of the class round even when
        its class has spent its credit; boost=on serves it first inside its class only, after
        the turns of classes 0 and 1 (their quanta, 1500 + 3000 bytes)."""
        for order in ("round", "priority"):
            ahead = {}
            for boost in ("on", "across"):
                q = ref.Msfc(prios=3, flows=64, quantum=1500, ratio="2", boost=boost, order=order)
                for _ in range(20):
                    for c in range(3):
                        q.enqueue(c, 1, 1500)
                while True:  # until class 2 has spent its credit in its turn
                    cls = q.dequeue()[0]
                    if cls == 2 and q.classes[2].deficit <= 0:
                        break
                credit = q.classes[2].deficit
                self.assertLessEqual(credit, 0)
                q.enqueue(2, 40, 100)
                before = []
                while (pkt := q.dequeue())[1] != 40:
                    before.append(pkt[0])
                ahead[boost] = before
                if boost == "across":  # paid from its own deficit: it borrowed 100 bytes
                    self.assertEqual(q.classes[2].deficit, credit - 100)
            self.assertEqual(ahead["across"], [], order)
            self.assertEqual(sorted(ahead["on"]), [0, 1, 1], order)

    def test_boost_across_emptied_new_flow_returns_new(self):
        """A thin flow of the top class (a 200-byte packet, served, four more packets, the
        next one) beside two bulk flows of its class and one of each lower class: with
        boost=across each of its packets finds it new again (it left when it was found empty)
        and goes first; with boost=on the emptied flow waits behind the old flows, so its next
        packet finds it listed as an old flow and waits for the class round."""
        waits = {}
        for boost in ("on", "across"):
            q = ref.Msfc(prios=3, flows=64, quantum=1500, ratio="2", boost=boost)
            for _ in range(200):
                for c, f in ((0, 1), (1, 2), (2, 3), (2, 4)):
                    q.enqueue(c, f, 1500)
            for _ in range(12):  # the bulk flows become old flows
                q.dequeue()
            waits[boost] = []
            for _ in range(8):
                q.enqueue(2, 40, 200)
                n = 0
                while q.dequeue()[1] != 40:
                    n += 1
                waits[boost].append(n)
                for _ in range(4):
                    q.dequeue()
                if boost == "across" and len(waits[boost]) == 1:
                    fl = q.flow[2][40]  # it left, with what its quantum had left
                    self.assertEqual((fl.active, fl.sparse, fl.deficit), (False, True, 1300))
        self.assertEqual(waits["across"], [0] * 8)
        self.assertEqual(waits["on"], [0, 1, 3, 3, 3, 3, 3, 3])

    def test_boost_across_return_does_not_renew_the_quantum(self):
        """RFC 8290's starvation case: a flow that sends a 1000-byte packet each time it has
        drained gets what it gets under boost=on (fq_codel's rule), not more: leaving and coming
        back new does not renew its quantum (it keeps its deficit; only a refill, which makes
        it an old flow, adds to it), so the two bulk flows of its class are served in the same
        order as under boost=on."""
        seqs = {}
        for boost in ("on", "across"):
            q = ref.Msfc(prios=1, flows=64, quantum=1500, boost=boost)
            for _ in range(200):
                q.enqueue(0, 1, 1500)
                q.enqueue(0, 2, 1500)
            for _ in range(4):
                q.dequeue()
            seqs[boost] = []
            for _ in range(60):
                if not q.flow[0][9].pkts:
                    q.enqueue(0, 9, 1000)
                seqs[boost].append(q.dequeue()[1])
        self.assertEqual(seqs["across"], seqs["on"])
        thin = 1000 * seqs["across"].count(9)
        bulk = 1500 * (len(seqs["across"]) - seqs["across"].count(9))
        self.assertLessEqual(thin, (thin + bulk) / 3 + 1500)  # its third, and a quantum

    def test_boost_across_borrows_at_most_one_class_quantum(self):
        """Thin flows of the top class (one 1000-byte packet each) go ahead of the round while
        the class's deficit is above minus its class quantum: its 6000 bytes of credit and 6000
        borrowed, 12 packets, whatever the unit of the deficit; then the class waits."""
        for weights in ("rounded", "exact"):
            for order in ("round", "priority"):
                q = ref.Msfc(
                    prios=3,
                    flows=64,
                    quantum=1500,
                    ratio="2",
                    boost="across",
                    order=order,
                    weights=weights,
                )
                for _ in range(20):
                    q.enqueue(0, 1, 1500)
                    q.enqueue(1, 1, 1500)
                for f in range(10, 30):
                    q.enqueue(2, f, 1000)
                top = q.classes[2]
                limit = top.quantum  # class 2's class quantum, in the deficit's unit
                borrowed = (top.deficit + limit) // (1000 * q.cscale)
                self.assertEqual(borrowed, 12)
                out = [q.dequeue()[0] for _ in range(borrowed + 1)]
                self.assertEqual(out, [2] * borrowed + [out[-1]], (weights, order))
                self.assertNotEqual(out[-1], 2)
                self.assertEqual(top.deficit, -limit)  # the limit reached, not passed
                # the other classes get at least a round's quanta before class 2 sends again
                others = 1500
                while q.dequeue()[0] != 2:
                    others += 1500
                self.assertGreaterEqual(others, 1500 + 3000, (weights, order))

    def test_boost_across_keeps_the_class_shares(self):
        """A new sparse flow of the top class before every dequeue (a sender that makes every
        packet look sparse), classes 0 and 1 backlogged: the shares stay 1 : 2 : 4 (the
        packets that went ahead are repaid by later turns), as with boost=on, and class 2 is
        never further ahead of its 4/7 than its credit at activation, one class quantum and a
        packet (6000 + 6000 + 1500 bytes)."""
        for order in ("round", "priority"):
            for boost in ("on", "across"):
                q = ref.Msfc(prios=3, flows=64, quantum=1500, ratio="2", boost=boost, order=order)
                for _ in range(400):
                    q.enqueue(0, 1, 1500)
                    q.enqueue(1, 1, 1500)
                sent = [0, 0, 0]
                ahead = 0
                for i in range(700):
                    q.enqueue(2, 10 + i % 50, 1500)
                    sent[q.dequeue()[0]] += 1500
                    ahead = max(ahead, 7 * sent[2] - 4 * sum(sent))  # 7 x bytes ahead of 4/7
                self.assertLessEqual(ahead, 7 * (6000 + 6000 + 1500), (order, boost))
                total = sum(sent)
                for c, weight in enumerate((1, 2, 4)):
                    # within a class quantum and a packet of the weights (6000 + 1500 bytes)
                    self.assertLessEqual(abs(sent[c] - total * weight // 7), 7500, (order, boost))

    def test_change_boost_on_across_changes_no_list_and_no_deficit(self):
        """boost on <-> across while flows are listed: the lists and deficits stay; only the
        dequeues that follow differ."""
        q = ref.Msfc(prios=2, flows=8, quantum=1000, ratio="2", boost="on")
        for _ in range(6):
            q.enqueue(0, 1, 500)
            q.enqueue(1, 1, 500)
        for _ in range(6):  # class 0 sends its 1000 bytes, class 1 its 2000
            q.dequeue()
        q.enqueue(1, 5, 300)  # a new flow of the top class, which has spent its credit
        self.assertEqual([c.deficit for c in q.classes], [1000, 0])

        def state(q):
            return [
                (c.deficit, [f.idx for f in c.flows], [f.idx for f in c.new_flows])
                for c in q.classes
            ] + [[c.idx for c in q.active_classes]]

        before = state(q)
        self.assertTrue(q.change(boost="across"))
        self.assertEqual(state(q), before)
        self.assertTrue(q.change(boost="on"))
        self.assertEqual(state(q), before)
        # boost=on: class 1's new flow waits for class 0's turn; across: it goes first
        stays = copy.deepcopy(q)
        self.assertEqual(stays.dequeue()[0], 0)
        q.change(boost="across")
        self.assertEqual(q.dequeue()[:2], (1, 5))
        self.assertEqual(q.classes[1].deficit, -300)

    def test_change_isolate_after_boost_forgets_the_new_list(self):
        """The sequence of a divide error the Linux qdisc had: boost on, flow A's packet leaves
        (A stays on the new-flow list of an idle qdisc), isolate changes, flow B's packet is
        the next one dequeued."""
        lines = ["P version=4 prios=3 flows=16 quantum=1514 ratio=2 boost=on"]
        lines += ["E 1 3 100 0 1 2", "D", "C isolate=src", "E 1 5 100 0 4 6", "D", "D"]
        self.assertEqual(run(lines), ["1 3 100", "change", "1 5 100", "-"])
        q = ref.Msfc(prios=3, flows=16, boost="on")
        q.enqueue(1, 3, 100, src=1, dst=2)
        q.dequeue()
        self.assertEqual([f.idx for f in q.classes[1].new_flows], [3])  # listed while idle
        self.assertTrue(q.change(isolate="src"))
        cl = q.classes[1]
        self.assertEqual((list(cl.flows), list(cl.new_flows), list(q.active_classes)), ([], [], []))
        self.assertFalse(q.flow[1][3].active)
        self.assertEqual((sum(cl.src_load), sum(cl.src_deficit)), (0, 0))

    def test_change_busy_changes_nothing(self):
        lines = ["P version=4 prios=3 flows=8", "E 0 1 100"]
        lines += ["C isolate=dst", "C prios=2", "C flows=4", "D", "C prios=2", "E 1 1 100", "D"]
        self.assertEqual(run(lines), ["change busy"] * 3 + ["0 1 100", "change", "1 1 100"])

    def test_change_weights_converts_the_listed_class_deficits(self):
        q = ref.Msfc(prios=2, flows=2, quantum=1000)
        for _ in range(4):
            q.enqueue(0, 0, 300)
            q.enqueue(1, 0, 300)
        q.dequeue()  # class 0 first: 1000 - 300
        self.assertEqual(q.classes[0].deficit, 700)
        q.change(weights="exact")
        self.assertEqual(q.classes[0].deficit, 700 * 65536)
        self.assertEqual(q.classes[1].quantum, 2000 * 65536)
        q.classes[0].deficit = -300 * 65536 + 1  # 299.99998 bytes in debt
        q.change(weights="rounded")
        self.assertEqual(q.classes[0].deficit, -300)  # rounded down
        self.assertEqual(q.classes[1].quantum, 2000)

    def test_change_invalid_changes_nothing(self):
        lines = ["P version=4 prios=3 flows=8", "E 2 1 100", "C prios=17", "C ratio=17"]
        lines += ["C target=200000", "C prios=16 ratio=16", "C prios=4", "D", "D"]
        self.assertEqual(run(lines), ["change invalid"] * 4 + ["change busy", "2 1 100", "-"])
        lines = ["P version=4 prios=3 flows=8", "C prios=4", "E 3 0 100", "D"]
        self.assertEqual(run(lines), ["change", "3 0 100"])
        with self.assertRaises(ref.TraceError):  # refused as busy: class 3 does not exist
            run(["P version=4 prios=3", "E 0 0 100", "C prios=4", "E 3 0 100"])

    def test_change_lower_limit_drops_to_it(self):
        lines = ["P version=4 prios=1 flows=4 quantum=1500 drop_batch=2"]
        lines += ["E 0 0 100"] * 6 + ["E 0 1 100"] * 2 + ["C limit=3", "D"]
        out = run(lines)
        self.assertEqual(out[0], "change")
        self.assertEqual(out[1:6], ["drop overload 0 0 100"] * 5)  # half of 6, then of 3 and 2
        self.assertEqual(len(out), 7)

    def test_priority_order_serves_a_class_with_credit_first(self):
        """order=priority: a sparse packet of the top class waits for no other class's quantum;
        backlogged classes still share 1 : 2 : 4 by the round."""
        waited = {}
        for order in ("round", "priority"):
            q = ref.Msfc(prios=3, flows=4, quantum=1500, ratio="2", order=order)
            for _ in range(40):
                q.enqueue(0, 0, 1500)
                q.enqueue(1, 0, 1500)
            q.enqueue(2, 0, 100)
            while q.dequeue()[0] != 2:  # the top class's packet, then one of another class
                pass
            q.dequeue()
            q.enqueue(2, 0, 100)  # its class has credit left (6000 - 100)
            n = 0
            while q.dequeue()[0] != 2:
                n += 1
            waited[order] = n
        # round: the other classes' turns first (3 x 1500 bytes); priority: none
        self.assertEqual(waited, {"round": 2, "priority": 0})
        q = ref.Msfc(prios=3, flows=1, quantum=1000, ratio="2", order="priority")
        for c in range(3):
            for _ in range(300):
                q.enqueue(c, 0, 500)
        sent = [0, 0, 0]
        for _ in range(350):
            sent[q.dequeue()[0]] += 500
        self.assertEqual([s * 7 // sum(sent) for s in sent], [1, 2, 4])
        # a round: class 2 (4000 bytes) first, then class 1, then class 0
        q = ref.Msfc(prios=3, flows=1, quantum=1000, ratio="2", order="priority")
        for c in range(3):
            for _ in range(20):
                q.enqueue(c, 0, 500)
        self.assertEqual([q.dequeue()[0] for _ in range(14)], [2] * 8 + [1] * 4 + [0] * 2)

    def test_priority_order_keeps_a_returning_class_to_its_round(self):
        """A class that drains and returns in the same round keeps what it had left."""
        q = ref.Msfc(prios=2, flows=1, quantum=1000, ratio="2", order="priority")
        for _ in range(10):
            q.enqueue(0, 0, 500)
        q.enqueue(1, 0, 1500)
        self.assertEqual(q.dequeue()[0], 1)  # class 1: 2000 - 1500 = 500 left
        self.assertEqual(q.dequeue()[0], 0)  # class 1 found empty leaves with 500; 0: 500 left
        q.enqueue(1, 0, 1500)
        self.assertEqual(q.dequeue()[0], 1)  # back in the same round: its 500, first again
        self.assertEqual(q.classes[1].deficit, -1000)
        q.enqueue(1, 0, 1500)
        self.assertEqual(q.dequeue()[0], 0)  # class 1 in debt: class 0 spends what it has left
        self.assertEqual(q.dequeue()[0], 1)  # a new round: 1000 each, class 1 first

    def test_the_lane_sends_only_when_every_class_is_empty(self):
        """LE (docs/algorithm.md, "LE and NQB"): the lane waits for every class, whatever was
        queued first, and takes what the classes leave."""
        q = ref.Msfc(prios=2, flows=2, quantum=1000, ratio="2")
        q.enqueue(ref.LANE_CLASS, 0, 500)
        q.enqueue(ref.LANE_CLASS, 1, 500)
        q.enqueue(0, 0, 500)
        q.enqueue(1, 0, 500)
        got = [q.dequeue()[:2] for _ in range(4)]
        self.assertEqual(got, [(0, 0), (1, 0), ("l", 0), ("l", 1)])
        self.assertIsNone(q.dequeue())
        q.enqueue(ref.LANE_CLASS, 0, 500)
        self.assertEqual(q.dequeue()[:2], ("l", 0))  # no class busy: at once
        self.assertEqual(ref.format_event(q.events[-1]), "l 0 500")

    def test_overload_drops_from_the_lane_first(self):
        for overload in ref.OVERLOAD_MODES:
            q = ref.Msfc(prios=2, flows=2, quantum=1000, limit=3, drop_batch=1, overload=overload)
            q.enqueue(ref.LANE_CLASS, 1, 100)
            for _ in range(3):
                q.enqueue(1, 0, 1500)  # the fattest flow, but the lane goes first
            self.assertEqual(q.events[-1], ("drop", "overload", "l", 1, 100), overload)

    def test_an_nqb_flow_goes_ahead_of_its_class_and_keeps_its_deficit(self):
        q = ref.Msfc(prios=1, flows=4, quantum=1500)
        for _ in range(5):
            q.enqueue(0, 0, 1500)
        q.dequeue()
        q.enqueue("0n", 1, 200)
        self.assertEqual(q.dequeue()[:3], (0, 1, 200))
        self.assertEqual(q.dequeue()[:2], (0, 0))  # found empty on the way: it left ...
        fl = q.flow[0][1]
        self.assertEqual((fl.active, fl.sparse, fl.deficit), (False, True, 1300))
        q.enqueue("0n", 1, 200)  # ... with its deficit, not a fresh quantum
        self.assertEqual((fl.nqb, fl.deficit), (True, 1300))
        q.enqueue(0, 1, 200)  # an unmarked packet of an NQB flow changes no list
        self.assertTrue(fl.nqb)

    def test_queue_protection_moves_a_deep_nqb_flow_behind_the_old_flows(self):
        q = ref.Msfc(prios=1, flows=4, quantum=1500)
        q.enqueue(0, 0, 1500)
        q.enqueue(0, 0, 1500)
        q.enqueue("0n", 1, 1000)
        self.assertEqual((q.flow[0][1].nqb, q.nqb_demotions), (True, 0))
        q.enqueue("0n", 1, 1000)  # 2000 bytes queued > one quantum
        self.assertEqual((q.flow[0][1].nqb, q.nqb_demotions), (False, 1))
        self.assertEqual(q.classes[0].nqb_demotions, 1)
        # behind flow 0's packet now, then a DRR turn of its own (deficit 1500: two packets)
        self.assertEqual([q.dequeue()[:2] for _ in range(4)], [(0, 0), (0, 1), (0, 1), (0, 0)])

    def test_an_nqb_flow_gets_no_more_than_its_fair_share(self):
        """An NQB flow that always has a packet when served but never queues a quantum: the
        refill rule keeps it to about what each bulk flow of its class gets."""
        q = ref.Msfc(prios=1, flows=4, quantum=1000)
        sent = [0, 0, 0]
        for _ in range(3000):
            for f in (0, 1):
                while q.flow[0][f].backlog < 3000:
                    q.enqueue(0, f, 1000)
            if not q.flow[0][2].pkts:
                q.enqueue("0n", 2, 500)
            c, f, n, _ = q.dequeue()
            sent[f] += n
        self.assertLess(max(sent) - min(sent), 3000, sent)
        self.assertEqual(q.nqb_demotions, 0)

    def test_bad_trace_lines(self):
        for bad in (
            ["E 0 0 1"],
            ["P prios=0"],
            ["P prios=2 wrong=1"],
            ["P prios=2", "E 2 0 100"],
            ["P prios=2", "X"],
            ["P prios=2", "T 5"],  # time steps need version 2
            ["P prios=2", "E 0 0 100 1"],  # so does the ECT field
            ["P prios=2 target=5000"],
            ["P version=8 prios=2"],
            ["P version=6 prios=2", "E l 0 100"],  # the lane needs version 7
            ["P version=6 prios=2", "E 1n 0 100"],  # so do NQB packets
            ["P version=7 prios=2", "E 2n 0 100"],  # class 2 of 2
            ["P version=7 prios=2", "E ln 0 100"],  # the lane has no NQB packets
            ["P version=7 prios=2", "E an 0 100"],  # nor do auto packets
            ["P version=7 prios=2", "E n 0 100"],
            ["P version=4 prios=2 auto=all"],  # auto needs version 5
            ["P version=4 prios=2", "E a 0 100"],  # so does the auto class
            ["P version=4 prios=2", "C auto=all"],
            ["P version=5 prios=2 auto=some"],
            ["P version=5 prios=2", "E b 0 100"],
            ["P version=3 prios=2", "C boost=on"],  # changes need version 4
            ["P version=4 prios=2", "C"],
            ["P version=4 prios=2", "C version=4"],
            ["P version=4 prios=2", "C boost=maybe"],
            ["P version=4 prios=2", "C prios=-1"],  # no u32
            ["P version=4 prios=2", "C quantum=4294967296"],
            ["P version=4 prios=2", "C ratio=two"],
            ["P version=4 prios=3", "C prios=2", "E 2 0 100"],  # class 2 is gone
            ["P version=4 prios=3 flows=8", "C flows=4", "E 0 4 100"],
            ["P version=4 prios=3 flows=8", "C flows=4", "E 0 0 100 0 0 5"],
            ["P version=2 prios=2", "E 0 0 100 2"],
            ["P version=2 prios=2 isolate=src"],  # isolate needs version 3
            ["P version=2 prios=2", "E 0 0 100 1 0 0"],  # so do the host fields
            ["P version=3 prios=2 flows=4 isolate=host"],
            ["P version=3 prios=2 flows=4", "E 0 0 100 1 4 0"],  # host slot >= flows
            ["P version=3 prios=2 flows=4", "E 0 0 100 1 0"],  # src without dst
            ["P version=2 prios=2", "T -1"],
            ["P version=2 prios=2 target=5000 interval=5000"],
        ):
            with self.assertRaises(ref.TraceError):
                run(bad)


def test_committed_vectors_are_what_the_generator_makes(capsys):
    """test/vectors/*.trace and *.expected equal msfc.model.vectors' output (python -m msfc.model.vectors)."""
    assert vectors.main(["--check"]) == 0, capsys.readouterr().err


class ExplicitQuanta(unittest.TestCase):
    """quanta (docs/algorithm.md, "Explicit class quanta"): the operator's class quanta."""

    def test_every_class_backlogged_gets_its_quantum_over_the_sum(self):
        quanta = (95, 1514, 757, 378)  # a diffserv4-like split
        for weights in ("rounded", "exact"):
            q = ref.Msfc(prios=4, flows=4, quantum=1514, quanta=quanta, weights=weights)
            for c in range(4):
                for i in range(32 if c == 3 else 8):  # the voice class floods
                    q.enqueue(c, i % 4, 200 + 300 * c)
            sent = [0] * 4
            for _ in range(20000):
                c, f, length, _ = q.dequeue()
                sent[c] += length
                q.enqueue(c, f, length)
            for c in range(4):
                want = sum(sent) * quanta[c] / sum(quanta)
                self.assertLess(abs(sent[c] - want), 1514 + 1500, (weights, c, sent))

    def test_a_new_prios_needs_new_quanta(self):
        q = ref.Msfc(prios=4, quanta=(95, 1514, 757, 378))
        self.assertFalse(q.change(prios=5))
        self.assertEqual(q.events[-1], ("change", "invalid"))
        self.assertTrue(q.change(prios=5, quanta=(95, 1514, 757, 378, 3000)))
        self.assertEqual([c.quantum for c in q.classes], [95, 1514, 757, 378, 3000])
        self.assertTrue(q.change(quanta=None))
        self.assertEqual([c.quantum for c in q.classes], [1514, 3028, 6056, 12112, 24224])

    def test_bad_lists_are_refused_in_the_kernels_words(self):
        d = ref.P.definitions()
        for quanta, msg in (
            ((95, 1514), d.quanta_count_msg),
            ((0, 1514, 757), d.quanta_range_msg),
            ((95, 1 << 20 | 1, 757), d.quanta_range_msg),
        ):
            with self.assertRaises(ref.TraceError) as e:
                ref.Msfc(prios=3, quanta=quanta)
            self.assertIn(msg, str(e.exception))
        with self.assertRaises(ref.TraceError):
            ref.parse_quanta("95,,757")

    def test_inversion_prevent_scales_by_adjacent_quanta(self):
        # class 3 (quantum 400) crowded with 4 flows: P = 100; one class down (class 2,
        # quantum 1000) P = 100 * 1000 / 400 = 250, its 1 flow gets min(1000, 250) = 250
        q = ref.Msfc(
            prios=4, flows=8, quantum=1000, quanta=(300, 4000, 1000, 400), inversion="prevent"
        )
        for f in range(4):
            q.enqueue(3, f, 100)
        q.enqueue(2, 0, 100)
        eff = q.effective_quanta()
        self.assertEqual(eff[3], 400)
        self.assertEqual(eff[2], 250)


class CeThreshold(unittest.TestCase):
    """ce_threshold (docs/algorithm.md, "L4S marking"): ECT packets the selector takes are
    CE-marked when their sojourn, in CoDel's 1024 ns units, is above the threshold."""

    # the trace's ECN fields: Not-ECT, ECT(0), ECT(1), CE
    FIELDS = (0, 1, 2, 3)

    def round_of(self, q, c, at_ns, fields=FIELDS):
        """One packet of each ECN field in its own flow of class c, dequeued at at_ns after
        their enqueue: the output lines."""
        for f, ect in enumerate(fields):
            q.enqueue(c, f, 100, ect)
        q.advance(at_ns)
        q.events.clear()
        for _ in fields:
            q.dequeue()
        return sorted(ref.format_event(e) for e in q.events)  # the DRR's order aside

    def test_strictly_above_the_threshold_in_codel_units(self):
        # 1000 us is 976 units: a sojourn of 976 units is not above it, 977 is
        q = ref.Msfc(prios=2, flows=8, ce_threshold=(1000,))
        self.assertEqual(q.ce_thr, [976, 976])
        self.assertEqual(
            self.round_of(q, 1, 976 * 1024), ["1 0 100", "1 1 100", "1 2 100", "1 3 100 ce"]
        )
        self.assertEqual(q.ce_threshold_marks, 0)
        self.assertEqual(
            self.round_of(q, 1, 977 * 1024),
            ["1 0 100", "1 1 100", "1 2 100 ce threshold", "1 3 100 ce"],
        )
        self.assertEqual((q.ce_threshold_marks, q.class_ce_threshold_marks[1]), (1, 1))
        self.assertEqual(q.ecn_marks, 0)

    def test_selector_every_ect_and_per_class_lists(self):
        q = ref.Msfc(
            prios=3,
            flows=8,
            ce_threshold=(None, 500, 0),
            ce_threshold_selector=0,
            ce_threshold_mask=0,
        )
        self.assertEqual(q.ce_thr, [None, 488, 0])
        # class 0 has none; class 1 marks ECT(0) and ECT(1) above 488 units, class 2 above 0
        self.assertEqual(
            self.round_of(q, 0, 10**6), ["0 0 100", "0 1 100", "0 2 100", "0 3 100 ce"]
        )
        self.assertEqual(
            self.round_of(q, 1, 10**6),
            ["1 0 100", "1 1 100 ce threshold", "1 2 100 ce threshold", "1 3 100 ce"],
        )
        self.assertEqual(self.round_of(q, 2, 0, (2,)), ["2 0 100"])  # sojourn 0: not above 0
        self.assertEqual(self.round_of(q, 2, 1024, (2,)), ["2 0 100 ce threshold"])

    def test_codel_marks_are_not_threshold_marks(self):
        # ecn on, 100 packets of one ECT(1) flow standing far above target for an interval:
        # CoDel marks some (then the packet is CE and the threshold leaves it), the threshold
        # the rest of those above 1 ms
        q = ref.Msfc(prios=1, flows=1, quantum=300, ecn=1, target=1000, interval=5000,
                     ce_threshold=(1000,))  # fmt: skip
        for _ in range(100):
            q.enqueue(0, 0, 1000, 2)
        out = []
        for _ in range(100):
            q.advance(1_000_000)
            q.dequeue()
        out = [ref.format_event(e) for e in q.events]
        codel = sum(line.endswith(" ce") for line in out)
        threshold = sum(line.endswith(" ce threshold") for line in out)
        self.assertGreater(codel, 0)
        self.assertEqual(codel, q.ecn_marks)
        self.assertEqual(threshold, q.ce_threshold_marks)
        # every packet but the first waited more than 1 ms: the first left after exactly
        # 1 ms, 976 units, not above the threshold's 976
        self.assertEqual(codel + threshold, 99)
        self.assertEqual(out[0], "0 0 1000")

    def test_changes_and_refusals(self):
        d = ref.P.definitions()
        q = ref.Msfc(prios=2, ce_threshold=(1000, None))
        self.assertFalse(q.change(prios=3))  # a list of 2 for prios 3
        self.assertEqual(q.events[-1], ("change", "invalid"))
        self.assertTrue(q.change(prios=3, ce_threshold=(2000,)))  # one entry: every class
        self.assertEqual(q.ce_thr, [1953] * 3)
        self.assertTrue(q.change(prios=4))
        self.assertFalse(q.change(ce_threshold_selector=2, ce_threshold_mask=1))
        self.assertTrue(q.change(ce_threshold=None))
        self.assertEqual(q.ce_thr, [None] * 4)
        for kw, msg in (
            (dict(ce_threshold=(1000, 2000)), d.ce_threshold_count_msg),
            (dict(ce_threshold=(2000000001,)), d.ce_threshold_range_msg),
            (dict(ce_threshold_selector=256), d.ce["ce_threshold_selector"].message),
            (dict(ce_threshold_mask=0), d.ce_selector_msg),  # the default selector 1
        ):
            with self.assertRaises(ref.TraceError) as e:
                ref.Msfc(prios=3, **kw)
            self.assertIn(msg, str(e.exception))
        for bad in (
            ["P version=5 prios=2 ce_threshold=1000"],  # needs version 6
            ["P version=5 prios=2", "E 0 0 100 2"],  # so do ECT(1) and CE
            ["P version=5 prios=2", "C ce_threshold_mask=0"],
            ["P version=6 prios=2 ce_threshold=1ms"],  # whole us, no unit
            ["P version=6 prios=2 ce_threshold=4294967295"],  # the off marker: write off
            ["P version=6 prios=2", "C ce_threshold=1000,,off"],
            ["P version=6 prios=2", "E 0 0 100 4"],
        ):
            with self.assertRaises(ref.TraceError):
                run(bad)
        self.assertEqual(ref.parse_ce_threshold("off,1000"), (None, 1000))
        self.assertEqual(ref.format_ce_threshold((None, 1000)), "off,1000")
