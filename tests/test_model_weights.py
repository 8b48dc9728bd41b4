"""python -m msfc.model.weights: the class-share errors of weights=rounded and weights=exact
on the reference model (docs/algorithm.md's table)."""

import csv

import pytest
from msfc.model import weights as W


def test_exact_weights_hold_the_shares_rounded_ones_do_not():
    rounded = W.share_error("rounded", 16, "0.5", 1514, rounds=2000)
    # classes 11-15 get one byte a round each: class 15 gets about 21.6 times its share
    assert rounded.worst_class == 15 and rounded.share_over_ideal > 10
    exact = W.share_error("exact", 16, "0.5", 1514, rounds=2000)
    assert exact.max_error_pct < 0.5
    # 8 classes at quantum 4000: class 7's quantum is 31.25 bytes, rounded to 31
    r8 = W.share_error("rounded", 8, "0.5", 4000, rounds=2000)
    assert r8.worst_class == 7 and 1 < r8.max_error_pct < 5
    assert W.share_error("exact", 8, "0.5", 4000, rounds=2000).max_error_pct < 0.5


def test_whole_quanta_give_the_same_shares_in_both_modes():
    # ratio 1: every quantum a whole number of bytes, so exact changes nothing
    got = [W.share_error(w, 4, "1", 1500, rounds=500) for w in W.WEIGHTS]
    assert got[0] == got[1] and got[0].max_error_pct < 0.5


def test_the_csv_has_a_row_per_configuration_and_mode(tmp_path, capsys):
    out = tmp_path / "sub" / "weights.csv"
    assert W.main(["--csv", str(out), "--rounds", "200"]) == 0
    with out.open() as fh:
        rows = list(csv.DictReader(fh))
    assert [r["weights"] for r in rows] == list(W.WEIGHTS) * len(W.CONFIGS)
    assert {r["dequeues"] for r in rows} == {"800"}
    assert not (tmp_path / "sub" / "weights.csv.tmp").exists()
    assert "wrote" in capsys.readouterr().out


def test_impossible_rounds_are_refused(capsys):
    with pytest.raises(SystemExit):
        W.main(["--rounds", "0"])
    assert "--rounds 0: give at least 1" in capsys.readouterr().err
    with pytest.raises(ValueError, match="at least 1"):
        W.share_error("exact", 3, "2", 1514, rounds=0)
