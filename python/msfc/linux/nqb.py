"""An NQB stream beside bulk TCP of its class, on real stacks in the UML testbed.

Issue 33's target for NQB flows (docs/algorithm.md, "LE and NQB"): a game-like stream marked
NQB (DSCP 45) beside 8 bulk TCP flows of its class has a p99 queueing delay of at most one
packet time of the link above the base RTT; the same stream unmarked keeps what it has today.
The nqb test of kernel/vm/guest/bench.sh sends 8 TCP uploads in best effort (DSCP 0) and the
testbed's voice-like irtt stream (20 ms interval, 172-byte packets) marked with each DSCP of
--marks (45: NQB, the default map's class 1 with the NQB flag, the bulk flows' class; 0: the
same stream unmarked), through each qdisc of --qdiscs at each rate.  Per rate, qdisc and mark:
the stream's RTT median and p99 above the 40 ms base, the link's packet time (1514 bytes at
the rate), whether p99 - base is at most that, the uploads' total goodput and msfc's
nqb_demotions (queue protection's moves of an NQB flow behind the old flows) on both router
egresses.

    python -m msfc.linux.nqb [--rates 2,20,100] [--qdiscs msfc,msfc_recommended,fq_codel,cake_ds4]
                             [--marks 45,0] [--duration 30] [--out results/linux-testbed/nqb]
    python -m msfc.linux.nqb --convert [--out ...]     records, summary and table again
    ... --csv docs/linux-testbed/nqb.csv                 the table's rows, for the docs

Writes, as `python -m msfc.linux bench` does, OUT/<rate>/raw/nqb_dscp<mark>/<qdisc>/ (the boot
and the guest's files) and OUT/<rate>/nqb_dscp<mark>/ (one study in the project's raw format
per rate and mark, msfc.linux.records), then OUT/summary.json and the Markdown table, printed
(docs/linux-testbed.md, "NQB beside bulk TCP"), with --csv also the table's rows as a CSV (the
doc table's data, msfc.analysis.doctables).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..seeds import write_rows
from . import records, uml
from .flent import quantile
from .umlbench import Rate, _job_dir, _load, _write_study, bench_script, parse_rates, record

TEST = "nqb"
RTT_MS = 40
NQB_DSCP = 45
#: the bulk TCP uploads beside the stream (bench.sh's NQB_BULK)
BULK_FLOWS = 8
#: the stream starts this long after the uploads and stops this long before them (NQB_MARGIN)
MARGIN_S = 3
#: the packet the target's "one packet time" is the time of: a full Ethernet frame
PACKET_BYTES = 1514
DEFAULT_QDISCS = ("msfc", "msfc_recommended", "fq_codel", "cake_ds4")
#: the counter of msfc's xstats (tc -s -j qdisc show, q_msfc.c) that counts queue protection
DEMOTIONS = "nqb_demotions"
DEVICES = {"up": "srv_r", "down": "cli_r"}


def test_name(mark: int) -> str:
    """The guest's output directory and the study of one mark: "nqb_dscp45"."""
    return f"{TEST}_dscp{mark}"


def packet_time_ms(rate_kbit: int) -> float:
    """The time of one PACKET_BYTES frame at ``rate_kbit`` (ms)."""
    return PACKET_BYTES * 8 / rate_kbit


def parse_marks(s: str) -> list[int]:
    """ "45,0" -> [45, 0]; ValueError naming a mark that is not a DSCP."""
    marks = []
    for item in (x.strip() for x in s.split(",")):
        if not item:
            continue
        if not item.isdigit() or int(item) > 63:
            raise ValueError(f"mark {item!r}: give DSCPs 0 .. 63, e.g. --marks 45,0")
        marks.append(int(item))
    if not marks:
        raise ValueError("no mark given: e.g. --marks 45,0")
    return marks


def parse_qdiscs(s: str) -> list[str]:
    names = [x.strip() for x in s.split(",") if x.strip()]
    for n in names:
        if n not in records.QDISCS:
            raise ValueError(f"unknown qdisc {n!r}: choose from {', '.join(records.QDISCS)}")
    if not names:
        raise ValueError(f"no qdisc given: choose from {', '.join(records.QDISCS)}")
    return names


def stream_figures(report: dict, rtt_ms: float = RTT_MS) -> dict:
    """The irtt stream's RTT above the base (median, p90, p99, max; ms) over its round trips
    that came back, its one-way delays above half the base (median and p99 toward the server,
    where the uploads queue, ``up_*``, and back, ``down_*``; the guest's namespaces share one
    clock), how many it sent and the share lost (%), from irtt's -o json report."""
    trips = report.get("round_trips", [])
    back = [r for r in trips if r.get("lost") == "false" and "rtt" in r.get("delay", {})]
    if not back:
        raise ValueError(f"the irtt report has no round trip that came back ({len(trips)} sent)")
    added = [r["delay"]["rtt"] / 1e6 - rtt_ms for r in back]
    fig = {
        "med_ms": quantile(added, 0.5),
        "p90_ms": quantile(added, 0.9),
        "p99_ms": quantile(added, 0.99),
        "max_ms": max(added),
    }
    for d, key in (("up", "send"), ("down", "receive")):
        way = [r["delay"][key] / 1e6 - rtt_ms / 2 for r in back if key in r["delay"]]
        fig[f"{d}_med_ms"] = quantile(way, 0.5)
        fig[f"{d}_p99_ms"] = quantile(way, 0.99)
    return {**fig, "sent": len(trips), "loss_pct": 100 * (1 - len(back) / len(trips))}


def bulk_figures(report: dict) -> dict:
    """The uploads' total goodput at the receiver (Mbit/s), their number and retransmissions,
    from one iperf3 -J report of -P N streams."""
    end = report.get("end", {})
    if "sum_received" not in end:
        raise ValueError(f"the iperf3 report has no results: {report.get('error', '?')}")
    return {
        "mbit": end["sum_received"]["bits_per_second"] / 1e6,
        "flows": len(end.get("streams", [])),
        "retransmits": end.get("sum_sent", {}).get("retransmits", 0),
    }


def demotions(tc_json: str | bytes | None) -> int | None:
    """msfc's nqb_demotions on one device (tc -s -j qdisc show): None without an msfc qdisc
    there or when its tc does not print the counter."""
    if not tc_json:
        return None
    for q in json.loads(tc_json):
        if q.get("kind") == "msfc":
            v = q.get(DEMOTIONS)
            return int(v) if v is not None else None
    return None


def row_of(files: dict[str, bytes], rate: Rate, qdisc: str, mark: int) -> dict:
    """The summary row of one run from the guest's files (bench.sh's nqb test)."""
    t = test_name(mark)

    def get(name: str) -> bytes:
        raw = files.get(f"{t}/{name}")
        if raw is None:
            raise ValueError(f"{qdisc} at {rate.text}, DSCP {mark}: the guest wrote no {t}/{name}")
        return raw

    stream = stream_figures(json.loads(get(f"irtt_dscp{mark}.irtt.json")))
    pt = packet_time_ms(rate.up_kbit)
    return {
        "rate": rate.label,
        "qdisc": qdisc,
        "dscp": mark,
        "stream": stream,
        "packet_time_ms": pt,
        "met": stream["p99_ms"] <= pt,
        "bulk": bulk_figures(json.loads(get("bulk_dscp0.iperf.json"))),
        DEMOTIONS: {d: demotions(files.get(f"{t}/tc_{dev}.json")) for d, dev in DEVICES.items()},
    }


def script(rate: Rate, qdisc: str, mark: int, duration: int) -> str:
    """The job of one run: bench.sh's nqb test through ``qdisc`` with the stream marked
    ``mark``."""
    text = bench_script(TEST, qdisc, rate, duration, RTT_MS)
    extra = f"NQB_DSCP={mark}\nNQB_BULK={BULK_FLOWS}\nNQB_MARGIN={MARGIN_S}\n"
    return text.replace(". /msfc/kdir/vm/guest/bench.sh", extra + ". /msfc/kdir/vm/guest/bench.sh")


def _fmt(x: float) -> str:
    return "nan" if math.isnan(x) else f"{x:.3g}" if abs(x) < 1 else f"{x:.2f}"


def tidy(rows: list[dict]) -> list[dict]:
    """The summary rows (row_of) flat, one column per figure: what ``--csv`` writes and the
    table is made from (docs/linux-testbed/nqb.csv)."""
    out = []
    for r in rows:
        flat = {k: r[k] for k in ("rate", "qdisc", "dscp")}
        flat.update({f"stream_{k}": v for k, v in r["stream"].items()})
        flat.update(packet_time_ms=r["packet_time_ms"], met=r["met"])
        flat.update({f"bulk_{k}": v for k, v in r["bulk"].items()})
        flat.update({f"{DEMOTIONS}_{d}": r[DEMOTIONS][d] for d in DEVICES})
        out.append(flat)
    return out


def _count(v) -> str:
    """A counter cell: "-" where the qdisc has no such counter (None; NaN read from a CSV)."""
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else str(int(v))


def table(rows: list[dict]) -> str:
    """The Markdown table of tidy rows (:func:`tidy`, or the rows of its CSV)."""
    head = (
        "| rate | qdisc | DSCP | RTT - base, ms (median) | RTT - base, ms (p99) | packet time, ms "
        "| p99 within a packet time | one way up - base/2, ms (p99) | bulk Mbit/s (8 flows) "
        "| nqb_demotions (up / down) |"
    )
    lines = [head, "|" + "---|" * 10]
    for r in rows:
        d = " / ".join(_count(r[f"{DEMOTIONS}_{k}"]) for k in DEVICES)
        lines.append(
            f"| {r['rate']} | {r['qdisc']} | {r['dscp']} | {_fmt(r['stream_med_ms'])} | "
            f"{_fmt(r['stream_p99_ms'])} | {_fmt(r['packet_time_ms'])} | "
            f"{'yes' if r['met'] else 'no'} | {_fmt(r['stream_up_p99_ms'])} | "
            f"{r['bulk_mbit']:.2f} | {d} |"
        )
    return "\n".join(lines)


def _order(rows: list[dict], rates: list[Rate], qdiscs: list[str], marks: list[int]):
    key = {
        "rate": {r.label: k for k, r in enumerate(rates)},
        "qdisc": {q: k for k, q in enumerate(qdiscs)},
        "dscp": {m: k for k, m in enumerate(marks)},
    }
    return sorted(rows, key=lambda r: tuple(key[c].get(r[c], len(key[c])) for c in key))


def finish(out: Path, done: list[tuple], rates, qdiscs, marks, csv_path: Path | None = None) -> str:
    """The raw records and studies of the finished runs ``done`` ((rate, qdisc, mark, the
    boot's JobResult with the test's length in files_meta["duration_s"])), OUT/summary.json,
    with ``csv_path`` its tidy rows there, and the table, which is returned."""
    rows, hashes = [], {}
    for rate, qdisc, mark, res in done:
        dur = int(res.files_meta["duration_s"])
        h, _ = record(out, rate, test_name(mark), qdisc, res, dur, RTT_MS)
        hashes.setdefault((rate, mark, dur), []).append((qdisc, h))
        rows.append(row_of(res.files, rate, qdisc, mark))
    for (rate, mark, dur), runs in hashes.items():
        _write_study(out, rate, test_name(mark), runs, dur, RTT_MS)
    rows = _order(rows, rates, qdiscs, marks)
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(rows, indent=1) + "\n")
    flat = tidy(rows)
    if csv_path:
        write_rows(csv_path, flat)
    return table(flat)


def convert(out: Path) -> list[tuple]:
    """The finished boots kept under OUT/<rate>/raw/nqb_dscp<mark>/<qdisc>/."""
    done = []
    for res_json in sorted(out.glob(f"*mbit/raw/{TEST}_dscp*/*/result.json")):
        job = res_json.parent
        qdisc, test, label = job.name, job.parent.name, job.parent.parent.parent.name
        mark = int(test[len(TEST) + len("_dscp") :])
        rate = Rate.from_label(label)
        res = _load(job)
        if res.exit_code != 0 or "duration_s" not in res.files_meta:
            print(f"msfc.linux.nqb: {job}: not a finished run, left out", file=sys.stderr)
            continue
        done.append((rate, qdisc, mark, res))
    if not done:
        raise ValueError(
            f"{out} holds no finished nqb runs (OUT/<rate>/raw/nqb_dscp<mark>/<qdisc>)"
        )
    return done


def run_one(rate: Rate, qdisc: str, mark: int, duration: int, out: Path, seed: int):
    """One boot; (rate, qdisc, mark, its JobResult)."""
    job = _job_dir(out, rate, test_name(mark), qdisc)
    res = uml.run_job(script(rate, qdisc, mark, duration), job, timeout=900, seed=seed)
    res.files_meta["duration_s"] = duration
    (job / "result.json").write_text(
        json.dumps({**res.files_meta, "exit_code": res.exit_code}, indent=1) + "\n"
    )
    if res.exit_code != 0:
        raise uml.MachineError(
            f"{qdisc} at {rate.text}, DSCP {mark}: job exit {res.exit_code}, see {job}/out/job.log"
        )
    where = f"{qdisc} at {rate.text}, DSCP {mark}"
    print(f"msfc.linux.nqb: {where}: {res.wall_seconds:.0f} s", file=sys.stderr)
    return rate, qdisc, mark, res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m msfc.linux.nqb", description=__doc__.split("\n")[0]
    )
    ap.add_argument(
        "--rates", default="2,20,100", help="Mbit/s, comma-separated (default 2,20,100)"
    )
    ap.add_argument(
        "--qdiscs",
        default=",".join(DEFAULT_QDISCS),
        help=f"names of msfc.linux.records.QDISCS (default {','.join(DEFAULT_QDISCS)})",
    )
    ap.add_argument(
        "--marks", default="45,0", help="DSCPs of the stream, one run each (default 45,0)"
    )
    ap.add_argument("--duration", type=int, default=30, help="seconds per run (default 30)")
    ap.add_argument("--out", default="results/linux-testbed/nqb")
    ap.add_argument("--seed", type=int, default=1, help="UML's fixed random stream (default 1)")
    ap.add_argument("--jobs", type=int, default=1, help="boots at a time (default 1)")
    ap.add_argument(
        "--csv",
        type=Path,
        help="also write the table's rows, one column per figure, to this CSV"
        " (docs/linux-testbed/nqb.csv)",
    )
    ap.add_argument(
        "--convert",
        action="store_true",
        help="no boot: records, summary and table again from the runs kept in --out",
    )
    a = ap.parse_args(argv)
    out = Path(a.out)
    try:
        rates, qdiscs, marks = parse_rates(a.rates), parse_qdiscs(a.qdiscs), parse_marks(a.marks)
        if a.duration <= 2 * MARGIN_S + 1:
            raise ValueError(f"--duration {a.duration}: give more than {2 * MARGIN_S + 1} s")
        if a.convert:
            done = convert(out)
        else:
            uml.check_ready()
            plan = [(r, q, m) for r in rates for q in qdiscs for m in marks]
            with ThreadPoolExecutor(max_workers=a.jobs) as pool:
                done = list(pool.map(lambda p: run_one(*p, a.duration, out, a.seed), plan))
        print(finish(out, done, rates, qdiscs, marks, a.csv))
    except (ValueError, uml.MachineError) as e:
        print(f"msfc.linux.nqb: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
