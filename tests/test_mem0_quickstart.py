"""mem0's README quickstart runs on ``from memscribe import Memory`` with one changed line.

The example (tests/fixtures/mem0_readme_quickstart.py) is mem0's code as published; the hash below is of
mem0's original snippet (README at mem0ai/mem0 8d5b786), so the fixture cannot drift from it by more than
the import line. The chat model is the real ``openai`` client (installed with mem0ai) pointed at the shipped
fake OpenAI-compatible server; memscribe's own model-free defaults do the memory.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memscribe.testing.fake_openai import FakeOpenAIServer

pytest.importorskip("openai")

FIXTURE = Path(__file__).parent / "fixtures" / "mem0_readme_quickstart.py"
MEM0_SNIPPET_SHA256 = "c0ec8c494bf8c26dde7b6920eb1fa944ab10916843db80a6f43ba5b9bdb6fb07"
DRIVER = """
import runpy, json
ns = runpy.run_path({path!r}, run_name="quickstart")
ns["chat_with_memories"]("I live in Lisbon and I work as a nurse.", user_id="alice")
answer = ns["chat_with_memories"]("Where do I live?", user_id="alice")
stored = ns["memory"].get_all(filters={{"user_id": "alice"}})["results"]
print(json.dumps({{"answer": answer, "stored": [m["memory"] for m in stored]}}))
"""


def test_the_fixture_is_mem0s_snippet_but_for_the_import_line() -> None:
    lines = [line for line in FIXTURE.read_text().splitlines(keepends=True) if not line.startswith("# ")]
    changed = [line for line in lines if "memscribe" in line]
    assert changed == ["from memscribe import Memory\n"]
    original = "".join(lines).replace("from memscribe import Memory\n", "from mem0 import Memory\n")
    assert hashlib.sha256(original.encode()).hexdigest() == MEM0_SNIPPET_SHA256


def test_mem0_quickstart_runs_on_memscribe(tmp_path: Path) -> None:
    def reply(body: dict[str, Any]) -> str:
        system = body["messages"][0]["content"]
        return "You live in Lisbon." if "Lisbon" in system else "Nice to meet you!"

    with FakeOpenAIServer(responder=reply) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMSCRIBE_", "OPENAI_"))}
        env.update(OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=server.base_url, MEMSCRIBE_HOME=str(tmp_path / "h"))
        done = subprocess.run(
            [sys.executable, "-c", DRIVER.format(path=str(FIXTURE))],
            env=env, capture_output=True, text=True, timeout=240, cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        import json

        out = json.loads(done.stdout.strip().splitlines()[-1])
        second = server.chat_requests[1]["messages"][0]["content"]
    assert "Lisbon" in second  # the memory written by the first turn was recalled by the second
    assert out["answer"] == "You live in Lisbon."
    assert any("Lisbon" in text for text in out["stored"])
    assert not any("User Memories" in text or "helpful AI" in text for text in out["stored"])
