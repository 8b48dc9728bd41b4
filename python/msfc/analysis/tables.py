"""Thesis-style tables from tidy summaries.

* per-group tables (Tables 3.5-3.7 of the thesis): rows = flow types (or priorities),
  columns = schedulers, one table per metric;
* the overall table (Table 3.4): rows = metrics, columns = schedulers.

When a summary holds several RNG runs of a configuration, the tables show the mean over runs
with its interval (metrics.mean_interval: the 95 % confidence interval with 3 or more runs, the
spread min..max with 2, nothing with 1): each cell is a metrics.Estimate, rendered as
"798.50 ± 12.30" (or "0.80 [0.00..2.00]" where the interval was cut at 0), and the title says
what the interval is ("3 RNG runs, 95% CI: mean ± half-width").
"""

from __future__ import annotations

import math
import re

import pandas as pd

from . import metrics as M


def _select(summary: pd.DataFrame, direction: str, level: str) -> pd.DataFrame:
    if summary is None or summary.empty or not {"direction", "level"} <= set(summary.columns):
        return pd.DataFrame()
    return summary[(summary["direction"] == direction) & (summary["level"] == level)]


def column_order(summary: pd.DataFrame, column: str = "scheduler") -> list[str]:
    return [str(x) for x in pd.unique(summary[column])]


def estimates(rows: pd.DataFrame, by: list[str], metric_names, bounds=None) -> pd.DataFrame:
    """One row per group of ``by`` (in order of appearance), one column per metric: the mean
    over the group's rows (its RNG runs) as a metrics.Estimate that carries its interval.
    ``bounds(rows of a group)``: the (floor, ceiling) its intervals are cut to (default: at 0,
    for the quantities that cannot be negative)."""
    metric_names = list(metric_names)
    index, cells = [], []
    for key, part in rows.groupby(by, sort=False, dropna=False):
        index.append(key if isinstance(key, tuple) else (key,))
        floor, ceiling = bounds(part) if bounds else (0.0, None)
        cells.append([M.estimate(part[m].to_numpy(float), floor, ceiling) for m in metric_names])
    if len(by) > 1:
        idx = pd.MultiIndex.from_tuples(index, names=by)
    else:
        idx = pd.Index([k[0] for k in index], name=by[0], dtype=object)
    return pd.DataFrame(cells, index=idx, columns=metric_names, dtype=object)


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
    t = estimates(s, ["group", columns], [metric])[metric].unstack(columns)
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
    t = estimates(s, [columns], metric_names).T
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
    t = estimates(s, ["group"], metric_names)
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
    runs: bool = False,
) -> str:
    """A table as aligned plain text, or as a Markdown pipe table (``style="markdown"``).

    ``metric_rows``: rows are metric names (format per row); otherwise ``metric`` formats every
    cell (or ``fmt_for(column)`` when given). ``runs``: the title names the RNG runs also where
    a mean has no interval (spread_note)."""
    if style not in STYLES:
        raise ValueError(f"unknown table style {style!r}; expected one of {STYLES}")
    md = style == "markdown"
    title = _with_note(title, df, runs)
    if df is None or df.empty:
        if md:
            return f"**{title}**\n\n(no data)\n" if title else "(no data)\n"
        return f"{title}\n  (no data)\n" if title else "(no data)\n"
    headers, body = _cells(df, row_header, fmt_for, metric_rows, metric)
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


def _number(metric_name, v) -> str:
    if metric_name in M.METRICS:
        return M.format_value(metric_name, float(v))
    if isinstance(v, float):
        # plain numbers: counters as integers, no powers of ten
        v = float(v)
        return f"{v:.0f}" if abs(v) >= 100 or v.is_integer() else f"{v:.4g}"
    return str(v)


def cell_text(metric_name, v) -> str:
    """A table cell: "-" for no value; a mean over RNG runs (metrics.Estimate) with its interval,
    "798.50 ± 12.30" (the interval is symmetric: a t interval, or min..max of 2 values), or
    "0.80 [0.00..2.00]" when it was cut at 0; a plain number as it is."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    text = _number(metric_name, v)
    iv = v.interval if isinstance(v, M.Estimate) else None
    if iv is None or not iv.kind or not (math.isfinite(iv.lo) and math.isfinite(iv.hi)):
        return text
    if iv.clipped:
        return f"{text} [{_number(metric_name, iv.lo)}..{_number(metric_name, iv.hi)}]"
    return f"{text} ± {_number(metric_name, (iv.hi - iv.lo) / 2)}"


def spread_note(df: pd.DataFrame, runs: bool = False) -> str:
    """What the intervals in a table's cells are, for its title ("3 RNG runs, 95% CI: mean ±
    half-width"); empty when no cell has one (one RNG run, or plain numbers). ``runs``: count
    the cells of one run too ("1-3 RNG runs, ..."), and say "one run, no interval" when every
    mean is of one run."""
    if df is None or df.empty:
        return ""
    means = [
        v.interval
        for v in df.to_numpy(object).ravel()
        if isinstance(v, M.Estimate) and v.interval.n > 0
    ]
    ivs = [i for i in means if i.kind]
    if not ivs:
        return "one run, no interval" if runs and means else ""
    kinds = {i.kind for i in ivs}
    cells = " or ".join(
        w for k, w in (("ci95", "half-width"), ("range", "half the spread")) if k in kinds
    )
    text = f"{M.interval_text(means if runs else ivs)}: mean ± {cells}"
    if any(i.clipped for i in ivs):
        text += "; [low..high] where cut"
    return text


def _with_note(title: str, df: pd.DataFrame, runs: bool = False) -> str:
    note = spread_note(df, runs)
    if not note:
        return title
    return f"{title} ({note})" if title else f"({note})"


def render_html(
    df: pd.DataFrame,
    title: str = "",
    row_header: str = "",
    metric_rows: bool = False,
    metric: str | None = None,
    fmt_for=None,
    runs: bool = False,
) -> str:
    import html

    if df is None or df.empty:
        return f"<p>{html.escape(title)}: no data</p>"
    title = _with_note(title, df, runs)
    out = ["<table class='data'>"]
    if title:
        out.append(f"<caption>{html.escape(title)}</caption>")
    headers, body = _cells(df, row_header, fmt_for, metric_rows, metric)
    out.append(
        "<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in headers) + "</tr></thead>"
        "<tbody>"
    )
    for label, *cells in body:
        tds = "".join(f"<td>{html.escape(c)}</td>" for c in cells)
        out.append(f"<tr><th>{html.escape(label)}</th>{tds}</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


#: characters TeX gives a meaning, and the non-ASCII ones of our cells, written as text
_TEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "±": r"\ensuremath{\pm}",
    "×": r"\ensuremath{\times}",
}


def tex_escape(text: str) -> str:
    """Text for LaTeX: every character TeX treats specially is typeset as itself."""
    return "".join(_TEX.get(ch, ch) for ch in str(text))


def render_latex(
    df: pd.DataFrame,
    title: str = "",
    row_header: str = "",
    metric_rows: bool = False,
    metric: str | None = None,
    fmt_for=None,
    label: str = "",
    runs: bool = False,
) -> str:
    """A table as a LaTeX ``table`` float with booktabs rules (``\\usepackage{booktabs}``),
    the same cells as the text and HTML tables, the title as its caption, ``label`` as
    ``\\label{tab:LABEL}``."""
    title = _with_note(title, df, runs)
    lines = ["% made by msfc report; needs \\usepackage{booktabs}", r"\begin{table}", r"\centering"]
    if title:
        lines.append(r"\caption{" + tex_escape(title) + "}")
    if label:
        lines.append(r"\label{tab:" + re.sub(r"[^A-Za-z0-9:.-]", "-", label) + "}")
    if df is None or df.empty:
        lines += ["(no data)", r"\end{table}"]
        return "\n".join(lines) + "\n"
    headers, body = _cells(df, row_header, fmt_for, metric_rows, metric)
    lines.append(r"\begin{tabular}{l" + "r" * (len(headers) - 1) + "}")
    lines.append(r"\toprule")
    lines.append(" & ".join(tex_escape(h) for h in headers) + r" \\")
    lines.append(r"\midrule")
    lines += [" & ".join(tex_escape(c) for c in r) + r" \\" for r in body]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _cells(df, row_header, fmt_for, metric_rows, metric) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of a table as text, as every rendering shows them."""
    headers = [row_header] + [
        M.heading(c) if (fmt_for and c in M.METRICS) else str(c) for c in df.columns
    ]
    body = []
    for idx, row in df.iterrows():
        label = M.heading(idx) if metric_rows and idx in M.METRICS else str(idx)
        cells = [label]
        for col, v in row.items():
            name = idx if metric_rows else (metric or (fmt_for(col) if fmt_for else None))
            cells.append(cell_text(name, v))
        body.append(cells)
    return headers, body


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
