"""Check a fuzz boot (test/fuzz_init.sh): the netlink fuzzer's and the flood's results and the
kernel log.

Usage (from kernel/): python -m scripts.check_fuzz LOG RESULT_PREFIX [--kmemleak]
  RESULT_PREFIX.fuzz.json, RESULT_PREFIX.flood.json: written by test/fuzz_netlink.py
  --kmemleak: the kernel has kmemleak (debug build): its scan after the fuzz must be empty
Exit status 0 iff everything passed.
"""

import json
import sys

from . import splats

# memory the kernel holds after the fuzz and the deletion of every qdisc and of the veth,
# compared with before the fuzz: vmalloc (large flow tables) must be back to its baseline,
# unreclaimable slab within this margin (socket buffers and per-CPU caches move a little)
VMALLOC_MARGIN_KB = 64
SLAB_MARGIN_KB = 1024


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
            f"prios/flows changes while queued; {c.get('moves', 0)} switches root <-> "
            f"child of tbf"
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
