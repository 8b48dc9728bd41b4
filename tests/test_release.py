"""What a release carries: one version (the file VERSION) everywhere, a wheel that works outside
the checkout with the parameter header it ships, `make install` putting every part in place,
and a `make help` that lists every target the README and the docs tell users to run."""

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import msfc
import pytest
from conftest import REPO
from msfc.errors import UserError
from msfc.model import params as P
from msfc.model import traceformat as TF

VERSION = (REPO / "VERSION").read_text().strip()
PLUGIN_SOURCE = REPO / "kernel" / "build" / "iproute2-src" / "iproute2-6.1.0" / ".unpacked"


def _env() -> dict[str, str]:
    """The environment of a child make or msfc: none of the outer make's or pytest's settings."""
    drop = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MSFC_BUILD_DIR", "PYTHONPATH", "VIRTUAL_ENV")
    return {k: v for k, v in os.environ.items() if k not in drop}


def _make(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        ["make", "--no-print-directory", "-C", str(REPO), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_env(),
    )
    assert proc.returncode == 0, f"make {' '.join(args)}:\n{proc.stdout[-3000:]}{proc.stderr}"
    return proc


# --- one version -----------------------------------------------------------------------------


def test_version_is_a_release_number():
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION), VERSION


def test_the_installed_package_reports_the_version():
    assert msfc.__version__ == VERSION, "the venv's msfc metadata is stale: run `make setup`"


def test_citation_and_changelog_name_the_version():
    cff = (REPO / "CITATION.cff").read_text()
    assert re.search(r"^cff-version: 1\.2\.0$", cff, re.M)
    assert re.search(rf'^version: "?{re.escape(VERSION)}"?$', cff, re.M), "CITATION.cff version"
    released = re.search(r'^date-released: "?(\d{4}-\d\d-\d\d)"?$', cff, re.M)
    assert released, "CITATION.cff has no date-released"
    log = (REPO / "CHANGELOG.md").read_text()
    first = re.search(r"^## \[(\d[^\]]*)\] - (\d{4}-\d\d-\d\d)$", log, re.M)
    assert first, "CHANGELOG.md has no release heading '## [X.Y.Z] - YYYY-MM-DD'"
    assert first.groups() == (VERSION, released.group(1)), "CHANGELOG.md's newest release"


def test_everything_else_reads_the_version_file():
    assert re.search(r"^dynamic = \[\"version\"\]", (REPO / "pyproject.toml").read_text(), re.M)
    assert 'version = {file = "VERSION"}' in (REPO / "pyproject.toml").read_text()
    assert (
        'file(STRINGS "${CMAKE_CURRENT_SOURCE_DIR}/VERSION"'
        in (REPO / "CMakeLists.txt").read_text()
    )
    # the DKMS configuration gets its version when `make -C kernel dkms-src` stages it
    assert 'PACKAGE_VERSION="@PACKAGE_VERSION@"' in (REPO / "kernel" / "dkms.conf").read_text()
    assert (
        "VERSION      := $(shell cat $(KDIR_SELF)/../VERSION)"
        in (REPO / "kernel" / "Makefile").read_text()
    )


# --- the wheel outside the checkout ------------------------------------------------------------


def test_a_missing_header_is_named_in_both_places(monkeypatch):
    monkeypatch.setattr(P, "HEADER", P.CHECKOUT_HEADER.with_name("missing.h"))
    P.definitions.cache_clear()
    try:
        with pytest.raises(UserError) as e:
            P.definitions()
    finally:
        P.definitions.cache_clear()
    assert str(P.PACKAGED_HEADER) in str(e.value) and str(P.CHECKOUT_HEADER) in str(e.value)


def test_the_checkout_reads_its_own_header():
    assert P.HEADER == P.CHECKOUT_HEADER, "a header copy in python/msfc/data/ hides kernel/include"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    _make("wheel", f"DIST={dist}")
    (whl,) = dist.glob("msfc-*.whl")
    assert whl.name == f"msfc-{VERSION}-py3-none-any.whl"
    return whl


def test_the_wheel_works_outside_the_checkout(wheel, tmp_path):
    """A fresh venv with the wheel (its dependencies are lent by the project's venv, so nothing
    is downloaded) runs msfc from a directory outside the checkout."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q"]
        + ["--no-deps", "--no-index", "--disable-pip-version-check", str(wheel)],
        check=True,
        env=_env(),
    )
    (site,) = (venv / "lib").glob("python3*/site-packages")
    (site / "msfc-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = tmp_path / "elsewhere"
    work.mkdir()

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(argv, cwd=work, capture_output=True, text=True, env=_env())

    msfc_cmd = str(venv / "bin" / "msfc")
    version = run(msfc_cmd, "--version")
    assert version.returncode == 0 and version.stdout.strip() == f"msfc {VERSION}", version
    where = run(str(venv / "bin" / "python"), "-c", "import msfc; print(msfc.__file__)")
    assert Path(where.stdout.strip()).is_relative_to(venv), where
    assert run(msfc_cmd, "--help").returncode == 0

    listing = run(str(venv / "bin" / "python"), "-m", "msfc.model.params")
    assert listing.returncode == 0, listing.stderr
    first, *rest = listing.stdout.splitlines()
    packaged = site / "msfc" / "data" / "pkt_sched_msfc.h"
    assert first == f"from {packaged}"
    assert packaged.read_text() == P.CHECKOUT_HEADER.read_text()
    here = subprocess.run(
        [sys.executable, "-m", "msfc.model.params"], capture_output=True, text=True, check=True
    )
    assert rest == here.stdout.splitlines()[1:]

    # the reference model reads the trace format's keys from the wheel's copy
    keys = site / "msfc" / "data" / "msfc-trace-keys.def"
    assert keys.read_text() == TF.CHECKOUT_DEF.read_text()
    (work / "t.trace").write_text("P version=2 prios=2 flows=2\nE 1 0 100\nE 0 1 200\nD\nD\nD\n")
    replayed = run(str(venv / "bin" / "python"), "-m", "msfc.model.reference", "t.trace")
    assert replayed.returncode == 0 and replayed.stdout == "1 0 100\n0 1 200\n-\n", replayed
    where = run(
        str(venv / "bin" / "python"), "-c", "from msfc.model import traceformat as t; print(t.DEF)"
    )
    assert where.stdout.strip() == str(keys), where

    # what needs the ns-3 programs says where they come from
    missing = run(msfc_cmd, "run", "isp-tree", "--preset", "tiny")
    assert missing.returncode == 2 and "source tree" in missing.stderr, missing.stderr
    assert "Traceback" not in missing.stderr


# --- make install -------------------------------------------------------------------------------


def test_make_install_puts_the_parts_in_place(tmp_path):
    dest = tmp_path / "root"
    args = [f"DESTDIR={dest}", f"DIST={tmp_path / 'dist'}", "PIP_INSTALL_ARGS=--no-deps --no-index"]
    plugin = PLUGIN_SOURCE.exists() and shutil.which("tc") and shutil.which("gcc")
    if plugin:
        out = _make("install", *args).stdout
    else:  # no iproute2 source here: everything but the tc plugin
        out = _make("install-python", *args).stdout
        out += _make("-C", "kernel", "install-dkms", "install-man", f"DESTDIR={dest}").stdout
    assert f"on the target: dkms install msfc/{VERSION}" in out

    dkms = dest / "usr" / "src" / f"msfc-{VERSION}"
    assert f'PACKAGE_VERSION="{VERSION}"' in (dkms / "dkms.conf").read_text()
    for f in ("net/sched/sch_msfc.c", "net/sched/Kbuild", "include/uapi/linux/pkt_sched_msfc.h"):
        assert (dkms / f).is_file(), f
    man = dest / "usr" / "local" / "share" / "man" / "man8" / "tc-msfc.8"
    assert man.read_text() == (REPO / "kernel" / "iproute2" / "tc-msfc.8").read_text()
    if plugin:
        (so,) = (dest / "usr" / "lib").glob("*/tc/q_msfc.so")
        assert so.read_bytes()[:4] == b"\x7fELF"

    cmd = dest / "usr" / "local" / "bin" / "msfc"
    assert os.readlink(cmd) == "/usr/local/lib/msfc/bin/msfc"
    home = dest / "usr" / "local" / "lib" / "msfc"
    assert (home / "bin" / "msfc").read_text().splitlines()[0] == "#!/usr/local/lib/msfc/bin/python"
    staged = subprocess.run(
        [str(home / "bin" / "python"), "-c", "import msfc.model.params as P; print(P.HEADER)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert staged.returncode == 0, staged.stderr
    assert Path(staged.stdout.strip()).is_relative_to(home)


# --- make help ----------------------------------------------------------------------------------

_MAKE_CMD = re.compile(r"(?<![\w-])make((?:\s+[\w.-]+(?:=\S*)?)+)")


def documented_targets() -> dict[str, str]:
    """target -> "file:line" of each `make TARGET` the README and docs/ tell users to run: the
    words after `make` while they are the top-level Makefile's targets or VAR=value (so neither
    `make -C kernel ...`, whose targets are kernel/Makefile's, nor prose such as "make sure")."""
    targets = set(re.findall(r"^([a-z][\w-]*):", (REPO / "Makefile").read_text(), re.M))
    found = {}
    for doc in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for n, line in enumerate(doc.read_text().splitlines(), 1):
            for m in _MAKE_CMD.finditer(line.replace("`", " ")):
                for word in m.group(1).split():
                    if "=" in word:
                        continue
                    if word not in targets:
                        break
                    found.setdefault(word, f"{doc.name}:{n}")
    return found


def test_make_help_lists_every_documented_target():
    listed = set(re.findall(r"(?<![\w-])([a-z][\w-]*)", _make("help").stdout))
    missing = {t: where for t, where in documented_targets().items() if t not in listed}
    assert not missing, f"make help does not list: {missing}"
