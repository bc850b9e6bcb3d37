"""The import graph of a package, resolved, and the layering rules it must keep (used by test_conventions).

Every way one module can reach another counts: ``import a.b``, ``from a.b import c`` (``c`` resolved to a
module when it is one), ``from a import b``, relative imports, ``importlib.import_module("a.b")``,
``__import__("a.b")`` and ``importlib.util.find_spec("a.b")`` with a literal name; inside functions and
under ``if TYPE_CHECKING:`` alike. A module's *unit* is its top-level folder (``engine``) or, for a module
directly in the package, its own name (``config``, ``settings``, ``__init__`` for the package itself).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

__all__ = ["ALLOWED", "check", "import_graph"]

LIBRARY = {"core", "errors", "config", "types", "providers", "stores", "read", "write", "scenes", "engine"}
APP_BASE = LIBRARY | {"settings", "__init__"}
# unit -> the units it may import (its own unit always allowed).
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "types": set(),
    "config": {"errors"},
    "core": {"errors"},
    "providers": {"core", "errors"},
    "stores": {"core", "errors", "providers"},
    "read": {"core", "errors", "providers", "stores"},
    "write": {"core", "errors", "providers", "stores", "read"},
    "scenes": {"core", "errors", "providers", "stores", "read", "write"},
    "engine": {"core", "errors", "providers", "stores", "read", "write", "scenes", "config", "types"},
    "testing": LIBRARY,
    "settings": LIBRARY,
    "__init__": {"errors", "config", "engine", "types"},
    "__main__": {"cli"},
    "demo": APP_BASE | {"cli"},
    "server": APP_BASE,
    "mcp": APP_BASE,
    "client": {"errors", "types", "core", "read", "__init__"},  # an HTTP client: no engine, no store
    "hub": APP_BASE | {"mcp", "client"},
    "bench": APP_BASE | {"server", "client", "testing"},
    "train": APP_BASE | {"bench", "testing"},
    "cli": APP_BASE | {"server", "mcp", "hub", "bench", "train", "client"},  # the dispatcher registers every app
}
# Vector-index adapters behind stores.ports.VectorIndex (stores.local is the shared file-per-partition base).
VECTOR_ADAPTERS = ("stores.qdrant", "stores.faiss", "stores.chroma")
# Adapters reach their port, never another adapter: (importer prefix, forbidden prefix, why).
ADAPTER_RULES = [
    ("stores", "providers.", "a store may use the provider ports only", "providers.ports"),
    ("stores.sqlite", "stores.memory", "a store adapter imports another adapter", None),
    ("stores.memory", "stores.sqlite", "a store adapter imports another adapter", None),
    *(
        (importer, forbidden, "a store or vector-index adapter imports another adapter", None)
        for importer in (*VECTOR_ADAPTERS, "stores.sqlite", "stores.memory")
        for forbidden in (*VECTOR_ADAPTERS, "stores.sqlite", "stores.memory")
        if importer != forbidden and {importer, forbidden} & set(VECTOR_ADAPTERS)
    ),
]
PROVIDER_ADAPTERS = ("providers.local", "providers.openai_compat", "providers.anthropic")


def _modules(root: Path, package: str) -> dict[str, Path]:
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join([package, *parts])] = path
    return found


def _literal_imports(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        first = node.args[0]
        if name in ("import_module", "__import__", "find_spec") and isinstance(first, ast.Constant):
            yield from [first.value] if isinstance(first.value, str) else []


def _targets(module: str, path: Path, tree: ast.AST, known: Mapping[str, Path]) -> Iterator[str]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                full = f"{source}.{alias.name}"
                yield full if full in known else source
    yield from _literal_imports(tree)


def import_graph(root: Path, package: str = "memscribe") -> dict[str, set[str]]:
    """module -> the modules of ``package`` it imports, resolved (``a.b.c`` that is not a module → ``a.b``)."""
    known = _modules(root, package)
    graph: dict[str, set[str]] = {}
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        hits = set()
        for target in _targets(module, path, tree, known):
            if target != package and not target.startswith(package + "."):
                continue
            while target not in known and "." in target:
                target = target.rpartition(".")[0]
            hits.add(target)
        graph[module] = hits - {module}
    return graph


def _unit(module: str, package: str) -> str:
    rest = module[len(package) + 1 :] if module != package else "__init__"
    return rest.split(".")[0]


def check(graph: Mapping[str, set[str]], package: str = "memscribe") -> list[str]:
    """Every import that breaks the layering, as ``"importer -> imported: why"``."""
    problems = []
    for module, targets in sorted(graph.items()):
        unit = _unit(module, package)
        allowed = ALLOWED.get(unit)
        local = module[len(package) + 1 :]
        for target in sorted(targets):
            other = _unit(target, package)
            inner = target[len(package) + 1 :]
            if allowed is None:
                problems.append(f"{module}: unit {unit!r} has no layering rule; add it to ALLOWED")
                break
            if other != unit and other not in allowed:
                problems.append(f"{module} -> {target}: {unit} may not import {other}")
                continue
            for importer, forbidden, why, exception in ADAPTER_RULES:
                if (local + ".").startswith(importer + ".") and inner.startswith(forbidden) and inner != exception:
                    problems.append(f"{module} -> {target}: {why}")
            for adapter in PROVIDER_ADAPTERS:
                if local.startswith(adapter) and inner.startswith(PROVIDER_ADAPTERS) and not inner.startswith(adapter):
                    problems.append(f"{module} -> {target}: a provider adapter imports another adapter")
    return problems
