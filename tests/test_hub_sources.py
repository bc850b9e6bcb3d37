"""Every hub source imports its fixtures: turns, roles, tool calls, times, project and session, and a second
run imports nothing. The fixtures are written in each tool's on-disk format, quirks included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_hub_support import episodes, fixture_env, open_hub, store_bytes, turns_by_session

# source -> (turns per scope session, tool names, projects, the roles of one session in order)
EXPECTED: dict[str, tuple[dict[str, int], set[str], set[str | None], tuple[str, list[str]]]] = {
    "claude-code": (
        {
            "claude-code:0b6f2c1e-5d3a-4c7b-9e21-7a1f0c9d4e11": 9,
            "claude-code:0b6f2c1e-5d3a-4c7b-9e21-7a1f0c9d4e11/agent-a1b2c3": 4,
        },
        {"Read", "Edit", "Bash", "Grep"},
        {"/home/ada/shop"},
        (
            "claude-code:0b6f2c1e-5d3a-4c7b-9e21-7a1f0c9d4e11",
            ["user", "assistant", "tool", "assistant", "tool", "user", "assistant", "tool", "assistant"],
        ),
    ),
    "codex": (
        {
            "codex:019a4f2e-7c11-7d20-b3a9-5e0c2f8a1d64": 6,
            "codex:5973b6c0-94b8-487b-a530-2aeb6098ae0e": 4,
            "codex:019ac001-2b3c-7d4e-8f50-61728394a5b6": 4,
        },
        {"shell", "apply_patch"},
        {"/home/ada/infra", None},
        ("codex:019a4f2e-7c11-7d20-b3a9-5e0c2f8a1d64", ["user", "assistant", "tool", "assistant", "tool", "assistant"]),
    ),
    "cursor": (
        {
            "cursor:c0mp-0001-aaaa": 4,
            "cursor:c0mp-0002-sub": 2,
            "cursor:c0mp-legacy": 2,
            "cursor:ag-91c2e7d4": 4,
            "cursor:7d1e5a3c-2b4f-4e6a-8c0d-9f1b3e5a7c2d": 4,
        },
        {"read_file", "Edit", "run_terminal_cmd"},
        {"/home/ada/game engine", None},
        ("cursor:c0mp-0001-aaaa", ["user", "assistant", "tool", "assistant"]),
    ),
    "opencode": (
        {
            "opencode:ses_5e1a0c3f2ffeQk2mWbZx1yN7aP": 4,
            "opencode:ses_5e1a0c9b8ffe7Hj3LmNo4pQrSt": 2,
            "opencode:ses_5e2b7d11affeM3nBvCx8zL0qWe": 3,
            "opencode:ses_6a0f3c2e1ffeVb9nM2xZq7wE4r": 5,
        },
        {"write", "bash", "edit", "shell"},
        {"/home/ada/api"},
        ("opencode:ses_5e1a0c3f2ffeQk2mWbZx1yN7aP", ["user", "assistant", "tool", "tool"]),
    ),
    "qwen-code": (
        {
            "qwen-code:d2a7c9e4-3b18-4f60-8a5e-7c1b9d0e2f43": 7,
            "qwen-code:0e5f1a2b-77c3-4d19-8e6a-3b2c1d0f9e8a": 2,
            "qwen-code:5a1c3e7b-2d4f-4a6b-8c0e-1f3a5c7e9b2d": 7,
        },
        {"read_file", "edit"},
        {"/home/ada/ml-pipeline", "/home/ada/notes", None},
        (
            "qwen-code:d2a7c9e4-3b18-4f60-8a5e-7c1b9d0e2f43",
            ["user", "assistant", "tool", "assistant", "user", "assistant", "tool"],
        ),
    ),
    "openclaw": (
        {"openclaw:8f3e2d1c-0b9a-4876-9543-210fedcba987": 4},
        {"memory_write"},
        {"/home/ada/.openclaw/workspace"},
        ("openclaw:8f3e2d1c-0b9a-4876-9543-210fedcba987", ["user", "assistant", "tool", "assistant"]),
    ),
    "pi": (
        {"pi:4e1f7a2c-9b3d-4c8e-a6f0-2d5b8c1e9a73": 6, "pi:11111111-2222-4333-8444-555555555555": 2},
        {"read"},
        {"/home/ada/blog"},
        ("pi:4e1f7a2c-9b3d-4c8e-a6f0-2d5b8c1e9a73", ["user", "assistant", "tool", "assistant", "tool", "user"]),
    ),
    "hermes": (
        {"hermes:20261109_081500_a1b2c3": 6, "hermes:20261109_082000_sub001": 2},
        {"web_search"},
        {"/home/ada/garden-planner"},
        ("hermes:20261109_081500_a1b2c3", ["user", "assistant", "tool", "assistant", "user", "assistant"]),
    ),
    "workbuddy": (
        {"workbuddy:9a7c3e1f-5b2d-4e8a-b6c4-0f2e4a6c8e10": 4},
        {"Write"},
        {"/Users/ada/WorkBuddy/Claw"},
        ("workbuddy:9a7c3e1f-5b2d-4e8a-b6c4-0f2e4a6c8e10", ["user", "assistant", "tool", "assistant"]),
    ),
    "codebuddy": (
        {
            "codebuddy:5b9d2e71-4c3a-4f8e-9a1b-6d0c2e4f8a13": 4,
            "codebuddy:5b9d2e71-4c3a-4f8e-9a1b-6d0c2e4f8a13/agent-7f3e": 2,
        },
        {"Grep"},
        {"/home/ada/crm.api"},
        ("codebuddy:5b9d2e71-4c3a-4f8e-9a1b-6d0c2e4f8a13", ["user", "assistant", "tool", "assistant"]),
    ),
    "deepseek-harness": (
        {
            "deepseek-harness:session-2f6b1d9e-8c4a-4e3f-b5a7-1d0e9c8b7a65": 6,
            "deepseek-harness:session-7c3d5e1f-0a2b-4c6d-8e9f-1a2b3c4d5e6f": 2,
            "deepseek-harness:4d2e8f1a-6b3c-4a9d-8e7f-5c1b0a9d8e7f": 2,
        },
        {"bash"},
        {"/home/ada/quant"},
        (
            "deepseek-harness:session-2f6b1d9e-8c4a-4e3f-b5a7-1d0e9c8b7a65",
            ["user", "assistant", "tool", "assistant", "user", "assistant"],
        ),
    ),
    "gemini-cli": (
        {
            "gemini-cli:3f9a2c11-8d7e-4b6a-9c5d-1e2f3a4b5c6d": 4,
            "gemini-cli:7b2e9d03-1c4a-4e8f-a2b6-0d9c8e7f6a51": 5,
            "gemini-cli:c41d": 2,
        },
        {"write_file", "search_file_content"},
        {"/home/ada/notes-app"},
        ("gemini-cli:7b2e9d03-1c4a-4e8f-a2b6-0d9c8e7f6a51", ["user", "assistant", "tool", "user", "assistant"]),
    ),
    "cline": (
        {
            "cline:1795000000000": 6,
            "roo-code:0f8e7d6c-5b4a-4392-8170-6e5d4c3b2a19": 2,
            "roo-code:3c5e7a9b-1d2f-4a6c-8e0b-2d4f6a8c0e1f": 2,  # its project from the editor's state.vscdb
        },
        {"read_file"},
        {"/home/ada/invoices", "/home/ada/docs-site", "/home/ada/recipes"},
        ("cline:1795000000000", ["user", "assistant", "tool", "assistant", "user", "assistant"]),
    ),
    "aider": ({}, set(), set(), ("", [])),  # paths depend on where the fixture lands: checked in its own test
}

NO_TIMES = {
    "cursor:ag-91c2e7d4",
    "cursor:7d1e5a3c-2b4f-4e6a-8c0d-9f1b3e5a7c2d",
    "codex:5973b6c0-94b8-487b-a530-2aeb6098ae0e",
}


def _import(tmp_path: Path, name: str) -> tuple[Any, Any, Any]:
    memory, hub = open_hub(tmp_path, [name])
    return memory, hub, hub.import_([name])


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED if n != "aider"))
def test_source_imports_its_fixtures(tmp_path: Path, name: str) -> None:
    sessions, tools, projects, (one, roles) = EXPECTED[name]
    memory, hub, report = _import(tmp_path, name)
    try:
        assert report.errors == []
        found = turns_by_session(memory)
        assert {k: len(v) for k, v in found.items()} == sessions
        assert [m["role"] for m in found[one]] == roles
        eps = episodes(memory)
        assert {c["name"] for e in eps for m in e["messages"] for c in m["tool_calls"]} == tools
        assert {e["scope"]["project"] for e in eps} == projects
        assert {e["metadata"]["hub"]["tool"] for e in eps} <= {name, "roo-code"}
        for session, messages in found.items():
            if session not in NO_TIMES:
                assert all(m["timestamp"] for m in messages), session
            for m in messages:
                assert m["role"] in ("user", "assistant", "tool")
                if m["role"] == "tool":
                    assert m["name"] and m["content"]
        again = hub.import_([name])
        assert again.turns == 0 and again.episodes == 0
        assert len(episodes(memory)) == len(eps)
    finally:
        hub.close()
        memory.close()


def _texts(memory: Any, session: str) -> list[str]:
    return [m["content"] for m in turns_by_session(memory)[session]]


def test_claude_code_merges_streamed_rows_and_follows_the_active_branch(tmp_path: Path) -> None:
    memory, hub, report = _import(tmp_path, "claude-code")
    texts = _texts(memory, "claude-code:0b6f2c1e-5d3a-4c7b-9e21-7a1f0c9d4e11")
    joined = "\n".join(texts)
    assert "Rewriting the shop in Go" not in joined and "rewrite it in Go" not in joined  # the abandoned branch
    assert "No response requested" not in joined  # a <synthetic> message
    assert "CLAUDE.md says" not in joined and "ada prefers small commits" not in joined  # reminders, own digest
    assert "Caveat" not in joined and "/clear" not in joined
    assert "This session is being continued" not in joined  # the compaction summary
    assert texts[0].startswith("The checkout page crashes when the cart is empty")
    first_reply = turns_by_session(memory)["claude-code:0b6f2c1e-5d3a-4c7b-9e21-7a1f0c9d4e11"][1]
    assert first_reply["content"] == "Let me look at the checkout view."
    assert [c["name"] for c in first_reply["tool_calls"]] == ["Read"]  # three rows, one message, one call
    assert report.sources["claude-code"].skipped == {"future-telemetry": 1}
    sub = episodes(memory)
    assert any(e["metadata"]["hub"].get("sidechain") for e in sub)
    hub.close()
    memory.close()


def test_partial_last_line_is_imported_once_it_is_complete(tmp_path: Path) -> None:
    memory, hub, _ = _import(tmp_path, "claude-code")
    path = next(hub.env.paths["claude-code"][0].glob("projects/*/*.jsonl"))
    with path.open("a") as fh:
        fh.write(' lint config"},"timestamp":"2026-11-03T09:11:00.000Z","cwd":"/home/ada/shop"}\n')
    report = hub.import_(["claude-code"])
    assert report.turns == 1
    assert _texts(memory, "claude-code:0b6f2c1e-5d3a-4c7b-9e21-7a1f0c9d4e11")[-1] == "and the lint config"
    assert hub.import_(["claude-code"]).turns == 0
    hub.close()
    memory.close()


def test_codex_drops_instructions_and_duplicate_ui_events(tmp_path: Path) -> None:
    memory, hub, report = _import(tmp_path, "codex")
    texts = _texts(memory, "codex:019a4f2e-7c11-7d20-b3a9-5e0c2f8a1d64")
    assert sum("Terraform state lock" in t for t in texts) == 1  # response_item and event_msg: one turn
    assert not any("destroy" in t for t in texts)  # undone by thread_rolled_back
    assert not any("AGENTS.md" in t or "environment_context" in t or "permissions" in t for t in texts)
    assert texts[2].strip() == "Terraform state has been successfully unlocked!"
    assert report.sources["codex"].skipped == {"response_item/tool_search_call": 1}
    pages = _texts(memory, "codex:019ac001-2b3c-7d4e-8f50-61728394a5b6")  # two .jsonl.zst pages of one thread
    assert pages[0].startswith("Upgrade the Helm chart") and pages[-1] == "Chart version is now 2.0.0."
    legacy = _texts(memory, "codex:5973b6c0-94b8-487b-a530-2aeb6098ae0e")
    assert legacy[0].startswith("Rename the fetch_rates helper") and "Be terse" not in "".join(legacy)
    hub.close()
    memory.close()


def test_gemini_applies_rewinds_and_last_write_wins(tmp_path: Path) -> None:
    memory, hub, _ = _import(tmp_path, "gemini-cli")
    texts = _texts(memory, "gemini-cli:7b2e9d03-1c4a-4e8f-a2b6-0d9c8e7f6a51")
    assert "Delete the whole sync folder." not in texts and "Deleting src/sync." not in texts
    assert "Automerge is already a dependency." in texts  # the later copy of message g1
    assert not any("Rewound" in t or "Checkpoint saved" in t for t in texts)
    eps = [e for e in episodes(memory) if e["scope"]["session_id"].endswith("7b2e9d03-1c4a-4e8f-a2b6-0d9c8e7f6a51")]
    assert eps[0]["metadata"]["hub"]["title"] == "CRDT sync with Automerge"
    hub.close()
    memory.close()


def test_dsh_reads_the_newest_generation_and_drops_the_fork_seed(tmp_path: Path) -> None:
    memory, hub, _ = _import(tmp_path, "deepseek-harness")
    main = _texts(memory, "deepseek-harness:session-2f6b1d9e-8c4a-4e3f-b5a7-1d0e9c8b7a65")
    assert "Now try a 12-1 lookback instead." in main  # only in the v4 generation
    assert not any("workspace instructions" in t or "Updated instructions" in t for t in main)
    assert "This line was being written" not in " ".join(main)  # the torn frame
    fork = _texts(memory, "deepseek-harness:session-7c3d5e1f-0a2b-4c6d-8e9f-1a2b3c4d5e6f")
    assert fork == ["Fork: what about a long-short version?", "Long-short momentum halves the drawdown to -12%."]
    sub = [e for e in episodes(memory) if e["scope"]["session_id"].endswith("4d2e8f1a-6b3c-4a9d-8e7f-5c1b0a9d8e7f")]
    assert sub[0]["metadata"]["hub"]["sidechain"] is True
    hub.close()
    memory.close()


def test_dsh_v0_generation_with_packed_rows_and_plugin_context(tmp_path: Path) -> None:
    memory, hub = open_hub(tmp_path, ["deepseek-harness"])
    root = hub.env.paths["deepseek-harness"][0]
    for path in root.rglob("session.v4.jsonl.zstd"):
        path.unlink()
    report = hub.import_(["deepseek-harness"])
    main = _texts(memory, "deepseek-harness:session-2f6b1d9e-8c4a-4e3f-b5a7-1d0e9c8b7a65")
    assert main[0].startswith("Backtest the momentum strategy") and len(main) == 4
    assert report.sources["deepseek-harness"].skipped == {"quantum/flux": 1}
    hub.close()
    memory.close()


def test_cursor_never_reads_auth_rows_or_encryption_keys(tmp_path: Path) -> None:
    memory, hub, _ = _import(tmp_path, "cursor")
    memory.close()
    blob = store_bytes(tmp_path)
    assert b"CURSOR-AUTH-ROW-MUST-NOT-LEAK" not in blob and b"ENCRYPTION-KEY-MUST-NOT-LEAK" not in blob
    hub.close()


def test_workbuddy_keeps_only_user_queries_and_honours_deletions(tmp_path: Path) -> None:
    memory, hub, report = _import(tmp_path, "workbuddy")
    texts = _texts(memory, "workbuddy:9a7c3e1f-5b2d-4e8a-b6c4-0f2e4a6c8e10")
    assert texts[0] == "Make a 5-slide deck on our Q4 churn: it fell from 4.1% to 3.2%."
    assert not any("Not signed in" in t or "stray" in t or "Automation finished" in t for t in texts)
    assert not any("resignation" in t for s in turns_by_session(memory).values() for t in (m["content"] for m in s))
    eps = episodes(memory)
    assert eps[0]["metadata"]["hub"]["title"] == "Churn review for the board"  # the rename in workbuddy.db
    assert report.errors == []
    hub.close()
    memory.close()


def test_aider_reads_sessions_prompts_and_replies(tmp_path: Path) -> None:
    memory, hub, report = _import(tmp_path, "aider")
    found = turns_by_session(memory)
    assert sorted(len(v) for v in found.values()) == [2, 4]
    first = min(found.values(), key=len)
    assert [m["role"] for m in first] == ["user", "assistant"]
    longer = max(found.values(), key=len)
    assert (
        longer[0]["content"]
        == "The bot posts the forecast at 07:00 UTC; change it to 06:30 Europe/Berlin.\nKeep the cron in config.yaml."
    )
    assert ">>>>>>> REPLACE" in longer[1]["content"]  # edit blocks are part of the reply, not notices
    assert not any("pytest" in m["content"] or "Aider v0" in m["content"] for m in longer)
    assert all(e["scope"]["project"].endswith("weather-bot") for e in episodes(memory))
    assert report.sources["aider"].turns == 6
    hub.close()
    memory.close()


def test_hermes_stitches_compression_chains_and_keeps_delegates_apart(tmp_path: Path) -> None:
    memory, hub, _ = _import(tmp_path, "hermes")
    texts = _texts(memory, "hermes:20261109_081500_a1b2c3")
    assert "Then plan tomato seedlings six weeks before that." in texts  # from the continuation session
    assert not any("background review" in t or "Summary of earlier" in t or "January" in t for t in texts)
    hub.close()
    memory.close()


def test_codex_rollout_copied_by_a_revert_is_not_imported_twice(tmp_path: Path) -> None:
    memory, hub, first = _import(tmp_path, "codex")
    assert first.turns == 14
    original = next(hub.env.paths["codex"][0].glob("sessions/2026/11/04/rollout-*.jsonl"))
    copy = original.with_name(original.stem + "_0199bbbb-0000-7000-8000-000000000001.jsonl")
    copy.write_bytes(original.read_bytes())
    assert hub.import_(["codex"]).turns == 0
    hub.close()
    memory.close()


def test_opencode_reads_session_message_rows_honours_revert_and_collapses_migrated_rows(tmp_path: Path) -> None:
    memory, hub, report = _import(tmp_path, "opencode")
    sentry = _texts(memory, "opencode:ses_5e2b7d11affeM3nBvCx8zL0qWe")
    assert "Actually use Rollbar." not in sentry  # undone by the session's revert
    assert sum(t.startswith("Report errors to Sentry") for t in sentry) == 1  # v1 row and its 2.0 copy
    v2 = turns_by_session(memory)["opencode:ses_6a0f3c2e1ffeVb9nM2xZq7wE4r"]
    assert [m["role"] for m in v2] == ["user", "assistant", "tool", "assistant", "tool"]
    assert v2[-1]["name"] == "shell" and v2[-1]["content"] == "48 passed"
    assert report.sources["opencode"].boilerplate >= 2  # a synthetic JSON part and the 2.0 compaction row
    hub.close()
    memory.close()


def test_gemini_checkpoint_rebuilds_the_conversation(tmp_path: Path) -> None:
    memory, hub = open_hub(tmp_path, ["gemini-cli"])
    chats = next(hub.env.paths["gemini-cli"][0].glob("tmp/*/chats"))
    lines = [
        {"sessionId": "cp-1", "projectHash": "x", "startTime": "2026-11-29T10:00:00.000Z"},
        {"id": "a", "timestamp": "2026-11-29T10:00:01.000Z", "type": "user", "content": "First idea."},
        {
            "$set": {
                "messages": [{"id": "b", "timestamp": "2026-11-29T10:00:02.000Z", "type": "user", "content": "Kept."}]
            }
        },
        {"id": "c", "timestamp": "2026-11-29T10:00:03.000Z", "type": "gemini", "content": "Kept too."},
    ]
    (chats / "session-2026-11-29T10-00-cp1.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    hub.import_(["gemini-cli"])
    assert _texts(memory, "gemini-cli:cp-1") == ["Kept.", "Kept too."]
    hub.close()
    memory.close()


def test_claude_code_legacy_subagent_file_beside_the_session(tmp_path: Path) -> None:
    memory, hub = open_hub(tmp_path, ["claude-code"])
    project = next(hub.env.paths["claude-code"][0].glob("projects/*"))
    record = {"type": "user", "uuid": "l1", "parentUuid": None, "sessionId": "0b6f2c1e-5d3a-4c7b-9e21-7a1f0c9d4e11",
              "isSidechain": True, "timestamp": "2025-12-01T10:00:00.000Z", "cwd": "/home/ada/shop",
              "message": {"role": "user", "content": "List the checkout templates."}}  # fmt: skip
    (project / "agent-3f2e1d0c.jsonl").write_text(json.dumps(record) + "\n")
    hub.import_(["claude-code"])
    session = "claude-code:0b6f2c1e-5d3a-4c7b-9e21-7a1f0c9d4e11/agent-3f2e1d0c"
    assert _texts(memory, session) == ["List the checkout templates."]
    hub.close()
    memory.close()


def test_cline_cli_tasks_under_the_shared_data_dir(tmp_path: Path) -> None:
    from memscribe.hub import HubEnv
    from memscribe.hub.sources.cline import ClineSource

    data = tmp_path / "cline-data"
    task = data / "tasks" / "1796000000000"
    task.mkdir(parents=True)
    history = [{"role": "user", "content": "<task>Tag the release v3.2.0.</task>"},
               {"role": "assistant", "content": "Tagged v3.2.0 and pushed the tag."}]  # fmt: skip
    (task / "api_conversation_history.json").write_text(json.dumps(history))
    (data / "state").mkdir()
    (data / "state" / "taskHistory.json").write_text(
        json.dumps([{"id": "1796000000000", "cwdOnTaskInitialization": "/home/ada/lib"}])
    )
    env = HubEnv(home=tmp_path / "home", environ={"CLINE_DATA_DIR": str(data)})
    (item,) = list(ClineSource().discover(env))
    (session,) = ClineSource().read(item).sessions
    assert session.cwd == "/home/ada/lib" and session.turns[0].text == "Tag the release v3.2.0."


def test_aider_keeps_quoted_lines_inside_code_blocks(tmp_path: Path) -> None:
    from memscribe.hub import SourceFile
    from memscribe.hub.sources.aider import AiderSource

    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "\n# aider chat started at 2026-05-18 10:00:00\n\n> Tokens: 1.2k sent\n#### add a guard clause\n\n"
        "Here is the change:\n```go\nif x == nil {\n> not a banner, a diff quote\n}\n```\nDone.\n"
    )
    (session,) = AiderSource().read(SourceFile("aider", path)).sessions
    assert [t.role for t in session.turns] == ["user", "assistant"]
    assert "> not a banner, a diff quote" in session.turns[1].text and session.turns[1].text.endswith("Done.")


def test_qwen_mid_turn_messages_are_the_persons_typed_words(tmp_path: Path) -> None:
    memory, hub, _ = _import(tmp_path, "qwen-code")
    try:
        found = turns_by_session(memory)["qwen-code:5a1c3e7b-2d4f-4a6b-8c0e-1f3a5c7e9b2d"]
        users = [m["content"] for m in found if m["role"] == "user"]
        assert users == ["Turn this week's notes into a todo list.", "Skip anything tagged #someday.",
                         "And sort it by due date."]  # fmt: skip
        assert not any("referenced files" in m["content"] or "Background agent" in m["content"] for m in found)
    finally:
        hub.close()
        memory.close()


def test_openclaw_reads_a_json5_session_index(tmp_path: Path) -> None:
    env = fixture_env(tmp_path, ["openclaw"])
    index = env.paths["openclaw"][0] / "agents" / "main" / "sessions" / "sessions.json"
    index.write_text(
        "// written by the gateway\n{\n  'agent:main:telegram:dm:48151623': {\n"
        "    sessionId: '8f3e2d1c-0b9a-4876-9543-210fedcba987', updatedAt: 1794642000000,\n"
        "    channel: 'telegram', chatType: 'direct', /* routing */ displayName: 'Ada (Telegram)',\n  },\n}\n"
    )
    memory, hub = open_hub(tmp_path, [], env=env)
    try:
        assert hub.import_(["openclaw"]).errors == []
        (meta,) = {json.dumps(e["metadata"]["hub"], sort_keys=True) for e in episodes(memory)}
        hub_meta = json.loads(meta)
        assert hub_meta["channel"] == "telegram" and hub_meta["chatType"] == "direct"
        assert hub_meta["title"] == "Ada (Telegram)"
        assert hub_meta["sessionKey"] == "agent:main:telegram:dm:48151623"
    finally:
        hub.close()
        memory.close()


def _dsh_session(root: Path, name: str, version: int, events: list[dict[str, Any]], **header: Any) -> None:
    folder = root / "sessions" / "--home-ada-quant--" / name
    folder.mkdir(parents=True)
    head = {"type": "session", "version": version, "id": name, "cwd": "/home/ada/quant", "createdAt": 1795300000000}
    lines = [head | header] + [{"seq": i, "time": 1795300000000 + i * 1000, **e} for i, e in enumerate(events)]
    (folder / f"session.v{version}.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")


def _dsh_exchange(prompt: str, *, v4_tool: bool = False) -> list[dict[str, Any]]:
    call = {"type": "tool-call", "id": "c1", "name": "bash", "arguments": '{"command": "pytest -q"}'}
    result: dict[str, Any] = (
        {
            "role": "tool",
            "toolCallId": "c1",
            "content": [{"type": "text", "text": "3 passed"}],
            "source": {"kind": "tool"},
        }
        if v4_tool
        else {
            "id": "r1",
            "role": "user",
            "source": {"kind": "tool", "callId": "c1"},
            "content": [{"type": "tool-result", "toolCallId": "c1", "content": [{"type": "text", "text": "3 passed"}]}],
        }
    )
    return [
        {
            "type": "user/message",
            "data": {
                "id": "u1",
                "role": "user",
                "source": {"kind": "user"},
                "content": [{"type": "text", "text": prompt}],
            },
        },
        {
            "type": "assistant/message",
            "data": {
                "turn": 1,
                "step": 1,
                "message": {"id": "a1", "role": "assistant", "content": [call], "source": {"kind": "model"}},
            },
        },
        {"type": "tool/result", "data": {"turn": 1, "step": 1, "message": result}},
        {
            "type": "assistant/message",
            "data": {
                "turn": 1,
                "step": 2,
                "message": {"id": "a2", "role": "assistant", "content": [{"type": "text", "text": "All green."}]},
            },
        },
    ]


def test_deepseek_harness_generations_v1_to_v3_and_a_newer_one_refused(tmp_path: Path) -> None:
    from memscribe.hub import HubEnv

    root = tmp_path / "dsh"
    packed = {
        "type": "text-chunks",
        "seq0": 9,
        "time0": 1,
        "data": {"turn": 1, "step": 2, "index": 0, "dt": [1, 1, 1], "texts": ["All", " gre", "en."]},
    }
    seed = _dsh_exchange("a parent's prompt, replayed as the seed")[:1]
    _dsh_session(root, "session-v1", 1, seed + _dsh_exchange("Run the v1 tests.") + [packed], seedLength=1)
    _dsh_session(root, "session-v2", 2, _dsh_exchange("Run the v2 tests."))
    developer = {
        "type": "developer/message",
        "data": {
            "id": "d1",
            "role": "developer",
            "source": {"kind": "runtime"},
            "content": [{"type": "text", "text": "Sandbox: on."}],
        },
    }
    _dsh_session(root, "session-v3", 3, [developer, *_dsh_exchange("Run the v3 tests.", v4_tool=True)])
    _dsh_session(root, "session-v9", 9, _dsh_exchange("From the future."))
    memory, hub = open_hub(tmp_path, [], env=HubEnv(home=tmp_path, paths={"deepseek-harness": (root,)}))
    try:
        report = hub.import_(["deepseek-harness"])
        (error,) = report.errors
        assert "session-v9" in error["path"] and "v9 is newer" in error["error"]
        found = turns_by_session(memory)
        for version in (1, 2, 3):
            messages = found[f"deepseek-harness:session-v{version}"]
            assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"], version
            assert messages[0]["content"] == f"Run the v{version} tests."
            assert messages[2]["name"] == "bash" and messages[2]["content"] == "3 passed"
        assert "deepseek-harness:session-v9" not in found
    finally:
        hub.close()
        memory.close()
