"""The qemu stock-kernel testbed (msfc.linux.qemu, records, selftest, tables, cost, vm): the
conversion of guest reports (iperf3 -J, irtt -o json) into flows.csv rows, the cost probe's
results, the hosts test's tables, the boot's failure log and the selftest's checks."""

import gzip
import json
import re
import shutil
import subprocess

import pytest
from msfc.linux import cost, qemu, records, selftest, tables, vm


def iperf_tcp(reverse: bool, tos: int) -> dict:
    return {
        "start": {
            "connected": [
                {
                    "socket": 5,
                    "local_host": "10.0.1.1",
                    "local_port": 40000,
                    "remote_host": "10.0.2.2",
                    "remote_port": 5300,
                }
            ],
            "test_start": {"protocol": "TCP", "reverse": int(reverse), "tos": tos},
        },
        "end": {
            "streams": [
                {
                    "sender": {"socket": 5, "seconds": 10.2, "bytes": 1_000_000},
                    "receiver": {"socket": 5, "seconds": 10.0, "bytes": 900_000},
                }
            ]
        },
    }


def test_msfc_class_is_the_default_map():
    assert [records.msfc_class(d) for d in (1, 8, 0, 10, 14, 16, 34, 40, 46, 56, 45)] == [
        "le",
        0,
        1,
        1,
        1,
        2,
        2,
        2,
        2,
        2,
        1,
    ]
    assert records.msfc_class(46, prios=8) == 5
    assert records.msfc_class(34, prios=8) == 4


def test_iperf_tcp_download_goes_from_server_to_client():
    (row,) = records.iperf_flows(iperf_tcp(reverse=True, tos=0xB8), "down-EF", 3, 7)
    assert row["direction"] == "down"
    assert (row["src"], row["src_port"], row["dst"], row["dst_port"]) == (
        "10.0.2.2",
        5300,
        "10.0.1.1",
        40000,
    )
    assert row["dscp"] == 46 and row["priority"] == 2
    assert (row["tx_bytes"], row["rx_bytes"], row["active_s"]) == (
        1_000_000,
        900_000,
        10.0,
    )
    # iperf3 counts no TCP packets: no packet, delay or loss figures are made up
    assert row["tx_packets"] == row["rx_packets"] == row["lost_packets"] == 0
    assert set(records._FLOW_COLUMNS) <= set(row)


def test_iperf_udp_losses_come_from_the_server_report():
    rep = iperf_tcp(reverse=False, tos=0x20)
    rep["end"]["streams"] = [
        {
            "udp": {
                "socket": 5,
                "seconds": 10.0,
                "bytes": 120_000,
                "packets": 100,
                "lost_packets": 40,
            }
        }
    ]
    (row,) = records.iperf_flows(rep, "flood-CS1", 0, 1)
    assert row["protocol"] == "UDP" and row["direction"] == "up" and row["priority"] == 0
    assert (row["tx_packets"], row["rx_packets"], row["lost_packets"]) == (100, 60, 40)
    assert row["rx_bytes"] == 72_000


def test_iperf_report_with_an_error_is_rejected():
    with pytest.raises(qemu.TestbedError, match="unable to connect"):
        records.iperf_flows({"start": {}, "end": {}, "error": "unable to connect"}, "x", 0, 1)


def test_irtt_gives_one_way_rows_and_rtts():
    def rt(seq, lost, send=None, recv=None):
        r = {"seqno": seq, "lost": lost, "delay": {}, "ipdv": {}}
        if send is not None:
            r["delay"]["send"] = send
            r["ipdv"]["send"] = 1_000_000
        if recv is not None:
            r["delay"]["receive"] = recv
            r["ipdv"]["receive"] = -2_000_000
        if send is not None and recv is not None:
            r["delay"]["rtt"] = send + recv
        return r

    rep = {
        "config": {
            "local_address": "10.0.1.1:5555",
            "remote_address": "10.0.2.2:2112",
            "params": {"dscp": 184},
        },
        "stats": {"duration": 2_000_000_000},
        "round_trips": [
            rt(0, "false", 20_000_000, 21_000_000),
            rt(1, "true_down", 30_000_000),
            rt(2, "true"),
            rt(3, "false", 22_000_000, 23_000_000),
        ],
    }
    rows, delays, rtts = records.irtt_flows(rep, "irtt-EF", 1, 10)
    up, down = rows
    assert (up["direction"], up["src_port"], up["dst_port"], up["priority"]) == (
        "up",
        5555,
        2112,
        2,
    )
    assert (up["tx_packets"], up["rx_packets"], up["lost_packets"]) == (4, 3, 1)
    assert up["delay_sum_s"] == pytest.approx(0.072)
    assert (down["tx_packets"], down["rx_packets"], down["lost_packets"]) == (3, 2, 1)
    assert down["delay_sum_s"] == pytest.approx(0.044)
    assert down["jitter_sum_s"] == pytest.approx(0.004)
    assert delays == {
        10: pytest.approx([0.02, 0.03, 0.022]),
        11: pytest.approx([0.021, 0.023]),
    }
    assert rtts == [(10, 0, pytest.approx(0.041)), (10, 3, pytest.approx(0.045))]
    hist = records._hist_rows({11: [0.0211, 0.0212, 0.0232]})
    assert [(h["bin_start_s"], h["count"]) for h in hist] == [(0.021, 2), (0.023, 1)]


def test_jain():
    assert records.jain([1.0, 1.0, 1.0]) == pytest.approx(1.0)
    assert records.jain([1.0, 0.0]) == pytest.approx(0.5)


@pytest.mark.skipif(shutil.which("cpio") is None, reason="needs cpio")
def test_job_archive_is_a_valid_cpio():
    arc = qemu._cpio_newc({"job/run.sh": b"echo hi\n", "job/net.sh": b"x=1\n"})
    names = subprocess.run(
        ["cpio", "-it", "--quiet"],
        input=gzip.decompress(arc),
        capture_output=True,
        check=True,
    ).stdout.split()
    assert names == [b"job", b"job/net.sh", b"job/run.sh"]


def test_irtt_client_that_stopped_early_is_left_out_not_counted_as_loss():
    rep = {
        "config": {"params": {"dscp": 0, "duration": 20_000_000_000, "interval": 20_000_000}},
        "stats": {"duration": 180_000_000},
        "round_trips": [{"seqno": 0, "lost": "true", "delay": {}, "ipdv": {}}],
    }
    with pytest.raises(qemu.TestbedError, match="stopped after 0.2 s"):
        records.irtt_flows(rep, "irtt-BE", 0, 1)
    files = {"rrul/irtt_dscp0.irtt.json": json.dumps(rep).encode(), "rrul/start": b"1"}
    problems: list[str] = []
    flows, hist, rtts = records.convert_test(files, "rrul", problems)
    assert flows == [] and hist == [] and rtts == []
    assert len(problems) == 1 and "irtt_dscp0" in problems[0]


# --- per-packet cost (msfc.linux.cost): the probe's results, the ratios, the profile


def probe_line(kind: str, flows: int, ns: int, *, lost: int = 0, keephash: bool = False) -> str:
    return (
        f"dum0 {kind} flows {flows} rounds 200 packets 51200 ns_per_packet {ns} mean_ns "
        f"{ns * 3} lost {lost} hash_ns 365 clock_ns 57" + (" keephash" if keephash else "")
    )


def test_parse_probe_reads_every_key_and_the_mode():
    r = cost.parse_probe(probe_line("msfc", 64, 900, keephash=True))
    assert r["kind"] == "msfc" and r["mode"] == "keephash"
    assert (r["flows"], r["ns_per_packet"], r["lost"], r["hash_ns"]) == (64, 900, 0, 365)
    assert cost.parse_probe(probe_line("pfifo", 1, 80))["mode"] == "clear"


@pytest.mark.parametrize(
    "text",
    [
        "error: dum0 has no root qdisc to measure",
        "dum0 msfc flows 1 packets",
        "dum0 msfc flows x packets 1 ns_per_packet 2 lost 0",
        "dum0 msfc flows 1 packets 5 lost 0",
    ],
)
def test_parse_probe_rejects_what_is_not_a_measurement(text):
    with pytest.raises(qemu.TestbedError):
        cost.parse_probe(text)


def test_cost_ratios_are_taken_round_by_round():
    text = "\n".join(
        [
            f"1 1 fq_codel {probe_line('fq_codel', 1, 1000)}",
            f"1 1 msfc {probe_line('msfc', 1, 1100)}",
            # round 2 is twice as slow for both (e.g. a loaded host): the ratio stays 1.1
            f"2 1 fq_codel {probe_line('fq_codel', 1, 2000)}",
            f"2 1 msfc {probe_line('msfc', 1, 2200)}",
            f"3 1 fq_codel {probe_line('fq_codel', 1, 1000)}",
            f"3 1 msfc {probe_line('msfc', 1, 1300, lost=2)}",
        ]
    )
    rows = cost.cost_rows(text, "6.12", "tcg")
    assert len(rows) == 6 and rows[0]["kernel"] == "6.12"
    s = {r["qdisc"]: r for r in cost.cost_summary(rows)}
    assert s["msfc"]["ns_median"] == 1300 and s["msfc"]["ns_min"] == 1100
    assert s["msfc"]["ratio_fq_codel"] == pytest.approx(1.1)
    assert s["msfc"]["ratio_fq_codel_max"] == pytest.approx(1.3)
    assert s["msfc"]["lost"] == 2 and s["fq_codel"]["ratio_fq_codel"] == 1


def test_cost_rows_reject_a_measurement_of_the_wrong_qdisc_or_mode():
    with pytest.raises(qemu.TestbedError, match="expected cake"):
        cost.cost_rows(f"1 1 cake {probe_line('fq_codel', 1, 900)}", "k", "tcg")
    with pytest.raises(qemu.TestbedError, match="keephash"):
        cost.cost_rows(f"1 1 msfc_keephash {probe_line('msfc', 1, 900)}", "k", "tcg")
    with pytest.raises(qemu.TestbedError, match="ROUND FLOWS LABEL"):
        cost.cost_rows("1 1 nosuchqdisc x", "k", "tcg")
    with pytest.raises(qemu.TestbedError, match="measured nothing"):
        cost.cost_rows("\n", "k", "tcg")


def test_profile_lines_and_groups():
    text = " 18.30% ;[k] __skb_flow_dissect\n 14.10%  ;[k] __fq_codel_dequeue\n\n"
    assert cost.parse_profile(text) == [
        (18.3, "[k] __skb_flow_dissect"),
        (14.1, "[k] __fq_codel_dequeue"),
    ]
    assert cost.profile_group("[k] __fq_codel_dequeue", "fq_codel") == "qdisc's own code"
    assert cost.profile_group("[k] msfc_enqueue", "msfc") == "qdisc's own code"
    assert cost.profile_group("[k] msfc_bench_set", "msfc").startswith("probe")
    assert cost.profile_group("[k] __skb_flow_dissect", "cake").startswith("flow hash")
    assert cost.profile_group("[k] read_tsc", "msfc").startswith("clock reads")
    assert cost.profile_group("[k] get_random_u16", "cake") == "other kernel code"
    # the BPF qdisc's JITed programs are its own code, and no other qdisc's
    assert cost.profile_group("[k] bpf_prog_1f2e_msfc_enqueue", "msfc_bpf") == "qdisc's own code"
    assert cost.profile_group("[k] bpf_prog_1f2e_msfc_enqueue", "msfc") == "other kernel code"
    with pytest.raises(qemu.TestbedError):
        cost.parse_profile("many;[k] x")


def test_cost_refuses_bad_options_before_booting(tmp_path):
    base = ["cost", "--kernel", "k", "--initrd", "i", "--guest-dir", "g", "--out", str(tmp_path)]
    probe = tmp_path / "p.ko"
    probe.write_bytes(b"")
    assert vm.main([*base, "--probe", str(tmp_path / "missing.ko")]) == 1
    assert vm.main([*base, "--probe", str(probe), "--qdiscs", "msfc"]) == 1
    assert vm.main([*base, "--probe", str(probe), "--flows", "1,x"]) == 1
    assert vm.main([*base, "--probe", str(probe), "--profile", "sqm"]) == 1
    assert vm.main([*base, "--probe", str(probe)]) == 1  # no guest directory
    assert vm.main([*base, "--probe", str(probe), "--flows", "1,60000"]) == 1


def test_cost_profiles_no_debian13_kernel(tmp_path, capsys):
    """The host's perf and its libraries would replace a Debian 13 guest's newer C library:
    by default such a kernel is measured without a profile, and a profile asked for is
    refused before the boot, naming the fix."""
    kernel = "vmlinuz-7.3.4+deb13-cloud-amd64"
    base = ["cost", "--kernel", kernel, "--initrd", "i", "--guest-dir", str(tmp_path)]
    base += ["--out", str(tmp_path / "out")]
    probe = tmp_path / "p.ko"
    probe.write_bytes(b"")
    assert vm.main([*base, "--probe", str(probe), "--profile", "msfc"]) == 1
    assert "--profile ''" in capsys.readouterr().err
    # asked for explicitly, the default's own qdiscs too
    assert vm.main([*base, "--probe", str(probe), "--profile", "msfc,fq_codel,cake"]) == 1
    assert "--profile ''" in capsys.readouterr().err
    # the default: no profile, so no perf is looked for; it stops at the missing cost.sh
    assert vm.main([*base, "--probe", str(probe)]) == 1
    out = capsys.readouterr()
    assert "no profile" in out.out and "cost.sh" in out.err


def test_cost_measures_the_bpf_qdisc_only_with_its_loader(tmp_path, capsys):
    base = ["cost", "--kernel", "k", "--initrd", "i", "--guest-dir", "g", "--out", str(tmp_path)]
    probe = tmp_path / "p.ko"
    probe.write_bytes(b"")
    args = [*base, "--probe", str(probe), "--qdiscs", "fq_codel,msfc_bpf"]
    assert vm.main(args) == 1
    assert "--bpf-loader" in capsys.readouterr().err
    assert vm.main([*args, "--bpf-loader", str(tmp_path / "none")]) == 1
    assert "make bpf" in capsys.readouterr().err
    # not measured unless asked for (the stock kernels before 6.16 have no BPF qdisc): the
    # default set gets past the loader's check and stops at the missing guest directory
    assert vm.main([*base, "--probe", str(probe)]) == 1
    assert "cost.sh" in capsys.readouterr().err


def test_msfc_modes_are_tc_words_in_both_benchmarks():
    """Each msfc mode of make bench-linux is `<parameter> <value>` pairs of tc's keywords, in
    each direction: modes of msfc.model.params' CHOICES other than the thesis's, numeric
    parameters of msfc.model.params' NAMES (CoDel's low-rate setting), quanta, or L4S marking
    (a ce_threshold time and a selector within its mask); measured under the same name
    by make bench-linux-cost (a mode with words per direction with its upstream words)."""
    from msfc.model import params as P

    assert records.MSFC_MODES["msfc_boost"] == "boost on"
    for name in records.MSFC_MODES:
        assert name.startswith("msfc_") and name in records.QDISCS, name
        assert cost.COST_QDISCS[name] == ("clear", f"msfc {records.msfc_args(name, 'up')}"), name
        for d in records.DIRECTIONS:
            words = records.msfc_args(name, d).split()
            assert words and len(words) % 2 == 0, name
            for key, value in zip(words[::2], words[1::2], strict=True):
                if key in P.CHOICES:
                    assert value in P.CHOICES[key][1:], (name, key, value)  # not the default
                elif key == "quanta":  # explicit class quanta: one byte count per class
                    assert all(b.isdigit() for b in value.split(",")), (name, value)
                elif key == "ce_threshold":  # L4S marking: a time with its unit
                    assert re.fullmatch(r"\d+(us|ms|s)", value), (name, value)
                elif key == "ce_threshold_selector":  # VALUE/MASK, each 0 .. 255
                    sel, mask = (int(x, 0) for x in value.split("/"))
                    assert sel <= 255 and mask <= 255 and not sel & ~mask, (name, value)
                else:
                    assert key in P.NAMES and value[:1].isdigit(), (name, key, value)
    assert records.MSFC_MODES["msfc_recommended"].startswith(
        "overload class weights exact boost on"
    )
    # per-host isolation by the clients' side: their source upstream, destination downstream
    for rate in (2000, 100000):
        rec = records.msfc_args("msfc_recommended", "up", rate)
        assert records.msfc_args("msfc_isolate", "up", rate) == f"{rec} isolate src"
        assert records.msfc_args("msfc_isolate", "down", rate) == f"{rec} isolate dst"
    # docs/kernel.md's CoDel setting below 4 Mbit/s only (the qemu testbed's 2 Mbit/s: the default)
    assert records.msfc_args("msfc_recommended", "up").endswith("target 15ms interval 150ms")
    assert "target" not in records.msfc_args("msfc_recommended", "up", 20000)


def _net_sh(tmp_path, script: str):
    """Run the guest's net.sh with a stand-in for ip that logs its arguments."""
    from conftest import REPO

    log = tmp_path / "log"
    fake = tmp_path / "ip"
    fake.write_text(f'#!/bin/sh\necho "$*" >> {log}\n')
    fake.chmod(0o755)
    log.write_text("")
    net = REPO / "kernel/vm/guest/net.sh"
    p = subprocess.run(
        ["sh", "-c", f". {net}; IP={fake}; TC=tc; ETHTOOL=true; {script}"],
        capture_output=True,
        text=True,
    )
    return p, log.read_text().splitlines()


def test_net_sh_puts_an_msfc_mode_under_the_shaper(tmp_path):
    """The guest's bottleneck(): msfc_<mode> is `msfc $MSFC_ARGS_UP` under the HTB shaper on
    the egress toward the server, `msfc $MSFC_ARGS_DOWN` on the one toward the clients, and
    refused without them."""

    def bottleneck(up: str, down: str):
        return _net_sh(
            tmp_path,
            f'MSFC_ARGS_UP="{up}"; MSFC_ARGS_DOWN="{down}"; bottleneck msfc_isolate 2000',
        )

    p, lines = bottleneck(
        records.msfc_args("msfc_isolate", "up"), records.msfc_args("msfc_isolate", "down")
    )
    assert p.returncode == 0, p.stderr
    for dev, d in (("srv_r", "up"), ("cli_r", "down")):
        assert f"netns exec rtr tc class add dev {dev} parent 1: classid 1:1 htb rate 2000kbit" in (
            lines
        )
        args = records.msfc_args("msfc_isolate", d)
        assert f"netns exec rtr tc qdisc add dev {dev} parent 1:1 handle 10: msfc {args}" in lines
    p, _ = bottleneck("boost on", "")
    assert p.returncode != 0 and "needs MSFC_ARGS_UP and MSFC_ARGS_DOWN" in p.stderr


def test_net_sh_cake_isolates_hosts_by_the_clients_side(tmp_path):
    """cake_ds4_dual: diffserv4 with dual-srchost toward the server, dual-dsthost toward the
    clients; cake_ds4 keeps cake's default (triple-isolate)."""
    p, lines = _net_sh(tmp_path, "bottleneck cake_ds4_dual 2000")
    assert p.returncode == 0, p.stderr
    assert lines == [
        "netns exec rtr tc qdisc add dev cli_r root cake bandwidth 2000kbit diffserv4 dual-dsthost",
        "netns exec rtr tc qdisc add dev srv_r root cake bandwidth 2000kbit diffserv4 dual-srchost",
    ]
    p, lines = _net_sh(tmp_path, "bottleneck cake_ds4 2000")
    assert all(ln.endswith("diffserv4") for ln in lines) and len(lines) == 2


def test_new_kinds_words_auto_and_the_built_in_shaper():
    """msfc_auto: the recommended modes with boost across and `auto unmarked` under the HTB
    shaper (low-rate CoDel below 4 Mbit/s as the other modes); msfc_bw_*: msfc with its own
    shaper at the root, words after `msfc bandwidth RATE` that start with one of tc's presets
    and never take the low-rate words (the shaper scales CoDel itself); cake_be: one tin."""
    from msfc.model import params as P

    assert records.msfc_args("msfc_auto", "up", 20000) == (
        "overload class weights exact boost across auto unmarked"
    )
    assert records.msfc_args("msfc_auto", "down", 2000) == (
        "overload class weights exact boost across auto unmarked target 15ms interval 150ms"
    )
    want = {"msfc_bw_ds4": "diffserv4", "msfc_bw_auto": "diffserv3 auto unmarked"}
    presets = P.definitions().presets
    for name, words in want.items():
        assert name in records.QDISCS and name not in records.MSFC_MODES, name
        assert name.startswith(records.SHAPED_PREFIX) and records.is_msfc_mode(name), name
        assert name not in cost.COST_QDISCS, name  # a shaper is no per-packet cost
        for d in records.DIRECTIONS:
            for rate in (0, 2000, 100000):
                assert records.msfc_args(name, d, rate) == words, (name, d, rate)
        first, *rest = words.split()
        assert first in presets, name
        for key, value in zip(rest[::2], rest[1::2], strict=True):
            assert value in P.CHOICES[key][1:], (name, key, value)
        assert records.msfc_env(name, 2000, 100000) == {
            "MSFC_ARGS_UP": words,
            "MSFC_ARGS_DOWN": words,
        }
    assert set(records.MSFC_SHAPED_MODES) == set(want)
    # every other kind's name tells net.sh it is not root-shaped msfc
    assert not any(q.startswith(records.SHAPED_PREFIX) for q in records.QDISCS if q not in want)
    assert records.msfc_env("msfc_auto", 20000)["MSFC_ARGS_UP"].endswith("auto unmarked")
    assert records.msfc_env("cake_be", 20000) == {"MSFC_ARGS_UP": "", "MSFC_ARGS_DOWN": ""}
    assert "cake_be" in records.QDISCS and records.is_msfc_mode("cake_be") is False


def test_net_sh_sets_up_every_kind(tmp_path):
    """bottleneck() knows every kind of records.QDISCS, given the words msfc_env() gives its
    job: each sets up both router egresses."""
    for q in records.QDISCS:
        env = records.msfc_env(q, 2000, 1000)
        words = "; ".join(f'{k}="{v}"' for k, v in env.items())
        p, lines = _net_sh(tmp_path, f"{words}; bottleneck {q} 2000 1000")
        assert p.returncode == 0 and "unknown qdisc kind" not in p.stderr, (q, p.stderr)
        for dev in ("cli_r", "srv_r"):
            assert any(f"add dev {dev} " in ln for ln in lines), (q, dev, lines)


def test_net_sh_root_shaped_msfc_and_cake_besteffort(tmp_path):
    """msfc_bw_<mode>: `msfc bandwidth RATE <words>` at the root of each egress at its own
    rate, no HTB, and refused without the words; cake_be: cake's shaper with one tin."""
    env = records.msfc_env("msfc_bw_ds4", 100000, 20000)
    p, lines = _net_sh(
        tmp_path,
        f'MSFC_ARGS_UP="{env["MSFC_ARGS_UP"]}"; MSFC_ARGS_DOWN="{env["MSFC_ARGS_DOWN"]}"; '
        "bottleneck msfc_bw_ds4 100000 20000",
    )
    assert p.returncode == 0, p.stderr
    assert lines == [
        "netns exec rtr tc qdisc add dev cli_r root msfc bandwidth 100000kbit diffserv4",
        "netns exec rtr tc qdisc add dev srv_r root msfc bandwidth 20000kbit diffserv4",
    ]
    p, _ = _net_sh(tmp_path, "bottleneck msfc_bw_auto 2000")
    assert p.returncode != 0 and "needs MSFC_ARGS_UP and MSFC_ARGS_DOWN" in p.stderr
    p, lines = _net_sh(tmp_path, "bottleneck cake_be 2000")
    assert p.returncode == 0, p.stderr
    assert lines == [
        f"netns exec rtr tc qdisc add dev {d} root cake bandwidth 2000kbit besteffort"
        for d in ("cli_r", "srv_r")
    ]


def test_net_sh_second_host_is_routed_through_the_first(tmp_path):
    """cli2 reaches the router through cli (which forwards), so both client hosts share the
    router's one client-facing egress cli_r, and the router routes cli2's subnet to cli."""
    p, lines = _net_sh(tmp_path, "net_add_host2")
    assert p.returncode == 0, p.stderr
    assert "link add cli2_c netns cli2 type veth peer name cli2_g netns cli" in lines
    assert "-n rtr route add 10.0.3.0/24 via 10.0.1.1" in lines
    assert "-n cli2 route add default via 10.0.3.2" in lines
    assert "netns exec cli sysctl -qw net.ipv4.ip_forward=1" in lines


def _iperf_streams(host: str, port: int, reverse: bool, received: list[int]) -> dict:
    """An iperf3 -J client report with one TCP stream per entry of ``received`` (bytes)."""
    rep = iperf_tcp(reverse=reverse, tos=0)
    rep["start"]["connected"] = [
        {
            "socket": 5 + k,
            "local_host": host,
            "local_port": 40000 + k,
            "remote_host": "10.0.2.2",
            "remote_port": port,
        }
        for k in range(len(received))
    ]
    rep["end"]["streams"] = [
        {
            "sender": {"socket": 5 + k, "seconds": 20.1, "bytes": b + 10_000},
            "receiver": {"socket": 5 + k, "seconds": 20.0, "bytes": b},
        }
        for k, b in enumerate(received)
    ]
    return rep


def _hosts_out(out, a_up: int, b_up: int) -> None:
    """A results directory of the hosts test of msfc_isolate, converted from guest files:
    host A's one flow and host B's n flows received a_up and b_up bytes in all upstream;
    downstream the 11 flows share alike."""
    raw = out / "raw" / "msfc_isolate"
    (raw / "hosts").mkdir(parents=True)
    n = records.HOST_B_FLOWS
    reports = {
        "hostA_up_dscp0": _iperf_streams("10.0.1.1", 5700, False, [a_up]),
        "hostB_up_dscp0": _iperf_streams("10.0.3.1", 5701, False, [b_up // n] * n),
        "hostA_down_dscp0": _iperf_streams("10.0.1.1", 5702, True, [5_000_000 // (n + 1)]),
        "hostB_down_dscp0": _iperf_streams("10.0.3.1", 5703, True, [5_000_000 // (n + 1)] * n),
    }
    for name, rep in reports.items():
        (raw / "hosts" / f"{name}.iperf.json").write_text(json.dumps(rep))
    (raw / "hosts" / "cpu_before").write_text("cpu 100 0 100 800 0 0 0 0\n")
    (raw / "hosts" / "cpu_after").write_text("cpu 200 0 200 1400 0 0 0 0\n")
    (raw / "hosts" / "start").write_text("10.0\n")
    (raw / "hosts" / "stop").write_text("31.0\n")
    meta = {"kernel": "6.12.117+deb12-cloud-amd64", "accel": "tcg", "smp": 2}
    (raw / "testbed.json").write_text(json.dumps(meta))
    assert vm.main(["convert", "--out", str(out)]) == 0


def test_hosts_test_table_gives_per_host_goodput_and_ratio(tmp_path):
    """The hosts test's guest files -> flows.csv (per flow, hosts by their addresses) -> the
    table: per-host goodput each way and the ratio one-flow host / N-flow host."""
    n = records.HOST_B_FLOWS
    # up: host A 2.5 MB in 20 s (1 Mbit/s), host B 2.5 MB over its n flows; down: per flow
    _hosts_out(tmp_path, 2_500_000, 2_500_000)
    (run,) = (tmp_path / "hosts" / "runs").iterdir()
    flows = (run / "flows.csv").read_text().splitlines()
    assert len(flows) == 1 + 2 * (n + 1)
    down_b = [ln for ln in flows if "hostB_down-BE" in ln]
    assert len(down_b) == n and all(",10.0.2.2,10.0.3.1," in ln for ln in down_b)
    import pandas as pd

    row = tables.hosts_row(
        pd.read_csv(run / "flows.csv"), json.loads((run / "meta.json").read_text())
    )
    assert row["A up"] == pytest.approx(1.0) and row["B up"] == pytest.approx(1.0, rel=1e-3)
    assert row["A/B up"] == pytest.approx(1.0, rel=1e-3)
    assert row["A/B down"] == pytest.approx(1 / n, rel=1e-3)
    assert row["B flows"] == n and row["guest idle"] == pytest.approx(0.75)
    table = (tmp_path / "tables.md").read_text()
    assert "### Per-host isolation" in table
    assert "| msfc_isolate | 1 | 1 | 1 | 0.182 | 1.82 | 0.1 | 10 | 0.75 |" in table


def test_hosts_summary_gives_medians_over_runs(tmp_path, capsys):
    """hosts-summary: per qdisc the median and range over several results directories; a
    directory without the hosts test is named with the command that makes it."""
    for k, a_up in enumerate((1_000_000, 2_500_000, 2_000_000)):
        _hosts_out(tmp_path / f"r{k}", a_up, 2_500_000)
    capsys.readouterr()
    outs = [str(tmp_path / f"r{k}") for k in range(3)]
    assert vm.main(["hosts-summary", *outs]) == 0
    text = capsys.readouterr().out
    # host A up: 0.4, 1.0, 0.8 Mbit/s against host B's 1.0
    assert "| msfc_isolate | 3 | 0.8 [0.4-1] | 1 [1-1] | 0.8 [0.4-1] |" in text
    (tmp_path / "empty").mkdir()
    assert vm.main(["hosts-summary", str(tmp_path / "empty")]) == 1
    assert "holds no hosts test" in capsys.readouterr().err


def test_boot_keeps_the_whole_log_when_the_job_does_not_finish(tmp_path, monkeypatch):
    """A guest that dies before its job ends: the error names a file with the whole log."""
    kernel, initrd = tmp_path / "vmlinuz", tmp_path / "initrd"
    kernel.write_bytes(b"k")
    initrd.write_bytes(b"i")
    log = "\n".join(f"line {i}" for i in range(40)) + "\nKernel panic - not syncing"
    monkeypatch.setattr(qemu.shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr(qemu, "_boot_once", lambda *a, **k: qemu.BootResult("tcg", 1.0, {}, log))
    where = tmp_path / "out" / "boot-msfc.log"
    with pytest.raises(qemu.TestbedError) as e:
        qemu.boot(kernel, initrd, {}, accel="tcg", failure_log=where)
    assert str(where) in str(e.value) and "Kernel panic" in str(e.value)
    assert where.read_text() == log  # all of it, not only the last lines
    assert "line 0" not in str(e.value)


def idle_change_files(over: dict | None = None) -> dict:
    """The guest's /out of selftest.sh's idle_* steps on a kernel with the fix."""

    def shown(packets: int) -> bytes:
        return json.dumps(
            [
                {"kind": "htb", "handle": "1:", "root": True, "packets": packets},
                {
                    "kind": "msfc",
                    "handle": "10:",
                    "parent": "1:1",
                    "options": {"prios": 8, "isolate": "src", "boost": "on"},
                    "bytes": 98 * packets,
                    "packets": packets,
                },
            ]
        ).encode()

    files = {f"{s}.rc": b"0\n" for s in ("idle_htb", "idle_class", "idle_add", "idle_change")}
    files |= {
        "idle_ping1.rc": b"1\n",  # no reply on a dummy device: not checked
        "idle_ping2.rc": b"1\n",
        "idle_stats1.rc": b"0\n",
        "idle_stats1.out": shown(1),
        "idle_stats2.rc": b"0\n",
        "idle_stats2.out": shown(2),
        "idle_graft.rc": b"2\n",
        "idle_graft.err": b"Error: msfc classes cannot hold a child qdisc: each class is msfc's "
        b"own flow queues.\n",
        "idle_del.rc": b"0\n",
        "idle_tainted_before.txt": b"12288\n",  # O + E: the out-of-tree, unsigned sch_msfc
        "idle_tainted_after.txt": b"12288\n",
        "idle_dmesg.txt": b"[    3.1] sch_msfc: loading out-of-tree module taints kernel.\n",
    }
    return files | (over or {})


def run_idle_checks(files: dict) -> "selftest.Checks":
    c = selftest.Checks()
    selftest.idle_change_checks(qemu.BootResult("tcg", 1.0, files, ""), c)
    return c


def test_idle_change_checks_pass_on_a_kernel_with_the_fix(capsys):
    c = run_idle_checks(idle_change_files())
    assert c.failed == [] and c.count == 10, capsys.readouterr().out


OOPS = (
    b"[    5.2] Oops: divide error: 0000 [#1] PREEMPT SMP NOPTI\n"
    b"[    5.2] RIP: 0010:msfc_dequeue+0x1d3/0x6a0 [sch_msfc]\n"
)


@pytest.mark.parametrize(
    ("over", "failed"),
    [
        # the oops: D set, the report in dmesg, the second ping never counted
        (
            {
                "idle_tainted_after.txt": b"12416\n",
                "idle_dmesg.txt": OOPS,
                "idle_stats2.out": b"[]",
            },
            [
                "idle isolate change: the change applied (isolate src, boost on)",
                "idle isolate change: the second ping after the change leaves through msfc (its sent counter)",
                "idle isolate change: the kernel did not oops (taint bit D stays clear)",
                "idle isolate change: dmesg has no oops, divide error, BUG or msfc warning",
            ],
        ),
        # a D bit from before the steps is not this sequence's
        ({"idle_tainted_before.txt": b"12416\n", "idle_tainted_after.txt": b"12416\n"}, []),
        (
            {"idle_tainted_after.txt": b""},
            ["idle isolate change: the kernel did not oops (taint bit D stays clear)"],
        ),
        # the WARN_ON_ONCE that guards the division
        (
            {
                "idle_dmesg.txt": b"[ 5.2] WARNING: CPU: 0 PID: 88 at net/sched/sch_msfc.c:305 "
                b"msfc_flow_load+0x5c/0x70 [sch_msfc]\n"
            },
            ["idle isolate change: dmesg has no oops, divide error, BUG or msfc warning"],
        ),
        (
            {"idle_change.rc": b"2\n", "idle_change.err": b"Error: busy\n"},
            ["idle isolate change: tc qdisc change isolate src on the idle msfc"],
        ),
        # the counter did not move: the second packet did not leave
        (
            {"idle_stats2.out": idle_change_files()["idle_stats1.out"]},
            [
                "idle isolate change: the second ping after the change leaves through msfc (its sent counter)"
            ],
        ),
        (
            {"idle_stats1.out": b"[]"},
            [
                "idle isolate change: the first ping leaves through msfc",
                "idle isolate change: the second ping after the change leaves through msfc (its sent counter)",
            ],
        ),
        # a kernel without the graft op: EOPNOTSUPP without msfc's message; or accepted
        (
            {"idle_graft.err": b"RTNETLINK answers: Operation not supported\n"},
            ["a child qdisc under an msfc class is refused with msfc's message"],
        ),
        (
            {"idle_graft.rc": b"0\n", "idle_graft.err": b""},
            ["a child qdisc under an msfc class is refused with msfc's message"],
        ),
        (
            {"idle_add.rc": b"1\n"},
            ["idle isolate change: htb with msfc boost on under its class on a dummy device"],
        ),
    ],
)
def test_idle_change_checks_fail_on_a_kernel_without_the_fix(over, failed):
    assert run_idle_checks(idle_change_files(over)).failed == failed


def boot_apply_files(over: dict | None = None) -> dict:
    """The guest's /out of selftest.sh's boot_* steps (kernel/boot/msfc-apply, Debian's tc)."""
    shown = [
        {"kind": "htb", "handle": "1:", "root": True},
        {
            "kind": "msfc",
            "handle": "10:",
            "parent": "1:1",
            "options": {"boost": "on", "overload": "class", "weights": "exact"},
        },
    ]
    files = {f"{s}.rc": b"0\n" for s in ("boot_apply", "boot_apply_again", "boot_show")}
    files |= {
        "boot_show.out": json.dumps(shown).encode(),
        "boot_apply_bad.rc": b"1\n",
        "boot_apply_bad.err": b"msfc-apply: /tmp/msfc-etc/dummy3.tc: tc refused it:\n"
        b'msfc: target must be 2 us .. 2000 s, got "5": not a time with a unit (us, ms or '
        b"s: 5ms)\nCommand failed /tmp/msfc-etc/dummy3.tc:1\n",
        "boot_apply_none.rc": b"0\n",
    }
    return files | (over or {})


def run_boot_apply_checks(files: dict) -> "selftest.Checks":
    c = selftest.Checks()
    selftest.boot_apply_checks(qemu.BootResult("tcg", 1.0, files, ""), c)
    return c


def test_boot_apply_checks_pass():
    c = run_boot_apply_checks(boot_apply_files())
    assert c.failed == [] and c.count == 6


@pytest.mark.parametrize(
    ("over", "failed"),
    [
        (
            {"boot_apply.rc": b"1\n"},
            ["at boot: the ifupdown hook applies /etc/msfc/IFACE.tc"],
        ),
        # the tree applied a second time: refused (an htb root cannot change in place)
        (
            {"boot_apply_again.rc": b"1\n"},
            ["at boot: applying the same file again succeeds"],
        ),
        (
            {"boot_show.out": b'[{"kind": "htb", "handle": "1:", "root": true}]'},
            [
                "at boot: msfc under htb with the saved options (boost on, overload class, "
                "weights exact)"
            ],
        ),
        # a tc that reads "target 5" as 5 seconds accepts the file
        (
            {"boot_apply_bad.rc": b"0\n", "boot_apply_bad.err": b""},
            ["at boot: a file tc refuses fails the hook, naming the file and tc's reason"],
        ),
        (
            {"boot_apply_none.rc": b"2\n"},
            ["at boot: an interface without a file is left alone"],
        ),
    ],
)
def test_boot_apply_checks_fail(over, failed):
    assert run_boot_apply_checks(boot_apply_files(over)).failed == failed
