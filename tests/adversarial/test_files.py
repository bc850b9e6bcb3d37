"""Damaged and foreign files: an index file of the wrong width or size is rebuilt and reported, a purge that
does not verify is not reported as a success, and the admin key never has to be on a command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from memscribe import Memory
from memscribe.cli.main import cli
from memscribe.errors import ERROR_TABLE, StoreError
from memscribe.stores.ann import AutoIndex


def _store_with_index(path: Path) -> None:
    with Memory(path, writer="raw", embedder="hash") as m:
        for i in range(5):
            m.add(f"I like green tea number {i}", user_id="u")
        m.search("tea", user_id="u")
        m._core.store.vectors.save_all()


def test_an_index_file_of_the_wrong_width_is_rebuilt_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    _store_with_index(path)
    meta_file = next((tmp_path / "s.db.ann").glob("*.json"))
    meta = json.loads(meta_file.read_text())
    wrong = AutoIndex(7)
    wrong.add([1, 2], np.ones((2, 7), dtype=np.float32))
    wrong.save(tmp_path / "s.db.ann" / meta["file"])  # same name, vectors of another width
    result = CliRunner().invoke(cli, ["--db", str(path), "--embedder", "hash", "doctor", "--json"])
    assert "vector index" in result.stdout  # doctor opens the index files
    with Memory(path, writer="raw", embedder="hash") as m:
        problems = m._core.store.check()
        assert any("vector index" in p for p in problems), problems
        assert len(m.search("green tea", user_id="u")["results"]) == 5  # rebuilt from SQLite, not failed
    with Memory(path, writer="raw", embedder="hash") as m:
        assert m._core.store.check() == []  # and saved again, whole


def test_purge_that_does_not_verify_exits_nonzero_with_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _store_with_index(tmp_path / "s.db")

    def unverified(self: Memory, user_id: object) -> dict[str, Any]:
        return {"user_id": user_id, "memories": 1, "episodes": 1, "journal": 1, "files_checked": ["s.db"],
                "leftovers": ["s.db"], "verified": False}  # fmt: skip

    monkeypatch.setattr(Memory, "purge", unverified)
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "s.db"), "--embedder", "hash", "purge", "-u", "u",
                                      "--yes", "--json"])  # fmt: skip
    assert result.exit_code == ERROR_TABLE[StoreError].exit_code
    assert json.loads(result.stdout)["verified"] is False


def test_the_admin_key_can_come_from_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(settings=app.state.memscribe.settings))
    key_file = tmp_path / "admin.key"
    key_file.write_text("file-admin-key-0123456789\n")
    key_file.chmod(0o600)
    result = CliRunner().invoke(cli, ["--home", str(tmp_path), "serve", "--admin-key-file", str(key_file)])
    assert result.exit_code == 0, result.output
    assert seen["settings"].admin_key == "file-admin-key-0123456789"
