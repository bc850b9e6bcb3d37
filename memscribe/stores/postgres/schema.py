"""Ordered, named migrations for PostgresStore. Each runs once, in order, in its own transaction, under an
advisory lock (so processes starting together migrate once), and is recorded in ``memscribe_migrations``.
Never edit a released migration: add a new one.

Tenancy is enforced by the database: every table holding user data has row-level security, forced for the
table owner too, with one policy reading the partition the store sets at the start of each transaction
(``memscribe.tenant`` / ``memscribe.user_id``; ``*`` widens to every user of the tenant, or every tenant, for
the store-wide reads the engine needs: recovery of pending episodes, stats, reindex). A query that forgot its
partition clause still sees only its own partition's rows. Roles that are superusers or have BYPASSRLS skip
the policies; :meth:`PostgresStore.check` reports such a connection.

The ``vector`` extension (pgvector) must be creatable by the store's role or already created by a DBA;
``unaccent`` is a trusted extension any database owner may create.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MIGRATIONS", "hnsw_index_sql", "migrate", "pending_migrations"]

_LOCK = 0x6D656D73  # pg_advisory_xact_lock key: "mems"

_POLICY = """
    ALTER TABLE {t} ENABLE ROW LEVEL SECURITY;
    ALTER TABLE {t} FORCE ROW LEVEL SECURITY;
    CREATE POLICY {t}_partition ON {t}
        USING (memscribe_visible(tenant, user_id)) WITH CHECK (memscribe_visible(tenant, user_id));
"""

MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "0001_extensions",
        """
        CREATE EXTENSION IF NOT EXISTS vector;
        CREATE EXTENSION IF NOT EXISTS unaccent;
        -- Keyword search reads words as FTS5's unicode61 tokenizer does: no stemming, no stop words, case
        -- and diacritics folded. CJK text arrives segmented into characters and bigrams (core.cjk).
        CREATE TEXT SEARCH CONFIGURATION memscribe_words (COPY = simple);
        ALTER TEXT SEARCH CONFIGURATION memscribe_words
            ALTER MAPPING FOR word, asciiword, hword, hword_part, hword_asciipart, asciihword
            WITH unaccent, simple;
        CREATE FUNCTION memscribe_visible(t text, u text) RETURNS boolean LANGUAGE sql STABLE AS $$
            SELECT CASE current_setting('memscribe.tenant', true)
                WHEN '*' THEN true
                ELSE t = current_setting('memscribe.tenant', true)
                    AND (current_setting('memscribe.user_id', true) IN ('*', u))
            END
        $$;
        """,
    ),
    (
        "0002_records",
        """
        -- Store-wide settings: the embedding model and width every vector has.
        CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
        CREATE TABLE episodes (
            seq bigserial PRIMARY KEY,
            id text NOT NULL UNIQUE,
            tenant text NOT NULL, user_id text NOT NULL,
            agent_id text, session_id text, project text,
            idempotency_key text NOT NULL,
            source text NOT NULL,
            timestamp timestamptz NOT NULL,
            messages text NOT NULL,
            metadata text NOT NULL,
            status text NOT NULL DEFAULT 'pending',
            attempts integer NOT NULL DEFAULT 0,
            error text,
            created_at timestamptz NOT NULL,
            processed_at timestamptz,
            writer text, model text, retry_at timestamptz,
            UNIQUE (tenant, user_id, idempotency_key)
        );
        CREATE INDEX episodes_open ON episodes (seq) WHERE status != 'done';
        CREATE INDEX episodes_partition ON episodes (tenant, user_id, timestamp, seq);

        -- One row per version of a memory; ``id`` names the memory across its versions.
        CREATE TABLE memories (
            seq bigserial PRIMARY KEY,
            version_id text NOT NULL UNIQUE,
            id text NOT NULL,
            version integer NOT NULL,
            tenant text NOT NULL, user_id text NOT NULL,
            agent_id text, session_id text, project text,
            text text NOT NULL,
            subject text NOT NULL,
            slot text, value text,
            owner text NOT NULL, layer text NOT NULL, scene text NOT NULL,
            tags text NOT NULL,
            episode_id text, message_indices text NOT NULL,
            confidence double precision NOT NULL,
            writer text NOT NULL, embedding_model text, source text,
            valid_from timestamptz NOT NULL, valid_to timestamptz,
            recorded_at timestamptz NOT NULL, retired_at timestamptz,
            status text NOT NULL,
            supersedes text, superseded_by text,
            metadata text NOT NULL,
            keywords tsvector NOT NULL,
            embedding vector NOT NULL,
            UNIQUE (id, version),
            CHECK (valid_to IS NULL OR valid_to >= valid_from),
            CHECK (retired_at IS NULL OR retired_at >= recorded_at)
        );
        -- The version invariant, enforced by the database: exactly one current row per memory.
        CREATE UNIQUE INDEX memories_current ON memories (id) WHERE retired_at IS NULL;
        CREATE INDEX memories_partition ON memories (tenant, user_id, status, seq) WHERE retired_at IS NULL;
        CREATE INDEX memories_recent ON memories (tenant, user_id, valid_from DESC, id DESC, version DESC);
        CREATE INDEX memories_slot ON memories (tenant, user_id, slot) WHERE retired_at IS NULL;
        CREATE INDEX memories_subject ON memories (tenant, user_id, subject) WHERE retired_at IS NULL;
        CREATE INDEX memories_lineage ON memories (tenant, user_id, id, version);
        CREATE INDEX memories_episode ON memories (episode_id);
        CREATE INDEX memories_keywords ON memories USING gin (keywords);

        CREATE TABLE journal (
            seq bigserial PRIMARY KEY,
            id text NOT NULL UNIQUE,
            episode_id text,
            tenant text NOT NULL, user_id text NOT NULL,
            agent_id text, session_id text, project text,
            kind text NOT NULL,
            memory_id text, version_id text,
            reason text NOT NULL,
            candidates text NOT NULL,
            writer text NOT NULL,
            accepted boolean NOT NULL,
            model text, prompt_version text,
            calls integer NOT NULL DEFAULT 0,
            tokens_in integer NOT NULL DEFAULT 0,
            tokens_out integer NOT NULL DEFAULT 0,
            latency_ms double precision NOT NULL DEFAULT 0,
            created_at timestamptz NOT NULL
        );
        CREATE INDEX journal_memory ON journal (tenant, user_id, memory_id);
        CREATE INDEX journal_episode ON journal (tenant, user_id, episode_id);
        """
        + "".join(_POLICY.format(t=t) for t in ("episodes", "memories", "journal")),
    ),
    (
        "0003_keyword_estimates",
        """
        -- How many memories hold each word, store-wide, as the planner estimates it from the keywords
        -- column's statistics: keyword search keeps the rarer query words by it (the pg_stats view hides
        -- those statistics from a role under row-level security; the planner reads them all the same). The
        -- estimates of a table under row-level security include the policy's selectivity: divided out
        -- against the table's row count. NULL before the table's first ANALYZE.
        CREATE FUNCTION memscribe_word_rows(words text[]) RETURNS bigint[] LANGUAGE plpgsql VOLATILE AS $$
        DECLARE
            plan json;
            total double precision;
            visible double precision;
            found bigint[] := '{}';
            word text;
        BEGIN
            SELECT reltuples INTO total FROM pg_class WHERE oid = 'memories'::regclass;
            IF total IS NULL OR total <= 0 THEN
                RETURN NULL;
            END IF;
            EXECUTE 'EXPLAIN (FORMAT JSON) SELECT 1 FROM memories' INTO plan;
            visible := greatest((plan->0->'Plan'->>'Plan Rows')::double precision, 1);
            FOREACH word IN ARRAY words LOOP
                EXECUTE format('EXPLAIN (FORMAT JSON) SELECT 1 FROM memories WHERE keywords @@ %L::tsquery',
                               phraseto_tsquery('memscribe_words', word)) INTO plan;
                found := found || round((plan->0->'Plan'->>'Plan Rows')::double precision * total / visible)::bigint;
            END LOOP;
            RETURN found;
        END
        $$;
        """,
    ),
)


def hnsw_index_sql(dim: int) -> str:
    """The ANN index over current, active versions, created once the store knows its vectors' width (a
    ``vector`` column needs a fixed width to be indexed) and is first searched."""
    return (
        f"CREATE INDEX IF NOT EXISTS memories_hnsw ON memories USING hnsw ((embedding::vector({int(dim)})) "
        "vector_ip_ops) WHERE retired_at IS NULL AND status = 'active'"
    )


def pending_migrations(conn: Any) -> list[str]:
    """Names of the migrations this database still lacks (reads only)."""
    exists = conn.execute("SELECT to_regclass('memscribe_migrations') IS NOT NULL").fetchone()[0]
    done = {r[0] for r in conn.execute("SELECT name FROM memscribe_migrations")} if exists else set()
    return [name for name, _ in MIGRATIONS if name not in done]


def migrate(conn: Any) -> list[str]:
    """Apply pending migrations in order on ``conn`` (autocommit off); returns the names applied."""
    applied = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS memscribe_migrations (name text PRIMARY KEY, applied_at timestamptz "
            "NOT NULL DEFAULT now())"
        )
        done = {r[0] for r in conn.execute("SELECT name FROM memscribe_migrations")}
        for name, sql in MIGRATIONS:
            if name in done:
                continue
            with conn.transaction():  # a savepoint: one failed migration leaves the ones before it applied
                conn.execute(sql)
                conn.execute("INSERT INTO memscribe_migrations (name) VALUES (%s)", (name,))
            applied.append(name)
    return applied
