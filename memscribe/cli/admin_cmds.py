"""Commands over the whole store: purge, export, import, reindex, stats, config show."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from memscribe.cli.output import emit, pairs_table, plain, progress_bar
from memscribe.cli.state import CliState, json_option, pass_state, user_option
from memscribe.errors import ERROR_TABLE, InvalidInput, StoreError
from memscribe.settings import ENV_VARS

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COMMANDS"]


@click.command("purge")
@user_option()
@click.option("--yes", is_flag=True, help="Do not ask for confirmation (required with --json or no terminal).")
@json_option
@pass_state
def purge_cmd(state: CliState, user: str | None, yes: bool) -> None:
    """Erase every byte of one user's memories, conversations and journal, and verify the files."""
    user_id = state.user(user)
    if not yes:
        if state.json or not sys.stdin.isatty():
            raise InvalidInput(f"purge erases all of {user_id!r}'s data for good; pass --yes to confirm")
        click.confirm(f"Erase all memories and conversations of {user_id!r}? This cannot be undone", abort=True)
    report = state.memory().purge(user_id)

    def render(out: Console) -> None:
        out.print(pairs_table([(k, v) for k, v in report.items() if k != "files_checked"], title="purged"))
        if report["leftovers"]:
            out.print("[red]purged text is still present in the files above[/red]")

    emit(state.json, report, render)
    if not report["verified"]:  # scripts must not read an unverified purge as done
        sys.exit(ERROR_TABLE[StoreError].exit_code)


@click.command("pending")
@user_option("Only this user's episodes (with --retry).")
@click.option("--retry", is_flag=True, help="Retry them now, given-up ones included, with their own writer.")
@click.option("--writer", default=None, help="With --retry: write them with this writer instead (an explicit switch).")
@json_option
@pass_state
def pending_cmd(state: CliState, user: str | None, retry: bool, writer: str | None) -> None:
    """Episodes stored but not yet written: their writer, attempts, last error and next retry."""
    memory = state.memory()
    if writer is not None and not retry:
        raise InvalidInput("--writer switches the writer of pending episodes; it needs --retry")
    if retry:
        data: Any = memory.retry_pending(user_id=user, writer=writer)
        emit(state.json, data, lambda out: out.print(pairs_table(data.items(), title="retried")))
        return
    rows = memory.pending(limit=1000)

    def render(out: Console) -> None:
        from rich.table import Table

        columns = ("episode_id", "user_id", "writer", "attempts", "retry_at", "error")
        table = Table(title=f"{len(rows)} pending episodes", title_justify="left")
        for column in columns:
            table.add_column(column)
        for row in rows:
            table.add_row(*(plain(dict(row)[c]) for c in columns))
        out.print(table)

    emit(state.json, {"pending": rows}, render)


@click.command("export")
@user_option()
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True, path_type=Path), default=None,
              help="Write JSONL here (default: stdout).")  # fmt: skip
@json_option
@pass_state
def export_cmd(state: CliState, user: str | None, output: Path | None) -> None:
    """Export a user's conversations, memory versions and journal as JSONL."""
    user_id = state.user(user)
    memory = state.memory()
    if output is None:
        for line in memory.export(user_id) or []:
            click.echo(line)
        return
    lines = memory.export(user_id) or []
    with output.open("w", encoding="utf-8") as fp:
        for line in lines:
            fp.write(line + "\n")
    data = {"output": str(output), "lines": len(lines), "user_id": user_id}
    emit(state.json, data, lambda out: out.print(f"exported {len(lines)} lines for {user_id!r} to {output}"))


@click.command("import")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--url", default=None, help="Import into this server instead (in batches under its 1 MiB limit).")
@click.option("--api-key", envvar="MEMSCRIBE_API_KEY", default=None,
              help="The server's API key with --url [env MEMSCRIBE_API_KEY].")  # fmt: skip
@json_option
@pass_state
def import_cmd(state: CliState, file: IO[str], url: str | None, api_key: str | None) -> None:
    """Import a JSONL export ('-' for stdin); records already present are skipped."""
    lines = file.read().splitlines()
    with progress_bar("importing", len(lines), show=not state.json) as advance:
        if url is None:
            counts = state.memory().import_(lines, progress=advance)
        else:
            from memscribe.client import MemoryClient

            with MemoryClient(url, api_key) as client:
                counts = client.import_(lines, progress=advance)
    emit(state.json, counts, lambda out: out.print(pairs_table(counts.items(), title="imported")))


@click.command("reindex")
@user_option("Rebuild one user's index only (default: every user's, and compact the keyword index).")
@json_option
@pass_state
def reindex_cmd(state: CliState, user: str | None) -> None:
    """Rebuild the vector indexes from the store (after a bulk import, or when an index file was lost)."""
    memory = state.memory()
    total = memory.stats(user_id=user)["current"]
    with progress_bar("indexing", total, show=not state.json) as advance:
        data = memory.reindex(user_id=user, progress=advance)
    emit(state.json, data, lambda out: out.print(pairs_table(data.items(), title="reindexed")))


@click.command("stats")
@user_option("Count one user's records only (default: the whole store).")
@json_option
@pass_state
def stats_cmd(state: CliState, user: str | None) -> None:
    """Counts of memories, versions, episodes, pending episodes and journal lines, and the store's size."""
    data = state.memory().stats(user_id=user)
    emit(state.json, data, lambda out: out.print(pairs_table(_human_stats(data), title="store")))


def _human_stats(data: Mapping[str, Any]) -> list[tuple[str, object]]:
    rows: list[tuple[str, object]] = []
    for key, value in data.items():
        if key == "bytes":
            value = f"{value:,} bytes ({value / 2**20:.1f} MiB)"
        rows.append((key, value))
    return rows


@click.group("config")
def config_group() -> None:
    """Inspect the CLI's configuration."""


@config_group.command("show")
@json_option
@pass_state
def config_show(state: CliState) -> None:
    """Show the effective settings and where each came from (flag, env or default)."""
    env_of = {setting: name for name, (setting, _) in ENV_VARS.items()}
    rows = [
        {"setting": name, "value": value, "source": source, "env": env_of.get(name)}
        for name, value, source in state.settings.rows()
    ]

    def render(out: Console) -> None:
        from rich.table import Table

        table = Table(title="effective configuration", title_justify="left")
        for column in ("setting", "value", "source", "env"):
            table.add_column(column)
        for row in rows:
            table.add_row(row["setting"], str(row["value"] or "-"), row["source"], row["env"] or "")
        out.print(table)

    emit(state.json, {row["setting"]: {k: row[k] for k in ("value", "source", "env")} for row in rows}, render)


COMMANDS = (purge_cmd, pending_cmd, export_cmd, import_cmd, reindex_cmd, stats_cmd, config_group)
