"""Peer systems in the writer benchmark: each runs in its own virtualenv as a subprocess (``runner.py``),
with the benchmark's embedder and model injected over the wire so that only the writer differs.

============== ======================================================
``mem0ai``      mem0ai's ``Memory.add(..., infer=True)`` (needs a model)
``mem0ai-raw``  mem0ai with ``infer=False`` (messages stored as given)
``hy-lite``     hy-memory's ``HyMemoryClient(mode="lite")`` (no model)
``hy-pro``      hy-memory's ``HyMemoryClient(mode="pro")`` (needs a model)
``fake-peer``   the shipped fake (stdlib only), for tests; ``fake-peer-infer`` calls the model once per add
============== ======================================================

``make bench-peers`` installs mem0ai and hy-memory into ``.cache/peers/<backend>``, never into the base
install; pass ``--peer-python mem0=.cache/peers/mem0/bin/python --peer-python hy=.cache/peers/hy/bin/python``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memscribe.bench.writers.metering import MeteredChat
from memscribe.bench.writers.peers.client import PeerError, PeerSubject, default_python
from memscribe.providers.ports import Embedder

__all__ = ["PEER_WRITERS", "PeerError", "PeerSubject", "peer_subject"]

PEER_WRITERS: dict[str, tuple[str, dict[str, Any], bool]] = {
    "mem0ai": ("mem0", {"infer": True}, True),
    "mem0ai-raw": ("mem0", {"infer": False}, False),
    "hy-lite": ("hy", {"mode": "lite"}, False),
    "hy-pro": ("hy", {"mode": "pro"}, True),
    "fake-peer": ("fake", {"infer": False}, False),
    "fake-peer-infer": ("fake", {"infer": True}, True),
}
"""Peer writer name -> (backend, options, needs a model)."""


def peer_subject(
    name: str, path: Path, embedder: Embedder, peers: Mapping[str, str], chat_factory: Any = None
) -> PeerSubject:
    """A running peer for one data set; a writer that needs a model and has none is a clear error."""
    backend, options, needs_model = PEER_WRITERS[name]
    if needs_model and chat_factory is None:
        raise PeerError(f"peer writer {name!r} needs a model: pass --llm (or --fake-model)")
    chat = MeteredChat(chat_factory()) if chat_factory is not None else None
    return PeerSubject(name, path, python=default_python(backend, peers), backend=backend, options=options,
                       embedder=embedder, chat=chat)  # fmt: skip
