"""Working memory: one session fact per session, and the experience library reconciled across sessions."""

from __future__ import annotations

import json
from typing import Any

from test_scenes_support import assistant, call, scene_mem, tool

from memscribe import Memory
from memscribe.scenes.environment import read_conditions, strip_env_values

__all__ = ["scene_mem"]

SECRET = "hunter2-very-secret"


def _session(mem: Memory, session: str, task: str, commands: list[str], final: str, *, result: str = "ok") -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
    messages.append(
        assistant(call("web_search", query="github actions python"), *(call("bash", command=c) for c in commands))
    )
    messages += [tool("results")] + [tool(result) for _ in commands]
    messages.append({"role": "assistant", "content": final})
    mem.add(messages, user_id="u1", session_id=session)


def _working(mem: Memory, kind: str) -> list[dict[str, Any]]:
    rows = mem.list(user_id="u1", filters={"scenes": ["working", "coding"]})["results"]
    return [r for r in rows if r["metadata"].get("kind") == kind]


CI_STEPS = [f"export DEPLOY_KEY={SECRET} && pip install pytest==8.1.1", "pytest -q"]


def test_session_fact_and_experience_without_env_values(scene_mem: Memory) -> None:
    _session(scene_mem, "s1", "Set up CI for the billing repo. Use GitHub Actions.", CI_STEPS, "Done, CI passes now.")
    (fact,) = _working(scene_mem, "session_fact")
    assert fact["memory"].startswith("Task: Set up CI for the billing repo.; outcome: Done, CI passes now.")
    assert fact["slot"] == "session:s1/task" and fact["metadata"]["succeeded"] is True
    (exp,) = _working(scene_mem, "experience")
    assert exp["owner"] == "agent" and exp["confidence"] == 0.6
    assert "run `pytest -q`" in exp["metadata"]["solution"]
    assert exp["metadata"]["conditions"] == {"versions": {"pytest": "8.1.1"}, "env": ["DEPLOY_KEY"]}
    stored = json.dumps(scene_mem.list(user_id="u1", include_history=True), default=str)
    assert SECRET not in stored and "DEPLOY_KEY=<value>" in stored


def test_same_task_and_solution_raises_confidence(scene_mem: Memory) -> None:
    _session(scene_mem, "s1", "Set up CI for the billing repo.", CI_STEPS, "Done, CI passes now.")
    _session(scene_mem, "s2", "Set up the CI for billing repo, please.", CI_STEPS, "Done, tests pass in CI.")
    (exp,) = _working(scene_mem, "experience")
    assert exp["version"] == 2 and exp["confidence"] == 0.72
    assert exp["metadata"]["sessions"] == ["s1", "s2"] and exp["metadata"]["confirmations"] == 2
    history = scene_mem.history(exp["id"], user_id="u1")
    assert [h["confidence"] for h in history] == [0.6, 0.72]


def test_a_different_working_solution_supersedes(scene_mem: Memory) -> None:
    _session(scene_mem, "s1", "Set up CI for the billing repo.", CI_STEPS, "Done, CI passes now.")
    other = ["uv sync --frozen", "uv run nox -s tests"]
    _session(scene_mem, "s2", "Set up CI for the billing repo.", other, "Done: nox sessions succeeded in CI.")
    (exp,) = _working(scene_mem, "experience")
    assert "nox" in exp["metadata"]["solution"] and "pytest" not in exp["metadata"]["solution"]
    assert exp["supersedes"] is not None
    why = scene_mem.why(exp["id"], user_id="u1")
    assert "different solution" in json.dumps(why)


def test_a_failing_solution_loses_confidence(scene_mem: Memory) -> None:
    _session(scene_mem, "s1", "Set up CI for the billing repo.", CI_STEPS, "Done, CI passes now.")
    _session(
        scene_mem,
        "s2",
        "Set up CI for the billing repo.",
        CI_STEPS,
        "It failed: the runner could not start.",
        result="Error: exit code 1",
    )
    (exp,) = _working(scene_mem, "experience")
    assert exp["confidence"] == 0.36 and exp["metadata"]["failures"] == 1


def test_a_continued_session_updates_its_one_fact(scene_mem: Memory) -> None:
    _session(scene_mem, "s1", "Set up CI for the billing repo.", ["pip install nox"], "Still failing on lint.")
    _session(scene_mem, "s1", "Now fix the lint step.", ["ruff check --fix ."], "Done, CI is green.")
    (fact,) = _working(scene_mem, "session_fact")
    assert fact["version"] == 2 and fact["metadata"]["task"] == "Set up CI for the billing repo."
    assert fact["metadata"]["succeeded"] is True and "ruff check --fix ." in fact["memory"]


def test_env_values_are_stripped_in_every_form() -> None:
    text = "export API_URL=https://x.example/v1; set REGION=eu; $env:TOKEN_NAME = 'abc'\nDB_PASSWORD: hunter2"
    cleaned = strip_env_values(text)
    assert "x.example" not in cleaned and "eu;" not in cleaned and "abc" not in cleaned and "hunter2" not in cleaned
    assert read_conditions([text]).env_names == ("API_URL", "DB_PASSWORD", "REGION", "TOKEN_NAME")
