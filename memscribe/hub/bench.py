"""``memscribe bench hub``: import throughput on a synthetic history, with peak memory.

It writes N Claude Code sessions (the richest format: a tree, streamed duplicate rows, tool calls and
results, injected reminders) and imports them:

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


class _Session:
    """One synthetic Claude Code transcript, record by record (each linked to the previous one)."""

    def __init__(self, index: int, rng: random.Random) -> None:
        self.index, self.rng = index, rng
        self.sid = f"{index:08d}-0000-4000-8000-{rng.randrange(16**12):012x}"
        self.base = {"sessionId": self.sid, "cwd": f"/home/dev/project-{index % 97}", "version": "2.1.14",
                     "userType": "external", "isSidechain": False}  # fmt: skip
        self.lines: list[str] = []
        self.parent: str | None = None
        self.clock = 1_790_000_000 + index * 3600

    def add(self, kind: str, message: dict[str, Any], **extra: Any) -> None:
        uuid = f"{self.sid[:8]}-{len(self.lines):06d}"
        self.clock += self.rng.randrange(1, 30)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(self.clock))
        record = {**self.base, "parentUuid": self.parent, "type": kind, "uuid": uuid, "timestamp": stamp,
                  "message": message, **extra}  # fmt: skip
        self.lines.append(json.dumps(record))
        self.parent = uuid

    def exchange(self, n: int) -> None:
        """Four turns: a prompt (with a reminder), a reply streamed as two rows with a tool call, its result,
        and a final reply."""
        topic, tool, tag = self.rng.choice(_TOPICS), self.rng.choice(_TOOLS), f"{self.index}_{n}"
        prompt = (f"Please look at {topic}: it fails when the input is empty (ticket {self.rng.randrange(10_000)})."
                  "\n<system-reminder>Run tests before committing.</system-reminder>")  # fmt: skip
        self.add("user", {"role": "user", "content": prompt})
        msg = {"id": f"msg_{tag}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5"}
        self.add("assistant", {**msg, "content": [{"type": "text", "text": f"Checking {topic} first."}]},
                 requestId=f"req_{tag}")  # fmt: skip
        call = {"type": "tool_use", "id": f"tu_{tag}", "name": tool, "input": {"path": f"src/{topic.split()[-1]}.py"}}
        self.add("assistant", {**msg, "content": [call]}, requestId=f"req_{tag}")
        result = {
            "type": "tool_result",
            "tool_use_id": f"tu_{tag}",
            "content": f"def handle(rows):\n    return rows[0]  # {n}",
        }
        self.add("user", {"role": "user", "content": [result]})
        text = f"{topic.capitalize()} indexed rows[0] without a check; I added a guard for empty input and a test."
        self.add("assistant", {**msg, "id": f"msg_{tag}b", "content": [{"type": "text", "text": text}]},
                 requestId=f"req_{tag}b")  # fmt: skip


def write_history(root: Path, sessions: int, turns: int, seed: int = 7) -> int:
    """Write ``sessions`` Claude Code sessions of about ``turns`` turns under ``root``; returns the turn count."""
    rng = random.Random(seed)
    total = 0
    for i in range(sessions):
        folder = root / "projects" / f"-home-dev-project-{i % 97}"
        folder.mkdir(parents=True, exist_ok=True)
        session = _Session(i, rng)
        for n in range(0, turns, 4):
            session.exchange(n)
        (folder / f"{session.sid}.jsonl").write_text("\n".join(session.lines) + "\n")
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
