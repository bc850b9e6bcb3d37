"""The multi-writer soak (``make test-slow``): 20 rounds, each with two servers, HTTP, CLI and SDK writers on
one store and kill -9 at random points; no acknowledged write may be missing once recovery ran. A longer
soak: ``make test-slow SOAK_ROUNDS=100 SOAK_SECONDS=30`` (rounds, and seconds of writing per round)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .soak import Round, run_round

ROUNDS = int(os.environ.get("SOAK_ROUNDS", "20"))
SECONDS = float(os.environ.get("SOAK_SECONDS", "8"))


@pytest.mark.soak
@pytest.mark.timeout(max(900, int(ROUNDS * (SECONDS + 60))))
def test_no_acknowledged_write_is_lost_across_rounds_with_kill_9(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    totals = {"acked": 0, "missing": 0, "pending": 0, "kills": 0}
    for i in range(ROUNDS):
        result = run_round(Round(tmp_path / f"round-{i}", seed=i, seconds=SECONDS))
        totals = {k: totals[k] + result[k] for k in totals}
        assert result["missing"] == 0 and result["pending"] == 0, f"round {i}: {result}"
    with capsys.disabled():
        print(f"\nsoak: {ROUNDS} rounds, {totals['acked']} acknowledged writes, {totals['kills']} kill -9, "
              f"{totals['missing']} missing, {totals['pending']} left pending")  # fmt: skip
    assert totals["acked"] > ROUNDS
