# MSFC — set-up, build, tests and benchmarks.
#
#   make bench   set up everything, build, run the default benchmark comparison
#   make test    set up everything, build, run every test
#
# Both install what they need on a fresh machine (Debian packages, a .venv
# with the ns-3 wheel and the msfc Python package) and are idempotent.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BUILD := build
NS3_WHEEL := ns3==3.44.post0
JOBS ?= $(shell nproc)
RESULTS ?= results
APT_PACKAGES := cmake ninja-build g++ make

.PHONY: all setup deps build lint format test test-ns3 test-python test-kernel test-vm bpf test-bpf bench \
        bench-dumbbell bench-cost bench-isp-cost bench-kernel bench-linux bench-linux-vm bench-linux-cost bench-seeds bench-seed001 \
        bench-seed002 bench-seed003 bench-seed004 bench-msfc-shaper diff-test fuzz-long clean help \
        wheel dist install install-kernel install-boot install-python install-bpf deb-bpf

all: build

help:
	@echo "make bench   - set up, build and run the default benchmark comparison"
	@echo "make test    - set up, build and run every test (the parts below, in this order)"
	@echo "make lint    - formatters and linters in check mode (make format rewrites)"
	@echo "make test-ns3 / test-kernel / test-vm / test-bpf / test-python - one part of make test (ns-3 suites; UML kernel; Debian's stock kernels under qemu; the BPF qdisc in Debian 13's 7.3.4 kernel under qemu; pytest)"
	@echo "make bpf     - the BPF qdisc msfc_bpf and its loader bpf/build/msfc-bpf (Debian 13's clang and libbpf, docs/kernel.md)"
	@echo "make setup   - Debian packages and the .venv (ns-3 SDK, the msfc package)"
	@echo "make build   - set up and build the ns-3 module, programs and tests"
	@echo "make bench-dumbbell - the dumbbell example under MSFC, FQ-CoDel, CoDel and PfifoFast"
	@echo "make bench-cost - per-packet cost of MSFC against FQ-CoDel in ns-3"
	@echo "make bench-isp-cost - simulation cost of the ISP tree per scheduler"
	@echo "make bench-kernel - per-packet cost of msfc against fq_codel in the UML kernel"
	@echo "make bench-msfc-shaper - msfc's own shaper (bandwidth, overhead, atm) against its rate in the UML kernel"
	@echo "make bench-seeds - the seed experiments of seeds 001, 003 and 004 (tables and figures in SEEDS_OUT)"
	@echo "make bench-seed001 / bench-seed003 / bench-seed004 - one seed's experiments"
	@echo "make bench-seed002 - seed 002 (tbf/htb shaping accuracy, HTB vs MSFC guarantee) in the UML kernel"
	@echo "make bench-seed002-cbq CBQ_SRC=FILE - seed 002 with CBQ itself in a Linux 5.10 UML kernel (FILE: sch_cbq.c of 5.10.210 or older)"
	@echo "make bench-linux - Flent and iperf3 tests: msfc, cake, fq_codel at 2-100 Mbit/s on real stacks in time-travel UML (deterministic)"
	@echo "make bench-linux-vm - MSFC beside cake, sqm-style HTB, fq_codel, pfifo_fast in Debian's stock kernel (qemu)"
	@echo "make bench-linux-cost - per-packet cost of msfc, fq_codel, cake, pfifo in Debian's stock kernels"
	@echo "make diff-test N=5000 - differential test at scale: reference vs ns-3 vs kernel (docs/differential.md)"
	@echo "make fuzz-long - 50000 netlink fuzz operations with traffic in the debug UML kernel (docs/kernel.md)"
	@echo "make wheel   - the msfc Python wheel of the working tree in DIST (default dist/)"
	@echo "make dist    - release files of HEAD in DIST: msfc-$(VERSION).tar.gz (git archive) and the wheel"
	@echo "make install - DKMS tree, tc plugin, man page, boot files, the msfc command and, once built, the BPF"
	@echo "               qdisc's loader (DESTDIR, PREFIX=$(PREFIX)); parts: make install-kernel (DKMS, plugin,"
	@echo "               man page), make install-boot (msfc-apply, ifupdown hook, systemd unit),"
	@echo "               make install-python (msfc), make install-bpf (the built loader msfc-bpf, boot files)"
	@echo "make deb-bpf - the BPF qdisc for a Debian 13 router as DIST/msfc-bpf_$(VERSION)_amd64.deb (after make bpf)"
	@echo "make clean   - remove build outputs (keeps .venv)"
	@echo "make help    - this list"

# Debian packages: only installed when a tool is missing.
deps:
	@missing=""; \
	for t in cmake ninja g++ make; do command -v $$t >/dev/null || missing=1; done; \
	if [ -n "$$missing" ]; then \
	    echo "Installing Debian packages: $(APT_PACKAGES)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES); \
	fi

$(VENV)/.ns3-installed:
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q --no-deps $(NS3_WHEEL)
	@touch $@

# The build back end pyproject.toml names, in the venv: `make wheel` builds without build
# isolation, so it needs nothing from the network once the venv is set up.
$(VENV)/.build-tools:
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q 'setuptools>=77'
	@touch $@

$(VENV)/.python-installed: $(VENV)/.ns3-installed $(VENV)/.build-tools pyproject.toml VERSION
	$(VENV)/bin/pip install -q -e '.[test,lint]'
	@touch $@

setup: deps $(VENV)/.python-installed

build: setup
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	@echo "Built: $(BUILD)/ (programs: $(BUILD)/msfc-dumbbell, $(BUILD)/msfc-describe, $(BUILD)/scenario-*)"

# Formatters and linters: ruff for Python, clang-format (ns-3 style, .clang-format) for the ns-3
# C++ code (kernel/ and bpf/ follow the kernel's style: make -C kernel lint); `make format`
# rewrites the files, `make lint` only checks.
CXX_SOURCES = $(shell git ls-files '*.cc' '*.h' | grep -v -e '^kernel/' -e '^bpf/')
lint: setup
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	@$(VENV)/bin/clang-format --dry-run -Werror $(CXX_SOURCES) && echo "clang-format: $(words $(CXX_SOURCES)) files clean"
	@echo "lint: clean"

format: setup
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/clang-format -i $(CXX_SOURCES)

test-ns3: build
	scripts/run-ns3-tests.sh $(BUILD)/msfc-test-runner

# pytest collects every Python test: tests/ (pyproject: testpaths), with tests/scenarios/,
# tests/seeds/ and tests/reference/.
test-python: build
	MSFC_BUILD_DIR=$(CURDIR)/$(BUILD) $(VENV)/bin/python -m pytest -q

# The differential test at scale (docs/differential.md): N random Hypothesis examples and N
# runs of the state machine that changes the configuration (a failure is shrunk to a small trace) and N seeded generated traces through the reference and
# the ns-3 model, then DIFF_KERNEL (default N) traces of the generated set in the kernel's KUnit
# replay (the next `make test-kernel` rebuilds the test kernel with its usual 300).
N ?= 5000
DIFF_KERNEL ?= $(N)
diff-test: build
	MSFC_BUILD_DIR=$(CURDIR)/$(BUILD) MSFC_DIFF_EXAMPLES=$(N) MSFC_DIFF_RANDOM=1 \
	    $(VENV)/bin/python -m pytest -q -p no:cacheprovider tests/reference/test_differential.py -k "property or changes"
	$(VENV)/bin/python -m msfc.model.differential --count $(N) --build-dir $(BUILD)
	$(MAKE) -C kernel kunit-vectors DIFF_TRACES=$(DIFF_KERNEL)

test-kernel: setup
	$(MAKE) -C kernel test

# The netlink fuzzer at length (docs/kernel.md): FUZZ_OPS (50000) operations, FUZZ_SEED (1).
fuzz-long: setup
	$(MAKE) -C kernel fuzz-long

# Debian's stock kernels under qemu: DKMS, the tc plugin, a short traffic check (~2 min).
test-vm: setup
	$(MAKE) -C kernel vm-test VENV_PYTHON=$(CURDIR)/$(VENV)/bin/python

# MSFC as a BPF qdisc (bpf/, docs/kernel.md "BPF qdisc"): built in a Debian 13 root tree
# against the BTF of trixie-backports' 7.3.4 kernel; the test boots that kernel in qemu (~1 min).
bpf:
	$(MAKE) -C bpf

test-bpf: setup
	$(MAKE) -C bpf test VENV_PYTHON=$(CURDIR)/$(VENV)/bin/python

test: build
	@status=0; \
	$(MAKE) --no-print-directory lint || status=1; \
	$(MAKE) --no-print-directory test-ns3 || status=1; \
	$(MAKE) --no-print-directory test-kernel || status=1; \
	$(MAKE) --no-print-directory test-vm || status=1; \
	$(MAKE) --no-print-directory test-bpf || status=1; \
	$(MAKE) --no-print-directory test-python || status=1; \
	if [ $$status -ne 0 ]; then echo "make test: FAILED (see above)"; fi; \
	exit $$status

# The default benchmark comparison: the thesis's ISP tree (quick preset) under the four
# schedulers of the thesis, the thesis's published tables beside ours, and an HTML report.
BENCH_OUT := $(RESULTS)/isp-tree-quick
bench: build
	@mkdir -p $(RESULTS)
	set -o pipefail; $(VENV)/bin/msfc compare isp-tree --preset quick --schedulers PfifoFast,CoDel,FqCoDel,Msfc \
	    --thesis --jobs 2 --out $(BENCH_OUT) | tee $(BENCH_OUT).txt
	$(VENV)/bin/msfc report $(BENCH_OUT)
	@echo "Output: $(BENCH_OUT).txt (tables), $(BENCH_OUT)/ (raw records, Parquet), report: $(BENCH_OUT)/report/index.html"

bench-dumbbell: build
	$(VENV)/bin/msfc bench dumbbell $(RESULTS) -- --schedulers=Msfc,FqCoDel,CoDel,PfifoFast

bench-kernel:
	$(MAKE) -C kernel bench

# Flent's tests (rrul, rrul_cs8, tcp_nup) and the testbed's iperf3/irtt tests through msfc,
# cake, fq_codel and more at 2, 20, 100 and 100/20 Mbit/s on real Linux stacks in the
# project's UML kernel in time-travel mode (deterministic, docs/linux-testbed.md);
# $(RESULTS)/linux-testbed.  LINUX_ARGS passes options (python -m msfc.linux bench --help).
bench-linux: setup
	$(MAKE) -C kernel bench-linux VENV_PYTHON=$(CURDIR)/$(VENV)/bin/python \
	    BENCH_LINUX_OUT=$(abspath $(RESULTS))/linux-testbed LINUX_ARGS="$(LINUX_ARGS)"

# msfc beside cake, an sqm-style HTB, fq_codel and pfifo_fast in Debian's stock kernel under
# qemu with real traffic (docs/linux-testbed.md); one study per test in $(RESULTS)/linux-vm.
# VM_ARGS passes options (python -m msfc.linux.vm bench --help).
bench-linux-vm: setup
	$(MAKE) -C kernel bench-linux-vm VENV_PYTHON=$(CURDIR)/$(VENV)/bin/python \
	    BENCH_LINUX_VM_OUT=$(abspath $(RESULTS))/linux-vm VM_ARGS="$(VM_ARGS)"

# Per-packet CPU cost of msfc, fq_codel, cake and pfifo in Debian's stock kernels under qemu,
# timed inside the kernel by a probe module (docs/linux-testbed.md); $(RESULTS)/linux-cost.
bench-linux-cost: setup
	$(MAKE) -C kernel bench-linux-cost VENV_PYTHON=$(CURDIR)/$(VENV)/bin/python \
	    BENCH_LINUX_COST_OUT=$(abspath $(RESULTS))/linux-cost

# The seeds' experiments (docs/seeds.md), each started with `msfc bench NAME`: tables (CSV and
# Markdown) and figures in SEEDS_OUT, every simulation kept in SEEDS_OUT/runs/.
# `make bench-seeds SEEDS_OUT=docs/seeds` refreshes the tables committed in docs/seeds/.
SEEDS_OUT ?= $(RESULTS)/seeds
bench-seeds: bench-seed001 bench-seed003 bench-seed004

# Seed 001: thin-stream latency (~15 min) and starvation by thin UDP flows (~10 min).
bench-seed001: build
	$(VENV)/bin/msfc bench seed001-thin-streams $(SEEDS_OUT)
	$(VENV)/bin/msfc bench seed001-starvation $(SEEDS_OUT)

# Seed 003: WFQ with WRED or rate-based AQM vs MSFC, the seed's three scenarios.
bench-seed003: build
	$(VENV)/bin/msfc bench seed003 $(SEEDS_OUT)

# Seed 004: CUBIC vs BBR through a TBF bottleneck at 100 Mbit/s (~8 min).
bench-seed004: build
	$(VENV)/bin/msfc bench seed004-sfq-fairness $(SEEDS_OUT)

# Seed 002 with the real Linux qdiscs in the UML test kernel (two kernel builds, HZ=100 and
# HZ=1000, then about 40 minutes of boots): docs/seeds.md "Seed 002".
bench-seed002: setup
	$(MAKE) -C kernel bench-shaping SHAPING_OUT=$(abspath $(SEEDS_OUT))/seed002 \
	    VENV_PYTHON=$(CURDIR)/$(VENV)/bin/python

# msfc's own shaper against the rate it is given, with CoDel off and with the overhead and ATM
# compensations (docs/kernel.md): one boot of the UML kernel in time travel with the rate
# experiment of kernel/test/msfc_shaper.json; its rows in $(RESULTS)/msfc-shaper/rate.csv.
MSFC_SHAPER_OUT = $(abspath $(RESULTS))/msfc-shaper
bench-msfc-shaper: setup
	$(MAKE) -C kernel kernel tc VENV_PYTHON=$(CURDIR)/$(VENV)/bin/python
	mkdir -p $(MSFC_SHAPER_OUT)
	cd kernel && $(CURDIR)/$(VENV)/bin/python -m scripts.shaping_boot --linux build/uml/linux \
	    --hz 100 --highres on --time-travel inf-cpu --spec test/msfc_shaper.json \
	    --out $(MSFC_SHAPER_OUT)/result.json --log $(MSFC_SHAPER_OUT)/boot.log
	$(VENV)/bin/python -m msfc.seeds.shaping rate-rows $(MSFC_SHAPER_OUT)/rate.csv \
	    $(MSFC_SHAPER_OUT)/result.json

# Per-packet cost of MSFC against FQ-CoDel (benchmarks/msfc-qdisc-cost.cc; progress on stderr).
bench-cost: build
	$(VENV)/bin/msfc bench qdisc-cost $(RESULTS)

# Simulation cost of the ISP tree per scheduler (wall, CPU, events; MSFC against FQ-CoDel).
bench-isp-cost: build
	$(VENV)/bin/msfc bench isp-cost $(RESULTS)/isp-cost --preset quick --rounds 2

# ---------------------------------------------------------------------------------------------
# Release and installation.  VERSION is the one version string: pyproject.toml, CMake and the
# DKMS tree read it; tests/test_release.py checks CITATION.cff and CHANGELOG.md against it.
VERSION := $(shell cat VERSION)
DIST ?= dist
WHEEL = $(DIST)/msfc-$(VERSION)-py3-none-any.whl
TARBALL = $(DIST)/msfc-$(VERSION).tar.gz
PREFIX ?= /usr/local
# the msfc command's own Python environment (Debian's Python is externally managed)
MSFC_HOME = $(PREFIX)/lib/msfc
PIP_INSTALL_ARGS ?=
# what the wheel is built from; setup.py copies the UAPI header and the trace keys into the package
WHEEL_SOURCES := pyproject.toml setup.py MANIFEST.in VERSION LICENSE docs/cli.md python \
                 kernel/include/uapi/linux/pkt_sched_msfc.h tools/lib/msfc-trace-keys.def
# $(call build-wheel,SOURCE-TREE): the wheel of a copy of SOURCE-TREE's WHEEL_SOURCES into DIST
define build-wheel
	@mkdir -p $(DIST)
	@set -o pipefail; tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	tar -C $(1) -c --exclude=__pycache__ --exclude='*.egg-info' $(WHEEL_SOURCES) | tar -x -C "$$tmp" && \
	$(VENV)/bin/pip wheel -q --no-deps --no-build-isolation --no-index -w $(DIST) "$$tmp"
	@test -f $(WHEEL) || { echo "no $(WHEEL): $(1) holds another VERSION" >&2; exit 1; }
	@echo "Wheel: $(WHEEL)"
endef

# The wheel of the working tree (the msfc package with its parameter header).
wheel: $(VENV)/.build-tools
	$(call build-wheel,.)

# The release files of HEAD: the source tarball (git archive) and the wheel built from it.
dist: $(VENV)/.build-tools
	@mkdir -p $(DIST)
	git archive --format=tar.gz --prefix=msfc-$(VERSION)/ -o $(TARBALL) HEAD
	@if [ -n "$$(git status --porcelain --untracked-files=no)" ]; then \
	    echo "dist: the working tree has uncommitted changes; $(TARBALL) and the wheel hold HEAD"; fi
	@rm -rf $(DIST)/.src && mkdir -p $(DIST)/.src && tar -C $(DIST)/.src -xzf $(TARBALL)
	$(call build-wheel,$(DIST)/.src/msfc-$(VERSION))
	@rm -rf $(DIST)/.src
	@echo "Source: $(TARBALL)"

# Everything an operator installs: the DKMS source tree (/usr/src/msfc-VERSION; with no
# DESTDIR, dkms add/build/install), the tc plugin q_msfc.so (where Debian's tc loads plugins),
# the man page tc-msfc.8 (PREFIX/share/man/man8), the boot files (/usr/lib/msfc/msfc-apply,
# its ifupdown hook and systemd unit, /etc/msfc), the msfc command (PREFIX/bin/msfc, the
# wheel in its own environment MSFC_HOME; PIP_INSTALL_ARGS="--no-deps --no-index" for none of
# its dependencies from PyPI) and, when `make bpf` has built it, the BPF qdisc's loader.
# DESTDIR stages the files under another root.
INSTALL_DESTDIR = $(if $(DESTDIR),$(abspath $(DESTDIR)))
install: install-kernel install-boot install-python $(if $(wildcard bpf/build/msfc-bpf),install-bpf)

install-kernel:
	$(MAKE) -C kernel install-dkms install-tc-plugin install-man \
	    DESTDIR=$(INSTALL_DESTDIR) PREFIX=$(PREFIX) $(if $(TC_LIB_DIR),TC_LIB_DIR=$(TC_LIB_DIR))

install-boot:
	$(MAKE) -C kernel install-boot DESTDIR=$(INSTALL_DESTDIR)

# The BPF qdisc on a router, from what `make bpf` built elsewhere (docs/kernel.md, "BPF qdisc"):
# the loader with the BPF object inside (/usr/lib/msfc/msfc-bpf, PREFIX/sbin/msfc-bpf) and
# the boot files; nothing is compiled.  deb-bpf packs the same files as a Debian package.
install-bpf:
	$(MAKE) -C bpf install DESTDIR=$(INSTALL_DESTDIR) PREFIX=$(PREFIX)

deb-bpf:
	$(MAKE) -C bpf deb DIST=$(abspath $(DIST))

install-python: wheel
	rm -rf $(INSTALL_DESTDIR)$(MSFC_HOME)
	$(PYTHON) -m venv $(INSTALL_DESTDIR)$(MSFC_HOME)
	$(INSTALL_DESTDIR)$(MSFC_HOME)/bin/python -m pip install -q --disable-pip-version-check \
	    $(PIP_INSTALL_ARGS) $(WHEEL)
	@if [ -n "$(INSTALL_DESTDIR)" ]; then \
	    grep -rlI --null "$(INSTALL_DESTDIR)$(MSFC_HOME)" $(INSTALL_DESTDIR)$(MSFC_HOME)/bin \
	        $(INSTALL_DESTDIR)$(MSFC_HOME)/pyvenv.cfg | \
	        xargs -0 -r sed -i "s|$(INSTALL_DESTDIR)$(MSFC_HOME)|$(MSFC_HOME)|g"; fi
	mkdir -p $(INSTALL_DESTDIR)$(PREFIX)/bin
	ln -sfn $(MSFC_HOME)/bin/msfc $(INSTALL_DESTDIR)$(PREFIX)/bin/msfc
	@echo "install: $(INSTALL_DESTDIR)$(PREFIX)/bin/msfc (msfc $(VERSION) in $(INSTALL_DESTDIR)$(MSFC_HOME))"

clean:
	rm -rf $(BUILD)

# ---------------------------------------------------------------------------------------------
# Seed 002 with CBQ (docs/seeds.md, "Seed 002 with the real CBQ"): CBQ beside HTB and tbf in a
# UML kernel from Debian 11's linux-source-5.10 (kernel/Makefile: kernel-5.10, ~2 min to build,
# then about 15 minutes of boots); tables in SEEDS_OUT/seed002-cbq/tables.md.  CBQ left Linux
# in 5.10.211 and no 5.10 source Debian serves has it: CBQ_SRC names net/sched/sch_cbq.c of
# Linux 5.10.210 or earlier.  `make bench-seed002 CBQ_SRC=...` runs this after the 6.12 part.
.PHONY: bench-seed002-cbq
bench-seed002-cbq: setup
	$(MAKE) -C kernel bench-shaping-5.10 SHAPING_510_OUT=$(abspath $(SEEDS_OUT))/seed002-cbq \
	    VENV_PYTHON=$(CURDIR)/$(VENV)/bin/python $(if $(CBQ_SRC),CBQ_SRC=$(abspath $(CBQ_SRC)))
ifdef CBQ_SRC
bench-seed002: bench-seed002-cbq
endif
