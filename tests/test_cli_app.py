"""The CLI at its edges: a missing extra, a reader that stops reading, usage errors under --json, key
listings, and the config file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memscribe import Memory
from memscribe.errors import ERROR_TABLE, ConfigError
from memscribe.settings import resolve_settings

# Runs the CLI with some modules made unimportable, as on a base install without that extra.
WITHOUT = """
import sys
from importlib.abc import MetaPathFinder
blocked = set(sys.argv[1].split(","))
class Missing(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Missing())
from memscribe.cli.main import main
main(sys.argv[2:])
"""


def run_cli(home: Path, *args: str, without: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMSCRIBE_")}
    env.update(MEMSCRIBE_HOME=str(home), MEMSCRIBE_EMBEDDER="hash", MEMSCRIBE_WRITER="raw")
    command = [sys.executable, "-c", WITHOUT, without or "-", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize(
    ("args", "blocked", "extra"),
    [
        (["serve"], "uvicorn,fastapi", "server"),
        (["mcp", "--user", "u"], "mcp", "mcp"),
        (["--writer", "pro", "--llm", "vllm:m", "add", "--user", "u", "I live in Oslo"], "httpx", "llm"),
    ],
)
def test_a_missing_extra_is_a_one_line_hint(tmp_path: Path, args: list[str], blocked: str, extra: str) -> None:
    done = run_cli(tmp_path, *args, without=blocked)
    assert done.returncode == ERROR_TABLE[ConfigError].exit_code, done.stderr
    assert "Traceback" not in done.stderr
    assert (
        done.stderr.strip().splitlines() == [done.stderr.strip().splitlines()[0]]
        and f"pip install 'memscribe[{extra}]'" in done.stderr
    )


def test_export_into_a_closed_pipe_exits_quietly(tmp_path: Path) -> None:
    with Memory(tmp_path / "memscribe.db", writer="raw", embedder="hash") as memory:
        for i in range(300):
            memory.add(f"Note {i}: " + "the quick brown fox jumps over the lazy dog " * 8, user_id="u")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMSCRIBE_")}
    env.update(MEMSCRIBE_HOME=str(tmp_path), MEMSCRIBE_EMBEDDER="hash")
    proc = subprocess.Popen(
        [sys.executable, "-m", "memscribe", "export", "--user", "u"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # what `| head -1` does
    code = proc.wait(timeout=120)
    err = proc.stderr.read().decode()
    assert json.loads(first)["kind"] == "header"
    assert code == 1 and "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err


def test_usage_errors_are_json_under_json(tmp_path: Path) -> None:
    done = run_cli(tmp_path, "--json", "search")
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "usage_error" and "QUERY" in error["message"] and error["exit_code"] == 2
    plain = run_cli(tmp_path, "search")
    assert plain.returncode == 2 and plain.stdout == "" and "Missing argument" in plain.stderr


def test_keys_list_is_one_json_document(tmp_path: Path) -> None:
    for tenant in ("acme", "globex"):
        assert run_cli(tmp_path, "keys", "create", tenant).returncode == 0
    listed = json.loads(run_cli(tmp_path, "keys", "list").stdout)
    assert sorted(k["tenant"] for k in listed["keys"]) == ["acme", "globex"]
    assert all("key" not in k and "hash" not in k for k in listed["keys"])
    only = json.loads(run_cli(tmp_path, "keys", "list", "--tenant", "acme").stdout)
    assert [k["tenant"] for k in only["keys"]] == ["acme"]


def test_config_file_sits_between_env_and_defaults(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('writer = "lite"\nuser = "from-file"\nllm = "vllm:m"\n')
    settings = resolve_settings({}, {"MEMSCRIBE_HOME": str(tmp_path), "MEMSCRIBE_USER": "from-env"})
    assert (settings.writer.value, settings.writer.source) == ("lite", "file")
    assert (settings.user.value, settings.user.source) == ("from-env", "env")
    assert settings.llm.value == "vllm:m" and settings.config.source == "file"
    flagged = resolve_settings({"writer": "raw"}, {"MEMSCRIBE_HOME": str(tmp_path)})
    assert (flagged.writer.value, flagged.writer.source) == ("raw", "flag")


def test_a_bad_config_file_is_a_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('writer = "lite"\nllm_api_key = "sk-nope"\n')
    with pytest.raises(ConfigError, match="unknown keys"):
        resolve_settings({}, {"MEMSCRIBE_HOME": str(tmp_path), "MEMSCRIBE_CONFIG": str(bad)})
    with pytest.raises(ConfigError, match="does not exist"):
        resolve_settings({}, {"MEMSCRIBE_HOME": str(tmp_path), "MEMSCRIBE_CONFIG": str(tmp_path / "none.toml")})
    done = run_cli(tmp_path, "config", "show")
    assert done.returncode == 0
    (tmp_path / "config.toml").write_text("writer = [\n")
    broken = run_cli(tmp_path, "config", "show")
    assert broken.returncode == 5 and "not readable TOML" in broken.stderr and "Traceback" not in broken.stderr


def test_the_demo_needs_no_extra(tmp_path: Path) -> None:
    code = WITHOUT.replace(
        "from memscribe.cli.main import main\nmain(sys.argv[2:])", "from memscribe.demo import main\nmain(sys.argv[2:])"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMSCRIBE_")}
    env["MEMSCRIBE_HOME"] = str(tmp_path)
    blocked = "fastapi,uvicorn,httpx,mcp,pytest,hypothesis,anyio,mem0,openai"
    done = subprocess.run(
        [sys.executable, "-c", code, blocked, "--embedder", "hash"],
        env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Try it yourself" in done.stdout
