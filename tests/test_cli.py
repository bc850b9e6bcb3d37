"""The memscribe CLI, driven through click's CliRunner with the hash embedder and a temporary home."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from memscribe.cli.main import cli
from memscribe.errors import ERROR_TABLE
from memscribe.settings import ENV_VARS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "cli.md"

Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def run(home: Path) -> Run:
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
        # The raw writer keeps texts verbatim, which these output checks rely on.
        base = ["--home", str(home), "--embedder", "hash", "--writer", "raw"]
        return runner.invoke(cli, [*base, *args], input=input, env=env)

    return invoke


def as_json(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def seeded(run: Run) -> dict[str, str]:
    """Two memories for alice; returns their ids by keyword."""
    as_json(
        run(
            "add",
            "I live in Seattle and work as a nurse",
            "-u",
            "alice",
            "--timestamp",
            "2023-01-05",
            "--json",
        )
    )
    as_json(run("add", "My dog Max loves the beach", "-u", "alice", "--timestamp", "2023-02-01", "--json"))
    rows = as_json(run("list", "-u", "alice", "--json"))["results"]
    return {("seattle" if "Seattle" in r["memory"] else "dog"): r["id"] for r in rows}


# -- commands, human and JSON --------------------------------------------------------------------------


def test_add_prints_operations_and_ids(run: Run) -> None:
    human = run("add", "I prefer [green] tea", "-u", "alice")
    assert human.exit_code == 0, human.output
    assert "ADD" in human.stdout and "I prefer [green] tea" in human.stdout  # brackets are not markup
    data = as_json(run("add", "I prefer coffee", "-u", "alice", "--json"))
    assert data["status"] == "done" and data["results"][0]["event"] == "ADD"


def test_add_reads_stdin_and_json_files(run: Run, tmp_path: Path) -> None:
    assert as_json(run("add", "-", "-u", "bob", "--json", input="I play chess on Sundays\n"))["results"]
    messages = [
        {"role": "user", "content": "I moved to Sydney"},
        {"role": "assistant", "content": "Exciting!"},
    ]
    path = tmp_path / "messages.json"
    path.write_text(json.dumps({"messages": messages}))
    assert len(as_json(run("add", "--file", str(path), "-u", "bob", "--json"))["results"]) == 2
    piped = as_json(run("add", "--file", "-", "-u", "bob", "--json", input=json.dumps([messages[0]] * 1)))
    assert piped.get("duplicate") or piped["results"]


def test_add_idempotency_key_and_no_wait(run: Run) -> None:
    first = as_json(run("add", "I run marathons", "-u", "carol", "--key", "k1", "--json"))
    again = as_json(run("add", "I run marathons", "-u", "carol", "--key", "k1", "--json"))
    assert again["duplicate"] and again["results"][0]["id"] == first["results"][0]["id"]
    pending = as_json(run("add", "I bake bread", "-u", "carol", "--no-wait", "--json"))
    assert pending["status"] == "pending"
    texts = [r["memory"] for r in as_json(run("list", "-u", "carol", "--json"))["results"]]
    assert "I bake bread" in texts  # written before the command exited


def test_search_and_list(run: Run, seeded: dict[str, str]) -> None:
    human = run("search", "Seattle nurse", "-u", "alice")
    assert human.exit_code == 0 and "Seattle" in human.stdout and seeded["seattle"] in human.stdout
    hits = as_json(run("search", "Seattle nurse", "-u", "alice", "--limit", "1", "--json"))["results"]
    assert [h["id"] for h in hits] == [seeded["seattle"]]
    assert as_json(run("--json", "search", "dog", "-u", "alice", "--source", "nowhere"))["results"] == []
    assert as_json(run("search", "dog", "-u", "alice", "--source", "cli", "--json"))["results"]
    assert as_json(run("search", "Seattle", "-u", "alice", "--as-of", "2022-01-01", "--json"))["results"] == []
    human_list = run("list", "-u", "alice")
    assert human_list.exit_code == 0 and "My dog Max" in human_list.stdout


def test_update_history_why_delete(run: Run, seeded: dict[str, str]) -> None:
    memory_id = seeded["seattle"]
    update = run("update", memory_id, "I live in Sydney now")
    assert update.exit_code == 0 and "UPDATE" in update.stdout
    versions = as_json(run("history", memory_id, "--json"))
    assert [v["memory"] for v in versions] == [
        "I live in Seattle and work as a nurse",
        "I live in Sydney now",
    ]
    human = run("history", memory_id)
    assert human.exit_code == 0 and "retired" in human.stdout and "current" in human.stdout
    why = as_json(run("why", memory_id, "-u", "alice", "--json"))
    assert [op["kind"] for op in why["operations"]] == ["ADD", "UPDATE"]
    assert "operations" in run("why", memory_id).stdout
    searched = as_json(run("search", "Sydney", "-u", "alice", "--history", "--json"))["results"][0]
    assert len(searched["history"]) == 2 and run("search", "Sydney", "-u", "alice", "--history").exit_code == 0
    assert as_json(run("delete", seeded["dog"], "--json"))["results"][0]["event"] == "DELETE"
    assert run("delete", memory_id).exit_code == 0
    assert as_json(run("list", "-u", "alice", "--json"))["results"] == []


def test_forget_by_id_and_query(run: Run, seeded: dict[str, str]) -> None:
    assert as_json(run("forget", seeded["dog"], "--json"))["results"][0]["id"] == seeded["dog"]
    human = run("forget", "Seattle", "-u", "alice")
    assert human.exit_code == 0 and "DELETE" in human.stdout
    assert "nothing was erased" in run("forget", "Seattle", "-u", "alice").stdout
    assert as_json(run("list", "-u", "alice", "--json"))["results"] == []


def test_stats(run: Run, seeded: dict[str, str]) -> None:
    data = as_json(run("stats", "--json"))
    assert data["current"] == 2 and data["episodes"] == 2
    assert as_json(run("stats", "-u", "nobody", "--json"))["current"] == 0
    human = run("stats")
    assert human.exit_code == 0 and "MiB" in human.stdout


def test_reindex(run: Run, seeded: dict[str, str]) -> None:
    before = as_json(run("search", "where do I live", "-u", "alice", "--json"))
    assert as_json(run("reindex", "-u", "alice", "--json")) == {"partitions": 1, "vectors": 2,
                                                                 "keyword_index": "unchanged"}  # fmt: skip
    assert as_json(run("reindex", "--json"))["keyword_index"] == "optimized"
    human = run("reindex")
    assert human.exit_code == 0 and "vectors" in human.stdout
    assert as_json(run("search", "where do I live", "-u", "alice", "--json")) == before


def test_purge_needs_yes_then_erases(run: Run, seeded: dict[str, str]) -> None:
    refused = run("purge", "-u", "alice")
    assert refused.exit_code == 2 and "--yes" in refused.stderr
    assert run("purge", "-u", "alice", "--json").exit_code == 2
    report = as_json(run("purge", "-u", "alice", "--yes", "--json"))
    assert report["verified"] and report["memories"] == 2
    assert as_json(run("stats", "--json"))["current"] == 0
    as_json(run("add", "I like tea", "-u", "bob", "--json"))
    human = run("purge", "-u", "bob", "--yes")
    assert human.exit_code == 0 and "verified" in human.stdout


def test_export_import_round_trip(run: Run, seeded: dict[str, str], tmp_path: Path) -> None:
    run("update", seeded["seattle"], "I live in Sydney now")
    path = tmp_path / "alice.jsonl"
    summary = as_json(run("export", "-u", "alice", "--output", str(path), "--json"))
    assert summary["lines"] == len(path.read_text().splitlines())
    streamed = run("export", "-u", "alice")
    assert streamed.stdout.splitlines() == path.read_text().splitlines()
    other = CliRunner()
    base = ["--home", str(tmp_path / "other"), "--embedder", "hash"]
    counts = as_json(other.invoke(cli, [*base, "import", str(path), "--json"]))
    assert counts["memories"] == 3 and counts["episodes"] == 3 and counts["skipped"] == 0
    again = other.invoke(cli, [*base, "import", str(path)])
    assert again.exit_code == 0 and "skipped" in again.stdout
    before = as_json(run("history", seeded["seattle"], "--json"))
    after = as_json(other.invoke(cli, [*base, "history", seeded["seattle"], "--json"]))
    assert [v["memory"] for v in after] == [v["memory"] for v in before]
    assert run("export", "-u", "alice", "-o", str(tmp_path / "b.jsonl")).exit_code == 0


def test_import_rejects_garbage(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("not json\n")
    result = run("import", str(path), "--json")
    assert result.exit_code == 2 and json.loads(result.stdout)["error"]["code"] == "invalid_input"


# -- exit codes ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["add", "", "-u", "alice"], 2),
        (["add", "-u", "alice"], 2),
        (["search", "   ", "-u", "alice"], 2),
        (["search", "tea", "-u", "alice", "--limit", "0"], 2),
        (["history", "no-such-id"], 3),
        (["why", "no-such-id"], 3),
        (["update", "no-such-id", "text"], 3),
        (["delete", "no-such-id", "-u", "alice"], 3),
        (["forget", "no-such-id"], 3),
        (["search", "tea"], 4),
        (["--writer", "nope", "add", "hello", "-u", "alice"], 5),
        (["search", "tea", "-u", "alice", "--as-of", "yesterday-ish"], 2),
    ],
)
def test_errors_exit_with_the_table_code(run: Run, args: list[str], code: int) -> None:
    human = run(*args)
    assert human.exit_code == code, human.output
    assert human.stderr.startswith("error: ") and "Traceback" not in human.output
    machine = run("--json", *args)
    assert machine.exit_code == code
    assert json.loads(machine.stdout)["error"]["exit_code"] == code


def test_usage_errors_exit_2(run: Run) -> None:
    assert run("history").exit_code == 2
    assert run("--no-such-option").exit_code == 2


# -- doctor and config -----------------------------------------------------------------------------------


def test_doctor_on_a_fresh_home_skips_store_checks(run: Run, home: Path) -> None:
    data = as_json(run("doctor", "--json"))
    verdicts = {c["name"]: c["verdict"] for c in data["checks"]}
    assert data["ok"] and verdicts["store"] == "skip" and verdicts["embedder"] == "ok"
    assert not home.exists()  # doctor never creates the store


def test_doctor_verdicts_and_failure_exit(run: Run, seeded: dict[str, str], home: Path) -> None:
    data = as_json(run("doctor", "--json"))
    names = [c["name"] for c in data["checks"]]
    assert names == [
        "store",
        "migrations",
        "integrity",
        "pending episodes",
        "index files",
        "writer",
        "model",
        "embedder",
    ]
    assert all(c["verdict"] == ("skip" if c["name"] == "model" else "ok") for c in data["checks"]), data
    embedder = next(c for c in data["checks"] if c["name"] == "embedder")
    assert "hash-256" in embedder["detail"] and "dim 256" in embedder["detail"]
    human = run("doctor")
    assert human.exit_code == 0 and "all checks passed" in human.stdout
    other_model = CliRunner().invoke(cli, ["--home", str(home), "--embedder", "hash:64", "doctor"])
    assert other_model.exit_code == 1 and "failed: embedder" in other_model.stdout
    bad_writer = CliRunner().invoke(
        cli, ["--home", str(home), "--embedder", "hash", "--writer", "nope", "--json", "doctor"]
    )
    assert bad_writer.exit_code == 1 and json.loads(bad_writer.stdout)["failed"] == ["writer"]


def test_config_show_sources(run: Run, home: Path, tmp_path: Path) -> None:
    env = {"MEMSCRIBE_WRITER": "raw", "MEMSCRIBE_USER": "alice", "MEMSCRIBE_TENANT": "acme"}
    data = as_json(run("--tenant", "other", "config", "show", "--json", env=env))
    assert data["home"] == {"value": str(home), "source": "flag", "env": "MEMSCRIBE_HOME"}
    assert data["db"]["value"] == str(home / "memscribe.db")
    assert (data["embedder"]["source"], data["embedder"]["value"]) == ("flag", "hash")
    assert (data["writer"]["source"], data["user"]["source"]) == ("flag", "env")
    assert (data["tenant"]["value"], data["tenant"]["source"]) == ("other", "flag")
    bare = as_json(CliRunner().invoke(cli, ["config", "show", "--json"], env={"MEMSCRIBE_HOME": str(tmp_path)}))
    assert bare["home"]["source"] == "env" and bare["writer"] == {
        "value": "lite", "source": "default", "env": "MEMSCRIBE_WRITER"
    }
    from_env = as_json(CliRunner().invoke(cli, ["config", "show", "--json"], env=env))
    assert (from_env["writer"]["value"], from_env["writer"]["source"]) == ("raw", "env")
    assert bare["embedder"] == {"value": "local", "source": "default", "env": "MEMSCRIBE_EMBEDDER"}
    db = as_json(CliRunner().invoke(cli, ["--db", str(tmp_path / "x.db"), "config", "show", "--json"]))
    assert db["db"] == {"value": str(tmp_path / "x.db"), "source": "flag", "env": None}
    human = run("config", "show")
    assert human.exit_code == 0 and "MEMSCRIBE_WRITER" in human.stdout


def test_env_user_and_tenant_are_used(run: Run) -> None:
    env = {"MEMSCRIBE_USER": "dave", "MEMSCRIBE_TENANT": "acme"}
    as_json(run("add", "I collect stamps", "--json", env=env))
    assert as_json(run("list", "-u", "dave", "--json", env=env))["results"]
    assert as_json(run("list", "-u", "dave", "--json"))["results"] == []  # other tenant


# -- bench, entry points, docs ---------------------------------------------------------------------------


def test_bench_group_lists_speed_and_runs_a_smoke_test(run: Run, tmp_path: Path) -> None:
    assert "speed" in run("bench", "--help").stdout
    out = tmp_path / "speed.json"
    args = ["--sizes", "40", "--queries", "3", "--turns", "6", "--import-runs", "1", "--embedder", "hash",
            "--add-at", "50", "--adds", "3"]  # fmt: skip
    result = run("bench", "speed", *args, "--real-max", "10", "-o", str(out), "--json")
    report = as_json(result)
    assert report == json.loads(out.read_text())
    (row,) = report["search"]
    assert row["n"] == 40 and row["search_p50_ms"] > 0 and "synthetic" in row["vectors"]
    assert report["add"]["turns"] == 6 and report["import"]["import_ms"] > 0
    writers = [(r["writer"], r["memories"], r["adds"]) for r in report["add_at"]]
    assert writers == [(w, 50, 3) for w in ("raw", "raw, wait=False", "lite", "lite, wait=False")]
    assert report["weight"]["base_install_mb"] > 0


def test_python_dash_m_memscribe() -> None:
    done = subprocess.run([sys.executable, "-m", "memscribe", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and "memscribe" in done.stdout


def _commands(group: click.Group, prefix: str = "memscribe") -> Iterator[tuple[str, click.Command]]:
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        path = f"{prefix} {name}"
        if isinstance(command, click.Group):
            yield from _commands(command, path)
        else:
            yield path, command


def test_docs_cover_every_command_option_and_env_var() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    missing = []
    for path, command in _commands(cli):
        if f"`{path}" not in docs:
            missing.append(path)
        options = [o for p in command.params if isinstance(p, click.Option) for o in p.opts if o.startswith("--")]
        missing += [f"{path} {option}" for option in options if f"`{option}" not in docs]
    missing += [o for p in cli.params for o in p.opts if o.startswith("--") and f"`{o}" not in docs]
    sources = [
        *(ROOT / "memscribe" / "cli").glob("*.py"),
        ROOT / "memscribe/server/cli.py",
        ROOT / "memscribe/mcp/cli.py",
    ]
    source = "".join(p.read_text() for p in sources)
    read_vars = set(re.findall(r"MEMSCRIBE_[A-Z_]+", source)) | set(ENV_VARS)
    missing += [name for name in sorted(read_vars) if f"`{name}`" not in docs]
    assert not missing, f"undocumented in docs/cli.md: {missing}"


def test_docs_exit_code_table_matches_error_table() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    for cls, info in ERROR_TABLE.items():
        summary = (cls.__doc__ or "").strip().splitlines()[0]
        row = f"| {info.exit_code} | `{cls.__name__}` | `{info.code}` | {summary} |"
        assert row in docs, f"docs/cli.md lacks the exit-code row: {row}"


def test_writer_benchmarks_run_side_by_side(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from memscribe.cli.main import cli

    fixture = Path(__file__).parent / "fixtures" / "locomo_tiny.json"
    runner = CliRunner()
    out = tmp_path / "u.json"
    done = runner.invoke(cli, ["bench", "updates", "--scenarios", "3", "--embedder", "hash", "-o", str(out)])
    assert done.exit_code == 0, done.output
    runs = json.loads(out.read_text())["runs"]
    assert [r["writer"] for r in runs] == ["raw", "lite"] and all("accuracy@1" in r["metrics"] for r in runs)
    args = ["bench", "updates", "--writer", "pro", "--scenarios", "3", "--embedder", "hash", "-o", str(out)]
    done = runner.invoke(cli, args)  # no --llm: the scripted model speaks the pro protocol
    assert done.exit_code == 0, done.output
    (pro,) = json.loads(out.read_text())["runs"]
    assert 0 < pro["llm"]["calls_per_add"] <= 1.2 and pro["llm"]["tokens_in_per_add"] > 0
    out = tmp_path / "l.json"
    args = ["bench", "locomo", "--data", str(fixture), "--embedder", "hash", "--writer", "raw", "-o", str(out)]
    done = runner.invoke(cli, args)
    assert done.exit_code == 0, done.output
    assert "recall_all@10" in json.loads(out.read_text())["runs"][0]["metrics"]


def test_doctor_checks_a_configured_model_endpoint(home: Path) -> None:
    from memscribe.testing.fake_openai import Behaviour, FakeOpenAIServer

    base = ["--home", str(home), "--embedder", "hash", "--json"]
    with FakeOpenAIServer() as server:
        server.push(Behaviour.json({"city": "Sydney", "moved": True}))
        flags = [*base, "--writer", "pro", "--llm", "vllm:fake-model", "--llm-base-url", server.base_url, "doctor"]
        good = CliRunner().invoke(cli, flags)
        model = next(c for c in json.loads(good.stdout)["checks"] if c["name"] == "model")
        assert good.exit_code == 0 and model["verdict"] == "ok" and "json_schema works (in use)" in model["detail"]
        server.push(Behaviour.text("I think she lives in Sydney."), Behaviour.text("Still not JSON."))
        bad = CliRunner().invoke(cli, flags)
        model = next(c for c in json.loads(bad.stdout)["checks"] if c["name"] == "model")
        assert bad.exit_code == 1 and model["verdict"] == "fail" and "JSON" in model["detail"]
    down = CliRunner().invoke(cli, [*base, "--llm", "vllm:m", "--llm-base-url", "http://127.0.0.1:9/v1", "doctor"])
    model = next(c for c in json.loads(down.stdout)["checks"] if c["name"] == "model")
    assert down.exit_code == 1 and model["verdict"] == "fail"
    none = CliRunner().invoke(cli, [*base, "doctor"])
    assert next(c for c in json.loads(none.stdout)["checks"] if c["name"] == "model")["verdict"] == "skip"
