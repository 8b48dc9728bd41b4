"""The tables of `msfc compare` and `msfc report` beyond the means: their intervals over RNG
runs, their LaTeX form, and the per-host fairness table (issue 29)."""

import re

import pandas as pd
import pytest
from msfc.analysis import metrics as M
from msfc.analysis import tables as T
from msfc.analysis import thesis


def _summary(values: dict[str, list[float]]) -> pd.DataFrame:
    """Per scheduler, the throughput of TVStream in each of its RNG runs."""
    rows = []
    for sched, vals in values.items():
        for r, v in enumerate(vals, 1):
            common = dict(direction="down", scheduler=sched, rng_run=r)
            rows.append(
                dict(
                    common,
                    level="type",
                    group="TVStream",
                    throughput_kbps=v,
                    delay_mean_ms=60.0 + r,
                    lost_packets=float(r),
                )
            )
            rows.append(
                dict(
                    common,
                    level="overall",
                    group="all",
                    throughput_total_kbps=v * 10,
                    delay_hmean_ms=70.0,
                    jitter_mean_ms=0.1 * r,
                    lost_packets=10.0 * r,
                    throughput_kbps=v,
                    delay_mean_ms=60.0 + r,
                )
            )
    return pd.DataFrame(rows)


THREE = [3000.0, 3100.0, 2950.0]


def test_tables_show_the_interval_of_every_mean():
    """3 runs: mean ± half-width of the 95 % CI of metrics.mean_interval; 2 runs: ± half the
    spread min..max; 1 run: the mean alone; the title says which."""
    s = _summary({"Msfc": THREE, "FqCoDel": [1300.0, 1340.0], "CoDel": [900.0]})
    iv = M.mean_interval(THREE)
    half = f"{(iv.hi - iv.lo) / 2:.2f}"
    text = T.compare_text(s)
    tv = next(ln for ln in text.splitlines() if ln.startswith("TVStream") and "±" in ln)
    assert tv.split() == [
        "TVStream",
        f"{iv.mean:.2f}",
        "±",
        half,
        "1320.00",
        "±",
        "20.00",
        "900.00",
    ]
    assert "(2-3 RNG runs, 95% CI (3+ runs) or min..max (2): mean ± half-width or half" in text
    md = T.compare_text(s, style="markdown")
    assert f"| TVStream | {iv.mean:.2f} ± {half} | 1320.00 ± 20.00 | 900.00 |" in md
    html = T.render_html(
        T.group_table(s, "throughput_kbps"), "thr", "type", metric="throughput_kbps"
    )
    assert f"<td>{iv.mean:.2f} ± {half}</td>" in html and "95% CI" in html
    # the cells stay numbers: the means over the runs
    t = T.group_table(s, "throughput_kbps")
    assert t.loc["TVStream", "Msfc"] == pytest.approx(sum(THREE) / 3)
    assert t.loc["TVStream", "CoDel"] == 900.0


def test_an_interval_cut_at_0_says_so():
    """Lost packets 10, 20, 30 x: the t interval reaches below 0; the cell shows where it was cut
    ([0..high]), never "± more than the mean"."""
    s = _summary({"Msfc": THREE})
    text = T.compare_text(s)
    iv = M.mean_interval([10.0, 20.0, 30.0])
    assert iv.clipped
    line = next(ln for ln in text.splitlines() if ln.startswith("Lost packets"))
    assert line.split()[-1] == f"[0..{iv.hi:.0f}]"
    assert "cut at 0" in text and "[low..high] where cut" in text


def test_one_run_tables_are_as_before():
    s = _summary({"Msfc": [3000.0], "FqCoDel": [1300.0]})
    text = T.compare_text(s)
    assert "±" not in text and "RNG run" not in text and "3000.00" in text


def test_thesis_table_shows_our_intervals_beside_the_published_numbers():
    s = _summary({"Msfc": THREE, "FqCoDel": [1300.0, 1340.0]})
    md = thesis.compare_text(s, ("3.7",), style="markdown")
    iv = M.mean_interval(THREE)
    tv = next(ln for ln in md.splitlines() if ln.startswith("| TV |"))
    assert tv == (
        f"| TV | 3185.29 | {iv.mean:.2f} ± {(iv.hi - iv.lo) / 2:.2f} | 1327.67 | 1320.00 ± 20.00 |"
    )


def test_tex_escape_writes_every_special_character_as_itself():
    assert T.tex_escape("a_b 95% & $5 #1 {x} ~ ^ \\ <a|b> ± 2") == (
        r"a\_b 95\% \& \$5 \#1 \{x\} \textasciitilde{} \textasciicircum{} \textbackslash{} "
        r"\textless{}a\textbar{}b\textgreater{} \ensuremath{\pm} 2"
    )


def test_latex_table_is_booktabs_with_the_same_cells_escaped():
    s = _summary({"Msfc_2": THREE, "Fq&CoDel": [1300.0, 1340.0]})
    s.loc[s["level"] == "type", "group"] = "TV_100%"
    t = T.group_table(s, "throughput_kbps")
    tex = T.render_latex(t, "Mean flow throughput", "type", metric="throughput_kbps", label="thr_x")
    lines = tex.splitlines()
    iv = M.mean_interval(THREE)
    assert lines[1:4] == [r"\begin{table}", r"\centering", lines[3]]
    assert lines[3].startswith(r"\caption{Mean flow throughput (2-3 RNG runs, 95\% CI (3+ runs)")
    assert r"\label{tab:thr-x}" in lines
    assert r"\begin{tabular}{lrr}" in lines
    head = lines.index(r"\toprule") + 1
    assert lines[head] == r"type & Msfc\_2 & Fq\&CoDel \\"
    assert lines[head + 1] == r"\midrule"
    half = f"{(iv.hi - iv.lo) / 2:.2f}"
    assert lines[head + 2] == (
        rf"TV\_100\% & {iv.mean:.2f} \ensuremath{{\pm}} {half} & 1320.00 \ensuremath{{\pm}} 20.00 \\"
    )
    assert lines[-3:] == [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    # balanced braces, and no unescaped special character outside the commands we write
    body = "\n".join(ln for ln in lines if not ln.startswith("%"))
    assert body.count("{") == body.count("}")
    stripped = re.sub(r"\\(?:[a-zA-Z]+|[&%$#_{}])", "", body)
    assert not re.search(r"[&%$#_^~]", stripped.replace(" & ", " ")), stripped


def _jain_flows(per_run: list[tuple[float, float]]) -> pd.DataFrame:
    """Two client hosts, one download each, with the given kbit/s in each RNG run."""
    rows = []
    for r, kbps in enumerate(per_run, 1):
        for i, k in enumerate(kbps):
            rows.append(
                dict(
                    flow_id=i + 1,
                    type="Tv",
                    direction="down",
                    kind="data",
                    src="10.0.0.1",
                    dst=f"10.1.{i}.2",
                    rx_bytes=k * 1000 / 8,
                    active_s=1.0,
                    rx_packets=10,
                    tx_packets=10,
                    lost_packets=0,
                    delay_sum_s=0.0,
                    jitter_sum_s=0.0,
                    scheduler="Msfc",
                    rng_run=r,
                    config_hash=f"h{r}",
                )
            )
    return pd.DataFrame(rows)


def test_jain_interval_is_cut_to_the_index_range(tmp_path):
    """Jain's index of 2 hosts in 3 runs: 1, 1 and 0.8. Its Student-t interval reaches 1.22,
    above what the index can be; the table cuts it to [1/n, 1] and its title says so."""
    from msfc.analysis.report import fairness_tables

    per_run = [(100.0, 100.0), (100.0, 100.0), (300.0, 100.0)]
    values = [M.jain_index(k) for k in per_run]
    assert values == pytest.approx([1.0, 1.0, 0.8])
    assert M.mean_interval(values).hi > 1  # what the table showed before
    iv = M.mean_interval(values, *M.jain_range(2))
    assert iv.hi == 1.0 and iv.clipped and iv.lo > 0.5
    assert M.interval_text([iv]) == "3 RNG runs, 95% CI, cut to the quantity's range"
    fairness_tables(_jain_flows(per_run), "down", tmp_path)
    tex = (tmp_path / "table-jain.tex").read_text()
    row = next(ln for ln in tex.splitlines() if ln.startswith("all hosts (2)"))
    assert row == rf"all hosts (2) & {iv.mean:.3f} [{iv.lo:.3f}..1.000] \\"
    assert "cut to the index's range [1/n, 1]" in tex
    assert "cut to the quantity's range" in tex and "cut at 0" not in tex
    # a quantity that cannot be negative is still cut at 0 alone
    assert M.interval_text([M.mean_interval([0.1, 0.2, 5.0])]).endswith("cut at 0")


def test_against_tables_show_each_sides_interval_and_runs():
    """`msfc report A --against B`: A's and B's cells carry their intervals over their own RNG
    runs, and each column says how many; a side of one run says "one run"."""
    from msfc.analysis.report import against_pairs, against_table

    a = _summary({"Msfc": THREE})
    b = _summary({"Msfc": [2900.0]})
    t = against_table(against_pairs(a, b, "down"), "throughput_kbps")
    assert list(t.columns) == ["Msfc A (3 RNG runs)", "Msfc B (one run)", "Msfc B/A"]
    iv = M.mean_interval(THREE)
    text = T.render_text(t, "thr", "type", metric="throughput_kbps", runs=True)
    assert f"{iv.mean:.2f} ± {(iv.hi - iv.lo) / 2:.2f}" in text
    assert "thr (1-3 RNG runs, 95% CI: mean ± half-width)" in text
    assert t.loc["TVStream", "Msfc B/A"] == pytest.approx(2900.0 / iv.mean)
    # one run on both sides: no interval, and the title says why
    one = against_table(against_pairs(b, b, "down"), "throughput_kbps")
    assert list(one.columns)[:2] == ["Msfc A (one run)", "Msfc B (one run)"]
    text = T.render_text(one, "thr", "type", metric="throughput_kbps", runs=True)
    assert "thr (one run, no interval)" in text and "±" not in text


def test_qdisc_counter_tables_show_the_interval_and_the_runs(tmp_path):
    """The queue disc counters, drop locations and per-class counters are means over the RNG
    runs of each scheduler: with their intervals, and the number of runs in the title."""
    import json

    from msfc.analysis.report import qdisc_tables

    hashes = []
    drops = {"Msfc": [100, 120, 90], "FqCoDel": [300]}
    for sched, values in drops.items():
        for r, d in enumerate(values, 1):
            h = f"{sched}{r}"
            run = tmp_path / "runs" / h
            run.mkdir(parents=True)
            (run / "config.json").write_text(json.dumps({"resolved": {"scheduler": sched}}))
            cls = [2, 1, 0] if sched == "Msfc" else [-1]
            lines = ["node,device,scheduler,class,enqueued_packets,dequeued_packets,codel_drops,"]
            lines[0] += "overload_drops,ecn_marks"
            lines += [f"G1,G2,{sched},{c},{1000 + d},1000,{d},0,0" for c in cls]
            (run / "qdisc.csv").write_text("\n".join(lines) + "\n")
            hashes.append(h)
    out = tmp_path / "out"
    out.mkdir()
    html = "\n".join(qdisc_tables(tmp_path, hashes, out))
    iv = M.mean_interval([3 * d for d in drops["Msfc"]])
    tex = (out / "table-qdisc-counters.tex").read_text()
    row = next(ln for ln in tex.splitlines() if ln.startswith("codel drops"))
    assert (
        row == rf"codel drops & {iv.mean:.0f} \ensuremath{{\pm}} {(iv.hi - iv.lo) / 2:.0f} & 300 \\"
    )
    assert "1-3 RNG runs, 95\\% CI" in tex
    assert "Where packets are dropped" in html and "codel drops per class" in html
    per_class = (out / "table-codel_drops-class.tex").read_text()
    assert "3 RNG runs, 95\\% CI" in per_class and "\\ensuremath{\\pm}" in per_class
    # one run: no interval, "one run" in the title
    one = tmp_path / "one"
    one.mkdir()
    qdisc_tables(tmp_path, ["FqCoDel1"], one)
    assert "(one run, no interval)" in (one / "table-qdisc-counters.tex").read_text()
