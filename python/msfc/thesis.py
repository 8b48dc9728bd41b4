"""The thesis's published result tables (package data msfc/data/thesis-tables.json) beside ours."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from . import tables as T
from .errors import UserError

TABLE_IDS = ("3.4", "3.5", "3.6", "3.7", "3.9")


def tables_for(simulation: str) -> tuple[str, ...]:
    """The published tables of simulation A (correct priorities) or B (wrong priorities)."""
    return {"A": ("3.4", "3.5", "3.6", "3.7"), "B": ("3.9",)}[simulation]


def tables_path(explicit: str | os.PathLike | None = None) -> Path:
    """--thesis-tables, else $MSFC_THESIS_TABLES, else the tables installed with the package."""
    cands = []
    if explicit:
        cands.append(Path(explicit))
    if os.environ.get("MSFC_THESIS_TABLES"):
        cands.append(Path(os.environ["MSFC_THESIS_TABLES"]))
    here = Path(__file__).resolve().parent
    cands.append(here / "data" / "thesis-tables.json")
    for c in cands:
        if c.is_file():
            return c
    raise UserError(
        "the thesis tables (msfc/data/thesis-tables.json) were not found; pass "
        "--thesis-tables FILE or set MSFC_THESIS_TABLES"
    )


def load(explicit=None) -> dict:
    p = tables_path(explicit)
    try:
        return json.loads(p.read_text())
    except json.JSONDecodeError as e:
        raise UserError(f"{p} is not valid JSON: {e}", 1) from None


def thesis_table(data: dict, table_id: str) -> pd.DataFrame:
    """A published table with our scheduler names as columns (rows: types or metrics)."""
    if table_id not in data["tables"]:
        raise UserError(f"unknown thesis table '{table_id}'; known: {', '.join(data['tables'])}")
    t = data["tables"][table_id]
    df = pd.DataFrame(t["values"]).T if t["level"] == "type" else pd.DataFrame(t["values"]).T
    df = df.rename(columns=data["schedulers"])
    return df.astype(float)


def _type_map(data: dict, our_types) -> dict[str, str]:
    """thesis type name -> our group label (matched through the labels listed in the JSON)."""
    out = {}
    ours = {str(t).lower(): str(t) for t in our_types}
    for tname, tinfo in data["flow_types"].items():
        for label in [tname] + tinfo.get("labels", []):
            if label.lower() in ours:
                out[tname] = ours[label.lower()]
                break
    return out


def side_by_side(
    data: dict, table_id: str, summary: pd.DataFrame, direction: str = "down"
) -> pd.DataFrame:
    """Columns '<scheduler> thesis', '<scheduler> ours' for every scheduler in both."""
    t = data["tables"][table_id]
    theirs = thesis_table(data, table_id)
    if t["level"] == "overall":
        ours = T.overall_table(summary, list(theirs.index), direction)
    else:
        ours = T.group_table(summary, t["metric"], "type", direction)
        tm = _type_map(data, ours.index if not ours.empty else [])
        ours = ours.reindex([tm.get(r) for r in theirs.index]) if not ours.empty else ours
        if not ours.empty:
            ours.index = theirs.index
    cols = {}
    # in our column order (the order the schedulers were asked for), else the thesis's
    scheds = [s for s in (ours.columns if not ours.empty else []) if s in theirs.columns] or list(
        theirs.columns
    )
    for s in scheds:
        cols[f"{s} thesis"] = theirs[s]
        cols[f"{s} ours"] = ours[s] if (not ours.empty and s in ours.columns) else float("nan")
    return pd.DataFrame(cols, index=theirs.index)


def compare_text(
    summary: pd.DataFrame,
    table_ids=TABLE_IDS,
    direction: str = "down",
    explicit=None,
    style: str = "text",
) -> str:
    data = load(explicit)
    parts = []
    for tid in table_ids:
        t = data["tables"][tid]
        df = side_by_side(data, tid, summary, direction)
        sim = data["simulations"][t["simulation"]]["description"]
        title = f"Table {tid}: {t['title']} - simulation {t['simulation']}, {sim}"
        if t["level"] == "overall":
            parts.append(T.render_text(df, title, "metric", metric_rows=True, style=style))
        else:
            parts.append(T.render_text(df, title, "type", metric=t["metric"], style=style))
    return "\n".join(parts)
