"""``memscribe mcp --stdio|--http``, added to a click group by :func:`register`.

Defaults suit one person on one machine: the user is ``--user``, else ``$MEMSCRIBE_USER``, else the OS user;
the project is ``--project``, else ``$MEMSCRIBE_PROJECT``, else the git root of the working directory (none
outside a repository). When the configuration cannot work (an unknown writer, a writer that needs a model
and has none, a missing extra), the stdio server still starts and answers every tool call with the
configuration error, so the MCP client shows the reason instead of "Connection closed".
"""

from __future__ import annotations

import getpass
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memscribe.errors import ConfigError, MemscribeError, ScopeError
from memscribe.settings import Settings, is_loopback, memory_config, override, require_extra, resolve_settings

if TYPE_CHECKING:
    from memscribe.engine.memory import Memory

__all__ = ["DEFAULT_MCP_PORT", "ENV_VARS", "git_root", "register"]

DEFAULT_MCP_PORT = 8766
# Environment variables this command reads (documented with the CLI's own).
ENV_VARS = {
    "MEMSCRIBE_USER": "the user whose memories the MCP server serves (default: the OS user)",
    "MEMSCRIBE_PROJECT": "project: MCP writes are tagged with it and reads see only it (default: the git root)",
}


def git_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` holding ``.git`` (a directory or a worktree file)."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _os_user() -> str | None:
    try:
        return getpass.getuser() or None
    except (KeyError, OSError):  # no passwd entry and no LOGNAME/USER: no default
        return None


def _scope(settings: Settings, user: str | None, project: str | None) -> tuple[str, str | None]:
    chosen = user or settings.user.value or _os_user()
    if not chosen:
        raise ScopeError("the MCP server needs a user: pass --user or set MEMSCRIBE_USER")
    if project is None:
        project = settings.project.value
        if project is None:
            root = git_root(Path.cwd())
            project = str(root) if root is not None else None
    return chosen, project or None  # --project "" serves every project


@click.command("mcp")
@click.option("--stdio", "transport", flag_value="stdio", default=True, help="Serve over stdin/stdout (default).")
@click.option("--http", "transport", flag_value="http", help="Serve streamable HTTP on a loopback address.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address for --http (loopback only).")
@click.option("--port", default=DEFAULT_MCP_PORT, show_default=True, type=click.IntRange(0, 65535))
@click.option("--user", "-u", "user", default=None, help="User [env MEMSCRIBE_USER; default: the OS user].")
@click.option("--project", default=None, help="Project [env MEMSCRIBE_PROJECT; default: git root; '' for none].")
@click.option("--writer", default=None, help="Memory writer (default: the root option or $MEMSCRIBE_WRITER).")
@click.option("--embedder", default=None, help="Embedder (default: the root option or $MEMSCRIBE_EMBEDDER).")
@click.option("--llm", default=None, help="Model for the LLM writers, provider:model (default: $MEMSCRIBE_LLM).")
@click.option("--llm-base-url", default=None, help="Model server URL (default: $MEMSCRIBE_LLM_BASE_URL).")
@click.pass_context
def mcp(
    ctx: click.Context, transport: str, host: str, port: int, user: str | None, project: str | None,
    writer: str | None, embedder: str | None, llm: str | None, llm_base_url: str | None,
) -> None:  # fmt: skip
    """Serve memory tools to MCP clients (Claude Code, Codex, Cursor, ...)."""
    require_extra("mcp", "memscribe mcp")
    if transport == "http" and not is_loopback(host):
        raise ConfigError(f"the MCP server has no authentication; bind a loopback address, not {host!r}")
    flags = {"writer": writer, "embedder": embedder, "llm": llm, "llm_base_url": llm_base_url}
    memory: Memory | None
    server: Any
    try:
        root = getattr(ctx.find_root().obj, "settings", None)
        settings = override(root if root is not None else resolve_settings({}), flags)
        user_id, chosen_project = _scope(settings, user, project)
        server, memory = _build(settings, user_id, chosen_project)
    except MemscribeError as exc:
        if transport != "stdio":
            raise
        click.echo(f"error: {exc}", err=True)
        from memscribe.mcp.server import broken_server

        server, memory = broken_server(exc), None
    try:
        if transport == "http":
            from memscribe.mcp.security import http_options

            server.run("streamable-http", **http_options(host, port))
        else:
            server.run("stdio")
    finally:
        if memory is not None:
            memory.close()


def _build(settings: Settings, user_id: str, project: str | None) -> tuple[Any, Memory]:
    from memscribe.engine.memory import Memory
    from memscribe.mcp.server import McpScope, build_server

    memory = Memory(settings.db.value, config=memory_config(settings))  # builds the writer: ConfigError here
    print(f"memscribe mcp: user {user_id!r}, project {project!r}", file=sys.stderr)
    return build_server(memory, McpScope(user_id=user_id, project=project)), memory


def register(cli_group: click.Group) -> None:
    """Add ``mcp`` to the memscribe CLI."""
    cli_group.add_command(mcp)
