"""``memscribe hub …`` through click's CliRunner (and one real process for watch's signal handling)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from test_hub_support import materialize

from memscribe.cli.main import cli


def _run(home: Path, *args: str) -> Any:
    result = CliRunner().invoke(cli, ["--home", str(home), "--embedder", "hash", "--writer", "raw", *args])
    return result


def _json(result: Any) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_sources_lists_the_built_ins(tmp_path: Path) -> None:
    names = {row["name"] for row in _json(_run(tmp_path, "hub", "sources", "--json"))["sources"]}
    assert {"claude-code", "codex", "cursor", "deepseek-harness", "workbuddy", "aider"} <= names


def test_scan_import_dry_run_status_and_report(tmp_path: Path) -> None:
    claude = materialize("claude-code", tmp_path / "fx")
    secrets = materialize("secrets", tmp_path / "fx2")
    paths = ["--path", f"claude-code={claude}", "--path", f"claude-code={secrets}"]
    scan = _json(_run(tmp_path, "hub", "scan", "claude-code", *paths, "--json"))
    assert scan["claude-code"]["items"] == 3 and scan["claude-code"]["changed"] == 3
    dry = _json(_run(tmp_path, "hub", "import", "claude-code", *paths, "-u", "ada", "--dry-run", "--json"))
    assert dry["dry_run"] and dry["turns"] == 21
    assert _json(_run(tmp_path, "hub", "status", "--json"))["sources"] == {}
    done = _json(_run(tmp_path, "hub", "import", "claude-code", *paths, "-u", "ada", "--report", "--json"))
    assert done["turns"] == 21 and done["sources"]["claude-code"]["secrets_redacted"] >= 20
    assert all("count" in r and "turn" in r for r in done["redactions"])
    again = _json(_run(tmp_path, "hub", "import", "claude-code", *paths, "-u", "ada", "--json"))
    assert again["turns"] == 0
    status = _json(_run(tmp_path, "hub", "status", "--json"))["sources"]["claude-code"]
    assert status["turns"] == 21 and status["sessions"] == 3 and status["last_import"]
    found = _json(_run(tmp_path, "search", "empty cart checkout", "-u", "ada", "--json"))["results"]
    assert found and found[0]["source"] == "claude-code"


def test_bad_path_option_and_unknown_source_are_user_errors(tmp_path: Path) -> None:
    assert _run(tmp_path, "hub", "import", "--path", "nodir", "-u", "ada").exit_code == 2
    assert _run(tmp_path, "hub", "import", "nope", "-u", "ada").exit_code == 5


def test_watch_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    root = materialize("pi", tmp_path / "fx")
    env = {
        **os.environ,
        "MEMSCRIBE_HOME": str(tmp_path / "home"),
        "MEMSCRIBE_EMBEDDER": "hash",
        "MEMSCRIBE_WRITER": "raw",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memscribe",
            "hub",
            "watch",
            "pi",
            "--path",
            f"pi={root}",
            "-u",
            "ada",
            "--interval",
            "0.1",
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    hub_db = tmp_path / "home" / "memscribe.hub.db"
    deadline = time.monotonic() + 60
    while not hub_db.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    totals = json.loads(out)
    assert totals["turns"] == 8 and totals["passes"] >= 1 and totals["errors"] == 0


def test_bench_hub_smoke(tmp_path: Path) -> None:
    out = tmp_path / "hub.json"
    args = ["bench", "hub", "--sessions", "12", "--turns", "8", "--lite-sessions", "2", "--embedder", "hash"]
    report = _json(_run(tmp_path, *args, "--dir", str(tmp_path / "work"), "-o", str(out), "--json"))
    assert report == json.loads(out.read_text())
    assert report["history"]["turns"] == 96 and report["deferred"]["turns"] == 96
    assert report["deferred"]["second_run_turns"] == 0 and report["deferred"]["errors"] == 0
    assert report["lite"]["turns"] == 16 and report["lite"]["memories"] > 0
    assert report["deferred"]["turns_per_s"] > 0 and report["peak_rss_mb"] > 0
