"""L4S beside Classic traffic in one msfc class, on real stacks in the UML testbed.

A DCTCP upload (the scalable sender the UML kernel has; Linux 6.12's DCTCP sends ECT(0), so
the flow is marked DSCP 4 and msfc_l4s's selector 0x12/0xff takes it) and a CUBIC upload
(DSCP 0, Not-ECT) share class 1 of msfc at the bottleneck toward the server (the l4s test of
kernel/vm/guest/bench.sh), through `msfc` and through `msfc_l4s` (`ce_threshold 1ms` for
that selector; records.MSFC_MODES) or, with --thresholds, the same selector at other
thresholds.  Per rate and qdisc: each flow's goodput at the server,
the senders' mean smoothed RTT above the 40 ms base (iperf3's mean_rtt: the queueing delay
each flow sees, with its delayed ACKs), and the bottleneck's counters.

    python -m msfc.linux.l4s [--rates 20,100] [--duration 30] [--thresholds 1ms,5ms]
                             [--out results/linux-testbed/l4s]

Writes OUT/<rate>/<qdisc>/ (the boot and the guest's files), OUT/summary.json and prints a
Markdown table (docs/linux-testbed.md, "L4S beside Classic").
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import records, uml
from .umlbench import bench_script, parse_rates

QDISCS = ("msfc", "msfc_l4s")
#: msfc_l4s's words with another threshold: "msfc_l4s@5ms"
SELECTOR = "ce_threshold_selector 0x12/0xff"
TEST = "l4s"
RTT_MS = 40
FLOWS = {"dctcp": "dctcp_dscp4", "cubic": "cubic_dscp0"}


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


def bottleneck_counters(tc_json: str) -> dict:
    """msfc's counters on the router's egress toward the server (tc -s -j qdisc show)."""
    for q in json.loads(tc_json):
        if q.get("kind") == "msfc":
            keys = ("codel_drops", "ecn_marks", "ce_threshold_marks", "drops")
            return {k: q.get(k, 0) for k in keys}
    return {}


def script(rate, qdisc: str, duration: int) -> str:
    """The job of one run: bench.sh's l4s test through `qdisc`, msfc_l4s@T being msfc_l4s
    with the threshold T."""
    if "@" not in qdisc:
        return bench_script(TEST, qdisc, rate, duration, RTT_MS)
    mode, threshold = qdisc.split("@")
    words = shlex.quote(f"ce_threshold {threshold} {SELECTOR}")
    text = bench_script(TEST, mode, rate, duration, RTT_MS)
    return re.sub(r"(?m)^(MSFC_ARGS_(?:UP|DOWN))=.*$", lambda m: f"{m.group(1)}={words}", text)


def run_one(rate, qdisc: str, duration: int, out: Path, seed: int) -> dict:
    job = out / rate.label / qdisc.replace("@", "-")
    res = uml.run_job(script(rate, qdisc, duration), job, timeout=900, seed=seed)
    if res.exit_code != 0:
        raise uml.MachineError(f"{qdisc} at {rate.text}: job exit {res.exit_code}, see {job}")
    row = {"rate": rate.label, "qdisc": qdisc}
    for name, label in FLOWS.items():
        row[name] = flow_figures(json.loads(res.text(f"{TEST}/{label}.iperf.json")))
    row["bottleneck"] = bottleneck_counters(res.text(f"{TEST}/tc_srv_r.json"))
    return row


def table(rows: list[dict]) -> str:
    head = (
        "| rate | qdisc | DCTCP Mbit/s | CUBIC Mbit/s | DCTCP share | DCTCP RTT - base, ms "
        "(mean) | CUBIC RTT - base, ms (mean) | ce_threshold_marks | codel_drops |"
    )
    lines = [head, "|" + "---|" * 9]
    for r in rows:
        d, c, b = r["dctcp"], r["cubic"], r["bottleneck"]
        lines.append(
            f"| {r['rate']} | {r['qdisc']} | {d['mbit']:.2f} | {c['mbit']:.2f} | "
            f"{d['mbit'] / (d['mbit'] + c['mbit']):.3f} | {d['mean_rtt_ms'] - RTT_MS:.2f} | "
            f"{c['mean_rtt_ms'] - RTT_MS:.2f} | {b.get('ce_threshold_marks', 0)} | "
            f"{b.get('codel_drops', 0)} |"
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
    a = ap.parse_args(argv)
    out = Path(a.out)
    assert records.MSFC_MODES["msfc_l4s"].endswith(SELECTOR)
    extra = [f"msfc_l4s@{t}" for t in a.thresholds.split(",") if t]
    plan = [(r, q) for r in parse_rates(a.rates) for q in (*QDISCS, *extra)]
    uml.check_ready()
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        rows = list(pool.map(lambda p: run_one(p[0], p[1], a.duration, out, a.seed), plan))
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
