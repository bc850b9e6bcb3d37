"""The record-store contract, run against every built-in backend: the shipped suite
(:class:`memscribe.testing.contract.StoreContract`: episodes, versions and their invariants, ``as_of`` and
every RecordFilter field, keyword and vector search, the journal, forget, purge, reindex, stats, partitions)
plus what needs the backend's files or several processes: a purge leaves no byte of the purged texts in the
store's data, writers in several processes and threads all land, and an episode applied by racing writers
is applied once. SQLite and the in-memory fake always run; PostgreSQL runs under ``make test-postgres``."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path
from typing import Any

import pytest

from contract._record_store_workers import write_facts
from memscribe.core.records import Scope
from memscribe.stores.memory import InMemoryStore
from memscribe.stores.ports import Changeset, RecordFilter, Store
from memscribe.stores.sqlite import SQLiteStore
from memscribe.testing.contract import StoreContract, changeset, make_entry, make_episode, make_record

HISTORY = RecordFilter(include_history=True)
VICTIM, BYSTANDER = Scope("victim", tenant="acme"), Scope("bystander", tenant="acme")


class RecordStoreExtras:
    """Contract tests that read a backend's files or open it from other processes. A backend says how with
    :meth:`spec` (what :func:`memscribe.stores.factory.open_store` opens) and :meth:`stored_bytes`."""

    make_store: Any

    def spec(self, tmp_path: Path) -> str | None:
        """A spec another process can open the same (empty) store from; None: not shareable."""
        return None

    def stored_bytes(self, store: Store) -> bytes | None:
        """Every byte the backend holds for ``store`` (its files, flushed); None: nothing on disk."""
        return None

    def test_purge_leaves_no_byte_of_the_purged_texts(self, tmp_path: Path) -> None:
        store = self.make_store(tmp_path)
        try:
            texts = [f"Quux{i} moved to Zorbtown number {i} last spring." for i in range(40)]
            episode = make_episode(VICTIM, *texts[:5])
            store.put_episode(episode)
            victim = [make_record(VICTIM, text, episode_id=episode.id) for text in texts]
            kept = make_record(BYSTANDER, "Bystander keeps a Flimflam notebook on the shelf")
            entry = make_entry(VICTIM, victim[0].id, episode_id=episode.id, reason=texts[0])
            assert store.apply(changeset(VICTIM.partition, victim, journal=(entry,), episode_id=episode.id))
            assert store.apply(changeset(BYSTANDER.partition, [kept]))
            report = store.purge(VICTIM.partition)
            assert report.verified and (report.memories, report.episodes, report.journal) == (40, 1, 1)
            assert store.query(VICTIM.partition, HISTORY) == [] and store.get(BYSTANDER.partition, kept.id) == kept
            blob = self.stored_bytes(store)
            if blob is None:
                return
            assert kept.text.encode() in blob  # the scan reads the live data ...
            assert [t for t in texts if t.encode() in blob] == []  # ... and none of the purged texts
            assert b"Zorbtown" not in blob
        finally:
            store.close()

    def test_writers_in_several_processes_all_land(self, tmp_path: Path) -> None:
        spec = self.spec(tmp_path)
        if spec is None:
            pytest.skip("this backend lives in one process")
        processes, threads, writes = 3, 3, 6
        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            jobs = [pool.apply_async(write_facts, (spec, p, threads, writes)) for p in range(processes)]
            acknowledged = {vid for job in jobs for vid in job.get(timeout=240)}
        assert len(acknowledged) == processes * threads * writes
        store = self.make_store_at(spec)
        try:
            partitions = {("acme", "shared")} | {
                ("acme", f"p{p}t{t}") for p in range(processes) for t in range(threads)
            }
            found = {r.version_id for part in partitions for r in store.query(part, RecordFilter(), limit=1000)}
            assert found == acknowledged
            assert store.stats()["journal"] == len(acknowledged) and store.check() == []
        finally:
            store.close()

    def make_store_at(self, spec: str) -> Store:
        from memscribe.stores.factory import open_store

        return open_store(spec)

    def test_an_episode_raced_by_writers_is_applied_once(self, tmp_path: Path) -> None:
        store = self.make_store(tmp_path)
        try:
            episode = make_episode(VICTIM, "I like green tea")
            store.put_episode(episode)
            results: list[bool] = []
            errors: list[BaseException] = []

            def write(n: int) -> None:
                try:
                    fact = make_record(VICTIM, f"likes green tea (writer {n})")
                    entry = make_entry(VICTIM, fact.id, episode_id=episode.id)
                    results.append(store.apply(changeset(VICTIM.partition, [fact], journal=(entry,),
                                                         episode_id=episode.id)))  # fmt: skip
                except BaseException as exc:  # raised again below
                    errors.append(exc)

            racers = [threading.Thread(target=write, args=(n,)) for n in range(6)]
            for racer in racers:
                racer.start()
            for racer in racers:
                racer.join()
            assert errors == [] and sorted(results) == [False] * 5 + [True]
            assert len(store.query(VICTIM.partition, HISTORY)) == 1
            assert len(store.journal(VICTIM.partition, episode_id=episode.id)) == 1
            assert store.apply(Changeset(VICTIM.partition, episode.id)) is False  # done stays done
        finally:
            store.close()


class TestSQLiteStore(StoreContract, RecordStoreExtras):
    def make_store(self, tmp_path: Path) -> Store:
        return SQLiteStore(tmp_path / "memscribe.db")

    def spec(self, tmp_path: Path) -> str:
        return str(tmp_path / "shared.db")

    def stored_bytes(self, store: Store) -> bytes:
        assert isinstance(store, SQLiteStore)
        store.close()  # flushes the WAL and saves the indexes, as a shutdown does
        files = [p for p in store.path.parent.rglob("*") if p.is_file()]
        return b"".join(p.read_bytes() for p in files)


class TestInMemoryStore(StoreContract, RecordStoreExtras):
    def make_store(self, tmp_path: Path) -> Store:
        return InMemoryStore()


@pytest.mark.postgres
class TestPostgresStore(StoreContract, RecordStoreExtras):
    cluster: Any

    @pytest.fixture(autouse=True)
    def _cluster(self, pg_cluster: Any) -> None:
        self.cluster = pg_cluster

    def make_store(self, tmp_path: Path) -> Store:
        from memscribe.stores.postgres import PostgresStore

        return PostgresStore(self.cluster.create_database())

    def spec(self, tmp_path: Path) -> str:
        return str(self.cluster.create_database())

    def stored_bytes(self, store: Store) -> bytes:
        database = getattr(store, "url", "").rsplit("/", 1)[1]
        self.cluster.psql("CHECKPOINT")  # the shared buffers written to the table files
        return b"".join(p.read_bytes() for p in self.cluster.database_files(database))
