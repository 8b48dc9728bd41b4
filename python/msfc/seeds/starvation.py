"""Seed 001, section V: TCP throughput against the number of thin unresponsive UDP flows.

Runs build/scenario-starvation for every scheduler and number of thin flows, then writes
RESULTS/starvation.png, RESULTS/starvation.csv (+ .md) with the seed's finding beside ours;
then the DoS case (`--preset=dos`: thin traffic above the link rate) with a 33- and a
1000-packet buffer, and with the 33-packet buffer and the flood from one host, also with MSFC's
`overload=class`, `isolate=src|dst|both`, `boost=on|across`, `order=priority`, `auto=unmarked`
and the recommended modes: RESULTS/starvation_dos.png, starvation_dos.csv (+ .md).

    msfc bench seed001-starvation results/seeds            # full sweep (~15 min)
    msfc bench seed001-starvation results/seeds --quick    # 3 points, short runs
    msfc bench seed001-starvation results/seeds --dos-only # the DoS case alone (~16 min)
    msfc bench seed001-starvation results/seeds --hosts-only  # per-host fairness (~2 min)

The per-host table (RESULTS/starvation_hosts.csv, + .md): one host with 50 bulk flows against
a host with one, in one class, for MSFC's every `isolate` mode, with TCP and with UDP at the
link rate per flow (always backlogged).
"""

from __future__ import annotations

from pathlib import Path

from .. import bench, seeds
from ..analysis import metrics as M
from ..sim.runner import load_raw, run_scenario

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
#: MSFC's isolate modes (docs/algorithm.md), the thesis's first
ISOLATE_MODES = ("flow", "src", "dst", "both")
DOS_SCHEDULERS = (
    [(label, sched, cls, {}) for label, sched, cls in SCHEDULERS]
    + [
        ("MSFC overload=class, thin in TCP's class", "Msfc", "same", OVERLOAD_CLASS),
        ("MSFC overload=class, thin in a higher class", "Msfc", "higher", OVERLOAD_CLASS),
        ("MSFC overload=class, thin in a lower class", "Msfc", "lower", OVERLOAD_CLASS),
    ]
    + [
        # per-host isolation (docs/algorithm.md, `isolate`): matters when the flood comes from one
        # host, the buffer33_one_host column
        (f"MSFC isolate={mode}, thin in TCP's class", "Msfc", "same", {"Msfc.Isolate": mode})
        for mode in ISOLATE_MODES[1:]
    ]
)
BOOST_ON = {"Msfc.Boost": "on"}
DOS_SCHEDULERS += [
    ("MSFC boost=on, thin in TCP's class", "Msfc", "same", BOOST_ON),
    ("MSFC boost=on, thin in a higher class", "Msfc", "higher", BOOST_ON),
    ("MSFC boost=on, thin in a lower class", "Msfc", "lower", BOOST_ON),
]
# the modes for sparse traffic beyond boost=on (docs/algorithm.md, `boost=across`, `order`) and
# automatic priorities for unmarked traffic (`auto`; the TCP flow and the flood both unmarked,
# alone and with boost=across, as docs/algorithm.md recommends it)
BOOST_ACROSS = {"Msfc.Boost": "across"}
ORDER_PRIORITY = {"Msfc.Order": "priority"}
DOS_SCHEDULERS += [
    ("MSFC boost=across, thin in TCP's class", "Msfc", "same", BOOST_ACROSS),
    ("MSFC boost=across, thin in a higher class", "Msfc", "higher", BOOST_ACROSS),
    ("MSFC boost=across, thin in a lower class", "Msfc", "lower", BOOST_ACROSS),
    ("MSFC order=priority, thin in TCP's class", "Msfc", "same", ORDER_PRIORITY),
    ("MSFC order=priority, thin in a higher class", "Msfc", "higher", ORDER_PRIORITY),
    ("MSFC order=priority, thin in a lower class", "Msfc", "lower", ORDER_PRIORITY),
    ("MSFC auto=unmarked, all unmarked", "Msfc", "same", {"Msfc.Auto": "unmarked"}),
    (
        "MSFC auto=unmarked boost=across, all unmarked",
        "Msfc",
        "same",
        {"Msfc.Auto": "unmarked", **BOOST_ACROSS},
    ),
]
# CoDel's setting for links below 4 Mbit/s (docs/kernel.md; the DoS link is 2 Mbit/s)
LOW_RATE_CODEL = {"Msfc.Target": "15ms", "Msfc.Interval": "150ms"}
# per-host isolation alone with that setting: what isolation gives where it is deployed as
# docs/algorithm.md recommends
DOS_SCHEDULERS += [
    (
        "MSFC isolate=src, target 15 ms, thin in TCP's class",
        "Msfc",
        "same",
        {"Msfc.Isolate": "src", **LOW_RATE_CODEL},
    ),
]
# the modes together as docs/algorithm.md recommends them against floods, with the low-rate
# CoDel setting; and what inversion=prevent costs there (a flood of many flows in a higher class)
RECOMMENDED = {
    "Msfc.Overload": "class",
    "Msfc.Weights": "exact",
    "Msfc.Isolate": "src",
    "Msfc.Boost": "on",
}
DOS_SCHEDULERS += [
    ("MSFC recommended modes, thin in TCP's class", "Msfc", "same", RECOMMENDED),
    (
        "MSFC recommended modes, target 15 ms, thin in TCP's class",
        "Msfc",
        "same",
        {**RECOMMENDED, **LOW_RATE_CODEL},
    ),
    (
        "MSFC recommended modes, target 15 ms, thin in a higher class",
        "Msfc",
        "higher",
        {**RECOMMENDED, **LOW_RATE_CODEL},
    ),
    # with boost=across in place of boost=on, with order=priority, and with auto=unmarked
    # for the unmarked case
    (
        "MSFC recommended modes with boost=across, target 15 ms, thin in TCP's class",
        "Msfc",
        "same",
        {**RECOMMENDED, **LOW_RATE_CODEL, **BOOST_ACROSS},
    ),
    (
        "MSFC recommended modes with boost=across, target 15 ms, thin in a higher class",
        "Msfc",
        "higher",
        {**RECOMMENDED, **LOW_RATE_CODEL, **BOOST_ACROSS},
    ),
    (
        "MSFC recommended modes and order=priority, target 15 ms, thin in TCP's class",
        "Msfc",
        "same",
        {**RECOMMENDED, **LOW_RATE_CODEL, **ORDER_PRIORITY},
    ),
    (
        "MSFC recommended modes and order=priority, target 15 ms, thin in a higher class",
        "Msfc",
        "higher",
        {**RECOMMENDED, **LOW_RATE_CODEL, **ORDER_PRIORITY},
    ),
    (
        "MSFC recommended modes with boost=across and auto=unmarked, target 15 ms, all unmarked",
        "Msfc",
        "same",
        {**RECOMMENDED, **LOW_RATE_CODEL, **BOOST_ACROSS, "Msfc.Auto": "unmarked"},
    ),
    (
        "MSFC recommended modes and inversion=prevent, target 15 ms, thin in a higher class",
        "Msfc",
        "higher",
        {**RECOMMENDED, **LOW_RATE_CODEL, "Msfc.Inversion": "prevent"},
    ),
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
    which.add_argument(
        "--hosts-only",
        action="store_true",
        help="run only the per-host table (starvation_hosts.csv, .md)",
    )
    a = ap.parse_args(argv)
    if a.quick:
        a.thin, a.duration = [5, 25, 45], 20.0
    a.build = bench.build_dir(a)
    pub = seeds.published()["seed001"]["starvation"]
    if a.dos_only:
        dos(a)
        return 0
    if a.hosts_only:
        hosts(a)
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
        hosts(a)
    return 0


#: per-host table: (label, scenario options, the bottleneck rate in Mbit/s) of the kinds of
#: bulk flows
HOST_RUNS = [
    ("TCP, 2 Mbit/s, 100 ms, buffer 33", {}, 2),
    (
        "TCP, 10 Mbit/s, 20 ms, buffer 1000",
        {"bottleneck-rate": "10Mbps", "rtt": "20ms", "buffer": 1000},
        10,
    ),
    ("UDP at the link rate, 2 Mbit/s, buffer 1000", {"bulk-proto": "udp", "buffer": 1000}, 2),
    # the same with Linux's default congestion control: what the one-flow host leaves of its
    # half depends on how the flow's window recovers (NewReno halves it, Cubic takes 30 %)
    ("TCP Cubic, 2 Mbit/s, 100 ms, buffer 33", {"cca": "Cubic"}, 2),
    (
        "TCP Cubic, 10 Mbit/s, 20 ms, buffer 1000",
        {"bottleneck-rate": "10Mbps", "rtt": "20ms", "buffer": 1000, "cca": "Cubic"},
        10,
    ),
]


def hosts(a) -> None:
    """Per-host fairness: the bulk flow's host (1 flow) against a host of 50 bulk flows
    (`--rival-flows=50`), every flow best effort, by MSFC's `isolate` mode; and what the bulk
    flow gets alone on a link of half the rate (what it can use of a half share)."""
    header = [
        "flows",
        "isolate",
        "one_flow_host_kbps",
        "fifty_flow_host_kbps",
        "ratio",
        "alone_at_half_rate_kbps",
    ]

    def down_kbps(options: dict) -> dict:
        """Downstream kbit/s per flow type of one run of the dumbbell, every flow best effort."""
        out = run_scenario(
            a.build,
            "starvation",
            a.results,
            {"scheduler": "Msfc", "thin-flows": 0, "duration": min(a.duration, 20.0), **options},
            rng_run=a.rng_run,
            force=not a.reuse,
        )
        f = M.flow_metrics(load_raw(out)[0])
        return f[f["direction"] == "down"].groupby("type")["throughput_kbps"].sum().to_dict()

    rows = []
    for label, opts, mbps in HOST_RUNS:
        alone = down_kbps({"rival-flows": 0, **opts, "bottleneck-rate": f"{mbps * 500}kbps"})
        for mode in ISOLATE_MODES:
            r = down_kbps({"rival-flows": 50, **opts, "Msfc.Isolate": mode})
            one, fifty = r.get("Bulk", 0.0), r.get("RivalBulk", 0.0)
            rows.append([label, mode, one, fifty, one / fifty if fifty else "", alone["Bulk"]])
    seeds.write_table(a.results / "starvation_hosts.csv", header, rows)
    print(f"wrote {a.results / 'starvation_hosts.csv'}")


def dos(a) -> None:
    """The DoS case: 45 thin flows of 200-byte payloads (2.7 Mbit/s, above the link rate),
    with the 2 x BDP buffer (33 packets) and with a 1000-packet buffer, each thin flow from a
    host of its own (the seed); and with the 33-packet buffer and every thin flow from one
    host ("33_one_host")."""
    cases = [("33", 33, "each"), ("1000", 1000, "each"), ("33_one_host", 33, "one")]
    res = {}
    for label, sched, cls, attrs in DOS_SCHEDULERS:
        for case, buf, hosts in cases:
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
                    **({"thin-hosts": hosts} if hosts != "each" else {}),
                    **attrs,
                },
                rng_run=a.rng_run,
                force=not a.reuse,
            )
            r = tcp_and_thin(out)
            res[(label, case)] = (r["tcp_kbps"], r["thin_kbps"])
    header = (
        ["scheduler"]
        + [f"tcp_kbps_buffer{c}" for c, _, _ in cases]
        + [f"thin_kbps_buffer{c}" for c, _, _ in cases]
    )
    rows = [
        [label]
        + [res[(label, c)][0] for c, _, _ in cases]
        + [res[(label, c)][1] for c, _, _ in cases]
        for label, _, _, _ in DOS_SCHEDULERS
    ]
    seeds.write_table(a.results / "starvation_dos.csv", header, rows)
    plt = seeds.pyplot()
    fig, ax = plt.subplots(figsize=(8, 4))
    x = range(len(DOS_SCHEDULERS))
    for i, (case, b, hosts) in enumerate(cases):
        ax.bar(
            [k + (i - 1) * 0.27 for k in x],
            [res[(ln, case)][0] for ln, _, _, _ in DOS_SCHEDULERS],
            width=0.27,
            label=f"buffer {b} packets" + (", flood from one host" if hosts == "one" else ""),
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
