"""python -m msfc.linux: the deterministic UML testbed (docs/linux-testbed.md).

python -m msfc.linux bench --rates 2,20,100,100/20 --tests rrul,shares --qdiscs cake_ds4,msfc
python -m msfc.linux convert --out results/uml-testbed     # rebuild records and tables

The qemu testbed of Debian's stock kernels is python -m msfc.linux.vm.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import flent, uml, umlbench
from . import records as R


def _seed(s: str) -> int | None:
    if s == "host":
        return None
    try:
        return int(s, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{s!r}: an integer, or 'host'") from None


def _jobs(s: str) -> int:
    try:
        n = int(s)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{s!r}: a number of boots at once, 1 or more")
    return n


def bench_main(argv: list[str], prog: str) -> int:
    """``msfc bench linux-testbed ...``: the benchmark of the UML testbed."""
    return main(["bench", *argv], prog=prog)


def main(argv: list[str] | None = None, prog: str = "python -m msfc.linux") -> int:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name, fn, what in (
        ("bench", umlbench.bench, "boot once per rate, test and qdisc; records and tables"),
        ("convert", umlbench.convert, "records, studies and tables again from kept boots"),
    ):
        s = sub.add_parser(name, help=what, description=what)
        s.set_defaults(fn=fn)
        s.add_argument("--out", default="results/uml-testbed", help="results directory")
        s.add_argument(
            "--duration", type=int, default=flent.DURATION_S, help="seconds (virtual) per test"
        )
        s.add_argument("--rtt-ms", type=int, default=flent.RTT_MS, help="base RTT (netem)")
        s.add_argument(
            "--seed",
            type=_seed,
            default=1,
            help="the fixed random stream UML gets from the host (kernel/test/"
            "uml_fixed_random.c); 'host': the host's own, different in every boot",
        )
        if name == "bench":
            s.add_argument(
                "--rates",
                default=umlbench.DEFAULT_RATES,
                help="Mbit/s, comma-separated; DOWN/UP for an asymmetric link",
            )
            s.add_argument(
                "--tests",
                default=umlbench.DEFAULT_TESTS,
                help="comma-separated: " + ", ".join(umlbench.TESTS),
            )
            s.add_argument(
                "--qdiscs",
                default=umlbench.DEFAULT_QDISCS,
                help="comma-separated: " + ", ".join(R.QDISCS),
            )
            s.add_argument(
                "--jobs",
                type=_jobs,
                default=0,
                help="boots at once (default: the CPUs, one without a mount namespace)",
            )
            s.add_argument("--kernel", type=Path, default=uml.KERNEL)
            s.add_argument("--root", type=Path, default=uml.ROOT)
            s.add_argument("--kdir", type=Path, default=uml.KDIR)
            s.add_argument("--timeout", type=float, default=900, help="per boot, s")
    args = p.parse_args(argv)
    try:
        return args.fn(args)
    except (uml.MachineError, ValueError) as e:
        print(f"msfc.linux: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
