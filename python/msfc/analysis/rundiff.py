"""Do two runs measure the same thing? Per-flow records compared column by column.

Used to show that a change (another machine, another ns-3 build, a label-only change such as the
priorities seen by a class-blind scheduler) leaves every measured value of a simulation as it was.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import UserError

# the columns that identify a flow record; every other column is a measured or labelled value
KEYS = ("flow_id",)


def resolve_run(path: Path) -> Path:
    """A run directory: ``path`` itself, or the only run of the results directory ``path``.

    A results directory's runs are those its study.json names (the last command's): runs/ also
    keeps the runs of earlier commands with other settings, which it does not compare."""
    path = Path(path)
    if (path / "runs").is_dir() and (path / "study.json").is_file():
        from ..sim.runner import read_study

        named = [path / "runs" / h for h in dict.fromkeys(read_study(path)["configs"])]
        if len(named) > 1:
            raise UserError(
                f"{path} is a results directory with {len(named)} runs; give one of them, "
                f"e.g. {named[0]}"
            )
        if named:
            if not (named[0] / "flows.csv").is_file():
                raise UserError(
                    f"{path}: the run of its last command ({named[0]}) has not finished (no "
                    f"flows.csv); re-run that command to finish it, or give another run directory"
                )
            return named[0]
    elif (path / "runs").is_dir():
        runs = sorted(p.parent for p in (path / "runs").glob("*/flows.csv"))
        if len(runs) == 1:
            return runs[0]
        if runs:
            raise UserError(
                f"{path} is a results directory with {len(runs)} runs; give one of them, e.g. {runs[0]}"
            )
    if not (path / "flows.csv").is_file():
        raise UserError(
            f"{path} has no flows.csv; give the directory of one simulation run "
            f"(results/<name>/runs/<hash>) or of an `msfc run` result"
        )
    return path


def _flows(run: Path) -> pd.DataFrame:
    from ..sim.runner import damaged, raw_problem

    if (run / "done.json").exists():
        problem = raw_problem(run)
        if problem:
            raise damaged(run, problem)
    f = run / "flows.csv"
    try:
        return pd.read_csv(f, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise UserError(
            f"{f} cannot be read ({e}); re-run the simulation that wrote it", 1
        ) from None


#: meta.json "config" entries that do not change what a run measures
_NOT_SETTINGS = ("progress", "out")


def run_identity(run: Path) -> tuple[str | None, dict[str, str]]:
    """The scenario of a run and its settings (every resolved option of meta.json's "config",
    the scheduler attributes of config.json), as text; (None, {}) for what is not recorded."""
    import json

    def read(name: str) -> dict:
        try:
            d = json.loads((run / name).read_text())
        except (OSError, ValueError):
            return {}
        return d if isinstance(d, dict) else {}

    meta, cfg = read("meta.json"), read("config.json")
    scenario = cfg.get("scenario") or meta.get("scenario")  # msfc's record, else the program's
    settings = {
        str(k): str(v)
        for k, v in (meta.get("config") or cfg.get("resolved") or {}).items()
        if k not in _NOT_SETTINGS
    }
    if "scheduler" not in settings and (meta.get("scheduler") or cfg.get("scheduler")):
        settings["scheduler"] = str(meta.get("scheduler") or cfg.get("scheduler"))
    ids = cfg.get("attr_ids") or {}
    for k, v in (cfg.get("attrs") or {}).items():  # under their short names (Msfc.Ratio)
        settings.pop(str(ids.get(k)), None)
        settings[str(k)] = str(v)
    return (str(scenario) if scenario else None), settings


def diff_runs(a: Path, b: Path, ignore: list[str] | None = None) -> dict:
    """Compare ``a/flows.csv`` with ``b/flows.csv`` as text, column by column.

    Returns ``{"identical": bool, "rows": (na, nb), "only_a": [...], "only_b": [...],
    "columns": {col: {"rows_differing": n, "max_abs_diff": x or None}}, "ignored": [...]}``."""
    a, b = resolve_run(a), resolve_run(b)
    fa, fb = _flows(a), _flows(b)
    ignore = list(ignore or [])
    unknown = [c for c in ignore if c not in fa.columns and c not in fb.columns]
    if unknown:
        raise UserError(
            f"--ignore {','.join(unknown)}: no such column in flows.csv; columns are "
            f"{', '.join(fa.columns)}"
        )
    for f, run in ((fa, a), (fb, b)):
        missing = [k for k in KEYS if k not in f.columns]
        if missing:
            raise UserError(
                f"{run}/flows.csv has no {', '.join(missing)} column; is it an msfc flows.csv?"
            )
        if f.duplicated(list(KEYS)).any():
            raise UserError(
                f"{run}/flows.csv has a repeated {', '.join(KEYS)}; re-run the simulation that wrote it",
                1,
            )
    ca = [c for c in fa.columns if c not in ignore]
    cb = [c for c in fb.columns if c not in ignore]
    (scen_a, set_a), (scen_b, set_b) = run_identity(a), run_identity(b)
    out = {
        "a": str(a),
        "b": str(b),
        "scenarios": [scen_a, scen_b],
        "same_scenario": scen_a is None or scen_b is None or scen_a == scen_b,
        # the settings in which the two runs differ: {name: [A's, B's]} (missing: None)
        "settings_differ": {
            k: [set_a.get(k), set_b.get(k)]
            for k in dict.fromkeys([*set_a, *set_b])
            if set_a.get(k) != set_b.get(k)
        }
        if set_a and set_b
        else {},
        "rows": (len(fa), len(fb)),
        "ignored": ignore,
        "columns": {},
        "only_a": sorted(set(ca) - set(cb)),
        "only_b": sorted(set(cb) - set(ca)),
    }
    ia, ib = fa.set_index(list(KEYS)), fb.set_index(list(KEYS))
    out["flows_only_a"] = int((~ia.index.isin(ib.index)).sum())
    out["flows_only_b"] = int((~ib.index.isin(ia.index)).sum())
    common = ia.index.intersection(ib.index)
    for c in [c for c in ca if c in cb and c not in KEYS]:
        va, vb = ia.loc[common, c], ib.loc[common, c]
        differ = va != vb
        n = int(differ.sum())
        if not n:
            continue
        x = pd.to_numeric(va[differ], errors="coerce") - pd.to_numeric(vb[differ], errors="coerce")
        out["columns"][c] = {
            "rows_differing": n,
            "max_abs_diff": None if x.isna().any() else float(x.abs().max()),
        }
    out["identical"] = not (
        out["columns"]
        or out["only_a"]
        or out["only_b"]
        or out["flows_only_a"]
        or out["flows_only_b"]
    )
    return out


def _settings_line(d: dict, most: int = 6) -> str | None:
    diff = d.get("settings_differ") or {}
    if not diff:
        return None
    parts = [
        f"{k} {'-' if va is None else va} / {'-' if vb is None else vb}"
        for k, (va, vb) in diff.items()
    ]
    more = f" and {len(parts) - most} more" if len(parts) > most else ""
    return f"the runs' settings differ (A / B): {'; '.join(parts[:most])}{more}"


def format_diff(d: dict) -> str:
    na, nb = d["rows"]
    lines = []
    if not d.get("same_scenario", True):
        sa, sb = d["scenarios"]
        lines.append(
            f"different scenarios: A is a run of {sa}, B of {sb}. Their flows are other flows "
            f"(flow 1 of one is not flow 1 of the other), so no column below compares like "
            f"with like; only runs of one scenario are comparable flow by flow (diff two {sa} "
            f"runs, or two {sb} runs)"
        )
    lines += [f"A: {d['a']}/flows.csv ({na} flows)", f"B: {d['b']}/flows.csv ({nb} flows)"]
    settings = _settings_line(d) if d.get("same_scenario", True) else None
    if settings:
        lines.append(settings)
    if d["ignored"]:
        lines.append(f"ignored columns: {', '.join(d['ignored'])}")
    if d["identical"]:
        lines.append("identical: every flow and every compared column is the same")
        return "\n".join(lines)
    if d["flows_only_a"] or d["flows_only_b"]:
        lines.append(f"flows only in A: {d['flows_only_a']}, only in B: {d['flows_only_b']}")
    if d["only_a"] or d["only_b"]:
        lines.append(
            f"columns only in A: {', '.join(d['only_a']) or '-'}; only in B: {', '.join(d['only_b']) or '-'}"
        )
    if d["columns"]:
        lines.append("differing columns (flows that differ, largest absolute difference):")
        for c, v in d["columns"].items():
            m = "-" if v["max_abs_diff"] is None else f"{v['max_abs_diff']:.6g}"
            lines.append(f"  {c}: {v['rows_differing']} flows, {m}")
    return "\n".join(lines)
