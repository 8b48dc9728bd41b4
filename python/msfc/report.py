"""``msfc report DIR``: an HTML page with thesis-style tables and figures (PNG and SVG).

Figures:
* delay violins per flow type and per priority (one violin per scheduler), drawn from the
  FlowMonitor delay histograms weighted by their counts (like the thesis's Figures 3.2-3.5);
* delay CDFs, overall and per flow type;
* throughput per flow type;
* for sweeps: each overall metric against the swept parameter, mean over seeds with 95 %
  confidence intervals (Student's t).
"""

from __future__ import annotations

import html
import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from . import metrics as M
from . import tables as T
from .errors import UserError
from .runner import check_out_dir, collect, read_study

SWEEP_METRICS = [
    "throughput_total_kbps",
    "delay_hmean_ms",
    "delay_mean_ms",
    "delay_p99_ms",
    "jitter_mean_ms",
    "loss_ratio",
]


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, out: Path, name: str) -> list[str]:
    files = []
    for ext in ("png", "svg"):
        final = out / f"{name}.{ext}"
        tmp = out / f".{name}.tmp.{ext}"
        fig.savefig(tmp, format=ext, dpi=110, bbox_inches="tight")
        os.replace(tmp, final)
        files.append(final.name)
    _plt().close(fig)
    return files


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


# --------------------------------------------------------------------------- figures


def fig_violins(
    hists: pd.DataFrame,
    level: str,
    schedulers: list[str],
    groups: list[str],
    out: Path,
    name: str,
    title: str,
) -> tuple[list[str], str]:
    plt = _plt()
    # common upper limit: the largest 99th percentile of any violin (extremes omitted, like the thesis)
    tops = []
    for g in groups:
        for s in schedulers:
            h = hists[(hists[level].astype(str) == g) & (hists["scheduler"] == s)]
            if h["count"].sum() > 0:
                tops.append(M.hist_percentile(h, 99))
    top = max(tops) * 1.05 if tops else 1.0
    n_s = max(1, len(schedulers))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(groups) * max(1, n_s / 2)), 4.5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    width = 0.8 / n_s
    hidden = []
    for gi, g in enumerate(groups):
        for si, s in enumerate(schedulers):
            h = hists[(hists[level].astype(str) == g) & (hists["scheduler"] == s)]
            if h["count"].sum() == 0:
                continue
            hg = _group_hist(h)
            y, d, above = violin_density(hg, top)
            if len(d) == 0 or d.max() <= 0:
                continue
            keep = np.nonzero(d > d.max() * 2e-3)[0]
            y, d = y[keep[0] : keep[-1] + 1], d[keep[0] : keep[-1] + 1]
            x0 = gi + (si - (n_s - 1) / 2) * width
            half = d / d.max() * width * 0.45
            ax.fill_betweenx(
                y * 1000,
                x0 - half,
                x0 + half,
                color=colors[si % len(colors)],
                alpha=0.6,
                linewidth=0.5,
                edgecolor="black",
                label=s if gi == 0 else None,
            )
            mean = M.hist_mean(hg) * 1000
            med = M.hist_percentile(hg, 50) * 1000
            ax.plot([x0 - width * 0.3, x0 + width * 0.3], [med, med], color="black", linewidth=1)
            if mean <= top * 1000:
                ax.plot(
                    [x0], [mean], marker="o", color="white", markeredgecolor="black", markersize=4
                )
            if above > 0:
                hidden.append(above)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"priority {g}" if level == "priority" else g for g in groups])
    ax.set_ylabel("packet delay (ms)")
    ax.set_ylim(0, top * 1000)
    ax.set_title(title)
    if len(schedulers) > 1 or schedulers[0]:
        ax.legend(loc="upper left", fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    worst = max(hidden or [0.0])
    clip = (
        f"Packets above {top * 1000:.0f} ms (just above the largest 99th percentile; at most "
        f"{worst * 100:.2g}% of a violin) are not drawn, but count in the means."
        if worst > 0
        else "Every packet is within the plotted range."
    )
    note = (
        "Violins from the delay histograms weighted by packet count; line = median, dot = mean of all "
        "packets. " + clip
    )
    return _save(fig, out, name), note


def fig_cdf(
    hists: pd.DataFrame,
    schedulers: list[str],
    groups: list[str] | None,
    out: Path,
    name: str,
    title: str,
) -> list[str]:
    plt = _plt()
    panels = groups if groups else ["all"]
    ncol = min(4, len(panels))
    nrow = math.ceil(len(panels) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.6 * ncol, 3.0 * nrow), squeeze=False)
    for i, g in enumerate(panels):
        ax = axes[i // ncol][i % ncol]
        for s in schedulers:
            h = hists[hists["scheduler"] == s]
            if groups:
                h = h[h["type"] == g]
            if h["count"].sum() == 0:
                continue
            x, F = M.hist_cdf(h)
            ax.plot(x * 1000, F, label=s or None, linewidth=1.2)
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_title(g if groups else title, fontsize="medium")
        ax.set_xlabel("delay (ms)")
        ax.set_ylabel("CDF")
        ax.set_ylim(0, 1.01)
        ax.grid(alpha=0.3)
        if i == 0 and any(schedulers):
            ax.legend(fontsize="small")
    for j in range(len(panels), nrow * ncol):
        axes[j // ncol][j % ncol].axis("off")
    if groups:
        fig.suptitle(title)
    fig.tight_layout()
    return _save(fig, out, name)


def fig_throughput(table: pd.DataFrame, out: Path, name: str, title: str) -> list[str]:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 * len(table.index)), 4.0))
    n = max(1, len(table.columns))
    width = 0.8 / n
    for i, col in enumerate(table.columns):
        xs = np.arange(len(table.index)) + (i - (n - 1) / 2) * width
        ax.bar(xs, table[col].to_numpy(float), width=width, label=str(col))
    ax.set_xticks(range(len(table.index)))
    ax.set_xticklabels([str(x) for x in table.index])
    ax.set_yscale("log")
    ax.set_ylabel("mean throughput of a flow (kbps)")
    ax.set_title(title)
    ax.legend(fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, out, name)


def sweep_points(
    summary: pd.DataFrame,
    x: str,
    series: list[str],
    metric: str,
    level: str = "overall",
    group: str | None = None,
    direction: str = "down",
) -> pd.DataFrame:
    """Mean and 95 % CI half-width of ``metric`` over seeds at every (x, series) point."""
    s = summary[(summary["level"] == level) & (summary["direction"] == direction)]
    if group is not None:
        s = s[s["group"] == group]
    rows = []
    for key, g in s.groupby([x] + series, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        mean, ci, n = M.mean_ci95(g[metric].to_numpy(float))
        rows.append(dict(zip([x] + series, key, strict=False), mean=mean, ci95=ci, n=n))
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
    from .config import parse_datarate, parse_time

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
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    numeric = True
    try:
        summary[x].astype(str).map(_as_number)
    except ValueError:
        numeric = False
    for group in groups or [None]:
        pts = sweep_points(summary, x, series, metric, level, group, direction)
        if pts.empty:
            continue
        keys = (
            [()]
            if not series
            else list(dict.fromkeys(tuple(r) for r in pts[series].itertuples(index=False)))
        )
        for key in keys:
            p = (
                pts
                if not series
                else pts[(pts[series] == pd.Series(key, index=series)).all(axis=1)]
            )
            parts = [f"{level} {group}" if group is not None else ""] + [
                f"{_short(c)}={v}" for c, v in zip(series, key, strict=False)
            ]
            label = " ".join(x for x in parts if x) or None
            xs = p["_x"].to_numpy(float) if numeric else np.arange(len(p))
            ci = np.nan_to_num(p["ci95"].to_numpy(float))
            ax.errorbar(xs, p["mean"].to_numpy(float), yerr=ci, marker="o", capsize=3, label=label)
            if not numeric:
                ax.set_xticks(xs)
                ax.set_xticklabels([str(v) for v in p[x]])
    ax.set_xlabel(_short(x))
    ax.set_ylabel(M.heading(metric))
    ax.set_title(f"{M.heading(metric)} vs {_short(x)} (mean, 95% CI over seeds)", fontsize="medium")
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    return _save(fig, out, name)


def _short(col: str) -> str:
    return col.split(".", 1)[1] if col.startswith(("cfg.", "attr.")) else col


# --------------------------------------------------------------------------- HTML

CSS = """body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222}
table.data{border-collapse:collapse;margin:0.5em 0 1.5em}
table.data th,table.data td{border:1px solid #bbb;padding:3px 8px;text-align:right}
table.data th:first-child{text-align:left}
caption{font-weight:bold;text-align:left;padding:4px 0}
figure{margin:1em 0} figure.half{display:inline-block;vertical-align:top;width:48%;margin-right:1%}
figcaption{font-size:90%;color:#444;max-width:900px}
img{max-width:100%} code{background:#f3f3f3;padding:1px 3px}"""


def _figure(files: list[str], caption: str, cls: str = "") -> str:
    svg = next(f for f in files if f.endswith(".svg"))
    png = next(f for f in files if f.endswith(".png"))
    attr = f" class='{cls}'" if cls else ""
    return (
        f"<figure{attr}><img src='{html.escape(svg)}' alt='{html.escape(caption)}'>"
        f"<figcaption>{html.escape(caption)} (<a href='{html.escape(png)}'>PNG</a>, "
        f"<a href='{html.escape(svg)}'>SVG</a>)</figcaption></figure>"
    )


def _metric_glossary(names) -> str:
    rows = "".join(
        f"<tr><th>{html.escape(M.heading(n))}</th><td style='text-align:left'>"
        f"<code>{n}</code>: {html.escape(M.METRICS[n].definition)}</td></tr>"
        for n in names
    )
    return f"<table class='data'><caption>Metrics</caption>{rows}</table>"


def make_report(root: Path, out: Path | None = None, direction: str | None = None) -> Path:
    root = Path(root)
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
    kind = study.get("kind", "run")
    done = [h for h in hashes if (root / "runs" / h / "done.json").exists()]
    scheds = [str(s) for s in pd.unique(summary["scheduler"])]
    body = [
        f"<h1>MSFC {html.escape(kind)}: {html.escape(study.get('scenario', ''))}</h1>",
        f"<p>Results directory <code>{html.escape(str(root.resolve()))}</code>; {len(done)} of "
        f"{len(hashes)} configurations finished; flows shown: direction <b>{html.escape(direction)}</b>. "
        f"Command: <code>msfc {html.escape(' '.join(study.get('argv', [])))}</code></p>",
    ]
    metrics_used = set(M.OVERALL_TABLE) | set(M.TYPE_TABLES)

    if kind in ("run", "compare"):
        body.append("<h2>Overall</h2>")
        body.append(
            T.render_html(
                T.overall_table(
                    summary,
                    M.OVERALL_TABLE + ["delay_mean_ms", "delay_p99_ms", "loss_ratio"],
                    direction,
                ),
                "Overall results (like thesis Table 3.4; mean over RNG runs)",
                "metric",
                metric_rows=True,
            )
        )
        metrics_used |= {"delay_mean_ms", "delay_p99_ms", "loss_ratio"}
        for level in ("type", "priority"):
            body.append(f"<h2>Per flow {level}</h2>")
            for m in M.TYPE_TABLES:
                body.append(
                    T.render_html(
                        T.group_table(summary, m, level, direction),
                        f"{M.heading(m)} per flow {level}",
                        level,
                        metric=m,
                    )
                )
        hists = load_histograms(root, done, direction)
        types = [str(t) for t in pd.unique(hists["type"])] if len(hists) else []
        prios = (
            sorted({str(p) for p in hists["priority"]}, key=lambda v: -float(v))
            if len(hists)
            else []
        )
        body.append("<h2>Delay distributions</h2>")
        if types:
            files, note = fig_violins(
                hists, "type", scheds, types, out, "delay-violin-type", "Packet delay per flow type"
            )
            body.append(_figure(files, "Packet delay per flow type. " + note))
            files, note = fig_violins(
                hists,
                "priority",
                scheds,
                prios,
                out,
                "delay-violin-priority",
                "Packet delay per priority",
            )
            body.append(_figure(files, "Packet delay per priority. " + note))
            body.append(
                _figure(
                    fig_cdf(
                        hists, scheds, None, out, "delay-cdf-overall", "Packet delay, all flows"
                    ),
                    "Cumulative distribution of packet delay, all flows (log scale above 1 ms).",
                )
            )
            body.append(
                _figure(
                    fig_cdf(
                        hists, scheds, types, out, "delay-cdf-type", "Packet delay per flow type"
                    ),
                    "Cumulative distribution of packet delay per flow type.",
                )
            )
        else:
            body.append("<p>No delay histograms (no packets received).</p>")
        thr = T.group_table(summary, "throughput_kbps", "type", direction)
        if not thr.empty:
            body.append("<h2>Throughput</h2>")
            body.append(
                _figure(
                    fig_throughput(thr, out, "throughput-type", "Throughput per flow type"),
                    "Mean throughput of a flow per flow type (log scale), mean over RNG runs.",
                )
            )
        qd = qdisc_tables(root, done)
        if qd:
            body.append(
                "<h2>Queue discs</h2><p>From <code>qdisc.csv</code>: totals over every device of "
                "every node at the end of the run, mean over RNG runs.</p>"
            )
            body.extend(qd)
        if kind == "compare" and study.get("thesis"):
            body.append(_thesis_section(summary, direction, study["thesis"]))

    elif kind == "sweep":
        cols = study.get("grid_columns") or []
        cols = [c for c in cols if c in summary.columns]
        if not cols:
            raise UserError(f"{root}/study.json names no swept columns found in the results", 1)
        x, series = cols[0], cols[1:]
        body.append("<h2>Overall metrics against the swept parameter</h2>")
        body.append(
            f"<p>Swept: {html.escape(', '.join(_short(c) for c in cols))}; "
            f"{study.get('seeds', 1)} RNG runs per point; error bars are 95% confidence intervals "
            f"of the mean over runs (Student's t).</p>"
        )
        for m in SWEEP_METRICS:
            body.append(
                _figure(
                    fig_sweep(summary, x, series, m, out, f"sweep-{m}", direction),
                    f"{M.heading(m)} against {_short(x)}: {M.METRICS[m].definition}.",
                    "half",
                )
            )
        metrics_used |= set(SWEEP_METRICS)
        prios = sorted(
            {g for g in summary[summary["level"] == "priority"]["group"]}, key=lambda v: -float(v)
        )
        if prios and not series:
            for m in ("throughput_kbps", "delay_mean_ms"):
                body.append(
                    _figure(
                        fig_sweep(
                            summary,
                            x,
                            [],
                            m,
                            out,
                            f"sweep-priority-{m}",
                            direction,
                            level="priority",
                            groups=prios,
                        ),
                        f"{M.heading(m)} per priority against {_short(x)}.",
                        "half",
                    )
                )
        # table of means
        s = summary[(summary["level"] == "overall") & (summary["direction"] == direction)]
        agg = s.groupby(cols, sort=False, dropna=False)[SWEEP_METRICS].mean()
        agg["runs"] = s.groupby(cols, sort=False, dropna=False).size()
        agg.index = [
            " ".join(
                f"{_short(c)}={v}"
                for c, v in zip(cols, k if isinstance(k, tuple) else (k,), strict=False)
            )
            for k in agg.index
        ]
        body.append(
            T.render_html(
                agg,
                "Overall metrics, mean over RNG runs",
                "configuration",
                fmt_for=lambda c: c if c in M.METRICS else None,
            )
        )
        failed = [
            h
            for h in hashes
            if (root / "runs" / h / "failed.json").exists()
            and not (root / "runs" / h / "done.json").exists()
        ]
        if failed:
            items = []
            for h in failed:
                f = json.loads((root / "runs" / h / "failed.json").read_text())
                items.append(
                    f"<li><code>{html.escape(' '.join(f.get('argv', [])))}</code> exit code "
                    f"{f.get('returncode')}<pre>{html.escape(f.get('stderr_tail', ''))}</pre></li>"
                )
            body.append(f"<h2>Failed configurations ({len(failed)})</h2><ul>{''.join(items)}</ul>")
    else:
        raise UserError(f"{root}/study.json has an unknown kind '{kind}'", 1)

    body.append("<h2>Definitions</h2>")
    body.append(_metric_glossary([m for m in M.GROUP_METRICS if m in metrics_used]))
    body.append(
        "<p>Tidy data: <code>summary.parquet</code>/<code>.csv</code> (per group) and "
        "<code>flows.parquet</code>/<code>.csv</code> (per flow) in the results directory.</p>"
    )
    page = (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>MSFC {html.escape(kind)} "
        f"{html.escape(study.get('scenario', ''))}</title><style>{CSS}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )
    index = out / "index.html"
    tmp = out / ".index.html.tmp"
    tmp.write_text(page)
    os.replace(tmp, index)
    return index


QDISC_COUNTERS = [
    "enqueued_packets",
    "dequeued_packets",
    "codel_drops",
    "overload_drops",
    "ecn_marks",
]


def qdisc_tables(root: Path, hashes: list[str]) -> list[str]:
    """HTML tables of the queue disc counters (qdisc.csv is optional in the contract)."""
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
    cols = [c for c in QDISC_COUNTERS if c in q.columns]
    if not cols:
        return []
    per_run = q.groupby(["run_scheduler", "config_hash"], sort=False)[cols].sum()
    tot = per_run.groupby(level=0, sort=False).mean().T
    tot.index = [c.replace("_", " ") for c in tot.index]
    out = [T.render_html(tot, "Queue disc counters, all devices", "counter")]
    where = drop_locations(q)
    if not where.empty:
        out.append(
            T.render_html(
                where,
                "Where packets are dropped: AQM and overload drops per hop "
                "(node kind -> next hop kind)",
                "hop",
            )
        )
    if "class" in q.columns and (q["class"] >= 0).any():
        drops = _drop_columns(q)
        qc = q[q["class"] >= 0]
        per = qc.groupby(["run_scheduler", "config_hash", "class"], sort=False)[
            ["dequeued_packets"] + drops
        ].sum()
        per = per.groupby(level=[0, 2], sort=False).mean()
        for c in ["dequeued_packets"] + drops:
            t = per[c].unstack(0)
            t.index = [f"class {int(i)}" for i in t.index]
            out.append(
                T.render_html(
                    t, f"{c.replace('_', ' ')} per class (schedulers with classes)", "class"
                )
            )
    return out


def _drop_columns(q: pd.DataFrame) -> list[str]:
    """The qdisc.csv drop counters present in ``q`` (AQM and overload)."""
    return [c for c in ("codel_drops", "overload_drops") if c in q.columns]


def _tier(name) -> str:
    """The kind of a node or device name: 'AP7' -> 'AP', 'G1' -> 'G', 'wifi' -> 'wifi'."""
    name = str(name)
    return re.sub(r"\d+$", "", name) or name


def drop_locations(q: pd.DataFrame) -> pd.DataFrame:
    """Drops (AQM + overload) summed per hop kind ("AP -> wifi", "G -> G"), mean over the runs of
    each scheduler; rows without a drop are left out. Needs qdisc.csv's node and device columns
    plus ``run_scheduler`` and ``config_hash``."""
    drops = _drop_columns(q)
    if not drops or not {"node", "device"} <= set(q.columns):
        return pd.DataFrame()
    d = q.assign(
        hop=[f"{_tier(n)} -> {_tier(v)}" for n, v in zip(q["node"], q["device"], strict=False)],
        drops=q[drops].sum(axis=1),
    )
    per_run = d.groupby(["run_scheduler", "config_hash", "hop"], sort=False)["drops"].sum()
    t = per_run.groupby(level=[0, 2], sort=False).mean().unstack(0).fillna(0)
    t = t[(t > 0).any(axis=1)]
    return t.sort_values(list(t.columns), ascending=False) if not t.empty else t


def _thesis_section(summary: pd.DataFrame, direction: str, basis_json: dict) -> str:
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
        if t["level"] == "overall":
            parts.append(T.render_html(df, title, "metric", metric_rows=True))
        else:
            parts.append(T.render_html(df, title, "type", metric=t["metric"]))
    return "\n".join(parts)
