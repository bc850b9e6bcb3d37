"""One message about two people keeps one memory per person.

A short message is kept whole as one memory, but it may say one thing about someone else and another about the
speaker: "my coworker got promoted to director. I'm still a senior analyst", "妹妹在南山租了个单间。我在广州天河".
Kept as one text, the other person's value answers questions about the speaker (and a change cue in it replaces
the speaker's own facts). So a unit whose statements open with different people is split by who they open with;
statements that name nobody ("weird but she's great") stay with the statement before them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from memscribe.write.lite.language import someone_else
from memscribe.write.lite.lazy import lazy
from memscribe.write.lite.memorable import strip_preamble
from memscribe.write.lite.person import Mention

__all__ = ["opens_with", "split_by_subject"]

T = TypeVar("T")


def split_by_subject(
    kept: Sequence[T], *, who: Callable[[T], str | None], speaker: str, substantial: Callable[[T], bool]
) -> list[list[T]]:
    """``kept`` as groups of one person each, in order of first mention; whole when it names one person only.

    ``who`` names the person a statement opens with (None: nobody said, it follows the one before). The unit is
    split only when the speaker is one of the people and every group says something of substance."""
    groups: dict[str, list[T]] = {}
    current: str | None = None
    waiting: list[T] = []  # statements before anyone is named join the first person named
    for item in kept:
        person = who(item)
        if person is not None:
            current = person.casefold()
            groups.setdefault(current, []).extend(waiting)
            waiting = []
        if current is None:
            waiting.append(item)
        else:
            groups[current].append(item)
    if len(groups) < 2 or speaker.casefold() not in groups:
        return [list(kept)] if kept else []
    if not all(any(substantial(item) for item in group) for group in groups.values()):
        return [list(kept)]
    order = {id(item): n for n, item in enumerate(kept)}
    return [sorted(group, key=lambda item: order[id(item)]) for group in groups.values()]


_OPENS_SELF = lazy(r"^(?:I|I'm|I've|I'd|my|we|we're|we've|our|me)\b|^我(?!的)", re.IGNORECASE)
_WITH_SELF = lazy(r"\b(?:and I|& I|and me|me and|we|we're|we've|us)\b", re.IGNORECASE)


def opens_with(text: str, mention: Mention | None, subject: str, speaker: str) -> str | None:
    """Whom a statement opens with: ``speaker``, another person, or None when it names nobody. ``mention`` and
    ``subject`` are what was read from it; "my wife and I" and "dana and I" are the speaker's."""
    text = strip_preamble(text)
    head = re.split(r"[,，;:—]", text, maxsplit=1)[0]
    if mention is not None and (mention.first_person or _WITH_SELF.search(head)):
        return speaker
    if mention is not None and mention.via == "pronoun":
        return None  # "she's my girlfriend now": goes with the statement that named her
    if mention is not None and subject.casefold() != speaker.casefold():
        return subject
    other = someone_else(text)
    if other is not None and other != "someone":
        return speaker if _WITH_SELF.search(head) else f"{speaker}'s {other}"
    return speaker if _OPENS_SELF.match(text) else None
