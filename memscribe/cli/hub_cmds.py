"""``memscribe hub``: gather the histories of a person's AI tools into this store.

``sources`` lists what the hub can read (built-ins and plugins from the ``memscribe.hub_sources`` entry
points), ``scan`` what it finds, ``import`` adds what changed, ``status`` shows what was imported, and
``watch`` keeps importing until it is stopped (Ctrl-C or SIGTERM).
"""

from __future__ import annotations

import getpass
import os
import signal
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memscribe.cli.output import emit, pairs_table, progress_bar
from memscribe.cli.state import CliState, json_option, pass_state, user_option
from memscribe.errors import InvalidInput

if TYPE_CHECKING:
    from rich.console import Console

    from memscribe.hub import Hub, ImportReport

__all__ = ["hub_group"]


def _paths(values: tuple[str, ...]) -> dict[str, tuple[Path, ...]]:
    out: dict[str, list[Path]] = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name or not path:
            raise InvalidInput(f"--path takes SOURCE=DIR, got {value!r}")
        out.setdefault(name, []).append(Path(path).expanduser())
    return {k: tuple(v) for k, v in out.items()}


def _hub(
    state: CliState,
    user: str | None,
    paths: tuple[str, ...],
    roots: tuple[str, ...],
    *,
    defer: bool = False,
    count_secrets: bool = False,
) -> Hub:
    from memscribe.hub import Hub, HubEnv

    env = HubEnv(
        home=Path.home(),
        environ=dict(os.environ),
        paths=_paths(paths),
        project_roots=tuple(Path(r).expanduser() for r in roots) or (Path.cwd(),),
    )
    person = state.user(user, required=False) or getpass.getuser()
    db = Path(state.settings.db.value or "memscribe.db")
    hub = Hub(
        state.memory(),
        db.with_name(f"{db.stem}.hub{db.suffix or '.db'}"),
        env,
        user=person,
        defer=defer,
        count_secrets=count_secrets,
    )
    click.get_current_context().call_on_close(hub.close)
    return hub


_path_option = click.option(
    "--path",
    "paths",
    multiple=True,
    metavar="SOURCE=DIR",
    help="Read SOURCE from DIR instead of its default location (repeatable).",
)
_root_option = click.option(
    "--project-root",
    "roots",
    multiple=True,
    metavar="DIR",
    help="Where to look for per-project histories such as Aider's (default: the current directory).",
)


@click.group("hub")
def hub_group() -> None:
    """Import the histories of AI coding tools (Claude Code, Codex, Cursor, …) into one memory."""


@hub_group.command("sources")
@json_option
@pass_state
def sources_cmd(state: CliState) -> None:
    """List the history sources the hub can read."""
    from memscribe.hub import available_sources, load_source

    rows = [{"name": n, "title": load_source(n).title} for n in available_sources()]
    emit(state.json, {"sources": rows}, lambda out: out.print(pairs_table([(r["name"], r["title"]) for r in rows])))


@hub_group.command("scan")
@click.argument("sources", nargs=-1)
@_path_option
@_root_option
@json_option
@pass_state
def scan_cmd(state: CliState, sources: tuple[str, ...], paths: tuple[str, ...], roots: tuple[str, ...]) -> None:
    """Show what each source has on disk and how much changed since the last import (reads nothing)."""
    found = _hub(state, None, paths, roots).scan(list(sources) or None)
    rows = [(name, f"{v['items']} found, {v['changed']} changed") for name, v in found.items()]
    emit(state.json, found, lambda out: out.print(pairs_table(rows, title="hub scan")))


def _render_report(report: ImportReport, with_redactions: bool) -> Any:
    def render(out: Console) -> None:
        rows = [
            (
                name,
                f"{s.turns} turns in {s.episodes} episodes from {s.changed}/{s.items} changed items"
                + (f", {len(s.errors)} errors" if s.errors else ""),
            )
            for name, s in sorted(report.sources.items())
        ]
        out.print(pairs_table(rows, title="would import" if report.dry_run else "imported"))
        for error in report.errors:
            out.print(f"[red]error[/red] {error['path']}: {error['error']}")
        if with_redactions:
            for r in report.redactions():
                out.print(f"redacted {r['count']} in {r['source']} {r['path']} turn {r['turn']} ({r['field']})")

    return render


@hub_group.command("import")
@click.argument("sources", nargs=-1)
@user_option("The person whose memory this is (default: $MEMSCRIBE_USER, else the login name).")
@_path_option
@_root_option
@click.option("--dry-run", is_flag=True, help="Read and count what would be imported; write nothing.")
@click.option("--report", "with_report", is_flag=True, help="List where secrets were redacted (never the secrets).")
@click.option("--defer", is_flag=True, help="Store the episodes now and let the writer catch up later.")
@json_option
@pass_state
def import_cmd(
    state: CliState,
    sources: tuple[str, ...],
    user: str | None,
    paths: tuple[str, ...],
    roots: tuple[str, ...],
    dry_run: bool,
    with_report: bool,
    defer: bool,
) -> None:
    """Import new turns from every source (or the SOURCES named); running it again adds nothing."""
    hub = _hub(state, user, paths, roots, defer=defer, count_secrets=with_report)
    pending = hub.pending(list(sources) or None)
    with progress_bar("importing", len(pending[0]), show=not state.json) as advance:
        report = hub.import_(dry_run=dry_run, progress=advance, pending=pending)
    emit(state.json, report.as_dict(with_redactions=with_report), _render_report(report, with_report))
    if report.errors:
        click.get_current_context().exit(1)


@hub_group.command("status")
@json_option
@pass_state
def status_cmd(state: CliState) -> None:
    """Per source: items, sessions, turns, episodes, the last import and any errors."""
    found = _hub(state, None, (), ()).status()
    rows = [
        (
            n,
            f"{v['sessions']} sessions, {v['turns']} turns, last {v['last_import'] or 'never'}"
            + (f", {len(v['errors'])} errors" if v["errors"] else ""),
        )
        for n, v in sorted(found.items())
    ]
    emit(state.json, {"sources": found}, lambda out: out.print(pairs_table(rows, title="hub status")))


@hub_group.command("watch")
@click.argument("sources", nargs=-1)
@user_option("The person whose memory this is (default: $MEMSCRIBE_USER, else the login name).")
@_path_option
@_root_option
@click.option(
    "--interval", default=5.0, show_default=True, type=click.FloatRange(min=0.05), help="Seconds between polls."
)
@json_option
@pass_state
def watch_cmd(
    state: CliState,
    sources: tuple[str, ...],
    user: str | None,
    paths: tuple[str, ...],
    roots: tuple[str, ...],
    interval: float,
) -> None:
    """Import, then poll for new turns every --interval seconds until Ctrl-C or SIGTERM."""
    hub = _hub(state, user, paths, roots)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    totals = {"passes": 0, "turns": 0, "episodes": 0, "errors": 0}

    def on_pass(report: ImportReport) -> None:
        totals["turns"] += report.turns
        totals["episodes"] += report.episodes
        totals["errors"] += len(report.errors)
        if report.turns and not state.json:
            click.echo(f"imported {report.turns} turns in {report.episodes} episodes", err=True)

    try:
        totals["passes"] = hub.watch(list(sources) or None, interval=interval, stop=stop, on_pass=on_pass)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    emit(state.json, totals, lambda out: out.print(pairs_table(list(totals.items()), title="hub watch stopped")))
