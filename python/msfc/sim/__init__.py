"""Driving the simulator: from a requested configuration to a results directory.

``programs``       finds the built ns-3 programs and reads what they describe about themselves
                   (``scenario-X --describe``, ``msfc-describe``): options, presets, schedulers
``config``         ``--set KEY=VALUE`` and config files, checked against those descriptions;
                   the program's command line and the configuration hash
``runner``         runs one simulation into its own directory and reads results back (study
                   layout, raw files, tidy per-flow tables)
``sweep``          a grid of configurations times RNG runs, on this machine or a Dask cluster
``progress``       the progress display of runs and sweeps
``isp_cost``       ``msfc bench isp-cost``: simulation cost of the ISP tree per scheduler
``program_bench``  ``msfc bench qdisc-cost`` / ``dumbbell``: C++ programs that print their result
"""
