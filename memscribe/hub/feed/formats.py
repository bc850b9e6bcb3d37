"""Structural edits for the other formats the tools use: TOML (tomlkit), YAML (ruamel.yaml round-trip) and
Markdown instruction files (a marked block, or one ``@import`` line). Each keeps the rest of the file."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from memscribe.errors import ConfigError, InvalidInput

__all__ = ["BEGIN", "END", "NOTE", "import_line", "marked_block", "toml_set", "yaml_append_row", "yaml_set"]

from memscribe.hub.cleaning import DIGEST_BEGIN as BEGIN  # the importer drops these blocks from transcripts
from memscribe.hub.cleaning import DIGEST_END as END

NOTE = "<!-- managed by `memscribe hub install`; edit outside this block -->"


def _need(module: str) -> None:
    import importlib

    try:
        importlib.import_module(module)
    except ModuleNotFoundError:
        raise ConfigError("editing this tool's config needs the 'hub' extra: pip install 'memscribe[hub]'") from None


def toml_set(text: str | None, path: list[str], value: Mapping[str, Any]) -> str:
    """``text`` with the table at ``path`` set to ``value`` (parent tables created as dotted headers)."""
    _need("tomlkit")
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        doc = tomlkit.parse(text or "")
    except TOMLKitError as exc:
        raise InvalidInput(f"the TOML file does not parse: {exc}") from exc
    table: Any = doc
    for key in path[:-1]:
        if key not in table:
            table[key] = tomlkit.table(is_super_table=True)
        table = table[key]
    current = table.get(path[-1])
    if current is not None and current.unwrap() == dict(value):
        return text or ""
    new = tomlkit.table()
    for k, v in value.items():
        new[k] = v
    if current is not None:
        del table[path[-1]]
    table[path[-1]] = new
    out = tomlkit.dumps(doc)
    if text and not text.endswith("\n") and out.startswith(text):
        out = text + "\n" + out[len(text) :].lstrip("\n")
    return out


def _yaml() -> Any:
    _need("ruamel.yaml")
    from ruamel.yaml import YAML

    yaml = YAML()  # round-trip: comments, key order and quoting are kept
    yaml.preserve_quotes = True
    yaml.width = 4096
    return yaml


def _load(yaml: Any, text: str | None) -> Any:
    from ruamel.yaml.error import YAMLError

    try:
        return yaml.load(text or "")
    except YAMLError as exc:
        raise InvalidInput(f"the YAML file does not parse: {exc}") from exc


def _dump(yaml: Any, doc: Any) -> str:
    buf = io.StringIO()
    yaml.dump(doc, buf)
    return buf.getvalue()


def yaml_set(text: str | None, path: list[str], value: Mapping[str, Any]) -> str:
    """``text`` (a YAML mapping) with ``path`` set to ``value``, intermediate mappings created."""
    from ruamel.yaml.comments import CommentedMap

    yaml = _yaml()
    doc = _load(yaml, text)
    if doc is None:
        doc = CommentedMap()
    if not isinstance(doc, dict):
        raise InvalidInput("the YAML file is not a mapping")
    node: Any = doc
    for key in path[:-1]:
        if node.get(key) is None:
            node[key] = CommentedMap()
        node = node[key]
        if not isinstance(node, dict):
            raise InvalidInput(f"{key} is not a mapping in the YAML file")
    if node.get(path[-1]) == dict(value):
        return text or ""
    node[path[-1]] = CommentedMap(value)
    return _dump(yaml, doc)


def yaml_append_row(text: str | None, row: Mapping[str, Any], row_id: str) -> str:
    """A Cordis patch list (DeepSeek Harness) with ``{insert: [row]}`` appended unless a row ``row_id`` exists."""
    yaml = _yaml()
    doc = _load(yaml, text)
    if doc is None:
        doc = []
    if not isinstance(doc, list):
        raise InvalidInput("the patch file is not a YAML list")
    for op in doc:
        rows = op.get("insert", []) if isinstance(op, dict) else []
        if any(isinstance(r, dict) and r.get("id") == row_id for r in rows):
            return text or ""
    doc.append({"insert": [dict(row)]})
    return _dump(yaml, doc)


def marked_block(text: str | None, body: str, *, budget: int) -> str:
    """``text`` with the memscribe block set to ``body``; refuses when the file would pass ``budget`` bytes."""
    block = f"{BEGIN}\n{NOTE}\n{body.rstrip()}\n{END}\n"
    current = text or ""
    if BEGIN in current and END in current:
        head, _, rest = current.partition(BEGIN)
        _, _, tail = rest.partition(END)
        out = head + block.rstrip("\n") + tail
    else:
        sep = "" if not current or current.endswith("\n\n") else ("\n" if current.endswith("\n") else "\n\n")
        out = current + sep + block
    if len(out.encode()) > budget:
        raise InvalidInput(f"the instruction file would pass the tool's budget of {budget} bytes; not changed")
    return out


def import_line(text: str | None, target: str) -> str:
    """``text`` with one ``@target`` import line appended (no-op when present)."""
    line = f"@{target}"
    current = text or ""
    if line in current.splitlines():
        return current
    sep = "" if not current or current.endswith("\n") else "\n"
    return f"{current}{sep}{line}\n"
