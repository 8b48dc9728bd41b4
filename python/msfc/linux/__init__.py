"""The Linux testbeds: real kernels, real TCP, Debian's traffic tools.

Two testbeds share the conversion of the guests' reports into the project's raw records
(docs/data-format.md):

``qemu``      boots Debian's stock kernel under qemu (KVM or software emulation) with a job
              from kernel/vm/guest/ and returns the guest's /out
``selftest``  the stock-kernel checks of ``make test`` on that guest's output
``records``   the qemu benchmark's qdiscs and tests; iperf3 and irtt reports as raw records
              (flows.csv, histograms, RTT samples, meta.json), shared by both testbeds
``tables``    the qemu benchmark's Markdown tables and plots, and the hosts test's summary
``cost``      the per-packet CPU cost of each qdisc in the stock kernel, timed by a probe
``vm``        the qemu testbed's drivers and command line (``python -m msfc.linux.vm``)
``uml``       boots the project's User-Mode Linux kernel in ``time-travel=inf-cpu`` mode on
              a Debian 13 root tree (kernel/build/uml-root) and runs one job script in it
``flent``     the UML testbed's tests (Flent's ``rrul`` with an irtt voice stream), their
              conversion into raw records and the summary tables

``python -m msfc.linux rrul --rate 20 --qdisc cake-diffserv4`` runs one UML test
(docs/linux-testbed.md, "The deterministic UML testbed"); ``python -m msfc.linux.vm bench ...``
the qemu benchmark (docs/linux-testbed.md).
"""
