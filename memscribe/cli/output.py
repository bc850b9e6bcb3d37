"""Output for the CLI: JSON for machines, rich tables for people, one-line errors for both.

rich is imported only when something is rendered for a person, so ``--json`` runs and ``--help`` stay quick.
User content is always wrapped in ``Text`` so square brackets in a memory are never read as markup.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click

from memscribe.errors import error_info

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

__all__ = [
    "console",
    "day",
    "dump_json",
    "emit",
    "memories_table",
    "ops_table",
    "pairs_table",
    "plain",
    "progress_bar",
    "report_error",
]


def console(*, stderr: bool = False) -> Console:
    """A console on the current stdout/stderr (looked up per call, so test runners can capture it)."""
    from rich.console import Console

    return Console(file=sys.stderr if stderr else sys.stdout, highlight=False, soft_wrap=False)


@contextmanager
def progress_bar(label: str, total: int, *, show: bool = True) -> Iterator[Callable[[int], None] | None]:
    """A progress bar on stderr for long work; yields the callback that advances it by ``n`` (or None when
    ``show`` is false, for ``--json`` runs)."""
    if not show:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console(stderr=True), transient=True) as progress:
        task = progress.add_task(label, total=total)
        yield lambda n: progress.advance(task, n)


def dump_json(data: object) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def emit(as_json: bool, data: object, render: Callable[[Console], None]) -> None:
    """Print ``data`` as JSON, or call ``render`` with a console for people."""
    if as_json:
        dump_json(data)
    else:
        render(console())


def report_error(as_json: bool, exc: BaseException) -> int:
    """One line on stderr (and a JSON error object on stdout with --json); returns the exit code."""
    info = error_info(exc)
    message = str(exc) or type(exc).__name__
    click.echo(f"error: {message}", err=True)
    if as_json:
        dump_json({"error": {"code": info.code, "type": type(exc).__name__, "message": message,
                             "exit_code": info.exit_code}})  # fmt: skip
    return info.exit_code


def plain(value: object) -> Text:
    """User content as literal text (no markup)."""
    from rich.text import Text

    return Text("" if value is None else str(value))


def day(iso: object) -> str:
    """``2023-05-14`` from an ISO timestamp ("" when absent)."""
    return str(iso)[:10] if iso else ""


def _provenance(row: Mapping[str, Any]) -> str:
    prov = row.get("provenance") or {}
    episode = str(prov.get("episode_id") or "")[:8]
    indices = ",".join(str(i) for i in prov.get("message_indices") or ())
    where = f"{episode}#{indices}" if episode else ""
    return " ".join(part for part in (row.get("source") or "", where) if part)


def memories_table(rows: Iterable[Mapping[str, Any]], *, title: str | None = None, scores: bool = False) -> Table:
    """Memories as a table: score (search only), date, the memory with its id beneath, and provenance."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    if scores:
        table.add_column("score", justify="right", style="cyan")
    table.add_column("date", style="green", no_wrap=True)
    table.add_column("memory", min_width=30, ratio=1)
    table.add_column("from", style="dim", max_width=24)
    for row in rows:
        cells: list[Any] = [f"{row.get('score', 0):.3f}"] if scores else []
        status = "" if row.get("status") in (None, "active") else f" ({row['status']})"
        memory = plain(f"{row.get('memory', '')}{status}\n")
        memory.append(str(row.get("id", "")), style="dim")
        cells += [day(row.get("valid_from")), memory, _provenance(row)]
        table.add_row(*cells)
    return table


def ops_table(result: Mapping[str, Any]) -> Table:
    """The operations a write produced (add, update, delete, forget), with the memory id beneath each."""
    from rich.table import Table

    table = Table()
    table.add_column("event", style="bold")
    table.add_column("memory", min_width=30, ratio=1)
    table.add_column("why", style="dim", ratio=1)
    for row in result.get("results", []):
        text = row.get("memory", "")
        if row.get("previous_memory"):
            text = f"{text}  (was: {row['previous_memory']})"
        cell = plain(f"{text}\n" if text else "")
        cell.append(str(row.get("id", "")), style="dim")
        table.add_row(row.get("event", ""), cell, plain(row.get("reason", "")))
    for message in result.get("messages", []):
        if message["outcome"] in ("skipped", "rejected"):
            said = f"message {message['index']} ({message['role']})"
            table.add_row(message["outcome"].upper(), plain(said), plain(message["reason"]))
    return table


def pairs_table(pairs: Iterable[tuple[str, object]], *, title: str | None = None) -> Table:
    """A two-column name/value table."""
    from rich.table import Table

    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column("name", style="bold")
    table.add_column("value")
    for name, value in pairs:
        if isinstance(value, bool):
            value = "yes" if value else "no"
        elif isinstance(value, list | tuple):
            value = ", ".join(str(v) for v in value) or "none"
        table.add_row(name, plain(value))
    return table
