"""``memscribe doctor``: check the store, its indexes, the writer and the embedder; a verdict for each."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memscribe.cli.output import emit, plain
from memscribe.cli.state import CliState, json_option, pass_state
from memscribe.errors import MemscribeError
from memscribe.settings import Settings

if TYPE_CHECKING:
    from rich.console import Console

    from memscribe.stores.sqlite import SQLiteStore

__all__ = ["Check", "doctor_cmd", "run_checks"]

PROBE = "Caroline moved from Seattle to Sydney in May 2023."
_STYLE = {"ok": "green", "warn": "yellow", "fail": "bold red", "skip": "dim"}


@dataclass(frozen=True)
class Check:
    """One check's outcome: ``ok``, ``warn`` (works, but look), ``fail`` (broken) or ``skip``."""

    name: str
    verdict: str
    detail: str
    ms: float = 0.0


def _timed(name: str, fn: Callable[[], tuple[str, str]]) -> Check:
    started = time.perf_counter()
    try:
        verdict, detail = fn()
    except MemscribeError as exc:
        verdict, detail = "fail", f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # a doctor reports what is broken instead of crashing on it
        verdict, detail = "fail", f"unexpected {type(exc).__name__}: {exc}"
    return Check(name, verdict, detail, round((time.perf_counter() - started) * 1000, 1))


def _store_opens(store: SQLiteStore) -> tuple[str, str]:
    stats = store.stats()
    return "ok", f"{store.path}: {stats['current']} current memories, {stats['bytes'] / 2**20:.1f} MiB"


def _migrations(store: SQLiteStore) -> tuple[str, str]:
    from memscribe.stores.sqlite.schema import MIGRATIONS

    applied = store.db.read(lambda conn: [row[0] for row in conn.execute("SELECT name FROM migrations")])
    known = [name for name, _ in MIGRATIONS]
    missing = [name for name in known if name not in applied]
    unknown = [name for name in applied if name not in known]
    if missing:
        return "fail", f"not applied: {', '.join(missing)}"
    if unknown:
        return "warn", f"store was migrated by a newer memscribe: {', '.join(unknown)}"
    return "ok", f"{len(applied)}/{len(known)} applied (latest {known[-1]})"


def _integrity(store: SQLiteStore) -> tuple[str, str]:
    problems = store.check()
    return ("fail", "; ".join(problems)) if problems else ("ok", "database, keyword index and vectors agree")


def _pending(store: SQLiteStore) -> tuple[str, str]:
    pending = int(store.stats()["pending_episodes"])
    if not pending:
        return "ok", "every stored episode has been written"
    row = store.db.read(
        lambda conn: conn.execute("SELECT COUNT(*), MAX(error) FROM episodes WHERE status = 'failed'").fetchone()
    )
    failed = f"; {row[0]} failed, last error: {row[1]}" if row[0] else ""
    return "warn", f"{pending} episodes not yet written (the next add or search retries them){failed}"


def _index_files(store: SQLiteStore) -> tuple[str, str]:
    files = store.vectors.files()
    metas = [f for f in files if f.suffix == ".json"]
    broken = []
    for meta in metas:
        try:
            target = meta.parent / json.loads(meta.read_text())["file"]
        except (OSError, ValueError, KeyError):
            broken.append(meta.name)
            continue
        if not target.is_file():
            broken.append(meta.name)
    known = store.embedding_model()
    if known is not None:  # open each index: a wrong width or a damaged file is rebuilt, and worth knowing
        broken += [p for p in store.vectors.check_files(known[1]) if not any(b in p for b in broken)]
    size = sum(f.stat().st_size for f in files if f.is_file())
    detail = f"{len(metas)} partition indexes, {size / 2**20:.1f} MiB in {store.vectors.directory}"
    rebuild = "from SQLite on the next search, or now by `memscribe reindex`"
    if broken:
        return "warn", f"{detail}; unreadable: {', '.join(broken)} (rebuilt {rebuild})"
    return "ok", detail if metas else f"no saved index yet (built {rebuild})"


def _writer(settings: Settings) -> tuple[str, str]:
    from memscribe.engine.memory import chat_factory
    from memscribe.engine.writers import make_writer
    from memscribe.settings import memory_config

    writer = make_writer(settings.writer.value or "", chat_factory=chat_factory(memory_config(settings)))
    return "ok", f"{writer.name} v{writer.version}"


MODEL_PROBE_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "moved": {"type": "boolean"}},
    "required": ["city", "moved"],
    "additionalProperties": False,
}


def _try_mode(settings: Settings, choice: str) -> tuple[bool, str]:
    """One probe call with the structured-output mode ``choice``: (worked, what happened)."""
    from memscribe.errors import ConfigError, ModelOutputError
    from memscribe.providers.openai_compat import RetryPolicy
    from memscribe.providers.presets import make_chat
    from memscribe.settings import memory_config

    cfg = memory_config(settings)
    assert cfg.llm is not None
    messages = [{"role": "user", "content": f"{PROBE}\nAnswer in JSON: the city she lives in now, and moved."}]
    try:
        chat = make_chat(cfg.llm, base_url=cfg.llm_base_url, api_key=cfg.llm_api_key, structured=choice,
                         retry=RetryPolicy(max_retries=0), timeout=300.0)  # fmt: skip
    except ConfigError as exc:
        return False, f"not offered ({exc})"
    try:
        result = chat.complete(messages, schema=MODEL_PROBE_SCHEMA, max_tokens=64)
    except ModelOutputError as exc:
        return False, f"unusable JSON ({exc})"
    except MemscribeError as exc:
        return False, f"{type(exc).__name__}: {exc}"
    finally:
        close = getattr(chat, "close", None)
        if callable(close):
            close()
    usage = result.usage
    return True, f"{usage.latency_ms:.0f} ms, {usage.tokens_in}+{usage.tokens_out} tokens"


def _model(settings: Settings) -> tuple[str, str]:
    """Is the configured model reachable, and which structured-output modes work with it?

    Every mode of ``--llm-structured`` is tried with one small probe; the verdict is ``ok`` when the
    configured one works, ``warn`` with the flag to use when only another does, ``fail`` when none does."""
    from memscribe.providers.presets import STRUCTURED_CHOICES, parse_spec, structured_for

    if not settings.llm.value:
        return "skip", "no model configured (--llm / MEMSCRIBE_LLM); the lite and raw writers need none"
    preset, _ = parse_spec(settings.llm.value)
    configured = structured_for(settings.llm_structured.value, preset)
    tried = {choice: _try_mode(settings, choice) for choice in STRUCTURED_CHOICES}
    working = [choice for choice, (ok, _) in tried.items() if ok]
    summary = "; ".join(f"{choice}: {'works' if ok else 'fails'}, {what}" for choice, (ok, what) in tried.items())
    mine = next((c for c in STRUCTURED_CHOICES if structured_for(c, preset) is configured), configured.value)
    if mine in working:
        return "ok", f"{settings.llm.value}: reachable, {mine} works (in use). {summary}"
    if working:
        return "warn", f"{settings.llm.value}: {mine} (in use) fails; use --llm-structured {working[0]}. {summary}"
    return "fail", f"{settings.llm.value}: no structured-output mode works. {summary}"


def _embedder(settings: Settings, store: Any) -> tuple[str, str]:
    import numpy as np

    from memscribe.providers.registry import make_embedder

    started = time.perf_counter()
    embedder = make_embedder(settings.embedder.value or "")
    vectors = embedder.embed([PROBE])  # the first call loads the model
    first = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    embedder.embed([PROBE])
    warm = (time.perf_counter() - started) * 1000
    norm = float(np.linalg.norm(vectors[0]))
    detail = f"{embedder.model_id}, dim {vectors.shape[1]}, load+embed {first:.0f} ms, embed {warm:.1f} ms"
    if vectors.shape != (1, embedder.dim) or abs(norm - 1.0) > 1e-3:
        return "fail", f"{detail}; bad output: shape {vectors.shape}, norm {norm:.3f}"
    known = store.embedding_model() if store is not None else None
    if known is not None and known != (embedder.model_id, embedder.dim):
        return "fail", f"{detail}; the store holds {known[0]} vectors of dim {known[1]}: searches will fail"
    return "ok", detail


def _postgres_checks(url: str) -> tuple[list[Check], Any, bool]:
    """The store checks of a PostgreSQL URL (``memscribe.cli.doctor_postgres``), the store (the caller
    closes it), and whether its schema is current (so the embedder check may read it)."""
    from memscribe.cli.doctor_postgres import CHECKS, connection
    from memscribe.stores.postgres import PostgresStore
    from memscribe.stores.postgres.maintenance import health

    store = PostgresStore(url, retry_seconds=5.0)
    facts: dict[str, Any] = {}

    def connect() -> tuple[str, str]:
        facts.update(health(store))
        return connection(store, facts)

    checks = [_timed("store", connect)]
    if not facts:
        return checks, store, False
    checks += [_timed(name, lambda fn=fn: fn(store, facts)) for name, fn in CHECKS]  # type: ignore[misc]
    return checks, store, bool(facts["applied"]) and not facts["missing"]


def run_checks(settings: Settings) -> list[Check]:
    """Every check, in order. Store checks are skipped (not failed) when there is no store yet."""
    from memscribe.stores.factory import is_url
    from memscribe.stores.sqlite import SQLiteStore

    spec = settings.store_spec
    if is_url(spec) and spec.split("://", 1)[0].lower() in ("postgresql", "postgres"):
        found, pg, current = _postgres_checks(spec)
        try:
            found.append(_timed("writer", lambda: _writer(settings)))
            found.append(_timed("model", lambda: _model(settings)))
            found.append(_timed("embedder", lambda: _embedder(settings, pg if current else None)))
        finally:
            pg.close()
        return found
    path = Path(spec.split("://", 1)[1] if is_url(spec) else settings.db.value or "")
    checks: list[Check] = []
    store = SQLiteStore(path) if path.is_file() else None
    try:
        if store is None:
            checks.append(Check("store", "skip", f"no store yet at {path} (created on the first add)"))
        else:
            checks.append(_timed("store", lambda: _store_opens(store)))
            if checks[-1].verdict == "ok":
                for name, fn in (("migrations", _migrations), ("integrity", _integrity),
                                 ("pending episodes", _pending), ("index files", _index_files)):  # fmt: skip
                    checks.append(_timed(name, lambda fn=fn: fn(store)))  # type: ignore[misc]
        checks.append(_timed("writer", lambda: _writer(settings)))
        checks.append(_timed("model", lambda: _model(settings)))
        checks.append(_timed("embedder", lambda: _embedder(settings, store)))
    finally:
        if store is not None:
            store.close()
    return checks


@click.command("doctor")
@json_option
@pass_state
def doctor_cmd(state: CliState) -> None:
    """Check the store, migrations, integrity, pending work, index files, writer and embedder.

    Prints a verdict per check (ok, warn, fail, skip) and exits 1 if any check failed.
    """
    checks = run_checks(state.settings)
    failed = [c.name for c in checks if c.verdict == "fail"]
    data: dict[str, Any] = {"ok": not failed, "failed": failed, "checks": [asdict(c) for c in checks]}

    def render(out: Console) -> None:
        from rich.table import Table

        table = Table(title="memscribe doctor", title_justify="left")
        for column in ("check", "verdict", "ms", "detail"):
            table.add_column(column, justify="right" if column == "ms" else "left")
        for c in checks:
            table.add_row(c.name, f"[{_STYLE[c.verdict]}]{c.verdict}[/]", f"{c.ms:.1f}", plain(c.detail))
        out.print(table)
        out.print(f"[bold red]{len(failed)} check(s) failed: {', '.join(failed)}[/]" if failed else
                  "[bold green]all checks passed[/]")  # fmt: skip

    emit(state.json, data, render)
    if failed:
        click.get_current_context().exit(1)
