"""House rules enforced by tests: layering, module size, import side effects, public surface."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _layering import ALLOWED, check, import_graph

import memscribe

PACKAGE = Path(memscribe.__file__).parent

def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_imports_point_downward() -> None:
    """Over the resolved import graph of every module: layers, top-level modules and application folders."""
    problems = check(import_graph(PACKAGE))
    assert not problems, "\n".join(problems)


def test_every_unit_has_a_rule() -> None:
    units = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    units |= {p.stem for p in PACKAGE.glob("*.py")}
    assert units - set(ALLOWED) == set(), "add a layering rule for every folder and top-level module"


# Each kind of bad import, as (file inside a generated package, source). Each must be caught on its own.
BAD_IMPORTS = {
    "absolute import statement": ("core/a.py", "import memscribe.engine.memory\n"),
    "from-import of a module": ("core/a.py", "from memscribe.engine.memory import Memory\n"),
    "from the package root": ("core/a.py", "from memscribe import engine\n"),
    "root re-export (lazy engine)": ("core/a.py", "from memscribe import Memory\n"),
    "relative import of a sibling layer": ("core/a.py", "from ..engine import memory\n"),
    "relative import from the root": ("core/a.py", "from .. import engine\n"),
    "importlib string": ("core/a.py", "import importlib\nimportlib.import_module('memscribe.engine.memory')\n"),
    "__import__ string": ("core/a.py", "__import__('memscribe.engine')\n"),
    "import inside a function": ("core/a.py", "def f():\n    from memscribe.engine import memory\n"),
    "type-checking import": (
        "core/a.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from memscribe.engine import memory\n"
    ),
    "top-level module importing up": ("config.py", "from memscribe.engine.memory import Memory\n"),
    "library importing an application": ("engine/a.py", "from memscribe.server import app\n"),
    "application importing another's internals": ("server/a.py", "from memscribe.cli.state import CliState\n"),
    "anything importing bench": ("server/a.py", "import memscribe.bench.speed\n"),
    "store importing a provider adapter": ("stores/a.py", "from memscribe.providers.local import LocalEmbedder\n"),
    "store adapter importing another adapter": ("stores/sqlite/a.py", "from memscribe.stores.memory import X\n"),
}
_SKELETON = [
    "__init__.py", "config.py", "errors.py", "core/__init__.py", "engine/__init__.py", "engine/memory.py",
    "server/__init__.py", "server/app.py", "cli/__init__.py", "cli/state.py", "bench/__init__.py",
    "bench/speed.py", "providers/__init__.py", "providers/local.py", "providers/ports.py", "stores/__init__.py",
    "stores/memory.py", "stores/sqlite/__init__.py",
]  # fmt: skip


@pytest.mark.parametrize("kind", sorted(BAD_IMPORTS))
def test_the_layering_check_catches_each_kind_of_bad_import(tmp_path: Path, kind: str) -> None:
    root = tmp_path / "memscribe"
    for name in _SKELETON:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    assert check(import_graph(root)) == []  # the clean skeleton passes
    where, source = BAD_IMPORTS[kind]
    (root / where).write_text(source)
    assert check(import_graph(root)), f"{kind!r} ({where}: {source.strip()!r}) went unnoticed"


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
