"""The UML testbed's tables as doc tables (msfc.analysis.linuxtables, msfc.analysis.doctables):
the collector takes from a bench results directory exactly what the bench's tables print, and
the tables made from that data are the bench's, byte for byte."""

import json
import math
from argparse import Namespace

import pandas as pd
import pytest
from msfc.analysis import doctables as D
from msfc.analysis import linuxtables as L
from msfc.errors import UserError
from msfc.linux import tables as TB
from msfc.linux import umlbench as UB

QDISCS = ["fq_codel", "msfc_across"]


def _study(d, test, rate_kbit, runs):
    """OUT/<rate>/<test>/: study.json and one run per (qdisc, flows, rtt)."""
    hashes = []
    for k, (q, flows, rtt) in enumerate(runs):
        h = f"{test}{k:04d}"
        r = d / test / "runs" / h
        r.mkdir(parents=True)
        (r / "meta.json").write_text(
            json.dumps(
                {
                    "scheduler": q,
                    "started_utc": f"2026-01-02T00:0{k}:00Z",
                    "testbed": {"guest_idle": 0.99, "flent_step_s": 0.2},
                }
            )
        )
        pd.DataFrame(flows).to_csv(r / "flows.csv", index=False)
        pd.DataFrame(rtt, columns=["flow_id", "seqno", "rtt_s"]).to_csv(r / "rtt.csv", index=False)
        hashes.append(h)
    testbed = {"rate_kbit": rate_kbit, "rtt_ms": 40, "duration_s": 30, "testbed": "uml"}
    (d / test / "study.json").write_text(json.dumps({"configs": hashes, "testbed": testbed}))


def _summary(q, k):
    return {
        "qdisc": q,
        "ef_med": 1.2345 + k,
        "ef_p90": 2.5,
        "ef_p99": 123.4 * (k + 1),
        "ef_jitter": 0.5,
        "ef_loss_pct": 0.0,
        "icmp_med": 0.75,
        "icmp_p99": math.nan if k else 1.5,  # a gap in a shown column: "nan"
        "grade": "A+",
        "down_CS5": math.nan,  # a column no row has: left out
        "up_BE": 17.777,
        "up_total": 17.777,
        "up_jain": 1.0,
        "wall_s": 12.3,
    }


def fake_results(tmp_path):
    """A bench run of rrul (with Flent's EF and BE probes, the second qdisc without BE) and
    cubic_bbr at 2 and 20 Mbit/s, through two qdiscs."""
    out = tmp_path / "out"
    summary = {}
    for rate in (2000, 20000):
        d = out / f"{rate // 1000}mbit"
        rrul = []
        for k, q in enumerate(QDISCS):
            classes = ["EF", "BE"] if k == 0 else ["EF"]
            flows = [
                dict(flow_id=i, type=f"probe-{c}", direction="up", tx_packets=100, lost_packets=k)
                for i, c in enumerate(classes)
            ]
            rtt = [
                (i, s, 0.040 + 0.001 * (s + i + k)) for i in range(len(classes)) for s in range(50)
            ]
            rrul.append((q, flows, rtt))
        _study(d, "rrul", rate, rrul)
        cb = []
        for k, q in enumerate(QDISCS):
            flows = [
                dict(flow_id=0, type="cubic-BE", rx_bytes=1_000_000 * (k + 1), active_s=30.0),
                dict(flow_id=1, type="bbr-BE", rx_bytes=3_000_000, active_s=30.0),
            ]
            cb.append((q, flows, []))
        _study(d, "cubic_bbr", rate, cb)
        summary[f"{rate // 1000}mbit/rrul"] = [_summary(q, k) for k, q in enumerate(QDISCS)]
    (out / "summary.json").write_text(json.dumps(summary))
    return out, summary


def test_the_tables_from_the_data_are_the_benchs(tmp_path):
    out, summary = fake_results(tmp_path)
    rows, settings = L.collect_rows(out)
    assert settings == {"rtt_ms": 40, "duration_s": 30, "measured": "2026-01-02T00:01:00Z"}
    L.write_csv(rows, tmp_path / "data.csv")
    d = L.read(tmp_path / "data.csv")
    # what the bench itself writes from the same runs (OUT/tables.md, without its title)
    rates = UB.parse_rates("2,20")
    bench_rows = {tuple(k.split("/")): v for k, v in summary.items()}
    args = Namespace(rtt_ms=40, duration=30, seed=7)
    expected = UB.tables(out, rates, ["rrul", "cubic_bbr"], bench_rows, args).split("\n", 2)[2]
    meta = {"settings": {**settings, "seed": 7}}
    assert L.every_table(d, meta) + "\n" == expected


def test_the_data_holds_what_the_tables_show(tmp_path):
    out, _ = fake_results(tmp_path)
    d = pd.DataFrame(L.collect_rows(out)[0])
    s = d[(d["table"] == "summary") & (d["rate"] == "2mbit")]
    v = {(r.qdisc, r.column): r.value for r in s.itertuples()}
    assert v[("fq_codel", "ef_med")] == "1.23" and v[("msfc_across", "ef_p99")] == "247"
    assert v[("msfc_across", "icmp_p99")] == "nan" and ("fq_codel", "down_CS5") not in v
    p = d[(d["table"] == "probes") & (d["rate"] == "20mbit")]
    assert set(p["column"]) == {f"{c} {x}" for c in ("EF", "BE") for x in L.PROBE_PARTS} | {
        "EF loss %",
        "BE loss %",
    }
    assert p[(p["qdisc"] == "msfc_across") & (p["column"] == "BE med")]["value"].item() == ""
    c = d[d["table"] == "cubic_bbr"]
    assert list(pd.unique(c["column"])) == ["CUBIC Mbit/s", "BBR Mbit/s", "Jain"]


def test_the_docs_views_of_the_data(tmp_path):
    out, _ = fake_results(tmp_path)
    L.write_csv(L.collect_rows(out)[0], tmp_path / "data.csv")
    d = L.read(tmp_path / "data.csv")
    voice = L.headline(d, "rrul", "voice").splitlines()
    assert voice[0] == "| rate | fq_codel | msfc_across |"
    assert voice[2] == "| 2 Mbit/s each way | 1.23 / 123 | 2.23 / 247 |"
    ping = L.headline(d, "rrul", "ping").splitlines()
    assert ping[3] == "| 20 Mbit/s each way | 0.75 / 1.5 | 0.75 / nan |"
    probes = L.probes_by_qdisc(d, "20mbit", "rrul").splitlines()
    assert probes[0] == "| qdisc | EF | BE |" and probes[3].startswith("| msfc_across | ")
    assert probes[3].endswith(" | - |")  # no BE probe through it
    by_rate = L.probes_by_rate(d, "rrul", QDISCS, ["EF"]).splitlines()
    assert by_rate[0] == "| rate | fq_codel EF | msfc_across EF |"
    assert [r.split(" |")[0] for r in by_rate[2:]] == ["| 2 Mbit/s", "| 20 Mbit/s"]


def test_a_directory_without_a_bench_run_is_refused(tmp_path):
    with pytest.raises(UserError, match="summary.json missing"):
        L.collect_rows(tmp_path)


def test_every_linux_table_names_its_data_commit_and_command():
    linux = [t for t in D.TABLES.values() if t.collected]
    assert {t.data for t in linux} == {g.data for g in L.GROUPS.values()}
    for t in linux:
        meta = json.loads(D.stamp_path(t).read_text())
        assert D._git("rev-parse", "--verify", "--quiet", meta["commit"] + "^{commit}")
        last = D.rendered(t).splitlines()[-1]
        assert last.startswith("Data: [") and meta["commit"][:7] in last
        assert meta["command"] in last and meta["measured"][:10] in last


def test_a_kernel_change_makes_the_linux_tables_stale(monkeypatch):
    real = D.digest
    monkeypatch.setattr(
        D, "digest", lambda p, c=None: "changed" if p == "kernel/net/sched" else real(p, c)
    )
    bad = [b for b in D.problems() if "kernel/net/sched" in b]
    # every table whose data the qdisc's code makes: the testbed's, seed 002's, the cost probe's
    for t in D.TABLES.values():
        named = [b for b in bad if f"(table {t.name} in " in b]
        assert len(named) == ("kernel/net/sched" in t.depends), t.name
        if t.collected:
            g = next(g for g in L.GROUPS.values() if g.data == t.data)
            assert "--accept" in named[0] and g.command in named[0]
    assert sum(t.collected for t in D.TABLES.values()) >= 7


def test_a_digest_at_a_commit_is_the_trees_when_unchanged():
    assert D.digest("kernel/test/uml.config", "HEAD") == D.digest("kernel/test/uml.config")


def _vm_study(out, test, runs):
    """OUT/<test>/ of make bench-linux-vm at 2 Mbit/s: study.json and one run per (qdisc,
    flows, rtt)."""
    _study(out, test, 2000, runs)
    for r in (out / test / "runs").iterdir():
        m = json.loads((r / "meta.json").read_text())
        m["testbed"].update(kernel="6.12.117", accel="tcg", smp=2, qemu="QEMU 9", guest_idle=0.3)
        (r / "meta.json").write_text(json.dumps(m))


def fake_vm_results(tmp_path):
    """make bench-linux-vm's --out: rrul (TCP per class, irtt EF/BE/CS1), cubic_bbr and hosts
    through two qdiscs."""
    out = tmp_path / "vm"
    rrul, cb, hosts = [], [], []
    for k, q in enumerate(QDISCS):
        flows = [
            dict(
                flow_id=i,
                type=t,
                direction=d,
                rx_bytes=250_000 * (i + k + 1),
                active_s=20.0,
                tx_packets=0,
                rx_packets=0,
                lost_packets=0,
                jitter_sum_s=0.0,
            )
            for i, (t, d) in enumerate(
                [(f"{d}-{c}", d) for d in ("up", "down") for c in ("EF", "CS5", "BE", "CS1")]
            )
        ]
        for j, c in enumerate(("EF", "BE", "CS1")):
            flows.append(
                dict(
                    flow_id=10 + j,
                    type=f"irtt-{c}",
                    direction="up",
                    rx_bytes=0,
                    active_s=0.0,
                    tx_packets=500,
                    rx_packets=490 - k,
                    lost_packets=10 + k,
                    jitter_sum_s=2.0,
                )
            )
        rtt = [(10 + j, s, 0.05 + 0.001 * (s + j + k)) for j in range(3) for s in range(100)]
        rrul.append((q, flows, rtt))
        cb.append(
            (
                q,
                [
                    dict(flow_id=0, type="cubic-BE", rx_bytes=2_000_000 * (k + 1), active_s=20.0),
                    dict(flow_id=1, type="bbr-BE", rx_bytes=2_500_000, active_s=20.0),
                ],
                [],
            )
        )
        hf = [
            dict(flow_id=0, type=f"hostA_{d}-BE", rx_bytes=1_000_000 * (k + 1), active_s=20.0)
            for d in ("up", "down")
        ]
        hf += [
            dict(flow_id=1 + i, type=f"hostB_{d}-BE", rx_bytes=400_000, active_s=20.0)
            for d in ("up", "down")
            for i in range(3)
        ]
        hosts.append((q, hf, []))
    _vm_study(out, "rrul", rrul)
    _vm_study(out, "cubic_bbr", cb)
    _vm_study(out, "hosts", hosts)
    return out


def test_the_vms_tables_from_the_data_are_the_benchs(tmp_path):
    out = fake_vm_results(tmp_path)
    rows, settings = L.collect_vm_rows(out)
    assert settings == {
        "rate_kbit": 2000,
        "rtt_ms": 40,
        "duration_s": 30,
        "kernel": ["6.12.117"],
        "accel": ["tcg"],
        "smp": ["2"],
        "qemu": ["QEMU 9"],
        "measured": "2026-01-02T00:01:00Z",
    }
    assert {r["rate"] for r in rows} == {"2mbit"}
    assert set(r["table"] for r in rows) == {"rrul_goodput", "rrul_irtt", "cubic_bbr", "hosts"}
    L.write_csv(rows, tmp_path / "vm.csv")
    d = L.read(tmp_path / "vm.csv")
    # every table the bench wrote (its OUT/tables.md) is the one made from the data
    bench = TB.tables(out, ["rrul", "cubic_bbr", "hosts"])
    for name, title in {**L.VM_TABLES, **L.BENCH_TABLES}.items():
        if name in ("rrul_goodput", "rrul_irtt", "cubic_bbr", "hosts"):
            assert f"### {title}\n\n{L.vm_table(d, name)}\n" in bench, name
    irtt = L.vm_table(d, "rrul_irtt").splitlines()
    assert irtt[0].startswith("| qdisc | EF med | EF p99 | EF loss | EF jitter | BE med")
    with pytest.raises(UserError, match="no shares table"):
        L.vm_table(d, "shares")
    two = pd.concat([d, d.assign(rate="20mbit")])
    with pytest.raises(UserError, match="2 rates"):
        L.vm_table(two, "hosts")


def test_a_directory_without_a_vm_bench_is_refused(tmp_path):
    with pytest.raises(UserError, match="no study of make bench-linux-vm"):
        L.collect_vm_rows(tmp_path)
    # the UML bench's --out (rates below it) is not the VM's
    out, _ = fake_results(tmp_path)
    with pytest.raises(UserError, match="no study of make bench-linux-vm"):
        L.collect_vm_rows(out)
