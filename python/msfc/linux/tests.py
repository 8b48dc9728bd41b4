"""The deterministic UML testbed's tests, their raw records and summary tables.

``rrul``: Flent's own rrul (netperf: 4 TCP flows each way marked BE, CS1 (Flent's "BK"), CS5,
EF; its ICMP and UDP latency probes) from the client to the server through the router's
bottleneck, and at the same time a VoIP-like irtt stream (20 ms interval, 172-byte packets,
DSCP EF).  Flent's ``.flent.gz`` is kept as Flent wrote it; the irtt report and Flent's
TCP series become the project's raw records (docs/data-format.md) through msfc.testbed's
converters, so ``msfc report`` and ``msfc diff`` read them.
"""

from __future__ import annotations

import gzip
import json
import math
import shlex
import statistics
import sys
import time
from pathlib import Path

from .. import __version__
from .. import testbed as TB

#: qdisc name -> (kind for kernel/test/uml_testbed_net.sh, msfc words; "{low}" is replaced
#: by docs/kernel.md's CoDel setting below 4 Mbit/s, or nothing at higher rates)
QDISCS: dict[str, tuple[str, str]] = {
    "fq_codel": ("fq_codel", ""),
    "cake-diffserv4": ("cake", ""),
    "msfc": ("msfc", ""),
    # docs/algorithm.md "Recommended settings" (isolate left at flow: one client host)
    "msfc-recommended": ("msfc", "overload class weights exact boost on{low}"),
    # the same with the classes of a round in priority order (docs/algorithm.md)
    "msfc-priority": ("msfc", "overload class weights exact boost on order priority{low}"),
}
LOW_RATE_KBIT = 4000
LOW_RATE_WORDS = " target 15ms interval 150ms"
RTT_MS = 40
DURATION_S = 30
#: the irtt stream starts this long after Flent and ends this long before it
IRTT_MARGIN_S = 3
#: Flent's names of rrul's classes -> DSCP (rrul marks BE 0, BK CS1, CS5, EF)
FLENT_CLASSES = {"BE": 0, "BK": 8, "CS5": 40, "EF": 46}
CLASS_ORDER = ["EF", "CS5", "BE", "BK"]


def qdisc_words(qdisc: str, rate_kbit: int) -> tuple[str, str]:
    if qdisc not in QDISCS:
        raise ValueError(f"unknown qdisc {qdisc!r}: one of {', '.join(QDISCS)}")
    kind, words = QDISCS[qdisc]
    return kind, words.format(low=LOW_RATE_WORDS if rate_kbit < LOW_RATE_KBIT else "").strip()


def rrul_script(qdisc: str, rate_kbit: int, duration: int = DURATION_S, rtt_ms: int = RTT_MS):
    """The job (/job/run.sh) of one rrul run."""
    kind, words = qdisc_words(qdisc, rate_kbit)
    env = {
        "QDISC_KIND": kind,
        "QDISC_WORDS": words,
        "RATE": str(rate_kbit),
        "RTT_MS": str(rtt_ms),
        "DUR": str(duration),
        "IRTT_DELAY": str(IRTT_MARGIN_S),
        "IRTT_DUR": str(duration - 2 * IRTT_MARGIN_S),
        "NAME": f"rrul-{qdisc}-{rate_kbit}kbit",
    }
    lines = [f"{k}={shlex.quote(v)}" for k, v in env.items()]
    return "\n".join([*lines, ". /msfc/kdir/test/uml_testbed_rrul.sh", ""])


# --- Flent's data file ---------------------------------------------------------------------


def read_flent(raw: bytes) -> dict:
    """A .flent.gz (or plain JSON) file's content."""
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw)


def _values(series) -> list[float]:
    return [float(v) for v in series or [] if v is not None]


def flent_goodput(data: dict) -> dict[tuple[str, str], float]:
    """Mean goodput (Mbit/s) of each of rrul's TCP series: (direction, class) -> Mbit/s."""
    out = {}
    for name, series in data.get("results", {}).items():
        parts = name.split()
        if len(parts) == 3 and parts[0] == "TCP" and parts[1] in ("upload", "download"):
            if parts[2] in FLENT_CLASSES:
                v = _values(series)
                out[("up" if parts[1] == "upload" else "down", parts[2])] = (
                    statistics.fmean(v) if v else float("nan")
                )
    return out


def flent_pings(data: dict) -> dict[str, list[float]]:
    """rrul's latency probes (ms): series name ("Ping (ms) ICMP", "Ping (ms) UDP EF", ...) ->
    the values."""
    return {n: _values(s) for n, s in data.get("results", {}).items() if n.startswith("Ping (ms)")}


def flent_flows(data: dict, first_id: int, app_id: int) -> list[dict]:
    """flows.csv rows of rrul's TCP flows from Flent's series: bytes are the mean goodput
    times the test length (netperf's demo-mode samples carry rates, not byte counts)."""
    length = float(data.get("metadata", {}).get("LENGTH") or DURATION_S)
    rows = []
    for k, ((direction, cls), mbps) in enumerate(sorted(flent_goodput(data).items())):
        dscp = FLENT_CLASSES[cls]
        b = 0 if math.isnan(mbps) else round(mbps * 1e6 / 8 * length)
        cli, srv = ("10.0.1.1", 0), ("10.0.2.2", 0)
        src, dst = (cli, srv) if direction == "up" else (srv, cli)
        rows.append(
            TB._flow_row(
                flow_id=first_id + k,
                app_id=app_id,
                type=f"{direction}-{TB.DSCP_NAMES.get(dscp, dscp)}",
                priority=TB.msfc_class(dscp),
                direction=direction,
                protocol="TCP",
                src=src[0],
                dst=dst[0],
                src_port=src[1],
                dst_port=dst[1],
                tx_bytes=b,
                rx_bytes=b,
                last_tx_s=length,
                last_rx_s=length,
                active_s=length,
                kind="data",
                dscp=dscp,
            )
        )
    return rows


# --- raw records ---------------------------------------------------------------------------


def flent_file(files: dict[str, bytes]) -> str | None:
    names = sorted(n for n in files if n.endswith(".flent.gz"))
    return names[0] if names else None


def convert(files: dict[str, bytes], problems: list[str] | None = None):
    """flows.csv rows, delay histogram rows and RTT samples of one rrul run's guest output."""
    problems = [] if problems is None else problems
    flows, delays, rtts = [], {}, []
    fn = flent_file(files)
    if fn is None:
        problems.append("no .flent.gz: Flent did not finish (see flent.log)")
    else:
        flows.extend(flent_flows(read_flent(files[fn]), 1, 0))
    irtt = files.get("irtt_dscp46.irtt.json")
    if irtt is None:
        problems.append("no irtt_dscp46.irtt.json (see irtt_dscp46.err)")
    else:
        try:
            rows, delays, rtts = TB.irtt_flows(json.loads(irtt), "voip-EF", 1, len(flows) + 1)
            flows.extend(rows)
        except (TB.TestbedError, json.JSONDecodeError, KeyError) as e:
            problems.append(f"irtt_dscp46.irtt.json: {e}")
    return flows, TB._hist_rows(delays), rtts


def settings_of(rate_kbit: int, duration: int, rtt_ms: int) -> dict:
    return {"rate_kbit": rate_kbit, "rtt_ms": rtt_ms, "duration_s": duration, "testbed": "uml"}


def write_run(root: Path, test: str, qdisc: str, res, settings: dict) -> str:
    """One run directory of the study root/<test> in the project's raw format (as
    msfc.testbed.write_run, with Flent's TCP series); returns its hash."""
    from .. import runner
    from ..config import RunConfig

    problems: list[str] = []
    flows, hist, rtts = convert(res.files, problems)
    for p in problems:
        print(f"msfc.linux: {qdisc} {test}: {p}", file=sys.stderr)
    kind, words = qdisc_words(qdisc, int(settings["rate_kbit"]))
    resolved = {
        "scheduler": qdisc,
        "qdisc_words": words,
        **{k: str(v) for k, v in settings.items()},
    }
    cfg = RunConfig(scenario=f"uml-{test}", resolved=resolved)
    d = root / test / "runs" / cfg.hash()
    d.mkdir(parents=True, exist_ok=True)
    cols = ["flow_id", "bin_start_s", "bin_width_s", "count"]
    TB._write_csv(d / "flows.csv", flows, TB._FLOW_COLUMNS)
    TB._write_csv(d / "delay_hist.csv", hist, cols)
    TB._write_csv(d / "jitter_hist.csv", [], cols)
    TB._write_csv(
        d / "rtt.csv",
        [{"flow_id": f, "seqno": s, "rtt_s": r} for f, s, r in rtts],
        ["flow_id", "seqno", "rtt_s"],
    )
    for dev in ("cli_r", "srv_r"):
        raw = res.files.get(f"tc_{dev}.json")
        if raw is not None:
            (d / f"tc_{dev}.json").write_bytes(raw)
    t0 = float(res.text("start") or 0)
    t1 = float(res.text("stop") or 0)
    idle = float("nan")
    if "cpu_before" in res.files and "cpu_after" in res.files:
        idle = TB.guest_idle(
            {"t/cpu_before": res.files["cpu_before"], "t/cpu_after": res.files["cpu_after"]}, "t"
        )
    meta = {
        "scenario": cfg.scenario,
        "config": resolved,
        "scheduler": qdisc,
        "rng_run": 1,
        "rng_seed": 0,
        "ns3_version": None,
        "msfc_version": __version__,
        # the guest's (virtual) seconds from the first client to the last report
        "wall_seconds": round(t1 - t0, 3),
        "sim_seconds": float(settings["duration_s"]),
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "metrics_version": 1,
        "testbed": {
            **res.files_meta,
            "accel": "uml-time-travel",
            "guest_idle": None if math.isnan(idle) else round(idle, 3),
            "flent_file": flent_file(res.files),
            "reports_left_out": problems,
        },
    }
    runner.write_json_atomic(d / "meta.json", meta)
    runner.write_json_atomic(d / "config.json", cfg.to_json())
    runner.postprocess(d, cfg)
    return cfg.hash()


def write_study(out: Path, test: str, hashes: list[str], settings: dict) -> None:
    from .. import runner

    prev = out / test / "study.json"
    if prev.is_file():
        old = json.loads(prev.read_text())
        if old.get("testbed") == settings:
            hashes = [h for h in old["configs"] if h not in hashes] + hashes
    runner.write_study(
        out / test,
        {
            "kind": "compare",
            "scenario": f"uml-{test}",
            "configs": hashes,
            "direction": "down",
            "argv": [],
            "testbed": settings,
        },
        force=True,
    )


# --- summary -------------------------------------------------------------------------------


def quantile(xs: list[float], q: float) -> float:
    """Linear-interpolation quantile (numpy's default) of xs; NaN when empty."""
    if not xs:
        return float("nan")
    s = sorted(xs)
    pos = (len(s) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def summary(files: dict[str, bytes], rtt_ms: float = RTT_MS) -> dict:
    """One run's summary row: the EF voice stream's added RTT (irtt RTT minus the base RTT)
    median / p90 / p99 in ms and its loss, Flent's ICMP and UDP EF probes' added median, TCP
    goodput per direction and class (Mbit/s) and totals."""
    row: dict = {}
    raw = files.get("irtt_dscp46.irtt.json")
    rt = []
    if raw is not None:
        rep = json.loads(raw)
        trips = rep.get("round_trips", [])
        rt = [
            r["delay"]["rtt"] / 1e6 - rtt_ms
            for r in trips
            if r.get("lost") == "false" and "rtt" in r.get("delay", {})
        ]
        row["ef_sent"] = len(trips)
        row["ef_loss_pct"] = 100 * (1 - len(rt) / len(trips)) if trips else float("nan")
    for q, k in ((0.5, "ef_med"), (0.9, "ef_p90"), (0.99, "ef_p99")):
        row[k] = quantile(rt, q)
    fn = flent_file(files)
    if fn is not None:
        data = read_flent(files[fn])
        pings = flent_pings(data)
        for name, key in (("Ping (ms) ICMP", "icmp_med"), ("Ping (ms) UDP EF", "udp_ef_med")):
            row[key] = quantile(pings.get(name, []), 0.5) - rtt_ms
        gp = flent_goodput(data)
        for d in ("down", "up"):
            for c in CLASS_ORDER:
                row[f"{d}_{c}"] = gp.get((d, c), float("nan"))
            row[f"{d}_total"] = sum(gp.get((d, c), 0.0) for c in CLASS_ORDER)
    return row


SUMMARY_COLUMNS = [
    ("qdisc", "qdisc"),
    ("ef_med", "EF +med"),
    ("ef_p90", "EF +p90"),
    ("ef_p99", "EF +p99"),
    ("ef_loss_pct", "EF loss %"),
    ("icmp_med", "ICMP +med"),
    *[(f"down_{c}", f"down {c}") for c in CLASS_ORDER],
    ("down_total", "down total"),
    *[(f"up_{c}", f"up {c}") for c in CLASS_ORDER],
    ("up_total", "up total"),
    ("wall_s", "wall s"),
]


def _fmt(v) -> str:
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"
    return str(v)


def table(rows: list[dict]) -> str:
    """A Markdown table of summary rows (each with "qdisc")."""
    head = [h for _, h in SUMMARY_COLUMNS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(k, "")) for k, _ in SUMMARY_COLUMNS) + " |")
    return "\n".join(lines)


TABLE_NOTE = (
    "EF: the irtt voice stream (20 ms, 172 bytes, DSCP EF): round-trip time minus the base "
    "RTT, ms (median, p90, p99), and its loss. ICMP: Flent's ping, median minus the base RTT. "
    "Goodput: Flent's TCP series (mean Mbit/s) per class (BK = CS1), download and upload."
)
