"""The tables of `msfc compare` and `msfc report` beyond the means: their intervals over RNG
runs, their LaTeX form, and the per-host fairness table (issue 29)."""

import re

import pandas as pd
import pytest
from msfc import metrics as M
from msfc import tables as T
from msfc import thesis


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
