"""Boot the project's UML kernel in time-travel mode on the Debian 13 root tree, run a job.

The kernel runs with ``time-travel=inf-cpu``: CPU time is free and the clock moves only with
timers, so what a job measures does not depend on the host's load.  The root tree is the
Debian 13 tree of ``make -C kernel uml-root`` over hostfs; the project's ``kernel/`` directory
(job scripts, the project's tc) is mounted at /msfc/kdir and the job directory at /job.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
KDIR = REPO / "kernel"
KERNEL = KDIR / "build" / "uml" / "linux"
ROOT = KDIR / "build" / "uml-root"
INIT = KDIR / "test" / "uml_testbed_init.sh"
TC = KDIR / "build" / "iproute2-src" / "iproute2-6.1.0" / "tc" / "tc"
SHIM_SRC = KDIR / "test" / "uml_fixed_random.c"
SHIM = KDIR / "build" / "uml_fixed_random.so"
#: the guest mounts the job directory through this symlink, so that the kernel command line
#: (which the kernel mixes into its RNG) is the same whatever the output directory; a lock
#: beside it lets one boot at a time use it
JOB_LINK = KDIR / "build" / "uml-job"
#: the private mount namespace a boot runs in when it can (sandboxed()): the root tree, the
#: kernel/ directory and the job directory appear at SANDBOX_BASE/root, /kdir and /job
SANDBOX = KDIR / "test" / "uml_sandbox.sh"
SANDBOX_BASE = "/run/msfc-uml"
READY_MARK = "msfc-uml: up"
EXIT_MARK = "msfc-uml: job exit "
#: the guest's wall clock at boot in a seeded run (time-travel-start=, ns): 2026-01-01 00:00 UTC;
#: the kernel mixes the wall clock into its RNG, and programs print and seed from it
START_NS = 1767225600 * 10**9
#: the guest's memory: Flent's Python processes and netperf fit in well under this
MEM = "1G"


class MachineError(Exception):
    """A boot that could not run or did not finish: the message names the problem and the fix."""


@dataclass
class JobResult:
    wall_seconds: float
    files: dict[str, bytes]  # the job's /job/out, by relative path
    log: str  # the kernel's console
    exit_code: int | None  # the job script's, None when the boot never got there
    files_meta: dict = field(default_factory=dict)

    def text(self, name: str) -> str:
        return self.files.get(name, b"").decode("utf-8", "replace")


def check_ready(kernel: Path = KERNEL, root: Path = ROOT, kdir: Path = KDIR) -> None:
    """Raise MachineError naming the make target that builds what is missing."""
    if not Path(kernel).is_file():
        raise MachineError(f"no UML kernel at {kernel}: run `make -C kernel kernel`")
    if not (Path(root) / ".msfc-root").is_file():
        raise MachineError(f"no Debian 13 root tree at {root}: run `make -C kernel uml-root`")
    tc = Path(kdir) / TC.relative_to(KDIR)
    if not tc.is_file():
        raise MachineError(f"no project tc at {tc}: run `make -C kernel tc`")
    for p in (kernel, root, kdir):
        if any(c.isspace() for c in str(Path(p).resolve())):
            raise MachineError(f"{p}: a path with white space cannot go on the kernel command line")


#: directories a boot would otherwise create in the root tree: the init's mount points, and
#: /run/mount, where mount(8) takes its lock before /run is a tmpfs.  A boot that creates them
#: runs a different path through the kernel than every later boot, and that shifts timings by
#: microseconds, enough for TCP to take another course; so they exist before the first boot
TREE_DIRS = ("msfc/kdir", "job", "run/mount", "dev/shm")


_INIT_LOCK = threading.Lock()


def _install_init(root: Path) -> None:
    """Put the init and TREE_DIRS into the root tree.  Boots started side by side on a new
    tree both find the init missing: the copy goes through a temporary file and a rename, so
    that no guest can read a half-written init."""
    with _INIT_LOCK:
        for d in TREE_DIRS:
            (root / d).mkdir(parents=True, exist_ok=True)
        dst = root / "msfc" / "init.sh"
        if not dst.is_file() or dst.read_bytes() != INIT.read_bytes():
            tmp = dst.with_name(f".init.sh.{os.getpid()}.tmp")
            shutil.copyfile(INIT, tmp)
            tmp.chmod(0o755)
            os.replace(tmp, dst)


_SHIM_LOCK = threading.Lock()


def fixed_random_shim() -> Path:
    """The LD_PRELOAD library that gives UML a fixed random stream (built with the host's gcc
    into kernel/build/ when missing or older than its source; boots started side by side
    build it once)."""
    with _SHIM_LOCK:
        return _build_shim()


def _build_shim() -> Path:
    if not SHIM.is_file() or SHIM.stat().st_mtime < SHIM_SRC.stat().st_mtime:
        SHIM.parent.mkdir(parents=True, exist_ok=True)
        tmp = SHIM.with_name(f".{SHIM.name}.{os.getpid()}.tmp")
        r = subprocess.run(
            ["gcc", "-O2", "-Wall", "-shared", "-fPIC", "-o", str(tmp), str(SHIM_SRC)],
            capture_output=True,
            text=True,
            check=False,
        )
        if r.returncode != 0:
            raise MachineError(f"cannot build {SHIM} with gcc: {r.stderr.strip()[:300]}")
        os.replace(tmp, SHIM)
    return SHIM


def argv(kernel: Path, root: Path, kdir: Path, job: Path, extra: list[str] | None = None):
    """The UML command line of one boot."""
    return [
        str(kernel),
        f"mem={MEM}",
        "rootfstype=hostfs",
        f"rootflags={root}",
        "rw",
        "con=null",
        "con0=fd:0,fd:1",
        "time-travel=inf-cpu",
        "init=/msfc/init.sh",
        f"MSFC_KDIR={kdir}",
        f"MSFC_JOB={job}",
        *(extra or []),
    ]


def run_job(
    script: str,
    job: Path,
    *,
    kernel: Path = KERNEL,
    root: Path = ROOT,
    kdir: Path = KDIR,
    timeout: float = 600,
    seed: int | None = 1,
) -> JobResult:
    """Boot once with ``script`` as /job/run.sh; the guest writes into ``job``/out (emptied
    first), which is returned with the console log (also kept as ``job``/boot.log).
    ``seed``: the fixed host random stream UML gets (uml_fixed_random.c); None: the host's
    own getrandom() (every boot different)."""
    kernel, root, kdir, job = (Path(p).resolve() for p in (kernel, root, kdir, job))
    check_ready(kernel, root, kdir)
    _install_init(root)
    job.mkdir(parents=True, exist_ok=True)
    out = job / "out"
    shutil.rmtree(out, ignore_errors=True)
    (job / "run.sh").write_text(script)
    log_path = job / "boot.log"
    t0 = time.monotonic()
    env = dict(os.environ)
    if seed is not None:
        env["LD_PRELOAD"] = str(fixed_random_shim())
        env["MSFC_UML_SEED"] = str(seed)
    extra = [f"time-travel-start={START_NS}"] if seed is not None else None
    # UML keeps its umid directory under $HOME/.uml
    with open(log_path, "wb") as log:
        if sandboxed(kdir):
            base = Path(SANDBOX_BASE)
            cmd = [
                str(Path(kdir) / SANDBOX.relative_to(KDIR)),
                str(root),
                str(kdir),
                str(job),
                *argv(kernel, base / "root", base / "kdir", base / "job", extra),
            ]
            _boot(cmd, env, log, job, timeout, log_path)
        else:
            link = Path(kdir) / JOB_LINK.relative_to(KDIR)
            link.parent.mkdir(parents=True, exist_ok=True)
            with open(link.with_name(link.name + ".lock"), "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                tmp = link.with_name(f".{link.name}.tmp")
                tmp.unlink(missing_ok=True)
                tmp.symlink_to(job)
                os.replace(tmp, link)
                _boot(argv(kernel, root, kdir, link, extra), env, log, job, timeout, log_path)
    wall = time.monotonic() - t0
    text = log_path.read_text(errors="replace")
    code = None
    for ln in text.splitlines():
        if EXIT_MARK in ln:
            code = int(ln.split(EXIT_MARK)[1].split()[0])
    if READY_MARK not in text:
        raise MachineError(f"the UML guest never ran its init: see {log_path}")
    files = {str(f.relative_to(out)): f.read_bytes() for f in sorted(out.rglob("*")) if f.is_file()}
    return JobResult(
        round(wall, 3),
        files,
        text,
        code,
        {"boot_wall_seconds": round(wall, 3), "kernel": _kernel_of(text)},
    )


def _boot(cmd: list[str], env: dict, log, job: Path, timeout: float, log_path: Path) -> None:
    try:
        subprocess.run(
            cmd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=job,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as e:
        raise MachineError(
            f"the UML boot did not finish within {timeout:.0f} s: see {log_path}"
        ) from e


_SANDBOX_OK: dict[str, bool] = {}


def sandboxed(kdir: Path = KDIR) -> bool:
    """Whether boots run in kernel/test/uml_sandbox.sh's mount namespace (root can make one):
    then every boot sees its directories at the same paths and any number run at once;
    otherwise boots take turns on the symlink JOB_LINK, and the checkout's location enters
    the kernel's command line (docs/linux-testbed.md, "Determinism")."""
    key = str(kdir)
    if key not in _SANDBOX_OK:
        script = Path(kdir) / SANDBOX.relative_to(KDIR)
        r = subprocess.run(
            [str(script), "/", "/", "/", "true"], capture_output=True, text=True, check=False
        )
        _SANDBOX_OK[key] = r.returncode == 0
    return _SANDBOX_OK[key]


def _kernel_of(log: str) -> str:
    for ln in log.splitlines():
        if READY_MARK in ln and "kernel " in ln:
            return ln.split("kernel ")[1].split(",")[0]
    return "?"
