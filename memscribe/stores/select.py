"""Vector-index specs: which :class:`~memscribe.stores.ports.VectorIndex` a store uses, named by a string.

=====================================  =============================================================
``local`` (default)                    per-partition numpy/usearch files in ``<db>.ann``
``faiss`` / ``faiss:DIR``              FAISS flat indexes in DIR (default ``<db>.faiss``)
``qdrant+local`` / ``qdrant+local:DIR``  qdrant-client local mode in DIR (default ``<db>.qdrant``), one process
``qdrant+memory``                      qdrant-client local mode in memory (tests)
``qdrant://HOST:PORT[/COLLECTION]``    a Qdrant server or cluster over HTTP (``qdrant+https://`` for TLS)
``chroma`` / ``chroma:DIR``            Chroma's persistent client in DIR (default ``<db>.chroma``)
``chroma+http://HOST:PORT[/COLL]``     a Chroma server
=====================================  =============================================================

``qdrant+local:///abs/dir`` is accepted as well as ``qdrant+local:/abs/dir``. The API key of a server comes
from the caller (the applications read ``MEMSCRIBE_VECTORS_API_KEY``), never from the spec, which may be
shown or logged.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from memscribe.errors import ConfigError
from memscribe.stores.ports import VectorIndex

__all__ = ["VECTOR_SPECS", "make_vector_index"]

VECTOR_SPECS = (
    "local",
    "faiss[:DIR]",
    "qdrant+local[:DIR]",
    "qdrant+memory",
    "qdrant://HOST:PORT[/COLLECTION]",
    "chroma[:DIR]",
    "chroma+http://HOST:PORT[/COLLECTION]",
)


def _local_dir(rest: str, default: Path) -> Path:
    rest = rest[2:] if rest.startswith("//") else rest  # scheme:///abs/dir → /abs/dir
    return Path(rest).expanduser() if rest else default


def _server(spec: str, scheme: str) -> tuple[str, str | None]:
    """The server URL and the collection named by the spec's path, if any."""
    parts = urlsplit(spec)
    if not parts.hostname:
        raise ConfigError(f"vector index {spec!r}: no host")
    if parts.username or parts.password:
        raise ConfigError(f"vector index {spec!r}: pass the API key separately, never in the URL")
    collection = parts.path.strip("/") or None
    port = f":{parts.port}" if parts.port else ""
    return f"{scheme}://{parts.hostname}{port}", collection


def make_vector_index(spec: str, *, db_path: Path, api_key: str | None = None) -> VectorIndex | None:
    """The index ``spec`` names, or None for the default (the store's own files). Raises ConfigError for a
    spec of no known form, or one whose extra is not installed."""
    name, _, rest = spec.strip().partition(":")
    name = name.lower()
    if name in ("", "local"):
        return None
    if name == "faiss":
        from memscribe.stores.faiss import FaissIndex

        return FaissIndex(_local_dir(rest, Path(f"{db_path}.faiss")))
    if name in ("qdrant+local", "qdrant+memory"):
        from memscribe.stores.qdrant import QdrantIndex

        if name == "qdrant+memory":
            return QdrantIndex()
        return QdrantIndex(path=_local_dir(rest, Path(f"{db_path}.qdrant")))
    if name in ("qdrant", "qdrant+http", "qdrant+https"):
        from memscribe.stores.qdrant import QdrantIndex

        url, collection = _server(spec, "https" if name == "qdrant+https" else "http")
        return QdrantIndex(url, collection=collection or "memscribe", api_key=api_key)
    if name == "chroma":
        from memscribe.stores.chroma import ChromaIndex

        return ChromaIndex(path=_local_dir(rest, Path(f"{db_path}.chroma")))
    if name in ("chroma+http", "chroma+https"):
        from memscribe.stores.chroma import ChromaIndex

        url, collection = _server(spec, name.partition("+")[2])
        return ChromaIndex(url=url, collection=collection or "memscribe", api_key=api_key)
    raise ConfigError(f"unknown vector index {spec!r}; one of: {', '.join(VECTOR_SPECS)}")
