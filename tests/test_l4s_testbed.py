"""msfc.linux.l4s: the jobs of the L4S measurement and its figures (no boot)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from msfc.linux import l4s, records
from msfc.linux.umlbench import parse_rates

(RATE,) = parse_rates("20")


def test_msfc_l4s_marks_the_dctcp_flows_dscp_and_ect0():
    # bench.sh's l4s test sends DCTCP with DSCP 4, ECT(0): TOS 0x12
    words = records.msfc_args("msfc_l4s", "up", 20000)
    assert words == (
        "overload class weights exact boost on ce_threshold 1500us ce_threshold_selector 0x12/0xff"
    )
    text = l4s.script(RATE, "msfc_l4s", 30)
    assert f"MSFC_ARGS_UP='{words}'" in text and "TESTS=l4s" in text
    thesis = records.msfc_args("msfc_l4s_thesis", "up", 20000)
    assert thesis == "ce_threshold 1ms ce_threshold_selector 0x12/0xff"


def test_another_threshold_replaces_only_the_threshold():
    text = l4s.script(RATE, "msfc_l4s@5ms", 30)
    want = (
        "'overload class weights exact boost on ce_threshold 5ms ce_threshold_selector 0x12/0xff'"
    )
    assert f"MSFC_ARGS_UP={want}" in text and f"MSFC_ARGS_DOWN={want}" in text
    assert "QDISC=msfc_l4s" in text
    assert "MSFC_ARGS_UP=''" in l4s.script(RATE, "msfc", 30)  # plain msfc: no words
    with pytest.raises(ValueError, match="sets no ce_threshold"):
        l4s.script(RATE, "msfc_recommended@5ms", 30)


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
    f["sojourn_ms"] = {"packets": 9, "p50": 0.58, "p90": 1.0, "p99": 1.18}
    g = dict(f, mbit=3.0, mean_rtt_ms=44.0, sojourn_ms={"packets": 3, "p50": 2.39, "p99": 7.84})
    row = {"rate": "20mbit", "qdisc": "msfc_l4s", "dctcp": f, "cubic": g, "bottleneck": b}
    last = l4s.table(l4s.tidy([row])).splitlines()[-1]
    assert last == (
        "| 20mbit | msfc_l4s | 9.00 | 3.00 | 0.750 | 0.58 / 1.18 | 2.39 / 7.84 | 1.50 | 4.00 | 7 | 5 |"
    )


def test_a_paced_run_sets_the_guests_pacing_and_keeps_its_threshold():
    text = l4s.script(RATE, "msfc_l4s@2ms+paced", 30)
    assert text.startswith("L4S_PACED=1\n") and "QDISC=msfc_l4s" in text
    assert "boost on ce_threshold 2ms ce_threshold_selector 0x12/0xff'" in text
    assert "L4S_PACED" not in l4s.script(RATE, "msfc_l4s@2ms", 30)
    bench = (Path(l4s.__file__).parents[3] / "kernel/vm/guest/bench.sh").read_text()
    part = bench[bench.index("\tl4s)") : bench.index(";;", bench.index("\tl4s)"))]
    assert 'paced="--fq-rate 1G"' in part and "--dscp 4 $paced" in part
    assert "tcpdump -i $dev" in part  # the captures the sojourns come from


def _pcap(packets):
    """A little-endian classic pcap of Ethernet/IPv4/TCP frames: (time s, dport, IP ID, seq,
    payload bytes, ECN bits) each, as pcap_packets reads them."""
    import struct

    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 96, 1)
    for t, dport, ip_id, seq, size, ecn in packets:
        tcp = struct.pack(">HHIIBBHHH", 40000, dport, seq, 0, 5 << 4, 0x10, 1000, 0, 0)
        ip = struct.pack(
            ">BBHHHBBH4s4s", 0x45, ecn, 20 + 20 + size, ip_id, 0, 64, 6, 0, b"\n\0\1\1", b"\n\0\2\2"
        )
        frame = b"\0" * 12 + b"\x08\x00" + ip + tcp
        sec = int(t)
        usec = round((t - sec) * 1e6)
        out += struct.pack("<IIII", sec, usec, len(frame), len(frame) + size) + frame
    return out


def test_sojourns_pair_each_packet_across_the_router():
    ingress = [
        (1.0, 5800, 7, 100, 1448, 2),
        (1.0005, 5801, 9, 500, 1448, 0),
        (1.001, 5800, 8, 1548, 1448, 2),  # dropped by the qdisc: no egress copy
        (1.002, 5800, 10, 100, 1448, 2),  # a retransmission: another IP ID
        (1.0021, 5800, 11, 3000, 0, 2),  # a bare ACK: not data
    ]
    egress = [
        (1.0006, 5800, 7, 100, 1448, 3),
        (1.0017, 5801, 9, 500, 1448, 0),
        (1.0032, 5800, 10, 100, 1448, 2),
        (1.0040, 5800, 11, 3000, 0, 2),
    ]
    back_in = l4s.pcap_packets(_pcap(ingress), "in")
    back_out = l4s.pcap_packets(_pcap(egress), "out")
    assert [p[1:] for p in back_in] == [p[1:] for p in ingress]
    times = l4s.sojourns(back_in, back_out)
    assert sorted(times) == [5800, 5801]
    assert [round(x, 3) for x in times[5800]] == [0.6, 1.2]
    assert [round(x, 3) for x in times[5801]] == [1.2]
    assert l4s.quantile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert l4s.quantile([5.0], 0.99) == 5.0
    with pytest.raises(ValueError, match="not a pcap file"):
        l4s.pcap_packets(b"\0" * 40, "x.pcap")


def _iperf(mbit: float, rtt_us: int) -> bytes:
    end = {
        "streams": [{"sender": {"mean_rtt": rtt_us, "min_rtt": 40000, "max_rtt": rtt_us}}],
        "sum_received": {"bits_per_second": mbit * 1e6},
        "sum_sent": {"retransmits": 0},
    }
    return json.dumps({"end": end}).encode()


def _boot(out: Path, rate: str, word: str) -> None:
    """A finished boot of `word` at `rate` as run_one keeps it (no UML)."""
    job = out / rate / word.replace("@", "-").replace("+", "-")
    files = {
        "l4s/cli_r.pcap": _pcap([(1.0, 5800, 1, 1, 1448, 2), (1.0, 5801, 2, 1, 1448, 0)]),
        "l4s/srv_r.pcap": _pcap([(1.0006, 5800, 1, 1, 1448, 2), (1.0012, 5801, 2, 1, 1448, 0)]),
        "l4s/dctcp_dscp4.iperf.json": _iperf(6.0, 41500),
        "l4s/cubic_dscp0.iperf.json": _iperf(12.0, 43700),
        "l4s/tc_srv_r.json": json.dumps([{"kind": "msfc", "ce_threshold_marks": 3}]).encode(),
    }
    for name, raw in files.items():
        (job / "out" / name).parent.mkdir(parents=True, exist_ok=True)
        (job / "out" / name).write_bytes(raw)
    (job / "result.json").write_text(json.dumps({"rate": rate, "qdisc": word, "exit_code": 0}))


def test_convert_keeps_the_runs_order_and_the_csv_gives_the_table(tmp_path):
    """--convert makes the rows again from the kept boots, in the order of a run's plan; the
    tidy rows written as a CSV and read back give the same table (the doc table's data)."""
    import pandas as pd
    from msfc.seeds import write_rows

    words = ["msfc_l4s@5ms+paced", "msfc", "msfc_l4s@1500us", "msfc_l4s", "msfc+paced"]
    for rate in ("100mbit", "20mbit"):
        for w in words:
            _boot(tmp_path, rate, w)
    rows = l4s.convert(tmp_path)
    order = ["msfc", "msfc_l4s", "msfc_l4s@1500us", "msfc+paced", "msfc_l4s@5ms+paced"]
    assert [(r["rate"], r["qdisc"]) for r in rows] == [
        (rate, w) for rate in ("20mbit", "100mbit") for w in order
    ]
    assert rows[0]["dctcp"]["sojourn_ms"]["p50"] == pytest.approx(0.6)
    assert rows[0]["bottleneck"]["ce_threshold_marks"] == 3
    flat = l4s.tidy(rows)
    write_rows(tmp_path / "l4s.csv", flat)
    back = pd.read_csv(tmp_path / "l4s.csv").to_dict("records")
    assert l4s.table(back) == l4s.table(flat)
    assert (
        "| 20mbit | msfc | 6.00 | 12.00 | 0.333 | 0.60 / 0.60 | 1.20 / 1.20 | 1.50 | 3.70 | 3 | 0 |"
        in (l4s.table(back))
    )


def test_convert_and_thresholds_name_what_is_wrong(tmp_path):
    with pytest.raises(ValueError, match="holds no finished l4s runs"):
        l4s.convert(tmp_path)
    _boot(tmp_path, "20mbit", "msfc")
    (tmp_path / "20mbit/msfc/out/l4s/srv_r.pcap").unlink()
    with pytest.raises(l4s.uml.MachineError, match="no capture l4s/srv_r.pcap"):
        l4s.convert(tmp_path)
    assert l4s.main(["--thresholds", "2 ms", "--out", str(tmp_path / "x")]) == 1
    assert not (tmp_path / "x").exists()
