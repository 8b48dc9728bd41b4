"""Finding the built programs and reading what they describe about themselves.

Parameter names, defaults and ranges come from the programs (``scenario-X --describe`` and
``msfc-describe``); nothing of that is copied into Python.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UserError

BUILD_HINT = (
    "build it with `make build` in MSFC's source tree (or `cmake -S . -B build -G Ninja && "
    "cmake --build build -j2`); the ns-3 programs are not part of the Python package"
)


def _package_repo_root() -> Path | None:
    """The source tree this package lives in, when installed editable (python/msfc/sim/..)."""
    root = Path(__file__).resolve().parents[3]
    if (root / "CMakeLists.txt").exists():
        return root
    return None


def resolve_build_dir(build_dir: str | os.PathLike | None = None) -> Path:
    """--build-dir, else $MSFC_BUILD_DIR, else ./build, else the source tree's build/."""
    if build_dir:
        return Path(build_dir).resolve()
    env = os.environ.get("MSFC_BUILD_DIR")
    if env:
        return Path(env).resolve()
    cwd_build = Path.cwd() / "build"
    if cwd_build.is_dir():
        return cwd_build.resolve()
    root = _package_repo_root()
    if root is not None and (root / "build").is_dir():
        return (root / "build").resolve()
    return cwd_build.resolve()


def _is_exe(p: Path) -> bool:
    return p.is_file() and os.access(p, os.X_OK)


def find_scenarios(build_dir: Path) -> dict[str, Path]:
    """name -> program for every build/scenario-<name>."""
    if not build_dir.is_dir():
        return {}
    out = {}
    for p in sorted(build_dir.glob("scenario-*")):
        if _is_exe(p) and not p.name.endswith((".o", ".d", ".cc")):
            out[p.name[len("scenario-") :]] = p
    return out


def _run_json(argv: list[str], what: str, timeout: float = 60.0) -> dict:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except OSError as e:
        raise UserError(f"cannot run {argv[0]}: {e}; {BUILD_HINT}") from None
    except subprocess.TimeoutExpired:
        raise UserError(
            f"{what} did not answer within {timeout:.0f} s ({' '.join(argv)})", 1
        ) from None
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-10:])
        raise UserError(
            f"{what} failed with exit code {proc.returncode} ({' '.join(argv)}):\n{tail}\n"
            f"Rebuild with `make build`.",
            1,
        )
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        raise UserError(
            f"{what} printed something that is not JSON ({e}); "
            f"the program does not follow docs/data-format.md. Rebuild with `make build`.",
            1,
        ) from None


@dataclass
class Param:
    name: str
    type: str
    default: object = None
    min: float | None = None
    max: float | None = None
    choices: list | None = None
    unit: str = ""
    help: str = ""
    #: the schedulers whose runs the option affects (None: every run)
    schedulers: list | None = None
    #: the scheduler attribute the option sets (``ns3::MsfcQueueDisc::Ratio``), None for none
    sets: str | None = None

    def range_text(self) -> str:
        if self.choices:
            return "one of " + ", ".join(map(str, self.choices))
        lo = _fmt_num(self.min) if isinstance(self.min, (int, float)) else self.min
        hi = _fmt_num(self.max) if isinstance(self.max, (int, float)) else self.max
        unit = f" {self.unit}" if self.unit and self.type in ("time", "datarate") else ""
        if lo is not None and hi is not None:
            return f"{lo} .. {hi}{unit}"
        if lo is not None:
            return f">= {lo}{unit}"
        if hi is not None:
            return f"<= {hi}{unit}"
        return {
            "bool": "true or false",
            "datarate": "an ns-3 data rate, e.g. 100Mbps",
            "time": "an ns-3 time, e.g. 5ms",
        }.get(self.type, "")


@dataclass
class ScenarioInfo:
    name: str
    program: Path
    description: str
    params: dict[str, Param]
    presets: dict[str, dict]
    default_preset: str | None
    raw: dict = field(default_factory=dict)

    @property
    def schedulers(self) -> list[str]:
        p = self.params.get("scheduler")
        return list(p.choices) if p and p.choices else []


def _param_from_json(d: dict) -> Param:
    return Param(
        name=d["name"],
        type=d.get("type", "string"),
        default=d.get("default"),
        min=d.get("min"),
        max=d.get("max"),
        choices=d.get("choices"),
        unit=d.get("unit", "") or "",
        help=d.get("help", "") or "",
        schedulers=d.get("schedulers") or None,
        sets=d.get("sets") or None,
    )


_describe_cache: dict[Path, ScenarioInfo] = {}


def describe_scenario(name: str, build_dir: Path) -> ScenarioInfo:
    scenarios = find_scenarios(build_dir)
    if name not in scenarios:
        if not scenarios:
            raise UserError(
                f"unknown scenario '{name}': no scenario programs (scenario-*) in {build_dir}; "
                f"{BUILD_HINT}, or point --build-dir / MSFC_BUILD_DIR at the build directory"
            )
        raise UserError(f"unknown scenario '{name}'; valid scenarios: {', '.join(scenarios)}")
    prog = scenarios[name]
    key = prog.resolve()
    if key in _describe_cache:
        return _describe_cache[key]
    d = _run_json([str(prog), "--describe"], f"scenario-{name} --describe")
    try:
        params = {p["name"]: _param_from_json(p) for p in d.get("params", [])}
    except (KeyError, TypeError) as e:
        raise UserError(f"scenario-{name} --describe: malformed parameter list ({e})", 1) from None
    info = ScenarioInfo(
        name=d.get("scenario", name),
        program=prog,
        description=d.get("description", ""),
        params=params,
        presets=d.get("presets", {}) or {},
        default_preset=d.get("default_preset"),
        raw=d,
    )
    _describe_cache[key] = info
    return info


@dataclass
class SchedulerAttr:
    name: str
    type: str
    default: object
    range: object
    help: str

    def constraints(self) -> list[tuple[str, str]]:
        """Numeric limits found in the range field, as (operator, value text) pairs.

        Understood forms (as msfc-describe prints them): ``[lo, hi]``, ``{"min": lo, "max": hi}``,
        ``"lo..hi"``, ``"uint32_t lo:hi"``, ``"Time -9.2e18ns:+9.2e18ns"``, ``">= 1"``,
        ``"> 0 and < Interval"`` (limits naming other attributes are left to the program).
        """
        r = self.range
        if (
            isinstance(r, (list, tuple))
            and len(r) == 2
            and all(isinstance(x, (int, float)) for x in r)
        ):
            return [(">=", str(r[0])), ("<=", str(r[1]))]
        if isinstance(r, dict):
            out = []
            if r.get("min") is not None:
                out.append((">=", str(r["min"])))
            if r.get("max") is not None:
                out.append(("<=", str(r["max"])))
            return out
        if not isinstance(r, str):
            return []
        m = _SPAN_RE.search(r)
        if m:
            return [(">=", _number_text(m.group(1))), ("<=", _number_text(m.group(2)))]
        return [(op, val) for op, val in _CMP_RE.findall(r)]

    def range_text(self) -> str:
        r = self.range
        if r in (None, "", [], {}) or (isinstance(r, str) and r in _TYPE_WORDS):
            return ""
        if (
            isinstance(r, (list, tuple))
            and len(r) == 2
            and all(isinstance(x, (int, float)) for x in r)
        ):
            return f"{_fmt_num(r[0])} .. {_fmt_num(r[1])}"
        if isinstance(r, dict):
            return f"{r.get('min', '')} .. {r.get('max', '')}"
        return str(r)


_NUM = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[a-zA-Z/]*"
_FRAC = r"\d+/\d+(?![\d/])"  # an exact fraction such as 1/65536 (Msfc's Ratio)
_SPAN_RE = re.compile(rf"(?:^|\s)({_FRAC}|{_NUM})\s*(?:\.\.|:)\s*({_FRAC}|{_NUM})")
_CMP_RE = re.compile(rf"(>=|<=|>|<)\s*({_NUM})(?![A-Za-z_])")


def _number_text(text: str) -> str:
    """A limit as a number's text: an exact fraction a/b becomes its decimal value."""
    if re.fullmatch(r"\d+/\d+", text):
        num, den = text.split("/")
        return repr(int(num) / int(den))
    return text


_TYPE_WORDS = {"bool", "std::string", "QueueSize", "string"}


def _num_or_none(x):
    if x is None:
        return None
    try:
        return float(str(x).strip())
    except ValueError:
        return None


def _fmt_num(x: float) -> str:
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:g}"


@dataclass
class SchedulerInfo:
    name: str
    type_id: str
    attributes: dict[str, SchedulerAttr]


def describe_schedulers(build_dir: Path, required: bool = True) -> dict[str, SchedulerInfo] | None:
    prog = build_dir / "msfc-describe"
    if not _is_exe(prog):
        if not required:
            return None
        raise UserError(
            f"scheduler parameters are read from {prog}, which does not exist; {BUILD_HINT}"
        )
    d = _run_json([str(prog)], "msfc-describe")
    out = {}
    for s in d.get("schedulers", []):
        attrs = {
            a["name"]: SchedulerAttr(
                a["name"],
                a.get("type", ""),
                a.get("default"),
                a.get("range"),
                a.get("help", "") or "",
            )
            for a in s.get("attributes", [])
        }
        out[s["name"]] = SchedulerInfo(s["name"], s["type_id"], attrs)
    return out
