"""``memscribe serve`` and ``memscribe keys create|list|revoke``, added to a click group by :func:`register`.

The store, writer, embedder and model come from :mod:`memscribe.settings` (the root group's resolved flags,
``MEMSCRIBE_*`` variables and config file), with ``serve``'s own ``--writer/--embedder/--llm/--llm-base-url``
on top, so ``memscribe serve --writer pro --llm vllm:Qwen/Qwen3-8B`` serves the LLM writer.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from memscribe.server.settings import DEFAULT_PORT, MAX_BODY_BYTES
from memscribe.settings import Settings, memory_config, override, require_extra, resolve_settings

__all__ = ["ENV_VARS", "register", "writer_options"]

F = TypeVar("F", bound=Callable[..., Any])

# Environment variables these commands read (documented with the CLI's own).
ENV_VARS = {
    "MEMSCRIBE_ADMIN_KEY": "admin key for /v1/admin/* and /metrics on `memscribe serve`",
}


def writer_options(fn: F) -> F:
    """``--writer``, ``--embedder``, ``--llm`` and ``--llm-base-url`` on a command (they beat the root's)."""
    for name, text in reversed((
        ("--writer", "Memory writer: lite, raw, pro, ultra, ... (default: the root option, $MEMSCRIBE_WRITER)."),
        ("--embedder", "Embedder: local or hash[:dim] (default: the root option, $MEMSCRIBE_EMBEDDER)."),
        ("--llm", "Model for the LLM writers, provider:model (default: $MEMSCRIBE_LLM)."),
        ("--llm-base-url", "Model server URL (default: $MEMSCRIBE_LLM_BASE_URL or the provider's)."),
    )):  # fmt: skip
        fn = click.option(name, default=None, help=text)(fn)
    return fn


def command_settings(ctx: click.Context, **flags: str | None) -> Settings:
    """The root group's settings (or, run standalone, the environment's) with this command's flags on top."""
    settings = getattr(ctx.find_root().obj, "settings", None)
    if settings is None:
        settings = resolve_settings({})
    return override(settings, flags)


def _keys(ctx: click.Context, keys_file: str | None) -> Any:
    from memscribe.server.keys import KeyStore

    db = Path(str(command_settings(ctx).db.value))
    return KeyStore(Path(keys_file) if keys_file else db.parent / "keys.db")


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=click.IntRange(0, 65535))
@click.option("--no-auth", is_flag=True, help="Serve one tenant without API keys (loopback addresses only).")
@click.option(
    "--admin-key",
    envvar="MEMSCRIBE_ADMIN_KEY",
    default=None,
    help="Admin key [env MEMSCRIBE_ADMIN_KEY]; prefer the variable or --admin-key-file (argv is visible to all).",
)
@click.option(
    "--admin-key-file",
    default=None,
    type=click.Path(dir_okay=False, exists=True),
    help="Read the admin key from this file (first line).",
)
@click.option("--cors-origin", "cors_origins", multiple=True, help="Allow browser calls from this origin.")
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    help="Another Host name to answer (behind a proxy); others are refused.",
)
@click.option("--max-body", default=MAX_BODY_BYTES, show_default=True, type=click.IntRange(1024, MAX_BODY_BYTES),
              help="Request body limit of every route, bytes (at most 1 MiB).")  # fmt: skip
@click.option("--keys-file", default=None, help="API key database (default: keys.db beside the store).")
@click.option("--log-level", default="info", type=click.Choice(["debug", "info", "warning", "error"]))
@writer_options
@click.pass_context
def serve(
    ctx: click.Context, host: str, port: int, no_auth: bool, admin_key: str | None, admin_key_file: str | None,
    cors_origins: tuple[str, ...], allowed_hosts: tuple[str, ...], max_body: int,
    keys_file: str | None,
    log_level: str, writer: str | None, embedder: str | None, llm: str | None, llm_base_url: str | None,
) -> None:  # fmt: skip
    """Serve the REST API (and mem0-compatible routes) with uvicorn."""
    require_extra("fastapi", "memscribe serve")
    require_extra("uvicorn", "memscribe serve")
    import uvicorn

    from memscribe.server.app import create_app
    from memscribe.server.logs import configure_logging
    from memscribe.server.settings import ServerSettings

    chosen = command_settings(ctx, writer=writer, embedder=embedder, llm=llm, llm_base_url=llm_base_url)
    config = memory_config(chosen)
    configure_logging(log_level)
    if admin_key_file:
        admin_key = (Path(admin_key_file).read_text(encoding="utf-8").strip().splitlines() or [""])[0]
    elif admin_key and ctx.get_parameter_source("admin_key") == click.core.ParameterSource.COMMANDLINE:
        logging.getLogger("memscribe.server").warning(
            "--admin-key on the command line is visible to every local user; use MEMSCRIBE_ADMIN_KEY or "
            "--admin-key-file"
        )
    settings = ServerSettings(
        store_path=Path(str(chosen.db.value)), host=host, port=port,
        keys_path=Path(keys_file) if keys_file else None, admin_key=admin_key or None, no_auth=no_auth,
        default_tenant=config.tenant, writer=config.writer, embedder=config.embedder, cors_origins=cors_origins,
        allowed_hosts=allowed_hosts, max_body_bytes=max_body,
        llm=config.llm, llm_base_url=config.llm_base_url, llm_api_key=config.llm_api_key,
    )  # fmt: skip
    uvicorn.run(create_app(settings), host=host, port=port, log_config=None, access_log=False)


@click.group("keys")
def keys() -> None:
    """Manage tenant API keys (stored hashed in keys.db beside the store)."""


_keys_file = click.option("--keys-file", default=None, help="API key database (default: keys.db beside the store).")


@keys.command("create")
@click.argument("tenant")
@click.option("--name", default="", help="A label for people.")
@_keys_file
@click.pass_context
def keys_create(ctx: click.Context, tenant: str, name: str, keys_file: str | None) -> None:
    """Create a key for TENANT and print it once."""
    new = _keys(ctx, keys_file).create(tenant, name)
    click.echo(json.dumps({**vars(new.key), "key": new.token}))


@keys.command("list")
@click.option("--tenant", default=None, help="Only this tenant's keys.")
@_keys_file
@click.pass_context
def keys_list(ctx: click.Context, tenant: str | None, keys_file: str | None) -> None:
    """List keys as one JSON document, ``{"keys": [...]}`` (never the secrets)."""
    found = [vars(key) for key in _keys(ctx, keys_file).list(tenant)]
    click.echo(json.dumps({"keys": found}, indent=2))


@keys.command("revoke")
@click.argument("key_id")
@_keys_file
@click.pass_context
def keys_revoke(ctx: click.Context, key_id: str, keys_file: str | None) -> None:
    """Revoke the key with KEY_ID; it stops working at once."""
    click.echo(json.dumps(vars(_keys(ctx, keys_file).revoke(key_id))))


def register(cli_group: click.Group) -> None:
    """Add ``serve`` and ``keys`` to the memscribe CLI."""
    cli_group.add_command(serve)
    cli_group.add_command(keys)
