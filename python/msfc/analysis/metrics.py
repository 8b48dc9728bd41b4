"""Metric names and definitions: the one place tables, reports and sweeps take them from.

The definitions follow docs/data-format.md ("Metrics"). Inputs are the raw files a
scenario program writes: ``flows.csv`` and ``delay_hist.csv`` / ``jitter_hist.csv``.

Grouping levels:

* ``overall``  - every selected flow;
* ``type``     - flows with the same ``type`` label (e.g. ``TVStream``);
* ``priority`` - flows with the same ``priority``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

TABLES_VERSION = 2  # bump when a definition changes: stored tables are then rebuilt


@dataclass(frozen=True)
class Metric:
    name: str
    label: str  # short column heading for tables
    unit: str
    definition: str  # one sentence, shown in reports
    fmt: str  # format for tables
    higher_is_better: bool | None = None


METRICS: dict[str, Metric] = {
    m.name: m
    for m in [
        Metric(
            "throughput_kbps",
            "Mean flow throughput",
            "kbps",
            "rx_bytes * 8 / active_s / 1000 per flow; per group the mean over flows",
            "{:.2f}",
            True,
        ),
        Metric(
            "throughput_total_kbps",
            "Total throughput",
            "kbps",
            "sum of the per-flow throughput over the flows of the group",
            "{:.0f}",
            True,
        ),
        Metric(
            "delay_mean_ms",
            "Mean delay",
            "ms",
            "total packet delay over total received packets (delay_sum_s / rx_packets)",
            "{:.1f}",
            False,
        ),
        Metric(
            "delay_hmean_ms",
            "Harmonic-mean delay",
            "ms",
            "harmonic mean of packet delays, from the delay histogram (bin centres)",
            "{:.1f}",
            False,
        ),
        Metric(
            "delay_p50_ms",
            "Median delay",
            "ms",
            "50th percentile of packet delay, from the delay histogram",
            "{:.1f}",
            False,
        ),
        Metric(
            "delay_p95_ms",
            "95th pct delay",
            "ms",
            "95th percentile of packet delay, from the delay histogram",
            "{:.1f}",
            False,
        ),
        Metric(
            "delay_p99_ms",
            "99th pct delay",
            "ms",
            "99th percentile of packet delay, from the delay histogram",
            "{:.1f}",
            False,
        ),
        Metric(
            "jitter_mean_ms",
            "Jitter",
            "ms",
            "mean |delay(n) - delay(n-1)|: jitter_sum_s / (rx_packets - 1), per group summed over flows",
            "{:.2f}",
            False,
        ),
        Metric("lost_packets", "Lost packets", "packets", "sum of lost_packets", "{:.0f}", False),
        Metric("loss_ratio", "Loss ratio", "", "lost_packets / tx_packets", "{:.4f}", False),
        Metric("flows", "Flows", "", "number of flows in the group", "{:.0f}", None),
        Metric(
            "jain_index",
            "Jain's index",
            "",
            "Jain's fairness index (sum x)^2 / (n * sum x^2) of the throughputs x of n hosts or "
            "flows: 1 when all are equal, 1/n when one has everything (jain_index)",
            "{:.3f}",
            True,
        ),
    ]
}

#: per-group metric columns, in table order
GROUP_METRICS = [
    "flows",
    "throughput_kbps",
    "throughput_total_kbps",
    "delay_mean_ms",
    "delay_hmean_ms",
    "delay_p50_ms",
    "delay_p95_ms",
    "delay_p99_ms",
    "jitter_mean_ms",
    "lost_packets",
    "loss_ratio",
]

#: the thesis's Table 3.4 (overall results)
OVERALL_TABLE = ["throughput_total_kbps", "delay_hmean_ms", "jitter_mean_ms", "lost_packets"]
#: the thesis's per-type tables 3.7, 3.5, 3.6
TYPE_TABLES = ["throughput_kbps", "delay_mean_ms", "lost_packets"]

LEVELS = ("overall", "type", "priority")

FLOW_COLUMNS = [
    "flow_id",
    "app_id",
    "type",
    "priority",
    "direction",
    "protocol",
    "src",
    "dst",
    "src_port",
    "dst_port",
    "tx_packets",
    "tx_bytes",
    "rx_packets",
    "rx_bytes",
    "lost_packets",
    "delay_sum_s",
    "jitter_sum_s",
    "first_tx_s",
    "last_tx_s",
    "first_rx_s",
    "last_rx_s",
    "active_s",
]
#: flows.csv as the programs and the Linux testbeds write it: FLOW_COLUMNS (what every metric
#: needs; results older than ``kind`` and ``dscp`` have only these), then the flow's kind and DSCP
FLOW_FILE_COLUMNS = [*FLOW_COLUMNS, "kind", "dscp"]
#: delay_hist.csv and jitter_hist.csv
HIST_COLUMNS = ["flow_id", "bin_start_s", "bin_width_s", "count"]
#: qdisc.csv (docs/data-format.md): a queue disc's identity, its class (-1: none), counters
QDISC_COLUMNS = [
    "node",
    "device",
    "scheduler",
    "class",
    "enqueued_packets",
    "enqueued_bytes",
    "dequeued_packets",
    "dequeued_bytes",
    "codel_drops",
    "overload_drops",
    "ecn_marks",
    "ce_threshold_marks",
    "auto_promotions",
    "auto_demotions",
]


def metric(name: str) -> Metric:
    return METRICS[name]


def heading(name: str) -> str:
    m = METRICS[name]
    return f"{m.label} ({m.unit})" if m.unit else m.label


def format_value(name: str, value) -> str:
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "-"
    return METRICS[name].fmt.format(value)


# --------------------------------------------------------------------------- histograms


def _hist_arrays(hist: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bin starts, widths and counts, merged over flows and sorted by bin start."""
    if hist is None or len(hist) == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    h = hist.groupby(["bin_start_s", "bin_width_s"], as_index=False)["count"].sum()
    h = h[h["count"] > 0].sort_values("bin_start_s")
    return (
        h["bin_start_s"].to_numpy(float),
        h["bin_width_s"].to_numpy(float),
        h["count"].to_numpy(float),
    )


def hist_harmonic_mean(hist: pd.DataFrame) -> float:
    """Harmonic mean of the values in a histogram, each bin represented by its centre (seconds)."""
    start, width, count = _hist_arrays(hist)
    n = count.sum()
    if n == 0:
        return float("nan")
    centre = start + width / 2.0
    if np.any(centre <= 0):
        raise ValueError("histogram has a bin centre <= 0; the harmonic mean is undefined")
    return float(n / np.sum(count / centre))


def hist_mean(hist: pd.DataFrame) -> float:
    start, width, count = _hist_arrays(hist)
    n = count.sum()
    return float(np.sum(count * (start + width / 2.0)) / n) if n else float("nan")


def hist_percentile(hist: pd.DataFrame, q: float) -> float:
    """q-th percentile (0..100) of the values in a histogram (seconds).

    Values are taken as spread uniformly inside their bin: the result is the point where the
    cumulative count reaches q% of all values, linearly interpolated inside that bin.
    """
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} is outside 0..100")
    start, width, count = _hist_arrays(hist)
    n = count.sum()
    if n == 0:
        return float("nan")
    target = q / 100.0 * n
    cum = np.cumsum(count)
    i = int(np.searchsorted(cum, target, side="left"))
    i = min(i, len(count) - 1)
    before = cum[i] - count[i]
    frac = (target - before) / count[i]
    return float(start[i] + min(max(frac, 0.0), 1.0) * width[i])


def hist_cdf(hist: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Points (x seconds, F(x)) of the cumulative distribution, at bin edges."""
    start, width, count = _hist_arrays(hist)
    if count.sum() == 0:
        return np.zeros(0), np.zeros(0)
    edges = np.concatenate([[start[0]], start + width])
    cdf = np.concatenate([[0.0], np.cumsum(count) / count.sum()])
    return edges, cdf


def hist_ccdf(hist: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Points (x seconds, P(value > x)) of the complementary cumulative distribution (1 - F, the
    tail), at bin edges; the last point is 0 (no value beyond the last bin)."""
    x, cdf = hist_cdf(hist)
    return x, np.clip(1.0 - cdf, 0.0, 1.0)


# --------------------------------------------------------------------------- flows


def flow_metrics(flows: pd.DataFrame) -> pd.DataFrame:
    """Per-flow metrics added as columns to a copy of flows.csv."""
    f = flows.copy()
    active = f["active_s"].astype(float)
    rx = f["rx_packets"].astype(float)
    tx = f["tx_packets"].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        f["throughput_kbps"] = np.where(active > 0, f["rx_bytes"] * 8.0 / active / 1000.0, np.nan)
        f["delay_mean_ms"] = np.where(rx > 0, f["delay_sum_s"] / rx * 1000.0, np.nan)
        f["jitter_mean_ms"] = np.where(rx > 1, f["jitter_sum_s"] / (rx - 1) * 1000.0, np.nan)
        f["loss_ratio"] = np.where(tx > 0, f["lost_packets"] / tx, np.nan)
    return f


def select_flows(flows: pd.DataFrame, direction: str | None = "down") -> pd.DataFrame:
    """Data flows of one direction (``down``, ``up``) or all flows (``None`` / ``all``).

    When the scenario labels flows with ``kind`` (``data`` or ``ack``, docs/data-format.md),
    a direction selects only the data flows: the acknowledgements of an upload travel down but
    are not the download traffic the thesis reports.
    """
    if direction in (None, "all"):
        return flows
    selected = flows[flows["direction"] == direction]
    if "kind" in selected.columns:
        selected = selected[selected["kind"] == "data"]
    return selected


def group_metrics(flows: pd.DataFrame, delay_hist: pd.DataFrame | None = None) -> dict[str, float]:
    """Metrics of one group of flows (already selected)."""
    out: dict[str, float] = {}
    n = len(flows)
    out["flows"] = float(n)
    if n == 0:
        for k in GROUP_METRICS[1:]:
            out[k] = float("nan")
        out["lost_packets"] = 0.0
        return out
    fm = flow_metrics(flows) if "throughput_kbps" not in flows else flows
    thr = fm["throughput_kbps"].dropna()
    out["throughput_kbps"] = float(thr.mean()) if len(thr) else float("nan")
    out["throughput_total_kbps"] = float(thr.sum())
    rx = float(flows["rx_packets"].sum())
    out["delay_mean_ms"] = (
        float(flows["delay_sum_s"].sum()) / rx * 1000.0 if rx > 0 else float("nan")
    )
    jit_n = float((flows["rx_packets"] - 1).clip(lower=0).sum())
    jit_sum = float(flows.loc[flows["rx_packets"] > 1, "jitter_sum_s"].sum())
    out["jitter_mean_ms"] = jit_sum / jit_n * 1000.0 if jit_n > 0 else float("nan")
    out["lost_packets"] = float(flows["lost_packets"].sum())
    tx = float(flows["tx_packets"].sum())
    out["loss_ratio"] = out["lost_packets"] / tx if tx > 0 else float("nan")
    h = None
    if delay_hist is not None:
        h = delay_hist[delay_hist["flow_id"].isin(flows["flow_id"])]
    if h is not None and h["count"].sum() > 0:
        out["delay_hmean_ms"] = hist_harmonic_mean(h) * 1000.0
        out["delay_p50_ms"] = hist_percentile(h, 50) * 1000.0
        out["delay_p95_ms"] = hist_percentile(h, 95) * 1000.0
        out["delay_p99_ms"] = hist_percentile(h, 99) * 1000.0
    else:
        for k in ("delay_hmean_ms", "delay_p50_ms", "delay_p95_ms", "delay_p99_ms"):
            out[k] = float("nan")
    return out


def summarize(
    flows: pd.DataFrame, delay_hist: pd.DataFrame | None, direction: str | None = "down"
) -> pd.DataFrame:
    """Tidy summary of one run: one row per (level, group), one column per metric."""
    sel = select_flows(flows, direction)
    rows = []
    rows.append({"level": "overall", "group": "all", **group_metrics(sel, delay_hist)})
    for level in ("type", "priority"):
        for key, g in sel.groupby(level, sort=False):
            rows.append({"level": level, "group": str(key), **group_metrics(g, delay_hist)})
    df = pd.DataFrame(rows, columns=["level", "group"] + GROUP_METRICS)
    df.insert(0, "direction", direction or "all")
    return df


def group_order(flows: pd.DataFrame, level: str) -> list[str]:
    """Groups in a stable order: types in order of first appearance, priorities descending."""
    if level == "priority":
        return [str(p) for p in sorted(flows["priority"].unique(), reverse=True)]
    if level == "type":
        return [str(t) for t in pd.unique(flows["type"])]
    return ["all"]


# --------------------------------------------------------------------------- statistics over seeds

# two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom
_T95 = [
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
]


def t95(dof: int) -> float:
    if dof < 1:
        return float("nan")
    return _T95[dof - 1] if dof <= len(_T95) else 1.96


def mean_ci95(values: Iterable[float]) -> tuple[float, float, int]:
    """Mean and half-width of its 95 % confidence interval (Student's t), and the sample size."""
    v = np.asarray([x for x in values if x is not None and np.isfinite(x)], dtype=float)
    n = len(v)
    if n == 0:
        return float("nan"), float("nan"), 0
    if n == 1:
        return float(v[0]), float("nan"), 1
    return float(v.mean()), float(t95(n - 1) * v.std(ddof=1) / np.sqrt(n)), n


#: fewest values over which a 95 % confidence interval is shown; with 2 (one degree of freedom,
#: t = 12.7) the interval says little but looks like a result, so the spread min..max is shown
CI_MIN_RUNS = 3


@dataclass(frozen=True)
class Interval:
    """The mean of a quantity over RNG runs with what the figures draw around it: the 95 %
    confidence interval (Student's t) with CI_MIN_RUNS or more values, the spread min..max with
    fewer (2), nothing with 1. ``clipped``: the interval reached beyond the values the quantity
    can take, ``floor`` .. ``ceiling`` (0 .. unbounded for a quantity that cannot be negative;
    1/n .. 1 for Jain's index of n shares), and was cut there."""

    mean: float
    lo: float
    hi: float
    n: int
    kind: str  # "ci95", "range" or "" (one value)
    clipped: bool = False
    floor: float | None = 0.0
    ceiling: float | None = None


def mean_interval(
    values: Iterable[float], floor: float | None = 0.0, ceiling: float | None = None
) -> Interval:
    """The mean of ``values`` (NaN and None left out) and its Interval; ``floor`` and
    ``ceiling``: the least and the largest value the quantity can take (None: unbounded). A t
    interval is cut to them (the spread min..max of 2 values lies within them anyway)."""
    v = np.asarray([x for x in values if x is not None and np.isfinite(x)], dtype=float)
    n = len(v)
    bounds = {"floor": floor, "ceiling": ceiling}
    if n == 0:
        return Interval(float("nan"), float("nan"), float("nan"), 0, "", **bounds)
    mean = float(v.mean())
    if n == 1:
        return Interval(mean, mean, mean, 1, "", **bounds)
    if n < CI_MIN_RUNS:
        return Interval(mean, float(v.min()), float(v.max()), n, "range", **bounds)
    half = float(t95(n - 1) * v.std(ddof=1) / np.sqrt(n))
    lo, hi, clipped = mean - half, mean + half, False
    if floor is not None and lo < floor:
        lo, clipped = floor, True
    if ceiling is not None and hi > ceiling:
        hi, clipped = ceiling, True
    return Interval(mean, lo, hi, n, "ci95", clipped, **bounds)


class Estimate(float):
    """A mean over RNG runs that carries its Interval (``.interval``): a float for arithmetic,
    comparisons and pandas, while the tables show the interval beside it (tables.cell_text).
    Arithmetic on it gives a plain float: a scaled or derived value has no interval."""

    interval: Interval

    def __new__(cls, interval: Interval):
        obj = super().__new__(cls, interval.mean)
        obj.interval = interval
        return obj

    def __getnewargs__(self):
        return (self.interval,)

    def __repr__(self) -> str:
        return (
            f"Estimate({float(self)!r}, {self.interval.kind or 'one value'}, n={self.interval.n})"
        )


def estimate(
    values: Iterable[float], floor: float | None = 0.0, ceiling: float | None = None
) -> Estimate:
    """The mean of ``values`` over RNG runs with its interval (mean_interval) as an Estimate."""
    return Estimate(mean_interval(values, floor, ceiling))


def interval_text(intervals: Iterable[Interval]) -> str:
    """What a figure's error bars or bands are, for its title: "5 RNG runs, 95% CI",
    "2 RNG runs, min..max, too few for a CI", "1 RNG run"; says so when an interval was
    cut at 0, or to the range of its quantity (such as Jain's index, 1/n .. 1)."""
    iv = [i for i in intervals if i.n > 0]
    ns = sorted({i.n for i in iv}) or [1]
    runs = f"{ns[-1]} RNG run{'s' if ns[-1] > 1 else ''}"
    if len(ns) > 1:
        runs = f"{ns[0]}-{ns[-1]} RNG runs"
    kinds = {i.kind for i in iv} - {""}
    if not kinds:
        return runs
    if kinds == {"range"}:
        text = f"{runs}, min..max, too few for a CI"
    elif kinds == {"ci95"}:
        text = f"{runs}, 95% CI"
    else:
        text = f"{runs}, 95% CI ({CI_MIN_RUNS}+ runs) or min..max (2)"
    cut = [i for i in iv if i.clipped]
    if cut and all(i.floor == 0 and i.ceiling is None for i in cut):
        text += ", cut at 0"
    elif cut:
        text += ", cut to the quantity's range"
    return text


# --------------------------------------------------------------------------- samples and shares


def sample_percentile(values: Iterable[float], q: float) -> float:
    """q-th percentile (0..100) of individual samples (e.g. per-packet delays), linear between
    the two nearest ranks (rank ``(n - 1) * q / 100``); NaN without samples."""
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} is outside 0..100")
    v = np.sort(np.asarray(list(values), dtype=float))
    if len(v) == 0:
        return float("nan")
    k = (len(v) - 1) * q / 100.0
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return float(v[lo] + (v[hi] - v[lo]) * (k - lo))


def jain_index(values: Iterable[float]) -> float:
    """Jain's fairness index ``(sum x)^2 / (n * sum x^2)`` of per-flow shares (e.g. throughput):
    1 when all are equal, 1/n when one flow has everything; 0 when every share is 0."""
    v = np.asarray(list(values), dtype=float)
    q = float(np.sum(v * v))
    return float(np.sum(v) ** 2 / (len(v) * q)) if q > 0 else 0.0


def jain_range(n: int) -> tuple[float, float]:
    """The values Jain's index of ``n`` shares can take, 1/n .. 1 (its floor and ceiling for
    mean_interval)."""
    return (1.0 / n if n > 0 else 0.0), 1.0


def host_throughput(flows: pd.DataFrame, by: str = "dst", direction: str = "down") -> pd.Series:
    """Throughput per host (kbit/s): the bytes that the data flows of one direction delivered to
    (``by="dst"``, for ``down`` the clients) or from (``"src"``) each address, over the longest
    active time of those flows (so hosts compare by bytes).  ``flows``: flows.csv rows."""
    f = select_flows(flows, direction)
    seconds = float(f["active_s"].astype(float).max()) if len(f) else 0.0
    kbps = f.groupby(by)["rx_bytes"].sum().astype(float) * 8.0 / 1000.0
    return kbps / seconds if seconds > 0 else kbps * 0.0


def client_throughput(flows: pd.DataFrame, direction: str = "down") -> pd.Series:
    """Throughput per client host (kbit/s) of one run: in ``down`` what its data flows delivered
    to each destination address, in ``up`` what each source address sent (host_throughput), in
    ``all`` the two summed per address."""
    if direction == "down":
        return host_throughput(flows, "dst", "down")
    if direction == "up":
        return host_throughput(flows, "src", "up")
    both = pd.concat([host_throughput(flows, "dst", "down"), host_throughput(flows, "src", "up")])
    return both.groupby(level=0, sort=False).sum()


def fairness(flows: pd.DataFrame, direction: str = "down") -> pd.DataFrame:
    """Jain's index (jain_index) of one run: over the client hosts (client_throughput) and over
    the flows of each type (their throughput_kbps, data flows of ``direction``). Columns group
    ("hosts" or the type), jain, n (hosts or flows); a group of one has no index (NaN)."""
    rows = []
    hosts = client_throughput(flows, direction)
    rows.append(("hosts", jain_index(hosts) if len(hosts) > 1 else float("nan"), len(hosts)))
    sel = select_flows(flows, direction)
    if direction in (None, "all") and "kind" in sel.columns:
        sel = sel[sel["kind"] == "data"]
    if len(sel):
        fm = flow_metrics(sel) if "throughput_kbps" not in sel else sel
        for t, g in fm.groupby("type", sort=False):
            thr = g["throughput_kbps"].dropna()
            rows.append((str(t), jain_index(thr) if len(thr) > 1 else float("nan"), len(thr)))
    return pd.DataFrame(rows, columns=["group", "jain", "n"])


def rate_bps(nbytes: float, seconds: float) -> float:
    """A rate in bit/s from bytes delivered over an interval (0 for an empty interval)."""
    return nbytes * 8.0 / seconds if seconds > 0 else 0.0
