"""Training data, one versioned JSONL schema for both stages, exported from a writer's runs on scenarios.

Every line is one JSON object with ``"schema": "memscribe-train/1"`` and ``"kind"``:

* ``"sft"``: ``messages`` — the pro request (system, user) and the writer's answer (assistant), ready for
  ``tokenizer.apply_chat_template``; ``source`` says which writer, scenario and chunk produced it;
* ``"rl"``: ``prompt`` — the pro request only; ``scenario`` (the whole scenario with its probes, so the reward
  needs nothing else), ``chunk`` (which chunk the prompt writes) and ``reference`` (the writer's answer).

The requests are the ones the ``pro`` writer actually sent, captured while the writer (the lite rules through
the pro protocol by default, or any chat model) wrote the scenario; so a model trained on them is served as
``pro`` with no other change.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from memscribe.bench.scenarios import Chunk, Probe, Scenario, Turn, scenario_dict
from memscribe.providers.chat import ChatModel
from memscribe.train.environment import MemoryEnv
from memscribe.train.protocols import check_protocols

__all__ = ["SCHEMA", "compact_answer", "export_rows", "protocol_tag", "read_rows", "scenario_from_dict", "write_rows"]

SCHEMA = "memscribe-train/1"
# Fields a pro answer may leave out: the decoder fills them in from the chunk (message indices, the episode's
# date) or the target (owner). ``reason`` is required by the schema, so it stays, empty.
_OPTIONAL = ("msgs", "valid_from", "owner")


def compact_answer(text: str) -> str:
    """``text`` (a pro answer) without the fields the decoder fills in itself and with empty reasons: about
    40 % fewer tokens for a small model to learn and to generate, and the same operations once decoded."""
    data = json.loads(text)

    def one(op: dict[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in op.items() if k not in _OPTIONAL and v is not None}
        out["reason"] = ""
        if "related" in out:
            out["related"] = [one(r) for r in out["related"]]
        return out

    return json.dumps({"operations": [one(op) for op in data["operations"]]}, ensure_ascii=False)


def scenario_from_dict(data: dict[str, Any]) -> Scenario:
    """The inverse of :func:`memscribe.bench.scenarios.scenario_dict`."""
    chunks = tuple(
        Chunk(
            session_id=str(c["session_id"]),
            timestamp=datetime.fromisoformat(str(c["timestamp"])),
            turns=tuple(Turn(**t) for t in c["turns"]),
            probes=tuple(
                Probe(**{**p, **{k: tuple(p[k]) for k in ("current", "stale", "distractors") if k in p}})
                for p in c["probes"]
            ),
            forgotten=tuple(c.get("forgotten") or ()),
        )
        for c in data["chunks"]
    )
    return Scenario(str(data["scenario_id"]), str(data["family"]), chunks, int(data["final_facts"]))


def export_rows(
    scenarios: Sequence[Scenario],
    workdir: Path,
    *,
    writer: ChatModel | None = None,
    writer_name: str = "scripted-lite",
    compact: bool = False,
    protocols: Sequence[str] = ("pro",),
    prompt_style: str = "full",
) -> Iterator[dict[str, Any]]:
    """SFT and RL rows for every chunk of every scenario in every protocol, written by ``writer`` (default:
    lite via pro; for ``mem0`` and ``hy`` the benchmark's fake model that speaks them). ``compact`` stores each
    pro answer as :func:`compact_answer` (the ``reference`` of RL rows too). With more than one protocol every
    prompt starts with :func:`protocol_tag`, so one model learns which protocol it is asked to speak.
    ``prompt_style="compact"`` writes pro requests with the pro writer's short prompt for small models."""
    chosen = check_protocols(protocols)
    for protocol in chosen:
        for scenario in scenarios:
            env = MemoryEnv(scenario, workdir / protocol / scenario.scenario_id, reference=writer, protocol=protocol,
                            prompt_style=prompt_style)  # fmt: skip
            yield from _scenario_rows(env, writer_name, compact and protocol == "pro", len(chosen) > 1)


def protocol_tag(protocol: str) -> str:
    """The line that names the protocol at the head of a multi-protocol prompt."""
    return f"[memscribe writer protocol: {protocol}]\n"


def _prompt(messages: Sequence[dict[str, Any]], protocol: str, tag: bool) -> list[dict[str, str]]:
    prompt = [{"role": str(m["role"]), "content": str(m["content"])} for m in messages]
    if tag and prompt:
        prompt[0]["content"] = protocol_tag(protocol) + prompt[0]["content"]
    return prompt


def _scenario_rows(env: MemoryEnv, writer_name: str, compact: bool, tag: bool) -> Iterator[dict[str, Any]]:
    scenario, protocol = env.scenario, env.protocol
    data = scenario_dict(scenario)
    for k, step in enumerate(env.steps):
        if not step.messages:
            continue  # nothing for the writer to read in this chunk (no user or assistant text)
        source = {"writer": writer_name, "protocol": protocol, "scenario": scenario.scenario_id, "chunk": k}
        prompt = _prompt(step.messages, protocol, tag)
        answer = compact_answer(step.answer) if compact else step.answer
        # Every call is an SFT row (mem0 / hy: the extraction too); the chunk's last call is the RL step.
        for call in step.calls[:-1]:
            yield _sft(_prompt(call.messages, protocol, tag), call.text, source)
        yield _sft(prompt, answer, source)
        yield {
            "schema": SCHEMA,
            "kind": "rl",
            "prompt": prompt,
            "scenario": data,
            "chunk": k,
            "reference": answer,
            "protocol": protocol,
            "source": source,
        }


def _sft(prompt: list[dict[str, str]], answer: str, source: dict[str, Any]) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "kind": "sft",
        "messages": [*prompt, {"role": "assistant", "content": answer}],
        "source": source,
    }


def write_rows(rows: Iterable[dict[str, Any]], out_dir: Path) -> dict[str, int]:
    """``sft.jsonl`` and ``rl.jsonl`` under ``out_dir``; returns the count of each."""
    out_dir.mkdir(parents=True, exist_ok=True)
    counts = {"sft": 0, "rl": 0}
    with (
        (out_dir / "sft.jsonl").open("w", encoding="utf-8") as sft,
        (out_dir / "rl.jsonl").open("w", encoding="utf-8") as rl,
    ):
        for row in rows:
            (sft if row["kind"] == "sft" else rl).write(json.dumps(row, ensure_ascii=False) + "\n")
            counts[row["kind"]] += 1
    return counts


def read_rows(path: Path, kind: str) -> list[dict[str, Any]]:
    """The rows of one kind from a JSONL file; a line of another schema version or kind is an error."""
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not JSON ({error})") from None
            if not isinstance(row, dict) or row.get("schema") != SCHEMA:
                raise ValueError(f"{path}:{number}: not a {SCHEMA} row")
            if row.get("kind") != kind:
                raise ValueError(f"{path}:{number}: a {row.get('kind')!r} row where {kind!r} rows were expected")
            rows.append(row)
    return rows
