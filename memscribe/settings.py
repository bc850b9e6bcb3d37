"""Where the applications' settings come from: a flag, a ``MEMSCRIBE_*`` variable, the config file, or the
default — in that order.

The library takes config objects and never reads the environment (except ``MEMSCRIBE_HOME`` for
``Memory()``). The applications (CLI, REST server, MCP server, bench) read it here and only here, so
``memscribe config show`` can say where each value came from, the docs test can list every variable, and all
of them build the same :class:`~memscribe.config.MemoryConfig` — the model settings included.

The config file is TOML: ``$MEMSCRIBE_CONFIG``, else ``<home>/config.toml``; its keys are the setting names
below (``writer = "pro"``, ``llm = "vllm:Qwen/Qwen3-8B"``, ...). API keys are never read from it.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING

from memscribe.config import DEFAULT_DB_NAME, MemoryConfig
from memscribe.errors import ConfigError

if TYPE_CHECKING:
    from memscribe.engine.memory import Memory

__all__ = [
    "ENV_VARS",
    "Setting",
    "Settings",
    "is_loopback",
    "memory_config",
    "open_memory",
    "override",
    "require_extra",
    "resolve_settings",
]

# name -> (setting it feeds, what it means). docs/cli.md must mention every one (tests/test_cli.py).
ENV_VARS: dict[str, tuple[str, str]] = {
    "MEMSCRIBE_HOME": ("home", "directory holding the store; the database is <home>/memscribe.db"),
    "MEMSCRIBE_STORE": ("store", "store URL, e.g. postgresql://memscribe@db-host/memscribe (default: the SQLite file)"),
    "MEMSCRIBE_CONFIG": ("config", "TOML config file (default: <home>/config.toml)"),
    "MEMSCRIBE_WRITER": ("writer", "memory writer: raw, lite, pro, ultra, ..."),
    "MEMSCRIBE_EMBEDDER": ("embedder", "embedder spec: local (MiniLM ONNX), e5 (multilingual) or hash[:dim]"),
    "MEMSCRIBE_TENANT": ("tenant", "tenant every command works in"),
    "MEMSCRIBE_USER": ("user", "default --user for commands that take one"),
    "MEMSCRIBE_PROJECT": ("project", "project for the MCP server (default: the git root of the working directory)"),
    "MEMSCRIBE_LLM": ("llm", "model for the pro/ultra writers as provider:model, e.g. vllm:Qwen/Qwen3-8B"),
    "MEMSCRIBE_LLM_BASE_URL": ("llm_base_url", "base URL of the model server (default: the provider's)"),
    "MEMSCRIBE_LLM_STRUCTURED": ("llm_structured", "how the model is asked for JSON: json_schema, json_object or none"),
    "MEMSCRIBE_LLM_API_KEY": ("llm_api_key", "API key for the model (else the provider's own variable)"),
    "MEMSCRIBE_VECTORS": (
        "vectors",
        "vector index: local, faiss[:DIR], qdrant+local[:DIR], qdrant://HOST:PORT, chroma[:DIR]",
    ),
    "MEMSCRIBE_VECTORS_API_KEY": ("vectors_api_key", "API key for a Qdrant or Chroma server"),
}
# Settings the config file may hold (never the home, which locates the file, nor a secret).
FILE_KEYS = frozenset(
    {"db", "writer", "embedder", "tenant", "user", "project", "llm", "llm_base_url", "llm_structured", "vectors"}
)


@dataclass(frozen=True)
class Setting:
    """One effective value and where it came from: ``flag``, ``env``, ``file`` or ``default``."""

    value: str | None
    source: str


@dataclass(frozen=True)
class Settings:
    """The effective configuration of one application start."""

    home: Setting
    db: Setting
    writer: Setting
    embedder: Setting
    tenant: Setting
    user: Setting
    llm: Setting
    llm_base_url: Setting
    project: Setting = Setting(None, "default")
    llm_structured: Setting = Setting(None, "default")
    config: Setting = Setting(None, "default")
    vectors: Setting = Setting(None, "default")
    store: Setting = Setting(None, "default")

    def rows(self) -> list[tuple[str, str | None, str]]:
        """(name, value, source) for every setting, in declaration order; a store URL without its password."""
        rows = [(f.name, getattr(self, f.name).value, getattr(self, f.name).source) for f in fields(self)]
        return [(name, _without_password(value) if name == "store" else value, src) for name, value, src in rows]

    @property
    def store_spec(self) -> str:
        """What the store is opened from: the store URL when one is set, else the SQLite file."""
        return str(self.store.value or self.db.value)


def _without_password(url: str | None) -> str | None:
    if not url or "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    credentials, _, host = rest.rpartition("@")
    return f"{scheme}://{credentials.split(':', 1)[0]}{':***' if ':' in credentials else ''}@{host}"


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _default_home() -> str:
    from platformdirs import user_data_path

    return str(user_data_path("memscribe", appauthor=False))


def read_config_file(path: Path, *, required: bool) -> dict[str, str]:
    """The settings in a TOML config file; ``{}`` when it is absent and not ``required``."""
    import tomllib

    if not path.is_file():
        if required:
            raise ConfigError(f"config file {str(path)!r} (MEMSCRIBE_CONFIG) does not exist")
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"config file {str(path)!r} is not readable TOML: {exc}") from exc
    table = data.get("memscribe", data)
    unknown = sorted(set(table) - FILE_KEYS)
    if unknown:
        raise ConfigError(f"config file {str(path)!r}: unknown keys {unknown}; known: {sorted(FILE_KEYS)}")
    bad = sorted(k for k, v in table.items() if not isinstance(v, str))
    if bad:
        raise ConfigError(f"config file {str(path)!r}: {bad} must be strings")
    return {k: str(v) for k, v in table.items()}


class _Sources:
    """Picks each value: flag, then environment, then config file, then default."""

    def __init__(self, flags: Mapping[str, str | None], env: Mapping[str, str], file: Mapping[str, str]) -> None:
        self.flags, self.env, self.file = flags, env, file

    def pick(self, name: str, env_name: str | None, default: str | None) -> Setting:
        if self.flags.get(name):
            return Setting(self.flags[name], "flag")
        if env_name and self.env.get(env_name):
            return Setting(self.env[env_name], "env")
        if self.file.get(name):
            return Setting(self.file[name], "file")
        return Setting(default, "default")


def resolve_settings(flags: Mapping[str, str | None], environ: Mapping[str, str] | None = None) -> Settings:
    """Flags beat environment variables, which beat the config file, which beats defaults. ``--db`` beats
    ``--home`` for the file. Raises ConfigError for an unreadable or unknown-keyed config file."""
    env = os.environ if environ is None else environ
    defaults = MemoryConfig()
    home = _Sources(flags, env, {}).pick("home", "MEMSCRIBE_HOME", None)
    if home.value is None:
        home = Setting(_default_home(), "default")
    home = Setting(str(Path(home.value or ".").expanduser()), home.source)
    explicit = env.get("MEMSCRIBE_CONFIG")
    config_path = Path(explicit).expanduser() if explicit else Path(home.value or ".") / "config.toml"
    file = read_config_file(config_path, required=bool(explicit))
    src = _Sources(flags, env, file)
    db = src.pick("db", None, None)
    if db.value:
        db = Setting(str(Path(db.value).expanduser()), db.source)
    else:
        db = Setting(str(Path(home.value or ".") / DEFAULT_DB_NAME), home.source)
    return Settings(
        home=home,
        db=db,
        writer=src.pick("writer", "MEMSCRIBE_WRITER", defaults.writer),
        embedder=src.pick("embedder", "MEMSCRIBE_EMBEDDER", defaults.embedder),
        tenant=src.pick("tenant", "MEMSCRIBE_TENANT", defaults.tenant),
        user=src.pick("user", "MEMSCRIBE_USER", None),
        llm=src.pick("llm", "MEMSCRIBE_LLM", None),
        llm_base_url=src.pick("llm_base_url", "MEMSCRIBE_LLM_BASE_URL", None),
        project=src.pick("project", "MEMSCRIBE_PROJECT", None),
        llm_structured=src.pick("llm_structured", "MEMSCRIBE_LLM_STRUCTURED", None),
        config=Setting(str(config_path), "env" if explicit else ("file" if file else "default")),
        vectors=src.pick("vectors", "MEMSCRIBE_VECTORS", None),
        store=src.pick("store", "MEMSCRIBE_STORE", None),
    )


def override(settings: Settings, flags: Mapping[str, str | None]) -> Settings:
    """``settings`` with the non-empty ``flags`` (a command's own ``--writer``, ``--llm``, ...) on top."""
    chosen = {name: Setting(value, "flag") for name, value in flags.items() if value}
    return replace(settings, **chosen) if chosen else settings


# import name -> the extra that installs it
_EXTRAS = {"fastapi": "server", "uvicorn": "server", "httpx": "llm", "mcp": "mcp"}


def require_extra(module: str, what: str) -> None:
    """Import ``module`` (from one of the extras), or raise ConfigError with the one-line install hint."""
    import importlib

    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != module:
            raise  # the extra is there but broken: not a missing-extra hint
        extra = _EXTRAS.get(module, module)
        raise ConfigError(f"{what} needs the {extra!r} extra: pip install 'memscribe[{extra}]'") from None


def memory_config(settings: Settings, environ: Mapping[str, str] | None = None) -> MemoryConfig:
    """The library configuration for these settings. The model's API key is read here, from
    ``MEMSCRIBE_LLM_API_KEY`` or the provider's own variable (e.g. ``OPENAI_API_KEY``), never from a flag
    or the config file. Raises ConfigError for a model spec no preset knows."""
    env = os.environ if environ is None else environ
    key = None
    if settings.llm.value:
        from memscribe.providers.presets import parse_spec

        if settings.writer.value not in ("raw", "lite"):
            require_extra("httpx", f"the {settings.writer.value} writer with {settings.llm.value!r}")
        preset, _ = parse_spec(settings.llm.value)
        key = env.get("MEMSCRIBE_LLM_API_KEY") or (env.get(preset.api_key_env) if preset.api_key_env else None)
    return MemoryConfig(
        path=Path(settings.db.value) if settings.db.value else None,
        writer=settings.writer.value or MemoryConfig().writer,
        embedder=settings.embedder.value or MemoryConfig().embedder,
        tenant=settings.tenant.value or "default",
        llm=settings.llm.value,
        llm_base_url=settings.llm_base_url.value,
        llm_api_key=key,
        llm_options={"structured": settings.llm_structured.value} if settings.llm_structured.value else {},
        vectors=settings.vectors.value or MemoryConfig().vectors,
        vectors_api_key=env.get("MEMSCRIBE_VECTORS_API_KEY"),
    )


def open_memory(settings: Settings) -> Memory:
    """A Memory over the configured store. Nothing is created on disk until the first write."""
    from memscribe.engine.memory import Memory

    return Memory(settings.store_spec, config=memory_config(settings))
