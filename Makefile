# Every target creates or reuses .venv and installs what it needs; CI calls `make test` verbatim.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
BASE_STAMP := $(VENV)/.installed-base
# Files held to `ruff format`: the application layer and its tests. Widen it as other parts are formatted
# (one reformatting commit per part, so parallel work still merges).
FORMATTED := memscribe/settings.py memscribe/types.py memscribe/cli memscribe/client memscribe/mcp \
	memscribe/server/__init__.py memscribe/server/__main__.py memscribe/server/app.py memscribe/server/auth.py \
	memscribe/server/cli.py memscribe/server/errors.py memscribe/server/keys.py memscribe/server/logs.py \
	memscribe/server/metrics.py memscribe/server/models.py memscribe/server/settings.py \
	memscribe/server/tenants.py memscribe/server/routes memscribe/engine/reading.py memscribe/engine/writing.py \
	tests/_layering.py tests/test_mem0_client.py tests/test_mem0_quickstart.py tests/test_app_llm.py \
	tests/test_cli_app.py tests/test_types.py tests/test_add_reasons.py tests/test_sdk_mem0.py
DATA ?= $(wildcard ../shared/data)

.PHONY: demo test test-train lint bench bench-speed bench-updates bench-locomo bench-load bench-vectors clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP) $(BASE_STAMP)

# The demo needs the base install only: no server, no test tools.
$(BASE_STAMP): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e .
	touch $(BASE_STAMP)

demo: $(BASE_STAMP)
	$(PY) -m memscribe.demo

test: $(STAMP)
	$(PY) -m pytest

# The training stages' tests run in `make test` whenever the train extra is installed; this installs it first.
test-train: $(STAMP)
	$(PY) -m pip install --quiet -e ".[train]"
	nice -n 10 $(PY) -m pytest tests/test_train_env.py tests/test_train_export.py tests/test_train_stages.py

lint: $(STAMP)
	$(VENV)/bin/ruff check memscribe tests
	$(VENV)/bin/ruff format --check $(FORMATTED)
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
