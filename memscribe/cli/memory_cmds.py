"""Commands over memories: add, search, list, history, why, update, delete, forget."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

import click

from memscribe.cli.output import day, emit, memories_table, ops_table, plain
from memscribe.cli.state import CliState, json_option, pass_state, user_option
from memscribe.errors import InvalidInput

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["COMMANDS"]


def _filters(layer: tuple[str, ...], scene: tuple[str, ...], source: tuple[str, ...]) -> dict[str, Any]:
    picked = {"layers": layer, "scenes": scene, "sources": source}
    return {key: list(values) for key, values in picked.items() if values}


def filter_options(fn: Any) -> Any:
    """``--layer``, ``--scene`` and ``--source``, each repeatable."""
    for name, what in (
        ("source", "source (cli, api, claude-code, ...)"),
        ("scene", "scene (chat, working, coding)"),
        ("layer", "layer (L0 profile, L1 episode, L2 fact, L3 summary, L6 schema, L7 intention)"),
    ):
        fn = click.option(f"--{name}", multiple=True, metavar=name.upper(),
                          help=f"Only memories of this {what}; repeat for several.")(fn)  # fmt: skip
    return fn


def _messages(text: str | None, file: IO[str] | None) -> object:
    if text is not None and file is not None:
        raise InvalidInput("give either TEXT or --file, not both")
    if file is not None:
        try:
            data = json.load(file)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"--file is not valid JSON: {exc}") from exc
        return data["messages"] if isinstance(data, dict) and "messages" in data else data
    if text is None:
        raise InvalidInput("give the TEXT to remember, '-' to read it from stdin, or --file with JSON messages")
    return sys.stdin.read() if text == "-" else text


@click.command("add")
@click.argument("text", required=False)
@click.option(
    "--file",
    "-f",
    "file",
    type=click.File("r", encoding="utf-8"),
    metavar="FILE",
    help="A JSON file of messages ([{role, content, ...}] or {messages: [...]}); '-' for stdin.",
)
@user_option()
@click.option("--agent", default=None, help="The agent the conversation was with.")
@click.option("--session", default=None, help="The session (conversation) id.")
@click.option("--timestamp", default=None, help="When it was said, ISO-8601 (default: now).")
@click.option("--source", default="cli", show_default=True, help="Where the input came from.")
@click.option("--key", "key", default=None, help="Idempotency key: adding the same key twice stores once.")
@click.option("--no-wait", is_flag=True, help="Acknowledge once the episode is stored; write memories after.")
@json_option
@pass_state
def add_cmd(
    state: CliState, text: str | None, file: IO[str] | None, user: str | None, agent: str | None,
    session: str | None, timestamp: str | None, source: str, key: str | None, no_wait: bool,
) -> None:  # fmt: skip
    """Remember TEXT (or '-' for stdin, or --file messages) for a user."""
    result = state.memory().add(
        _messages(text, file), user_id=state.user(user), agent_id=agent, session_id=session,
        timestamp=timestamp, source=source, idempotency_key=key, wait=not no_wait,
    )  # fmt: skip

    def render(out: Console) -> None:
        out.print(ops_table(result))
        status = "already stored" if result.get("duplicate") else result.get("status", "")
        out.print(f"[dim]episode {result.get('episode_id')} · {status}[/dim]")

    emit(state.json, result, render)


@click.command("search")
@click.argument("query")
@user_option()
@click.option("--limit", "-n", default=10, show_default=True, type=int, help="How many memories to return.")
@click.option("--as-of", default=None, help="Memories as they were true at this ISO-8601 time.")
@click.option("--history", is_flag=True, help="Show each hit's version chain.")
@filter_options
@json_option
@pass_state
def search_cmd(
    state: CliState, query: str, user: str | None, limit: int, as_of: str | None, history: bool,
    layer: tuple[str, ...], scene: tuple[str, ...], source: tuple[str, ...],
) -> None:  # fmt: skip
    """Find a user's memories that match QUERY (hybrid vector + keyword search)."""
    result = state.memory().search(
        query, user_id=state.user(user), limit=limit, as_of=as_of, include_history=history,
        filters=_filters(layer, scene, source),
    )  # fmt: skip

    def render(out: Console) -> None:
        hits = result["results"]
        out.print(memories_table(hits, scores=True, title=f"search {query!r}: {len(hits)} found"))
        for hit in hits if history else ():
            if len(hit.get("history", [])) > 1:
                out.print(plain(f"versions of {hit['memory']!r}"), style="bold")
                out.print(history_table(hit["history"]))

    emit(state.json, result, render)


@click.command("list")
@user_option()
@click.option("--limit", "-n", default=50, show_default=True, type=int, help="How many memories to return.")
@click.option("--offset", default=0, show_default=True, type=int, help="Skip this many (newest first).")
@click.option("--as-of", default=None, help="Memories as they were true at this ISO-8601 time.")
@click.option("--history", is_flag=True, help="Include retired versions, not only current ones.")
@filter_options
@json_option
@pass_state
def list_cmd(
    state: CliState, user: str | None, limit: int, offset: int, as_of: str | None, history: bool,
    layer: tuple[str, ...], scene: tuple[str, ...], source: tuple[str, ...],
) -> None:  # fmt: skip
    """List a user's memories, newest first."""
    result = state.memory().list(
        user_id=state.user(user), limit=limit, offset=offset, as_of=as_of, include_history=history,
        filters=_filters(layer, scene, source),
    )  # fmt: skip
    emit(state.json, result, lambda out: out.print(memories_table(result["results"])))


def _id_user_option(fn: Any) -> Any:
    help_text = "Look the id up in this user's memories only (default: anywhere in the tenant)."
    return click.option("--user", "-u", "user", default=None, metavar="USER", help=help_text)(fn)


@click.command("history")
@click.argument("memory_id", metavar="ID")
@_id_user_option
@json_option
@pass_state
def history_cmd(state: CliState, memory_id: str, user: str | None) -> None:
    """Show every version of memory ID and of the memories it superseded, oldest first."""
    versions = state.memory().history(memory_id, user_id=user)
    emit(state.json, versions, lambda out: out.print(history_table(versions)))


def _version_status(v: Mapping[str, Any]) -> str:
    if v["status"] == "active":
        return "retired" if v["retired_at"] else "current"
    return str(v["status"])


def history_table(versions: Sequence[Mapping[str, Any]]) -> Any:
    """A version chain: when each version was true (valid) and when the store held it (recorded)."""
    from rich.table import Table

    table = Table(title_justify="left")
    for name in ("v", "status", "valid", "recorded"):
        table.add_column(name, no_wrap=True)
    table.add_column("memory", min_width=28, ratio=1)
    for v in versions:
        memory = plain(f"{v['memory']}\n")
        memory.append(f"by {v['writer']}", style="dim")
        table.add_row(
            str(v["version"]), _version_status(v), f"{day(v['valid_from'])}\n→ {day(v['valid_to']) or 'now'}",
            f"{day(v['created_at'])}\n→ {day(v['retired_at']) or 'now'}", memory,
        )  # fmt: skip
    return table


@click.command("why")
@click.argument("memory_id", metavar="ID")
@_id_user_option
@json_option
@pass_state
def why_cmd(state: CliState, memory_id: str, user: str | None) -> None:
    """Explain memory ID: its versions, the operations that made them and the conversations they came from."""
    result = state.memory().why(memory_id, user_id=user)
    emit(state.json, result, lambda out: _render_why(out, result))


def _render_why(out: Console, result: Mapping[str, Any]) -> None:
    from rich.table import Table

    out.print(plain(f"{result['memory']['memory']}"), style="bold")
    out.print(history_table(result["versions"]))
    ops = Table(title="operations", title_justify="left")
    for name in ("when", "op", "writer", "reason"):
        ops.add_column(name)
    for op in result["operations"]:
        ops.add_row(op["created_at"][:19], op["kind"], op["writer"], plain(op["reason"]))
    out.print(ops)
    for episode in result["episodes"]:
        out.print(f"[bold]episode[/bold] {episode['id']} · {episode['timestamp'][:19]} · {episode['source']}")
        for i, message in enumerate(episode["messages"]):
            speaker = message.get("name") or message["role"]
            out.print(plain(f"  [{i}] {speaker}: {message['content']}"))


@click.command("update")
@click.argument("memory_id", metavar="ID")
@click.argument("text")
@_id_user_option
@json_option
@pass_state
def update_cmd(state: CliState, memory_id: str, text: str, user: str | None) -> None:
    """Correct memory ID to TEXT (a new version; the old one stays in its history)."""
    result = state.memory().update(memory_id, text, user_id=user)
    emit(state.json, result, lambda out: out.print(ops_table(result)))


@click.command("delete")
@click.argument("memory_id", metavar="ID")
@_id_user_option
@json_option
@pass_state
def delete_cmd(state: CliState, memory_id: str, user: str | None) -> None:
    """Retract memory ID (kept as deleted history; use forget to erase it)."""
    result = state.memory().delete(memory_id, user_id=user)
    emit(state.json, result, lambda out: out.print(ops_table(result)))


@click.command("forget")
@click.argument("query_or_id", metavar="QUERY_OR_ID")
@click.option("--user", "-u", "user", default=None, metavar="USER",
              help="Whose memories; needed to forget by query (default: $MEMSCRIBE_USER).")  # fmt: skip
@click.option("--limit", "-n", default=5, show_default=True, type=int, help="At most this many matches.")
@json_option
@pass_state
def forget_cmd(state: CliState, query_or_id: str, user: str | None, limit: int) -> None:
    """Erase a memory by id, or the memories matching a query: every version and its source text."""
    result = state.memory().forget(query_or_id, user_id=state.user(user, required=False), limit=limit)

    def render(out: Console) -> None:
        out.print(ops_table(result) if result["results"] else "nothing matched; nothing was erased")

    emit(state.json, result, render)


COMMANDS = (add_cmd, search_cmd, list_cmd, history_cmd, why_cmd, update_cmd, delete_cmd, forget_cmd)
