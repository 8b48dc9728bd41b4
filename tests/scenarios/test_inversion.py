"""Inversion=prevent removes the priority inversion that the thesis's MSFC shows when most flows
crowd into a high class (docs/algorithm.md "No priority inversion"), end to end in a small
simulation: a 1 Mbit/s link, one 0.9 Mbit/s UDP flow in class 0 against 16 saturated TCP flows
in class 1 (scenario-class-aqm, 20 s, about 2 s of CPU per run). Inversion=allow gives the one
UDP flow about a third of the link, several times what each TCP flow gets; Inversion=prevent
gives each TCP flow at least what the UDP flow gets (about twice: Ratio 2).

The bytes per class come from the queue disc's own counters (qdisc.csv), never printed text.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO
from msfc.sim.runner import run_scenario

BUILD = Path(os.environ.get("MSFC_BUILD_DIR", REPO / "build"))
TCP_FLOWS = 16


def per_flow_bytes(tmp_path: Path, mode: str, ratio: int = 2) -> tuple[float, float]:
    """Bytes the scheduler sent per flow: (the UDP flow of class 0, a TCP flow of class 1)."""
    if not (BUILD / "scenario-class-aqm").is_file():
        pytest.fail(f"{BUILD}/scenario-class-aqm missing: build the project first")
    out = run_scenario(
        BUILD,
        "class-aqm",
        tmp_path / f"{mode}-{ratio}",
        {
            "preset": "s2-test",
            "scheduler": "Msfc",
            "duration": 20,
            # the preset's four classes (its class weights are not MSFC's), two of them idle
            "class-kind": "udp,tcp,tcp,tcp",
            "class-sources": f"1,{TCP_FLOWS},0,0",
            "class-udp-mbps": "0.9,0,0,0",
            "class-start": "0,0,0,0",
            "class-stop": "20,20,20,20",
            "msfc-ratio": ratio,
            "Msfc.Inversion": mode,
        },
    )
    q = pd.read_csv(out / "qdisc.csv").set_index("class")["dequeued_bytes"]
    return float(q[0]), float(q[1]) / TCP_FLOWS


def test_prevent_removes_the_inversion_allow_shows(tmp_path):
    udp, tcp = per_flow_bytes(tmp_path, "allow")
    assert udp > 3 * tcp, f"allow (the thesis): the inversion, UDP {udp:.0f} B, TCP {tcp:.0f} B"
    udp, tcp = per_flow_bytes(tmp_path, "prevent")
    assert tcp >= udp, f"prevent: a class-1 flow gets at least the class-0 flow's bytes ({udp})"
    assert tcp <= 3 * udp, f"prevent: about Ratio = 2 times, not starvation ({udp}, {tcp})"


def test_the_ratio_is_the_weight_prevent_gives_a_flow(tmp_path):
    """prevent weights a class-1 flow Ratio times the class-0 flow per round: at Ratio 16 each
    TCP flow gets many times the UDP flow's bytes (about 13 measured: the TCP flows do not use
    every turn), where allow at Ratio 16 still gives the one UDP flow as much as a TCP flow.
    This is the setting that keeps the ISP tree's per-flow order at full scale
    (docs/isp-tree.md, "The ratio decides whether the order is reached")."""
    udp, tcp = per_flow_bytes(tmp_path, "allow", ratio=16)
    assert udp > 0.5 * tcp, f"allow, Ratio 16: UDP {udp:.0f} B, TCP {tcp:.0f} B"
    udp, tcp = per_flow_bytes(tmp_path, "prevent", ratio=16)
    assert 8 * udp <= tcp <= 16 * udp, f"prevent, Ratio 16: UDP {udp:.0f} B, TCP {tcp:.0f} B"
