"""Linux testbed: Debian's stock kernel under qemu, sch_msfc built by DKMS, Debian's tc.

The guest is the distribution's kernel image booted with an initramfs the project builds
(``kernel/vm/mkinitramfs.sh``: busybox, Debian's tc/ip/iperf3/irtt, the tc plugin q_msfc.so,
the DKMS-installed sch_msfc and the kernel's own qdisc modules). A job is a shell script from
``kernel/vm/guest/`` appended as a second cpio archive; the guest writes its machine-readable
output (tc -j, iperf3 -J, irtt -o json, /proc/stat) into /out, which ``/init`` stores as a tar
archive on a virtio disk. This module boots, reads that archive and turns it into checks
(``selftest``), into the project's raw result format (``bench``, docs/data-format.md) or into
the per-packet cost of each qdisc measured by the probe sch_msfc_bench.ko (``cost``).

    python -m msfc.testbed selftest --kernel VMLINUZ --initrd BASE.cpio.gz --guest-dir DIR
    python -m msfc.testbed bench --kernel VMLINUZ --initrd BASE.cpio.gz --guest-dir DIR --out DIR
    python -m msfc.testbed cost --kernel VMLINUZ --initrd BASE.cpio.gz --guest-dir DIR \
        --probe sch_msfc_bench.ko --out DIR
    python -m msfc.testbed hosts-summary DIR...   # the hosts test of several bench runs
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from . import __version__
from . import metrics as M
from . import params as P

QEMU = "qemu-system-x86_64"
# Under nested KVM the Debian kernel's decompressor stops with an emulation failure (see
# docs/linux-testbed.md); a KVM attempt that does not reach the job within this time falls
# back to software emulation.
KVM_PROBE_SECONDS = 25
READY_MARK = "msfc-vm: up"


class TestbedError(Exception):
    """A failure with a message that names the problem and the fix."""


@dataclass
class BootResult:
    accel: str  # "kvm" or "tcg"
    wall_seconds: float
    files: dict[str, bytes]  # the guest's /out, by relative path
    log: str
    files_meta: dict | None = None

    def text(self, name: str) -> str:
        return self.files.get(name, b"").decode("utf-8", "replace")

    def full_log(self) -> str:
        """The boot log followed by the guest job's own log: what a failure keeps on disk."""
        return self.log + "\n--- job.log ---\n" + self.text("job.log")

    def json(self, name: str):
        raw = self.files.get(name)
        if raw is None:
            raise TestbedError(f"the guest wrote no {name} (see the boot log)")
        try:
            return json.loads(raw)
        except json.JSONDecodeError as e:
            raise TestbedError(f"the guest's {name} is not JSON ({e}): {raw[:200]!r}") from e


def _cpio_newc(files: dict[str, bytes]) -> bytes:
    """A gzip-compressed cpio (newc) archive of regular files and their directories."""
    out = io.BytesIO()
    ino = 1

    def entry(name: str, mode: int, data: bytes) -> None:
        nonlocal ino
        nb = name.encode() + b"\0"
        hdr = "070701" + "".join(
            f"{v:08x}" for v in (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(nb), 0)
        )
        out.write(hdr.encode() + nb)
        out.write(b"\0" * ((4 - (110 + len(nb)) % 4) % 4))
        out.write(data)
        out.write(b"\0" * ((4 - len(data) % 4) % 4))
        ino += 1

    dirs = sorted({str(Path(n).parent) for n in files} - {"."})
    for d in dirs:
        entry(d, 0o40755, b"")
    for name, data in sorted(files.items()):
        entry(name, 0o100755, data)
    entry("TRAILER!!!", 0, b"")
    return gzip.compress(out.getvalue(), compresslevel=1)


def _qemu_argv(
    accel: str, kernel: Path, initrd: Path, disk: Path, mem_mb: int, smp: int, append: str = ""
):
    cpu = (
        ["-accel", "kvm", "-cpu", "host,-arch-capabilities"]
        if accel == "kvm"
        else ["-accel", "tcg", "-cpu", "max"]
    )
    return [
        QEMU,
        *cpu,
        "-m",
        str(mem_mb),
        "-smp",
        str(smp),
        "-nographic",
        "-no-reboot",
        "-nic",
        "none",
        "-kernel",
        str(kernel),
        "-initrd",
        str(initrd),
        "-append",
        " ".join(["console=ttyS0 quiet panic=-1", append]).strip(),
        "-drive",
        f"file={disk},format=raw,if=virtio",
    ]


def _boot_once(accel, kernel, initrd, job, mem_mb, smp, timeout, append=""):
    with tempfile.TemporaryDirectory(prefix="msfc-vm-") as tmp:
        tmp = Path(tmp)
        initrd_all = tmp / "initrd.gz"
        with open(initrd_all, "wb") as f:
            f.write(Path(initrd).read_bytes())
            f.write(_cpio_newc(job))
        disk = tmp / "out.img"
        with open(disk, "wb") as f:
            f.truncate(256 << 20)
        argv = _qemu_argv(accel, kernel, initrd_all, disk, mem_mb, smp, append)
        t0 = time.monotonic()
        try:
            p = subprocess.run(
                argv,
                check=False,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=timeout,
            )
            log = p.stdout.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            log = (e.stdout or b"").decode("utf-8", "replace") + f"\n[timeout after {timeout} s]"
        wall = time.monotonic() - t0
        files: dict[str, bytes] = {}
        try:
            with tarfile.open(disk) as tar:
                for m in tar.getmembers():
                    if m.isfile():
                        files[m.name.removeprefix("./")] = tar.extractfile(m).read()
        except tarfile.TarError:
            pass  # nothing written: the log tells why
        return BootResult(accel, wall, files, log)


def boot(
    kernel: Path,
    initrd: Path,
    job: dict[str, bytes],
    *,
    accel: str = "auto",
    mem_mb: int = 1024,
    smp: int = 1,
    timeout: float = 600,
    accel_cache: Path | None = None,
    append: str = "",
    failure_log: Path | None = None,
) -> BootResult:
    """Boot the stock kernel with the base initramfs plus ``job`` (path -> content, must hold
    ``job/run.sh``); return the guest's /out. ``accel`` auto tries KVM once (remembered in
    ``accel_cache``) and falls back to software emulation (TCG); ``append`` adds kernel
    parameters; ``failure_log`` receives the whole boot log if the job does not finish."""
    if shutil.which(QEMU) is None:
        raise TestbedError(f"{QEMU} not found: install qemu-system-x86 (make -C kernel vm-deps)")
    for f in (kernel, initrd):
        if not Path(f).is_file():
            raise TestbedError(f"{f} does not exist: run make -C kernel vm-image")
    if accel == "auto":
        accel = _probe_accel(kernel, initrd, mem_mb, accel_cache)
    res = _boot_once(accel, kernel, initrd, job, mem_mb, smp, timeout, append)
    if "job.rc" not in res.files:
        tail = "\n".join(res.log.splitlines()[-15:])
        where = ""
        if failure_log is not None:
            failure_log.parent.mkdir(parents=True, exist_ok=True)
            failure_log.write_text(res.log)
            where = f" (whole boot log: {failure_log})"
        raise TestbedError(f"the VM ({accel}) did not finish its job{where}; last lines:\n{tail}")
    return res


def _probe_accel(kernel, initrd, mem_mb, cache: Path | None) -> str:
    key = f"{Path(kernel).resolve()} {os.path.getsize(kernel)}"
    if cache and cache.is_file():
        known = json.loads(cache.read_text())
        if known.get("kernel") == key:
            return known["accel"]
    accel, why = "tcg", "/dev/kvm is not accessible"
    if os.access("/dev/kvm", os.R_OK | os.W_OK):
        res = _boot_once(
            "kvm",
            kernel,
            initrd,
            {"job/run.sh": b"true\n"},
            mem_mb,
            1,
            KVM_PROBE_SECONDS,
        )
        if READY_MARK in res.log and "job.rc" in res.files:
            accel, why = "kvm", "KVM boot reached the job"
        else:
            lines = [x for x in res.log.splitlines() if "KVM" in x or "emulation" in x]
            first = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b.", "", lines[0]).strip() if lines else ""
            why = "KVM boot failed: " + (first or "no job output")
    print(f"testbed: accelerator {accel} ({why})", file=sys.stderr)
    if cache:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps({"kernel": key, "accel": accel, "why": why}) + "\n")
    return accel


def _job(guest_dir: Path, script: str, env: dict[str, str] | None = None) -> dict[str, bytes]:
    lines = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in (env or {}).items())
    run = lines + (guest_dir / script).read_text()
    return {
        "job/run.sh": run.encode(),
        "job/net.sh": (guest_dir / "net.sh").read_bytes(),
    }


# ---------------------------------------------------------------------------------------------
# selftest: the checks of `make test`


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


# ---------------------------------------------------------------------------------------------
# bench: msfc beside cake, an sqm-style HTB, fq_codel and pfifo_fast (make bench-linux)

#: msfc in the modes beyond the thesis (docs/algorithm.md): name -> the arguments after `msfc`
#: on tc's command line, the same in make bench-linux (under the HTB shaper, as `msfc`) and
#: make bench-linux-cost; a mode is one more line here. A mode whose words depend on the
#: direction maps each of DIRECTIONS to its words: "up" for the router's egress toward the
#: server (the clients' uploads), "down" for the one toward the clients (msfc_args()).
_RECOMMENDED = "overload class weights exact boost on target 15ms interval 150ms"
MSFC_MODES: dict[str, str | dict[str, str]] = {
    "msfc_boost": "boost on",
    "msfc_class": "overload class weights exact",
    "msfc_prevent": "inversion prevent",
    # docs/algorithm.md's recommended modes with docs/kernel.md's setting below 4 Mbit/s
    # (isolate left out: the thesis's per-flow fairness)
    "msfc_recommended": _RECOMMENDED,
    # the same, fair per client host first: by the source address upstream, by the
    # destination address downstream (docs/kernel.md's cookbook for an access router)
    "msfc_isolate": {"up": f"{_RECOMMENDED} isolate src", "down": f"{_RECOMMENDED} isolate dst"},
}
DIRECTIONS = ("up", "down")


def msfc_args(mode: str, direction: str) -> str:
    """The words after `msfc` of an MSFC_MODES mode on the router's egress of ``direction``."""
    words = MSFC_MODES[mode]
    return words if isinstance(words, str) else words[direction]


QDISCS = [
    "msfc",
    "msfc_lowrate",
    *MSFC_MODES,
    "cake_ds3",
    "cake_ds4",
    "cake_ds4_dual",
    "sqm",
    "fq_codel",
    "pfifo_fast",
]
TESTS = ["rrul", "shares", "cubic_bbr", "dos_same", "dos_lower", "dos_higher", "hosts"]
#: the hosts test: host A runs one TCP flow each way, host B this many
HOST_B_FLOWS = 10
DSCP_NAMES = {0: "BE", 8: "CS1", 34: "AF41", 40: "CS5", 46: "EF"}
HIST_BIN_S = 0.0005  # the delay histogram's bin width, as the ns-3 scenarios' default


def msfc_class(dscp: int, prios: int = 3) -> int:
    """The class msfc gives a DSCP under its default map (msfc.params: LE, CS1 -> 0; other
    precedence 0 and 1 -> 1; precedence k -> k), clamped to prios - 1."""
    return P.default_class(dscp, prios)


def _flow_row(**kw) -> dict:
    row = dict.fromkeys(_FLOW_COLUMNS, 0)
    row.update(kw)
    return row


# flows.csv: the simulations' columns (msfc.metrics) and what a testbed flow adds.
_FLOW_COLUMNS = [*M.FLOW_COLUMNS, "kind", "dscp"]


def iperf_flows(report: dict, label: str, app_id: int, first_id: int) -> list[dict]:
    """flows.csv rows of one iperf3 -J client report: one per stream. TCP: bytes only (iperf3
    counts no packets); UDP: packets and losses as the server reported them."""
    st = report.get("start", {})
    test = st.get("test_start", {})
    if "end" not in report or not report["end"].get("streams"):
        raise TestbedError(f"iperf3 report of {label} has no results: {report.get('error', '?')}")
    reverse = bool(test.get("reverse"))
    tos = int(test.get("tos", 0))
    dscp = tos >> 2
    conn = {c["socket"]: c for c in st.get("connected", [])}
    rows = []
    for k, s in enumerate(report["end"]["streams"]):
        udp = "udp" in s
        sock = (s["udp"] if udp else s["sender"])["socket"]
        c = conn.get(sock, {})
        cli = (c.get("local_host", ""), c.get("local_port", 0))
        srv = (c.get("remote_host", ""), c.get("remote_port", 0))
        src, dst = (srv, cli) if reverse else (cli, srv)
        common = {
            "flow_id": first_id + k,
            "app_id": app_id,
            "type": label,
            "priority": msfc_class(dscp),
            "direction": "down" if reverse else "up",
            "src": src[0],
            "dst": dst[0],
            "src_port": src[1],
            "dst_port": dst[1],
            "kind": "data",
            "dscp": dscp,
        }
        if udp:
            u = s["udp"]
            per = u["bytes"] / u["packets"] if u["packets"] else 0
            rx = u["packets"] - u["lost_packets"]
            rows.append(
                _flow_row(
                    **common,
                    protocol="UDP",
                    tx_packets=u["packets"],
                    tx_bytes=u["bytes"],
                    rx_packets=rx,
                    rx_bytes=round(rx * per),
                    lost_packets=u["lost_packets"],
                    last_tx_s=u["seconds"],
                    active_s=u["seconds"],
                )
            )
        else:
            rows.append(
                _flow_row(
                    **common,
                    protocol="TCP",
                    tx_bytes=s["sender"]["bytes"],
                    rx_bytes=s["receiver"]["bytes"],
                    last_tx_s=s["sender"]["seconds"],
                    last_rx_s=s["receiver"]["seconds"],
                    active_s=s["receiver"]["seconds"],
                )
            )
    return rows


def irtt_flows(report: dict, label: str, app_id: int, first_id: int):
    """Two flows.csv rows (up: client to server, down: back) of one irtt -o json report, their
    one-way delays (the guest's namespaces share one clock) and the round-trip times."""
    cfg = report.get("config", {})
    dscp = int(cfg.get("params", {}).get("dscp", 0)) >> 2
    cli_h, _, cli_p = cfg.get("local_address", ":0").rpartition(":")
    srv_h, _, srv_p = cfg.get("remote_address", ":0").rpartition(":")
    rts = report.get("round_trips", [])
    params = cfg.get("params", {})
    ran = report.get("stats", {}).get("duration", 0)
    if not rts or ran < params.get("duration", 0) / 2:
        # the client gave up (seen under emulation on a loaded host): not a loss figure. A
        # client that ran its time but sent fewer packets (timer misses) is kept.
        raise TestbedError(
            f"irtt report of {label}: the client stopped after {ran / 1e9:.1f} s "
            f"({len(rts)} round trips)"
        )
    dur = report["stats"]["duration"] / 1e9
    rows, delays, rtts = [], {}, []
    for k, (direction, key, ipdv) in enumerate(
        (("up", "send", "send"), ("down", "receive", "receive"))
    ):
        fid = first_id + k
        # up: every packet sent; it arrived unless lost "true" or "true_up"
        sent = (
            len(rts)
            if direction == "up"
            else sum(1 for r in rts if r["lost"] in ("false", "true_down"))
        )
        got = [
            r
            for r in rts
            if r["lost"] == "false" or (direction == "up" and r["lost"] == "true_down")
        ]
        d = [r["delay"][key] / 1e9 for r in got if key in r.get("delay", {})]
        j = [abs(r["ipdv"][ipdv]) / 1e9 for r in got if ipdv in r.get("ipdv", {})]
        src, dst = (
            ((cli_h, cli_p), (srv_h, srv_p))
            if direction == "up"
            else ((srv_h, srv_p), (cli_h, cli_p))
        )
        rows.append(
            _flow_row(
                flow_id=fid,
                app_id=app_id,
                type=label,
                priority=msfc_class(dscp),
                direction=direction,
                protocol="UDP",
                src=src[0],
                dst=dst[0],
                src_port=int(src[1] or 0),
                dst_port=int(dst[1] or 0),
                tx_packets=sent,
                tx_bytes=sent * 172,
                rx_packets=len(d),
                rx_bytes=len(d) * 172,
                lost_packets=sent - len(d),
                delay_sum_s=sum(d),
                jitter_sum_s=sum(j),
                last_tx_s=dur,
                active_s=dur,
                kind="data",
                dscp=dscp,
            )
        )
        delays[fid] = d
    rtts = [
        (first_id, r["seqno"], r["delay"]["rtt"] / 1e9)
        for r in rts
        if r["lost"] == "false" and "rtt" in r.get("delay", {})
    ]
    return rows, delays, rtts


def _hist_rows(delays: dict[int, list[float]]) -> list[dict]:
    rows = []
    for fid, d in delays.items():
        counts: dict[int, int] = {}
        for x in d:
            b = int(x // HIST_BIN_S)
            counts[b] = counts.get(b, 0) + 1
        for b in sorted(counts):
            rows.append(
                {
                    "flow_id": fid,
                    "bin_start_s": round(b * HIST_BIN_S, 6),
                    "bin_width_s": HIST_BIN_S,
                    "count": counts[b],
                }
            )
    return rows


def _cpu(text: str) -> tuple[float, float]:
    """(busy, idle) jiffies of /proc/stat's first line."""
    v = [float(x) for x in text.split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    return sum(v[:8]) - idle, idle


def guest_idle(files: dict[str, bytes], prefix: str) -> float:
    b0, i0 = _cpu(files[f"{prefix}/cpu_before"].decode())
    b1, i1 = _cpu(files[f"{prefix}/cpu_after"].decode())
    total = (b1 - b0) + (i1 - i0)
    return (i1 - i0) / total if total > 0 else float("nan")


def convert_test(files: dict[str, bytes], test: str, problems: list[str] | None = None):
    """flows.csv rows, delay and jitter histogram rows, RTT samples of one test's guest output."""
    flows, delays, rtts = [], {}, []
    problems = [] if problems is None else problems
    names = sorted(
        n for n in files if n.startswith(f"{test}/") and n.endswith((".iperf.json", ".irtt.json"))
    )
    if not names:
        raise TestbedError(f"the guest wrote no reports for {test} (see its job.log)")
    for app_id, n in enumerate(names):
        base = n.split("/", 1)[1].split(".", 1)[0]  # e.g. up_dscp46, irtt_dscp0, ten_dscp8
        what, _, d = base.rpartition("_dscp")
        dscp = int(d)
        label = f"{what}-{DSCP_NAMES.get(dscp, dscp)}"
        first = len(flows) + 1
        try:
            report = json.loads(files[n])
            if n.endswith(".irtt.json"):
                rows, dl, rt = irtt_flows(report, label, app_id, first)
                delays.update(dl)
                rtts.extend(rt)
            else:
                rows = iperf_flows(report, label, app_id, first)
        except (TestbedError, json.JSONDecodeError, KeyError) as e:
            # one client that failed (e.g. never got through the flood) must not lose the rest
            err = files.get(n.split(".", 1)[0] + ".err", b"").decode("utf-8", "replace")
            problems.append(f"{n}: {e} {err.strip()[:200]}".strip())
            continue
        flows.extend(rows)
    return flows, _hist_rows(delays), rtts


def _write_csv(path: Path, rows: list[dict], columns: list[str]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w") as f:
        f.write(",".join(columns) + "\n")
        f.writelines(",".join(str(r.get(c, "")) for c in columns) + "\n" for r in rows)
    os.replace(tmp, path)


def write_run(root: Path, test: str, qdisc: str, res: BootResult, settings: dict) -> str:
    """One run directory of the study root/<test> in the project's raw format; returns its hash."""
    from . import runner
    from .config import RunConfig

    problems: list[str] = []
    flows, hist, rtts = convert_test(res.files, test, problems)
    for p in problems:
        print(f"testbed bench: {qdisc} {test}: report left out: {p}", file=sys.stderr)
    resolved = {"scheduler": qdisc, **{k: str(v) for k, v in settings.items()}}
    cfg = RunConfig(scenario=f"linux-{test}", resolved=resolved)
    d = root / test / "runs" / cfg.hash()
    d.mkdir(parents=True, exist_ok=True)
    _write_csv(d / "flows.csv", flows, _FLOW_COLUMNS)
    _write_csv(d / "delay_hist.csv", hist, ["flow_id", "bin_start_s", "bin_width_s", "count"])
    _write_csv(d / "jitter_hist.csv", [], ["flow_id", "bin_start_s", "bin_width_s", "count"])
    _write_csv(
        d / "rtt.csv",
        [{"flow_id": f, "seqno": s, "rtt_s": r} for f, s, r in rtts],
        ["flow_id", "seqno", "rtt_s"],
    )
    for dev in ("cli_r", "srv_r"):
        raw = res.files.get(f"{test}/tc_{dev}.json")
        if raw is not None:
            (d / f"tc_{dev}.json").write_bytes(raw)
    t0 = float(res.text(f"{test}/start") or 0)
    t1 = float(res.text(f"{test}/stop") or 0)
    meta = {
        "scenario": cfg.scenario,
        "config": resolved,
        "scheduler": qdisc,
        "rng_run": 1,
        "rng_seed": 0,
        "ns3_version": None,
        "msfc_version": __version__,
        "wall_seconds": round(t1 - t0, 3),
        "sim_seconds": float(settings["duration_s"]),
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "metrics_version": 1,
        "testbed": {
            **res.files_meta,
            "guest_idle": round(guest_idle(res.files, test), 3),
            "reports_left_out": problems,
        },
    }
    runner.write_json_atomic(d / "meta.json", meta)
    runner.write_json_atomic(d / "config.json", cfg.to_json())
    runner.postprocess(d, cfg)
    return cfg.hash()


def jain(xs: list[float]) -> float:
    """Jain's index (msfc.metrics) of the shares that were measured; NaN when none was."""
    kept = [x for x in xs if not math.isnan(x)]
    return M.jain_index(kept) if kept and any(kept) else float("nan")


def bench(args) -> int:

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
            # the guest's net.sh puts `msfc $MSFC_ARGS_<DIR>` under the shaper for these
            **{
                f"MSFC_ARGS_{d.upper()}": msfc_args(q, d) if q in MSFC_MODES else ""
                for d in DIRECTIONS
            },
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


def _write_studies(out: Path, hashes: dict[str, list[str]], settings: dict) -> None:
    from . import runner

    for t, hs in hashes.items():
        # a later call with other qdiscs but the same settings adds its runs to the study
        prev = out / t / "study.json"
        if prev.is_file():
            old = json.loads(prev.read_text())
            if old.get("testbed") == settings:
                hs = [h for h in old["configs"] if h not in hs] + hs
        runner.write_study(
            out / t,
            {
                "kind": "compare",
                "scenario": f"linux-{t}",
                "configs": hs,
                "direction": "up" if t != "rrul" else "down",
                "argv": [],
                "testbed": settings,
            },
        )


def _finish(out: Path, tests: list[str]) -> None:
    md = tables(out, tests)
    (out / "tables.md").write_text(md)
    plots(out, tests)
    print(md)


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


def _kernel_of(res: BootResult) -> str:
    for ln in res.log.splitlines():
        if READY_MARK in ln:
            return ln.split("kernel ")[1].split(",")[0]
    return "?"


def _runs(out: Path, test: str):
    """(qdisc, flows DataFrame, rtt DataFrame, meta) of every run of one test, in study order."""
    import pandas as pd

    study = json.loads((out / test / "study.json").read_text())
    for h in study["configs"]:
        d = out / test / "runs" / h
        meta = json.loads((d / "meta.json").read_text())
        yield (
            meta["scheduler"],
            pd.read_csv(d / "flows.csv"),
            pd.read_csv(d / "rtt.csv"),
            meta,
        )


def _mbps(flows, **match) -> float:
    f = flows
    for k, v in match.items():
        f = f[f[k] == v]
    f = f[f["active_s"] > 0]
    return float((f["rx_bytes"] * 8 / f["active_s"]).sum() / 1e6)


def _md(header: list[str], rows: list[list]) -> str:
    def fmt(v):
        return f"{v:.3g}" if isinstance(v, float) else str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(v) for v in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def hosts_row(flows, meta: dict) -> dict:
    """Per-host goodput (Mbit/s) of one run of the hosts test and the ratio one-flow host A /
    N-flow host B, each way (1 under per-host fairness, 1/N under per-flow fairness)."""
    row: dict = {}
    for d in DIRECTIONS:
        a, b = _mbps(flows, type=f"hostA_{d}-BE"), _mbps(flows, type=f"hostB_{d}-BE")
        row[f"A {d}"], row[f"B {d}"] = a, b
        row[f"A/B {d}"] = a / b if b else float("nan")
    row["B flows"] = int((flows["type"] == "hostB_up-BE").sum())
    row["guest idle"] = meta["testbed"]["guest_idle"]
    return row


HOSTS_COLUMNS = ["A up", "B up", "A/B up", "A down", "B down", "A/B down", "B flows", "guest idle"]


def hosts_summary(outs: list[Path]) -> str:
    """Markdown table of the hosts test repeated in several results directories (one bench
    call each): per qdisc, the median over the runs and [min-max] of each column."""
    got: dict[str, list[dict]] = {}
    for out in outs:
        if not (out / "hosts" / "study.json").is_file():
            raise TestbedError(f"{out} holds no hosts test: run bench --tests hosts --out {out}")
        for q, f, _, meta in _runs(out, "hosts"):
            got.setdefault(q, []).append(hosts_row(f, meta))
    rows = []
    for q, runs in got.items():
        r = [q, len(runs)]
        for c in HOSTS_COLUMNS:
            xs = [float(x[c]) for x in runs]
            r.append(
                f"{_median(xs):.3g} [{min(xs):.3g}-{max(xs):.3g}]"
                if len(xs) > 1
                else f"{xs[0]:.3g}"
            )
        rows.append(r)
    return (
        "Per-host isolation: host A one TCP flow each way, host B N flows, all BE (Mbit/s; "
        "A/B = 1 is per-host fairness, 1/N per-flow); median [min-max] over the runs\n\n"
        + _md(["qdisc", "runs", *HOSTS_COLUMNS], rows)
    )


def tables(out: Path, tests: list[str]) -> str:
    """Markdown tables of every test, computed from the runs' flows.csv and rtt.csv."""
    import numpy as np

    parts = []
    s = json.loads((out / tests[0] / "study.json").read_text())["testbed"]
    parts.append(
        f"Bottleneck {s['rate_kbit'] / 1000:g} Mbit/s each way, base RTT {s['rtt_ms']} "
        f"ms, {s['duration_s']} s per test.\n"
    )
    if "rrul" in tests:
        classes = ["EF", "CS5", "BE", "CS1"]
        rows, lat = [], []
        for q, f, rtt, meta in _runs(out, "rrul"):
            up = [_mbps(f, type=f"up-{c}") for c in classes]
            down = [_mbps(f, type=f"down-{c}") for c in classes]
            rows.append([q, *up, sum(up), *down, sum(down), meta["testbed"]["guest_idle"]])
            r = [q]
            for c in ("EF", "BE", "CS1"):
                ids = f[(f["type"] == f"irtt-{c}") & (f["direction"] == "up")]["flow_id"]
                x = rtt[rtt["flow_id"].isin(ids)]["rtt_s"].to_numpy() * 1000
                g = f[f["type"] == f"irtt-{c}"]
                loss = g["lost_packets"].sum() / max(g["tx_packets"].sum(), 1) * 100
                jit = g["jitter_sum_s"].sum() / max((g["rx_packets"] - 1).clip(lower=0).sum(), 1)
                r += [
                    float(np.median(x)) if len(x) else float("nan"),
                    float(np.percentile(x, 99)) if len(x) else float("nan"),
                    float(loss),
                    jit * 1000,
                ]
            lat.append(r)
        parts.append("### RRUL-like: TCP goodput per class (Mbit/s)\n")
        parts.append(
            _md(
                [
                    "qdisc",
                    *(f"up {c}" for c in classes),
                    "up total",
                    *(f"down {c}" for c in classes),
                    "down total",
                    "guest idle",
                ],
                rows,
            )
        )
        parts.append(
            "\n### RRUL-like: irtt (20 ms, 172 B) RTT median / p99 (ms), loss (%), "
            "one-way jitter (ms)\n"
        )
        hdr = ["qdisc"]
        for c in ("EF", "BE", "CS1"):
            hdr += [f"{c} med", f"{c} p99", f"{c} loss", f"{c} jitter"]
        parts.append(_md(hdr, lat))
    if "shares" in tests:
        rows = []
        for q, f, _, _ in _runs(out, "shares"):
            cls = ["CS1", "BE", "CS5"]
            tot = [_mbps(f, type=f"one-{c}") + _mbps(f, type=f"ten-{c}") for c in cls]
            all_ = sum(tot) or float("nan")
            r = [q, *tot, *(x / all_ for x in tot)]
            for c in cls:
                g = f[f["type"].isin([f"one-{c}", f"ten-{c}"])]
                per = list(g["rx_bytes"] * 8 / g["active_s"])
                one = _mbps(f, type=f"one-{c}")
                r += [jain(per), one / (_mbps(f, type=f"ten-{c}") / 10 or float("nan"))]
            rows.append(r)
        parts.append("\n### Class shares: 1 + 10 TCP uploads in each of CS1, BE, CS5\n")
        parts.append(
            _md(
                [
                    "qdisc",
                    "CS1 Mbit/s",
                    "BE Mbit/s",
                    "CS5 Mbit/s",
                    "CS1 share",
                    "BE share",
                    "CS5 share",
                    "CS1 Jain",
                    "CS1 1-flow/avg",
                    "BE Jain",
                    "BE 1-flow/avg",
                    "CS5 Jain",
                    "CS5 1-flow/avg",
                ],
                rows,
            )
        )
    if "cubic_bbr" in tests:
        rows = []
        for q, f, _, _ in _runs(out, "cubic_bbr"):
            c, b = _mbps(f, type="cubic-BE"), _mbps(f, type="bbr-BE")
            rows.append([q, c, b, jain([c, b])])
        parts.append("\n### CUBIC against BBR, one flow each, both BE\n")
        parts.append(_md(["qdisc", "CUBIC Mbit/s", "BBR Mbit/s", "Jain"], rows))
    dos = [t for t in ("dos_same", "dos_lower", "dos_higher") if t in tests]
    if dos:
        got: dict[str, list] = {}
        for t in dos:
            for q, f, _, _ in _runs(out, t):
                got.setdefault(q, [q])
                flood = [x for x in f["type"].unique() if x.startswith("flood")]
                got[q] += [
                    _mbps(f, type="tcp-BE"),
                    _mbps(f, type=flood[0]) if flood else 0.0,
                ]
        hdr = ["qdisc"]
        for t in dos:
            where = {"dos_same": "BE", "dos_lower": "CS1", "dos_higher": "EF"}[t]
            hdr += [f"TCP (flood {where})", f"flood {where} delivered"]
        parts.append(
            "\n### Seed 001's DoS: one BE TCP flow against 10 UDP flows at 120 % of "
            "the link (Mbit/s)\n"
        )
        parts.append(_md(hdr, list(got.values())))
    if "hosts" in tests:
        rows = [
            [q, *(hosts_row(f, meta)[c] for c in HOSTS_COLUMNS)]
            for q, f, _, meta in _runs(out, "hosts")
        ]
        parts.append(
            "\n### Per-host isolation: host A one TCP flow each way, host B N flows, all BE "
            "(Mbit/s; A/B = 1 is per-host fairness, 1/N per-flow)\n"
        )
        parts.append(_md(["qdisc", *HOSTS_COLUMNS], rows))
    return "\n".join(parts)


def plots(out: Path, tests: list[str]) -> None:
    """RTT CDF per class (rrul) and goodput per class and flow (rrul, shares) as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    if "rrul" in tests:
        runs = list(_runs(out, "rrul"))
        fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
        for ax, c in zip(axes, ("EF", "BE", "CS1"), strict=False):
            for q, f, rtt, _ in runs:
                ids = f[(f["type"] == f"irtt-{c}") & (f["direction"] == "up")]["flow_id"]
                x = np.sort(rtt[rtt["flow_id"].isin(ids)]["rtt_s"].to_numpy() * 1000)
                if len(x):
                    ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=q)
            ax.set_title(f"irtt RTT, {c}")
            ax.set_xlabel("RTT (ms)")
            ax.set_xscale("log")
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("CDF")
        axes[0].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "rrul-rtt-cdf.png", dpi=110)
        plt.close(fig)
        fig, axes = plt.subplots(1, 2, figsize=(12, 4), sharey=True)
        classes = ["EF", "CS5", "BE", "CS1"]
        for ax, direction in zip(axes, ("up", "down"), strict=False):
            w = 0.8 / len(runs)
            for k, (q, f, _, _) in enumerate(runs):
                ax.bar(
                    np.arange(4) + k * w,
                    [_mbps(f, type=f"{direction}-{c}") for c in classes],
                    w,
                    label=q,
                )
            ax.set_xticks(np.arange(4) + 0.4 - w / 2, classes)
            ax.set_title(f"RRUL-like TCP goodput per class, {direction}load")
            ax.set_ylabel("Mbit/s")
        axes[0].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "rrul-goodput.png", dpi=110)
        plt.close(fig)
    if "shares" in tests:
        runs = list(_runs(out, "shares"))
        fig, axes = plt.subplots(1, len(runs), figsize=(3 * len(runs), 4), sharey=True)
        for ax, (q, f, _, _) in zip(np.atleast_1d(axes), runs, strict=False):
            pos = 0
            for c, col in (
                ("CS1", "tab:blue"),
                ("BE", "tab:green"),
                ("CS5", "tab:red"),
            ):
                g = f[f["type"].isin([f"one-{c}", f"ten-{c}"])].sort_values("type")
                v = (g["rx_bytes"] * 8 / g["active_s"] / 1e6).to_numpy()
                ax.bar(np.arange(pos, pos + len(v)), v, color=col, label=c)
                pos += len(v) + 1
            ax.set_title(q)
            ax.set_xticks([])
        np.atleast_1d(axes)[0].set_ylabel("goodput per flow (Mbit/s)")
        np.atleast_1d(axes)[0].legend(fontsize=8)
        fig.suptitle("Class shares: goodput per flow (first bar of a class: the single flow)")
        fig.tight_layout()
        fig.savefig(out / "shares-goodput.png", dpi=110)
        plt.close(fig)


# ---------------------------------------------------------------------------------------------
# cost: per-packet CPU cost of the qdisc alone, in the stock kernel (make bench-linux-cost)

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
    # a mode with words per direction is measured with its upstream words
    **{q: ("clear", f"msfc {msfc_args(q, 'up')}") for q in MSFC_MODES},
}
COST_BASE = "fq_codel"  # the ratios' denominator
COST_MAX_FLOWS = 65535 - 10000  # the probe gives flow n the UDP source port 10000 + n
# The guest's clock stays the TSC: under emulation the clocksource watchdog may otherwise
# switch to the HPET in the middle of a run (a read then costs several times more).
COST_APPEND = "clocksource=tsc tsc=reliable"
# perf (Debian's linux-perf) and the libraries it loads go into the job of a profiled run.
PERF = Path("/usr/bin/perf")


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


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    if not xs:
        return float("nan")
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else (xs[m - 1] + xs[m]) / 2


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
    from . import runner

    out = Path(args.out)
    qdiscs = args.qdiscs.split(",")
    for q in qdiscs:
        if q not in COST_QDISCS:
            raise TestbedError(f"unknown qdisc {q}: choose from {', '.join(COST_QDISCS)}")
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
    profile = [q for q in args.profile.split(",") if q]
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


def main(argv: list[str] | None = None, prog: str = "python -m msfc.testbed") -> int:
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
    p.add_argument("--qdiscs", default=",".join(COST_QDISCS))
    p.add_argument("--flows", default="1,64,1024", help="flow counts, comma-separated")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds (after a warm-up)")
    p.add_argument(
        "--batches", type=int, default=200, help="batches of 256 packets per measurement"
    )
    p.add_argument(
        "--profile",
        default="msfc,fq_codel,cake",
        help="qdiscs to profile with perf after the measurements ('' for none)",
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
