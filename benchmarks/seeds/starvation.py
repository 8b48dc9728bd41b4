#!/usr/bin/env python3
"""Seed 001, section V: TCP throughput against the number of thin unresponsive UDP flows.

Runs build/scenario-starvation for every scheduler and number of thin flows, then writes
RESULTS/starvation.png, RESULTS/starvation.csv (+ .md) with the seed's finding beside ours;
then the DoS case (`--preset=dos`: thin traffic above the link rate) with a 33- and a
1000-packet buffer: RESULTS/starvation_dos.png, starvation_dos.csv (+ .md).

    python3 benchmarks/seeds/starvation.py results/seeds            # full sweep (~15 min)
    python3 benchmarks/seeds/starvation.py results/seeds --quick    # 3 points, short runs
"""

from __future__ import annotations

import seedlib

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


def main() -> None:
    ap = seedlib.common_args(__doc__.splitlines()[0])
    ap.add_argument(
        "--thin",
        type=int,
        nargs="+",
        default=list(range(5, 50, 5)),
        help="numbers of thin flows (default 5 10 ... 45)",
    )
    ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds per run")
    ap.add_argument("--quick", action="store_true", help="thin flows 5 25 45, 20 s runs")
    ap.add_argument(
        "--skip-dos",
        action="store_true",
        help="skip the DoS case (thin traffic above the link rate)",
    )
    a = ap.parse_args()
    if a.quick:
        a.thin, a.duration = [5, 25, 45], 20.0
    pub = seedlib.published()["seed001"]["starvation"]

    res: dict[tuple[str, int], dict] = {}
    for label, sched, cls in SCHEDULERS:
        for n in a.thin:
            out = a.results / "runs" / "starvation" / f"{sched}-{cls}-{n}"
            seedlib.run(
                a.build_dir,
                "starvation",
                out,
                {
                    "scheduler": sched,
                    "thin-class": cls,
                    "thin-flows": n,
                    "duration": a.duration,
                    "rng-run": a.rng_run,
                },
                a.reuse,
            )
            rows = seedlib.flows(out)
            tcp = [r for r in rows if r["type"] == "Bulk" and r["direction"] == "down"]
            thin = [r for r in rows if r["type"] == "ThinUdp"]
            res[(label, n)] = {
                "tcp_kbps": sum(seedlib.throughput_kbps(r) for r in tcp),
                "thin_kbps": sum(seedlib.throughput_kbps(r) for r in thin),
                "thin_loss": sum(int(r["lost_packets"]) for r in thin)
                / max(1, sum(int(r["tx_packets"]) for r in thin)),
            }

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
    seedlib.write_table(a.results / "starvation.csv", header, rows)

    plt = seedlib.plt()
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


def dos(a) -> None:
    """The DoS case: 45 thin flows of 200-byte payloads (2.7 Mbit/s, above the link rate),
    with the 2 x BDP buffer (33 packets) and with a 1000-packet buffer."""
    buffers = [33, 1000]
    res = {}
    for label, sched, cls in SCHEDULERS:
        for buf in buffers:
            out = a.results / "runs" / "starvation-dos" / f"{sched}-{cls}-b{buf}"
            seedlib.run(
                a.build_dir,
                "starvation",
                out,
                {
                    "preset": "dos",
                    "scheduler": sched,
                    "thin-class": cls,
                    "buffer": buf,
                    "duration": min(a.duration, 30.0),
                    "rng-run": a.rng_run,
                },
                a.reuse,
            )
            rows = seedlib.flows(out)
            res[(label, buf)] = (
                sum(
                    seedlib.throughput_kbps(r)
                    for r in rows
                    if r["type"] == "Bulk" and r["direction"] == "down"
                ),
                sum(seedlib.throughput_kbps(r) for r in rows if r["type"] == "ThinUdp"),
            )
    header = (
        ["scheduler"]
        + [f"tcp_kbps_buffer{b}" for b in buffers]
        + [f"thin_kbps_buffer{b}" for b in buffers]
    )
    rows = [
        [label] + [res[(label, b)][0] for b in buffers] + [res[(label, b)][1] for b in buffers]
        for label, _, _ in SCHEDULERS
    ]
    seedlib.write_table(a.results / "starvation_dos.csv", header, rows)
    plt = seedlib.plt()
    fig, ax = plt.subplots(figsize=(8, 4))
    x = range(len(SCHEDULERS))
    for i, b in enumerate(buffers):
        ax.bar(
            [k + (i - 0.5) * 0.4 for k in x],
            [res[(ln, b)][0] for ln, _, _ in SCHEDULERS],
            width=0.4,
            label=f"buffer {b} packets",
        )
    ax.set_xticks(list(x))
    ax.set_xticklabels([ln for ln, _, _ in SCHEDULERS], rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("TCP throughput [kbit/s]")
    ax.set_title("DoS: 45 thin UDP flows of 200 B every 30 ms (2.7 Mbit/s) on 2 Mbit/s", fontsize=9)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(a.results / "starvation_dos.png", dpi=120)
    print(f"wrote {a.results / 'starvation_dos.png'}, {a.results / 'starvation_dos.csv'}")


if __name__ == "__main__":
    main()
