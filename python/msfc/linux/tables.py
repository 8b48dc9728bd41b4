"""Tables and plots of the qemu testbed's benchmark, computed from its runs' raw records.

Every function reads the studies a bench call wrote under OUT/<test>/ (study.json, each
run's flows.csv, rtt.csv and meta.json): :func:`tables` gives the Markdown tables of every
test, :func:`plots` the PNG figures, :func:`hosts_summary` the hosts test over several
results directories.
"""

from __future__ import annotations

import json
from pathlib import Path

from .qemu import TestbedError
from .records import DIRECTIONS, _median, jain


def _runs(out: Path, test: str):
    """(qdisc, flows DataFrame, rtt DataFrame, meta) of every run of one test, in study order."""
    import pandas as pd

    study = json.loads((out / test / "study.json").read_text())
    for h in study["configs"]:
        d = out / test / "runs" / h
        meta = json.loads((d / "meta.json").read_text())
        yield (
            meta["scheduler"],
            pd.read_csv(d / "flows.csv"),
            pd.read_csv(d / "rtt.csv"),
            meta,
        )


def _mbps(flows, **match) -> float:
    f = flows
    for k, v in match.items():
        f = f[f[k] == v]
    f = f[f["active_s"] > 0]
    return float((f["rx_bytes"] * 8 / f["active_s"]).sum() / 1e6)


def _md(header: list[str], rows: list[list]) -> str:
    def fmt(v):
        return f"{v:.3g}" if isinstance(v, float) else str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(v) for v in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def hosts_row(flows, meta: dict) -> dict:
    """Per-host goodput (Mbit/s) of one run of the hosts test and the ratio one-flow host A /
    N-flow host B, each way (1 under per-host fairness, 1/N under per-flow fairness)."""
    row: dict = {}
    for d in DIRECTIONS:
        a, b = _mbps(flows, type=f"hostA_{d}-BE"), _mbps(flows, type=f"hostB_{d}-BE")
        row[f"A {d}"], row[f"B {d}"] = a, b
        row[f"A/B {d}"] = a / b if b else float("nan")
    row["B flows"] = int((flows["type"] == "hostB_up-BE").sum())
    row["guest idle"] = meta["testbed"]["guest_idle"]
    return row


HOSTS_COLUMNS = ["A up", "B up", "A/B up", "A down", "B down", "A/B down", "B flows", "guest idle"]


def hosts_summary(outs: list[Path]) -> str:
    """Markdown table of the hosts test repeated in several results directories (one bench
    call each): per qdisc, the median over the runs and [min-max] of each column."""
    got: dict[str, list[dict]] = {}
    for out in outs:
        if not (out / "hosts" / "study.json").is_file():
            raise TestbedError(f"{out} holds no hosts test: run bench --tests hosts --out {out}")
        for q, f, _, meta in _runs(out, "hosts"):
            got.setdefault(q, []).append(hosts_row(f, meta))
    rows = []
    for q, runs in got.items():
        r = [q, len(runs)]
        for c in HOSTS_COLUMNS:
            xs = [float(x[c]) for x in runs]
            r.append(
                f"{_median(xs):.3g} [{min(xs):.3g}-{max(xs):.3g}]"
                if len(xs) > 1
                else f"{xs[0]:.3g}"
            )
        rows.append(r)
    return (
        "Per-host isolation: host A one TCP flow each way, host B N flows, all BE (Mbit/s; "
        "A/B = 1 is per-host fairness, 1/N per-flow); median [min-max] over the runs\n\n"
        + _md(["qdisc", "runs", *HOSTS_COLUMNS], rows)
    )


def tables(out: Path, tests: list[str]) -> str:
    """Markdown tables of every test, computed from the runs' flows.csv and rtt.csv."""
    import numpy as np

    parts = []
    s = json.loads((out / tests[0] / "study.json").read_text())["testbed"]
    down, up = s["rate_kbit"] / 1000, s.get("rate_up_kbit", s["rate_kbit"]) / 1000
    rate = f"{down:g} Mbit/s each way" if down == up else f"{down:g} Mbit/s down, {up:g} up"
    parts.append(f"Bottleneck {rate}, base RTT {s['rtt_ms']} ms, {s['duration_s']} s per test.\n")
    if "rrul" in tests:
        classes = ["EF", "CS5", "BE", "CS1"]
        rows, lat = [], []
        for q, f, rtt, meta in _runs(out, "rrul"):
            up = [_mbps(f, type=f"up-{c}") for c in classes]
            down = [_mbps(f, type=f"down-{c}") for c in classes]
            rows.append([q, *up, sum(up), *down, sum(down), meta["testbed"]["guest_idle"]])
            r = [q]
            for c in ("EF", "BE", "CS1"):
                ids = f[(f["type"] == f"irtt-{c}") & (f["direction"] == "up")]["flow_id"]
                x = rtt[rtt["flow_id"].isin(ids)]["rtt_s"].to_numpy() * 1000
                g = f[f["type"] == f"irtt-{c}"]
                loss = g["lost_packets"].sum() / max(g["tx_packets"].sum(), 1) * 100
                jit = g["jitter_sum_s"].sum() / max((g["rx_packets"] - 1).clip(lower=0).sum(), 1)
                r += [
                    float(np.median(x)) if len(x) else float("nan"),
                    float(np.percentile(x, 99)) if len(x) else float("nan"),
                    float(loss),
                    jit * 1000,
                ]
            lat.append(r)
        parts.append("### RRUL-like: TCP goodput per class (Mbit/s)\n")
        parts.append(
            _md(
                [
                    "qdisc",
                    *(f"up {c}" for c in classes),
                    "up total",
                    *(f"down {c}" for c in classes),
                    "down total",
                    "guest idle",
                ],
                rows,
            )
        )
        parts.append(
            "\n### RRUL-like: irtt (20 ms, 172 B) RTT median / p99 (ms), loss (%), "
            "one-way jitter (ms)\n"
        )
        hdr = ["qdisc"]
        for c in ("EF", "BE", "CS1"):
            hdr += [f"{c} med", f"{c} p99", f"{c} loss", f"{c} jitter"]
        parts.append(_md(hdr, lat))
    if "shares" in tests:
        rows = []
        for q, f, _, meta in _runs(out, "shares"):
            cls = ["CS1", "BE", "CS5"]
            tot = [_mbps(f, type=f"one-{c}") + _mbps(f, type=f"ten-{c}") for c in cls]
            all_ = sum(tot) or float("nan")
            counted = meta["testbed"].get("class_shares_up")
            r = [
                q,
                *tot,
                *(x / all_ for x in tot),
                " / ".join(f"{x:.3f}" for x in counted) if counted else "-",
            ]
            for c in cls:
                g = f[f["type"].isin([f"one-{c}", f"ten-{c}"])]
                per = list(g["rx_bytes"] * 8 / g["active_s"])
                one = _mbps(f, type=f"one-{c}")
                r += [jain(per), one / (_mbps(f, type=f"ten-{c}") / 10 or float("nan"))]
            rows.append(r)
        parts.append(
            "\n### Class shares: 1 + 10 TCP uploads in each of CS1, BE, CS5 (shares: of the "
            "goodput over the whole test; counters: of the bytes msfc's classes sent upstream "
            "after the test's first third, where the tools print classes as JSON)\n"
        )
        parts.append(
            _md(
                [
                    "qdisc",
                    "CS1 Mbit/s",
                    "BE Mbit/s",
                    "CS5 Mbit/s",
                    "CS1 share",
                    "BE share",
                    "CS5 share",
                    "msfc classes, lowest first (counters)",
                    "CS1 Jain",
                    "CS1 1-flow/avg",
                    "BE Jain",
                    "BE 1-flow/avg",
                    "CS5 Jain",
                    "CS5 1-flow/avg",
                ],
                rows,
            )
        )
    if "cubic_bbr" in tests:
        rows = []
        for q, f, _, _ in _runs(out, "cubic_bbr"):
            c, b = _mbps(f, type="cubic-BE"), _mbps(f, type="bbr-BE")
            rows.append([q, c, b, jain([c, b])])
        parts.append("\n### CUBIC against BBR, one flow each, both BE\n")
        parts.append(_md(["qdisc", "CUBIC Mbit/s", "BBR Mbit/s", "Jain"], rows))
    dos = [t for t in ("dos_same", "dos_lower", "dos_higher") if t in tests]
    if dos:
        got: dict[str, list] = {}
        for t in dos:
            for q, f, _, _ in _runs(out, t):
                got.setdefault(q, [q])
                flood = [x for x in f["type"].unique() if x.startswith("flood")]
                got[q] += [
                    _mbps(f, type="tcp-BE"),
                    _mbps(f, type=flood[0]) if flood else 0.0,
                ]
        hdr = ["qdisc"]
        for t in dos:
            where = {"dos_same": "BE", "dos_lower": "CS1", "dos_higher": "EF"}[t]
            hdr += [f"TCP (flood {where})", f"flood {where} delivered"]
        parts.append(
            "\n### Seed 001's DoS: one BE TCP flow against 10 UDP flows at 120 % of "
            "the link (Mbit/s)\n"
        )
        parts.append(_md(hdr, list(got.values())))
    if "hosts" in tests:
        rows = [
            [q, *(hosts_row(f, meta)[c] for c in HOSTS_COLUMNS)]
            for q, f, _, meta in _runs(out, "hosts")
        ]
        parts.append(
            "\n### Per-host isolation: host A one TCP flow each way, host B N flows, all BE "
            "(Mbit/s; A/B = 1 is per-host fairness, 1/N per-flow)\n"
        )
        parts.append(_md(["qdisc", *HOSTS_COLUMNS], rows))
    return "\n".join(parts)


def plots(out: Path, tests: list[str]) -> None:
    """RTT CDF per class (rrul) and goodput per class and flow (rrul, shares) as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    if "rrul" in tests:
        runs = list(_runs(out, "rrul"))
        fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
        for ax, c in zip(axes, ("EF", "BE", "CS1"), strict=False):
            for q, f, rtt, _ in runs:
                ids = f[(f["type"] == f"irtt-{c}") & (f["direction"] == "up")]["flow_id"]
                x = np.sort(rtt[rtt["flow_id"].isin(ids)]["rtt_s"].to_numpy() * 1000)
                if len(x):
                    ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=q)
            ax.set_title(f"irtt RTT, {c}")
            ax.set_xlabel("RTT (ms)")
            ax.set_xscale("log")
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("CDF")
        axes[0].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "rrul-rtt-cdf.png", dpi=110)
        plt.close(fig)
        fig, axes = plt.subplots(1, 2, figsize=(12, 4), sharey=True)
        classes = ["EF", "CS5", "BE", "CS1"]
        for ax, direction in zip(axes, ("up", "down"), strict=False):
            w = 0.8 / len(runs)
            for k, (q, f, _, _) in enumerate(runs):
                ax.bar(
                    np.arange(4) + k * w,
                    [_mbps(f, type=f"{direction}-{c}") for c in classes],
                    w,
                    label=q,
                )
            ax.set_xticks(np.arange(4) + 0.4 - w / 2, classes)
            ax.set_title(f"RRUL-like TCP goodput per class, {direction}load")
            ax.set_ylabel("Mbit/s")
        axes[0].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "rrul-goodput.png", dpi=110)
        plt.close(fig)
    if "shares" in tests:
        runs = list(_runs(out, "shares"))
        fig, axes = plt.subplots(1, len(runs), figsize=(3 * len(runs), 4), sharey=True)
        for ax, (q, f, _, _) in zip(np.atleast_1d(axes), runs, strict=False):
            pos = 0
            for c, col in (
                ("CS1", "tab:blue"),
                ("BE", "tab:green"),
                ("CS5", "tab:red"),
            ):
                g = f[f["type"].isin([f"one-{c}", f"ten-{c}"])].sort_values("type")
                v = (g["rx_bytes"] * 8 / g["active_s"] / 1e6).to_numpy()
                ax.bar(np.arange(pos, pos + len(v)), v, color=col, label=c)
                pos += len(v) + 1
            ax.set_title(q)
            ax.set_xticks([])
        np.atleast_1d(axes)[0].set_ylabel("goodput per flow (Mbit/s)")
        np.atleast_1d(axes)[0].legend(fontsize=8)
        fig.suptitle("Class shares: goodput per flow (first bar of a class: the single flow)")
        fig.tight_layout()
        fig.savefig(out / "shares-goodput.png", dpi=110)
        plt.close(fig)


def _finish(out: Path, tests: list[str]) -> None:
    md = tables(out, tests)
    (out / "tables.md").write_text(md)
    plots(out, tests)
    print(md)
