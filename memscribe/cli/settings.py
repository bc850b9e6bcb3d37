"""Where the CLI's settings come from: a flag, a ``MEMSCRIBE_*`` environment variable, or the default.

The library never reads the environment (except ``MEMSCRIBE_HOME`` for ``Memory()``); the CLI does, here
and only here, so ``config show`` can say where each value came from and the docs test can list them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

from memscribe.config import DEFAULT_DB_NAME, MemoryConfig

if TYPE_CHECKING:
    from memscribe.engine.memory import Memory

__all__ = ["ENV_VARS", "Setting", "Settings", "memory_config", "open_memory", "resolve_settings"]

# name -> (setting it feeds, what it means). docs/cli.md must mention every one (tests/test_cli.py).
ENV_VARS: dict[str, tuple[str, str]] = {
    "MEMSCRIBE_HOME": ("home", "directory holding the store; the database is <home>/memscribe.db"),
    "MEMSCRIBE_WRITER": ("writer", "memory writer: raw, lite, ..."),
    "MEMSCRIBE_EMBEDDER": ("embedder", "embedder spec: local (MiniLM ONNX) or hash[:dim]"),
    "MEMSCRIBE_TENANT": ("tenant", "tenant every command works in"),
    "MEMSCRIBE_USER": ("user", "default --user for commands that take one"),
    "MEMSCRIBE_LLM": ("llm", "model for the pro/ultra writers as provider:model, e.g. vllm:Qwen/Qwen3-8B"),
    "MEMSCRIBE_LLM_BASE_URL": ("llm_base_url", "base URL of the model server (default: the provider's)"),
    "MEMSCRIBE_LLM_STRUCTURED": ("llm_structured", "how the model is asked for JSON: json_schema, json_object or none"),
    "MEMSCRIBE_LLM_API_KEY": ("llm_api_key", "API key for the model (else the provider's own variable)"),
}


@dataclass(frozen=True)
class Setting:
    """One effective value and where it came from: ``flag``, ``env`` or ``default``."""

    value: str | None
    source: str


@dataclass(frozen=True)
class Settings:
    """The effective configuration of one CLI invocation."""

    home: Setting
    db: Setting
    writer: Setting
    embedder: Setting
    tenant: Setting
    user: Setting
    llm: Setting
    llm_base_url: Setting
    llm_structured: Setting

    def rows(self) -> list[tuple[str, str | None, str]]:
        """(name, value, source) for every setting, in declaration order."""
        return [(f.name, getattr(self, f.name).value, getattr(self, f.name).source) for f in fields(self)]


def _pick(flag: str | None, env_name: str, environ: Mapping[str, str], default: str | None) -> Setting:
    if flag:
        return Setting(flag, "flag")
    if environ.get(env_name):
        return Setting(environ[env_name], "env")
    return Setting(default, "default")


def _default_home() -> str:
    from platformdirs import user_data_path

    return str(user_data_path("memscribe", appauthor=False))


def resolve_settings(flags: Mapping[str, str | None], environ: Mapping[str, str] | None = None) -> Settings:
    """Flags beat environment variables, which beat defaults. ``--db`` beats ``--home`` for the file."""
    env = os.environ if environ is None else environ
    defaults = MemoryConfig()
    home = _pick(flags.get("home"), "MEMSCRIBE_HOME", env, None)
    if home.value is None:
        home = Setting(_default_home(), "default")
    home = Setting(str(Path(home.value or ".").expanduser()), home.source)
    db_flag = flags.get("db")
    db = (
        Setting(str(Path(db_flag).expanduser()), "flag")
        if db_flag
        else Setting(str(Path(home.value or ".") / DEFAULT_DB_NAME), home.source)
    )
    return Settings(
        home=home,
        db=db,
        writer=_pick(flags.get("writer"), "MEMSCRIBE_WRITER", env, defaults.writer),
        embedder=_pick(flags.get("embedder"), "MEMSCRIBE_EMBEDDER", env, defaults.embedder),
        tenant=_pick(flags.get("tenant"), "MEMSCRIBE_TENANT", env, defaults.tenant),
        user=_pick(flags.get("user"), "MEMSCRIBE_USER", env, None),
        llm=_pick(flags.get("llm"), "MEMSCRIBE_LLM", env, None),
        llm_base_url=_pick(flags.get("llm_base_url"), "MEMSCRIBE_LLM_BASE_URL", env, None),
        llm_structured=_pick(flags.get("llm_structured"), "MEMSCRIBE_LLM_STRUCTURED", env, None),
    )


def memory_config(settings: Settings, environ: Mapping[str, str] | None = None) -> MemoryConfig:
    """The library configuration for these settings. The model's API key is read here, from
    ``MEMSCRIBE_LLM_API_KEY`` or the provider's own variable (e.g. ``OPENAI_API_KEY``), never from a flag."""
    env = os.environ if environ is None else environ
    key = None
    if settings.llm.value:
        from memscribe.providers.presets import parse_spec

        preset, _ = parse_spec(settings.llm.value)
        key = env.get("MEMSCRIBE_LLM_API_KEY") or (env.get(preset.api_key_env) if preset.api_key_env else None)
    return MemoryConfig(
        writer=settings.writer.value or MemoryConfig().writer,
        embedder=settings.embedder.value or MemoryConfig().embedder,
        tenant=settings.tenant.value or "default",
        llm=settings.llm.value,
        llm_base_url=settings.llm_base_url.value,
        llm_api_key=key,
        llm_options={"structured": settings.llm_structured.value} if settings.llm_structured.value else {},
    )


def open_memory(settings: Settings) -> Memory:
    """A Memory over the configured store. Nothing is created on disk until the first write."""
    from memscribe.engine.memory import Memory

    return Memory(settings.db.value, config=memory_config(settings))
