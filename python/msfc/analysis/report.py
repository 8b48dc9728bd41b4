"""``msfc report DIR``: an HTML page with thesis-style tables and figures (PNG and SVG).

Figures:
* delay violins per flow type and per priority (one violin per scheduler), drawn from the
  FlowMonitor delay histograms weighted by their counts (like the thesis's Figures 3.2-3.5);
* delay CDFs, overall and per flow type;
* throughput per flow type;
* for sweeps: each overall metric against the swept parameter, mean over seeds with 95 %
  confidence intervals (Student's t).

Means are taken over the RNG runs of one configuration only, never over different
configurations. Their error bars are 95 % confidence intervals with 3 or more runs and the
spread min..max with 2 (metrics.mean_interval), cut at 0 (no quantity here is negative); every
title says which.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import UserError
from ..sim.runner import check_out_dir, collect, read_study
from . import metrics as M
from . import tables as T

SWEEP_METRICS = [
    "throughput_total_kbps",
    "delay_hmean_ms",
    "delay_mean_ms",
    "delay_p99_ms",
    "jitter_mean_ms",
    "loss_ratio",
]


# --------------------------------------------------------------------------- histogram data


def load_histograms(root: Path, hashes: list[str], direction: str) -> pd.DataFrame:
    """Delay histograms of the given runs joined with flow labels:
    columns scheduler, config_hash, type, priority, bin_start_s, bin_width_s, count."""
    parts = []
    for h in hashes:
        d = root / "runs" / h
        if not (d / "done.json").exists():
            continue
        flows = pd.read_csv(d / "flows.csv")
        flows = M.select_flows(flows, None if direction == "all" else direction)
        hist = pd.read_csv(d / "delay_hist.csv")
        cfg = json.loads((d / "config.json").read_text())
        j = hist.merge(flows[["flow_id", "type", "priority"]], on="flow_id")
        j["scheduler"] = cfg.get("resolved", {}).get("scheduler", "")
        j["config_hash"] = h
        parts.append(j)
    if not parts:
        return pd.DataFrame(
            columns=[
                "flow_id",
                "bin_start_s",
                "bin_width_s",
                "count",
                "type",
                "priority",
                "scheduler",
                "config_hash",
            ]
        )
    out = pd.concat(parts, ignore_index=True)
    out["type"] = out["type"].astype(str)
    return out


def violin_density(
    hist: pd.DataFrame, top: float, points: int = 160
) -> tuple[np.ndarray, np.ndarray, float]:
    """Weighted density of a histogram on [0, top] seconds (smoothed), and the share of values above."""
    start = hist["bin_start_s"].to_numpy(float)
    width = hist["bin_width_s"].to_numpy(float)
    count = hist["count"].to_numpy(float)
    total = count.sum()
    if total == 0:
        return np.zeros(0), np.zeros(0), 0.0
    centre = start + width / 2
    edges = np.linspace(0.0, top, points + 1)
    inside = centre <= top
    dens, _ = np.histogram(centre[inside], bins=edges, weights=count[inside])
    # smooth with a small Gaussian kernel (about 2 grid steps)
    k = np.exp(-0.5 * (np.arange(-6, 7) / 2.0) ** 2)
    dens = np.convolve(dens, k / k.sum(), mode="same")
    y = (edges[:-1] + edges[1:]) / 2
    above = float(count[~inside].sum() / total)
    return y, dens, above


def _group_hist(h: pd.DataFrame) -> pd.DataFrame:
    return h.groupby(["bin_start_s", "bin_width_s"], as_index=False)["count"].sum()


# --------------------------------------------------------------------------- figure style

#: paper sizes: one column of a two-column paper is about 3.5 in wide, a full page width 7 in;
#: every figure is one of the two, at one font size
COLUMN_IN = 3.5
PAGE_IN = 7.0
FONT_PT = 8
STYLE = {
    "font.size": FONT_PT,
    "axes.titlesize": FONT_PT,
    "axes.labelsize": FONT_PT,
    "figure.titlesize": FONT_PT + 1,
    "legend.fontsize": FONT_PT,
    "xtick.labelsize": FONT_PT,
    "ytick.labelsize": FONT_PT,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.axisbelow": True,
    "legend.frameon": False,
    "figure.constrained_layout.use": True,
    "savefig.dpi": 200,
    "svg.fonttype": "none",  # SVG text stays text: searchable, editable, smaller
    # TrueType (Type 42) fonts in PDF and PostScript: submission checkers (IEEE PDF eXpress,
    # ACM) reject the Type 3 fonts matplotlib embeds by default
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
}
FORMATS = ("png", "svg", "pdf")


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(STYLE)
    return plt


def _fig(width: float, height: float, nrows: int = 1, ncols: int = 1, **kw):
    plt = _plt()
    return plt.subplots(nrows, ncols, figsize=(width, height), squeeze=False, **kw)


def _save(fig, out: Path, name: str) -> list[str]:
    """PNG, SVG and PDF of a figure, at its own size (no cropping: sizes stay paper sizes)."""
    files = []
    for ext in FORMATS:
        final = out / f"{name}.{ext}"
        tmp = out / f".{name}.tmp.{ext}"
        fig.savefig(tmp, format=ext)
        os.replace(tmp, final)
        files.append(final.name)
    _plt().close(fig)
    return files


def _write(path: Path, text: str) -> None:
    """A file written under a temporary name and renamed: never found half-written."""
    tmp = path.parent / f".{path.name}.tmp"
    tmp.write_text(text)
    os.replace(tmp, path)


def _save_data(out: Path, name: str, data: pd.DataFrame) -> list[str]:
    """The numbers a figure draws, as ``NAME.csv`` beside its PNG, SVG and PDF (for plotting
    it again elsewhere, e.g. with pgfplots)."""
    _write(out / f"{name}.csv", data.to_csv(index=False, float_format="%.6g"))
    return [f"{name}.csv"]


def _iv_columns(iv: M.Interval, prefix: str = "") -> dict:
    """An Interval as CSV columns: mean, its interval low..high, the RNG runs and the kind of
    interval (ci95, range for min..max of 2 runs, none for 1 run)."""
    return {
        f"{prefix}mean": iv.mean,
        f"{prefix}low": iv.lo if iv.kind else float("nan"),
        f"{prefix}high": iv.hi if iv.kind else float("nan"),
        f"{prefix}runs": iv.n,
        f"{prefix}interval": iv.kind or "none",
        f"{prefix}cut_at_0": iv.clipped,
    }


def _table(out: Path, name: str, df: pd.DataFrame, title: str, row_header: str = "", **kw) -> str:
    """A table for the page (HTML) and for a paper: ``NAME.tex`` (booktabs) beside the page,
    the same cells, linked below the table."""
    label = name.removeprefix("table-")
    _write(out / f"{name}.tex", T.render_latex(df, title, row_header, label=label, **kw))
    return (
        T.render_html(df, title, row_header, **kw)
        + f"<p class='dl'><a href='{html.escape(name)}.tex'>LaTeX</a></p>"
    )


def _wrap_to_fit(text_artist, width_px: float, renderer) -> None:
    """Break a title at spaces (keeping its own line breaks) so that every line is at most
    ``width_px`` wide, measured as drawn; a single word wider than that stays whole."""
    lines = []
    for para in text_artist.get_text().split("\n"):
        line = ""
        for word in para.split(" "):
            trial = f"{line} {word}" if line else word
            text_artist.set_text(trial)
            if line and text_artist.get_window_extent(renderer).width > width_px:
                lines.append(line)
                line = word
            else:
                line = trial
        lines.append(line)
    text_artist.set_text("\n".join(lines))


def _suptitle(fig, text: str):
    """The figure's title, wrapped to fit its width (a one-column figure is 3.5 in wide)."""
    t = fig.suptitle(text)
    _wrap_to_fit(t, fig.bbox.width * 0.96, fig.canvas.get_renderer())
    return t


def _title(ax, text: str):
    """A panel's title, wrapped to fit the panel's width."""
    fig = ax.get_figure()
    t = ax.set_title(text)
    width = ax.get_position().width * fig.bbox.width
    _wrap_to_fit(t, max(width, fig.bbox.width / 4), fig.canvas.get_renderer())
    return t


def _legend(fig, handles=None, labels=None) -> None:
    """One legend above the panels, outside the data."""
    if handles is None:
        seen = {}
        for ax in fig.axes:
            for h, lab in zip(*ax.get_legend_handles_labels(), strict=False):
                seen.setdefault(lab, h)
        labels, handles = list(seen), list(seen.values())
    if handles:
        # as many columns as fit the figure's width, measured as drawn
        renderer = fig.canvas.get_renderer()
        for ncols in range(min(len(handles), 8), 0, -1):
            leg = fig.legend(handles, labels, loc="outside lower center", ncols=ncols)
            if ncols == 1 or leg.get_window_extent(renderer).width <= fig.bbox.width * 0.98:
                break
            leg.remove()


def _log_axis(ax, which: str = "y", dense: bool = True) -> None:
    """A log axis labelled with plain numbers (50, 100, 200, 500; only the powers of ten when
    not ``dense``), not powers of ten."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis = ax.yaxis if which == "y" else ax.xaxis
    (ax.set_yscale if which == "y" else ax.set_xscale)("log")
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if dense else (1.0,)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def runs_text(n: int) -> str:
    """The number of RNG runs behind a figure and what its error bars are, as every figure
    states it (M.interval_text for figures whose intervals are known)."""
    if n <= 1:
        return "1 RNG run"
    return M.interval_text([M.mean_interval(range(1, n + 1))]).replace(", cut at 0", "")


def _yerr(iv: list[M.Interval]):
    """matplotlib's asymmetric error bars of Intervals (none where there is one value)."""
    lo = [i.mean - i.lo if i.kind and np.isfinite(i.lo) else 0.0 for i in iv]
    hi = [i.hi - i.mean if i.kind and np.isfinite(i.hi) else 0.0 for i in iv]
    return np.array([lo, hi], float)


def _colors(schedulers: list[str]) -> dict[str, str]:
    cyc = _plt().rcParams["axes.prop_cycle"].by_key()["color"]
    return {s: cyc[i % len(cyc)] for i, s in enumerate(schedulers)}


def _grid_shape(n: int, ncols: int = 4) -> tuple[int, int]:
    ncols = max(1, min(ncols, n))
    return math.ceil(n / ncols), ncols


# --------------------------------------------------------------------------- figures


def log_violin_density(
    hist: pd.DataFrame, lo: float, hi: float, points: int = 120
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted density of a histogram on a log-spaced grid from ``lo`` to ``hi`` seconds
    (smoothed): what a violin on a log axis shows. Every packet is inside [lo, hi]."""
    start = hist["bin_start_s"].to_numpy(float)
    width = hist["bin_width_s"].to_numpy(float)
    count = hist["count"].to_numpy(float)
    if count.sum() == 0:
        return np.zeros(0), np.zeros(0)
    centre = np.clip(start + width / 2, lo, hi)
    edges = np.geomspace(lo, hi, points + 1)
    dens, _ = np.histogram(centre, bins=edges, weights=count)
    k = np.exp(-0.5 * (np.arange(-6, 7) / 2.0) ** 2)
    dens = np.convolve(dens, k / k.sum(), mode="same")
    return np.sqrt(edges[:-1] * edges[1:]), dens


def _per_run_mean_ms(h: pd.DataFrame) -> np.ndarray:
    return np.array(
        [M.hist_mean(g) * 1000 for _, g in h.groupby("config_hash") if g["count"].sum() > 0]
    )


def fig_violins(
    hists: pd.DataFrame,
    level: str,
    schedulers: list[str],
    groups: list[str],
    out: Path,
    name: str,
    title: str,
    runs: int = 1,
    thesis_ms: dict[str, dict[str, float]] | None = None,
) -> tuple[list[str], str]:
    """Packet delay per group, one violin per scheduler, on a log axis that holds every packet.
    ``thesis_ms``: {scheduler: {group: mean delay}} drawn as markers (like with like only)."""
    centres = hists["bin_start_s"] + hists["bin_width_s"] / 2
    have = hists["count"] > 0
    lo = max(float(centres[have].min()) if have.any() else 1e-4, 1e-5) * 0.8
    hi = float((hists["bin_start_s"] + hists["bin_width_s"])[have].max()) if have.any() else 1.0
    hi = max(hi * 1.25, lo * 10)
    n_s = max(1, len(schedulers))
    colors = _colors(schedulers)
    fig, axes = _fig(PAGE_IN, 3.0)
    ax = axes[0][0]
    width = 0.8 / n_s
    intervals: list[M.Interval] = []
    data = []  # the pooled histograms drawn, with each violin's marks
    for gi, g in enumerate(groups):
        for si, s in enumerate(schedulers):
            h = hists[(hists[level].astype(str) == g) & (hists["scheduler"] == s)]
            if h["count"].sum() == 0:
                continue
            hg = _group_hist(h)
            y, d = log_violin_density(hg, lo, hi)
            if len(d) == 0 or d.max() <= 0:
                continue
            # the body spans every packet, from the shortest delay to the longest (where the
            # dash is): a threshold on the density hid a sparse tail, and left the dash far above
            # a body that ended where the tail's density fell below it
            first = max(M.hist_percentile(hg, 0), lo)  # a first bin from 0 s: the axis's end
            longest = M.hist_percentile(hg, 100)
            inside = (y > first) & (y < longest)
            y_all, d_all = y, d
            y = np.concatenate([[first], y_all[inside], [longest]])
            d = np.interp(y, y_all, d_all)
            x0 = gi + (si - (n_s - 1) / 2) * width
            half = d / d.max() * width * 0.45
            ax.fill_betweenx(
                y * 1000,
                x0 - half,
                x0 + half,
                color=colors[s],
                alpha=0.55,
                linewidth=0.4,
                edgecolor="black",
                label=s or None,
            )
            med = M.hist_percentile(hg, 50) * 1000
            ax.plot([x0 - width * 0.3, x0 + width * 0.3], [med, med], color="black", lw=0.8)
            iv = M.mean_interval(_per_run_mean_ms(h))
            intervals.append(iv)
            marks = {
                level: g,
                "scheduler": s,
                "median_ms": med,
                "longest_ms": longest * 1000,
                **_iv_columns(iv, "mean_ms_"),
                "thesis_mean_ms": (thesis_ms or {}).get(s, {}).get(g, float("nan")),
            }
            data += [
                {**marks, "bin_start_ms": b0 * 1000, "bin_width_ms": bw * 1000, "packets": c}
                for b0, bw, c in hg[["bin_start_s", "bin_width_s", "count"]].itertuples(
                    index=False, name=None
                )
            ]
            ax.errorbar(
                [x0],
                [iv.mean],
                yerr=_yerr([iv]) if iv.kind else None,
                fmt="o",
                color="black",
                mfc="white",
                ms=3.5,
                capsize=2,
                lw=0.8,
                label="mean (all packets)",
            )
            ax.plot([x0], [longest * 1000], marker="_", color=colors[s], ms=7, mew=1.5)
            if thesis_ms and g in thesis_ms.get(s, {}):
                ax.plot(
                    [x0],
                    [thesis_ms[s][g]],
                    marker="D",
                    color="crimson",
                    ms=4,
                    ls="none",
                    label="thesis mean",
                )
    _log_axis(ax, "y")
    ax.set_ylim(lo * 1000, hi * 1000)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"priority {g}" if level == "priority" else g for g in groups])
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_ylabel("packet delay (ms, log scale)")
    ax.grid(axis="x", visible=False)
    _suptitle(fig, f"{title} ({M.interval_text(intervals) if intervals else runs_text(runs)})")
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [
        Patch(facecolor=colors[s], alpha=0.55, edgecolor="black", lw=0.4) for s in schedulers
    ]
    labels = list(schedulers)
    handles += [
        Line2D([], [], color="black", lw=0.8),
        Line2D([], [], marker="o", color="black", mfc="white", ms=3.5, ls="none"),
        Line2D([], [], marker="_", color="gray", ms=7, mew=1.5, ls="none"),
    ]
    labels += ["median", "mean", "longest"]
    if thesis_ms:
        handles.append(Line2D([], [], marker="D", color="crimson", ms=4, ls="none"))
        labels.append("thesis mean")
    _legend(fig, handles, labels)
    note = (
        "Violins from the delay histograms weighted by packet count, pooled over the RNG runs, on "
        "a log axis that holds every packet; line = median, dot = mean of all packets (with the "
        f"{_BARS} of the runs' means), dash = the longest delay (the end of its histogram bin); "
        "each body spans its packets from the shortest delay to the longest."
        + (" Diamonds: the thesis's mean delay (Table 3.5)." if thesis_ms else "")
    )
    return _save(fig, out, name) + _save_data(out, name, pd.DataFrame(data)), note


def fig_cdf(
    hists: pd.DataFrame,
    schedulers: list[str],
    groups: list[str] | None,
    out: Path,
    name: str,
    title: str,
    runs: int = 1,
) -> list[str]:
    """Cumulative distribution of packet delay (log axis), overall or one panel per group."""
    panels = groups if groups else ["all"]
    nrow, ncol = _grid_shape(len(panels))
    width = PAGE_IN if groups else COLUMN_IN
    fig, axes = _fig(
        width, (1.7 * nrow + 0.5) if groups else 2.6, nrow, ncol, sharex=True, sharey=True
    )
    colors = _colors(schedulers)
    have = hists[hists["count"] > 0]
    ends = have["bin_start_s"] + have["bin_width_s"]
    lo = max(float(ends.min()) if len(have) else 1e-4, 1e-5)
    hi_all = float(ends.max()) if len(have) else 1.0
    data = []
    for i, g in enumerate(panels):
        ax = axes[i // ncol][i % ncol]
        for s in schedulers:
            h = hists[hists["scheduler"] == s]
            if groups:
                h = h[h["type"] == g]
            if h["count"].sum() == 0:
                continue
            x, F = M.hist_cdf(h)
            data.append(pd.DataFrame({"type": g, "scheduler": s, "delay_ms": x * 1000, "cdf": F}))
            ax.step(
                np.maximum(x, lo) * 1000, F, where="post", label=s or None, color=colors[s], lw=1
            )
        _log_axis(ax, "x", dense=not groups or hi_all / lo < 15)
        if groups:
            ax.set_title(g)
        ax.set_xlabel("delay (ms)")
        ax.tick_params(labelbottom=True)  # also on panels with no panel below
        if i % ncol == 0:
            ax.set_ylabel("CDF")
        ax.set_ylim(0, 1.01)
    for j in range(len(panels), nrow * ncol):
        axes[j // ncol][j % ncol].axis("off")
    _suptitle(fig, f"{title} ({runs_text(runs).split(',')[0]}, pooled)")
    _legend(fig)
    return _save(fig, out, name) + _save_data(out, name, _concat(data))


def fig_ccdf(
    hists: pd.DataFrame,
    schedulers: list[str],
    groups: list[str],
    out: Path,
    name: str,
    title: str,
    runs: int = 1,
) -> list[str]:
    """The tail of packet delay: P(delay > x) on log-log axes (metrics.hist_ccdf), one panel
    per flow type on common axes, down to one packet in the panel with the most packets."""
    nrow, ncol = _grid_shape(len(groups))
    fig, axes = _fig(PAGE_IN, 1.7 * nrow + 0.5, nrow, ncol, sharex=True, sharey=True)
    colors = _colors(schedulers)
    have = hists[hists["count"] > 0]
    ends = have["bin_start_s"] + have["bin_width_s"]
    lo = max(float(have["bin_start_s"].min()) if len(have) else 1e-4, 1e-5)
    hi_all = float(ends.max()) if len(have) else 1.0
    most = max(
        (
            float(hists[(hists["scheduler"] == s) & (hists["type"] == g)]["count"].sum())
            for s in schedulers
            for g in groups
        ),
        default=1.0,
    )
    floor = 1.0 / max(most, 10.0)  # one packet of the largest panel
    data = []
    for i, g in enumerate(groups):
        ax = axes[i // ncol][i % ncol]
        for s in schedulers:
            h = hists[(hists["scheduler"] == s) & (hists["type"] == g)]
            if h["count"].sum() == 0:
                continue
            x, tail = M.hist_ccdf(h)
            data.append(
                pd.DataFrame({"type": g, "scheduler": s, "delay_ms": x * 1000, "ccdf": tail})
            )
            # the last step falls to 0 beyond the longest delay: drawn down through the axis
            ax.step(
                np.maximum(x, lo) * 1000,
                np.maximum(tail, floor / 10),
                where="post",
                label=s or None,
                color=colors[s],
                lw=1,
            )
        _log_axis(ax, "x", dense=hi_all / lo < 1000)
        _log_axis(ax, "y", dense=False)
        _title(ax, g)
        ax.set_xlabel("delay (ms)")
        ax.tick_params(labelbottom=True)
        if i % ncol == 0:
            ax.set_ylabel("P(delay > x)")
        ax.set_ylim(floor * 0.8, 1.2)
    for j in range(len(groups), nrow * ncol):
        axes[j // ncol][j % ncol].axis("off")
    _suptitle(fig, f"{title} ({runs_text(runs).split(',')[0]}, pooled)")
    _legend(fig)
    return _save(fig, out, name) + _save_data(out, name, _concat(data))


def _concat(parts: list[pd.DataFrame]) -> pd.DataFrame:
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


#: what the error bars are, in the captions (metrics.mean_interval)
_BARS = (
    f"95% confidence interval over the RNG runs with {M.CI_MIN_RUNS} or more, the spread "
    f"min..max with 2 (too few for a meaningful interval), nothing with 1; never below 0"
)

#: columns of a tidy row that are its RNG run under the scenario's own option name
_RNG_COLUMNS = ("cfg.rng-run", "cfg.RngRun", "cfg.run")


def _setting_columns(summary: pd.DataFrame) -> list[str]:
    """The columns that make a run's configuration (its scheduler aside): the preset, every
    resolved option and attribute, not the RNG run."""
    return [
        c
        for c in summary.columns
        if (c == "preset" or c.startswith(("cfg.", "attr."))) and c not in _RNG_COLUMNS
    ]


def _varying_settings(summary: pd.DataFrame) -> pd.Series:
    """Per row, the settings in which its run differs from other runs of its scheduler, as
    ((column, value), ...); () where the scheduler has one configuration."""
    out = pd.Series([()] * len(summary), index=summary.index, dtype=object)
    if summary.empty:
        return out
    cols = _setting_columns(summary)
    for _, part in summary.groupby("scheduler", sort=False):
        text = part[cols].astype(str)
        varying = [c for c in cols if text[c].nunique() > 1]
        if varying:
            out[part.index] = [
                tuple(zip(varying, row, strict=True))
                for row in text[varying].itertuples(index=False, name=None)
            ]
    return out


def _settings_label(settings) -> str:
    return T.point_label([(_short(c), v) for c, v in settings])


def configurations(summary: pd.DataFrame) -> pd.Series:
    """Per row, its run's configuration among those of its scheduler, as the settings that
    differ between them ("ratio=1.5"); "" where the scheduler has one configuration. Runs with
    the same label differ only in their RNG run: the replications a mean is taken over."""
    return _varying_settings(summary).map(_settings_label)


def group_ci(summary: pd.DataFrame, metric: str, level: str, direction: str) -> pd.DataFrame:
    """Mean of ``metric`` over the RNG runs of each configuration per (group, scheduler,
    configuration), with its interval (metrics.mean_interval): columns group, scheduler,
    config, mean, lo, hi, n, interval."""
    s = summary[(summary["direction"] == direction) & (summary["level"] == level)]
    settings = _varying_settings(s)
    s = s.assign(_config=settings.map(_settings_label), _settings=settings)
    rows = []
    for (g, sched, conf), part in s.groupby(["group", "scheduler", "_config"], sort=False):
        iv = M.mean_interval(part[metric].to_numpy(float))
        rows.append(
            {
                "group": str(g),
                "scheduler": sched,
                "config": conf,
                "settings": part["_settings"].iloc[0],
                "mean": iv.mean,
                "lo": iv.lo,
                "hi": iv.hi,
                "n": iv.n,
                "interval": iv,
            }
        )
    return pd.DataFrame(
        rows,
        columns=["group", "scheduler", "config", "settings", "mean", "lo", "hi", "n", "interval"],
    )


def fig_throughput(
    summary: pd.DataFrame,
    direction: str,
    out: Path,
    name: str,
    title: str,
    runs: int = 1,
    thesis_kbps: dict[str, dict[str, float]] | None = None,
    thesis_label: str = "thesis",
) -> list[str]:
    """Mean flow throughput per flow type: one panel per type (each on its own linear axis from
    0), bars per scheduler with 95 % CIs over RNG runs, the thesis's values as markers."""
    pts = group_ci(summary, "throughput_kbps", "type", direction)
    types = list(dict.fromkeys(pts["group"]))
    series = list(dict.fromkeys(zip(pts["scheduler"], pts["config"], strict=True)))
    colors = _colors([f"{s} {c}".strip() for s, c in series])
    nrow, ncol = _grid_shape(len(types))
    fig, axes = _fig(PAGE_IN, 1.6 * nrow + 0.5, nrow, ncol)
    for i, t in enumerate(types):
        ax = axes[i // ncol][i % ncol]
        for j, (s, conf) in enumerate(series):
            p = pts[(pts["group"] == t) & (pts["scheduler"] == s) & (pts["config"] == conf)]
            if p.empty:
                continue
            iv = p["interval"].iloc[0]
            label = f"{s} {conf}".strip()
            ax.bar(
                j,
                iv.mean,
                color=colors[label],
                label=label,
                yerr=_yerr([iv]) if iv.kind else None,
                capsize=2,
                error_kw={"lw": 0.8},
            )
            v = (thesis_kbps or {}).get(s, {}).get(t)
            if v is not None and np.isfinite(v):
                ax.plot([j], [v], marker="D", color="crimson", ms=4, ls="none", label=thesis_label)
        ax.set_title(t)
        ax.set_xticks([])
        ax.set_ylim(bottom=0)
        ax.grid(axis="x", visible=False)
        if i % ncol == 0:
            ax.set_ylabel("kbps")
    for j in range(len(types), nrow * ncol):
        axes[j // ncol][j % ncol].axis("off")
    ivs = list(pts["interval"])
    _suptitle(fig, f"{title} ({M.interval_text(ivs) if ivs else runs_text(runs)})")
    _legend(fig)
    data = pd.DataFrame(
        [
            {
                "type": r.group,
                "scheduler": r.scheduler,
                "config": r.config,
                **_iv_columns(r.interval, "kbps_"),
                "thesis_kbps": (thesis_kbps or {}).get(r.scheduler, {}).get(r.group, float("nan")),
            }
            for r in pts.itertuples(index=False)
        ]
    )
    return _save(fig, out, name) + _save_data(out, name, data)


def class_shares(root: Path, hashes: list[str]) -> pd.DataFrame:
    """Per run of a scheduler with classes (qdisc.csv rows with class >= 0): each class's share
    of the bytes its busiest queue disc sent (the one that dropped most: the bottleneck), and
    the share ``Ratio^p / sum Ratio^q`` that MSFC gives backlogged classes."""
    rows = []
    for h in hashes:
        d = root / "runs" / h
        if not (d / "qdisc.csv").exists():
            continue
        q = pd.read_csv(d / "qdisc.csv")
        if "class" not in q.columns or not (q["class"] >= 0).any():
            continue
        q = q[q["class"] >= 0]
        drops = q[_drop_columns(q)].sum(axis=1) if _drop_columns(q) else q["dequeued_bytes"]
        q = q.assign(_drops=drops)
        per_dev = q.groupby(["node", "device"], sort=False)[["_drops", "dequeued_bytes"]].sum()
        node, dev = per_dev.sort_values(["_drops", "dequeued_bytes"]).index[-1]
        b = q[(q["node"] == node) & (q["device"] == dev)].groupby("class")["dequeued_bytes"].sum()
        cfg = json.loads((d / "config.json").read_text())
        meta = json.loads((d / "meta.json").read_text()) if (d / "meta.json").exists() else {}
        ratio = cfg.get("attrs", {}).get("Msfc.Ratio") or (meta.get("config") or {}).get("ratio")
        ratio = float(ratio) if ratio is not None else float("nan")
        classes = sorted(int(c) for c in b.index)
        weights = {c: ratio**c for c in classes}
        total = b.sum()
        for c in classes:
            rows.append(
                {
                    "scheduler": cfg.get("resolved", {}).get("scheduler", ""),
                    "config_hash": h,
                    "hop": f"{node} -> {dev}",
                    "class": c,
                    "share": b.loc[c] / total if total else float("nan"),
                    "expected": weights[c] / sum(weights.values()),
                    "ratio": ratio,
                }
            )
    return pd.DataFrame(rows)


def fig_class_share(
    shares: pd.DataFrame, out: Path, name: str, runs: int, order: list[str] | None = None
) -> list[str]:
    """Each class's share of the bottleneck's bytes per scheduler with classes, and the share
    Ratio^p / sum Ratio^q (colours as in the other figures: ``order`` is the report's
    schedulers)."""
    schedulers = list(dict.fromkeys(shares["scheduler"]))
    fig, axes = _fig(COLUMN_IN, 2.6)
    ax = axes[0][0]
    classes = sorted(shares["class"].unique())
    colors = _colors(order or schedulers)
    width = 0.8 / max(1, len(schedulers))
    intervals = []
    data = []
    for j, s in enumerate(schedulers):
        part = shares[shares["scheduler"] == s]
        for c in classes:
            iv = M.mean_interval(part[part["class"] == c]["share"].to_numpy(float))
            intervals.append(iv)
            data.append(
                {
                    "scheduler": s,
                    "class": c,
                    **_iv_columns(iv, "share_"),
                    "expected_share": part[part["class"] == c]["expected"].mean(),
                }
            )
            x = c + (j - (len(schedulers) - 1) / 2) * width
            ax.bar(
                x,
                iv.mean,
                width * 0.9,
                color=colors[s],
                label=s,
                yerr=_yerr([iv]) if iv.kind else None,
                capsize=2,
                error_kw={"lw": 0.8},
            )
            e = part[part["class"] == c]["expected"].mean()
            if np.isfinite(e):
                ax.plot(
                    [x - width * 0.45, x + width * 0.45],
                    [e, e],
                    color="crimson",
                    lw=1.5,
                    label=r"$\mathrm{Ratio}^p / \sum_q \mathrm{Ratio}^q$",
                )
    ax.set_xticks(classes)
    ax.set_xticklabels([f"class {c}" for c in classes])
    ax.set_ylabel("share of the bytes sent")
    ax.set_ylim(0, 1)
    ax.grid(axis="x", visible=False)
    _suptitle(
        fig,
        f"Class shares at the bottleneck\n"
        f"({M.interval_text(intervals) if intervals else runs_text(runs)})",
    )
    _legend(fig)
    return _save(fig, out, name) + _save_data(out, name, pd.DataFrame(data))


def _class_series(d: Path, direction: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """class_series.csv (scenario-isp-tree) in ``direction`` (``all``: both summed): goodput
    (Mbit/s) and the mean time the delivered packets spent queued (ms), per class and time."""
    t = pd.read_csv(d / "class_series.csv")
    if direction != "all":
        t = t[t["direction"] == direction]
    t = t.assign(queued=t["queued_mean_s"].fillna(0) * t["packets"])
    g = t.groupby(["class", "time_s"], as_index=False)[["goodput_bps", "packets", "queued"]].sum()
    goodput = pd.DataFrame(
        {"class": g["class"], "time_s": g["time_s"], "value": g["goodput_bps"] / 1e6}
    )
    q = g[g["packets"] > 0]
    queued = pd.DataFrame(
        {"class": q["class"], "time_s": q["time_s"], "value": q["queued"] / q["packets"] * 1000}
    )
    return goodput, queued


def _has_classes(d: Path) -> bool:
    """Whether the run's scheduler has classes of its own: its qdisc.csv has rows with
    ``class >= 0`` (a classless one writes -1), or it wrote per-class series
    (class_timeseries.csv)."""
    if (d / "class_timeseries.csv").exists():
        return True
    if not (d / "qdisc.csv").exists():
        return False
    q = pd.read_csv(d / "qdisc.csv")
    return "class" in q.columns and bool((q["class"] >= 0).any())


def load_time_series(root: Path, hashes: list[str], direction: str = "down") -> pd.DataFrame:
    """Per-class time series a scenario recorded (docs/data-format.md): goodput from
    timeseries.csv (per flow, summed per class), class_timeseries.csv (rate_bps) or
    class_series.csv (goodput_bps, in ``direction``); queue delay from qdelay.csv (per packet in
    the scheduler, mean per class and 0.1 s) or class_series.csv (summed over the packet's path,
    mean per class and interval). Columns: scheduler, config_hash, rng_run, kind (goodput_mbps
    | qdelay_ms), class, time_s, value, source (the file), has_classes (the scheduler has
    classes; otherwise ``class`` is the flows' priority label, DSCP, and no class of it)."""
    parts = []
    for h in hashes:
        d = root / "runs" / h
        try:
            cfg = json.loads((d / "config.json").read_text())
        except (OSError, ValueError):
            continue
        ident = {
            "scheduler": cfg.get("resolved", {}).get("scheduler", ""),
            "config_hash": h,
            "rng_run": cfg.get("rng_run", 1),
            "has_classes": _has_classes(d),
        }
        flows = pd.read_csv(d / "flows.csv")[["flow_id", "priority"]]
        if (d / "class_series.csv").exists():
            goodput, queued = _class_series(d, direction)
            for kind, part in (("goodput_mbps", goodput), ("qdelay_ms", queued)):
                parts.append(part.assign(**ident, kind=kind, source="class_series.csv"))
            continue
        if (d / "timeseries.csv").exists():
            t = pd.read_csv(d / "timeseries.csv").merge(flows, on="flow_id")
            g = t.groupby(["priority", "time_s"], as_index=False)["throughput_bps"].sum()
            parts.append(
                pd.DataFrame(
                    {
                        **ident,
                        "kind": "goodput_mbps",
                        "class": g["priority"],
                        "time_s": g["time_s"],
                        "value": g["throughput_bps"] / 1e6,
                        "source": "timeseries.csv",
                    }
                )
            )
        elif (d / "class_timeseries.csv").exists():
            t = pd.read_csv(d / "class_timeseries.csv")
            parts.append(
                pd.DataFrame(
                    {
                        **ident,
                        "kind": "goodput_mbps",
                        "class": t["class"],
                        "time_s": t["time_s"],
                        "value": t["rate_bps"] / 1e6,
                        "source": "class_timeseries.csv",
                    }
                )
            )
        if (d / "qdelay.csv").exists():
            t = pd.read_csv(d / "qdelay.csv").merge(flows, on="flow_id")
            t["time_s"] = (t["time_s"] / 0.1).round() * 0.1
            g = t.groupby(["priority", "time_s"], as_index=False)["delay_s"].mean()
            parts.append(
                pd.DataFrame(
                    {
                        **ident,
                        "kind": "qdelay_ms",
                        "class": g["priority"],
                        "time_s": g["time_s"],
                        "value": g["delay_s"] * 1000,
                        "source": "qdelay.csv",
                    }
                )
            )
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def fig_time_series(ts: pd.DataFrame, kind: str, out: Path, name: str, ylabel: str) -> list[str]:
    """One panel per scheduler, one line per class: the mean over the RNG runs at each time,
    with its 95 % confidence interval as a band when there are several runs."""
    t = ts[ts["kind"] == kind]
    schedulers = list(dict.fromkeys(t["scheduler"]))
    nrow, ncol = _grid_shape(len(schedulers), 2)
    fig, axes = _fig(PAGE_IN if ncol > 1 else COLUMN_IN, 1.8 * nrow + 0.5, nrow, ncol, sharey=True)
    classes = sorted(t["class"].unique())
    cyc = _colors([str(c) for c in classes])
    # a classless scheduler (FQ-CoDel) has no classes: its lines are the flows' priority labels
    classed = [s for s in schedulers if t[t["scheduler"] == s]["has_classes"].any()]
    if len(classed) == len(schedulers):
        names = {c: f"class {c}" for c in classes}
    elif not classed:
        names = {c: f"priority {c}" for c in classes}
    else:
        names = {c: f"priority {c} ({', '.join(classed)}: class {c})" for c in classes}
    floor = None
    if kind == "qdelay_ms":  # log axis: from a third of the smallest mean
        means = t.groupby(["scheduler", "class", "time_s"])["value"].mean()
        floor = float(means[means > 0].min() / 3) if (means > 0).any() else None
    data = []
    for i, s in enumerate(schedulers):
        ax = axes[i // ncol][i % ncol]
        part = t[t["scheduler"] == s]
        n_runs = part["rng_run"].nunique()
        intervals = []
        for c in classes:
            rows = [
                (tm, M.mean_interval(g["value"]))
                for tm, g in part[part["class"] == c].groupby("time_s", sort=True)
            ]
            if not rows:
                continue
            data += [
                {"scheduler": s, "line": names[c], "time_s": tm, **_iv_columns(iv, f"{kind}_")}
                for tm, iv in rows
            ]
            intervals += [iv for _, iv in rows]
            tm = np.array([r[0] for r in rows], float)
            mean = np.array([r[1].mean for r in rows], float)
            ax.plot(tm, mean, lw=0.9, color=cyc[str(c)], label=names[c])
            if n_runs > 1:
                band = [
                    r[1] if r[1].kind else M.Interval(r[1].mean, r[1].mean, r[1].mean, 1, "")
                    for r in rows
                ]
                lo = np.nan_to_num(np.array([b.lo for b in band], float))
                hi = np.nan_to_num(np.array([b.hi for b in band], float))
                # on the log axis a band reaching below the axis is cut at its bottom
                lo = np.maximum(lo, floor or 0.0)  # goodput and delay are >= 0
                ax.fill_between(tm, lo, hi, color=cyc[str(c)], alpha=0.2, lw=0)
        _title(ax, f"{s} ({M.interval_text(intervals) if intervals else runs_text(n_runs)})")
        ax.set_xlabel("time (s)")
        if i % ncol == 0:
            ax.set_ylabel(ylabel)
        if kind == "qdelay_ms":
            _log_axis(ax, "y")
    if floor:  # once every panel is drawn: the panels share the axis, the top fits them all
        axes[0][0].set_ylim(bottom=floor)
    for j in range(len(schedulers), nrow * ncol):
        axes[j // ncol][j % ncol].axis("off")
    _legend(fig)
    return _save(fig, out, name) + _save_data(out, name, pd.DataFrame(data))


def sweep_points(
    summary: pd.DataFrame,
    x: str,
    series: list[str],
    metric: str,
    level: str = "overall",
    group: str | None = None,
    direction: str = "down",
) -> pd.DataFrame:
    """Mean of ``metric`` over seeds at every (x, series) point, with its interval
    (metrics.mean_interval): columns x, series..., mean, lo, hi, n, interval."""
    s = summary[(summary["level"] == level) & (summary["direction"] == direction)]
    if group is not None:
        s = s[s["group"] == group]
    rows = []
    for key, g in s.groupby([x] + series, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        iv = M.mean_interval(g[metric].to_numpy(float))
        rows.append(
            dict(
                zip([x] + series, key, strict=False),
                mean=iv.mean,
                lo=iv.lo,
                hi=iv.hi,
                n=iv.n,
                interval=iv,
            )
        )
    df = pd.DataFrame(rows)
    if len(df):
        df["_x"] = _numeric_or_rank(df[x])
        df = df.sort_values("_x")
    return df


def _numeric_or_rank(col: pd.Series) -> pd.Series:
    try:
        return col.astype(str).map(_as_number)
    except ValueError:
        order = {v: i for i, v in enumerate(pd.unique(col))}
        return col.map(order).astype(float)


def _as_number(text: str) -> float:
    from ..sim.config import parse_datarate, parse_time

    for f in (float, parse_time, parse_datarate):
        try:
            return f(text)
        except ValueError:
            continue
    raise ValueError(text)


def fig_sweep(
    summary: pd.DataFrame,
    x: str,
    series: list[str],
    metric: str,
    out: Path,
    name: str,
    direction: str,
    level: str = "overall",
    groups: list[str] | None = None,
) -> list[str]:
    fig, axes = _fig(COLUMN_IN, 2.8)
    ax = axes[0][0]
    numeric = True
    try:
        summary[x].dropna().astype(str).map(_as_number)
    except ValueError:
        numeric = False
    # a category axis: one position per value over all lines
    cats = list(dict.fromkeys(str(v) for v in summary[x]))
    n_lines = 0
    intervals: list[M.Interval] = []
    data = []
    for group in groups or [None]:
        pts = sweep_points(summary, x, series, metric, level, group, direction)
        if pts.empty:
            continue
        data += [
            {
                **({level: group} if group else {}),
                **{_short(c): r[c] for c in [x] + series},
                **_iv_columns(r["interval"], f"{metric}_"),
            }
            for _, r in pts.iterrows()
        ]
        # lines by their keys' text: an empty key (a scheduler without the option) is one too
        pts["_key"] = (
            ["|".join(str(v) for v in r) for r in pts[series].itertuples(index=False, name=None)]
            if series
            else ""
        )
        for k in dict.fromkeys(pts["_key"]):
            p = pts[pts["_key"] == k]
            first = p.iloc[0]
            label = T.point_label([(_short(c), first[c]) for c in series])
            label = " ".join(v for v in (f"{level} {group}" if group else "", label) if v) or None
            ivs = list(p["interval"])
            intervals += ivs
            yerr = _yerr(ivs)
            mean = p["mean"].to_numpy(float)
            color = f"C{n_lines % 10}"
            n_lines += 1
            if numeric and p["_x"].isna().all():
                # swept only where it applies: this line's runs do not use x, a constant
                ax.axhline(mean[0], lw=1, ls="--", color=color, label=f"{label}, no {_short(x)}")
                if ivs[0].kind:
                    ax.axhspan(ivs[0].lo, ivs[0].hi, color=color, alpha=0.15)
                continue
            xs = (
                p["_x"].to_numpy(float)
                if numeric
                else np.array([cats.index(str(v)) for v in p[x]], float)
            )
            ax.errorbar(xs, mean, yerr=yerr, marker="o", capsize=3, label=label, color=color)
    if not numeric:
        ax.set_xticks(np.arange(len(cats)))
        ax.set_xticklabels(cats)
    ax.set_xlabel(_short(x))
    ax.set_ylabel(M.heading(metric))
    runs = int(summary.groupby([x] + series, dropna=False)["rng_run"].nunique().max())
    what = M.interval_text(intervals) if intervals else runs_text(runs)
    _suptitle(fig, f"{M.heading(metric)} vs {_short(x)}\n({what})")
    _legend(fig)
    return _save(fig, out, name) + _save_data(out, name, pd.DataFrame(data))


def _short(col: str) -> str:
    return col.split(".", 1)[1] if col.startswith(("cfg.", "attr.")) else col


# --------------------------------------------------------------------------- HTML

CSS = """body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222}
table.data{border-collapse:collapse;margin:0.5em 0 1.5em}
table.data th,table.data td{border:1px solid #bbb;padding:3px 8px;text-align:right}
table.data th:first-child{text-align:left}
caption{font-weight:bold;text-align:left;padding:4px 0;min-width:32em}
figure{margin:1em 0} figure.half{display:inline-block;vertical-align:top;width:48%;margin-right:1%}
figure img{width:700px} figure.half img{width:350px}
figcaption{font-size:90%;color:#444;max-width:900px}
img{max-width:100%} code{background:#f3f3f3;padding:1px 3px}
p.dl{margin:-1.2em 0 1.5em;font-size:85%}
p.note{background:#fff8e0;padding:4px 8px}"""


def _figure(files: list[str], caption: str, cls: str = "") -> str:
    svg = next(f for f in files if f.endswith(".svg"))
    links = ", ".join(
        f"<a href='{html.escape(f)}'>{f.rsplit('.', 1)[1].upper()}</a>" for f in files
    )
    attr = f" class='{cls}'" if cls else ""
    return (
        f"<figure{attr}><img src='{html.escape(svg)}' alt='{html.escape(caption)}'>"
        f"<figcaption>{html.escape(caption)} ({links})</figcaption></figure>"
    )


def _metric_glossary(names) -> str:
    rows = "".join(
        f"<tr><th>{html.escape(M.heading(n))}</th><td style='text-align:left'>"
        f"<code>{n}</code>: {html.escape(M.METRICS[n].definition)}</td></tr>"
        for n in names
    )
    return f"<table class='data'><caption>Metrics</caption>{rows}</table>"


@dataclass
class _Results:
    """A results directory as the report reads it: its study.json, the runs that finished and
    their tidy tables, and where the report goes."""

    root: Path
    out: Path
    study: dict
    kind: str
    direction: str
    hashes: list[str]  # every configuration of the study
    done: list[str]  # those that finished
    summary: pd.DataFrame
    flows: pd.DataFrame
    schedulers: list[str]

    def runs_per_scheduler(self) -> int:
        """The most RNG runs any scheduler has (what the figures' titles count)."""
        return int(self.summary.groupby("scheduler")["rng_run"].nunique().max())


def make_report(root: Path, out: Path | None = None, direction: str | None = None) -> Path:
    """``msfc report DIR``: the page ``OUT/index.html`` (default OUT: DIR/report) with its
    figures (PNG, SVG, PDF and the CSV they draw) and tables (LaTeX beside them)."""
    r = _load_results(Path(root), out, direction)
    if r.kind in ("run", "compare"):
        sections, metrics = _run_sections(r)
    elif r.kind == "sweep":
        sections, metrics = _sweep_sections(r)
    else:
        raise UserError(f"{r.root}/study.json has an unknown kind '{r.kind}'", 1)
    shown = set(M.OVERALL_TABLE) | set(M.TYPE_TABLES) | metrics
    body = _heading(r) + sections + _definitions(shown)
    title = f"MSFC {html.escape(r.kind)} {html.escape(r.study.get('scenario', ''))}"
    return _write_page(r.out, title, body)


def _load_results(root: Path, out: Path | None, direction: str | None) -> _Results:
    """Read the study and the tidy tables of its finished runs, and make the report directory
    (refused when it is not one msfc may write, see runner.check_out_dir)."""
    study = read_study(root)
    out = Path(out) if out else root / "report"
    check_out_dir(out, "the report directory", f"write it elsewhere: msfc report {root} --out DIR")
    out.mkdir(parents=True, exist_ok=True)
    direction = direction or study.get("direction", "down")
    hashes = study.get("configs", [])
    summary, flows = collect(root, hashes)
    if summary.empty:
        raise UserError(
            f"{root} holds no finished simulation yet; run the command that made it again "
            f"(it resumes) and then `msfc report {root}`",
            1,
        )
    return _Results(
        root=root,
        out=out,
        study=study,
        kind=study.get("kind", "run"),
        direction=direction,
        hashes=hashes,
        done=[h for h in hashes if (root / "runs" / h / "done.json").exists()],
        summary=summary,
        flows=flows,
        schedulers=[str(s) for s in pd.unique(summary["scheduler"])],
    )


def _heading(r: _Results) -> list[str]:
    """The page's title and what it shows: the results directory, how many configurations
    finished, the direction of the flows, the command that made the results."""
    return [
        f"<h1>MSFC {html.escape(r.kind)}: {html.escape(r.study.get('scenario', ''))}</h1>",
        f"<p>Results directory <code>{html.escape(str(r.root.resolve()))}</code>; {len(r.done)} of "
        f"{len(r.hashes)} configurations finished; flows shown: direction <b>{html.escape(r.direction)}</b>. "
        f"Command: <code>msfc {html.escape(' '.join(r.study.get('argv', [])))}</code></p>",
    ]


def _definitions(metrics: set[str]) -> list[str]:
    """The closing section: the definition of every metric the page shows, and where the tidy
    data are."""
    return [
        "<h2>Definitions</h2>",
        _metric_glossary([m for m in M.METRICS if m in metrics]),
        "<p>Tidy data: <code>summary.parquet</code>/<code>.csv</code> (per group) and "
        "<code>flows.parquet</code>/<code>.csv</code> (per flow) in the results directory.</p>",
    ]


def _write_page(out: Path, title: str, body: list[str]) -> Path:
    """``OUT/index.html`` with this (already escaped) title and body, written whole."""
    page = (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title>"
        f"<style>{CSS}</style></head><body>" + "\n".join(body) + "</body></html>\n"
    )
    index = out / "index.html"
    _write(index, page)
    return index


# --------------------------------------------------------------------------- run and compare


#: rows of a run's or comparison's overall table beyond the thesis's (M.OVERALL_TABLE)
OVERALL_EXTRA = ["delay_mean_ms", "delay_p99_ms", "loss_ratio"]


def _run_sections(r: _Results) -> tuple[list[str], set[str]]:
    """The page of a run or comparison: the thesis-style tables, then the figures of delay and
    throughput, the fairness tables, class shares, time series and queue-disc tables (and the
    thesis's tables beside ours); and the metrics it shows beyond the overall and per-type
    tables."""
    thesis_thr, thesis_delay, thesis_label = _thesis_markers(r.summary, r.study.get("thesis"))
    body = _result_tables(r)
    body += _delay_figures(r, thesis_delay)
    body += _throughput_figure(r, thesis_thr, thesis_label)
    fairness = _fairness_section(r)
    body += fairness
    body += _class_share_figure(r)
    body += _time_series_figures(r)
    body += _qdisc_section(r)
    if r.kind == "compare" and r.study.get("thesis"):
        body.append(_thesis_section(r.summary, r.direction, r.study["thesis"], r.out))
    return body, set(OVERALL_EXTRA) | ({"jain_index"} if fairness else set())


def _result_tables(r: _Results) -> list[str]:
    """The overall table (like thesis Table 3.4) and the per flow type and per priority tables
    of every metric of M.TYPE_TABLES, mean over RNG runs."""
    body = [
        "<h2>Overall</h2>",
        _table(
            r.out,
            "table-overall",
            T.overall_table(
                r.summary,
                M.OVERALL_TABLE + OVERALL_EXTRA,
                r.direction,
            ),
            "Overall results (like thesis Table 3.4; mean over RNG runs)",
            "metric",
            metric_rows=True,
        ),
    ]
    for level in ("type", "priority"):
        body.append(f"<h2>Per flow {level}</h2>")
        for m in M.TYPE_TABLES:
            body.append(
                _table(
                    r.out,
                    f"table-{m}-{level}",
                    T.group_table(r.summary, m, level, r.direction),
                    f"{M.heading(m)} per flow {level}",
                    level,
                    metric=m,
                )
            )
    return body


def _delay_figures(r: _Results, thesis_delay) -> list[str]:
    """Delay distributions from the FlowMonitor histograms: violins per flow type and per
    priority, CDFs overall and per type, the tail (CCDF) per type."""
    runs = r.runs_per_scheduler()
    hists = load_histograms(r.root, r.done, r.direction)
    types = [str(t) for t in pd.unique(hists["type"])] if len(hists) else []
    prios = (
        sorted({str(p) for p in hists["priority"]}, key=lambda v: -float(v)) if len(hists) else []
    )
    body = ["<h2>Delay distributions</h2>"]
    if not types:
        return body + ["<p>No delay histograms (no packets received).</p>"]
    files, note = fig_violins(
        hists,
        "type",
        r.schedulers,
        types,
        r.out,
        "delay-violin-type",
        "Packet delay per flow type",
        runs,
        thesis_delay,
    )
    body.append(_figure(files, "Packet delay per flow type. " + note))
    files, note = fig_violins(
        hists,
        "priority",
        r.schedulers,
        prios,
        r.out,
        "delay-violin-priority",
        "Packet delay per priority",
        runs,
    )
    body.append(_figure(files, "Packet delay per priority. " + note))
    body.append(
        _figure(
            fig_cdf(
                hists,
                r.schedulers,
                None,
                r.out,
                "delay-cdf-overall",
                "Packet delay, all flows",
                runs,
            ),
            "Cumulative distribution of packet delay, all flows (log axis), packets of "
            "all RNG runs pooled.",
            "half",
        )
    )
    body.append(
        _figure(
            fig_cdf(
                hists,
                r.schedulers,
                types,
                r.out,
                "delay-cdf-type",
                "Packet delay per flow type",
                runs,
            ),
            "Cumulative distribution of packet delay per flow type (log axis).",
        )
    )
    body.append(
        _figure(
            fig_ccdf(
                hists,
                r.schedulers,
                types,
                r.out,
                "delay-ccdf-type",
                "Tail of packet delay per flow type, P(delay > x)",
                runs,
            ),
            "The tail of packet delay per flow type: the share of packets delayed more "
            "than x (1 - CDF), log-log axes, packets of all RNG runs pooled; a CDF squeezes "
            "the last per cent into its top edge, here each power of ten of the tail has "
            "the same height, down to one packet. A line ends where its longest delay ends.",
        )
    )
    return body


def _throughput_figure(r: _Results, thesis_thr, thesis_label: str) -> list[str]:
    """Mean flow throughput per flow type (with the thesis's markers where they compare), when
    there is a throughput per type to draw."""
    if T.group_table(r.summary, "throughput_kbps", "type", r.direction).empty:
        return []
    files = fig_throughput(
        r.summary,
        r.direction,
        r.out,
        "throughput-type",
        "Mean flow throughput per flow type",
        r.runs_per_scheduler(),
        thesis_thr,
        thesis_label,
    )
    return [
        "<h2>Throughput</h2>",
        _figure(
            files,
            "Mean throughput of a flow of each type (each type on its own linear axis "
            f"from 0), mean over RNG runs ({_BARS})."
            + (f" Diamonds: {thesis_label} (Table 3.7 or 3.9)." if thesis_thr else ""),
        ),
    ]


def _fairness_section(r: _Results) -> list[str]:
    """Jain's index and the throughput per client host (fairness_tables), if there are any."""
    fair = fairness_tables(r.flows, r.direction, r.out)
    if not fair:
        return []
    return [
        "<h2>Fairness</h2><p>Jain's fairness index of the throughputs (metrics.py "
        "<code>jain_index</code>) and the throughput of every client host, per run, mean "
        "over the RNG runs.</p>",
        *fair,
    ]


def _class_share_figure(r: _Results) -> list[str]:
    """Each class's share of the bottleneck's bytes against MSFC's share, when the runs
    recorded per-class counters."""
    shares = class_shares(r.root, r.done)
    if shares.empty:
        return []
    hops = ", ".join(dict.fromkeys(shares["hop"]))
    return [
        "<h2>Class shares</h2>",
        _figure(
            fig_class_share(shares, r.out, "class-share", r.runs_per_scheduler(), r.schedulers),
            f"Each class's share of the bytes sent by the queue disc that dropped most "
            f"(the bottleneck: {hops}), against the share Ratio^p / sum of Ratio^q that "
            f"MSFC gives classes that are all backlogged (red); a class that offers less "
            f"than its share leaves the rest to the others.",
            "half",
        ),
    ]


def _time_series_figures(r: _Results) -> list[str]:
    """Goodput and queueing delay per class over time, and a note naming the series that the
    runs did not record."""
    body = ["<h2>Over time</h2>"]
    ts = load_time_series(r.root, r.done, r.direction)
    kinds = set(ts["kind"]) if not ts.empty else set()
    path_series = not ts.empty and "class_series.csv" in set(ts["source"])
    if "goodput_mbps" in kinds:
        body.append(
            _figure(
                fig_time_series(ts, "goodput_mbps", r.out, "goodput-time", "goodput (Mbit/s)"),
                "Goodput per class over time (per priority label, DSCP, for schedulers "
                "without classes): application bytes received"
                + (
                    f" by the sinks of the class's {r.direction} flows per sampling interval"
                    if path_series
                    else ""
                )
                + f"; mean over the RNG runs (shaded: the {_BARS}).",
            )
        )
    if "qdelay_ms" in kinds:
        body.append(
            _figure(
                fig_time_series(ts, "qdelay_ms", r.out, "qdelay-time", "queue delay (ms)"),
                (
                    f"Queueing delay per class over time: the time the class's packets "
                    f"delivered to "
                    f"{dict(down='the clients', up='the server').get(r.direction, 'any node')}"
                    f" spent in queue discs, summed over their path (every hop's scheduler), "
                    f"mean per sampling interval; log axis"
                    if path_series
                    else "Queueing delay in the scheduler per class over time, mean per 0.1 s"
                )
                + f"; mean over the RNG runs (shaded: the {_BARS}).",
            )
        )
    if kinds != {"goodput_mbps", "qdelay_ms"}:
        missing = [
            w
            for k, w in (
                (
                    "goodput_mbps",
                    "goodput per class over time (timeseries.csv or class_timeseries.csv)",
                ),
                ("qdelay_ms", "queue delay per packet over time (qdelay.csv)"),
            )
            if k not in kinds
        ]
        body.append(
            f"<p>This scenario's runs record no {html.escape(' and no '.join(missing))}, so "
            f"these plots are not drawn; docs/data-format.md describes the files.</p>"
        )
    return body


def _qdisc_section(r: _Results) -> list[str]:
    """The queue discs' counters from qdisc.csv (qdisc_tables), if the runs wrote them."""
    qd = qdisc_tables(r.root, r.done, r.out)
    if not qd:
        return []
    return [
        "<h2>Queue discs</h2><p>From <code>qdisc.csv</code>: totals over every device of "
        "every node at the end of the run, mean over RNG runs.</p>",
        *qd,
    ]


# --------------------------------------------------------------------------- sweep


def _sweep_sections(r: _Results) -> tuple[list[str], set[str]]:
    """The page of a sweep: each overall metric (and, for a one-dimensional grid, throughput
    and delay per priority) against the swept parameter, the table of means, the notes on
    modes that changed nothing and the configurations that failed; and the metrics it shows
    beyond the overall and per-type tables."""
    cols = _swept_columns(r)
    body = _sweep_figures(r, cols)
    body.append(_sweep_table(r, cols))
    body += _mode_notes(r.root / "runs" / h for h in r.done)
    body += _failed_configurations(r)
    return body, set(SWEEP_METRICS)


def _swept_columns(r: _Results) -> list[str]:
    """The summary's columns of the swept parameters (study.json's grid_columns), the first one
    the x axis."""
    cols = r.study.get("grid_columns") or []
    cols = [c for c in cols if c in r.summary.columns]
    if not cols:
        raise UserError(f"{r.root}/study.json names no swept columns found in the results", 1)
    return cols


def _sweep_figures(r: _Results, cols: list[str]) -> list[str]:
    """Every metric of SWEEP_METRICS against the first swept column, one series per value of
    the others; throughput and delay per priority when only one column is swept."""
    x, series = cols[0], cols[1:]
    body = [
        "<h2>Overall metrics against the swept parameter</h2>",
        f"<p>Swept: {html.escape(', '.join(_short(c) for c in cols))}; "
        f"{r.study.get('seeds', 1)} RNG runs per point; error bars are 95% confidence intervals "
        f"of the mean over runs (Student's t) where a point has {M.CI_MIN_RUNS} or more runs, "
        f"the spread min..max where it has 2 (too few for a meaningful interval), never "
        f"below 0; each figure's title says which.</p>",
    ]
    for m in SWEEP_METRICS:
        body.append(
            _figure(
                fig_sweep(r.summary, x, series, m, r.out, f"sweep-{m}", r.direction),
                f"{M.heading(m)} against {_short(x)}: {M.METRICS[m].definition}.",
                "half",
            )
        )
    prios = sorted(
        {g for g in r.summary[r.summary["level"] == "priority"]["group"]}, key=lambda v: -float(v)
    )
    if prios and not series:
        for m in ("throughput_kbps", "delay_mean_ms"):
            body.append(
                _figure(
                    fig_sweep(
                        r.summary,
                        x,
                        [],
                        m,
                        r.out,
                        f"sweep-priority-{m}",
                        r.direction,
                        level="priority",
                        groups=prios,
                    ),
                    f"{M.heading(m)} per priority against {_short(x)}.",
                    "half",
                )
            )
    return body


def _sweep_table(r: _Results, cols: list[str]) -> str:
    """The overall metrics of every grid point, mean over its RNG runs."""
    s = r.summary[(r.summary["level"] == "overall") & (r.summary["direction"] == r.direction)]
    agg = T.estimates(s, cols, SWEEP_METRICS)
    agg["runs"] = s.groupby(cols, sort=False, dropna=False).size().to_numpy()
    agg.index = [
        T.point_label(
            zip([_short(c) for c in cols], k if isinstance(k, tuple) else (k,), strict=False)
        )
        for k in agg.index
    ]
    return _table(
        r.out,
        "table-sweep",
        agg,
        "Overall metrics, mean over RNG runs",
        "configuration",
        fmt_for=lambda c: c if c in M.METRICS else None,
    )


def _failed_configurations(r: _Results) -> list[str]:
    """The configurations that failed and did not finish since: command, exit code and the
    end of their stderr (from failed.json)."""
    runs = r.root / "runs"
    failed = [
        h
        for h in r.hashes
        if (runs / h / "failed.json").exists() and not (runs / h / "done.json").exists()
    ]
    if not failed:
        return []
    items = []
    for h in failed:
        f = json.loads((runs / h / "failed.json").read_text())
        items.append(
            f"<li><code>{html.escape(' '.join(f.get('argv', [])))}</code> exit code "
            f"{f.get('returncode')}<pre>{html.escape(f.get('stderr_tail', ''))}</pre></li>"
        )
    return [f"<h2>Failed configurations ({len(failed)})</h2><ul>{''.join(items)}</ul>"]


QDISC_COUNTERS = [
    "enqueued_packets",
    "dequeued_packets",
    "codel_drops",
    "overload_drops",
    "ecn_marks",
    "ce_threshold_marks",
    "auto_promotions",
    "auto_demotions",
]
#: counters shown only where some queue disc counted one (MSFC with CeThreshold or Auto)
_QDISC_IF_USED = {"ce_threshold_marks", "auto_promotions", "auto_demotions"}


def qdisc_tables(root: Path, hashes: list[str], out: Path) -> list[str]:
    """HTML tables of the queue disc counters (qdisc.csv is optional in the contract), each
    also as LaTeX in ``out``."""
    parts = []
    for h in hashes:
        f = root / "runs" / h / "qdisc.csv"
        if not f.exists():
            continue
        q = pd.read_csv(f)
        cfg = json.loads((root / "runs" / h / "config.json").read_text())
        q["run_scheduler"] = cfg.get("resolved", {}).get("scheduler", "")
        q["config_hash"] = h
        parts.append(q)
    if not parts:
        return []
    q = pd.concat(parts, ignore_index=True)
    cols = [
        c
        for c in QDISC_COUNTERS
        if c in q.columns and (c not in _QDISC_IF_USED or q[c].fillna(0).any())
    ]
    if not cols:
        return []
    # the counters of each run summed over its devices; the cells are means over the RNG runs
    # of a scheduler with their intervals (tables.estimates), the titles say how many runs
    per_run = q.groupby(["run_scheduler", "config_hash"], sort=False)[cols].sum().reset_index()
    tot = T.estimates(per_run, ["run_scheduler"], cols).T
    tot.index = [c.replace("_", " ") for c in tot.index]
    tot.columns.name = None
    parts = [
        _table(
            out,
            "table-qdisc-counters",
            tot,
            "Queue disc counters, all devices",
            "counter",
            runs=True,
        )
    ]
    where = drop_locations(q)
    if not where.empty:
        parts.append(
            _table(
                out,
                "table-drop-locations",
                where,
                "Where packets are dropped: AQM and overload drops per hop "
                "(node kind -> next hop kind)",
                "hop",
                runs=True,
            )
        )
    if "class" in q.columns and (q["class"] >= 0).any():
        drops = _drop_columns(q)
        qc = q[q["class"] >= 0]
        per = (
            qc.groupby(["run_scheduler", "config_hash", "class"], sort=False)[
                ["dequeued_packets"] + drops
            ]
            .sum()
            .reset_index()
        )
        for c in ["dequeued_packets"] + drops:
            t = T.estimates(per, ["class", "run_scheduler"], [c])[c].unstack("run_scheduler")
            t = t.reindex(columns=list(dict.fromkeys(per["run_scheduler"])))
            t.index = [f"class {int(i)}" for i in t.index]
            t.columns.name = None
            parts.append(
                _table(
                    out,
                    f"table-{c}-class",
                    t,
                    f"{c.replace('_', ' ')} per class (schedulers with classes)",
                    "class",
                    runs=True,
                )
            )
    return parts


def _drop_columns(q: pd.DataFrame) -> list[str]:
    """The qdisc.csv drop counters present in ``q`` (AQM and overload)."""
    return [c for c in ("codel_drops", "overload_drops") if c in q.columns]


def _tier(name) -> str:
    """The kind of a node or device name: 'AP7' -> 'AP', 'G1' -> 'G', 'wifi' -> 'wifi'."""
    name = str(name)
    return re.sub(r"\d+$", "", name) or name


def drop_locations(q: pd.DataFrame) -> pd.DataFrame:
    """Drops (AQM + overload) summed per hop kind ("AP -> wifi", "G -> G"), mean over the runs of
    each scheduler with its interval (metrics.Estimate cells); rows without a drop are left out.
    Needs qdisc.csv's node and device columns plus ``run_scheduler`` and ``config_hash``."""
    drops = _drop_columns(q)
    if not drops or not {"node", "device"} <= set(q.columns):
        return pd.DataFrame()
    d = q.assign(
        hop=[f"{_tier(n)} -> {_tier(v)}" for n, v in zip(q["node"], q["device"], strict=False)],
        drops=q[drops].sum(axis=1),
    )
    per_run = d.groupby(["run_scheduler", "config_hash", "hop"], sort=False)["drops"].sum()
    t = T.estimates(per_run.reset_index(), ["hop", "run_scheduler"], ["drops"])["drops"]
    t = t.unstack("run_scheduler").reindex(columns=list(dict.fromkeys(d["run_scheduler"])))
    t.columns.name = None
    t = t.fillna(0.0)
    t = t[(t.astype(float) > 0).any(axis=1)]
    if t.empty:
        return t
    order = t.astype(float).sort_values(list(t.columns), ascending=False).index
    return t.loc[order]


def _ip_key(address) -> tuple:
    """Addresses in numeric order (10.1.2.2 before 10.1.10.2); other names after them."""
    parts = str(address).split(".")
    if all(p.isdigit() for p in parts):
        return (0, *map(int, parts))
    return (1, str(address))


def fairness_tables(flows: pd.DataFrame, direction: str, out: Path) -> list[str]:
    """Jain's fairness index (metrics.fairness: over the client hosts and over the flows of each
    type) and the throughput of every client host, per scheduler and configuration, as means
    over the RNG runs with their intervals; empty without per-flow addresses."""
    if flows is None or flows.empty or not {"src", "dst", "config_hash"} <= set(flows.columns):
        return []
    jain, hosts = [], []
    for _, f in flows.groupby("config_hash", sort=False):
        # the run's identity: scheduler, RNG run and settings (configurations() labels them)
        ident = {c: f[c].iloc[0] for c in ["scheduler", "rng_run", *_setting_columns(f)]}
        for r in M.fairness(f, direction).itertuples(index=False):
            jain.append({**ident, "group": r.group, "jain": r.jain, "n": r.n})
        for host, kbps in M.client_throughput(f, direction).items():
            hosts.append({**ident, "host": str(host), "kbps": kbps})
    if not jain:
        return []
    parts = []
    for rows, key, value in ((jain, "group", "jain"), (hosts, "host", "kbps")):
        d = pd.DataFrame(rows)
        d["series"] = [
            f"{s} {c}".strip() for s, c in zip(d["scheduler"], configurations(d), strict=True)
        ]
        # Jain's index of n shares lies in 1/n .. 1: its intervals are cut to that range (a t
        # interval of indices near 1 reaches above 1); n is the most hosts or flows of a run
        bounds = (lambda part: M.jain_range(int(part["n"].max()))) if key == "group" else None
        t = T.estimates(d, [key, "series"], [value], bounds)[value].unstack("series")
        t = t.reindex(index=list(dict.fromkeys(d[key])), columns=list(dict.fromkeys(d["series"])))
        if key == "group":
            n = d.groupby("group", sort=False)["n"].max()
            t.index = [
                f"all hosts ({n[g]})" if g == "hosts" else f"{g} flows ({n[g]})" for g in t.index
            ]
            parts.append(
                _table(
                    out,
                    "table-jain",
                    t,
                    "Jain's fairness index (sum x)^2 / (n sum x^2) of the throughput of the client "
                    "hosts and of the flows of each type (1: all equal, 1/n: one has all; an "
                    "interval is cut to the index's range [1/n, 1])",
                    "among",
                    metric="jain_index",
                )
            )
        else:
            t = t.loc[sorted(t.index, key=_ip_key)]
            parts.append(
                _table(
                    out,
                    "table-host-throughput",
                    t,
                    f"Throughput per client host (kbps: the bytes its {direction} data flows "
                    f"delivered, over their active time)",
                    "host",
                    metric="throughput_kbps",
                )
            )
    return parts


def _thesis_markers(summary: pd.DataFrame, basis_json: dict | None):
    """The thesis's throughput and delay per type for figure markers, where they compare like
    with like (the basis `msfc compare --thesis` recorded), and the markers' label."""
    if not basis_json:
        return None, None, ""
    from . import thesis

    try:
        data = thesis.load()
    except UserError:
        return None, None, ""
    basis = thesis.Basis.from_json(basis_json)
    label = f"thesis x{basis.scale:g}" if basis.scaled else "thesis"
    thr = thesis.markers(data, summary, basis, "throughput_kbps") or None
    delay = thesis.markers(data, summary, basis, "delay_mean_ms") or None
    return thr, delay, label


def _thesis_section(summary: pd.DataFrame, direction: str, basis_json: dict, out: Path) -> str:
    """The thesis's tables beside ours, on the basis `msfc compare --thesis` recorded."""
    from . import thesis

    try:
        data = thesis.load()
    except UserError:
        return ""
    basis = thesis.Basis.from_json(basis_json)
    sim = basis.simulation
    parts = [
        f"<h2>Beside the thesis (simulation {html.escape(sim)}, Tables "
        f"{', '.join(thesis.tables_for(sim))})</h2>",
        "<p>The thesis's published numbers next to ours. "
        + html.escape(
            (basis.note() + ".")
            if basis.note()
            else "This run has the thesis's configuration, so every number compares directly."
        )
        + "</p>",
    ]
    for tid in thesis.tables_for(sim):
        t = data["tables"][tid]
        df = thesis.side_by_side(data, tid, summary, direction, basis)
        title = thesis.title(data, tid, basis)
        name = f"table-thesis-{tid}"
        if t["level"] == "overall":
            parts.append(_table(out, name, df, title, "metric", metric_rows=True))
        else:
            parts.append(_table(out, name, df, title, "type", metric=t["metric"]))
    return "\n".join(parts)


# --------------------------------------------------------------------------- two results


AGAINST_METRICS = ["throughput_kbps", "delay_mean_ms", "lost_packets"]


def fig_against(pairs: pd.DataFrame, out: Path, name: str, label_a: str, label_b: str) -> list[str]:
    """One panel per metric: each (scheduler, configuration, flow type) as a point at (A, B) on
    log axes, the diagonal where they agree; points off it are what changed."""
    schedulers = list(dict.fromkeys(pairs["series"]))
    colors = _colors(schedulers)
    # a point is labelled by its marker (the flow type) and colour (scheduler, configuration)
    types = list(dict.fromkeys(pairs["type"]))
    shapes = "osD^v<>pXP*hH8d"
    marker = {t: shapes[i % len(shapes)] for i, t in enumerate(types)}
    fig, axes = _fig(PAGE_IN, 3.0, 1, len(AGAINST_METRICS))
    for ax, m in zip(axes[0], AGAINST_METRICS, strict=False):
        p = pairs[pairs["metric"] == m]
        v = np.concatenate([p["a"].to_numpy(float), p["b"].to_numpy(float)])
        v = v[np.isfinite(v) & (v > 0)]
        if len(v) == 0:
            ax.set_title(f"{M.heading(m)}: no data")
            continue
        lo, hi = v.min() / 1.5, v.max() * 1.5
        ax.plot([lo, hi], [lo, hi], color="gray", lw=0.8, ls="--", label="A = B")
        for s in schedulers:
            for t in types:
                q = p[(p["series"] == s) & (p["type"] == t)]
                if q.empty:
                    continue
                ax.errorbar(
                    q["a"],
                    q["b"],
                    xerr=_yerr(list(q["a_interval"])),
                    yerr=_yerr(list(q["b_interval"])),
                    fmt=marker[t],
                    ms=3.5,
                    color=colors[s],
                    lw=0.8,
                    capsize=1.5,
                    elinewidth=0.5,
                )
        dense = hi / lo < 300
        _log_axis(ax, "x", dense)
        _log_axis(ax, "y", dense)
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_aspect("equal")
        ax.set_title(M.heading(m))
        unit = M.metric(m).unit
        ax.set_xlabel(f"A ({label_a}), {unit}")
        ax.set_ylabel(f"B ({label_b}), {unit}")
    _suptitle(
        fig,
        f"Per flow type, B against A: mean over the RNG runs of each configuration\n"
        f"(A: {M.interval_text(pairs['a_interval'])}; B: {M.interval_text(pairs['b_interval'])})",
    )
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color="gray", lw=0.8, ls="--")]
    labels = ["A = B"]
    handles += [Line2D([], [], color=colors[s], lw=3) for s in schedulers]
    labels += schedulers
    handles += [
        Line2D([], [], marker=marker[t], color="black", ms=3.5, ls="none", mfc="none")
        for t in types
    ]
    labels += types
    _legend(fig, handles, labels)
    data = pd.DataFrame(
        [
            {
                "metric": r.metric,
                "scheduler": r.scheduler,
                "config": r.config,
                "type": r.type,
                **_iv_columns(r.a_interval, "a_"),
                **_iv_columns(r.b_interval, "b_"),
            }
            for r in pairs.itertuples(index=False)
        ]
    )
    return _save(fig, out, name) + _save_data(out, name, data)


def _pair_label(conf_a: str, conf_b: str) -> str:
    if conf_a == conf_b or not conf_b:
        return conf_a
    if not conf_a:
        return conf_b
    return f"A {conf_a}, B {conf_b}"


def _compatible(settings_a, settings_b) -> bool:
    """Two configurations are plotted against each other when they agree in every setting
    both sides vary (a sweep against a sweep of the same grid: point by point); a setting only
    one side varies pairs each of its values with the other side's one configuration."""
    a, b = dict(settings_a), dict(settings_b)
    return all(a[k] == b[k] for k in a.keys() & b.keys())


AGAINST_COLUMNS = [
    "scheduler",
    "config",
    "series",
    "type",
    "metric",
    "a",
    "a_interval",
    "a_runs",
    "b",
    "b_interval",
    "b_runs",
]


def against_pairs(sa: pd.DataFrame, sb: pd.DataFrame, direction: str) -> pd.DataFrame:
    """Each (scheduler, configuration, flow type, metric) of both summaries with A's and B's
    means and intervals. Means are over the RNG runs of one configuration, never over several
    (a sweep's Ratio 1.5, 2 and 3 are three points, not one mean): see _compatible for which
    configuration of A goes with which of B."""
    rows = []
    for m in AGAINST_METRICS:
        a = group_ci(sa, m, "type", direction)
        b = group_ci(sb, m, "type", direction)
        for ra in a.itertuples(index=False):
            match = b[(b["scheduler"] == ra.scheduler) & (b["group"] == ra.group)]
            for rb in match.itertuples(index=False):
                if not _compatible(ra.settings, rb.settings):
                    continue
                conf = _pair_label(ra.config, rb.config)
                rows.append(
                    {
                        "scheduler": ra.scheduler,
                        "config": conf,
                        "series": f"{ra.scheduler} {conf}".strip(),
                        "type": ra.group,
                        "metric": m,
                        "a": ra.mean,
                        "a_interval": ra.interval,
                        "a_runs": ra.n,
                        "b": rb.mean,
                        "b_interval": rb.interval,
                        "b_runs": rb.n,
                    }
                )
    return pd.DataFrame(rows, columns=AGAINST_COLUMNS)


def _runs_label(n: int) -> str:
    return "one run" if n <= 1 else f"{n} RNG runs"


def against_table(pairs: pd.DataFrame, metric: str) -> pd.DataFrame:
    """One metric of against_pairs as a table: rows = flow types; per scheduler and
    configuration A's and B's means over their RNG runs with their intervals (metrics.Estimate
    cells; each column's heading says how many runs, "one run" for a mean without interval)
    and B/A, the ratio of the two means."""
    p = pairs[pairs["metric"] == metric]
    types = list(dict.fromkeys(p["type"]))
    cols = {}
    for s in dict.fromkeys(p["series"]):
        q = p[p["series"] == s].drop_duplicates("type").set_index("type").reindex(types)
        a = [M.Estimate(iv) if isinstance(iv, M.Interval) else np.nan for iv in q["a_interval"]]
        b = [M.Estimate(iv) if isinstance(iv, M.Interval) else np.nan for iv in q["b_interval"]]
        cols[f"{s} A ({_runs_label(int(q['a_runs'].max()))})"] = a
        cols[f"{s} B ({_runs_label(int(q['b_runs'].max()))})"] = b
        cols[f"{s} B/A"] = (q["b"].astype(float) / q["a"].astype(float)).to_list()
    return pd.DataFrame(cols, index=pd.Index(types, dtype=object), dtype=object)


def _mode_notes(run_dirs) -> list[str]:
    """The page's paragraphs for the modes that changed nothing (modes.unchanged_notes)."""
    from .modes import unchanged_notes

    return [f"<p class='note'>Note: {html.escape(n)}</p>" for n in unchanged_notes(run_dirs)]


def _configs_text(summary: pd.DataFrame) -> str:
    labels = configurations(summary)
    return ", ".join(
        f"{s}: {', '.join(dict.fromkeys(labels[summary['scheduler'] == s]))}"
        for s in dict.fromkeys(summary["scheduler"])
    )


def make_against_report(
    a_root: Path, b_root: Path, out: Path | None = None, direction: str | None = None
) -> Path:
    """``msfc report A --against B``: the graphical twin of ``msfc diff``, on the tidy
    summaries: every flow type of every scheduler the two have in common, B against A."""
    a_root, b_root = Path(a_root), Path(b_root)
    sa_study, sb_study = read_study(a_root), read_study(b_root)
    out = Path(out) if out else a_root / f"report-against-{b_root.resolve().name}"
    check_out_dir(out, "the report directory", "write it elsewhere: --out DIR")
    direction = direction or sa_study.get("direction", "down")
    sa, _ = collect(a_root, sa_study.get("configs"))
    sb, _ = collect(b_root, sb_study.get("configs"))
    for root, s in ((a_root, sa), (b_root, sb)):
        if s.empty:
            raise UserError(f"{root} holds no finished simulation yet; finish it first", 1)
    pairs = against_pairs(sa, sb, direction)
    if pairs.empty and set(sa["scheduler"]) & set(sb["scheduler"]):
        raise UserError(
            f"{a_root} and {b_root} have no configuration to plot against each other: they vary "
            f"the same settings with other values ({'; '.join(_configs_text(x) for x in (sa, sb))})"
            f"; give a run or comparison as one of them, or two sweeps of one grid"
        )
    if pairs.empty:
        raise UserError(
            f"{a_root} and {b_root} have no scheduler and flow type in common; give two results "
            f"of the same scenario (schedulers: {', '.join(map(str, pd.unique(sa['scheduler'])))} "
            f"against {', '.join(map(str, pd.unique(sb['scheduler'])))})"
        )
    out.mkdir(parents=True, exist_ok=True)
    la, lb = a_root.resolve().name, b_root.resolve().name
    body = [
        f"<h1>MSFC results against each other: A {html.escape(la)}, B {html.escape(lb)}</h1>",
        f"<p>A: <code>{html.escape(str(a_root.resolve()))}</code> (<code>msfc "
        f"{html.escape(' '.join(sa_study.get('argv', [])))}</code>)<br>B: <code>"
        f"{html.escape(str(b_root.resolve()))}</code> (<code>msfc "
        f"{html.escape(' '.join(sb_study.get('argv', [])))}</code>)<br>Flows shown: direction "
        f"<b>{html.escape(direction)}</b>. <code>msfc diff</code> compares one run's per-flow "
        f"records bit for bit; this page compares the means over the RNG runs of each "
        f"configuration (configurations are never pooled: a sweep's grid points are points of "
        f"their own, labelled with their settings).</p>",
        *_mode_notes(
            [a_root / "runs" / h for h in sa_study.get("configs", [])]
            + [b_root / "runs" / h for h in sb_study.get("configs", [])]
        ),
        _figure(
            fig_against(pairs, out, "against", la, lb),
            "Each point is one flow type under one scheduler and configuration, at A's value (x) "
            f"and B's (y), with the {_BARS}; on the dashed diagonal the two agree.",
        ),
    ]
    for m in AGAINST_METRICS:
        body.append(
            _table(
                out,
                f"table-against-{m}",
                against_table(pairs, m),
                f"{M.heading(m)} per flow type",
                "type",
                fmt_for=lambda c, m=m: None if c.endswith("B/A") else m,
                runs=True,
            )
        )
    return _write_page(out, f"MSFC {html.escape(la)} against {html.escape(lb)}", body)
