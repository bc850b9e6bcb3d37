"""``memscribe mcp --stdio|--http``, added to a click group by :func:`register`."""

from __future__ import annotations

import click

from memscribe.errors import ConfigError, ScopeError

__all__ = ["DEFAULT_MCP_PORT", "ENV_VARS", "register"]

DEFAULT_MCP_PORT = 8766
# Environment variables this command reads (documented with the CLI's own).
ENV_VARS = {
    "MEMSCRIBE_USER": "the user whose memories the MCP server serves",
    "MEMSCRIBE_PROJECT": "optional project: MCP writes are tagged with it and reads see only it",
}


@click.command("mcp")
@click.option(
    "--stdio", "transport", flag_value="stdio", default=True, help="Serve over stdin/stdout (default)."
)
@click.option("--http", "transport", flag_value="http", help="Serve streamable HTTP on a loopback address.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address for --http (loopback only).")
@click.option("--port", default=DEFAULT_MCP_PORT, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--user", "-u", "user", envvar="MEMSCRIBE_USER", default=None, help="User [env MEMSCRIBE_USER]."
)
@click.option("--project", envvar="MEMSCRIBE_PROJECT", default=None, help="Project [env MEMSCRIBE_PROJECT].")
@click.pass_context
def mcp(
    ctx: click.Context, transport: str, host: str, port: int, user: str | None, project: str | None
) -> None:
    """Serve memory tools to MCP clients (Claude Code, Codex, Cursor, ...)."""
    from memscribe.engine.memory import Memory
    from memscribe.mcp.server import McpScope, build_server
    from memscribe.server.settings import is_loopback

    settings = getattr(ctx.find_root().obj, "settings", None)
    if settings is None:
        from memscribe.cli.settings import resolve_settings

        settings = resolve_settings({})
    user = user or settings.user.value
    if not user:
        raise ScopeError("the MCP server needs a user: pass --user or set MEMSCRIBE_USER")
    if transport == "http" and not is_loopback(host):
        raise ConfigError(f"the MCP server has no authentication; bind a loopback address, not {host!r}")
    memory = Memory(
        settings.db.value,
        writer=settings.writer.value,
        embedder=settings.embedder.value,
        tenant=settings.tenant.value,
    )
    server = build_server(memory, McpScope(user_id=user, project=project or None))
    try:
        if transport == "http":
            from memscribe.mcp.security import http_options

            server.run("streamable-http", **http_options(host, port))
        else:
            server.run("stdio")
    finally:
        memory.close()


def register(cli_group: click.Group) -> None:
    """Add ``mcp`` to the memscribe CLI."""
    cli_group.add_command(mcp)
