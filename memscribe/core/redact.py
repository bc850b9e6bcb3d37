"""Secret redaction. Runs on every message before anything is stored, embedded or journaled."""

from __future__ import annotations

import re

__all__ = ["REDACTED", "redact"]

REDACTED = "[REDACTED]"

# Each pattern matches the secret itself (group "secret" when the key name must stay readable). Order
# matters: specific token formats first, so the generic "password is ..." rule sees an already-redacted
# token and leaves it alone.
_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE | re.DOTALL)
    for p in (
        r"-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z ]*PRIVATE KEY(?: BLOCK)?-----|$)",
        r"\bsk-(?:proj-|ant-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,}",
        r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",  # Stripe secret and restricted keys
        r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}",
        r"\bglpat-[A-Za-z0-9_\-]{20,}",  # GitLab personal access token
        r"\bnpm_[A-Za-z0-9]{36}\b",
        r"\bxox[abprs]-[A-Za-z0-9\-]{10,}",
        r"https://hooks\.slack\.com/services/[A-Za-z0-9/]+",
        r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}",  # SendGrid
        r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",  # AWS access key ids (long-lived and temporary)
        r"\baws_?secret_?(?:access_?)?key\s*[=:]\s*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})",
        r"\bAIza[0-9A-Za-z_\-]{35}\b",
        r"\bya29\.[0-9A-Za-z_\-]{20,}",  # Google OAuth access token
        r"\bhf_[A-Za-z0-9]{30,}\b",
        r"\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
        r"\b(?:bearer)\s+(?P<secret>[A-Za-z0-9._\-]{16,})",
        # "the password for the wifi is X"; other key words only directly ("the secret to life is" is prose)
        r"(?:password|passwd|pwd|passphrase|passcode)(?:\s+(?:for|to|of|on)\s+(?:my\s+|the\s+)?[\w.'-]+"
        r"(?:\s+[\w.'-]+)?)?\s*(?:is|=|:|'s)\s*[\"']?(?P<secret>(?!\[REDACTED\])[^\s\"',;]{4,})",
        r"(?:secret|api[_ -]?key|access[_ -]?token|auth[_ -]?token|refresh[_ -]?token|client[_ -]?secret"
        r"|private[_ -]?key|token)\s*(?:is|=|:)\s*[\"']?(?P<secret>(?!\[REDACTED\])[^\s\"',;]{4,})",
        r"\b(?:pin|pin code|pin number)\s*(?:is|=|:)\s*(?P<secret>\d{4,8})\b",
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
