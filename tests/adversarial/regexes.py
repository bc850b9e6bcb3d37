"""Every compiled regular expression memscribe keeps at module level (directly, or in a tuple, list, dict or
dataclass there), and adversarial inputs to time them on."""

from __future__ import annotations

import importlib
import pkgutil
import re
from typing import Any

import memscribe
from memscribe.errors import ConfigError
from memscribe.write.lite.lazy import LazyPattern

SKIP_PACKAGES = ("memscribe.bench", "memscribe.testing")  # not on the path of user input

SEEDS = [
    "a",
    "A1",
    " ",
    "\n",
    "sk-",
    "eyJ",
    "eyJa.",
    "-",
    "a://",
    "a://b:",
    "x:",
    "@",
    ":a@",
    "password ",
    "password for a ",
    '"password": "',
    "1",
    "1 ",
    "AKIA",
    "-----BEGIN PRIVATE KEY-----",
    "?token=",
    "aA1/",
    "bearer ",
    "_",
    "a_",
    "PASSWORD_",
    "passphrase is ",
    "=",
    "a=",
    "8Q~",
    "otpauth://a?",
    "1234567890:AA",
    "token ",
    "-u a:",
    "--password ",
    "'a':'",
    "Aa0.",
    "a.",
    "a-",
    "I ",
    "I am ",
    "my ",
    "the ",
    ", ",
    "... ",
    "2023-",
    "12:00 ",
    "yesterday ",
    "in the ",
    "Mr. ",
    "'s ",
    "and ",
    "(",
    '"a',
    "é",
    "日本",
]


def _collect(value: Any, found: dict[int, re.Pattern[str]], depth: int = 0) -> None:
    if isinstance(value, LazyPattern):  # the lite writer's patterns compile on first use
        value = value.compiled
    if isinstance(value, re.Pattern):
        if isinstance(value.pattern, str):
            found[id(value)] = value
    elif depth < 3 and isinstance(value, tuple | list | frozenset | set):
        for item in value:
            _collect(item, found, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for key, item in value.items():
            _collect(key, found, depth + 1)
            _collect(item, found, depth + 1)


def module_patterns() -> list[tuple[str, re.Pattern[str]]]:
    found: dict[int, tuple[str, re.Pattern[str]]] = {}
    for info in pkgutil.walk_packages(memscribe.__path__, "memscribe."):
        if info.name.startswith(SKIP_PACKAGES) or ".__main__" in info.name:
            continue
        try:
            module = importlib.import_module(info.name)
        except (ImportError, ConfigError):  # an extra that is not installed
            continue
        for name, value in vars(module).items():
            if name.startswith("__"):
                continue
            local: dict[int, re.Pattern[str]] = {}
            _collect(value, local)
            for key, pattern in local.items():
                found.setdefault(key, (f"{info.name}.{name}", pattern))
    return sorted(found.values(), key=lambda item: item[0])


def build(seed: str, n: int) -> str:
    return (seed * (n // len(seed) + 1))[:n]
