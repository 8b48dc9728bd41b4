"""Parameter sweeps: a grid of configurations times RNG runs, on this machine or a Dask cluster."""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
from pathlib import Path

from ..errors import UserError
from .config import (
    RunConfig,
    build_config,
    check_applies,
    option_aliases,
    parse_assignments,
    scheduler_of,
    split_key,
)
from .programs import ScenarioInfo
from .progress import Progress
from .runner import cooperative_stop, is_done, request_stop, run_dir, run_task


def parse_grid(items: list[str]) -> list[tuple[str, list[str]]]:
    """``KEY=V1,V2,...`` -> [(KEY, [V1, V2, ...])]; keys must be distinct."""
    out: list[tuple[str, list[str]]] = []
    for k, v in parse_assignments(items, "--grid"):
        values = [x.strip() for x in v.split(",")]
        if not v or any(x == "" for x in values):
            raise UserError(
                f"--grid {k}={v}: empty value; expected KEY=V1,V2,... e.g. --grid Msfc.Ratio=1,2,4"
            )
        if len(set(values)) != len(values):
            raise UserError(f"--grid {k}={v}: a value is repeated")
        if any(k == x for x, _ in out):
            raise UserError(
                f"--grid: the key '{k}' is given twice; list all its values in one --grid"
            )
        out.append((k, values))
    if not out:
        raise UserError("a sweep needs at least one --grid KEY=V1,V2,...")
    return out


def expand(
    info: ScenarioInfo,
    grid: list[tuple[str, list[str]]],
    base: list[tuple[str, str]],
    *,
    preset: str | None,
    scheduler: str | None,
    seeds: int,
    schedulers_loader,
) -> list[RunConfig]:
    """Every grid point times RNG runs 1..seeds, each validated."""
    if seeds < 1:
        raise UserError(f"--seeds {seeds} is out of range; it must be >= 1")
    grid_keys = {k for k, _ in grid}
    base = [(k, v) for k, v in base if k not in grid_keys]
    cache: dict = {}

    def loader():
        if "s" not in cache:
            cache["s"] = schedulers_loader()
        return cache["s"]

    configs = []
    for combo in itertools.product(*[vals for _, vals in grid]):
        assign = base + list(zip([k for k, _ in grid], combo, strict=False))
        sched = scheduler
        if "scheduler" in grid_keys:
            sched = None
        for run in range(1, seeds + 1):
            configs.append(
                build_config(
                    info,
                    assign,
                    preset=preset,
                    scheduler=sched,
                    rng_run=run,
                    schedulers_loader=loader,
                    other_scheduler="drop" if "scheduler" in grid_keys else "reject",
                )
            )
    check_applies(configs, "this sweep")
    return configs


def default_workers() -> int:
    """One worker per core; simulations are single-threaded."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def run_sweep(
    program: Path,
    configs: list[RunConfig],
    out_root: Path,
    *,
    address: str | None = None,
    workers: int | None = None,
    show_progress: bool = True,
    timeout: float | None = None,
    force: bool = False,
    log=None,
) -> list[dict]:
    """Run every configuration not yet done; return one result dict per configuration."""
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    results: list[dict] = []
    todo = []
    seen = set()
    for cfg in configs:
        h = cfg.hash()
        if h in seen:
            continue
        seen.add(h)
        if not force and is_done(run_dir(out_root, cfg), cfg):
            results.append({"hash": h, "status": "cached", "dir": str(run_dir(out_root, cfg))})
        else:
            todo.append(cfg)
    if results:
        log(
            f"{len(results)} of {len(seen)} configurations already done in {out_root}; running {len(todo)}"
        )
    if not todo:
        return results

    tasks = [
        {
            "config": c.to_json(),
            "out_root": str(Path(out_root).resolve()),
            "program": str(program),
            "timeout": timeout,
            "force": force,
        }
        for c in todo
    ]
    if address:
        outcomes = _run_on_dask(address, tasks)
    else:
        outcomes = _run_locally(workers or min(default_workers(), len(todo)), tasks)
    by_hash = {c.hash(): c for c in todo}

    def record(h: str, r: dict, bar) -> None:
        cfg = by_hash[h]
        r["label"] = cfg.label()
        results.append(r)
        if r["status"] == "failed":
            bar.write(format_failure(r, cfg))
        elif r["status"] == "interrupted" and r.get("started", True):
            bar.write(f"interrupted: {cfg.label()} (not kept; the same command runs it again)")

    # local simulations stop cooperatively: Ctrl-C or SIGTERM stops the running ones and starts
    # no other (runner.request_stop), and every task returns at once, "interrupted"
    stoppable = contextlib.nullcontext() if address else cooperative_stop()
    with (
        stoppable,
        Progress(len(tasks), "sweep", "runs", enabled=show_progress, plain_interval=5.0) as bar,
    ):
        for done, (h, r) in enumerate(outcomes, 1):
            record(h, r, bar)
            bar.update(done)
    return results


def _lost(h: str, e: BaseException) -> dict:
    """The result of a task whose worker, not its simulation, failed."""
    return {
        "hash": h,
        "status": "failed",
        "returncode": -1,
        "stderr_tail": f"{type(e).__name__}: {e}",
        "argv": [],
        "message": str(e),
    }


def _outcomes(futures: dict, as_completed):
    """(hash, result) of each future of ``{future: hash}`` as it finishes. ``as_completed`` is
    the executor's own (concurrent.futures or Dask); run_task reports failed simulations itself,
    so an exception here means the worker failed."""
    for fut in as_completed(list(futures)):
        try:
            yield futures[fut], fut.result()
        except Exception as e:  # noqa: BLE001 - a lost worker must not end the sweep
            yield futures[fut], _lost(futures[fut], e)


def _run_locally(n: int, tasks: list[dict]):
    """(hash, result) of each task as it finishes, N at a time on this machine.

    Each task only waits on its simulation's process, so threads suffice; no cluster processes
    sit between the simulations and the CPU."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    with ThreadPoolExecutor(max_workers=max(1, n), thread_name_prefix="msfc-run") as pool:
        try:
            yield from _outcomes(
                {pool.submit(run_task, t): t["config"]["hash"] for t in tasks}, as_completed
            )
        except KeyboardInterrupt:
            # leaving the pool waits for its threads: the queued tasks must not start
            # simulations, the running ones must end now
            request_stop()
            raise


#: how long connecting to a Dask scheduler may take before msfc gives up
DASK_CONNECT_SECONDS = 20.0
_DASK_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")


def _run_on_dask(address: str, tasks: list[dict]):
    """(hash, result) of each task as it finishes, on the Dask cluster at ``address``."""
    try:
        from dask.distributed import Client
    except ImportError:  # pragma: no cover - dependency of the package
        raise UserError(
            "dask[distributed] is not installed; install the package with `pip install -e .`"
        ) from None
    check_dask_address(address)
    client = _connect(Client, address)
    return _dask_results(client, tasks)


def _connect(Client, address: str):
    """A Dask client, connected within DASK_CONNECT_SECONDS or a UserError (Dask's own timeout
    does not cover every handshake that never completes)."""
    import threading

    box: dict = {}

    def connect():
        try:
            box["client"] = Client(address, timeout=f"{DASK_CONNECT_SECONDS:g}s")
        except BaseException as e:  # noqa: BLE001 - reported below
            box["error"] = e

    t = threading.Thread(target=connect, name="msfc-dask-connect", daemon=True)
    t.start()
    t.join(DASK_CONNECT_SECONDS + 5)
    if "client" in box:
        return box["client"]
    reason = box.get("error") or f"no answer within {DASK_CONNECT_SECONDS:g} s"
    raise _unreachable(address, reason)


def _dask_results(client, tasks: list[dict]):
    from dask.distributed import as_completed

    try:
        futures = {
            client.submit(run_task, t, key=f"msfc-run-{t['config']['hash']}", pure=False): t[
                "config"
            ]["hash"]
            for t in tasks
        }
        yield from _outcomes(futures, as_completed)
    finally:
        client.close()


def _unreachable(address: str, reason) -> UserError:
    return UserError(
        f"cannot reach the Dask scheduler at {address} ({reason}); start it with "
        f"`dask scheduler` and workers with `dask worker {address}`, or leave out "
        f"--dask to run on this machine"
    )


def check_dask_address(address: str, timeout: float = 5.0) -> None:
    """Fail fast, with the fix, unless a Dask scheduler answers at ``address``: a wrong scheme
    (``http://`` is the dashboard's), nothing listening, or something that is not a Dask
    scheduler (the dashboard's port, another service)."""
    import socket
    from urllib.parse import urlparse

    example = "e.g. tcp://127.0.0.1:8786, as `dask scheduler` prints it ('Scheduler at: ...')"
    u = urlparse(address if "://" in address else f"tcp://{address}")
    if u.scheme not in _DASK_SCHEMES:
        hint = (
            " (http:// is the address of its dashboard, not of the scheduler)"
            if u.scheme
            in (
                "http",
                "https",
            )
            else ""
        )
        raise UserError(
            f"--dask {address}: '{u.scheme}://' is not a Dask address{hint}; give "
            f"tcp://HOST:PORT, {example}"
        )
    if u.scheme != "tcp":
        return  # other Dask transports: let Dask connect
    try:
        port = u.port
    except ValueError:
        port = None
    if not u.hostname or not port:
        raise UserError(f"--dask {address}: expected tcp://HOST:PORT, {example}")
    try:
        sock = socket.create_connection((u.hostname, port), timeout=timeout)
    except OSError as e:
        raise _unreachable(address, e.strerror or e) from None
    with sock:
        # a Dask scheduler greets a new connection with its handshake (msgpack naming its
        # compression and pickle protocol); an HTTP server (the dashboard) waits for a request
        sock.settimeout(timeout)
        try:
            greeting = sock.recv(4096)
        except OSError:
            greeting = b""
        if b"pickle-protocol" in greeting or b"compression" in greeting:
            return
        what = "it does not answer as a Dask scheduler"
        if not greeting:
            try:
                sock.sendall(b"GET / HTTP/1.0\r\nHost: x\r\n\r\n")
                if sock.recv(16).startswith(b"HTTP/"):
                    what = (
                        "it is a web server: the Dask dashboard? The scheduler listens on its "
                        "own port (8786 by default; the dashboard's is 8787)"
                    )
            except OSError:
                pass
    raise UserError(f"--dask {address}: {what}; give the scheduler's address, {example}")


def format_failure(r: dict, cfg: RunConfig) -> str:
    if not r.get("argv"):  # not started (another process runs it) or the worker failed
        return f"FAILED {cfg.label()} (config {cfg.hash()}): {r.get('stderr_tail') or r.get('message')}"
    tail = "\n".join("    " + line for line in (r.get("stderr_tail") or "").splitlines()[-12:])
    cmd = " ".join(r.get("argv") or [])
    return (
        f"FAILED {cfg.label()} (exit code {r.get('returncode')}, config {cfg.hash()})\n"
        f"  command: {cmd}\n  stderr (last lines):\n{tail}"
    )


def grid_columns(
    grid: list[tuple[str, list[str]]], configs: list[RunConfig], info: ScenarioInfo | None = None
) -> list[str]:
    """Names of the tidy-table columns that hold the swept keys (an attribute that a scenario
    option sets is recorded as that option: ``cfg.<option>``)."""
    aliases = option_aliases(info) if info is not None else {}
    cols = []
    for k, _ in grid:
        sk = split_key(k)
        alias = None
        if sk is not None:
            owner, attr = sk
            for aid, opt in aliases.items():
                head, _, name = aid.rpartition("::")
                if name == attr and owner in (head, scheduler_of(head)):
                    alias = opt
        if k == "scheduler":
            cols.append("scheduler")
        elif k in ("rng-run", "RngRun", "run"):
            cols.append("rng_run")
        elif alias is not None:
            cols.append(f"cfg.{alias}")
        elif sk is not None:
            friendly = k
            for name, tid in configs[0].attr_ids.items() if configs else []:
                if name == k or tid == k or name.lower() == k.lower():
                    friendly = name
            cols.append(f"attr.{friendly}")
        else:
            cols.append(f"cfg.{k}")
    return cols
