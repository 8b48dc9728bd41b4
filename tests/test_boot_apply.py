"""kernel/boot/msfc-apply and its ifupdown hook: the saved configuration applied at boot
(docs/kernel.md, "At boot"), for the module (IFACE.tc, a tc batch file) and for the BPF qdisc
(IFACE.bpf, the loader's words).  A stand-in tc and a stand-in loader record what they are
asked and keep the qdiscs and the registration in files; the stock-kernel selftest
(make test-vm) runs the same scripts with Debian's tc on a real device, and make test-bpf
runs the installed layout with the real loader in Debian 13's 7.3.4 kernel."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APPLY = ROOT / "kernel" / "boot" / "msfc-apply"
HOOK = ROOT / "kernel" / "boot" / "if-up.d-msfc"
UNIT = ROOT / "kernel" / "boot" / "msfc@.service"

# tc: the root qdisc of each device is a file qdiscs/DEV holding its kind; msfc_bpf exists
# while the loader's pin does and is refused on a second device (EBUSY), as the kernel does
FAKE_TC = r"""#!/bin/sh
echo "$@" >> {log}
Q={qdiscs}
case "$1 $2" in
"-batch "*)
	grep -q "^fail" "$2" && {{ echo "Command failed $2:2" >&2; exit 1; }}
	exit 0 ;;
esac
case "$*" in
"qdisc show")
	for f in "$Q"/*; do [ -e "$f" ] && echo "qdisc $(cat "$f") 8001: dev ${{f##*/}} root refcnt 2"; done
	exit 0 ;;
"qdisc show dev "*" root")
	[ -e "$Q/$4" ] && echo "qdisc $(cat "$Q/$4") 8001: dev $4 root refcnt 2"
	exit 0 ;;
"qdisc del dev "*" root")
	[ -e "$Q/$4" ] || {{ echo "Error: Cannot delete qdisc with handle of zero." >&2; exit 2; }}
	rm "$Q/$4"; exit 0 ;;
"qdisc add dev "*" root "*)
	[ -e "$Q/$4" ] && {{ echo "Error: Exclusivity flag on, cannot modify." >&2; exit 2; }}
	if [ "$6" = msfc_bpf ]; then
		[ -e {bpffs}/msfc_bpf/link ] || {{ echo "Error: Specified qdisc kind is unknown." >&2; exit 2; }}
		[ -n "${{FAKE_TC_ADD_FAIL:-}}" ] && {{ echo "Error: $FAKE_TC_ADD_FAIL" >&2; exit 2; }}
		grep -qx msfc_bpf "$Q"/* 2> /dev/null && {{ echo "Error: Device or resource busy." >&2; exit 2; }}
	fi
	echo "$6" > "$Q/$4"; exit 0 ;;
esac
echo "fake tc: what is $*" >&2
exit 2
"""

# the loader: check refuses the word "bad" with a message of the real loader's kind; load
# pins bpffs/msfc_bpf/link (refused while it exists, as the real one is); unload removes it
FAKE_LOADER = r"""#!/bin/sh
echo "$@" >> {log}
P={bpffs}/msfc_bpf
cmd=$1
shift
case " $* " in *" bad "*) echo 'msfc-bpf: prios must be 1 .. 16, got "bad"' >&2; exit 1 ;; esac
case $cmd in
check) echo "msfc-bpf: valid configuration of msfc_bpf: $*" ;;
load)
	[ -e "$P/link" ] && {{ echo "msfc-bpf: msfc_bpf is already loaded ($P): msfc-bpf unload first" >&2; exit 1; }}
	[ -n "${{FAKE_LOAD_FAIL:-}}" ] && {{ echo "msfc-bpf: the kernel refused the BPF qdisc ($FAKE_LOAD_FAIL)" >&2; exit 1; }}
	mkdir -p "$P" && echo "$*" > "$P/link" && echo "msfc-bpf: registered qdisc msfc_bpf: $*" ;;
unload)
	[ -e "$P/link" ] || {{ echo "msfc-bpf: msfc_bpf is not loaded" >&2; exit 1; }}
	rm "$P/link" && echo "msfc-bpf: unloaded msfc_bpf" ;;
*) exit 2 ;;
esac
"""


class Box:
    """A stand-in machine: the configuration directory, tc, the loader and their state."""

    def __init__(self, tmp: Path):
        self.conf = tmp / "etc-msfc"
        self.qdiscs = tmp / "qdiscs"
        self.bpffs = tmp / "bpffs"
        self.run_dir = tmp / "run-msfc"
        for d in (self.conf, self.qdiscs, self.bpffs):
            d.mkdir()
        self.log = tmp / "tc.log"
        self.loader_log = tmp / "loader.log"
        self.kconfig = tmp / "config-7.3.4+deb13-cloud-amd64"
        self.kconfig.write_text("CONFIG_BPF_SYSCALL=y\nCONFIG_NET_SCH_BPF=y\n")
        self.btf = tmp / "btf-vmlinux"
        self.btf.write_text("")
        self.tc = tmp / "tc"
        self.tc.write_text(FAKE_TC.format(log=self.log, qdiscs=self.qdiscs, bpffs=self.bpffs))
        self.loader = tmp / "msfc-bpf"
        self.loader.write_text(FAKE_LOADER.format(log=self.loader_log, bpffs=self.bpffs))
        for f in (self.tc, self.loader):
            f.chmod(0o755)
        self.env = dict(
            os.environ,
            MSFC_TC=str(self.tc),
            MSFC_CONF_DIR=str(self.conf),
            MSFC_APPLY=str(APPLY),
            MSFC_BPF_LOADER=str(self.loader),
            MSFC_RUN_DIR=str(self.run_dir),
            MSFC_BPFFS=str(self.bpffs),
            MSFC_BTF=str(self.btf),
            MSFC_KERNEL_RELEASE="7.3.4+deb13-cloud-amd64",
            MSFC_KERNEL_CONFIG=str(self.kconfig),
        )

    def calls(self, log: Path) -> list[str]:
        return log.read_text().splitlines() if log.exists() else []

    def qdisc(self, dev: str) -> str | None:
        f = self.qdiscs / dev
        return f.read_text().strip() if f.exists() else None

    def registered(self) -> str | None:
        f = self.bpffs / "msfc_bpf" / "link"
        return f.read_text().strip() if f.exists() else None

    def forget(self):
        for log in (self.log, self.loader_log):
            log.unlink(missing_ok=True)


@pytest.fixture
def box(tmp_path):
    return Box(tmp_path)


@pytest.fixture
def env(box):
    return box.conf, box.log, box.env


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
    conf, log, e = env
    (conf / "eth0.tc").write_text("qdisc replace dev eth0 root msfc\nfail\n")
    p = run(["eth0"], e)
    assert p.returncode == 1
    assert f"{conf}/eth0.tc: tc refused it" in p.stderr and "Command failed" in p.stderr
    # the lines tc took before the refused one are deleted again: no half-applied tree
    assert log.read_text().splitlines() == [
        "qdisc del dev eth0 root",
        f"-batch {conf}/eth0.tc",
        "qdisc del dev eth0 root",
    ]


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


# ---------------------------------------------------------------------------------------------
# IFACE.bpf: the BPF qdisc msfc_bpf with the loader's words


def test_bpf_file_loads_registers_and_adds_the_qdisc(box):
    (box.conf / "eth0.bpf").write_text(
        "# uplink of 20 Mbit/s\nbandwidth 20mbit   prios 3\n\n\tratio 2 # three classes\n"
    )
    p = run(["eth0"], box.env)
    assert p.returncode == 0, p.stderr
    words = "bandwidth 20mbit prios 3 ratio 2"
    # checked before anything changes, then registered once and put on the device
    assert box.calls(box.loader_log) == [f"check {words}", f"load {words}"]
    assert box.calls(box.log) == [
        "qdisc show",
        "qdisc del dev eth0 root",
        "qdisc add dev eth0 root msfc_bpf",
    ]
    assert box.qdisc("eth0") == "msfc_bpf" and box.registered() == words
    assert "registered qdisc msfc_bpf" in p.stdout and "eth0: root qdisc msfc_bpf" in p.stdout
    assert (box.run_dir / "msfc_bpf").read_text().splitlines()[-1] == words


def test_bpf_applied_again_changes_nothing(box):
    (box.conf / "eth0.bpf").write_text("bandwidth 20mbit\n")
    assert run(["eth0"], box.env).returncode == 0
    box.forget()
    p = run(["eth0"], box.env)
    assert p.returncode == 0, p.stderr
    assert "applied with these parameters already" in p.stdout
    assert box.calls(box.loader_log) == ["check bandwidth 20mbit"]
    assert all(not c.startswith(("qdisc del", "qdisc add")) for c in box.calls(box.log))
    assert box.qdisc("eth0") == "msfc_bpf" and box.registered() == "bandwidth 20mbit"


def test_bpf_qdisc_gone_from_the_device_is_added_again_without_a_new_registration(box):
    (box.conf / "eth0.bpf").write_text("bandwidth 20mbit\n")
    assert run(["eth0"], box.env).returncode == 0
    (box.qdiscs / "eth0").unlink()  # the interface was deleted and created again
    box.forget()
    p = run(["eth0"], box.env)
    assert p.returncode == 0, p.stderr
    assert box.calls(box.loader_log) == ["check bandwidth 20mbit"]
    assert box.qdisc("eth0") == "msfc_bpf"


def test_bpf_changed_parameters_register_again(box):
    f = box.conf / "eth0.bpf"
    f.write_text("bandwidth 20mbit\n")
    assert run(["eth0"], box.env).returncode == 0
    f.write_text("bandwidth 50mbit isolate src\n")
    box.forget()
    p = run(["eth0"], box.env)
    assert p.returncode == 0, p.stderr
    # the qdisc goes before the kind it uses is unregistered
    assert box.calls(box.loader_log) == [
        "check bandwidth 50mbit isolate src",
        "unload",
        "load bandwidth 50mbit isolate src",
    ]
    assert box.calls(box.log)[-2:] == [
        "qdisc del dev eth0 root",
        "qdisc add dev eth0 root msfc_bpf",
    ]
    assert box.registered() == "bandwidth 50mbit isolate src" and box.qdisc("eth0") == "msfc_bpf"


def test_bpf_registration_made_by_hand_is_replaced_by_the_files(box):
    (box.bpffs / "msfc_bpf").mkdir()
    (box.bpffs / "msfc_bpf" / "link").write_text("prios 5\n")  # msfc-bpf load prios 5
    (box.conf / "eth0.bpf").write_text("prios 3\n")
    p = run(["eth0"], box.env)
    assert p.returncode == 0, p.stderr
    assert box.calls(box.loader_log) == ["check prios 3", "unload", "load prios 3"]
    assert box.registered() == "prios 3" and box.qdisc("eth0") == "msfc_bpf"


def test_bpf_another_loader_registers_again(box):
    (box.conf / "eth0.bpf").write_text("prios 3\n")
    assert run(["eth0"], box.env).returncode == 0
    box.loader.write_text(box.loader.read_text() + "# a newer build\n")
    box.forget()
    assert run(["eth0"], box.env).returncode == 0
    assert box.calls(box.loader_log) == ["check prios 3", "unload", "load prios 3"]


def test_bpf_bad_parameter_changes_nothing(box):
    f = box.conf / "eth0.bpf"
    f.write_text("prios 3\n")
    assert run(["eth0"], box.env).returncode == 0
    f.write_text("prios bad\n")
    box.forget()
    p = run(["eth0"], box.env)
    assert p.returncode == 1
    assert f"{f}: the loader refused it (eth0 is unchanged)" in p.stderr
    assert 'msfc-bpf: prios must be 1 .. 16, got "bad"' in p.stderr
    assert box.calls(box.loader_log) == ["check prios bad"] and box.calls(box.log) == []
    assert box.qdisc("eth0") == "msfc_bpf" and box.registered() == "prios 3"


def test_bpf_second_interface_is_refused(box):
    (box.conf / "eth0.bpf").write_text("prios 3\n")
    (box.conf / "eth1.bpf").write_text("prios 3\n")
    assert run(["eth0"], box.env).returncode == 0
    box.forget()
    p = run(["eth1"], box.env)
    assert p.returncode == 2
    assert "msfc_bpf is already the qdisc of eth0" in p.stderr
    assert "one instance per machine" in p.stderr and "eth1.tc" not in p.stderr
    assert box.calls(box.loader_log) == ["check prios 3"]
    assert box.qdisc("eth0") == "msfc_bpf" and box.qdisc("eth1") is None


@pytest.mark.parametrize(
    "release, config, message",
    [
        ("6.12.57+deb13-amd64", None, "needs Linux 6.16 or later"),
        ("6.1.0-56-amd64", None, "this kernel is 6.1.0-56-amd64"),
        ("5.10.0", None, "needs Linux 6.16 or later"),
        ("7.3.4+deb13-cloud-amd64", "# CONFIG_NET_SCH_BPF is not set\n", "has no BPF qdiscs"),
        ("6.16.1", "CONFIG_NET_SCH=y\n", "no CONFIG_NET_SCH_BPF"),
    ],
)
def test_bpf_kernel_without_bpf_qdiscs_is_named(box, release, config, message):
    (box.conf / "eth0.bpf").write_text("prios 3\n")
    if config is not None:
        box.kconfig.write_text(config)
    p = run(["eth0"], dict(box.env, MSFC_KERNEL_RELEASE=release))
    assert p.returncode == 2 and message in p.stderr, p.stderr
    assert "use the module sch_msfc" in p.stderr
    assert box.calls(box.loader_log) == ["check prios 3"] and box.calls(box.log) == []


def test_bpf_kernel_config_compressed_and_btf(box):
    import gzip

    (box.conf / "eth0.bpf").write_text("prios 3\n")
    gz = box.kconfig.with_suffix(".gz")
    gz.write_bytes(gzip.compress(b"# CONFIG_NET_SCH_BPF is not set\n"))
    p = run(["eth0"], dict(box.env, MSFC_KERNEL_CONFIG=str(gz)))
    assert p.returncode == 2 and "has no BPF qdiscs" in p.stderr, p.stderr
    gz.write_bytes(gzip.compress(b"CONFIG_NET_SCH_BPF=y\n"))
    box.btf.unlink()
    p = run(["eth0"], dict(box.env, MSFC_KERNEL_CONFIG=str(gz)))
    assert p.returncode == 2 and "has no BTF" in p.stderr, p.stderr
    assert box.qdisc("eth0") is None and box.registered() is None


def test_bpf_missing_or_broken_loader(box):
    (box.conf / "eth0.bpf").write_text("prios 3\n")
    p = run(["eth0"], dict(box.env, MSFC_BPF_LOADER=str(box.conf / "nowhere")))
    assert p.returncode == 2 and "is not installed" in p.stderr and "make install-bpf" in p.stderr
    # a loader whose library is missing exits 127 with the dynamic linker's message
    box.loader.write_text(
        "#!/bin/sh\necho 'msfc-bpf: error while loading shared libraries: libbpf.so.1' >&2\nexit 127\n"
    )
    p = run(["eth0"], box.env)
    assert p.returncode == 2 and "apt-get install libbpf1" in p.stderr and "libbpf.so.1" in p.stderr
    assert box.calls(box.log) == []


def test_bpf_kernel_refusing_the_program_leaves_nothing(box):
    (box.conf / "eth0.bpf").write_text("prios 3\n")
    p = run(["eth0"], dict(box.env, FAKE_LOAD_FAIL="Invalid argument"))
    assert p.returncode == 1
    assert "the loader refused it" in p.stderr and "the kernel refused the BPF qdisc" in p.stderr
    assert box.registered() is None and not (box.run_dir / "msfc_bpf").exists()


def test_bpf_tc_refusing_the_qdisc_undoes_the_registration(box):
    (box.conf / "eth0.bpf").write_text("prios 3\n")
    p = run(["eth0"], dict(box.env, FAKE_TC_ADD_FAIL="BPF qdisc only supported on root or mq"))
    assert p.returncode == 1
    assert "tc refused the qdisc msfc_bpf on eth0" in p.stderr and "root or mq" in p.stderr
    assert box.calls(box.loader_log) == ["check prios 3", "load prios 3", "unload"]
    assert box.registered() is None and not (box.run_dir / "msfc_bpf").exists()
    # and the next try starts from scratch
    box.forget()
    assert run(["eth0"], box.env).returncode == 0
    assert box.calls(box.loader_log) == ["check prios 3", "load prios 3"]


def test_bpf_and_tc_file_for_one_interface_is_refused(box):
    (box.conf / "eth0.bpf").write_text("prios 3\n")
    (box.conf / "eth0.tc").write_text("qdisc replace dev eth0 root msfc\n")
    for args in (["eth0"], ["--if-configured", "eth0"]):
        p = run(args, box.env)
        assert p.returncode == 2 and "both" in p.stderr and "eth0.bpf" in p.stderr
    assert box.calls(box.log) == [] and box.calls(box.loader_log) == []


def test_tc_file_replaces_the_bpf_qdisc(box):
    (box.conf / "eth0.bpf").write_text("prios 3\n")
    assert run(["eth0"], box.env).returncode == 0
    (box.conf / "eth0.bpf").unlink()
    (box.conf / "eth0.tc").write_text("qdisc replace dev eth0 root msfc\n")
    box.forget()
    assert run(["eth0"], box.env).returncode == 0
    assert box.calls(box.log) == ["qdisc del dev eth0 root", f"-batch {box.conf}/eth0.tc"]


def test_ifupdown_hook_applies_a_bpf_file(box):
    (box.conf / "eth0.bpf").write_text("bandwidth 20mbit\n")
    p = run([], dict(box.env, IFACE="eth0", MODE="start"), HOOK)
    assert p.returncode == 0, p.stderr
    assert box.qdisc("eth0") == "msfc_bpf" and box.registered() == "bandwidth 20mbit"


def test_systemd_unit_runs_the_installed_script_for_either_file():
    unit = UNIT.read_text()
    makefile = (ROOT / "kernel" / "Makefile").read_text()
    exec_start = re.search(r"^ExecStart=(\S+) %i$", unit, re.M)
    assert exec_start, unit
    # the path the unit runs is where install-boot puts msfc-apply
    assert re.search(
        r"boot/msfc-apply \$\(DESTDIR\)" + re.escape(exec_start.group(1)) + "$", makefile, re.M
    )
    conditions = re.findall(r"^ConditionPathExists=(.*)$", unit, re.M)
    # "|": either file starts it (without it, systemd would need both)
    assert sorted(conditions) == ["|/etc/msfc/%i.bpf", "|/etc/msfc/%i.tc"]


# ---------------------------------------------------------------------------------------------
# make install-bpf and make deb-bpf: the built loader and the boot files, nothing compiled


def _make(*args, cwd=ROOT):
    return subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_install_bpf_stages_the_built_loader_and_the_boot_files(tmp_path):
    build = tmp_path / "build"
    build.mkdir()
    # no loader built: refused with what to do, nothing compiled
    p = _make("install-bpf", f"DESTDIR={tmp_path / 'none'}", f"B={build}")
    assert p.returncode != 0 and "build it with make bpf" in p.stderr
    assert not (tmp_path / "none").exists()
    (build / "msfc-bpf").write_text("#!/bin/sh\necho the built loader\n")
    (build / "msfc-bpf").chmod(0o755)
    dest = tmp_path / "root"
    p = _make("install-bpf", f"DESTDIR={dest}", f"B={build}", "PREFIX=/usr")
    assert p.returncode == 0, p.stderr
    assert (dest / "usr/lib/msfc/msfc-bpf").read_text() == (build / "msfc-bpf").read_text()
    assert os.readlink(dest / "usr/sbin/msfc-bpf") == "/usr/lib/msfc/msfc-bpf"
    assert (dest / "usr/lib/msfc/msfc-apply").read_bytes() == APPLY.read_bytes()
    assert (dest / "etc/network/if-up.d/msfc").read_bytes() == HOOK.read_bytes()
    assert (dest / "usr/lib/systemd/system/msfc@.service").read_bytes() == UNIT.read_bytes()
    assert (dest / "etc/msfc").is_dir()
    for f in ("usr/lib/msfc/msfc-bpf", "usr/lib/msfc/msfc-apply", "etc/network/if-up.d/msfc"):
        assert os.access(dest / f, os.X_OK), f


@pytest.mark.skipif(not shutil.which("dpkg-deb"), reason="needs dpkg-deb")
def test_deb_bpf_packs_the_same_files(tmp_path):
    build = tmp_path / "build"
    build.mkdir()
    (build / "msfc-bpf").write_text("#!/bin/sh\n")
    (build / "msfc-bpf").chmod(0o755)
    dist = tmp_path / "dist"
    p = _make("deb-bpf", f"DIST={dist}", f"B={build}")
    assert p.returncode == 0, p.stderr
    version = (ROOT / "VERSION").read_text().strip()
    deb = dist / f"msfc-bpf_{version}_amd64.deb"
    field = subprocess.run(
        ["dpkg-deb", "-f", str(deb), "Package", "Version", "Depends"],
        capture_output=True,
        text=True,
    ).stdout
    assert f"Version: {version}" in field and "libbpf1" in field and "iproute2" in field
    listing = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True).stdout
    files = {line.split()[5] for line in listing.splitlines()}
    assert {
        "./usr/lib/msfc/msfc-bpf",
        "./usr/lib/msfc/msfc-apply",
        "./usr/sbin/msfc-bpf",
        "./etc/network/if-up.d/msfc",
        "./usr/lib/systemd/system/msfc@.service",
        "./etc/msfc/",
    } <= files
    assert "root/root" in listing and " -> /usr/lib/msfc/msfc-bpf" in listing
    ctl = tmp_path / "ctl"
    subprocess.run(["dpkg-deb", "-e", str(deb), str(ctl)], check=True)
    # the hook in /etc is the operator's to change: dpkg keeps their edits on upgrade
    assert (ctl / "conffiles").read_text() == "/etc/network/if-up.d/msfc\n"


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="needs systemd-analyze")
def test_systemd_parses_the_unit(tmp_path):
    unit = tmp_path / "msfc@.service"
    unit.write_bytes(UNIT.read_bytes())
    p = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(tmp_path / "msfc@eth0.service")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    said = p.stdout + p.stderr
    # systemd read the instance (it looks for the script, not installed here) ...
    assert "/usr/lib/msfc/msfc-apply" in said, said
    # ... and found nothing to say about the file's lines (unknown keys, bad values)
    assert not [line for line in said.splitlines() if line.startswith(f"{unit}:")], said
