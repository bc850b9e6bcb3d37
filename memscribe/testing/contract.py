"""The store contract: one pytest suite every backend must pass, the built-in ones and third parties' alike.

Subclass :class:`StoreContract` in a test module (the subclass's name must start with ``Test``) and say how
to open an empty store::

    from memscribe.testing.contract import StoreContract

    class TestMyStore(StoreContract):
        def make_store(self, tmp_path):
            return MyStore(tmp_path / "data")

The suite covers the episode log, versioned writes and their invariants, RecordFilter semantics (checked
against :func:`memscribe.stores.filtering.matches` on random records), keyword and vector search, erasure,
purge, index rebuilds, the journal and stats, and that no read or write ever crosses a (tenant, user_id) partition.
Needs the ``dev`` extra (pytest, hypothesis).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memscribe.core.ids import new_id
from memscribe.core.messages import build_episode
from memscribe.core.records import (
    Episode,
    JournalEntry,
    Layer,
    MemoryRecord,
    Message,
    OpKind,
    Owner,
    Scope,
    Status,
    ToolCall,
    Usage,
)
from memscribe.core.text import keyword_terms
from memscribe.errors import EmbeddingMismatch, StoreError, WriteConflict
from memscribe.providers.hashing import HashEmbedder
from memscribe.stores.filtering import matches
from memscribe.stores.ports import (
    Changeset,
    EpisodeLog,
    EpisodeState,
    Journal,
    Maintenance,
    MemoryStore,
    Partition,
    RecordFilter,
    SearchIndex,
    Store,
)

__all__ = [
    "EMBEDDER",
    "T0",
    "StoreContract",
    "at",
    "changeset",
    "make_entry",
    "make_episode",
    "make_record",
    "successor",
]

T0 = datetime(2024, 1, 1, tzinfo=UTC)
EMBEDDER = HashEmbedder(32)
ERASED = "[erased]"
HISTORY = RecordFilter(include_history=True)
ALICE = Scope("alice", tenant="acme")
BOB = Scope("bob", tenant="acme")
ALICE_ELSEWHERE = Scope("alice", tenant="globex")  # same user id, another tenant: another partition
CAROL = Scope("carol", tenant="globex")
SCOPES = (ALICE, BOB, ALICE_ELSEWHERE, CAROL)  # two tenants, three users


# -- record factory ----------------------------------------------------------------------------------


def at(days: float) -> datetime:
    """A time ``days`` after :data:`T0`."""
    return T0 + timedelta(days=days)


def make_episode(scope: Scope, *texts: str, when: datetime = T0, key: str | None = None) -> Episode:
    """A content-addressed episode of user messages."""
    messages = tuple(Message("user", text) for text in texts)
    return build_episode(messages, scope, timestamp=when, source="test", metadata={}, idempotency_key=key)


def make_record(scope: Scope, text: str, **fields: Any) -> MemoryRecord:
    """Version 1 of a new, current, active memory; any field can be overridden."""
    record = MemoryRecord(
        id=new_id(), version_id=new_id(), version=1, scope=scope, text=text, subject="user", slot=None,
        value=None, owner=Owner.USER, layer=Layer.FACT, scene="chat", tags=(), episode_id=None,
        message_indices=(), confidence=1.0, writer="contract", embedding_model=EMBEDDER.model_id,
        source="chat", valid_from=T0, valid_to=None, recorded_at=T0, retired_at=None, status=Status.ACTIVE,
    )  # fmt: skip
    return replace(record, **fields)


def successor(record: MemoryRecord, when: datetime, **fields: Any) -> MemoryRecord:
    """The next version of ``record``, recorded at ``when``."""
    base = {"version_id": new_id(), "version": record.version + 1, "recorded_at": when, "retired_at": None}
    return replace(record, **{**base, **fields})


def make_entry(scope: Scope, memory_id: str | None = None, **fields: Any) -> JournalEntry:
    """An accepted ADD journal line; any field can be overridden."""
    entry = JournalEntry(
        id=new_id(), episode_id=None, scope=scope, kind=OpKind.ADD, memory_id=memory_id, version_id=None,
        reason="contract", candidates=(), writer="contract", accepted=True, created_at=T0,
    )  # fmt: skip
    return replace(entry, **fields)


def changeset(
    partition: Partition,
    insert: Sequence[MemoryRecord] = (),
    *,
    reuse: dict[str, str] | None = None,
    embedder: HashEmbedder = EMBEDDER,
    **fields: Any,
) -> Changeset:
    """A changeset carrying one ``embedder`` vector per inserted record that does not reuse one."""
    reuse = reuse or {}
    fresh = [r.text for r in insert if r.version_id not in reuse]
    vectors = embedder.embed(fresh) if fresh else None
    fields.setdefault("episode_id", None)
    return Changeset(partition=partition, insert=tuple(insert), vectors=vectors, reuse_vector=reuse, **fields)


def _ids(records: Iterable[MemoryRecord]) -> set[str]:
    return {r.version_id for r in records}


def _hit_ids(hits: Iterable[tuple[str, float]]) -> set[str]:
    return {version_id for version_id, _ in hits}


# -- random records and filters ------------------------------------------------------------------------

WORDS = ("berlin", "coffee", "peanuts", "tennis", "python", "garden")
_GRID = tuple(at(d) for d in range(6))  # a coarse grid, so that boundaries are hit exactly
_times = st.sampled_from(_GRID)
_maybe_times = st.none() | _times


def _subset(values: Sequence[str]) -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(st.sampled_from(values), unique=True, max_size=2).map(tuple)


@st.composite
def _corpus(draw: st.DrawFn) -> list[MemoryRecord]:
    """Memories of two users with 1–3 versions each; every field a filter reads varies."""

    def pick(*values: Any) -> Any:
        return draw(st.sampled_from(values))

    records = []
    for n in range(draw(st.integers(1, 8))):
        scope = Scope(pick("alice", "bob"), tenant="acme", agent_id=pick(None, "a1", "a2"),
                      session_id=pick(None, "s1"), project=pick(None, "p1"))  # fmt: skip
        versions = draw(st.integers(1, 3))
        for v in range(1, versions + 1):
            start, end = draw(_times), draw(_maybe_times)
            records.append(make_record(
                scope, " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3))),
                id=f"m{n}", version_id=f"m{n}v{v}", version=v, status=pick(*Status), owner=pick(*Owner),
                layer=pick(Layer.FACT, Layer.PROFILE), scene=pick("chat", "coding"),
                source=pick("chat", "import"),
                valid_from=start, valid_to=None if end is None else max(start, end), recorded_at=at(v - 1),
                retired_at=at(v) if v < versions else None,
            ))  # fmt: skip
    return records


_filters = st.builds(
    RecordFilter,
    as_of=_maybe_times,
    include_history=st.booleans(),
    statuses=st.just(("active",)) | _subset([s.value for s in Status]),
    layers=_subset(["L0", "L2"]),
    scenes=_subset(["chat", "coding"]),
    sources=_subset(["chat", "import"]),
    owners=_subset(["user", "agent"]),
    agent_id=st.sampled_from((None, "a1", "a2")),
    session_id=st.sampled_from((None, "s1")),
    project=st.sampled_from((None, "p1")),
    valid_after=_maybe_times,
    valid_before=_maybe_times,
    memory_ids=_subset(["m0", "m1", "m2"]),
    now=_maybe_times,
)


COUNTS = ("memories", "versions", "current", "episodes", "pending_episodes", "journal")


def _counts(store: Store, partition: Partition | None = None) -> dict[str, int]:
    """The counts every backend's stats report (a backend may add more keys, such as sizes)."""
    stats = store.stats(partition)
    return {key: stats[key] for key in COUNTS}


def _status(store: Store, partition: Partition, episode_id: str) -> str | None:
    state = store.episode_state(partition, episode_id)
    return state.status if state else None


class StoreContract:
    """The behaviour every :class:`~memscribe.stores.ports.Store` must show. Subclasses implement
    :meth:`make_store`; every test gets a fresh, empty store."""

    def make_store(self, tmp_path: Path) -> Store:
        """An empty store. ``tmp_path`` is a fresh directory the store may write into."""
        raise NotImplementedError  # abstract: each backend's test module provides it

    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[Store]:
        store = self.make_store(tmp_path)
        yield store
        store.close()

    def _write(self, store: Store, scope: Scope, *records: MemoryRecord, **fields: Any) -> None:
        assert store.apply(changeset(scope.partition, records, **fields)) is True

    def _populate(self, store: Store) -> dict[Scope, tuple[Episode, MemoryRecord, MemoryRecord]]:
        """The same history in every partition: an episode, a fact superseded by another, a journal."""
        made = {}
        for scope in SCOPES:
            episode = make_episode(scope, "I moved from Paris to Berlin")
            store.put_episode(episode)
            old = make_record(scope, "lives in Paris", slot="user/city", episode_id=episode.id)
            self._write(store, scope, old, journal=(make_entry(scope, old.id, episode_id=episode.id),))
            new = make_record(
                scope, "lives in Berlin", slot="user/city", supersedes=old.id, valid_from=at(1),
                recorded_at=at(1), episode_id=episode.id,
            )  # fmt: skip
            closed = successor(old, at(1), status=Status.SUPERSEDED, valid_to=at(1), superseded_by=new.id)
            entry = make_entry(scope, new.id, kind=OpKind.SUPERSEDE, episode_id=episode.id)
            retire = ((old.version_id, at(1)),)
            reuse = {closed.version_id: old.version_id}
            self._write(
                store, scope, closed, new, reuse=reuse, retire=retire, journal=(entry,), episode_id=episode.id
            )
            made[scope] = (episode, old, new)
        return made

    # -- ports -------------------------------------------------------------------------------------

    def test_implements_every_port(self, store: Store) -> None:
        for port in (EpisodeLog, MemoryStore, SearchIndex, Journal, Maintenance):
            assert isinstance(store, port), port.__name__

    def test_empty_store_reads_nothing(self, store: Store) -> None:
        p = ALICE.partition
        assert store.get(p, "nope") is None and store.versions(p, "nope") == []
        assert store.query(p, HISTORY) == [] and store.journal(p) == [] and list(store.episodes(p)) == []
        assert store.pending_episodes() == [] and store.owner_of("acme", "nope") is None
        assert store.vector_search(p, EMBEDDER.embed(["x"])[0], EMBEDDER.model_id, RecordFilter(), 5) == []
        assert store.keyword_search(p, ["berlin"], RecordFilter(), 5) == []
        assert _counts(store) == dict.fromkeys(COUNTS, 0) == _counts(store, p)
        assert store.check() == []

    # -- episodes ----------------------------------------------------------------------------------

    def test_put_episode_is_idempotent(self, store: Store) -> None:
        call = ToolCall("search", {"q": "berlin"}, id="c1")
        said = Message("user", "I moved to Berlin", timestamp=T0)
        messages = (said, Message("assistant", "", tool_calls=(call,)))
        episode = build_episode(messages, ALICE, timestamp=T0, source="test", metadata={"k": "v"},
                                idempotency_key=None)  # fmt: skip
        assert store.put_episode(episode) == EpisodeState(episode.id, "pending", created=True)
        assert store.put_episode(episode) == EpisodeState(episode.id, "pending", created=False)
        assert store.get_episode(ALICE.partition, episode.id) == episode  # round-trips unchanged
        same_key = make_episode(ALICE, "something else", key=episode.idempotency_key)
        assert store.put_episode(same_key) == EpisodeState(episode.id, "pending", created=False)
        assert store.get_episode(ALICE.partition, same_key.id) is None
        elsewhere = make_episode(BOB, "something else", key=episode.idempotency_key)
        assert store.put_episode(elsewhere).created  # idempotency keys are per partition

    def test_pending_and_failed_episodes(self, store: Store) -> None:
        first, second, third = (make_episode(s, "hello") for s in (ALICE, BOB, ALICE_ELSEWHERE))
        for episode in (first, second, third):
            store.put_episode(episode)
        assert [e.id for e in store.pending_episodes()] == [first.id, second.id, third.id]
        assert [e.id for e in store.pending_episodes(limit=1)] == [first.id]
        assert store.apply(Changeset(ALICE.partition, first.id)) is True
        assert store.episode_state(ALICE.partition, first.id) == EpisodeState(first.id, "done", False)
        store.fail_episode(second.id, "boom" * 1000)
        failed = EpisodeState(second.id, "failed", False, 1, ("boom" * 1000)[:2000])
        assert store.episode_state(BOB.partition, second.id) == failed
        assert [e.id for e in store.pending_episodes()] == [second.id, third.id]  # failed: retried
        for _ in range(4):
            store.fail_episode(second.id, "boom")
        assert [e.id for e in store.pending_episodes()] == [third.id]  # five failures: given up
        assert store.put_episode(second) == EpisodeState(second.id, "failed", False, 5, "boom")
        assert store.apply(Changeset(BOB.partition, second.id, require_pending=False))
        assert store.episode_state(BOB.partition, second.id) == EpisodeState(second.id, "done", False, 5)
        assert store.apply(Changeset(ALICE_ELSEWHERE.partition, third.id, episode_done=False))
        assert _status(store, ALICE_ELSEWHERE.partition, third.id) == "pending"

    def test_episodes_in_time_order(self, store: Store) -> None:
        late, early, mid, tie = (
            make_episode(ALICE, text, when=at(days))
            for text, days in (("late", 2), ("early", 0), ("mid", 1), ("tie", 1))
        )
        for episode in (late, early, mid, tie):
            store.put_episode(episode)
        assert [e.id for e in store.episodes(ALICE.partition)] == [early.id, mid.id, tie.id, late.id]

    # -- writes and reads --------------------------------------------------------------------------

    def test_apply_insert_and_read_back(self, store: Store) -> None:
        episode = make_episode(ALICE, "I live in Berlin and like green tea")
        store.put_episode(episode)
        home = make_record(
            ALICE, "Alice lives in Berlin", subject="alice", slot="alice/city", value="Berlin",
            tags=("home",), episode_id=episode.id, message_indices=(0,), metadata={"k": "v"}, valid_to=at(30),
            confidence=0.5,
        )  # fmt: skip
        tea = make_record(ALICE, "Alice likes green tea", subject="alice", valid_from=at(1))
        tennis = make_record(ALICE, "Bob plays tennis", subject="bob", valid_from=at(1))
        entry = make_entry(ALICE, home.id, episode_id=episode.id, usage=Usage("m", "p1", 1, 10, 5, 1.5))
        self._write(store, ALICE, home, tea, tennis, journal=(entry,), episode_id=episode.id)
        p = ALICE.partition
        assert store.get(p, home.id) == home and store.versions(p, home.id) == [home]  # round-trips
        # Newest valid_from first; ties by memory id, then version, both descending.
        newest = [*sorted([tea, tennis], key=lambda r: r.id, reverse=True), home]
        assert store.query(p, RecordFilter()) == newest
        assert store.query(p, RecordFilter(), limit=2) == newest[:2]
        assert store.query(p, RecordFilter(), limit=2, offset=2) == [home]
        assert store.by_slot(p, "alice/city") == [home]
        assert store.by_subject(p, "alice") == [home, tea] and store.by_subject(p, "alice", limit=1) == [home]
        assert store.by_version_ids(p, [tennis.version_id, "missing", home.version_id]) == [tennis, home]
        assert store.journal(p) == [entry] and _status(store, p, episode.id) == "done"
        assert store.owner_of("acme", home.id) == "alice"
        assert store.check() == []

    def test_supersede_chain(self, store: Store) -> None:
        _, old, new = self._populate(store)[ALICE]
        p = ALICE.partition
        retired, closed = store.versions(p, old.id)
        assert retired == replace(old, retired_at=at(1))
        assert (closed.version, closed.status, closed.superseded_by) == (2, Status.SUPERSEDED, new.id)
        assert closed.retired_at is None and store.get(p, old.id) == closed and store.get(p, new.id) == new
        assert store.query(p, RecordFilter()) == [new] and store.by_slot(p, "user/city") == [new]
        assert _ids(store.query(p, HISTORY)) == {old.version_id, closed.version_id, new.version_id}
        assert store.by_version_ids(p, [old.version_id]) == [retired]
        # The closed version reuses the retired one's vector: both score the same.
        query = EMBEDDER.embed([old.text])[0]
        hits = dict(store.vector_search(p, query, EMBEDDER.model_id, HISTORY, 10))
        assert hits[old.version_id] == pytest.approx(hits[closed.version_id]) == pytest.approx(1.0, abs=1e-5)
        updated = successor(new, at(2), text="lives in Berlin Mitte")
        self._write(store, ALICE, updated, retire=((new.version_id, at(2)),))
        assert [v.version for v in store.versions(p, new.id)] == [1, 2]
        assert store.get(p, new.id) == updated and store.check() == []
        first = make_record(ALICE, "old news", retired_at=at(1))
        second = successor(first, at(1), text="news")
        self._write(store, ALICE, second, first)  # history may arrive in any order (an import)
        assert store.versions(p, first.id) == [first, second]

    def test_one_current_version(self, store: Store) -> None:
        episode = make_episode(ALICE, "x")
        store.put_episode(episode)
        fact = make_record(ALICE, "likes coffee")
        self._write(store, ALICE, fact)
        self._write(store, ALICE, successor(fact, at(1)), retire=((fact.version_id, at(1)),))
        # A second retire of the same version: another writer won. Nothing of the changeset is written.
        extra = make_record(ALICE, "plays tennis")
        stale = changeset(
            ALICE.partition, [successor(fact, at(2), version=3), extra], episode_id=episode.id,
            retire=((fact.version_id, at(2)),), journal=(make_entry(ALICE, extra.id),),
        )  # fmt: skip
        with pytest.raises(WriteConflict):
            store.apply(stale)
        assert store.get(ALICE.partition, extra.id) is None and store.journal(ALICE.partition) == []
        assert _status(store, ALICE.partition, episode.id) == "pending"
        with pytest.raises(StoreError):  # a second current version, the first not retired
            self._write(store, ALICE, successor(fact, at(2), version=3))
        with pytest.raises(StoreError):  # a version id that is taken
            self._write(store, ALICE, replace(extra, version_id=fact.version_id))
        latest = store.get(ALICE.partition, fact.id)
        assert latest is not None
        with pytest.raises(StoreError):  # validity that ends before it starts, after a retire that worked
            broken = make_record(ALICE, "x", valid_from=at(2), valid_to=at(1))
            self._write(store, ALICE, broken, retire=((latest.version_id, at(2)),), erase=(extra.id,))
        assert store.versions(ALICE.partition, fact.id)[-1] == latest  # rolled back: still current
        assert store.check() == []

    def test_require_pending(self, store: Store) -> None:
        episode = make_episode(ALICE, "I like coffee")
        store.put_episode(episode)
        first = make_record(ALICE, "likes coffee")
        entry = make_entry(ALICE, first.id, episode_id=episode.id)
        self._write(store, ALICE, first, journal=(entry,), episode_id=episode.id)
        late = make_record(ALICE, "likes tea")
        late_entry = make_entry(ALICE, late.id, episode_id=episode.id)
        again = changeset(ALICE.partition, [late], journal=(late_entry,), episode_id=episode.id)
        assert store.apply(again) is False  # another process already applied this episode
        assert store.get(ALICE.partition, late.id) is None
        assert store.journal(ALICE.partition, episode_id=episode.id) == [entry]
        assert store.apply(replace(again, require_pending=False)) is True
        assert store.get(ALICE.partition, late.id) == late

    def test_embedding_mismatch(self, store: Store) -> None:
        self._write(store, ALICE, make_record(ALICE, "likes coffee"))
        small = HashEmbedder(16)
        other = make_record(ALICE, "likes tea", embedding_model=small.model_id)
        with pytest.raises(EmbeddingMismatch):  # another width
            store.apply(changeset(ALICE.partition, [other], embedder=small))
        with pytest.raises(EmbeddingMismatch):  # the same width, another model, another partition
            self._write(store, BOB, make_record(BOB, "likes tea", embedding_model="other-32"))
        with pytest.raises(StoreError):  # a new text without its vector
            store.apply(replace(changeset(ALICE.partition, [other]), vectors=None))
        assert store.get(ALICE.partition, other.id) is None
        with pytest.raises(EmbeddingMismatch):
            store.vector_search(ALICE.partition, EMBEDDER.embed(["tea"])[0], "other-32", RecordFilter(), 5)
        with pytest.raises(EmbeddingMismatch):
            store.vector_search(ALICE.partition, small.embed(["tea"])[0], small.model_id, RecordFilter(), 5)

    # -- filters -----------------------------------------------------------------------------------

    def test_record_filter_semantics(self, store: Store) -> None:
        rec = _filter_records(Scope("alice", tenant="acme", agent_id="a1", session_id="s1", project="p1"))
        self._write(store, ALICE, *rec.values())
        c = rec["c1"].id
        cases = [
            (RecordFilter(), "a c2 e"),
            (RecordFilter(now=at(2)), "a c2"),  # e's validity ended
            (RecordFilter(now=at(1.9)), "a c2 e"),
            (RecordFilter(statuses=("superseded",)), "b"),
            (RecordFilter(statuses=("active", "deleted")), "a c2 d e"),
            (RecordFilter(statuses=()), ""),
            (RecordFilter(as_of=at(0.5)), "a e"),
            (RecordFilter(as_of=at(1.5)), "a b e"),
            (RecordFilter(as_of=at(2)), "a b c2"),
            (RecordFilter(as_of=at(2), now=at(9), statuses=()), "a b c2"),  # as_of ignores both
            (HISTORY, "a b c1 c2 d e f"),
            (RecordFilter(include_history=True, layers=("L0",)), "e"),
            (RecordFilter(layers=("L2",)), "a c2"),
            (RecordFilter(scenes=("coding",)), "e"),
            (RecordFilter(sources=("import",)), "e"),
            (RecordFilter(owners=("agent",)), "e"),
            (RecordFilter(agent_id="a1"), "a"),
            (RecordFilter(include_history=True, agent_id="a1"), "a b c1 d f"),
            (RecordFilter(session_id="s1"), "a c2 e"),
            (RecordFilter(include_history=True, session_id="s2"), "b"),
            (RecordFilter(project="p1"), "a c2 e"),
            (RecordFilter(include_history=True, valid_after=at(1)), "b c2 f"),
            (RecordFilter(include_history=True, valid_before=at(1)), "a c1 d e"),
            (RecordFilter(include_history=True, valid_after=at(0.5), valid_before=at(2)), "b d"),
            (RecordFilter(include_history=True, memory_ids=(c,)), "c1 c2"),
            (RecordFilter(memory_ids=(c,)), "c2"),
        ]
        for flt, names in cases:
            expected = {rec[name].version_id for name in names.split()}
            assert {r.version_id for r in rec.values() if matches(r, flt)} == expected, flt
            assert _ids(store.query(ALICE.partition, flt)) == expected, flt

    # Each example opens its own store, so neither the shared tmp_path nor running the one method for
    # several subclasses (differing executors) lets one example depend on another.
    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.differing_executors],
    )
    @given(
        records=_corpus(),
        filters=st.lists(_filters, min_size=1, max_size=5),
        terms=st.lists(st.sampled_from(WORDS), min_size=1, max_size=2, unique=True),
    )
    def test_reads_agree_with_matches(
        self, tmp_path: Path, records: list[MemoryRecord], filters: list[RecordFilter], terms: list[str]
    ) -> None:
        """query, keyword_search and vector_search see exactly the records ``matches`` accepts."""
        store = self.make_store(tmp_path / new_id())
        try:
            partitions = dict.fromkeys(r.scope.partition for r in records)
            for partition in partitions:
                mine = [r for r in records if r.scope.partition == partition]
                assert store.apply(changeset(partition, mine))
            query = EMBEDDER.embed([" ".join(terms)])[0]
            for flt in filters:
                for partition in (("acme", "alice"), ("acme", "bob")):
                    seen = [r for r in records if r.scope.partition == partition and matches(r, flt)]
                    seen.sort(key=lambda r: (r.valid_from, r.id, r.version), reverse=True)
                    assert _order(store.query(partition, flt, limit=1000)) == _order(seen), flt
                    worded = {r.version_id for r in seen if set(r.text.split()) & set(terms)}
                    assert _hit_ids(store.keyword_search(partition, terms, flt, 1000)) == worded, flt
                    hits = store.vector_search(partition, query, EMBEDDER.model_id, flt, 1000)
                    assert _hit_ids(hits) == _ids(seen) and _descending(hits), flt
        finally:
            store.close()

    # -- search ------------------------------------------------------------------------------------

    def test_keyword_search(self, store: Store) -> None:
        home = make_record(ALICE, "Alice lives in Berlin", layer=Layer.PROFILE)
        tea = make_record(ALICE, "Alice likes green tea")
        tennis = make_record(ALICE, "Bob plays tennis in Berlin on Sundays")
        self._write(store, ALICE, home, tea, tennis)
        p, flt = ALICE.partition, RecordFilter()
        hits = store.keyword_search(p, ["berlin"], flt, 10)
        assert _hit_ids(hits) == {home.version_id, tennis.version_id}
        assert all(score > 0 for _, score in hits) and _descending(hits)
        assert [v for v, _ in store.keyword_search(p, ["green", "tea"], flt, 10)] == [tea.version_id]
        assert _hit_ids(store.keyword_search(p, ["TEA"], flt, 10)) == {tea.version_id}  # any case
        assert len(store.keyword_search(p, ["berlin", "tea"], flt, 2)) == 2
        assert store.keyword_search(p, [], flt, 10) == [] == store.keyword_search(p, ["paris"], flt, 10)
        by_layer = store.keyword_search(p, ["berlin"], RecordFilter(layers=("L2",)), 10)
        assert _hit_ids(by_layer) == {tennis.version_id}
        moved = successor(home, at(1), text="Alice lives in Paris")
        self._write(store, ALICE, moved, retire=((home.version_id, at(1)),))
        assert _hit_ids(store.keyword_search(p, ["berlin"], flt, 10)) == {tennis.version_id}
        assert home.version_id in _hit_ids(store.keyword_search(p, ["berlin"], HISTORY, 10))
        assert _hit_ids(store.keyword_search(p, ["paris"], flt, 10)) == {moved.version_id}

    def test_keyword_search_segments_cjk(self, store: Store) -> None:
        """Chinese, Japanese and Korean text has no spaces: a word inside a clause is found by its bigrams
        (two or more characters, as a phrase) or as one character; the terms come from ``keyword_terms``."""
        home = make_record(ALICE, "我住在北京朝阳区，离公司很近。")
        cat = make_record(ALICE, "我家还有一只猫，叫咪咪。")
        work = make_record(ALICE, "東京に住んでいて、ソニーで働いています。")
        seoul = make_record(ALICE, "저는 서울에 살고 삼성에서 일해요.")
        mixed = make_record(ALICE, "我用iPhone拍照")
        self._write(store, ALICE, home, cat, work, seoul, mixed)
        p, flt = ALICE.partition, RecordFilter()

        def top(query: str) -> str | None:
            hits = store.keyword_search(p, keyword_terms(query), flt, 10)
            return hits[0][0] if hits else None

        assert top("北京") == top("我住在哪里？") == home.version_id
        assert top("猫") == cat.version_id  # a one-character word
        assert top("東京") == top("ソニー") == work.version_id
        assert top("서울") == seoul.version_id
        assert _hit_ids(store.keyword_search(p, ["iphone"], flt, 10)) == {mixed.version_id}  # glued to CJK
        assert _hit_ids(store.keyword_search(p, ["北京"], flt, 10)) == {home.version_id}
        assert _hit_ids(store.keyword_search(p, ["朝阳区"], flt, 10)) == {home.version_id}  # phrase of bigrams
        assert store.keyword_search(p, ["阳朝"], flt, 10) == [] == store.keyword_search(p, ["上海"], flt, 10)

    def test_vector_search(self, store: Store) -> None:
        texts = ["Alice lives in Berlin", "Alice likes green tea", "Bob plays tennis on Sundays"]
        home, tea, tennis = (make_record(ALICE, text, valid_from=at(i)) for i, text in enumerate(texts))
        self._write(store, ALICE, home, tea, tennis)
        p, model = ALICE.partition, EMBEDDER.model_id
        query = EMBEDDER.embed(["Alice likes green tea"])[0]
        hits = store.vector_search(p, query, model, RecordFilter(), 10)
        assert hits[0][0] == tea.version_id and hits[0][1] == pytest.approx(1.0, abs=1e-5)
        assert _hit_ids(hits) == _ids((home, tea, tennis)) and _descending(hits)
        assert len(store.vector_search(p, query, model, RecordFilter(), 1)) == 1
        early = store.vector_search(p, query, model, RecordFilter(valid_before=at(1)), 10)
        assert _hit_ids(early) == {home.version_id}
        deleted = successor(tea, at(5), status=Status.DELETED)
        self._write(store, ALICE, deleted, retire=((tea.version_id, at(5)),))
        assert tea.version_id not in _hit_ids(store.vector_search(p, query, model, RecordFilter(), 10))
        as_of = store.vector_search(p, query, model, RecordFilter(as_of=at(4)), 10)
        assert _hit_ids(as_of) == _ids((home, tennis))  # tea's current version is deleted, its old retired
        every = store.vector_search(p, query, model, HISTORY, 10)
        assert _hit_ids(every) == _ids((home, tea, deleted, tennis))
        assert store.vector_search(BOB.partition, query, model, RecordFilter(), 10) == []

    # -- erase and purge ---------------------------------------------------------------------------

    def test_erase(self, store: Store) -> None:
        episode = make_episode(ALICE, "I live in Paris", "I like green tea", "call me later")
        store.put_episode(episode)
        paris = make_record(ALICE, "lives in Paris", episode_id=episode.id, message_indices=(0,))
        tea = make_record(ALICE, "likes green tea", episode_id=episode.id, message_indices=(1,))
        added = make_entry(ALICE, paris.id, episode_id=episode.id, reason="said so")
        self._write(store, ALICE, paris, tea, journal=(added,), episode_id=episode.id)
        self._write(store, ALICE, successor(paris, at(1), text="lives in Paris, France"),
                    retire=((paris.version_id, at(1)),))  # fmt: skip
        forget = make_entry(ALICE, paris.id, kind=OpKind.DELETE, reason="asked to forget")
        self._write(store, ALICE, erase=(paris.id, "unknown"), journal=(forget,))
        p = ALICE.partition
        assert store.versions(p, paris.id) == [] and store.get(p, paris.id) is None
        assert _ids(store.query(p, HISTORY)) == {tea.version_id} and store.owner_of("acme", paris.id) is None
        assert store.keyword_search(p, ["paris"], HISTORY, 10) == []
        hits = store.vector_search(p, EMBEDDER.embed(["lives in Paris"])[0], EMBEDDER.model_id, HISTORY, 10)
        assert _hit_ids(hits) == {tea.version_id}
        # The journal keeps the decisions but not their reasons; the source message loses its text.
        reasons = [(e.id, e.reason) for e in store.journal(p, memory_id=paris.id)]
        assert reasons == [(added.id, ERASED), (forget.id, "asked to forget")]
        stored = store.get_episode(p, episode.id)
        assert stored is not None
        assert [m.content for m in stored.messages] == [ERASED, "I like green tea", "call me later"]
        assert store.get(p, tea.id) == tea and _counts(store, p)["memories"] == 1 and store.check() == []

    def test_purge(self, store: Store) -> None:
        made = self._populate(store)  # every partition holds the same texts: the purge still verifies
        store.put_episode(make_episode(ALICE, "still pending"))
        before = {scope: _counts(store, scope.partition) for scope in SCOPES[1:]}
        report = store.purge(ALICE.partition)
        assert report.partition == ALICE.partition and report.verified and report.leftovers == ()
        assert (report.memories, report.episodes, report.journal) == (3, 2, 2)  # memories counts versions
        p = ALICE.partition
        assert _counts(store, p) == dict.fromkeys(COUNTS, 0)
        assert store.query(p, HISTORY) == [] and store.journal(p) == [] and list(store.episodes(p)) == []
        assert store.keyword_search(p, ["berlin"], HISTORY, 10) == []
        assert store.vector_search(p, EMBEDDER.embed(["Berlin"])[0], EMBEDDER.model_id, HISTORY, 10) == []
        assert all(e.scope.partition != p for e in store.pending_episodes())
        assert store.owner_of("acme", made[ALICE][2].id) is None
        for scope in SCOPES[1:]:  # nothing of another partition went
            assert _counts(store, scope.partition) == before[scope]
            assert store.get(scope.partition, made[scope][2].id) == made[scope][2]
        self._write(store, ALICE, make_record(ALICE, "back again"))  # the partition can be written again
        assert len(store.query(p, RecordFilter())) == 1
        empty = store.purge(("acme", "nobody"))
        assert (empty.memories, empty.episodes, empty.journal, empty.verified) == (0, 0, 0, True)
        assert store.check() == []

    # -- journal and stats -------------------------------------------------------------------------

    def test_journal_queries(self, store: Store) -> None:
        one, two = make_episode(ALICE, "one"), make_episode(ALICE, "two")
        a, b = make_record(ALICE, "likes coffee"), make_record(ALICE, "likes tea")
        usage = Usage("gpt", "v3", 2, 100, 20, 12.5)
        e1 = make_entry(ALICE, a.id, episode_id=one.id, usage=usage, candidates=("x",))
        e2 = make_entry(ALICE, None, episode_id=one.id, kind=OpKind.NOOP, accepted=False, reason="rejected")
        e3 = make_entry(ALICE, b.id, episode_id=two.id, created_at=at(1))
        e4 = make_entry(ALICE, a.id, episode_id=two.id, kind=OpKind.UPDATE, created_at=at(1))
        self._write(store, ALICE, a, journal=(e1, e2))
        self._write(store, ALICE, b, journal=(e3, e4))
        p = ALICE.partition
        assert store.journal(p) == [e1, e2, e3, e4]  # in the order written, unchanged
        assert store.journal(p, memory_id=a.id) == [e1, e4]
        assert store.journal(p, episode_id=one.id) == [e1, e2]
        assert store.journal(p, memory_id=a.id, episode_id=two.id) == [e4]
        assert store.journal(p, memory_id="nope") == []
        with pytest.raises(StoreError):  # a journal line of another partition
            self._write(store, ALICE, journal=(make_entry(BOB, a.id),))
        assert store.journal(BOB.partition) == []

    def test_stats(self, store: Store) -> None:
        self._populate(store)
        store.put_episode(make_episode(BOB, "still pending"))
        each = dict(zip(COUNTS, (2, 3, 1, 1, 0, 2), strict=True))
        assert _counts(store, ALICE.partition) == each == _counts(store, ALICE_ELSEWHERE.partition)
        assert _counts(store, BOB.partition) == {**each, "episodes": 2, "pending_episodes": 1}
        assert _counts(store) == dict(zip(COUNTS, (8, 12, 4, 5, 1, 8), strict=True))
        assert store.check() == []

    def test_reindex_rebuilds_without_changing_what_searches_find(self, store: Store) -> None:
        assert store.reindex()["vectors"] == 0
        self._populate(store)
        query = EMBEDDER.embed(["lives in Berlin"])[0]

        def found() -> dict[Scope, list[tuple[str, float]]]:
            return {s: store.vector_search(s.partition, query, EMBEDDER.model_id, RecordFilter(), 5) for s in SCOPES}

        before = found()
        done: list[int] = []
        one = store.reindex(ALICE.partition, progress=done.append)
        assert (one["partitions"], one["vectors"], sum(done)) == (1, 1, 1)  # the superseded fact is not indexed
        acme = sum(1 for s in SCOPES if s.tenant == ALICE.tenant)
        assert store.reindex(tenant=ALICE.tenant)["partitions"] == acme
        everything = store.reindex()
        assert (everything["partitions"], everything["vectors"]) == (len(SCOPES), len(SCOPES))
        assert everything["keyword_index"] in ("optimized", "unchanged")
        assert found() == before
        assert _hit_ids(store.keyword_search(ALICE.partition, ["berlin"], RecordFilter(), 5))
        assert store.check() == []

    # -- partitions --------------------------------------------------------------------------------

    def test_reads_never_cross_partitions(self, store: Store) -> None:
        made = self._populate(store)
        query = EMBEDDER.embed(["lives in Berlin"])[0]
        for scope in SCOPES:
            p, (episode, _, new) = scope.partition, made[scope]
            mine = store.query(p, HISTORY)
            assert len(mine) == 3 and all(r.scope.partition == p for r in mine)
            slotted = store.by_slot(p, "user/city") + store.by_subject(p, "user")
            assert all(r.scope.partition == p for r in slotted)
            assert _hit_ids(store.keyword_search(p, ["berlin", "paris"], HISTORY, 50)) <= _ids(mine)
            assert _hit_ids(store.vector_search(p, query, EMBEDDER.model_id, HISTORY, 50)) <= _ids(mine)
            current = store.vector_search(p, query, EMBEDDER.model_id, RecordFilter(), 50)
            assert _hit_ids(current) == {new.version_id}
            assert [e.id for e in store.episodes(p)] == [episode.id]
            assert all(e.scope.partition == p for e in store.journal(p))
            assert store.owner_of(scope.tenant, new.id) == scope.user_id
            for other in SCOPES:
                if other != scope:
                    self._sees_nothing_of(store, scope, other, made[other])

    def _sees_nothing_of(
        self, store: Store, scope: Scope, other: Scope, made: tuple[Episode, MemoryRecord, MemoryRecord]
    ) -> None:
        p, (episode, old, new) = scope.partition, made
        assert store.get(p, new.id) is None and store.versions(p, old.id) == []
        assert store.by_version_ids(p, [old.version_id, new.version_id]) == []
        assert store.query(p, RecordFilter(include_history=True, memory_ids=(old.id,))) == []
        assert store.journal(p, memory_id=new.id) == [] and store.journal(p, episode_id=episode.id) == []
        assert store.get_episode(p, episode.id) is None and store.episode_state(p, episode.id) is None
        if other.tenant != scope.tenant:
            assert store.owner_of(scope.tenant, new.id) is None

    def test_writes_never_cross_partitions(self, store: Store) -> None:
        made = self._populate(store)
        bob_new = made[BOB][2]
        with pytest.raises(WriteConflict):  # a version of another partition is never current here
            self._write(store, ALICE, retire=((bob_new.version_id, at(2)),))
        with pytest.raises(StoreError):
            self._write(store, ALICE, make_record(BOB, "sneaky"))
        borrowed = make_record(ALICE, bob_new.text)
        with pytest.raises(StoreError):  # nor may it borrow another partition's vector
            self._write(store, ALICE, borrowed, reuse={borrowed.version_id: bob_new.version_id})
        self._write(store, ALICE, erase=(bob_new.id,))  # erasing an id of another partition: a no-op
        assert store.get(BOB.partition, bob_new.id) == bob_new
        assert store.journal(BOB.partition, memory_id=bob_new.id)[0].reason == "contract"
        assert _counts(store, ALICE.partition)["versions"] == 3 and store.check() == []

    def test_concurrent_writes(self, store: Store) -> None:
        errors: list[BaseException] = []

        def work(scope: Scope) -> None:
            try:
                for i in range(5):
                    fact = make_record(scope, f"fact number {i} of {scope.user_id}")
                    self._write(store, scope, fact, journal=(make_entry(scope, fact.id),))
                    store.query(scope.partition, RecordFilter())
            except BaseException as exc:  # raised again below, in the test's own thread
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(Scope(f"user{n}", tenant="acme"),)) for n in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert (_counts(store)["memories"], _counts(store)["journal"]) == (30, 30) and store.check() == []


def _filter_records(s: Scope) -> dict[str, MemoryRecord]:
    """Records that each filter field tells apart (see test_record_filter_semantics)."""
    c1 = make_record(s, "c one", retired_at=at(2))
    other_session = replace(s, session_id="s2", project=None)
    agent_made: dict[str, Any] = dict(layer=Layer.PROFILE, scene="coding", source="import", owner=Owner.AGENT)
    return {
        "a": make_record(s, "a"),
        "b": make_record(other_session, "b", valid_from=at(1), valid_to=at(3), status=Status.SUPERSEDED),
        "c1": c1,
        "c2": successor(c1, at(2), text="c two", valid_from=at(2), scope=replace(s, agent_id="a2")),
        "d": make_record(s, "d", valid_from=at(0.5), status=Status.DELETED),
        "e": make_record(replace(s, agent_id=None), "e", valid_to=at(2), **agent_made),
        "f": make_record(s, "f", valid_from=at(4), status=Status.EXPIRED),
    }


def _order(records: Iterable[MemoryRecord]) -> list[str]:
    return [r.version_id for r in records]


def _descending(hits: Sequence[tuple[str, float]]) -> bool:
    scores = [score for _, score in hits]
    return scores == sorted(scores, reverse=True)
