"""Linux testbed: Debian's stock kernel under qemu, sch_msfc built by DKMS, Debian's tc.

The guest is the distribution's kernel image booted with an initramfs the project builds
(``kernel/vm/mkinitramfs.sh``: busybox, Debian's tc/ip/iperf3/irtt, the tc plugin q_msfc.so,
the DKMS-installed sch_msfc and the kernel's own qdisc modules). A job is a shell script from
``kernel/vm/guest/`` appended as a second cpio archive; the guest writes its machine-readable
output (tc -j, iperf3 -J, irtt -o json, /proc/stat) into /out, which ``/init`` stores as a tar
archive on a virtio disk. This module boots, reads that archive and turns it into checks
(``selftest``) or into the project's raw result format (``bench``, docs/data-format.md).

    python -m msfc.testbed selftest --kernel VMLINUZ --initrd BASE.cpio.gz --guest-dir DIR
    python -m msfc.testbed bench --kernel VMLINUZ --initrd BASE.cpio.gz --guest-dir DIR --out DIR
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

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

    def text(self, name: str) -> str:
        return self.files.get(name, b"").decode("utf-8", "replace")

    def json(self, name: str):
        raw = self.files.get(name)
        if raw is None:
            raise TestbedError(f"the guest wrote no {name} (see the boot log)")
        try:
            return json.loads(raw)
        except json.JSONDecodeError as e:
            raise TestbedError(
                f"the guest's {name} is not JSON ({e}): {raw[:200]!r}"
            ) from e


def _cpio_newc(files: dict[str, bytes]) -> bytes:
    """A gzip-compressed cpio (newc) archive of regular files and their directories."""
    out = io.BytesIO()
    ino = 1

    def entry(name: str, mode: int, data: bytes) -> None:
        nonlocal ino
        nb = name.encode() + b"\0"
        hdr = "070701" + "".join(
            f"{v:08x}"
            for v in (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(nb), 0)
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
    accel: str, kernel: Path, initrd: Path, disk: Path, mem_mb: int, smp: int
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
        "console=ttyS0 quiet panic=-1",
        "-drive",
        f"file={disk},format=raw,if=virtio",
    ]


def _boot_once(accel, kernel, initrd, job, mem_mb, smp, timeout):
    with tempfile.TemporaryDirectory(prefix="msfc-vm-") as tmp:
        tmp = Path(tmp)
        initrd_all = tmp / "initrd.gz"
        with open(initrd_all, "wb") as f:
            f.write(Path(initrd).read_bytes())
            f.write(_cpio_newc(job))
        disk = tmp / "out.img"
        with open(disk, "wb") as f:
            f.truncate(256 << 20)
        argv = _qemu_argv(accel, kernel, initrd_all, disk, mem_mb, smp)
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
            log = (e.stdout or b"").decode(
                "utf-8", "replace"
            ) + f"\n[timeout after {timeout} s]"
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
) -> BootResult:
    """Boot the stock kernel with the base initramfs plus ``job`` (path -> content, must hold
    ``job/run.sh``); return the guest's /out. ``accel`` auto tries KVM once (remembered in
    ``accel_cache``) and falls back to software emulation (TCG)."""
    if shutil.which(QEMU) is None:
        raise TestbedError(
            f"{QEMU} not found: install qemu-system-x86 (make -C kernel vm-deps)"
        )
    for f in (kernel, initrd):
        if not Path(f).is_file():
            raise TestbedError(f"{f} does not exist: run make -C kernel vm-image")
    if accel == "auto":
        accel = _probe_accel(kernel, initrd, mem_mb, accel_cache)
    res = _boot_once(accel, kernel, initrd, job, mem_mb, smp, timeout)
    if "job.rc" not in res.files:
        tail = "\n".join(res.log.splitlines()[-15:])
        raise TestbedError(
            f"the VM ({accel}) did not finish its job; last lines:\n{tail}"
        )
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
            first = (
                re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b.", "", lines[0]).strip()
                if lines
                else ""
            )
            why = "KVM boot failed: " + (first or "no job output")
    print(f"testbed: accelerator {accel} ({why})", file=sys.stderr)
    if cache:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps({"kernel": key, "accel": accel, "why": why}) + "\n")
    return accel


def _job(
    guest_dir: Path, script: str, env: dict[str, str] | None = None
) -> dict[str, bytes]:
    lines = "".join(f"export {k}={v}\n" for k, v in (env or {}).items())
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
        print(
            f"  {'ok  ' if ok else 'FAIL'} {what}" + (f": {detail}" if detail else "")
        )
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
        ""
        if rc == "0"
        else f"exit {rc or 'missing'}: {res.text(step + '.err').strip()[:300]}",
    )


def _rejected(res: BootResult, c: Checks, step: str, what: str, expect: str) -> None:
    rc = res.text(f"{step}.rc").strip()
    err = res.text(f"{step}.err").strip()
    c.check(
        rc not in ("", "0") and expect in err,
        what,
        f"exit {rc}, stderr {err[:300]!r}, expected {expect!r}",
    )


def class_goodput_bps(report: dict) -> float:
    """Receiver goodput of one iperf3 -J client run (all its parallel streams)."""
    end = report.get("end", {})
    if "sum_received" not in end:
        raise TestbedError(
            f"iperf3 report without end.sum_received: {report.get('error', '?')}"
        )
    return float(end["sum_received"]["bits_per_second"])


def selftest(args) -> int:
    guest = Path(args.guest_dir)
    env = {"RATE": str(args.rate_kbit), "DURATION": str(args.duration)}
    t0 = time.monotonic()
    res = boot(
        Path(args.kernel),
        Path(args.initrd),
        _job(guest, "selftest.sh", env),
        accel=args.accel,
        smp=1,
        timeout=args.timeout,
        accel_cache=Path(args.accel_cache) if args.accel_cache else None,
    )
    kver = next(
        (
            ln.split("kernel ")[1].split(",")[0]
            for ln in res.log.splitlines()
            if READY_MARK in ln
        ),
        "?",
    )
    print(
        f"testbed selftest: kernel {kver}, {res.accel}, boot + job {res.wall_seconds:.1f} s"
    )
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
        _msfc_opts(res.json("show_add.out"))
        if _step_ok(res, c, "show_add", "tc -j show")
        else {}
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
        "Error: target must be at least 2 us and below interval",
    )
    _rejected(
        res,
        c,
        "bad_quanta",
        "class quantum over 2^40 rejected with the kernel's message",
        "Error: quantum * ratio^(prios-1) exceeds 2^40 bytes",
    )
    _rejected(
        res, c, "bad_ratio", "ratio 17 rejected by tc's plugin", '"ratio" must be'
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
        detail = ", ".join(f"{s:.3f} (want {w:.3f})" for s, w in zip(shares, want))
        c.check(
            all(abs(s - w) <= 0.15 * w for s, w in zip(shares, want)),
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
        not _msfc_opts(res.json("show_del.out"))
        and "msfc" not in res.text("show_del.out"),
        "msfc gone after delete",
    )
    _step_ok(res, c, "rmmod", "rmmod sch_msfc")
    print(
        f"testbed selftest: {c.count - len(c.failed)}/{c.count} checks passed "
        f"({time.monotonic() - t0:.0f} s)"
    )
    if c.failed:
        log = Path(args.log) if args.log else None
        if log:
            log.write_text(res.log + "\n--- job.log ---\n" + res.text("job.log"))
            print(f"testbed selftest: FAILED: {', '.join(c.failed)} (boot log: {log})")
        return 1
    return 0


def _vm_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kernel", required=True, help="the stock kernel image (vmlinuz)")
    p.add_argument(
        "--initrd", required=True, help="base initramfs (kernel/vm/mkinitramfs.sh)"
    )
    p.add_argument("--guest-dir", required=True, help="kernel/vm/guest")
    p.add_argument("--accel", choices=["auto", "kvm", "tcg"], default="auto")
    p.add_argument(
        "--accel-cache", help="file remembering the result of the KVM attempt"
    )
    p.add_argument("--timeout", type=float, default=600, help="seconds per boot")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m msfc.testbed", description=__doc__.split("\n")[0]
    )
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("selftest", help="the stock-kernel checks of make test")
    _vm_args(p)
    p.add_argument("--rate-kbit", type=int, default=4000)
    p.add_argument(
        "--duration", type=int, default=7, help="seconds of traffic (2 s warm-up)"
    )
    p.add_argument("--log", help="where to write the boot log on failure")
    args = ap.parse_args(argv)
    try:
        if args.command == "selftest":
            return selftest(args)
    except TestbedError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
