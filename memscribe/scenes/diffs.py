"""Edits read from tool calls, with no model: str_replace editors, Edit/MultiEdit/Write, apply_patch
envelopes and unified diffs. Failed edits (an error in the tool's result) are skipped.

Each :class:`Edit` is one replacement in one file: the text before, the text after, and any symbol a hunk
header names. :mod:`memscribe.scenes.symbols` turns edits into per-symbol changes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final

from memscribe.scenes.tools import ToolUse, paths_of, string_values

__all__ = ["Edit", "edits_from_text", "edits_from_uses", "parse_apply_patch", "parse_unified_diff"]

_OLD_KEYS: Final = ("old_str", "old_string", "old_text", "search", "old")
_NEW_KEYS: Final = ("new_str", "new_string", "new_text", "replace", "new")
_CONTENT_KEYS: Final = ("file_text", "content", "contents", "text", "code")
_HUNK: Final = re.compile(r"^@@(?: -\d+(?:,\d+)? \+\d+(?:,\d+)? @@)?\s?(?P<context>.*)$")
_FILE_HEADER: Final = re.compile(r"^\*\*\* (?P<action>Update|Add|Delete) File: (?P<path>.+?)\s*$")


@dataclass(frozen=True)
class Edit:
    """One change to one file. ``whole_file``: ``new`` is the entire new content (a create or a rewrite)."""

    file: str
    old: str
    new: str
    tool: str
    message_index: int
    whole_file: bool = False
    deleted_file: bool = False
    context: str = ""  # the hunk header's trailing text, often the enclosing ``def``/``class`` line


def edits_from_uses(uses: list[ToolUse]) -> list[Edit]:
    """Every edit the successful tool calls made, in call order."""
    edits: list[Edit] = []
    for use in uses:
        if not use.failed:
            edits.extend(_edits_of(use))
    return edits


def _edits_of(use: ToolUse) -> Iterator[Edit]:
    args, paths = use.arguments, paths_of(use)
    path = paths[0] if paths else None
    patch_texts = [t for t in string_values(args, limit=16) if "*** Begin Patch" in t or _looks_unified(t)]
    if patch_texts:
        for text in patch_texts:
            yield from edits_from_text(text, use.name, use.message_index)
        return
    if path is None:
        return
    old, new = _first(args, _OLD_KEYS), _first(args, _NEW_KEYS)
    if new is not None and (old is not None or args.get("command") == "insert"):
        yield Edit(path, old or "", new, use.name, use.message_index)
        return
    multi = args.get("edits")
    if isinstance(multi, list):
        for item in multi:
            if isinstance(item, Mapping):
                o, n = _first(item, _OLD_KEYS), _first(item, _NEW_KEYS)
                if o is not None and n is not None:
                    yield Edit(path, o, n, use.name, use.message_index)
        return
    content = _first(args, _CONTENT_KEYS)
    if content is not None and (args.get("command") == "create" or use.words & {"write", "create", "writefile"}):
        yield Edit(path, "", content, use.name, use.message_index, whole_file=True)


def _first(args: object, keys: tuple[str, ...]) -> str | None:
    if not isinstance(args, Mapping):
        return None
    for key in keys:
        value = args.get(key)
        if isinstance(value, str):
            return value
    return None


def _looks_unified(text: str) -> bool:
    return "\n+++ " in text and "\n@@" in text and (text.startswith("--- ") or "\n--- " in text)


def edits_from_text(text: str, tool: str, message_index: int) -> list[Edit]:
    """Edits in an apply_patch envelope or a unified diff (several files, several hunks each)."""
    if "*** Begin Patch" in text:
        return parse_apply_patch(text, tool, message_index)
    return parse_unified_diff(text, tool, message_index)


def parse_apply_patch(text: str, tool: str = "apply_patch", message_index: int = 0) -> list[Edit]:
    """Codex-style ``*** Begin Patch`` envelopes: Update/Add/Delete File sections with ``@@`` hunks."""
    edits: list[Edit] = []
    action = path = None
    hunk = _Hunk()
    for line in text.splitlines():
        header = _FILE_HEADER.match(line)
        if header or line.startswith("*** End Patch") or line.startswith("@@"):
            if path is not None:
                edits.extend(hunk.edits(path, tool, message_index, added=action == "Add"))
            hunk = _Hunk(context=_hunk_context(line))
            if header:
                action, path = header["action"], header["path"].strip()
                if action == "Delete":
                    edits.append(Edit(path, "", "", tool, message_index, deleted_file=True))
                    path = None
            continue
        if line.startswith("*** "):  # "*** Move to:", "*** End of File": markers, not content
            continue
        hunk.add(line)
    return edits


def parse_unified_diff(text: str, tool: str = "diff", message_index: int = 0) -> list[Edit]:
    """``--- a/x`` / ``+++ b/x`` unified diffs; ``/dev/null`` marks created and deleted files."""
    edits: list[Edit] = []
    old_path = path = None
    hunk = _Hunk()
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            edits.extend(hunk.edits(path, tool, message_index, added=old_path == "/dev/null") if path else [])
            old_path, hunk, path = _strip_prefix(line[4:]), _Hunk(), None
            continue
        if line.startswith("+++ ") and old_path is not None and path is None:
            new_path = _strip_prefix(line[4:])
            if new_path == "/dev/null":
                edits.append(Edit(old_path, "", "", tool, message_index, deleted_file=True))
            else:
                path = new_path
            continue
        if line.startswith("@@"):
            edits.extend(hunk.edits(path, tool, message_index, added=old_path == "/dev/null") if path else [])
            hunk = _Hunk(context=_hunk_context(line))
            continue
        if path is not None:
            hunk.add(line)
    edits.extend(hunk.edits(path, tool, message_index, added=old_path == "/dev/null") if path else [])
    return edits


def _strip_prefix(raw: str) -> str:
    name = raw.split("\t")[0].strip()
    return name[2:] if name.startswith(("a/", "b/")) else name


def _hunk_context(line: str) -> str:
    match = _HUNK.match(line) if line.startswith("@@") else None
    return match["context"].strip() if match else ""


class _Hunk:
    """Lines of one hunk, split into the before and after texts."""

    def __init__(self, context: str = "") -> None:
        self.context = context
        self.old: list[str] = []
        self.new: list[str] = []
        self.changed = False

    def add(self, line: str) -> None:
        if line.startswith("-"):
            self.old.append(line[1:])
            self.changed = True
        elif line.startswith("+"):
            self.new.append(line[1:])
            self.changed = True
        elif line.startswith(" ") or not line:
            self.old.append(line[1:])
            self.new.append(line[1:])

    def edits(self, path: str | None, tool: str, message_index: int, *, added: bool) -> list[Edit]:
        if path is None or not self.changed:
            return []
        old, new = "\n".join(self.old), "\n".join(self.new)
        return [Edit(path, old, new, tool, message_index, whole_file=added, context=self.context)]
