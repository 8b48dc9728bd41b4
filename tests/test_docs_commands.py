"""Every `msfc` command printed in a code block of README.md, docs/ and doc/ is one the CLI
accepts: it parses with msfc's own argument parser, and (with the project built) the
simulations of `run`, `compare` and `sweep` are valid configurations of their scenario, checked
as msfc checks them before it runs anything (nothing is simulated)."""

import re
import shlex

import pytest
from conftest import REPO, real_build_dir
from msfc.cli import _check_choices, _schedulers_arg, build_parser
from msfc.errors import UserError
from msfc.sim.config import build_config, parse_assignments, read_config_file
from msfc.sim.programs import describe_scenario, describe_schedulers
from msfc.sim.sweep import expand, parse_grid

_START = re.compile(r"^(?:\$ )?(?:\.venv/bin/)?msfc\s")


def _documents():
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *(REPO / "doc").glob("*")]


def documented_commands() -> list[tuple[str, list[str]]]:
    """("file:line", argv after `msfc`) of each command in a fenced or indented code block;
    continuation lines (ending in a backslash) are joined, `# comments` dropped."""
    found = []
    for doc in _documents():
        lines = doc.read_text().splitlines()
        fenced = False
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif (fenced or line.startswith(("    ", "\t"))) and _START.match(line.strip()):
                where = f"{doc.relative_to(REPO)}:{i + 1}"
                text = line.strip()
                while text.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    text = text[:-1] + " " + lines[i].strip()
                argv = shlex.split(text, comments=True)
                found.append((where, argv[argv[0] == "$" :][1:]))
            i += 1
    return found


def test_documented_commands_parse():
    commands = documented_commands()
    assert len(commands) > 40, "the extraction lost the docs' commands"
    bad = []
    for where, argv in commands:
        try:
            build_parser().parse_args(argv)
        except SystemExit as e:
            if e.code:  # --help exits 0
                bad.append(f"{where}: msfc {shlex.join(argv)}")
    assert not bad, "commands msfc does not accept:\n" + "\n".join(bad)


def _configs(args, build):
    """The configurations msfc would run for a parsed run, compare or sweep command."""
    _check_choices(args)
    info = describe_scenario(args.scenario, build)
    assign = read_config_file(args.config) if args.config else []
    assign += parse_assignments(args.sets)

    def loader():
        return describe_schedulers(build, required=True)

    if args.command == "sweep":
        return expand(
            info,
            parse_grid(args.grid),
            assign,
            preset=args.preset,
            scheduler=args.scheduler,
            seeds=args.seeds,
            schedulers_loader=loader,
        ), info
    if args.command == "compare":
        return [
            build_config(
                info,
                assign,
                preset=args.preset,
                scheduler=s,
                schedulers_loader=loader,
                other_scheduler="drop",
            )
            for s in _schedulers_arg(info, args.schedulers)
        ], info
    return [
        build_config(
            info,
            assign,
            preset=args.preset,
            scheduler=args.scheduler,
            rng_run=args.rng_run,
            schedulers_loader=loader,
        )
    ], info


def test_documented_simulations_are_valid():
    build = real_build_dir("scenario-isp-tree")
    if build is None:
        pytest.skip("needs the built scenario programs (make build)")
    bad = []
    checked = 0
    for where, argv in documented_commands():
        try:
            args = build_parser().parse_args(argv)
        except SystemExit:
            continue  # test_documented_commands_parse names it
        if args.command not in ("run", "compare", "sweep") or args.config:
            continue
        try:
            cfgs, info = _configs(args, build)
        except UserError as e:
            bad.append(f"{where}: {e}")
            continue
        checked += 1
        # Table 3.8's flow types come with their own priorities: the priorities that the
        # other presets give the thesis file must be cleared (`--set priorities=`), as the
        # wrong-priorities preset does
        wrong = info.presets.get("wrong-priorities", {})
        for c in cfgs:
            if (
                c.resolved.get("flow-types") == "wrong-priorities"
                and "priorities" in wrong
                and c.resolved.get("priorities", "") != str(wrong["priorities"])
            ):
                bad.append(
                    f"{where}: flow-types=wrong-priorities with priorities="
                    f"{c.resolved.get('priorities')} from the preset; add --set priorities="
                )
                break
    assert checked > 20
    assert not bad, "\n".join(bad)
