"""The tests of the Linux testbeds and the conversion of their guests' reports into records.

The catalogue of the qemu testbed's benchmark (:data:`QDISCS`, the msfc modes of
:data:`MSFC_MODES` and :data:`MSFC_SHAPED_MODES`, :data:`TESTS`) and the converters both
testbeds share: iperf3 -J and irtt -o json reports become rows of flows.csv, delay
histograms and RTT samples, written as one run directory of a study in the project's raw
format (docs/data-format.md) with the run's meta.json (:func:`run_meta`), so that ``msfc
report`` and ``msfc diff`` read them.
"""

from __future__ import annotations

import csv
import json
import math
import os
import sys
import time
from pathlib import Path

from .. import __version__
from ..analysis import metrics as M
from ..model import params as P
from .qemu import READY_MARK, BootResult, TestbedError

#: docs/kernel.md's CoDel setting for links below LOW_RATE_KBIT, which the modes that name
#: "{low}" take at such rates (the qemu testbed's 2 Mbit/s among them)
LOW_RATE_KBIT = 4000
LOW_RATE_WORDS = "target 15ms interval 150ms"
#: msfc in the modes beyond the thesis (docs/algorithm.md): name -> the arguments after `msfc`
#: on tc's command line, the same in both testbeds (under the HTB shaper, as `msfc`) and in
#: make bench-linux-cost; a mode is one more line here. A mode whose words depend on the
#: direction maps each of DIRECTIONS to its words: "up" for the router's egress toward the
#: server (the clients' uploads), "down" for the one toward the clients (msfc_args()).
_RECOMMENDED = "overload class weights exact boost on {low}"
MSFC_MODES: dict[str, str | dict[str, str]] = {
    "msfc_boost": "boost on",
    "msfc_class": "overload class weights exact",
    "msfc_prevent": "inversion prevent",
    # docs/algorithm.md's recommended modes with docs/kernel.md's setting below 4 Mbit/s
    # (isolate left out: the thesis's per-flow fairness)
    "msfc_recommended": _RECOMMENDED,
    # the same with the classes of a round served in priority order
    "msfc_priority": f"{_RECOMMENDED} order priority",
    # the recommended modes with sparse flows ahead of the class round (boost across)
    "msfc_across": "overload class weights exact boost across {low}",
    # and with the classes of a round in priority order
    "msfc_across_priority": "overload class weights exact boost across order priority {low}",
    # an operator's replacement of cake diffserv4: its four classes (CS1 / best effort / CS2
    # and CS3 / CS4 to CS7 and EF) with quanta in its tins' proportions (bulk 1/16, best
    # effort 1, video 1/2, voice 1/4), so a flood of the top class is held near cake's share
    "msfc_ds4": "prios 4 quanta 95,1514,757,378 overload class weights exact boost across {low}",
    # the same, fair per client host first: by the source address upstream, by the
    # destination address downstream (docs/kernel.md's cookbook for an access router)
    "msfc_isolate": {"up": f"{_RECOMMENDED} isolate src", "down": f"{_RECOMMENDED} isolate dst"},
    # the recommended modes with boost across and automatic priorities for unmarked traffic
    # (docs/algorithm.md, "Automatic priorities"): the class of a packet marked 0 follows its
    # flow's behaviour
    "msfc_auto": "overload class weights exact boost across auto unmarked {low}",
    # L4S marking (docs/algorithm.md, "L4S marking") for the packets of DSCP 4 that are
    # ECT(0): the l4s test's DCTCP flow (Linux 6.12's DCTCP sends ECT(0), not ECT(1)), which
    # the default selector (ECT(1)) would not take; CUBIC beside it is left to CoDel.  With
    # the recommended modes (boost on: a flow whose queue emptied goes ahead of the class's
    # backlogged flows) at docs/kernel.md's 1.5 ms
    "msfc_l4s": f"{_RECOMMENDED} ce_threshold 1500us ce_threshold_selector 0x12/0xff",
    # the same marking in the thesis mode at fq_codel's 1 ms
    "msfc_l4s_thesis": "ce_threshold 1ms ce_threshold_selector 0x12/0xff",
}
#: msfc with its own shaper at the root, no HTB parent (docs/kernel.md, "Built-in shaper"):
#: name -> the words after `msfc bandwidth RATE` (net.sh's bottleneck() puts the rate, as
#: for cake); a mode is one more line here, its name starts with SHAPED_PREFIX (which is how
#: net.sh tells it from an MSFC_MODES mode).  No low-rate CoDel words (msfc_args() gives
#: them none): with a bandwidth and no target msfc scales CoDel's target and interval to the
#: rate itself.
SHAPED_PREFIX = "msfc_bw_"
MSFC_SHAPED_MODES: dict[str, str | dict[str, str]] = {
    # tc's preset for cake diffserv4's four classes: beside `cake bandwidth R diffserv4`
    "msfc_bw_ds4": "diffserv4",
    # the recommended modes on three classes with automatic priorities for unmarked traffic
    "msfc_bw_auto": "diffserv3 auto unmarked",
}
DIRECTIONS = ("up", "down")


def _mode_words(mode: str) -> str | dict[str, str]:
    return MSFC_MODES[mode] if mode in MSFC_MODES else MSFC_SHAPED_MODES[mode]


def is_msfc_mode(qdisc: str) -> bool:
    """Whether ``qdisc`` is msfc with words of its own: an MSFC_MODES or MSFC_SHAPED_MODES
    mode (msfc_args() gives them)."""
    return qdisc in MSFC_MODES or qdisc in MSFC_SHAPED_MODES


def msfc_args(mode: str, direction: str, rate_kbit: int = 0) -> str:
    """The words after `msfc` of an MSFC_MODES mode on the router's egress of ``direction``
    at ``rate_kbit`` (below LOW_RATE_KBIT, the default 0 among them, with LOW_RATE_WORDS),
    or those after `msfc bandwidth RATE` of an MSFC_SHAPED_MODES mode (never with
    LOW_RATE_WORDS)."""
    words = _mode_words(mode)
    words = words if isinstance(words, str) else words[direction]
    low = LOW_RATE_WORDS if rate_kbit < LOW_RATE_KBIT and mode in MSFC_MODES else ""
    return " ".join(words.format(low=low).split())


def msfc_env(qdisc: str, down_kbit: int = 0, up_kbit: int | None = None) -> dict[str, str]:
    """The job variables MSFC_ARGS_UP and MSFC_ARGS_DOWN through which the guests' net.sh
    puts `msfc <words>` under the shaper for an MSFC_MODES mode, or `msfc bandwidth RATE
    <words>` at the root for an MSFC_SHAPED_MODES mode (empty for other qdiscs), each
    direction's words at its own rate (msfc_args(); ``up_kbit`` is ``down_kbit`` unless
    given)."""
    up = down_kbit if up_kbit is None else up_kbit
    return {
        f"MSFC_ARGS_{d.upper()}": msfc_args(qdisc, d, r) if is_msfc_mode(qdisc) else ""
        for d, r in (("up", up), ("down", down_kbit))
    }


#: the qdiscs both testbeds set up (kinds of kernel/vm/guest/net.sh's bottleneck())
QDISCS = [
    "msfc",
    "msfc_lowrate",
    *MSFC_MODES,
    *MSFC_SHAPED_MODES,
    "cake_ds3",
    "cake_ds4",
    "cake_ds4_dual",
    "cake_be",
    "sqm",
    "fq_codel",
    "fq_pie",
    "pfifo_fast",
]
TESTS = ["rrul", "shares", "cubic_bbr", "dos_same", "dos_lower", "dos_higher", "hosts"]
#: the hosts test: host A runs one TCP flow each way, host B this many
HOST_B_FLOWS = 10
DSCP_NAMES = {
    0: "BE",
    8: "CS1",
    16: "CS2",
    24: "CS3",
    32: "CS4",
    34: "AF41",
    40: "CS5",
    45: "NQB",
    46: "EF",
    48: "CS6",
    56: "CS7",
}
HIST_BIN_S = 0.0005  # the delay histogram's bin width, as the ns-3 scenarios' default


def msfc_class(dscp: int, prios: int = 3) -> int | str:
    """The class msfc gives a DSCP under its default map (msfc.model.params: CS1 -> 0; other
    precedence 0 and 1, and NQB, -> 1; precedence k -> k; LE -> the lane, "le"), clamped to
    prios - 1."""
    return P.default_class(dscp, prios)


def _flow_row(**kw) -> dict:
    row = dict.fromkeys(_FLOW_COLUMNS, 0)
    row.update(kw)
    return row


# flows.csv: the simulations' columns (msfc.analysis.metrics) and what a testbed flow adds.
_FLOW_COLUMNS = M.FLOW_FILE_COLUMNS


def iperf_flows(report: dict, label: str, app_id: int, first_id: int) -> list[dict]:
    """flows.csv rows of one iperf3 -J client report: one per stream. TCP: bytes only (iperf3
    counts no packets); UDP: packets and losses as the server reported them."""
    st = report.get("start", {})
    test = st.get("test_start", {})
    if "end" not in report or not report["end"].get("streams"):
        raise TestbedError(f"iperf3 report of {label} has no results: {report.get('error', '?')}")
    reverse = bool(test.get("reverse"))
    tos = int(test.get("tos", 0))
    dscp = tos >> 2
    conn = {c["socket"]: c for c in st.get("connected", [])}
    rows = []
    for k, s in enumerate(report["end"]["streams"]):
        udp = "udp" in s
        sock = (s["udp"] if udp else s["sender"])["socket"]
        c = conn.get(sock, {})
        cli = (c.get("local_host", ""), c.get("local_port", 0))
        srv = (c.get("remote_host", ""), c.get("remote_port", 0))
        src, dst = (srv, cli) if reverse else (cli, srv)
        common = {
            "flow_id": first_id + k,
            "app_id": app_id,
            "type": label,
            "priority": msfc_class(dscp),
            "direction": "down" if reverse else "up",
            "src": src[0],
            "dst": dst[0],
            "src_port": src[1],
            "dst_port": dst[1],
            "kind": "data",
            "dscp": dscp,
        }
        if udp:
            u = s["udp"]
            per = u["bytes"] / u["packets"] if u["packets"] else 0
            rx = u["packets"] - u["lost_packets"]
            rows.append(
                _flow_row(
                    **common,
                    protocol="UDP",
                    tx_packets=u["packets"],
                    tx_bytes=u["bytes"],
                    rx_packets=rx,
                    rx_bytes=round(rx * per),
                    lost_packets=u["lost_packets"],
                    last_tx_s=u["seconds"],
                    active_s=u["seconds"],
                )
            )
        else:
            rows.append(
                _flow_row(
                    **common,
                    protocol="TCP",
                    tx_bytes=s["sender"]["bytes"],
                    rx_bytes=s["receiver"]["bytes"],
                    last_tx_s=s["sender"]["seconds"],
                    last_rx_s=s["receiver"]["seconds"],
                    active_s=s["receiver"]["seconds"],
                )
            )
    return rows


def irtt_flows(report: dict, label: str, app_id: int, first_id: int):
    """Two flows.csv rows (up: client to server, down: back) of one irtt -o json report, their
    one-way delays (the guest's namespaces share one clock) and the round-trip times."""
    cfg = report.get("config", {})
    dscp = int(cfg.get("params", {}).get("dscp", 0)) >> 2
    cli_h, _, cli_p = cfg.get("local_address", ":0").rpartition(":")
    srv_h, _, srv_p = cfg.get("remote_address", ":0").rpartition(":")
    rts = report.get("round_trips", [])
    params = cfg.get("params", {})
    ran = report.get("stats", {}).get("duration", 0)
    if not rts or ran < params.get("duration", 0) / 2:
        # the client gave up (seen under emulation on a loaded host): not a loss figure. A
        # client that ran its time but sent fewer packets (timer misses) is kept.
        raise TestbedError(
            f"irtt report of {label}: the client stopped after {ran / 1e9:.1f} s "
            f"({len(rts)} round trips)"
        )
    dur = report["stats"]["duration"] / 1e9
    rows, delays, rtts = [], {}, []
    for k, (direction, key, ipdv) in enumerate(
        (("up", "send", "send"), ("down", "receive", "receive"))
    ):
        fid = first_id + k
        # up: every packet sent; it arrived unless lost "true" or "true_up"
        sent = (
            len(rts)
            if direction == "up"
            else sum(1 for r in rts if r["lost"] in ("false", "true_down"))
        )
        got = [
            r
            for r in rts
            if r["lost"] == "false" or (direction == "up" and r["lost"] == "true_down")
        ]
        d = [r["delay"][key] / 1e9 for r in got if key in r.get("delay", {})]
        j = [abs(r["ipdv"][ipdv]) / 1e9 for r in got if ipdv in r.get("ipdv", {})]
        src, dst = (
            ((cli_h, cli_p), (srv_h, srv_p))
            if direction == "up"
            else ((srv_h, srv_p), (cli_h, cli_p))
        )
        rows.append(
            _flow_row(
                flow_id=fid,
                app_id=app_id,
                type=label,
                priority=msfc_class(dscp),
                direction=direction,
                protocol="UDP",
                src=src[0],
                dst=dst[0],
                src_port=int(src[1] or 0),
                dst_port=int(dst[1] or 0),
                tx_packets=sent,
                tx_bytes=sent * 172,
                rx_packets=len(d),
                rx_bytes=len(d) * 172,
                lost_packets=sent - len(d),
                delay_sum_s=sum(d),
                jitter_sum_s=sum(j),
                last_tx_s=dur,
                active_s=dur,
                kind="data",
                dscp=dscp,
            )
        )
        delays[fid] = d
    rtts = [
        (first_id, r["seqno"], r["delay"]["rtt"] / 1e9)
        for r in rts
        if r["lost"] == "false" and "rtt" in r.get("delay", {})
    ]
    return rows, delays, rtts


def _hist_rows(delays: dict[int, list[float]]) -> list[dict]:
    rows = []
    for fid, d in delays.items():
        counts: dict[int, int] = {}
        for x in d:
            b = int(x // HIST_BIN_S)
            counts[b] = counts.get(b, 0) + 1
        for b in sorted(counts):
            rows.append(
                {
                    "flow_id": fid,
                    "bin_start_s": round(b * HIST_BIN_S, 6),
                    "bin_width_s": HIST_BIN_S,
                    "count": counts[b],
                }
            )
    return rows


def _cpu(text: str) -> tuple[float, float]:
    """(busy, idle) jiffies of /proc/stat's first line."""
    v = [float(x) for x in text.split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    return sum(v[:8]) - idle, idle


def guest_idle(files: dict[str, bytes], prefix: str) -> float:
    b0, i0 = _cpu(files[f"{prefix}/cpu_before"].decode())
    b1, i1 = _cpu(files[f"{prefix}/cpu_after"].decode())
    total = (b1 - b0) + (i1 - i0)
    return (i1 - i0) / total if total > 0 else float("nan")


def convert_test(files: dict[str, bytes], test: str, problems: list[str] | None = None):
    """flows.csv rows, delay and jitter histogram rows, RTT samples of one test's guest output."""
    flows, delays, rtts = [], {}, []
    problems = [] if problems is None else problems
    names = sorted(
        n for n in files if n.startswith(f"{test}/") and n.endswith((".iperf.json", ".irtt.json"))
    )
    if not names:
        raise TestbedError(f"the guest wrote no reports for {test} (see its job.log)")
    for app_id, n in enumerate(names):
        base = n.split("/", 1)[1].split(".", 1)[0]  # e.g. up_dscp46, irtt_dscp0, ten_dscp8
        what, _, d = base.rpartition("_dscp")
        dscp = int(d)
        label = f"{what}-{DSCP_NAMES.get(dscp, dscp)}"
        first = len(flows) + 1
        try:
            report = json.loads(files[n])
            if n.endswith(".irtt.json"):
                rows, dl, rt = irtt_flows(report, label, app_id, first)
                delays.update(dl)
                rtts.extend(rt)
            else:
                rows = iperf_flows(report, label, app_id, first)
        except (TestbedError, json.JSONDecodeError, KeyError) as e:
            # one client that failed (e.g. never got through the flood) must not lose the rest
            err = files.get(n.split(".", 1)[0] + ".err", b"").decode("utf-8", "replace")
            problems.append(f"{n}: {e} {err.strip()[:200]}".strip())
            continue
        flows.extend(rows)
    return flows, _hist_rows(delays), rtts


def _write_csv(path: Path, rows: list[dict], columns: list[str]) -> None:
    """rows as a CSV of `columns`, written whole or not at all; a cell holding a comma or a
    quote is quoted (a profile group such as "probe (packet set-up, lock)")."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        w.writerows([str(r.get(c, "")) for c in columns] for r in rows)
    os.replace(tmp, path)


def run_meta(cfg, qdisc: str, wall_seconds: float, settings: dict, testbed: dict) -> dict:
    """meta.json of one testbed run (docs/data-format.md) of ``qdisc``: ``cfg`` is the run's
    RunConfig (its scenario and resolved options), ``wall_seconds`` the guest's seconds from
    the first client's start to the last report, ``settings["duration_s"]`` the test's length
    and ``testbed`` what the testbed adds (boot, guest load, reports left out)."""
    return {
        "scenario": cfg.scenario,
        "config": cfg.resolved,
        "scheduler": qdisc,
        "rng_run": 1,
        "rng_seed": 0,
        "ns3_version": None,
        "msfc_version": __version__,
        "wall_seconds": round(wall_seconds, 3),
        "sim_seconds": float(settings["duration_s"]),
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "metrics_version": 1,
        "testbed": testbed,
    }


def write_run(
    root: Path, test: str, qdisc: str, res: BootResult, settings: dict, testbed: str = "linux"
) -> str:
    """One run directory of the study root/<test> in the project's raw format (scenario
    ``<testbed>-<test>``); returns its hash."""
    from ..sim import runner
    from ..sim.config import RunConfig

    problems: list[str] = []
    flows, hist, rtts = convert_test(res.files, test, problems)
    for p in problems:
        print(f"testbed bench: {qdisc} {test}: report left out: {p}", file=sys.stderr)
    resolved = {"scheduler": qdisc, **{k: str(v) for k, v in settings.items()}}
    cfg = RunConfig(scenario=f"{testbed}-{test}", resolved=resolved)
    d = root / test / "runs" / cfg.hash()
    d.mkdir(parents=True, exist_ok=True)
    _write_csv(d / "flows.csv", flows, _FLOW_COLUMNS)
    _write_csv(d / "delay_hist.csv", hist, ["flow_id", "bin_start_s", "bin_width_s", "count"])
    _write_csv(d / "jitter_hist.csv", [], ["flow_id", "bin_start_s", "bin_width_s", "count"])
    _write_csv(
        d / "rtt.csv",
        [{"flow_id": f, "seqno": s, "rtt_s": r} for f, s, r in rtts],
        ["flow_id", "seqno", "rtt_s"],
    )
    for dev in ("cli_r", "srv_r"):
        for name in (f"tc_{dev}.json", f"tc_class_{dev}_warm.json", f"tc_class_{dev}.json"):
            raw = res.files.get(f"{test}/{name}")
            if raw is not None:
                (d / name).write_bytes(raw)
    t0 = float(res.text(f"{test}/start") or 0)
    t1 = float(res.text(f"{test}/stop") or 0)
    meta = run_meta(
        cfg,
        qdisc,
        t1 - t0,
        settings,
        {
            **res.files_meta,
            "guest_idle": round(guest_idle(res.files, test), 3),
            "reports_left_out": problems,
            **{
                f"class_shares_{d}": class_shares(
                    res.files.get(f"{test}/tc_class_{dev}_warm.json"),
                    res.files.get(f"{test}/tc_class_{dev}.json"),
                    res.files.get(f"{test}/tc_{dev}.json"),
                )
                for d, dev in (("up", "srv_r"), ("down", "cli_r"))
            },
        },
    )
    runner.write_json_atomic(d / "meta.json", meta)
    runner.write_json_atomic(d / "config.json", cfg.to_json())
    runner.postprocess(d, cfg)
    return cfg.hash()


def class_shares(
    warm: bytes | None, end: bytes | None, qdiscs: bytes | None = None
) -> list[float] | None:
    """The share of the bytes msfc's classes sent between two ``tc -s -j class show``
    snapshots of one device (bench.sh's class_stats: after the first third of a test and at
    its end), class 1 first; None without both snapshots or without msfc classes.
    ``qdiscs``: ``tc -s -j qdisc show`` of the device, whose msfc ``prios`` leaves out the
    least-effort lane, which tc lists as class prios + 1 (not a class of the round; a kernel
    without the lane lists no such class)."""
    if not warm or not end:
        return None
    try:
        prios = _msfc_prios(qdiscs)
        sent = [
            {
                c["handle"]: c["stats"]["bytes"]
                for c in json.loads(raw)
                if c.get("class") == "msfc"
                and int(c["handle"].split(":")[1], 16) <= prios.get(c["handle"].split(":")[0], 16)
            }
            for raw in (warm, end)
        ]
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
        return None
    handles = sorted(sent[1], key=lambda h: int(h.split(":")[1], 16))
    delta = [sent[1][h] - sent[0].get(h, 0) for h in handles]
    total = sum(delta)
    return [round(x / total, 5) for x in delta] if handles and total > 0 else None


def _msfc_prios(qdiscs: bytes | None) -> dict[str, int]:
    """The prios of each msfc qdisc of ``tc -s -j qdisc show`` by its handle's major ("10")."""
    if not qdiscs:
        return {}
    return {
        q["handle"].split(":")[0]: int(q["options"]["prios"])
        for q in json.loads(qdiscs)
        if q.get("kind") == "msfc" and "prios" in q.get("options", {})
    }


def jain(xs: list[float]) -> float:
    """Jain's index (msfc.analysis.metrics) of the shares that were measured; NaN when none was."""
    kept = [x for x in xs if not math.isnan(x)]
    return M.jain_index(kept) if kept and any(kept) else float("nan")


def study_direction(test: str) -> str:
    """The direction a test's study reports first: the download for the tests with TCP both
    ways (rrul, rrul_cs8, rrul_be), the upload for the others."""
    return "down" if test in ("rrul", "rrul_cs8", "rrul_be") else "up"


def write_study(
    out: Path, test: str, hashes: list[str], settings: dict, testbed: str = "linux"
) -> None:
    """OUT/<test>/study.json of one test of a testbed (scenario ``<testbed>-<test>``); a
    later call with other qdiscs but the same settings adds its runs to the study."""
    from ..sim import runner

    prev = out / test / "study.json"
    if prev.is_file():
        old = json.loads(prev.read_text())
        if old.get("testbed") == settings:
            hashes = [h for h in old["configs"] if h not in hashes] + hashes
    runner.write_study(
        out / test,
        {
            "kind": "compare",
            "scenario": f"{testbed}-{test}",
            "configs": hashes,
            "direction": study_direction(test),
            "argv": [],
            "testbed": settings,
        },
        force=True,
    )


def _write_studies(out: Path, hashes: dict[str, list[str]], settings: dict) -> None:
    for t, hs in hashes.items():
        write_study(out, t, hs, settings)


def _kernel_of(res: BootResult) -> str:
    for ln in res.log.splitlines():
        if READY_MARK in ln:
            return ln.split("kernel ")[1].split(",")[0]
    return "?"


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    if not xs:
        return float("nan")
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else (xs[m - 1] + xs[m]) / 2
