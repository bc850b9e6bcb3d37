"""Byte scanners over every file the engine owns (the store, its WAL and -shm, lock, vector indexes) and over
whatever else a test hands them (exports, `why` output)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def engine_files(directory: Path) -> list[Path]:
    """Every file under the store's directory."""
    return sorted(p for p in directory.rglob("*") if p.is_file())


def found(needles: Iterable[str], files: Iterable[Path], extra: Iterable[str] = ()) -> dict[str, list[str]]:
    """needle → where its UTF-8 bytes were found (file paths, or ``output #i`` for the extra texts)."""
    blobs = [(str(p), p.read_bytes()) for p in files if p.exists()]
    blobs += [(f"output #{i}", text.encode("utf-8")) for i, text in enumerate(extra)]
    hits: dict[str, list[str]] = {}
    for needle in needles:
        raw = needle.encode("utf-8")
        places = [name for name, blob in blobs if raw in blob]
        if places:
            hits[needle] = places
    return hits
