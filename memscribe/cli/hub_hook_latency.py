"""Hook latency, as the tools see it: ``python -m memscribe.cli.hub_hook_latency [--calls N] [--memories M]``.

Builds a throwaway store (hash embedder, raw writer) with M memories in a fixture project, starts the recall
daemon, then times N hook processes per hook-capable tool (``python -m memscribe.cli.hub_hook TOOL``,
stdin JSON in, stdout JSON out), warm, plus the cold path (no daemon). Prints p50 / p95 / max per tool."""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memscribe.cli.hub_hook import ask, socket_path
from memscribe.hub.feed.recall import HOOK_TOOLS

__all__ = ["main"]

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


def _time(tool: str, payload: str, env: dict[str, str], cwd: Path) -> tuple[float, int]:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "memscribe.cli.hub_hook", tool], input=payload, env=env, cwd=cwd,
                         capture_output=True, text=True, check=True, timeout=60).stdout  # fmt: skip
    return (time.perf_counter() - start) * 1000, len(out)


def _bare() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return (time.perf_counter() - start) * 1000


def _seed(home: Path, project: Path, count: int) -> None:
    from memscribe.config import MemoryConfig
    from memscribe.engine.memory import Memory

    memory = Memory(home / "memscribe.db", config=MemoryConfig(embedder="hash", writer="raw"))
    for i in range(count):
        topic = _TOPICS[i % len(_TOPICS)]
        memory.add(f"Decision {i}: for {topic} we use approach number {i} after the review.", user_id="ana",
                   project=str(project))  # fmt: skip
    memory.close()


def _row(name: str, ms: list[float], size: int) -> str:
    ordered = sorted(ms)
    p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]
    return f"{name:18} p50 {statistics.median(ms):7.1f} ms  p95 {p95:7.1f} ms  max {ordered[-1]:7.1f} ms  out {size} B"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--memories", type=int, default=200)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "ms", Path(tmp) / "proj"
        (project / ".git").mkdir(parents=True)
        _seed(home, project, args.memories)
        env = {**os.environ, "MEMSCRIBE_HOME": str(home), "MEMSCRIBE_EMBEDDER": "hash", "MEMSCRIBE_WRITER": "raw",
               "MEMSCRIBE_USER": "ana", "MEMSCRIBE_HOOK_DAEMON": "0"}  # fmt: skip
        env.pop("MEMSCRIBE_PROJECT", None)
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {args.memories} memories")
        cold = [_time("claude-code", _payload("claude-code", project, i), env, project) for i in range(3)]
        print(_row("cold (no daemon)", [c[0] for c in cold], cold[-1][1]))
        path = socket_path(env)
        path.parent.mkdir(parents=True, exist_ok=True)
        daemon = subprocess.Popen(
            [sys.executable, "-m", "memscribe.hub.feed.daemon", str(path), "--idle", "120"], env=env
        )
        try:
            while ask(path, {"tool": "", "stdin": ""}, timeout=1) is None:
                time.sleep(0.05)
            trips = []
            for i in range(args.calls):
                start = time.perf_counter()
                request = {"tool": "claude-code", "stdin": _payload("claude-code", project, i), "cwd": str(project),
                           "user": "ana", "budget": 600}  # fmt: skip
                ask(path, request)
                trips.append((time.perf_counter() - start) * 1000)
            print(_row("daemon round trip", trips, 0) + "  (socket + recall, no process start)")
            bare = [_bare() for _ in range(5)]
            print(_row("python -c pass", bare, 0) + "  (interpreter start alone, for scale)")
            for tool in HOOK_TOOLS:
                runs = [_time(tool, _payload(tool, project, i), env, project) for i in range(args.calls)]
                print(_row(f"warm {tool}", [r[0] for r in runs], runs[-1][1]))
        finally:
            daemon.terminate()
            daemon.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
