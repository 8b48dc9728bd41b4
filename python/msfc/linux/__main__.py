"""python -m msfc.linux: the deterministic UML testbed (docs/linux-testbed.md).

python -m msfc.linux rrul --rate 20 --qdisc cake-diffserv4,msfc --out results/uml-testbed
python -m msfc.linux convert --out results/uml-testbed     # rebuild records and tables
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import machine
from . import tests as T


def _rates(s: str) -> list[int]:
    """Comma-separated Mbit/s -> kbit/s."""
    return [round(float(x) * 1000) for x in s.split(",") if x]


def _seed(s: str) -> int | None:
    return None if s == "host" else int(s, 0)


def _test_name(rate_kbit: int) -> str:
    mbit = rate_kbit / 1000
    return f"rrul-{mbit:g}mbit"


def _run_dir(out: Path, rate_kbit: int, qdisc: str) -> Path:
    return out / "raw" / _test_name(rate_kbit) / qdisc


def _record(out: Path, rate_kbit: int, qdisc: str, res, args) -> dict:
    settings = T.settings_of(rate_kbit, args.duration, args.rtt_ms)
    settings["kernel"] = res.files_meta.get("kernel", "?")
    h = T.write_run(out, _test_name(rate_kbit), qdisc, res, settings)
    row = {
        "qdisc": qdisc,
        **T.summary(res.files, args.rtt_ms),
        "wall_s": res.wall_seconds,
        "hash": h,
    }
    return row


def _load(job: Path) -> machine.JobResult:
    outd = job / "out"
    files = {
        str(f.relative_to(outd)): f.read_bytes() for f in sorted(outd.rglob("*")) if f.is_file()
    }
    meta = json.loads((job / "result.json").read_text()) if (job / "result.json").is_file() else {}
    return machine.JobResult(
        meta.get("boot_wall_seconds", 0.0), files, "", meta.get("exit_code"), meta
    )


def _tables(out: Path, rows_by_rate: dict[int, list[dict]], args) -> str:
    parts = [
        "# Deterministic UML testbed: rrul + irtt voice stream",
        "",
        f"Base RTT {args.rtt_ms} ms, {args.duration} s per run, UML time-travel=inf-cpu. "
        + T.TABLE_NOTE,
    ]
    for rate in sorted(rows_by_rate):
        parts += ["", f"## {rate / 1000:g} Mbit/s", "", T.table(rows_by_rate[rate])]
    md = "\n".join(parts) + "\n"
    (out / "tables.md").write_text(md)
    (out / "summary.json").write_text(
        json.dumps({str(k): v for k, v in rows_by_rate.items()}, indent=1, default=str) + "\n"
    )
    return md


def rrul(args) -> int:
    out = Path(args.out)
    qdiscs = [q for q in args.qdisc.split(",") if q]
    for q in qdiscs:
        T.qdisc_words(q, 1000)  # unknown names fail before any boot
    machine.check_ready(args.kernel, args.root, args.kdir)
    rows_by_rate: dict[int, list[dict]] = {}
    failed = []
    for rate in _rates(args.rate):
        for q in qdiscs:
            job = _run_dir(out, rate, q)
            t0 = time.monotonic()
            res = machine.run_job(
                T.rrul_script(q, rate, args.duration, args.rtt_ms),
                job,
                kernel=args.kernel,
                root=args.root,
                kdir=args.kdir,
                timeout=args.timeout,
                seed=args.seed,
            )
            (job / "result.json").write_text(
                json.dumps({**res.files_meta, "exit_code": res.exit_code}, indent=1) + "\n"
            )
            if res.exit_code != 0 or T.flent_file(res.files) is None:
                failed.append(f"{q} at {rate} kbit/s")
                print(
                    f"msfc.linux: {q} at {rate} kbit/s: job exit {res.exit_code}, see "
                    f"{job}/out/job.log",
                    file=sys.stderr,
                )
            row = _record(out, rate, q, res, args)
            rows_by_rate.setdefault(rate, []).append(row)
            print(
                f"msfc.linux: {q} at {rate / 1000:g} Mbit/s: EF +{row.get('ef_med', float('nan')):.1f} ms "
                f"median, wall {time.monotonic() - t0:.0f} s",
                file=sys.stderr,
            )
    for rate, rows in rows_by_rate.items():
        T.write_study(
            out,
            _test_name(rate),
            [r["hash"] for r in rows],
            T.settings_of(rate, args.duration, args.rtt_ms),
        )
    print(_tables(out, _merge(out, rows_by_rate, args), args))
    return 1 if failed else 0


def _merge(out: Path, new: dict[int, list[dict]], args) -> dict[int, list[dict]]:
    """The summary rows of every run kept under out/raw (the new ones and earlier ones)."""
    rows = {r: {row["qdisc"]: row for row in rs} for r, rs in new.items()}
    for res_json in sorted((out / "raw").glob("rrul-*mbit/*/result.json")):
        rate = round(float(res_json.parent.parent.name[5:-4]) * 1000)
        q = res_json.parent.name
        if q in rows.get(rate, {}):
            continue
        res = _load(res_json.parent)
        rows.setdefault(rate, {})[q] = {
            "qdisc": q,
            **T.summary(res.files, args.rtt_ms),
            "wall_s": res.wall_seconds,
        }
    order = list(T.QDISCS)
    return {
        r: sorted(qs.values(), key=lambda x: order.index(x["qdisc"]) if x["qdisc"] in order else 99)
        for r, qs in rows.items()
    }


def convert(args) -> int:
    out = Path(args.out)
    rows: dict[int, list[dict]] = {}
    for res_json in sorted((out / "raw").glob("rrul-*mbit/*/result.json")):
        rate = round(float(res_json.parent.parent.name[5:-4]) * 1000)
        res = _load(res_json.parent)
        rows.setdefault(rate, []).append(_record(out, rate, res_json.parent.name, res, args))
    if not rows:
        print(f"msfc.linux: {out}/raw holds no runs", file=sys.stderr)
        return 1
    for rate, rs in rows.items():
        T.write_study(
            out,
            _test_name(rate),
            [r["hash"] for r in rs],
            T.settings_of(rate, args.duration, args.rtt_ms),
        )
    print(_tables(out, _merge(out, rows, args), args))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m msfc.linux", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name, fn in (("rrul", rrul), ("convert", convert)):
        s = sub.add_parser(name)
        s.set_defaults(fn=fn)
        s.add_argument("--out", default="results/uml-testbed")
        s.add_argument("--duration", type=int, default=T.DURATION_S, help="seconds (virtual)")
        s.add_argument("--rtt-ms", type=int, default=T.RTT_MS)
        if name == "rrul":
            s.add_argument("--rate", default="20", help="Mbit/s, comma-separated")
            s.add_argument("--qdisc", default="cake-diffserv4,msfc", help=", ".join(T.QDISCS))
            s.add_argument("--kernel", type=Path, default=machine.KERNEL)
            s.add_argument("--root", type=Path, default=machine.ROOT)
            s.add_argument("--kdir", type=Path, default=machine.KDIR)
            s.add_argument("--timeout", type=float, default=600, help="per boot, s")
            s.add_argument(
                "--seed",
                type=_seed,
                default=1,
                help="the fixed random stream UML gets from the host (kernel/test/"
                "uml_fixed_random.c); 'host': the host's own, different in every boot",
            )
    args = p.parse_args(argv)
    try:
        return args.fn(args)
    except (machine.MachineError, ValueError) as e:
        print(f"msfc.linux: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
