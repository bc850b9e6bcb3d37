"""Peer adapters: the JSON-lines wire, embedding and model callbacks, errors and shutdown, on the shipped
fake peer (always), and on mem0ai and hy-memory themselves when ``make bench-peers`` installed them
(marker ``peers``; run with ``make test-peers``)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from memscribe.bench.writers.fake_model import bench_fake_chat
from memscribe.bench.writers.peers import PeerError, PeerSubject, peer_subject
from memscribe.bench.writers.protocols import retriever
from memscribe.providers.hashing import HashEmbedder

ROOT = Path(__file__).resolve().parents[2]
WHEN = datetime(2024, 3, 1, 9)
SAID = [{"role": "user", "content": "I moved to Lisbon and work at Stripe now."}]


def _peer(name: str, tmp_path: Path, chat: bool = False, peers: dict[str, str] | None = None) -> PeerSubject:
    return peer_subject(name, tmp_path, HashEmbedder(), peers or {}, bench_fake_chat if chat else None)


def test_fake_peer_adds_lists_and_searches_through_the_mirror(tmp_path: Path) -> None:
    peer = _peer("fake-peer", tmp_path)
    try:
        answer = peer.add(SAID, user_id="u", when=WHEN)
        assert [r["event"] for r in answer["results"]] == ["ADD"]
        assert [r["memory"] for r in peer.current("u")] == [SAID[0]["content"]] and peer.current("v") == []
        hits = retriever("hybrid", HashEmbedder())(peer, "where does the user live", "u", 3)
        assert [h["memory"] for h in hits] == [SAID[0]["content"]]
        assert retriever("cosine", HashEmbedder())(peer, "Lisbon", "u", 3)[0]["memory"] == SAID[0]["content"]
        assert peer.cost()["calls"] == 0
    finally:
        size = peer.store_bytes()
    assert size >= 0 and peer.proc.poll() is not None  # closed by store_bytes; closing twice is harmless
    peer.close()


def test_model_callbacks_are_metered_in_the_parent(tmp_path: Path) -> None:
    peer = _peer("fake-peer-infer", tmp_path, chat=True)
    try:
        peer.add(SAID, user_id="u", when=WHEN)
        peer.add(SAID, user_id="u", when=WHEN)
        cost = peer.cost()
        assert cost["calls"] == 2 and cost["tokens_in"] > 0
    finally:
        peer.close()


def test_a_failing_add_is_a_peer_error_and_the_peer_keeps_serving(tmp_path: Path) -> None:
    peer = _peer("fake-peer", tmp_path)
    try:
        with pytest.raises(PeerError, match="asked to fail"):
            peer.add([{"role": "user", "content": "[peer-fail] now"}], user_id="u", when=WHEN)
        peer.add(SAID, user_id="u", when=WHEN)
        assert len(peer.current("u")) == 1
    finally:
        peer.close()


def test_a_peer_that_needs_a_model_refuses_to_start_without_one(tmp_path: Path) -> None:
    with pytest.raises(PeerError, match="needs a model"):
        _peer("fake-peer-infer", tmp_path)


def test_an_uninstalled_peer_says_how_to_install_it(tmp_path: Path) -> None:
    with pytest.raises(PeerError, match="make bench-peers"):
        _peer("hy-lite", tmp_path)


def test_a_peer_that_dies_at_start_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(PeerError, match=r"exited \(code 1\); see .*peer\.log"):
        _peer("mem0ai-raw", tmp_path, peers={"mem0": "false"})  # an interpreter that exits at once


def _installed(backend: str) -> dict[str, str]:
    python = ROOT / ".cache" / "peers" / backend / "bin" / "python"
    if not python.exists():
        pytest.skip(f"{backend} is not installed (make bench-peers)")
    return {backend: str(python)}


def test_a_relative_peer_python_is_found_from_the_caller(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.chdir(Path(sys.executable).parent)
    peer = peer_subject("fake-peer", tmp_path, HashEmbedder(), {"fake": f"./{Path(sys.executable).name}"})
    try:
        assert peer.add(SAID, user_id="u", when=WHEN)["results"]
    finally:
        peer.close()


def test_a_peer_started_directly_finds_a_relative_python_from_the_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    # bench speed starts its peers with PeerSubject itself; the peer's working folder is its store.
    monkeypatch.chdir(Path(sys.executable).parent)
    peer = PeerSubject("fake", tmp_path, python=f"./{Path(sys.executable).name}", backend="fake",
                       options={"infer": False}, embedder=HashEmbedder(), chat=None)  # fmt: skip
    try:
        assert peer.add(SAID, user_id="u", when=WHEN)["results"]
    finally:
        peer.close()


@pytest.mark.peers
@pytest.mark.parametrize("name", ["mem0ai-raw", "hy-lite"])
def test_real_peer_without_a_model_stores_and_lists(name: str, tmp_path: Path) -> None:
    peer = _peer(name, tmp_path, peers=_installed("mem0" if name.startswith("mem0") else "hy"))
    try:
        peer.add(SAID, user_id="u", when=WHEN)
        texts = [str(r["memory"]) for r in peer.current("u")]
        assert len(texts) == 1 and "Lisbon" in texts[0]
        assert "Lisbon" in str(retriever("hybrid", HashEmbedder())(peer, "where does the user live", "u", 3))
        assert peer.cost()["calls"] == 0
    finally:
        peer.close()


@pytest.mark.peers
@pytest.mark.parametrize("name", ["mem0ai", "hy-pro"])
def test_real_peer_with_a_model_calls_it_over_the_wire(name: str, tmp_path: Path) -> None:
    peer = _peer(name, tmp_path, chat=True, peers=_installed("mem0" if name.startswith("mem0") else "hy"))
    try:
        peer.add(SAID, user_id="u", when=WHEN)
        assert peer.cost()["calls"] >= 1  # the fake model does not speak the peer's prompt: no memory asserted
    finally:
        peer.close()
