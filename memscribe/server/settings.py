"""The server's configuration object. The app never reads the environment; the CLI fills this in."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memscribe.config import MemoryConfig
from memscribe.errors import ConfigError
from memscribe.settings import is_loopback

__all__ = ["DEFAULT_PORT", "MAX_BODY_BYTES", "MiB", "ServerSettings", "is_loopback", "served_hosts"]

DEFAULT_PORT = 8765
MiB = 1024 * 1024  # bytes
# No request body over this is accepted, on any route; a large import is sent as batches under it
# (`memscribe import FILE --url ...` and the Python clients do that).
MAX_BODY_BYTES = 1 * MiB


@dataclass(frozen=True)
class ServerSettings:
    """How the REST server is put together.

    ``keys_path`` defaults to ``keys.db`` beside the store. ``no_auth`` serves one tenant
    (``default_tenant``) without keys and is refused unless ``host`` is a loopback address. ``llm`` and
    its URL and key are what the LLM writers (``pro``, ``ultra``) write with.
    """

    store_path: Path
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    keys_path: Path | None = None
    admin_key: str | None = None
    no_auth: bool = False
    default_tenant: str = "default"
    writer: str = "raw"
    embedder: str = "local"
    cors_origins: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ()  # extra Host names a proxy in front may send
    max_body_bytes: int = MAX_BODY_BYTES  # every route, /v1/import included; at most MAX_BODY_BYTES
    latency_window: int = 1024  # recent requests per route kept for latency percentiles
    llm: str | None = None  # "provider:model" for the LLM writers
    llm_base_url: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.no_auth and not is_loopback(self.host):
            raise ConfigError(f"--no-auth is allowed only on a loopback address, not {self.host!r}")
        if self.admin_key is not None and len(self.admin_key) < 16:
            raise ConfigError("the admin key must be at least 16 characters")
        if not 1024 <= self.max_body_bytes <= MAX_BODY_BYTES:
            raise ConfigError(f"max_body_bytes must be from 1024 to {MAX_BODY_BYTES} (1 MiB)")

    def memory_config(self) -> MemoryConfig:
        """The library configuration every tenant's Memory is built with (store and embedder are shared)."""
        return MemoryConfig(
            path=self.store_path, tenant=self.default_tenant, writer=self.writer, embedder=self.embedder,
            llm=self.llm, llm_base_url=self.llm_base_url, llm_api_key=self.llm_api_key,
        )  # fmt: skip

    @property
    def resolved_keys_path(self) -> Path:
        return self.keys_path if self.keys_path is not None else Path(self.store_path).parent / "keys.db"


def served_hosts(settings: ServerSettings) -> tuple[str, ...]:
    """The ``Host`` names the server answers: its bind address and, on loopback, the loopback names (so a
    rebinding DNS name pointing at 127.0.0.1 is refused). A wildcard bind (0.0.0.0, ::) cannot know its
    names and accepts any Host unless ``allowed_hosts`` lists them."""
    host = settings.host.strip("[]").lower()
    if host in ("0.0.0.0", "::", "") and not settings.allowed_hosts:
        return ()
    names = {host, *(h.lower() for h in settings.allowed_hosts)}
    if is_loopback(host):
        names |= {"localhost", "127.0.0.1", "[::1]", "::1"}
    return tuple(sorted(names | {f"[{n}]" for n in names if ":" in n and not n.startswith("[")}))
