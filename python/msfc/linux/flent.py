"""The deterministic UML testbed's tests (Flent), their raw records and summary tables.

``rrul``: Flent's own rrul (netperf: 4 TCP flows each way marked BE, CS1 (Flent's "BK"), CS5,
EF; its ICMP and UDP latency probes) from the client to the server through the router's
bottleneck, and at the same time a VoIP-like irtt stream (20 ms interval, 172-byte packets,
DSCP EF).  ``rrul_be`` is Flent's rrul with every mark washed to 0 (4 TCP flows each way and
three UDP probes, all CS0); its voice stream is unmarked too (TESTS' voice_dscp,
voice_stream()).  Flent's ``.flent.gz`` is kept as Flent wrote it; the irtt report and
Flent's TCP series become the project's raw records (docs/data-format.md) through the
converters of msfc.linux.records, so ``msfc report`` and ``msfc diff`` read them.
"""

from __future__ import annotations

import gzip
import json
import math
import shlex
import statistics
import sys
from pathlib import Path
from typing import NamedTuple

from . import records as R
from .qemu import TestbedError

RTT_MS = 40
#: the client's and the server's address in kernel/vm/guest/net.sh's namespaces
CLIENT, SERVER = "10.0.1.1", "10.0.2.2"
DURATION_S = 30
#: Flent starts its TCP flows this long after the test (its --delay, default 5 s) and stops
#: them this long before its end
FLENT_DELAY_S = 5
#: the irtt stream starts this long after Flent's TCP flows and ends this long before them
IRTT_MARGIN_S = 3
#: the DSCP of the voice stream (the irtt stream beside Flent's test) unless a test says otherwise
EF = 46


class FlentTest(NamedTuple):
    """A Flent test of the UML testbed: Flent's own test, tcp_nup's upload streams, and the
    DSCP the voice stream beside it is sent with (uml_testbed_flent.sh's IRTT_DSCP)."""

    flent: str
    uploads: int | None = None
    voice_dscp: int = EF


#: the Flent tests of the UML testbed by name
TESTS: dict[str, FlentTest] = {
    "rrul": FlentTest("rrul"),
    "rrul_cs8": FlentTest("rrul_cs8"),
    # every mark washed to 0: Flent's rrul_be and an unmarked voice stream
    "rrul_be": FlentTest("rrul_be", voice_dscp=0),
    "tcp_1up": FlentTest("tcp_nup", 1),
    "tcp_4up": FlentTest("tcp_nup", 4),
    "tcp_16up": FlentTest("tcp_nup", 16),
}
#: Flent's names of its series' classes -> DSCP (rrul: BE 0, BK CS1, CS5, EF; rrul_cs8:
#: CS0_BE, CS1_BK, CS2 .. CS7; rrul_be: TCP BE, BE2 .. BE4 and UDP probes BE1 .. BE3, all
#: CS0); tcp_nup's series ("TCP upload::N") are best effort
FLENT_CLASSES = {
    "BE": 0,
    "BK": 8,
    "CS5": 40,
    "EF": 46,
    "CS0_BE": 0,
    "CS1_BK": 8,
    **{f"CS{k}": 8 * k for k in range(2, 8)},
    **{f"BE{k}": 0 for k in range(1, 5)},
}
#: the summary's class columns, most important first (DSCP names of records.DSCP_NAMES)
CLASS_ORDER = ["CS7", "CS6", "EF", "CS5", "CS4", "CS3", "CS2", "BE", "CS1"]


def voice_dscp(test: str) -> int:
    """The DSCP of the voice stream beside the Flent test ``test`` (EF for a name that is
    not one of TESTS)."""
    t = TESTS.get(test)
    return EF if t is None else t.voice_dscp


def voice_class(test: str) -> str:
    """The DSCP name (records.DSCP_NAMES) of ``test``'s voice stream: "EF", rrul_be's "BE"."""
    d = voice_dscp(test)
    return R.DSCP_NAMES.get(d, str(d))


def voice_stream(test: str) -> str:
    """The type of ``test``'s voice stream in the raw records (flows.csv): "voip-EF",
    rrul_be's "voip-BE"."""
    return f"voip-{voice_class(test)}"


def voice_report(test: str) -> str:
    """The name of ``test``'s voice stream's irtt report in the guest's output (the job's
    IRTT_DSCP in it): "irtt_dscp46.irtt.json", rrul_be's "irtt_dscp0.irtt.json"."""
    return f"irtt_dscp{voice_dscp(test)}.irtt.json"


def flent_script(
    test: str,
    qdisc: str,
    rate_kbit: int,
    rate_up_kbit: int | None = None,
    duration: int = DURATION_S,
    rtt_ms: int = RTT_MS,
) -> str:
    """The job (/job/run.sh) of one Flent test (a name of TESTS) through ``qdisc`` (one of
    records.QDISCS) at ``rate_kbit`` toward the clients and ``rate_up_kbit`` (the same unless
    given) toward the server."""
    if test not in TESTS:
        raise ValueError(f"unknown Flent test {test!r}: one of {', '.join(TESTS)}")
    if qdisc not in R.QDISCS:
        raise ValueError(f"unknown qdisc {qdisc!r}: one of {', '.join(R.QDISCS)}")
    up = rate_up_kbit or rate_kbit
    flent_test, uploads, dscp = TESTS[test]
    env = {
        "TEST": flent_test,
        "QDISC": qdisc,
        **R.msfc_env(qdisc, rate_kbit, up),
        "RATE": str(rate_kbit),
        "RATE_UP": str(up),
        "RTT_MS": str(rtt_ms),
        "DUR": str(duration),
        "UPLOADS": str(uploads or 0),
        "FLENT_DELAY": str(FLENT_DELAY_S),
        "IRTT_DELAY": str(FLENT_DELAY_S + IRTT_MARGIN_S),
        "IRTT_DUR": str(duration - 2 * IRTT_MARGIN_S),
        "IRTT_DSCP": str(dscp),
        "NAME": f"{test}-{qdisc}-{rate_kbit}-{up}kbit",
    }
    lines = [f"{k}={shlex.quote(v)}" for k, v in env.items()]
    return "\n".join(
        [
            *lines,
            ". /msfc/kdir/test/uml_testbed_flent.sh",
            "",
        ]
    )


# --- Flent's data file ---------------------------------------------------------------------


def read_flent(raw: bytes) -> dict:
    """A .flent.gz (or plain JSON) file's content."""
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw)


def _values(series) -> list[float]:
    return [float(v) for v in series or [] if v is not None]


def _tcp_series(name: str) -> tuple[str, str] | None:
    """(direction, class label) of one of Flent's per-flow TCP series, None for the others
    (sums, averages, pings): "TCP upload EF" -> ("up", "EF"), "TCP upload::3" -> ("up",
    "::3")."""
    if not name.startswith("TCP "):
        return None
    rest = name[4:]
    for word, d in (("upload", "up"), ("download", "down")):
        if rest.startswith(word + "::"):
            return d, rest[len(word) :]
        if rest.startswith(word + " ") and rest[len(word) + 1 :] in FLENT_CLASSES:
            return d, rest[len(word) + 1 :]
    return None


def _dscp(label: str) -> int:
    return 0 if label.startswith("::") else FLENT_CLASSES[label]


def flent_goodput(data: dict) -> dict[tuple[str, str], float]:
    """Mean goodput (Mbit/s) of each of Flent's per-flow TCP series: (direction, Flent's
    class label or "::N") -> Mbit/s."""
    out = {}
    for name, series in data.get("results", {}).items():
        key = _tcp_series(name)
        if key is not None:
            v = _values(series)
            out[key] = statistics.fmean(v) if v else float("nan")
    return out


def class_goodput(data: dict) -> dict[tuple[str, str], float]:
    """Goodput (Mbit/s) per direction and DSCP name (records.DSCP_NAMES) of Flent's TCP
    series, the flows of a class added up."""
    out: dict[tuple[str, str], float] = {}
    for (d, label), v in flent_goodput(data).items():
        name = R.DSCP_NAMES.get(_dscp(label), str(_dscp(label)))
        if not math.isnan(v):
            out[(d, name)] = out.get((d, name), 0.0) + v
    return out


def load_window(data: dict) -> tuple[float, float] | None:
    """The seconds of a Flent test in which its TCP flows run: Flent starts them DELAY s
    after its pings and stops them DELAY s before the end (TOTAL_LENGTH = LENGTH + 2 DELAY);
    None when the file does not say."""
    meta = data.get("metadata", {})
    length, total = meta.get("LENGTH"), meta.get("TOTAL_LENGTH")
    if not isinstance(length, (int, float)) or not isinstance(total, (int, float)):
        return None
    delay = (total - length) / 2
    return delay, delay + length


def flent_pings(data: dict) -> dict[str, list[float]]:
    """Flent's latency probes (ms) while its TCP flows run (load_window; the whole series
    when the file has no time axis): series name ("Ping (ms) ICMP", "Ping (ms) UDP EF",
    ...) -> the values."""
    window = load_window(data)
    xs = data.get("x_values")
    out = {}
    for name, series in data.get("results", {}).items():
        if not name.startswith("Ping (ms)"):
            continue
        if window is not None and isinstance(xs, list) and len(xs) == len(series or []):
            series = [v for x, v in zip(xs, series, strict=True) if window[0] <= x <= window[1]]
        out[name] = _values(series)
    return out


def flent_flows(data: dict, first_id: int, app_id: int) -> list[dict]:
    """flows.csv rows of rrul's TCP flows from Flent's series: bytes are the mean goodput
    times the test length (netperf's demo-mode samples carry rates, not byte counts)."""
    length = float(data.get("metadata", {}).get("LENGTH") or DURATION_S)
    rows = []
    for k, ((direction, cls), mbps) in enumerate(sorted(flent_goodput(data).items())):
        dscp = _dscp(cls)
        b = 0 if math.isnan(mbps) else round(mbps * 1e6 / 8 * length)
        src, dst = (CLIENT, SERVER) if direction == "up" else (SERVER, CLIENT)
        rows.append(
            R._flow_row(
                flow_id=first_id + k,
                app_id=app_id,
                type=f"{direction}-{R.DSCP_NAMES.get(dscp, dscp)}",
                priority=R.msfc_class(dscp),
                direction=direction,
                protocol="TCP",
                src=src,
                dst=dst,
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


def _t0(data: dict) -> float | None:
    """The test's start (Flent's T0, seconds since the epoch); None when the file lacks it."""
    import datetime as dt

    t0 = data.get("metadata", {}).get("T0")
    if not isinstance(t0, str):
        return None
    try:
        return dt.datetime.fromisoformat(t0.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _probe_class(name: str) -> str | None:
    """The class label of one of Flent's UDP latency probes ("Ping (ms) UDP EF" -> "EF",
    rrul_cs8's "Ping (ms) UDP CS0_BE" -> "CS0_BE"); None for ICMP and the average."""
    prefix = "Ping (ms) UDP "
    label = name[len(prefix) :] if name.startswith(prefix) else None
    return label if label in FLENT_CLASSES else None


def flent_probes(data: dict, first_id: int, app_id: int):
    """flows.csv rows, one-way delays and round-trip times of Flent's UDP latency probes
    (irtt, one stream per class, every STEP_SIZE seconds) while the TCP flows run.

    Each class gives an ``up`` and a ``down`` row of kind ``probe`` with the probes' one-way
    delays (Flent keeps irtt's owd_up and owd_down); the round-trip times go to rtt.csv under
    the ``up`` row's flow_id with irtt's sequence numbers.  A probe whose sequence number is
    missing between the first and last one of the load window was lost; Flent's records do not
    say in which direction, so the loss is counted on the ``up`` row."""
    raw = data.get("raw_values") or {}
    window = load_window(data)
    t0 = _t0(data)
    rows, delays, rtts = [], {}, []
    fid = first_id
    order = {c: k for k, c in enumerate(CLASS_ORDER)}
    probes = sorted(
        (
            (R.DSCP_NAMES.get(_dscp(c), str(_dscp(c))), _dscp(c), n)
            for n in raw
            if (c := _probe_class(n))
        ),
        key=lambda p: (order.get(p[0], len(order)), p[2]),
    )
    for cls, dscp, name in probes:
        got = [
            p
            for p in raw[name]
            if isinstance(p, dict) and isinstance(p.get("val"), (int, float)) and "seq" in p
        ]
        if window is not None and t0 is not None:
            got = [p for p in got if window[0] <= p.get("t", t0) - t0 <= window[1]]
        if not got:
            continue
        seqs = [int(p["seq"]) for p in got]
        sent = max(seqs) - min(seqs) + 1
        span = max(p.get("t", 0) for p in got) - min(p.get("t", 0) for p in got)
        for k, (direction, key) in enumerate((("up", "owd_up"), ("down", "owd_down"))):
            d = [p[key] / 1e3 for p in got if isinstance(p.get(key), (int, float))]
            jit = [
                abs(p[f"ipdv_{direction}"]) / 1e3
                for p in got
                if isinstance(p.get(f"ipdv_{direction}"), (int, float))
            ]
            tx = sent if direction == "up" else len(got)
            rows.append(
                R._flow_row(
                    flow_id=fid + k,
                    app_id=app_id,
                    type=f"probe-{cls}",
                    priority=R.msfc_class(dscp),
                    direction=direction,
                    protocol="UDP",
                    src=CLIENT if direction == "up" else SERVER,
                    dst=SERVER if direction == "up" else CLIENT,
                    tx_packets=tx,
                    rx_packets=len(d),
                    lost_packets=tx - len(got),
                    delay_sum_s=sum(d),
                    jitter_sum_s=sum(jit),
                    last_tx_s=span,
                    active_s=span,
                    kind="probe",
                    dscp=dscp,
                )
            )
            delays[fid + k] = d
        rtts.extend((fid, int(p["seq"]), p["val"] / 1e3) for p in got)
        fid += 2
    return rows, delays, rtts


# --- raw records ---------------------------------------------------------------------------


def flent_file(files: dict[str, bytes]) -> str | None:
    names = sorted(n for n in files if n.endswith(".flent.gz"))
    return names[0] if names else None


def convert(files: dict[str, bytes], problems: list[str] | None = None, test: str = "rrul"):
    """flows.csv rows, delay histogram rows and RTT samples of the guest output of one run of
    the Flent test ``test`` (its voice stream: voice_report(), voice_stream())."""
    problems = [] if problems is None else problems
    flows, delays, rtts = [], {}, []
    fn = flent_file(files)
    data = None if fn is None else read_flent(files[fn])
    if data is None:
        problems.append("no .flent.gz: Flent did not finish (see flent.log)")
    else:
        flows.extend(flent_flows(data, 1, 0))
    name = voice_report(test)
    irtt = files.get(name)
    if irtt is None:
        problems.append(f"no {name} (see {name.split('.')[0]}.err)")
    else:
        try:
            label = voice_stream(test)
            rows, delays, rtts = R.irtt_flows(json.loads(irtt), label, 1, len(flows) + 1)
            flows.extend(rows)
        except (TestbedError, json.JSONDecodeError, KeyError) as e:
            problems.append(f"{name}: {e}")
    if data is not None:
        # Flent's per-class probes after the voice stream, so its flow ids stay as they were
        first = max((r["flow_id"] for r in flows), default=0) + 1
        rows, pdelays, prtts = flent_probes(data, first, 2)
        flows.extend(rows)
        delays = {**delays, **pdelays}
        rtts = [*rtts, *prtts]
    return flows, R._hist_rows(delays), rtts


def settings_of(
    rate_kbit: int, duration: int, rtt_ms: int, rate_up_kbit: int | None = None
) -> dict:
    """The settings a study of the UML testbed records (the rate toward the clients, and
    toward the server when it differs)."""
    s = {"rate_kbit": rate_kbit, "rtt_ms": rtt_ms, "duration_s": duration, "testbed": "uml"}
    if rate_up_kbit and rate_up_kbit != rate_kbit:
        s["rate_up_kbit"] = rate_up_kbit
    return s


def write_run(root: Path, test: str, qdisc: str, res, settings: dict) -> str:
    """One run directory of the study root/<test> in the project's raw format (as
    msfc.linux.records.write_run, with Flent's TCP series); returns its hash."""
    from ..sim import runner
    from ..sim.config import RunConfig

    problems: list[str] = []
    flows, hist, rtts = convert(res.files, problems, test)
    for p in problems:
        print(f"msfc.linux: {qdisc} {test}: {p}", file=sys.stderr)
    resolved = {"scheduler": qdisc, **{k: str(v) for k, v in settings.items()}}
    if R.is_msfc_mode(qdisc):
        up = int(settings.get("rate_up_kbit") or settings["rate_kbit"])
        for d, r in (("up", up), ("down", int(settings["rate_kbit"]))):
            resolved[f"msfc_args_{d}"] = R.msfc_args(qdisc, d, r)
    cfg = RunConfig(scenario=f"uml-{test}", resolved=resolved)
    d = root / test / "runs" / cfg.hash()
    d.mkdir(parents=True, exist_ok=True)
    cols = ["flow_id", "bin_start_s", "bin_width_s", "count"]
    R._write_csv(d / "flows.csv", flows, R._FLOW_COLUMNS)
    R._write_csv(d / "delay_hist.csv", hist, cols)
    R._write_csv(d / "jitter_hist.csv", [], cols)
    R._write_csv(
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
        idle = R.guest_idle(
            {"t/cpu_before": res.files["cpu_before"], "t/cpu_after": res.files["cpu_after"]}, "t"
        )
    # wall_seconds: the guest's (virtual) seconds from the first client to the last report
    meta = R.run_meta(
        cfg,
        qdisc,
        t1 - t0,
        settings,
        {
            **res.files_meta,
            "accel": "uml-time-travel",
            "guest_idle": None if math.isnan(idle) else round(idle, 3),
            "flent_file": flent_file(res.files),
            "flent_step_s": _step(res.files),
            "reports_left_out": problems,
        },
    )
    runner.write_json_atomic(d / "meta.json", meta)
    runner.write_json_atomic(d / "config.json", cfg.to_json())
    runner.postprocess(d, cfg)
    return cfg.hash()


def _step(files: dict[str, bytes]) -> float | None:
    """Flent's sampling interval (its probes' interval too), None without a .flent.gz."""
    fn = flent_file(files)
    step = None if fn is None else read_flent(files[fn]).get("metadata", {}).get("STEP_SIZE")
    return float(step) if isinstance(step, (int, float)) else None


def write_study(out: Path, test: str, hashes: list[str], settings: dict) -> None:
    """OUT/<test>/study.json of a test of the UML testbed (records.write_study)."""
    R.write_study(out, test, hashes, settings, "uml")


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


#: the bufferbloat grade of an added latency under load (ms): the first bound it stays below,
#: DSLReports' speed test's scale (A+ below 5 ms ... F from 400 ms on)
GRADES = [(5, "A+"), (30, "A"), (60, "B"), (200, "C"), (400, "D")]


def grade(added_ms: float) -> str:
    """The bufferbloat grade (GRADES) of ``added_ms``; "-" when it was not measured."""
    if math.isnan(added_ms):
        return "-"
    return next((g for bound, g in GRADES if added_ms < bound), "F")


def summary(files: dict[str, bytes], rtt_ms: float = RTT_MS, test: str = "rrul") -> dict:
    """One run's summary row of the Flent test ``test``: its voice stream (``voice``, its
    type in the records: EF but for rrul_be's unmarked one; the keys ef_* whatever its DSCP)
    with its added RTT (irtt RTT minus the base RTT) median / p90 / p99 in ms, its one-way
    jitter (ms) and loss, Flent's ICMP probe's added median and p99 (Flent's unmarked ping)
    with its bufferbloat grade, Flent's UDP EF probe's added median, TCP goodput per
    direction and class (Mbit/s), totals and Jain's index of the TCP flows of each
    direction."""
    row: dict = {"voice": voice_stream(test)}
    raw = files.get(voice_report(test))
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
        ipdv = rep.get("stats", {}).get("ipdv_send", {}).get("mean")
        row["ef_jitter"] = ipdv / 1e6 if isinstance(ipdv, (int, float)) else float("nan")
    for q, k in ((0.5, "ef_med"), (0.9, "ef_p90"), (0.99, "ef_p99")):
        row[k] = quantile(rt, q)
    # one way (the guest's one clock times both ends): the delay above the netem half of the
    # base RTT, upstream (client to server) and downstream
    if raw is not None:
        for d, key in (("up", "send"), ("down", "receive")):
            ow = [
                r["delay"][key] / 1e6 - rtt_ms / 2
                for r in trips
                if r.get("lost") == "false" and key in r.get("delay", {})
            ]
            row[f"ef_{d}_med"] = quantile(ow, 0.5)
            row[f"ef_{d}_p99"] = quantile(ow, 0.99)
    fn = flent_file(files)
    if fn is not None:
        data = read_flent(files[fn])
        pings = flent_pings(data)
        icmp = pings.get("Ping (ms) ICMP", [])
        row["icmp_med"] = quantile(icmp, 0.5) - rtt_ms
        row["icmp_p99"] = quantile(icmp, 0.99) - rtt_ms
        row["grade"] = grade(row["icmp_med"])
        row["udp_ef_med"] = quantile(pings.get("Ping (ms) UDP EF", []), 0.5) - rtt_ms
        gp = class_goodput(data)
        per_flow = flent_goodput(data)
        for d in ("down", "up"):
            for c in CLASS_ORDER:
                row[f"{d}_{c}"] = gp.get((d, c), float("nan"))
            mine = [v for (dd, _), v in gp.items() if dd == d]
            row[f"{d}_total"] = sum(mine) if mine else float("nan")
            row[f"{d}_jain"] = R.jain([v for (dd, _), v in per_flow.items() if dd == d])
    return row


#: (key of a summary row, header); {voice}: the voice stream's class (table())
SUMMARY_COLUMNS = [
    ("qdisc", "qdisc"),
    ("ef_med", "{voice} +med"),
    ("ef_p90", "{voice} +p90"),
    ("ef_p99", "{voice} +p99"),
    ("ef_jitter", "{voice} jitter"),
    ("ef_loss_pct", "{voice} loss %"),
    ("icmp_med", "ICMP +med"),
    ("icmp_p99", "ICMP +p99"),
    ("grade", "grade"),
    *[(f"down_{c}", f"down {c}") for c in CLASS_ORDER],
    ("down_total", "down total"),
    ("down_jain", "down Jain"),
    *[(f"up_{c}", f"up {c}") for c in CLASS_ORDER],
    ("up_total", "up total"),
    ("up_jain", "up Jain"),
    ("wall_s", "wall s"),
]


def _fmt(v) -> str:
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"
    return str(v)


def _shown(v) -> bool:
    return v is not None and v != "" and not (isinstance(v, float) and math.isnan(v))


def table(rows: list[dict], voice: str = "EF") -> str:
    """A Markdown table of summary rows (each with "qdisc"): the columns some row has a
    value in (a test without downloads has no download columns); the voice stream's columns
    are headed by its class ``voice`` (voice_class())."""
    cols = [
        (k, h.format(voice=voice))
        for k, h in SUMMARY_COLUMNS
        if any(_shown(r.get(k)) for r in rows)
    ]
    head = [h for _, h in cols]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(k, "")) for k, _ in cols) + " |")
    return "\n".join(lines)


_OTHER_VOICE = ", ".join(
    f"{t}'s {voice_class(t)} (DSCP {voice_dscp(t)})" for t in TESTS if voice_dscp(t) != EF
)
TABLE_NOTE = (
    "EF: the irtt voice stream (20 ms, 172 bytes, DSCP EF; a test that sends it with another "
    f"DSCP heads these columns with that class: {_OTHER_VOICE}): round-trip time minus the "
    "base RTT, ms (median, p90, p99), its mean one-way jitter upstream (irtt's IPDV, ms) and its "
    "loss. ICMP: Flent's ping (unmarked), median and p99 minus the base RTT, and the "
    "bufferbloat grade of that median (DSLReports' scale: A+ below 5 ms, A 30, B 60, C 200, "
    "D 400, F above). Goodput: Flent's TCP series (mean Mbit/s) per class (Flent's BK and "
    "CS1_BK are CS1), download and upload; Jain: Jain's index of the TCP flows' goodput."
)
