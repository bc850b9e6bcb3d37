"""Tables for a ``memscribe bench speed`` report."""

from __future__ import annotations

from typing import Any

__all__ = ["render"]

_SEARCH_COLUMNS = (
    ("n", "memories", "{:,}"),
    ("search_p50_ms", "p50 ms", "{}"),
    ("search_p95_ms", "p95 ms", "{}"),
    ("search_no_embed_p50_ms", "p50 ms, query vector precomputed", "{}"),
    ("search_no_embed_p95_ms", "p95 ms, query vector precomputed", "{}"),
    ("embed_only_p50_ms", "query embedding alone, p50 ms", "{}"),
    ("stage_vector_p50_ms", "store.vector_search (k=30), p50 ms", "{}"),
    ("stage_keyword_p50_ms", "store.keyword_search (k=30), p50 ms", "{}"),
    ("stage_fetch_p50_ms", "store.by_version_ids (10 ids), p50 ms", "{}"),
    ("first_search_ms", "first search, index built from SQLite, ms", "{:,}"),
    ("reopen_first_search_ms", "first search after reopen (saved index), ms", "{:,}"),
    ("index_rss_mb", "resident memory added by reopen + first search, MiB", "{}"),
    ("index_file_mb", "saved index files, MiB", "{}"),
    ("db_mb", "SQLite file (with WAL), MiB", "{}"),
    ("insert_per_s", "bulk insert, memories/s", "{:,}"),
)


def _cell(value: object, fmt: str) -> str:
    return "-" if value is None else fmt.format(value)


def render(report: dict[str, Any]) -> None:
    """Print the report as tables on stdout."""
    import sys

    from rich.console import Console
    from rich.table import Table

    out = Console(file=sys.stdout, highlight=False)
    meta, imp, add, weight = report["meta"], report["import"], report["add"], report["weight"]
    head = Table(title=f"memscribe bench speed · {meta['cpus']} CPUs · python {meta['python']}",
                 show_header=False, title_justify="left")  # fmt: skip
    head.add_column("what", style="bold")
    head.add_column("value")
    head.add_row("import memscribe", f"{imp['import_ms']} ms (median of {imp['runs']} fresh interpreters)")
    head.add_row("import + Memory class", f"{imp['import_with_memory_ms']} ms")
    head.add_row(
        "add throughput",
        f"{add['turns_per_s']} turns/s ({add['turns']} turns in {add['episodes']} episodes, "
        f"writer {add['writer']}, {add['embedder']}; "
        f"add p50 {add['add_p50_ms']} ms, p95 {add['add_p95_ms']} ms)",
    )
    head.add_row("model load", f"{add['model_load_ms']} ms (not counted above)")
    head.add_row("site-packages", f"{weight['site_packages_mb']} MiB (the whole venv, test tools included)")
    head.add_row(
        "base install", f"{weight['base_install_mb']} MiB ({len(weight['base_distributions'])} distributions)"
    )
    out.print(head)
    if report.get("add_at"):
        _add_at_table(out, report)
    stores = list(dict.fromkeys(row.get("store", "sqlite") for row in report["search"]))
    if len(stores) > 1:
        _stores_table(out, report)
    table = Table(title="search through Memory.search (limit 10)", title_justify="left")
    table.add_column("memories", style="bold")
    for row in report["search"]:
        label = f"{row['n']:,}" if len(stores) == 1 else f"{row['n']:,} {row.get('store', 'sqlite')}"
        table.add_column(label, justify="right")
    for key, title, fmt in _SEARCH_COLUMNS[1:]:
        table.add_row(title, *(_cell(row.get(key), fmt) for row in report["search"]))
    out.print(table)
    for row in report["search"]:
        out.print(f"[dim]{row['n']:,} memories: {row['vectors']}[/dim]")


def _stores_table(out: Any, report: dict[str, Any]) -> None:
    """Stores side by side: add throughput, bulk insert and search latency at each size."""
    from rich.table import Table

    adds = report.get("add_by_store", {})
    writers = [key[len("adds_at_size_") : -len("_per_s")] for key in report["search"][0]
               if key.startswith("adds_at_size_") and key.endswith("_per_s")]  # fmt: skip
    table = Table(title="stores side by side (search: Memory.search, limit 10)", title_justify="left")
    for column in ("store", "memories", "add turns/s", "bulk insert/s", "search p50 ms", "search p95 ms",
                   "p50 ms, vector given", "p95 ms, vector given", "first search ms",
                   *(f"{w} adds/s at size" for w in writers)):  # fmt: skip
        table.add_column(column, justify="left" if column == "store" else "right")
    for row in report["search"]:
        add = adds.get(row.get("store", "sqlite"), {})
        table.add_row(
            row.get("store", "sqlite"), f"{row['n']:,}", _cell(add.get("turns_per_s"), "{}"),
            _cell(row.get("insert_per_s"), "{:,}"), _cell(row.get("search_p50_ms"), "{}"),
            _cell(row.get("search_p95_ms"), "{}"), _cell(row.get("search_no_embed_p50_ms"), "{}"),
            _cell(row.get("search_no_embed_p95_ms"), "{}"), _cell(row.get("first_search_ms"), "{:,}"),
            *(_cell(row.get(f"adds_at_size_{w}_per_s"), "{}") for w in writers),
        )  # fmt: skip
    out.print(table)


def _add_at_table(out: Any, report: dict[str, Any]) -> None:
    """memscribe's writers and the peers side by side: one-message adds at N memories, and search there."""
    from rich.table import Table

    rows, peers = report["add_at"], report.get("peers") or []
    first = rows[0]
    own_search: dict[str, Any] = next((r for r in report.get("search", []) if r["n"] == first["memories"]), {})
    table = Table(title=f"one-message add() into {first['memories']:,} memories ({first['embedder']}; texts: "
                  f"{first.get('texts', 'generated')})", title_justify="left")  # fmt: skip
    for column in ("system", "adds/s sustained", "adds/s acked", "drain s", "add p50 ms", "add p95 ms",
                   "CPU ms per add", "adds", "search p50 ms", "search p95 ms"):  # fmt: skip
        table.add_column(column, justify="left" if column == "system" else "right")
    for row in rows:
        keys = ("adds_per_s", "acked_adds_per_s", "drain_s", "add_p50_ms", "add_p95_ms", "cpu_ms_per_add", "adds")
        cells = [_cell(row.get(k), "{}") for k in keys]
        search = [_cell(own_search.get("search_p50_ms"), "{}"), _cell(own_search.get("search_p95_ms"), "{}")]
        table.add_row(f"memscribe {row['writer']}", *cells, *search)
    for peer in peers:
        if "error" in peer:
            table.add_row(peer["peer"], f"failed: {peer['error']}", *([""] * 8))
            continue
        keys = ("adds_per_s", "add_p50_ms", "add_p95_ms", "cpu_ms_per_add", "adds", "search_p50_ms", "search_p95_ms")
        label = f"{peer['peer']} at {peer['memories']:,}"
        first_cells = [_cell(peer.get(k), "{}") for k in keys]
        table.add_row(label, first_cells[0], "", "", *first_cells[1:])  # the peer's adds/s, timed as it returns
    out.print(table)
    out.print("[dim]acked: adds returned per second of the add loop. sustained: the clock stops only once every "
              "memory added is written and searchable by vector (drain s after the last add returned: wait=False "
              "episodes written, vectors left to the indexer computed). CPU ms per add: all threads (peers: this "
              "process, which embeds for them, plus theirs).[/dim]")  # fmt: skip
