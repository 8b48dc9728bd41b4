import os
import shutil
import stat
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
REPO = HERE.parent


def _link(src: Path, dst: Path) -> None:
    shutil.copy(src, dst)
    dst.chmod(dst.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


@pytest.fixture(scope="session")
def fake_build(tmp_path_factory):
    """A build directory with the fake scenario (as scenario-fake) and a fake msfc-describe."""
    b = tmp_path_factory.mktemp("fakebuild") / "build"
    b.mkdir()
    _link(FIXTURES / "fake-scenario", b / "scenario-fake")
    _link(FIXTURES / "fake-msfc-describe", b / "msfc-describe")
    return b


@pytest.fixture(scope="session")
def fake_isp_build(tmp_path_factory):
    """The fake scenario as scenario-isp-tree: the thesis's scenario, with its presets."""
    b = tmp_path_factory.mktemp("fakebuild") / "build-isp"
    b.mkdir()
    _link(FIXTURES / "fake-scenario", b / "scenario-isp-tree")
    _link(FIXTURES / "fake-scenario", b / "scenario-fake")
    _link(FIXTURES / "fake-msfc-describe", b / "msfc-describe")
    return b


@pytest.fixture(scope="session")
def fake_build_no_describe(tmp_path_factory):
    b = tmp_path_factory.mktemp("fakebuild") / "build-nodesc"
    b.mkdir()
    _link(FIXTURES / "fake-scenario", b / "scenario-fake")
    return b


@pytest.fixture(autouse=True)
def _isolate(monkeypatch, tmp_path):
    monkeypatch.delenv("MSFC_BUILD_DIR", raising=False)
    monkeypatch.chdir(tmp_path)


def real_build_dir(what: str = "scenario-*") -> Path | None:
    """The project's build directory ($MSFC_BUILD_DIR, else build/) when it holds ``what``."""
    cands = [os.environ.get("MSFC_BUILD_DIR"), str(REPO / "build")]
    for c in cands:
        if c and list(Path(c).glob(what)):
            return Path(c)
    return None
