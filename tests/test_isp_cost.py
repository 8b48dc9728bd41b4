"""msfc.sim.isp_cost's table: medians per scheduler over the rounds, ratios to the reference."""

import pytest
from msfc.errors import UserError
from msfc.sim import isp_cost


def _row(sched, rnd, wall, cpu, events):
    return {
        "preset": "quick",
        "scheduler": sched,
        "round": rnd,
        "run_wall_seconds": wall,
        "run_cpu_seconds": cpu,
        "events": events,
        "events_per_cpu_second": events / cpu,
    }


def test_table_takes_the_median_of_the_rounds_and_the_ratio_to_the_reference():
    rows = [
        _row("FqCoDel", 1, 20.0, 20.0, 7_000_000),
        _row("Msfc", 1, 18.0, 18.0, 8_000_000),
        _row("FqCoDel", 2, 22.0, 22.0, 7_000_000),
        _row("Msfc", 2, 20.0, 20.0, 8_000_000),
        _row("FqCoDel", 3, 21.0, 21.0, 7_000_000),
        _row("Msfc", 3, 40.0, 40.0, 8_000_000),  # a round the machine slowed: not the median
    ]
    lines = isp_cost.table(rows).splitlines()
    assert lines[0].startswith("| scheduler | events (M) | wall s | CPU s")
    assert lines[2] == "| FqCoDel | 7.00 | 21.0 | 21.0 | 333 | 1.00 | 1.00 |"
    assert lines[3] == "| Msfc | 8.00 | 20.0 | 20.0 | 400 | 0.95 | 0.95 |"
    # the rows of a CSV read back (text cells) give the same table
    text = [{k: str(v) for k, v in r.items()} for r in rows]
    assert isp_cost.table(text) == "\n".join(lines)
    with pytest.raises(UserError, match="no run of the reference CoDel"):
        isp_cost.table(rows, "CoDel")
