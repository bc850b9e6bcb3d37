"""API keys per tenant, kept hashed in a small SQLite file of their own (``keys.db`` beside the store).

A key reads ``msk_<key id>_<secret>``. Only the id, a per-key random salt and ``sha256(salt + secret)`` are
stored; the secret is shown once, when the key is created. Lookups go by id, so verifying a key costs one
indexed read and one hash, compared in constant time.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import re
import secrets
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memscribe.errors import InvalidInput, NotFound, ScopeError

__all__ = ["ApiKey", "KeyStore", "NewKey"]

_PREFIX = "msk"
_KEY_RE = re.compile(r"^msk_([0-9a-f]{16})_([A-Za-z0-9_\-]{20,100})$")
_TENANT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    salt BLOB NOT NULL,
    digest TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
CREATE INDEX IF NOT EXISTS api_keys_tenant ON api_keys (tenant);
"""


@dataclass(frozen=True)
class ApiKey:
    """A stored key, without its secret."""

    id: str
    tenant: str
    name: str
    created_at: str
    revoked_at: str | None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


@dataclass(frozen=True)
class NewKey:
    """A key just created: ``token`` is the only copy of the secret."""

    key: ApiKey
    token: str


def _digest(salt: bytes, secret: str) -> str:
    return hashlib.sha256(salt + secret.encode()).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class KeyStore:
    """Create, verify, list and revoke tenant API keys. The file is created on the first write."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    @contextlib.contextmanager
    def _connect(self, *, create: bool = False) -> Iterator[sqlite3.Connection | None]:
        # One short-lived connection per call: the store is tiny and called from many threads.
        if not create and not self.path.exists():
            yield None
            return
        if create and not self.path.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600)  # the hashes are nobody else's business
            os.close(fd)
        conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        try:
            conn.executescript(_SCHEMA)
            yield conn
        finally:
            conn.close()

    def create(self, tenant: str, name: str = "") -> NewKey:
        """A new key for ``tenant``; the returned token is not stored anywhere."""
        if not isinstance(tenant, str) or not _TENANT_RE.match(tenant):
            raise ScopeError("tenant must be 1-64 characters: letters, digits, '_', '-', '.'")
        if not isinstance(name, str) or len(name) > 200:
            raise InvalidInput("key name must be a string of at most 200 characters")
        key_id, secret, salt = secrets.token_hex(8), secrets.token_urlsafe(32), secrets.token_bytes(16)
        key = ApiKey(id=key_id, tenant=tenant, name=name, created_at=_now(), revoked_at=None)
        with self._connect(create=True) as conn:
            assert conn is not None
            conn.execute(
                "INSERT INTO api_keys (id, tenant, name, salt, digest, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (key.id, tenant, name, salt, _digest(salt, secret), key.created_at),
            )
        return NewKey(key=key, token=f"{_PREFIX}_{key_id}_{secret}")

    def verify(self, token: str) -> ApiKey | None:
        """The key ``token`` names, revoked or not, when its secret matches; otherwise None."""
        match = _KEY_RE.match(token)
        if match is None:
            return None
        key_id, secret = match.groups()
        with self._connect() as conn:
            sql = "SELECT id, tenant, name, created_at, revoked_at, salt, digest FROM api_keys WHERE id = ?"
            row = None if conn is None else conn.execute(sql, (key_id,)).fetchone()
        if row is None or not hmac.compare_digest(_digest(row[5], secret), row[6]):
            return None
        return ApiKey(*row[:5])

    def list(self, tenant: str | None = None) -> list[ApiKey]:
        """Every key (or one tenant's), oldest first."""
        sql = "SELECT id, tenant, name, created_at, revoked_at FROM api_keys"
        params: tuple[str, ...] = ()
        if tenant is not None:
            sql, params = sql + " WHERE tenant = ?", (tenant,)
        with self._connect() as conn:
            rows = [] if conn is None else conn.execute(sql + " ORDER BY created_at, id", params).fetchall()
        return [ApiKey(*row) for row in rows]

    def revoke(self, key_id: str) -> ApiKey:
        """Revoke a key by id; revoking twice keeps the first revocation time."""
        with self._connect() as conn:
            if conn is not None:
                conn.execute("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", (_now(), key_id))
                row = conn.execute(
                    "SELECT id, tenant, name, created_at, revoked_at FROM api_keys WHERE id = ?", (key_id,)
                ).fetchone()
                if row is not None:
                    return ApiKey(*row)
        raise NotFound(f"no API key {key_id!r}")
