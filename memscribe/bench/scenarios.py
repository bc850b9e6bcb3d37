"""Seeded update scenarios: people whose facts change across dated sessions, with labelled ground truth.

A family script writes a story in chronological sessions (what was said, and what each statement does to a
fact). The labeller then replays the sessions in *ingest* order (out-of-order families ingest an older
session after a newer one) and derives, per statement, the operation a correct writer performs and, after
each session, the probes: question, current value(s), stale values, distractors. Labelling rules:

* first statement of a fact → ADD; the same value again (exact or paraphrased) → NOOP;
* a new value for a single-valued fact → SUPERSEDE, unless the statement is older than the value the store
  already holds (an out-of-order import) → NOOP, and that older value counts as stale;
* a correction ("sorry, I meant 2017, not 2018") → UPDATE; the wrong value becomes stale;
* a multi-valued item (pets, hobbies) added → ADD, removed → SUPERSEDE; a plan completed → SUPERSEDE;
* a forget request → DELETE; the forgotten value must not appear in any current memory afterwards;
* a temporary state ("in Madrid for ten days") → ADD, probed in its session only, and a distractor for the
  person's residence from then on; chatter and assistant replies → no operation.
"""

from __future__ import annotations

import dataclasses
import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memscribe.bench import phrasing as ph
from memscribe.bench.story import USER, Act, Session, Story

__all__ = [
    "FAMILIES",
    "Chunk",
    "Probe",
    "Scenario",
    "Turn",
    "generate_scenarios",
    "make_scenario",
    "scenario_dict",
]

SINGLE = ("residence", "employer", "job", "status", "partner", "diet", "vehicle", "food", "age", "school")
UNORDERED = tuple(a for a in SINGLE if not ph.ATTRIBUTES[a].ordered)
FORGETTABLE = ("phone", "address", "therapist")


@dataclass(frozen=True)
class Turn:
    """One message. ``op`` is the operation a correct writer performs for it (``None``: nothing to keep)."""

    role: str
    content: str
    op: str | None = None
    fact: str | None = None  # "<subject>/<attribute>", e.g. "priya/residence"


@dataclass(frozen=True)
class Probe:
    """A question asked after a chunk; any one of ``current`` is right (several for pets, hobbies)."""

    fact: str
    question: str
    current: tuple[str, ...]
    stale: tuple[str, ...] = ()
    distractors: tuple[str, ...] = ()  # other people's values, temporary places: wrong but not stale
    fresh: bool = True  # the fact was stated in this chunk (else a regression probe)


@dataclass(frozen=True)
class Chunk:
    """One session, ingested with one ``add()`` call, and what must hold after it."""

    session_id: str
    timestamp: datetime
    turns: tuple[Turn, ...]
    probes: tuple[Probe, ...]
    forgotten: tuple[str, ...] = ()  # values no current memory may contain after this chunk

    def messages(self) -> list[dict[str, str]]:
        return [{"role": t.role, "content": t.content} for t in self.turns]

    def expected_ops(self) -> list[str]:
        return [t.op for t in self.turns if t.op is not None]


@dataclass(frozen=True)
class Scenario:
    scenario_id: str
    family: str
    chunks: tuple[Chunk, ...]  # in ingest order
    final_facts: int  # facts (single values and multi-valued items) true after the last chunk

    @property
    def user_id(self) -> str:
        return self.scenario_id


# --- labelling ----------------------------------------------------------------------------------------------


@dataclass
class _Slot:
    question: str
    values: dict[str, datetime]  # current value(s) -> when stated
    stale: set[str]


class _Labeller:
    """Replays acts in ingest order and keeps what a perfect store would hold."""

    def __init__(self) -> None:
        self.slots: dict[tuple[str, str], _Slot] = {}
        self.forgotten: list[str] = []
        self.temporary: dict[str, set[str]] = defaultdict(set)

    def apply(self, act: Act, when: datetime) -> str:
        key = (act.subject, act.attr)
        if act.kind == "temp":
            self.temporary[act.subject].add(act.value)
            return "ADD"
        if act.kind == "forget":
            self.forgotten.extend(self.slots.pop(key).values)
            return "DELETE"
        slot = self.slots.setdefault(key, _Slot(act.question, {}, set()))
        if act.kind in ("drop", "done"):
            del slot.values[act.value]
            slot.stale.add(act.value)
            return "SUPERSEDE"
        if act.kind == "correct":
            slot.values.pop(act.old or "", None)
            slot.stale.add(act.old or "")
            slot.values[act.value] = when
            return "UPDATE"
        if act.value in slot.values:
            return "NOOP"
        if act.kind == "add" or not slot.values:
            slot.values[act.value] = when
            slot.stale.discard(act.value)
            return "ADD"
        if when < max(slot.values.values()):
            slot.stale.add(act.value)  # an older statement never replaces a newer one
            return "NOOP"
        slot.stale.update(slot.values)
        slot.values = {act.value: when}
        return "SUPERSEDE"

    def probes(self, touched: set[tuple[str, str]], temps: list[Act]) -> list[Probe]:
        out = []
        for (subject, attr), slot in sorted(self.slots.items()):
            if not slot.values:
                continue
            current = set(slot.values)
            stale = slot.stale - current
            others = {
                v for (s, a), o in self.slots.items() if a == attr and s != subject for v in {*o.values, *o.stale}
            }
            if attr == "residence":
                others |= self.temporary[subject]
            out.append(
                Probe(
                    f"{subject}/{attr}",
                    slot.question,
                    tuple(slot.values),
                    tuple(sorted(stale)),
                    tuple(sorted(others - current - stale)),
                    (subject, attr) in touched,
                )
            )
        for act in temps:
            home = self.slots.get((act.subject, "residence"))
            homes = {*home.values, *home.stale} if home else set()
            out.append(Probe(f"{act.subject}/whereabouts", act.question, (act.value,), (), tuple(sorted(homes))))
        return out


def _label(sessions: list[Session], order: list[int], scenario_id: str) -> tuple[tuple[Chunk, ...], int]:
    labeller = _Labeller()
    chunks = []
    for index in order:
        session = sessions[index]
        turns, touched, temps = [], set(), []
        for role, text, act in session.turns:
            if act is None:
                turns.append(Turn(role, text))
                continue
            turns.append(Turn(role, text, labeller.apply(act, session.when), f"{act.subject}/{act.attr}"))
            touched.add((act.subject, act.attr))
            if act.kind == "temp":
                temps.append(act)
        chunks.append(
            Chunk(
                f"{scenario_id}-s{index + 1}",
                session.when,
                tuple(turns),
                tuple(labeller.probes(touched, temps)),
                tuple(labeller.forgotten),
            )
        )
    return tuple(chunks), sum(len(slot.values) for slot in labeller.slots.values())


# --- families -----------------------------------------------------------------------------------------------


def _change(st: Story) -> None:
    attrs = st.rng.sample(SINGLE, 3)
    st.session()
    for attr in attrs:
        st.tell(USER, attr)
    for _ in range(st.rng.randint(2, 4)):
        st.session()
        for attr in st.rng.sample(attrs, st.rng.randint(1, 2)):
            st.tell(USER, attr)


def _multi_value(st: Story) -> None:
    st.session()
    st.add_item(USER, "pets")
    st.add_item(USER, "hobbies")
    st.add_item(USER, "hobbies")
    st.tell(USER, st.rng.choice(SINGLE))
    moves: list[Callable[[], bool]] = [
        lambda: st.add_item(USER, "pets"),
        lambda: st.add_item(USER, "hobbies"),
        lambda: st.drop_item(USER, "hobbies"),
        lambda: st.drop_item(USER, "pets"),
        lambda: st.duplicate(USER, "hobbies", exact=False),
    ]
    for _ in range(st.rng.randint(1, 3)):
        st.session()
        for move in st.rng.sample(moves, 2):
            move()
    st.session()
    st.drop_item(USER, st.rng.choice(("pets", "hobbies")))
    st.add_item(USER, "hobbies")


def _third_person(st: Story) -> None:
    shared, other = st.rng.sample(SINGLE, 2)
    people = [USER, st.person(), st.person()]
    st.session()
    for subject in st.rng.sample(people, 3):
        st.tell(subject, shared)
    for _ in range(st.rng.randint(2, 3)):
        st.session()
        for subject in st.rng.sample(people, 2):
            st.tell(subject, st.rng.choice((shared, other)))


def _correction(st: Story) -> None:
    mine, theirs = st.rng.sample(UNORDERED, 2)
    friend = st.person()
    st.session()
    st.tell(USER, mine)
    st.correct(USER, mine, distant=False)
    st.tell(USER, "since")
    if st.rng.random() < 0.6:
        st.correct(USER, "since", distant=False)
    st.session()
    st.tell(friend, theirs)
    st.tell(USER, mine)
    st.session()
    st.correct(friend, theirs, distant=True)


def _forget(st: Story) -> None:
    secret, other = st.rng.sample(FORGETTABLE, 2)
    keep = st.rng.choice(SINGLE)
    st.session()
    st.tell(USER, secret)
    st.tell(USER, keep)
    st.session()
    st.tell(USER, other)
    st.tell(USER, keep)
    st.session()
    st.forget(secret)
    st.session()
    if not (st.rng.random() < 0.5 and st.forget(other)):
        st.duplicate(USER, keep, exact=False)


def _out_of_order(st: Story) -> list[int]:
    first, second = st.rng.sample(SINGLE, 2)
    st.session()
    st.tell(USER, first)
    st.tell(USER, second)
    for _ in range(st.rng.randint(2, 3)):
        st.session()
        st.tell(USER, st.rng.choice((first, first, second)))
    order = list(range(len(st.sessions)))
    late = st.rng.randrange(len(order) - 1)  # this session is ingested after a newer one
    order.insert(st.rng.randint(late + 1, len(order) - 1), order.pop(late))
    return order


def _duplicate(st: Story) -> None:
    first, second = st.rng.sample(SINGLE, 2)
    st.session()
    st.tell(USER, first)
    st.tell(USER, second)
    if st.rng.random() < 0.3:
        st.duplicate(USER, first, exact=True)
    st.session()
    st.duplicate(USER, first, exact=True)
    st.tell(USER, second)
    st.session()
    st.duplicate(USER, second, exact=False)
    st.duplicate(USER, first, exact=st.rng.random() < 0.5)


def _temporary(st: Story) -> None:
    st.session()
    st.tell(USER, "residence")
    st.tell(USER, st.rng.choice(SINGLE[1:]))
    st.session()
    st.temporary()
    st.session()
    st.tell(USER, "residence")
    st.session()
    st.temporary()
    st.duplicate(USER, "residence", exact=False)


def _intention(st: Story) -> None:
    other = st.rng.choice(SINGLE)
    st.session()
    st.tell(USER, "plan")
    st.tell(USER, other)
    st.session()
    st.complete_plan()
    st.tell(USER, "plan")
    st.session()
    st.tell(USER, other)
    st.session()
    st.complete_plan()
    if st.rng.random() < 0.5:
        st.tell(USER, "plan")


def _mixed(st: Story) -> None:
    friend = st.person()
    mine = st.rng.sample(SINGLE, 2)
    theirs = st.rng.choice(SINGLE)
    st.session()
    for attr in mine:
        st.tell(USER, attr)
    st.tell(friend, theirs)
    st.add_item(USER, "hobbies")
    moves: list[Callable[[], bool]] = [
        lambda: st.tell(USER, st.rng.choice(mine)),
        lambda: st.tell(friend, theirs),
        lambda: st.add_item(USER, "hobbies"),
        lambda: st.drop_item(USER, "hobbies"),
        lambda: st.duplicate(USER, st.rng.choice(mine), exact=st.rng.random() < 0.5),
        st.temporary,
    ]
    corrected = False
    for _ in range(st.rng.randint(3, 5)):
        st.session()
        if not corrected and st.rng.random() < 0.3:
            corrected = st.correct(friend, theirs, distant=True)  # about something said in an earlier session
        for _ in range(st.rng.randint(2, 3)):
            st.rng.choice(moves)()


FAMILIES: dict[str, Callable[[Story], list[int] | None]] = {
    "change": _change,
    "multi_value": _multi_value,
    "third_person": _third_person,
    "correction": _correction,
    "forget": _forget,
    "out_of_order": _out_of_order,
    "duplicate": _duplicate,
    "temporary": _temporary,
    "intention": _intention,
    "mixed": _mixed,
}


def generate_scenarios(count: int, seed: int) -> list[Scenario]:
    """``count`` scenarios, families in rotation. Scenario ``i`` depends only on ``(seed, i)``."""
    return [make_scenario(seed, index) for index in range(count)]


def make_scenario(seed: int, index: int) -> Scenario:
    family = list(FAMILIES)[index % len(FAMILIES)]
    story = Story(random.Random(f"memscribe-updates/{seed}/{index}"))
    order = FAMILIES[family](story) or list(range(len(story.sessions)))
    story.finish()
    scenario_id = f"upd{seed}-{index:04d}-{family}"
    chunks, final_facts = _label(story.sessions, order, scenario_id)
    return Scenario(scenario_id, family, chunks, final_facts)


def scenario_dict(scenario: Scenario) -> dict[str, Any]:
    """A JSON-ready dict of a scenario (timestamps as ISO strings), e.g. to keep probes as training data."""
    data = dataclasses.asdict(scenario)
    for chunk in data["chunks"]:
        chunk["timestamp"] = chunk["timestamp"].isoformat()
    return data
