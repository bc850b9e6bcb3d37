# Every target creates or reuses .venv and installs what it needs; CI calls `make test` verbatim.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DATA ?= $(wildcard ../shared/data)

.PHONY: demo test lint typecheck bench bench-speed bench-vectors clean

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

lint: $(STAMP)
	$(VENV)/bin/ruff check memscribe tests
	$(VENV)/bin/mypy

bench-speed: $(STAMP)
	$(PY) -m memscribe bench speed

bench-vectors: $(STAMP)
	$(PY) -m pip install --quiet -e ".[bench]"
	$(PY) -m memscribe.bench.vectors --sizes 10000 100000

bench: bench-speed

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
