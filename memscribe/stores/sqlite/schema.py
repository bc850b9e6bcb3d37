"""Ordered, named migrations. Each runs once, in order, inside a transaction, and is recorded in
``migrations``. Never edit a released migration: add a new one. A migration is SQL, or a function of the
connection when rows must be rewritten by Python code."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from memscribe.core.cjk import has_cjk, segment_cjk

__all__ = ["MIGRATIONS", "migrate", "pending_migrations"]


def _segment_cjk_keywords(conn: sqlite3.Connection) -> None:
    """Re-index the texts holding Chinese, Japanese or Korean as characters and character bigrams
    (``core.cjk``), which is how keyword search reads them from now on. Other texts stay as they were."""
    rows = conn.execute("SELECT rowid, text FROM memories_fts").fetchall()
    changed = [(segment_cjk(text), rowid) for rowid, text in rows if has_cjk(text)]
    conn.executemany("UPDATE memories_fts SET text = ? WHERE rowid = ?", changed)


MIGRATIONS: tuple[tuple[str, str | Callable[[sqlite3.Connection], None]], ...] = (
    (
        "0001_records",
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE episodes (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            tenant TEXT NOT NULL, user_id TEXT NOT NULL,
            agent_id TEXT, session_id TEXT, project TEXT,
            idempotency_key TEXT NOT NULL,
            source TEXT NOT NULL,
            timestamp TEXT NOT NULL,
            messages TEXT NOT NULL,
            metadata TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending',
            attempts INTEGER NOT NULL DEFAULT 0,
            error TEXT,
            created_at TEXT NOT NULL,
            processed_at TEXT,
            UNIQUE (tenant, user_id, idempotency_key)
        );
        CREATE INDEX episodes_open ON episodes(status, rowid) WHERE status != 'done';
        CREATE INDEX episodes_partition ON episodes(tenant, user_id, timestamp);

        -- One row per version of a memory; ``id`` names the memory across its versions.
        CREATE TABLE memories (
            rowid INTEGER PRIMARY KEY,
            version_id TEXT NOT NULL UNIQUE,
            id TEXT NOT NULL,
            version INTEGER NOT NULL,
            tenant TEXT NOT NULL, user_id TEXT NOT NULL,
            agent_id TEXT, session_id TEXT, project TEXT,
            text TEXT NOT NULL,
            subject TEXT NOT NULL,
            slot TEXT, value TEXT,
            owner TEXT NOT NULL, layer TEXT NOT NULL, scene TEXT NOT NULL,
            tags TEXT NOT NULL,
            episode_id TEXT, message_indices TEXT NOT NULL,
            confidence REAL NOT NULL,
            writer TEXT NOT NULL, embedding_model TEXT, source TEXT,
            valid_from TEXT NOT NULL, valid_to TEXT,
            recorded_at TEXT NOT NULL, retired_at TEXT,
            status TEXT NOT NULL,
            supersedes TEXT, superseded_by TEXT,
            metadata TEXT NOT NULL,
            UNIQUE (id, version),
            CHECK (valid_to IS NULL OR valid_to >= valid_from),
            CHECK (retired_at IS NULL OR retired_at >= recorded_at)
        );
        -- The version invariant, enforced by the database: exactly one current row per memory.
        CREATE UNIQUE INDEX memories_current ON memories(id) WHERE retired_at IS NULL;
        CREATE INDEX memories_partition ON memories(tenant, user_id, status, rowid) WHERE retired_at IS NULL;
        CREATE INDEX memories_slot ON memories(tenant, user_id, slot) WHERE retired_at IS NULL;
        CREATE INDEX memories_subject ON memories(tenant, user_id, subject) WHERE retired_at IS NULL;
        CREATE INDEX memories_lineage ON memories(tenant, user_id, id, version);
        CREATE INDEX memories_episode ON memories(episode_id);

        CREATE TABLE vectors (
            rowid INTEGER PRIMARY KEY,  -- memories.rowid
            tenant TEXT NOT NULL, user_id TEXT NOT NULL,
            model TEXT NOT NULL, dim INTEGER NOT NULL,
            vector BLOB NOT NULL
        );
        CREATE INDEX vectors_partition ON vectors(tenant, user_id);

        -- What the per-partition ANN index must replay: current active rows entering and leaving.
        CREATE TABLE vector_log (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            tenant TEXT NOT NULL, user_id TEXT NOT NULL,
            key INTEGER NOT NULL,
            op TEXT NOT NULL CHECK (op IN ('add', 'remove'))
        );
        CREATE INDEX vector_log_partition ON vector_log(tenant, user_id, seq);

        CREATE TABLE journal (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            episode_id TEXT,
            tenant TEXT NOT NULL, user_id TEXT NOT NULL,
            agent_id TEXT, session_id TEXT, project TEXT,
            kind TEXT NOT NULL,
            memory_id TEXT, version_id TEXT,
            reason TEXT NOT NULL,
            candidates TEXT NOT NULL,
            writer TEXT NOT NULL,
            accepted INTEGER NOT NULL,
            model TEXT, prompt_version TEXT,
            calls INTEGER NOT NULL DEFAULT 0,
            tokens_in INTEGER NOT NULL DEFAULT 0,
            tokens_out INTEGER NOT NULL DEFAULT 0,
            latency_ms REAL NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL
        );
        CREATE INDEX journal_memory ON journal(tenant, user_id, memory_id);
        CREATE INDEX journal_episode ON journal(tenant, user_id, episode_id);

        -- Keyword index. ``part`` holds one token per partition so a MATCH never leaves it.
        CREATE VIRTUAL TABLE memories_fts USING fts5(text, part, tokenize = 'unicode61 remove_diacritics 2');
        """,
    ),
    (
        "0002_keyword_vocabulary",
        """
        -- Document frequency per term, so very common query words can be left out of a keyword search.
        CREATE VIRTUAL TABLE memories_fts_vocab USING fts5vocab(memories_fts, 'row');
        """,
    ),
    (
        "0003_pending_writer",
        """
        -- A pending episode is written by the writer (and model) it was submitted with, never another's;
        -- a failed one waits until retry_at (exponential backoff) before it is tried again.
        ALTER TABLE episodes ADD COLUMN writer TEXT;
        ALTER TABLE episodes ADD COLUMN model TEXT;
        ALTER TABLE episodes ADD COLUMN retry_at TEXT;
        """,
    ),
    ("0004_cjk_keywords", _segment_cjk_keywords),
    (
        "0005_unembedded",
        """
        -- Memory versions stored (row, keyword index, journal) whose vector is still to be computed; the engine's
        -- indexer embeds them in batches and a search embeds its partition's first. No content is kept here.
        CREATE TABLE unembedded (
            rowid INTEGER PRIMARY KEY,  -- memories.rowid
            tenant TEXT NOT NULL, user_id TEXT NOT NULL
        );
        CREATE INDEX unembedded_partition ON unembedded(tenant, user_id, rowid);
        """,
    ),
)


def pending_migrations(conn: sqlite3.Connection) -> list[str]:
    """Names of the migrations this database still lacks (read only: no table is created)."""
    try:
        done = {row[0] for row in conn.execute("SELECT name FROM migrations")}
    except sqlite3.OperationalError:  # a new, empty file
        done = set()
    return [name for name, _ in MIGRATIONS if name not in done]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply pending migrations in order; returns the names applied. The caller holds the writer lock."""
    conn.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    done = {row[0] for row in conn.execute("SELECT name FROM migrations")}
    applied = []
    for name, sql in MIGRATIONS:
        if name in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            if callable(sql):
                sql(conn)
            else:
                for statement in _statements(sql):
                    conn.execute(statement)
            conn.execute("INSERT INTO migrations VALUES (?, datetime('now'))", (name,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        applied.append(name)
    return applied


def _statements(sql: str) -> list[str]:
    # executescript would commit implicitly; split instead so a migration stays one transaction.
    lines = [line for line in sql.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
