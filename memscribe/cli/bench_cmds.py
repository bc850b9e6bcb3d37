"""The ``memscribe bench`` group. Each benchmark module owns its click command; this group only knows
where to find it, and imports it when that subcommand (or ``bench --help``) is asked for, so the
benchmarks' dependencies never slow down the rest of the CLI.

A built-in benchmark adds one line to :data:`BENCH_COMMANDS`. A plugin registers an entry point in the
``memscribe.bench`` group (``name = "package.module:command"``) or calls :func:`register_bench_command`.
"""

from __future__ import annotations

import importlib

import click

__all__ = ["BENCH_COMMANDS", "bench_group", "register_bench_command"]

ENTRY_POINT_GROUP = "memscribe.bench"

# subcommand name -> "module:attribute" of a click.Command
BENCH_COMMANDS: dict[str, str] = {
    "speed": "memscribe.bench.speed:command",
    "updates": "memscribe.bench.writer_cmds:updates_command",
    "locomo": "memscribe.bench.writer_cmds:locomo_command",
    "natural": "memscribe.bench.natural:command",
    "longmemeval": "memscribe.bench.longmemeval_cmd:command",
    "writers": "memscribe.bench.writers.cli:writers_command",
    "compare": "memscribe.bench.writers.cli:compare_command",
}


def register_bench_command(name: str, target: str) -> None:
    """Make ``memscribe bench NAME`` run the click command at ``target`` ("module:attribute")."""
    BENCH_COMMANDS[name] = target


def _plugins() -> dict[str, str]:
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


class LazyBenchGroup(click.Group):
    """A group whose subcommands are imported on demand from :data:`BENCH_COMMANDS` and entry points."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *BENCH_COMMANDS, *_plugins()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None:
            return found
        target = BENCH_COMMANDS.get(cmd_name) or _plugins().get(cmd_name)
        if target is None:
            return None
        module_name, _, attribute = target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute or "command")
        if not isinstance(command, click.Command):
            raise click.ClickException(f"{target} is not a click command")
        return command


@click.group("bench", cls=LazyBenchGroup)
def bench_group() -> None:
    """Benchmarks: speed, and the writer benchmarks as they are added."""
