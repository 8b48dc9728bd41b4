"""Metrics of the shaping experiments (results of kernel/test/shaping.py): tidy rows for CSV
files, the kernel's checks and the CBQ benchmark's tables (msfc.seeds.shaping, run by
kernel/scripts/check_shaping.py and cbq_seed002.py) and the seed 002 benchmark
(msfc.seeds.seed002, `msfc bench seed002`).
"""

import math

from ..analysis import metrics as M

FRAME = 1414  # bytes tc counts per packet: 1400-byte IP packet + Ethernet header
# A 100 ms interval counts as "below the guarantee" under 90 % of it: at 1 Mbit/s an interval
# holds 8.26 full-size TCP frames, so a flow served exactly at its guarantee delivers 8 or 9
# frames (0.97 or 1.09 Mbit/s) per interval; 90 % is the guarantee less about one frame.
BELOW = 0.9


def timer_label(res):
    b = res["boot"]
    return f"HZ={b['hz']}, high-res timers {b['highres']}"


def quantised_rate(rate_bps, hz, frame=FRAME):
    """Output rate of a token bucket that holds only one frame when timers fire on the tick:
    one frame every ceil(frame time / tick) ticks, never more than one frame per tick."""
    t_frame = frame * 8 / rate_bps
    ticks = max(1, math.ceil(t_frame * hz - 1e-9))
    return min(rate_bps, frame * 8 * hz / ticks)


def tbf_tick_rate(rate_bps, hz, bucket, frame=FRAME, frames=400):
    """Output rate of a backlogged tbf when its watchdog fires on the tick (high-resolution
    timers off): tokens counted in nanoseconds and capped at the bucket as in sch_tbf.c; a
    frame goes when the tokens cover it, otherwise the watchdog is set for the moment they
    will and expires on the first tick at or after it.  Rate over `frames` frames after the
    first `frames` (steady state)."""
    tick = 10**9 // hz
    t_frame = frame * 8 * 10**9 / rate_bps
    buffer = bucket * 8 * 10**9 / rate_bps
    if buffer < t_frame:
        raise ValueError(f"bucket {bucket} B is smaller than a {frame} B frame: tbf never sends it")
    now, t_c, tokens = 0, 0, buffer
    sent = []
    while len(sent) < 2 * frames:
        toks = min(buffer, tokens + (now - t_c))
        if toks >= t_frame - 1e-6:
            tokens, t_c = toks - t_frame, now
            sent.append(now)
            continue
        target = now + (t_frame - toks)
        now = -(-int(math.ceil(target - 1e-6)) // tick) * tick  # first tick >= target
    span = sent[-1] - sent[frames]
    return (len(sent) - 1 - frames) * frame * 8 * 10**9 / span


def experiments(res, kind):
    """The experiments of one kind ("rate", "interference") in a shaping result."""
    return [exp for exp in res["experiments"] if exp["experiment"] == kind]


def rate_rows(res):
    """One row per (shaper, configured rate) of every rate experiment in a result."""
    b = res["boot"]
    rows = []
    for exp in experiments(res, "rate"):
        for f in exp["flows"]:
            rows.append(
                {
                    "hz": b["hz"],
                    "highres": b["highres"],
                    "time_travel": b["time_travel"],
                    "shaper": f["shaper"],
                    "kind": f["kind"],
                    "burst_bytes": f["burst"] or "",
                    "configured_bps": f["configured_bps"],
                    "offered_bps": round(f["offered_bps"]),
                    "achieved_bps": round(f["achieved_bps"], 1),
                    "ratio": round(f["achieved_bps"] / f["configured_bps"], 4),
                    "delivered_packets": f["delivered"],
                    "tick_model_bps": round(
                        tbf_tick_rate(f["configured_bps"], b["hz"], f["burst"]), 1
                    )
                    if b["highres"] == "off" and f["kind"] == "tbf"
                    else "",
                }
            )
    return rows


def interference_rows(res):
    """One row per (scheduler, flood rate): the TCP flow during the flood and its stalls."""
    b = res["boot"]
    rows = []
    for exp in experiments(res, "interference"):
        s = exp["spec"]
        binw, fs, fe, g = s.get("bin", 0.1), s["flood_start"], s["flood_end"], s["guarantee_mbit"]
        i0, i1 = int(round(fs / binw)), int(round(fe / binw))
        for run in exp["runs"]:
            bins = run["tcp"]["bins"]
            mbit = [M.rate_bps(x, binw) / 1e6 for x in bins]
            during = mbit[i0:i1]
            before = mbit[int(round(1 / binw)) : i0]
            after = mbit[i1:]
            gaps = run["tcp"]["gaps"]
            # longest gap between two deliveries that overlaps the flood (or begins in it)
            in_flood = [gl for gs, gl in gaps if gs < fe and gs + gl > fs]
            flood = run.get("flood", {}).get("bins", [])
            rows.append(
                {
                    "hz": b["hz"],
                    "highres": b["highres"],
                    "time_travel": b["time_travel"],
                    "scheduler": run["scheduler"],
                    "flood_mbit": run["flood_mbit"],
                    "tcp_before_mbit": round(sum(before) / len(before), 3) if before else "",
                    "tcp_during_mbit": round(sum(during) / len(during), 3) if during else 0.0,
                    "tcp_after_mbit": round(sum(after) / len(after), 3) if after else "",
                    "tcp_min_100ms_mbit": round(min(during), 3) if during else 0.0,
                    "intervals_below_guarantee": sum(1 for x in during if x < BELOW * g),
                    "intervals_empty": sum(1 for x in during if x == 0),
                    "intervals": len(during),
                    "longest_gap_s": round(max(in_flood), 3)
                    if in_flood
                    else (round(fe - fs, 3) if not any(during) else 0.0),
                    "flood_delivered_mbit": round(M.rate_bps(sum(flood[i0:i1]), fe - fs) / 1e6, 3)
                    if flood
                    else 0.0,
                }
            )
    return rows


def multiflow_rows(res):
    """One row per (scheduler, flow) of the multiflow runs: frame Mbit/s in the 3 s before the
    last flow starts and while it runs, and the lowest 100 ms interval while it runs."""
    b = res["boot"]
    rows = []
    for exp in experiments(res, "multiflow"):
        s = exp["spec"]
        binw = s.get("bin", 0.1)
        last = s["flows"][-1]
        i_b, i_s, i_e = (
            int(round(x / binw)) for x in (last["start"] - 3, last["start"], last["stop"])
        )
        for run in exp["runs"]:
            for f in s["flows"]:
                bins = run["flows"][f["name"]]["bins"]
                mbit = [x * 8 / binw / 1e6 for x in bins]
                before, during = mbit[i_b:i_s], mbit[i_s:i_e]
                rows.append(
                    {
                        "hz": b["hz"],
                        "highres": b["highres"],
                        "time_travel": b["time_travel"],
                        "scheduler": run["scheduler"],
                        "flow": f["name"],
                        "offered_mbit": f["mbit"],
                        "ip_len": f["ip_len"],
                        "guarantee_mbit": f["class_mbit"],
                        "before_mbit": round(sum(before) / len(before), 3),
                        "during_mbit": round(sum(during) / len(during), 3),
                        "min_100ms_during_mbit": round(min(during), 3),
                    }
                )
    return rows


def interference_series(res):
    """Tidy time series: one row per run and bin (TCP and flood Mbit/s)."""
    b = res["boot"]
    out = []
    for exp in experiments(res, "interference"):
        binw = exp["spec"].get("bin", 0.1)
        for run in exp["runs"]:
            flood = run.get("flood", {}).get("bins", [])
            for i, x in enumerate(run["tcp"]["bins"]):
                out.append(
                    {
                        "hz": b["hz"],
                        "highres": b["highres"],
                        "scheduler": run["scheduler"],
                        "flood_mbit": run["flood_mbit"],
                        "t_s": round((i + 1) * binw, 3),
                        "tcp_mbit": round(M.rate_bps(x, binw) / 1e6, 4),
                        "flood_rx_mbit": round(M.rate_bps(flood[i], binw) / 1e6, 4)
                        if flood
                        else 0.0,
                    }
                )
    return out
