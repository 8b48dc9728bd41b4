"""The deterministic UML testbed's benchmark: every test at every rate through every qdisc.

One boot per (rate, test, qdisc) of the project's UML kernel in time-travel mode
(msfc.linux.uml): Flent's tests (msfc.linux.flent.TESTS) and the iperf3/irtt tests the qemu
testbed runs too (kernel/vm/guest/bench.sh: shares, cubic_bbr, dos_*, hosts), each through
one of the qdiscs both testbeds set up (msfc.linux.records.QDISCS).  Layout of OUT:

    OUT/<rate>/<test>/            one study per rate and test (msfc report, msfc diff)
    OUT/<rate>/raw/<test>/<qdisc>/  the boot: run.sh, boot.log, result.json, the guest's out/
    OUT/<rate>/tables.md          the iperf3 tests' tables (msfc.linux.tables)
    OUT/tables.md, OUT/summary.json   every rate: the Flent tests' summaries and the above

<rate> is "20mbit" for 20 Mbit/s each way, "100-20mbit" for 100 down and 20 up.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from . import flent, uml
from . import records as R
from . import tables as TB

#: the iperf3/irtt tests of bench.sh the UML testbed runs (its rrul is Flent's own)
BENCH_TESTS = [t for t in R.TESTS if t != "rrul"]
TESTS = [*flent.TESTS, *BENCH_TESTS]
DEFAULT_RATES = "2,20,100,100/20"
#: every test but rrul_be (every mark washed to 0), which runs when --tests names it
DEFAULT_TESTS = ",".join(t for t in TESTS if t != "rrul_be")
#: the Flent tests whose voice stream and ping head OUT/tables.md (headline()), each that ran
HEADLINE_TESTS = ("rrul", "rrul_be")
DEFAULT_QDISCS = "fq_codel,cake_ds4,msfc,msfc_recommended,msfc_across,msfc_across_priority,msfc_ds4"


@dataclass(frozen=True)
class Rate:
    down_kbit: int
    up_kbit: int

    @property
    def label(self) -> str:
        d, u = self.down_kbit / 1000, self.up_kbit / 1000
        return f"{d:g}mbit" if d == u else f"{d:g}-{u:g}mbit"

    @property
    def text(self) -> str:
        d, u = self.down_kbit / 1000, self.up_kbit / 1000
        return f"{d:g} Mbit/s each way" if d == u else f"{d:g} Mbit/s down, {u:g} up"

    @classmethod
    def from_label(cls, label: str) -> Rate:
        """The rate of a label (results directory name) as ``label`` writes it: "2mbit",
        "100-20mbit"; ValueError naming a bad one."""
        if not label.endswith("mbit"):
            raise ValueError(f"rate label {label!r}: not <Mbit/s>mbit or <down>-<up>mbit")
        return parse_rates(label[: -len("mbit")].replace("-", "/"))[0]


def parse_rates(s: str) -> list[Rate]:
    """ "2,20,100/20" (Mbit/s; DOWN/UP for an asymmetric link) -> rates; ValueError naming a
    bad one."""
    rates = []
    for item in (x.strip() for x in s.split(",")):
        if not item:
            continue
        parts = item.split("/")
        try:
            mbit = [float(p) for p in parts]
        except ValueError:
            mbit = []
        if len(parts) > 2 or not mbit or any(not 0.064 <= m <= 10000 for m in mbit):
            raise ValueError(
                f"rate {item!r}: give Mbit/s from 0.064 to 10000, DOWN/UP for an asymmetric "
                "link (e.g. 2,20,100/20)"
            )
        rates.append(Rate(round(mbit[0] * 1000), round(mbit[-1] * 1000)))
    if not rates:
        raise ValueError("no rate given: e.g. --rates 2,20,100/20")
    return rates


def _names(s: str, known: list[str], what: str) -> list[str]:
    names = [x.strip() for x in s.split(",") if x.strip()]
    for n in names:
        if n not in known:
            raise ValueError(f"unknown {what} {n!r}: choose from {', '.join(known)}")
    if not names:
        raise ValueError(f"no {what} given: choose from {', '.join(known)}")
    return names


def bench_script(test: str, qdisc: str, rate: Rate, duration: int, rtt_ms: int) -> str:
    """The job (/job/run.sh) of one iperf3/irtt test of bench.sh."""
    env = {
        "QDISC": qdisc,
        "RATE": str(rate.down_kbit),
        "RATE_UP": str(rate.up_kbit),
        "RTT_MS": str(rtt_ms),
        "DUR": str(duration),
        "TESTS": test,
        "HOST_B_FLOWS": str(R.HOST_B_FLOWS),
        **R.msfc_env(qdisc, rate.down_kbit, rate.up_kbit),
        "OUT": "/job/out",
        "NET_SH": "/msfc/kdir/vm/guest/net.sh",
        "TC": "/msfc/kdir/" + str(uml.TC.relative_to(uml.KDIR)),
        # Debian 13's tc prints classes as JSON (the class counters of the shares)
        "TC_CLASS_JSON": "/usr/sbin/tc",
    }
    lines = [f"{k}={shlex.quote(v)}" for k, v in env.items()]
    return "\n".join([*lines, ". /msfc/kdir/vm/guest/bench.sh", ""])


def _settings(rate: Rate, duration: int, rtt_ms: int) -> dict:
    return flent.settings_of(rate.down_kbit, duration, rtt_ms, rate.up_kbit)


def _job_dir(out: Path, rate: Rate, test: str, qdisc: str) -> Path:
    return out / rate.label / "raw" / test / qdisc


def _load(job: Path) -> uml.JobResult:
    outd = job / "out"
    files = {
        str(f.relative_to(outd)): f.read_bytes() for f in sorted(outd.rglob("*")) if f.is_file()
    }
    meta = json.loads((job / "result.json").read_text()) if (job / "result.json").is_file() else {}
    return uml.JobResult(meta.get("boot_wall_seconds", 0.0), files, "", meta.get("exit_code"), meta)


def record(out: Path, rate: Rate, test: str, qdisc: str, res, duration: int, rtt_ms: int):
    """Write one run's raw records into its study; returns (hash, summary row or None)."""
    settings = {**_settings(rate, duration, rtt_ms), "kernel": res.files_meta.get("kernel", "?")}
    root = out / rate.label
    if test in flent.TESTS:
        h = flent.write_run(root, test, qdisc, res, settings)
        row = {
            "qdisc": qdisc,
            **flent.summary(res.files, rtt_ms, test),
            "wall_s": res.wall_seconds,
        }
        return h, row
    # bench.sh writes into <test>/ (its own layout, as in the qemu VM)
    meta = {**res.files_meta, "accel": "uml-time-travel"}
    boot = R.BootResult("uml-time-travel", res.wall_seconds, res.files, "", meta)
    h = R.write_run(root, test, qdisc, boot, settings, "uml")
    return h, None


def _write_study(out: Path, rate: Rate, test: str, runs: list[tuple[str, str]], duration, rtt_ms):
    """The study of one rate and test: its runs ((qdisc, hash) pairs) in records.QDISCS order."""
    order = {q: k for k, q in enumerate(R.QDISCS)}
    hashes = [h for _, h in sorted(runs, key=lambda r: order.get(r[0], len(order)))]
    flent.write_study(out / rate.label, test, hashes, _settings(rate, duration, rtt_ms))


def _runs_in_order(root: Path, test: str) -> list:
    """The runs of one test at one rate (root = OUT/<rate>), in records.QDISCS order."""
    order = {q: k for k, q in enumerate(R.QDISCS)}
    return sorted(TB._runs(root, test), key=lambda r: order.get(r[0], len(order)))


def _stream(flows, rtt, kind: str, rtt_ms: int):
    """The ``up`` rows of the flows of type ``kind`` (the voice stream, a class probe: rrul_be
    has three BE probes, taken together), their round trips in sequence order and those
    round trips' added RTT (ms)."""
    up = flows[(flows["type"] == kind) & (flows["direction"] == "up")]
    r = rtt[rtt["flow_id"].isin(up["flow_id"])].sort_values("seqno")
    return up, r, r["rtt_s"].to_numpy() * 1000 - rtt_ms


def _probe_classes(runs) -> list[str]:
    """The classes, most important first, that Flent probed in any of the runs."""
    return [c for c in flent.CLASS_ORDER if _probe_streams(runs, c)]


def _probe_streams(runs, cls: str) -> int:
    """How many UDP probes of class ``cls`` Flent ran in the runs (at most): one per class in
    rrul and rrul_cs8, three BE probes in rrul_be; 0 when none."""
    return max(
        (
            int(((f["type"] == f"probe-{cls}") & (f["direction"] == "up")).sum())
            for _, f, _, _ in runs
        ),
        default=0,
    )


def _probe_label(runs, cls: str) -> str:
    """``cls``, with the number of probes when the class had several (rrul_be's "BE, 3
    probes"): the tables and figures take a class's probes together."""
    n = _probe_streams(runs, cls)
    return cls if n <= 1 else f"{cls}, {n} probes"


def flent_plots(root: Path, test: str, runs: list, rtt_ms: int) -> list[str]:
    """Figures of one Flent test at one rate into root = OUT/<rate>, PNG and PDF (TrueType
    fonts), from the raw records of its runs (_runs_in_order): the voice stream's added RTT
    (flent.voice_stream(): EF, rrul_be's unmarked) as a CDF and over time (<test>-voice), the
    same for Flent's UDP latency probes of every class (<test>-latency: rrul's EF, BE and CS1,
    rrul_cs8's eight, rrul_be's three BE probes in one CDF and one line each over time; tests
    without class probes have none), and the TCP goodput per class and direction
    (<test>-goodput); returns the files' names."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["pdf.fonttype"] = 42
    matplotlib.rcParams["ps.fonttype"] = 42
    import matplotlib.pyplot as plt
    import numpy as np

    if not runs:
        return []
    written = []

    def save(fig, name):
        fig.tight_layout()
        for ext in ("png", "pdf"):
            fig.savefig(root / f"{name}.{ext}", dpi=110)
            written.append(f"{name}.{ext}")
        plt.close(fig)

    voice, voice_class = flent.voice_stream(test), flent.voice_class(test)
    fig, (cdf, ts) = plt.subplots(1, 2, figsize=(12, 4))
    for q, flows, rtt, _ in runs:
        _, r, x = _stream(flows, rtt, voice, rtt_ms)
        if not len(x):
            continue
        xs = np.sort(np.maximum(x, 1e-3))
        cdf.plot(xs, np.arange(1, len(xs) + 1) / len(xs), label=q)
        ts.plot(r["seqno"].to_numpy() * 0.02, x, label=q, linewidth=0.8)
    cdf.set_xscale("log")
    cdf.set_xlabel("added RTT (ms, log)")
    cdf.set_ylabel("CDF")
    cdf.set_title(f"{test}: voice stream (irtt, {voice_class})")
    cdf.grid(alpha=0.3)
    if cdf.get_legend_handles_labels()[0]:  # no run had the stream: no legend to draw
        cdf.legend(fontsize=8)
    ts.set_xlabel("time since the stream's start (s)")
    ts.set_yscale("symlog", linthresh=1)
    ts.set_ylabel("added RTT (ms, log above 1)")
    ts.set_title(f"{test}: voice stream over time")
    ts.grid(alpha=0.3)
    save(fig, f"{test}-voice")

    probes = _probe_classes(runs)
    if probes:
        fig, axes = plt.subplots(
            2, len(probes), figsize=(3.6 * len(probes) + 1, 7), squeeze=False, sharey="row"
        )
        for k, c in enumerate(probes):
            cdf, ts = axes[0][k], axes[1][k]
            for q, flows, rtt, meta in runs:
                up, r, x = _stream(flows, rtt, f"probe-{c}", rtt_ms)
                if not len(x):
                    continue
                xs = np.sort(np.maximum(x, 1e-3))
                (line,) = cdf.plot(xs, np.arange(1, len(xs) + 1) / len(xs), label=q)
                step = meta.get("flent_step_s") or 0.2
                # a class's probes together in the CDF, each its own line over time
                for j, fid in enumerate(up["flow_id"]):
                    one = r["flow_id"].to_numpy() == fid
                    ts.plot(
                        r["seqno"].to_numpy()[one] * step,
                        x[one],
                        label=q if j == 0 else None,
                        color=line.get_color(),
                        linewidth=0.8,
                    )
            cdf.set_xscale("log")
            cdf.set_xlabel("added RTT (ms, log)")
            cdf.set_title(f"{test}: Flent's UDP probe, {_probe_label(runs, c)}")
            cdf.grid(alpha=0.3)
            ts.set_yscale("symlog", linthresh=1)
            ts.set_xlabel("time since the probes' start (s)")
            ts.set_title(f"{c} over time (TCP flows running)")
            ts.grid(alpha=0.3)
        axes[0][0].set_ylabel("CDF")
        axes[1][0].set_ylabel("added RTT (ms, log above 1)")
        axes[0][0].legend(fontsize=7)
        save(fig, f"{test}-latency")

    classes = [
        c
        for c in flent.CLASS_ORDER
        if any(((f["type"] == f"up-{c}") | (f["type"] == f"down-{c}")).any() for _, f, _, _ in runs)
    ]
    dirs = [d for d in ("down", "up") if any((f["direction"] == d).any() for _, f, _, _ in runs)]
    fig, axes = plt.subplots(1, len(dirs), figsize=(6 * len(dirs), 4), squeeze=False)
    w = 0.8 / len(runs)
    for ax, d in zip(axes[0], dirs, strict=True):
        for k, (q, f, _, _) in enumerate(runs):
            ax.bar(
                np.arange(len(classes)) + k * w,
                [TB._mbps(f, type=f"{d}-{c}", kind="data") for c in classes],
                w,
                label=q,
            )
        ax.set_xticks(np.arange(len(classes)) + 0.4 - w / 2, classes)
        ax.set_ylabel("goodput (Mbit/s)")
        ax.set_title(f"{test}: TCP goodput per class, {d}load")
    axes[0][0].legend(fontsize=8)
    save(fig, f"{test}-goodput")
    return written


def probe_table(runs: list, rtt_ms: int) -> str:
    """Markdown table of Flent's UDP latency probe of every class in the runs of one test at
    one rate (_runs_in_order), from their raw records: added RTT median / p90 / p99 (ms) and
    loss (%) while the TCP flows run, a class's probes taken together (rrul_be's three BE
    probes: headed "BE, 3 probes"); "" when the test has no class probes."""
    import numpy as np

    classes = _probe_classes(runs)
    if not classes:
        return ""
    lines = [
        "| qdisc | "
        + " | ".join(
            f"{lb} +med / p90 / p99 | {lb} loss %"
            for lb in (_probe_label(runs, c) for c in classes)
        )
        + " |",
        "|---|" + "---:|---:|" * len(classes),
    ]
    for q, flows, rtt, _ in runs:
        cells = []
        for c in classes:
            up, _, x = _stream(flows, rtt, f"probe-{c}", rtt_ms)
            if not len(x):
                cells += ["", ""]
                continue
            med, p90, p99 = (flent._fmt(float(v)) for v in np.quantile(x, [0.5, 0.9, 0.99]))
            tx, lost = int(up["tx_packets"].sum()), int(up["lost_packets"].sum())
            cells += [f"{med} / {p90} / {p99}", flent._fmt(100 * lost / tx if tx else float("nan"))]
        lines.append(f"| {q} | " + " | ".join(cells) + " |")
    return (
        "Flent's UDP latency probes (irtt, one per class unless the header says more, every "
        "0.2 s) while the TCP flows run: added RTT in ms, loss in %.\n\n" + "\n".join(lines)
    )


def headline(rates: list[Rate], rows: dict, test: str = "rrul") -> str:
    """One table of the voice stream's (flent.voice_stream(): EF, rrul_be's unmarked) and of
    Flent's ping's added latency (median / p99, ms) under ``test`` per rate (rows) and qdisc
    (columns): the comparison an operator reads first."""
    qdiscs: list[str] = []
    for rate in rates:
        for r in rows.get((rate.label, test), []):
            if r["qdisc"] not in qdiscs:
                qdiscs.append(r["qdisc"])
    if not qdiscs:
        return ""

    def cell(r, med, p99):
        if r is None:
            return "-"
        return f"{flent._fmt(r.get(med, float('nan')))} / {flent._fmt(r.get(p99, float('nan')))}"

    lines = []
    for what, med, p99 in (
        (f"voice stream (irtt, {flent.voice_class(test)})", "ef_med", "ef_p99"),
        ("Flent's ping (ICMP, unmarked)", "icmp_med", "icmp_p99"),
    ):
        lines += [
            f"{test}, {what}: added RTT median / p99 (ms)",
            "",
            "| rate | " + " | ".join(qdiscs) + " |",
            "|---|" + "---|" * len(qdiscs),
        ]
        for rate in rates:
            by_q = {r["qdisc"]: r for r in rows.get((rate.label, test), [])}
            cells = [cell(by_q.get(q), med, p99) for q in qdiscs]
            lines.append(f"| {rate.text} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def tables(out: Path, rates: list[Rate], tests: list[str], rows: dict, args) -> str:
    """OUT/tables.md and OUT/summary.json: per rate the Flent tests' summary tables and the
    iperf3 tests' tables (also in OUT/<rate>/tables.md)."""
    parts = [
        "# Deterministic UML testbed",
        "",
        f"Base RTT {args.rtt_ms} ms, {args.duration} s per test, UML time-travel=inf-cpu, "
        f"seed {args.seed}. " + flent.TABLE_NOTE,
    ]
    heads = [headline(rates, rows, t) for t in HEADLINE_TESTS if t in tests]
    heads = [h for h in heads if h]
    if heads:
        parts += ["", "## Latency under load, every rate", "", "\n".join(heads)]
    for rate in rates:
        parts += ["", f"## {rate.text}"]
        for test in tests:
            if test in flent.TESTS and rows.get((rate.label, test)):
                cls = flent.voice_class(test)
                parts += [
                    "",
                    f"### {test}",
                    "",
                    flent.table(rows[(rate.label, test)], cls),
                ]
                if flent.voice_dscp(test) != flent.EF:
                    parts += [
                        "",
                        f"{test}'s voice stream is sent as {cls} (DSCP "
                        f"{flent.voice_dscp(test)}): its columns are headed {cls}.",
                    ]
                runs = _runs_in_order(out / rate.label, test)
                probes = probe_table(runs, args.rtt_ms)
                if probes:
                    parts += ["", probes]
                figs = flent_plots(out / rate.label, test, runs, args.rtt_ms)
                if figs:
                    parts += ["", "Figures: " + ", ".join(f"`{rate.label}/{f}`" for f in figs)]
        bench = [t for t in tests if t in BENCH_TESTS and (out / rate.label / t).is_dir()]
        if bench:
            md = TB.tables(out / rate.label, bench)
            (out / rate.label / "tables.md").write_text(md)
            TB.plots(out / rate.label, bench)
            parts += ["", md.replace("\n### ", "\n#### ")]
    md = "\n".join(parts) + "\n"
    (out / "tables.md").write_text(md)
    summary = {f"{r}/{t}": v for (r, t), v in sorted(rows.items())}
    (out / "summary.json").write_text(json.dumps(summary, indent=1, default=str) + "\n")
    return md


def _add(out: Path, rate: Rate, test: str, qdisc: str, res, args, hashes: dict, rows: dict):
    """Record one finished boot (record()) and keep its hash and summary row."""
    h, row = record(out, rate, test, qdisc, res, args.duration, args.rtt_ms)
    hashes.setdefault((rate, test), []).append((qdisc, h))
    if row is not None:
        rows.setdefault((rate.label, test), []).append(row)


def _finish(out: Path, rates, tests, qdiscs, hashes: dict, rows: dict, args) -> None:
    """The studies of every rate and test, and the tables with their rows in ``qdiscs``'
    order."""
    for (rate, test), runs in hashes.items():
        _write_study(out, rate, test, runs, args.duration, args.rtt_ms)
    order = {q: k for k, q in enumerate(qdiscs)}
    for v in rows.values():
        v.sort(key=lambda r: order.get(r["qdisc"], len(order)))
    print(tables(out, rates, tests, rows, args))


def bench(args) -> int:
    out = Path(args.out)
    rates = parse_rates(args.rates)
    tests = _names(args.tests, TESTS, "test")
    qdiscs = _names(args.qdiscs, R.QDISCS, "qdisc")
    if args.duration < 2 * flent.IRTT_MARGIN_S + 2:
        raise ValueError(f"--duration {args.duration}: at least {2 * flent.IRTT_MARGIN_S + 2} s")
    uml.check_ready(args.kernel, args.root, args.kdir)
    jobs = args.jobs or ((os.cpu_count() or 1) if uml.sandboxed(args.kdir) else 1)
    if jobs > 1 and not uml.sandboxed(args.kdir):
        print("msfc.linux: boots take turns (no mount namespace: not root?)", file=sys.stderr)
        jobs = 1
    plan = [(r, t, q) for r in rates for t in tests for q in qdiscs]
    t_all = time.monotonic()

    def one(item):
        rate, test, qdisc = item
        if test in flent.TESTS:
            script = flent.flent_script(
                test, qdisc, rate.down_kbit, rate.up_kbit, args.duration, args.rtt_ms
            )
        else:
            script = bench_script(test, qdisc, rate, args.duration, args.rtt_ms)
        job = _job_dir(out, rate, test, qdisc)
        res = uml.run_job(
            script,
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
        return item, res

    hashes: dict[tuple, list[tuple[str, str]]] = {}
    rows: dict[tuple, list[dict]] = {}
    failed = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(one, item) for item in plan]
        for fut in as_completed(futures):
            (rate, test, qdisc), res = fut.result()
            where = f"{test} through {qdisc} at {rate.text}"
            if res.exit_code != 0:
                job = _job_dir(out, rate, test, qdisc)
                failed.append(where)
                print(
                    f"msfc.linux: {where}: job exit {res.exit_code}, see {job}/out/job.log",
                    file=sys.stderr,
                )
                continue
            _add(out, rate, test, qdisc, res, args, hashes, rows)
            print(f"msfc.linux: {where}: {res.wall_seconds:.0f} s", file=sys.stderr)
    _finish(out, rates, tests, qdiscs, hashes, rows, args)
    print(
        f"msfc.linux: {len(plan)} runs in {time.monotonic() - t_all:.0f} s ({jobs} at a time); "
        f"output {out}",
        file=sys.stderr,
    )
    if failed:
        print(f"msfc.linux: failed: {'; '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


def convert(args) -> int:
    """Records, studies and tables again from the boots kept under OUT/<rate>/raw."""
    out = Path(args.out)
    found = sorted(out.glob("*mbit/raw/*/*/result.json"))
    if not found:
        print(f"msfc.linux: {out} holds no runs (OUT/<rate>/raw/<test>/<qdisc>)", file=sys.stderr)
        return 1
    hashes: dict[tuple, list[tuple[str, str]]] = {}
    rows: dict[tuple, list[dict]] = {}
    rates: dict[str, Rate] = {}
    tests: list[str] = []
    for res_json in found:
        job = res_json.parent
        qdisc, test, label = job.name, job.parent.name, job.parent.parent.parent.name
        rate = rates.setdefault(label, Rate.from_label(label))
        res = _load(job)
        if res.exit_code != 0 or test not in TESTS:
            continue
        if test not in tests:
            tests.append(test)
        _add(out, rate, test, qdisc, res, args, hashes, rows)
    tests.sort(key=TESTS.index)
    by_rate = sorted(rates.values(), key=lambda r: (r.down_kbit, -r.up_kbit))
    _finish(out, by_rate, tests, R.QDISCS, hashes, rows, args)
    return 0
