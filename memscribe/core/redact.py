"""Secret redaction. Runs on every message before anything is stored, embedded or journaled."""

from __future__ import annotations

import re

__all__ = ["REDACTED", "redact"]

REDACTED = "[REDACTED]"

# Each pattern matches the secret itself (group "secret" when the key name must stay readable).
_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE | re.DOTALL)
    for p in (
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
        r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{16,}",
        r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}",
        r"\bxox[abprs]-[A-Za-z0-9\-]{10,}",
        r"\bAKIA[0-9A-Z]{16}\b",
        r"\bAIza[0-9A-Za-z_\-]{35}\b",
        r"\bhf_[A-Za-z0-9]{30,}\b",
        r"\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
        r"\b(?:bearer)\s+(?P<secret>[A-Za-z0-9._\-]{16,})",
        r"(?:password|passwd|pwd|passphrase|secret|api[_ -]?key|access[_ -]?token|auth[_ -]?token|token)"
        r"\s*(?:is|=|:)\s*[\"']?(?P<secret>[^\s\"',;]{4,})",
        r"(?:[a-z][a-z0-9+.\-]*://)[^\s:/@]+:(?P<secret>[^\s@/]+)@",
    )
)


def redact(text: str) -> tuple[str, int]:
    """Replace secrets in ``text`` with ``[REDACTED]``; returns the new text and the number replaced."""
    count = 0
    for pattern in _PATTERNS:

        def substitute(match: re.Match[str]) -> str:
            nonlocal count
            count += 1
            if "secret" in match.groupdict() and match.group("secret") is not None:
                start, end = match.span("secret")
                base = match.start()
                whole = match.group(0)
                return whole[: start - base] + REDACTED + whole[end - base :]
            return REDACTED

        text = pattern.sub(substitute, text)
    return text, count
