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

.PHONY: all setup deps build lint format test test-ns3 test-python test-kernel bench bench-dumbbell \
        bench-cost bench-isp-cost bench-kernel bench-seed002 bench-seed003 clean help

all: build

help:
	@echo "make bench   - set up, build and run the default benchmark comparison"
	@echo "make test    - set up, build and run every test"
	@echo "make build   - set up and build the ns-3 module, programs and tests"
	@echo "make lint    - formatters and linters in check mode (make format rewrites)"
	@echo "make bench-seed003 - seed 003's WFQ+WRED / WFQ+RB / MSFC experiments"
	@echo "make bench-seed002 - seed 002 (tbf/htb shaping accuracy, HTB vs MSFC guarantee) in the UML kernel"
	@echo "make clean   - remove build outputs (keeps .venv)"

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

$(VENV)/.python-installed: $(VENV)/.ns3-installed pyproject.toml VERSION
	$(VENV)/bin/pip install -q -e '.[test,lint]'
	@touch $@

setup: deps $(VENV)/.python-installed

build: setup
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	@echo "Built: $(BUILD)/ (programs: $(BUILD)/msfc-dumbbell, $(BUILD)/msfc-describe, $(BUILD)/scenario-*)"

# Formatters and linters: ruff for Python, clang-format (ns-3 style, .clang-format) for the ns-3
# C++ code; `make format` rewrites the files, `make lint` only checks.
CXX_SOURCES = $(shell git ls-files '*.cc' '*.h' | grep -v '^kernel/')
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

# pytest collects tests/ (the msfc package) and the scenario tests (pyproject: testpaths).
test-python: build
	MSFC_BUILD_DIR=$(CURDIR)/$(BUILD) $(VENV)/bin/python -m pytest -q

test-kernel:
	$(MAKE) -C kernel test

test: build
	@status=0; \
	$(MAKE) --no-print-directory lint || status=1; \
	$(MAKE) --no-print-directory test-ns3 || status=1; \
	$(MAKE) --no-print-directory test-kernel || status=1; \
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
	@mkdir -p $(RESULTS)
	set -o pipefail; $(BUILD)/msfc-dumbbell --schedulers=Msfc,FqCoDel,CoDel,PfifoFast | tee $(RESULTS)/dumbbell.txt
	@echo "Output: $(RESULTS)/dumbbell.txt"

bench-kernel:
	$(MAKE) -C kernel bench

# Seed 003: WFQ with WRED or rate-based AQM vs MSFC, the seed's three scenarios
# (docs/seeds.md); figures and tables in $(RESULTS)/seeds/seed003_*.
bench-seed003: build
	@mkdir -p $(RESULTS)/seeds
	$(VENV)/bin/python benchmarks/seeds/seed003.py $(RESULTS)/seeds

# Seed 002 with the real Linux qdiscs in the UML test kernel (two kernel builds, HZ=100 and
# HZ=1000, then about 40 minutes of boots): docs/seeds.md "Seed 002".
bench-seed002: setup
	$(MAKE) -C kernel bench-shaping SHAPING_OUT=$(CURDIR)/$(RESULTS)/seeds/seed002 \
	    VENV_PYTHON=$(CURDIR)/$(VENV)/bin/python

bench-cost: build
	@mkdir -p $(RESULTS)
	set -o pipefail; $(BUILD)/msfc-qdisc-cost | tee $(RESULTS)/qdisc-cost.csv
	@echo "Output: $(RESULTS)/qdisc-cost.csv"

# Simulation cost of the ISP tree per scheduler (wall, CPU, events; MSFC against FQ-CoDel).
bench-isp-cost: build
	$(VENV)/bin/python benchmarks/isp_cost.py $(RESULTS)/isp-cost --preset quick --rounds 2

clean:
	rm -rf $(BUILD)
