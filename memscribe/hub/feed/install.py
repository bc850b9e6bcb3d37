"""Install, uninstall and check memscribe in a tool's config, with backups and a manifest.

Install plans every file's new text first (nothing is written when any file fails to parse or would pass its
budget), backs up each file it changes, writes, and records in ``<state>/installs/<tool>.json`` what each file
held before (the backup's path, or that it did not exist) and the SHA-256 of what was written. Uninstall puts
back the exact original bytes of each file whose content is still what install wrote; a file the person has
changed since is left alone, with a message saying so.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memscribe.errors import InvalidInput, NotFound
from memscribe.hub.feed.tools import TOOLS, Ctx, Edit, Tool

__all__ = ["Change", "Outcome", "diff", "install", "plan", "tool", "uninstall"]


@dataclass(frozen=True)
class Change:
    path: Path
    before: str | None
    after: str
    what: tuple[str, ...]
    executable: bool = False


@dataclass
class Outcome:
    tool: str
    changed: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    left_alone: list[tuple[Path, str]] = field(default_factory=list)
    note: str = ""


def tool(name: str) -> Tool:
    if name not in TOOLS:
        raise InvalidInput(f"unknown tool {name!r}; known: {', '.join(TOOLS)}")
    return TOOLS[name]


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path} is not UTF-8 text; not changed") from exc


def _sha(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


def _manifest_path(ctx: Ctx, name: str) -> Path:
    return ctx.state / "installs" / f"{name}.json"


def _manifest(ctx: Ctx, name: str) -> dict[str, Any]:
    path = _manifest_path(ctx, name)
    if not path.exists():
        return {"tool": name, "files": {}}
    return dict(json.loads(path.read_text()))


def plan(name: str, ctx: Ctx) -> list[Change]:
    """Every file install would write and its new text; edits of one file are applied in order."""
    grouped: dict[Path, list[Edit]] = {}
    for edit in tool(name).edits(ctx):
        grouped.setdefault(edit.path, []).append(edit)
    changes = []
    for path, edits in grouped.items():
        before = _read(path)
        after = before
        for edit in edits:
            try:
                after = edit.apply(after)
            except InvalidInput as exc:
                raise InvalidInput(f"{path}: {exc}; nothing was changed") from exc
        changes.append(
            Change(path, before, after or "", tuple(e.what for e in edits), any(e.executable for e in edits))
        )
    return changes


def diff(changes: list[Change]) -> str:
    """The unified diff of what install would write."""
    out: list[str] = []
    for c in changes:
        if c.before == c.after:
            continue
        old = "/dev/null" if c.before is None else str(c.path)
        lines = difflib.unified_diff((c.before or "").splitlines(True), c.after.splitlines(True), old, str(c.path))
        out.extend(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return "".join(out)


def _backup(ctx: Ctx, name: str, path: Path, data: bytes) -> Path:
    folder = ctx.state / "backups" / name
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target = folder / f"{str(path).strip('/').replace('/', '__')}.{stamp}.{_sha(data)[:8]}.bak"
    target.write_bytes(data)
    return target


def _write(path: Path, text: str, *, executable: bool) -> list[str]:
    created = []
    for parent in reversed(path.parents):
        if not parent.exists():
            created.append(str(parent))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".memscribe-tmp")
    tmp.write_bytes(text.encode())
    if executable:
        tmp.chmod(0o755)
    elif path.exists():
        tmp.chmod(path.stat().st_mode & 0o7777)
    os.replace(tmp, path)
    return created


def install(name: str, ctx: Ctx) -> Outcome:
    """Apply :func:`plan`; a second install is a no-op."""
    changes = plan(name, ctx)
    manifest = _manifest(ctx, name)
    files: dict[str, Any] = manifest["files"]
    outcome = Outcome(name, note=tool(name).note)
    for c in changes:
        record = files.get(str(c.path))
        if c.before == c.after:
            outcome.unchanged.append(c.path)
            continue
        if record is not None and c.before is not None and _sha(c.before) != record["sha256"]:
            outcome.left_alone.append((c.path, "changed since memscribe installed into it; not touched"))
            continue
        if record is None:
            backup = None if c.before is None else str(_backup(ctx, name, c.path, c.before.encode()))
            record = {"backup": backup, "existed": c.before is not None, "created_dirs": []}
        record["created_dirs"] = record["created_dirs"] + _write(c.path, c.after, executable=c.executable)
        record["sha256"] = _sha(c.after)
        files[str(c.path)] = record
        outcome.changed.append(c.path)
    if outcome.changed:
        path = _manifest_path(ctx, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(manifest, indent=2) + "\n")
    return outcome


def uninstall(name: str, ctx: Ctx) -> Outcome:
    """Restore each file install changed, byte for byte, unless it was changed since."""
    tool(name)
    manifest_path = _manifest_path(ctx, name)
    if not manifest_path.exists():
        raise NotFound(f"memscribe is not installed into {name} (no {manifest_path})")
    manifest = _manifest(ctx, name)
    outcome = Outcome(name)
    created: list[str] = []
    for key, record in manifest["files"].items():
        path = Path(key)
        current = path.read_bytes() if path.exists() else None
        if current is None or _sha(current) != record["sha256"]:
            why = "is gone" if current is None else "was changed since install"
            outcome.left_alone.append((path, f"{why}; not restored (backup: {record['backup'] or 'none, it was new'})"))
            continue
        if record["existed"]:
            tmp = path.with_name(path.name + ".memscribe-tmp")
            tmp.write_bytes(Path(record["backup"]).read_bytes())
            tmp.chmod(path.stat().st_mode & 0o7777)
            os.replace(tmp, path)
        else:
            path.unlink()
            created += record["created_dirs"]
        outcome.changed.append(path)
    for folder in sorted(set(created), key=len, reverse=True):  # deepest first, once every file is back
        if Path(folder).is_dir() and not any(Path(folder).iterdir()):
            Path(folder).rmdir()
    if outcome.left_alone:
        keep: dict[str, Any] = {str(p): manifest["files"][str(p)] for p, _ in outcome.left_alone}
        manifest_path.write_text(json.dumps({"tool": name, "files": keep}, indent=2) + "\n")
    else:
        manifest_path.unlink()
    return outcome
