"""Did a mode beyond the thesis change anything? The note of ``msfc sweep`` and ``msfc report``.

MSFC's modes (``params.CHOICES``: overload, weights, inversion, isolate, boost, order, auto,
as the ns-3 attributes ``Overload`` ... ``Auto``; the first value of each is the thesis's) act only
where the traffic gives them something to do: ``Overload=class`` only when a queue disc
overflows, ``Isolate`` only where a host has several flows in a class, ``Inversion`` and
``Order`` only between classes. A study (a sweep, or two results plotted against each other)
may hold a configuration with a mode switched on and the same configuration with the thesis's
value. The mode changed nothing when their per-flow records (``flows.csv``) are identical bit
for bit in every RNG run, the test of ``msfc diff`` (compared through the SHA-256 each run's
``done.json`` records), and the output then says so in one line, with the reason where the
runs' own records show it:

* no queue disc overflowed (``qdisc.csv``: no overload drop): ``Overload`` has nothing to do;
* every queue disc carried packets of one class only (``qdisc.csv``): ``Overload``,
  ``Weights``, ``Inversion`` and ``Order`` act between classes;
* no host has more than one flow in a class (``flows.csv``, the hosts of the side the mode
  isolates): ``Isolate`` then gives each host's one flow a flow's share, as the thesis does;
* no class holds more than one flow (``flows.csv``): ``Boost=on`` reorders flows of one class;
* every flow carries a DSCP mark (``flows.csv``'s ``dscp``): ``Auto=unmarked`` classifies
  unmarked packets only;
* no flow slot left the class of unmarked traffic (``qdisc.csv``'s ``auto_promotions`` and
  ``auto_demotions``: no promotion, no demotion out of a class above 0), with ``Auto=all``
  also no flow carrying a mark: the automatic packets then went where the DSCP map puts them.

Otherwise the line says only that the per-flow records are the same.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..model.params import CHOICES

#: ns-3 attribute name of each mode (``Isolate``) -> its value in the thesis (``flow``)
THESIS = {name.capitalize(): values[0] for name, values in CHOICES.items()}
_QDISC = "MsfcQueueDisc"


@dataclass(frozen=True)
class _Run:
    path: Path
    rng_run: int
    base: str  # scenario, resolved options (not the RNG run), attributes other than the modes
    modes: frozenset  # (attribute key, value) of the modes not at their thesis value
    settings: dict  # every setting but the RNG run, as text (to name a configuration)
    flows_sha: str


def _mode(key: str, attr_id: str = "") -> str | None:
    """The mode an attribute is (``Isolate``), from its TypeId form
    (``ns3::MsfcQueueDisc::Isolate``) or its short one (``Msfc.Isolate``); None for any other
    attribute or option."""
    text = str(attr_id or key)
    if "::" in text:
        head, _, name = text.rpartition("::")
        return name if head.endswith(_QDISC) and name in THESIS else None
    owner, _, name = text.rpartition(".")
    return name if owner.startswith("Msfc") and name in THESIS else None


def _flows_sha(d: Path) -> str:
    try:
        done = json.loads((d / "done.json").read_text())
        sha = done["files"]["flows.csv"]["sha256"]
        if sha:
            return str(sha)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return hashlib.sha256((d / "flows.csv").read_bytes()).hexdigest()


def _read(d: Path) -> _Run | None:
    """A finished run's configuration, or None for one that did not finish."""
    if not (d / "done.json").is_file() or not (d / "flows.csv").is_file():
        return None
    try:
        cfg = json.loads((d / "config.json").read_text())
    except (OSError, ValueError):
        return None
    resolved = {str(k): str(v) for k, v in (cfg.get("resolved") or {}).items()}
    resolved.pop(str(cfg.get("rng_option") or ""), None)
    ids = cfg.get("attr_ids") or {}
    attrs, modes = {}, set()
    for k, v in (cfg.get("attrs") or {}).items():
        mode = _mode(k, ids.get(k, ""))
        if mode is None:
            attrs[str(k)] = str(v)
        elif str(v) != THESIS[mode]:
            modes.add((str(k), str(v)))
    base = json.dumps([cfg.get("scenario"), resolved, attrs], sort_keys=True)
    settings = {**resolved, **attrs, **dict(modes)}
    return _Run(d, int(cfg.get("rng_run", 1)), base, frozenset(modes), settings, _flows_sha(d))


def _csv(d: Path, name: str) -> pd.DataFrame | None:
    try:
        return pd.read_csv(d / name)
    except (OSError, ValueError):
        return None


def _no_overload_drop(runs: list[_Run]) -> bool:
    for r in runs:
        q = _csv(r.path, "qdisc.csv")
        if q is None or "overload_drops" not in q.columns or q["overload_drops"].sum() != 0:
            return False
    return True


def _one_class_per_qdisc(runs: list[_Run]) -> bool:
    for r in runs:
        q = _csv(r.path, "qdisc.csv")
        if q is None or not {"class", "enqueued_packets"} <= set(q.columns):
            return False
        used = q[(q["class"] >= 0) & (q["enqueued_packets"] > 0)]
        keys = [c for c in ("node", "device") if c in q.columns]
        if used.empty or not keys:
            return False
        if used.groupby(keys)["class"].nunique().max() > 1:
            return False
    return True


def _most_flows(runs: list[_Run], by: list[str]) -> int | None:
    """The most flows (flows.csv rows of any direction) that share a value of ``by`` in one run;
    None where flows.csv lacks a column."""
    most = 0
    for r in runs:
        f = _csv(r.path, "flows.csv")
        if f is None or not set(by) <= set(f.columns):
            return None
        if len(f):
            most = max(most, int(f.groupby(by).size().max()))
    return most


def _every_flow(runs: list[_Run], marked: bool) -> bool:
    """Every flow of every run carries a DSCP other than 0 (``marked``) or DSCP 0 (not
    ``marked``), by flows.csv's ``dscp``; False where a run has no such column or no flow."""
    for r in runs:
        f = _csv(r.path, "flows.csv")
        if f is None or "dscp" not in f.columns or not len(f) or ((f["dscp"] != 0) != marked).any():
            return False
    return True


def _no_auto_move(runs: list[_Run]) -> bool:
    """No flow slot of any MSFC queue disc changed class in any run: qdisc.csv counts no
    automatic promotion and no demotion out of a class above 0 (a demotion at class 0 keeps the
    slot where it is). False where qdisc.csv or its auto counters are missing."""
    for r in runs:
        q = _csv(r.path, "qdisc.csv")
        need = {"class", "auto_promotions", "auto_demotions"}
        if q is None or not need <= set(q.columns):
            return False
        if q["auto_promotions"].sum() != 0 or q.loc[q["class"] > 0, "auto_demotions"].sum() != 0:
            return False
    return True


def _hosts_of(value: str) -> list[str]:
    return {"src": ["src"], "dst": ["dst"], "both": ["src", "dst"]}.get(value, [])


def reason(mode: str, value: str, runs: list[_Run]) -> str:
    """Why ``mode=value`` can change nothing in these runs (those of both configurations), as
    their records show; "" where they do not show it."""
    if mode == "Overload" and _no_overload_drop(runs):
        return "no queue disc overflowed (no overload drop)"
    if mode in ("Overload", "Weights", "Inversion", "Order") and _one_class_per_qdisc(runs):
        return "every queue disc carried packets of one class only (the mode acts between classes)"
    if mode == "Isolate":
        sides = _hosts_of(value)
        if sides and all(_most_flows(runs, ["priority", s]) == 1 for s in sides):
            hosts = " or ".join({"src": "source", "dst": "destination"}[s] for s in sides)
            return f"no {hosts} host has more than one flow in a class"
    if mode == "Boost" and value == "on" and _most_flows(runs, ["priority"]) == 1:
        return "no class holds more than one flow"
    if mode == "Auto" and value == "unmarked" and _every_flow(runs, marked=True):
        return "every flow carries a DSCP mark (Auto=unmarked classifies unmarked packets only)"
    if (
        mode == "Auto"
        and (value == "unmarked" or _every_flow(runs, marked=False))
        and _no_auto_move(runs)
    ):
        return (
            "no flow slot left the class of unmarked traffic (qdisc.csv: no automatic promotion "
            "or demotion)"
        )
    return ""


def _runs_text(n: int) -> str:
    return "in its one RNG run" if n == 1 else f"in all {n} RNG runs"


def unchanged_notes(run_dirs) -> list[str]:
    """One line for each configuration among ``run_dirs`` (run directories, as
    ``root/runs/<hash>``) that has a mode switched on and whose per-flow records are those of
    the same configuration with the thesis's value of that mode, in every RNG run of both.
    Configurations are named by the mode and the settings in which they differ from the other
    configurations present ("Msfc.Overload=class changed nothing (at thin-class=same) in this
    scenario: ...")."""
    runs = [r for r in (_read(Path(d)) for d in dict.fromkeys(run_dirs)) if r is not None]
    configs: dict[tuple, dict[int, _Run]] = {}
    for r in runs:
        configs.setdefault((r.base, r.modes), {})[r.rng_run] = r

    # the settings that tell the configurations apart, a mode missing from a run at its
    # thesis value
    def value(r: _Run, k: str):
        mode = _mode(k)
        return r.settings.get(k, THESIS[mode] if mode else None)

    keys = {k for r in runs for k in r.settings}
    varying = sorted(k for k in keys if len({value(r, k) for r in runs}) > 1)
    notes = []
    for (base, modes), on in configs.items():
        for key, val in sorted(modes):
            off = configs.get((base, modes - {(key, val)}))
            if not off or set(off) != set(on):
                continue
            if any(on[n].flows_sha != off[n].flows_sha for n in on):
                continue
            mode = _mode(key) or key.rpartition("::")[2]
            first = next(iter(on.values()))
            at = [f"{k}={value(first, k)}" for k in varying if k != key]
            why = reason(mode, val, [*on.values(), *off.values()])
            same = (
                f"its per-flow records are those of {key}={THESIS[mode]}, the default, "
                f"{_runs_text(len(on))}"
            )
            notes.append(
                f"{key}={val} changed nothing"
                + (f" (at {', '.join(at)})" if at else "")
                + " in this scenario: "
                + (f"{why}; {same}" if why else same)
            )
    return notes


def study_notes(root: Path, hashes) -> list[str]:
    """unchanged_notes of the runs a study names (``root/runs/<hash>``)."""
    return unchanged_notes(Path(root) / "runs" / h for h in hashes)
