"""Linux testbed: Debian's stock kernel under qemu, sch_msfc built by DKMS, Debian's tc.

The drivers and the command line of the qemu testbed: each command boots the stock kernel
with a job from ``kernel/vm/guest/`` (msfc.linux.qemu) and turns the guest's output into
checks (``selftest``, msfc.linux.selftest), into the project's raw result format (``bench``,
docs/data-format.md; msfc.linux.records, msfc.linux.tables) or into the per-packet cost of
each qdisc measured by the probe sch_msfc_bench.ko (``cost``, msfc.linux.cost).

    python -m msfc.linux.vm selftest --kernel VMLINUZ --initrd BASE.cpio.gz --guest-dir DIR
    python -m msfc.linux.vm bench --kernel VMLINUZ --initrd BASE.cpio.gz --guest-dir DIR --out DIR
    python -m msfc.linux.vm cost --kernel VMLINUZ --initrd BASE.cpio.gz --guest-dir DIR \
        --probe sch_msfc_bench.ko --out DIR
    python -m msfc.linux.vm convert --out DIR      # rebuild runs and tables from OUT/raw
    python -m msfc.linux.vm hosts-summary DIR...   # the hosts test of several bench runs
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .cost import COST_BPF, COST_QDISCS, DEFAULT_PROFILE, cost
from .qemu import QEMU, BootResult, TestbedError, _job, boot
from .records import (
    HOST_B_FLOWS,
    QDISCS,
    TESTS,
    _kernel_of,
    _write_studies,
    msfc_env,
    write_run,
)
from .selftest import selftest
from .tables import _finish, hosts_summary


def bench(args) -> int:
    """msfc beside cake, an sqm-style HTB, fq_codel and pfifo_fast (make bench-linux): one
    boot per qdisc running every test; writes OUT/raw/<qdisc>/, one study per test and
    OUT/tables.md."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    guest = Path(args.guest_dir)
    qdiscs = args.qdiscs.split(",")
    tests = args.tests.split(",")
    for q in qdiscs:
        if q not in QDISCS:
            raise TestbedError(f"unknown qdisc {q}: choose from {', '.join(QDISCS)}")
    for t in tests:
        if t not in TESTS:
            raise TestbedError(f"unknown test {t}: choose from {', '.join(TESTS)}")
    cache = Path(args.accel_cache) if args.accel_cache else None
    settings = {
        "rate_kbit": args.rate_kbit,
        "rtt_ms": args.rtt_ms,
        "duration_s": args.duration,
    }
    t_all = time.monotonic()
    hashes: dict[str, list[str]] = {t: [] for t in tests}
    qemu_version = subprocess.run(
        [QEMU, "--version"], capture_output=True, text=True, check=False
    ).stdout.splitlines()[0]
    for q in qdiscs:
        env = {
            "QDISC": q,
            "RATE": str(args.rate_kbit),
            "RTT_MS": str(args.rtt_ms),
            "DUR": str(args.duration),
            "TESTS": " ".join(tests),
            # the guest's net.sh puts `msfc $MSFC_ARGS_<DIR>` under the shaper for these (the
            # words of the VM's 2 Mbit/s: msfc_args' default rate)
            **msfc_env(q),
            "HOST_B_FLOWS": str(HOST_B_FLOWS),
        }
        res = boot(
            Path(args.kernel),
            Path(args.initrd),
            _job(guest, "bench.sh", env),
            accel=args.accel,
            smp=args.smp,
            timeout=args.timeout,
            accel_cache=cache,
            failure_log=out / f"boot-{q}.log",
        )
        res.files_meta = {
            "kernel": _kernel_of(res),
            "accel": res.accel,
            "smp": args.smp,
            "qemu": qemu_version,
            "boot_wall_seconds": round(res.wall_seconds, 1),
        }
        if res.text("job.rc").strip() != "0":
            log = out / f"boot-{q}.log"
            log.write_text(res.full_log())
            raise TestbedError(
                f"{q}: the guest job failed (boot log and job log: {log}):\n"
                f"{res.text('job.log')[-1500:]}"
            )
        print(
            f"testbed bench: {q}: {res.accel}, {res.wall_seconds:.0f} s",
            file=sys.stderr,
        )
        raw = out / "raw" / q  # the guest's own files, as it wrote them
        shutil.rmtree(raw, ignore_errors=True)
        for name, data in res.files.items():
            (raw / name).parent.mkdir(parents=True, exist_ok=True)
            (raw / name).write_bytes(data)
        (raw / "testbed.json").write_text(json.dumps(res.files_meta) + "\n")
        for t in tests:
            hashes[t].append(
                write_run(
                    out,
                    t,
                    q,
                    res,
                    {**settings, "kernel": _kernel_of(res), "accel": res.accel},
                )
            )
    _write_studies(out, hashes, settings)
    _finish(out, tests)
    print(f"testbed bench: {time.monotonic() - t_all:.0f} s; output {out}", file=sys.stderr)
    return 0


def convert(args) -> int:
    """Rebuild every run from the guests' files kept in OUT/raw/<qdisc>/ (no boot)."""
    out = Path(args.out)
    settings = {"rate_kbit": args.rate_kbit, "rtt_ms": args.rtt_ms, "duration_s": args.duration}
    hashes: dict[str, list[str]] = {}
    for raw in sorted((out / "raw").glob("*/testbed.json")):
        q = raw.parent.name
        files = {
            str(f.relative_to(raw.parent)): f.read_bytes()
            for f in raw.parent.rglob("*")
            if f.is_file()
        }
        meta = json.loads(raw.read_text())
        res = BootResult(meta["accel"], meta.get("boot_wall_seconds", 0.0), files, "", meta)
        for t in TESTS:
            if f"{t}/start" in files:
                run_settings = {**settings, "kernel": meta["kernel"], "accel": meta["accel"]}
                hashes.setdefault(t, []).append(write_run(out, t, q, res, run_settings))
    if not hashes:
        raise TestbedError(f"{out}/raw holds no guest output of make bench-linux")
    _write_studies(out, hashes, settings)
    _finish(out, [t for t in TESTS if t in hashes])
    return 0


def _vm_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kernel", required=True, help="the stock kernel image (vmlinuz)")
    p.add_argument("--initrd", required=True, help="base initramfs (kernel/vm/mkinitramfs.sh)")
    p.add_argument("--guest-dir", required=True, help="kernel/vm/guest")
    p.add_argument("--accel", choices=["auto", "kvm", "tcg"], default="auto")
    p.add_argument("--accel-cache", help="file remembering the result of the KVM attempt")
    p.add_argument("--timeout", type=float, default=600, help="seconds per boot")


def bench_main(argv: list[str], prog: str) -> int:
    """``msfc bench linux-testbed [options]``: the comparison, started like every benchmark."""
    return main(["bench", *argv], prog=prog)


def cost_main(argv: list[str], prog: str) -> int:
    """``msfc bench linux-cost [options]``: the per-packet cost, started like every benchmark."""
    return main(["cost", *argv], prog=prog)


def main(argv: list[str] | None = None, prog: str = "python -m msfc.linux.vm") -> int:
    ap = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0], allow_abbrev=False)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("selftest", help="the stock-kernel checks of make test")
    _vm_args(p)
    p.add_argument("--rate-kbit", type=int, default=4000)
    p.add_argument("--duration", type=int, default=7, help="seconds of traffic (2 s warm-up)")
    p.add_argument("--log", help="where to write the boot log on failure")
    p.add_argument("--probe", help="also load the cost probe sch_msfc_bench.ko and measure msfc")
    p = sub.add_parser("bench", help="msfc beside cake, sqm-style HTB, fq_codel, pfifo_fast")
    _vm_args(p)
    p.add_argument("--out", required=True, help="results directory (one study per test)")
    p.add_argument("--qdiscs", default=",".join(QDISCS))
    p.add_argument("--tests", default=",".join(TESTS))
    p.add_argument("--rate-kbit", type=int, default=2000, help="bottleneck rate, each way")
    p.add_argument("--rtt-ms", type=int, default=40, help="base RTT (netem)")
    p.add_argument("--duration", type=int, default=20, help="seconds per test")
    p.add_argument("--smp", type=int, default=2, help="guest CPUs")
    p = sub.add_parser("cost", help="per-packet cost of msfc, fq_codel, cake, pfifo (one kernel)")
    _vm_args(p)
    p.add_argument("--probe", required=True, help="sch_msfc_bench.ko built for this kernel")
    p.add_argument("--out", required=True, help="results directory (OUT/<kernel>/, tables.md)")
    p.add_argument(
        "--qdiscs",
        default=",".join(q for q in COST_QDISCS if q not in COST_BPF),
        help=f"comma-separated; {', '.join(COST_BPF)} (the BPF qdisc) need --bpf-loader",
    )
    p.add_argument("--bpf-loader", help="the BPF qdisc's loader msfc-bpf (make bpf), for msfc_bpf")
    p.add_argument("--flows", default="1,64,1024", help="flow counts, comma-separated")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds (after a warm-up)")
    p.add_argument(
        "--batches", type=int, default=200, help="batches of 256 packets per measurement"
    )
    p.add_argument(
        "--profile",
        default=None,
        help=f"qdiscs to profile with perf after the measurements (default {DEFAULT_PROFILE};"
        " '' for none; by default"
        " none in a Debian 13 kernel, whose guest cannot run the host's perf)",
    )
    p.add_argument("--profile-batches", type=int, default=2000, help="batches of a profiled run")
    p = sub.add_parser("convert", help="rebuild runs, tables, plots from OUT/raw (no boot)")
    p.add_argument("--out", required=True)
    p.add_argument("--rate-kbit", type=int, default=2000)
    p.add_argument("--rtt-ms", type=int, default=40)
    p.add_argument("--duration", type=int, default=20)
    p = sub.add_parser(
        "hosts-summary", help="the hosts test of several bench runs: medians and ranges"
    )
    p.add_argument("outs", nargs="+", help="results directories of bench --tests hosts")
    for p in sub.choices.values():  # whole option names only, as msfc's own parsers
        p.allow_abbrev = False
    args = ap.parse_args(argv)
    try:
        if args.command == "hosts-summary":
            print(hosts_summary([Path(o) for o in args.outs]), end="")
            return 0
        if args.command == "selftest":
            return selftest(args)
        if args.command == "bench":
            return bench(args)
        if args.command == "cost":
            return cost(args)
        if args.command == "convert":
            return convert(args)
    except TestbedError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
