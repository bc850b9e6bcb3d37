"""The store checks of ``memscribe doctor`` for a PostgreSQL store URL: the connection, the schema's
migrations, row-level security, the vector index, integrity and the counts. Nothing is migrated or written."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memscribe.stores.postgres import PostgresStore

__all__ = ["CHECKS", "connection", "counts", "migrations", "row_security", "vector_index"]

Facts = dict[str, Any]


def _unready(facts: Facts) -> str:
    # The store's own reads would migrate it first: the doctor only looks.
    return "no tables yet" if not facts["applied"] else "not read until the pending migrations are applied"


def connection(store: PostgresStore, facts: Facts) -> tuple[str, str]:
    detail = f"{store.path}: PostgreSQL {facts['server']}, role {facts['role']}"
    if facts["bypasses_rls"]:
        return "fail", f"{detail} is a superuser or BYPASSRLS: the tenancy policies do not apply to it"
    return "ok", detail


def migrations(store: PostgresStore, facts: Facts) -> tuple[str, str]:
    known, applied = facts["known"], facts["applied"]
    if not applied:
        return "warn", f"schema not created yet: {len(known)} migrations run on the first use of the store"
    if facts["missing"]:
        return "fail", f"not applied: {', '.join(facts['missing'])} (the store migrates on its next use)"
    if facts["unknown"]:
        return "warn", f"store was migrated by a newer memscribe: {', '.join(facts['unknown'])}"
    return "ok", f"{len(applied)}/{len(known)} applied (latest {known[-1]})"


def row_security(store: PostgresStore, facts: Facts) -> tuple[str, str]:
    if not facts["applied"]:
        return "skip", "no tables yet"
    tables = facts["row_security"]
    off = [name for name, (on, forced) in sorted(tables.items()) if not (on and forced)]
    if off or len(tables) < 3:
        return "fail", f"row-level security not enabled and forced on: {', '.join(off) or 'missing tables'}"
    return "ok", f"enabled and forced on {', '.join(sorted(tables))}"


def vector_index(store: PostgresStore, facts: Facts) -> tuple[str, str]:
    if facts["pgvector"] is None:
        return "fail", "the vector extension (pgvector) is not installed in this database"
    if not facts["applied"] or facts["missing"]:
        return "skip", f"pgvector {facts['pgvector']}; {_unready(facts)}"
    known = store.embedding_model()
    indexes = facts["indexes"]
    keyword = "keyword index present" if "memories_keywords" in indexes else "keyword index MISSING"
    if known is None:
        return "ok", f"pgvector {facts['pgvector']}; no vectors stored yet; {keyword}"
    if "memories_hnsw" not in indexes:
        return "warn", (f"pgvector {facts['pgvector']}; {known[0]} dim {known[1]}; HNSW index not built yet "
                        f"(built on the first vector search, or now by `memscribe reindex`); {keyword}")  # fmt: skip
    verdict = "ok" if "memories_keywords" in indexes else "fail"
    return verdict, f"pgvector {facts['pgvector']}; {known[0]} dim {known[1]}; HNSW index present; {keyword}"


def counts(store: PostgresStore, facts: Facts) -> tuple[str, str]:
    if not facts["applied"] or facts["missing"]:
        return "skip", _unready(facts)
    stats = store.stats()
    problems = store.check()
    detail = (f"{stats['current']} current memories ({stats['versions']} versions), {stats['episodes']} episodes, "
              f"{stats['journal']} journal entries, {stats['bytes'] / 2**20:.1f} MiB")  # fmt: skip
    if problems:
        return "fail", f"{detail}; {'; '.join(problems)}"
    if stats["pending_episodes"]:
        return "warn", f"{detail}; {stats['pending_episodes']} episodes not yet written"
    return "ok", detail


CHECKS: tuple[tuple[str, Callable[[PostgresStore, Facts], tuple[str, str]]], ...] = (
    ("migrations", migrations),
    ("row-level security", row_security),
    ("vector index", vector_index),
    ("integrity and counts", counts),
)
