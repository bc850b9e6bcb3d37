"""A deterministic, dependency-light embedder for tests and keyless demos.

:class:`HashEmbedder` maps text to a vector by feature hashing: lower-cased word unigrams and word bigrams
are hashed with blake2b into signed buckets and the result is L2-normalised. It has no notion of meaning,
only of shared words, so it is a fake: it lets tests exercise the vector path (write, index, search) with
stable numbers on every machine and Python version, without loading a model.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from memscribe.errors import ConfigError, InvalidInput

if TYPE_CHECKING:
    from memscribe.providers.ports import Vectors

__all__ = ["HashEmbedder"]

_WORD = re.compile(r"\w+", re.UNICODE)
# Bigrams carry word order, but a shared bigram implies two shared unigrams already, so they count less.
_BIGRAM_WEIGHT = 0.5
# A text with no word characters still needs a unit vector; it gets this feature's bucket.
_EMPTY_FEATURE = "\x00empty"


@lru_cache(maxsize=65536)
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    """Bucket and sign of one feature. blake2b, unlike ``hash``, is not salted per process."""
    digest = int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "little")
    # The top bit picks the sign so that colliding features tend to cancel instead of piling up.
    return (digest & 0x7FFF_FFFF_FFFF_FFFF) % dim, (1.0 if digest >> 63 else -1.0)


class HashEmbedder:
    """Feature-hashing embedder: texts that share words get a higher cosine than texts that share none.

    Deterministic across processes and platforms. ``model_id`` is ``hash-{dim}``, so vectors of two
    differently sized hash embedders are never mixed in one store.
    """

    def __init__(self, dim: int = 256) -> None:
        if not isinstance(dim, int) or isinstance(dim, bool) or dim < 2:
            raise ConfigError(f"HashEmbedder dim must be an integer >= 2, got {dim!r}")
        self._dim = dim

    @property
    def model_id(self) -> str:
        return f"hash-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed a batch into an array of shape (len(texts), dim), float32, rows of unit length."""
        import numpy as np

        if isinstance(texts, str):
            raise InvalidInput("embed() takes a sequence of texts, not a single string")
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            if not isinstance(text, str):
                raise InvalidInput(f"embed() takes strings, got {type(text).__name__} at position {row}")
            for feature, weight in self._features(text):
                bucket, sign = _bucket(feature, self._dim)
                out[row, bucket] += sign * weight
            norm = float(np.linalg.norm(out[row]))
            if norm == 0.0:
                # Every feature cancelled out (or there were none): fall back to the empty-text vector.
                bucket, sign = _bucket(_EMPTY_FEATURE, self._dim)
                out[row, bucket], norm = sign, 1.0
            out[row] /= norm
        return out

    @staticmethod
    def _features(text: str) -> list[tuple[str, float]]:
        words = _WORD.findall(text.lower())
        if not words:
            return [(_EMPTY_FEATURE, 1.0)]
        # The prefixes keep the two feature families in separate hash namespaces.
        features = [(f"w:{word}", 1.0) for word in words]
        features += [(f"b:{a} {b}", _BIGRAM_WEIGHT) for a, b in itertools.pairwise(words)]
        return features
