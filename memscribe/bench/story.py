"""The story writer behind the update scenarios: sessions in chronological order and what each statement does.

A family script calls :class:`Story` events (``tell``, ``add_item``, ``correct``, ``forget``, …); each event
renders a varied sentence from :mod:`memscribe.bench.phrasing`, appends it with an assistant reply to the
current session, and records an :class:`Act` saying which fact it touches and how. Labels are derived from
the acts later, in ingest order, by :mod:`memscribe.bench.scenarios`.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from memscribe.bench import phrasing as ph

__all__ = ["USER", "Act", "Session", "Story"]

USER = "user"


@dataclass(frozen=True)
class Act:
    kind: str  # set | add | drop | done | correct | forget | temp
    subject: str
    attr: str
    value: str
    question: str
    old: str | None = None


@dataclass
class Session:
    when: datetime
    turns: list[tuple[str, str, Act | None]] = field(default_factory=list)


class Story:
    """Writes one scenario's sessions in chronological order and tracks what is true as it goes."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        start = datetime(2021, 1, 4, tzinfo=UTC) + timedelta(days=rng.randrange(1000))
        self.when = start.replace(hour=rng.randrange(8, 22), minute=rng.randrange(60))
        self.sessions: list[Session] = []
        self.names: dict[str, str | None] = {USER: None}
        self.used: dict[str, set[str]] = defaultdict(set)
        self.current: dict[tuple[str, str], list[str]] = {}
        self.said: dict[tuple[str, str, str], str] = {}
        self.kind_of: dict[str, str] = {}
        self.employer_in: dict[tuple[str, str], str] = {}

    # --- sessions and chatter ---

    def session(self) -> None:
        if self.sessions:
            self.finish()
            self.when += timedelta(days=self.rng.randint(30, 200), minutes=self.rng.randint(-300, 300))
        self.sessions.append(Session(self.when))
        self._maybe_chatter(0.6)

    def finish(self) -> None:
        """Close the current session: maybe some chatter, and never leave it empty."""
        self._maybe_chatter(0.4)
        if not self.sessions[-1].turns:
            self.chatter()

    def chatter(self) -> None:
        turns = self.sessions[-1].turns
        turns.append(("user", self.rng.choice(ph.CHATTER["user"]), None))
        turns.append(("assistant", self.rng.choice(ph.CHATTER["assistant"]), None))

    def _maybe_chatter(self, chance: float) -> None:
        if self.rng.random() < chance:
            self.chatter()

    def person(self) -> str:
        """A new third person, named ("Priya") or by relation ("my sister"); returns its subject key."""
        pool = ph.FRIENDS if self.rng.random() < 0.6 else ph.RELATIVES
        name = self.rng.choice([n for n in pool if n not in self.names.values()])
        key = name.lower().replace(" ", "-")
        self.names[key] = name
        return key

    def _say(self, text: str, act: Act, reply: str | None = None) -> None:
        if self.rng.random() < 0.12:
            text = f"{self.rng.choice(('Hi!', 'Quick update.', 'Oh, one more thing.'))} {text}"
        turns = self.sessions[-1].turns
        turns.append(("user", text, act))
        turns.append(("assistant", reply or self.rng.choice(ph.ACKS), None))

    # --- wording ---

    def _value(self, attr: str, slot: tuple[str, str]) -> str | None:
        spec = ph.ATTRIBUTES[attr]
        if spec.pool == "phone":
            return f"555-{self.rng.randint(1000, 9999)}"
        if spec.pool == "address":
            return f"{self.rng.randint(2, 98)} {self.rng.choice(ph.POOLS['street'])} Street"
        pool = ph.POOLS[spec.pool]
        free = [v for v in pool if v not in self.used[spec.pool]]
        if spec.ordered:  # advance to the next free value (a year older; engaged, then married)
            cur = self.current.get(slot)
            later = pool[pool.index(cur[0]) + 1 :] if cur else pool[: len(pool) * 3 // 4]
            free = [v for v in later if v in free][: 1 if cur else None]
        if not free:
            return None
        value = self.rng.choice(free)
        self.used[spec.pool].add(value)
        return value

    def _render(self, subject: str, attr: str, mode: str, value: str, old: str | None = None) -> str:
        name = self.names[subject]
        templates = ph.ATTRIBUTES[attr].templates[f"{'1' if name is None else '3'}:{mode}"]
        return _sentence(self.rng.choice(templates).format(**self._fields(subject, attr, value, old)))

    def _question(self, subject: str, attr: str) -> str:
        name = self.names[subject]
        template = ph.ATTRIBUTES[attr].templates[f"{'1' if name is None else '3'}:ask"][0]
        return _sentence(template.format(**self._fields(subject, attr, "", None)))

    def _fields(self, subject: str, attr: str, value: str, old: str | None) -> dict[str, str]:
        name = self.names[subject] or ""
        plan = next((p for p in ph.PLANS if p.value == value), None)
        return {
            "v": value,
            "av": ph.with_article(value) if value else "",
            "S": _sentence(name),
            "s": name,
            "old": old or "",
            "kind": self.kind_of.get(value, "pet"),
            "emp": self.employer_in.get((subject, attr), ""),
            "plan": plan.plan if plan else "",
            "done": plan.done if plan else "",
        }

    def _act(self, kind: str, subject: str, attr: str, value: str, old: str | None = None) -> Act:
        return Act(kind, subject, attr, value, self._question(subject, attr), old)

    # --- events; each returns False when it cannot happen in the current state ---

    def tell(self, subject: str, attr: str) -> bool:
        """State a first value of a single-valued fact, or change it."""
        slot = (subject, attr)
        if attr == "since" and slot not in self.employer_in:
            fresh = self._value("employer", ("", "employer")) or "Globex"  # drawn even when unused: same stream
            # "I've been at X since 2015" says the subject works at X: it must be their current employer.
            employer = self.current.get((subject, "employer"))
            self.employer_in[slot] = employer[0] if employer else fresh
        cur = self.current.get(slot)
        if cur and f"{'1' if self.names[subject] is None else '3'}:change" not in ph.ATTRIBUTES[attr].templates:
            return False
        value = self._value(attr, slot)
        if value is None:
            return False
        text = self._render(subject, attr, "change" if cur else "state", value, cur[0] if cur else None)
        self._say(text, self._act("set", subject, attr, value))
        self.current[slot] = [value]
        self.said[(subject, attr, value)] = text
        return True

    def add_item(self, subject: str, attr: str) -> bool:
        value = self._value(attr, (subject, attr))
        if value is None:
            return False
        if attr == "pets":
            self.kind_of[value] = self.rng.choice(ph.PET_KINDS)
        text = self._render(subject, attr, "add", value)
        self._say(text, self._act("add", subject, attr, value))
        self.current.setdefault((subject, attr), []).append(value)
        self.said[(subject, attr, value)] = text
        return True

    def drop_item(self, subject: str, attr: str) -> bool:
        items = self.current.get((subject, attr))
        if not items:
            return False
        value = self.rng.choice(items)
        self._say(self._render(subject, attr, "drop", value), self._act("drop", subject, attr, value))
        items.remove(value)
        return True

    def duplicate(self, subject: str, attr: str, exact: bool) -> bool:
        """Say a current value again: the very same sentence, or a paraphrase."""
        spec = ph.ATTRIBUTES[attr]
        values = self.current.get((subject, attr))
        person = "1" if self.names[subject] is None else "3"
        if not values or f"{person}:dup" not in spec.templates:
            return False
        value = self.rng.choice(values)
        said = self.said.get((subject, attr, value))
        text = said if exact and said else self._render(subject, attr, "dup", value)
        self._say(text, self._act("add" if spec.multi else "set", subject, attr, value))
        return True

    def correct(self, subject: str, attr: str, distant: bool) -> bool:
        """Correct the current value: right after it was said, or in a later session with full context."""
        slot = (subject, attr)
        cur = self.current.get(slot)
        value = self._value(attr, ("", attr)) if cur else None
        if cur is None or value is None:
            return False
        if distant:
            stmt = self._render(subject, attr, "state", value)
            text = self.rng.choice(ph.DISTANT_CORRECTIONS).format(stmt=stmt, old=cur[0])
        else:
            text = self.rng.choice(ph.CORRECTIONS).format(v=value, old=cur[0])
        self._say(text, self._act("correct", subject, attr, value, cur[0]), "No problem, I've corrected that.")
        self.current[slot] = [value]
        self.said[(subject, attr, value)] = text
        return True

    def temporary(self) -> bool:
        """A short stay somewhere else ("in Madrid for ten days"); at most one per session."""
        if any(act is not None and act.kind == "temp" for _, _, act in self.sessions[-1].turns):
            return False
        value = self._value("residence", ("", "whereabouts"))
        if value is None:
            return False
        text = self.rng.choice(ph.TEMPORARY).format(v=value)
        self._say(text, Act("temp", USER, "whereabouts", value, ph.TEMPORARY_ASK))
        return True

    def complete_plan(self) -> bool:
        plans = self.current.get((USER, "plan"))
        if not plans:
            return False
        self._say(self._render(USER, "plan", "done", plans[0]), self._act("done", USER, "plan", plans[0]))
        self.current[(USER, "plan")] = []
        return True

    def forget(self, attr: str) -> bool:
        values = self.current.pop((USER, attr), None)
        if not values:
            return False
        text = self.rng.choice(ph.ATTRIBUTES[attr].templates["1:forget"])
        self._say(text, self._act("forget", USER, attr, values[0]), self.rng.choice(ph.FORGET_ACKS))
        return True


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]
