"""The stock-kernel checks of ``make test`` (``python -m msfc.linux.vm selftest``).

One boot of ``kernel/vm/guest/selftest.sh``: sch_msfc built by DKMS and loaded, configured,
changed and deleted with Debian's tc and the plugin q_msfc.so, the kernel's and the plugin's
refusals, the class shares of three TCP flows, an isolate change on an idle qdisc
(:func:`idle_change_checks`), the boot-time configuration hook (:func:`boot_apply_checks`)
and, with ``--probe``, one measurement of the cost probe. Each check prints one line.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from ..model import params as P
from .cost import parse_probe
from .qemu import READY_MARK, BootResult, TestbedError, _job, boot


class Checks:
    def __init__(self) -> None:
        self.failed: list[str] = []
        self.count = 0

    def check(self, ok: bool, what: str, detail: str = "") -> bool:
        self.count += 1
        print(f"  {'ok  ' if ok else 'FAIL'} {what}" + (f": {detail}" if detail else ""))
        if not ok:
            self.failed.append(what)
        return ok


def _msfc_opts(shown) -> dict:
    for q in shown:
        if q.get("kind") == "msfc":
            return q.get("options", {})
    return {}


def _step_ok(res: BootResult, c: Checks, step: str, what: str) -> bool:
    rc = res.text(f"{step}.rc").strip()
    return c.check(
        rc == "0",
        what,
        "" if rc == "0" else f"exit {rc or 'missing'}: {res.text(step + '.err').strip()[:300]}",
    )


def _rejected(res: BootResult, c: Checks, step: str, what: str, expect: str) -> None:
    rc = res.text(f"{step}.rc").strip()
    err = res.text(f"{step}.err").strip()
    c.check(
        rc not in ("", "0") and expect in err,
        what,
        f"exit {rc}, stderr {err[:300]!r}, expected {expect!r}",
    )


TAINT_DIE = 128  # /proc/sys/kernel/tainted bit D: the kernel died (oopsed) since boot
KERNEL_FAULT = re.compile(r"\bOops\b|divide error|\bBUG: |general protection fault|Kernel panic")


def _msfc_packets(res: BootResult, step: str) -> int | None:
    """msfc's sent packets in a `tc -s -j qdisc show` step, None if it shows no msfc."""
    try:
        shown = res.json(f"{step}.out")
    except TestbedError:
        return None
    q = [x for x in shown if x.get("kind") == "msfc"]
    return int(q[0].get("packets", 0)) if q else None


def idle_change_checks(res: BootResult, c: Checks) -> None:
    """An isolate change on an idle msfc that still lists a flow, on the stock kernel
    (selftest.sh, steps idle_*; it once ended in a divide error): msfc with boost on under an
    htb class of a dummy device, one ping, a change of isolate on the idle qdisc that still
    lists the ping's flow, a second ping; then a graft under an msfc class."""
    ok = all(res.text(f"{s}.rc").strip() == "0" for s in ("idle_htb", "idle_class", "idle_add"))
    c.check(
        ok,
        "idle isolate change: htb with msfc boost on under its class on a dummy device",
        "; ".join(
            res.text(f"{s}.err").strip()[:200] for s in ("idle_htb", "idle_class", "idle_add")
        ),
    )
    before = _msfc_packets(res, "idle_stats1")
    c.check(
        bool(before),
        "idle isolate change: the first ping leaves through msfc",
        f"msfc sent packets {before}",
    )
    _step_ok(
        res, c, "idle_change", "idle isolate change: tc qdisc change isolate src on the idle msfc"
    )
    after = _msfc_packets(res, "idle_stats2")
    if _step_ok(res, c, "idle_stats2", "idle isolate change: tc -s -j qdisc show after the change"):
        shown = res.json("idle_stats2.out")
        opts = _msfc_opts(shown)
        c.check(
            opts.get("isolate") == "src" and opts.get("boost") == "on",
            "idle isolate change: the change applied (isolate src, boost on)",
            json.dumps(opts)[:300],
        )
    c.check(
        before is not None and after is not None and after > before,
        "idle isolate change: the second ping after the change leaves through msfc (its sent counter)",
        f"msfc sent packets {before} before the second ping, {after} after",
    )
    t0, t1 = res.text("idle_tainted_before.txt").strip(), res.text("idle_tainted_after.txt").strip()
    c.check(
        t0.isdigit() and t1.isdigit() and not (int(t1) & TAINT_DIE and not int(t0) & TAINT_DIE),
        "idle isolate change: the kernel did not oops (taint bit D stays clear)",
        f"/proc/sys/kernel/tainted {t0 or 'missing'} before, {t1 or 'missing'} after",
    )
    dmesg = res.text("idle_dmesg.txt")
    bad = [
        ln.strip()
        for ln in dmesg.splitlines()
        if KERNEL_FAULT.search(ln) or ("WARNING:" in ln and "msfc" in ln)
    ]
    c.check(
        bool(dmesg) and not bad,
        "idle isolate change: dmesg has no oops, divide error, BUG or msfc warning",
        "; ".join(bad[:3]) if bad else ("" if dmesg else "no dmesg output"),
    )
    rc, err = res.text("idle_graft.rc").strip(), res.text("idle_graft.err").strip()
    c.check(
        rc not in ("", "0") and "msfc" in err.lower(),
        "a child qdisc under an msfc class is refused with msfc's message",
        f"exit {rc or 'missing'}, stderr {err[:300]!r}",
    )
    _step_ok(res, c, "idle_del", "idle isolate change: tc qdisc del of the dummy device's htb")


def boot_apply_checks(res: BootResult, c: Checks) -> None:
    """kernel/boot/msfc-apply through the ifupdown hook with Debian's tc (selftest.sh, steps
    boot_*): a saved htb + msfc configuration applied, applied again, a file tc refuses."""
    _step_ok(res, c, "boot_apply", "at boot: the ifupdown hook applies /etc/msfc/IFACE.tc")
    _step_ok(res, c, "boot_apply_again", "at boot: applying the same file again succeeds")
    if _step_ok(res, c, "boot_show", "at boot: tc -j qdisc show of the configured device"):
        opts = _msfc_opts(res.json("boot_show.out"))
        c.check(
            opts.get("boost") == "on"
            and opts.get("overload") == "class"
            and opts.get("weights") == "exact",
            "at boot: msfc under htb with the saved options (boost on, overload class, "
            "weights exact)",
            json.dumps(opts)[:300],
        )
    rc, err = res.text("boot_apply_bad.rc").strip(), res.text("boot_apply_bad.err")
    c.check(
        rc == "1" and "dummy3.tc: tc refused it" in err and "not a time with a unit" in err,
        "at boot: a file tc refuses fails the hook, naming the file and tc's reason",
        f"exit {rc or 'missing'}, stderr {err.strip()[:300]!r}",
    )
    _step_ok(res, c, "boot_apply_none", "at boot: an interface without a file is left alone")


def class_goodput_bps(report: dict) -> float:
    """Receiver goodput of one iperf3 -J client run (all its parallel streams)."""
    end = report.get("end", {})
    if "sum_received" not in end:
        raise TestbedError(f"iperf3 report without end.sum_received: {report.get('error', '?')}")
    return float(end["sum_received"]["bits_per_second"])


def selftest(args) -> int:
    guest = Path(args.guest_dir)
    env = {"RATE": str(args.rate_kbit), "DURATION": str(args.duration)}
    t0 = time.monotonic()
    job = _job(guest, "selftest.sh", env)
    # the scripts that apply a saved configuration at boot (kernel/boot/)
    for name in ("msfc-apply", "if-up.d-msfc"):
        job[f"job/{name}"] = (guest.parent.parent / "boot" / name).read_bytes()
    if args.probe:
        if not Path(args.probe).is_file():
            raise TestbedError(f"{args.probe} does not exist: run make -C kernel vm-probe")
        job["job/sch_msfc_bench.ko"] = Path(args.probe).read_bytes()
    res = boot(
        Path(args.kernel),
        Path(args.initrd),
        job,
        accel=args.accel,
        smp=1,
        timeout=args.timeout,
        accel_cache=Path(args.accel_cache) if args.accel_cache else None,
    )
    kver = next(
        (ln.split("kernel ")[1].split(",")[0] for ln in res.log.splitlines() if READY_MARK in ln),
        "?",
    )
    print(f"testbed selftest: kernel {kver}, {res.accel}, boot + job {res.wall_seconds:.1f} s")
    c = Checks()
    c.check(
        res.text("job.rc").strip() == "0",
        "guest job ran to its end",
        res.text("job.log")[-500:],
    )
    _step_ok(res, c, "insmod", "insmod of the DKMS-built sch_msfc.ko")
    c.check("sch_msfc" in res.text("modules.txt"), "sch_msfc listed in /proc/modules")
    _step_ok(res, c, "add", "tc qdisc add ... msfc (Debian tc with q_msfc.so)")
    opts = (
        _msfc_opts(res.json("show_add.out")) if _step_ok(res, c, "show_add", "tc -j show") else {}
    )
    c.check(
        opts.get("prios") == 3 and opts.get("ratio") == 2,
        "tc -j qdisc show: prios 3 ratio 2",
        json.dumps(opts)[:300],
    )
    _step_ok(res, c, "change", "tc qdisc change ratio 1.5 quantum 1500")
    opts = _msfc_opts(res.json("show_change.out"))
    c.check(
        opts.get("ratio") == 1.5 and opts.get("quantum") == 1500,
        "tc -j qdisc show after change: ratio 1.5 quantum 1500",
        json.dumps(opts)[:300],
    )
    _rejected(
        res,
        c,
        "bad_target",
        "target >= interval rejected with the kernel's message",
        "Error: " + P.definitions().target_interval_msg,
    )
    _rejected(
        res,
        c,
        "bad_quanta",
        "class quantum over 2^40 rejected with the kernel's message",
        "Error: " + P.definitions().class_quantum_msg,
    )
    _rejected(
        res,
        c,
        "bad_ratio",
        "ratio 17 rejected by tc's plugin",
        f"msfc: {P.param('ratio').message}, got",
    )
    opts = _msfc_opts(res.json("show_after_bad.out"))
    c.check(
        opts.get("ratio") == 1.5 and opts.get("prios") == 3,
        "a rejected change leaves the qdisc as it was",
        json.dumps(opts)[:300],
    )
    _step_ok(res, c, "change_back", "tc qdisc change ratio 2 quantum 1514")
    # class shares
    rates = []
    for i in range(3):
        try:
            rates.append(class_goodput_bps(res.json(f"iperf_class{i}.json")))
        except TestbedError as e:
            c.check(False, f"iperf3 class {i}", str(e))
    if len(rates) == 3:
        total = sum(rates)
        shares = [r / total for r in rates]
        want = [1 / 7, 2 / 7, 4 / 7]
        detail = ", ".join(f"{s:.3f} (want {w:.3f})" for s, w in zip(shares, want, strict=False))
        c.check(
            all(abs(s - w) <= 0.15 * w for s, w in zip(shares, want, strict=False)),
            "TCP goodput shares of CS1/BE/AF41 = 1:2:4 within 15 %",
            detail,
        )
        c.check(
            total >= 0.8 * args.rate_kbit * 1000,
            "the flows fill the bottleneck",
            f"{total / 1e6:.2f} Mbit/s of {args.rate_kbit / 1000:.2f}",
        )
    _step_ok(res, c, "stats_s", "tc -s qdisc show")
    c.check(
        "msfc" in res.text("stats_s.out") and "Sent" in res.text("stats_s.out"),
        "tc -s qdisc show prints msfc with statistics",
    )
    if _step_ok(res, c, "stats_sj", "tc -s -j qdisc show"):
        q = [x for x in res.json("stats_sj.out") if x.get("kind") == "msfc"]
        c.check(
            bool(q) and q[0].get("packets", 0) > 0,
            "tc -s -j: msfc sent packets",
            json.dumps(q)[:300],
        )
    # iproute2 6.1 prints classes as text only (no JSON for `tc -j class show`)
    if _step_ok(res, c, "class_s", "tc -s class show"):
        text = res.text("class_s.out")
        c.check(
            all(f"class msfc 10:{i} " in text for i in (1, 2, 3)),
            "tc -s class show lists msfc classes 10:1, 10:2, 10:3",
            text[:300],
        )
    _step_ok(res, c, "del", "tc qdisc del")
    c.check(
        not _msfc_opts(res.json("show_del.out")) and "msfc" not in res.text("show_del.out"),
        "msfc gone after delete",
    )
    idle_change_checks(res, c)
    boot_apply_checks(res, c)
    if args.probe:
        _step_ok(res, c, "probe_insmod", "insmod of the cost probe sch_msfc_bench.ko")
        if _step_ok(res, c, "probe_run", "the probe measures msfc at the root of a dummy"):
            try:
                r = parse_probe(res.text("probe_result.out"))
                ok = r["kind"] == "msfc" and r["packets"] > 0 and r["ns_per_packet"] > 0
                detail = f"{r['ns_per_packet']} ns per packet, {r['lost']} lost"
            except TestbedError as e:
                ok, detail = False, str(e)
            c.check(ok, "the probe gives ns per packet for msfc", detail)
        _step_ok(res, c, "probe_rmmod", "rmmod sch_msfc_bench")
    _step_ok(res, c, "rmmod", "rmmod sch_msfc")
    print(
        f"testbed selftest: {c.count - len(c.failed)}/{c.count} checks passed "
        f"({time.monotonic() - t0:.0f} s)"
    )
    if c.failed:
        log = Path(args.log) if args.log else None
        if log:
            log.write_text(res.full_log())
            print(f"testbed selftest: FAILED: {', '.join(c.failed)} (boot log: {log})")
        return 1
    return 0
