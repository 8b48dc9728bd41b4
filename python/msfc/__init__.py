"""MSFC command line: run, compare, sweep and report ns-3 scheduler simulations."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("msfc")  # the top-level VERSION file, through pyproject.toml
except PackageNotFoundError:  # pragma: no cover - running from a tree that was never installed
    __version__ = "unknown"
