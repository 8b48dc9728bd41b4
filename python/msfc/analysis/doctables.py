"""Tables in the docs that are made from committed data, and the check that they still are.

A generated table sits between two marker lines in a Markdown file::

    <!-- table: seed001-thin -->
    | scheduler | 1 bulk | ...
    <!-- /table -->

and :data:`TABLES` says where its data is (a CSV committed beside the docs), how the rows
become the table, which command measures the data again, and which source paths the data
depends on. Beside each data file a ``<data>.stamp.json`` records what it was measured with:
the date, the command, the machine, the commit and, per dependency path, a digest of the
tracked files under it.

    python -m msfc.analysis.doctables --list          the tables, their data and commands
    python -m msfc.analysis.doctables --check         every table equals what its data gives, and no
                                             data is older than the code it depends on
    python -m msfc.analysis.doctables --write         rewrite the tables from their data
    python -m msfc.analysis.doctables --stamp NAME    after measuring NAME's data again: record the
                                             digests of its dependencies as they are now
        [--commit C] [--measured DATE]       ... as they were at commit C, the run made on DATE
    python -m msfc.analysis.doctables --collect-isp NAME RESULTS...
                                             an ISP-tree table's data (docs/isp-tree/NAME.csv):
                                             the per-type rows of the summary.csv of each of
                                             its runs (the --out directories RESULTS, or their
                                             parent)
    python -m msfc.analysis.doctables --collect-sweeps NAME RESULTS...
                                             a table of sweeps of any scenario (docs/cli.md's
                                             modes): the per-type and overall rows of each
                                             sweep's summary.csv
    python -m msfc.analysis.doctables --collect-linux GROUP RESULTS --commit C
                                             a Linux testbed's data of GROUP (the UML
                                             bench's uml, rrul_be, all20, ds4; vm: make
                                             bench-linux-vm's; msfc.analysis.linuxtables) from
                                             the --out of its bench run, measured at commit C,
                                             and its stamp
    python -m msfc.analysis.doctables --accept NAME --why TEXT
                                             NAME's dependencies changed after its measuring
                                             commit in a way that cannot change its data (TEXT
                                             says how): record them as they are now

"Depends on" is decided by the paths listed per table: a digest over the content of every
file git tracks under a path, so a change anywhere in them, committed or not, makes the data
stale, and a change elsewhere does not. The check fails naming the paths that changed (for
the Linux tables also the commits since the measuring commit that changed them) and the
command that measures the data again. The paths per kind of table:

- the ns-3 tables (:data:`NS3`): the simulation model (model/, helper/'s scheduler registry,
  the UAPI header it compiles in), the scenarios' shared code and the build files, and the
  scenario program; for the seeds' tables also the Python that runs the simulations and turns
  their files into the CSV (:data:`SEED_PY`) and the experiment's driver (not the docs, other
  scenarios, other drivers or the kernel's qdisc);
- the UML testbed's tables (:data:`LINUX`): what decides what the testbed measures and how
  its raw results become numbers: the qdisc (kernel/net/sched) and its UAPI header, tc's plugin
  and its build, the UML kernel's config and the build that prepares its tree, msfc's KUnit
  suite, which that kernel runs at every boot, with the trace replay it compiles in
  (test/vectors, written by python/msfc/model's reference and generator), the guest's
  side of the testbed (init, Flent and iperf3 jobs, network, fixed randomness, sandbox, root
  tree) and the Python that writes the jobs, boots UML and converts the guest's files
  (python/msfc/linux: flent, records, tables, uml, umlbench). Not the qemu VM's files, the
  docs, nor the code that collects and prints the tables (that is what --check compares);
- the stock-kernel VM's tables (:data:`VM_BENCH`): the qdisc and its UAPI header as DKMS
  builds them, tc's plugin and its build, the VM (kernel/vm: images, initramfs, guest jobs,
  network) and the Python that boots it and turns the guest's files into runs and tables
  (python/msfc/linux: qemu, records, tables, vm).

A stamp that does not list a dependency (one named after it was written) counts as measured
with that path as it was at the stamp's commit.

The seeds' tables (docs/seeds.md, data in docs/seeds/) end with a line naming their data, the
commit and date of its run and the command (the stamp's); --check also requires the Markdown
table the seeds' writer puts beside each of their CSVs (<data>.md) to be what it makes of the
CSV.

The ISP tree's `quick` tables (docs/isp-tree.md, data in docs/isp-tree/) are made from the
rows ``level == type``, ``direction == down`` of the summary.csv of the sweeps, compares and
runs the doc gives, one study per --out directory (its name); a column is one configuration of
one study (:class:`IspCol`), or the thesis's published value (msfc/data/thesis-tables.json)
times the run's rate scale. They end with the same line as the seeds' tables.

docs/cli.md's table of the modes' presets is made the same way from sweeps of three scenarios
(--collect-sweeps: every RNG run's per-type and overall download rows), each cell the mean over
the runs with its interval as the sweeps print it.

A Linux table's stamp is written with its data by --collect-linux: ``commit`` is the commit
the testbed was measured at (the results do not record it: the one the UML kernel was built
at), ``measured`` the date of its last run, and the digests are those of the dependencies at
that commit, taken from git, so a later change to any of them makes the check fail until the
data is measured again, or the change is reviewed and --accept records it (the stamp keeps the
measuring commit and lists, under ``accepted``, the commits since it, and why). --accept takes
any table; for the ns-3 tables that take minutes to measure again (the seeds', the `quick`
ISP tables) measuring is the better review, for the full-scale ISP tables (hours of CPU) a
`quick` table measured again byte-identical after the same change is the evidence to cite. Each Linux
table ends with a line naming its data, the measuring commit, the date and the command.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import importlib
import json
import platform
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from .. import seeds as S
from ..errors import UserError
from ..seeds import shaping as SH
from ..seeds import shaping_metrics as sm
from ..sim import isp_cost as ISP_COST
from . import linuxtables as LT

ROOT = Path(__file__).resolve().parents[3]
BEGIN = "<!-- table: {} -->"
END = "<!-- /table -->"


@dataclass(frozen=True)
class DocTable:
    name: str
    doc: str  # the Markdown file, relative to the repository
    data: str  # the CSV the table is made from, relative to the repository
    render: Callable[[pd.DataFrame], str]
    command: str  # measures the data again (then copy its CSV to `data` and --stamp)
    depends: tuple[str, ...]  # paths whose content the data depends on
    #: the table ends with a line naming its data, the commit it was measured at, the date and
    #: the command (from the data's stamp)
    provenance: bool = False
    #: the UML testbed's: the stamp is written with the data (--collect-linux), the data is
    #: read by msfc.analysis.linuxtables and the renderer also takes the stamp (the run's
    #: settings)
    collected: bool = False
    #: the data is a table of the seeds' writer (msfc.seeds.write_table), whose Markdown
    #: rendering lies beside it (<data>.md) and must be what the writer makes of it
    beside_md: bool = False
    #: an ISP-tree table's data: the --out directory names of the sweeps, compares and runs
    #: whose summary.csv rows it is made from (--collect-isp NAME RESULTS...)
    isp: tuple[str, ...] = ()
    #: a table of sweeps of any scenario: the --out directory names of the sweeps whose
    #: summary.csv rows (per type and overall, download) it is made from (--collect-sweeps NAME
    #: RESULTS...)
    sweeps: tuple[str, ...] = ()


def _require_columns(d: pd.DataFrame, need: set[str], what: str) -> None:
    """UserError naming the columns `need` that the data of `what` ("cost", "profile", ...)
    lacks."""
    if not need <= set(d.columns):
        raise UserError(f"the {what} data lacks {', '.join(sorted(need - set(d.columns)))}", 1)


def _flows_heading(flows: int) -> str:
    """A cost table's column of a number of flows: "1 flow", "64 flows"."""
    return f"{flows} flow{'s' if flows > 1 else ''}"


def _f1(x: float) -> str:
    return f"{x:.1f}"


def _table(header: list[str], rows: list[list]) -> str:
    """A table as the seeds' writer renders it (msfc.seeds.markdown_table: its cell format),
    without the last newline."""
    return S.markdown_table(header, rows).rstrip("\n")


def _cell(x):
    """A data cell for the writer: an empty CSV cell (NaN to pandas) stays empty."""
    return "" if isinstance(x, float) and x != x else x


def _columns(heads: dict[str, str]) -> Callable[[pd.DataFrame], str]:
    """A renderer of the data's rows, in order, with the columns of `heads` (column -> its
    heading)."""

    def render(d: pd.DataFrame) -> str:
        rows = [[_cell(r[c]) for c in heads] for _, r in d.iterrows()]
        return _table(list(heads.values()), rows)

    return render


def _as_written(d: pd.DataFrame) -> str:
    """The data's rows and columns as they are, each column headed by its name."""
    return _columns({c: c for c in d.columns})(d)


def _seed001_thin(d: pd.DataFrame) -> str:
    """Seed 001 sec. IV-A/B: median / p90 of the gaming flow's delay per scheduler and load."""
    loads = sorted(d["bulk_flows"].unique())
    rows = []
    for sched in pd.unique(d["scheduler"]):
        r = d[d["scheduler"] == sched].set_index("bulk_flows")
        rows.append(
            [sched]
            + [
                f"{_f1(r.at[n, 'delay_p50_ms'])} / {_f1(r.at[n, 'delay_p90_ms'])}"
                if n in r.index
                else ""
                for n in loads
            ]
        )
    published = d[d["seed_001"].fillna("").astype(str) != ""]
    for _, r in published.iterrows():
        rows.append(
            [f"seed 001, {r['scheduler']}"]
            + [r["seed_001"] if n == r["bulk_flows"] else "" for n in loads]
        )
    return _table(["scheduler"] + [f"{n} bulk" for n in loads], rows)


def _seed001_voip(d: pd.DataFrame) -> str:
    """Seed 001 sec. IV-C: median delay of the gaming and the VoIP flow per case."""
    cases = list(pd.unique(d["case"]))
    rows = []
    for sched in pd.unique(d["scheduler"]):
        r = d[d["scheduler"] == sched].set_index("case")
        rows.append(
            [sched]
            + [f"{_f1(r.at[c, 'gaming_p50_ms'])} / {_f1(r.at[c, 'voip_p50_ms'])}" for c in cases]
        )
    return _table(["scheduler", *cases], rows)


def _seed001_starvation(d: pd.DataFrame) -> str:
    """Seed 001 sec. V: the TCP flow's kbit/s per scheduler and number of thin flows; what the
    thin flows got under the first scheduler; the seed's finding per scheduler it names."""
    n = sorted(d["thin_flows"].unique())

    def line(sched: str, col: str) -> list:
        r = d[d["scheduler"] == sched].set_index("thin_flows")[col]
        return [_cell(r[k]) if k in r.index else "" for k in n]

    scheds = list(pd.unique(d["scheduler"]))
    rows = [[s, *line(s, "tcp_kbps")] for s in scheds]
    rows.append([f"thin flows' traffic (under {scheds[0]})", *line(scheds[0], "thin_total_kbps")])
    findings: dict[tuple, list[str]] = {}
    for s in scheds:
        cells = tuple(line(s, "seed_001"))
        if any(cells):
            findings.setdefault(cells, []).append(s)
    for cells, names in findings.items():
        rows.append([f"seed 001, {' and '.join(names)}", *cells])
    return _table(["scheduler", *(str(k) for k in n)], rows)


def _seed001_dos(d: pd.DataFrame) -> str:
    """Seed 001's DoS case: the TCP flow's kbit/s per scheduler and buffer."""
    pre = "tcp_kbps_buffer"
    heads = {"scheduler": "scheduler"}
    for c in (c for c in d.columns if c.startswith(pre)):
        heads[c] = "TCP kbit/s, buffer " + c[len(pre) :].replace(
            "_one_host", ", flood from one host"
        )
    return _columns(heads)(d)


def _seed003_phases(d: pd.DataFrame) -> str:
    """Seed 003 scenarios 1 and 2: per scheduler and phase the rate of every seed class, the
    largest deviation from the shares, the backlog and the utilisation (not the shares)."""
    classes = sorted(
        int(c[5:-5])
        for c in d.columns
        if c.startswith("class") and c.endswith("_kbps") and "share" not in c
    )
    heads = {"scheduler": "scheduler", "phase_s": "phase (s)"}
    heads |= {f"class{k}_kbps": f"class {k}" for k in classes}
    heads |= {
        "max_dev_from_share": "max dev. from share",
        "mean_backlog_pkts": "backlog (pkts)",
        "utilisation": "utilisation",
    }
    return _columns(heads)(d)


_seed003_s3 = _columns(
    {
        "scheduler": "scheduler",
        "sessions": "sessions",
        "rt_within_deadline_mbps": "class 1 within 50 ms (Mbit/s)",
        "rt_served_mbps": "class 1 served",
        "bulk_served_mbps": "class 2 served",
    }
)


ISP_TYPES = {
    "SSH": "SSH",
    "voip": "VoIP",
    "game": "Game",
    "TVStream": "TV",
    "http": "HTTP",
    "download": "Download",
    "torrent": "Torrent",
}
#: the unmarked ISP tree's columns: (study, scheduler, attributes) -> heading
ISP_AUTO_COLUMNS = {
    ("isp-unmarked-base", "FqCoDel", ""): "FqCoDel",
    ("isp-unmarked-base", "FqCobalt", ""): "FqCobalt",
    ("isp-unmarked-base", "Msfc", ""): "Msfc",
    ("isp-unmarked-auto", "Msfc", "Msfc.Auto=unmarked Msfc.Boost=off"): "Msfc auto",
    ("isp-unmarked-auto", "Msfc", "Msfc.Auto=unmarked Msfc.Boost=across"): (
        "Msfc auto, boost across"
    ),
    ("isp-marked", "Msfc", "Msfc.Auto=off"): "Msfc, marked",
}


def _with_attributes(d: pd.DataFrame) -> pd.DataFrame:
    """ISP data with its attributes as text: "" where a run set none (an empty CSV column
    reads as float NaN)."""
    return d.assign(attributes=d["attributes"].astype(object).fillna("").astype(str))


def _isp_auto_unmarked(d: pd.DataFrame) -> str:
    """The unmarked ISP tree: throughput of a flow per type, then mean / p99 delay of the
    latency-sensitive types, one column per configuration."""
    d = _with_attributes(d)
    cols = []
    for (study, sched, attrs), heading in ISP_AUTO_COLUMNS.items():
        sel = d[(d["study"] == study) & (d["scheduler"] == sched) & (d["attributes"] == attrs)]
        cols.append((heading, sel.set_index("type")))
    lines = [
        "| type | " + " | ".join(h for h, _ in cols) + " |",
        "|---|" + "---:|" * len(cols),
    ]
    for t, label in ISP_TYPES.items():
        lines.append(
            f"| {label} | " + " | ".join(_f1(c.at[t, "throughput_kbps"]) for _, c in cols) + " |"
        )
    for t in ("SSH", "voip", "game", "TVStream"):
        cells = [
            f"{_f1(c.at[t, 'delay_mean_ms'])} / {_f1(c.at[t, 'delay_p99_ms'])}" for _, c in cols
        ]
        lines.append(f"| {ISP_TYPES[t]} delay | " + " | ".join(cells) + " |")
    return "\n".join(lines)


@dataclass(frozen=True)
class IspCol:
    """A column of an ISP-tree table: one value per type from one configuration of one study
    (the rows of docs/isp-tree/<name>.csv with its study, scheduler and attributes)."""

    heading: str  # "{thesis}": "thesis" and the run's rate scale, "thesis/4" for quick
    study: str
    scheduler: str = "Msfc"
    attributes: str = ""  # the attributes the configuration sets ("Msfc.Inversion=prevent")
    #: throughput_kbps, delay_mean_ms, delay_p99_ms, lost_packets, flows; "summary": throughput,
    #: then mean / p99 delay; "kbps / delays": the three with three significant digits (two
    #: decimals of a throughput below 1000)
    metric: str = "throughput_kbps"
    #: a thesis table (3.7, 3.9): the thesis's value of `scheduler` in it instead, times the
    #: configuration's rate scale (msfc/data/thesis-tables.json)
    thesis: str = ""
    #: of a study swept with --seeds, the configuration's RNG run; 0: the study has one
    rng_run: int = 0


def _thesis_cell(x: float) -> str:
    """A thesis value scaled to the run: three significant digits, whole numbers above 1000."""
    return f"{x:.0f}" if abs(x) >= 1000 else f"{x:.3g}"


def _thesis_heading(scale: float) -> str:
    """The heading of the thesis's values scaled to a run: "thesis/4" at `quick`'s 1/4."""
    if scale == 1:
        return "thesis"
    if (1 / scale).is_integer():
        return f"thesis/{1 / scale:g}"
    return f"thesis x{scale:g}"


def _sig3(x: float) -> str:
    """Three significant digits, trailing zeros kept, whole numbers from 100 up: 81.0, 261,
    2307."""
    return f"{x:.{max(0, 3 - len(str(int(abs(x)))))}f}"


def _isp_cell(r: pd.Series, metric: str) -> str:
    if metric == "summary":
        return f"{_f1(r['throughput_kbps'])}, {_f1(r['delay_mean_ms'])} / {_f1(r['delay_p99_ms'])}"
    if metric == "kbps / delays":
        tp, delays = r["throughput_kbps"], (r["delay_mean_ms"], r["delay_p99_ms"])
        cells = [f"{tp:.2f}" if tp < 1000 else f"{tp:.0f}"]
        cells += [_sig3(x) for x in delays]
        return " / ".join(cells)
    if metric in ("lost_packets", "flows"):
        return str(int(r[metric]))
    return _f1(r[metric])


def _set_exactly(d: pd.DataFrame, attributes: str) -> pd.Series:
    """Which rows' runs set exactly `attributes` ("Msfc.Boost=on Msfc.Order=priority", in any
    order; "" for none)."""
    want = set(attributes.split())
    return d["attributes"].map(lambda a: set(a.split()) == want)


def _isp_config(d: pd.DataFrame, c: IspCol) -> pd.DataFrame:
    """The rows of c's configuration, indexed by type."""
    sel = d[
        (d["study"] == c.study) & (d["scheduler"] == c.scheduler) & _set_exactly(d, c.attributes)
    ]
    run = ""
    if c.rng_run:
        if "rng_run" not in d.columns:
            raise UserError(f"the data of study {c.study} has no rng_run: collect it again", 1)
        sel = sel[sel["rng_run"] == c.rng_run]
        run = f", RNG run {c.rng_run}"
    if sel.empty:
        raise UserError(
            f"no rows of study {c.study}, {c.scheduler} {c.attributes}{run} (column '{c.heading}')",
            1,
        )
    return sel.set_index("type")


def _isp_totals_line(d: pd.DataFrame, configs: tuple[IspCol, ...], lost: tuple[str, ...]) -> str:
    """The line under an ISP-tree table with the download totals of its configurations (an
    IspCol each, its heading the label): total throughput, harmonic-mean delay, loss ratio,
    and the lost packets of the types `lost`."""
    parts = []
    for c in configs:
        r = _isp_config(d, c)
        cells = [*_totals(r.loc["all"]), *(str(int(r.at[t, "lost_packets"])) for t in lost)]
        parts.append(f"{c.heading} {' / '.join(cells)}")
    what = "total kbps / harmonic-mean delay (ms) / loss ratio"
    what += "".join(f" / {ISP_TYPES[t]} packets lost" for t in lost)
    return f"\n\nOverall, {what}: " + "; ".join(parts) + "."


def _isp_types(
    *cols: IspCol, overall: tuple[IspCol, ...] = (), lost: tuple[str, ...] = ()
) -> Callable[[pd.DataFrame], str]:
    """A renderer of an ISP-tree table: a row per type (ISP_TYPES' order), a column per
    IspCol; with `overall`, a line under it with those configurations' totals (and the losses
    of the types `lost`)."""

    def render(d: pd.DataFrame) -> str:
        from . import thesis as TH

        d = _with_attributes(d)
        data = TH.load()
        lines_h, cells = ["type"], {t: [label] for t, label in ISP_TYPES.items()}
        for c in cols:
            r = _isp_config(d, c)
            heading = c.heading
            if c.thesis:
                scale = float(r["rate_scale"].iloc[0])
                heading = heading.format(thesis=_thesis_heading(scale))
                published = TH.thesis_table(data, c.thesis)[c.scheduler] * scale
                ours = {v: k for k, v in TH.type_map(data, ISP_TYPES).items()}
                for t in ISP_TYPES:
                    cells[t].append(_thesis_cell(published[ours[t]]))
            else:
                for t in ISP_TYPES:
                    cells[t].append(_isp_cell(r.loc[t], c.metric))
            lines_h.append(heading)
        lines = ["| " + " | ".join(lines_h) + " |", "|---|" + "---:|" * len(cols)]
        lines += ["| " + " | ".join(row) + " |" for row in cells.values()]
        return "\n".join(lines) + (_isp_totals_line(d, overall, lost) if overall else "")

    return render


def _isp_rows(
    labels: tuple[str, ...], heads: tuple[str, ...], cells, *rows: IspCol
) -> Callable[[pd.DataFrame], str]:
    """A renderer of a row per configuration: its IspCol's heading gives the row's first cells
    ("a | b", one per label), `cells(totals row, IspCol)` the rest under `heads`."""

    def render(d: pd.DataFrame) -> str:
        d = _with_attributes(d)
        out = [[*c.heading.split(" | "), *cells(_isp_config(d, c).loc["all"], c)] for c in rows]
        lines = [
            "| " + " | ".join([*labels, *heads]) + " |",
            "|" + "---|" * len(labels) + "---:|" * len(heads),
        ]
        return "\n".join([*lines, *("| " + " | ".join(r) + " |" for r in out)])

    return render


def _totals(r: pd.Series) -> list[str]:
    """A configuration's download totals: total throughput, harmonic-mean delay of the packets,
    loss ratio."""
    return [
        f"{r['throughput_total_kbps']:.0f}",
        _f1(r["delay_hmean_ms"]),
        f"{r['loss_ratio']:.4f}",
    ]


def _isp_overall(labels: tuple[str, ...], *rows: IspCol) -> Callable[[pd.DataFrame], str]:
    """A renderer of the download totals of configurations: a row per IspCol (_isp_rows), then
    the total throughput, the harmonic-mean delay of the packets and the loss ratio."""
    heads = ("total kbps", "harmonic-mean delay (ms)", "loss ratio")
    return _isp_rows(labels, heads, lambda r, c: _totals(r), *rows)


def _isp_clients_table(labels: tuple[str, ...], *rows: IspCol) -> Callable[[pd.DataFrame], str]:
    """A renderer of how configurations shared the download among the clients: a row per
    IspCol (_isp_rows), then the total throughput, Jain's index over the clients and their
    10th, 50th and 90th percentiles (kbit/s)."""

    def cells(r: pd.Series, c: IspCol) -> list[str]:
        if pd.isna(r.get("clients_jain")):
            raise UserError(
                f"the data of study {c.study} has no per-client figures: collect it again"
                " (python -m msfc.analysis.doctables --list gives the command)",
                1,
            )
        return [
            f"{r['throughput_total_kbps']:.0f}",
            f"{r['clients_jain']:.4f}",
            *(_f1(r[f"clients_{q}_kbps"]) for q in ("p10", "median", "p90")),
        ]

    heads = ("total kbps", "Jain's index, clients", "p10", "median", "p90")
    return _isp_rows(labels, heads, cells, *rows)


def _isp_links(*cols: IspCol) -> Callable[[pd.DataFrame], str]:
    """A renderer of where the tree's bottleneck went: a row per priority class, highest
    first (its types and download flows, from the first configuration), a column per IspCol
    with the Mbit/s the class's queues sent on the links out of the root router
    (collect_isp's class<c>_root_mbps)."""

    def render(d: pd.DataFrame) -> str:
        d = _with_attributes(d)
        tots = [_isp_config(d, c).loc["all"] for c in cols]
        first = tots[0]
        classes = sorted(
            (int(k[5:].split("_")[0]) for k in first.index if k.endswith("_root_mbps")),
            reverse=True,
        )
        if not classes:
            raise UserError(
                f"no class<c>_root_mbps in the data of column '{cols[0].heading}': collect it"
                " again from runs that kept their qdisc.csv",
                1,
            )
        lines = [
            "| class | flows | " + " | ".join(f"{c.heading} (Mbit/s)" for c in cols) + " |",
            "|---|---:|" + "---:|" * len(cols),
        ]
        for k in classes:
            types = ", ".join(ISP_TYPES[t] for t in str(first[f"class{k}_types"]).split())
            mbps = [f"{r[f'class{k}_root_mbps']:.2f}" for r in tots]
            lines.append(
                f"| {k} ({types}) | {int(first[f'class{k}_flows'])} | " + " | ".join(mbps) + " |"
            )
        return "\n".join(lines)

    return render


def _then(*parts: Callable[[pd.DataFrame], str] | str) -> Callable[[pd.DataFrame], str]:
    """A renderer of several tables from one data file, with text between them (a str
    part), separated by blank lines."""

    def render(d: pd.DataFrame) -> str:
        return "\n\n".join(p if isinstance(p, str) else p(d) for p in parts)

    return render


#: the thesis's tables of the faithful runs, in the order docs/isp-tree.md shows them: (table,
#: caption, the first column's heading, the measure, its format); a row is a type, or for
#: Table 3.4 one of its overall metrics (ISP_OVERALL_ROWS). Table 3.9 (wrong priorities) takes
#: MSFC's run of those priorities; the class-blind schedulers' runs are the same under both
#: (docs/isp-tree.md says how that was checked)
ISP_FULL_TABLES = (
    ("3.7", "mean throughput of a flow per type (kbps)", "type", "throughput_kbps", "{:.2f}"),
    ("3.4", "overall", "metric", "", ""),
    ("3.5", "mean delay per type (ms)", "type", "delay_mean_ms", "{:.1f}"),
    ("3.6", "lost packets per type", "type", "lost_packets", "{:.0f}"),
    (
        "3.9",
        "mean throughput of a flow per type (kbps), wrong priorities (Table 3.8)",
        "type",
        "throughput_kbps",
        "{:.2f}",
    ),
)
#: Table 3.4's rows: the overall metric's label and its format
ISP_OVERALL_ROWS = {
    "throughput_total_kbps": ("Total throughput (kbps)", "{:.0f}"),
    "delay_hmean_ms": ("Harmonic-mean delay (ms)", "{:.1f}"),
    "jitter_mean_ms": ("Jitter (ms)", "{:.2f}"),
    "lost_packets": ("Lost packets (packets)", "{:.0f}"),
}
ISP_SCHEDULERS = ("PfifoFast", "CoDel", "FqCoDel", "Msfc")


def _isp_full_thesis(study: str, wrong: str = "") -> Callable[[pd.DataFrame], str]:
    """The thesis's Tables 3.7, 3.4, 3.5 and 3.6 at full scale, or with `wrong` its Table 3.9:
    each caption, then the published value and ours side by side per scheduler. Ours: the rows
    without attributes of `study`, one faithful run per scheduler, and for Table 3.9 MSFC's of
    `wrong`."""
    tables = [t for t in ISP_FULL_TABLES if (t[0] == "3.9") == bool(wrong)]

    def render(d: pd.DataFrame) -> str:
        from . import thesis as TH

        d = _with_attributes(d)
        data = TH.load()
        runs = {(s, study): _isp_config(d, IspCol(s, study, s)) for s in ISP_SCHEDULERS}
        if wrong:
            runs[("Msfc", wrong)] = _isp_config(d, IspCol("Msfc", wrong))
        scales = {float(r["rate_scale"].iloc[0]) for r in runs.values()}
        if scales != {1.0}:
            raise UserError(
                f"studies {study} {wrong}: rate scale {', '.join(map(str, sorted(scales)))};"
                " the thesis's full-scale tables need runs of the `thesis` and"
                " `wrong-priorities` presets (rate scale 1)",
                1,
            )
        heads = [f"{s} {w}" for s in ISP_SCHEDULERS for w in ("thesis", "ours")]
        tmap = TH.type_map(data, ISP_TYPES)
        parts = []
        for tid, caption, first, metric, fmt in tables:
            theirs = TH.thesis_table(data, tid)
            ours = {
                s: runs[(s, wrong if tid == "3.9" and s == "Msfc" else study)]
                for s in ISP_SCHEDULERS
            }
            if metric:
                rows = [(ISP_TYPES[tmap[t]], t, tmap[t], metric, fmt) for t in theirs.index]
            else:
                rows = [(label, m, "all", m, f) for m, (label, f) in ISP_OVERALL_ROWS.items()]
            lines = [
                f"Table {tid}, {caption}:",
                "",
                f"| {first} | " + " | ".join(heads) + " |",
                "|---|" + "---:|" * len(heads),
            ]
            for label, key, group, col, f in rows:
                cells = []
                for s in ISP_SCHEDULERS:
                    cells += [f.format(theirs.at[key, s]), f.format(ours[s].at[group, col])]
                lines.append(f"| {label} | " + " | ".join(cells) + " |")
            parts.append("\n".join(lines))
        return "\n\n".join(parts)

    return render


#: the rows of _isp_ac: (label, thesis table, type or "all", metric, format); the delays per
#: type follow
ISP_AC_ROWS = (
    ("total throughput (kbps)", "3.4", "all", "throughput_total_kbps", "{:.0f}"),
    ("harmonic-mean delay (ms)", "3.4", "all", "delay_hmean_ms", "{:.1f}"),
    ("lost packets", "3.4", "all", "lost_packets", "{:.0f}"),
    ("torrent (kbps per flow)", "3.7", "torrent", "throughput_kbps", "{:.0f}"),
)


def _isp_ac(study: str, ac: str) -> Callable[[pd.DataFrame], str]:
    """The single-queue schedulers at full scale with the thesis's 802.11n last hop (their
    runs of `study`) and with 802.11ac (`ac`), beside the thesis's values: the overall
    figures of Table 3.4, the torrents' throughput (3.7) and the delay per type (3.5)."""
    schedulers = ("PfifoFast", "CoDel")

    def render(d: pd.DataFrame) -> str:
        from . import thesis as TH

        d = _with_attributes(d)
        data = TH.load()
        theirs_of = {v: k for k, v in TH.type_map(data, ISP_TYPES).items()}
        ours = {
            (s, w): _isp_config(d, IspCol(f"{s} {w}", st, s))
            for s in schedulers
            for w, st in (("802.11n", study), ("802.11ac", ac))
        }
        rows = list(ISP_AC_ROWS) + [
            (f"{label} delay (ms)", "3.5", t, "delay_mean_ms", "{:.0f}")
            for t, label in ISP_TYPES.items()
        ]
        heads = [f"{s} {w}" for s in schedulers for w in ("thesis", "802.11n", "802.11ac")]
        lines = ["| | " + " | ".join(heads) + " |", "|---|" + "---:|" * len(heads)]
        for label, tid, group, metric, fmt in rows:
            theirs = TH.thesis_table(data, tid)
            key = metric if group == "all" else theirs_of[group]
            cells = []
            for s in schedulers:
                cells.append(fmt.format(theirs.at[key, s]))
                cells += [
                    fmt.format(ours[(s, w)].at[group, metric]) for w in ("802.11n", "802.11ac")
                ]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        return "\n".join(lines)

    return render


#: the ISP tree's `quick` runs behind its tables, as docs/isp-tree.md gives them (each ends with
#: its --out: the study's name in the data)
COLLECT_ISP = "python -m msfc.analysis.doctables --collect-isp"
ISP_WRONG = "--set flow-types=wrong-priorities --set priorities="


def _isp_sweep(opts: str, out: str, command: str = "sweep") -> str:
    """An msfc sweep (compare, run) of the ISP tree's `quick` preset with `opts` (which may
    set its options to other values) into results/`out`."""
    return f"msfc {command} isp-tree --preset quick {opts} --out results/{out}"


ISP_QUICK = _isp_sweep("--schedulers PfifoFast,CoDel,FqCoDel,Msfc", "isp-quick", "compare")
#: the faithful runs, one per scheduler, the longest two first (with --jobs 2 they take about
#: as long as each other), and MSFC's with the wrong priorities
ISP_FULL = (
    "msfc sweep isp-tree --preset thesis --grid scheduler=FqCoDel,Msfc,PfifoFast,CoDel --jobs 2"
    " --out results/ispfull/isp-thesis"
)
ISP_FULL_AC = (
    "msfc sweep isp-tree --preset thesis --set wifi-standard=80211ac"
    " --grid scheduler=PfifoFast,CoDel --jobs 2 --out results/ispfull/isp-thesis-ac"
)
ISP_FULL_WRONG = (
    "msfc sweep isp-tree --preset wrong-priorities --grid scheduler=Msfc"
    " --out results/ispfull/isp-wrong"
)
#: the modes docs/algorithm.md recommends: the runs' attributes, and the options that set all
#: but Isolate (a sweep of one run takes that one as its --grid)
ISP_REC_ATTRS = "Msfc.Overload=class Msfc.Weights=exact Msfc.Boost=on Msfc.Isolate=dst"
ISP_REC_SETS = (
    "--scheduler Msfc --set Msfc.Overload=class --set Msfc.Weights=exact --set Msfc.Boost=on"
)
ISP_REC = f"{ISP_REC_SETS} --set Msfc.Isolate=dst"
#: MSFC's modes beyond the thesis in the faithful runs: Inversion=prevent at the thesis's
#: ratio and at 16, and the recommended set, for one preset (thesis, wrong-priorities)
ISP_FULL_REC = f"{ISP_REC_SETS} --grid Msfc.Isolate=dst"


def _isp_full_modes(preset: str, study: str) -> tuple[str, str]:
    """The two sweeps of MSFC's modes at full scale (`preset`), into results/ispfull/<study>-*."""
    return (
        f"msfc sweep isp-tree --preset {preset} --scheduler Msfc --grid Msfc.Inversion=prevent"
        f" --grid Msfc.Ratio=2,16 --out results/ispfull/{study}-prevent",
        f"msfc sweep isp-tree --preset {preset} {ISP_FULL_REC} --out results/ispfull/{study}-recommended",
    )


def _isp_modes_table(study: str) -> Callable[[pd.DataFrame], str]:
    """Table 3.7 or 3.9 at full scale under MSFC's modes: the thesis mode (the study of the
    full-scale tables), Inversion=prevent, the recommended set, and prevent with Ratio=16."""
    prevent = "Msfc.Inversion=prevent"
    cols = (
        IspCol("Msfc", study),
        IspCol("`Inversion=prevent`", f"{study}-prevent", attributes=f"{prevent} ratio=2"),
        IspCol("recommended", f"{study}-recommended", attributes=ISP_REC_ATTRS),
        IspCol(
            "`Inversion=prevent`, `Ratio=16`", f"{study}-prevent", attributes=f"{prevent} ratio=16"
        ),
    )
    return _isp_types(*cols, overall=cols, lost=("TVStream",))


ISP_INV_GRID = "--grid Msfc.Inversion=allow,prevent"
ISP_INV = f"--scheduler Msfc {ISP_INV_GRID}"
ISP_INVERSION = _isp_sweep(ISP_INV, "isp-inversion")
ISP_INVERSION_WRONG = _isp_sweep(f"{ISP_WRONG} {ISP_INV}", "isp-inversion-wrong")
ISP_RECOMMENDED = _isp_sweep(ISP_REC, "isp-recommended", "run")
ISP_RECOMMENDED_WRONG = _isp_sweep(f"{ISP_WRONG} {ISP_REC}", "isp-recommended-wrong", "run")
ISP_MODES = "--scheduler Msfc --grid Msfc.Overload=flow,class --grid Msfc.Weights=rounded,exact"
ISP_ISOLATE = "--scheduler Msfc --grid Msfc.Isolate=flow,dst"
ISP_BOOST_ORDER = (
    "--scheduler Msfc --grid Msfc.Boost=off,on,across --grid Msfc.Order=round,priority"
)


def _isp_boost_order(study: str) -> Callable[[pd.DataFrame], str]:
    """Table 3.7 or 3.9 at `quick` scale per Boost and Order: throughput, mean / p99 delay."""
    cols = tuple(
        IspCol(
            f"`{boost}`, `{order}`",
            study,
            attributes=f"Msfc.Boost={boost} Msfc.Order={order}",
            metric="summary",
        )
        for boost in ("off", "on", "across")
        for order in ("round", "priority")
    )
    return _isp_types(*cols, overall=cols, lost=("TVStream",))


def _isp_inversion(
    study: str, thesis: str = "", recommended: str = ""
) -> Callable[[pd.DataFrame], str]:
    """Tables 3.7 / 3.9 with and without Inversion=prevent: flows, throughput, mean delay and
    losses per type, and the configurations' totals; with `thesis` the thesis's MSFC column of
    that table, with `recommended` the recommended modes' run of that study."""
    allow, prevent = "Msfc.Inversion=allow", "Msfc.Inversion=prevent"
    overall = (
        IspCol("Msfc", study, attributes=allow),
        IspCol("prevent", study, attributes=prevent),
    )
    cols = [IspCol("flows", study, attributes=allow, metric="flows")]
    if thesis:
        cols.append(IspCol("Msfc {thesis}", study, attributes=allow, thesis=thesis))
    cols += [
        IspCol("Msfc", study, attributes=allow),
        IspCol("Msfc inversion=prevent", study, attributes=prevent),
        IspCol("delay (ms) Msfc", study, attributes=allow, metric="delay_mean_ms"),
        IspCol("delay (ms) prevent", study, attributes=prevent, metric="delay_mean_ms"),
        IspCol("lost Msfc", study, attributes=allow, metric="lost_packets"),
        IspCol("lost prevent", study, attributes=prevent, metric="lost_packets"),
    ]
    if recommended:
        cols.append(IspCol("Msfc recommended (kbps)", recommended, attributes=ISP_REC_ATTRS))
        overall += (IspCol("recommended", recommended, attributes=ISP_REC_ATTRS),)
    return _isp_types(*cols, overall=overall)


#: the classes of Table 3.8 (wrong priorities) above the torrents' class 0
ISP_WRONG_CLASS1 = ("TVStream", "http", "download")
#: the types whose share moves with MSFC's settings (SSH, VoIP and game get their rate)
ISP_R16_TYPES = (*ISP_WRONG_CLASS1, "torrent")


def _isp_ratio(study: str, ratios: tuple[int, ...]) -> Callable[[pd.DataFrame], str]:
    """Inversion=prevent with the wrong priorities per Ratio: the class-1 types' and the
    torrents' throughput per flow, and whether the torrents are below every class-1 type (the
    per-flow order); if only some, which types they are above."""

    def render(d: pd.DataFrame) -> str:
        d = _with_attributes(d)
        lines = [
            "| `Ratio` | TV | HTTP | download | torrent | torrent below every class-1 type |",
            "|---:|---:|---:|---:|---:|---|",
        ]
        for ratio in ratios:
            r = _isp_config(
                d,
                IspCol(f"Ratio={ratio}", study, attributes=f"Msfc.Inversion=prevent ratio={ratio}"),
            )["throughput_kbps"]
            torrent = r["torrent"]
            below = [t for t in ISP_WRONG_CLASS1 if r[t] < torrent]
            if not below:
                verdict = "yes"
            elif len(below) == len(ISP_WRONG_CLASS1):
                verdict = "no"
            else:
                verdict = "no (" + ", ".join(f"{ISP_TYPES[t]} {_f1(r[t])}" for t in below) + ")"
            label = f"{ratio} (the thesis)" if ratio == 2 else str(ratio)
            cells = [_f1(r[t]) for t in (*ISP_WRONG_CLASS1, "torrent")]
            lines.append(f"| {label} | " + " | ".join(cells) + f" | {verdict} |")
        return "\n".join(lines)

    return render


@dataclass(frozen=True)
class RunCol:
    """A column of a table with a row per RNG run: one type's `col.metric` (throughput_kbps,
    lost_packets; device_queue_drops of the type "all") in one configuration (`col`, whose
    rng_run each row sets)."""

    heading: str
    col: IspCol
    type: str


def _run_cell(v: float, metric: str) -> str:
    return _f1(v) if metric == "throughput_kbps" else str(round(v))


def _isp_per_run(seeds: int, *cols: RunCol) -> Callable[[pd.DataFrame], str]:
    """A renderer of RNG runs 1..seeds (sweeps with --seeds): a row per run, a column per
    RunCol, then a row of their means."""

    def render(d: pd.DataFrame) -> str:
        d = _with_attributes(d)
        heads = ["RNG run", *(c.heading for c in cols)]
        rows = []
        sums = [0.0] * len(cols)
        for run in range(1, seeds + 1):
            values = []
            for c in cols:
                r = _isp_config(d, replace(c.col, rng_run=run))
                if c.col.metric not in r.columns:
                    raise UserError(
                        f"the data of study {c.col.study} has no {c.col.metric}: collect it"
                        " again (python -m msfc.analysis.doctables --list gives the command)",
                        1,
                    )
                values.append(float(r.at[c.type, c.col.metric]))
            sums = [a + b for a, b in zip(sums, values, strict=True)]
            cells = (_run_cell(v, c.col.metric) for v, c in zip(values, cols, strict=True))
            rows.append([str(run), *cells])
        means = (_run_cell(v / seeds, c.col.metric) for v, c in zip(sums, cols, strict=True))
        rows.append(["mean", *means])
        return LT.md_table(heads, rows, "---:")

    return render


#: the figures of _isp_runs' columns: (type, metric) pairs, each under allow and prevent
ISP_RUNS_COLS = (
    ("TVStream", "throughput_kbps"),
    ("TVStream", "lost_packets"),
    ("torrent", "throughput_kbps"),
)


def _isp_runs(
    study: str, seeds: int, cols: tuple[tuple[str, str], ...] = ISP_RUNS_COLS
) -> Callable[[pd.DataFrame], str]:
    """Inversion=allow and prevent over RNG runs 1..seeds (a sweep with --seeds): per run
    each (type, metric) of `cols` under both modes, then their means."""
    what = {"throughput_kbps": "kbps", "lost_packets": "lost"}
    return _isp_per_run(
        seeds,
        *(
            RunCol(
                f"{ISP_TYPES[t]} {m} ({what[metric]})",
                IspCol(m, study, attributes=f"Msfc.Inversion={m}", metric=metric),
                t,
            )
            for t, metric in cols
            for m in ("allow", "prevent")
        ),
    )


def _isp_r16(study: str, unit: str, metric: str = "throughput_kbps") -> IspCol:
    """Inversion=prevent with Ratio=16 in `study` (a sweep of device-queue-unit, with
    --seeds), its device queues in `unit`."""
    attributes = f"Msfc.Inversion=prevent device-queue-unit={unit}"
    return IspCol(study, study, attributes=attributes, metric=metric)


def _isp_r16_runs(study: str, unit: str, seeds: int = 3) -> Callable[[pd.DataFrame], str]:
    """_isp_r16 per RNG run: the throughput of the types TV to torrent, TV's lost packets and
    the packets the device queues dropped behind the scheduler."""
    return _isp_per_run(
        seeds,
        *(RunCol(ISP_TYPES[t], _isp_r16(study, unit), t) for t in ISP_R16_TYPES),
        RunCol("TV lost", _isp_r16(study, unit, "lost_packets"), "TVStream"),
        RunCol("device-queue drops", _isp_r16(study, unit, "device_queue_drops"), "all"),
    )


def _isp_r16_packets(thesis: str, wrong: str, seeds: int = 3) -> Callable[[pd.DataFrame], str]:
    """_isp_r16 with the device queues in packets per RNG run: TV's throughput and losses
    with the thesis's priorities (study `thesis`), the types TV to torrent with the wrong ones
    (`wrong`), and each study's device-queue drops."""
    unit = "packets"
    return _isp_per_run(
        seeds,
        RunCol("thesis's priorities: TV", _isp_r16(thesis, unit), "TVStream"),
        RunCol("TV lost", _isp_r16(thesis, unit, "lost_packets"), "TVStream"),
        RunCol("wrong priorities: TV", _isp_r16(wrong, unit), "TVStream"),
        *(RunCol(ISP_TYPES[t], _isp_r16(wrong, unit), t) for t in ISP_R16_TYPES[1:]),
        *(
            RunCol(f"device-queue drops, {which}", _isp_r16(s, unit, "device_queue_drops"), "all")
            for which, s in (("thesis's", thesis), ("wrong", wrong))
        ),
    )


#: the ISP tree at full scale over point-to-point last hops (no rate scaling, 100 Mbit/s tree,
#: 20 Mbit/s last hop, 20 s): `quick` with these options
ISP_P2P = (
    "--set rate-scale=1 --set link-rate=100Mbps --set server-rate=1Gbps --set last-hop-rate=20Mbps"
)


def _isp_p2p(opts: str, out: str) -> str:
    """A sweep of the ISP tree at full scale over point-to-point last hops into
    results/ispp2p/`out`."""
    return _isp_sweep(f"{ISP_P2P} {opts} --jobs 2", f"ispp2p/{out}")


ISP_P2P_INVERSION = _isp_p2p(f"--scheduler Msfc {ISP_INV_GRID}", "isp-p2p-inversion")
ISP_P2P_INVERSION_WRONG = _isp_p2p(
    f"{ISP_WRONG} --scheduler Msfc {ISP_INV_GRID}", "isp-p2p-inversion-wrong"
)
ISP_P2P_SEEDS = _isp_p2p(f"--scheduler Msfc {ISP_INV_GRID} --seeds 5", "isp-p2p-inversion-seeds")
ISP_P2P_RATIO = _isp_p2p(
    f"{ISP_WRONG} --scheduler Msfc --set Msfc.Inversion=prevent --grid Msfc.Ratio=2,4,8,16",
    "isp-p2p-ratio",
)
ISP_P2P_SEEDS_PACKETS = _isp_p2p(
    f"--set device-queue-unit=packets --scheduler Msfc {ISP_INV_GRID} --seeds 5",
    "isp-p2p-inversion-seeds-packets",
)
#: Inversion=prevent with Ratio=16, three RNG runs with each unit of the device queues
ISP_P2P_R16_OPTS = (
    "--scheduler Msfc --set Msfc.Ratio=16 --set Msfc.Inversion=prevent"
    " --grid device-queue-unit=bytes,packets --seeds 3"
)
ISP_P2P_R16 = _isp_p2p(ISP_P2P_R16_OPTS, "isp-p2p-r16")
ISP_P2P_R16_WRONG = _isp_p2p(f"{ISP_WRONG} {ISP_P2P_R16_OPTS}", "isp-p2p-r16-wrong")
#: a second RNG run of the faithful thesis mode and of prevent with Ratio=16 (a sweep
#: reuses a finished run of the same configuration found in its --out: copy there the run
#: directories of the full-scale tables' runs 1 to run only the second)
ISP_FULL_SEEDS = (
    "msfc sweep isp-tree --preset thesis --grid scheduler=Msfc --seeds 2"
    " --out results/ispfull/isp-thesis-seeds",
    "msfc sweep isp-tree --preset thesis --scheduler Msfc --set Msfc.Inversion=prevent"
    " --grid Msfc.Ratio=16 --seeds 2 --out results/ispfull/isp-thesis-prevent-r16-seeds",
)


def _isp_full_seeds() -> Callable[[pd.DataFrame], str]:
    """Table 3.7 at full scale, the thesis mode and prevent with Ratio=16 in RNG runs 1, 2."""
    cols = tuple(
        IspCol(f"{label}, run {run}", study, attributes=attributes, rng_run=run)
        for label, study, attributes in (
            ("Msfc", "isp-thesis-seeds", ""),
            (
                "`Inversion=prevent`, `Ratio=16`",
                "isp-thesis-prevent-r16-seeds",
                "Msfc.Inversion=prevent",
            ),
        )
        for run in (1, 2)
    )
    return _isp_types(*cols, overall=cols, lost=("TVStream",))


#: what every ns-3 table's numbers depend on: the model library (model/ and helper/'s scheduler
#: registry, which names the schedulers' settings), the UAPI header it compiles in (MSFC's
#: defaults), the scenarios' shared code and the build (which ns-3, the flags)
NS3 = (
    "model",
    "helper",
    "kernel/include/uapi/linux/pkt_sched_msfc.h",
    "scenarios/lib",
    "CMakeLists.txt",
    "cmake",
)

#: what the seeds' drivers (python/msfc/seeds/) share: how a run's options become the
#: program's arguments and its raw files tables (msfc.sim), the flow metrics, the benchmarks'
#: common options (--rng-run's default), the CSV writer and the seeds' published numbers that
#: the CSVs carry beside ours
SEED_PY = (
    "python/msfc/sim/runner.py",
    "python/msfc/sim/config.py",
    "python/msfc/sim/programs.py",
    "python/msfc/analysis/metrics.py",
    "python/msfc/bench.py",
    "python/msfc/seeds/__init__.py",
    "python/msfc/data/seeds-published.json",
)


def _seed(scenario: str, driver: str) -> tuple[str, ...]:
    """The dependencies of a seed experiment's data: the ns-3 model, its scenario program,
    the drivers' shared code and its driver."""
    return (*NS3, f"scenarios/scenario-{scenario}.cc", *SEED_PY, f"python/msfc/seeds/{driver}.py")


def _bench(name: str, out: str, files: str, opts: str = "") -> str:
    """The command that measures a seed table's data: the benchmark, then its CSV and
    Markdown tables copied into docs/seeds/."""
    return f"msfc bench {name} {out}{opts} && cp {' '.join(f'{out}/{f}' for f in files.split())} docs/seeds/"


def _seed_table(name: str, data: str, render, command: str, depends) -> DocTable:
    return DocTable(
        name,
        "docs/seeds.md",
        f"docs/seeds/{data}",
        render,
        command,
        depends,
        provenance=True,
        beside_md=True,
    )


STARVATION = _bench("seed001-starvation", "results/seeds", "starvation*.csv starvation*.md")
THIN = _bench("seed001-thin-streams", "results/seeds", "thin_streams*.csv thin_streams*.md")
SEED003 = _bench("seed003", "results/seeds", "seed003_s?.csv seed003_s?.md")

#: the UML kernel and its tc: the qdiscs (msfc's and its probe among them) and their headers,
#: tc's plugin and its build, the kernel's config and the build that prepares its tree
UML_KERNEL = (
    "kernel/net/sched",
    "kernel/include",
    "kernel/iproute2/q_msfc.c",
    "kernel/scripts/build_tc.sh",
    "kernel/Makefile",
    "kernel/scripts/prepare_tree.py",
    "kernel/scripts/uml_selectable_hz.py",
    "kernel/scripts/uml_host_xstate.py",
    "kernel/test/uml.config",
)

#: what seed 002's numbers depend on: the UML kernel (its qdiscs, msfc's among them, its
#: config and the build that prepares its tree, HZ=1000 included) and tc with msfc's plugin;
#: the guest's side (init, the senders and receivers) and the boot driver; the Python that
#: runs the boots and turns their results into the tables, and the seed's published figures
SEED002 = (
    *UML_KERNEL,
    "kernel/test/shaping_init.sh",
    "kernel/test/shaping.py",
    "kernel/scripts/shaping_boot.py",
    "python/msfc/seeds/__init__.py",
    "python/msfc/seeds/seed002.py",
    "python/msfc/seeds/shaping_metrics.py",
    "python/msfc/data/seeds-published.json",
)
#: the benchmark's tidy CSVs and tables, copied into docs/seeds/seed002/
SEED002_CMD = (
    "make bench-seed002 SEEDS_OUT=results/seeds && cp results/seeds/seed002/*.csv"
    " results/seeds/seed002/*.md docs/seeds/seed002/"
)


def _md_row(cells: list[str]) -> str:
    """A Markdown table row, an empty cell as "| |"."""
    return "|" + "|".join(f" {c} " if c else " " for c in cells) + "|"


SEED002_GUARANTEE_HEADS = (
    "scheduler",
    "flood Mbit/s",
    "timers",
    "TCP during flood",
    "lowest 100 ms",
    "intervals < 0.9 Mbit/s",
    "empty",
    "longest gap",
    "flood got",
)


def _seed002_guarantee(
    high_res: tuple[int, ...], tick: tuple[int, ...], seed_rows: bool = False
) -> Callable[[pd.DataFrame], str]:
    """Seed 002's guarantee under UDP floods (the rows of interference_summary.csv, or the
    table the benchmark makes of them): with time travel, the floods `high_res` (Mbit/s) with
    high-resolution timers and `tick` with tick timers, then the real-time runs, each group
    in the data's order: TCP's rate during the flood, its lowest 100 ms, the intervals under
    90 % of the guarantee, the empty ones, the longest gap, the flood's rate. With
    `seed_rows`, the seed's Figures 11 and 9 under them (msfc/data/seeds-published.json)."""

    def render(d: pd.DataFrame) -> str:
        travel = d["time_travel"] == "inf-cpu"
        groups = [
            d[travel & (d["highres"] == "on") & d["flood_mbit"].isin(high_res)],
            d[travel & (d["highres"] == "off") & d["flood_mbit"].isin(tick)],
            d[~travel],
        ]
        rows = []
        for g in groups:
            if g.empty:
                raise UserError(
                    "seed 002's guarantee data lacks a group of rows: measure it again", 1
                )
            rows += [SH.guarantee_cells(r) for _, r in g.iterrows()]
        if seed_rows:
            g = S.published()["seed002"]["min_rate_guarantee"]
            f11, f9 = g["fig11_cbq"], g["fig9_no_scheduler"]
            kept = "not interrupted" if not f11["tcp_interrupted"] else "interrupted"
            stop = f9["tcp_stopped_s"][1] - f9["tcp_stopped_s"][0]
            jiffies = "jiffies, HZ=100"
            rows.append(
                [
                    "seed Fig. 11 (CBQ)",
                    f"{f11['udp_mbps']:g}",
                    jiffies,
                    f"{f11['tcp_guaranteed_mbps']:g} guaranteed, {kept}",
                    *[""] * 4,
                    f"{f11['udp_limited_mbps']:g} (limited)",
                ]
            )
            rows.append(
                [
                    "seed Fig. 9 (no scheduler)",
                    f"{f9['udp_mbps']:g}",
                    jiffies,
                    f"stopped for {stop:g} s",
                    *[""] * 5,
                ]
            )
        return "\n".join([*LT.md_head(list(SEED002_GUARANTEE_HEADS)), *map(_md_row, rows)])

    return render


#: Linux 5.10's rate table: its shapers, with tick timers, then high-resolution ones
CBQ_SHAPERS = ("cbq", "htb", "tbf-mtu")


def _cbq_rate(d: pd.DataFrame) -> str:
    """CBQ, htb and the one-frame tbf in Linux 5.10 (seed002-cbq/rate_accuracy.csv, time
    travel): achieved kbit/s per configured rate, tick timers then high-resolution ones, the
    tick model of that tbf at HZ=100 and what the seed's text says of its Figure 14."""
    from ..seeds import seed002

    pub = S.published()["seed002"]
    d = d[d["time_travel"] == "inf-cpu"]
    idx = {(r["highres"], r["shaper"], r["configured_bps"]): r for _, r in d.iterrows()}
    cols = [(hr, sh) for hr in ("off", "on") for sh in CBQ_SHAPERS]
    heads = ["configured kbit/s", *(f"hr {hr}: {sh}" for hr, sh in cols)]
    heads += ["tick model HZ=100, 1514 B", "seed Fig. 14 (HZ=100, CBQ + TBF)"]
    rows = []
    for rate in sorted(d["configured_bps"].unique()):
        cells = [f"{rate / 1e3:g}"]
        for hr, sh in cols:
            r = idx.get((hr, sh, rate))
            cells.append("" if r is None else f"{r['achieved_bps'] / 1e3:.0f}")
        cells.append(f"{sm.tbf_tick_rate(rate, 100, 1514) / 1e3:.0f}")
        cells.append(seed002.seed_fig14(rate, pub))
        rows.append(cells)
    return LT.md_table(heads, rows)


def _cbq_multiflow(d: pd.DataFrame) -> str:
    """The seed's Figures 17/18 in Linux 5.10 (seed002-cbq/multiflow_summary.csv, time
    travel): per scheduler and timers each flow's Mbit/s before D starts / while D runs
    (lowest 100 ms while D runs), then the seed's figures (msfc/data/seeds-published.json)."""
    pub = S.published()["seed002"]["cbq_clock"]
    d = d[d["time_travel"] == "inf-cpu"]
    flows = list(dict.fromkeys(d["flow"]))
    first = {f: d[d["flow"] == f].iloc[0] for f in flows}
    heads = ["scheduler", "timers"] + [
        f"{f} ({first[f]['offered_mbit']:.1f} Mbit/s, {first[f]['ip_len']} B,"
        f" class {first[f]['guarantee_mbit']:g})"
        for f in flows
    ]
    lines = LT.md_head(heads)
    for (sched, _), g in d.groupby(["scheduler", "highres"], sort=False):
        by = g.set_index("flow")
        cells = [SH.multiflow_cell(by.loc[f]) for f in flows]
        lines.append(f"| {sched} | {SH.timers(g.iloc[0])} | " + " | ".join(cells) + " |")
    # the seed's small-packet flow (C) while the large one (D, limited to its class) runs
    small, large = flows[-2], flows[-1]
    limit = f"limited to {first[large]['guarantee_mbit']:g}"
    for fig, hz, mbps, about in (
        (17, 100, pub["hz100_guaranteed_flow_mbps"], "about "),
        (18, 1024, pub["hz1024_guaranteed_flow_mbps"], ""),
    ):
        cells = ["" for _ in flows]
        cells[flows.index(small)] = f"{about}{mbps:g} while {large} runs"
        cells[flows.index(large)] = limit
        lines.append(_md_row([f"seed Fig. {fig} (CBQ, PSCHED_CPU, HZ={hz})", "", *cells]))
    return "\n".join(lines)


#: the dumbbell of docs/results.md: the model, the scenario library's dumbbell and the build,
#: the program and the command that runs it and keeps its CSV
DUMBBELL = (*NS3, "examples/msfc-dumbbell.cc", "python/msfc/sim/program_bench.py")
DUMBBELL_CMD = "make bench-dumbbell && cp results/dumbbell.csv docs/ns3/dumbbell.csv"


def _dumbbell(d: pd.DataFrame) -> str:
    """msfc-dumbbell's rows (--csv): per scheduler and group its goodput, share of the total,
    mean delay and lost packets; then MSFC's class counters at the bottleneck."""
    _require_columns(
        d,
        {"scheduler", "kind", "name", "goodput_mbps", "share", "delay_ms", "lost_packets"},
        "dumbbell",
    )
    groups = [
        [r.scheduler, r.name, f"{r.goodput_mbps:.3f}", f"{r.share:.3f}", f"{r.delay_ms:.1f}"]
        + [str(int(r.lost_packets))]
        for r in d[d["kind"] == "group"].itertuples()
    ]
    counters = (
        "enqueued_packets",
        "dequeued_packets",
        "dequeued_bytes",
        "codel_drops",
        "overload_drops",
        "ecn_marks",
    )
    classes = [
        [r["scheduler"], str(r["name"]), *(str(int(r[c])) for c in counters)]
        for _, r in d[d["kind"] == "class"].iterrows()
    ]
    out = LT.md_table(
        ["scheduler", "group", "goodput Mbit/s", "share", "mean delay ms", "lost packets"],
        groups,
        ["---", "---"] + ["---:"] * 4,
    )
    if classes:
        heads = ["scheduler", "class", "enqueued", "dequeued", "dequeued bytes"]
        heads += ["CoDel drops", "overload drops", "ECN marks"]
        out += "\n\nMSFC's class counters at the bottleneck (packets, bytes):\n\n"
        out += LT.md_table(heads, classes, ["---", "---"] + ["---:"] * 6)
    return out


#: what ns-3's per-packet cost depends on: the model and the build, the benchmark program and
#: the command that runs it and keeps its CSV
NS3_COST = (*NS3, "benchmarks/msfc-qdisc-cost.cc", "python/msfc/sim/program_bench.py")
NS3_COST_CMD = "make bench-cost && cp results/qdisc-cost.csv docs/ns3/qdisc-cost.csv"


def _ns3_cost(d: pd.DataFrame) -> str:
    """msfc-qdisc-cost's medians (ns per dequeue + re-enqueue step), a row per workload and
    number of flows: FQ-CoDel, MSFC in the thesis mode and their ratio, then each of MSFC's
    modes with its ratio to the thesis mode, all measured in one run, interleaved."""
    _require_columns(d, {"workload", "scheduler", "flows", "ns_per_packet"}, "cost")
    ns = d.pivot_table(
        index=["workload", "flows"], columns="scheduler", values="ns_per_packet", sort=False
    )
    for ref in ("FqCoDel", "Msfc"):
        if ref not in ns.columns:
            raise UserError(f"the cost data has no {ref}: measure it again", 1)
    modes = [c for c in pd.unique(d["scheduler"]) if c.startswith("Msfc ")]
    heads = ["workload", "flows", "FqCoDel", "Msfc", "Msfc / FqCoDel"]
    heads += [f"`{m[len('Msfc ') :]}` (/ Msfc)" for m in modes]
    rows = []
    for (workload, flows), r in ns.iterrows():
        cells = [workload, str(flows), f"{r['FqCoDel']:.0f}", f"{r['Msfc']:.0f}"]
        cells.append(f"{r['Msfc'] / r['FqCoDel']:.2f}")
        cells += [f"{r[m]:.0f} ({r[m] / r['Msfc']:.2f})" for m in modes]
        rows.append(cells)
    return LT.md_table(heads, rows, ["---"] + ["---:"] * (len(heads) - 1))


#: what the CBQ tables' numbers (Linux 5.10) depend on: that kernel (the source Debian
#: serves, CBQ put back, the config, the host-state fix), its build and boots, the guest's
#: side and the Python that runs the boots and writes the tidy CSVs
SEED002_CBQ = (
    "kernel/Makefile",
    "kernel/test/linux-5.10.sh",
    "kernel/test/uml-5.10.config",
    "kernel/scripts/add_cbq.py",
    "kernel/scripts/uml_host_xstate.py",
    "kernel/scripts/build_tc.sh",
    "kernel/test/shaping_init.sh",
    "kernel/test/shaping.py",
    "kernel/scripts/shaping_boot.py",
    "kernel/scripts/cbq_seed002.py",
    "python/msfc/seeds/__init__.py",
    "python/msfc/seeds/shaping.py",
    "python/msfc/seeds/shaping_metrics.py",
    "python/msfc/data/seeds-published.json",
)
SEED002_CBQ_CMD = (
    "make bench-seed002-cbq CBQ_SRC=/path/to/sch_cbq.c SEEDS_OUT=results/seeds"
    " && cp results/seeds/seed002-cbq/*.csv docs/seeds/seed002-cbq/"
)


def _seed002_cbq(name: str, data: str, render) -> DocTable:
    """A table of docs/seeds.md from the CBQ benchmark's tidy CSV docs/seeds/seed002-cbq/`data`."""
    return DocTable(
        name,
        "docs/seeds.md",
        f"docs/seeds/seed002-cbq/{data}",
        render,
        SEED002_CBQ_CMD,
        SEED002_CBQ,
        provenance=True,
    )


#: msfc's own shaper against its rate (docs/kernel.md): the UML kernel and tc, the shaping
#: experiment's guest side and boot, its spec, and the Python that writes the rows
MSFC_SHAPER = (
    *UML_KERNEL,
    "kernel/test/shaping_init.sh",
    "kernel/test/shaping.py",
    "kernel/scripts/shaping_boot.py",
    "kernel/test/msfc_shaper.json",
    "python/msfc/seeds/shaping.py",
    "python/msfc/seeds/shaping_metrics.py",
)
MSFC_SHAPER_CMD = (
    "make bench-msfc-shaper && cp results/msfc-shaper/rate.csv docs/kernel/msfc-shaper.csv"
)
#: the table's columns, by the spec's shaper name: its heading (a shaper whose words change
#: what a frame is charged also shows that, _charged_bytes)
MSFC_SHAPER_COLUMNS = {
    "msfc": "msfc (CoDel on)",
    "msfc-codel-off": "msfc, CoDel off",
    "msfc-overhead": "`overhead 38 mpu 84`",
    "msfc-atm": "`atm`",
}
#: a frame's network header starts after its Ethernet header (`overhead N` counts from there)
ETH_HEADER = 14


def _charged_bytes(words: list[str], frame: int) -> int:
    """The bytes msfc's shaper charges for a frame of `frame` bytes (as the kernel reports its
    length, from the MAC header) under the words after `msfc bandwidth R`, by docs/kernel.md's
    rule, cake's: framing(max(length + overhead, mpu)), where `overhead N` counts from the
    network header and `raw` (the default) takes the frame with no overhead."""
    opts = {w: (words[i + 1] if i + 1 < len(words) else "") for i, w in enumerate(words)}
    if "overhead" in opts and "raw" in opts:
        raise UserError(f"msfc {' '.join(words)}: give overhead N or raw, not both", 1)
    length = frame
    if "overhead" in opts:
        length = frame - ETH_HEADER + int(opts["overhead"])
    length = max(length, int(opts.get("mpu", 0)))
    if "atm" in words:
        return -(-length // 48) * 53
    if "ptm" in words:
        return length + -(-length // 64)
    return length


def _msfc_shaper_spec() -> dict[str, list[str]]:
    """The rate experiment's shapers of kernel/test/msfc_shaper.json: name -> msfc's words."""
    spec = json.loads((ROOT / "kernel/test/msfc_shaper.json").read_text())
    rate = next(e for e in spec["experiments"] if e["experiment"] == "rate")
    return {x["name"]: x.get("args", []) for x in rate["shapers"]}


def _msfc_shaper(d: pd.DataFrame) -> str:
    """The rate experiment's rows of msfc's own shaper: a row per configured rate, a column
    per configuration, each cell the received frame rate over the configured rate; where the
    configuration charges more than the frame, its heading gives what it should send."""
    _require_columns(d, {"shaper", "configured_bps", "achieved_bps"}, "shaper")
    missing = set(MSFC_SHAPER_COLUMNS) - set(d["shaper"])
    if missing:
        raise UserError(f"the shaper data has no {', '.join(sorted(missing))}: measure it", 1)
    heads = ["bandwidth"]
    words = _msfc_shaper_spec()
    for name, head in MSFC_SHAPER_COLUMNS.items():
        charged = _charged_bytes(words[name], sm.FRAME)
        if charged != sm.FRAME:
            head += f" (charged {charged}, expected {sm.FRAME / charged:.6f})"
        heads.append(head)
    ratio = d.assign(r=d["achieved_bps"] / d["configured_bps"]).pivot_table(
        index="configured_bps", columns="shaper", values="r"
    )
    rows = [
        [f"{rate / 1e6:g} Mbit/s", *(f"{ratio.at[rate, q]:.6f}" for q in MSFC_SHAPER_COLUMNS)]
        for rate in ratio.index
    ]
    return LT.md_table(heads, rows)


#: what the per-packet cost probe's numbers depend on: the qdiscs and the probe
#: (kernel/net/sched), their headers, the UML kernel's config and the build that prepares its
#: tree, tc with msfc's plugin, the boot's script and the summary that writes the data
KERNEL_COST = (
    *UML_KERNEL,
    "kernel/test/bench_init.sh",
    "kernel/scripts/bench_summary.py",
)
KERNEL_COST_CMD = (
    "make -C kernel bench && python3 kernel/scripts/bench_summary.py"
    " kernel/build/bench-result.json --csv docs/kernel/bench-cost.csv"
)


def _kernel_cost(d: pd.DataFrame) -> str:
    """The probe's cost per qdisc (bench_summary.py's tidy rows): the median ns per packet
    over the repetitions for each number of flows, in the order the boot measured the qdiscs,
    then the ratios of those medians to msfc's and to fq_codel's."""
    _require_columns(d, {"qdisc", "flows", "ns_per_packet"}, "cost")
    med = d.groupby(["qdisc", "flows"], sort=False)["ns_per_packet"].median().unstack("flows")
    flows = sorted(med.columns)
    for ref in ("msfc", "fq_codel"):
        if ref not in med.index:
            raise UserError(f"the cost data has no {ref}: measure it again", 1)

    def ratio(q: str, ref: str) -> str:
        if q == ref:
            return "1"
        return ", ".join(f"{med.at[q, f] / med.at[ref, f]:.2f}" for f in flows)

    heads = ["qdisc", *(_flows_heading(f) for f in flows)]
    heads += ["ratio to `msfc`", "ratio to `fq_codel`"]
    rows = []
    for q in med.index:
        cells = [f"`{q}`", *(f"{med.at[q, f]:.0f} ns" for f in flows)]
        rows.append([*cells, ratio(q, "msfc"), ratio(q, "fq_codel")])
    return LT.md_table(heads, rows)


#: what the per-packet cost in Debian's kernels under qemu depends on: the module (built by
#: DKMS in each kernel's image) and the probe with their headers and build, tc's plugin, the
#: guest's side (kernel/vm: the images, the initrd, the cost job) and the Python that boots
#: the VM and writes cost.csv
VM_COST = (
    "kernel/net/sched",
    "kernel/include",
    "kernel/dkms.conf",
    "kernel/Makefile",
    "kernel/vm",
    "kernel/iproute2/q_msfc.c",
    "kernel/scripts/build_tc.sh",
    "python/msfc/linux/cost.py",
    "python/msfc/linux/qemu.py",
    "python/msfc/linux/records.py",
)
#: ... and of the BPF qdisc (7.3.4), the BPF program and its loader with their build
BPF_COST = (
    "bpf/Makefile",
    "bpf/msfc-bpf.c",
    "bpf/msfc.bpf.c",
    "bpf/msfc_bpf.h",
    "bpf/vmlinux-elf.py",
    *VM_COST,
)
BPF_COST_CMD = (
    "make -C bpf cost && cp bpf/build/cost/7.3.4+deb13-cloud-amd64/cost.csv"
    " docs/kernel/bpf-cost.csv"
)
#: the BPF cost table's rows: qdisc label of cost.csv -> its name in the table
BPF_COST_ROWS = {
    "pfifo": "`pfifo limit 1000`",
    "fq_codel": "`fq_codel`",
    "msfc": "`msfc` (module)",
    "cake": "`cake`",
    "msfc_bpf": "`msfc_bpf`",
    "fq_codel_keephash": "`fq_codel`, hash kept",
    "msfc_keephash": "`msfc` (module), hash kept",
    "msfc_bpf_keephash": "`msfc_bpf`, hash kept",
}
#: the ratios below it: (numerator, denominator, the row's name)
BPF_COST_RATIOS = (
    ("msfc_bpf", "msfc", "`msfc_bpf` / `msfc`"),
    ("msfc_bpf", "fq_codel", "`msfc_bpf` / `fq_codel`"),
    ("msfc_bpf", "cake", "`msfc_bpf` / `cake`"),
    ("msfc_bpf_keephash", "msfc_keephash", "`msfc_bpf` / `msfc`, hash kept"),
    ("msfc", "fq_codel", "`msfc` / `fq_codel` (for comparison)"),
)


#: what the class-share errors of weights=rounded and weights=exact depend on: the reference
#: model (its class quanta and DRR), the parameters it reads and the measurement
WEIGHTS = (
    "python/msfc/model/reference.py",
    "python/msfc/model/params.py",
    "kernel/include/uapi/linux/pkt_sched_msfc.h",
    "python/msfc/model/weights.py",
)


def _weights_pct(x: float) -> str:
    """An error in %: whole from 100 up, three significant digits from 1, two below (2059,
    2.38, 0.018)."""
    return f"{x:.0f}" if x >= 100 else f"{x:.3g}" if x >= 1 else f"{x:.2g}"


def _weights(d: pd.DataFrame) -> str:
    """docs/algorithm.md's class-share errors (python -m msfc.model.weights --csv): a row per
    configuration, the largest relative error of a class's share with weights=rounded (its
    class and how many times its share it got) and with weights=exact."""
    _require_columns(
        d,
        {
            "prios",
            "ratio",
            "quantum",
            "weights",
            "worst_class",
            "share_over_ideal",
            "max_error_pct",
        },
        "weights",
    )
    rows = []
    for (prios, ratio, quantum), g in d.groupby(["prios", "ratio", "quantum"], sort=False):
        by = {r["weights"]: r for _, r in g.iterrows()}
        if set(by) != {"rounded", "exact"}:
            raise UserError(f"the weights data lacks a mode for prios {prios}: measure it again", 1)
        r = by["rounded"]
        rows.append(
            [
                f"prios {prios}, ratio {ratio:g}, quantum {quantum}",
                f"{_weights_pct(r['max_error_pct'])} % (class {r['worst_class']}: "
                f"{r['share_over_ideal']:.3g} times its share)",
                f"{_weights_pct(by['exact']['max_error_pct'])} %",
            ]
        )
    return LT.md_table(["configuration", "`weights=rounded`", "`weights=exact`"], rows)


def _bpf_cost(d: pd.DataFrame) -> str:
    """The probe's rounds (cost.csv of one kernel): ns per packet, the median over the rounds
    per qdisc and number of flows; then each ratio of BPF_COST_RATIOS taken within each round,
    its median and range over the rounds."""
    _require_columns(d, {"round", "flows", "qdisc", "ns_per_packet"}, "cost")
    missing = set(BPF_COST_ROWS) - set(d["qdisc"])
    if missing:
        raise UserError(f"the cost data has no {', '.join(sorted(missing))}: measure it again", 1)
    ns = d.pivot_table(index=["flows", "round"], columns="qdisc", values="ns_per_packet")
    flows = sorted(d["flows"].unique())
    heads = [_flows_heading(f) for f in flows]
    med = ns.groupby(level="flows").median()
    rows = [[name, *(f"{med.at[f, q]:.0f}" for f in flows)] for q, name in BPF_COST_ROWS.items()]
    ratios = []
    for num, den, name in BPF_COST_RATIOS:
        r = (ns[num] / ns[den]).groupby(level="flows")
        lo, mid, hi = r.min(), r.median(), r.max()
        ratios.append([name, *(f"{mid[f]:.2f} ({lo[f]:.2f}-{hi[f]:.2f})" for f in flows)])
    return (
        LT.md_table(["qdisc", *heads], rows)
        + "\n\n"
        + LT.md_table(["ratio (range over the rounds)", *heads], ratios)
    )


#: where make bench-linux-cost's data lies in the repository: a directory per kernel
VM_COST_DATA = "docs/linux-testbed/linux-cost"


def vm_cost_kernels() -> list[str]:
    """The kernels of make bench-linux-cost whose cost data is in the repository (kernel/
    Makefile's VM_KVERS when they were measured; the newest Debian 13 kernel is looked up at
    run time, so the data, not the Makefile, says which were): each has its doc tables, and a
    kernel's data without a place in the docs fails the check."""
    root = ROOT / VM_COST_DATA
    return (
        sorted(p.name for p in root.iterdir() if (p / "cost.csv").is_file())
        if root.is_dir()
        else []
    )


def _vm_cost(d: pd.DataFrame) -> str:
    """One kernel's rounds of make bench-linux-cost (its cost.csv): per qdisc, in the order
    the testbed knows them, and number of flows, the median ns per packet over the rounds and
    the ratio to fq_codel taken within each round, median (range) over the rounds
    (msfc.linux.cost.cost_summary, what its tables.md gives)."""
    from ..linux import cost as C

    _require_columns(
        d, {"round", "flows", "qdisc", "ns_per_packet", "kernel", "accel", "lost"}, "cost"
    )
    unknown = set(d["qdisc"]) - set(C.COST_QDISCS)
    if unknown:
        raise UserError(f"the cost data names qdiscs the testbed does not: {sorted(unknown)}", 1)
    summary = C.cost_summary(d.to_dict("records"))
    flows = sorted({r["flows"] for r in summary})
    cell = {(r["qdisc"], r["flows"]): r for r in summary}
    base = f"ratio_{C.COST_BASE}"
    rows = []
    for q in dict.fromkeys(r["qdisc"] for r in summary):
        mode, args = C.COST_QDISCS[q]
        cells = [q, f"`{args}`" + (" (hash kept)" if mode == "keephash" else "")]
        for f in flows:
            x = cell.get((q, f))
            cells.append(
                "-"
                if x is None
                else f"{x['ns_median']:.0f} ns, **{x[base]:.2f}** "
                f"({x[base + '_min']:.2f}-{x[base + '_max']:.2f})"
            )
        rows.append(cells)
    heads = ["qdisc", "tc", *(_flows_heading(f) for f in flows)]
    return LT.md_table(heads, rows)


def _vm_profile(d: pd.DataFrame) -> str:
    """One kernel's profile of make bench-linux-cost (its profile.csv): the share of the
    samples per part (msfc.linux.cost.PROFILE_GROUPS, then the qdisc's own code and the rest)
    and qdisc, in %."""
    from ..linux import cost as C

    _require_columns(d, {"qdisc", "percent", "group"}, "profile")
    qdiscs = list(dict.fromkeys(d["qdisc"]))
    groups = [g for g, _ in C.PROFILE_GROUPS] + ["qdisc's own code", "other kernel code"]
    groups += [g for g in dict.fromkeys(d["group"]) if g not in groups]
    share = d.groupby(["group", "qdisc"])["percent"].sum()
    rows = [[g, *(f"{share.get((g, q), 0.0):.1f}" for q in qdiscs)] for g in groups]
    return LT.md_table(["part", *qdiscs], rows)


def _vm_cost_tables() -> list[DocTable]:
    """A cost table per kernel of make bench-linux-cost, and one of its profile where the
    run profiles (not in Debian 13's kernels: the host's perf needs other libraries)."""
    from ..linux import cost as C

    out = []
    for k in vm_cost_kernels():
        short = k.split("+")[0].removesuffix("-amd64")
        for kind, render in (("cost", _vm_cost), ("profile", _vm_profile)):
            if kind == "profile" and C.DEB13_MARK in k:
                continue
            data = f"{VM_COST_DATA}/{k}/{kind}.csv"
            out.append(
                DocTable(
                    f"linux-{kind}-{short}",
                    "docs/linux-testbed.md",
                    data,
                    render,
                    f"make bench-linux-cost && cp results/linux-cost/{k}/{kind}.csv {data}",
                    VM_COST,
                    provenance=True,
                )
            )
    return out


#: what the UML testbed's numbers depend on: the qdisc and its UAPI header; tc's plugin and
#: its build; the UML kernel's config and the build that prepares its tree (with the KUnit
#: suite it builds in and runs at boot, and that suite's trace replay); the guest's side of
#: the testbed (init, Flent and iperf3 jobs, network, fixed randomness, sandbox, root tree); the
#: Python that writes the jobs, boots UML and turns the guest's files into records and tables
LINUX = (
    *UML_KERNEL,
    "kernel/test/uml_env.sh",
    "kernel/test/uml_fixed_random.c",
    "kernel/test/uml_root.sh",
    "kernel/test/uml_sandbox.sh",
    "kernel/test/uml_testbed_flent.sh",
    "kernel/test/uml_testbed_init.sh",
    "kernel/vm/guest/bench.sh",
    "kernel/vm/guest/net.sh",
    "python/msfc/linux/flent.py",
    "python/msfc/linux/records.py",
    "python/msfc/linux/tables.py",
    "python/msfc/linux/uml.py",
    "python/msfc/linux/umlbench.py",
    # the testbed's kernel runs msfc's KUnit suite at every boot, with the trace replay that
    # kernel/scripts/prepare_tree.py compiles in from these (python -m msfc.model.kunit)
    "test/vectors",
    "python/msfc/model",
    "tools/lib/msfc-trace-keys.def",
)


def _uml_measurement(name: str, module: str, opts: str) -> DocTable:
    """A table of docs/linux-testbed.md from one of the testbed's own measurements (python -m
    msfc.linux.<module>): its rows in docs/linux-testbed/<module>.csv, written by its --csv,
    rendered by its table(); the data depends on the testbed and that module."""
    mod = importlib.import_module(f"msfc.linux.{module}")
    data = f"docs/linux-testbed/{module}.csv"
    return DocTable(
        name,
        "docs/linux-testbed.md",
        data,
        lambda d: mod.table(d.to_dict("records")),
        f"python -m msfc.linux.{module} {opts} --out results/linux-testbed/{module} --csv {data}",
        (*LINUX, f"python/msfc/linux/{module}.py"),
        provenance=True,
    )


#: what the stock-kernel VM's tables depend on: the module as DKMS builds it, the tc plugin,
#: the VM with its guest jobs, and the host side that boots it and makes the tables
VM_BENCH = (
    *(p for p in VM_COST if p != "python/msfc/linux/cost.py"),
    "python/msfc/linux/tables.py",
    "python/msfc/linux/vm.py",
)


def _linux(name: str, doc: str, group: str, render) -> DocTable:
    """A table of one group of the Linux testbeds' tables (linuxtables.GROUPS): the UML
    bench's, or the stock-kernel VM's (make bench-linux-vm writes results/linux-vm)."""
    g = LT.GROUPS[group]
    vm = g.testbed == "vm"
    then = (
        "results/linux-vm --commit COMMIT (COMMIT: the commit the module was built at)"
        if vm
        else "RESULTS --commit COMMIT (RESULTS: the --out above, COMMIT: the commit the kernel"
        " was built at)"
    )
    return DocTable(
        name,
        doc,
        g.data,
        render,
        f"{g.command}, then python -m msfc.analysis.doctables --collect-linux {group} {then}",
        VM_BENCH if vm else LINUX,
        provenance=True,
        collected=True,
    )


def _vm(name: str, table: str) -> DocTable:
    """A table of the stock-kernel VM's bench (linuxtables.VM_TABLES, BENCH_TABLES)."""
    return _linux(name, "docs/linux-testbed.md", "vm", lambda d, m: LT.vm_table(d, table))


#: what the ISP tree's tables depend on: the ns-3 model, the scenario and its flow types
ISP = (*NS3, "scenarios/scenario-isp-tree.cc", "scenarios/flow-types")
#: every flow type in class 1: the ISP tree with every packet unmarked
UNMARKED = "priorities=SSH=1,voip=1,game=1,TVStream=1,http=1,download=1,torrent=1"
#: the full-scale tree with every packet unmarked: MSFC with auto, the marked thesis mode (the
#: run of ISP_FULL's sweep, which a copy of its run directory lets this sweep take as done)
#: and the class-blind baselines
ISP_FULL_UNMARKED = (
    f"msfc sweep isp-tree --preset thesis --set {UNMARKED} --scheduler Msfc"
    " --set Msfc.Auto=unmarked --set Msfc.Boost=across --grid Msfc.Flows=8192"
    " --out results/ispfull/isp-unmarked-auto",
    "msfc sweep isp-tree --preset thesis --grid scheduler=Msfc --out results/ispfull/isp-marked",
    f"msfc sweep isp-tree --preset thesis --set {UNMARKED} --grid scheduler=FqCoDel,FqCobalt"
    " --jobs 2 --out results/ispfull/isp-unmarked-base",
)


def _isp_quick_cols(metric: str) -> tuple[IspCol, ...]:
    """The `quick` comparison of the thesis's four schedulers (make bench's runs), a column
    each, showing `metric`."""
    return tuple(IspCol(s, "isp-quick", s, metric=metric) for s in ISP_SCHEDULERS)


#: docs/results.md's summary of make bench's comparison: the totals, then the mean throughput,
#: the mean delay and the lost packets per type
ISP_QUICK_SUMMARY = _then(
    "Overall, download (as the thesis's Table 3.4):",
    _isp_overall(("scheduler",), *_isp_quick_cols("throughput_kbps")),
    "Mean flow throughput (kbps) per flow type, download:",
    _isp_types(*_isp_quick_cols("throughput_kbps")),
    "Mean delay (ms) per flow type, download:",
    _isp_types(*_isp_quick_cols("delay_mean_ms")),
    "Lost packets per flow type, download:",
    _isp_types(*_isp_quick_cols("lost_packets")),
)


@dataclass(frozen=True)
class ModeRow:
    """A row of docs/cli.md's table of the modes' presets: one figure (`metric` of the types
    `types`, "all" for the overall row) of one sweep (`study`), in its configuration `off`
    (attributes) and `on`, each the mean over the sweep's RNG runs with its interval."""

    mode: str
    where: str
    what: str
    study: str
    off: str
    on: str
    metric: str
    types: tuple[str, ...]


MODE_ROWS = (
    ModeRow(
        "`Inversion=prevent`",
        "isp-tree `modes`",
        "mean flow throughput (kbit/s) of torrent (class 0)",
        "isp-modes-inversion",
        "Msfc.Inversion=allow",
        "Msfc.Inversion=prevent",
        "throughput_kbps",
        ("torrent",),
    ),
    ModeRow(
        "",
        "",
        "... of TV, HTTP, download (class 1)",
        "isp-modes-inversion",
        "Msfc.Inversion=allow",
        "Msfc.Inversion=prevent",
        "throughput_kbps",
        ("TVStream", "http", "download"),
    ),
    ModeRow(
        "`Overload=class`",
        "starvation `modes`",
        "the TCP flow's throughput (kbit/s)",
        "starvation-modes-overload",
        "Msfc.Overload=flow",
        "Msfc.Overload=class",
        "throughput_kbps",
        ("Bulk",),
    ),
    ModeRow(
        "`Isolate=src`",
        "starvation `modes`",
        "the TCP flow's throughput (kbit/s)",
        "starvation-modes-isolate",
        "Msfc.Isolate=flow",
        "Msfc.Isolate=src",
        "throughput_kbps",
        ("Bulk",),
    ),
    ModeRow(
        "`Inversion=prevent`, with `Overload=class`",
        "starvation `modes`",
        "the TCP flow's throughput (kbit/s)",
        "starvation-modes-inversion",
        "Msfc.Overload=class Msfc.Inversion=allow",
        "Msfc.Overload=class Msfc.Inversion=prevent",
        "throughput_kbps",
        ("Bulk",),
    ),
    ModeRow(
        "`Boost=on`",
        "thin-streams `tiny`",
        "the gaming flow's mean delay (ms)",
        "thin-boost",
        "Msfc.Boost=off",
        "Msfc.Boost=on",
        "delay_mean_ms",
        ("Gaming",),
    ),
    ModeRow(
        "`Order=priority`",
        "thin-streams `tiny`, `thin-class=higher`",
        "the gaming flow's mean delay (ms)",
        "thin-order",
        "Msfc.Order=round",
        "Msfc.Order=priority",
        "delay_mean_ms",
        ("Gaming",),
    ),
    ModeRow(
        "`Isolate=dst`",
        "isp-tree `modes`",
        "harmonic-mean delay of all flows (ms)",
        "isp-modes-isolate",
        "Msfc.Isolate=flow",
        "Msfc.Isolate=dst",
        "delay_hmean_ms",
        ("all",),
    ),
    ModeRow(
        "`Boost=on`",
        "isp-tree `modes`",
        "harmonic-mean delay of all flows (ms)",
        "isp-modes-boost",
        "Msfc.Boost=off",
        "Msfc.Boost=on",
        "delay_hmean_ms",
        ("all",),
    ),
    ModeRow(
        "`Order=priority`",
        "isp-tree `modes`",
        "mean delay (ms) of SSH, VoIP, game (class 2)",
        "isp-modes-order",
        "Msfc.Order=round",
        "Msfc.Order=priority",
        "delay_mean_ms",
        ("SSH", "voip", "game"),
    ),
)


def _modes(d: pd.DataFrame) -> str:
    """docs/cli.md's table of the modes' presets (MODE_ROWS): each cell the mean over the RNG
    runs with its interval, as msfc sweep's tables print it (msfc.analysis.tables)."""
    from . import metrics as M
    from . import tables as TB

    d = _with_attributes(d)
    rows = []
    for m in MODE_ROWS:
        cells = []
        for attrs in (m.off, m.on):
            sel = d[(d["study"] == m.study) & _set_exactly(d, attrs)]
            figures = []
            for ty in m.types:
                x = sel.loc[sel["type"] == ty, m.metric].to_numpy(float)
                if not len(x):
                    raise UserError(
                        f"no rows of {m.study}, {attrs}, type {ty}: collect it again", 1
                    )
                figures.append(TB.cell_text(m.metric, M.estimate(x)))
            cells.append(", ".join(figures))
        rows.append([m.mode, m.where, m.what, *cells])
    heads = ["mode", "scenario, preset", "what", "thesis value", "mode on"]
    return LT.md_table(heads, rows, ["---", "---", "---", "---:", "---:"])


#: the sweeps of the modes' presets (docs/cli.md), each with 3 RNG runs
MODES_SWEEPS = (
    ("isp-tree --preset modes", "--grid Msfc.Inversion=allow,prevent", "isp-modes-inversion"),
    ("isp-tree --preset modes", "--grid Msfc.Isolate=flow,dst", "isp-modes-isolate"),
    ("isp-tree --preset modes", "--grid Msfc.Boost=off,on", "isp-modes-boost"),
    ("isp-tree --preset modes", "--grid Msfc.Order=round,priority", "isp-modes-order"),
    ("starvation --preset modes", "--grid Msfc.Overload=flow,class", "starvation-modes-overload"),
    ("starvation --preset modes", "--grid Msfc.Isolate=flow,src", "starvation-modes-isolate"),
    (
        "starvation --preset modes",
        "--set Msfc.Overload=class --grid Msfc.Inversion=allow,prevent",
        "starvation-modes-inversion",
    ),
    ("thin-streams --preset tiny", "--grid Msfc.Boost=off,on", "thin-boost"),
    (
        "thin-streams --preset tiny",
        "--set thin-class=higher --grid Msfc.Order=round,priority",
        "thin-order",
    ),
)
MODES_CMD = " && ".join(
    [
        *(
            f"msfc sweep {where} --scheduler Msfc {grid} --seeds 3 --jobs 2"
            f" --out results/modes/{out}"
            for where, grid, out in MODES_SWEEPS
        ),
        "python -m msfc.analysis.doctables --collect-sweeps cli-modes results/modes",
    ]
)
#: the model, the build and the three scenarios' programs
MODES_DEPENDS = (
    *NS3,
    "scenarios/scenario-isp-tree.cc",
    "scenarios/flow-types",
    "scenarios/scenario-starvation.cc",
    "scenarios/scenario-thin-streams.cc",
)


def _isp_table(name: str, render, commands: tuple[str, ...]) -> DocTable:
    """An ISP-tree table of docs/isp-tree.md, its data docs/isp-tree/<name>.csv collected from
    the --out directories of `commands` (each ends with its --out)."""
    studies = tuple(c.rsplit("/", 1)[1] for c in commands)
    dirs = " ".join(c.rsplit(" ", 1)[1] for c in commands)
    return DocTable(
        name,
        "docs/isp-tree.md",
        f"docs/isp-tree/{name}.csv",
        render,
        " && ".join((*commands, f"{COLLECT_ISP} {name} {dirs}")),
        ISP,
        provenance=True,
        isp=studies,
    )


TABLES = {
    t.name: t
    for t in (
        _seed_table(
            "seed001-thin",
            "thin_streams.csv",
            _seed001_thin,
            THIN,
            _seed("thin-streams", "thin_streams"),
        ),
        _seed_table(
            "seed001-voip",
            "thin_streams_voip.csv",
            _seed001_voip,
            THIN,
            _seed("thin-streams", "thin_streams"),
        ),
        _seed_table(
            "seed001-starvation",
            "starvation.csv",
            _seed001_starvation,
            STARVATION,
            _seed("starvation", "starvation"),
        ),
        _seed_table(
            "seed001-dos",
            "starvation_dos.csv",
            _seed001_dos,
            STARVATION,
            _seed("starvation", "starvation"),
        ),
        _seed_table(
            "seed001-hosts",
            "starvation_hosts.csv",
            _as_written,
            STARVATION,
            _seed("starvation", "starvation"),
        ),
        _seed_table(
            "seed004-sfq-fairness",
            "sfq_fairness_100Mbps.csv",
            _columns(
                {
                    "scheduler": "under the TBF",
                    "cubic_mbps": "CUBIC",
                    "bbr_mbps": "BBR",
                    "jain": "Jain",
                    "seed_cubic_mbps": "seed (1 Gbps): CUBIC",
                    "seed_bbr_mbps": "BBR",
                    "seed_jain": "Jain",
                }
            ),
            _bench(
                "seed004-sfq-fairness",
                "results/seeds",
                "sfq_fairness_100Mbps.csv sfq_fairness_100Mbps.md",
            ),
            _seed("sfq-fairness", "sfq_fairness"),
        ),
        _seed_table(
            "seed003-s1",
            "seed003_s1.csv",
            _seed003_phases,
            SEED003,
            _seed("class-aqm", "seed003"),
        ),
        _seed_table(
            "seed003-s2",
            "seed003_s2.csv",
            _seed003_phases,
            SEED003,
            _seed("class-aqm", "seed003"),
        ),
        DocTable(
            "results-dumbbell",
            "docs/results.md",
            "docs/ns3/dumbbell.csv",
            _dumbbell,
            DUMBBELL_CMD,
            DUMBBELL,
            provenance=True,
        ),
        DocTable(
            "ns3-cost",
            "docs/results.md",
            "docs/ns3/qdisc-cost.csv",
            _ns3_cost,
            NS3_COST_CMD,
            NS3_COST,
            provenance=True,
        ),
        DocTable(
            "kernel-msfc-shaper",
            "docs/kernel.md",
            "docs/kernel/msfc-shaper.csv",
            _msfc_shaper,
            MSFC_SHAPER_CMD,
            MSFC_SHAPER,
            provenance=True,
        ),
        DocTable(
            "kernel-cost",
            "docs/kernel.md",
            "docs/kernel/bench-cost.csv",
            _kernel_cost,
            KERNEL_COST_CMD,
            KERNEL_COST,
            provenance=True,
        ),
        _seed_table(
            "seed002-rate",
            "seed002/rate_accuracy_table.csv",
            _as_written,
            SEED002_CMD,
            SEED002,
        ),
        _seed_table(
            "seed002-interference",
            "seed002/interference_summary_table.csv",
            _seed002_guarantee((8, 10, 12), (12,)),
            SEED002_CMD,
            SEED002,
        ),
        _seed002_cbq("seed002-cbq-rate", "rate_accuracy.csv", _cbq_rate),
        _seed002_cbq(
            "seed002-cbq-guarantee",
            "interference_summary.csv",
            _seed002_guarantee((10, 12), (10, 12), seed_rows=True),
        ),
        _seed002_cbq("seed002-cbq-multiflow", "multiflow_summary.csv", _cbq_multiflow),
        _seed_table(
            "seed003-s3",
            "seed003_s3.csv",
            _seed003_s3,
            SEED003,
            _seed("class-aqm", "seed003"),
        ),
        _seed_table(
            "seed003-s3-test",
            "seed003_s3_test.csv",
            _seed003_s3,
            "msfc bench seed003 results/seeds-quick --quick --only s3"
            " && cp results/seeds-quick/seed003_s3.csv docs/seeds/seed003_s3_test.csv"
            " && cp results/seeds-quick/seed003_s3.md docs/seeds/seed003_s3_test.md",
            _seed("class-aqm", "seed003"),
        ),
        _isp_table(
            "isp-auto-unmarked",
            _isp_auto_unmarked,
            (
                f"msfc sweep isp-tree --preset quick --set {UNMARKED} --grid"
                " scheduler=FqCoDel,FqCobalt,Msfc --jobs 2 --out results/ispauto/isp-unmarked-base",
                f"msfc sweep isp-tree --preset quick --set {UNMARKED} --scheduler Msfc --grid"
                " Msfc.Auto=unmarked --grid Msfc.Boost=off,across --jobs 2"
                " --out results/ispauto/isp-unmarked-auto",
                "msfc sweep isp-tree --preset quick --scheduler Msfc --grid Msfc.Auto=off,unmarked"
                " --jobs 2 --out results/ispauto/isp-marked",
                "msfc sweep isp-tree --preset quick --set flow-types=wrong-priorities --set"
                " priorities= --scheduler Msfc --grid Msfc.Auto=off,unmarked --jobs 2"
                " --out results/ispauto/isp-wrong",
            ),
        ),
        _isp_table(
            "isp-quick-thesis",
            _isp_types(
                *(
                    col
                    for sched in ("PfifoFast", "CoDel", "FqCoDel", "Msfc")
                    for col in (
                        IspCol(sched, "isp-quick", sched),
                        IspCol("{thesis}", "isp-quick", sched, thesis="3.7"),
                    )
                ),
                IspCol(
                    "Msfc inversion=prevent",
                    "isp-inversion",
                    attributes="Msfc.Inversion=prevent",
                ),
            ),
            (ISP_QUICK, ISP_INVERSION),
        ),
        # make bench's comparison in docs/results.md, from the same data
        replace(
            _isp_table("isp-quick-thesis", ISP_QUICK_SUMMARY, (ISP_QUICK, ISP_INVERSION)),
            name="results-quick",
            doc="docs/results.md",
        ),
        DocTable(
            "cli-modes",
            "docs/cli.md",
            "docs/ns3/modes.csv",
            _modes,
            MODES_CMD,
            MODES_DEPENDS,
            provenance=True,
            sweeps=tuple(out for _, _, out in MODES_SWEEPS),
        ),
        _isp_table("isp-thesis", _isp_full_thesis("isp-thesis"), (ISP_FULL,)),
        _isp_table(
            "isp-thesis-unmarked",
            _isp_types(
                IspCol(
                    "unmarked, `auto`",
                    "isp-unmarked-auto",
                    attributes="Msfc.Auto=unmarked Msfc.Boost=across Msfc.Flows=8192",
                    metric="kbps / delays",
                ),
                IspCol("marked, thesis mode", "isp-marked", metric="kbps / delays"),
                IspCol("unmarked, FqCoDel", "isp-unmarked-base", "FqCoDel", metric="kbps / delays"),
                IspCol(
                    "unmarked, FqCobalt", "isp-unmarked-base", "FqCobalt", metric="kbps / delays"
                ),
            ),
            ISP_FULL_UNMARKED,
        ),
        _isp_table(
            "isp-p2p-inversion-wrong",
            _isp_inversion("isp-p2p-inversion-wrong"),
            (ISP_P2P_INVERSION_WRONG,),
        ),
        _isp_table(
            "isp-p2p-links-wrong",
            _isp_links(
                IspCol("allow", "isp-p2p-inversion-wrong", attributes="Msfc.Inversion=allow"),
                IspCol("prevent", "isp-p2p-inversion-wrong", attributes="Msfc.Inversion=prevent"),
            ),
            (ISP_P2P_INVERSION_WRONG,),
        ),
        _isp_table("isp-p2p-ratio", _isp_ratio("isp-p2p-ratio", (2, 4, 8, 16)), (ISP_P2P_RATIO,)),
        _isp_table("isp-p2p-inversion", _isp_inversion("isp-p2p-inversion"), (ISP_P2P_INVERSION,)),
        _isp_table(
            "isp-p2p-inversion-seeds",
            _isp_runs("isp-p2p-inversion-seeds", 5),
            (ISP_P2P_SEEDS,),
        ),
        _isp_table(
            "isp-p2p-inversion-seeds-packets",
            _isp_runs(
                "isp-p2p-inversion-seeds-packets", 5, (*ISP_RUNS_COLS, ("http", "throughput_kbps"))
            ),
            (ISP_P2P_SEEDS_PACKETS,),
        ),
        _isp_table(
            "isp-p2p-r16-wrong", _isp_r16_runs("isp-p2p-r16-wrong", "bytes"), (ISP_P2P_R16_WRONG,)
        ),
        _isp_table("isp-p2p-r16", _isp_r16_runs("isp-p2p-r16", "bytes"), (ISP_P2P_R16,)),
        _isp_table(
            "isp-p2p-r16-packets",
            _isp_r16_packets("isp-p2p-r16", "isp-p2p-r16-wrong"),
            (ISP_P2P_R16, ISP_P2P_R16_WRONG),
        ),
        _isp_table("isp-thesis-seeds", _isp_full_seeds(), ISP_FULL_SEEDS),
        _isp_table(
            "isp-thesis-ac", _isp_ac("isp-thesis", "isp-thesis-ac"), (ISP_FULL, ISP_FULL_AC)
        ),
        _isp_table(
            "isp-thesis-wrong",
            _isp_full_thesis("isp-thesis", "isp-wrong"),
            (ISP_FULL, ISP_FULL_WRONG),
        ),
        _isp_table(
            "isp-thesis-modes",
            _isp_modes_table("isp-thesis"),
            (ISP_FULL, *_isp_full_modes("thesis", "isp-thesis")),
        ),
        _isp_table(
            "isp-wrong-modes",
            _isp_modes_table("isp-wrong"),
            (ISP_FULL_WRONG, *_isp_full_modes("wrong-priorities", "isp-wrong")),
        ),
        _isp_table(
            "isp-inversion-thesis",
            _isp_inversion("isp-inversion", "3.7", "isp-recommended"),
            (ISP_INVERSION, ISP_RECOMMENDED),
        ),
        _isp_table(
            "isp-inversion-wrong",
            _isp_inversion("isp-inversion-wrong", "3.9", "isp-recommended-wrong"),
            (ISP_INVERSION_WRONG, ISP_RECOMMENDED_WRONG),
        ),
        _isp_table(
            "isp-modes",
            _isp_overall(
                ("priorities", "`Overload`", "`Weights`"),
                *(
                    IspCol(
                        f"{label} | `{overload}` | `{weights}`",
                        study,
                        attributes=f"Msfc.Overload={overload} Msfc.Weights={weights}",
                    )
                    for label, study in (
                        ("thesis (Table 3.3)", "isp-modes"),
                        ("wrong (Table 3.8)", "isp-modes-wrong"),
                    )
                    for overload in ("flow", "class")
                    for weights in ("rounded", "exact")
                ),
            ),
            (
                _isp_sweep(ISP_MODES, "isp-modes"),
                _isp_sweep(f"{ISP_WRONG} {ISP_MODES}", "isp-modes-wrong"),
            ),
        ),
        _isp_table(
            "isp-isolate",
            _then(
                _isp_clients_table(
                    ("priorities", "`Isolate`"),
                    *(
                        IspCol(f"{label} | `{mode}`", study, attributes=f"Msfc.Isolate={mode}")
                        for label, study in (
                            ("thesis (Table 3.3)", "isp-isolate"),
                            ("wrong (Table 3.8)", "isp-isolate-wrong"),
                        )
                        for mode in ("flow", "dst")
                    ),
                ),
                "Mean download throughput of a flow per type (kbps), the Tables 3.7 and 3.9 of"
                " `quick`, with an `Isolate=dst` column:",
                _isp_types(
                    *(
                        IspCol(
                            f"{table} `Isolate={mode}`", study, attributes=f"Msfc.Isolate={mode}"
                        )
                        for table, study in (("3.7", "isp-isolate"), ("3.9", "isp-isolate-wrong"))
                        for mode in ("flow", "dst")
                    )
                ),
            ),
            (
                _isp_sweep(ISP_ISOLATE, "isp-isolate"),
                _isp_sweep(f"{ISP_WRONG} {ISP_ISOLATE}", "isp-isolate-wrong"),
            ),
        ),
        _isp_table(
            "isp-boost-order-thesis",
            _isp_boost_order("isp-quick-boost-order"),
            (_isp_sweep(ISP_BOOST_ORDER, "isp-quick-boost-order"),),
        ),
        _isp_table(
            "isp-boost-order-wrong",
            _isp_boost_order("isp-quick-boost-order-wrong"),
            (_isp_sweep(f"{ISP_WRONG} {ISP_BOOST_ORDER}", "isp-quick-boost-order-wrong"),),
        ),
        _linux(
            "linux-uml-all",
            "docs/linux-testbed-uml-tables.md",
            "uml",
            LT.every_table,
        ),
        _linux(
            "linux-rrul-voice",
            "docs/linux-testbed.md",
            "uml",
            lambda d, m: LT.headline(d, "rrul", "voice"),
        ),
        DocTable(
            "bpf-cost",
            "docs/kernel.md",
            "docs/kernel/bpf-cost.csv",
            _bpf_cost,
            BPF_COST_CMD,
            BPF_COST,
            provenance=True,
        ),
        *_vm_cost_tables(),
        DocTable(
            "algorithm-weights",
            "docs/algorithm.md",
            "docs/algorithm/weights.csv",
            _weights,
            "python -m msfc.model.weights --csv docs/algorithm/weights.csv",
            WEIGHTS,
            provenance=True,
        ),
        DocTable(
            "isp-cost",
            "docs/isp-tree.md",
            "docs/isp-tree/isp-cost.csv",
            lambda d: ISP_COST.table(d.to_dict("records")),
            "make bench-isp-cost && cp results/isp-cost/quick/cost.csv docs/isp-tree/isp-cost.csv",
            (*ISP, "python/msfc/sim/isp_cost.py"),
            provenance=True,
        ),
        _linux(
            "linux-rrul-ping",
            "docs/linux-testbed.md",
            "uml",
            lambda d, m: LT.headline(d, "rrul", "ping"),
        ),
        _linux(
            "linux-rrul-probes-20",
            "docs/linux-testbed.md",
            "uml",
            lambda d, m: LT.probes_by_qdisc(d, "20mbit", "rrul"),
        ),
        _linux(
            "linux-rrul_cs8-probes",
            "docs/linux-testbed.md",
            "uml",
            lambda d, m: LT.probes_by_rate(
                d, "rrul_cs8", ["msfc_across", "cake_ds4", "fq_codel"], ["CS5", "BE", "CS1"]
            ),
        ),
        _linux(
            "linux-rrul_be-voice",
            "docs/linux-testbed.md",
            "rrul_be",
            lambda d, m: LT.headline(d, "rrul_be", "voice"),
        ),
        _linux("linux-ds4", "docs/linux-testbed.md", "ds4", lambda d, m: LT.ds4(d)),
        _linux(
            "linux-all20-rrul",
            "docs/linux-testbed.md",
            "all20",
            lambda d, m: LT.rrul_overview(d, "20mbit"),
        ),
        _uml_measurement("linux-nqb", "nqb", "--jobs 2"),
        _uml_measurement("linux-l4s", "l4s", "--thresholds 1ms,2ms,5ms --paced --jobs 2"),
        _linux(
            "linux-all20-hosts",
            "docs/linux-testbed.md",
            "all20",
            lambda d, m: LT.bench_table(d, "20mbit", "hosts"),
        ),
        _vm("linux-vm-rrul-goodput", "rrul_goodput"),
        _vm("linux-vm-rrul-irtt", "rrul_irtt"),
        _vm("linux-vm-shares", "shares"),
        _vm("linux-vm-cubic-bbr", "cubic_bbr"),
        _vm("linux-vm-dos", "dos"),
        _vm("linux-vm-hosts", "hosts"),
    )
}


#: the Markdown tables in the docs with measured figures that are not doc tables, each with
#: why: (the doc, its header cells up to the third) -> the reason. tests/test_doctables.py
#: fails on a table with measured figures outside the markers that is not listed here (or
#: listed and gone), so a new hand table is a decision, not an accident
RECORD = "a dated record of particular runs, with its command in the text"
TIMING = "timing records of particular runs on a shared machine (CPU and wall seconds)"
REFERENCE = "parameters and set-up, not a measurement"
HAND_TABLES = {
    ("docs/algorithm.md", "setting | recommend | what it gives (measured)"): (
        "quotes the doc tables it names, with their commits"
    ),
    ("docs/cli.md", "scenario | preset | simulated s"): TIMING,
    ("docs/isp-tree.md", "part | thesis | here"): REFERENCE,
    ("docs/isp-tree.md", "preset | what | thesis counterpart"): REFERENCE,
    (
        "docs/isp-tree.md",
        "variant | thesis priorities: TV kbps (lost) | wrong priorities: TV /"
        " HTTP / download / torrent kbps",
    ): (
        "two variants of Inversion=prevent whose code was never committed: no command at HEAD"
        " measures them"
    ),
    ("docs/isp-tree.md", "scheduler | events | wall s (1st)"): TIMING,
    ("docs/isp-tree.md", "run | events | wall s"): TIMING,
    ("docs/kernel.md", "Check (2026-11-27, qemu TCG, 1 vCPU) | Result"): (
        "one run of the BPF qdisc's VM test, which make test runs and checks every time"
    ),
    ("docs/kernel.md", "what | command | result"): RECORD,
    ("docs/linux-testbed.md", "part | what"): REFERENCE,
    ("docs/results.md", "build | backlogged, `Isolate=both` | ratio"): (
        "a comparison of two builds, one of which HEAD no longer has (per-host isolation before"
        " host deficits)"
    ),
}


def hand_tables(docs: list[str]) -> list[tuple[str, str, int]]:
    """The Markdown tables of `docs` outside the doc tables' markers whose rows hold at least
    four decimal numbers (measured figures, as opposed to tables of words): (doc, header cells
    up to the third joined by " | ", line number)."""
    out = []
    for doc in docs:
        lines = (ROOT / doc).read_text().splitlines()
        inside, i = False, 0
        while i < len(lines):
            if lines[i].startswith(BEGIN.split("{}")[0]):
                inside = True
            elif lines[i].startswith(END):
                inside = False
            if lines[i].startswith("|") and not inside:
                j = i
                while j < len(lines) and lines[j].startswith("|"):
                    j += 1
                if len(re.findall(r"\d+\.\d+", " ".join(lines[i + 2 : j]))) >= 4:
                    cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                    out.append((doc, " | ".join(cells[:3]), i + 1))
                i = j
                continue
            i += 1
    return out


# -- digests of the dependencies ------------------------------------------------------------


def _tracked(path: str, commit: str | None = None) -> list[str]:
    """The files git tracks under `path` (a file or a directory), sorted: in the index, or
    in `commit`'s tree."""
    args = ["ls-files", "-z", "--", path]
    if commit:
        args = ["ls-tree", "-r", "-z", "--name-only", commit, "--", path]
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), *args],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise UserError(
            f"cannot list the files of {path} with git ({e}): the doc tables' check needs the "
            "source tree as a git checkout",
            1,
        ) from None
    return sorted(p for p in out.decode().split("\0") if p)


def digest(path: str, commit: str | None = None) -> str:
    """SHA-256 over the names and contents of the tracked files under `path`, as they are in
    the working tree (a file git tracks but the tree lacks counts as empty), or as they were
    at `commit`."""
    h = hashlib.sha256()
    for rel in _tracked(path, commit):
        h.update(rel.encode() + b"\0")
        if commit:
            h.update(
                subprocess.run(
                    ["git", "-C", str(ROOT), "show", f"{commit}:{rel}"],
                    capture_output=True,
                    check=True,
                ).stdout
            )
        else:
            f = ROOT / rel
            h.update(f.read_bytes() if f.is_file() else b"")
        h.update(b"\0")
    return h.hexdigest()


def stamp_path(t: DocTable) -> Path:
    return ROOT / (t.data[: -len(".csv")] + ".stamp.json")


def _git(*args: str) -> str:
    r = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def stamp(
    t: DocTable, command: str | None = None, commit: str | None = None, measured: str | None = None
) -> Path:
    """Record that t's data was measured with the dependencies as they are now; or, given
    `commit`, at that commit (the digests as they were there), `measured` the date of the run
    (default: now)."""
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if measured:
        try:
            dt.datetime.fromisoformat(measured.replace("Z", "+00:00"))
        except ValueError:
            raise UserError(
                f"--measured {measured}: not a date (e.g. 2026-11-27 or 2026-11-27T10:05:00Z)", 2
            ) from None
    if commit:
        sha = _git("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
        if not sha:
            raise UserError(f"--commit {commit}: not a commit of this repository", 2)
        depends = {p: digest(p, sha) for p in t.depends}
    else:
        dirty = bool(_git("status", "--porcelain", "--", *t.depends))
        sha = _git("rev-parse", "HEAD") + (" (with uncommitted changes)" if dirty else "")
        depends = {p: digest(p) for p in t.depends}
    meta = {
        "table": t.name,
        "data": t.data,
        "measured": measured or now,
        "stamped": now,
        "command": command or t.command,
        "machine": f"{platform.node()} {platform.machine()}",
        "commit": sha,
        "depends": depends,
    }
    out = stamp_path(t)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(meta, indent=1) + "\n")
    tmp.replace(out)
    return out


def recorded_digest(meta: dict, path: str) -> str | None:
    """The digest of `path` when the data of a stamp was measured: as the stamp records it,
    or, for a path the stamp does not list (a dependency named after it was written), its
    digest at the stamp's commit (none if that commit had uncommitted changes)."""
    if path in meta.get("depends", {}):
        return meta["depends"][path]
    commit = meta.get("commit", "")
    if not commit or " " in commit:
        return None
    return digest(path, commit)


# -- the tables in the docs -----------------------------------------------------------------


def _span(text: str, name: str, doc: str) -> tuple[int, int]:
    """Offsets of the table between name's markers (the lines after BEGIN up to END)."""
    begin = BEGIN.format(name)
    at = text.find(begin + "\n")
    if at < 0:
        raise UserError(f"{doc}: no line '{begin}' (the table {name} belongs there)", 1)
    start = at + len(begin) + 1
    end = text.find(END, start)
    if end < 0:
        raise UserError(f"{doc}: '{begin}' has no '{END}' after it", 1)
    return start, end


def rendered(t: DocTable) -> str:
    try:
        data = LT.read(ROOT / t.data) if t.collected else pd.read_csv(ROOT / t.data)
    except (OSError, ValueError) as e:
        raise UserError(f"{t.data} (the data of {t.name}) cannot be read: {e}", 1) from None
    if not t.provenance:
        return t.render(data) + "\n"
    sp = stamp_path(t)
    if not sp.is_file():
        raise UserError(f"{t.data} has no {sp.name}: {_measure(t)}", 1)
    meta = json.loads(sp.read_text())
    table = t.render(data, meta) if t.collected else t.render(data)
    rel = Path(t.data).relative_to(Path(t.doc).parent).as_posix()
    # (stamps written before they recorded the run's date: the date of the stamp)
    when = meta.get("measured", meta.get("stamped", ""))
    return (
        table.rstrip("\n") + f"\n\nData: [{rel}]({rel}), measured {when[:10]} at commit "
        f"{meta['commit'][:7]} by `{meta['command']}`.\n"
    )


def _measure(t: DocTable) -> str:
    """What to do when t's data is missing its stamp."""
    if t.collected:
        return f"collect it ({t.command})"
    return f"measure it ({t.command}) and --stamp {t.name}"


def beside_md(t: DocTable) -> str | None:
    """What is wrong with the Markdown table beside t's data (the writer's rendering of it)."""
    md = (ROOT / t.data).with_suffix(".md")
    if not md.is_file():
        return f"{t.data} has no {md.name} beside it: {t.command}"
    header, rows = S.read_table(ROOT / t.data)
    if md.read_text() != S.markdown_table(header, rows):
        return (
            f"{md.relative_to(ROOT)} is not what the seeds' writer makes of {t.data}: {t.command}"
        )
    return None


def problems() -> list[str]:
    """What is wrong with every table: differs from its data, data without a stamp, data
    older than the code it depends on, a Markdown table beside the data that is not the
    writer's rendering of it."""
    out = []
    for t in TABLES.values():
        sp = stamp_path(t)
        if not sp.is_file():
            out.append(f"{t.data} has no {sp.name}: {_measure(t)}")
            continue
        text = (ROOT / t.doc).read_text()
        start, end = _span(text, t.name, t.doc)
        if text[start:end] != rendered(t):
            out.append(
                f"{t.doc}: the table {t.name} is not what {t.data} gives: "
                "python -m msfc.analysis.doctables --write"
            )
        if t.beside_md and (bad := beside_md(t)):
            out.append(bad)
        meta = json.loads(sp.read_text())
        changed = [p for p in t.depends if recorded_digest(meta, p) != digest(p)]
        if changed:
            commit = meta.get("commit", "").split(" ")[0]
            since = changes_since(commit, changed) if commit else []
            out.append(
                f"{t.data} (table {t.name} in {t.doc}) was measured before the last change to "
                f"{', '.join(changed)}"
                + (f" (since {commit[:7]}: {'; '.join(since)})" if since else "")
                + f": measure it again ({t.command}"
                + (
                    ""
                    if t.collected
                    else f", then python -m msfc.analysis.doctables --stamp {t.name}"
                )
                + "); or, if those changes cannot change the data, "
                f"python -m msfc.analysis.doctables --accept {t.name} --why TEXT"
            )
    return out


def write() -> list[str]:
    """Rewrite every table from its data; the files changed."""
    changed = []
    for doc in sorted({t.doc for t in TABLES.values()}):
        path = ROOT / doc
        text = path.read_text()
        new = text
        for t in (t for t in TABLES.values() if t.doc == doc):
            start, end = _span(new, t.name, doc)
            new = new[:start] + rendered(t) + new[end:]
        if new != text:
            path.write_text(new)
            changed.append(doc)
    return changed


def _isp_summary(study: str, results: list[Path]) -> Path:
    """The summary.csv of `study` among `results`: a directory of that name (the --out of its
    sweep, compare or run), or one that holds it."""
    for r in results:
        for d in (r, r / study):
            if d.name == study and (d / "summary.csv").is_file():
                return d / "summary.csv"
    raise UserError(
        f"no {study}/summary.csv under {', '.join(map(str, results))}: run the command whose"
        f" --out is {study} (python -m msfc.analysis.doctables --list)",
        1,
    )


def _attr_value(v) -> str:
    """An attribute's value as the sweep was given it: 16 for a swept 16 that the summary's
    column holds as 16.0."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _isp_flows(flows_csv: Path) -> pd.DataFrame:
    """A study's flows.csv, beside its summary.csv."""
    try:
        return pd.read_csv(flows_csv)
    except (OSError, ValueError) as e:
        raise UserError(
            f"{flows_csv} cannot be read ({e}): the per-client and per-class figures of an"
            " ISP-tree table come from its runs' flows.csv beside their summary.csv",
            1,
        ) from None


def _isp_clients(flows: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Per configuration (its config_hash) of a study's flows: how the download was shared
    among the clients (msfc.analysis.metrics.client_throughput: the bytes of each client's
    data flows over the run), as Jain's index over the clients and the 10th, 50th and 90th
    percentiles of their throughput (kbit/s)."""
    from . import metrics as M

    out = {}
    for h, f in flows.groupby("config_hash"):
        kbps = M.client_throughput(f, "down")
        q = kbps.quantile([0.1, 0.5, 0.9])
        out[h] = dict(
            clients=len(kbps),
            clients_jain=round(M.jain_index(kbps), 6),
            clients_p10_kbps=round(q[0.1], 6),
            clients_median_kbps=round(q[0.5], 6),
            clients_p90_kbps=round(q[0.9], 6),
        )
    return out


#: the ISP tree's root router: the links out of it toward its children (every device of its
#: but the server's) are the tree's bottleneck (docs/isp-tree.md, "The network")
ISP_ROOT, ISP_SERVER = "G1", "server"


def _isp_classes(study_dir: Path, flows: pd.DataFrame) -> dict[str, dict]:
    """Per configuration (its config_hash) of a study: each priority class's download flows
    (their number and types, from the study's flows.csv) and the Mbit/s its queues sent on the
    links out of the root router over the run (`dequeued_bytes` of the run's qdisc.csv, summed
    over those links).  Without the flows' classes when flows.csv has no priority column, and
    without the Mbit/s when the run kept no qdisc.csv."""
    out: dict[str, dict] = {}
    for h, f in flows.groupby("config_hash"):
        row: dict = {}
        if {"priority", "type"} <= set(f.columns):
            down = f[(f["direction"] == "down") & (f["kind"] == "data")]
            for c, g in down.groupby("priority"):
                row[f"class{int(c)}_flows"] = len(g)
                row[f"class{int(c)}_types"] = " ".join(t for t in ISP_TYPES if t in set(g["type"]))
        qdisc = study_dir / "runs" / str(h) / "qdisc.csv"
        if qdisc.is_file() and "cfg.duration" in f.columns:
            q = pd.read_csv(qdisc)
            links = q[(q["node"] == ISP_ROOT) & (q["device"] != ISP_SERVER)]
            seconds = float(f["cfg.duration"].iloc[0])
            for c, b in links.groupby("class")["dequeued_bytes"].sum().items():
                row[f"class{int(c)}_root_mbps"] = round(b * 8 / seconds / 1e6, 6)
        out[h] = row
    return out


def _isp_device_drops(study_dir: Path, config_hash: str) -> dict[str, int]:
    """The packets a run's point-to-point device queues dropped behind the scheduler
    (meta.json's device_queue_drops; none without that file or figure)."""
    try:
        meta = json.loads((study_dir / "runs" / str(config_hash) / "meta.json").read_text())
    except (OSError, ValueError):
        return {}
    drops = meta.get("device_queue_drops")
    return {} if drops is None else {"device_queue_drops": int(drops)}


def _download_rows(summary: Path) -> pd.DataFrame:
    """A summary.csv's download rows per type and overall (what the collectors keep)."""
    s = pd.read_csv(summary)
    return s[(s["direction"] == "down") & s["level"].isin(["type", "overall"])]


def _set_by(r: pd.Series, columns: list[str]) -> str:
    """What a run set among `columns` (attr.Msfc.Boost, cfg.ratio, ...) as "Msfc.Boost=on
    ratio=16": each column without its prefix, in the columns' order, the unset left out."""
    return " ".join(f"{c.split('.', 1)[1]}={_attr_value(r[c])}" for c in columns if pd.notna(r[c]))


def collect_isp(name: str, results: list[Path]) -> Path:
    """The data of the ISP-tree table `name` (docs/isp-tree/<name>.csv): the rows `level ==
    type` and `overall` (its type "all"), `direction == down`, of the summary.csv of each of its
    studies (DocTable.isp), found among `results` (their --out directories, or directories that
    hold them), one row per study, configuration and type; on the totals rows also how the
    clients shared the download (_isp_clients, from the flows.csv beside the summary.csv) and
    what each class had and sent at the root (_isp_classes)."""
    t = TABLES.get(name)
    if t is None or not t.isp:
        names = ", ".join(n for n, t in TABLES.items() if t.isp)
        raise UserError(f"--collect-isp {name}: not an ISP-tree table ({names})", 2)
    rows = []
    # (the measures to 6 decimals: a table's cells, to 1, are rounded once, not twice)
    for study in t.isp:
        summary = _isp_summary(study, results)
        s = _download_rows(summary)
        flows = _isp_flows(summary.parent / "flows.csv")
        clients = _isp_clients(flows)
        classes = _isp_classes(summary.parent, flows)
        attrs = [c for c in s.columns if c.startswith("attr.")]
        # scenario options swept in the study (ratio=16: the scenario's option for Msfc.Ratio),
        # named beside the attributes where a run set them; the RNG run has its own column.
        # An option only some schedulers take (ratio: MSFC's) is not swept by being unset in
        # the others' runs
        swept = [
            c
            for c in s.columns
            if c.startswith("cfg.")
            and c not in ("cfg.rng-run", "cfg.rng-seed")
            and s[c].nunique() > 1
        ]
        for _, r in s.iterrows():
            given = _set_by(r, [*attrs, *swept])
            pri = r["cfg.priorities"]
            overall = r["level"] == "overall"
            per_client = clients.get(r["config_hash"], {}) if overall else {}
            per_class = classes.get(r["config_hash"], {}) if overall else {}
            drops = _isp_device_drops(summary.parent, r["config_hash"]) if overall else {}
            rows.append(
                dict(
                    study=study,
                    scheduler=r["scheduler"],
                    attributes=given,
                    priorities=pri if isinstance(pri, str) else "",
                    flow_types=r["cfg.flow-types"],
                    type=r["group"] if r["level"] == "type" else "all",
                    rng_run=int(r["rng_run"]),
                    flows=int(r["flows"]),
                    throughput_kbps=round(r["throughput_kbps"], 6),
                    delay_mean_ms=round(r["delay_mean_ms"], 6),
                    delay_p99_ms=round(r["delay_p99_ms"], 6),
                    lost_packets=int(r["lost_packets"]),
                    msfc_version=r["meta.msfc_version"],
                    rate_scale=r["cfg.rate-scale"],
                    throughput_total_kbps=round(r["throughput_total_kbps"], 6),
                    delay_hmean_ms=round(r["delay_hmean_ms"], 6),
                    jitter_mean_ms=round(r["jitter_mean_ms"], 6),
                    loss_ratio=round(r["loss_ratio"], 6),
                    **per_client,
                    **per_class,
                    **drops,
                )
            )
    out = ROOT / t.data
    pd.DataFrame(rows).to_csv(out, index=False)
    return out


def collect_sweeps(name: str, results: list[Path]) -> Path:
    """The data of the table `name` made from sweeps of any scenario (DocTable.sweeps): the rows
    `level == type` and `overall` (its type "all"), `direction == down`, of each study's
    summary.csv found among `results`, one row per study, configuration, RNG run and type, with
    the attributes the run set."""
    t = TABLES.get(name)
    if t is None or not t.sweeps:
        names = ", ".join(n for n, t in TABLES.items() if t.sweeps)
        raise UserError(f"--collect-sweeps {name}: not a table of sweeps ({names})", 2)
    rows = []
    for study in t.sweeps:
        s = _download_rows(_isp_summary(study, results))
        attrs = [c for c in s.columns if c.startswith("attr.")]
        for _, r in s.iterrows():
            rows.append(
                dict(
                    study=study,
                    scenario=r["scenario"],
                    preset=r["preset"],
                    scheduler=r["scheduler"],
                    attributes=_set_by(r, attrs),
                    rng_run=int(r["rng_run"]),
                    type=r["group"] if r["level"] == "type" else "all",
                    flows=int(r["flows"]),
                    throughput_kbps=round(r["throughput_kbps"], 6),
                    delay_mean_ms=round(r["delay_mean_ms"], 6),
                    delay_p99_ms=round(r["delay_p99_ms"], 6),
                    delay_hmean_ms=round(r["delay_hmean_ms"], 6),
                    lost_packets=int(r["lost_packets"]),
                    msfc_version=r["meta.msfc_version"],
                )
            )
    out = ROOT / t.data
    pd.DataFrame(rows).to_csv(out, index=False)
    return out


def collect_linux(group: str, results: Path, commit: str) -> Path:
    """The data of one group of the Linux testbeds' tables (linuxtables.GROUPS: the UML
    bench's, or the stock-kernel VM's) from the results directory of its bench run, and its
    stamp: measured at `commit` (the results do not record it: the commit the kernel or the
    module and the testbed were built at), the
    dependencies' digests as they were at that commit."""
    if group not in LT.GROUPS:
        raise UserError(f"--collect-linux {group}: no such group ({', '.join(LT.GROUPS)})", 2)
    g = LT.GROUPS[group]
    sha = _git("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
    if not sha:
        raise UserError(f"--commit {commit}: not a commit of this repository", 2)
    rows, settings = (LT.collect_vm_rows if g.testbed == "vm" else LT.collect_rows)(results)
    out = ROOT / g.data
    LT.write_csv(rows, out)
    tables = [t for t in TABLES.values() if t.data == g.data]
    meta = {
        "tables": [t.name for t in tables],
        "data": g.data,
        "measured": settings.pop("measured"),
        "command": g.command,
        "commit": sha,
        "machine": f"{platform.node()} {platform.machine()}",
        "collected": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "collect": f"python -m msfc.analysis.doctables --collect-linux {group} {results}"
        f" --commit {commit}",
        "settings": {**settings, **({} if g.seed is None else {"seed": g.seed})},
        "depends": {p: digest(p, sha) for p in (tables[0].depends if tables else ())},
    }
    sp = out.with_name(out.stem + ".stamp.json")
    sp.write_text(json.dumps(meta, indent=1) + "\n")
    return out


def changes_since(commit: str, paths: list[str]) -> list[str]:
    """The commits after `commit` (up to HEAD) that changed `paths` ("<sha> <subject>")."""
    log = _git("log", "--format=%h %s", f"{commit}..HEAD", "--", *paths)
    return [x for x in log.splitlines() if x]


def accept(name: str, why: str, paths: list[str] | None = None) -> Path:
    """t's dependencies (`paths` of them, default: every one that changed) changed since its
    data was measured, in ways that do not change the data (`why`): record their digests as
    they are now, keep the measuring commit, and list the commits since it that touched them,
    with `why`."""
    t = TABLES[name]
    for p in paths or ():
        if p not in t.depends:
            raise UserError(f"--accept {name} --paths {p}: not one of its dependencies", 2)
    sp = stamp_path(t)
    if not sp.is_file():
        raise UserError(f"{t.data} has no {sp.name}: measure it first ({t.command})", 1)
    meta = json.loads(sp.read_text())
    changed = [
        p for p in t.depends if recorded_digest(meta, p) != digest(p) and (not paths or p in paths)
    ]
    if not changed:
        raise UserError(f"{t.name}: its dependencies are as they were measured; nothing to do", 1)
    meta.setdefault("accepted", []).append(
        {
            "at": _git("rev-parse", "HEAD"),
            "paths": changed,
            "commits": changes_since(meta["commit"].split()[0], changed),
            "why": why,
        }
    )
    meta["depends"] = {**meta["depends"], **{p: digest(p) for p in changed}}
    sp.write_text(json.dumps(meta, indent=1) + "\n")
    return sp


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m msfc.analysis.doctables", description=__doc__.split("\n")[0]
    )
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--list", action="store_true", help="the tables, their data and commands")
    g.add_argument("--check", action="store_true", help="fail on a stale or differing table")
    g.add_argument("--write", action="store_true", help="rewrite the tables from their data")
    g.add_argument("--stamp", metavar="NAME", help="record NAME's dependencies as they are now")
    g.add_argument(
        "--collect-isp",
        nargs="+",
        metavar=("NAME", "RESULTS"),
        help="an ISP-tree table's data (its CSV in docs/isp-tree/) from the summary.csv of its"
        " runs' --out directories RESULTS... (or directories that hold them)",
    )
    g.add_argument(
        "--collect-sweeps",
        nargs="+",
        metavar=("NAME", "RESULTS"),
        help="a table of sweeps of any scenario (its CSV) from the summary.csv of the sweeps'"
        " --out directories RESULTS... (or directories that hold them)",
    )
    g.add_argument(
        "--collect-linux",
        nargs=2,
        metavar=("GROUP", "RESULTS"),
        help=f"one group of the Linux testbeds' tables ({', '.join(LT.GROUPS)}: the UML bench's,"
        " vm: make bench-linux-vm's) from the --out of its bench run; needs --commit",
    )
    g.add_argument(
        "--accept",
        metavar="NAME",
        help="NAME's dependencies changed since its measuring commit without changing its data"
        " (--why says how): record them as they are now",
    )
    ap.add_argument(
        "--commit",
        help="--collect-linux, --stamp: the commit the run was measured at (--stamp's default:"
        " HEAD and the working tree)",
    )
    ap.add_argument(
        "--measured",
        metavar="DATE",
        help="--stamp: when the run was made (UTC, e.g. 2026-11-27T10:05:00Z; default: now)",
    )
    ap.add_argument("--why", help="--accept: why the changes do not change the data")
    ap.add_argument("--paths", nargs="+", help="--accept: only these dependencies")
    a = ap.parse_args(argv)
    try:
        if a.list:
            for t in TABLES.values():
                print(f"{t.name}: {t.doc}, data {t.data}\n  measure: {t.command}")
                print(f"  depends on: {', '.join(t.depends)}")
            print("\ntables of measured figures that are not made from data (HAND_TABLES):")
            for (doc, head), why in HAND_TABLES.items():
                print(f"{doc}: | {head} |\n  {why}")
        elif a.check:
            bad = problems()
            for p in bad:
                print(f"msfc.analysis.doctables: {p}", file=sys.stderr)
            if bad:
                return 1
            print(
                f"msfc.analysis.doctables: {len(TABLES)} tables are what their data gives, data current"
            )
        elif a.write:
            for doc in write():
                print(f"rewrote {doc}")
        elif a.stamp:
            if a.stamp not in TABLES:
                raise UserError(f"--stamp {a.stamp}: no such table ({', '.join(TABLES)})", 2)
            if TABLES[a.stamp].collected:
                raise UserError(
                    f"--stamp {a.stamp}: its stamp comes with its data (--collect-linux), "
                    "or --accept after a change that does not change the data",
                    2,
                )
            out = stamp(TABLES[a.stamp], commit=a.commit, measured=a.measured)
            print(f"wrote {out.relative_to(ROOT)}")
        elif a.collect_linux:
            if not a.commit:
                raise UserError("--collect-linux needs --commit (the commit it was measured at)", 2)
            group, results = a.collect_linux
            print(f"wrote {collect_linux(group, Path(results), a.commit).relative_to(ROOT)}")
        elif a.collect_sweeps:
            if len(a.collect_sweeps) < 2:
                raise UserError(
                    "--collect-sweeps NAME RESULTS...: name the table and its results", 2
                )
            name, *results = a.collect_sweeps
            print(f"wrote {collect_sweeps(name, [Path(r) for r in results]).relative_to(ROOT)}")
        elif a.accept:
            if a.accept not in TABLES:
                raise UserError(f"--accept {a.accept}: no such table ({', '.join(TABLES)})", 2)
            if not a.why:
                raise UserError("--accept needs --why (what the changes are)", 2)
            print(f"wrote {accept(a.accept, a.why, a.paths).relative_to(ROOT)}")
        else:
            if len(a.collect_isp) < 2:
                raise UserError("--collect-isp NAME RESULTS...: name the table and its results", 2)
            name, *results = a.collect_isp
            print(f"wrote {collect_isp(name, [Path(r) for r in results]).relative_to(ROOT)}")
    except UserError as e:
        print(f"msfc.analysis.doctables: {e}", file=sys.stderr)
        return e.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
