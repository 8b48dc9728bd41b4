"""kernel/boot/msfc-apply and its ifupdown hook: the saved tc configuration applied at boot
(docs/kernel.md, "At boot").  A stand-in tc records what it is asked; the stock-kernel
selftest (make test-vm) runs the same scripts with Debian's tc on a real device."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APPLY = ROOT / "kernel" / "boot" / "msfc-apply"
HOOK = ROOT / "kernel" / "boot" / "if-up.d-msfc"


@pytest.fixture
def env(tmp_path):
    conf = tmp_path / "etc-msfc"
    conf.mkdir()
    tc = tmp_path / "tc"
    log = tmp_path / "tc.log"
    # refuses a batch file with a line "fail", as tc names a bad line
    tc.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> {log}\n'
        '[ "$1" = -batch ] && grep -q "^fail" "$2" && { echo "Command failed $2:2" >&2; exit 1; }\n'
        "exit 0\n"
    )
    tc.chmod(0o755)
    e = dict(os.environ, MSFC_TC=str(tc), MSFC_CONF_DIR=str(conf), MSFC_APPLY=str(APPLY))
    return conf, log, e


def run(args, env, script=APPLY):
    return subprocess.run(
        ["sh", str(script), *args], env=env, capture_output=True, text=True, timeout=30
    )


def test_applies_the_interfaces_file_with_tc_batch(env):
    conf, log, e = env
    (conf / "eth0.tc").write_text("qdisc replace dev eth0 root msfc boost on\n")
    p = run(["eth0"], e)
    assert p.returncode == 0, p.stderr
    # the old root tree first, then the file
    assert log.read_text().splitlines() == ["qdisc del dev eth0 root", f"-batch {conf}/eth0.tc"]


def test_a_missing_file_is_an_error_unless_optional(env):
    conf, log, e = env
    p = run(["eth1"], e)
    assert p.returncode == 2
    assert f"{conf}/eth1.tc does not exist" in p.stderr and "write the tc commands" in p.stderr
    assert run(["--if-configured", "eth1"], e).returncode == 0
    assert not log.exists()


def test_tc_refusal_names_the_file_and_fails(env):
    conf, _, e = env
    (conf / "eth0.tc").write_text("qdisc replace dev eth0 root msfc\nfail\n")
    p = run(["eth0"], e)
    assert p.returncode == 1
    assert f"{conf}/eth0.tc: tc refused it" in p.stderr and "Command failed" in p.stderr


def test_a_file_naming_another_device_is_refused(env):
    conf, log, e = env
    (conf / "eth0.tc").write_text(
        "qdisc replace dev eth0 root handle 1: htb default 1\n"
        "qdisc replace dev eth10 parent 1:1 msfc\n"
    )
    p = run(["eth0"], e)
    assert p.returncode == 2 and 'every line must say "dev eth0"' in p.stderr
    assert not log.exists()


def test_bad_use(env):
    _, _, e = env
    for args in ([], ["a", "b"], [""]):
        p = run(args, e)
        assert p.returncode == 2 and p.stderr.startswith("usage: msfc-apply"), args


def test_ifupdown_hook(env):
    conf, log, e = env
    (conf / "eth0.tc").write_text("qdisc replace dev eth0 root msfc\n")
    for extra in ({"IFACE": "lo"}, {"IFACE": "--all"}, {"IFACE": "eth0", "MODE": "stop"}):
        assert run([], dict(e, **extra), HOOK).returncode == 0
    assert not log.exists()
    assert run([], dict(e, IFACE="wlan0", MODE="start"), HOOK).returncode == 0  # no file
    assert not log.exists()
    p = run([], dict(e, IFACE="eth0", MODE="start"), HOOK)
    assert p.returncode == 0, p.stderr
    assert log.read_text().splitlines() == ["qdisc del dev eth0 root", f"-batch {conf}/eth0.tc"]
