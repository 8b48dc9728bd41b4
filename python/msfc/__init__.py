"""MSFC command line: run, compare, sweep and report ns-3 scheduler simulations."""
__version__ = "0.1.0"
