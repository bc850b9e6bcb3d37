"""Generated data for ``memscribe bench speed``: memory sentences, questions, conversation turns, and
synthetic vectors that stay close to real embeddings.

Everything is seeded, so two runs measure the same data. Sentences combine a person, an attribute template
and a value; at 100k and beyond they repeat with new combinations, which is fine for timing (the text only
has to be varied enough that keyword search sees realistic posting lists).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from memscribe.providers.ports import Embedder, Vectors

__all__ = ["conversation", "data_turns", "jittered", "memory_texts", "questions"]

# fmt: off
NAMES = (
    "Caroline", "Melanie", "Jon", "Gina", "John", "Maria", "Tim", "Audrey", "Andrew", "Calvin", "Dave",
    "Deborah", "Evan", "Sam", "Joanna", "Nate", "Jolene", "Tom", "Priya", "Ravi", "Mei", "Kenji", "Lucia",
    "Omar", "Fatima", "Lars", "Ingrid", "Pablo", "Sofia", "Chen", "Aisha", "Noah", "Emma", "Liam", "Olivia",
    "Mateo", "Zara", "Hugo", "Nina", "Felix", "Amara", "Theo", "Leila", "Isaac", "Yara", "Jonas", "Elena",
    "Marco", "Hana", "Diego",
)
CITIES = (
    "Seattle", "Sydney", "Berlin", "Lisbon", "Toronto", "Austin", "Denver", "Kyoto", "Oslo", "Dublin",
    "Nairobi", "Lima", "Prague", "Vienna", "Madrid", "Boston", "Chicago", "Portland", "Melbourne", "Auckland",
    "Montreal", "Vancouver", "Munich", "Zurich", "Barcelona", "Amsterdam", "Copenhagen", "Helsinki", "Seoul",
    "Osaka", "Taipei", "Singapore", "Mumbai", "Bangalore", "Cairo", "Accra", "Bogota", "Santiago", "Quito",
    "Havana",
)
EMPLOYERS = (
    "Atlassian", "Google", "a bakery", "Microsoft", "a hospital", "a startup", "the city council",
    "a law firm", "Spotify", "a school", "a bookshop", "NASA", "a bank", "a museum", "a vineyard",
    "a newspaper", "a film studio", "a robotics lab", "a climbing gym",
)
ROLES = (
    "nurse", "teacher", "product designer", "data scientist", "carpenter", "chef", "pilot", "architect",
    "lawyer", "barista", "photographer", "translator", "firefighter", "accountant", "veterinarian",
    "journalist", "engineer", "librarian",
)
THINGS = (
    "hiking", "pottery", "jazz", "sourdough", "chess", "surfing", "knitting", "salsa dancing", "birdwatching",
    "marathons", "climbing", "painting", "photography", "gardening", "kayaking", "yoga", "poetry",
    "board games", "astronomy", "cycling",
)
FOODS = ("ramen", "tacos", "sushi", "pho", "dumplings", "lasagne", "curry", "falafel", "paella", "bibimbap")
PETS = (
    "a dog named Max", "a cat named Luna", "two rabbits", "a parrot called Kiwi", "a golden retriever",
    "a tortoise", "a beagle named Bruno", "three goldfish",
)
MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
)
# fmt: on

TEMPLATES = (
    "{name} moved from {city2} to {city} in {month} {year}.",
    "{name} lives in {city} now.",
    "{name} works at {employer} as a {role}.",
    "{name} started a new job as a {role} in {month} {year}.",
    "{name} has been into {thing} since {year}.",
    "{name}'s favourite food is {food}.",
    "{name} has {pet}.",
    "{name} is planning a trip to {city} in {month}.",
    "{name} stopped eating {food} after a trip to {city}.",
    "{name} met {name2} at a {thing} class in {city}.",
    "{name} is learning {thing} with {name2} on weekends.",
    "{name} quit {employer} in {month} {year} to go back to school.",
    "{name}'s sister lives in {city} and works as a {role}.",
    "{name} wants to run a half marathon in {city} next {month}.",
)
QUESTIONS = (
    "Where does {name} live?",
    "What does {name} do for work?",
    "Which city did {name} move to?",
    "What hobbies does {name} have?",
    "What is {name}'s favourite food?",
    "Does {name} have any pets?",
    "Where is {name} travelling next?",
    "Who did {name} meet in {city}?",
    "When did {name} start the new job?",
    "What is {name} learning on weekends?",
)
REPLIES = (
    "That sounds wonderful! How are you finding it so far?",
    "Thanks for telling me, I'll keep that in mind.",
    "Congratulations! That is a big change.",
    "Good luck with it, let me know how it goes.",
    "Interesting. What made you decide that?",
)


def _fill(rng: random.Random, template: str) -> str:
    pick = rng.choice
    return template.format(
        name=pick(NAMES), name2=pick(NAMES), city=pick(CITIES), city2=pick(CITIES), employer=pick(EMPLOYERS),
        role=pick(ROLES), thing=pick(THINGS), food=pick(FOODS), pet=pick(PETS), month=pick(MONTHS),
        year=rng.randint(2015, 2025),
    )  # fmt: skip


def memory_texts(n: int, seed: int = 0) -> list[str]:
    """``n`` memory-like sentences about many people."""
    rng = random.Random(seed)
    return [_fill(rng, rng.choice(TEMPLATES)) for _ in range(n)]


def questions(n: int, seed: int = 1) -> list[str]:
    """``n`` questions of the kind an agent asks its memory."""
    rng = random.Random(seed)
    return [_fill(rng, rng.choice(QUESTIONS)) for _ in range(n)]


def conversation(turns: int, seed: int = 2) -> Iterator[list[dict[str, str]]]:
    """Episodes of 2–4 messages (user first, alternating) holding ``turns`` messages in all."""
    rng = random.Random(seed)
    left = turns
    while left > 0:
        size = min(left, rng.randint(2, 4))
        messages = []
        for i in range(size):
            if i % 2 == 0:
                messages.append(
                    {"role": "user", "content": f"Quick update: {_fill(rng, rng.choice(TEMPLATES))}"}
                )
            else:
                messages.append({"role": "assistant", "content": rng.choice(REPLIES)})
        left -= size
        yield messages


def jittered(pool: Vectors, n: int, *, seed: int = 0, noise: float = 0.5) -> Vectors:
    """``n`` unit vectors scattered around the rows of ``pool`` (real embeddings).

    Each row is a pool row plus a random direction of length ``noise``, renormalised: cosine to its pool row
    is 1/sqrt(1 + noise²) (0.89 at 0.5), about the similarity of two paraphrases. Unlike isotropic random
    vectors, these keep the clustered shape of real embeddings that graph indexes rely on.
    """
    rng = np.random.default_rng(seed)
    base = pool[rng.integers(0, len(pool), size=n)]
    direction = rng.standard_normal(base.shape).astype(np.float32)
    direction *= noise / np.linalg.norm(direction, axis=1, keepdims=True)
    rows = base + direction
    result: Vectors = (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)
    return result


def embed_in_batches(embedder: Embedder, texts: list[str], batch: int = 1_000) -> Vectors:
    """Embed many texts in batches (keeps peak memory of the tokenizer and model small)."""
    parts = [embedder.embed(texts[i : i + batch]) for i in range(0, len(texts), batch)]
    result: Vectors = np.concatenate(parts) if parts else np.zeros((0, embedder.dim), dtype=np.float32)
    return result


def data_turns(specs: list[str], count: int) -> list[str]:
    """``count`` real turns, taken in turn from each ``kind:PATH`` of ``specs``: ``locomo:`` (every turn of a
    LoCoMo JSON file, captions left out) or ``natural:`` (the user messages of an updates-natural JSONL file).
    A clear error for an unknown kind or a file with no turns."""
    import itertools
    import json
    from pathlib import Path

    sources: list[list[str]] = []
    for spec in specs:
        kind, _, path = spec.partition(":")
        if kind not in ("locomo", "natural"):
            raise ValueError(f"unknown turn source {kind!r} in {spec!r}: use locomo:PATH or natural:PATH")
        text = Path(path).read_text(encoding="utf-8")
        if kind == "locomo":
            found = [
                turn["text"] for conversation in json.loads(text)
                for key, session in conversation["conversation"].items()
                if key.startswith("session_") and isinstance(session, list) for turn in session if turn.get("text")
            ]  # fmt: skip
        else:
            found = [
                m["content"] for line in text.splitlines() if line.strip() for episode in json.loads(line)["episodes"]
                for m in episode["messages"] if m.get("role") == "user" and m.get("content")
            ]  # fmt: skip
        if not found:
            raise ValueError(f"{spec!r} holds no turns")
        sources.append(found)
    mixed = [t for group in itertools.zip_longest(*sources) for t in group if t is not None]
    return list(itertools.islice(itertools.cycle(mixed), count)) if mixed else []
