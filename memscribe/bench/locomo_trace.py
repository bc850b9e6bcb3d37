"""``bench locomo --trace N``: for up to N questions whose evidence the top 10 missed, what was stored.

For each missed evidence turn the trace shows the turn as said, what ``add()`` reported for its message
(stored, merged or skipped, and why), the memories that point at it after its conversation was ingested, and the
ten results that outranked it, each with the turns it cites. It is how a writer's failure is told apart from a
ranking failure: nothing stored, stored but superseded, or stored and outranked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memscribe.bench.harness import result_rows, row_text

__all__ = ["Tracer", "format_trace"]


@dataclass
class _TurnLog:
    text: str
    outcome: str = "?"
    reason: str = ""
    written: list[str] = field(default_factory=list)  # "EVENT: text" of what the add wrote for this turn
    current: list[str] = field(default_factory=list)  # texts of current memories pointing at the turn


class Tracer:
    """Collects per-turn add outcomes and, for missed questions, the trace entries."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.turns: dict[str, _TurnLog] = {}
        self.entries: list[dict[str, Any]] = []
        self.nothing: list[dict[str, str]] = []  # memorable turns no current memory points at

    def learn_add(self, answer: Mapping[str, Any], dia_ids: Sequence[str], texts: Sequence[str]) -> None:
        """Record the add result of one session: its per-message outcomes and the memories it wrote."""
        logs = [_TurnLog(text) for text in texts]
        for message in answer.get("messages") or []:
            index = message.get("index") if isinstance(message, Mapping) else None
            if isinstance(index, int) and 0 <= index < len(logs):
                logs[index].outcome = str(message.get("outcome", "?"))
                logs[index].reason = str(message.get("reason", ""))
        for row in result_rows(answer):
            for index in row.get("messages") or []:
                if isinstance(index, int) and 0 <= index < len(logs):
                    logs[index].written.append(f"{row.get('event', '?')}: {row_text(row)}")
        self.turns.update(zip(dia_ids, logs, strict=True))

    def learn_current(self, pointed: Sequence[tuple[set[str], str]]) -> None:
        """Record, for each current memory ``(turn ids, text)``, that it points at those turns."""
        for dia_ids, text in pointed:
            for dia in dia_ids:
                if dia in self.turns:
                    self.turns[dia].current.append(text)

    def stored_nothing(self, dia: str) -> None:
        """Record that no current memory points at the memorable turn ``dia`` (up to ``limit`` of them)."""
        log = self.turns.get(dia)
        if log is not None and len(self.nothing) < self.limit:
            self.nothing.append({"turn": dia, "text": log.text, "outcome": log.outcome, "reason": log.reason,
                                 "written": "; ".join(log.written)})  # fmt: skip

    def question(self, question: str, category: int, answer: str | None, gold: frozenset[str],
                 top: Sequence[tuple[set[str], str]]) -> None:  # fmt: skip
        """Trace ``question`` when some of its evidence is missing from ``top`` (turn ids, text)."""
        if len(self.entries) >= self.limit or not gold:
            return
        found = set().union(*(dia for dia, _ in top)) if top else set()
        missed = sorted(gold - found)
        if not missed:
            return
        evidence = []
        for dia in missed:
            log = self.turns.get(dia, _TurnLog(""))
            evidence.append({"turn": dia, "text": log.text, "outcome": log.outcome, "reason": log.reason,
                             "written": log.written, "current": log.current})  # fmt: skip
        ranked = [{"turns": sorted(dia), "text": text} for dia, text in top]
        self.entries.append({"question": question, "category": category, "answer": answer, "missed": evidence,
                             "top": ranked})  # fmt: skip


def format_trace(trace: Mapping[str, Any]) -> str:
    """A ``results["trace"]`` as plain text: one block per question, then the turns that stored nothing."""
    lines: list[str] = []
    for entry in trace.get("questions", []):
        lines.append(f"Q [cat {entry['category']}] {entry['question']}  → {entry['answer']}")
        for ev in entry["missed"]:
            lines.append(f"  missed {ev['turn']}: {ev['text']}")
            lines.append(f"    add: {ev['outcome']} ({ev['reason']})")
            lines.extend(f"    wrote {w}" for w in ev["written"])
            lines.extend(f"    current: {c}" for c in ev["current"])
            if not ev["current"]:
                lines.append("    current: (none)")
        for rank, hit in enumerate(entry["top"], 1):
            lines.append(f"  {rank:2d}. [{','.join(hit['turns'])}] {hit['text']}")
        lines.append("")
    for turn in trace.get("stored_nothing", []):
        lines.append(f"stored nothing {turn['turn']}: {turn['text']}")
        lines.append(f"    add: {turn['outcome']} ({turn['reason']}) {turn['written']}")
    return "\n".join(lines)
