"""The header keys of the cross-check trace format, read from their one definition.

``tools/lib/msfc-trace-keys.def`` lists every key a trace's P or C line may name: the trace
version that introduced it, its default, what kind of value it takes, the ns-3 attribute and
the netlink attribute it sets. The ns-3 replayer compiles the same file in; this module reads
it for the reference model (msfc.model.reference) and the KUnit replay's generator
(msfc.model.kunit). A wheel carries the file as msfc/data/msfc-trace-keys.def (setup.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_HERE = Path(__file__).resolve()
#: the file as a wheel installs it (setup.py copies it into the package) ...
PACKAGED_DEF = _HERE.parents[1] / "data" / "msfc-trace-keys.def"
#: ... and in the source tree
CHECKOUT_DEF = _HERE.parents[3] / "tools" / "lib" / "msfc-trace-keys.def"
DEF = PACKAGED_DEF if PACKAGED_DEF.is_file() else CHECKOUT_DEF

#: the kinds of value (the def file's comment says what each is)
KINDS = ("INT", "RATIO", "MODE", "QUANTA", "TIMES")


@dataclass(frozen=True)
class TraceKey:
    name: str
    version: int  # the first trace version whose P and C lines may name it
    default: str  # as a trace writes it
    kind: str  # one of KINDS
    attribute: str  # the MsfcQueueDisc attribute
    netlink: str  # the TCA_MSFC_* attribute


_KEY = re.compile(r'MSFC_TRACE_KEY\((\w+), (\d+), "([^"]*)", (\w+), "(\w+)", (TCA_MSFC_\w+)\)')
_FORMAT = re.compile(r"MSFC_TRACE_FORMAT\((\d+)\)")


def read(path: Path = DEF) -> tuple[int, dict[str, TraceKey]]:
    """(newest version, {key: TraceKey} in the file's order) from the def file; a line that
    starts an entry but does not have its shape is an error, so none is skipped silently."""
    try:
        text = path.read_text()
    except OSError as e:
        raise RuntimeError(
            f"{path}: cannot read the trace format's key table ({e.strerror}); a checkout has "
            "it under tools/lib, a wheel under msfc/data"
        ) from None
    newest, keys = None, {}
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("MSFC_TRACE_FORMAT"):
            m = _FORMAT.fullmatch(line)
            if not m or newest is not None:
                raise RuntimeError(f"{path}:{n}: expected one line 'MSFC_TRACE_FORMAT(<n>)'")
            newest = int(m[1])
        elif line.startswith("MSFC_TRACE_KEY"):
            m = _KEY.fullmatch(line)
            if not m or m[4] not in KINDS or m[1] in keys:
                raise RuntimeError(
                    f'{path}:{n}: expected MSFC_TRACE_KEY(key, version, "default", '
                    f'{"|".join(KINDS)}, "Attribute", TCA_MSFC_...) with a new key'
                )
            keys[m[1]] = TraceKey(m[1], int(m[2]), m[3], m[4], m[5], m[6])
    if newest is None or not keys:
        raise RuntimeError(f"{path}: no MSFC_TRACE_FORMAT line or no MSFC_TRACE_KEY lines")
    return newest, keys


#: the newest trace version, and every header key
TRACE_VERSION, KEYS = read()
