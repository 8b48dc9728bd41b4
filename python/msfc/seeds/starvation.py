"""Seed 001, section V: TCP throughput against the number of thin unresponsive UDP flows.

Runs build/scenario-starvation for every scheduler and number of thin flows, then writes
RESULTS/starvation.png, RESULTS/starvation.csv (+ .md) with the seed's finding beside ours;
then the DoS case (`--preset=dos`: thin traffic above the link rate) with a 33- and a
1000-packet buffer, also with MSFC's `overload=class` and `boost=on`: RESULTS/starvation_dos.png,
starvation_dos.csv (+ .md).

    msfc bench seed001-starvation results/seeds            # full sweep (~15 min)
    msfc bench seed001-starvation results/seeds --quick    # 3 points, short runs
    msfc bench seed001-starvation results/seeds --dos-only # the DoS case alone (~3 min)
"""

from __future__ import annotations

from pathlib import Path

from .. import bench, seeds
from .. import metrics as M
from ..runner import load_raw, run_scenario

# (label, scheduler, thin-class)
SCHEDULERS = [
    ("FQ-CoDel", "FqCoDelVariant", "same"),
    ("FQ-CoDel WSPM", "FqCoDelWSPM", "same"),
    ("FQ-CoDel WP", "FqCoDelWP", "same"),
    ("SFQ", "Sfq", "same"),
    ("MSFC, thin in TCP's class", "Msfc", "same"),
    ("MSFC, thin in a higher class", "Msfc", "higher"),
    ("MSFC, thin in a lower class", "Msfc", "lower"),
]
# The DoS case also runs MSFC with overload drops that respect class shares (docs/algorithm.md,
# `overload`) and with the sparse-flow boost (`boost`): (label, scheduler, thin-class,
# scheduler attributes)
OVERLOAD_CLASS = {"Msfc.Overload": "class"}
DOS_SCHEDULERS = [(label, sched, cls, {}) for label, sched, cls in SCHEDULERS] + [
    ("MSFC overload=class, thin in TCP's class", "Msfc", "same", OVERLOAD_CLASS),
    ("MSFC overload=class, thin in a higher class", "Msfc", "higher", OVERLOAD_CLASS),
    ("MSFC overload=class, thin in a lower class", "Msfc", "lower", OVERLOAD_CLASS),
]
BOOST_ON = {"Msfc.Boost": "on"}
DOS_SCHEDULERS += [
    ("MSFC boost=on, thin in TCP's class", "Msfc", "same", BOOST_ON),
    ("MSFC boost=on, thin in a higher class", "Msfc", "higher", BOOST_ON),
    ("MSFC boost=on, thin in a lower class", "Msfc", "lower", BOOST_ON),
]


def tcp_and_thin(run_dir: Path) -> dict:
    """The bulk TCP flow's throughput (downstream data), the thin flows' total and their loss."""
    f = M.flow_metrics(load_raw(run_dir)[0])
    tcp = f[(f["type"] == "Bulk") & (f["direction"] == "down")]
    thin = f[f["type"] == "ThinUdp"]
    return {
        "tcp_kbps": float(tcp["throughput_kbps"].sum()),
        "thin_kbps": float(thin["throughput_kbps"].sum()),
        "thin_loss": float(thin["lost_packets"].sum()) / max(1, int(thin["tx_packets"].sum())),
    }


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    ap = bench.common_args(prog, __doc__.splitlines()[0])
    ap.add_argument(
        "--thin",
        type=int,
        nargs="+",
        default=list(range(5, 50, 5)),
        help="numbers of thin flows (default 5 10 ... 45)",
    )
    ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds per run")
    ap.add_argument("--quick", action="store_true", help="thin flows 5 25 45, 20 s runs")
    which = ap.add_mutually_exclusive_group()
    which.add_argument(
        "--skip-dos",
        action="store_true",
        help="skip the DoS case (thin traffic above the link rate)",
    )
    which.add_argument(
        "--dos-only",
        action="store_true",
        help="run only the DoS case (starvation_dos.csv, .md, .png)",
    )
    a = ap.parse_args(argv)
    if a.quick:
        a.thin, a.duration = [5, 25, 45], 20.0
    a.build = bench.build_dir(a)
    pub = seeds.published()["seed001"]["starvation"]
    if a.dos_only:
        dos(a)
        return 0

    res: dict[tuple[str, int], dict] = {}
    for label, sched, cls in SCHEDULERS:
        for n in a.thin:
            out = run_scenario(
                a.build,
                "starvation",
                a.results,
                {"scheduler": sched, "thin-class": cls, "thin-flows": n, "duration": a.duration},
                rng_run=a.rng_run,
                force=not a.reuse,
            )
            res[(label, n)] = tcp_and_thin(out)

    header = [
        "scheduler",
        "thin_flows",
        "tcp_kbps",
        "thin_total_kbps",
        "thin_loss_ratio",
        "seed_001",
    ]
    rows = []
    for label, _, _ in SCHEDULERS:
        for n in a.thin:
            r = res[(label, n)]
            seed = ""
            if label in ("FQ-CoDel", "FQ-CoDel WSPM"):
                seed = "starved" if n > pub["tcp_starved_above_thin_flows"] else "not starved"
            rows.append([label, n, r["tcp_kbps"], r["thin_kbps"], r["thin_loss"], seed])
    seeds.write_table(a.results / "starvation.csv", header, rows)

    plt = seeds.pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for label, _, _ in SCHEDULERS:
        ax.plot(a.thin, [res[(label, n)]["tcp_kbps"] for n in a.thin], marker="o", label=label)
    ax.axvline(
        pub["tcp_starved_above_thin_flows"],
        color="grey",
        ls=":",
        label="seed 001: TCP starved beyond this (FQ-CoDel, WSPM)",
    )
    ax.set_xlabel("thin UDP flows (100 B every 30 ms)")
    ax.set_ylabel("TCP throughput [kbit/s]")
    ax.set_title("Seed 001 sec. V: one TCP flow vs thin UDP flows, 2 Mbps, 100 ms RTT")
    ax.grid(alpha=0.3)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(a.results / "starvation.png", dpi=120)
    print(f"wrote {a.results / 'starvation.png'}, {a.results / 'starvation.csv'}")
    if not a.skip_dos:
        dos(a)
    return 0


def dos(a) -> None:
    """The DoS case: 45 thin flows of 200-byte payloads (2.7 Mbit/s, above the link rate),
    with the 2 x BDP buffer (33 packets) and with a 1000-packet buffer."""
    buffers = [33, 1000]
    res = {}
    for label, sched, cls, attrs in DOS_SCHEDULERS:
        for buf in buffers:
            out = run_scenario(
                a.build,
                "starvation",
                a.results,
                {
                    "preset": "dos",
                    "scheduler": sched,
                    "thin-class": cls,
                    "buffer": buf,
                    "duration": min(a.duration, 30.0),
                    **attrs,
                },
                rng_run=a.rng_run,
                force=not a.reuse,
            )
            r = tcp_and_thin(out)
            res[(label, buf)] = (r["tcp_kbps"], r["thin_kbps"])
    header = (
        ["scheduler"]
        + [f"tcp_kbps_buffer{b}" for b in buffers]
        + [f"thin_kbps_buffer{b}" for b in buffers]
    )
    rows = [
        [label] + [res[(label, b)][0] for b in buffers] + [res[(label, b)][1] for b in buffers]
        for label, _, _, _ in DOS_SCHEDULERS
    ]
    seeds.write_table(a.results / "starvation_dos.csv", header, rows)
    plt = seeds.pyplot()
    fig, ax = plt.subplots(figsize=(8, 4))
    x = range(len(DOS_SCHEDULERS))
    for i, b in enumerate(buffers):
        ax.bar(
            [k + (i - 0.5) * 0.4 for k in x],
            [res[(ln, b)][0] for ln, _, _, _ in DOS_SCHEDULERS],
            width=0.4,
            label=f"buffer {b} packets",
        )
    ax.set_xticks(list(x))
    ax.set_xticklabels([ln for ln, _, _, _ in DOS_SCHEDULERS], rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("TCP throughput [kbit/s]")
    ax.set_title("DoS: 45 thin UDP flows of 200 B every 30 ms (2.7 Mbit/s) on 2 Mbit/s", fontsize=9)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(a.results / "starvation_dos.png", dpi=120)
    print(f"wrote {a.results / 'starvation_dos.png'}, {a.results / 'starvation_dos.csv'}")
