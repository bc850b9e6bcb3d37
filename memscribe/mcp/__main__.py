"""``python -m memscribe.mcp [--stdio|--http] ...``: the MCP server without the rest of the CLI."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import click

from memscribe.errors import MemscribeError, error_info
from memscribe.mcp.cli import mcp


def main() -> None:
    from memscribe.settings import resolve_settings

    context = click.Context(click.Group("memscribe-mcp"), obj=SimpleNamespace(settings=resolve_settings({})))
    try:
        with context:
            mcp.main(args=sys.argv[1:], prog_name="python -m memscribe.mcp", standalone_mode=False, parent=context)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except MemscribeError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(error_info(exc).exit_code)


if __name__ == "__main__":
    main()
