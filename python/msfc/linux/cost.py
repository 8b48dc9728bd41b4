"""The per-packet CPU cost of each qdisc alone, in one stock kernel (make bench-linux-cost).

The probe module sch_msfc_bench.ko times enqueue + dequeue of batches of packets at the
root of a dummy device inside the guest (``kernel/vm/guest/cost.sh``), in interleaved rounds
over every qdisc of :data:`COST_QDISCS` and every flow count; perf profiles some of them.
:func:`cost` boots, converts the guest's results into OUT/<kernel>/ (cost.csv, summary.csv,
profile.csv, cost.json) and rebuilds OUT/tables.md from every kernel measured there.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from .. import __version__
from .qemu import QEMU, TestbedError, _job, boot
from .records import MSFC_MODES, _kernel_of, _median, _write_csv, msfc_args
from .tables import _md

#: label -> (probe mode, tc qdisc arguments): what the probe measures at the root of a dummy
#: device. "clear": every packet's flow hash is cleared, so a qdisc that hashes dissects every
#: packet; "keephash": the packets carry a hash, as from a NIC's receive hash or a local socket.
COST_QDISCS: dict[str, tuple[str, str]] = {
    "pfifo": ("clear", "pfifo limit 1000"),
    "fq_codel": ("clear", "fq_codel"),
    "msfc": ("clear", "msfc"),
    "cake": ("clear", "cake"),  # its defaults: diffserv3, triple-isolate, no shaper
    "cake_ds4": ("clear", "cake diffserv4"),
    "cake_besteffort": ("clear", "cake besteffort"),
    "msfc_1class": ("clear", "msfc prios 1"),
    "fq_codel_keephash": ("keephash", "fq_codel"),
    "msfc_keephash": ("keephash", "msfc"),
    # the built-in shapers at a rate the probe never reaches (a 1500-byte packet takes 120 ns
    # at 100 Gbit/s, less than one enqueue and dequeue here): the gate's own cost
    "msfc_bandwidth": ("clear", "msfc bandwidth 100gbit"),
    "cake_bandwidth": ("clear", "cake bandwidth 100gbit"),
    # a mode with words per direction is measured with its upstream words
    **{q: ("clear", f"msfc {msfc_args(q, 'up')}") for q in MSFC_MODES},
    # the BPF qdisc (bpf/msfc.bpf.c, Linux 6.16 and later): tc gives it no options, the loader
    # (--bpf-loader) registers the kind with its defaults, those of the module (prios 3,
    # ratio 2, flows 1024, quantum 1514 = the dummy device's MTU frame) before the first round
    "msfc_bpf": ("clear", "msfc_bpf"),
    "msfc_bpf_keephash": ("keephash", "msfc_bpf"),
}
#: the qdiscs that need the BPF qdisc's loader in the guest (not measured unless asked for)
COST_BPF = ("msfc_bpf", "msfc_bpf_keephash")
COST_BASE = "fq_codel"  # the ratios' denominator
COST_MAX_FLOWS = 65535 - 10000  # the probe gives flow n the UDP source port 10000 + n
# The guest's clock stays the TSC: under emulation the clocksource watchdog may otherwise
# switch to the HPET in the middle of a run (a read then costs several times more).
COST_APPEND = "clocksource=tsc tsc=reliable"
# perf (Debian's linux-perf) and the libraries it loads go into the job of a profiled run.
PERF = Path("/usr/bin/perf")
#: the qdiscs profiled unless --profile says otherwise (its default, None, means these)
DEFAULT_PROFILE = "msfc,fq_codel,cake"
#: in the name of a Debian 13 kernel, whose guest is Debian 13's (kernel/Makefile's test): the
#: host's perf and its libraries cannot be copied into it, so its runs are not profiled
DEB13_MARK = "+deb13-"


def _perf_files() -> dict[str, bytes]:
    if not PERF.is_file():
        raise TestbedError(f"{PERF} not found: install linux-perf (make -C kernel vm-deps)")
    files = {str(PERF).lstrip("/"): PERF.read_bytes()}
    out = subprocess.run(["ldd", str(PERF)], capture_output=True, text=True, check=False).stdout
    for line in out.splitlines():
        lib = line.split("=>")[-1].split("(")[0].strip()
        if lib.startswith("/"):
            files[lib.lstrip("/")] = Path(lib).read_bytes()
    return files


COST_COLUMNS = [
    "kernel",
    "accel",
    "round",
    "flows",
    "qdisc",
    "kind",
    "mode",
    "ns_per_packet",
    "mean_ns",
    "packets",
    "lost",
    "hash_ns",
    "clock_ns",
]
COST_SUMMARY_COLUMNS = [
    "kernel",
    "accel",
    "flows",
    "qdisc",
    "rounds",
    "ns_median",
    "ns_min",
    "ns_max",
    "spread",
    f"ratio_{COST_BASE}",
    f"ratio_{COST_BASE}_min",
    f"ratio_{COST_BASE}_max",
    "lost",
]


#: symbol groups of the profile: the parts of a qdisc's per-packet work asked about
PROFILE_GROUPS: list[tuple[str, tuple[str, ...]]] = [
    (
        "flow hash (dissection + siphash)",
        (
            "__skb_flow_dissect",
            "__skb_flow_get_ports",
            "__flow_hash_from_keys",
            "__siphash",
            "__skb_get_hash",
            "skb_get_hash_perturb",
            "flow_hash_from_keys",
        ),
    ),
    ("clock reads (ktime_get)", ("ktime_get", "read_tsc", "read_hpet", "native_sched_clock")),
    ("DSCP read (skb_get_dsfield)", ("skb_get_dsfield",)),
    ("list checks (CONFIG_DEBUG_LIST)", ("__list_add_valid", "__list_del_entry_valid")),
    ("indirect-call thunks (retpoline)", ("__x86_indirect_thunk", "__x86_return_thunk")),
    ("probe (packet set-up, lock)", ("msfc_bench_", "_raw_spin", "__local_bh", "__rcu_read")),
]


def profile_group(symbol: str, qdisc_kind: str) -> str:
    """The group of one profiled kernel symbol ("[k] name" as perf report prints it)."""
    name = symbol.split()[-1]
    if name.startswith("bpf_prog_"):
        # a JITed BPF program, "bpf_prog_<tag>_<name>": the BPF qdisc's own code
        return "qdisc's own code" if qdisc_kind.endswith("_bpf") else "other kernel code"
    for group, prefixes in PROFILE_GROUPS:
        if name.startswith(prefixes):
            return group
    if name.lstrip("_").startswith((qdisc_kind, "dequeue_func", "drop_func", "codel_", "cobalt_")):
        return "qdisc's own code"
    return "other kernel code"


def parse_profile(text: str) -> list[tuple[float, str]]:
    """(percent, symbol) of ``perf report --stdio --sort sym -t ';'`` lines."""
    out = []
    for line in text.splitlines():
        if ";" not in line:
            continue
        pct, _, sym = line.partition(";")
        try:
            out.append((float(pct.strip().rstrip("%")), sym.strip()))
        except ValueError as e:
            raise TestbedError(f"perf report line is not 'PERCENT;SYMBOL': {line!r}") from e
    return out


def parse_probe(text: str) -> dict:
    """One result of sch_msfc_bench ("DEV KIND key value ... [keephash]") as a dict."""
    tok = text.split()
    if len(tok) < 2 or tok[0] == "error:":
        raise TestbedError(f"the probe reported no measurement: {text.strip()!r}")
    out: dict = {"dev": tok[0], "kind": tok[1], "mode": "clear"}
    rest = tok[2:]
    if rest and rest[-1] == "keephash":
        out["mode"] = "keephash"
        rest = rest[:-1]
    if len(rest) % 2:
        raise TestbedError(f"the probe's result has an odd key/value list: {text.strip()!r}")
    for k, v in zip(rest[::2], rest[1::2], strict=True):
        try:
            out[k] = int(v)
        except ValueError as e:
            raise TestbedError(f"the probe's {k} is not a number: {text.strip()!r}") from e
    for k in ("flows", "packets", "ns_per_packet", "lost"):
        if k not in out:
            raise TestbedError(f"the probe's result has no {k}: {text.strip()!r}")
    return out


def cost_rows(text: str, kernel: str, accel: str) -> list[dict]:
    """cost.csv rows from the guest's cost.txt ("ROUND FLOWS LABEL PROBE-RESULT" lines)."""
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split(None, 3)
        if len(parts) < 4 or parts[2] not in COST_QDISCS:
            raise TestbedError(f"cost.txt line {n} is not ROUND FLOWS LABEL RESULT: {line!r}")
        r = parse_probe(parts[3])
        mode, args = COST_QDISCS[parts[2]]
        if r["kind"] != args.split()[0] or r["mode"] != mode or r["flows"] != int(parts[1]):
            raise TestbedError(
                f"cost.txt line {n}: {parts[2]} measured {r['kind']} ({r['mode']}, "
                f"{r['flows']} flows), expected {args.split()[0]} ({mode}, {parts[1]} flows)"
            )
        rows.append(
            {
                "kernel": kernel,
                "accel": accel,
                "round": int(parts[0]),
                "flows": r["flows"],
                "qdisc": parts[2],
                "kind": r["kind"],
                "mode": mode,
                "ns_per_packet": r["ns_per_packet"],
                "mean_ns": r.get("mean_ns", ""),
                "packets": r["packets"],
                "lost": r["lost"],
                "hash_ns": r.get("hash_ns", ""),
                "clock_ns": r.get("clock_ns", ""),
            }
        )
    if not rows:
        raise TestbedError("the guest measured nothing (empty cost.txt; see its job.log)")
    return rows


def cost_summary(rows: list[dict]) -> list[dict]:
    """Per flow count and qdisc: median, range and spread of ns/packet over the rounds, and
    the ratio to fq_codel measured in the same round (median and range over the rounds)."""
    by: dict[tuple[int, str], dict[int, dict]] = {}
    for r in rows:
        by.setdefault((r["flows"], r["qdisc"]), {})[r["round"]] = r
    out = []
    for (flows, q), rounds in sorted(
        by.items(), key=lambda kv: (kv[0][0], list(COST_QDISCS).index(kv[0][1]))
    ):
        ns = [r["ns_per_packet"] for r in rounds.values()]
        base = by.get((flows, COST_BASE), {})
        ratios = [
            r["ns_per_packet"] / base[k]["ns_per_packet"]
            for k, r in rounds.items()
            if k in base and base[k]["ns_per_packet"] > 0
        ]
        med = _median(ns)
        first = next(iter(rounds.values()))
        out.append(
            {
                "kernel": first["kernel"],
                "accel": first["accel"],
                "flows": flows,
                "qdisc": q,
                "rounds": len(ns),
                "ns_median": med,
                "ns_min": min(ns),
                "ns_max": max(ns),
                "spread": round((max(ns) - min(ns)) / med, 4) if med else float("nan"),
                f"ratio_{COST_BASE}": round(_median(ratios), 4) if ratios else float("nan"),
                f"ratio_{COST_BASE}_min": round(min(ratios), 4) if ratios else float("nan"),
                f"ratio_{COST_BASE}_max": round(max(ratios), 4) if ratios else float("nan"),
                "lost": sum(r["lost"] for r in rounds.values()),
            }
        )
    return out


def cost_tables(out: Path) -> str:
    """Markdown tables of every kernel's cost.json under OUT (one section per kernel)."""
    parts = []
    for f in sorted(out.glob("*/cost.json")):
        c = json.loads(f.read_text())
        m = c["meta"]
        flows = sorted({r["flows"] for r in c["summary"]})
        qdiscs = [q for q in COST_QDISCS if any(r["qdisc"] == q for r in c["summary"])]
        cell = {(r["flows"], r["qdisc"]): r for r in c["summary"]}
        parts.append(
            f"### {m['kernel']} ({m['accel']}{', ' + m['accel_why'] if m.get('accel_why') else ''})\n\n"
            f"ns per packet (enqueue + dequeue): median over {m['rounds']} interleaved rounds "
            f"of each round's median batch; x {COST_BASE} = the ratio to {COST_BASE} "
            f"in the same round, median [min-max] over the rounds; spread = (max - min) / "
            f"median of the rounds' ns. Probe parts: flow dissection + hash "
            f"{m['hash_ns']} ns, one ktime_get_ns() {m['clock_ns']} ns.\n"
        )
        hdr = ["qdisc", "tc"]
        for fl in flows:
            hdr += [f"{fl} flows ns", f"x {COST_BASE}", "spread"]
        rows = []
        for q in qdiscs:
            mode, args = COST_QDISCS[q]
            r = [q, f"`{args}`" + (" (hash kept)" if mode == "keephash" else "")]
            for fl in flows:
                x = cell.get((fl, q))
                if x is None:
                    r += ["-", "-", "-"]
                    continue
                rat = x[f"ratio_{COST_BASE}"]
                r += [
                    f"{x['ns_median']:.0f}",
                    f"{rat:.2f} [{x[f'ratio_{COST_BASE}_min']:.2f}-{x[f'ratio_{COST_BASE}_max']:.2f}]",
                    f"{x['spread'] * 100:.0f} %",
                ]
            rows.append(r)
        parts.append(_md(hdr, rows))
        lost = [
            f"{r['qdisc']} ({r['flows']} flows): {r['lost']}" for r in c["summary"] if r["lost"]
        ]
        if lost:
            parts.append(
                "Packets the qdisc dropped during the measurement: " + ", ".join(lost) + ".\n"
            )
        prof = c.get("profile", [])
        if prof:
            pq = list(dict.fromkeys(r["qdisc"] for r in prof))
            groups = [g for g, _ in PROFILE_GROUPS] + ["qdisc's own code", "other kernel code"]
            # a kernel's results written by an older version may name a group differently
            groups += [g for g in dict.fromkeys(r["group"] for r in prof) if g not in groups]
            share = {(r["qdisc"], g): 0.0 for r in prof for g in groups}
            for r in prof:
                share[(r["qdisc"], r["group"])] += r["percent"]
            parts.append(
                f"\nProfile (perf, cpu-clock samples over {m['profile_batches']} batches of "
                f"{max(m['flows'])} flows, the probe's own timing left out): % of samples\n"
            )
            rows = [[g, *(f"{share[(q, g)]:.1f}" for q in pq)] for g in groups]
            top = []
            for q in pq:
                syms = sorted((r for r in prof if r["qdisc"] == q), key=lambda r: -r["percent"])
                top.append(", ".join(f"{r['symbol']} {r['percent']:.1f}" for r in syms[:6]))
            rows.append(["top symbols", *top])
            parts.append(_md(["part", *pq], rows))
    return "\n".join(parts)


def cost(args) -> int:
    """Boot one stock kernel, measure every qdisc with the probe, write OUT/<kernel>/ and
    rebuild OUT/tables.md from every kernel measured there."""
    from ..sim import runner

    out = Path(args.out)
    qdiscs = args.qdiscs.split(",")
    for q in qdiscs:
        if q not in COST_QDISCS:
            raise TestbedError(f"unknown qdisc {q}: choose from {', '.join(COST_QDISCS)}")
    bpf = [q for q in qdiscs if q in COST_BPF]
    if bpf and not args.bpf_loader:
        raise TestbedError(f"{', '.join(bpf)} need the BPF qdisc's loader: --bpf-loader msfc-bpf")
    if bpf and not Path(args.bpf_loader).is_file():
        raise TestbedError(f"{args.bpf_loader} does not exist: run make bpf")
    if COST_BASE not in qdiscs:
        raise TestbedError(f"--qdiscs must include {COST_BASE}: the ratios are taken to it")
    try:
        flows = [int(x) for x in args.flows.split(",")]
    except ValueError as e:
        raise TestbedError(f"--flows takes numbers separated by commas: {args.flows!r}") from e
    if not flows or min(flows) < 1 or args.rounds < 1 or args.batches < 1:
        raise TestbedError("--flows, --rounds and --batches must be at least 1")
    if max(flows) > COST_MAX_FLOWS:
        raise TestbedError(
            f"--flows: at most {COST_MAX_FLOWS} (the probe's UDP source ports 10000 and up)"
        )
    asked = args.profile is not None  # --profile given, even with the default's qdiscs
    profile = [q for q in (args.profile if asked else DEFAULT_PROFILE).split(",") if q]
    if profile and DEB13_MARK in Path(args.kernel).name:
        if asked:
            raise TestbedError(
                f"--profile {args.profile}: the host's perf cannot run in a Debian 13 kernel's"
                " guest (its libraries would replace the guest's newer C library); give"
                " --profile '' for this kernel"
            )
        print(f"testbed cost: no profile in {Path(args.kernel).name} (Debian 13's guest)")
        profile = []
    for q in profile:
        if q not in qdiscs:
            raise TestbedError(f"--profile {q}: not one of the measured --qdiscs")
    probe = Path(args.probe)
    if not probe.is_file():
        raise TestbedError(f"{probe} does not exist: run make -C kernel vm-probe")
    if not (Path(args.guest_dir) / "cost.sh").is_file():
        raise TestbedError(f"{args.guest_dir} holds no cost.sh: pass kernel/vm/guest")
    env = {
        "ROUNDS": str(args.rounds),
        "FLOWS": " ".join(map(str, flows)),
        "BATCHES": str(args.batches),
        "WARMUP": str(max(args.batches // 10, 1)),
    }
    if profile:
        env["PROFILE"] = " ".join(profile)
        env["PROFILE_BATCHES"] = str(args.profile_batches)
    job = _job(Path(args.guest_dir), "cost.sh", env)
    job["job/qdiscs.txt"] = "".join(
        f"{q} {COST_QDISCS[q][0]} {COST_QDISCS[q][1]}\n" for q in qdiscs
    ).encode()
    job["job/sch_msfc_bench.ko"] = probe.read_bytes()
    if bpf:
        job["job/msfc-bpf"] = Path(args.bpf_loader).read_bytes()
    if profile:
        job.update(_perf_files())
    cache = Path(args.accel_cache) if args.accel_cache else None
    t0 = time.monotonic()
    res = boot(
        Path(args.kernel),
        Path(args.initrd),
        job,
        accel=args.accel,
        smp=1,
        timeout=args.timeout,
        accel_cache=cache,
        append=COST_APPEND,
    )
    if res.text("job.rc").strip() != "0":
        raise TestbedError(f"cost: the guest job failed:\n{res.text('job.log')[-1500:]}")
    kernel = _kernel_of(res)
    clocks = {
        n: res.text(n).strip()
        for n in ("clocksource_before", "clocksource_after", "clocksource_after_profile")
        if n in res.files
    }
    if set(clocks.values()) != {"tsc"}:
        raise TestbedError(f"cost: the guest's clock source was not the TSC throughout: {clocks}")
    if bpf:  # a BPF program runs in the kernel: its log must hold no report
        bad = [
            x
            for x in res.text("dmesg.txt").splitlines()
            if any(w in x for w in ("WARNING:", "BUG:", "Oops", "general protection"))
        ]
        if bad or "dmesg.txt" not in res.files:
            raise TestbedError(f"cost: the kernel reported a problem: {bad[:3] or 'no log'}")
    rows = cost_rows(res.text("cost.txt"), kernel, res.accel)
    summary = cost_summary(rows)
    why = ""
    if cache and cache.is_file():
        why = json.loads(cache.read_text()).get("why", "")
    d = out / kernel
    (d / "raw").mkdir(parents=True, exist_ok=True)
    for name, data in res.files.items():
        if name.endswith((".txt", ".log", ".err", ".probe")) or name.startswith("clocksource"):
            (d / "raw" / name).write_bytes(data)
    prof_rows = []
    for q in profile:
        kind = COST_QDISCS[q][1].split()[0]
        for pct, sym in parse_profile(res.text(f"profile-{q}.txt")):
            prof_rows.append(
                {
                    "kernel": kernel,
                    "qdisc": q,
                    "percent": pct,
                    "symbol": sym.split()[-1],
                    "group": profile_group(sym, kind),
                }
            )
        if not any(r["qdisc"] == q for r in prof_rows):
            raise TestbedError(
                f"cost: perf gave no profile for {q}: {res.text(f'profile-{q}.err')[-500:]}"
            )
    if profile:
        _write_csv(d / "profile.csv", prof_rows, ["kernel", "qdisc", "percent", "symbol", "group"])
    _write_csv(d / "cost.csv", rows, COST_COLUMNS)
    _write_csv(d / "summary.csv", summary, COST_SUMMARY_COLUMNS)
    qemu_version = subprocess.run(
        [QEMU, "--version"], capture_output=True, text=True, check=False
    ).stdout.splitlines()[0]
    meta = {
        "kernel": kernel,
        "accel": res.accel,
        "accel_why": why,
        "qemu": qemu_version,
        "smp": 1,
        "rounds": args.rounds,
        "batches": args.batches,
        "batch_packets": 256,
        "flows": flows,
        "qdiscs": {q: {"mode": COST_QDISCS[q][0], "tc": COST_QDISCS[q][1]} for q in qdiscs},
        "bpf_loader": res.text("bpf_load.txt").strip() if bpf else "",
        "hash_ns": _median([r["hash_ns"] for r in rows if r["hash_ns"] != ""]),
        "clock_ns": _median([r["clock_ns"] for r in rows if r["clock_ns"] != ""]),
        "kernel_parameters": COST_APPEND,
        "clocksource": clocks.get("clocksource_before", ""),
        "profile": profile,
        "profile_batches": args.profile_batches if profile else 0,
        "boot_wall_seconds": round(res.wall_seconds, 1),
        "msfc_version": __version__,
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    runner.write_json_atomic(
        d / "cost.json", {"meta": meta, "summary": summary, "profile": prof_rows}
    )
    md = cost_tables(out)
    (out / "tables.md").write_text(md)
    print(md)
    print(
        f"testbed cost: {kernel}, {res.accel}, {time.monotonic() - t0:.0f} s; output {d}",
        file=sys.stderr,
    )
    return 0
