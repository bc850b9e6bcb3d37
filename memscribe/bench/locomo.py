"""``bench locomo``: evidence recall and answer containment on LoCoMo-format data (``locomo10.json``).

Each conversation is ingested under its own ``user_id``, one ``add()`` per session, with the session date as
the timestamp, both speakers as ``user`` messages carrying their names, and image captions inlined as
``[shares a photo: <caption>]``. Then every question is searched (top 10) and scored from the provenance
and text of the returned memories, without an LLM (``research/benchmarks.md`` §5):

* evidence ``recall_any@k`` / ``recall_all@k`` / ``recall_frac@k`` for k = 1, 5, 10, with ``prov_width@k`` and
  ``evidence_precision@k`` as guards against memories that cite whole sessions;
* ``contain@k``: the normalised gold answer occurs in the top-k memory texts joined with their session dates
  (categories 1-4; category 3 gold cut at ``;``), and ``contain_parts@k`` for multi-hop answers.

After each conversation is ingested, its current memories are listed and every turn that no current memory
points at counts as *stored nothing*: ``coverage`` gives their share among memorable turns, with greetings,
thanks and reactions (:func:`is_filler`) and turns that only ask (:func:`only_asks`) counted apart.

Provenance is mapped back to turn ids in the harness: an episode is one session, so the ``episode_id`` (from
``add()``, or learnt from the memory ids it returned) names the session and ``message_indices`` index its turns.
Questions whose normalised evidence is empty are left out of recall (4 in LoCoMo-10). "overall" is the
question-weighted mean over categories 1-4 and "macro" their unweighted mean; category 5 (adversarial) is
reported on its own, recall only. Category numbers follow the data: 1 multi-hop, 2 temporal, 3 open-domain,
4 single-hop, 5 adversarial (§2.3).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memscribe.bench.harness import (
    MemoryFactory,
    MemoryLike,
    RunClock,
    close_quietly,
    fresh_store_dir,
    json_safe,
    provenance_of,
    result_rows,
    row_text,
    store_bytes,
)
from memscribe.bench.locomo_trace import Tracer
from memscribe.bench.metrics import (
    MeanTable,
    answer_containment,
    canonical_dia_id,
    evidence_recall,
    gold_answer,
    normalize_evidence,
    parts_containment,
)
from memscribe.core.text import keyword_terms

__all__ = [
    "CATEGORY_NAMES",
    "KS",
    "Conversation",
    "Question",
    "Session",
    "Turn",
    "is_filler",
    "load_locomo",
    "only_asks",
    "run_locomo",
    "session_messages",
]

CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
KS = (1, 5, 10)
SOURCE = "bench"
_SESSION_KEY = re.compile(r"session_(\d+)$")
_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y", "%d %B, %Y")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str | None = None

    def content(self) -> str:
        """The message text, with the image caption inlined when the turn shares a photo."""
        photo = f"[shares a photo: {self.caption}]" if self.caption else ""
        return " ".join(part for part in (self.text.strip(), photo) if part)


@dataclass(frozen=True)
class Session:
    number: int
    date_time: str  # as written in the data, e.g. "1:56 pm on 8 May, 2023"
    timestamp: datetime | None
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Question:
    question: str
    answer: str | None  # None for adversarial rows without an ``answer``
    category: int
    gold: frozenset[str]  # normalised evidence turn ids present in the conversation


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]


def load_locomo(path: Path | str) -> list[Conversation]:
    """Read a ``locomo10.json``-format file: a list of ``{sample_id, conversation, qa}`` samples."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of conversations")
    return [_conversation(sample, index) for index, sample in enumerate(data)]


def _conversation(sample: Mapping[str, Any], index: int) -> Conversation:
    conv = sample["conversation"]
    sessions = []
    for key, turns in conv.items():
        match = _SESSION_KEY.match(key)
        if match and isinstance(turns, list) and turns:
            number = int(match.group(1))
            when = str(conv.get(f"session_{number}_date_time") or "")
            sessions.append(Session(number, when, parse_session_time(when), _turns(turns)))
    sessions.sort(key=lambda s: s.number)
    valid = {t.dia_id for s in sessions for t in s.turns}
    questions = tuple(
        Question(
            question=str(qa["question"]),
            answer=None if qa.get("answer") is None else str(qa["answer"]),
            category=int(qa["category"]),
            gold=normalize_evidence(qa.get("evidence") or [], valid),
        )
        for qa in sample.get("qa", [])
        if qa.get("question") and qa.get("category") is not None
    )
    speakers = (str(conv.get("speaker_a", "")), str(conv.get("speaker_b", "")))
    return Conversation(str(sample.get("sample_id", f"conv-{index}")), speakers, tuple(sessions), questions)


def _turns(raw: Sequence[Mapping[str, Any]]) -> tuple[Turn, ...]:
    out = []
    for turn in raw:
        dia_id = canonical_dia_id(turn.get("dia_id", ""))
        caption = turn.get("blip_caption")
        if dia_id is not None:
            text = str(turn.get("text") or "")
            out.append(Turn(dia_id, str(turn.get("speaker", "")), text, str(caption) if caption else None))
    return tuple(out)


def parse_session_time(text: str) -> datetime | None:
    """``"1:56 pm on 8 May, 2023"`` as a UTC datetime; ``None`` when the format is not recognised."""
    clean = " ".join(text.split())
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(clean, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def session_messages(session: Session) -> tuple[list[dict[str, str]], list[str]]:
    """The ``add()`` messages of a session and, aligned with them, the turn id of each message."""
    messages, dia_ids = [], []
    for turn in session.turns:
        content = turn.content()
        if content:
            messages.append({"role": "user", "content": content, "name": turn.speaker})
            dia_ids.append(turn.dia_id)
    return messages, dia_ids


class _ProvenanceMap:
    """Turns search provenance (episode id + message indices) back into LoCoMo turn ids and session dates."""

    def __init__(self) -> None:
        self.sessions: list[tuple[list[str], str]] = []  # (dia ids by message index, session date)
        self.by_episode: dict[str, int] = {}
        self.by_memory: dict[str, int] = {}
        self.unresolved = 0

    def learn(self, answer: Mapping[str, Any], dia_ids: list[str], date: str) -> None:
        key = len(self.sessions)
        self.sessions.append((dia_ids, date))
        episode = answer.get("episode_id")
        if episode is not None:
            self.by_episode[str(episode)] = key
        for row in result_rows(answer):
            if row.get("event") in ("ADD", "UPDATE", "SUPERSEDE") and row.get("id") is not None:
                self.by_memory[str(row["id"])] = key

    def resolve(self, row: Mapping[str, Any], *, count: bool = True) -> tuple[set[str], str]:
        episode, indices = provenance_of(row)
        key = self.by_episode.get(episode) if episode is not None else None
        if key is None:
            key = self.by_memory.get(str(row.get("id")))
            if key is not None and episode is not None:
                self.by_episode[episode] = key
        if key is None:
            self.unresolved += count
            return set(), ""
        dia_ids, date = self.sessions[key]
        return {dia_ids[i] for i in indices if 0 <= i < len(dia_ids)}, date


def run_locomo(
    make_memory: MemoryFactory,
    writer: str,
    data_path: Path | str,
    workdir: Path | str = Path(".bench"),
    limit_conversations: int | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    trace: int = 0,
) -> dict[str, Any]:
    """Ingest and score LoCoMo-format data with a fresh store of ``writer``; returns the results dict.

    ``trace`` > 0 adds ``results["trace"]``: up to that many questions whose evidence the top 10 missed, with
    what was stored for each missed turn and what outranked it (:mod:`memscribe.bench.locomo_trace`)."""
    conversations = load_locomo(data_path)[:limit_conversations]
    tracer = Tracer(trace)
    store = fresh_store_dir(Path(workdir), f"locomo-{writer}")
    memory = make_memory(writer, store)
    clock, table, prov, events = RunClock(), MeanTable(), _ProvenanceMap(), Counter[str]()
    coverage = Counter[str]()
    try:
        for done, conv in enumerate(conversations, 1):
            user = f"locomo-{conv.sample_id}"
            for session in conv.sessions:
                messages, dia_ids = session_messages(session)
                if not messages:
                    continue
                with clock.adding(len(messages)):
                    answer = memory.add(messages, user_id=user, timestamp=session.timestamp, source=SOURCE)
                events.update(str(row.get("event", "")) for row in result_rows(answer))
                prov.learn(answer, dia_ids, session.date_time)
                if trace:
                    tracer.learn_add(answer, dia_ids, [m["content"] for m in messages])
            coverage.update(_coverage(memory, user, conv, prov, tracer if trace else None))
            for question in conv.questions:
                _score(memory, user, question, prov, clock, table, tracer if trace else None)
            if progress is not None:
                progress(done, len(conversations))
        engine_stats = json_safe(memory.stats())
    finally:
        close_quietly(memory)
    results = _results(writer, Path(data_path), conversations, table, prov, events, clock, store, engine_stats)
    results["coverage"] = _coverage_summary(coverage)
    if trace:
        results["trace"] = {"questions": tracer.entries, "stored_nothing": tracer.nothing}
    return results


# Words of greetings, thanks and reactions: a turn made only of these (and names) stores nothing worth asking.
_FILLER_WORDS = frozenset(
    (
        "hi", "hey", "hello", "hiya", "yo", "thanks", "thank", "bye", "goodbye", "wow", "great", "awesome", "cool",
        "nice", "amazing", "congrats", "congratulations", "glad", "happy", "sure", "yeah", "yes", "yep", "ok", "okay",
        "lol", "haha", "good", "love", "see", "soon", "talk", "later", "take", "care", "sounds", "sound", "really",
        "totally", "absolutely", "agree", "definitely", "exactly", "right", "true", "oh", "ah", "aw", "awww", "omg",
        "hope", "hoping", "day", "you're", "that's", "what's", "how's", "glad", "catch", "chat", "keep", "going",
        "well", "fun"
    )
)


def is_filler(turn: Turn) -> bool:
    """Whether a turn is a greeting, thanks or reaction: no photo, and fewer than three content words
    outside :data:`_FILLER_WORDS`. Such turns may store nothing; they are counted apart."""
    if turn.caption:
        return False
    return len([w for w in keyword_terms(turn.text, 64) if w not in _FILLER_WORDS]) < 3


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def only_asks(turn: Turn, names: frozenset[str] = frozenset()) -> bool:
    """Whether a turn asks and states nothing: no photo, and once its questions are left out, fewer than three
    content words outside :data:`_FILLER_WORDS` and the speakers' ``names`` remain ("Wow, Jon! What got you into
    dance?"). Such turns may store nothing; they are counted apart, like fillers."""
    if turn.caption or "?" not in turn.text:
        return False
    said = " ".join(s for s in _SENTENCE_END.split(turn.text.strip()) if not s.rstrip(" !.~").endswith("?"))
    return len([w for w in keyword_terms(said, 64) if w not in _FILLER_WORDS and w not in names]) < 3


def _turn_kind(turn: Turn, names: frozenset[str]) -> str:
    if is_filler(turn):
        return "filler"
    return "question" if only_asks(turn, names) else "memorable"


def _current_rows(memory: MemoryLike, user: str, page: int = 500) -> list[Mapping[str, Any]]:
    """Every current memory of ``user``, paging when the memory's ``list`` takes ``limit``/``offset``."""
    rows: list[Mapping[str, Any]] = []
    while True:
        try:
            batch = result_rows(memory.list(user_id=user, limit=page, offset=len(rows)))  # type: ignore[call-arg]
        except TypeError:  # a MemoryLike whose list() returns everything at once
            return result_rows(memory.list(user_id=user))
        rows += batch
        if len(batch) < page:
            return rows


def _coverage(
    memory: MemoryLike, user: str, conv: Conversation, prov: _ProvenanceMap, tracer: Tracer | None = None
) -> Counter[str]:
    """Turns of one conversation by whether a current memory points at them, fillers apart."""
    covered: set[str] = set()
    pointed = []
    for row in _current_rows(memory, user):
        dia_ids = prov.resolve(row, count=False)[0]
        covered |= dia_ids
        pointed.append((dia_ids, row_text(row)))
    if tracer is not None:
        tracer.learn_current(pointed)
    counts = Counter[str]()
    names = frozenset(w[:k].lower() for n in conv.speakers for w in n.split() for k in range(3, len(w) + 1))
    for turn in (t for s in conv.sessions for t in s.turns if t.content()):
        kind = _turn_kind(turn, names)
        counts[f"{kind}_turns"] += 1
        counts[f"{kind}_stored_nothing"] += turn.dia_id not in covered
        if tracer is not None and kind == "memorable" and turn.dia_id not in covered:
            tracer.stored_nothing(turn.dia_id)
    return counts


def _coverage_summary(counts: Counter[str]) -> dict[str, Any]:
    memorable, nothing = counts["memorable_turns"], counts["memorable_stored_nothing"]
    asked, asked_nothing = counts["question_turns"], counts["question_stored_nothing"]
    everything = memorable + counts["filler_turns"] + asked
    return {
        "turns": everything,
        "filler_turns": counts["filler_turns"],
        "filler_stored_nothing": counts["filler_stored_nothing"],
        "question_turns": asked,
        "question_stored_nothing": asked_nothing,
        "memorable_turns": memorable,
        "memorable_stored_nothing": nothing,
        "stored_nothing_share": round(nothing / memorable, 4) if memorable else 0.0,
        # The same share when turns that only ask count as memorable (the measure before questions were apart).
        "stored_nothing_share_with_questions": (
            round((nothing + asked_nothing) / (memorable + asked), 4) if memorable + asked else 0.0
        ),
        "stored_nothing_share_all_turns": (
            round((nothing + counts["filler_stored_nothing"] + asked_nothing) / everything, 4) if everything else 0.0
        ),
    }


def _score(
    memory: MemoryLike,
    user: str,
    q: Question,
    prov: _ProvenanceMap,
    clock: RunClock,
    table: MeanTable,
    tracer: Tracer | None = None,
) -> None:
    with clock.searching():
        rows = result_rows(memory.search(q.question, user_id=user, limit=max(KS)))
    resolved = [prov.resolve(row) for row in rows]
    if tracer is not None and q.category != 5:
        top = [(dia, row_text(row)) for row, (dia, _) in zip(rows, resolved, strict=True)]
        tracer.question(q.question, q.category, q.answer, q.gold, top)
    groups = [f"cat{q.category}"] + (["all"] if q.category != 5 else [])
    values: dict[str, float | None] = {}
    if q.gold:
        for k in KS:
            values.update(evidence_recall(q.gold, [dia for dia, _ in resolved], k))
    gold = gold_answer(q.answer, q.category) if q.category != 5 else None
    if gold is not None:
        texts = [f"{row_text(row)} {date}" for row, (_, date) in zip(rows, resolved, strict=True)]
        for k in KS:
            values[f"contain@{k}"] = answer_containment(gold, texts, k)
            if q.category == 1:
                values[f"contain_parts@{k}"] = parts_containment(gold, texts, k)
    table.add(groups, **values)


def _results(
    writer: str,
    data_path: Path,
    conversations: list[Conversation],
    table: MeanTable,
    prov: _ProvenanceMap,
    events: Counter[str],
    clock: RunClock,
    store: Path,
    engine_stats: Any,
) -> dict[str, Any]:
    means = table.means()
    questions = [q for c in conversations for q in c.questions]
    per_cat = Counter(q.category for q in questions)
    by_category = {
        str(cat): {
            "name": CATEGORY_NAMES.get(cat, "unknown"),
            "n": per_cat[cat],
            "n_evidence": table.counts(f"cat{cat}", "recall_all@1"),
            "n_answer": table.counts(f"cat{cat}", "contain@1"),
            **means.get(f"cat{cat}", {}),
        }
        for cat in sorted(per_cat)
    }
    core = [means[f"cat{c}"] for c in (1, 2, 3, 4) if f"cat{c}" in means]
    names = sorted({name for cat in core for name in cat})
    macro = {n: round(sum(c[n] for c in core if n in c) / sum(1 for c in core if n in c), 4) for n in names}
    return {
        "benchmark": "locomo",
        "writer": writer,
        "seed": None,  # deterministic: no sampling
        "data": {"path": str(data_path), "sha256": hashlib.sha256(data_path.read_bytes()).hexdigest()},
        "settings": {"ks": list(KS), "captions": "inline", "roles": "user, named by speaker", "top_k": max(KS)},
        "counts": {
            "conversations": len(conversations),
            "sessions": sum(len(c.sessions) for c in conversations),
            "turns": sum(len(s.turns) for c in conversations for s in c.sessions),
            "questions": len(questions),
            "scored_evidence": table.counts("all", "recall_all@1"),
            "scored_answer": table.counts("all", "contain@1"),
            "no_evidence": sum(1 for q in questions if not q.gold),
            "unresolved_results": prov.unresolved,
        },
        "metrics": means.get("all", {}),
        "macro": macro,
        "by_category": by_category,
        "operations": {"observed": dict(sorted(events.items()))},
        "cost": {**clock.summary(), "store_bytes": store_bytes(store), "store_path": str(store)},
        "engine_stats": engine_stats,
    }
