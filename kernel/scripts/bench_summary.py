#!/usr/bin/env python3
"""Summarise build/bench-result.json: median ns per packet (enqueue + dequeue) per qdisc and
number of flows, as a Markdown table; with --csv also the tidy rows behind it (qdisc, flows,
repetition, ns_per_packet: one row per result of the probe), the data of docs/kernel.md's cost
table.  Usage: bench_summary.py RESULT_JSON [--csv FILE]"""

import argparse
import csv
import json
import os
import re
import statistics
import sys

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("result", metavar="RESULT_JSON", help="the benchmark boot's bench-result.json")
ap.add_argument("--csv", metavar="FILE", help="also write the tidy rows to FILE")
a = ap.parse_args()

try:
    with open(a.result) as fh:
        results = json.load(fh)
except (OSError, ValueError) as e:
    sys.exit(
        f"bench_summary: {a.result}: not the benchmark's result ({e}); run make -C kernel bench"
    )

rows = {}
tidy = []
for r in results:
    m = re.search(r" flows (\d+) .*\bns_per_packet (\d+) ", r["result"])
    if not m:
        sys.exit(f"bench_summary: unexpected result {r['result']!r}")
    flows, ns = int(m.group(1)), int(m.group(2))
    runs = rows.setdefault(r["qdisc"], {}).setdefault(flows, [])
    runs.append(ns)
    tidy.append({"qdisc": r["qdisc"], "flows": flows, "repetition": len(runs), "ns_per_packet": ns})
if not tidy:
    sys.exit(f"bench_summary: {a.result} holds no result: the boot measured nothing")

if a.csv:
    tmp = a.csv + ".tmp"
    with open(tmp, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(tidy[0]))
        w.writeheader()
        w.writerows(tidy)
    os.replace(tmp, a.csv)

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
