"""The scene router: chat with no model call, coding and working by rules, the model only when rules cannot tell."""

from __future__ import annotations

from test_scenes_support import assistant, call, episode, tool

from memscribe.errors import ModelOutputError
from memscribe.scenes import route_scene
from memscribe.testing import FunctionChat, ScriptedChat


def test_no_tool_calls_is_chat_with_zero_model_calls() -> None:
    chat = ScriptedChat()  # no replies queued: any call would raise
    ep = episode(
        [{"role": "user", "content": "I moved to Sydney last week."}, {"role": "assistant", "content": "Nice!"}]
    )
    decision = route_scene(ep, chat)
    assert (decision.scene, decision.reason) == ("chat", "no tool calls")
    assert chat.calls == [] and not decision.asked_model


def test_str_replace_on_a_python_file_is_coding() -> None:
    edit = call("str_replace_based_edit_tool", command="str_replace", path="app/config.py", old_str="a", new_str="b")
    decision = route_scene(episode([{"role": "user", "content": "fix it"}, assistant(edit), tool("ok")]))
    assert decision.scene == "coding"
    assert "app/config.py" in decision.reason


def test_apply_patch_and_unified_diff_are_coding() -> None:
    patch = "*** Begin Patch\n*** Update File: src/x.rs\n@@ fn main\n-a\n+b\n*** End Patch"
    assert route_scene(episode([assistant(call("apply_patch", input=patch))])).scene == "coding"
    diff = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    pasted = [{"role": "user", "content": f"apply this:\n{diff}"}, assistant(call("lookup", q="x"))]
    assert route_scene(episode(pasted)).scene == "coding"


def test_git_through_bash_is_coding() -> None:
    ep = episode([assistant(call("bash", command="git commit -am 'fix parser'")), tool("[main 1a2b] fix parser")])
    assert route_scene(ep).scene == "coding"


def test_web_tools_are_working() -> None:
    ep = episode(
        [
            {"role": "user", "content": "Compare the pricing of three vector databases."},
            assistant(call("web_search", query="qdrant pricing"), call("fetch", url="https://qdrant.tech/pricing")),
            tool("results"),
            tool("<html>pricing</html>"),
        ]
    )
    decision = route_scene(ep)
    assert decision.scene == "working"
    assert "web tool" in decision.reason


def test_ambiguous_tools_ask_the_model_once() -> None:
    chat = FunctionChat(lambda messages: {"scene": "chat"})
    ep = episode([{"role": "user", "content": "Will it rain tomorrow?"}, assistant(call("get_weather", city="Oslo"))])
    decision = route_scene(ep, chat)
    assert decision.scene == "chat" and decision.asked_model
    assert len(chat.calls) == 1
    assert "get_weather" in chat.calls[0].last_user
    assert decision.usage is not None and decision.usage.prompt_version == "scene-router-1"


def test_ambiguous_without_a_model_or_with_a_failing_one_falls_back() -> None:
    ep = episode([assistant(call("get_weather", city="Oslo"))])
    assert route_scene(ep).scene == "working"
    failing = ScriptedChat(ModelOutputError("bad json"))
    decision = route_scene(ep, failing)
    assert decision.scene == "working" and "failed" in decision.reason


def test_explicit_scene_wins() -> None:
    ep = episode([{"role": "user", "content": "hello"}], scene="working")
    assert route_scene(ep).scene == "working"
