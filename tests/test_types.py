"""The SDK surface lines up: Memory, AsyncMemory and both HTTP clients take the same arguments and return the
same TypedDicts from memscribe.types; every public method has a docstring; the package ships py.typed."""

from __future__ import annotations

import inspect
import typing
from pathlib import Path
from typing import Any

import pytest

import memscribe
from memscribe import AsyncMemory, Memory
from memscribe import types as shapes
from memscribe.client import AsyncMemoryClient, MemoryClient

# What the HTTP clients cannot offer: work that needs the store in process.
LOCAL_ONLY = {
    "process_pending",
    "pending",
    "retry_pending",
    "flush",
    "replay",
    "consolidate",
    "profile",
    "reindex",
    "close",
    "warm_up",  # in-process work (the model, the rules): a client of a server has nothing to load
}
CLIENT_ALSO = {"health", "aclose"}


def public(cls: type) -> dict[str, Any]:
    return {n: f for n, f in vars(cls).items() if not n.startswith("_") and callable(f) and n != "import"}


def params(fn: Any) -> list[tuple[str, Any, Any]]:
    sig = inspect.signature(fn)
    return [(p.name, p.kind, p.default) for p in sig.parameters.values()]


def returns(fn: Any) -> Any:
    return typing.get_type_hints(fn).get("return")


def test_async_memory_mirrors_memory() -> None:
    sync, aio = public(Memory), public(AsyncMemory)
    assert set(sync) == set(aio)
    for name, fn in sync.items():
        assert inspect.iscoroutinefunction(aio[name]), name
        assert params(aio[name]) == params(fn), name
        assert returns(aio[name]) == returns(fn), name


@pytest.mark.parametrize("client", [MemoryClient, AsyncMemoryClient])
def test_clients_mirror_memory(client: type) -> None:
    sync, remote = public(Memory), public(client)
    assert set(sync) - LOCAL_ONLY <= set(remote), sorted(set(sync) - LOCAL_ONLY - set(remote))
    assert set(remote) - set(sync) <= CLIENT_ALSO
    for name in set(sync) & set(remote) - LOCAL_ONLY:
        assert params(remote[name]) == params(sync[name]), name
        assert returns(remote[name]) == returns(sync[name]), name


def test_results_are_the_typed_dicts() -> None:
    typed = {getattr(shapes, n) for n in shapes.__all__}
    for name, fn in public(Memory).items():
        ret = returns(fn)
        inner = typing.get_args(ret)[0] if typing.get_origin(ret) is list else ret
        if inner in (str, int, type(None)) or name in ("profile", "export", "close", "flush"):
            continue
        assert inner in typed, f"Memory.{name} returns {ret}, not a memscribe.types shape"


@pytest.mark.parametrize("cls", [Memory, AsyncMemory, MemoryClient, AsyncMemoryClient])
def test_every_public_method_has_a_docstring(cls: type) -> None:
    missing = [n for n, f in public(cls).items() if not (inspect.getdoc(f) or "").strip()]
    assert not missing, f"{cls.__name__}: {missing}"


def test_the_package_is_typed() -> None:
    assert (Path(memscribe.__file__).parent / "py.typed").is_file()
