"""Conditions of a solution read from commands and tool output: tool and library versions, platforms, and
the *names* of environment variables. Values of environment variables are never kept: :func:`strip_env_values`
removes them from any text before it reaches a memory, on top of the engine's secret redaction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from memscribe.core.redact import redact

__all__ = ["ENV_VALUE", "Conditions", "read_conditions", "strip_env_values"]

ENV_VALUE: Final = "<value>"
_NAME: Final = r"[A-Z][A-Z0-9_]{1,63}"
# NAME=value forms: shell (optionally after export/set/env), PowerShell $env:NAME = value, dotenv/YAML lines.
_ASSIGN: Final = re.compile(
    rf"(?P<lead>(?:\bexport\s+|\bset\s+|\benv\s+|\$env:)?)\b(?P<name>{_NAME})(?P<op>\s*=\s*)"
    r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s;&|]+)"
)
# One line each: blanks are spaces and tabs only, and never two quantifiers in a row (linear on long blank runs).
_YAML_ENV: Final = re.compile(rf"^(?P<lead>[ \t]*(?:-[ \t]*)?)(?P<name>{_NAME})(?P<op>:[ \t]+)(?P<value>\S.*)$", re.M)
_REFERENCES: Final = (
    re.compile(rf"\$\{{?(?P<name>{_NAME})\}}?"),
    re.compile(rf"environ(?:\.get)?[\[(]\s*[\"'](?P<name>{_NAME})[\"']"),
    re.compile(rf"getenv\(\s*[\"'](?P<name>{_NAME})[\"']"),
    re.compile(rf"process\.env\.(?P<name>{_NAME})\b"),
    re.compile(rf"env::var\(\s*\"(?P<name>{_NAME})\""),
)
_KNOWN_TOOLS: Final = (
    "python|node|nodejs|npm|pnpm|yarn|go|golang|rust|rustc|cargo|java|jdk|ruby|php|perl|dotnet|gcc|clang|cmake"
    "|postgres|postgresql|mysql|redis|docker|kubernetes|kubectl|helm|terraform|ubuntu|debian|macos|windows|cuda"
)
_VERSION: Final = r"v?(?P<version>\d+(?:\.\d+){1,3}(?:[-.]?(?:rc|a|b|beta|alpha)\d*)?)"
_VERSIONS: Final = (
    re.compile(rf"(?<![\w.-])(?P<name>[A-Za-z][\w.-]*)\s*(?:==|~=|>=)\s*{_VERSION}\b"),
    re.compile(rf"(?<![\w@/.-])(?P<name>@?[a-z][\w.-]*(?:/[\w.-]+)?)@{_VERSION}\b"),
    re.compile(rf"\b(?P<name>{_KNOWN_TOOLS})(?:\s+version)?[\s:-]*{_VERSION}\b", re.IGNORECASE),
    re.compile(r"\b(?P<name>actions/[\w-]+)@(?P<version>v\d+(?:\.\d+)*)"),
)
# Words that look like NAME but are not environment variables (HTTP verbs, acronyms, note markers).
_NOT_ENV: Final = frozenset({"GET", "POST", "PUT", "OK", "ID", "URL", "API", "JSON", "HTTP", "HTTPS", "NOTE", "WARN"})


@dataclass(frozen=True)
class Conditions:
    """When a solution applies: versions seen, environment variable names used, platforms named."""

    versions: dict[str, str] = field(default_factory=dict)
    env_names: tuple[str, ...] = ()

    def merged(self, other: Conditions) -> Conditions:
        """Union of both; ``other``'s version wins where both name one."""
        names = tuple(sorted(set(self.env_names) | set(other.env_names)))
        return Conditions({**self.versions, **other.versions}, names)

    def as_metadata(self) -> dict[str, object]:
        return {"versions": dict(sorted(self.versions.items())), "env": list(self.env_names)}

    def describe(self) -> str:
        parts = [f"{name} {version}" for name, version in sorted(self.versions.items())[:6]]
        if self.env_names:
            parts.append("env " + ", ".join(self.env_names[:8]))
        return "; ".join(parts)

    @staticmethod
    def from_metadata(meta: object) -> Conditions:
        if not isinstance(meta, dict):
            return Conditions()
        versions = meta.get("versions") if isinstance(meta.get("versions"), dict) else {}
        env = meta.get("env") if isinstance(meta.get("env"), list) else []
        return Conditions({str(k): str(v) for k, v in (versions or {}).items()}, tuple(str(n) for n in env or ()))


def strip_env_values(text: str) -> str:
    """``text`` with every environment-variable value replaced by ``<value>`` and secrets redacted."""

    def keep_name(match: re.Match[str]) -> str:
        if match["name"] in _NOT_ENV:
            return match.group(0)
        return f"{match['lead']}{match['name']}{match['op']}{ENV_VALUE}"

    text = _ASSIGN.sub(keep_name, text)
    text = _YAML_ENV.sub(lambda m: keep_name(m) if "_" in m["name"] else m.group(0), text)
    return redact(text)[0]


def read_conditions(texts: Iterable[str]) -> Conditions:
    """Versions and environment-variable names found in commands and tool output."""
    versions: dict[str, str] = {}
    names: set[str] = set()
    for text in texts:
        for pattern in (_ASSIGN, *_REFERENCES):
            names.update(m["name"] for m in pattern.finditer(text) if m["name"] not in _NOT_ENV)
        names.update(m["name"] for m in _YAML_ENV.finditer(text) if "_" in m["name"])
        for pattern in _VERSIONS:
            for match in pattern.finditer(text):
                versions.setdefault(match["name"].casefold(), match["version"])
    return Conditions(dict(sorted(versions.items())[:12]), tuple(sorted(names))[:16])
