"""The ``memscribe`` command line: the root group, its global options and error handling.

Every error memscribe raises becomes one line on stderr (plus a JSON error object on stdout with
``--json``) and the exit code ERROR_TABLE gives its class; no traceback is printed for them. Any other
exception is a bug: its traceback is printed and the exit code is 70 (``internal_error``).
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from typing import Any

import click

from memscribe import __version__
from memscribe.cli import admin_cmds, memory_cmds
from memscribe.cli.bench_cmds import bench_group
from memscribe.cli.doctor import doctor_cmd
from memscribe.cli.hub_cmds import hub_group
from memscribe.cli.hub_feed_cmds import attach as attach_hub_feed
from memscribe.cli.migrate_cmd import migrate_cmd
from memscribe.cli.output import report_error
from memscribe.cli.state import CliState
from memscribe.cli.train_cmds import register as register_train
from memscribe.cli.ui_cmd import ui_cmd
from memscribe.errors import MemscribeError
from memscribe.mcp.cli import register as register_mcp
from memscribe.server.cli import register as register_server
from memscribe.settings import resolve_settings

__all__ = ["cli", "main"]


class MemscribeGroup(click.Group):
    """The root group: turns MemscribeError into a one-line message and its ERROR_TABLE exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort, BrokenPipeError):
            raise
        except MemscribeError as exc:
            state = ctx.find_object(CliState)
            ctx.exit(report_error(bool(state and state.json), exc))
        except Exception as exc:  # a bug: keep the traceback, but exit with the table's internal-error code
            traceback.print_exc()
            state = ctx.find_object(CliState)
            ctx.exit(report_error(bool(state and state.json), exc))


@click.group(cls=MemscribeGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--home",
    type=click.Path(file_okay=False),
    default=None,
    metavar="PATH",
    help="Directory holding the store (default: $MEMSCRIBE_HOME or the user data directory).",
)
@click.option(
    "--db",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="PATH",
    help="The SQLite file itself (overrides --home).",
)
@click.option(
    "--writer",
    default=None,
    help="Memory writer: lite, raw, pro, ultra, mem0-protocol, hy-protocol (default: $MEMSCRIBE_WRITER or lite).",
)
@click.option(
    "--embedder",
    default=None,
    help="Embedder: local (MiniLM ONNX), e5 (multilingual) or hash[:dim] (default: $MEMSCRIBE_EMBEDDER or local).",
)
@click.option("--tenant", default=None, help="Tenant to work in (default: $MEMSCRIBE_TENANT or default).")
@click.option("--llm", default=None, help="Model for LLM writers, provider:model (default: $MEMSCRIBE_LLM).")
@click.option("--llm-base-url", default=None, help="Model server URL (default: $MEMSCRIBE_LLM_BASE_URL or preset).")
@click.option(
    "--llm-structured",
    default=None,
    type=click.Choice(["json_schema", "json_object", "none"]),
    help="How the model is asked for JSON (default: $MEMSCRIBE_LLM_STRUCTURED or the preset's; see doctor).",
)
@click.option("--json", "json_output", is_flag=True, help="Machine-readable JSON output for every command.")
@click.version_option(__version__, "--version", prog_name="memscribe")
@click.pass_context
def cli(
    ctx: click.Context, home: str | None, db: str | None, writer: str | None, embedder: str | None,
    tenant: str | None, llm: str | None, llm_base_url: str | None, llm_structured: str | None, json_output: bool,
) -> None:  # fmt: skip
    """memscribe: a local-first memory engine for AI agents.

    Remember conversations, search them, and see how each memory changed and why.
    """
    flags = {"home": home, "db": db, "writer": writer, "embedder": embedder, "tenant": tenant, "llm": llm,
             "llm_base_url": llm_base_url, "llm_structured": llm_structured}  # fmt: skip
    ctx.obj = CliState(settings=resolve_settings(flags), json=json_output)


for _command in (*memory_cmds.COMMANDS, *admin_cmds.COMMANDS, doctor_cmd, bench_group, hub_group, ui_cmd, migrate_cmd):
    cli.add_command(_command)
attach_hub_feed(hub_group)
# The server and MCP commands import their frameworks only when run, so the base install keeps working.
register_server(cli)
register_mcp(cli)
register_train(cli)


def _usage_error(exc: click.ClickException, as_json: bool) -> int:
    """Click's message on stderr as usual; with ``--json`` also the error object on stdout."""
    exc.show()
    if as_json:
        import json

        error = {"code": "usage_error", "type": type(exc).__name__, "message": exc.format_message(),
                 "exit_code": exc.exit_code}  # fmt: skip
        click.echo(json.dumps({"error": error}))
    return exc.exit_code


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``memscribe``).

    A reader that stops reading (``memscribe export | head``) ends the command quietly with exit 1: the
    root group lets BrokenPipeError through to click, which silences stdout and exits."""
    import sys

    args = list(argv) if argv is not None else sys.argv[1:]
    try:
        code = cli.main(args=args, prog_name="memscribe", standalone_mode=False)
    except click.ClickException as exc:
        code = _usage_error(exc, "--json" in args)
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        code = 1
    sys.exit(code if isinstance(code, int) else 0)
