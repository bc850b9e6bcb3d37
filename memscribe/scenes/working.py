"""Working memory: one session fact per task session, and the experience library.

A **session fact** says what a session was for and how it ended ("Task: set up CI for repo X; outcome: …").
Later episodes of the same session UPDATE it. An **experience** is reusable know-how: task, solution,
conditions (versions, environment-variable *names*) and a confidence. Experiences are reconciled across
sessions by task signature: the same solution again → UPDATE with more confidence; the recorded solution
failing → UPDATE with less; a different solution that worked → SUPERSEDE, with the reason.

Links are stable keys, because a new memory's id is assigned only when the plan is applied: a session fact's
slot is ``session:<key>/task`` and an experience's ``experience/<signature>``; each names the other's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from memscribe.core.records import Episode, MemoryDraft, MemoryRecord, Operation, OpKind, Owner
from memscribe.scenes.environment import Conditions
from memscribe.scenes.task import TaskDigest, task_signature, token_set
from memscribe.write.ports import CandidateSource

__all__ = ["EXPERIENCE", "SESSION_FACT", "experience_ops", "experience_records", "jaccard", "session_fact_op"]

SESSION_FACT: Final = "session_fact"
EXPERIENCE: Final = "experience"
_SAME_TASK: Final = 0.5  # task-word overlap above which a differently worded task is the same task
_SAME_SOLUTION: Final = 0.5  # solution-word overlap above which two solutions agree
_GAIN: Final = 0.3  # each confirmation closes this share of the gap to certainty
_PENALTY: Final = 0.6  # a failure multiplies confidence by this
_MAX_SESSIONS: Final = 20


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Overlap of two word sets, 0 when both are empty."""
    return len(a & b) / len(a | b) if a | b else 0.0


def _kind(record: MemoryRecord) -> str | None:
    value = record.metadata.get("kind")
    return value if isinstance(value, str) else None


def session_fact_op(episode: Episode, digest: TaskDigest, candidates: CandidateSource, scene: str) -> Operation:
    """ADD the session's fact, or UPDATE it when an earlier episode of the session wrote one."""
    slot = f"session:{digest.session}/task"
    existing = next((r for r in candidates.by_slot(slot) if _kind(r) == SESSION_FACT), None)
    task, steps, episodes = digest.task, list(digest.steps), [episode.id]
    if existing is not None:
        task = str(existing.metadata.get("task") or task)
        steps = list(dict.fromkeys([*_strings(existing.metadata.get("steps")), *steps]))[:12]
        episodes = [*_strings(existing.metadata.get("episodes")), episode.id][-_MAX_SESSIONS:]
    outcome = digest.outcome or digest.status
    text = f"Task: {task}; outcome: {outcome}"
    if steps:
        text += f"; steps: {'; '.join(steps[:5])}"
    metadata: dict[str, Any] = {
        "kind": SESSION_FACT,
        "session": digest.session,
        "task": task,
        "outcome": digest.outcome,
        "succeeded": digest.succeeded,
        "steps": steps,
        "files": list(digest.files),
        "references": list(digest.references),
        "conditions": digest.conditions.as_metadata(),
        "episodes": episodes,
        "experience_slot": f"experience/{task_signature(task)}",
    }
    draft = MemoryDraft(
        text=text + ".",
        subject=f"session:{digest.session}",
        slot=slot,
        value=digest.status,
        owner=Owner.USER,
        scene=scene,
        tags=(SESSION_FACT, scene),
        message_indices=digest.message_indices,
        confidence=0.9,
        metadata=metadata,
    )
    if existing is None:
        return Operation(OpKind.ADD, f"session fact for session {digest.session}", draft=draft)
    reason = f"session {digest.session} continued: outcome now {digest.status}"
    return Operation(OpKind.UPDATE, reason, draft=draft, target=existing.id, candidates=(existing.id,))


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _solution(digest: TaskDigest) -> str:
    """What the session did: its working steps, or every attempt when it failed, or else its answer."""
    steps = digest.attempts if digest.succeeded is False else digest.steps
    return "; ".join(steps[:6]) or digest.outcome


def experience_ops(episode: Episode, digest: TaskDigest, candidates: CandidateSource, scene: str) -> list[Operation]:
    """The experience-library decision for a task session (nothing when there is nothing reusable)."""
    solution = _solution(digest)
    if not solution:
        return []
    match = _matching_experience(digest.task, candidates)
    if match is None:
        if digest.succeeded is False:
            return []  # a failed attempt teaches nothing reusable on its own; the session fact records it
        draft = _draft(digest, solution, scene, Conditions(), confidence=_base(digest), prior=None)
        return [Operation(OpKind.ADD, f"new experience for task {digest.task!r}", draft=draft)]
    old_solution = str(match.metadata.get("solution") or match.text)
    agree = jaccard(token_set(solution), token_set(old_solution))
    old_conditions = Conditions.from_metadata(match.metadata.get("conditions"))
    if digest.succeeded is False:
        if agree < _SAME_SOLUTION:
            return []
        confidence = round(match.confidence * _PENALTY, 3)
        draft = _draft(digest, old_solution, scene, old_conditions, confidence=confidence, prior=match, failed=True)
        reason = (
            f"the recorded solution failed in session {digest.session}: confidence {match.confidence} → {confidence}"
        )
        return [Operation(OpKind.UPDATE, reason, draft=draft, target=match.id, candidates=(match.id,))]
    if agree >= _SAME_SOLUTION:
        confidence = round(match.confidence + (1 - match.confidence) * _GAIN, 3)
        merged = _merge_steps(old_solution, solution)
        draft = _draft(digest, merged, scene, old_conditions, confidence=confidence, prior=match)
        reason = (
            f"same task and solution again in session {digest.session}: confidence {match.confidence} → {confidence}"
        )
        return [Operation(OpKind.UPDATE, reason, draft=draft, target=match.id, candidates=(match.id,))]
    draft = _draft(digest, solution, scene, Conditions(), confidence=_base(digest), prior=match, fresh=True)
    reason = f"a different solution worked for the same task in session {digest.session} (overlap {agree:.2f})"
    return [Operation(OpKind.SUPERSEDE, reason, draft=draft, target=match.id, candidates=(match.id,))]


def _base(digest: TaskDigest) -> float:
    return 0.6 if digest.succeeded else 0.5


def _matching_experience(task: str, candidates: CandidateSource) -> MemoryRecord | None:
    """The library entry for this task: same signature first, else the closest differently worded task."""
    exact = [r for r in candidates.by_slot(f"experience/{task_signature(task)}") if _kind(r) == EXPERIENCE]
    if exact:
        return exact[0]
    words = token_set(task)
    best, best_score = None, _SAME_TASK
    for record in candidates.similar(task, limit=8):
        if _kind(record) != EXPERIENCE:
            continue
        score = jaccard(words, token_set(str(record.metadata.get("task") or "")))
        if score >= best_score:
            best, best_score = record, score
    return best


def _merge_steps(old: str, new: str) -> str:
    steps = [s.strip() for s in f"{old}; {new}".split("; ") if s.strip()]
    return "; ".join(dict.fromkeys(steps))


def _draft(
    digest: TaskDigest,
    solution: str,
    scene: str,
    conditions: Conditions,
    *,
    confidence: float,
    prior: MemoryRecord | None,
    failed: bool = False,
    fresh: bool = False,
) -> MemoryDraft:
    """The experience entry. A prior entry lends its slot (the same task, however worded) and its history."""
    conditions = conditions.merged(digest.conditions)
    slot = prior.slot if prior is not None and prior.slot else f"experience/{task_signature(digest.task)}"
    meta = dict(prior.metadata) if prior is not None and not fresh else {}
    task = str(meta.get("task") or digest.task)
    sessions = [*_strings(meta.get("sessions")), digest.session][-_MAX_SESSIONS:]
    text = f"Experience: {task} — solution: {solution}."
    if conditions.describe():
        text += f" Conditions: {conditions.describe()}."
    metadata = {
        **meta,
        "kind": EXPERIENCE,
        "task": task,
        "solution": solution,
        "conditions": conditions.as_metadata(),
        "sessions": sessions,
        "session_slots": [f"session:{s}/task" for s in sessions],
        "confirmations": int(meta.get("confirmations", 0)) + (0 if failed else 1),
        "failures": int(meta.get("failures", 0)) + (1 if failed else 0),
        "references": list(digest.references),
    }
    return MemoryDraft(
        text=text,
        subject=EXPERIENCE,
        slot=slot,
        value=None,
        owner=Owner.AGENT,
        scene=scene,
        tags=(EXPERIENCE, scene),
        message_indices=digest.message_indices,
        confidence=confidence,
        metadata=metadata,
    )


def experience_records(records: Iterable[MemoryRecord]) -> list[MemoryRecord]:
    """The experience-library entries among ``records``, most confident first."""
    return sorted((r for r in records if _kind(r) == EXPERIENCE), key=lambda r: -r.confidence)
