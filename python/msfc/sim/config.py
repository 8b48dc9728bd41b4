"""Run configurations: parsing ``--set KEY=VALUE`` and config files, validation against what the
programs describe, the program's command line, and the configuration hash."""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UserError
from ..model import params as P
from .programs import Param, ScenarioInfo, SchedulerAttr, SchedulerInfo

_TIME_UNITS = {
    "y": 365 * 86400.0,
    "d": 86400.0,
    "h": 3600.0,
    "min": 60.0,
    "s": 1.0,
    "ms": 1e-3,
    "us": 1e-6,
    "ns": 1e-9,
    "ps": 1e-12,
    "fs": 1e-15,
}
_TIME_RE = re.compile(
    r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(y|d|h|min|s|ms|us|ns|ps|fs)?\s*$"
)
_RATE_RE = re.compile(
    r"^\s*((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([kKmMgGtT]?)(i?)(bps|b/s|Bps|B/s)?\s*$"
)
_PREFIX = {"": 1, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9, "t": 1e12, "T": 1e12}
_BIN_PREFIX = {
    "": 1,
    "k": 1024,
    "K": 1024,
    "m": 1024**2,
    "M": 1024**2,
    "g": 1024**3,
    "G": 1024**3,
    "t": 1024**4,
    "T": 1024**4,
}
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def parse_time(text: str, require_unit: bool = False) -> float:
    """An ns-3 Time string (``5ms``, ``1.5s``; ``100`` = seconds unless ``require_unit``) in
    seconds."""
    m = _TIME_RE.match(str(text))
    if not m:
        raise ValueError(f"'{text}' is not a time (use a number and a unit, e.g. 5ms, 1.5s)")
    if require_unit and m.group(2) is None and float(m.group(1)) != 0:
        raise ValueError(
            f"'{text}' has no unit; write it with one, e.g. {m.group(1)}ms or {m.group(1)}s"
        )
    return float(m.group(1)) * _TIME_UNITS[m.group(2) or "s"]


def parse_datarate(text: str) -> float:
    """An ns-3 DataRate string (``100Mbps``, ``1.5Gb/s``, ``10KiBps``) in bits per second."""
    m = _RATE_RE.match(str(text))
    if not m:
        raise ValueError(f"'{text}' is not a data rate (use e.g. 100Mbps, 1Gbps, 500kbps)")
    value, prefix, binary, unit = m.groups()
    mult = (_BIN_PREFIX if binary else _PREFIX)[prefix]
    if unit is None and (prefix or binary):
        raise ValueError(f"'{text}' is not a data rate: a unit (bps or Bps) is missing")
    bytes_unit = unit in ("Bps", "B/s")
    return float(value) * mult * (8 if bytes_unit else 1)


def _suggest(word: str, valid) -> str:
    close = difflib.get_close_matches(word, list(valid), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _bound(value, kind: str):
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        if kind == "time":
            return parse_time(value)
        if kind == "datarate":
            return parse_datarate(value)
        return float(value)
    except ValueError:
        return None


def _check_numeric(
    name: str,
    text: str,
    kind: str,
    lo,
    hi,
    range_text: str,
    what: str,
    require_unit=True,
    compact: bool = False,
) -> str:
    """Validate a number-like value; return its canonical text. ``compact``: a time or data rate
    is given without spaces ("5 ms" -> "5ms"), as ns-3's attribute parsers need it."""
    try:
        if kind == "int":
            f = float(text)
            if not f.is_integer():
                raise ValueError
            v: float = int(f)
            canon = str(int(f))
        elif kind == "uint":
            f = float(text)
            if not f.is_integer() or f < 0:
                raise ValueError
            v = int(f)
            canon = str(int(f))
        elif kind == "double":
            v = float(text)
            canon = format(v, ".17g") if not math.isfinite(v) else format(float(repr(v)), ".15g")
            if float(canon) != v:
                canon = repr(v)
        elif kind == "time":
            v = parse_time(text, require_unit=require_unit)
            canon = re.sub(r"\s+", "", text) if compact else str(text).strip()
        elif kind == "datarate":
            v = parse_datarate(text)
            canon = re.sub(r"\s+", "", text) if compact else str(text).strip()
        else:
            raise AssertionError(kind)
    except ValueError as e:
        expected = {
            "int": "an integer",
            "uint": "a non-negative integer",
            "double": "a number",
        }.get(kind)
        msg = f"expected {expected}" if expected else str(e)
        raise UserError(
            f"{what} '{name}': bad value '{text}': {msg}"
            + (f"; allowed range {range_text}" if range_text else "")
        ) from None
    if not math.isfinite(v):  # inf, nan, 1e400: no program can use it (and NaN passes "<")
        raise UserError(
            f"{what} '{name}': bad value '{text}': not a finite number; give "
            + (f"a value in the allowed range {range_text}" if range_text else "a finite number")
        )
    lo_v, hi_v = _bound(lo, kind), _bound(hi, kind)
    if (lo_v is not None and v < lo_v) or (hi_v is not None and v > hi_v):
        raise UserError(
            f"{what} '{name}': value {text} is out of range; allowed range {range_text}"
        )
    return canon


def validate_param(p: Param, value, scenario: str, user: bool = True) -> str:
    """Check a scenario option's value against ``--describe``; return the canonical text.
    ``user``: the value was typed by the user (a time then needs its unit); presets and
    defaults come from the program."""
    what = f"scenario '{scenario}' option"
    text = str(value).strip()
    t = p.type
    if t in ("int", "double", "time", "datarate"):
        return _check_numeric(p.name, text, t, p.min, p.max, p.range_text(), what, user)
    if t == "bool":
        low = text.lower()
        if low in _TRUE:
            return "true"
        if low in _FALSE:
            return "false"
        raise UserError(f"{what} '{p.name}': bad value '{text}'; use true or false")
    if t == "choice":
        choices = [str(c) for c in (p.choices or [])]
        if text in choices:
            return text
        ci = [c for c in choices if c.lower() == text.lower()]
        if len(ci) == 1:
            return ci[0]
        raise UserError(
            f"{what} '{p.name}': unknown value '{text}'{_suggest(text, choices)}; "
            f"valid values: {', '.join(choices)}"
        )
    if t == "path":
        # passed as given: a program may also accept names (e.g. shipped files) besides paths
        if text == "":
            raise UserError(f"{what} '{p.name}': empty path")
        return text
    return text


def _attr_kind(a: SchedulerAttr) -> str | None:
    t = (a.type or "").lower()
    if "uinteger" in t or re.search(r"\buint\d*", t):
        return "uint"
    if "integer" in t or re.search(r"\bint\d*", t):
        return "int"
    if "double" in t or t == "float":
        return "double"
    if "boolean" in t or t == "bool":
        return "bool"
    if "datarate" in t:
        return "datarate"
    if "queuesize" in t:
        return "queuesize"
    if "time" in t:
        return "time"
    return None


_QUEUE_SIZE_RE = re.compile(r"^\s*\d+\s*([kKmMgG]i?)?(p|B)\s*$")


MSFC_TYPE_ID = "ns3::MsfcQueueDisc"


def _check_msfc_range(sched: SchedulerInfo, a: SchedulerAttr, text: str, kind: str) -> None:
    """An MSFC attribute against the range of the parameter it shares with the kernel qdisc
    (msfc.model.params, pkt_sched_msfc.h), refused in the kernel's words."""
    p = P.param(P.NS3_ATTRIBUTES[a.name])
    if kind == "time":
        v = _bound(text, "time") * 1e6  # the header's unit: microseconds
    elif p.name == "ratio":
        v = P.ratio_fixed(text) if float(text) > 0 else 0
    else:
        v = int(float(text))
    if a.name == "Quantum" and v == 0:
        return  # 0: the device's MTU (ns-3 only)
    if not p.min <= v <= p.max:
        extra = " (or 0 for the device MTU)" if a.name == "Quantum" else ""
        raise UserError(f"{sched.name}.{a.name}={text}: {p.message}{extra}")


#: attributes of ns-3's own queue discs whose checkers accept values the queue disc cannot run
#: with: the simulation dies of SIGFPE (hash % Flows) instead of refusing them. Their minimum
#: and why, refused before anything runs.
NS3_MINIMUMS = {
    ("ns3::FqCoDelQueueDisc", "Flows"): (1, "it divides by the number of flow queues"),
    ("ns3::FqCobaltQueueDisc", "Flows"): (1, "it divides by the number of flow queues"),
    ("ns3::FqPieQueueDisc", "Flows"): (1, "it divides by the number of flow queues"),
}


def _time_string_attr(a: SchedulerAttr) -> bool:
    """A string attribute that holds a time (ns-3's FqCoDel Target and Interval: "5ms")."""
    return (
        "stringvalue" in (a.type or "").lower()
        and isinstance(a.default, str)
        and bool(_TIME_RE.match(a.default))
        and _TIME_RE.match(a.default).group(2) is not None
    )


def _check_queue_size(sched: SchedulerInfo, a: SchedulerAttr, text: str) -> None:
    """A queue disc that holds nothing drops every packet: MSFC's MaxSize has the kernel's
    range (limit, pkt_sched_msfc.h), every other queue disc's at least one packet or byte."""
    m = re.match(r"^\s*(\d+)", text)
    if m is None or int(m.group(1)) >= 1:
        return
    if sched.type_id == MSFC_TYPE_ID:
        # the model's words: "limit must be at least 1 packet" (the kernel's) "or byte"
        lo, rule = P.param("limit").min, f"{P.param('limit').message} or byte"
    else:
        lo, rule = 1, "a queue disc that holds no packet drops every packet"
    raise UserError(
        f"{sched.name}.{a.name}={text}: {rule}; give at least {lo}p (packets) or {lo}B "
        f"(bytes), e.g. the default {sched.name}.{a.name}={a.default}"
    )


def validate_attr(sched: SchedulerInfo, a: SchedulerAttr, value) -> str:
    what = f"{sched.name} ({sched.type_id}) attribute"
    text = str(value).strip()
    kind = _attr_kind(a)
    if kind is None and _time_string_attr(a):
        kind = "time"
    if kind in ("int", "uint", "double", "time", "datarate"):
        canon = _check_numeric(a.name, text, kind, None, None, a.range_text(), what, compact=True)
        if sched.type_id == MSFC_TYPE_ID and a.name in P.NS3_ATTRIBUTES:
            _check_msfc_range(sched, a, text, kind)
            return canon
        lo, why = NS3_MINIMUMS.get((sched.type_id, a.name), (None, ""))
        if lo is not None and _bound(text, kind) < lo:
            raise UserError(
                f"{sched.name}.{a.name}={text}: ns-3's {sched.type_id.split('::')[-1]} needs at "
                f"least {lo} ({why}: the simulation would crash); give {sched.name}.{a.name}="
                f"{lo} or more, e.g. the default {a.default}"
            )
        v = _bound(text, kind)
        for op, limit in a.constraints():
            lim = _bound(limit, kind)
            if lim is None or v is None:
                continue
            ok = {">=": v >= lim, ">": v > lim, "<=": v <= lim, "<": v < lim}[op]
            if not ok:
                raise UserError(
                    f"{what} '{a.name}': value {text} is out of range; allowed range "
                    f"{a.range_text()}"
                )
        return canon
    if kind == "queuesize":
        if not _QUEUE_SIZE_RE.match(text):
            raise UserError(
                f"{what} '{a.name}': bad value '{text}'; use packets or bytes, e.g. 1000p or 1500000B"
            )
        _check_queue_size(sched, a, text)
        return text.replace(" ", "")
    if kind == "bool":
        low = text.lower()
        if low in _TRUE:
            return "true"
        if low in _FALSE:
            return "false"
        raise UserError(f"{what} '{a.name}': bad value '{text}'; use true or false")
    if "enumvalue" in (a.type or "").lower() and isinstance(a.range, str) and "|" in a.range:
        # an ns-3 enum: msfc-describe gives its names as "flow|class"
        valid = a.range.split("|")
        if text not in valid:
            raise UserError(
                f"{what} '{a.name}': unknown value '{text}'{_suggest(text, valid)}; "
                f"valid values: {', '.join(valid)}"
            )
        return text
    if (
        isinstance(a.range, (list, tuple))
        and a.range
        and not (len(a.range) == 2 and all(isinstance(x, (int, float)) for x in a.range))
    ):
        valid = [str(x) for x in a.range]
        if text not in valid:
            raise UserError(
                f"{what} '{a.name}': unknown value '{text}'; valid values: {', '.join(valid)}"
            )
    return text


@dataclass
class RunConfig:
    """One simulation: a scenario, its options, scheduler attributes and the RNG run number."""

    scenario: str
    preset: str | None = None
    params: dict[str, str] = field(default_factory=dict)  # explicitly set scenario options
    attrs: dict[str, str] = field(default_factory=dict)  # "Msfc.Ratio" -> "3"
    attr_ids: dict[str, str] = field(
        default_factory=dict
    )  # "Msfc.Ratio" -> "ns3::MsfcQueueDisc::Ratio"
    rng_run: int = 1
    resolved: dict[str, str] = field(default_factory=dict)  # every scenario option, resolved
    rng_option: str = "RngRun"
    #: keys given but left out because they belong to another scheduler than this run's
    #: (not part of the configuration: the run does not depend on them)
    ignored: list[str] = field(default_factory=list, compare=False)
    #: scenario options given as the scheduler attribute they set: option -> "Msfc.Ratio"
    folded: dict[str, str] = field(default_factory=dict, compare=False)
    #: options that only schedulers other than this run's use (``"schedulers"`` in
    #: --describe): the run has no such setting, its tidy ``cfg.*`` column is left empty
    unused: list[str] = field(default_factory=list, compare=False)

    def key(self) -> dict:
        """What identifies the run: everything that changes the result."""
        return {
            "scenario": self.scenario,
            "config": dict(sorted(self.resolved.items())),
            "attributes": {self.attr_ids[k]: v for k, v in sorted(self.attrs.items())},
            "rng_run": self.rng_run,
        }

    def hash(self) -> str:
        blob = json.dumps(self.key(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    @property
    def scheduler(self) -> str:
        return self.resolved.get("scheduler", "")

    def argv(self, program: Path | str, out_dir: Path | str) -> list[str]:
        argv = [str(program)]
        if self.preset:
            argv.append(f"--preset={self.preset}")
        for k, v in self.params.items():
            argv.append(f"--{k}={v}")
        for k, v in self.attrs.items():
            argv.append(f"--{self.attr_ids[k]}={v}")
        argv.append(f"--{self.rng_option}={self.rng_run}")
        argv.append(f"--out={out_dir}")
        return argv

    def to_json(self) -> dict:
        return {
            "scenario": self.scenario,
            "preset": self.preset,
            "params": self.params,
            "attrs": self.attrs,
            "attr_ids": self.attr_ids,
            "rng_run": self.rng_run,
            "resolved": self.resolved,
            "rng_option": self.rng_option,
            "unused": self.unused,
            "hash": self.hash(),
        }

    @classmethod
    def from_json(cls, d: dict) -> RunConfig:
        return cls(
            scenario=d["scenario"],
            preset=d.get("preset"),
            params=dict(d.get("params", {})),
            attrs=dict(d.get("attrs", {})),
            attr_ids=dict(d.get("attr_ids", {})),
            rng_run=int(d.get("rng_run", 1)),
            resolved=dict(d.get("resolved", {})),
            rng_option=d.get("rng_option", "RngRun"),
            unused=list(d.get("unused", [])),
        )

    def label(self, keys: list[str] | None = None) -> str:
        keys = keys if keys is not None else list(self.params) + list(self.attrs)
        parts = []
        for k in keys:
            v = self.attrs.get(k, self.params.get(k, self.resolved.get(k)))
            parts.append(f"{k}={v}")
        parts.append(f"run={self.rng_run}")
        return " ".join(parts)


def parse_assignments(items: list[str] | None, source: str = "--set") -> list[tuple[str, str]]:
    """``KEY=VALUE`` strings -> pairs (order kept)."""
    out = []
    for item in items or []:
        if "=" not in item:
            raise UserError(f"{source} '{item}': expected KEY=VALUE, e.g. {source} duration=10")
        k, v = item.split("=", 1)
        k = k.strip().lstrip("-")
        if not k:
            raise UserError(f"{source} '{item}': the key is empty; expected KEY=VALUE")
        out.append((k, v.strip()))
    return out


def read_config_file(path: str | Path) -> list[tuple[str, str]]:
    """A config file as the scenario programs read it: ``key = value`` lines, ``#`` comments."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise UserError(f"cannot read config file {p}: {e.strerror}") from None
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if "=" not in line:
            raise UserError(f"{p}:{n}: expected 'key = value', got '{line}'")
        k, v = line.split("=", 1)
        k, v = k.strip(), v.strip()
        if not k:
            raise UserError(f"{p}:{n}: the key is empty; expected 'key = value'")
        out.append((k, v))
    return out


def _find_scheduler(schedulers: dict[str, SchedulerInfo], name: str) -> SchedulerInfo:
    if name in schedulers:
        return schedulers[name]
    for s in schedulers.values():
        if (
            s.name.lower() == name.lower()
            or s.type_id == name
            or s.type_id.lower() == ("ns3::" + name).lower()
        ):
            return s
    raise UserError(
        f"unknown scheduler '{name}'{_suggest(name, schedulers)}; "
        f"schedulers with parameters: {', '.join(schedulers) or '(none)'}"
    )


def split_key(key: str) -> tuple[str, str] | None:
    """Scheduler attribute keys: ``Msfc.Ratio`` or ``ns3::MsfcQueueDisc::Ratio``; None otherwise."""
    if key.startswith("ns3::"):
        head, _, attr = key.rpartition("::")
        return head, attr
    if "." in key:
        s, _, a = key.partition(".")
        return s, a
    return None


def build_config(
    info: ScenarioInfo,
    assignments: list[tuple[str, str]],
    *,
    preset: str | None = None,
    scheduler: str | None = None,
    rng_run: int = 1,
    schedulers: dict[str, SchedulerInfo] | None = None,
    schedulers_loader=None,
    other_scheduler: str = "reject",
) -> RunConfig:
    """Validate everything and return a RunConfig with the resolved options.

    ``schedulers_loader`` is called (once) when a scheduler attribute is set and ``schedulers``
    is not given; it reads msfc-describe. A scheduler attribute given as the scenario option
    that sets it (``Msfc.Ratio`` where the scenario has ``ratio``, "sets
    ns3::MsfcQueueDisc::Ratio") is recorded as that option; both with different values is an
    error. Attributes (and such options) of a scheduler the scenario offers but this run does not
    use change nothing: ``other_scheduler="reject"`` refuses them, ``"drop"`` leaves them out of
    the configuration and lists them in ``cfg.ignored`` (a comparison or sweep over schedulers).
    """
    if preset is not None and preset not in info.presets:
        raise UserError(
            f"scenario '{info.name}': unknown preset '{preset}'{_suggest(preset, info.presets)}; "
            f"valid presets: {', '.join(info.presets) or '(none)'}"
        )
    cfg = RunConfig(scenario=info.name, preset=preset)
    if "rng-run" in info.params:
        cfg.rng_option = "rng-run"
    if rng_run < 1:
        raise UserError(f"RNG run number {rng_run} is out of range; it must be >= 1")
    cfg.rng_run = int(rng_run)
    items = list(assignments)
    if scheduler is not None:
        if "scheduler" not in info.params:
            raise UserError(
                f"scenario '{info.name}' has no 'scheduler' option; valid options: "
                f"{', '.join(info.params)}"
            )
        items.append(("scheduler", scheduler))
    for key, value in items:
        if key in ("rng-run", "RngRun", "run"):
            try:
                cfg.rng_run = int(value)
            except ValueError:
                raise UserError(f"RNG run '{value}' is not an integer") from None
            if cfg.rng_run < 1:
                raise UserError(f"RNG run number {value} is out of range; it must be >= 1")
            continue
        if key in ("out", "preset", "config", "describe"):
            raise UserError(
                f"'{key}' cannot be set with --set; use the msfc option --{key} instead"
            )
        if key in info.params:
            cfg.params[key] = validate_param(info.params[key], value, info.name)
            continue
        sk = split_key(key)
        if sk is None:
            raise UserError(
                f"scenario '{info.name}' has no option '{key}'{_suggest(key, info.params)}; "
                f"valid options: {', '.join(info.params)}; scheduler attributes are set as "
                f"Scheduler.Attribute=VALUE (see `msfc list`)"
            )
        if schedulers is None:
            schedulers = schedulers_loader() if schedulers_loader else None
            if schedulers is None:
                raise UserError(
                    f"'{key}': scheduler attributes cannot be checked without msfc-describe"
                )
        sname, aname = sk
        s = _find_scheduler(schedulers, sname)
        if aname not in s.attributes:
            raise UserError(
                f"scheduler {s.name} ({s.type_id}) has no attribute '{aname}'"
                f"{_suggest(aname, s.attributes)}; valid attributes: {', '.join(s.attributes)}"
            )
        friendly = f"{s.name}.{aname}"
        cfg.attrs[friendly] = validate_attr(s, s.attributes[aname], value)
        cfg.attr_ids[friendly] = f"{s.type_id}::{aname}"
    _fold_aliases(info, cfg)
    # resolve: defaults, then the preset (explicit or default), then explicit options
    resolved: dict[str, str] = {}
    for name, p in info.params.items():
        if p.default is not None:
            resolved[name] = _canon_default(p)
    eff_preset = preset or info.default_preset
    for k, v in (info.presets.get(eff_preset, {}) if eff_preset else {}).items():
        if k in info.params:
            resolved[k] = validate_param(info.params[k], _json_text(v), info.name, user=False)
    resolved.update(cfg.params)
    if cfg.rng_option in info.params:
        resolved[cfg.rng_option] = str(cfg.rng_run)
    cfg.resolved = resolved
    _other_schedulers(info, cfg, other_scheduler)
    if cfg.attrs or cfg.scheduler == "Msfc":
        if schedulers is None and schedulers_loader:
            try:
                schedulers = schedulers_loader()
            except UserError:
                if cfg.attrs:
                    raise
                # MSFC's defaults are unknown without msfc-describe; the program checks them
        if schedulers:
            check_constraints(cfg, schedulers, info)
    if cfg.preset is None and info.default_preset:
        cfg.preset = None  # the program applies its default preset itself
    return cfg


def option_aliases(info: ScenarioInfo) -> dict[str, str]:
    """Scheduler attributes a scenario option sets (``--describe``'s ``sets``, e.g.
    ``ns3::MsfcQueueDisc::Ratio``): attribute id -> option name."""
    return {p.sets: p.name for p in info.params.values() if p.sets}


def scheduler_of(type_id: str) -> str:
    """The short scheduler name of a queue disc TypeId: ns3::MsfcQueueDisc -> Msfc."""
    name = type_id.rsplit("::", 1)[-1]
    return name[: -len("QueueDisc")] if name.endswith("QueueDisc") else name


def _same(p: Param, a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        return _bound(a, p.type) == _bound(b, p.type) and _bound(a, p.type) is not None
    except ValueError:
        return False


def _fold_aliases(info: ScenarioInfo, cfg: RunConfig) -> None:
    """Record an attribute that a scenario option sets as that option (what the program runs)."""
    aliases = option_aliases(info)
    for friendly in list(cfg.attrs):
        aid = cfg.attr_ids[friendly]
        opt = aliases.get(aid)
        if opt is None or opt not in info.params:
            continue
        value = cfg.attrs.pop(friendly)
        cfg.attr_ids.pop(friendly)
        try:
            canon = validate_param(info.params[opt], value, info.name)
        except UserError as e:
            raise UserError(
                f"{friendly}={value}: scenario '{info.name}' sets {aid} through its option "
                f"'{opt}', which does not accept it: {e}"
            ) from None
        if opt in cfg.params and not _same(info.params[opt], cfg.params[opt], canon):
            raise UserError(
                f"{opt}={cfg.params[opt]} and {friendly}={value} both set {aid}, to different "
                f"values; give only one of them"
            )
        cfg.params[opt] = canon
        cfg.folded[opt] = friendly


def _other_schedulers(info: ScenarioInfo, cfg: RunConfig, mode: str) -> None:
    """Attributes (and options that set them) of schedulers this run does not use."""
    offered = set(info.schedulers)
    sched = cfg.scheduler
    if not offered or not sched:
        return
    aliases = option_aliases(info)
    foreign = []
    for friendly in list(cfg.attr_ids):
        owner = friendly.split(".", 1)[0]
        if owner in offered and owner != sched:
            foreign.append((friendly, [owner], "attrs"))
    # options that only some schedulers use (--describe's "schedulers": isp-tree's ratio)
    cfg.unused = [
        p.name for p in info.params.values() if p.schedulers and sched not in p.schedulers
    ]
    for name in cfg.unused:
        if name in cfg.params:
            foreign.append((name, list(info.params[name].schedulers), "params"))
    # an option given as the attribute it sets (Msfc.Prios for prios); the option itself may
    # do more than set the attribute (isp-tree's prios also bounds the flow types' priorities)
    for aid, opt in aliases.items():
        owner = scheduler_of(aid.rsplit("::", 1)[0])
        if (
            opt in cfg.folded
            and owner in offered
            and owner != sched
            and opt not in (k for k, _, _ in foreign)
        ):
            foreign.append((opt, [owner], "params"))
    for key, owners, where in foreign:
        if mode == "reject":
            shown = cfg.folded.get(key, key)
            which = " or ".join(owners)
            raise UserError(
                f"'{shown}' applies to the scheduler {which} only, but this run's scheduler is "
                f"{sched}: it would change nothing (a sweep over it would run the same "
                f"simulation under several labels). Leave it out, or run {owners[0]} "
                f"(--scheduler {owners[0]})"
            )
        if where == "attrs":
            cfg.attrs.pop(key)
            cfg.attr_ids.pop(key)
        else:
            cfg.params.pop(key)
            p = info.params[key]
            eff = cfg.preset or info.default_preset
            preset_v = info.presets.get(eff, {}).get(key) if eff else None
            if preset_v is not None:
                cfg.resolved[key] = validate_param(p, _json_text(preset_v), info.name, user=False)
            elif p.default is not None:
                cfg.resolved[key] = _canon_default(p)
        cfg.ignored.append(cfg.folded.get(key, key))


#: ns-3's NS_ABORT_MSG / NS_ASSERT_MSG / NS_FATAL_ERROR line: '... msg="<message>", [+<time>s
#: <node>] file=...'
_NS3_MSG = re.compile(r'\bmsg="(.*?)",?\s*(?:[+-]?[0-9.e+-]+s\s+-?\d+\s+)?file=')


def ns3_message(stderr: str) -> str | None:
    """The message of an ns-3 NS_ABORT_MSG / NS_ASSERT_MSG / NS_FATAL_ERROR in a program's
    stderr ('aborted. cond="...", msg="<this>", file=...'), the last one; None without one."""
    found = _NS3_MSG.findall(stderr or "")
    return found[-1] if found else None


def settings_text(c: RunConfig) -> str:
    """What this run sets beyond the scenario's defaults: "Msfc.Ratio=3, duration=5"."""
    parts = [f"{c.folded.get(k, k)}={v}" for k, v in c.params.items()]
    parts += [f"{k}={v}" for k, v in c.attrs.items()]
    return ", ".join(parts)


def culprit(message: str, c: RunConfig) -> str | None:
    """The setting whose value a program's message quotes ('"5 ms" is not properly
    formatted'), as KEY=VALUE; None when no setting's value is quoted."""
    for k, v in [*c.params.items(), *c.attrs.items()]:
        if v and (f'"{v}"' in message or f"'{v}'" in message):
            return f"{c.folded.get(k, k)}={v}"
    return None


def check_with_program(program: Path | str, cfgs: list[RunConfig], timeout: float = 60.0) -> None:
    """The scenario program's own checks (``--check``: it validates and exits, simulating and
    writing nothing), before anything is written: those that need the scenario's files, such as
    isp-tree's flow-type priorities below ``prios``. Each distinct configuration is checked once
    (RNG runs do not change what is valid). A rejected one is a UserError with the program's
    message."""
    import subprocess

    seen: set[tuple[str, ...]] = set()
    for c in cfgs:
        argv = [
            a for a in c.argv(program, "") if not a.startswith(("--out=", f"--{c.rng_option}="))
        ]
        if tuple(argv) in seen:
            continue
        seen.add(tuple(argv))
        try:
            proc = subprocess.run(
                argv + ["--check"], capture_output=True, text=True, timeout=timeout
            )
        except OSError as e:
            raise UserError(f"cannot run {program}: {e}; build it with `make build`") from None
        except subprocess.TimeoutExpired:
            raise UserError(f"{program} --check did not answer within {timeout:g} s", 1) from None
        if proc.returncode == 0:
            continue
        lines = [x for x in proc.stderr.strip().splitlines() if not x.startswith("progress ")]
        msg = lines[-1] if lines else f"exit code {proc.returncode}"
        prefix = f"{Path(str(program)).name}: error: "
        ns3 = ns3_message(proc.stderr)
        if ns3 is not None:
            # ns-3 stopped the program on a value it cannot use (an attribute's own parser):
            # its words, and which setting they are about
            who = culprit(ns3, c)
            raise UserError(
                f"scenario '{c.scenario}' rejects this configuration: ns-3 says: {ns3}"
                + (f" (from {who}); correct that value" if who else "")
                + (
                    f"; check the values set ({settings_text(c)}) against `msfc list {c.scenario}`"
                    if not who and settings_text(c)
                    else ""
                )
            )
        crash = crash_text(proc.returncode)
        if crash:
            raise UserError(
                f"{program} --check {crash}; the values set ({settings_text(c) or 'none'}) are "
                f"the likely cause: check them against `msfc list {c.scenario}`",
                1,
            )
        if proc.returncode == 2 and msg.startswith(prefix):
            folded = "".join(f" ({a} sets the option {o})" for o, a in c.folded.items() if o in msg)
            raise UserError(
                f"scenario '{c.scenario}' rejects this configuration: {msg[len(prefix) :]}{folded}"
            )
        raise UserError(
            f"{program} --check failed (exit code {proc.returncode}): {msg}; rebuild with "
            f"`make build`",
            1,
        )


_CRASH_SIGNALS = {
    "SIGFPE": "an arithmetic error, such as a division by zero",
    "SIGSEGV": "an invalid memory access",
    "SIGBUS": "an invalid memory access",
    "SIGILL": "an illegal instruction",
    "SIGABRT": "an abort",
}


def crash_text(returncode: int) -> str | None:
    """'crashed with SIGFPE (an arithmetic error, ...)' for a program that died of a crash
    signal (its exit code -N, or 128+N through a shell); None otherwise."""
    import signal

    n = -returncode if returncode < 0 else returncode - 128 if returncode > 128 else 0
    try:
        name = signal.Signals(n).name
    except ValueError:
        return None
    if name not in _CRASH_SIGNALS:
        return None
    return f"crashed with {name} ({_CRASH_SIGNALS[name]})"


def ignored_note(cfgs: list[RunConfig]) -> str | None:
    """What a comparison or sweep over schedulers left out of some runs, and why, in one line;
    None when nothing was left out."""
    by_key: dict[str, set[str]] = {}
    for c in cfgs:
        for k in c.ignored:
            by_key.setdefault(k, set()).add(c.scheduler)
    if not by_key:
        return None
    parts = [
        f"'{k}' leaves the {', '.join(sorted(s))} runs unchanged, so they run once per seed "
        f"without it, not once per value"
        for k, s in by_key.items()
    ]
    return "note: " + "; ".join(parts) + " (their column for it is empty)"


def check_applies(cfgs: list[RunConfig], where: str) -> None:
    """A key left out of every configuration (it belongs to a scheduler none of them uses)
    would change nothing: refuse it."""
    if not cfgs:
        return
    unused = set(cfgs[0].ignored)
    for c in cfgs[1:]:
        unused &= set(c.ignored)
    if unused:
        k = sorted(unused)[0]
        raise UserError(
            f"'{k}' applies to a scheduler that {where} does not run, so it would change "
            f"nothing; leave it out or add that scheduler"
        )


def check_dscp_map(spec: str) -> str | None:
    """What is wrong with a DscpMap ("EF=2, CS1=0, 10=0", or a map name first: "wifi, CS6=1"),
    in the ns-3 model's words (the class rule in the kernel's); None if valid. Names and
    classes: msfc.model.params."""
    d = P.definitions()
    *first, last = d.dscp_maps
    names = f"{', '.join(first)} or {last}"  # as TC_MSFC_DSCP_MAP_NAMES words them
    entries = [e.strip() for e in re.split(r"[,;]", spec) if e.strip()]
    for i, entry in enumerate(entries):
        m = re.match(r"^([^=:]+)[=:](.*)$", entry)
        if not m and entry.lower() in d.dscp_maps:
            if i == 0:
                continue
            return (
                f"DscpMap: the map name '{entry}' must come first, before the DSCP=CLASS "
                f"entries ('{entry}, EF=2')"
            )
        if not m:
            return (
                f"DscpMap entry '{entry}' is not of the form DSCP=CLASS (e.g. EF=2 or 46=2) nor "
                f"a map name ({names}, first)"
            )
        key, val = m.group(1).strip(), m.group(2).strip()
        if key.isdigit():
            if int(key) > 63:
                return f"DscpMap entry '{entry}': DSCP {key} is not a code point 0 .. 63"
        elif P.dscp_of(key) is None:
            return (
                f"DscpMap entry '{entry}': '{key}' is neither a DSCP number 0 .. 63 nor a code "
                f"point name ({', '.join(n.upper() for n in d.dscp_names)})"
            )
        if P.map_entry(val) is None:
            return f"DscpMap entry '{entry}': class '{val}': {d.dscp_map_msg}"
    return None


def _time_text(seconds: float) -> str:
    for unit, f in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(seconds) >= f:
            return f"{seconds / f:g}{unit}"
    return f"{seconds / 1e-9:g}ns"


#: the quantum of a queue disc without a device (QUEUE_DISC_DEFAULT_MTU)
DEFAULT_MTU = 1500


def class_quanta_overflow(quantum: int, ratio: float, prios: int) -> bool:
    """True when ``quantum * ratio^(prios-1)`` exceeds the largest class quantum of
    pkt_sched_msfc.h, computed as the model and the kernel do it
    (msfc.model.reference.class_quanta). Quantum 0 counts as 1500 bytes, as the model counts
    it before it knows its device."""
    from ..model.reference import TraceError, class_quanta

    try:
        class_quanta(prios, quantum or DEFAULT_MTU, P.ratio_fixed(ratio))
    except TraceError as e:
        return str(e) == P.definitions().class_quantum_msg
    return False


def exact_weights_possible(quantum: int, ratio: float, prios: int) -> bool:
    """Whether Weights=exact can make these class quanta exact enough (every share within
    0.5 %), by the rule of pkt_sched_msfc.h's TC_MSFC_EXACT_WEIGHTS_MSG as the kernel, the ns-3
    model and the reference model apply it (msfc.model.reference.class_quanta). Quantum 0 counts as
    1500 bytes, as the model counts it before it knows its device."""
    from ..model.reference import TraceError, class_quanta

    try:
        class_quanta(prios, quantum or DEFAULT_MTU, P.ratio_fixed(ratio), exact=True)
    except TraceError as e:
        return str(e) != P.definitions().exact_weights_msg
    return True


def check_constraints(
    cfg: RunConfig, schedulers: dict[str, SchedulerInfo], info: ScenarioInfo | None = None
) -> None:
    """Constraints between a scheduler's attributes, checked before anything runs, in the words
    of the kernel qdisc's extack messages (kernel/net/sched/sch_msfc.c). An attribute a scenario
    sets through one of its options (isp-tree's prios and ratio) counts with that option's
    value when the run's scheduler is the attribute's."""
    by_sched: dict[str, dict[str, str]] = {}
    if info is not None:
        for aid, opt in option_aliases(info).items():
            head, _, attr = aid.rpartition("::")
            s = scheduler_of(head)
            if s == cfg.scheduler and opt in cfg.resolved:
                by_sched.setdefault(s, {})[attr] = cfg.resolved[opt]
    for friendly, v in cfg.attrs.items():
        s, _, a = friendly.partition(".")
        by_sched.setdefault(s, {})[a] = v
    for sname, given in by_sched.items():
        s = schedulers.get(sname)
        if s is None:
            continue

        def value(attr, given=given, s=s):
            if attr in given:
                return given[attr]
            a = s.attributes.get(attr)
            return None if a is None else str(a.default)

        if ("Target" in given or "Interval" in given) and {"Target", "Interval"} <= set(
            s.attributes
        ):
            t, i = _bound(value("Target"), "time"), _bound(value("Interval"), "time")
            t_min = P.param("target").min * 1e-6
            if t is not None and i is not None and not (t_min <= t < i):
                raise UserError(
                    f"{sname}: {P.definitions().target_interval_msg} (Target "
                    f"{_time_text(t)}, Interval {_time_text(i)}); lower {sname}.Target or "
                    f"raise {sname}.Interval"
                )
        if "DscpMap" in given:
            err = check_dscp_map(given["DscpMap"])
            if err:
                raise UserError(f"{sname}.DscpMap: {err}")
        if sname == "Msfc" and {"Quantum", "Ratio", "Prios"} <= set(s.attributes):
            try:
                q, r, n = int(value("Quantum")), float(value("Ratio")), int(value("Prios"))
            except (TypeError, ValueError):
                continue
            if class_quanta_overflow(q, r, n):
                raise UserError(
                    f"{sname}: {P.definitions().class_quantum_msg} "
                    f"(Quantum {q or DEFAULT_MTU}, Ratio {r:g}, Prios {n})"
                )
            if value("Weights") == "exact" and not exact_weights_possible(q, r, n):
                # the model checks it when the simulation builds its queue discs (and exits
                # 1 after it started), the kernel when the qdisc is configured
                raise UserError(
                    f"{sname}.Weights=exact with Quantum {q or DEFAULT_MTU}, Ratio {r:g}, "
                    f"Prios {n}: {P.definitions().exact_weights_msg}, or use "
                    f"{sname}.Weights=rounded"
                )


def _json_text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _canon_default(p: Param) -> str:
    try:
        return validate_param(p, _json_text(p.default), "defaults", user=False)
    except UserError:
        return _json_text(p.default)
