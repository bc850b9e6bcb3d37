"""Embedders by name, imported only when asked for."""

from __future__ import annotations

from memscribe.errors import ConfigError
from memscribe.providers.ports import Embedder

__all__ = ["make_embedder"]


def make_embedder(spec: str) -> Embedder:
    """``local`` (MiniLM int8 ONNX, the default), ``hash`` or ``hash:<dim>`` (deterministic fake)."""
    name, _, arg = spec.partition(":")
    if name == "local":
        from memscribe.providers.local import LocalEmbedder

        return LocalEmbedder()
    if name == "hash":
        from memscribe.providers.hashing import HashEmbedder

        return HashEmbedder(dim=int(arg)) if arg else HashEmbedder()
    raise ConfigError(f"unknown embedder {spec!r}; known: local, hash[:dim]")
