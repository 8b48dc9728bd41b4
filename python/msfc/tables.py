"""Thesis-style tables from tidy summaries.

* per-group tables (Tables 3.5-3.7 of the thesis): rows = flow types (or priorities),
  columns = schedulers, one table per metric;
* the overall table (Table 3.4): rows = metrics, columns = schedulers.

When a summary holds several RNG runs of a configuration, the tables show the mean over runs.
"""

from __future__ import annotations

import math

import pandas as pd

from . import metrics as M


def _select(summary: pd.DataFrame, direction: str, level: str) -> pd.DataFrame:
    if summary is None or summary.empty or not {"direction", "level"} <= set(summary.columns):
        return pd.DataFrame()
    return summary[(summary["direction"] == direction) & (summary["level"] == level)]


def column_order(summary: pd.DataFrame, column: str = "scheduler") -> list[str]:
    return [str(x) for x in pd.unique(summary[column])]


def group_table(
    summary: pd.DataFrame,
    metric: str,
    level: str = "type",
    direction: str = "down",
    columns: str = "scheduler",
) -> pd.DataFrame:
    """rows = groups of ``level``, columns = values of ``columns``, cells = metric (mean over runs)."""
    s = _select(summary, direction, level)
    if s.empty:
        return pd.DataFrame()
    rows = [str(g) for g in pd.unique(s["group"])]
    if level == "priority":
        rows = sorted(rows, key=lambda x: -float(x) if _isnum(x) else 0)
    t = s.groupby(["group", columns], sort=False)[metric].mean().unstack(columns)
    t.index = t.index.astype(str)
    return t.reindex(index=rows, columns=column_order(s, columns))


def overall_table(
    summary: pd.DataFrame, metric_names=None, direction: str = "down", columns: str = "scheduler"
) -> pd.DataFrame:
    """rows = metrics, columns = values of ``columns`` (mean over runs)."""
    metric_names = list(metric_names or M.OVERALL_TABLE)
    s = _select(summary, direction, "overall")
    if s.empty:
        return pd.DataFrame()
    t = s.groupby(columns, sort=False)[metric_names].mean().T
    return t.reindex(columns=column_order(s, columns))


def run_table(
    summary: pd.DataFrame, level: str = "type", direction: str = "down", metric_names=None
) -> pd.DataFrame:
    """One configuration: rows = groups, columns = metrics."""
    metric_names = list(
        metric_names
        or [
            "flows",
            "throughput_kbps",
            "delay_mean_ms",
            "delay_hmean_ms",
            "delay_p99_ms",
            "jitter_mean_ms",
            "lost_packets",
            "loss_ratio",
        ]
    )
    s = _select(summary, direction, level)
    if s.empty:
        return pd.DataFrame()
    t = s.groupby("group", sort=False)[metric_names].mean()
    t.index = t.index.astype(str)
    return t


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def point_label(pairs) -> str:
    """A sweep point as ``scheduler=Msfc ratio=2``; a key the point's scheduler does not use
    (its tidy column is empty, e.g. MSFC's ratio under FQ-CoDel) reads ``(no ratio)``."""
    pairs = list(pairs)
    parts = [f"{n}={v}" for n, v in pairs if not _missing(v)]
    unused = [n for n, v in pairs if _missing(v)]
    if unused:
        parts.append(f"(no {', '.join(unused)})")
    return " ".join(parts)


def _isnum(x) -> bool:
    try:
        float(x)
        return True
    except ValueError:
        return False


STYLES = ("text", "markdown")


def render_text(
    df: pd.DataFrame,
    title: str = "",
    row_header: str = "",
    fmt_for=None,
    metric_rows: bool = False,
    metric: str | None = None,
    style: str = "text",
) -> str:
    """A table as aligned plain text, or as a Markdown pipe table (``style="markdown"``).

    ``metric_rows``: rows are metric names (format per row); otherwise ``metric`` formats every
    cell (or ``fmt_for(column)`` when given)."""
    if style not in STYLES:
        raise ValueError(f"unknown table style {style!r}; expected one of {STYLES}")
    md = style == "markdown"
    if df is None or df.empty:
        if md:
            return f"**{title}**\n\n(no data)\n" if title else "(no data)\n"
        return f"{title}\n  (no data)\n" if title else "(no data)\n"
    headers = [row_header] + [
        M.heading(c) if (fmt_for and c in M.METRICS) else str(c) for c in df.columns
    ]
    body = []
    for idx, row in df.iterrows():
        label = M.heading(idx) if metric_rows and idx in M.METRICS else str(idx)
        cells = [label]
        for col, v in row.items():
            name = idx if metric_rows else (metric or (fmt_for(col) if fmt_for else None))
            cells.append(_fmt(name, v))
        body.append(cells)
    if md:

        def line(cells):
            return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

        lines = [f"**{title}**", ""] if title else []
        lines.append(line(headers))
        lines.append("|" + "|".join(["---"] + ["---:"] * (len(headers) - 1)) + "|")
        lines.extend(line(r) for r in body)
        return "\n".join(lines) + "\n"
    widths = [max(len(r[i]) for r in [headers] + body) for i in range(len(headers))]
    lines = []
    if title:
        lines.append(title)
    lines.append(
        "  ".join(
            h.ljust(widths[0]) if i == 0 else h.rjust(widths[i]) for i, h in enumerate(headers)
        )
    )
    lines.append("  ".join("-" * w for w in widths))
    for r in body:
        lines.append(
            "  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r))
        )
    return "\n".join(lines) + "\n"


def _fmt(metric_name, v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if metric_name in M.METRICS:
        return M.format_value(metric_name, v)
    if isinstance(v, float):
        # plain numbers: counters as integers, no powers of ten
        return f"{v:.0f}" if abs(v) >= 100 or v.is_integer() else f"{v:.4g}"
    return str(v)


def render_html(
    df: pd.DataFrame,
    title: str = "",
    row_header: str = "",
    metric_rows: bool = False,
    metric: str | None = None,
    fmt_for=None,
) -> str:
    import html

    if df is None or df.empty:
        return f"<p>{html.escape(title)}: no data</p>"
    out = ["<table class='data'>"]
    if title:
        out.append(f"<caption>{html.escape(title)}</caption>")
    out.append(
        "<thead><tr><th>"
        + html.escape(row_header)
        + "</th>"
        + "".join(
            f"<th>{html.escape(M.heading(c) if (fmt_for and c in M.METRICS) else str(c))}</th>"
            for c in df.columns
        )
        + "</tr></thead><tbody>"
    )
    for idx, row in df.iterrows():
        label = M.heading(idx) if metric_rows and idx in M.METRICS else str(idx)
        cells = []
        for col, v in row.items():
            name = idx if metric_rows else (metric or (fmt_for(col) if fmt_for else None))
            cells.append(f"<td>{html.escape(_fmt(name, v))}</td>")
        out.append(f"<tr><th>{html.escape(label)}</th>{''.join(cells)}</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def compare_text(
    summary: pd.DataFrame, direction: str = "down", level: str = "type", style: str = "text"
) -> str:
    """All thesis-style tables of a comparison as text (or Markdown)."""
    parts = [
        render_text(
            overall_table(summary, direction=direction),
            f"Overall ({direction}, like thesis Table 3.4)",
            "metric",
            metric_rows=True,
            style=style,
        )
    ]
    for m in M.TYPE_TABLES:
        parts.append(
            render_text(
                group_table(summary, m, level, direction),
                f"{M.heading(m)} per flow {level} ({direction})",
                level,
                metric=m,
                style=style,
            )
        )
    return "\n".join(parts)
