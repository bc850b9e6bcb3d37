"""Small data sets in each format the writer benchmark reads, written by the tests (no shared data)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NATURAL = [
    {"id": "d001-employer", "user": "ana", "episodes": [
        {"t": "2023-01-10T08:00:00", "messages": [
            {"role": "user", "content": "I work at Shopify as a backend developer."},
            {"role": "assistant", "content": "Nice, Shopify is a great place."}]},
        {"t": "2023-02-10T08:00:00", "messages": [
            {"role": "user", "content": "Big news: I left Shopify and joined Stripe last week."}]},
     ], "probes": [
        {"after": 0, "query": "Which company does Ana work for?", "expect_any": ["Shopify"], "stale": []},
        {"after": 1, "query": "Which company does Ana work for?", "expect_any": ["Stripe"], "stale": ["Shopify"]}]},
    {"id": "d002-forget", "user": "bo", "episodes": [
        {"t": "2023-03-01T09:00:00", "messages": [{"role": "user", "content": "My gym is FitLab on Main Street."}]},
        {"t": "2023-03-02T09:00:00", "messages": [{"role": "user", "content": "Please forget where my gym is."}]},
     ], "probes": [{"after": 1, "query": "Which gym does Bo go to?", "expect_any": [], "stale": ["FitLab"]}]},
    {"id": "d003-zh-home-city", "user": "chen", "episodes": [
        {"t": "2023-04-01T09:00:00", "messages": [{"role": "user", "content": "I live in Hangzhou now."}]},
     ], "probes": [{"after": 0, "query": "Where does Chen live?", "expect_any": ["Hangzhou"], "stale": []}]},
]  # fmt: skip

LOCOMO = [{
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Mia", "speaker_b": "Leo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Mia", "dia_id": "D1:1", "text": "I adopted a cat named Pixel yesterday."},
            {"speaker": "Leo", "dia_id": "D1:2", "text": "That is lovely, congratulations!"}],
        "session_2_date_time": "2:10 pm on 20 May, 2023",
        "session_2": [
            {"speaker": "Mia", "dia_id": "D2:1", "text": "I started pottery classes in Porto."},
            {"speaker": "Leo", "dia_id": "D2:2", "text": "I am training for the Berlin marathon."}],
    },
    "qa": [
        {"question": "What is the name of Mia's cat?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
        {"question": "Where does Mia take pottery classes?", "answer": "Porto", "evidence": ["D2:1"], "category": 4},
        {"question": "Which marathon?", "adversarial_answer": "Paris", "evidence": ["D2:2"], "category": 5},
    ],
}]  # fmt: skip

LONGMEMEVAL = [
    {"question_id": "q1", "question_type": "single-session-user", "question": "What car does the user drive?",
     "answer": "A blue Volvo.", "question_date": "2023/06/01 (Thu) 10:00",
     "haystack_session_ids": ["s1", "s2"], "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/21 (Sun) 03:00"],
     "haystack_sessions": [
         [{"role": "user", "content": "I drive a blue Volvo to work.", "has_answer": True},
          {"role": "assistant", "content": "Volvos are safe cars."}],
         [{"role": "user", "content": "Can you suggest a pasta recipe?"},
          {"role": "assistant", "content": "Try carbonara."}]],
     "answer_session_ids": ["s1"]},
]  # fmt: skip


def write_fixtures(folder: Path) -> dict[str, Path]:
    """The three files under ``folder``; returns their paths by format."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"natural": folder / "natural.jsonl", "locomo": folder / "locomo.json", "longmemeval": folder / "lme.json"}
    paths["natural"].write_text("\n".join(json.dumps(s) for s in NATURAL) + "\n", encoding="utf-8")
    paths["locomo"].write_text(json.dumps(LOCOMO), encoding="utf-8")
    paths["longmemeval"].write_text(json.dumps(LONGMEMEVAL), encoding="utf-8")
    return paths


@pytest.fixture
def data(tmp_path: Path) -> dict[str, Path]:
    return write_fixtures(tmp_path / "data")
