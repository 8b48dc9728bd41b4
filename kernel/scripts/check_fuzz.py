"""Check a fuzz boot (test/fuzz_init.sh): the netlink fuzzer's and the flood's results and the
kernel log.

Usage (from kernel/): python -m scripts.check_fuzz LOG RESULT_PREFIX [--kmemleak]
  RESULT_PREFIX.fuzz.json, RESULT_PREFIX.flood.json: written by test/fuzz_netlink.py
  --kmemleak: the kernel has kmemleak (debug build): its scan after the fuzz must be empty
Exit status 0 iff everything passed: no kernel report in the log (scripts/splats.py, and
the ways a fault in kernel mode ends a boot: a divide error, User-Mode Linux's "Kernel mode
signal"), both result files written (a guest that died or hung writes none), no oracle
failure, memory back to its baseline, and, for a run of MIN_OPS_COVERAGE operations or more,
the states the fuzzer exists to reach were reached (changes of isolate and boost on an idle
msfc that still lists flows, and changes, of order, to or from boost across, of quanta, of
auto, of the shaper's bandwidth and of ce_threshold too, while packets were queued; auto's
flow slots moved up and down).
On a failure the fuzzer's last operations before the first kernel report are printed: the
log names each operation before it is sent ("fuzz: #N PARENT ...").
"""

import json
import re
import sys

from . import splats

# memory the kernel holds after the fuzz and the deletion of every qdisc and of the veth,
# compared with before the fuzz: vmalloc (large flow tables) must be back to its baseline,
# unreclaimable slab within this margin (socket buffers and per-CPU caches move a little)
VMALLOC_MARGIN_KB = 64
SLAB_MARGIN_KB = 1024
# faults in kernel mode that end a boot, beside the reports of splats.PATTERNS
FAULTS = re.compile(r"divide error|Kernel mode signal \d+|Kernel mode fault")
OP_LINE = re.compile(r"\bfuzz: #\d+ ")
# a run of at least this many operations must have reached these states (counts of
# test/fuzz_netlink.py), or the fuzzer lost what it is for
MIN_OPS_COVERAGE = 1000
COVERAGE = {
    "changed_isolate@idle_listed": "isolate changed on an idle msfc that still lists flows",
    "changed_boost@idle_listed": "boost changed on an idle msfc that still lists flows",
    "changed_order@busy": "order changed while packets were queued (classes in the round)",
    "changed_boost_across@busy": "boost changed to or from across while packets were queued",
    "changed_quanta@busy": "quanta changed while packets were queued",
    "changed_ce_threshold@busy": "ce_threshold changed while packets were queued",
    "changed_bandwidth@busy": "the shaper's bandwidth changed while packets were queued",
    "changed_auto@busy": "auto changed while packets were queued (auto packets queued)",
    "dumps_auto_promoted": "auto moved a flow slot up (a dump counted auto_promotions)",
    "dumps_auto_demoted": "auto moved a flow slot down (a dump counted auto_demotions)",
    "dumps_ce_threshold_marked": "ce_threshold CE-marked a packet (a dump counted its marks)",
    "dumps_nqb_demoted": "queue protection moved an NQB flow (a dump counted nqb_demotions)",
    "changed_prios@idle_listed": "prios changed on an idle msfc that still lists flows",
    "changed_isolate@idle": "isolate changed on an idle msfc",
    "refused_busy": "a prios/flows/isolate change refused while packets were queued",
    "bursts_accounted": "a burst whose every packet was counted as sent or dropped",
}


def last_ops(lines, upto, n=8):
    """The fuzzer's last n operation lines before line number `upto` (1-based)."""
    return [x.strip() for x in lines[: upto - 1] if OP_LINE.search(x)][-n:]


def coverage(fz):
    """Problems: states a long enough run did not reach."""
    if fz.get("ops", 0) < MIN_OPS_COVERAGE or "counts" not in fz:
        return []
    c = fz["counts"]
    return [
        f"fuzz: coverage: {what} never happened ({key} = 0 in {fz['ops']} operations)"
        for key, what in COVERAGE.items()
        if not c.get(key)
    ]


def main(argv):
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "--kmemleak"):
        sys.exit(__doc__)
    log_path, prefix = argv[0], argv[1]
    want_kmemleak = len(argv) == 3
    problems = []
    try:
        with open(log_path, errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError as e:
        sys.exit(f"check_fuzz: cannot read {log_path}: {e}")
    report = splats.summary(lines, log_path)
    if report:
        problems.append(report)
    faults = [(i, x.strip()) for i, x in enumerate(lines, 1) if FAULTS.search(x)]
    if faults:
        problems.append(
            f"{len(faults)} kernel fault line(s) in {log_path} (User-Mode Linux: signal 8 is "
            f"SIGFPE, a divide error; 11 SIGSEGV): "
            + "; ".join(f"line {i}: {x}" for i, x in faults[:3])
        )
    first = min([n for _, n, _ in splats.find(lines)] + [i for i, _ in faults], default=0)
    if first:
        ops = last_ops(lines, first)
        problems.append(
            f"the fuzzer's last operations before the first kernel report (line {first}):\n  "
            + ("\n  ".join(ops) if ops else "(none: before the fuzz or in the flood)")
        )

    results = {}
    for kind in ("fuzz", "flood"):
        path = f"{prefix}.{kind}.json"
        try:
            with open(path) as fh:
                results[kind] = json.load(fh)
        except (OSError, ValueError) as e:
            problems.append(f"{kind}: no result ({e}): the guest did not finish, see {log_path}")
            continue
        for f in results[kind].get("failures", []):
            problems.append(f"{kind}: {f}")

    fz = results.get("fuzz", {})
    if "counts" in fz:
        c = fz["counts"]
        print(
            f"fuzz: seed {fz['seed']}, {c.get('requests', 0)} requests in {fz['guest_s']} s "
            f"of guest time: {c.get('accepted', 0)} accepted, {c.get('refused', 0)} refused (all with an "
            f"extack message: {not fz['no_extack']}), of them {c.get('refused_busy', 0)} "
            f"prios/flows/isolate changes while queued; {fz.get('ops')} operations, "
            f"{c.get('moves', 0)} switches of parent (htb, tbf, root)"
        )
        t = fz.get("traffic", {})
        print(
            f"fuzz: traffic: {t.get('frames', 0)} frames in {t.get('bursts', 0)} bursts "
            f"(IPv4 {t.get('frames_ipv4', 0)}, IPv6 {t.get('frames_ipv6', 0)}, UDP sockets "
            f"{t.get('frames_udp_socket', 0)}, non-IP {t.get('frames_nonip', 0)}; "
            f"{t.get('frames_enobufs', 0)} dropped at enqueue); {c.get('drains', 0)} waits "
            f"until idle, {c.get('idle_with_flows_listed', 0)} of them with flows still listed"
        )
        by_state = {}
        for k, v in c.items():
            if k.startswith("changed_"):
                name, state = k[len("changed_") :].split("@")
                by_state.setdefault(state, {})[name] = v
        for state in ("busy", "maybe_busy", "idle", "idle_listed"):
            per = by_state.get(state, {})
            print(
                f"fuzz: accepted changes {state.replace('_', ' ')}: {sum(per.values())} ("
                + ", ".join(f"{k} {v}" for k, v in sorted(per.items()))
                + ")"
            )
        print(
            f"fuzz: accepted changes that lowered limit below the queued packets: "
            f"{c.get('limit_lowered_below_qlen', 0)}, memory_limit below the memory held: "
            f"{c.get('memory_limit_lowered_below_usage', 0)}"
        )
        before, after = fz["meminfo_before"], fz["meminfo_after"]
        dv = after["VmallocUsed"] - before["VmallocUsed"]
        ds = after["SUnreclaim"] - before["SUnreclaim"]
        print(f"fuzz: memory after vs before: vmalloc {dv:+d} kB, unreclaimable slab {ds:+d} kB")
        if dv > VMALLOC_MARGIN_KB:
            problems.append(f"fuzz: vmalloc grew by {dv} kB (allowed {VMALLOC_MARGIN_KB})")
        # with KASAN (the kmemleak kernel) freed objects wait in its quarantine: slab says
        # nothing there, kmemleak is the leak check
        if ds > SLAB_MARGIN_KB and not want_kmemleak:
            problems.append(f"fuzz: unreclaimable slab grew by {ds} kB (allowed {SLAB_MARGIN_KB})")
        problems += coverage(fz)
        if want_kmemleak:
            if "kmemleak_after" not in fz:
                problems.append("fuzz: kmemleak was not available in the guest")
            else:
                print(
                    f"fuzz: kmemleak: {fz['kmemleak_before']} suspected leaks before the "
                    f"fuzz (boot and KUnit), {fz['kmemleak_after']} after it"
                )
                if fz["kmemleak_before"] or fz["kmemleak_after"]:
                    problems.append(
                        "kmemleak reports:\n"
                        + fz.get("kmemleak_before_report", "")
                        + fz.get("kmemleak_after_report", "")[:4000]
                    )
    fl = results.get("flood", {})
    if "peak_memory_usage" in fl:
        print(
            f"flood: {fl['flows']} flows of {fl['frame_bytes']}-byte frames for "
            f"{fl['seconds']} s into memory_limit {fl['memory_limit']}: peak memory_usage "
            f"{fl['peak_memory_usage']} over {fl['samples']} samples (peak qlen "
            f"{fl['peak_qlen']}), {fl['overmemory_drops']} drops over memory_limit, "
            f"forwarded {fl['forwarded_bit_s'] / 1e6:.3f} Mbit/s through the 1 Mbit/s tbf "
            f"(slowest 0.5 s: {fl['min_interval_bit_s'] / 1e6:.3f})"
        )
    print(f"check_fuzz: {len(splats.find(lines))} kernel reports in the log")
    if problems:
        for p in problems:
            print("check_fuzz: " + p, file=sys.stderr)
        return 1
    print("check_fuzz: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
