"""Training rows from an existing store's journal: what a writer committed, as pro requests and answers.

A memscribe store (SQLite file) keeps every episode it was given and a journal line for every operation a
writer decided on it, with the memory ids it was shown (``candidates``). :func:`journal_rows` turns each
written episode into the rows of :mod:`memscribe.train.dataset` (schema ``memscribe-train/1``):

* the **request** is the pro request for the episode's messages, with the candidate memories *as they were
  before the episode* (the version of each memory the store held just before the episode's transaction) under
  aliases 1, 2, 3, … in the journal's order, so for a ``pro`` writer it is the request the writer sent;
* the **answer** is the operations the writer committed (accepted journal lines), in the pro schema: ADD with
  the new memory's text, subject, owner, slot, value and messages; UPDATE / SUPERSEDE / DELETE / NOOP with the
  alias of their target.

What a journal cannot give back, and how each row says so (``source.lost``):

* the model's raw text, its repair rounds and the operations the engine or the writer rejected (rejected lines
  are left out and counted in ``source.rejected``);
* the chunking: a long episode the writer split into several calls becomes one request here, and drafts an
  earlier chunk showed a later one are not shown;
* for writers that do not speak pro (lite, mem0, Hy-Memory) the requests they sent: their committed operations
  are rendered as the pro answer to the pro request, which is a pro SFT target, not their own protocol's;
* a target no candidate names (an operation on a memory the writer was not shown, or one since erased):
  that operation is left out (``source.untargeted``) rather than given a wrong alias;
* probes: a store holds no questions about itself, so an RL row's ``scenario`` has the episodes as chunks and
  no probes (the reward's probe terms are then vacuous; over-storage is not charged without known facts).

The store is read from a consistent copy (SQLite's backup API) and never written.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memscribe.bench.scenarios import scenario_dict
from memscribe.core.records import Episode, JournalEntry, MemoryRecord, OpKind
from memscribe.stores.sqlite.codec import (
    EPISODE_COLUMNS,
    JOURNAL_COLUMNS,
    MEMORY_COLUMNS,
    episode_row,
    journal_row,
    memory_row,
)
from memscribe.train.dataset import SCHEMA, compact_answer
from memscribe.write.llm.chunks import split_episode
from memscribe.write.llm.render import pro_prompt, render_request

__all__ = ["JournalExport", "journal_rows", "store_scenario"]

_WRITES = (OpKind.ADD, OpKind.UPDATE, OpKind.SUPERSEDE, OpKind.DELETE)


@dataclass
class JournalExport:
    """What an export found: rows per kind, and what it had to leave out."""

    episodes: int = 0
    skipped: int = 0  # episodes with no journal line, or no user/assistant text
    rejected: int = 0
    untargeted: int = 0
    writers: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class _Tx:
    """One episode's transaction: its journal lines and the lowest memory rowid it inserted (None: none)."""

    episode: Episode
    entries: list[JournalEntry]
    first_row: int | None


class _Store:
    """Read-only access to a copy of a store file: episodes, journal, memory versions by rowid."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.rowid: dict[str, int] = {}
        self.records: dict[str, MemoryRecord] = {}
        self.versions: dict[str, list[tuple[int, MemoryRecord]]] = {}
        for row in conn.execute(f"SELECT rowid, {MEMORY_COLUMNS} FROM memories ORDER BY rowid"):
            record = memory_row(row[1:])
            self.rowid[record.version_id] = int(row[0])
            self.records[record.version_id] = record
            self.versions.setdefault(record.id, []).append((int(row[0]), record))

    def partitions(self) -> list[tuple[str, str]]:
        rows = self.conn.execute("SELECT DISTINCT tenant, user_id FROM episodes ORDER BY tenant, user_id")
        return [(str(t), str(u)) for t, u in rows]

    def transactions(self, partition: tuple[str, str]) -> tuple[list[_Tx], int]:
        """The partition's written episodes in the order they were written (journal order), and how many of
        its episodes have no journal line (pending, failed, or written with nothing to journal)."""
        episodes = {
            e.id: e
            for e in (episode_row(r) for r in self.conn.execute(
                f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE tenant = ? AND user_id = ?", partition))
        }  # fmt: skip
        lines: dict[str, list[JournalEntry]] = {}
        for row in self.conn.execute(
            f"SELECT {JOURNAL_COLUMNS} FROM journal WHERE tenant = ? AND user_id = ? ORDER BY rowid", partition
        ):
            entry = journal_row(row)
            if entry.episode_id in episodes:
                lines.setdefault(entry.episode_id, []).append(entry)
        txs = [_Tx(episodes[eid], entries, self._first_row(entries)) for eid, entries in lines.items()]
        return txs, len(episodes) - len(txs)

    def _first_row(self, entries: Sequence[JournalEntry]) -> int | None:
        """The first memory row the transaction inserted: its journaled versions, and the closed version of a
        superseded memory, which the engine inserts just before the new memory that supersedes it."""
        rows = [self.rowid[e.version_id] for e in entries if e.accepted and e.version_id in self.rowid
                and e.kind in _WRITES]  # fmt: skip
        for e in entries:
            record = self.records.get(e.version_id or "")
            if e.accepted and e.kind is OpKind.SUPERSEDE and record is not None and record.supersedes:
                rows += [r for r, v in self.versions.get(record.supersedes, []) if v.superseded_by == record.id]
        return min(rows) if rows else None

    def shown(self, memory_id: str, before: int | None) -> MemoryRecord | None:
        """The version of ``memory_id`` the store held before memory row ``before`` was inserted."""
        held = [v for r, v in self.versions.get(memory_id, []) if before is None or r < before]
        return held[-1] if held else None


def _bounds(txs: Sequence[_Tx]) -> list[int | None]:
    """Per transaction, the rowid no row it could see reaches: its own first row, or for one that inserted
    nothing the first row of the next one that did (None: every row was there before it)."""
    out: list[int | None] = [None] * len(txs)
    following: int | None = None
    for i in range(len(txs) - 1, -1, -1):
        following = txs[i].first_row if txs[i].first_row is not None else following
        out[i] = following
    return out


def _candidates(entries: Sequence[JournalEntry]) -> list[str]:
    """Every memory id the writer was shown for the episode, in the journal's order, once each."""
    return list(dict.fromkeys(mid for e in entries for mid in e.candidates))


def _target(entry: JournalEntry, record: MemoryRecord | None) -> str | None:
    """The memory id an operation acted on (SUPERSEDE journals the new memory; its target is what it closed)."""
    if entry.kind is OpKind.SUPERSEDE:
        return record.supersedes if record is not None else None
    if entry.kind is OpKind.ADD:  # a history entry names the memory that superseded it
        return record.superseded_by if record is not None else None
    return entry.memory_id


def _operation(entry: JournalEntry, record: MemoryRecord | None, aliases: dict[str, int]) -> dict[str, Any] | None:
    """One committed operation in the pro schema; None when its target was not among the candidates."""
    target = _target(entry, record)
    op: dict[str, Any] = {"op": entry.kind.value, "reason": entry.reason}
    if target is not None and target in aliases:
        op["target"] = aliases[target]
    elif target is not None and entry.kind is not OpKind.ADD:
        return None  # a history ADD keeps its text without the link; anything else needs its target
    if entry.kind in (OpKind.ADD, OpKind.UPDATE, OpKind.SUPERSEDE):
        if record is None:
            return None
        op |= {"text": record.text, "subject": record.subject, "owner": record.owner.value}
        op |= {k: v for k, v in (("slot", record.slot), ("value", record.value)) if v}
        op["msgs"] = list(record.message_indices)
        op["valid_from"] = record.valid_from.date().isoformat()
        if record.valid_to is not None:
            op["valid_to"] = record.valid_to.date().isoformat()
    return op


def store_scenario(partition: tuple[str, str], episodes: Sequence[Episode]) -> dict[str, Any]:
    """A probe-less scenario (the :func:`~memscribe.bench.scenarios.scenario_dict` shape) of ``episodes``."""
    from memscribe.bench.scenarios import Chunk, Scenario, Turn

    chunks = tuple(
        Chunk(
            session_id=e.scope.session_id or e.id,
            timestamp=e.timestamp,
            turns=tuple(Turn(m.role, m.content) for m in e.messages if m.role in ("user", "assistant")),
            probes=(),
        )
        for e in episodes
    )
    return scenario_dict(Scenario(f"store-{partition[1]}", "store", chunks, 0))


def _rows(
    store: _Store, partition: tuple[str, str], report: JournalExport, compact: bool, style: str
) -> Iterator[dict[str, Any]]:
    written, unwritten = store.transactions(partition)
    report.skipped += unwritten
    scenario = store_scenario(partition, [tx.episode for tx in written])
    for k, (tx, bound) in enumerate(zip(written, _bounds(written), strict=True)):
        chunks = split_episode(tx.episode, max_messages=10_000, max_tokens=1_000_000)
        if not chunks:
            report.skipped += 1
            continue
        ids = [m for m in _candidates(tx.entries) if store.shown(m, bound) is not None]
        shown = [(n, store.shown(m, bound)) for n, m in enumerate(ids, 1)]
        aliases = {m: n for n, m in enumerate(ids, 1)}
        prompt = pro_prompt(chunks[0].text(tx.episode), style=style)
        request = render_request(prompt, tx.episode, chunks[0], [(n, r) for n, r in shown if r is not None])
        operations, rejected, untargeted = [], 0, 0
        for entry in tx.entries:
            if not entry.accepted:
                rejected += 1
                continue
            op = _operation(entry, store.records.get(entry.version_id or ""), aliases)
            untargeted += op is None
            if op is not None:
                operations.append(op)
        answer = json.dumps({"operations": operations}, ensure_ascii=False)
        answer = compact_answer(answer) if compact else answer
        writer = tx.entries[0].writer
        report.episodes += 1
        report.rejected += rejected
        report.untargeted += untargeted
        report.writers[writer] = report.writers.get(writer, 0) + 1
        source = {"writer": writer, "model": tx.entries[0].usage.model, "protocol": "pro", "store": True,
                  "episode": tx.episode.id, "chunk": k, "rejected": rejected,
                  "untargeted": untargeted, "prompt_version": tx.entries[0].usage.prompt_version,
                  "lost": _lost(writer, len(chunks))}  # fmt: skip
        messages = [dict(m) for m in request]
        yield {"schema": SCHEMA, "kind": "sft", "messages": [*messages, {"role": "assistant", "content": answer}],
               "source": source}  # fmt: skip
        yield {"schema": SCHEMA, "kind": "rl", "prompt": messages, "scenario": scenario, "chunk": k,
               "reference": answer, "protocol": "pro", "source": source}  # fmt: skip


def _lost(writer: str, chunks: int) -> list[str]:
    lost = ["raw model text", "rejected operations", "probes"]
    if writer != "pro":
        lost.append(f"the {writer} writer's own requests (rendered as pro)")
    if chunks > 1:
        lost.append("chunking (one request for the whole episode)")
    return lost


def journal_rows(
    store_path: Path, *, compact: bool = False, report: JournalExport | None = None, prompt_style: str = "full"
) -> Iterator[dict[str, Any]]:
    """SFT and RL rows for every written episode of every user in the store at ``store_path``; ``report``
    (when given) counts what was exported and left out. ``prompt_style="compact"`` renders the requests with
    the pro writer's short prompt."""
    if not store_path.is_file():
        raise FileNotFoundError(f"no store file at {store_path}")
    tally = report if report is not None else JournalExport()
    with tempfile.TemporaryDirectory(prefix="memscribe-journal-") as tmp:
        copy = Path(tmp) / "store.db"
        _backup(store_path, copy)
        # A generator left unfinished is closed where it is collected, perhaps on another thread: the
        # connection is this generator's alone, so it may be closed from there.
        conn = sqlite3.connect(copy, check_same_thread=False)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not {"episodes", "journal", "memories"} <= tables:
                raise ValueError(f"{store_path} is not a memscribe store (no episodes, journal and memories tables)")
            store = _Store(conn)
            for partition in store.partitions():
                yield from _rows(store, partition, tally, compact, prompt_style)
        finally:
            conn.close()


def _backup(source: Path, target: Path) -> None:
    """A consistent copy of the store (its WAL included), taken without writing to it."""
    try:
        with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src, sqlite3.connect(target) as dst:
            src.backup(dst)
        src.close()
        dst.close()
    except sqlite3.DatabaseError as error:
        target.unlink(missing_ok=True)
        raise ValueError(f"{source} is not a readable SQLite store ({error})") from None
