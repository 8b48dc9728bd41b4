"""Kernel log reports that fail a test boot: KASAN, UBSAN, lockdep, BUG, WARN, oops, panic,
RCU stalls, soft lockups, kmemleak.  Used by check_boot and check_fuzz."""

import re

PATTERNS = [
    ("BUG", re.compile(r"\bBUG: ")),  # KASAN, sleeping in atomic, lockups
    ("WARN", re.compile(r"\bWARNING: ")),  # WARN_ON and lockdep reports
    ("cut here", re.compile(r"-+\[ cut here \]-+")),
    ("UBSAN", re.compile(r"\bUBSAN: ")),
    ("KASAN", re.compile(r"\bKASAN: ")),
    (
        "lockdep",
        re.compile(
            r"possible (?:recursive|circular) locking|inconsistent lock state"
            r"|suspicious RCU usage|lock held when returning"
        ),
    ),
    ("oops", re.compile(r"\bOops\b|general protection fault|Kernel panic")),
    ("RCU stall", re.compile(r"rcu.*detected stall")),
    ("hung task", re.compile(r"INFO: task .* blocked for more than")),
    ("kmemleak", re.compile(r"kmemleak: \d+ new suspected memory leaks")),
]


def find(lines):
    """[(kind, line number, line)] of every report in the log lines."""
    out = []
    for i, line in enumerate(lines, 1):
        for kind, pat in PATTERNS:
            if pat.search(line):
                out.append((kind, i, line.strip()))
                break
    return out


def summary(lines, path, context=12):
    """Human-readable text of the reports found (empty when the log is clean)."""
    found = find(lines)
    if not found:
        return ""
    text = [f"{len(found)} kernel report line(s) in {path}:"]
    for kind, n, line in found[:10]:
        text.append(f"  [{kind}] line {n}: {line}")
    first = found[0][1]
    text.append(f"  first report, in context (lines {first}-{first + context}):")
    text += ["    " + x.rstrip() for x in lines[first - 1 : first - 1 + context]]
    return "\n".join(text)
