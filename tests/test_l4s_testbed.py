"""msfc.linux.l4s: the jobs of the L4S measurement and its figures (no boot)."""

from __future__ import annotations

import json
from pathlib import Path

from msfc.linux import l4s, records
from msfc.linux.umlbench import parse_rates

(RATE,) = parse_rates("20")


def test_msfc_l4s_marks_the_dctcp_flows_dscp_and_ect0():
    # bench.sh's l4s test sends DCTCP with DSCP 4, ECT(0): TOS 0x12
    words = records.msfc_args("msfc_l4s", "up", 20000)
    assert words == "ce_threshold 1ms ce_threshold_selector 0x12/0xff"
    text = l4s.script(RATE, "msfc_l4s", 30)
    assert f"MSFC_ARGS_UP='{words}'" in text and "TESTS=l4s" in text


def test_another_threshold_replaces_only_the_threshold():
    text = l4s.script(RATE, "msfc_l4s@5ms", 30)
    want = "'ce_threshold 5ms ce_threshold_selector 0x12/0xff'"
    assert f"MSFC_ARGS_UP={want}" in text and f"MSFC_ARGS_DOWN={want}" in text
    assert "QDISC=msfc_l4s" in text
    assert "MSFC_ARGS_UP=''" in l4s.script(RATE, "msfc", 30)  # plain msfc: no words


def test_the_guest_runs_dctcp_with_ecn_beside_cubic():
    bench = (Path(l4s.__file__).parents[3] / "kernel/vm/guest/bench.sh").read_text()
    part = bench[bench.index("\tl4s)") : bench.index(";;", bench.index("\tl4s)"))]
    assert "tcp_allowed_congestion_control" in part  # a namespace may default to DCTCP
    assert "iperf_client_in cli 5800 dctcp_dscp4" in part and "--dscp 4" in part
    assert "iperf_client_in cli2 5801 cubic_dscp0" in part


def test_figures_and_table():
    report = {
        "end": {
            "streams": [{"sender": {"mean_rtt": 41500, "min_rtt": 40100, "max_rtt": 45000}}],
            "sum_received": {"bits_per_second": 9e6},
            "sum_sent": {"retransmits": 3},
        }
    }
    f = l4s.flow_figures(report)
    assert f == {
        "mbit": 9.0,
        "mean_rtt_ms": 41.5,
        "min_rtt_ms": 40.1,
        "max_rtt_ms": 45.0,
        "retransmits": 3,
    }
    tc = json.dumps([{"kind": "htb"}, {"kind": "msfc", "codel_drops": 5, "ce_threshold_marks": 7}])
    b = l4s.bottleneck_counters(tc)
    assert b == {"codel_drops": 5, "ecn_marks": 0, "ce_threshold_marks": 7, "drops": 0}
    g = dict(f, mbit=3.0, mean_rtt_ms=44.0)
    row = {"rate": "20mbit", "qdisc": "msfc_l4s", "dctcp": f, "cubic": g, "bottleneck": b}
    last = l4s.table([row]).splitlines()[-1]
    assert last == "| 20mbit | msfc_l4s | 9.00 | 3.00 | 0.750 | 1.50 | 4.00 | 7 | 5 |"
