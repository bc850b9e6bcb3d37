"""The lite writer: memory reconciliation by rules, with no language model.

Per statement: forget request? → DELETE. Correction? → UPDATE. Not memorable? → dropped. Otherwise times
are resolved, the subject found, slot facts read, and each fact (or the plain statement) is reconciled
against candidates and earlier statements of the episode. Assistant turns only yield recommendations,
owned by the agent.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from memscribe.core.clock import Clock
from memscribe.core.records import Episode, Layer, MemoryDraft, Operation, Owner, Usage
from memscribe.write.lite.canonical import fact_text
from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.ledger import Ledger
from memscribe.write.lite.memorable import drop_reason, question_head, strip_preamble
from memscribe.write.lite.person import Mention, Referents, expand_contractions, find_subject, restore_subject
from memscribe.write.lite.plans import PlanCompletions, accomplishment
from memscribe.write.lite.reconcile import Reconciler
from memscribe.write.lite.requests import Correction, parse_correction, parse_forget
from memscribe.write.lite.revise import Reviser
from memscribe.write.lite.rewrite import lead_with_date, to_third_person
from memscribe.write.lite.segment import Statement, segment_episode
from memscribe.write.lite.slots import Fact, FactKind, extract_facts, first_verb, resolve_fact
from memscribe.write.lite.tense import Tense, detect_tense
from memscribe.write.lite.timeref import Timing, resolve_times
from memscribe.write.ports import CandidateSource, WriteContext

__all__ = ["LiteWriter"]

_RECOMMEND = lazy(
    r"^(?:I(?:'d| would)? (?:recommend|suggest|advise)|my (?:recommendation|suggestion|advice)"
    r" (?:is|would be)"
    r"|you (?:should|could|might want to|may want to|might like|might enjoy|would love|would enjoy|'d love"
    r"|'d enjoy|ought to|must try)|(?:try|consider|check out|look into)\b|a (?:good|great) (?:option|choice"
    r"|idea|place|pick|book|start) (?:is|would be)|one option is|how about|why not)",
    re.IGNORECASE,
)
_PERSON_VERB = lazy(
    r"^(?:is|was|has|had|just|recently|also|finally)?\s*(?:lives|lived|works|worked|moved|married|adopted"
    r"|started|joined|graduated|went|visited|told|said|loves|likes|got|bought|turned|became|plans|wants)\b",
    re.IGNORECASE,
)
# Dates of recurring things are not events: "my birthday is on March 3rd" keeps no year.
_RECURRING = lazy(r"\b(?:birthday|anniversary|every|each|annual|annually|yearly|weekly|name day)\b", re.I)
_YEAR_AFTER_MONTH = lazy(
    r"(\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|December))"
    r" (?:19|20)\d{2}\b"
)
_SELF = lazy(r"^(?:I|my|we|our)\b", re.IGNORECASE)
# Short or impersonal statements are kept only when they carry a slot fact ("I like jazz").
_WEAK_REASONS = frozenset({"too little content", "not about anyone"})
_CONFIDENCE = {"slot": 0.9, "plain": 0.75, "agent": 0.7}


@dataclass(frozen=True)
class _Reading:
    """What the rules read from one statement."""

    text: str  # the memory text: third person, absolute dates
    subject: str
    mention: Mention | None
    facts: list[Fact]
    tense: Tense
    timing: Timing
    valid_from: datetime
    valid_to: datetime | None


class LiteWriter:
    """Rule-based writer: segmentation, time resolution, slot facts and reconciliation, no LLM.

    Deterministic and offline; candidates are used only to find what to compare against.
    """

    name = "lite"
    version = "1.0"

    def __init__(self, scene: str = "chat") -> None:
        self.scene = scene

    def propose(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> list[Operation]:
        """Operations for ``episode``; ``clock`` is unused because every time comes from the episode."""
        began = time.perf_counter()
        run = _EpisodeRun(Ledger(candidates), context.hints.get("scene", self.scene))
        refs = Referents()
        for statement in segment_episode(episode):
            refs.at_message(statement.message_index)
            run.consider(statement, refs)
        ops = run.ledger.operations()
        # The episode's cost is spread over its operations, so per-operation sums in the journal stay true.
        share = (time.perf_counter() - began) * 1000 / max(len(ops), 1)
        usage = Usage(model=None, prompt_version=f"{self.name}-rules-{self.version}", latency_ms=share)
        return [replace(op, usage=usage) for op in ops]


class _EpisodeRun:
    """One episode's pass: the ledger of proposals and the rules that add to it."""

    def __init__(self, ledger: Ledger, scene: str) -> None:
        self.ledger = ledger
        self.reconciler = Reconciler(ledger)
        self.reviser = Reviser(ledger, self.reconciler)
        self.plans = PlanCompletions(ledger)
        self.scene = scene

    def consider(self, st: Statement, refs: Referents) -> None:
        if st.speaker.owner is Owner.AGENT:
            self._assistant(st)
            return
        topic = parse_forget(st.text) or parse_forget(strip_preamble(st.text))
        if topic is not None:
            self._forget(st, topic)
            return
        if (correction := parse_correction(st.text)) is not None:
            self._correct(st, correction, refs)
            return
        text = restore_subject(question_head(strip_preamble(st.text)) or strip_preamble(st.text))
        reason = drop_reason(text)
        if reason is None or reason in _WEAK_REASONS:
            self._remember(st, text, refs, weak=reason)

    def _read(self, st: Statement, text: str, refs: Referents) -> _Reading:
        tense = detect_tense(expand_contractions(text))
        timing = resolve_times(text, st.at, tense)
        if _RECURRING.search(text):  # "my birthday is on March 3rd": a day of every year, not an event
            timing = Timing(_YEAR_AFTER_MONTH.sub(r"\1", timing.text), None, None, ())
        expanded = expand_contractions(timing.text)  # values are read once dates are absolute
        mention = find_subject(expanded, st.speaker, refs)
        facts = extract_facts(expanded, mention, st.speaker.subject, tense)
        subject = st.speaker.subject
        if mention is not None and (mention.via != "name" or facts or _PERSON_VERB.match(mention.rest)):
            subject = mention.subject
        memory = timing.text
        if mention is not None and mention.via == "pronoun":
            memory = re.sub(r"\b(?:he|she)\b", mention.display, memory, count=1, flags=re.IGNORECASE)
        memory = to_third_person(
            lead_with_date(memory, timing, st.at.date()), st.speaker.display, st.speaker.addressee
        )
        valid_from = st.at
        day = timing.day
        if day is not None and day <= st.at.date() and not (tense.future and not tense.past):
            valid_from = min(st.at, datetime(day.year, day.month, day.day, tzinfo=UTC))
        return _Reading(memory, subject, mention, facts, tense, timing, valid_from, timing.until)

    def _draft(self, reading: _Reading, st: Statement, fact: Fact | None) -> MemoryDraft:
        metadata: dict[str, object] = {}
        day = reading.timing.day
        if day is not None:
            metadata["event_date"] = day.isoformat()
            if fact is not None and fact.attribute == "plan" and day > st.at.date():
                metadata["valid_until"] = (day + timedelta(days=1)).isoformat()  # a dated plan expires after
        tags: tuple[str, ...] = ()
        if fact is not None:
            tags = ("plan",) if fact.attribute == "plan" else (fact.attribute,)
        elif reading.timing.day is not None:
            tags = ("event",)
        if reading.valid_to is not None:
            tags = (*tags, "temporary")
        text = reading.text
        if fact is not None:
            text = fact_text(fact, text, _display(reading, st, fact.subject), len(reading.facts) > 1)
        return MemoryDraft(
            text=text,
            subject=fact.subject if fact else reading.subject,
            slot=fact.slot if fact else None,
            value=fact.value if fact else None,
            owner=st.speaker.owner,
            layer=Layer.INTENTION if fact is not None and fact.attribute == "plan" else Layer.FACT,
            scene=self.scene,
            tags=tags,
            message_indices=(st.message_index,),
            confidence=_CONFIDENCE["slot" if fact else "plain"],
            valid_from=reading.valid_from,
            valid_to=reading.valid_to,
            metadata=metadata,
        )

    def _remember(self, st: Statement, text: str, refs: Referents, weak: str | None) -> None:
        reading = self._read(st, text, refs)
        reading = replace(reading, facts=[resolve_fact(f, self.ledger) for f in reading.facts])
        about_someone = reading.mention is not None and weak == "not about anyone"
        if weak is not None and not reading.facts and not about_someone:
            return  # short or impersonal, and no slot fact to carry it
        speaker = st.speaker.subject
        produced = []
        for fact in reading.facts:
            entry = self.reconciler.fact(fact, self._draft(reading, st, fact), st.at, speaker)
            if entry is not None:
                produced.append(entry)
        plain = self._draft(reading, st, None)
        if not reading.facts:
            entry = self.reconciler.plain(plain, st.at, speaker)
            if entry is not None:
                produced.append(entry)
        mention = reading.mention
        done = reading.tense.past or accomplishment(text)
        if mention is not None and done and not reading.tense.future:
            verb = first_verb(mention.rest) if reading.tense.past else None
            self.plans.complete(mention.subject, verb, text, produced, plain, st.at, speaker)

    def _forget(self, st: Statement, topic: str) -> None:
        facts: list[Fact] = []
        if _SELF.match(topic):
            expanded = expand_contractions(topic)
            mention = find_subject(expanded, st.speaker, Referents())
            facts = extract_facts(expanded, mention, st.speaker.subject, detect_tense(expanded))
        self.reviser.forget(topic, st.speaker.subject, facts, st.at)

    def _correct(self, st: Statement, correction: Correction, refs: Referents) -> None:
        pairs: list[tuple[Fact, MemoryDraft]] = []
        if len(correction.new.split()) >= 3:
            reading = self._read(st, correction.new, refs)
            pairs = [(f, self._draft(reading, st, f)) for f in reading.facts if f.kind is FactKind.STATE]
        self.reviser.correct(correction, st.speaker.subject, pairs, st.at, st.message_index)

    def _assistant(self, st: Statement) -> None:
        """Only recommendations are kept from assistant turns, and they belong to the agent."""
        text = strip_preamble(st.text)
        if not _RECOMMEND.match(text) or len(text.split()) < 4:
            return
        draft = MemoryDraft(
            text=f"Assistant recommended: {text}",
            subject="assistant",
            owner=Owner.AGENT,
            scene=self.scene,
            tags=("recommendation",),
            message_indices=(st.message_index,),
            confidence=_CONFIDENCE["agent"],
            valid_from=st.at,
        )
        self.reconciler.plain(draft, st.at, st.speaker.subject)


def _display(reading: _Reading, st: Statement, subject: str) -> str:
    """How a memory names ``subject``: the speaker's display name, or the person the statement is about."""
    mention = reading.mention
    if mention is not None and mention.subject == subject and subject != st.speaker.subject:
        return mention.display
    return st.speaker.display if subject == st.speaker.subject else subject.title()
