"""Tools of the MSFC kernel part: prepare a kernel tree, check the test boots, summarise the
benchmark.  Run them from kernel/ as modules, e.g. `python -m scripts.check_boot LOG RESULT`
(kernel/Makefile does)."""
