"""The lite writer: memory reconciliation by rules, with no language model.

Per statement: forget request? → DELETE. Correction? → UPDATE. Not memorable? → dropped. Otherwise times
are resolved, the subject found, slot facts read, and each fact (or the plain statement) is reconciled
against candidates and earlier statements of the episode. Assistant turns only yield recommendations,
owned by the agent.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from memscribe.core.clock import Clock
from memscribe.core.records import Episode, Layer, MemoryDraft, Message, Operation, Owner, Usage
from memscribe.read.topics import has_cjk, topics_of
from memscribe.read.traits import traits_of
from memscribe.write.lite.asked import cite_questions
from memscribe.write.lite.cues import hypothetical
from memscribe.write.lite.holding import during_stay, split_by_holding
from memscribe.write.lite.language import someone_else, statement_drop_reason
from memscribe.write.lite.lazy import compile_declared, lazy
from memscribe.write.lite.ledger import Ledger, Pending
from memscribe.write.lite.lexicon import JUDGEMENTS, NOT_NAMES, RELATION_MODS, RELATION_WORD
from memscribe.write.lite.matching import content_tokens, stem, topic_matches
from memscribe.write.lite.memorable import question_head, skip_wording, strip_preamble
from memscribe.write.lite.person import Mention, Referents, expand_contractions, find_subject, restore_subject
from memscribe.write.lite.phrases import drop_old_phrases, drop_replaced_clause
from memscribe.write.lite.plans import PlanCompletions, accomplishment
from memscribe.write.lite.reconcile import Reconciler, same_value
from memscribe.write.lite.requests import (
    POINTERS,
    Correction,
    parse_cjk_correction,
    parse_correction,
    parse_embedded_correction,
    parse_forget,
    parse_self_check,
)
from memscribe.write.lite.residue import drop_old_values, still_holds
from memscribe.write.lite.retime import complete_days, resolve_by_clause
from memscribe.write.lite.revise import Reviser
from memscribe.write.lite.schedule import moved_days
from memscribe.write.lite.segment import Statement, Unit, group_units, segment_episode, split_sentences
from memscribe.write.lite.slots import Fact, FactKind, extract_facts, first_verb, resolve_fact
from memscribe.write.lite.subjects import opens_with, split_by_subject
from memscribe.write.lite.tense import Tense, detect_tense
from memscribe.write.lite.timeref import Timing, resolve_times
from memscribe.write.lite.topical import TopicReplacer, statement_tags
from memscribe.write.ports import CandidateSource, WriteContext

__all__ = ["LiteOps", "LiteWriter"]

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
_SELF_SAYS = lazy(r"\b(?:I|I'm|I've|me|my|we|we're|we've|our|us)\b", re.IGNORECASE)
# Words that add nothing to a fact said again ("Yep, I'm still in Lisbon").
_CONFIRMING = frozenset({"i", "my", "me", "we", "our", "still", "yep", "yeah", "yes", "now", "really", "so", "too"})
_PRONOUN_TOPIC = lazy(r"^(?:about )?(?:him|her|them|it all|that person)$", re.IGNORECASE)
_CAPITAL = lazy(r"\b(?-i:[A-Z][a-z]{2,})\b")
# Short or impersonal statements are kept only when they carry a slot fact ("I like jazz").
_WEAK_REASONS = frozenset({"too little content", "not about anyone"})
_CONFIDENCE = {"slot": 0.9, "plain": 0.75, "agent": 0.7}


@dataclass(frozen=True)
class _Reading:
    """What the rules read from one statement."""

    text: str  # the memory text: the speaker's words, absolute dates
    subject: str
    mention: Mention | None
    facts: list[Fact]
    tense: Tense
    timing: Timing
    valid_from: datetime
    valid_to: datetime | None
    during_stay: bool = False  # said about the place of a stay that still holds ("porto is dreamy")


_Kept = tuple[Statement, _Reading, str | None]  # a statement, what was read from it, why it is weak


class LiteOps(list[Operation]):
    """The lite writer's operations, with ``skipped``: ``(message_index, why)`` for each message that
    no operation cites, so the add result says why a turn stored nothing."""

    skipped: list[tuple[int, str]]


class LiteWriter:
    """Rule-based writer: segmentation, time resolution, slot facts and reconciliation, no LLM.

    Deterministic and offline; candidates are used only to find what to compare against.
    """

    name = "lite"
    version = "1.0"

    def __init__(self, scene: str = "chat") -> None:
        self.scene = scene

    def likely_texts(self, episode: Episode) -> list[str]:
        """The people's messages, embedded together before the rules run: a message kept whole is searched
        for as it was said. Assistant messages are not: only a recommendation is kept from one, a sentence at
        a time (on the natural set a quarter of the batch was assistant turns no rule asked for)."""
        return [m.content.strip() for m in episode.messages if m.role == "user" and m.content.strip()]

    def warm_up(self) -> None:
        """Compile the rules' patterns now (about 130 ms), so that the first episodes do not pay for them."""
        compile_declared()

    def propose(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> list[Operation]:
        """Operations for ``episode``; ``clock`` is unused because every time comes from the episode."""
        began = time.perf_counter()
        run = _EpisodeRun(Ledger(candidates), context.hints.get("scene", self.scene), episode.messages)
        refs = Referents(known=run.named_before)
        statements = list(segment_episode(episode))
        for statement in statements:
            if statement.speaker.owner is Owner.AGENT:
                run.assistant(statement)
        for unit in group_units([s for s in statements if s.speaker.owner is not Owner.AGENT]):
            run.consider(unit, refs)
        ops = cite_questions(run.ledger.operations(), episode.messages)
        # The episode's cost is spread over its operations, so per-operation sums in the journal stay true.
        share = (time.perf_counter() - began) * 1000 / max(len(ops), 1)
        usage = Usage(model=None, prompt_version=f"{self.name}-rules-{self.version}", latency_ms=share)
        out = LiteOps(replace(op, usage=usage) for op in ops)
        cited = {i for op in out if op.draft is not None for i in op.draft.messages_of(episode.id)}
        out.skipped = [(i, skip_wording(why)) for i, why in sorted(run.why.items()) if i not in cited]
        return out


class _EpisodeRun:
    """One episode's pass: the ledger of proposals and the rules that add to it."""

    def __init__(self, ledger: Ledger, scene: str, messages: Sequence[Message] = ()) -> None:
        self.ledger = ledger
        self.messages = messages
        self.reconciler = Reconciler(ledger)
        self.reviser = Reviser(ledger, self.reconciler)
        self.plans = PlanCompletions(ledger)
        self.topical = TopicReplacer(ledger)
        self.scene = scene
        self.message, self.said_before = -1, ""  # the words of the current message so far, for "him"
        self.why: dict[int, str] = {}  # message index → why a statement of it was dropped (first reason)
        self.forgotten: list[str] = []  # topics the episode asked to forget
        self.forgot_in = -1  # the message of the last forget request
        self.put_right: list[str] = []  # values the episode corrected in passing ("its ADAEZE not adaze")
        self.names: dict[str, bool] = {}  # lowercase words looked up as people named before
        self.unit_said: list[_Kept] = []  # the readings of the unit being considered, so far

    def named_before(self, word: str) -> bool:
        """Whether ``word`` names a person in what was said before: after a relation ("my brother kofi, he's
        34") or with a capital inside a sentence ("dinner with Kofi")."""
        if word not in self.names:
            texts = [r.text for r in self.ledger.stored_similar(word, None)]
            texts += [e.draft.text for e in self.ledger.pending() if e.draft is not None]
            naming = re.compile(rf"\b(?:my|our)\s+{RELATION_MODS}(?:{RELATION_WORD})\s+{re.escape(word)}\b", re.I)
            capital = re.compile(rf"(?<!^)(?<![.!?]\s)\b{re.escape(word.capitalize())}\b")
            self.names[word] = any(naming.search(t) or capital.search(t) for t in texts)
        return self.names[word]

    def _request(self, st: Statement, refs: Referents) -> bool:
        """Handle a forget request or a correction; whether ``st`` was one."""
        topic = parse_forget(st.text) or parse_forget(strip_preamble(st.text))
        if topic is not None:
            self._forget(st, topic)
            return True
        said = resolve_times(st.text, st.at, detect_tense(st.text)).text  # dates compare as stored
        correction = (
            parse_correction(said)
            or (parse_cjk_correction(said) if has_cjk(said) else None)
            or parse_self_check(self.said_before, said)
        )
        if correction is None:
            # "we're in wellington not auckland 😅 (lower hutt to be precise)": a value put right in passing
            # changes the memory that holds it; the statement is kept, as it says more.
            passing = parse_embedded_correction(said)
            if passing is not None and self.reviser.correct(passing, st.speaker.subject, [], st.at, st.message_index):
                self.put_right.append(passing.old or "")
            return False
        return self._correct(st, correction, refs)

    def consider(self, unit: Unit, refs: Referents) -> None:
        """One unit: requests are applied; the rest is kept in the speaker's words, what is only a plan, a
        wish or a condition apart from what is a fact, so that a what-if never reads as the current value."""
        requests: set[int] = set()
        readings: list[_Kept] = []
        self.unit_said = readings  # what "forget that" takes back when it closes the unit's own words
        for st in unit.statements:
            refs.at_message(st.message_index)
            if st.message_index != self.message:
                self.message, self.said_before = st.message_index, ""
            handled = st.sentence in requests or self._request(st, refs)
            self.said_before += " " + st.text
            if handled:
                requests.add(st.sentence)
                self.why.setdefault(st.message_index, "request")
                continue
            said = question_head(strip_preamble(st.text)) or strip_preamble(st.text)
            text = restore_subject(said)  # "Just got back from Paris" is read as "I just got back from Paris"
            reason = statement_drop_reason(text)
            if reason is not None:  # "hi!" is all preamble: say why from the words as said
                said_why = statement_drop_reason(st.text) if reason == "empty" else reason
                self.why.setdefault(st.message_index, said_why or reason)
            if reason is None or reason in _WEAK_REASONS:
                reading = self._read(st, text, refs)
                facts = [resolve_fact(f, self.ledger) for f in reading.facts]
                readings.append((st, replace(reading, facts=facts), reason))
        # "jake and I broke up. please just forget about him": what a request forgets is not kept from its unit.
        readings = [r for r in readings if r[0].sentence not in requests and not self._forgotten(r[0].text)]
        if not any(r[2] is None or r[1].facts for r in readings):
            return  # nothing but fragments: "lol", "ok so"
        speaker = unit.first.speaker.subject
        for part in split_by_subject(
            readings,
            who=lambda r: opens_with(r[0].text, r[1].mention, r[1].subject, speaker),
            speaker=speaker,
            substantial=_substantial,
        ):
            self._keep(unit, part, requests)

    def _keep(self, unit: Unit, readings: list[_Kept], requests: set[int]) -> None:
        """The statements of one person in a unit: what is a fact apart from what is a plan or a wish."""
        # Fragments stay with the statements around them ("¡Adoptamos una gatita! Se llama Nala").
        wishes = [r for r in readings if hypothetical(r[0].text)]
        facts_said = [r for r in readings if r not in wishes]
        if not any(r[2] is None or r[1].facts for r in facts_said):
            facts_said, wishes = [], readings
        elif not any(r[2] is None or r[1].facts for r in wishes):
            facts_said, wishes = readings, []
        groups = split_by_holding(
            facts_said, text=lambda r: r[0].text, substantial=lambda r: r[2] is None or bool(r[1].facts)
        )
        for group in (*groups, wishes):
            if group:
                self._remember(_group_text(unit, [r[0] for r in group], requests), group)

    def _read(self, st: Statement, text: str, refs: Referents) -> _Reading:
        tense = detect_tense(expand_contractions(text))
        timing = resolve_times(text, st.at, tense)
        if _RECURRING.search(text):  # "my birthday is on March 3rd": a day of every year, not an event
            timing = Timing(_YEAR_AFTER_MONTH.sub(r"\1", timing.text), None, None, ())
        expanded = expand_contractions(timing.text)  # values are read once dates are absolute
        mention = find_subject(expanded, st.speaker, refs)
        if mention is not None and mention.via == "name" and _moves_itself(mention, expanded):
            mention = None  # "soccer moved to thursdays": an activity moved to another day, no one's name
        facts = extract_facts(expanded, mention, st.speaker.subject, tense)
        subject = st.speaker.subject
        if mention is not None and (
            mention.via != "name"
            or facts
            or _PERSON_VERB.match(mention.rest)
            or self._known_person(mention, expanded, st.speaker.subject)
        ):
            subject = mention.subject
        facts = [self._held_ending(fact) for fact in facts]
        valid_from = st.at
        day = timing.day
        if day is not None and day <= st.at.date() and not (tense.future and not tense.past):
            valid_from = min(st.at, datetime(day.year, day.month, day.day, tzinfo=UTC))
        return _Reading(timing.text, subject, mention, facts, tense, timing, valid_from, timing.until)

    def _held_ending(self, fact: Fact) -> Fact:
        """An ending of a value its subject holds in a single-valued slot ends that slot: "mark finally quit pwc"
        after "my husband Mark is an auditor at PwC" ends his employer, not a hobby called "pwc"."""
        if fact.kind is not FactKind.END or fact.single or not fact.value:
            return fact
        for record in self.ledger.stored_subject(fact.subject):
            attribute = (record.slot or "").partition("/")[2]
            if record.value and record.value.casefold() == fact.value.casefold() and attribute != fact.attribute:
                return Fact(fact.subject, attribute, record.value, True, FactKind.END)
        return fact

    def _known_person(self, mention: Mention | None, text: str, speaker: str) -> bool:
        """Whether a statement opens with a name the speaker wrote before inside a sentence ("my husband Mark
        is …", then "mark finally quit pwc"): a known person, whatever the verb after the name."""
        if mention is None or mention.via != "name" or mention.display.lower() in NOT_NAMES:
            return False
        records = self.ledger.stored_subject(speaker)[:30] + self.ledger.stored_similar(text, None)
        return any(m.start() > 0 and m.group(0) == mention.display for r in records for m in _CAPITAL.finditer(r.text))

    def _draft(self, reading: _Reading, st: Statement, fact: Fact | None) -> MemoryDraft:
        metadata: dict[str, object] = {}
        day, ends = reading.timing.day, reading.timing.ends
        if day is not None:
            metadata["event_date"] = day.isoformat()
            if fact is not None and fact.attribute == "plan" and ends is not None and ends > st.at.date():
                metadata["valid_until"] = ends.isoformat()  # a dated plan expires after the period it names
        topics = sorted(topics_of(reading.text) or self._asked_topics(st.message_index))
        if topics:
            metadata["topics"] = topics
        tags: tuple[str, ...] = ()
        if fact is not None:
            tags = ("plan",) if fact.attribute == "plan" else (fact.attribute,)
        elif reading.timing.day is not None:
            tags = ("event",)
        tags = (*tags, *statement_tags(reading.text))
        if (reading.valid_to is not None or reading.during_stay) and "temporary" not in tags:
            tags = (*tags, "temporary")
        return MemoryDraft(
            text=reading.text,
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

    def _remember(self, said: str, kept: list[_Kept]) -> None:
        facts = [f for _, r, _ in kept for f in r.facts]
        primary = _primary(facts, kept[0][0].speaker.subject)
        lead = next((r for _, r, _ in kept if primary in r.facts), kept[0][1]) if primary else kept[0][1]
        st = next(s for s, r, _ in kept if r is lead)
        speaker = st.speaker.subject
        other = someone_else(st.text) if lead.subject == speaker else None
        if other == "someone" and any(_SELF_SAYS.search(s.text) for s, _, _ in kept if s is not st):
            other = None  # "he's home!! we renamed him Dash": an unnamed "he" in the speaker's own story
        if other is not None:  # "mum was just diagnosed with diabetes" is not the speaker's diagnosis
            subject = f"{speaker}'s {other}"
            facts = [replace(f, subject=subject) if f.subject == speaker else f for f in facts]
            primary = _primary(facts, speaker)
            lead = replace(lead, subject=subject)
        # The memory keeps every sentence of its group; each clause's times are read in its own tense:
        # "said bye to my team today. first day at the new place is monday" is not last Monday.
        memory = complete_days(resolve_by_clause(said, st.at), self.said_before)
        if _RECURRING.search(memory):  # "my birthday is on March 3rd": a day of every year, not an event
            memory = _YEAR_AFTER_MONTH.sub(r"\1", memory)
        current = self._current_text(memory, lead.subject, [*self._guessed(st.message_index), *self.put_right])
        stay = during_stay(self.ledger, memory, lead.subject, st.at)
        reading = replace(lead, text=current, facts=facts, during_stay=stay)
        indices = tuple(sorted({s.message_index for s, _, _ in kept}))
        produced: list[Pending] = []
        # "handed in my notice. going freelance": the new value replaces the old one; no ending beside it.
        states = {f.slot for f in facts if f.kind is FactKind.STATE}
        for fact in facts:
            if fact is primary or (fact.kind is FactKind.END and fact.slot not in states):
                draft = replace(self._draft(reading, st, fact), message_indices=indices)
                if current != memory:
                    draft = replace(draft, metadata={**draft.metadata, "said": memory})
                entry = self.reconciler.fact(fact, draft, st.at, speaker)
                if entry is not None:
                    produced.append(entry)
        self._beside(kept, reading, primary, speaker)
        plain = replace(self._draft(reading, st, None), message_indices=indices)
        if current != memory:  # the words as said stay with the memory; the text holds the current value
            plain = replace(plain, metadata={**plain.metadata, "said": memory})
        history = [e.draft for e in produced if e.draft is not None]
        if history and all("history" in d.tags for d in history):
            # An old chat imported late: its values are history, what else it says still holds ("I live in munich
            # … my brother Jonas just got married to Mia!!" keeps the wedding, current)
            olds = {d.value.lower() for d in history if d.value}
            rest = still_holds(plain.text, lambda clause: any(v in clause.lower() for v in olds))
            plain = replace(plain, text=rest, metadata={**plain.metadata, "said": memory}) if rest else plain
        if not any(e.draft is not None and e.draft.text == plain.text for e in produced) and not self._confirmed_all(
            plain.text
        ):
            # Lossless: the statement is kept in its own words even when its fact was already known.
            entry = self.reconciler.plain(plain, st.at, speaker)
            if entry is not None:
                produced.append(entry)
        if produced:
            self.topical.replace(produced[0], st.at, speaker)
        for done_st, done, _ in kept:
            mention = done.mention
            finished = done.tense.past or accomplishment(done_st.text)
            if mention is not None and finished and not done.tense.future:
                verb = first_verb(mention.rest) if done.tense.past else None
                self.plans.complete(mention.subject, verb, done_st.text, produced, plain, done_st.at, speaker)

    def _current_text(self, memory: str, subject: str, guessed: Sequence[str] = ()) -> str:
        """The memory's text as it holds now: a change leaves out the old value it names ("left X for Y"), and a
        value put right leaves out the one it replaces, whether said before or only guessed by the assistant in
        ``guessed`` ("we're in wellington not auckland")."""
        current = without_old_value(memory)
        topics = topics_of(memory)
        older = [r for r in self.ledger.stored_similar(memory, Owner.USER, limit=12) if "hypothetical" not in r.tags]
        mine = [r for r in older if r.subject.casefold() == subject.casefold()]
        own = [r.text for r in mine]
        on_topic = [r.text for r in mine if traits_of(r).topics & topics]
        current = drop_replaced_clause(drop_old_phrases(current, [*own, *guessed]), on_topic)
        return drop_old_values(current, on_topic, [r.text for r in older], own)

    def _confirmed_all(self, text: str) -> bool:
        """Whether a memory this episode just confirmed (NOOP) already holds every content word of ``text``."""
        words = content_tokens(text) - _CONFIRMING
        confirmed = self.ledger.confirmed()
        for record in self.ledger.stored_similar(text, None):
            if record.id in confirmed:
                heads = {t[:3] for t in content_tokens(record.text)} | {"user"}
                if all(w[:3] in heads for w in words):
                    return True
        return False

    def _beside(self, kept: list[_Kept], reading: _Reading, primary: Fact | None, speaker: str) -> None:
        """Further slot facts of the memory ("I moved to Denver. I'm a nurse"), each kept beside it in the words
        of its own statement, so that changing one later leaves the others current."""
        slots = {primary.slot} if primary is not None else set()
        for st, own, _ in kept:
            for fact in own.facts:
                if reading.subject != speaker and fact.subject == speaker:
                    continue  # the memory is about someone else: no fact of the speaker's comes from it
                if fact is primary or fact.kind is not FactKind.STATE or fact.slot in slots:
                    continue
                slots.add(fact.slot)
                text = resolve_times(st.text, st.at, own.tense).text
                draft = self._draft(replace(reading, text=text, timing=own.timing), st, fact)
                # On the memory's topics too, so whatever replaces the memory replaces this fact with it.
                topics = sorted(topics_of(reading.text) | topics_of(text))
                metadata = {**draft.metadata, "topics": topics}
                draft = replace(draft, message_indices=(st.message_index,), metadata=metadata)
                self.reconciler.fact(fact, draft, st.at, speaker)

    def _forget(self, st: Statement, topic: str) -> None:
        if topic.lower() in POINTERS and self.forgot_in == st.message_index:
            return  # "esquece aquilo do meu aniversário. não quero isso salvo": the same request, said again
        self.forgot_in = st.message_index
        if topic.lower() in POINTERS and self.unit_said:
            self.unit_said.clear()  # "I'm pregnant, haven't told anyone. please forget that": what was just said
            return
        if _PRONOUN_TOPIC.match(topic.strip()) and (name := self._named_before(st)) is not None:
            topic = name  # "jake and I broke up. please just forget about him"
        facts: list[Fact] = []
        if _SELF.match(topic):
            expanded = expand_contractions(topic)
            mention = find_subject(expanded, st.speaker, Referents())
            facts = extract_facts(expanded, mention, st.speaker.subject, detect_tense(expanded))
        self.forgotten.append(topic)
        self.reviser.forget(topic, st.speaker.subject, facts, st.at)

    def _forgotten(self, text: str) -> bool:
        return any(
            topic_matches(topic, text) for topic in self.forgotten if topic.lower() not in POINTERS | {"it"}
        )

    def _named_before(self, st: Statement) -> str | None:
        """The last person named in the speaker's words before ``st``: a name stored with a capital."""
        known = {m.group(0).lower(): m.group(0) for r in self.ledger.stored_subject(st.speaker.subject)
                 for m in _CAPITAL.finditer(r.text) if m.start() > 0}  # fmt: skip
        before = [w for w in re.findall(r"[\w'-]+", self.said_before) if w.lower() in known]
        return known[before[-1].lower()] if before else None

    def _correct(self, st: Statement, correction: Correction, refs: Referents) -> bool:
        pairs: list[tuple[Fact, MemoryDraft]] = []
        if len(correction.new.split()) >= 3:
            reading = self._read(st, correction.new, refs)
            pairs = [(f, self._draft(reading, st, f)) for f in reading.facts if f.kind is FactKind.STATE]
        if correction.old is not None and same_value(correction.old, correction.new):
            return False  # "it's a CX-3 not a 3": nothing to swap; the statement is kept as said
        self.reviser.correct(correction, st.speaker.subject, pairs, st.at, st.message_index)
        return True  # a correction of something never said is not itself a memory

    def _guessed(self, index: int) -> list[str]:
        """What the assistant said in this episode before message ``index``: the guesses a user may put right."""
        return [m.content for m in self.messages[:index] if m.role == "assistant"]

    def _asked_topics(self, index: int) -> frozenset[str]:
        """The topics of what a message answers, for an answer that names none: "we actually moved." — "Where did
        you end up?" — "vancouver! well, burnaby technically" is said of home. The topics of the question the
        message before asked, or, when it names none, of what the speaker said before it."""
        if index < 1 or index >= len(self.messages) or self.messages[index - 1].role != "assistant":
            return frozenset()
        asked = [s for s in split_sentences(self.messages[index - 1].content) if s.endswith("?")]
        if not asked:
            return frozenset()
        found = topics_of(" ".join(asked))
        before = self.messages[index - 2] if index >= 2 else None
        if not found and before is not None and before.role == "user":
            found = topics_of(before.content)
        return found

    def assistant(self, st: Statement) -> None:
        """Only recommendations are kept from assistant turns, and they belong to the agent."""
        text = strip_preamble(st.text)
        if not _RECOMMEND.match(text) or len(text.split()) < 4:
            self.why.setdefault(st.message_index, "assistant")
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


_FROM_TO = lazy(
    r"\b(?P<verb>switched|switching|moved|moving|went|changed|upgraded|transferred|relocated|bumped|jumped|swapped"
    r"|traded|downgraded|going|taken over|took over|takes over)(?P<up> up| back)? from (?P<old>[^,.;!?]{1,40}?)"
    r" (?=(?:to|as)\b)",
    re.IGNORECASE,
)

# "我老公刚从腾讯跳槽去华为了", "我从北京搬到成都了": the place or company left, before the verb that leaves it.
_CJK_FROM = lazy(r"从[^，。；！？、,.;!?\s从]{1,12}?(?=(?:跳槽|搬家?|换|转|调)[^，。；！？]{0,3}?(?:到|去|进|成))")

# "swapped all my coffees for matcha", "traded the civic for a bike": what was given, before what it was given for.
_SWAPPED = lazy(r"\b(?P<verb>swapped|traded|exchanged)\s+(?P<old>[^,.;!?]{1,40}?)\s+(?=for\s+\w)", re.I)


_LEFT_FOR = lazy(
    r"\b(?P<verb>left|quit|ditched|leaving|quitting)\s+(?P<old>[^,.;!?]{1,40}?)\s+(?=for (?:a|an|the)\b"
    r"|and (?:then |now )?(?:went|joined|started|moved|took|signed|landed|got|is joining|'s joining|am joining"
    r"|'m joining)\b)",
    re.I,
)

# "got out of South San Francisco — we're in Cambridge now", "left Google, now at Meta": a place left, then the
# one where the speaker is now, named in the next clause.
_LEFT_PLACE = lazy(
    r"\b(?P<verb>got out|moved out|moved away|left)(?: of| from)?\s+"
    r"(?P<old>(?-i:[A-Z])[\w'&-]*(?:\s(?-i:[A-Z])[\w'&-]*){0,4})"
    r"(?=\s?[—–,;]\s*(?:and\s+)?(?:(?:we're|we are|I'm|I am)\s+)?(?:now\s+)?"
    r"(?:in|at|living in|based in|working at)\s+(?-i:[A-Z]))",
    re.I,
)


# "they've overtaken wolf alice as my favourite band": what a new favourite or holder displaced.
_DISPLACED = lazy(
    r"\b(?P<verb>overtaken|overtook|overtakes|replaced|replaces|dethroned|displaced|knocked|bumped)\s+"
    r"(?P<old>[^,.;!?]{1,40}?)\s+(?:off |out )?(?=as (?:my|our|the)\b)",
    re.IGNORECASE,
)


# "I'm in aarhus, not copenhagen!": a value set against the one the speaker means, closing its sentence. A
# judgement ("not bad", "not worth it", "not sure") is no value.
_JUDGED = r"(?!(?:" + "|".join(sorted(JUDGEMENTS, key=len, reverse=True)) + r"|any ?more|a lot)\b)"
_NOT_OLD = lazy(
    r",\s*not\s+" + _JUDGED + r"(?:(?:in|at|on|the|a|an)\s+)?[\w'-]+(?:[ \t][\w'-]+){0,2}(?=\s*(?:[.!?;]|$))",
    re.IGNORECASE,
)
# "lol not vegetarian, I eat fish!": a sentence that opens by setting aside a value, then says the one meant.
_NOT_FIRST = lazy(
    r"(?:^|(?<=[.!?]\s))(?:(?:lol|haha|no|nah|ok|well)[,!.]?\s+)?not\s+" + _JUDGED
    + r"(?:(?:a|an|the)\s+)?[\w'-]+(?:[ \t](?!(?:anymore|any|now|yet|either)\b)[\w'-]+)?[,!;]+\s+(?=\S)",
    re.IGNORECASE,
)


def without_old_value(text: str) -> str:
    """ "switched from headspace to the Waking Up app" → "switched to the Waking Up app", "left X for a job at Y"
    → "left for a job at Y", "quit X and joined Y" → "quit and joined Y", "got out of X — we're in Y now" → "got
    out — we're in Y now", "I'm in aarhus, not copenhagen!" → "I'm in aarhus!", "overtaken X as my favourite" →
    "overtaken as my favourite", "从腾讯跳槽去华为" → "跳槽去华为": the value that stopped holding is left out of the
    current memory (the words as said are kept beside it)."""
    text = _FROM_TO.sub(lambda m: f"{m.group('verb')}{m.group('up') or ''} ", text)
    text = _LEFT_PLACE.sub(lambda m: m.group("verb"), text)
    text = _DISPLACED.sub(lambda m: f"{m.group('verb')} ", text)
    text = _NOT_OLD.sub("", text)
    text = _NOT_FIRST.sub("", text)
    text = _CJK_FROM.sub("", text) if has_cjk(text) else text
    text = _SWAPPED.sub(lambda m: f"{m.group('verb')} ", text)
    return _LEFT_FOR.sub(_left, text)


def _left(m: re.Match[str]) -> str:
    """ "quit X and joined Y" leaves X out only when the clause names the new place ("joined Unilever"): "quit
    smoking and started running" and "left the party and went home" name nothing that replaces X."""
    rest = m.string[m.end() :]
    if rest.startswith("and") and not _NAMED_AFTER.search(re.split(r"[.;!?]", rest, maxsplit=1)[0]):
        return m.group(0)
    return f"{m.group('verb')} "


_NAMED_AFTER = lazy(r"\s(?-i:[A-Z][\w&.-]+)")


def _moves_itself(mention: Mention, text: str) -> bool:
    """Whether the name a statement opens with is an activity it moves to another day or time."""
    return any(stem(mention.subject) == what for what, _ in moved_days(text))


def _clauses_as_said(sentence: list[Statement], inside: list[Statement]) -> str:
    """The clauses ``inside`` of one sentence in the words as said: the stretch from the first to the last when
    they follow one another ("my sister is happy and I started at Asda", not "My sister is happy I started at
    Asda"), else each clause as split, one sentence each."""
    apart = ". ".join(s.text.rstrip(".") for s in inside)
    whole, spans, at = sentence[0].whole, [], 0
    for st in sentence:
        found = whole.lower().find(st.text.lower(), at)
        if not whole or found < 0:
            return apart
        spans.append((found, found + len(st.text)))
        at = found + len(st.text)
    chosen = [i for i, st in enumerate(sentence) if any(st is s for s in inside)]
    if chosen != list(range(chosen[0], chosen[-1] + 1)):
        return apart
    return whole[spans[chosen[0]][0] : spans[chosen[-1]][1]]


def _group_text(unit: Unit, members: list[Statement], requests: set[int]) -> str:
    """The words of ``members``: whole sentences where all their statements are members, else the clauses."""
    chosen = {id(s) for s in members}
    parts: list[tuple[str, int, bool]] = []  # (words, sentence number, whole sentence as said)
    for number in dict.fromkeys(s.sentence for s in unit.statements):
        if number in requests:
            continue
        sentence = [s for s in unit.statements if s.sentence == number]
        inside = [s for s in sentence if id(s) in chosen]
        if inside and len(inside) == len(sentence):
            parts.append((sentence[0].whole or " ".join(s.text for s in sentence), number, True))
        elif inside:
            parts.append((_clauses_as_said(sentence, inside), number, False))
    runs_on = {s.sentence for s in unit.statements if s.runs_on}

    # A part that ends without punctuation (a line of a list, a clause cut from its sentence) is ended with a
    # period before the next, so two parts never read as one run-on sentence — unless they were said as one.
    def ended(i: int) -> str:
        text, number, whole = parts[i]
        said_as_one = whole and parts[i + 1][2] and parts[i + 1][1] == number + 1 and number + 1 in runs_on
        return f"{text}." if text[-1:].isascii() and text[-1:].isalnum() and not said_as_one else text

    return " ".join([*(ended(i) for i in range(len(parts) - 1)), *(p[0] for p in parts[-1:])])


def _substantial(kept: _Kept) -> bool:
    return kept[2] is None or bool(kept[1].facts)


def _primary(facts: list[Fact], speaker: str) -> Fact | None:
    """The fact a memory carries: one about the speaker first, single-valued first, states before plans."""
    ranked = sorted(
        (f for f in facts if f.kind is not FactKind.END),
        key=lambda f: (f.subject != speaker, not f.single, f.kind is FactKind.INTENT),
    )
    return ranked[0] if ranked else None
