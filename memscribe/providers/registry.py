"""Embedders by name, imported only when asked for."""

from __future__ import annotations

from memscribe.errors import ConfigError
from memscribe.providers.ports import Embedder

__all__ = ["make_embedder"]


def make_embedder(spec: str, *, held: str | None = None) -> Embedder:
    """``local`` (MiniLM in int8 arithmetic, the default; ``local:float`` multiplies in float), ``e5``
    (multilingual-e5-small, the ``multilingual`` extra; ``e5:<threads>``), ``hash`` or ``hash:<dim>``
    (deterministic fake).

    ``held`` is the model id of the vectors a store already holds: plain ``local`` follows it between the
    two MiniLM arithmetics, so a store written before int8 became the default keeps working as it was."""
    name, _, arg = spec.partition(":")
    if name == "local":
        from memscribe.providers.local import MODEL_IDS, LocalEmbedder

        if arg not in ("", "int8", "float"):
            raise ConfigError(f"embedder {spec!r}: expected local, local:int8 or local:float")
        if not arg and held == MODEL_IDS["float"]:
            arg = "float"
        return LocalEmbedder(compute=arg or "int8")
    if name in ("e5", "multilingual"):
        from memscribe.providers.multilingual import E5Embedder

        return E5Embedder(threads=_positive(arg, spec)) if arg else E5Embedder()
    if name == "hash":
        from memscribe.providers.hashing import HashEmbedder

        return HashEmbedder(dim=int(arg)) if arg else HashEmbedder()
    raise ConfigError(f"unknown embedder {spec!r}; known: local[:float], e5[:threads], hash[:dim]")


def _positive(arg: str, spec: str) -> int:
    if not arg.isdigit() or int(arg) < 1:
        raise ConfigError(f"embedder {spec!r}: expected a positive integer after ':'")
    return int(arg)
