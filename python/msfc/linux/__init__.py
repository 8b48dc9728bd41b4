"""The Linux side of the testbeds: real kernels, real TCP, Debian's traffic tools.

``machine``  boots the project's User-Mode Linux kernel in ``time-travel=inf-cpu`` mode on a
             Debian 13 root tree (kernel/build/uml-root) and runs one job script in it
``tests``    the tests (Flent's ``rrul`` with an irtt voice stream), their conversion into the
             project's raw records (docs/data-format.md) and the summary tables

``python -m msfc.linux rrul --rate 20 --qdisc cake-diffserv4`` runs one test
(docs/linux-testbed.md, "The deterministic UML testbed").
"""
