"""PgVectorIndex passes the one VectorIndex contract (tests/contract/test_vector_index_contract.py), its
byte-level erasure test included: the scan reads the throwaway cluster's table files after a checkpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from contract.test_vector_index_contract import *  # noqa: F403  (the contract's tests, run here on pgvector)
from contract.test_vector_index_contract import Adapter

from memscribe.stores.postgres.vector_index import PgVectorIndex

pytestmark = pytest.mark.postgres


@pytest.fixture
def adapter(pg_cluster: Any) -> Adapter:
    url = pg_cluster.create_database()
    database = url.rsplit("/", 1)[1]

    class ScannedPgVectorIndex(PgVectorIndex):
        def files(self) -> list[Path]:  # the cluster is local here, so its files can be read
            pg_cluster.psql("CHECKPOINT")
            return pg_cluster.database_files(database)

    return Adapter("pgvector", lambda path: ScannedPgVectorIndex(url))
