"""L6 schemas: insights over clusters of related facts, one model call per cluster, with evidence links.

Clusters are found by rules (no embeddings needed): chat facts of one subject are linked when their content
words overlap or they share a specific tag, and connected groups of at least ``min_size`` facts form a
cluster (split above ``max_size``). A cluster whose facts are all already evidence of a schema costs no call.
The model sees the facts under integer aliases (models invent ids) and cites them; an insight needs two valid
citations. It becomes an L6 memory with ``metadata["evidence"]`` holding the fact ids, or an UPDATE of the
existing schema whose evidence it mostly shares.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, Final

from memscribe.core.records import Layer, MemoryDraft, MemoryRecord, Operation, OpKind, Owner, Status, Usage
from memscribe.errors import MemscribeError
from memscribe.providers.chat import ChatModel
from memscribe.scenes.prompts import INSIGHT_PROMPT, INSIGHT_PROMPT_VERSION, INSIGHT_SCHEMA
from memscribe.scenes.task import token_set
from memscribe.scenes.working import jaccard

__all__ = ["SCHEMA", "Cluster", "cluster_facts", "insight_ops"]

SCHEMA: Final = "schema"
_LINK: Final = 0.2  # content-word overlap that relates two facts
_GENERIC_TAGS: Final = frozenset({"event", "temporary", "plan", "expired-plan"})
_MAX_SUBJECT_FACTS: Final = 300  # pairwise linking is quadratic; older facts beyond this wait for a later run
_FACT_CHARS: Final = 300


@dataclass(frozen=True)
class Cluster:
    """Related current facts about one subject."""

    subject: str
    facts: tuple[MemoryRecord, ...]

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(f.id for f in self.facts)


def _facts(records: list[MemoryRecord]) -> dict[str, list[MemoryRecord]]:
    by_subject: dict[str, list[MemoryRecord]] = {}
    for r in records:
        if r.layer is Layer.FACT and r.scene == "chat" and r.is_current and r.status is Status.ACTIVE:
            by_subject.setdefault(r.subject.casefold(), []).append(r)
    return by_subject


def cluster_facts(records: list[MemoryRecord], *, min_size: int = 4, max_size: int = 12) -> list[Cluster]:
    """Connected groups of related chat facts per subject, largest first."""
    clusters = []
    for subject, facts in _facts(records).items():
        facts = sorted(facts, key=lambda r: r.valid_from)[-_MAX_SUBJECT_FACTS:]
        for group in _components(facts):
            if len(group) < min_size:
                continue
            for start in range(0, len(group), max_size):
                chunk = group[start : start + max_size]
                if len(chunk) >= min_size:
                    clusters.append(Cluster(subject, tuple(chunk)))
    return sorted(clusters, key=lambda c: -len(c.facts))


def _components(facts: list[MemoryRecord]) -> Iterator[list[MemoryRecord]]:
    parent = list(range(len(facts)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    words = [token_set(f.text) for f in facts]
    tags = [set(f.tags) - _GENERIC_TAGS for f in facts]
    for i in range(len(facts)):
        for j in range(i + 1, len(facts)):
            if tags[i] & tags[j] or jaccard(words[i], words[j]) >= _LINK:
                parent[root(j)] = root(i)
    groups: dict[int, list[MemoryRecord]] = {}
    for i, fact in enumerate(facts):
        groups.setdefault(root(i), []).append(fact)
    yield from groups.values()


def _schemas(records: list[MemoryRecord]) -> list[MemoryRecord]:
    return [r for r in records if r.layer is Layer.SCHEMA and r.is_current and r.status is Status.ACTIVE]


def _evidence(record: MemoryRecord) -> frozenset[str]:
    value = record.metadata.get("evidence")
    return frozenset(str(v) for v in value) if isinstance(value, list) else frozenset()


def insight_ops(
    records: list[MemoryRecord], chat: ChatModel, *, max_calls: int, min_size: int = 4, max_size: int = 12
) -> list[Operation]:
    """Schema operations for the clusters not yet covered, at most ``max_calls`` model calls."""
    schemas = _schemas(records)
    covered = frozenset().union(*(_evidence(s) for s in schemas)) if schemas else frozenset()
    ops: list[Operation] = []
    calls = 0
    for cluster in cluster_facts(records, min_size=min_size, max_size=max_size):
        if calls >= max_calls:
            break
        if cluster.ids <= covered:
            continue
        calls += 1
        ops.extend(_ask(cluster, chat, schemas))
    return ops


def _ask(cluster: Cluster, chat: ChatModel, schemas: list[MemoryRecord]) -> list[Operation]:
    numbered = "\n".join(f"{i}. {f.text[:_FACT_CHARS]}" for i, f in enumerate(cluster.facts, start=1))
    messages = [
        {"role": "system", "content": INSIGHT_PROMPT},
        {"role": "user", "content": f"Subject: {cluster.subject}\n{numbered}"},
    ]
    try:
        result = chat.complete(messages, schema=INSIGHT_SCHEMA, max_tokens=400)
    except MemscribeError:  # one failed cluster must not stop consolidation; it is retried on a later run
        return []
    usage = Usage(
        model=result.usage.model or result.model,
        prompt_version=INSIGHT_PROMPT_VERSION,
        calls=max(result.usage.calls, 1),
        tokens_in=result.usage.tokens_in,
        tokens_out=result.usage.tokens_out,
        latency_ms=result.usage.latency_ms,
    )
    ops = []
    for item in result.parsed.get("insights", []):
        op = _insight_op(item, cluster, schemas)
        if op is not None:
            ops.append(op)
    return [replace(op, usage=usage) if i == 0 else op for i, op in enumerate(ops)]


def _insight_op(item: dict[str, Any], cluster: Cluster, schemas: list[MemoryRecord]) -> Operation | None:
    text = str(item.get("text", "")).strip()
    cited = [int(n) for n in item.get("evidence", []) if isinstance(n, int | float)]
    evidence = list(dict.fromkeys(cluster.facts[n - 1].id for n in cited if 1 <= n <= len(cluster.facts)))
    if not text or len(evidence) < 2:
        return None
    confidence = min(max(float(item.get("confidence", 0.6)), 0.0), 1.0)
    subject = cluster.facts[0].subject
    owner = cluster.facts[0].owner if all(f.owner is cluster.facts[0].owner for f in cluster.facts) else Owner.USER
    draft = MemoryDraft(
        text=text,
        subject=subject,
        owner=owner,
        layer=Layer.SCHEMA,
        scene="chat",
        tags=(SCHEMA,),
        confidence=confidence,
        metadata={"kind": SCHEMA, "evidence": evidence, "prompt_version": INSIGHT_PROMPT_VERSION},
    )
    same = [s for s in schemas if s.subject.casefold() == subject.casefold() and s.owner is owner]
    prior = max(same, key=lambda s: jaccard(_evidence(s), frozenset(evidence)), default=None)
    if prior is not None and jaccard(_evidence(prior), frozenset(evidence)) >= 0.5:
        if prior.text == text:
            return None
        merged = list(dict.fromkeys([*sorted(_evidence(prior)), *evidence]))
        draft = replace(draft, metadata={**draft.metadata, "evidence": merged})
        return Operation(
            OpKind.UPDATE,
            f"schema revised over {len(merged)} facts",
            draft=draft,
            target=prior.id,
            candidates=tuple(merged),
        )
    return Operation(
        OpKind.ADD,
        f"schema inferred from {len(evidence)} facts about {subject}",
        draft=draft,
        candidates=tuple(evidence),
    )
