"""PostgreSQL + pgvector backend (``memscribe[postgres]``)."""

from memscribe.stores.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
