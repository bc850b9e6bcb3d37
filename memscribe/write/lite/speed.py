"""A by-hand speed check for the lite writer: ``python -m memscribe.write.lite.speed [turns]``.

Measures writer time only (no store, no embeddings): episodes of two turns, against an in-memory candidate
source that returns nothing, so every rule and the reconciliation run but no search does. Not a test:
timing assertions flake; the bar (≥ 100 turns/s on 2 cores) is checked by running this.
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime, timedelta

from memscribe.core.clock import FrozenClock
from memscribe.core.records import Episode, MemoryRecord, Message, Scope
from memscribe.write.lite.writer import LiteWriter
from memscribe.write.ports import WriteContext

__all__ = ["measure_turns_per_second"]

_TURNS = (
    ("user", "Hey! How are you doing today?"),
    ("assistant", "I'm doing well, thanks for asking. How can I help you?"),
    ("user", "I moved to Sydney last month and I started working at Atlassian as a product manager."),
    ("assistant", "Congratulations! I recommend checking out the Bondi to Coogee coastal walk."),
    ("user", "Yesterday I went to a pottery class with my sister Anna, who lives in Melbourne."),
    ("assistant", "That sounds lovely. Do you want suggestions for other classes?"),
    ("user", "I'm planning to adopt a dog next month, probably a rescue. My cat Luna might not like it."),
    ("assistant", "You might want to introduce them slowly over a couple of weeks."),
    ("user", "Sorry, I meant 2017, not 2018. Also I'm allergic to peanuts and I'm vegetarian now."),
    ("assistant", "Got it, thanks for letting me know!"),
    ("user", "Please don't keep my phone number. Two weeks ago we went camping near Byron Bay."),
    ("assistant", "Understood. Camping near Byron Bay sounds great."),
)


class _EmptyCandidates:
    def similar(self, text: str, limit: int = 8) -> list[MemoryRecord]:
        return []

    def by_slot(self, slot: str) -> list[MemoryRecord]:
        return []

    def by_subject(self, subject: str, limit: int = 50) -> list[MemoryRecord]:
        return []


def measure_turns_per_second(turns: int = 2000) -> float:
    """Turns the writer processes per second over ``turns`` synthetic chat turns (two per episode)."""
    writer, scope, context = LiteWriter(), Scope(user_id="speed"), WriteContext()
    start_day = datetime(2023, 6, 3, 12, tzinfo=UTC)
    episodes = []
    for index in range(0, turns, 2):
        pair = (_TURNS[index % len(_TURNS)], _TURNS[(index + 1) % len(_TURNS)])
        when = start_day + timedelta(hours=index)
        messages = tuple(Message(role=role, content=content) for role, content in pair)
        episodes.append(Episode(f"e{index}", scope, messages, when, "speed", f"k{index}"))
    candidates = _EmptyCandidates()
    began = time.perf_counter()
    for episode in episodes:
        writer.propose(episode, candidates, context, FrozenClock(episode.timestamp))
    elapsed = time.perf_counter() - began
    return (len(episodes) * 2) / elapsed


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print(f"lite writer: {measure_turns_per_second(count):.0f} turns/s over {count} turns")
