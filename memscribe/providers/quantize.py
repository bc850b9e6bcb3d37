"""MiniLM with integer arithmetic: the packaged model rewritten once so its matrix products run in int8.

The packaged ONNX file stores its weights as int8 but multiplies in float32 (each weight is cast back to float
before its MatMul), so it costs what the float model costs: about 8 ms of CPU per 30-token sentence here. This
module derives the model the default embedder runs: the packaged graph with its constants folded by
onnxruntime, then quantized with onnxruntime's own dynamic quantizer (weights int8 per output channel,
activations int8 per run), so every MatMul with a weight becomes a MatMulInteger (VNNI where the CPU has it).
Measured on 400 LoCoMo and natural-set turns (``LocalEmbedder`` runs each text alone, see there): 3.4 ms of
CPU per turn against 7–8 ms, vectors at cosine 0.993 (mean) and 0.979 (lowest) to the float ones, and the same
retrieval figures on LoCoMo and the natural update set (docs/benchmarks.md).

The derived file is built on first use (about 3 s) into ``$MEMSCRIBE_CACHE`` or the platform's user cache
directory, named by a digest of the packaged model, the onnxruntime version and this recipe, and written
under a temporary name and renamed, so concurrent first uses never see half a file. A file that fails to
load is rebuilt.
"""

from __future__ import annotations

import getpass
import hashlib
import importlib.util
import os
import tempfile
from pathlib import Path

from memscribe.errors import ConfigError

__all__ = ["RECIPE", "cache_dir", "int8_model"]

RECIPE = "fold-basic+dynamic-qint8-per-channel-v1"  # change when the derivation changes: a new file name


def cache_dir() -> Path:
    """``$MEMSCRIBE_CACHE`` or the platform's user cache directory for memscribe. Nothing is created here."""
    env = os.environ.get("MEMSCRIBE_CACHE")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_cache_path

    return user_cache_path("memscribe", appauthor=False)


def _digest(source: Path) -> str:
    import onnxruntime

    digest = hashlib.sha256()
    with source.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    digest.update(f"|{onnxruntime.__version__}|{RECIPE}".encode())
    return digest.hexdigest()[:16]


def int8_model(source: Path, *, rebuild: bool = False) -> Path:
    """The int8-arithmetic version of the ONNX model at ``source``: from the cache, or built there now (in the
    system's temporary directory when the cache directory cannot be written)."""
    name = f"{source.stem}-q8-{_digest(source)}.onnx"
    target = cache_dir() / name
    if target.is_file() and not rebuild:
        return target
    if importlib.util.find_spec("onnx") is None:
        raise ConfigError("the int8 embedder is derived with the onnx package: pip install onnx")
    try:
        return _build(source, target)
    except OSError:  # a read-only home or cache: a private temporary copy still serves this process
        fallback = Path(tempfile.gettempdir()) / f"memscribe-{getpass.getuser()}" / name
        return fallback if fallback.is_file() and not rebuild else _build(source, fallback)


def _build(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".building-") as work:
        folded, quantized = Path(work) / "folded.onnx", Path(work) / "q8.onnx"
        _fold(source, folded)
        _quantize(folded, quantized)
        os.replace(quantized, target)  # atomic: a concurrent reader sees the old state or the whole file
    return target


def _fold(source: Path, out: Path) -> None:
    """The graph with its dequantization folded into float constants (onnxruntime's basic optimizations), so
    that each weight is an initializer the quantizer can see."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(out)
    options.log_severity_level = 3
    onnxruntime.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])


def _quantize(folded: Path, out: Path) -> None:
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    quiet = logging.getLogger().level
    logging.getLogger().setLevel(logging.ERROR)  # the quantizer advises pre-processing on the root logger
    try:
        quantize_dynamic(folded, out, weight_type=QuantType.QInt8, per_channel=True)
    finally:
        logging.getLogger().setLevel(quiet)
