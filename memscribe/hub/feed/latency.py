"""``memscribe bench hook``: recall hook latency, as the tools see it.

Builds a throwaway store (hash embedder by default, raw writer) with M memories in a fixture project, starts
the recall daemon, then runs N hook processes per hook-capable tool with the command ``hub install`` writes
(``python -S …/hook.py TOOL``; Cline's through its ``sh`` hook script), stdin JSON in, stdout JSON out, warm.
It also times the cold path (no daemon), the daemon round trip alone and a bare interpreter start, for
scale. Prints p50 / p95 / max per tool; asserts nothing.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

from memscribe.hub.feed.hook import ask, socket_path
from memscribe.hub.feed.recall import HOOK_TOOLS
from memscribe.hub.feed.tools import Ctx

__all__ = ["command", "measure"]

_TOPICS = ["database", "logging", "retries", "deploys", "tests", "caching", "auth", "queues"]


def _payload(tool: str, project: Path, i: int) -> str:
    prompt = f"how do we handle {_TOPICS[i % len(_TOPICS)]} here?"
    if tool == "cline":
        return json.dumps(
            {"hookName": "UserPromptSubmit", "workspaceRoots": [str(project)], "userPromptSubmit": {"prompt": prompt}}
        )
    if tool == "cursor":
        return json.dumps({"hook_event_name": "sessionStart", "workspace_roots": [str(project)]})
    return json.dumps({"hook_event_name": "UserPromptSubmit", "cwd": str(project), "prompt": prompt})


def hook_argv(tool: str) -> list[str]:
    """The argv a tool runs for its recall hook, as ``hub install`` writes it."""
    command = Ctx(home=Path.home(), exe="memscribe", state=Path.home()).hook(tool)
    return ["sh", "-c", f"exec {command}"] if tool == "cline" else shlex.split(command)


def _time(argv: list[str], payload: str, env: dict[str, str], cwd: Path) -> tuple[float, int]:
    start = time.perf_counter()
    out = subprocess.run(argv, input=payload, env=env, cwd=cwd, capture_output=True, text=True, check=True,
                         timeout=60).stdout  # fmt: skip
    return (time.perf_counter() - start) * 1000, len(out)


def _seed(home: Path, project: Path, count: int, embedder: str) -> None:
    from memscribe.config import MemoryConfig
    from memscribe.engine.memory import Memory

    memory = Memory(home / "memscribe.db", config=MemoryConfig(embedder=embedder, writer="raw"))
    for i in range(count):
        topic = _TOPICS[i % len(_TOPICS)]
        memory.add(f"Decision {i}: for {topic} we use approach number {i} after the review.", user_id="ana",
                   project=str(project))  # fmt: skip
    memory.close()


def _row(name: str, ms: list[float], size: int) -> dict[str, float | int | str]:
    ordered = sorted(ms)
    p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]
    return {"name": name, "p50_ms": round(statistics.median(ms), 1), "p95_ms": round(p95, 1),
            "max_ms": round(ordered[-1], 1), "out_bytes": size}  # fmt: skip


def _warm(env: dict[str, str], project: Path, calls: int, tools: list[str]) -> list[dict[str, float | int | str]]:
    path = Path(socket_path(env))
    path.parent.mkdir(parents=True, exist_ok=True)
    daemon = subprocess.Popen([sys.executable, "-m", "memscribe.hub.feed.daemon", str(path), "--idle", "120"],
                              env=env)  # fmt: skip
    rows = []
    try:
        while ask(path, {"tool": "", "stdin": ""}, timeout=1) is None:
            if daemon.poll() is not None:
                raise click.ClickException("the recall daemon did not start")
            time.sleep(0.05)
        trips = []
        for i in range(calls):
            start = time.perf_counter()
            ask(path, {"tool": "claude-code", "stdin": _payload("claude-code", project, i), "cwd": str(project),
                       "user": "ana", "budget": 600})  # fmt: skip
            trips.append((time.perf_counter() - start) * 1000)
        rows.append(_row("daemon round trip", trips, 0))
        bare = [_time([sys.executable, "-S", "-c", "pass"], "", env, project)[0] for _ in range(max(5, calls // 2))]
        rows.append(_row("python -S -c pass", bare, 0))
        for tool in tools:
            runs = [_time(hook_argv(tool), _payload(tool, project, i), env, project) for i in range(calls)]
            rows.append(_row(f"warm {tool}", [r[0] for r in runs], runs[-1][1]))
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)
    return rows


def measure(*, calls: int, memories: int, embedder: str = "hash", tools: list[str] | None = None,
            cold: int = 3) -> list[dict[str, float | int | str]]:  # fmt: skip
    """Rows of p50 / p95 / max (ms) per tool warm, plus the cold path and the references."""
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "ms", Path(tmp) / "proj"
        (project / ".git").mkdir(parents=True)
        _seed(home, project, memories, embedder)
        env = {**os.environ, "MEMSCRIBE_HOME": str(home), "MEMSCRIBE_EMBEDDER": embedder, "MEMSCRIBE_WRITER": "raw",
               "MEMSCRIBE_USER": "ana", "MEMSCRIBE_HOOK_DAEMON": "0"}  # fmt: skip
        env.pop("MEMSCRIBE_PROJECT", None)
        rows = []
        if cold:
            runs = [_time(hook_argv("claude-code"), _payload("claude-code", project, i), env, project)
                    for i in range(cold)]  # fmt: skip
            rows.append(_row("cold (no daemon)", [r[0] for r in runs], runs[-1][1]))
        return rows + _warm(env, project, calls, tools or list(HOOK_TOOLS))


@click.command("hook")
@click.option("--calls", default=20, show_default=True, type=click.IntRange(1), help="Hook runs per tool.")
@click.option("--memories", default=200, show_default=True, type=click.IntRange(1), help="Memories in the store.")
@click.option("--embedder", default="hash", show_default=True, help="hash (the hook's own cost) or local (MiniLM).")
@click.option("--cold", default=3, show_default=True, type=click.IntRange(0), help="Cold runs (no daemon).")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
def command(calls: int, memories: int, embedder: str, cold: int, as_json: bool) -> None:
    """Recall hook latency per hook-capable tool: warm p50/p95 of the installed hook command."""
    load = os.getloadavg()[0]
    rows = measure(calls=calls, memories=memories, embedder=embedder, cold=cold)
    if as_json:
        click.echo(json.dumps({"load_average": load, "cpus": os.cpu_count(), "memories": memories, "rows": rows}))
        return
    click.echo(f"load average {load:.1f} on {os.cpu_count()} CPUs; {memories} memories, {embedder} embedder")
    for r in rows:
        click.echo(f"{r['name']:24} p50 {r['p50_ms']:7.1f} ms  p95 {r['p95_ms']:7.1f} ms  max {r['max_ms']:7.1f} ms"
                   f"  out {r['out_bytes']} B")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    command.main(args=argv, standalone_mode=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
