"""The journal-archive contract (:class:`memscribe.stores.ports.JournalArchive`), run against the shipped fake and
MySQL/MariaDB (``make test-services``): entries round-trip exactly, appends are idempotent, partitions never mix,
a purge erases one partition (and, on a server, leaves no byte of it in the table's files), concurrent writers
all land once, and an archive fills from a real record store."""

from __future__ import annotations

import multiprocessing
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memscribe.core.records import OpKind, Scope, Usage
from memscribe.stores.archive import InMemoryJournalArchive, archive_journal
from memscribe.stores.ports import JournalArchive
from memscribe.stores.sqlite import SQLiteStore
from memscribe.testing.contract import changeset, make_entry, make_episode, make_record

ALICE, BOB, EVE = Scope("alice", tenant="acme"), Scope("bob", tenant="acme"), Scope("alice", tenant="globex")


def _entry(scope: Scope, memory_id: str, n: int, **fields: Any) -> Any:
    return make_entry(scope, memory_id, reason=f"{scope.user_id} fact {n}", **fields)


def _append_many(spec: str, worker: int, count: int) -> list[str]:
    """A writer process: appends its own entries plus a shared batch every worker appends too."""
    from memscribe.stores.mysql import MySQLJournal

    archive = MySQLJournal(spec)
    mine = [_entry(ALICE, f"w{worker}m{i}", i) for i in range(count)]
    shared = [make_entry(ALICE, "shared", reason="shared", id=f"shared-{i}") for i in range(count)]
    for i in range(count):
        archive.append([mine[i], shared[i]])
    archive.close()
    return [e.id for e in mine]


class JournalArchiveContract:
    """Subclasses say how to make an empty archive; ``stored_bytes`` (None: nothing on disk) and ``spec``
    (None: one process only) enable the byte-level purge check and the multi-process writers."""

    def make_archive(self, tmp_path: Path) -> JournalArchive:
        raise NotImplementedError

    def stored_bytes(self, archive: JournalArchive) -> bytes | None:
        return None

    def spec(self) -> str | None:
        return None

    def test_entries_round_trip_in_order_with_filters(self, tmp_path: Path) -> None:
        archive = self.make_archive(tmp_path)
        episode = make_episode(ALICE, "I moved to Sydney")
        usage = Usage("qwen", "p-3", 2, 1200, 80, 412.5)
        entries = [
            _entry(ALICE, "m1", 0, episode_id=episode.id, usage=usage,
                   created_at=datetime(2024, 5, 1, 12, 30, 1, 123456, tzinfo=UTC)),
            _entry(ALICE, "m2", 1, kind=OpKind.SUPERSEDE, candidates=("m1", "m0"), accepted=False),
            make_entry(ALICE, "m1", reason="Zoë’s café 東京 — a long reason " + "x" * 5000),
        ]  # fmt: skip
        assert archive.append(entries) == 3
        assert archive.journal(ALICE.partition) == entries
        assert archive.journal(ALICE.partition, memory_id="m1") == [entries[0], entries[2]]
        assert archive.journal(ALICE.partition, episode_id=episode.id) == [entries[0]]
        assert archive.journal(ALICE.partition, memory_id="m2", episode_id=episode.id) == []
        archive.close()

    def test_appends_are_idempotent(self, tmp_path: Path) -> None:
        archive = self.make_archive(tmp_path)
        first = [_entry(ALICE, "m1", i) for i in range(3)]
        assert archive.append(first + first[:1]) == 3  # a duplicate inside one batch counts once
        assert archive.append(first) == 0
        assert archive.append([*first, _entry(ALICE, "m2", 9)]) == 1
        assert archive.count() == 4 and len(archive.journal(ALICE.partition)) == 4
        assert archive.append([]) == 0
        archive.close()

    def test_partitions_never_mix(self, tmp_path: Path) -> None:
        archive = self.make_archive(tmp_path)
        for scope in (ALICE, BOB, EVE):  # EVE: the same user id under another tenant
            archive.append([_entry(scope, "same-memory", 0), _entry(scope, "same-memory", 1)])
        for scope in (ALICE, BOB, EVE):
            found = archive.journal(scope.partition, memory_id="same-memory")
            assert len(found) == 2 and {e.scope.partition for e in found} == {scope.partition}
            assert archive.count(scope.partition) == 2
        assert archive.journal(("acme", "nobody")) == [] and archive.count() == 6
        archive.close()

    def test_purge_erases_one_partition(self, tmp_path: Path) -> None:
        archive = self.make_archive(tmp_path)
        victim = [make_entry(ALICE, f"m{i}", reason=f"Quux{i} moved to Zorbtown number {i}") for i in range(30)]
        kept = make_entry(EVE, "m0", reason="Bystander keeps a Flimflam notebook")
        archive.append([*victim, kept])
        assert archive.purge(ALICE.partition) == 30
        assert archive.journal(ALICE.partition) == [] and archive.journal(EVE.partition) == [kept]
        assert archive.purge(ALICE.partition) == 0
        blob = self.stored_bytes(archive)
        if blob is not None:
            assert b"Flimflam" in blob  # the scan reads the live rows ...
            assert b"Zorbtown" not in blob  # ... and no byte of the purged ones
        archive.close()

    def test_concurrent_writers_all_land_once(self, tmp_path: Path) -> None:
        archive = self.make_archive(tmp_path)
        errors: list[BaseException] = []
        batches = [[_entry(BOB, f"t{t}m{i}", i) for i in range(20)] for t in range(4)]
        shared = [make_entry(BOB, "shared", reason="shared", id=f"shared-{i}") for i in range(20)]

        def write(batch: list[Any]) -> None:
            try:
                for i, entry in enumerate(batch):
                    archive.append([entry, shared[i]])
            except BaseException as exc:  # raised again below
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(batch,)) for batch in batches]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        ids = [e.id for e in archive.journal(BOB.partition)]
        assert sorted(ids) == sorted({e.id for batch in batches for e in batch} | {e.id for e in shared})
        archive.close()

    def test_writers_in_several_processes_all_land_once(self, tmp_path: Path) -> None:
        spec = self.spec()
        if spec is None:
            pytest.skip("this archive lives in one process")
        with multiprocessing.get_context("spawn").Pool(3) as pool:
            jobs = [pool.apply_async(_append_many, (spec, w, 15)) for w in range(3)]
            acknowledged = {eid for job in jobs for eid in job.get(timeout=240)}
        archive = self.archive_at(spec)
        found = [e.id for e in archive.journal(ALICE.partition)]
        assert len(found) == len(set(found)) == 45 + 15 and acknowledged <= set(found)
        archive.close()

    def archive_at(self, spec: str) -> JournalArchive:
        raise NotImplementedError

    def test_fills_from_a_record_store(self, tmp_path: Path) -> None:
        archive = self.make_archive(tmp_path)
        store = SQLiteStore(tmp_path / "records.db")
        episode = make_episode(ALICE, "I like green tea")
        store.put_episode(episode)
        fact = make_record(ALICE, "likes green tea")
        entries = (make_entry(ALICE, fact.id, episode_id=episode.id), make_entry(ALICE, fact.id, kind=OpKind.NOOP))
        assert store.apply(changeset(ALICE.partition, [fact], journal=entries, episode_id=episode.id))
        assert archive_journal(store, archive, ALICE.partition) == 2
        assert archive_journal(store, archive, ALICE.partition) == 0  # run it again: nothing twice
        assert archive.journal(ALICE.partition) == store.journal(ALICE.partition)
        store.close()
        archive.close()


class TestInMemoryJournalArchive(JournalArchiveContract):
    def make_archive(self, tmp_path: Path) -> JournalArchive:
        return InMemoryJournalArchive()


@pytest.mark.mysql
class TestMySQLJournal(JournalArchiveContract):
    server: Any

    @pytest.fixture(autouse=True)
    def _server(self, mysql_server: Any) -> None:
        self.server = mysql_server

    def make_archive(self, tmp_path: Path) -> JournalArchive:
        from memscribe.stores.mysql import MySQLJournal

        return MySQLJournal(self.server.create_database())

    def spec(self) -> str:
        return str(self.server.create_database())

    def archive_at(self, spec: str) -> JournalArchive:
        from memscribe.stores.mysql import MySQLJournal

        return MySQLJournal(spec)

    def stored_bytes(self, archive: JournalArchive) -> bytes:
        url = archive._args["database"]  # type: ignore[attr-defined]
        files = self.server.database_files(f"/{url}")
        return b"".join(p.read_bytes() for p in files)
