"""``memscribe migrate --from SPEC --to SPEC``: copy a whole store into another backend and verify it."""

from __future__ import annotations

import time
from dataclasses import asdict

import click
from rich.console import Console

from memscribe.cli.output import emit, pairs_table, progress_bar
from memscribe.cli.state import CliState, json_option, pass_state

__all__ = ["migrate_cmd"]


@click.command("migrate")
@click.option("--from", "source", required=True, metavar="SPEC", help="The store to copy: a SQLite path or URL.")
@click.option("--to", "target", required=True, metavar="SPEC", help="An empty store to copy into (path or URL).")
@click.option("--sample", default=3, show_default=True, help="Memories per user whose searches are compared.")
@json_option
@pass_state
def migrate_cmd(state: CliState, source: str, target: str, sample: int) -> None:
    """Copy every tenant and user from one store to another (sqlite <-> postgresql://...), keeping the stored
    vectors, then verify: counts, checksums of versions, journal and episodes, and a sample of searches.
    Exits non-zero when the verification finds a difference; the source is never changed."""
    from memscribe.stores.copy import copy_store, verify_copy
    from memscribe.stores.factory import open_store

    src, dst = open_store(source), open_store(target)
    try:
        started = time.monotonic()
        total = int(src.stats()["versions"])
        with progress_bar("copying", total, show=not state.json) as advance:
            report = copy_store(src, dst, progress=advance)
        copied = time.monotonic() - started
        verify_copy(src, dst, report, sample=sample)
        data = {**asdict(report), "verified": report.verified, "copy_seconds": round(copied, 2),
                "verify_seconds": round(time.monotonic() - started - copied, 2)}  # fmt: skip
    finally:
        src.close()
        dst.close()

    def render(out: Console) -> None:
        shown = {k: v for k, v in data.items() if k != "problems"}
        out.print(pairs_table(shown.items(), title="migrated"))
        for problem in report.problems:
            out.print(f"[red]{problem}[/red]")

    emit(state.json, data, render)
    if not report.verified:
        raise click.exceptions.Exit(1)
