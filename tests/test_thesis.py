"""The thesis's published tables as data, and ours beside them."""

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from msfc.analysis import thesis

DATA = json.loads((Path(thesis.__file__).parents[1] / "data" / "thesis-tables.json").read_text())


def test_tables_present_with_all_schedulers_and_types():
    assert set(DATA["tables"]) == {"3.4", "3.5", "3.6", "3.7", "3.9"}
    for tid, t in DATA["tables"].items():
        for row in t["values"].values():
            assert set(row) == {"CoDel", "FQ CoDel", "MSFC", "pfifo fast"}, tid
        if t["level"] == "type":
            assert list(t["values"]) == list(DATA["flow_types"])


def test_published_values():
    t = DATA["tables"]
    assert t["3.4"]["values"]["delay_hmean_ms"]["MSFC"] == 75.0
    assert t["3.4"]["values"]["lost_packets"]["FQ CoDel"] == 1571844
    assert t["3.5"]["values"]["Torrent"]["FQ CoDel"] == 2448
    assert t["3.6"]["values"]["TV"]["MSFC"] == 2
    assert t["3.7"]["values"]["TV"]["MSFC"] == 3185.29
    assert t["3.9"]["values"]["Torrent"]["MSFC"] == 4219.79
    assert sum(DATA["simulations"]["A"]["flows"].values()) == 280
    # Table 3.3: priority 0 has 64 flows, priority 1 162, priority 2 54
    a = DATA["simulations"]["A"]
    per_prio = {}
    for ty, p in a["priorities"].items():
        per_prio[p] = per_prio.get(p, 0) + a["flows"][ty]
    assert per_prio == {0: 64, 1: 162, 2: 54}


def test_installed_copy_is_the_same_file():
    assert thesis.load() == DATA


def _summary():
    rows = []
    for sched, thr in (("Msfc", 3000.0), ("FqCoDel", 1300.0)):
        rows.append(
            dict(
                direction="down",
                level="type",
                group="TVStream",
                scheduler=sched,
                throughput_kbps=thr,
                delay_mean_ms=60.0,
                lost_packets=1.0,
            )
        )
        rows.append(
            dict(
                direction="down",
                level="overall",
                group="all",
                scheduler=sched,
                throughput_total_kbps=2e5,
                delay_hmean_ms=70.0,
                jitter_mean_ms=1.0,
                lost_packets=10.0,
                throughput_kbps=1.0,
                delay_mean_ms=1.0,
            )
        )
    return pd.DataFrame(rows)


def test_side_by_side():
    df = thesis.side_by_side(DATA, "3.7", _summary())
    assert list(df.columns) == [
        "Msfc thesis",
        "Msfc ours",
        "FqCoDel thesis",
        "FqCoDel ours",
    ]  # our order
    assert df.loc["TV", "Msfc thesis"] == 3185.29 and df.loc["TV", "Msfc ours"] == 3000.0
    assert pd.isna(df.loc["SSH", "Msfc ours"])
    o = thesis.side_by_side(DATA, "3.4", _summary())
    assert (
        o.loc["delay_hmean_ms", "Msfc thesis"] == 75.0
        and o.loc["delay_hmean_ms", "Msfc ours"] == 70.0
    )
    text = thesis.compare_text(_summary(), thesis.tables_for("A"))
    assert "Table 3.4" in text and "Table 3.7" in text and "Table 3.9" not in text
    assert "3185.29" in text and "3000.00" in text


def test_markdown_tables_hold_the_same_numbers_as_text():
    text = thesis.compare_text(_summary(), ("3.4", "3.7"))
    md = thesis.compare_text(_summary(), ("3.4", "3.7"), style="markdown")
    rows = [ln for ln in md.splitlines() if ln.startswith("|")]
    assert rows and all(ln.endswith("|") for ln in rows)
    assert rows[0] == "| metric | Msfc thesis | Msfc ours | FqCoDel thesis | FqCoDel ours |"
    assert rows[1] == "|---|---:|---:|---:|---:|"
    tv = [ln for ln in md.splitlines() if ln.startswith("| TV |")][0]
    assert tv == "| TV | 3185.29 | 3000.00 | 1327.67 | 1300.00 |"
    ssh = [ln for ln in md.splitlines() if ln.startswith("| SSH |")][0]
    assert ssh.split(" | ")[2] == "-"  # not measured, as in the text table

    # every number of the text table is in the Markdown one
    def nums(s):
        return sorted(re.findall(r"\d+(?:\.\d+)?", s))

    assert nums(text) == nums(md)
    with pytest.raises(ValueError, match="unknown table style"):
        thesis.compare_text(_summary(), ("3.4",), style="html")
