"""Structural edits of JSON / JSONC / simple JSON5 text that keep everything else byte for byte.

The text is tokenized (strings, comments, punctuation, literals) and parsed into nodes that know their spans;
an edit inserts or replaces exactly one member or array item and leaves comments, key order, indentation and
trailing commas of the rest of the file as they were. Values written are plain JSON.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from memscribe.errors import InvalidInput

__all__ = ["append_item", "get_path", "set_member"]

_PUNCT = set("{}[]:,")
_LITERAL = re.compile(r"[^\s{}\[\]:,/\"']+")


@dataclass
class _Tok:
    kind: str  # one of {}[]:, or "str" / "lit"
    start: int
    end: int


@dataclass
class _Node:
    kind: str  # "obj", "arr", "val"
    start: int
    end: int
    members: list[tuple[str, _Tok, _Node]] = field(default_factory=list)
    items: list[_Node] = field(default_factory=list)
    commas: list[int] = field(default_factory=list)  # positions of separating / trailing commas


def _string_end(text: str, i: int) -> int:
    quote, j = text[i], i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == quote:
            return j + 1
        j += 1
    raise InvalidInput("unterminated string in JSON")


def _tokens(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c.isspace() or c == "\ufeff":
            i += 1
        elif text.startswith("//", i):
            nl = text.find("\n", i)
            i = len(text) if nl < 0 else nl
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            if close < 0:
                raise InvalidInput("unterminated comment in JSON")
            i = close + 2
        elif c in _PUNCT:
            out.append(_Tok(c, i, i + 1))
            i += 1
        elif c in "\"'":
            end = _string_end(text, i)
            out.append(_Tok("str", i, end))
            i = end
        else:
            m = _LITERAL.match(text, i)
            if not m:
                raise InvalidInput(f"unexpected character {c!r} in JSON at offset {i}")
            out.append(_Tok("lit", i, m.end()))
            i = m.end()
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text, self.toks, self.pos = text, _tokens(text), 0

    def peek(self) -> _Tok:
        if self.pos >= len(self.toks):
            raise InvalidInput("JSON ends early")
        return self.toks[self.pos]

    def take(self, kind: str | None = None) -> _Tok:
        tok = self.peek()
        if kind is not None and tok.kind != kind:
            raise InvalidInput(f"expected {kind!r} in JSON at offset {tok.start}")
        self.pos += 1
        return tok

    def value(self) -> _Node:
        tok = self.peek()
        if tok.kind == "{":
            return self.container("obj", "}")
        if tok.kind == "[":
            return self.container("arr", "]")
        if tok.kind in ("str", "lit"):
            self.pos += 1
            return _Node("val", tok.start, tok.end)
        raise InvalidInput(f"unexpected {tok.kind!r} in JSON at offset {tok.start}")

    def container(self, kind: str, close: str) -> _Node:
        node = _Node(kind, self.take().start, 0)
        while self.peek().kind != close:
            if kind == "obj":
                key = self.take()
                if key.kind not in ("str", "lit"):
                    raise InvalidInput(f"expected a key in JSON at offset {key.start}")
                self.take(":")
                node.members.append((_scalar(self.text, key), key, self.value()))
            else:
                node.items.append(self.value())
            if self.peek().kind == ",":
                node.commas.append(self.take().start)
            elif self.peek().kind != close:
                raise InvalidInput(f"expected ',' or {close!r} in JSON at offset {self.peek().start}")
        node.end = self.take(close).end
        return node


def _scalar(text: str, tok: _Tok) -> Any:
    raw = text[tok.start : tok.end]
    if raw.startswith("'"):
        raw = json.dumps(json.loads('"' + raw[1:-1].replace('\\"', '"').replace('"', '\\"') + '"'))
    if tok.kind == "lit" and not raw[0].isdigit() and raw not in ("true", "false", "null") and raw[0] != "-":
        return raw  # a JSON5 bare key
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"cannot read {raw!r} in JSON") from exc


def _value(text: str, node: _Node) -> Any:
    if node.kind == "obj":
        return {k: _value(text, v) for k, _, v in node.members}
    if node.kind == "arr":
        return [_value(text, v) for v in node.items]
    return _scalar(text, _Tok("str" if text[node.start] in "\"'" else "lit", node.start, node.end))


def _root(text: str) -> _Node:
    parser = _Parser(text)
    node = parser.value()
    if parser.pos != len(parser.toks):
        raise InvalidInput("text after the end of the JSON document")
    return node


def _unit(text: str) -> str:
    m = re.search(r"\n([ \t]+)\S", text)
    return m.group(1) if m else "  "


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    m = re.match(r"[ \t]*", text[start:pos])
    return m.group(0) if m else ""


def _dump(value: Any, unit: str, indent: str) -> str:
    raw = json.dumps(value, indent=len(unit) if unit.strip(" ") == "" else 2, ensure_ascii=False)
    if unit == "\t":
        raw = re.sub(r"(?m)^((?:  )+)", lambda m: "\t" * (len(m.group(1)) // 2), raw)
    return raw.replace("\n", "\n" + indent)


def _insert(text: str, node: _Node, entry: str, unit: str) -> str:
    """Insert ``entry`` (a member or an item, without indentation) as the last element of ``node``."""
    close = node.end - 1
    outer = _line_indent(text, node.start if text.rfind("\n", 0, close) < node.start else close)
    children = [v for _, _, v in node.members] or node.items
    inner = (
        _line_indent(text, children[0].start)
        if children and "\n" in text[node.start : children[0].start]
        else outer + unit
    )
    entry = entry.replace("\n", "\n" + inner)
    if not children:
        return f"{text[: node.start + 1]}\n{inner}{entry}\n{outer}{text[close:]}"
    last_end = children[-1].end
    trailing = bool(node.commas) and node.commas[-1] >= last_end
    line_start = text.rfind("\n", 0, close) + 1
    if text[line_start:close].strip() == "" and line_start > last_end:
        insert_at, piece = line_start, f"{inner}{entry}{',' if trailing else ''}\n"
    else:
        insert_at, piece = close, f"\n{inner}{entry}{',' if trailing else ''}\n{outer}"
    head = text[:insert_at] if trailing else text[:last_end] + "," + text[last_end:insert_at]
    return head + piece + text[insert_at:]


def _find(text: str, path: list[str]) -> _Node | None:
    node: _Node | None = _root(text)
    for key in path:
        if node is None or node.kind != "obj":
            return None
        node = next((v for k, _, v in node.members if k == key), None)
    return node


def get_path(text: str, path: list[str]) -> Any:
    """The value at ``path`` (object keys), or None when it is absent."""
    node = _find(text, path)
    return None if node is None else _value(text, node)


def set_member(text: str | None, path: list[str], value: Any) -> str:
    """``text`` with ``path[-1]`` of the object at ``path[:-1]`` set to ``value`` (objects created as needed)."""
    if text is None or not text.strip():
        doc: Any = value
        for key in reversed(path):
            doc = {key: doc}
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    unit = _unit(text)
    node = _root(text)
    if node.kind != "obj":
        raise InvalidInput("the JSON document is not an object")
    for depth, key in enumerate(path):
        found = next(((t, v) for k, t, v in node.members if k == key), None)
        if found is None:
            rest: Any = value
            for inner in reversed(path[depth + 1 :]):
                rest = {inner: rest}
            return _insert(text, node, f"{json.dumps(key)}: {_dump(rest, unit, '')}", unit)
        if depth == len(path) - 1:
            child = found[1]
            if _value(text, child) == value:
                return text
            indent = _line_indent(text, found[0].start)
            return text[: child.start] + _dump(value, unit, indent) + text[child.end :]
        if found[1].kind != "obj":
            raise InvalidInput(f"{'.'.join(path[: depth + 1])} is not an object in the JSON document")
        node = found[1]
    return text


def append_item(text: str | None, path: list[str], item: Any) -> str:
    """``text`` with ``item`` appended to the array at ``path`` (created when absent); no-op if already there."""
    current = get_path(text, path) if text and text.strip() else None
    if current is None:
        return set_member(text, path, [item])
    if not isinstance(current, list):
        raise InvalidInput(f"{'.'.join(path)} is not an array in the JSON document")
    if item in current:
        return text or ""
    assert text is not None
    node = _find(text, path)
    assert node is not None
    return _insert(text, node, _dump(item, _unit(text), ""), _unit(text))
