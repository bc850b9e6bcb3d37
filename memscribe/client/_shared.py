"""Defaults both clients share."""

from __future__ import annotations

__all__ = ["DEFAULT_URL", "headers_for"]

DEFAULT_URL = "http://127.0.0.1:8765"


def headers_for(api_key: str | None) -> dict[str, str]:
    from memscribe import __version__

    headers = {"user-agent": f"memscribe-client/{__version__}"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    return headers
