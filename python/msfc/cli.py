"""``msfc``: run, compare, sweep and report ns-3 simulations of traffic schedulers."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import sys
import time
from pathlib import Path

from . import __version__, bench
from .errors import SimulationError, UserError

EPILOG = """examples:
  msfc list
  msfc run isp-tree --preset quick --scheduler Msfc --set Msfc.Ratio=3
  msfc compare isp-tree --schedulers PfifoFast,CoDel,FqCoDel,Msfc --thesis
  msfc sweep starvation --preset tiny --scheduler Msfc --grid Msfc.Ratio=1,2,4,8 --seeds 5
  msfc report results/isp-tree-compare-1a2b3c4d
  msfc diff results/a/runs/<hash> results/b/runs/<hash> --ignore priority,dscp

Scenario programs are looked up in --build-dir, $MSFC_BUILD_DIR or ./build (build them with `make build`).
Documentation: docs/cli.md"""


def _common(p: argparse.ArgumentParser, outputs: bool = True) -> None:
    p.add_argument(
        "--build-dir",
        metavar="DIR",
        help="where scenario-* and msfc-describe are (default: $MSFC_BUILD_DIR, else ./build)",
    )
    if outputs:
        p.add_argument(
            "--out",
            metavar="DIR",
            help="results directory (default: results/<scenario>-<command>-"
            "<hash of the request>, so repeating a command resumes it)",
        )
        p.add_argument(
            "--no-progress", action="store_true", help="no progress bar or progress lines"
        )
        p.add_argument(
            "--format",
            choices=["text", "markdown"],
            default="text",
            help="tables on stdout as aligned text (default) or Markdown pipe tables",
        )


def _sim_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("scenario", help="scenario name (build/scenario-<name>; see `msfc list`)")
    p.add_argument("--preset", help="scenario preset (see `msfc list`)")
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a scenario option (duration=10) or a scheduler attribute (Msfc.Ratio=3); repeatable",
    )
    p.add_argument(
        "--config",
        metavar="FILE",
        help="'key = value' lines, as the scenario programs read them; --set wins over it",
    )
    p.add_argument(
        "--direction",
        choices=["down", "up", "all"],
        default="down",
        help="flows shown in tables (default: down, as the thesis reports)",
    )
    p.add_argument(
        "--force", action="store_true", help="run again even when a finished result exists"
    )
    p.add_argument(
        "--timeout", type=float, metavar="SECONDS", help="wall-clock limit per simulation"
    )


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="msfc",
        allow_abbrev=False,
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--version", action="version", version=f"msfc {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("list", help="scenarios, presets, schedulers and their parameters")
    _common(p, outputs=False)
    p.add_argument("scenario", nargs="?", help="only this scenario")
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub.add_parser("run", help="one simulation")
    _common(p)
    _sim_options(p)
    p.add_argument("--scheduler", help="queue discipline (a scenario 'scheduler' choice)")
    p.add_argument(
        "--run", dest="rng_run", type=int, default=1, metavar="N", help="RNG run number (default 1)"
    )

    p = sub.add_parser("compare", help="one scenario under several schedulers, thesis-style tables")
    _common(p)
    _sim_options(p)
    p.add_argument(
        "--schedulers", required=True, metavar="A,B,C", help="comma-separated scheduler names"
    )
    # run's and sweep's option: spelled out so that argparse does not take it for an
    # abbreviation of --schedulers (it is refused with the fix, see _check_choices)
    p.add_argument("--scheduler", dest="one_scheduler", help=argparse.SUPPRESS)
    p.add_argument(
        "--seeds", type=int, default=1, metavar="N", help="RNG runs 1..N per scheduler (default 1)"
    )
    p.add_argument(
        "--level", choices=["type", "priority"], default="type", help="table rows (default type)"
    )
    p.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="simulations at once on this machine (default 1: one after another with a "
        "progress bar of simulated time)",
    )
    p.add_argument(
        "--thesis",
        nargs="?",
        const="A",
        choices=["A", "B"],
        metavar="A|B",
        help="also print the thesis's published tables beside ours: A (default) = Tables 3.4-3.7, "
        "correct priorities; B = Table 3.9, wrong priorities",
    )
    p.add_argument(
        "--thesis-tables",
        metavar="FILE",
        help="thesis tables JSON (default: the package's data/thesis-tables.json)",
    )

    p = sub.add_parser("sweep", help="a parameter grid times RNG runs, here or on a Dask cluster")
    _common(p)
    _sim_options(p)
    p.add_argument(
        "--scheduler",
        help="queue discipline for every run (unless swept with --grid scheduler=...)",
    )
    p.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="KEY=V1,V2,...",
        required=True,
        help="a swept option or scheduler attribute; repeat for a multi-dimensional grid",
    )
    p.add_argument(
        "--seeds", type=int, default=1, metavar="N", help="RNG runs 1..N per grid point (default 1)"
    )
    p.add_argument(
        "--dask",
        metavar="tcp://HOST:PORT",
        help="run on the existing Dask cluster whose scheduler listens here (as `dask scheduler` "
        "prints it; default: on this machine)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="simulations at once on this machine (default: one per core)",
    )
    # the spellings of version 0.x, still accepted
    p.add_argument("--scheduler-address", dest="old_scheduler_address", help=argparse.SUPPRESS)
    p.add_argument("--workers", dest="old_workers", type=int, help=argparse.SUPPRESS)

    p = sub.add_parser(
        "diff", help="do two runs measure the same? their per-flow records, column by column"
    )
    p.add_argument(
        "a",
        metavar="RUN_A",
        help="a run directory (with flows.csv), e.g. results/x/runs/<hash>, "
        "or a results directory holding one run",
    )
    p.add_argument("b", metavar="RUN_B", help="the other run directory")
    p.add_argument(
        "--ignore",
        metavar="COL,COL",
        default="",
        help="flows.csv columns left out, e.g. priority,dscp for runs that differ only in labels",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub.add_parser("report", help="HTML report with figures of a run, comparison or sweep")
    p.add_argument("dir", help="a results directory of msfc run/compare/sweep")
    p.add_argument("--out", metavar="DIR", help="where to write the report (default: DIR/report)")
    p.add_argument(
        "--against",
        metavar="B",
        help="plot this results directory against another (the graphical twin of msfc diff); "
        "default --out: DIR/report-against-<name of B>",
    )
    p.add_argument(
        "--direction",
        choices=["down", "up", "all"],
        default=None,
        help="flows shown (default: the one the results were made with)",
    )
    bench.add_parser(sub)
    # "--pre quick" is not "--preset quick": an abbreviation would stop working, or change its
    # meaning, when an option with the same prefix is added
    for p in sub.choices.values():
        p.allow_abbrev = False
    return ap


# --------------------------------------------------------------------------- helpers


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _progress_enabled(args) -> bool:
    return not getattr(args, "no_progress", False)


def _study_out(args, kind: str, spec: dict) -> Path:
    """The study directory of ``run``, ``compare`` or ``sweep``, locked for this command until
    it returns (a second command on it is refused; see runner.lock_study)."""
    from .sim.runner import check_out_dir, lock_study

    if args.out:
        out = Path(args.out)
    else:
        h = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:8]
        out = Path("results") / f"{spec['scenario']}-{kind}-{h}"
    check_out_dir(out)
    args.held.enter_context(lock_study(out, " ".join(["msfc", *args.raw_argv])))
    return out


def _check_choices(args) -> None:
    """Options that choose the same thing twice are refused, not silently ranked."""
    from .sim.config import parse_assignments

    sets = dict(parse_assignments(args.sets))
    if args.command == "compare":
        if args.one_scheduler is not None:
            raise UserError(
                f"compare runs every scheduler of --schedulers; --scheduler {args.one_scheduler} "
                f"is for run and sweep (give --schedulers {args.one_scheduler},...)"
            )
        if "scheduler" in sets:
            raise UserError(
                f"compare runs every scheduler of --schedulers; leave out --set "
                f"scheduler={sets['scheduler']}"
            )
        return
    if args.scheduler and "scheduler" in sets:
        raise UserError(
            f"--scheduler {args.scheduler} and --set scheduler={sets['scheduler']} both choose "
            f"the scheduler; give one of them"
        )
    if args.command == "sweep":
        for k, v in parse_assignments(args.grid, "--grid"):
            if k == "scheduler" and args.scheduler:
                raise UserError(
                    f"--scheduler {args.scheduler} and --grid scheduler={v} both choose the "
                    f"scheduler; leave out --scheduler to sweep over schedulers"
                )
            if k in sets:
                raise UserError(
                    f"--set {k}={sets[k]} and --grid {k}={v} both set {k}; the grid gives its "
                    f"values, leave out the --set"
                )


def _scenario_and_assignments(args):
    """The first set-up step of run, compare and sweep: conflicting choices refused
    (_check_choices), the build directory, the scenario's description, and the assignments of
    --config then --set (the later wins)."""
    from .sim.config import parse_assignments, read_config_file
    from .sim.programs import describe_scenario, resolve_build_dir

    _check_choices(args)
    build = resolve_build_dir(args.build_dir)
    info = describe_scenario(args.scenario, build)
    assign = read_config_file(args.config) if args.config else []
    assign += parse_assignments(args.sets)
    return build, info, assign


def _loader(build):
    from .sim.programs import describe_schedulers

    def load():
        return describe_schedulers(build, required=True)

    return load


def _clamped_priorities_note(summary) -> None:
    """Say so when flows are labelled with a priority MSFC did not have (``Msfc.Prios`` below a
    label): MSFC put them in its top class, Prios-1, so their rows are not a class of their own."""
    col = "attr.Msfc.Prios"
    if summary.empty or col not in summary.columns:
        return
    s = summary[(summary["level"] == "priority") & summary[col].notna()]
    for prios, part in s.groupby(col):
        try:
            n = int(prios)
        except ValueError:
            continue
        above = sorted({int(g) for g in part["group"] if str(g).isdigit() and int(g) >= n})
        if above:
            _stderr(
                f"msfc: note: Msfc.Prios={n}, yet flows are labelled priority "
                f"{', '.join(map(str, above))}: MSFC ran them in its top class {n - 1}, so the "
                f"'priority {above[0]}' rows are not a class of their own; raise Msfc.Prios to "
                f"{max(above) + 1} for a class per label"
            )


def _print_results(out: Path) -> None:
    print(f"Results: {out}  (report: `msfc report {out}` writes {out / 'report' / 'index.html'})")


def _print_failure(e: SimulationError) -> None:
    _stderr(f"msfc: error: {e}")
    if not e.argv:  # not started: the message says why
        return
    _stderr("  command: " + " ".join(e.argv))
    if e.stderr_tail:
        _stderr("  stderr (last lines):")
        for line in e.stderr_tail.splitlines()[-15:]:
            _stderr("    " + line)


def _run_with_bar(program, cfg, out_root, args, label: str):
    from .sim.progress import Progress
    from .sim.runner import run_simulation

    with Progress(
        None, label, "sim-s", enabled=_progress_enabled(args), plain_interval=10.0
    ) as bar:

        def on_progress(done, total):
            bar.update(done, total)

        return run_simulation(
            program, cfg, out_root, on_progress=on_progress, force=args.force, timeout=args.timeout
        )


# --------------------------------------------------------------------------- run, compare, sweep
# What the three share. Each command reads: its own options, the set-up (scenario and
# assignments, configurations checked, study directory), the simulations, the tables.


def _at_least_one(option: str, value: int) -> None:
    """A count option (--seeds, --jobs) below 1 is refused."""
    if value < 1:
        raise UserError(f"{option} {value} is out of range; it must be >= 1")


def _check_configs(info, cfgs) -> None:
    """Before anything is written: the scenario program checks the configurations, and what a
    comparison or sweep over schedulers leaves out of some runs is said (config.ignored_note;
    a run leaves nothing out: build_config refuses another scheduler's keys)."""
    from .sim.config import check_with_program, ignored_note

    check_with_program(info.program, cfgs)
    note = ignored_note(cfgs)
    if note:
        _stderr(f"msfc: {note}")


def _open_study(args, kind: str, info, request: dict, fields: dict) -> Path:
    """The study directory, locked for this command (see _study_out; ``request`` names it by
    its hash), with its study.json: the kind, scenario, time, direction, then ``fields`` and
    the command line."""
    from .sim.runner import write_study

    out = _study_out(args, kind, {"scenario": info.name, **request})
    write_study(
        out,
        {
            "kind": kind,
            "scenario": info.name,
            "created_utc": _utc(),
            "direction": args.direction,
            **fields,
            "argv": args.raw_argv,
        },
        force=args.force,
    )
    return out


def _simulate(info, cfg, out: Path, args, label: str):
    """One simulation with a progress bar of simulated time: its run directory and whether it
    ran (False: already done). A stop request (Ctrl-C, SIGTERM) unwinds the command."""
    from .sim.runner import Interrupted

    try:
        return _run_with_bar(info.program, cfg, out, args, label)
    except Interrupted:
        raise KeyboardInterrupt from None


def _run_pool(args, info, cfgs, out: Path, address: str | None = None) -> list[dict]:
    """Several simulations at once, on this machine (--jobs) or on the Dask cluster at
    ``address``: one result dict per configuration (sweep.run_sweep)."""
    from .sim import sweep as S

    return S.run_sweep(
        info.program,
        cfgs,
        out,
        address=address,
        workers=args.jobs,
        show_progress=_progress_enabled(args),
        timeout=args.timeout,
        force=args.force,
    )


def _collected(out: Path, hashes: list[str]):
    """The tidy summary of the finished runs (written beside them, runner.write_collected)."""
    from .sim.runner import write_collected

    summary, _ = write_collected(out, hashes)
    return summary


# --------------------------------------------------------------------------- commands


def cmd_list(args) -> int:
    from .sim.programs import (
        BUILD_HINT,
        describe_scenario,
        describe_schedulers,
        find_scenarios,
        resolve_build_dir,
    )

    build = resolve_build_dir(args.build_dir)
    scen = find_scenarios(build)
    names = [args.scenario] if args.scenario else list(scen)
    infos, broken = [], []
    for n in names:
        try:
            infos.append(describe_scenario(n, build))
        except UserError as e:
            if args.scenario:
                raise
            broken.append((n, str(e)))
    scheds = describe_schedulers(build, required=False)
    if args.json:
        print(
            json.dumps(
                {
                    "build_dir": str(build),
                    "scenarios": [i.raw for i in infos],
                    "schedulers": None
                    if scheds is None
                    else [
                        {
                            "name": s.name,
                            "type_id": s.type_id,
                            "attributes": [a.__dict__ for a in s.attributes.values()],
                        }
                        for s in scheds.values()
                    ],
                },
                indent=1,
            )
        )
        return 0
    print(f"Build directory: {build}")
    if not scen:
        print(f"\nNo scenario programs (scenario-*) there; {BUILD_HINT}.")
    for n, err in broken:
        print(f"\nScenario {n}: cannot be used: {err}")
    for info in infos:
        print(f"\nScenario {info.name}: {info.description}")
        print(f"  program: {info.program}")
        if info.presets:
            print(
                "  presets: "
                + ", ".join(
                    f"{k}{' (default)' if k == info.default_preset else ''}" for k in info.presets
                )
            )
            for k, v in info.presets.items():
                print(f"    {k}: " + ", ".join(f"{a}={b}" for a, b in v.items()))
        print("  options (--set NAME=VALUE):")
        w = max((len(p.name) for p in info.params.values()), default=4)
        for p in info.params.values():
            rng = p.range_text()
            unit = f" {p.unit}" if p.unit and p.type not in ("time", "datarate") else ""
            print(
                f"    {p.name.ljust(w)}  {p.type:<8} default {_json_text(p.default)}{unit}"
                f"{'  [' + rng + ']' if rng else ''}  {p.help}"
            )
    print()
    if scheds is None:
        print(f"Scheduler parameters: {build / 'msfc-describe'} is missing; {BUILD_HINT}.")
    else:
        print("Schedulers and their attributes (--set Scheduler.Attribute=VALUE):")
        for s in scheds.values():
            print(f"  {s.name} ({s.type_id})")
            w = max((len(a) for a in s.attributes), default=4)
            for a in s.attributes.values():
                rng = a.range_text()
                print(
                    f"    {a.name.ljust(w)}  {a.type:<22} default {a.default}"
                    f"{'  [' + rng + ']' if rng else ''}  {a.help}"
                )
    return 0


def cmd_run(args) -> int:
    build, info, assign = _scenario_and_assignments(args)
    cfg = _run_config(args, build, info, assign)
    _check_configs(info, [cfg])
    out = _open_study(args, "run", info, {"hash": cfg.hash()}, {"configs": [cfg.hash()]})
    try:
        d, ran = _simulate(info, cfg, out, args, f"{info.name} {cfg.scheduler}".strip())
    except SimulationError as e:
        _print_failure(e)
        return 1
    if not ran:
        _stderr(f"already done: {d} (use --force to run again)")
    summary = _collected(out, [cfg.hash()])
    _clamped_priorities_note(summary)
    _print_run_tables(args, info, cfg, d, summary)
    _print_results(out)
    return 0


def _run_config(args, build, info, assign):
    """The one configuration of ``msfc run``: --preset, --scheduler, --run and the assignments."""
    from .sim.config import build_config

    return build_config(
        info,
        assign,
        preset=args.preset,
        scheduler=args.scheduler,
        rng_run=args.rng_run,
        schedulers_loader=_loader(build),
    )


def _print_run_tables(args, info, cfg, run_dir: Path, summary) -> None:
    """The run's tables: overall, per flow type and per priority."""
    from .analysis import tables as T

    print(f"{info.name} | {cfg.label()} | {run_dir}\n")
    for level, title, key in (
        ("overall", "Overall", ""),
        ("type", "Per flow type", "type"),
        ("priority", "Per priority", "priority"),
    ):
        print(
            T.render_text(
                T.run_table(summary, level, args.direction),
                f"{title} ({args.direction})",
                key,
                fmt_for=lambda c: c,
                style=args.format,
            )
        )


def cmd_compare(args) -> int:
    build, info, assign = _scenario_and_assignments(args)
    scheds = _schedulers_arg(info, args.schedulers)
    _at_least_one("--seeds", args.seeds)
    if args.jobs is None:
        args.jobs = 1
    _at_least_one("--jobs", args.jobs)
    cfgs = _compare_configs(args, build, info, assign, scheds)
    _check_configs(info, cfgs)
    basis = _thesis_basis(args, info, cfgs)
    hashes = [c.hash() for c in cfgs]
    out = _open_study(
        args,
        "compare",
        info,
        {"hashes": hashes},
        {
            "schedulers": scheds,
            "seeds": args.seeds,
            "configs": hashes,
            "thesis": basis.to_json() if basis else None,
        },
    )
    _stderr(f"{len(cfgs)} simulations -> {out}")
    failed = _run_compare(args, info, cfgs, out)
    summary = _collected(out, hashes)
    if summary.empty:
        _stderr("msfc: error: no simulation finished")
        return 1
    _clamped_priorities_note(summary)
    _print_compare_tables(args, summary, basis)
    _print_results(out)
    if failed:
        _stderr(
            f"msfc: {failed} of {len(cfgs)} simulations failed (see above); finished ones are kept"
        )
        return 1
    return 0


def _schedulers_arg(info, text: str) -> list[str]:
    from .sim.config import validate_param

    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise UserError(
            "--schedulers is empty; give a comma-separated list, e.g. --schedulers CoDel,FqCoDel,Msfc"
        )
    if "scheduler" not in info.params:
        raise UserError(
            f"scenario '{info.name}' has no 'scheduler' option, so it cannot compare schedulers"
        )
    out = [validate_param(info.params["scheduler"], n, info.name) for n in names]
    if len(set(out)) != len(out):
        raise UserError(f"--schedulers {text}: a scheduler is listed twice")
    return out


def _compare_configs(args, build, info, assign, scheds: list[str]):
    """RNG runs 1..--seeds of every scheduler; a scheduler's attributes are left out of the
    others' runs, and a key that applies to none of them is refused (config.check_applies)."""
    from .sim.config import build_config, check_applies

    assign = [(k, v) for k, v in assign if k != "scheduler"]
    cfgs = [
        build_config(
            info,
            assign,
            preset=args.preset,
            scheduler=s,
            rng_run=r,
            schedulers_loader=_loader(build),
            other_scheduler="drop",
        )
        for s in scheds
        for r in range(1, args.seeds + 1)
    ]
    check_applies(cfgs, f"--schedulers {','.join(scheds)}")
    return cfgs


def _thesis_basis(args, info, cfgs):
    """With --thesis: how these runs relate to the thesis's simulation (thesis.basis_for, which
    refuses runs that measure other traffic); it sets --thesis to that simulation."""
    if not args.thesis:
        return None
    from .analysis import thesis

    thesis.load(args.thesis_tables)  # fail early when the tables are missing
    basis = thesis.basis_for(info, cfgs, None if args.thesis_given_bare else args.thesis)
    args.thesis = basis.simulation
    return basis


def _run_compare(args, info, cfgs, out: Path) -> int:
    """Every simulation of the comparison, --jobs at once or one after another with a progress
    bar each; how many failed (each said on stderr, or by run_sweep)."""
    if args.jobs > 1:
        results = _run_pool(args, info, cfgs, out)
        if any(r["status"] == "interrupted" for r in results):
            raise KeyboardInterrupt
        return sum(1 for r in results if r["status"] == "failed")
    failed = 0
    for i, cfg in enumerate(cfgs, 1):
        try:
            label = f"[{i}/{len(cfgs)}] {cfg.scheduler} run {cfg.rng_run}"
            _, ran = _simulate(info, cfg, out, args, label)
            if not ran:
                _stderr(f"{label}: already done")
        except SimulationError as e:
            failed += 1
            _print_failure(e)
    return failed


def _print_compare_tables(args, summary, basis) -> None:
    """The comparison's tables, and with --thesis the thesis's published tables beside them."""
    from .analysis import tables as T

    print(T.compare_text(summary, args.direction, args.level, style=args.format))
    if args.thesis:
        from .analysis import thesis

        print(
            thesis.compare_text(
                summary,
                thesis.tables_for(args.thesis),
                direction=args.direction,
                explicit=args.thesis_tables,
                style=args.format,
                basis=basis,
            )
        )


def cmd_sweep(args) -> int:
    from .sim import sweep as S

    _old_sweep_options(args)
    if args.dask:
        S.check_dask_address(args.dask)  # before anything is written
    build, info, assign = _scenario_and_assignments(args)
    grid = S.parse_grid(args.grid)
    if args.jobs is not None:
        _at_least_one("--jobs", args.jobs)
    cfgs = S.expand(
        info,
        grid,
        assign,
        preset=args.preset,
        scheduler=args.scheduler,
        seeds=args.seeds,
        schedulers_loader=_loader(build),
    )
    _check_configs(info, cfgs)
    hashes = list(dict.fromkeys(c.hash() for c in cfgs))
    grid_columns = S.grid_columns(grid, cfgs, info)
    out = _open_study(
        args,
        "sweep",
        info,
        {"hashes": hashes},
        {
            "grid": [{"key": k, "values": v} for k, v in grid],
            "grid_columns": grid_columns,
            "seeds": args.seeds,
            "configs": hashes,
            "dask": args.dask,
        },
    )
    _stderr(
        f"sweep: {len(hashes)} configurations ({len(hashes) // args.seeds} grid points x {args.seeds} "
        f"seeds) -> {out}"
    )
    results = _run_pool(args, info, cfgs, out, address=args.dask)
    summary = _collected(out, hashes)
    _sweep_status(out, results, hashes)
    if not summary.empty:
        _print_sweep_table(args, summary, grid_columns)
        from .analysis.modes import study_notes

        for note in study_notes(out, hashes):
            print(f"Note: {note}\n")
    _print_results(out)
    failed = [r for r in results if r["status"] == "failed"]
    if failed:
        _stderr(
            f"msfc: {len(failed)} simulations failed (listed above, details in {out / 'sweep-status.json'}); "
            f"re-run the same command to retry only those"
        )
        return 1
    return 0


def _old_sweep_options(args) -> None:
    """The spellings of version 0.x (--scheduler-address, --workers): a note, and their value
    where the new option is not given."""
    if args.old_scheduler_address:
        _stderr("msfc: note: --scheduler-address is now --dask (the old name still works)")
        args.dask = args.dask or args.old_scheduler_address
    if args.old_workers is not None:
        _stderr(
            "msfc: note: --workers is now --jobs, as in msfc compare (the old name still works)"
        )
        args.jobs = args.jobs if args.jobs is not None else args.old_workers


def _sweep_status(out: Path, results: list[dict], hashes: list[str]) -> None:
    """sweep-status.json, and on stderr how many configurations ran, were already done, failed;
    an interrupted sweep says what finished and unwinds the command."""
    from .sim.runner import write_json_atomic

    write_json_atomic(out / "sweep-status.json", {"finished_utc": _utc(), "results": results})
    counts = {
        k: sum(1 for r in results if r["status"] == k)
        for k in ("done", "cached", "failed", "interrupted")
    }
    stopped = sum(1 for r in results if r["status"] == "interrupted" and r.get("started", True))
    if counts["interrupted"]:
        _stderr(
            f"sweep interrupted: {counts['done']} ran, {counts['cached']} already done, "
            f"{counts['failed']} failed, {stopped} stopped (not kept), "
            f"{counts['interrupted'] - stopped} not started; {counts['done'] + counts['cached']} "
            f"of {len(hashes)} configurations are finished in {out}"
        )
        raise KeyboardInterrupt
    _stderr(
        f"sweep finished: {counts['done']} ran, {counts['cached']} already done, "
        f"{counts['failed']} failed"
    )


def _print_sweep_table(args, summary, cols: list[str]) -> None:
    """The overall metrics of every grid point, mean over its seeds."""
    from .analysis import metrics as M
    from .analysis import tables as T

    s = summary[(summary["level"] == "overall") & (summary["direction"] == args.direction)]
    agg = s.groupby(cols, sort=False, dropna=False)[
        [
            "throughput_total_kbps",
            "delay_hmean_ms",
            "delay_p99_ms",
            "jitter_mean_ms",
            "loss_ratio",
        ]
    ].mean()
    agg["runs"] = s.groupby(cols, sort=False, dropna=False).size()
    names = [c.split(".", 1)[1] if c.startswith(("cfg.", "attr.")) else c for c in cols]
    agg.index = [
        T.point_label(zip(names, key if isinstance(key, tuple) else (key,), strict=False))
        for key in agg.index
    ]
    print(
        T.render_text(
            agg,
            f"Overall ({args.direction}), mean over seeds",
            "configuration",
            fmt_for=lambda c: c if c in M.METRICS else None,
            style=args.format,
        )
    )


def cmd_report(args) -> int:
    from .analysis.report import make_against_report, make_report

    if args.against:
        if Path(args.dir).resolve() == Path(args.against).resolve():
            raise UserError(
                f"--against {args.against} is the results directory being reported: give "
                "another run, comparison or sweep to plot it against"
            )
        html = make_against_report(
            Path(args.dir), Path(args.against), args.out, direction=args.direction
        )
        print(f"Report: {html}")
        return 0
    out = Path(args.out) if args.out else Path(args.dir) / "report"
    html = make_report(Path(args.dir), out, direction=args.direction)
    print(f"Report: {html}")
    return 0


def _json_text(v) -> str:
    return json.dumps(v) if isinstance(v, bool) or v is None else str(v)


def _utc() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def cmd_diff(args) -> int:
    from .analysis.rundiff import diff_runs, format_diff

    ignore = [c.strip() for c in args.ignore.split(",") if c.strip()]
    d = diff_runs(Path(args.a), Path(args.b), ignore)
    if args.json:
        print(json.dumps(d, indent=1))
    else:
        print(format_diff(d))
    return 0 if d["identical"] else 1


COMMANDS = {
    "list": cmd_list,
    "run": cmd_run,
    "compare": cmd_compare,
    "sweep": cmd_sweep,
    "report": cmd_report,
    "diff": cmd_diff,
    "bench": bench.cmd_bench,
}


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    raw = list(sys.argv[1:] if argv is None else argv)
    args = ap.parse_args(argv)
    i = raw.index("--thesis") if "--thesis" in raw else -1
    args.thesis_given_bare = i >= 0 and (i + 1 >= len(raw) or raw[i + 1] not in ("A", "B"))
    if not args.command:
        ap.print_help()
        return 2
    import signal
    import threading

    from .sim.runner import request_stop, reset_stop, stops_cooperatively

    reset_stop()
    stopped_by: list[int] = []

    def on_signal(signum, frame):
        # Ctrl-C, or kill / timeout / a batch system (SIGTERM): no simulation starts any more,
        # the running ones are stopped, and the command unwinds (keeping what finished); a
        # local sweep notices the stop by itself and says what finished
        first = not stopped_by
        stopped_by.append(signum)
        request_stop(force=not first)
        if first and stops_cooperatively():
            return
        raise KeyboardInterrupt

    old_handlers = {}
    if threading.current_thread() is threading.main_thread():
        old_handlers[signal.SIGTERM] = signal.signal(signal.SIGTERM, on_signal)
        # an ignored SIGINT (nohup, `cmd &` in a script) stays ignored
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            old_handlers[signal.SIGINT] = signal.signal(signal.SIGINT, on_signal)
    args.raw_argv = raw
    args.held = contextlib.ExitStack()  # what the command holds until it returns (locks)
    try:
        if getattr(args, "timeout", None) is not None and not args.timeout > 0:
            raise UserError(
                f"--timeout {args.timeout:g} is out of range; give the wall-clock seconds a "
                f"simulation may take, > 0 (or leave it out for no limit)"
            )
        return COMMANDS[args.command](args)
    except UserError as e:
        _stderr(f"msfc: error: {e}")
        return e.exit_code
    except KeyboardInterrupt:
        request_stop()
        signum = stopped_by[0] if stopped_by else signal.SIGINT
        what = "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
        _stderr(
            f"msfc: interrupted ({what}); finished simulations are kept, re-run the same "
            f"command to resume"
        )
        return 128 + signum  # as a shell reports a command ended by the signal: 130, 143
    except BrokenPipeError:
        return 1
    except OSError as e:  # a file that cannot be written or read: no traceback, the fix
        where = f" {e.filename}" if e.filename else ""
        _stderr(
            f"msfc: error: cannot access{where}: {e.strerror or e}; check that the path exists "
            f"and that you may write there (or give --out another directory)"
        )
        return 1
    finally:
        args.held.close()
        for signum, handler in old_handlers.items():
            signal.signal(signum, handler)
        reset_stop()  # main() may be called again in this process (tests, msfc bench)


if __name__ == "__main__":
    sys.exit(main())
