# Echo Ridge.  `make run` and `make test` create .venv on first use.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint bench soak clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/echo-ridge serve

test: $(STAMP)
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy --strict server/echoridge/rules server/echoridge/store protocol/echoridge_protocol

bench: $(STAMP)
	$(PY) bench/rules_bench.py
	$(PY) bench/store_bench.py
	$(PY) bench/protocol_bench.py
	$(PY) bench/load_bench.py
	@# issue 13's anchors; the floor also runs on uvloop, installed here for the bench only
	$(PY) -m pip install --quiet uvloop || echo "# no uvloop: the floor runs on asyncio only"
	$(PY) bench/peer_bench.py $(PEER_ARGS)

soak: $(STAMP)
	$(PY) bench/soak.py $(SOAK_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
