# Every target creates or reuses .venv and installs what it needs; CI calls `make test` verbatim.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DATA ?= $(wildcard ../shared/data)

.PHONY: demo test test-slow lint bench bench-speed bench-updates bench-locomo bench-load bench-vectors clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m memscribe.demo

test: $(STAMP)
	$(PY) -m pytest

# The adversarial runs that take minutes: the kill -9 soak, negative fuzzing, 1 MB ReDoS budgets.
test-slow: $(STAMP)
	$(PY) -m pytest -m soak tests/adversarial

lint: $(STAMP)
	$(VENV)/bin/ruff check memscribe tests
	$(VENV)/bin/mypy

bench-speed: $(STAMP)
	$(PY) -m memscribe bench speed

bench-vectors: $(STAMP)
	$(PY) -m pip install --quiet -e ".[bench]"
	$(PY) -m memscribe.bench.vectors --sizes 10000 100000

bench-updates: $(STAMP)
	$(PY) -m memscribe bench updates --writer raw,lite,pro

# LoCoMo is not shipped: pass DATA=path/to/locomo10.json (defaults to ../shared/data when present).
LOCOMO ?= $(firstword $(wildcard $(DATA)/locomo/locomo10.json $(DATA)/locomo10.json))
bench-locomo: $(STAMP)
	@test -n "$(LOCOMO)" || (echo "set LOCOMO=path/to/locomo10.json" && exit 2)
	$(PY) -m memscribe bench locomo --data $(LOCOMO)

# A bounded loopback load run against a spawned server: throughput, p50/p95/p99, lost writes.
bench-load: $(STAMP)
	$(PY) -m memscribe.bench.load --spawn --clients 8 --seconds 20

bench: bench-speed bench-updates

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
