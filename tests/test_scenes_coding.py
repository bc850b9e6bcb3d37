"""The diff chain: revisions per file/symbol from edit tool calls, no model, searchable by why."""

from __future__ import annotations

from typing import Any

from test_scenes_support import assistant, call, scene_mem, tool

from memscribe import Memory
from memscribe.scenes import revision_chain
from memscribe.scenes.diffs import parse_apply_patch, parse_unified_diff
from memscribe.scenes.symbols import changes_from_edits
from memscribe.stores.ports import RecordFilter

__all__ = ["scene_mem"]

OLD_CONFIG = "def parse_config(path):\n    return json.load(open(path))\n\n\ndef load():\n    return 1\n"
PATCH = """*** Begin Patch
*** Update File: app/main.py
@@ def run():
-    cfg = parse_config(PATH)
+    cfg = Settings.from_env()
*** Add File: app/settings.py
+class Settings:
+    pass
*** End Patch"""


def _coding(mem: Memory, *messages: dict[str, Any], session: str = "s1") -> dict[str, Any]:
    return mem.add(list(messages), user_id="u1", session_id=session)


def _revisions(mem: Memory) -> list[dict[str, Any]]:
    rows = mem.list(user_id="u1", filters={"scenes": "coding"})["results"]
    return [r for r in rows if r["metadata"].get("kind") == "revision"]


def test_str_replace_and_apply_patch_build_revisions(scene_mem: Memory) -> None:
    remove = call(
        "str_replace_based_edit_tool", command="str_replace", path="app/config.py", old_str=OLD_CONFIG, new_str=""
    )
    _coding(
        scene_mem,
        {"role": "user", "content": "Drop the legacy JSON config loader, settings come from the environment now."},
        assistant(remove, call("apply_patch", input=PATCH)),
        tool("The file app/config.py has been edited."),
        tool("Done!"),
        {"role": "assistant", "content": "Removed the loader and added Settings."},
    )
    by_symbol = {(r["metadata"]["file"], r["metadata"]["symbol"]): r for r in _revisions(scene_mem)}
    removed = by_symbol[("app/config.py", "parse_config")]
    assert removed["metadata"]["change"] == "removed" and removed["metadata"]["symbol_kind"] == "function"
    assert removed["memory"].startswith("Removed function parse_config from app/config.py in session s1")
    assert "legacy JSON config loader" in removed["memory"]
    assert removed["metadata"]["session_slot"] == "session:s1/task"
    assert by_symbol[("app/main.py", "run")]["metadata"]["change"] == "modified"
    assert by_symbol[("app/settings.py", None)]["memory"].startswith("Created file app/settings.py")
    assert removed["metadata"]["revision"] == 1 and removed["metadata"]["previous_revision"] is None
    hits = scene_mem.search("why was parse_config removed?", user_id="u1", limit=3)["results"]
    assert hits[0]["id"] == removed["id"]


def test_a_later_session_extends_the_chain(scene_mem: Memory) -> None:
    def edit(old: str, new: str, session: str) -> None:
        change = call("Edit", file_path="app/util.py", old_string=old, new_string=new)
        _coding(
            scene_mem,
            {"role": "user", "content": f"tweak slugify ({session})"},
            assistant(change),
            tool("ok"),
            session=session,
        )

    edit("def slugify(s):\n    return s.lower()", "def slugify(s):\n    return s.lower().strip()", "s1")
    edit("def slugify(s):\n    return s.lower().strip()", "def slugify(s):\n    return s.strip().lower()", "s2")
    store = scene_mem._core.store
    chain = revision_chain(store.query(("default", "u1"), RecordFilter()), "app/util.py", "slugify")
    assert [r.metadata["revision"] for r in chain] == [1, 2]
    assert chain[1].metadata["previous_revision"] == chain[0].id
    assert chain[1].metadata["session"] == "s2"


def test_failed_edits_are_not_recorded(scene_mem: Memory) -> None:
    bad = call("Edit", file_path="app/x.py", old_string="def gone():\n    pass", new_string="")
    good = call("Edit", file_path="app/y.py", old_string="def keep():\n    pass", new_string="")
    _coding(
        scene_mem,
        {"role": "user", "content": "clean up"},
        assistant(bad, good),
        tool("Error: String to replace not found in file."),
        tool("ok"),
    )
    files = {r["metadata"]["file"] for r in _revisions(scene_mem)}
    assert files == {"app/y.py"}


def test_enclosing_symbol_comes_from_an_earlier_read() -> None:
    from memscribe.scenes.diffs import Edit

    content = "class Parser:\n    def feed(self, data):\n        self.buf += data\n        return len(data)\n"
    edit = Edit("p.py", "        return len(data)", "        return len(self.buf)", "Edit", 1)
    (change,) = changes_from_edits([edit], {"p.py": content})
    assert (change.symbol, change.symbol_kind, change.kind) == ("feed", "method", "modified")


def test_unified_diff_with_created_and_deleted_files() -> None:
    diff = (
        "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+def hello():\n+    return 1\n"
        "--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x = 1\n"
        "--- a/lib.py\n+++ b/lib.py\n@@ -10,2 +10,2 @@ def compute(x):\n-    return x\n+    return x * 2\n"
    )
    edits = parse_unified_diff(diff)
    kinds = {(c.file, c.symbol, c.kind) for c in changes_from_edits(edits)}
    assert kinds == {("new.py", None, "added"), ("old.py", None, "removed"), ("lib.py", "compute", "modified")}


def test_apply_patch_delete_file() -> None:
    edits = parse_apply_patch("*** Begin Patch\n*** Delete File: legacy/old.py\n*** End Patch")
    assert [(e.file, e.deleted_file) for e in edits] == [("legacy/old.py", True)]
