"""From edits to changes per file and symbol, by rules: which ``def``/``class``/``function``/``fn`` an edit
added, removed or modified, its line counts and a bounded patch.

The symbol is best effort: definitions inside the edited text first, then the hunk header's context, then
the enclosing definition found in the file's content when an earlier read or write in the episode showed it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Final

from memscribe.scenes.diffs import Edit
from memscribe.scenes.tools import ToolUse, paths_of

__all__ = ["Change", "changes_from_edits", "definitions", "enclosing_symbol", "file_contents", "merge_changes"]

_DEFINITIONS: Final = (
    (re.compile(r"^(?P<indent>[ \t]*)(?:async[ \t]+)?def[ \t]+(?P<name>\w+)", re.M), "function"),
    (re.compile(r"^(?P<indent>[ \t]*)class[ \t]+(?P<name>\w+)", re.M), "class"),
    (
        re.compile(
            r"^(?P<indent>[ \t]*)(?:export[ \t]+)?(?:default[ \t]+)?(?:async[ \t]+)?function\*?[ \t]+"
            r"(?P<name>[\w$]+)",
            re.M,
        ),
        "function",
    ),
    (
        re.compile(
            r"^(?P<indent>[ \t]*)(?:export[ \t]+)?(?:const|let)[ \t]+(?P<name>[\w$]+)[ \t]*=[ \t]*"
            r"(?:async[ \t]*)?(?:\([^)]*\)|\w+)[ \t]*=>",
            re.M,
        ),
        "function",
    ),
    (
        re.compile(r"^(?P<indent>[ \t]*)(?:pub(?:\([^)]*\))?[ \t]+)?(?:async[ \t]+)?fn[ \t]+(?P<name>\w+)", re.M),
        "function",
    ),
    (re.compile(r"^(?P<indent>[ \t]*)func[ \t]+(?:\([^)]*\)[ \t]*)?(?P<name>\w+)", re.M), "function"),
    (re.compile(r"^(?P<indent>[ \t]*)(?:pub[ \t]+)?(?:struct|enum|trait|interface)[ \t]+(?P<name>\w+)", re.M), "type"),
)
_LINE_NUMBER: Final = re.compile(r"^[ \t]*\d+(?:\t|→|: )", re.M)  # "    12\tcode" as read tools print it
_PATCH_CHARS: Final = 1500
_READ_WORDS: Final = frozenset({"read", "view", "cat", "open", "readfile", "get", "show"})


@dataclass(frozen=True)
class Change:
    """What one edit (or several, merged) did to one symbol of one file."""

    file: str
    symbol: str | None
    symbol_kind: str  # function | method | class | type | file
    kind: str  # added | modified | removed
    added_lines: int
    removed_lines: int
    patch: str
    message_index: int
    tool: str

    @property
    def summary(self) -> str:
        """``+3 −1 lines`` and the first changed line, for the memory's metadata."""
        first = next(
            (
                ln[1:].strip()
                for ln in self.patch.splitlines()
                if ln[:1] in "+-" and ln[:3] not in ("+++", "---") and ln[1:].strip()
            ),
            "",
        )
        stats = f"+{self.added_lines} -{self.removed_lines} lines"
        return f"{stats}; first change: {first[:100]}" if first else stats


def definitions(text: str) -> dict[str, tuple[str, int, int]]:
    """Definitions in ``text``: name → (kind, indent width, line number), in order of appearance."""
    found: list[tuple[int, str, str, int]] = []
    for pattern, kind in _DEFINITIONS:
        for match in pattern.finditer(text):
            indent = len(match["indent"].expandtabs(4))
            word = "method" if kind == "function" and indent and match["name"] != "__init__" else kind
            found.append((match.start(), match["name"], word, indent))
    out: dict[str, tuple[str, int, int]] = {}
    for start, name, kind, indent in sorted(found):
        out.setdefault(name, (kind, indent, text.count("\n", 0, start)))
    return out


def enclosing_symbol(content: str, snippet: str) -> tuple[str, str] | None:
    """The definition that encloses ``snippet`` in ``content`` (name, kind), when the snippet is found."""
    stripped = snippet.strip("\n")
    if not stripped.strip():
        return None
    position = content.find(stripped)
    if position < 0:
        return None
    first_line = stripped.splitlines()[0]
    indent = len(first_line.expandtabs(4)) - len(first_line.expandtabs(4).lstrip())
    line = content.count("\n", 0, position)
    best: tuple[str, str] | None = None
    for name, (kind, def_indent, def_line) in definitions(content).items():
        if def_line <= line and def_indent < max(indent, 1):
            best = (name, kind)
    return best


def file_contents(uses: Iterable[ToolUse]) -> dict[str, str]:
    """What read or view calls showed of each file (line-number prefixes removed)."""
    seen: dict[str, str] = {}
    for use in uses:
        paths = paths_of(use)
        if not paths or use.result is None or use.failed:
            continue
        if use.words & _READ_WORDS or use.arguments.get("command") == "view":
            seen[paths[0]] = _LINE_NUMBER.sub("", use.result)
    return seen


def changes_from_edits(edits: Iterable[Edit], known: dict[str, str] | None = None) -> list[Change]:
    """Per-symbol changes of each edit; ``known`` (file → content) is kept up to date as edits apply."""
    files = dict(known or {})
    changes: list[Change] = []
    for edit in edits:
        before = files.get(edit.file)
        if edit.whole_file and before is not None:
            edit = replace(edit, old=before, whole_file=False)
        changes.extend(_changes_of(edit, before))
        if edit.deleted_file:
            files.pop(edit.file, None)
        elif edit.whole_file or not edit.old:
            files[edit.file] = edit.new if edit.whole_file else (before or "") + edit.new
        elif before is not None and edit.old in before:
            files[edit.file] = before.replace(edit.old, edit.new, 1)
    return changes


def _changes_of(edit: Edit, content: str | None) -> list[Change]:
    patch, added, removed = _patch(edit)
    base = Change(edit.file, None, "file", "modified", added, removed, patch, edit.message_index, edit.tool)
    if edit.deleted_file:
        return [replace(base, kind="removed")]
    if edit.whole_file:
        return [replace(base, kind="added")]
    old_defs, new_defs = definitions(edit.old), definitions(edit.new)
    out = [replace(base, symbol=n, symbol_kind=k[0], kind="removed") for n, k in old_defs.items() if n not in new_defs]
    out += [replace(base, symbol=n, symbol_kind=k[0], kind="added") for n, k in new_defs.items() if n not in old_defs]
    if out:
        return out
    located = _changed_symbol(edit, new_defs) or _context_symbol(edit.context)
    if located is None and content is not None:
        located = enclosing_symbol(content, edit.old or edit.new)
    return [replace(base, symbol=located[0], symbol_kind=located[1]) if located else base]


def _changed_symbol(edit: Edit, new_defs: dict[str, tuple[str, int, int]]) -> tuple[str, str] | None:
    """The last definition at or above the first changed line of the new text."""
    if not new_defs:
        return None
    matcher = difflib.SequenceMatcher(a=edit.old.splitlines(), b=edit.new.splitlines(), autojunk=False)
    first = next((j1 for tag, _i1, _i2, j1, _j2 in matcher.get_opcodes() if tag != "equal"), 0)
    best = None
    for name, (kind, _indent, line) in new_defs.items():
        if line <= first:
            best = (name, kind)
    return best or next(((n, k[0]) for n, k in new_defs.items()), None)


def _context_symbol(context: str) -> tuple[str, str] | None:
    found = definitions(context.strip())
    return next(((name, info[0]) for name, info in found.items()), None)


def _patch(edit: Edit) -> tuple[str, int, int]:
    old, new = edit.old.splitlines(), edit.new.splitlines()
    lines = list(difflib.unified_diff(old, new, f"a/{edit.file}", f"b/{edit.file}", lineterm="", n=1))
    added = sum(1 for ln in lines if ln.startswith("+") and not ln.startswith("+++"))
    removed = sum(1 for ln in lines if ln.startswith("-") and not ln.startswith("---"))
    return "\n".join(lines)[:_PATCH_CHARS], added, removed


def merge_changes(changes: Iterable[Change]) -> list[Change]:
    """One change per (file, symbol): net kind over the episode, lines summed, patches joined."""
    groups: dict[tuple[str, str | None], list[Change]] = {}
    for change in changes:
        groups.setdefault((change.file, change.symbol), []).append(change)
    merged = []
    for group in groups.values():
        first, last = group[0], group[-1]
        existed, exists = first.kind != "added", last.kind != "removed"
        kind = "added" if exists and not existed else "removed" if existed and not exists else "modified"
        merged.append(
            replace(
                first,
                kind=kind,
                added_lines=sum(c.added_lines for c in group),
                removed_lines=sum(c.removed_lines for c in group),
                patch="\n".join(c.patch for c in group)[:_PATCH_CHARS],
                tool=", ".join(dict.fromkeys(c.tool for c in group)),
            )
        )
    return merged
