"""``python -m memscribe.demo`` (``make demo``): a tour of memscribe on a sample conversation.

It ingests eleven months of conversations between Caroline and her assistant (she moves from Seattle to
Sydney, changes jobs, swaps coffee for tea), runs a few searches, and shows how one memory changed over
time. The store lives in a temporary directory, or under ``$MEMSCRIBE_HOME`` when that is set. Nothing
leaves the machine: the default embedder is a small local model.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memscribe.config import DEFAULT_DB_NAME, MemoryConfig

if TYPE_CHECKING:
    from rich.console import Console

    from memscribe.engine.memory import Memory
    from memscribe.types import HistoryEntry

__all__ = ["load_sample", "main", "run_demo"]


def load_sample() -> dict[str, Any]:
    """The sample conversation shipped with the package."""
    text = resources.files("memscribe").joinpath("data/sample_conversation.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _ingest(memory: Memory, sample: dict[str, Any], out: Console) -> dict[str, str]:
    """Add every session, one ``add`` call each, and show what the writer did with it.

    Returns the session id of each episode id, to show where a memory came from."""
    from rich.table import Table

    table = Table(title="1 · ingest: one add() per session", title_justify="left")
    for column in ("date", "messages", "operations", "ms"):
        table.add_column(column, justify="right" if column in ("messages", "ms") else "left")
    sessions: dict[str, str] = {}
    started = time.perf_counter()
    for session in sample["sessions"]:
        t0 = time.perf_counter()
        result = memory.add(
            session["messages"], user_id=sample["user_id"], agent_id=sample.get("agent_id"),
            session_id=session["session_id"], timestamp=session["timestamp"], source="demo",
        )  # fmt: skip
        sessions[str(result.get("episode_id"))] = session["session_id"]
        events = Counter(row["event"] for row in result["results"])
        summary = ", ".join(f"{n} {event}" for event, n in sorted(events.items())) or "nothing new"
        if result.get("duplicate"):
            summary = "already stored"
        ms = f"{(time.perf_counter() - t0) * 1000:.0f}"
        table.add_row(session["timestamp"][:10], str(len(session["messages"])), summary, ms)
    out.print(table)
    turns = sum(len(s["messages"]) for s in sample["sessions"])
    out.print(f"[dim]{turns} messages in {time.perf_counter() - started:.2f} s (model load included)[/dim]\n")
    return sessions


def _searches(
    memory: Memory, sample: dict[str, Any], sessions: dict[str, str], writer: str, out: Console
) -> None:
    from rich.table import Table
    from rich.text import Text

    out.print("[bold]2 · search[/bold]: hybrid (vector + keyword) over current memories; best 3 shown")
    if writer == "raw":
        out.print(
            "[dim]The raw writer keeps every message as a memory, so stale facts (Seattle, coffee) still "
            "compete with current ones. Writers that reconcile (--writer lite) supersede them.[/dim]"
        )
    for query in sample["queries"]:
        hits = memory.search(query, user_id=sample["user_id"], limit=3)["results"]
        table = Table(title=f"“{query}”", title_justify="left", title_style="bold cyan")
        table.add_column("score", justify="right")
        table.add_column("date", no_wrap=True)
        table.add_column("memory", ratio=1, min_width=30)
        table.add_column("said in", style="dim", no_wrap=True)
        for hit in hits:
            prov = hit["provenance"]
            session = sessions.get(prov["episode_id"], "?")
            where = f"{session} #{','.join(str(i + 1) for i in prov['message_indices'])}"
            table.add_row(f"{hit['score']:.3f}", hit["valid_from"][:10], Text(hit["memory"]), where)
        out.print(table)


def _chain(memory: Memory, sample: dict[str, Any]) -> list[HistoryEntry] | None:
    """The longest version chain among the hits for the history query, then among all memories."""
    user = sample["user_id"]
    hits = memory.search(sample["history_query"], user_id=user, limit=5)["results"]
    rows = hits + memory.list(user_id=user, limit=1000)["results"]
    chains = [memory.history(r["id"], user_id=user) for r in rows if r["version"] > 1 or r["supersedes"]]
    return max(chains, key=len) if chains else None


def _history(memory: Memory, sample: dict[str, Any], writer: str, out: Console) -> str:
    from memscribe.cli.memory_cmds import history_table

    out.print("\n[bold]3 · history[/bold]: memories are never overwritten; each change is a new version")
    chain = _chain(memory, sample)
    user = sample["user_id"]
    if chain is None:
        out.print(
            f"[dim]The {writer!r} writer stores messages as they are and never supersedes, so no memory has "
            "changed by itself. Correcting one by hand with memory.update(id, text):[/dim]"
        )
        hit = memory.search(sample["history_query"], user_id=user, limit=1)["results"][0]
        memory.update(hit["id"], sample["correction"], user_id=user)
        chain = memory.history(hit["id"], user_id=user)
    out.print(history_table(chain))
    return str(chain[-1]["id"])


def _next_steps(path: Path, kept: bool, user: str, memory_id: str, out: Console) -> None:
    from rich.panel import Panel

    if kept:
        lines = [
            f'memscribe --db {path} search "what does Caroline drink" -u {user}',
            f"memscribe --db {path} why {memory_id}",
        ]
    else:
        lines = ["MEMSCRIBE_HOME=./demo-home python -m memscribe.demo   # keep the demo store"]
    lines += ['memscribe add "I switched from coffee to green tea" -u me', 'memscribe search "drinks" -u me']
    out.print(Panel.fit("[bold]Try it yourself[/bold]\n" + "\n".join(lines)))


def run_demo(path: Path, *, writer: str, embedder: str, out: Console, kept: bool = False) -> None:
    """Ingest the sample into the store at ``path``, search it, and show one memory's history."""
    from rich.panel import Panel

    from memscribe.engine.memory import Memory

    sample = load_sample()
    intro = (
        f"[bold]memscribe demo[/bold]\n{sample['description']}\n"
        f"[dim]store {path} · writer {writer} · embedder {embedder}[/dim]"
    )
    out.print(Panel(intro, expand=False))
    with Memory(path, writer=writer, embedder=embedder) as memory:
        sessions = _ingest(memory, sample, out)
        _searches(memory, sample, sessions, writer, out)
        memory_id = _history(memory, sample, writer, out)
    _next_steps(path, kept, sample["user_id"], memory_id, out)


@click.command("demo")
@click.option("--writer", default=MemoryConfig().writer, show_default=True, help="Memory writer (raw, lite).")
@click.option("--embedder", default="local", show_default=True, help="Embedder: local or hash.")
def main(writer: str, embedder: str) -> None:
    """Ingest a sample conversation, search it and show a memory's history."""
    from rich.console import Console

    out = Console(highlight=False)
    home = os.environ.get("MEMSCRIBE_HOME")
    if home:
        run_demo(
            Path(home).expanduser() / DEFAULT_DB_NAME, writer=writer, embedder=embedder, out=out, kept=True
        )
        return
    with tempfile.TemporaryDirectory(prefix="memscribe-demo-") as tmp:
        run_demo(Path(tmp) / DEFAULT_DB_NAME, writer=writer, embedder=embedder, out=out)


if __name__ == "__main__":
    main()
