"""The JSON/JSONC/JSON5 span editor behind `hub install`: one member or item is added, everything else is
kept byte for byte, and the result parses with an independent parser (json5)."""

from __future__ import annotations

import json

import json5
import pytest

from memscribe.errors import InvalidInput
from memscribe.hub.feed import jsonc

CASES = {
    "empty object": "{}",
    "trailing comma": '{\n  "a": 1,\n}\n',
    "tabs and comments": '{\n\t// lead\n\t"a": 1 /* tail */\n}',
    "one line": '{"a": {"b": [1, 2]}, "c": "x"}',
    "strings with syntax": '{\n  "url": "http://x/*not a comment*/", "s": "{[,]}\\"//"\n}\n',
    "json5 bare keys": "// top\n{ mcp: { servers: {} }, name: 'it''s', }\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_set_member_keeps_the_rest(name: str) -> None:
    text = CASES[name].replace("'it''s'", "'its'")
    before = json5.loads(text)
    out = jsonc.set_member(text, ["mcpServers", "memscribe"], {"command": "/x/memscribe", "args": ["mcp"]})
    after = json5.loads(out)
    assert after.pop("mcpServers") == {"memscribe": {"command": "/x/memscribe", "args": ["mcp"]}}
    assert after == before
    for comment in ("// lead", "/* tail */", "// top"):
        assert (comment in text) == (comment in out)
    assert jsonc.set_member(out, ["mcpServers", "memscribe"], {"command": "/x/memscribe", "args": ["mcp"]}) == out


def test_nested_path_and_replacing_a_changed_value() -> None:
    text = '{\n  "mcp": {\n    "servers": {\n      "other": {"command": "o"}\n    }\n  }\n}\n'
    out = jsonc.set_member(text, ["mcp", "servers", "memscribe"], {"command": "/a"})
    assert json.loads(out)["mcp"]["servers"] == {"other": {"command": "o"}, "memscribe": {"command": "/a"}}
    moved = jsonc.set_member(out, ["mcp", "servers", "memscribe"], {"command": "/b"})
    assert json.loads(moved)["mcp"]["servers"]["memscribe"] == {"command": "/b"}
    assert moved.startswith('{\n  "mcp": {\n    "servers": {\n      "other": {"command": "o"},')


def test_append_item_is_idempotent_and_keeps_existing_items() -> None:
    text = '{"hooks": {"Stop": [{"command": "a"}]}}'
    out = jsonc.append_item(text, ["hooks", "Stop"], {"command": "b"})
    assert json.loads(out)["hooks"]["Stop"] == [{"command": "a"}, {"command": "b"}]
    assert jsonc.append_item(out, ["hooks", "Stop"], {"command": "b"}) == out
    fresh = jsonc.append_item(None, ["hooks", "Start"], {"command": "c"})
    assert json.loads(fresh) == {"hooks": {"Start": [{"command": "c"}]}}


@pytest.mark.parametrize("bad", ['{"a": }', '{"a": 1', "[1, 2]", '{"a": 1} x', '{"a": "open}', "{/* open"])
def test_bad_documents_are_refused(bad: str) -> None:
    with pytest.raises(InvalidInput):
        jsonc.set_member(bad, ["mcpServers", "memscribe"], {})


def test_a_non_object_on_the_path_is_refused() -> None:
    with pytest.raises(InvalidInput, match="not an object"):
        jsonc.set_member('{"mcpServers": []}', ["mcpServers", "memscribe"], {})
    with pytest.raises(InvalidInput, match="not an array"):
        jsonc.append_item('{"hooks": {"Stop": {}}}', ["hooks", "Stop"], {})
