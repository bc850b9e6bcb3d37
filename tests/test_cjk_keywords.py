"""Keyword search over Chinese, Japanese and Korean text: segmentation, the query side and the migration."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memscribe import Memory
from memscribe.core.cjk import bigram_phrase, cjk_bigrams, has_cjk, segment_cjk
from memscribe.core.text import keyword_terms
from memscribe.stores.ports import RecordFilter


def test_runs_become_characters_then_bigrams_and_other_text_is_untouched() -> None:
    assert cjk_bigrams("北京") == ["北京"] and cjk_bigrams("猫") == ["猫"] and cjk_bigrams("") == []
    assert segment_cjk("住在北京。") == " 住 在 北 京 住在 在北 北京 。"
    assert segment_cjk("I live in Berlin") == "I live in Berlin"
    assert segment_cjk("用iPhone拍").split() == ["用", "iPhone", "拍"]
    assert bigram_phrase("朝阳区") == "朝阳 阳区" and bigram_phrase("berlin") == "berlin"
    assert has_cjk("서울") and has_cjk("ソニー") and not has_cjk("Zürich")


def test_query_terms_put_bigrams_first_and_drop_lone_function_characters() -> None:
    assert keyword_terms("我住在哪里？") == ["我住", "住在", "在哪", "哪里", "住", "里"]
    assert keyword_terms("猫") == ["猫"] and keyword_terms("我") == []
    assert keyword_terms("Where is 北京?") == ["北京", "北", "京"]


def test_memory_search_finds_a_chinese_word_inside_a_clause(tmp_path: Path) -> None:
    with Memory(tmp_path / "s.db", writer="raw", embedder="hash") as m:
        m.add("我在腾讯工作，是一名产品经理。", user_id="u")
        m.add("我对花生过敏。", user_id="u")
        hits = m.search("我在哪家公司工作？", user_id="u", limit=1)["results"]
        assert hits and "腾讯" in hits[0]["memory"]


def test_the_migration_reindexes_cjk_texts_of_an_existing_store(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Memory(path, writer="raw", embedder="hash") as m:
        m.add("我住在北京朝阳区。", user_id="u")
        m.add("I live in Berlin.", user_id="u")
    # Make the file look as a store written before the migration: texts indexed as they are, 0003 not run.
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT rowid, text FROM memories").fetchall()
    conn.executemany("UPDATE memories_fts SET text = ? WHERE rowid = ?", [(text, rowid) for rowid, text in rows])
    conn.execute("DELETE FROM migrations WHERE name = '0004_cjk_keywords'")
    conn.commit()
    assert conn.execute("SELECT COUNT(*) FROM memories_fts WHERE memories_fts MATCH '北京'").fetchone()[0] == 0
    conn.close()
    with Memory(path, writer="raw", embedder="hash") as m:
        store = m._core.store
        found = store.keyword_search(("default", "u"), keyword_terms("北京"), RecordFilter(), 5)
        assert [r.text for r in store.by_version_ids(("default", "u"), [v for v, _ in found])] == ["我住在北京朝阳区。"]
        english = store.keyword_search(("default", "u"), ["berlin"], RecordFilter(), 5)
        assert len(english) == 1
    names = [r[0] for r in sqlite3.connect(path).execute("SELECT name FROM migrations")]
    assert "0004_cjk_keywords" in names
