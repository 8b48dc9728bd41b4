"""Running one simulation into its own directory, and reading results back.

A results directory ("study") holds ``study.json`` and ``runs/<config-hash>/`` per configuration:

    runs/<hash>/config.json        what was asked (RunConfig) and the program's command line
    runs/<hash>/flows.csv ...      the raw files of docs/data-format.md, written by the program
    runs/<hash>/stderr.txt         the program's stderr (progress lines removed)
    runs/<hash>/progress.txt       "<simulated s done> <total> <UTC time>" of the latest progress
                                   line, to watch long runs (`cat runs/*/progress.txt`)
    runs/<hash>/flow_metrics.{parquet,csv}   tidy per-flow data with metrics and run metadata
    runs/<hash>/summary.{parquet,csv}        tidy per-group metrics with run metadata
    runs/<hash>/done.json          written last: the run is complete (resume skips it)
    runs/<hash>/failed.json        the last attempt failed (exit code, stderr tail); retried next time
    runs/<hash>/.lock              locked while a simulation runs into the directory
    .lock                          locked while an msfc command writes into the study

Only one writer at a time: a second msfc command on the same study, or a second simulation of a
configuration (a Dask worker still running a task of an interrupted sweep), is refused with the
holder named, rather than two programs writing the same files.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd

from ..analysis import metrics as M
from ..errors import SimulationError, UserError
from .config import RunConfig

_PROGRESS = re.compile(r"^progress\s+([0-9.eE+-]+)\s+([0-9.eE+-]+)\s*$")
RAW_FILES = ("flows.csv", "delay_hist.csv", "meta.json")
DERIVED_FILES = (
    "jitter_hist.csv",
    "qdisc.csv",
    "flow_metrics.parquet",
    "flow_metrics.csv",
    "summary.parquet",
    "summary.csv",
)


def write_json_atomic(path: Path, data) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=False, default=str) + "\n")
    os.replace(tmp, path)


def _write_table(df: pd.DataFrame, base: Path) -> None:
    """``base.parquet`` and ``base.csv``, each under a temporary name first."""
    for ext in ("parquet", "csv"):
        final = base.with_suffix("." + ext)
        tmp = final.with_name(f".{final.name}.tmp")
        if ext == "parquet":
            df.to_parquet(tmp, index=False)
        else:
            df.to_csv(tmp, index=False)
        os.replace(tmp, final)


#: raw files whose size is recorded in done.json (lines and SHA-256) and checked when read
CHECKED_FILES = (
    "flows.csv",
    "delay_hist.csv",
    "jitter_hist.csv",
    "qdisc.csv",
    "meta.json",
    # the scenarios' extra raw files that msfc report reads (docs/data-format.md)
    "class_series.csv",
    "timeseries.csv",
    "class_timeseries.csv",
    "qdelay.csv",
)
#: a simulation ended by one of these signals was interrupted (Ctrl-C, kill), not failed
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
LOCK_FILE = ".lock"


class Interrupted(SimulationError):
    """The simulation was stopped by a signal (Ctrl-C, SIGTERM), or not started because msfc is
    stopping: nothing is wrong with its configuration. ``argv`` is empty when it never started."""


# Ctrl-C and SIGTERM stop the whole command: no simulation starts any more and the running ones
# are stopped (msfc.cli's signal handler calls request_stop). Without this, a thread pool would
# start and finish every queued simulation before the interrupted command could exit.
_STOP = threading.Event()
_RUNNING: set = set()  # the Popen of every simulation running now
_RUNNING_LOCK = threading.RLock()  # re-entrant: request_stop runs in a signal handler


def request_stop(force: bool = False) -> None:
    """Stop: simulations not yet started are not started, running ones get SIGTERM (SIGKILL
    with ``force``: a second Ctrl-C)."""
    _STOP.set()
    with _RUNNING_LOCK:
        procs = list(_RUNNING)
    for p in procs:
        with contextlib.suppress(OSError):
            p.kill() if force else p.terminate()


_COOPERATIVE = threading.local()


@contextlib.contextmanager
def cooperative_stop():
    """While this is held, a first Ctrl-C or SIGTERM only requests the stop (msfc.cli's handler
    does not raise KeyboardInterrupt): the code inside sees every simulation end, stopped or
    not started, and says which finished. A second signal raises as usual."""
    depth = getattr(_COOPERATIVE, "depth", 0)
    _COOPERATIVE.depth = depth + 1
    try:
        yield
    finally:
        _COOPERATIVE.depth = depth


def stops_cooperatively() -> bool:
    """Whether the main thread is inside cooperative_stop() (signal handlers run there)."""
    return getattr(_COOPERATIVE, "depth", 0) > 0


def reset_stop() -> None:
    """A new command starts (msfc.cli.main, also called several times in one process)."""
    _STOP.clear()


#: files of a run directory that survive an interrupted simulation: what was asked and what the
#: program said; everything else it wrote is removed, so nothing half-written looks like a result
_KEPT_WHEN_INTERRUPTED = ("config.json", "stderr.txt", "stdout.txt", LOCK_FILE)


def _discard_partial(d: Path) -> None:
    """Remove what an interrupted simulation wrote (raw files, tables, progress): without
    done.json the run is not finished, and the same command runs it again."""
    for f in Path(d).iterdir():
        if f.name not in _KEPT_WHEN_INTERRUPTED and (f.is_file() or f.is_symlink()):
            with contextlib.suppress(OSError):
                f.unlink()


class Busy(SimulationError):
    """Another process is running the same configuration into the same directory."""


@contextlib.contextmanager
def _exclusive(d: Path, holder: dict, busy):
    """Hold an exclusive lock on ``d/.lock`` (which then names ``holder``); when another process
    holds it, raise ``busy(what the lock file says of its holder)``. The lock goes with the
    process: a killed holder leaves no stale lock behind."""
    f = Path(d) / LOCK_FILE
    fd = os.open(f, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                other = json.loads(f.read_text() or "{}")
            except (OSError, ValueError):
                other = {}
            raise busy(other) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(holder) + "\n").encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # releases the lock


def _holder(**extra) -> dict:
    import socket

    return {"pid": os.getpid(), "host": socket.gethostname(), "since_utc": _utc(), **extra}


def _who(h: dict) -> str:
    parts = []
    if h.get("pid"):
        parts.append(f"pid {h['pid']}" + (f" on {h['host']}" if h.get("host") else ""))
    if h.get("command"):
        parts.append(f"`{h['command']}`")
    if h.get("since_utc"):
        parts.append(f"since {h['since_utc']}")
    return ", ".join(parts) or "holder unknown"


def lock_study(out_root: Path, command: str):
    """Context: this command is the only msfc command writing into the study ``out_root``
    (created if missing). A second one is refused with a UserError naming the first."""

    def busy(h: dict) -> UserError:
        return UserError(
            f"{out_root} is in use by another msfc command ({_who(h)}); two commands writing "
            f"the same results would damage them. Wait for it to finish (or stop it), or give "
            f"--out another directory",
            1,
        )

    Path(out_root).mkdir(parents=True, exist_ok=True)
    return _exclusive(Path(out_root), _holder(command=command), busy)


def run_dir(out_root: Path, cfg: RunConfig) -> Path:
    return Path(out_root) / "runs" / cfg.hash()


def file_record(path: Path) -> dict:
    """Lines and SHA-256 of a file, to notice later that it was truncated or changed."""
    h = hashlib.sha256()
    lines = 0
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
            lines += chunk.count(b"\n")
    return {"lines": lines, "sha256": h.hexdigest()}


def raw_problem(d: Path) -> str | None:
    """What is wrong with a finished run's raw files (missing, truncated or changed since
    done.json recorded them: lines and SHA-256); None when they are as written. Runs finished before done.json
    recorded files are not checked."""
    try:
        done = json.loads((d / "done.json").read_text())
    except (OSError, json.JSONDecodeError):
        return "its done.json is missing or damaged"
    for name, rec in (done.get("files") or {}).items():
        f = d / name
        if not f.exists():
            return f"{name} is missing"
        now = file_record(f)
        if now != rec:
            return (
                f"{name} has {now['lines']} lines, {rec.get('lines')} when the run finished"
                if now["lines"] != rec.get("lines")
                else f"{name} has changed since the run finished (SHA-256 differs)"
            )
    return None


def damaged(d: Path, problem: str) -> UserError:
    return UserError(
        f"the results in {d} are damaged: {problem} (truncated or edited?). Run it again: "
        f"repeat the command with --force, or delete {d} and repeat the command",
        1,
    )


def is_done(d: Path, cfg: RunConfig | None = None) -> bool:
    f = d / "done.json"
    if not f.exists() or not all((d / x).exists() for x in RAW_FILES):
        return False
    if cfg is None:
        return True
    try:
        return json.loads(f.read_text()).get("hash") == cfg.hash()
    except (OSError, json.JSONDecodeError):
        return False


def id_columns(cfg: RunConfig, meta: dict | None = None) -> dict:
    """Columns identifying a run in tidy tables: scenario, scheduler, rng_run, hash, options."""
    cols = {
        "scenario": cfg.scenario,
        "scheduler": cfg.scheduler,
        "rng_run": cfg.rng_run,
        "config_hash": cfg.hash(),
        "preset": cfg.preset or "",
    }
    for k, v in cfg.resolved.items():
        if k != "scheduler":
            # an option this run's scheduler does not use (MSFC's ratio under FQ-CoDel): empty
            cols[f"cfg.{k}"] = None if k in cfg.unused else v
    for k, v in cfg.attrs.items():
        cols[f"attr.{k}"] = v
    if meta:
        for k in (
            "wall_seconds",
            "cpu_seconds",
            "sim_seconds",
            "events",
            "ns3_version",
            "msfc_version",
            "rng_seed",
        ):
            if k in meta:
                cols[f"meta.{k}"] = meta[k]
    return cols


def load_raw(d: Path) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    try:
        flows = pd.read_csv(d / "flows.csv")
        hist = pd.read_csv(d / "delay_hist.csv")
        meta = json.loads((d / "meta.json").read_text())
    except (OSError, ValueError) as e:
        raise UserError(f"cannot read the results in {d}: {e}", 1) from None
    missing = [c for c in M.FLOW_COLUMNS if c not in flows.columns]
    if missing:
        raise UserError(
            f"{d / 'flows.csv'} lacks the columns {', '.join(missing)} (see docs/data-format.md)", 1
        )
    flows["type"] = flows["type"].astype(str)
    return flows, hist, meta


def postprocess(d: Path, cfg: RunConfig, *, rebuild: bool = False) -> None:
    """Tidy tables from the raw files, then ``done.json``, which records the raw files as they
    are now. ``rebuild``: only the tables are made again (new metric definitions); done.json
    keeps its record of the files from when the run finished, so edits since are still noticed."""
    flows, hist, meta = load_raw(d)
    ids = id_columns(cfg, meta)
    fm = M.flow_metrics(flows)
    for i, (k, v) in enumerate(ids.items()):
        fm.insert(i, k, v)
    _write_table(fm, d / "flow_metrics")
    summ = pd.concat(
        [M.summarize(flows, hist, dirn) for dirn in ("down", "up", "all")], ignore_index=True
    )
    for i, (k, v) in enumerate(ids.items()):
        summ.insert(i, k, v)
    _write_table(summ, d / "summary")
    try:
        previous = json.loads((d / "done.json").read_text()) if rebuild else {}
    except (OSError, json.JSONDecodeError):
        previous = {}
    files = previous.get("files") or {
        x: file_record(d / x) for x in CHECKED_FILES if (d / x).exists()
    }
    write_json_atomic(
        d / "done.json",
        {
            "hash": cfg.hash(),
            "finished_utc": previous.get("finished_utc") or _utc(),
            "wall_seconds": meta.get("wall_seconds"),
            "tables_version": M.TABLES_VERSION,
            "files": files,
        },
    )
    f = d / "failed.json"
    if f.exists():
        f.unlink()


TIDY_FILES = ("summary.parquet", "flow_metrics.parquet")


def refresh_derived(d: Path) -> None:
    """Rebuild a finished run's tables from its raw files when the metric definitions changed
    since they were made or the tables are missing (the simulation is not run again)."""
    try:
        done = json.loads((d / "done.json").read_text())
        cfg = RunConfig.from_json(json.loads((d / "config.json").read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return
    if done.get("tables_version") != M.TABLES_VERSION or not all(
        (d / x).exists() for x in TIDY_FILES
    ):
        postprocess(d, cfg, rebuild=True)


def _utc() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _write_progress(d: Path, done: str, total: str) -> None:
    tmp = d / "progress.txt.tmp"
    tmp.write_text(f"{done} {total} {_utc()}\n")
    tmp.replace(d / "progress.txt")


def run_simulation(
    program: Path,
    cfg: RunConfig,
    out_root: Path,
    *,
    on_progress=None,
    force: bool = False,
    timeout: float | None = None,
) -> tuple[Path, bool]:
    """Run one configuration unless it is already done. Returns (run dir, ran?).

    Raises SimulationError when the program fails (its directory then holds failed.json).
    """
    d = run_dir(out_root, cfg)
    if not force and is_done(d, cfg):
        problem = raw_problem(d)
        if problem is None:
            return d, False
        print(f"msfc: {d}: {problem}; running it again", file=sys.stderr, flush=True)
    if _STOP.is_set():
        raise Interrupted(f"scenario-{cfg.scenario} not started: msfc is stopping", -1, "", [])
    d.mkdir(parents=True, exist_ok=True)

    def busy(h: dict) -> Busy:
        why = (
            f"another process is running this configuration into {d} ({_who(h)}): an msfc "
            f"command, or a Dask worker still running a task of an interrupted sweep. Wait for it "
            f"to finish (or stop it), then repeat the command"
        )
        return Busy(f"scenario-{cfg.scenario} not started: {why}", -1, why, [])

    with _exclusive(d, _holder(config=cfg.hash()), busy):
        return _run_in(program, cfg, d, on_progress=on_progress, timeout=timeout)


def _run_in(
    program: Path, cfg: RunConfig, d: Path, *, on_progress, timeout: float | None
) -> tuple[Path, bool]:
    """run_simulation's work, with the run directory locked."""
    # leftovers of an earlier, unfinished attempt must not be mistaken for this run's output
    for stale in ("done.json",) + RAW_FILES + DERIVED_FILES:
        if (d / stale).exists():
            (d / stale).unlink()
    argv = cfg.argv(program, d)
    write_json_atomic(d / "config.json", {**cfg.to_json(), "argv": argv, "program": str(program)})
    tail: collections.deque[str] = collections.deque(maxlen=40)
    with open(d / "stderr.txt", "w") as err_log, open(d / "stdout.txt", "w") as out_log:
        try:
            proc = subprocess.Popen(
                argv, stdout=out_log, stderr=subprocess.PIPE, text=True, bufsize=1
            )
        except OSError as e:
            raise SimulationError(f"cannot start {program}: {e}", -1, str(e), argv) from None
        with _RUNNING_LOCK:
            _RUNNING.add(proc)
        if _STOP.is_set():  # stopped between the check in run_simulation and now
            proc.terminate()
        killed = threading.Event()

        def on_timeout():
            killed.set()
            proc.kill()

        watchdog = threading.Timer(timeout, on_timeout) if timeout else None
        if watchdog:
            watchdog.daemon = True
            watchdog.start()
        try:
            assert proc.stderr is not None
            for line in proc.stderr:
                m = _PROGRESS.match(line)
                if m:
                    _write_progress(d, m.group(1), m.group(2))
                    if on_progress:
                        on_progress(float(m.group(1)), float(m.group(2)))
                    continue
                err_log.write(line)
                tail.append(line.rstrip("\n"))
            rc = proc.wait()
        except BaseException:  # Ctrl-C or SIGTERM in this thread: stop, keep nothing half-written
            proc.kill()
            proc.wait()
            _discard_partial(d)
            raise
        finally:
            with _RUNNING_LOCK:
                _RUNNING.discard(proc)
            if watchdog:
                watchdog.cancel()
        if killed.is_set():
            tail.append(
                f"(killed: the simulation ran longer than the time limit of {timeout:g} s; "
                f"raise --timeout or shorten the run)"
            )
    finished = rc == 0 and all((d / x).exists() for x in RAW_FILES)
    if not killed.is_set() and (
        -rc in _STOP_SIGNALS or rc - 128 in _STOP_SIGNALS or (_STOP.is_set() and not finished)
    ):
        # stopped from outside (Ctrl-C reaches the whole process group, SIGTERM reaches msfc,
        # which stops its simulations): not a failure of this configuration, and nothing of it
        # is kept; the same command runs it again
        _discard_partial(d)
        raise Interrupted(
            f"scenario-{cfg.scenario} was interrupted (signal)", rc, "\n".join(tail), argv
        )
    if rc != 0 or not all((d / x).exists() for x in RAW_FILES):
        stderr_tail = "\n".join(tail)
        if rc == 0:
            stderr_tail += (
                "\n(the program exited 0 but did not write "
                + ", ".join(x for x in RAW_FILES if not (d / x).exists())
                + ")"
            )
        write_json_atomic(
            d / "failed.json",
            {
                "hash": cfg.hash(),
                "returncode": rc,
                "argv": argv,
                "stderr_tail": stderr_tail,
                "when_utc": _utc(),
            },
        )
        kind = "rejected its configuration" if rc == 2 else "failed"
        raise SimulationError(
            f"scenario-{cfg.scenario} {kind} (exit code {rc}){_why(rc, stderr_tail, cfg)}",
            rc,
            stderr_tail,
            argv,
        )
    postprocess(d, cfg)
    return d, True


def _why(rc: int, stderr_tail: str, cfg: RunConfig) -> str:
    """Why a simulation failed, in one clause, when its exit code and stderr say it: the
    message of an ns-3 abort or assertion, or the crash signal, with the values that were set
    (a degenerate value is the usual cause)."""
    from .config import crash_text, culprit, ns3_message, settings_text

    msg = ns3_message(stderr_tail)
    if msg is not None:
        who = culprit(msg, cfg)
        return f": ns-3 says: {msg}" + (f" (from {who}); correct that value" if who else "")
    crash = crash_text(rc)
    if crash:
        values = settings_text(cfg)
        return f": it {crash}" + (
            f"; the values set ({values}) are the likely cause: check them against `msfc list "
            f"{cfg.scenario}`"
            if values
            else ""
        )
    return ""


def run_task(task: dict) -> dict:
    """One sweep task (runs on a Dask worker). Never raises for a failed simulation."""
    cfg = RunConfig.from_json(task["config"])
    out_root = Path(task["out_root"])
    t0 = time.time()
    try:
        d, ran = run_simulation(
            Path(task["program"]),
            cfg,
            out_root,
            timeout=task.get("timeout"),
            force=bool(task.get("force")),
        )
        return {
            "hash": cfg.hash(),
            "status": "done" if ran else "cached",
            "dir": str(d),
            "seconds": time.time() - t0,
        }
    except Interrupted as e:
        return {
            "hash": cfg.hash(),
            "status": "interrupted",
            "started": bool(e.argv),
            "seconds": time.time() - t0,
        }
    except SimulationError as e:
        return {
            "hash": cfg.hash(),
            "status": "failed",
            "returncode": e.returncode,
            "stderr_tail": e.stderr_tail,
            "argv": e.argv,
            "message": str(e),
            "seconds": time.time() - t0,
        }
    except Exception as e:  # a worker-side bug: report it like a failed run, keep the sweep going
        return {
            "hash": cfg.hash(),
            "status": "failed",
            "returncode": -1,
            "stderr_tail": f"{type(e).__name__}: {e}",
            "argv": [],
            "message": str(e),
            "seconds": time.time() - t0,
        }


# --------------------------------------------------------------------------- studies


def check_out_dir(out_root: Path, what: str = "--out", fix: str | None = None) -> None:
    """A results directory must be a directory we can write to: say so before anything runs.
    ``fix`` tells how to choose another one (default: give ``what`` another directory)."""
    p = Path(out_root)
    fix = fix or f"give {what} a directory you can write to"
    if p.exists() and not p.is_dir():
        raise UserError(f"{what} {p} is a file, not a directory; {fix} (it is created if missing)")
    parent = p
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise UserError(f"{what} {p}: {parent} is a file, not a directory; {fix}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"{what} {p}: {parent} is not writable (read-only); {fix}")


def write_study(out_root: Path, study: dict, *, force: bool = False) -> None:
    """study.json (what was asked). A finished study asked again is left as it is, unless
    ``force`` (it is run again: study.json then says when and by which command)."""
    check_out_dir(out_root)
    f = Path(out_root) / "study.json"
    try:
        old = json.loads(f.read_text())
        same = {k: v for k, v in old.items() if k not in ("created_utc", "argv")} == {
            k: v for k, v in study.items() if k not in ("created_utc", "argv")
        }
    except (OSError, json.JSONDecodeError, AttributeError):  # missing, damaged, not an object
        same = False
    if same and not force:
        return
    out_root.mkdir(parents=True, exist_ok=True)
    write_json_atomic(f, study)


def read_study(out_root: Path) -> dict:
    f = Path(out_root) / "study.json"
    if not f.exists():
        raise UserError(
            f"{out_root} is not an msfc results directory (no study.json); give the --out "
            f"directory of `msfc run`, `msfc compare` or `msfc sweep`"
        )
    try:
        study = json.loads(f.read_text())
    except json.JSONDecodeError as e:
        raise UserError(f"{f} is damaged ({e}); re-run the command that made it", 1) from None
    configs = study.get("configs") if isinstance(study, dict) else None
    if not (isinstance(configs, list) and all(isinstance(h, str) for h in configs)):
        raise UserError(
            f"{f} is not an msfc study (expected an object whose 'configs' lists the runs' "
            f"hashes); re-run the command that made it, or give the --out directory of `msfc "
            f"run`, `msfc compare` or `msfc sweep`",
            1,
        )
    return study


def collect(out_root: Path, hashes: list[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Concatenated summary and flow tables of the finished runs (optionally only ``hashes``)."""
    runs = Path(out_root) / "runs"
    summaries, flows = [], []
    if hashes is not None:
        dirs = [runs / h for h in dict.fromkeys(hashes)]
    else:
        dirs = sorted(runs.iterdir()) if runs.is_dir() else []
    for d in dirs:
        if not is_done(d):
            continue
        problem = raw_problem(d)
        if problem:
            raise damaged(d, problem)
        refresh_derived(d)
        summary, flow_table = _read_tidy(d)
        if summary is not None:
            summaries.append(summary)
        if flow_table is not None:
            flows.append(flow_table)
    s = pd.concat(summaries, ignore_index=True) if summaries else pd.DataFrame()
    f = pd.concat(flows, ignore_index=True) if flows else pd.DataFrame()
    return s, f


def _read_tables(d: Path) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    return tuple(  # type: ignore[return-value]
        pd.read_parquet(d / x) if (d / x).exists() else None for x in TIDY_FILES
    )


def _read_tidy(d: Path) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    """A finished run's tidy tables (summary, flow metrics). A damaged one (truncated,
    overwritten) is made again from the run's raw records, as a missing one is: they are
    derived data, and the raw files are checked against done.json first."""
    import pyarrow as pa

    try:
        return _read_tables(d)
    except (OSError, ValueError, pa.ArrowException) as e:
        bad = next((d / x for x in TIDY_FILES if not _readable_parquet(d / x)), d / TIDY_FILES[0])
        problem = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    try:
        cfg = RunConfig.from_json(json.loads((d / "config.json").read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        raise UserError(
            f"{bad} is damaged ({problem}) and cannot be rebuilt: {d / 'config.json'} is missing "
            f"or damaged too. Delete {d} and repeat the command that made it (it runs that "
            f"simulation again)",
            1,
        ) from None
    print(
        f"msfc: {bad} was damaged ({problem}); rebuilt it from the run's raw records",
        file=sys.stderr,
        flush=True,
    )
    postprocess(d, cfg, rebuild=True)
    return _read_tables(d)


def _readable_parquet(f: Path) -> bool:
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not f.exists():
        return True
    try:
        pq.read_metadata(f)
    except (OSError, ValueError, pa.ArrowException):
        return False
    return True


def write_collected(
    out_root: Path, hashes: list[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The study's tables (summary, flows) from its finished runs; with none finished, tables
    left by an earlier study in the directory are removed, not shown as this one's."""
    s, f = collect(out_root, hashes)
    for df, name in ((s, "summary"), (f, "flows")):
        if len(df):
            _write_table(df, Path(out_root) / name)
        else:
            for ext in ("parquet", "csv"):
                (Path(out_root) / f"{name}.{ext}").unlink(missing_ok=True)
    return s, f


# --------------------------------------------------------------------------- benchmarks


def run_scenario(
    build_dir: Path,
    scenario: str,
    out_root: Path,
    options: dict,
    *,
    rng_run: int = 1,
    force: bool = False,
    timeout: float | None = None,
) -> Path:
    """One simulation of ``scenario`` with ``options`` (scenario options by name, ``preset``
    among them if wanted) into ``out_root/runs/<config hash>``, as ``msfc run`` does it: the
    options are validated against the program's ``--describe``, a finished run is kept unless
    ``force``, and the run directory gets the tidy tables. The benchmarks and seed experiments
    (``msfc bench``) start every simulation through here. Returns the run directory; raises
    UserError for a bad option and SimulationError when the program fails."""
    import sys

    from .config import build_config, check_with_program
    from .programs import describe_scenario, describe_schedulers

    opts = dict(options)
    preset = opts.pop("preset", None)
    info = describe_scenario(scenario, Path(build_dir))
    cfg = build_config(
        info,
        [(k, _option_text(v)) for k, v in opts.items()],
        preset=str(preset) if preset is not None else None,
        rng_run=rng_run,
        schedulers_loader=lambda: describe_schedulers(Path(build_dir)),
    )
    d = run_dir(out_root, cfg)
    if force or not is_done(d, cfg):
        check_with_program(info.program, [cfg])
    if not force and is_done(d, cfg):
        print(f"kept: {d} ({cfg.label()})", file=sys.stderr, flush=True)
        return d
    print("run:", " ".join(cfg.argv(info.program, d)), file=sys.stderr, flush=True)
    t0 = time.time()
    run_simulation(info.program, cfg, out_root, force=True, timeout=timeout)
    print(f"  done in {time.time() - t0:.1f} s", file=sys.stderr, flush=True)
    return d


def _option_text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
