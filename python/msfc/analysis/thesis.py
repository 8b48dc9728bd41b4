"""The thesis's published result tables (package data msfc/data/thesis-tables.json) beside ours.

The thesis measured one network (chapter 3): the ``isp-tree`` scenario with its ``thesis``
preset (simulation A) or ``wrong-priorities`` preset (simulation B). Its numbers are put beside
a run only when that run compares like with like (:func:`basis_for`): the same scenario, the
same applications, flow types and classes. A run whose rates are scaled (``rate-scale``, as the
``quick`` preset) gets the thesis's throughputs scaled by the same factor, with the factor in
every title and column; its losses are not comparable (fewer packets over a shorter time) and
are left out; every other difference from the thesis's configuration is named in the titles.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd

from ..errors import UserError
from . import tables as T

TABLE_IDS = ("3.4", "3.5", "3.6", "3.7", "3.9")

#: the scenario the thesis's chapter 3 describes, and its presets for simulations A and B
THESIS_SCENARIO = "isp-tree"
SIMULATION_PRESET = {"A": "thesis", "B": "wrong-priorities"}
#: options that decide which flows exist and in which class: a run that differs from the
#: thesis in one of them measures other traffic, so the thesis's numbers are not shown beside it
TRAFFIC_OPTIONS = ("apps", "flow-types", "priorities", "random-priorities", "prios", "tree")
#: options that do not change what is measured (or that are the run's identity)
IGNORED_OPTIONS = ("scheduler", "rng-run", "rng-seed", "delay-bin")
#: metrics that scale with the rates (the thesis value times the run's rate scale)
RATE_METRICS = ("throughput_kbps", "throughput_total_kbps")
#: metrics that scale with the number of packets and the duration: not comparable when scaled
COUNT_METRICS = ("lost_packets",)


@dataclass
class Basis:
    """How a run relates to the thesis's simulation: its rate scale and other differences."""

    simulation: str = "A"
    scale: float = 1.0  # thesis throughput x scale is comparable to ours
    duration_ratio: float = 1.0  # our simulated seconds / the thesis's
    differences: list[str] = field(default_factory=list)  # "last-hop p2p (thesis wifi)", ...

    @property
    def scaled(self) -> bool:
        return not math.isclose(self.scale, 1.0)

    @property
    def counts_comparable(self) -> bool:
        return not self.scaled and math.isclose(self.duration_ratio, 1.0)

    def column(self, scheduler: str, metric: str | None) -> str:
        if self.scaled and metric in RATE_METRICS:
            return f"{scheduler} thesis x{self.scale:g}"
        return f"{scheduler} thesis"

    def note(self) -> str:
        """One sentence on what the thesis columns are; empty for the thesis's own configuration."""
        parts = []
        if self.scaled:
            parts.append(
                f"thesis throughputs scaled x{self.scale:g} to this run's rate-scale; delays "
                f"unscaled; losses not comparable, left out"
            )
        elif not math.isclose(self.duration_ratio, 1.0):
            parts.append("losses not comparable (another duration), left out")
        if self.differences:
            parts.append("this run differs from the thesis in " + ", ".join(self.differences))
        return "; ".join(parts)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> Basis:
        return cls(
            simulation=str(d.get("simulation", "A")),
            scale=float(d.get("scale", 1.0)),
            duration_ratio=float(d.get("duration_ratio", 1.0)),
            differences=list(d.get("differences", [])),
        )


def _number(kind: str, text: str) -> float | None:
    from ..sim.config import parse_datarate, parse_time

    try:
        if kind == "datarate":
            return parse_datarate(text)
        if kind == "time":
            return parse_time(text)
        return float(text)
    except (TypeError, ValueError):
        return None


def basis_for(info, cfgs, simulation: str | None) -> Basis:
    """Check that the runs ``cfgs`` of scenario ``info`` compare like with like with the thesis's
    simulation (``A``, ``B``, or None: the one whose flow types the runs use); raise a UserError
    naming what differs otherwise."""
    from ..sim.config import build_config

    if info.name != THESIS_SCENARIO:
        raise UserError(
            f"--thesis: the thesis published results of the {THESIS_SCENARIO} scenario only "
            f"(chapter 3); scenario '{info.name}' has no published counterpart. Leave out --thesis"
        )
    missing = [p for p in SIMULATION_PRESET.values() if p not in info.presets]
    if missing:
        raise UserError(
            f"--thesis: scenario '{info.name}' has no preset {', '.join(missing)} describing the "
            f"thesis's configuration; rebuild with `make build`"
        )
    cfg = cfgs[0]
    refs = {
        sim: build_config(info, [], preset=preset, scheduler=cfg.scheduler or None).resolved
        for sim, preset in SIMULATION_PRESET.items()
    }
    ours = cfg.resolved
    if simulation is None:
        simulation = next(
            (s for s, r in refs.items() if r.get("flow-types") == ours.get("flow-types")), "A"
        )
    ref = refs[simulation]
    traffic = [
        f"{k}={ours.get(k, '')!s} (thesis {ref.get(k, '')!s})"
        for k in TRAFFIC_OPTIONS
        if k in ref and ours.get(k) != ref.get(k)
    ]
    if traffic:
        other = [
            s
            for s, r in refs.items()
            if s != simulation and all(ours.get(k) == r.get(k) for k in TRAFFIC_OPTIONS if k in r)
        ]
        hint = (
            f"use --thesis {other[0]} (simulation {other[0]}, preset {SIMULATION_PRESET[other[0]]})"
            if other
            else f"use --preset {SIMULATION_PRESET[simulation]} (or a preset that scales it, "
            f"such as quick)"
        )
        raise UserError(
            f"--thesis {simulation}: this run measures other traffic than the thesis's simulation "
            f"{simulation} ({', '.join(traffic)}), so the thesis's numbers cannot be put beside "
            f"it; {hint}, or leave out --thesis"
        )
    scale = 1.0
    if "rate-scale" in ref:
        a, b = _number("double", ours.get("rate-scale")), _number("double", ref["rate-scale"])
        if a and b:
            scale = a / b
    duration_ratio = 1.0
    if "duration" in ref:
        a, b = _number("double", ours.get("duration")), _number("double", ref["duration"])
        if a and b:
            duration_ratio = a / b
    diffs = []
    for k, theirs in ref.items():
        if k in IGNORED_OPTIONS or k == "rate-scale" or k in TRAFFIC_OPTIONS:
            continue
        mine = ours.get(k)
        if mine == theirs:
            continue
        p = info.params.get(k)
        kind = p.type if p else "string"
        if kind in ("datarate", "double", "int", "time"):
            a, b = _number(kind, mine), _number(kind, theirs)
            if a is not None and b is not None:
                if math.isclose(a, b, rel_tol=1e-9):
                    continue
                if kind == "datarate" and math.isclose(a, b * scale, rel_tol=1e-9):
                    continue  # scaled with the rates, as rate-scale says
        unit = f" {p.unit}" if p and p.unit and kind in ("double", "int") else ""
        diffs.append(f"{k} {mine}{unit} (thesis {theirs}{unit})")
    attrs = {a: v for c in cfgs for a, v in c.attrs.items()}
    for a, v in attrs.items():
        diffs.append(f"{a}={v} (thesis: the default)")
    return Basis(simulation, scale, duration_ratio, diffs)


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
    package = Path(__file__).resolve().parents[1]
    cands.append(package / "data" / "thesis-tables.json")
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


def type_map(data: dict, our_types) -> dict[str, str]:
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
    data: dict,
    table_id: str,
    summary: pd.DataFrame,
    direction: str = "down",
    basis: Basis | None = None,
) -> pd.DataFrame:
    """Columns '<scheduler> thesis', '<scheduler> ours' for every scheduler in both; with a
    scaled ``basis`` the thesis's throughputs are scaled (column '<scheduler> thesis xS') and its
    losses left out."""
    basis = basis or Basis()
    t = data["tables"][table_id]
    theirs = thesis_table(data, table_id)
    if t["level"] == "overall":
        for m in theirs.index:
            if m in RATE_METRICS:
                theirs.loc[m] = theirs.loc[m] * basis.scale
            elif m in COUNT_METRICS and not basis.counts_comparable:
                theirs.loc[m] = float("nan")
    elif t["metric"] in RATE_METRICS:
        theirs = theirs * basis.scale
    elif t["metric"] in COUNT_METRICS and not basis.counts_comparable:
        theirs = theirs * float("nan")
    if t["level"] == "overall":
        ours = T.overall_table(summary, list(theirs.index), direction)
    else:
        ours = T.group_table(summary, t["metric"], "type", direction)
        tm = type_map(data, ours.index if not ours.empty else [])
        ours = ours.reindex([tm.get(r) for r in theirs.index]) if not ours.empty else ours
        if not ours.empty:
            ours.index = theirs.index
    cols = {}
    # in our column order (the order the schedulers were asked for), else the thesis's
    scheds = [s for s in (ours.columns if not ours.empty else []) if s in theirs.columns] or list(
        theirs.columns
    )
    metric = None if t["level"] == "overall" else t["metric"]
    for s in scheds:
        cols[basis.column(s, metric)] = theirs[s]
        cols[f"{s} ours"] = ours[s] if (not ours.empty and s in ours.columns) else float("nan")
    return pd.DataFrame(cols, index=theirs.index)


def title(data: dict, table_id: str, basis: Basis | None = None) -> str:
    """A side-by-side table's title: the thesis table, its simulation, and on what basis."""
    basis = basis or Basis()
    t = data["tables"][table_id]
    sim = data["simulations"][t["simulation"]]["description"]
    text = f"Table {table_id}: {t['title']} - simulation {t['simulation']}, {sim}"
    metric = None if t["level"] == "overall" else t["metric"]
    if basis.scaled and (metric is None or metric in RATE_METRICS):
        text += f"; thesis throughput x{basis.scale:g} (this run's rate scale)"
    if not basis.counts_comparable and (metric is None or metric in COUNT_METRICS):
        text += "; thesis losses left out: not comparable at another scale or duration"
    if basis.differences:
        text += "; this run differs from the thesis in " + ", ".join(basis.differences)
    return text


def compare_text(
    summary: pd.DataFrame,
    table_ids=TABLE_IDS,
    direction: str = "down",
    explicit=None,
    style: str = "text",
    basis: Basis | None = None,
) -> str:
    data = load(explicit)
    parts = []
    for tid in table_ids:
        t = data["tables"][tid]
        df = side_by_side(data, tid, summary, direction, basis)
        title_ = title(data, tid, basis)
        if t["level"] == "overall":
            parts.append(T.render_text(df, title_, "metric", metric_rows=True, style=style))
        else:
            parts.append(T.render_text(df, title_, "type", metric=t["metric"], style=style))
    return "\n".join(parts)


def markers(data: dict, summary: pd.DataFrame, basis: Basis, metric: str) -> dict:
    """The thesis's per-type values of ``metric`` for figure markers, where they compare like
    with like: {our scheduler: {our type label: value}}. Throughputs are scaled with the run's
    rate scale; delays only when the run has the thesis's configuration; losses never here."""
    if metric in COUNT_METRICS:
        return {}
    if metric not in RATE_METRICS and (basis.scaled or basis.differences):
        return {}
    tid = next(
        (
            k
            for k in tables_for(basis.simulation)
            if data["tables"][k]["level"] == "type" and data["tables"][k]["metric"] == metric
        ),
        None,
    )
    if tid is None:
        return {}
    theirs = thesis_table(data, tid)
    if metric in RATE_METRICS:
        theirs = theirs * basis.scale
    ours = summary[summary["level"] == "type"]["group"].astype(str).unique()
    tm = type_map(data, ours)
    return {
        s: {tm[t]: float(theirs.loc[t, s]) for t in theirs.index if t in tm} for s in theirs.columns
    }
