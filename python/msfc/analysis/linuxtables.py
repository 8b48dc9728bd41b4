"""The UML testbed's published tables (docs/linux-testbed.md, docs/linux-testbed-uml-tables.md)
as doc tables: their data collected from a ``python -m msfc.linux bench`` results directory,
and the tables made from that data (msfc.analysis.doctables registers them).

A group is one bench run (:data:`GROUPS`): its data is one tidy CSV beside the docs, one row
per value a table shows, with the columns

    rate    the rate's label (2mbit, 100-20mbit)
    test    the Flent test (rrul, ...) or the iperf3 table (shares, cubic_bbr, dos, hosts)
    table   summary (the Flent test's summary row, ``column`` its key in summary.json),
            probes (Flent's UDP probe of a class, ``column`` "<class> med|p90|p99|loss %"),
            or the iperf3 table's name (``column`` its heading)
    qdisc   the row
    column  what the value is
    value   the value as the bench's tables print it (3 significant digits, "nan", a grade)

in the order the bench's tables give them. The collector reads what the bench wrote into the
results directory (``summary.json``, and the runs' raw records, through the bench's own table
code), so the values are the bench's, digit for digit.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import UserError
from ..linux import flent
from ..linux import tables as TB
from ..linux import umlbench as UB

COLUMNS = ["rate", "test", "table", "qdisc", "column", "value"]


@dataclass(frozen=True)
class Group:
    name: str
    data: str  # the CSV, relative to the repository
    command: str  # the bench run that measures it (its --out is RESULTS)
    seed: int | None = 1  # the bench's --seed (its default); None: the bench has none
    #: which bench wrote RESULTS: "uml" (python -m msfc.linux bench, collect_rows) or "vm"
    #: (make bench-linux-vm, Debian's stock kernel under qemu, collect_vm_rows)
    testbed: str = "uml"


#: every qdisc of the catalogue that a table of docs/linux-testbed.md compares at 20 Mbit/s
ALL20_QDISCS = (
    "msfc",
    "msfc_lowrate",
    "msfc_boost",
    "msfc_class",
    "msfc_prevent",
    "msfc_recommended",
    "msfc_priority",
    "msfc_across",
    "msfc_across_priority",
    "msfc_isolate",
    "cake_ds3",
    "cake_ds4",
    "cake_ds4_dual",
    "sqm",
    "fq_codel",
    "fq_pie",
    "pfifo_fast",
)

#: the qdiscs of the stock-kernel VM's tables (docs/linux-testbed.md): the thesis mode, the
#: low-rate CoDel setting, every mode a table there discusses, and the peers
VM_QDISCS = (
    "msfc",
    "msfc_lowrate",
    "msfc_boost",
    "msfc_class",
    "msfc_prevent",
    "msfc_recommended",
    "msfc_across_priority",
    "msfc_ds4",
    "msfc_isolate",
    "cake_ds3",
    "cake_ds4",
    "cake_ds4_dual",
    "sqm",
    "fq_codel",
    "pfifo_fast",
)

GROUPS = {
    g.name: g
    for g in (
        Group(
            "uml",
            "docs/linux-testbed/uml.csv",
            "python -m msfc.linux bench --out results/linux-testbed",
        ),
        Group(
            "rrul_be",
            "docs/linux-testbed/rrul_be.csv",
            "python -m msfc.linux bench --out results/uml-rrul_be --rates 2,20,100 --tests rrul_be"
            " --qdiscs fq_codel,cake_be,msfc_recommended,msfc_auto,msfc_bw_auto",
        ),
        Group(
            "all20",
            "docs/linux-testbed/all20.csv",
            "python -m msfc.linux bench --out results/linux-testbed-all --rates 20 --tests rrul,hosts"
            " --qdiscs " + ",".join(ALL20_QDISCS),
        ),
        Group(
            "ds4",
            "docs/linux-testbed/ds4.csv",
            "python -m msfc.linux bench --out results/uml-ds4 --rates 2,20,100"
            " --tests rrul,dos_higher --qdiscs cake_ds4,msfc_ds4,msfc_bw_ds4",
        ),
        Group(
            "vm",
            "docs/linux-testbed/vm.csv",
            f"make bench-linux-vm VM_ARGS='--qdiscs {','.join(VM_QDISCS)}'",
            seed=None,
            testbed="vm",
        ),
    )
}

#: the iperf3 tables of msfc.linux.tables.tables(), by their heading there
BENCH_TABLES = {
    "shares": (
        "Class shares: 1 + 10 TCP uploads in each of CS1, BE, CS5 (shares: of the goodput over "
        "the whole test; counters: of the bytes msfc's classes sent upstream after the test's "
        "first third, where the tools print classes as JSON)"
    ),
    "cubic_bbr": "CUBIC against BBR, one flow each, both BE",
    "dos": "Seed 001's DoS: one BE TCP flow against 10 UDP flows at 120 % of the link (Mbit/s)",
    "hosts": (
        "Per-host isolation: host A one TCP flow each way, host B N flows, all BE (Mbit/s; "
        "A/B = 1 is per-host fairness, 1/N per-flow)"
    ),
}
#: the tables of the VM's msfc.linux.tables.tables() that BENCH_TABLES does not name: the
#: RRUL-like test's, by their heading there
VM_TABLES = {
    "rrul_goodput": "RRUL-like: TCP goodput per class (Mbit/s)",
    "rrul_irtt": (
        "RRUL-like: irtt (20 ms, 172 B) RTT median / p99 (ms), loss (%), one-way jitter (ms)"
    ),
}
PROBE_PARTS = ("med", "p90", "p99")


# -- collecting --------------------------------------------------------------------------------


def _md_tables(md: str) -> list[tuple[str, list[str], list[list[str]]]]:
    """(heading, header cells, rows of cells) of every Markdown table in md; the heading is the
    text of the last "### " line before it ("" for none)."""
    out, heading, table = [], "", None
    for line in md.splitlines():
        if line.startswith("### "):
            heading = line[4:]
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip()[1:-1].split("|")]
            if table is None:
                table = (heading, cells, [])
                out.append(table)
            elif not all(set(c) <= set("-:") for c in cells):
                table[2].append(cells)
        else:
            table = None
    return out


def _rate(label: str) -> UB.Rate:
    return UB.Rate.from_label(label)


def _rates(labels) -> list[UB.Rate]:
    return sorted({_rate(x) for x in labels}, key=lambda r: (r.down_kbit, -r.up_kbit))


def collect_rows(results: Path) -> tuple[list[dict], dict]:
    """The tidy rows of every table the bench wrote into ``results`` (OUT of python -m
    msfc.linux bench), and its settings (rtt_ms, duration_s) and the last run's start."""
    f = results / "summary.json"
    if not f.is_file():
        raise UserError(f"{f} missing: {results} is not the --out of python -m msfc.linux bench", 1)
    summary = json.loads(f.read_text())
    rows: list[dict] = []
    settings: dict = {}
    started: list[str] = []

    def add(rate, test, table, qdisc, column, value):
        rows.append(dict(zip(COLUMNS, (rate, test, table, qdisc, column, value), strict=True)))

    labels = {k.split("/")[0] for k in summary}
    labels |= {d.name for d in results.glob("*mbit") if d.is_dir()}
    for rate in _rates(labels):
        root = results / rate.label
        for test in flent.TESTS:
            got = summary.get(f"{rate.label}/{test}")
            if not got:
                continue
            keys = [
                k for k, _ in flent.SUMMARY_COLUMNS[1:] if any(flent._shown(r.get(k)) for r in got)
            ]
            for r in got:
                for k in keys:
                    add(rate.label, test, "summary", r["qdisc"], k, flent._fmt(r.get(k, "")))
            study = json.loads((root / test / "study.json").read_text())["testbed"]
            settings.setdefault("rtt_ms", study["rtt_ms"])
            settings.setdefault("duration_s", study["duration_s"])
            runs = UB._runs_in_order(root, test)
            started += [m.get("started_utc", "") for *_, m in runs]
            for _, head, cells in _md_tables(UB.probe_table(runs, settings["rtt_ms"])):
                for c in cells:
                    for h, v in zip(head[1:], c[1:], strict=True):
                        if h.endswith(" +med / p90 / p99"):
                            lb = h[: -len(" +med / p90 / p99")]
                            parts = v.split(" / ") if v else [""] * 3
                            for p, x in zip(PROBE_PARTS, parts, strict=True):
                                add(rate.label, test, "probes", c[0], f"{lb} {p}", x)
                        else:
                            add(rate.label, test, "probes", c[0], h, v)
        bench = [t for t in UB.BENCH_TESTS if (root / t).is_dir()]
        if bench:
            got, metas = _tables_rows(root, bench, rate.label, BENCH_TABLES)
            rows += got
            started += [m.get("started_utc", "") for m in metas]
    if not rows:
        raise UserError(f"{results} holds no tables (no runs in {f})", 1)
    settings["measured"] = _latest(started)
    return rows, settings


def _tables_rows(
    root: Path, tests: list[str], rate: str, known: dict[str, str]
) -> tuple[list[dict], list[dict]]:
    """The tidy rows of msfc.linux.tables.tables() of ``tests`` in ``root`` (``test`` and
    ``table`` the key in ``known`` of the table's heading; a heading not known is refused),
    and the meta.json of every run of those tests."""
    titles = {v: k for k, v in known.items()}
    rows = []
    for heading, head, cells in _md_tables(TB.tables(root, tests)):
        if heading not in titles:
            raise UserError(f"{root}: a table this collector does not know: {heading!r}", 1)
        name = titles[heading]
        for c in cells:
            for h, v in zip(head[1:], c[1:], strict=True):
                rows.append(dict(zip(COLUMNS, (rate, name, name, c[0], h, v), strict=True)))
    return rows, [m for t in tests for *_, m in TB._runs(root, t)]


def _latest(started: list[str]) -> str:
    """The last of the runs' start times ("" for none)."""
    return max((s for s in started if s), default="")


def collect_vm_rows(results: Path) -> tuple[list[dict], dict]:
    """The tidy rows of every table make bench-linux-vm wrote into ``results`` (its --out),
    as msfc.linux.tables.tables() computes them from the runs (``rate`` the bottleneck's
    label, ``test`` and ``table`` the table's key in VM_TABLES or BENCH_TABLES), and the
    run's settings (rtt_ms, duration_s, rate_kbit, kernel, accel, smp), the last run's
    start."""
    from ..linux.records import TESTS as VM_TESTS

    tests = [t for t in VM_TESTS if (results / t / "study.json").is_file()]
    if not tests:
        raise UserError(
            f"{results} holds no study of make bench-linux-vm (<test>/study.json): "
            "give the bench's --out",
            1,
        )
    study = json.loads((results / tests[0] / "study.json").read_text())["testbed"]
    if study.get("rate_up_kbit", study["rate_kbit"]) != study["rate_kbit"]:
        raise UserError(f"{results}: the VM's tables are of one rate each way", 1)
    rate = UB.Rate(study["rate_kbit"], study["rate_kbit"]).label
    rows, metas = _tables_rows(results, tests, rate, {**VM_TABLES, **BENCH_TABLES})
    testbeds = [m["testbed"] for m in metas]
    settings = {
        "rate_kbit": study["rate_kbit"],
        "rtt_ms": study["rtt_ms"],
        "duration_s": study["duration_s"],
        **{
            k: sorted({str(tb.get(k, "")) for tb in testbeds})
            for k in ("kernel", "accel", "smp", "qemu")
        },
        "measured": _latest([m.get("started_utc", "") for m in metas]),
    }
    return rows, settings


def write_csv(rows: list[dict], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as fh:
        w = csv.DictWriter(fh, COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def read(path: Path) -> pd.DataFrame:
    """A group's data, every value as the text the tables print."""
    return pd.read_csv(path, dtype=str, keep_default_na=False)


# -- the tables --------------------------------------------------------------------------------


def _summary_rows(d: pd.DataFrame) -> dict[tuple[str, str], list[dict]]:
    """{(rate label, test): [summary row per qdisc]} as umlbench.tables() gets them, the
    values as text ("nan" as NaN, so that flent.table() leaves the column out as before)."""
    s = d[d["table"] == "summary"]
    out: dict[tuple[str, str], list[dict]] = {}
    for (rate, test), g in s.groupby(["rate", "test"], sort=False):
        rows = []
        for q in pd.unique(g["qdisc"]):
            r: dict = {"qdisc": q}
            for _, x in g[g["qdisc"] == q].iterrows():
                r[x["column"]] = math.nan if x["value"] == "nan" else x["value"]
            rows.append(r)
        out[(rate, test)] = rows
    return out


def md_head(header: list[str], align: str | list[str] = "---") -> list[str]:
    """The header and separator lines of a Markdown table; ``align`` is every column's
    separator cell ("---", "---:"), or one per column."""
    cells = [align] * len(header) if isinstance(align, str) else align
    if len(cells) != len(header):
        raise ValueError(f"{len(cells)} alignments for {len(header)} columns")
    return ["| " + " | ".join(header) + " |", "|" + "".join(f"{a}|" for a in cells)]


def md_table(header: list[str], rows: list[list[str]], align: str | list[str] = "---") -> str:
    """A Markdown table of text cells (no last newline): md_head's lines, then a line per
    row."""
    lines = md_head(header, align) + ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _wide(g: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """The columns (first seen first) and one row per qdisc of a table's tidy rows."""
    cols = list(pd.unique(g["column"]))
    rows = []
    for q in pd.unique(g["qdisc"]):
        v = dict(zip(g[g["qdisc"] == q]["column"], g[g["qdisc"] == q]["value"], strict=True))
        rows.append([q, *(v.get(c, "") for c in cols)])
    return cols, rows


def probe_table(g: pd.DataFrame) -> str:
    """umlbench.probe_table() from the probe rows of one rate and test."""
    cols, rows = _wide(g)
    labels = list(dict.fromkeys(c[: -len(" med")] for c in cols if c.endswith(" med")))
    head, body = [], [[r[0]] for r in rows]
    for lb in labels:
        head += [f"{lb} +med / p90 / p99", f"{lb} loss %"]
        for r, b in zip(rows, body, strict=True):
            v = dict(zip(cols, r[1:], strict=True))
            parts = [v.get(f"{lb} {p}", "") for p in PROBE_PARTS]
            b += [" / ".join(parts) if any(parts) else "", v.get(f"{lb} loss %", "")]
    return (
        "Flent's UDP latency probes (irtt, one per class unless the header says more, every "
        "0.2 s) while the TCP flows run: added RTT in ms, loss in %.\n\n"
        + md_table(["qdisc", *head], body, ["---"] + ["---:"] * len(head))
    )


def _figures(rate: str, test: str, probes: bool) -> str:
    names = ["voice", *(["latency"] if probes else []), "goodput"]
    return "Figures: " + ", ".join(
        f"`{rate}/{test}-{n}.{ext}`" for n in names for ext in ("png", "pdf")
    )


def bench_tables(d: pd.DataFrame, rate: UB.Rate, meta: dict) -> str:
    """msfc.linux.tables.tables() of one rate from its rows (headings one level down, as in
    OUT/tables.md)."""
    st = meta["settings"]
    parts = [
        f"Bottleneck {rate.text}, base RTT {st['rtt_ms']} ms, {st['duration_s']} s per test.\n"
    ]
    for name, title in BENCH_TABLES.items():
        g = d[(d["rate"] == rate.label) & (d["table"] == name)]
        if len(g):
            cols, rows = _wide(g)
            parts += [f"\n#### {title}\n", md_table(["qdisc", *cols], rows) + "\n"]
    return "\n".join(parts)


def every_table(d: pd.DataFrame, meta: dict) -> str:
    """OUT/tables.md of the bench run below its title: umlbench.tables() from the data."""
    st = meta["settings"]
    rows = _summary_rows(d)
    rates = _rates(pd.unique(d["rate"]))
    tests = [t for t in UB.TESTS if t in set(d["test"])]
    parts = [
        f"Base RTT {st['rtt_ms']} ms, {st['duration_s']} s per test, UML time-travel=inf-cpu, "
        f"seed {st['seed']}. " + flent.TABLE_NOTE
    ]
    heads = [UB.headline(rates, rows, t) for t in UB.HEADLINE_TESTS if t in tests]
    heads = [h for h in heads if h]
    if heads:
        parts += ["", "## Latency under load, every rate", "", "\n".join(heads)]
    for rate in rates:
        parts += ["", f"## {rate.text}"]
        for test in tests:
            if test in flent.TESTS and rows.get((rate.label, test)):
                cls = flent.voice_class(test)
                parts += ["", f"### {test}", "", flent.table(rows[(rate.label, test)], cls)]
                if flent.voice_dscp(test) != flent.EF:
                    parts += [
                        "",
                        f"{test}'s voice stream is sent as {cls} (DSCP "
                        f"{flent.voice_dscp(test)}): its columns are headed {cls}.",
                    ]
                g = d[(d["rate"] == rate.label) & (d["test"] == test) & (d["table"] == "probes")]
                if len(g):
                    parts += ["", probe_table(g)]
                parts += ["", _figures(rate.label, test, bool(len(g)))]
        if len(d[(d["rate"] == rate.label) & d["table"].isin(list(BENCH_TABLES))]):
            parts += ["", bench_tables(d, rate, meta)]
    return "\n".join(parts)


def headline(d: pd.DataFrame, test: str, what: str) -> str:
    """One of umlbench.headline()'s two tables (``what``: "voice" or "ping"), without its
    caption."""
    rates = _rates(pd.unique(d[d["test"] == test]["rate"]))
    text = UB.headline(rates, _summary_rows(d), test)
    tables = text.split("\n\n")
    return tables[1 if what == "voice" else 3].strip("\n")


def _cell(v: dict, *keys: str) -> str:
    """The values of ``keys`` joined by " / ", "-" for one the data lacks, "-" for none."""
    got = [v.get(k) or "-" for k in keys]
    return "-" if all(x == "-" for x in got) else " / ".join(got)


def probes_by_qdisc(d: pd.DataFrame, rate: str, test: str) -> str:
    """The probes of every class of one rate and test, median / p90 / p99 per class, the
    qdiscs in the bench's order."""
    g = d[(d["rate"] == rate) & (d["test"] == test) & (d["table"] == "probes")]
    order = list(pd.unique(d[(d["rate"] == rate) & (d["test"] == test)]["qdisc"]))
    cols, rows = _wide(g)
    labels = list(dict.fromkeys(c[: -len(" med")] for c in cols if c.endswith(" med")))
    by_q = {r[0]: dict(zip(cols, r[1:], strict=True)) for r in rows}
    body = [
        [f"{q}", *(_cell(by_q[q], *(f"{lb} {p}" for p in PROBE_PARTS)) for lb in labels)]
        for q in order
        if q in by_q
    ]
    return md_table(["qdisc", *labels], body)


def probes_by_rate(d: pd.DataFrame, test: str, qdiscs: list[str], classes: list[str]) -> str:
    """Median / p99 of the probes of ``classes`` under ``qdiscs`` (the first class's column
    names its qdisc), a row per symmetric rate."""
    g = d[(d["test"] == test) & (d["table"] == "probes")]
    head = [f"{q} {c}" if k == 0 else c for q in qdiscs for k, c in enumerate(classes)]
    body = []
    for rate in _rates(pd.unique(g["rate"])):
        if rate.down_kbit != rate.up_kbit:
            continue
        r = g[g["rate"] == rate.label]
        cells = []
        for q in qdiscs:
            v = dict(zip(r[r["qdisc"] == q]["column"], r[r["qdisc"] == q]["value"], strict=True))
            cells += [_cell(v, f"{c} med", f"{c} p99") for c in classes]
        body.append([f"{rate.down_kbit / 1000:g} Mbit/s", *cells])
    return md_table(["rate", *head], body)


def ds4(d: pd.DataFrame) -> str:
    """msfc's own shaper against cake's and htb + msfc (rrul and dos_higher), a row per rate."""
    s = _summary_rows(d)

    def summ(rate, q):
        return next((r for r in s.get((rate, "rrul"), []) if r["qdisc"] == q), {})

    def dos(rate, q):
        g = d[(d["rate"] == rate) & (d["table"] == "dos") & (d["qdisc"] == q)]
        return dict(zip(g["column"], g["value"], strict=True)).get("TCP (flood EF)", "-")

    head = [
        "voice med / p99 (ms): cake_ds4",
        "msfc_ds4",
        "msfc_bw_ds4",
        "ping med / p99: cake_ds4",
        "msfc_bw_ds4",
        "EF flood, BE TCP keeps (Mbit/s): cake_ds4",
        "msfc_bw_ds4",
        "rrul goodput down / up: cake_ds4",
        "msfc_bw_ds4",
    ]
    body = []
    for rate in _rates(pd.unique(d["rate"])):
        x = rate.label
        body.append(
            [
                f"{rate.down_kbit / 1000:g} Mbit/s",
                *(_cell(summ(x, q), "ef_med", "ef_p99") for q in ("cake_ds4", "msfc_ds4")),
                _cell(summ(x, "msfc_bw_ds4"), "ef_med", "ef_p99"),
                *(_cell(summ(x, q), "icmp_med", "icmp_p99") for q in ("cake_ds4", "msfc_bw_ds4")),
                *(dos(x, q) for q in ("cake_ds4", "msfc_bw_ds4")),
                *(_cell(summ(x, q), "down_total", "up_total") for q in ("cake_ds4", "msfc_bw_ds4")),
            ]
        )
    return md_table(["rate", *head], body)


def rrul_overview(d: pd.DataFrame, rate: str) -> str:
    """rrul at one rate, a row per qdisc in the bench's order: the voice stream's and the
    ping's added RTT (median / p99, ms), the goodput totals up and down (Mbit/s) and Jain's
    index of the uploads."""
    rows = _summary_rows(d).get((rate, "rrul"))
    if not rows:
        raise UserError(f"the data has no rrul at {rate}: measure it again", 1)
    body = [
        [
            f"`{r['qdisc']}`",
            _cell(r, "ef_med", "ef_p99"),
            _cell(r, "icmp_med", "icmp_p99"),
            _cell(r, "up_total"),
            _cell(r, "down_total"),
            _cell(r, "up_jain"),
        ]
        for r in rows
    ]
    return md_table(["qdisc", "voice", "ping", "up", "down", "up Jain"], body)


def bench_table(d: pd.DataFrame, rate: str, name: str) -> str:
    """One of the iperf3 tables (BENCH_TABLES) at one rate, as OUT/tables.md gives it."""
    g = d[(d["rate"] == rate) & (d["table"] == name)]
    if g.empty:
        raise UserError(f"the data has no {name} table at {rate}: measure it again", 1)
    cols, rows = _wide(g)
    return md_table(["qdisc", *cols], rows)


def vm_table(d: pd.DataFrame, name: str) -> str:
    """One of the VM's tables (VM_TABLES, BENCH_TABLES) as its OUT/tables.md gives it; the
    data is of one rate."""
    rates = list(pd.unique(d["rate"]))
    if len(rates) != 1:
        raise UserError(f"the VM's data holds {len(rates)} rates ({', '.join(rates)}), not one", 1)
    return bench_table(d, rates[0], name)
