# Echo Ridge.  `make run` and `make test` create .venv on first use.
PYTHON ?= python3
BENCH_LARGE ?= 1000
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint bench soak clean

# The protocol, the rules and the SDK are distributions of their own (not on PyPI): installed
# from here, editable, in the same pip run as the server, which requires them.
PACKAGES := protocol/pyproject.toml engine/pyproject.toml clients/python/pyproject.toml

$(STAMP): pyproject.toml $(PACKAGES)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e protocol -e engine -e clients/python -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/echo-ridge serve

# One pytest process per core (at most 4), whole test files to each (module fixtures start
# servers once); a plain `pytest` runs everything in one process.
test: $(STAMP)
	$(PY) -m pytest -n auto --maxprocesses 4 --dist loadfile

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy --strict engine/echoridge_rules server/echoridge/store protocol/echoridge_protocol

# The benches' reports are kept in $(BENCH_OUT); bench/targets.py reads them (issue 13's targets).
BENCH_OUT ?= .bench
bench: SHELL := /bin/bash
bench: .SHELLFLAGS := -o pipefail -c
bench: $(STAMP)
	mkdir -p $(BENCH_OUT)
	$(PY) bench/rules_bench.py
	$(PY) bench/store_bench.py
	$(PY) bench/protocol_bench.py
	$(PY) bench/lobby_bench.py | tee $(BENCH_OUT)/lobby.txt
	$(PY) bench/load_bench.py | tee $(BENCH_OUT)/load.txt
	-$(PY) bench/load_bench.py --tables $(BENCH_LARGE) --ramp 30 | tee $(BENCH_OUT)/load1000.txt
	-$(PY) bench/fanout_bench.py | tee $(BENCH_OUT)/fanout.txt
	-$(PY) bench/peer_bench.py $(PEER_ARGS) | tee $(BENCH_OUT)/peer.txt
	$(PY) bench/projection_bench.py | tee $(BENCH_OUT)/projection.txt
	$(PY) bench/archive_bench.py | tee $(BENCH_OUT)/archive.txt
	-$(PY) bench/compare.py $(COMPARE_ARGS) | tee $(BENCH_OUT)/compare.txt
	-$(PY) bench/cluster_bench.py | tee $(BENCH_OUT)/cluster.txt
	-$(PY) bench/workers_bench.py | tee $(BENCH_OUT)/workers.txt
	$(PY) bench/targets.py $(BENCH_OUT)

soak: $(STAMP)
	$(PY) bench/soak.py $(SOAK_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
