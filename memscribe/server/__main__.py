"""``python -m memscribe.server serve|keys ...``: the server commands without the rest of the CLI."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import click

from memscribe.errors import MemscribeError, error_info
from memscribe.server.cli import register


@click.group()
@click.option("--home", default=None, help="Store directory [env MEMSCRIBE_HOME].")
@click.option("--db", default=None, help="Store file (beats --home).")
@click.option("--writer", default=None, help="Memory writer [env MEMSCRIBE_WRITER].")
@click.option("--embedder", default=None, help="Embedder spec [env MEMSCRIBE_EMBEDDER].")
@click.pass_context
def main(ctx: click.Context, home: str | None, db: str | None, writer: str | None, embedder: str | None) -> None:
    """memscribe's REST server."""
    from memscribe.settings import resolve_settings

    flags = {"home": home, "db": db, "writer": writer, "embedder": embedder}
    ctx.obj = SimpleNamespace(settings=resolve_settings(flags))


register(main)

if __name__ == "__main__":
    try:
        main(standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.Abort:
        sys.exit(1)
    except MemscribeError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(error_info(exc).exit_code)
