"""House rules enforced by tests: layering, module size, import side effects, public surface."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import memscribe

PACKAGE = Path(memscribe.__file__).parent

# Imports point downward only. A module in a layer may import its own layer and anything listed.
ALLOWED = {
    "core": {"core", "errors"},
    "providers": {"providers", "core", "errors"},
    "stores": {"stores", "core", "errors", "providers"},
    "write": {"write", "core", "errors", "providers", "stores", "read"},
    "read": {"read", "core", "errors", "providers", "stores"},
    "scenes": {"scenes", "core", "errors", "providers", "stores", "read", "write"},
    "engine": {"engine", "core", "errors", "providers", "stores", "read", "write", "scenes", "config"},
}
APPS = {"server", "mcp", "cli", "hub", "bench", "train", "client"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("memscribe."):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("memscribe."))
    return found


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_imports_point_downward() -> None:
    problems = []
    for path in _modules():
        parts = path.relative_to(PACKAGE).parts
        if len(parts) < 2 or parts[0] not in ALLOWED:
            continue
        bad = _imports(path) - ALLOWED[parts[0]]
        if bad:
            problems.append(f"{path.relative_to(PACKAGE)} imports {sorted(bad)}")
    assert not problems, "\n".join(problems)


def test_nothing_imports_bench_or_train() -> None:
    problems = [
        str(p.relative_to(PACKAGE))
        for p in _modules()
        if p.relative_to(PACKAGE).parts[0] not in ("bench", "train", "cli")
        and _imports(p) & {"bench", "train"}
    ]
    assert not problems


def test_adapters_do_not_import_each_other() -> None:
    stores = PACKAGE / "stores"
    for path in stores.rglob("*.py"):
        text = path.read_text()
        rel = path.relative_to(stores).parts
        if rel[0] == "sqlite":
            assert "memscribe.stores.memory" not in text
        if rel[0] == "memory.py":
            assert "memscribe.stores.sqlite" not in text


def test_module_size_caps() -> None:
    too_big = {
        str(p.relative_to(PACKAGE)): n for p in _modules() if (n := len(p.read_text().splitlines())) > 800
    }
    assert not too_big


def test_import_has_no_heavy_imports_or_side_effects(tmp_path: Path) -> None:
    code = (
        "import os, sys; os.chdir(sys.argv[1]); import memscribe; "
        "heavy = [m for m in ('numpy', 'onnxruntime', 'tokenizers', 'fastapi', 'usearch', 'httpx', 'mcp', "
        "'sqlite3', 'torch') if m in sys.modules]; print(heavy); print(sorted(os.listdir('.')))"
    )
    home = tmp_path / "home"
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        env={"MEMSCRIBE_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    ).stdout.splitlines()
    assert out[0] == "[]", f"import memscribe pulled in {out[0]}"
    assert out[1] == "[]", "import memscribe created files"
    assert not home.exists()


def test_public_surface_is_curated() -> None:
    assert sorted(memscribe.__all__) == memscribe.__all__
    for name in memscribe.__all__:
        assert getattr(memscribe, name) is not None
