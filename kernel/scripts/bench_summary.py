#!/usr/bin/env python3
"""Summarise build/bench-result.json: median ns per packet (enqueue + dequeue) per qdisc and
number of flows, as a Markdown table.  Usage: bench_summary.py RESULT_JSON"""

import json
import re
import statistics
import sys

rows = {}
for r in json.load(open(sys.argv[1])):
    m = re.search(r" flows (\d+) .*\bns_per_packet (\d+) ", r["result"])
    if not m:
        sys.exit(f"bench_summary: unexpected result {r['result']!r}")
    rows.setdefault(r["qdisc"], {}).setdefault(int(m.group(1)), []).append(int(m.group(2)))
flows = sorted({f for q in rows.values() for f in q})
print("| qdisc | " + " | ".join(f"{f} flows" for f in flows) + " |")
print("|---|" + "---|" * len(flows))
for q, by in rows.items():
    cells = []
    for f in flows:
        v = by.get(f, [])
        cells.append(
            f"{statistics.median(v):.0f} ns (min {min(v)}, max {max(v)}, n={len(v)})" if v else "-"
        )
    print(f"| `{q}` | " + " | ".join(cells) + " |")
