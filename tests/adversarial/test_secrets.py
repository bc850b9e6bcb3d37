"""The secrets corpus: every shape is redacted from every field of an add and of an import, and no byte of
any secret reaches a file the engine owns or an output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memscribe import Memory
from memscribe.core.redact import redact

from .corpus import PROSE, SECRETS
from .scan import engine_files, found

# PINs and CVVs ("4821", "913") occur by chance in any binary file: their redaction is checked above, the byte
# scans look for every secret of eight characters or more.
SCANNED = [secret for _, _, secret in SECRETS if len(secret) >= 8]


def test_the_corpus_is_large_and_distinct() -> None:
    assert len(SECRETS) >= 100
    assert len({shape for shape, _, _ in SECRETS}) == len(SECRETS)


@pytest.mark.parametrize(("shape", "text", "secret"), SECRETS, ids=[s for s, _, _ in SECRETS])
def test_each_shape_is_redacted(shape: str, text: str, secret: str) -> None:
    cleaned, count = redact(text)
    assert secret not in cleaned and count >= 1


@pytest.mark.parametrize("text", PROSE)
def test_prose_is_left_alone(text: str) -> None:
    assert redact(text) == (text, 0)


def _add_everywhere(m: Memory, i: int, text: str) -> None:
    m.add(
        [
            {"role": "user", "content": f"note {i}: {text}", "name": text[:200]},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": f"call-{i}", "name": "save", "arguments": {"value": text, text[:100]: [text]}},
            ]},
        ],
        user_id="u",
        session_id=f"s-{text[:200]}",
        metadata={"m": text, text[:100]: {"nested": text}},
        idempotency_key=f"k-{i}-{text[:200]}",
    )  # fmt: skip


def test_no_secret_reaches_any_file_or_output(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory(home / "store.db", writer="raw", embedder="hash") as m:
        for i, (_, text, _) in enumerate(SECRETS):
            _add_everywhere(m, i, text)
        exported = m.export("u") or []
        outputs = [json.dumps(m.why(r["id"])) for r in m.list(user_id="u", limit=500)["results"]]
        outputs += [json.dumps(m.search("secret key password token", user_id="u"))]
    export_file = tmp_path / "export.jsonl"
    export_file.write_text("\n".join(exported) + "\n")
    assert len(SCANNED) >= 100
    assert found(SCANNED, [*engine_files(home), export_file], outputs) == {}


def test_no_secret_survives_the_import_path(tmp_path: Path) -> None:
    lines = [json.dumps({"kind": "header", "format": "memscribe.v1", "tenant": "default", "user_id": "u"})]
    for i, (_, text, _) in enumerate(SECRETS):
        scope = {"user_id": "u", "tenant": "default", "agent_id": None, "session_id": f"s-{text[:200]}",
                 "project": None}  # fmt: skip
        lines.append(json.dumps({
            "kind": "episode", "id": f"e{i}", "scope": scope, "messages": [{"role": "user", "content": text}],
            "timestamp": "2024-06-01T12:00:00+00:00", "source": "api", "idempotency_key": f"k{i}-{text[:200]}",
            "metadata": {"m": text, text[:100]: text},
        }))  # fmt: skip
        lines.append(json.dumps({
            "kind": "memory", "id": f"m{i:030d}", "version_id": f"v{i:030d}", "version": 1, "scope": scope,
            "text": f"fact {i}: {text}", "subject": "user", "slot": None, "value": text, "owner": "user",
            "layer": "L2", "scene": "chat", "tags": [text[:100]], "episode_id": f"e{i}", "message_indices": [0],
            "confidence": 1.0, "writer": "raw", "embedding_model": "x", "source": "api",
            "valid_from": "2024-06-01T12:00:00+00:00", "valid_to": None, "recorded_at": "2024-06-01T12:00:00+00:00",
            "retired_at": None, "status": "active", "supersedes": None, "superseded_by": None,
            "metadata": {"m": text},
        }))  # fmt: skip
    home = tmp_path / "home"
    with Memory(home / "store.db", writer="raw", embedder="hash") as m:
        counts = m.import_(lines)
        assert counts["memories"] == len(SECRETS) and counts["episodes"] == len(SECRETS)
        outputs = ["\n".join(m.export("u") or [])]
    assert found(SCANNED, engine_files(home), outputs) == {}
