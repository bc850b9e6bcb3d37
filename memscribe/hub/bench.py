"""``memscribe bench hub``: import throughput on a synthetic history, with peak memory.

It writes N Claude Code sessions (the richest format: a tree, streamed duplicate rows, tool calls and
results, injected reminders, a sub-agent run every 50 sessions) and imports them twice:

- into raw episodes with the writer deferred (every turn stored as an episode; a writer that proposes
  nothing, so memories are derived later with ``Memory.replay``), all sessions;
- with the lite writer (scene routing, coding/working memory), on the first ``--lite-sessions`` sessions.

It then imports everything again, which must add nothing. Figures are printed; nothing is asserted.
"""

from __future__ import annotations

import json
import random
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

import click

from memscribe.core.clock import Clock
from memscribe.core.records import Episode, Operation
from memscribe.write.ports import CandidateSource, WriteContext

__all__ = ["HoldWriter", "command", "write_history"]

_TOPICS = (
    "the billing service",
    "the search index",
    "the login page",
    "the deploy script",
    "the CSV importer",
    "the mobile app",
    "the test suite",
    "the docs site",
    "the cache layer",
    "the webhook handler",
)
_TOOLS = ("Read", "Edit", "Bash", "Grep", "Write")


class HoldWriter:
    """Proposes nothing: episodes are stored and the memories are left for a later replay."""

    name = "hold"
    version = "1"

    def propose(
        self, episode: Episode, candidates: CandidateSource, context: WriteContext, clock: Clock
    ) -> list[Operation]:
        return []


def _session_lines(index: int, turns: int, rng: random.Random) -> tuple[str, list[str]]:
    sid = f"{index:08d}-0000-4000-8000-{rng.randrange(16**12):012x}"
    cwd = f"/home/dev/project-{index % 97}"
    base = {"sessionId": sid, "cwd": cwd, "version": "2.1.14", "userType": "external", "isSidechain": False}
    lines, parent, n = [], None, 0
    clock = 1_790_000_000 + index * 3600

    def add(kind: str, message: dict[str, Any], **extra: Any) -> None:
        nonlocal parent, n, clock
        uuid = f"{sid[:8]}-{n:06d}"
        clock += rng.randrange(1, 30)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(clock))
        lines.append(
            json.dumps(
                {
                    **base,
                    "parentUuid": parent,
                    "type": kind,
                    "uuid": uuid,
                    "timestamp": stamp,
                    "message": message,
                    **extra,
                }
            )
        )
        parent, n = uuid, n + 1

    made = 0
    while made < turns:
        topic, tool = rng.choice(_TOPICS), rng.choice(_TOOLS)
        add(
            "user",
            {
                "role": "user",
                "content": f"Please look at {topic}: it fails when the input is empty "
                f"(ticket {rng.randrange(10_000)}).\n<system-reminder>Run tests before committing.</system-reminder>",
            },
        )
        mid, req = f"msg_{index}_{made}", f"req_{index}_{made}"
        msg = {"id": mid, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5"}
        add("assistant", {**msg, "content": [{"type": "text", "text": f"Checking {topic} first."}]}, requestId=req)
        add(
            "assistant",
            {
                **msg,
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"tu_{index}_{made}",
                        "name": tool,
                        "input": {"path": f"src/{topic.split()[-1]}.py"},
                    }
                ],
            },
            requestId=req,
        )
        add(
            "user",
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"tu_{index}_{made}",
                        "content": f"def handle(rows):\n    return rows[0]  # line {made}",
                    }
                ],
            },
        )
        add(
            "assistant",
            {
                "id": mid + "b",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [
                    {
                        "type": "text",
                        "text": f"{topic.capitalize()} indexed rows[0] without a check; "
                        "I added a guard for empty input and a test.",
                    }
                ],
            },
            requestId=req + "b",
        )
        made += 4  # user, assistant (two streamed rows merged), tool result, assistant
    return sid, lines


def write_history(root: Path, sessions: int, turns: int, seed: int = 7) -> int:
    """Write ``sessions`` Claude Code sessions of about ``turns`` turns under ``root``; returns the turn count."""
    rng = random.Random(seed)
    total = 0
    for i in range(sessions):
        folder = root / "projects" / f"-home-dev-project-{i % 97}"
        folder.mkdir(parents=True, exist_ok=True)
        sid, lines = _session_lines(i, turns, rng)
        (folder / f"{sid}.jsonl").write_text("\n".join(lines) + "\n")
        total += (turns + 3) // 4 * 4
    return total


def _run(root: Path, store: Path, *, writer: Any, embedder: str, sessions: int | None, defer: bool) -> dict[str, Any]:
    from memscribe.engine.memory import Memory
    from memscribe.hub.importer import Hub
    from memscribe.hub.model import HubEnv
    from memscribe.hub.report import ImportReport

    memory = Memory(store, writer=writer, embedder=embedder)
    hub = Hub(
        memory,
        store.with_name(store.stem + ".hub.db"),
        HubEnv(home=root, paths={"claude-code": (root,)}),
        user="bench",
        count_secrets=False,
        defer=defer,
    )
    work, report = hub.pending(["claude-code"])
    if sessions is not None:
        work = work[:sessions]
    start, cpu = time.perf_counter(), time.process_time()
    report = hub.import_(pending=(work, report))
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    memory.flush()  # a deferred writer catches up here
    caught_up = time.perf_counter() - start
    again = hub.import_(pending=(work, ImportReport()))  # read again: every key is known, nothing is added
    out = {
        "sessions": report.sources["claude-code"].sessions,
        "turns": report.turns,
        "episodes": report.episodes,
        "seconds": round(seconds, 2),
        "writer_caught_up_seconds": round(caught_up, 2),
        "cpu_seconds": round(cpu_seconds, 2),
        "turns_per_cpu_s": round(report.turns / cpu_seconds, 1) if cpu_seconds else None,
        "turns_per_s": round(report.turns / seconds, 1) if seconds else None,
        "second_run_turns": again.turns,
        "errors": len(report.errors),
        "memories": memory.stats(user_id="bench")["memories"],
    }
    hub.close()
    memory.close()
    return out


@click.command("hub")
@click.option("--sessions", default=10_000, show_default=True, help="Synthetic sessions to write.")
@click.option("--turns", default=100, show_default=True, help="Turns per session.")
@click.option("--lite-sessions", default=50, show_default=True, help="Sessions imported with the lite writer.")
@click.option("--embedder", default="local", show_default=True, help="Embedder for the lite run (local or hash).")
@click.option(
    "--dir",
    "workdir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Work directory (default: a temporary one, removed afterwards).",
)
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write the JSON report here."
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def command(
    sessions: int,
    turns: int,
    lite_sessions: int,
    embedder: str,
    workdir: Path | None,
    output: Path | None,
    as_json: bool,
) -> None:
    """Import throughput of the hub on a synthetic Claude Code history, deferred writer and lite."""
    with tempfile.TemporaryDirectory(prefix="memscribe-bench-hub-") as tmp:
        base = workdir or Path(tmp)
        start = time.perf_counter()
        total = write_history(base / "history", sessions, turns)  # the same seed writes the same history again
        report: dict[str, Any] = {
            "history": {"sessions": sessions, "turns": total, "write_seconds": round(time.perf_counter() - start, 2)}
        }
        report["deferred"] = _run(
            base / "history", base / "deferred.db", writer=HoldWriter(), embedder="hash", sessions=None, defer=True
        )
        report["lite"] = _run(
            base / "history", base / "lite.db", writer="lite", embedder=embedder, sessions=lite_sessions, defer=False
        )
        report["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    text = json.dumps(report, indent=2)
    if output is not None:
        output.write_text(text + "\n")
    if as_json:
        click.echo(text)
    else:
        d, lite = report["deferred"], report["lite"]
        click.echo(f"history: {sessions} sessions, {total} turns")
        for label, row in (("deferred writer", d), ("lite writer", lite)):
            click.echo(
                f"{label}: {row['turns_per_s']} turns/s wall, {row['turns_per_cpu_s']} per CPU second "
                f"({row['turns']} turns in {row['seconds']} s), second run {row['second_run_turns']} turns"
            )
        click.echo(f"peak RSS: {report['peak_rss_mb']} MB")
