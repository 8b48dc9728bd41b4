#!/usr/bin/env python3
"""Check the log of a UML test boot: KUnit suite sch_msfc and the userspace boot test.

Any kernel report in the log (KASAN, UBSAN, lockdep, BUG, WARN, oops, kmemleak) fails it.

Usage (from kernel/): python -m scripts.check_boot BOOT_LOG RESULT_JSON   (exit 0 iff all passed)
"""

import json
import re
import sys

from . import splats

EXPECTED_CASES = 28

log_path, result_path = sys.argv[1], sys.argv[2]
try:
    log = open(log_path, errors="replace").read().splitlines()
except OSError as e:
    sys.exit(f"check_boot: cannot read {log_path}: {e}")

tap = re.compile(r"^(?:\[\s*[\d.]+\]\s*)?(\s*)(not ok|ok) (\d+) (\S+)")
cases, suite_ok, problems = {}, None, []
for line in log:
    m = tap.match(line)
    if not m:
        continue
    indent, status, _, name = m.groups()
    if name == "sch_msfc" and not indent:
        suite_ok = status == "ok"
    elif name.startswith("msfc_test_") and indent:
        cases[name] = status == "ok"
    if "msfc" in name:
        print(line.strip())
for line in log:
    if "# msfc_test_" in line and ("Expected" in line or "ASSERT" in line or "EXPECT" in line):
        problems.append(line.strip())
    if "identical to the reference" in line:  # the trace replay's figures
        print(line.strip())

if suite_ok is None:
    problems.append(
        "KUnit suite sch_msfc did not report (kernel did not boot or the suite is "
        f"not built): see {log_path}"
    )
elif len(cases) != EXPECTED_CASES or not all(cases.values()) or not suite_ok:
    bad = [n for n, ok in cases.items() if not ok]
    problems.append(f"KUnit: {len(cases)} cases reported, failing: {bad or 'none'}")

try:
    res = json.load(open(result_path))
    for t in res["tests"]:
        print(
            ("ok   " if t["ok"] else "FAIL ")
            + t["what"]
            + (f"  [{t['detail']}]" if not t["ok"] else "")
        )
    for r in res.get("runs", []):
        print(
            f"traffic {r['label']}: shares {r['shares']} ideal {r['ideal']} "
            f"{r['rate_mbit']} Mbit/s over {r['window_s']} s, iperf3 goodput {r['iperf3_goodput_mbit']} Mbit/s"
        )
    if res["failed"] or not res["passed"]:
        problems.append(
            f"boot test: {res['failed']} of {res['passed'] + res['failed']} checks failed"
        )
except (OSError, ValueError, KeyError) as e:
    problems.append(f"boot test wrote no result ({e}): see {log_path}")

report = splats.summary(log, log_path)
if report:
    problems.append(report)

if problems:
    for p in problems:
        print("check_boot: " + p, file=sys.stderr)
    sys.exit(1)
print(
    f"check_boot: KUnit {len(cases)}/{EXPECTED_CASES} cases passed, boot test "
    f"{res['passed']} checks passed"
)
