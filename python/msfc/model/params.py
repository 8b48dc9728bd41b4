"""MSFC's parameters, read from their one definition: the qdisc's UAPI header.

``kernel/include/uapi/linux/pkt_sched_msfc.h`` defines, for every ``tc``/netlink parameter, its
range (``TC_MSFC_<NAME>_MIN`` / ``_MAX``, times in microseconds, the ratio in 16.16 fixed
point), its default and the words that name the range in error messages (``<name> must be
<RANGE>``), the messages of the rules between parameters, the DSCP names, the default DSCP
map and the named maps (diffserv3, diffserv4, diffserv8, wifi). The kernel qdisc, ``tc`` and the ns-3 model compile that header; this module reads it, so
the command line, the testbed and the docs' tables (tests/test_params.py) use the same values.

    python -m msfc.model.params    prints the parameters (name, range, default, message)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path

from ..errors import UserError

#: the header as a wheel installs it (setup.py copies it into the package) ...
PACKAGED_HEADER = Path(__file__).resolve().parents[1] / "data" / "pkt_sched_msfc.h"
#: ... and in the source tree, where an editable install reads it
CHECKOUT_HEADER = (
    Path(__file__).resolve().parents[3]
    / "kernel"
    / "include"
    / "uapi"
    / "linux"
    / "pkt_sched_msfc.h"
)
HEADER = PACKAGED_HEADER if PACKAGED_HEADER.is_file() else CHECKOUT_HEADER

#: tc / netlink names in the order of the TCA_MSFC_* attributes
NAMES = (
    "prios",
    "flows",
    "quantum",
    "ratio",
    "target",
    "interval",
    "limit",
    "memory_limit",
    "drop_batch",
    "ecn",
)
#: parameters whose value is one of a few modes: tc keyword of each value, in the order of
#: their netlink numbers (enum tc_msfc_overload, tc_msfc_weights, tc_msfc_inversion,
#: tc_msfc_isolate, tc_msfc_boost, tc_msfc_order, tc_msfc_auto); the first is the default
CHOICES = {
    "overload": ("flow", "class"),
    "weights": ("rounded", "exact"),
    "inversion": ("allow", "prevent"),
    "isolate": ("flow", "src", "dst", "both"),
    "boost": ("off", "on", "across"),
    "order": ("round", "priority"),
    "auto": ("off", "unmarked", "all"),
}
#: units of the header's numbers (a parameter not listed counts)
UNITS = {
    "quantum": "bytes",
    "memory_limit": "bytes",
    "target": "us",
    "interval": "us",
    "ratio": "16.16",
    "limit": "packets",
    "ce_threshold": "us",
}
#: the built-in shaper's parameters (Linux only: ns-3 links carry their own rate)
SHAPER = ("bandwidth", "overhead", "mpu", "framing", "raw", "ingress")
#: L4S marking (docs/algorithm.md, "L4S marking"): the threshold's entries (us; no default: off)
#: and the TOS selector's value and mask
CE = ("ce_threshold", "ce_threshold_selector", "ce_threshold_mask")
#: ns-3 attributes of ns3::MsfcQueueDisc -> the parameter whose range they have
NS3_ATTRIBUTES = {
    "Prios": "prios",
    "Flows": "flows",
    "Quantum": "quantum",
    "Ratio": "ratio",
    "Target": "target",
    "Interval": "interval",
    "DropBatchSize": "drop_batch",
}
RATIO_ONE = 65536


@dataclass(frozen=True)
class Param:
    name: str  # as tc and the kernel's messages spell it
    min: int
    max: int
    default: int | None  # None: the device's MTU (quantum)
    range: str  # the words after "must be"
    unit: str = ""

    @property
    def message(self) -> str:
        """The kernel's extack message for a value out of range (tc and ns-3 say the same)."""
        return f"{self.name} must be {self.range}"

    def contains(self, value: int) -> bool:
        return self.min <= value <= self.max


@dataclass(frozen=True)
class Definitions:
    params: dict[str, Param]
    choices: dict[str, Param]  # CHOICES' netlink numbers
    target_interval_msg: str
    class_quantum_msg: str
    class_quantum_max: int
    exact_weights_msg: str
    isolate_busy_msg: str
    resize_busy_msg: str
    dscp_map_msg: str
    quanta_range_msg: str
    quanta_count_msg: str
    default_dscp_map: tuple[int, ...]
    #: a map entry: the class bits, the NQB flag added to a class, the least-effort lane
    dscp_class_mask: int
    dscp_nqb: int
    dscp_le: int
    dscp_names: dict[str, int]  # lower-case name -> DSCP
    #: tc's one-word presets (TC_MSFC_PRESET_<NAME>): lower-case name -> the words it stands for
    presets: dict[str, str]
    #: the named DSCP maps (TC_MSFC_DSCP_MAPS, "default" first): name -> (the prios it is meant
    #: for, its 64 classes); tc's `dscp_map NAME`, the base of ns-3's DscpMap
    dscp_maps: dict[str, tuple[int, tuple[int, ...]]]
    #: the built-in shaper's parameters (bandwidth in bytes/s, overhead signed)
    shaper: dict[str, Param]
    #: auto: CoDel intervals a flow slot keeps its class before it may climb one
    auto_up_intervals: int
    #: L4S marking: ce_threshold (an entry in us), ce_threshold_selector and ce_threshold_mask
    ce: dict[str, Param]
    #: a ce_threshold entry that sets no threshold in its class
    ce_threshold_off: int
    ce_threshold_len_msg: str
    ce_threshold_range_msg: str
    ce_threshold_count_msg: str
    ce_selector_msg: str

    @property
    def max_class(self) -> int:
        return self.params["prios"].max - 1


_DEFINE = re.compile(r"^#define\s+(TC_MSFC_\w+)[ \t]+(.+?)\s*$", re.MULTILINE)


def _defines(text: str) -> dict[str, str]:
    text = re.sub(r"\\\n", " ", text)  # continuation lines
    return {m.group(1): m.group(2) for m in _DEFINE.finditer(text)}


def parse_header(text: str, where: str = "pkt_sched_msfc.h") -> Definitions:
    """The definitions of a header's text (every value a decimal number, a string, another
    TC_MSFC_ name or a brace initializer)."""
    raw = _defines(text)

    def value(key: str):
        if key not in raw:
            raise UserError(f"{where}: no #define {key}", 1)
        v = raw[key]
        if re.fullmatch(r"-?\d+", v):
            return int(v)
        if re.fullmatch(r'"[^"\\]*"', v):
            return v[1:-1]
        if re.fullmatch(r"TC_MSFC_\w+", v):
            return value(v)
        raise UserError(f"{where}: {key} is neither a decimal number nor a string: {v}", 1)

    def param(name: str) -> Param:
        key = f"TC_MSFC_{name.upper()}"
        return Param(
            name=name,
            min=value(key + "_MIN"),
            max=value(key + "_MAX"),
            default=value(key + "_DEFAULT") if key + "_DEFAULT" in raw else None,
            range=value(key + "_RANGE"),
            unit=UNITS.get(name, ""),
        )

    params = {name: param(name) for name in NAMES}
    choices = {name: param(name) for name in CHOICES}
    for name, words in CHOICES.items():
        c = choices[name]
        if (c.min, c.max, c.default) != (0, len(words) - 1, 0):
            raise UserError(f"{where}: {name} must number its {len(words)} modes from 0", 1)
    dmap = tuple(int(x) for x in re.findall(r"\d+", raw.get("TC_MSFC_DEFAULT_DSCP_MAP", "")))
    if len(dmap) != value("TC_MSFC_DSCP_MAP_LEN"):
        raise UserError(f"{where}: TC_MSFC_DEFAULT_DSCP_MAP has {len(dmap)} entries, not 64", 1)
    names = {
        n: int(d)
        for n, d in re.findall(r'\{\s*"(\w+)"\s*,\s*(\d+)\s*\}', raw.get("TC_MSFC_DSCP_NAMES", ""))
    }
    if not names:
        raise UserError(f"{where}: no TC_MSFC_DSCP_NAMES", 1)
    presets = {
        k[len("TC_MSFC_PRESET_") :].lower(): value(k)
        for k in raw
        if k.startswith("TC_MSFC_PRESET_")
    }
    dscp_maps = {}
    for n, prios, key in re.findall(
        r'\{\s*"(\w+)"\s*,\s*(\w+)\s*,\s*(\w+)\s*\}', raw.get("TC_MSFC_DSCP_MAPS", "")
    ):
        classes = tuple(int(x) for x in re.findall(r"\d+", raw.get(key, "")))
        if len(classes) != len(dmap):
            raise UserError(f"{where}: DSCP map {n} ({key}) has {len(classes)} entries, not 64", 1)
        dscp_maps[n] = (int(prios) if prios.isdigit() else value(prios), classes)
    if list(dscp_maps)[:1] != ["default"] or dscp_maps["default"][1] != dmap:
        raise UserError(f"{where}: TC_MSFC_DSCP_MAPS must start with the default map", 1)
    return Definitions(
        params=params,
        choices=choices,
        target_interval_msg=value("TC_MSFC_TARGET_INTERVAL_MSG"),
        class_quantum_msg=value("TC_MSFC_CLASS_QUANTUM_MSG"),
        class_quantum_max=1 << value("TC_MSFC_CLASS_QUANTUM_MAX_LOG2"),
        exact_weights_msg=value("TC_MSFC_EXACT_WEIGHTS_MSG"),
        isolate_busy_msg=value("TC_MSFC_ISOLATE_BUSY_MSG"),
        resize_busy_msg=value("TC_MSFC_RESIZE_BUSY_MSG"),
        dscp_map_msg=value("TC_MSFC_DSCP_MAP_MSG"),
        quanta_range_msg=value("TC_MSFC_QUANTA_RANGE_MSG"),
        quanta_count_msg=value("TC_MSFC_QUANTA_COUNT_MSG"),
        default_dscp_map=dmap,
        dscp_class_mask=value("TC_MSFC_DSCP_CLASS_MASK"),
        dscp_nqb=value("TC_MSFC_DSCP_NQB"),
        dscp_le=value("TC_MSFC_DSCP_LE"),
        dscp_names=names,
        presets=presets,
        dscp_maps=dscp_maps,
        shaper={name: param(name) for name in SHAPER},
        auto_up_intervals=value("TC_MSFC_AUTO_UP_INTERVALS"),
        ce={name: param(name) for name in CE},
        ce_threshold_off=value("TC_MSFC_CE_THRESHOLD_OFF"),
        ce_threshold_len_msg=value("TC_MSFC_CE_THRESHOLD_LEN_MSG"),
        ce_threshold_range_msg=value("TC_MSFC_CE_THRESHOLD_RANGE_MSG"),
        ce_threshold_count_msg=value("TC_MSFC_CE_THRESHOLD_COUNT_MSG"),
        ce_selector_msg=value("TC_MSFC_CE_SELECTOR_MSG"),
    )


@cache
def definitions() -> Definitions:
    try:
        text = HEADER.read_text()
    except OSError as e:
        raise UserError(
            f"cannot read MSFC's parameter definitions {HEADER} ({e.strerror}): the msfc package "
            f"reads them from {PACKAGED_HEADER} (installed with a wheel: `make wheel`) or else "
            f"from the source tree's {CHECKOUT_HEADER} (`make setup` there)",
            1,
        ) from None
    return parse_header(text, str(HEADER))


def param(name: str) -> Param:
    return definitions().params[name]


#: what entry_class() returns for the least-effort lane (docs/algorithm.md, "LE and NQB")
LANE = "le"


def map_entry(text: str) -> int | None:
    """A DSCP map entry in tc's words -> its UAPI value: a class ("2"), a class with the NQB
    flag ("1+nqb") or the least-effort lane ("le"); None when the text is none of these or the
    class is above the largest (TC_MSFC_DSCP_MAP_MSG says what is allowed)."""
    d = definitions()
    t = text.strip().lower()
    if t == LANE:
        return d.dscp_le
    cls, plus, flag = t.partition("+")
    if not cls.isdigit() or int(cls) > d.max_class or (plus and flag != "nqb"):
        return None
    return int(cls) | (d.dscp_nqb if plus else 0)


def valid_map_entry(value: int) -> bool:
    """Whether a UAPI map entry is one the qdisc takes (a class, a class with NQB, the lane)."""
    d = definitions()
    return value == d.dscp_le or (value & ~d.dscp_nqb) <= d.max_class


def format_map_entry(value: int) -> str:
    """A UAPI map entry in tc's words ("2", "1+nqb", "le")."""
    d = definitions()
    if value == d.dscp_le:
        return LANE
    return f"{value & d.dscp_class_mask}" + ("+nqb" if value & d.dscp_nqb else "")


def entry_class(value: int, prios: int = 3) -> int | str:
    """The class a map entry sends a packet to, clamped to prios - 1 as the qdisc does, or
    LANE for the least-effort lane."""
    d = definitions()
    if value == d.dscp_le:
        return LANE
    return min(value & d.dscp_class_mask, prios - 1)


def entry_nqb(value: int) -> bool:
    """Whether a map entry marks its packets NQB."""
    d = definitions()
    return value != d.dscp_le and bool(value & d.dscp_nqb)


def default_class(dscp: int, prios: int = 3) -> int | str:
    """The class of a DSCP under the default map, clamped to prios - 1 as the qdisc does, or
    LANE (DSCP 1, LE)."""
    return entry_class(definitions().default_dscp_map[dscp & 0x3F], prios)


def dscp_map(spec: str) -> tuple[int, ...]:
    """The 64 entries of a map in tc's words ("wifi", "diffserv4,ef:2", "cs1:1", "le:le",
    "nqb:1+nqb"; entries change the default map, or the named map they follow) as UAPI values
    (map_entry), before clamping to prios - 1."""
    d = definitions()
    entries = [e.strip() for e in spec.split(",") if e.strip()]
    if entries and ":" not in entries[0] and "=" not in entries[0]:
        if entries[0].lower() not in d.dscp_maps:
            raise UserError(
                f"dscp map {entries[0]!r} is neither a map name ({', '.join(d.dscp_maps)}) nor "
                f"a DSCP:CLASS entry (e.g. ef:2)"
            )
        classes = list(d.dscp_maps[entries.pop(0).lower()][1])
    else:
        classes = list(d.default_dscp_map)
    for e in entries:
        key, _, val = e.replace("=", ":").partition(":")
        dscp = dscp_of(key)
        entry = map_entry(val)
        if dscp is None or entry is None:
            raise UserError(
                f"dscp map entry {e!r} is not DSCP:CLASS with a DSCP 0 .. 63 or its name and a "
                f"class 0 .. {d.max_class}, CLASS+nqb or le (e.g. ef:2, nqb:1+nqb, le:le)"
            )
        classes[dscp] = entry
    return tuple(classes)


def dscp_of(text: str) -> int | None:
    """A DSCP given as a number 0..63 or a name (case-insensitive); None if it is neither."""
    t = text.strip()
    if t.isdigit():
        return int(t) if int(t) < 64 else None
    return definitions().dscp_names.get(t.lower())


def ratio_fixed(value: float | str | Decimal) -> int:
    """A ratio in 16.16 fixed point: the nearest double (as tc's strtod and ns-3's DoubleValue
    read it) times 65536, which is exact, rounded to the nearest integer, halves away from 0
    (C's llround, which tc and the ns-3 model call). The one conversion of the project: the
    kernel and the cross-check traces carry the fixed-point value. ValueError for a text that
    is not a finite number."""
    x = float(value) * RATIO_ONE
    if not math.isfinite(x):
        raise ValueError(f"ratio {value!r} is not a finite number")
    n = math.floor(abs(x))
    n += abs(x) - n >= 0.5  # exact: |x| < 2^52 leaves the fraction exact
    return int(math.copysign(n, x))


_UNIT_US = {"us": 1, "ms": 1000, "s": 1000000}


def range_bounds(p: Param) -> tuple[int, int]:
    """The bounds the range's words state, in the header's units (the check that the words and
    the numbers agree)."""
    t = p.range
    if t == "0 or 1":
        return 0, 1
    m = re.fullmatch(r"at least (\d+) packets?", t)
    if m:
        return int(m.group(1)), 2**32 - 1
    m = re.fullmatch(r"(\S+)(?: (us|ms|s))? \.\. (\S+)(?: (us|ms|s|bytes))?(?: \(.*\))?", t)
    if not m:
        raise ValueError(f"{p.name}: range words '{t}' have no form this module knows")

    def number(x: str) -> int:
        if "^" in x:
            b, e = x.split("^")
            return int(b) ** int(e)
        if "/" in x:
            a, b = x.split("/")
            return ratio_fixed(Decimal(a) / Decimal(b))
        return ratio_fixed(x) if p.name == "ratio" else int(x)

    lo, lo_unit, hi, hi_unit = m.groups()
    lo_v, hi_v = number(lo), number(hi)
    if p.unit == "us":
        lo_v *= _UNIT_US[lo_unit or hi_unit]
        hi_v *= _UNIT_US[hi_unit]
    return lo_v, hi_v


def main() -> int:
    d = definitions()
    print(f"from {HEADER}")
    for p in d.params.values():
        print(
            f"{p.name:13} {p.min:>10} .. {p.max:<10} {p.unit:7} default {p.default}  '{p.message}'"
        )
    print(f"target/interval: '{d.target_interval_msg}'")
    print(f"class quanta:    '{d.class_quantum_msg}'")
    print(f"dscp map:        '{d.dscp_map_msg}'")
    print("default map:", " ".join(map(format_map_entry, d.default_dscp_map)))
    print("names:", ", ".join(f"{n}={v}" for n, v in d.dscp_names.items()))
    for p in (*d.shaper.values(), *d.ce.values()):
        print(f"{p.name:13} {p.min:>10} .. {p.max:<12} default {p.default}  '{p.message}'")
    for name, words in d.presets.items():
        print(f"preset {name}: {words}")
    for name, (prios, classes) in d.dscp_maps.items():
        print(f"dscp map {name} (prios {prios}):", " ".join(map(format_map_entry, classes)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
