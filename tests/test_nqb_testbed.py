"""msfc.linux.nqb: the jobs of the NQB measurement, its figures, records and table (no boot).

The fixture (tests/fixtures/nqb/nqb_dscp45/) is one run's guest output cut short: the irtt
report with 20 round trips (19 back: 17 at 0.5 ms above the base, one at 1.0, one at 2.5, all
of it on the way to the server; one lost), the iperf3 report of the 8 uploads and tc -s -j of
both router egresses, where msfc counted 3 NQB demotions toward the server and none toward
the clients.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from msfc.linux import nqb, uml
from msfc.linux.umlbench import parse_rates

FIXTURE = Path(__file__).parent / "fixtures" / "nqb"
(RATE,) = parse_rates("20")


def _files() -> dict[str, bytes]:
    return {
        f"{p.parent.name}/{p.name}": p.read_bytes()
        for p in sorted(FIXTURE.glob("nqb_dscp45/*"))
        if p.is_file()
    }


def test_the_job_runs_bench_shs_nqb_test_with_the_mark():
    text = nqb.script(RATE, "msfc_recommended", 45, 30)
    assert "TESTS=nqb" in text and "QDISC=msfc_recommended" in text
    assert "NQB_DSCP=45\nNQB_BULK=8\nNQB_MARGIN=3\n. /msfc/kdir/vm/guest/bench.sh" in text
    assert "MSFC_ARGS_UP='overload class weights exact boost on'" in text
    assert "NQB_DSCP=0\n" in nqb.script(RATE, "fq_codel", 0, 30)


def test_the_guest_sends_bulk_uploads_and_the_marked_stream():
    bench = (Path(uml.KDIR) / "vm" / "guest" / "bench.sh").read_text()
    part = bench[bench.index("\tnqb)") : bench.index(";;", bench.index("\tnqb)"))]
    assert "begin nqb_dscp$d" in part
    assert 'iperf_client 5900 bulk_dscp0 -t "$DUR" -P "${NQB_BULK:-8}"' in part
    # the whole TOS byte: 45 << 2 = 0xb4, for DUR - 2 margins, within the uploads' time
    assert "irtt_start irtt_dscp$d $((d << 2)) $((DUR - 2 * m))" in part


def test_marks_qdiscs_and_packet_time():
    assert nqb.parse_marks("45,0") == [45, 0]
    for bad in ("64", "x", ""):
        with pytest.raises(ValueError, match="DSCP|no mark"):
            nqb.parse_marks(bad)
    assert nqb.parse_qdiscs("msfc,cake_ds4") == ["msfc", "cake_ds4"]
    with pytest.raises(ValueError, match="unknown qdisc 'cake'"):
        nqb.parse_qdiscs("cake")
    assert nqb.packet_time_ms(20000) == pytest.approx(0.6056)
    assert nqb.packet_time_ms(2000) == pytest.approx(6.056)


def test_figures_of_the_fixture():
    files = _files()
    s = nqb.stream_figures(json.loads(files["nqb_dscp45/irtt_dscp45.irtt.json"]))
    assert s["med_ms"] == pytest.approx(0.5)
    # 19 values, linear interpolation: 1.0 + 0.82 x (2.5 - 1.0)
    assert s["p99_ms"] == pytest.approx(2.23)
    assert s["max_ms"] == pytest.approx(2.5)
    # the fixture's delay is all on the way to the server
    assert s["up_med_ms"] == pytest.approx(0.5) and s["up_p99_ms"] == pytest.approx(2.23)
    assert s["down_med_ms"] == s["down_p99_ms"] == pytest.approx(0.0)
    assert (s["sent"], s["loss_pct"]) == (20, pytest.approx(5.0))
    b = nqb.bulk_figures(json.loads(files["nqb_dscp45/bulk_dscp0.iperf.json"]))
    assert b == {"mbit": pytest.approx(18.974096), "flows": 8, "retransmits": 241}
    assert nqb.demotions(files["nqb_dscp45/tc_srv_r.json"]) == 3
    assert nqb.demotions(files["nqb_dscp45/tc_cli_r.json"]) == 0
    # another qdisc, or a tc that does not print the counter
    assert nqb.demotions(json.dumps([{"kind": "fq_codel"}])) is None
    assert nqb.demotions(json.dumps([{"kind": "msfc", "drops": 1}])) is None


def test_row_and_table():
    row = nqb.row_of(_files(), RATE, "msfc", 45)
    assert row["met"] is False  # 2.23 ms above a packet time of 0.606 ms
    assert row["nqb_demotions"] == {"up": 3, "down": 0}
    line = nqb.table(nqb.tidy([row])).splitlines()[-1]
    assert line == "| 20mbit | msfc | 45 | 0.5 | 2.23 | 0.606 | no | 2.23 | 18.97 | 3 / 0 |"
    (slow,) = parse_rates("2")
    assert nqb.row_of(_files(), slow, "msfc", 45)["met"] is True  # within 6.06 ms
    with pytest.raises(ValueError, match="no nqb_dscp0/irtt_dscp0.irtt.json"):
        nqb.row_of(_files(), RATE, "msfc", 0)


def test_records_summary_and_convert(tmp_path):
    """A finished boot's files become a run of the study OUT/20mbit/nqb_dscp45 in the raw
    format, summary.json and the table; --convert makes them again from the kept boot."""
    out = tmp_path / "nqb"
    job = out / "20mbit" / "raw" / "nqb_dscp45" / "msfc"
    for name, raw in _files().items():
        (job / "out" / name).parent.mkdir(parents=True, exist_ok=True)
        (job / "out" / name).write_bytes(raw)
    meta = {"kernel": "6.12.117", "duration_s": 30, "exit_code": 0}
    (job / "result.json").write_text(json.dumps(meta))
    done = nqb.convert(out)
    assert [(r.label, q, m) for r, q, m, _ in done] == [("20mbit", "msfc", 45)]
    text = nqb.finish(out, done, [RATE], ["msfc"], [45], tmp_path / "doc" / "nqb.csv")
    assert text.splitlines()[-1].startswith("| 20mbit | msfc | 45 | 0.5 | 2.23 |")
    # the CSV of the tidy rows, read back, gives the same table (the doc table's data)
    back = pd.read_csv(tmp_path / "doc" / "nqb.csv").to_dict("records")
    assert nqb.table(back) == text
    assert back[0]["nqb_demotions_up"] == 3 and back[0]["stream_sent"] == 20
    summary = json.loads((out / "summary.json").read_text())
    assert summary[0]["stream"]["p99_ms"] == pytest.approx(2.23)
    study = json.loads((out / "20mbit" / "nqb_dscp45" / "study.json").read_text())
    assert study["scenario"] == "uml-nqb_dscp45" and len(study["configs"]) == 1
    run = out / "20mbit" / "nqb_dscp45" / "runs" / study["configs"][0]
    flows = (run / "flows.csv").read_text().splitlines()
    assert sum(",bulk-BE," in ln for ln in flows) == 8
    assert sum(",irtt-NQB," in ln for ln in flows) == 2  # up and down
    assert json.loads((run / "meta.json").read_text())["sim_seconds"] == 30.0
    assert (run / "tc_srv_r.json").is_file()
    # a boot that failed is left out, with nothing else the table is an error
    (job / "result.json").write_text(json.dumps({**meta, "exit_code": 1}))
    with pytest.raises(ValueError, match="holds no finished nqb runs"):
        nqb.convert(out)
