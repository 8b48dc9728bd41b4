"""L4S beside Classic traffic in one msfc class, on real stacks in the UML testbed.

A DCTCP upload (the scalable sender the UML kernel has; Linux 6.12's DCTCP sends ECT(0), so
the flow is marked DSCP 4 and the selector 0x12/0xff takes it) and a CUBIC upload (DSCP 0,
Not-ECT) share class 1 of msfc at the bottleneck toward the server (the l4s test of
kernel/vm/guest/bench.sh), through `msfc`, `msfc_l4s_thesis` (the thesis mode with
`ce_threshold 1ms` for that selector) and `msfc_l4s` (the recommended modes with
`ce_threshold 1500us`; records.MSFC_MODES), with --thresholds also msfc_l4s at other
thresholds, and with --paced every run again with the DCTCP sender pacing.  Per rate and
qdisc: each flow's goodput at the server; its packets' sojourn in the bottleneck's queue
(median, 90th and 99th percentile), from the guest's captures of the uploads at the router's
two devices (pcap_packets, sojourns); the senders' mean smoothed RTT above the 40 ms base
(iperf3's mean_rtt: the queueing delay with the link's transmission time and the delayed
ACKs); and the bottleneck's counters.

    python -m msfc.linux.l4s [--rates 20,100] [--duration 30] [--thresholds 1ms,5ms]
                             [--paced] [--out results/linux-testbed/l4s] [--csv FILE]
    python -m msfc.linux.l4s --convert [--out ...]     summary and table again

Writes OUT/<rate>/<qdisc>/ (the boot, the guest's files and result.json), OUT/summary.json and
prints a Markdown table (docs/linux-testbed.md, "L4S beside Classic"); with --csv also the
table's rows as a CSV (the doc table's data, msfc.analysis.doctables).
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import struct
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..seeds import write_rows
from . import records, uml
from .flent import quantile
from .umlbench import Rate, _load, bench_script, parse_rates

QDISCS = ("msfc", "msfc_l4s_thesis", "msfc_l4s")
#: msfc_l4s's words with another threshold: "msfc_l4s@5ms"
SELECTOR = "ce_threshold_selector 0x12/0xff"
#: the suffix of a run whose DCTCP sender paces: "msfc_l4s+paced"
PACED = "+paced"
TEST = "l4s"
RTT_MS = 40
FLOWS = {"dctcp": "dctcp_dscp4", "cubic": "cubic_dscp0"}
#: each flow's server port (bench.sh)
PORTS = {"dctcp": 5800, "cubic": 5801}


def flow_figures(report: dict) -> dict:
    """Goodput at the receiver (Mbit/s) and the sender's mean, min and max smoothed RTT (ms)
    of one iperf3 -J report."""
    end = report["end"]
    sender = end["streams"][0]["sender"]
    return {
        "mbit": end["sum_received"]["bits_per_second"] / 1e6,
        "mean_rtt_ms": sender["mean_rtt"] / 1000,
        "min_rtt_ms": sender["min_rtt"] / 1000,
        "max_rtt_ms": sender["max_rtt"] / 1000,
        "retransmits": end["sum_sent"].get("retransmits", 0),
    }


#: msfc's counters of the bottleneck that the summary keeps
BOTTLENECK = ("codel_drops", "ecn_marks", "ce_threshold_marks", "drops")


def bottleneck_counters(tc_json: str) -> dict:
    """msfc's counters on the router's egress toward the server (tc -s -j qdisc show)."""
    for q in json.loads(tc_json):
        if q.get("kind") == "msfc":
            return {k: q.get(k, 0) for k in BOTTLENECK}
    return {}


def pcap_packets(data: bytes, name: str = "pcap") -> list[tuple[float, int, int, int, int, int]]:
    """The TCP packets of a classic pcap file of Ethernet frames (what tcpdump -w writes):
    (time s, destination port, IP ID, sequence number, payload bytes, ECN bits) each."""
    if len(data) < 24:
        raise ValueError(f"{name}: {len(data)} bytes, not a pcap file")
    magic = data[:4]
    if magic not in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4"):
        raise ValueError(f"{name}: not a pcap file of microsecond times (magic {magic.hex()})")
    e = "<" if magic == b"\xd4\xc3\xb2\xa1" else ">"
    if struct.unpack(e + "I", data[20:24])[0] != 1:
        raise ValueError(f"{name}: not Ethernet frames")
    out, at = [], 24
    while at + 16 <= len(data):
        sec, usec, incl, _ = struct.unpack(e + "IIII", data[at : at + 16])
        frame = data[at + 16 : at + 16 + incl]
        at += 16 + incl
        if len(frame) < 34 or frame[12:14] != b"\x08\x00" or frame[23] != 6:
            continue  # not IPv4 TCP
        ihl = (frame[14] & 15) * 4
        tcp = 14 + ihl
        if len(frame) < tcp + 20:
            continue
        total, ip_id = struct.unpack(">HH", frame[16:20])
        dport, seq = struct.unpack(">HI", frame[tcp + 2 : tcp + 8])
        payload = total - ihl - (frame[tcp + 12] >> 4) * 4
        out.append((sec + usec / 1e6, dport, ip_id, seq, payload, frame[15] & 3))
    return out


def sojourns(ingress: list, egress: list) -> dict[int, list[float]]:
    """Per destination port, the time (ms) each data packet took from the router's ingress
    capture to its egress capture: the sojourn in the bottleneck's queue (the egress capture
    sees a packet as the qdisc hands it to the device).  A packet is known by its IP ID and
    sequence number; the first egress copy of each ingress one counts, and packets the qdisc
    dropped have none."""
    seen: dict[tuple, list[float]] = {}
    for t, port, ip_id, seq, size, _ in ingress:
        if size:
            seen.setdefault((port, ip_id, seq), []).append(t)
    out: dict[int, list[float]] = {}
    for t, port, ip_id, seq, size, _ in egress:
        times = seen.get((port, ip_id, seq))
        if size and times:
            out.setdefault(port, []).append((t - times.pop(0)) * 1000)
    return out


def script(rate, qdisc: str, duration: int) -> str:
    """The job of one run: bench.sh's l4s test through `qdisc`, msfc_l4s@T being msfc_l4s
    with the threshold T, and a word ending in PACED the same with the DCTCP sender pacing."""
    paced = qdisc.endswith(PACED)
    mode, _, threshold = qdisc.removesuffix(PACED).partition("@")
    text = bench_script(TEST, mode, rate, duration, RTT_MS)
    if threshold:
        # the mode's words in each direction, with the threshold T in place of its own
        for d, kbit in (("UP", rate.up_kbit), ("DOWN", rate.down_kbit)):
            words = records.msfc_args(mode, d.lower(), kbit)
            if "ce_threshold " not in words:
                raise ValueError(f"{qdisc}: {mode} sets no ce_threshold to replace")
            words = re.sub(r"ce_threshold \S+", f"ce_threshold {threshold}", words)
            line = f"MSFC_ARGS_{d}={shlex.quote(words)}"
            text = re.sub(rf"(?m)^MSFC_ARGS_{d}=.*$", lambda m, line=line: line, text)
    return f"L4S_PACED=1\n{text}" if paced else text


def row_of(files: dict[str, bytes], rate, qdisc: str, where: str = "") -> dict:
    """The summary row of one run from the guest's files (bench.sh's l4s test): each flow's
    figures with its sojourns, and the bottleneck's counters; ``where`` names the boot in
    errors."""
    row = {"rate": rate.label, "qdisc": qdisc}
    caps = {}
    for dev in ("cli_r", "srv_r"):
        name = f"{TEST}/{dev}.pcap"
        if name not in files:
            raise uml.MachineError(f"{qdisc} at {rate.text}: no capture {name}, see {where}")
        try:
            caps[dev] = pcap_packets(files[name], f"{where}/out/{name}")
        except ValueError as e:
            raise uml.MachineError(f"{qdisc} at {rate.text}: {e}") from None
    times = sojourns(caps["cli_r"], caps["srv_r"])
    for name, label in FLOWS.items():
        report = files.get(f"{TEST}/{label}.iperf.json")
        if report is None:
            raise uml.MachineError(
                f"{qdisc} at {rate.text}: no {TEST}/{label}.iperf.json, see {where}"
            )
        row[name] = flow_figures(json.loads(report))
        ms = times.get(PORTS[name], [])
        row[name]["sojourn_ms"] = {
            "packets": len(ms),
            **{f"p{q}": quantile(ms, q / 100) for q in (50, 90, 99)},
        }
    tc = files.get(f"{TEST}/tc_srv_r.json", b"").decode("utf-8", "replace")
    row["bottleneck"] = bottleneck_counters(tc) if tc else {}
    return row


def run_one(rate, qdisc: str, duration: int, out: Path, seed: int) -> dict:
    job = out / rate.label / qdisc.replace("@", "-").replace("+", "-")
    res = uml.run_job(script(rate, qdisc, duration), job, timeout=900, seed=seed)
    (job / "result.json").write_text(
        json.dumps({"rate": rate.label, "qdisc": qdisc, "exit_code": res.exit_code}) + "\n"
    )
    if res.exit_code != 0:
        raise uml.MachineError(f"{qdisc} at {rate.text}: job exit {res.exit_code}, see {job}")
    return row_of(res.files, rate, qdisc, str(job))


def plan(rates: list, thresholds: list[str], paced: bool) -> list[tuple]:
    """(rate, qdisc word) of every run, in the table's order: per rate QDISCS, msfc_l4s at
    each of ``thresholds``, then, with ``paced``, each again with the DCTCP sender pacing."""
    words = [*QDISCS, *(f"msfc_l4s@{t}" for t in thresholds)]
    if paced:
        words += [w + PACED for w in words]
    return [(r, w) for r in rates for w in words]


def convert(out: Path) -> list[dict]:
    """The rows of the finished boots kept in OUT (each OUT/<rate>/<dir>/ with the
    result.json run_one writes), in the order of :func:`plan`."""
    rows = []
    for res_json in sorted(out.glob("*mbit/*/result.json")):
        job = res_json.parent
        res = _load(job)
        if res.exit_code != 0:
            print(f"msfc.linux.l4s: {job}: not a finished run, left out", file=sys.stderr)
            continue
        meta = res.files_meta
        rate = Rate.from_label(meta["rate"])
        rows.append((rate, row_of(res.files, rate, meta["qdisc"], str(job))))
    if not rows:
        raise ValueError(f"{out} holds no finished l4s runs (OUT/<rate>/<qdisc>/result.json)")
    rates = sorted({r for r, _ in rows}, key=lambda r: (r.up_kbit, r.down_kbit))
    words = [row["qdisc"] for _, row in rows]
    thresholds = sorted(
        {w.removesuffix(PACED).partition("@")[2] for w in words} - {""}, key=_seconds
    )
    order = {(r.label, w): k for k, (r, w) in enumerate(plan(rates, thresholds, True))}
    return [row for _, row in sorted(rows, key=lambda x: order[x[0].label, x[1]["qdisc"]])]


def _seconds(t: str) -> float:
    """A tc time ("1500us", "2ms", "1s") in seconds."""
    m = re.fullmatch(r"([0-9.]+)(us|ms|s)", t)
    if not m:
        raise ValueError(f"threshold {t!r}: give a tc time, e.g. 1ms or 1500us")
    return float(m[1]) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[m[2]]


def tidy(rows: list[dict]) -> list[dict]:
    """The summary rows (row_of) flat, one column per figure: what ``--csv`` writes and the
    table is made from (docs/linux-testbed/l4s.csv)."""
    out = []
    for r in rows:
        flat = {"rate": r["rate"], "qdisc": r["qdisc"]}
        for name in FLOWS:
            fig = dict(r[name])
            soj = fig.pop("sojourn_ms")
            flat.update({f"{name}_{k}": v for k, v in fig.items()})
            flat.update({f"{name}_sojourn_{k}": v for k, v in soj.items()})
        flat.update({k: r["bottleneck"].get(k, 0) for k in BOTTLENECK})
        out.append(flat)
    return out


def table(rows: list[dict]) -> str:
    """The Markdown table of tidy rows (:func:`tidy`, or the rows of its CSV)."""
    head = (
        "| rate | qdisc | DCTCP Mbit/s | CUBIC Mbit/s | DCTCP share | DCTCP sojourn, ms "
        "(median / p99) | CUBIC sojourn, ms (median / p99) | DCTCP RTT - base, ms (mean) | "
        "CUBIC RTT - base, ms (mean) | ce_threshold_marks | codel_drops |"
    )
    lines = [head, "|" + "---|" * 11]
    for r in rows:
        d, c = r["dctcp_mbit"], r["cubic_mbit"]
        lines.append(
            f"| {r['rate']} | {r['qdisc']} | {d:.2f} | {c:.2f} | {d / (d + c):.3f} | "
            f"{r['dctcp_sojourn_p50']:.2f} / {r['dctcp_sojourn_p99']:.2f} | "
            f"{r['cubic_sojourn_p50']:.2f} / {r['cubic_sojourn_p99']:.2f} | "
            f"{r['dctcp_mean_rtt_ms'] - RTT_MS:.2f} | {r['cubic_mean_rtt_ms'] - RTT_MS:.2f} | "
            f"{int(r['ce_threshold_marks'])} | {int(r['codel_drops'])} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m msfc.linux.l4s", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--rates", default="20,100", help="Mbit/s, comma-separated (default 20,100)")
    ap.add_argument("--duration", type=int, default=30, help="seconds per run (default 30)")
    ap.add_argument("--out", default="results/linux-testbed/l4s")
    ap.add_argument("--seed", type=int, default=1, help="UML's fixed random stream (default 1)")
    ap.add_argument("--jobs", type=int, default=1, help="boots at a time (default 1)")
    ap.add_argument(
        "--thresholds",
        default="",
        help="more runs of msfc_l4s's selector at these thresholds (tc times, e.g. 2ms,5ms)",
    )
    ap.add_argument(
        "--paced",
        action="store_true",
        help="every run also with the DCTCP sender pacing (TCP's own pacing, turned on by"
        " iperf3 --fq-rate)",
    )
    ap.add_argument(
        "--csv",
        type=Path,
        help="also write the table's rows, one column per figure, to this CSV"
        " (docs/linux-testbed/l4s.csv)",
    )
    ap.add_argument(
        "--convert",
        action="store_true",
        help="no boot: summary and table again from the runs kept in --out",
    )
    a = ap.parse_args(argv)
    out = Path(a.out)
    assert records.MSFC_MODES["msfc_l4s"].endswith(SELECTOR)
    try:
        if a.convert:
            rows = convert(out)
        else:
            thresholds = [t for t in a.thresholds.split(",") if t]
            for t in thresholds:
                _seconds(t)
            runs = plan(parse_rates(a.rates), thresholds, a.paced)
            uml.check_ready()
            with ThreadPoolExecutor(max_workers=a.jobs) as pool:
                rows = list(pool.map(lambda p: run_one(*p, a.duration, out, a.seed), runs))
    except (ValueError, uml.MachineError) as e:
        print(f"msfc.linux.l4s: {e}", file=sys.stderr)
        return 1
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(rows, indent=1) + "\n")
    flat = tidy(rows)
    if a.csv:
        write_rows(a.csv, flat)
    print(table(flat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
