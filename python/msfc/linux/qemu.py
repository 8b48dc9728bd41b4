"""The qemu machine of the stock-kernel testbed: boot Debian's kernel with a job, read /out.

The guest is the distribution's kernel image booted with an initramfs the project builds
(``kernel/vm/mkinitramfs.sh``: busybox, Debian's tc/ip/iperf3/irtt, the tc plugin q_msfc.so,
the DKMS-installed sch_msfc and the kernel's own qdisc modules). A job is a shell script from
``kernel/vm/guest/`` appended as a second cpio archive; the guest writes its machine-readable
output (tc -j, iperf3 -J, irtt -o json, /proc/stat) into /out, which ``/init`` stores as a tar
archive on a virtio disk. :func:`boot` boots once (KVM when it reaches the job, software
emulation otherwise) and returns that archive's files.
"""

from __future__ import annotations

import gzip
import io
import json
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
        # no_timer_check: under software emulation on a loaded host the kernel's check that
        # the timer ticks through the IO-APIC can see too few ticks and panic at boot
        # ("IO-APIC + timer doesn't work!"); the check tests the emulator, not the qdisc
        " ".join(["console=ttyS0 quiet panic=-1 no_timer_check", append]).strip(),
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
