"""Aggregation maths on hand-made data with answers worked out by hand."""

import math

import pandas as pd
import pytest
from conftest import FIXTURES
from msfc.analysis import metrics as M

KNOWN = FIXTURES / "known"


@pytest.fixture
def known():
    return pd.read_csv(KNOWN / "flows.csv"), pd.read_csv(KNOWN / "delay_hist.csv")


def hist(rows):
    return pd.DataFrame(rows, columns=["flow_id", "bin_start_s", "bin_width_s", "count"])


def test_harmonic_mean_of_histogram():
    # centres 2 ms (x2) and 4 ms (x2): 4 / (2/0.002 + 2/0.004) = 2.6667 ms
    h = hist([(1, 0.001, 0.002, 2), (1, 0.003, 0.002, 2)])
    assert M.hist_harmonic_mean(h) == pytest.approx(4 / 1500)
    # differs from the arithmetic mean (3 ms)
    assert M.hist_mean(h) == pytest.approx(0.003)


def test_harmonic_mean_merges_flows_and_ignores_empty_bins():
    h = hist([(1, 0.001, 0.002, 1), (2, 0.001, 0.002, 1), (2, 0.003, 0.002, 2), (3, 0.5, 0.002, 0)])
    assert M.hist_harmonic_mean(h) == pytest.approx(4 / 1500)
    assert math.isnan(M.hist_harmonic_mean(hist([])))


def test_percentiles_interpolate_inside_bins():
    h = hist([(1, 0.001, 0.002, 2), (1, 0.003, 0.002, 2)])
    assert M.hist_percentile(h, 0) == pytest.approx(0.001)
    assert M.hist_percentile(h, 25) == pytest.approx(0.002)
    assert M.hist_percentile(h, 50) == pytest.approx(0.003)
    assert M.hist_percentile(h, 75) == pytest.approx(0.004)
    assert M.hist_percentile(h, 100) == pytest.approx(0.005)
    with pytest.raises(ValueError):
        M.hist_percentile(h, 101)


def test_cdf_reaches_one_at_last_edge():
    x, F = M.hist_cdf(hist([(1, 0.001, 0.002, 1), (1, 0.003, 0.002, 3)]))
    assert list(x) == pytest.approx([0.001, 0.003, 0.005])
    assert list(F) == pytest.approx([0, 0.25, 1.0])


def test_flow_metrics(known):
    flows, _ = known
    f = M.flow_metrics(flows).set_index("flow_id")
    assert f.loc[1, "throughput_kbps"] == pytest.approx(10.0)  # 12500 B * 8 / 10 s / 1000
    assert f.loc[3, "throughput_kbps"] == pytest.approx(160.0)  # 100000 B * 8 / 5 s / 1000
    assert f.loc[2, "delay_mean_ms"] == pytest.approx(5.0)  # 0.030 s / 6
    assert f.loc[2, "jitter_mean_ms"] == pytest.approx(1.6)  # 0.008 s / (6 - 1)
    assert f.loc[2, "loss_ratio"] == pytest.approx(0.4)
    assert math.isnan(f.loc[5, "delay_mean_ms"]) and math.isnan(f.loc[5, "loss_ratio"])


def test_group_metrics_per_type(known):
    flows, h = known
    s = M.summarize(flows, h, "down")
    voip = s[(s.level == "type") & (s.group == "voip")].iloc[0]
    assert voip.flows == 2
    assert voip.throughput_kbps == pytest.approx(15.0)  # mean of 10 and 20
    assert voip.throughput_total_kbps == pytest.approx(30.0)
    assert voip.delay_mean_ms == pytest.approx(4.2)  # (0.012 + 0.030) / (4 + 6)
    assert voip.jitter_mean_ms == pytest.approx(1.25)  # (0.002 + 0.008) / (3 + 5)
    assert voip.lost_packets == 4
    assert voip.loss_ratio == pytest.approx(4 / 14)
    # histogram of both voip down flows: 2 @ 2 ms, 6 @ 4 ms, 2 @ 6 ms (centres)
    assert voip.delay_hmean_ms == pytest.approx(10 / (2 / 0.002 + 6 / 0.004 + 2 / 0.006) * 1000)
    assert voip.delay_p50_ms == pytest.approx(4.0)
    assert voip.delay_p95_ms == pytest.approx(6.5)
    assert voip.delay_p99_ms == pytest.approx(6.9)
    torrent = s[(s.level == "type") & (s.group == "torrent")].iloc[0]
    assert torrent.delay_hmean_ms == pytest.approx(80 / (40 / 0.1 + 40 / 0.12) * 1000)
    assert torrent.delay_p50_ms == pytest.approx(110.0)
    assert torrent.jitter_mean_ms == pytest.approx(10.0)


def test_overall_and_direction(known):
    flows, h = known
    s = M.summarize(flows, h, "down")
    o = s[s.level == "overall"].iloc[0]
    assert o.flows == 4  # the up flow is left out
    assert o.throughput_kbps == pytest.approx((10 + 20 + 160 + 0) / 4)
    assert o.throughput_total_kbps == pytest.approx(190.0)
    assert o.delay_mean_ms == pytest.approx(8.042 / 90 * 1000)
    assert o.jitter_mean_ms == pytest.approx(0.8 / 87 * 1000)
    assert o.lost_packets == 24
    assert o.loss_ratio == pytest.approx(24 / 114)
    assert o.delay_hmean_ms == pytest.approx(
        90 / (10 / 0.0035294117647 + 80 / 0.109090909) * 1000, rel=1e-6
    )
    up = M.summarize(flows, h, "up")
    assert up[up.level == "overall"].iloc[0].flows == 1
    assert M.summarize(flows, h, "all")[lambda d: d.level == "overall"].iloc[0].flows == 5


def test_priority_groups_and_empty_group(known):
    flows, h = known
    s = M.summarize(flows, h, "down")
    prios = s[s.level == "priority"].set_index("group")
    assert set(prios.index) == {"2", "0", "1"}
    idle = prios.loc["1"]
    assert idle.throughput_kbps == 0 and idle.lost_packets == 0
    assert math.isnan(idle.delay_mean_ms) and math.isnan(idle.delay_hmean_ms)
    assert M.group_order(flows, "priority") == ["2", "1", "0"]


def test_mean_ci95():
    mean, half, n = M.mean_ci95([1.0, 2.0, 3.0])
    assert (mean, n) == (2.0, 3)
    assert half == pytest.approx(4.303 / math.sqrt(3))
    mean, half, n = M.mean_ci95([5.0, float("nan")])
    assert mean == 5.0 and math.isnan(half) and n == 1
    assert M.t95(100) == 1.96


def test_metric_registry_is_complete():
    for name in M.GROUP_METRICS + M.OVERALL_TABLE + M.TYPE_TABLES:
        assert name in M.METRICS
        assert M.heading(name)
    assert M.format_value("lost_packets", 3.0) == "3"
    assert M.format_value("delay_mean_ms", float("nan")) == "-"


def test_direction_keeps_data_flows_only_when_kind_is_given():
    flows = pd.DataFrame(
        {
            "flow_id": [1, 2, 3, 4],
            "direction": ["down", "down", "up", "down"],
            "kind": ["data", "ack", "data", "data"],
        }
    )
    assert list(M.select_flows(flows, "down")["flow_id"]) == [1, 4]
    assert list(M.select_flows(flows, "up")["flow_id"]) == [3]
    assert list(M.select_flows(flows, "all")["flow_id"]) == [1, 2, 3, 4]
    # files without the column (older runs, other scenarios): direction alone
    assert list(M.select_flows(flows.drop(columns="kind"), "down")["flow_id"]) == [1, 2, 4]


def test_throughput_headings_say_per_flow_or_total():
    from msfc.analysis import metrics as M

    assert M.heading("throughput_kbps") == "Mean flow throughput (kbps)"
    assert M.heading("throughput_total_kbps") == "Total throughput (kbps)"


def test_mean_interval_says_what_it_is():
    """3 or more runs: the 95 % CI, cut at 0 for what cannot be negative (and flagged); 2 runs:
    their spread min..max (a t interval with one degree of freedom is 12.7 standard errors
    wide: -500 kbps for a throughput); 1 run: none."""
    iv = M.mean_interval([10.0, 11.0, 12.0])
    assert iv.kind == "ci95" and iv.n == 3 and not iv.clipped
    assert iv.hi - iv.mean == pytest.approx(4.303 / math.sqrt(3))
    assert iv.lo == pytest.approx(11.0 - 4.303 / math.sqrt(3))
    low = M.mean_interval([0.1, 0.2, 5.0])
    assert low.kind == "ci95" and low.lo == 0 and low.clipped
    assert M.mean_interval([0.1, 0.2, 5.0], floor=None).lo < 0
    two = M.mean_interval([100.0, 900.0])
    assert (two.kind, two.lo, two.hi, two.mean) == ("range", 100.0, 900.0, 500.0)
    one = M.mean_interval([5.0, float("nan")])
    assert (one.kind, one.n, one.lo, one.hi) == ("", 1, 5.0, 5.0)
    assert M.interval_text([two]) == "2 RNG runs, min..max, too few for a CI"
    assert M.interval_text([iv]) == "3 RNG runs, 95% CI"
    assert M.interval_text([iv, low]) == "3 RNG runs, 95% CI, cut at 0"
    assert M.interval_text([one]) == "1 RNG run"
    assert M.interval_text([two, iv]) == "2-3 RNG runs, 95% CI (3+ runs) or min..max (2)"


def test_fairness_over_hosts_and_the_flows_of_each_type():
    """Jain's index (jain_index, the one definition) over client hosts and per flow type."""
    f = pd.DataFrame(
        {
            "flow_id": [1, 2, 3, 4, 5],
            "type": ["Tv", "Tv", "Web", "Web", "Web"],
            "direction": ["down"] * 4 + ["up"],
            "kind": ["data"] * 5,
            "src": ["s", "s", "s", "s", "h1"],
            "dst": ["h1", "h2", "h1", "h3", "s"],
            "rx_bytes": [1000, 3000, 2000, 2000, 500],
            "active_s": [1.0] * 5,
            "rx_packets": [1] * 5,
            "tx_packets": [1] * 5,
            "lost_packets": [0] * 5,
            "delay_sum_s": [0.0] * 5,
            "jitter_sum_s": [0.0] * 5,
        }
    )
    hosts = M.client_throughput(f, "down")
    assert dict(hosts) == {"h1": 24.0, "h2": 24.0, "h3": 16.0}
    fair = M.fairness(f, "down").set_index("group")
    assert fair.loc["hosts", "jain"] == pytest.approx(M.jain_index([24, 24, 16]))
    assert fair.loc["Tv", "jain"] == pytest.approx((8 + 24) ** 2 / (2 * (8**2 + 24**2)))
    assert fair.loc["Web", "jain"] == pytest.approx(1.0) and fair.loc["Web", "n"] == 2
    both = M.client_throughput(f, "all")
    assert both["h1"] == pytest.approx(28.0)  # 24 kbit/s down + 4 up


def test_hist_ccdf_is_the_tail_share():
    """P(delay > x) at the bin edges: 1 - CDF, 0 beyond the last bin."""
    h = pd.DataFrame(
        {
            "flow_id": [1, 1, 1],
            "bin_start_s": [0.0, 0.01, 0.1],
            "bin_width_s": [0.01] * 3,
            "count": [90, 9, 1],
        }
    )
    x, tail = M.hist_ccdf(h)
    assert list(x) == pytest.approx([0.0, 0.01, 0.02, 0.11])
    assert list(tail) == pytest.approx([1.0, 0.1, 0.01, 0.0])
