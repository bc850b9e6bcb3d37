"""``python -m memscribe.bench.embedders [SPEC ...]``: embedders side by side on retrieval in English and Chinese.

A small fixture written for memscribe (no external data): 22 English and 20 Chinese memory statements, each
with a question that shares few words with it ("Which foods must Alice avoid?" → "Alice is allergic to
peanuts."), searched by cosine over the statements of its language and over both languages together.
Prints top-1 and MRR per set and the embedder's speed (sentences/s in one batch, ms for one sentence, CPU ms
per sentence). Tiny sets: they tell a model that reads a language from one that does not, not an MTEB score.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memscribe.providers.ports import Embedder

__all__ = ["CHINESE", "ENGLISH", "compare", "main"]

Fixture = tuple[tuple[str, ...], tuple[tuple[str, int], ...]]

ENGLISH: Fixture = (
    ("Alice is allergic to peanuts.", "Alice moved to Lisbon in March 2024.",
     "Alice works as a nurse at St Mary's hospital.", "Alice's daughter Emma is six years old.",
     "Alice plays badminton every Tuesday evening.", "Alice's favourite film is Spirited Away.",
     "Alice's husband is a surgeon.", "Alice went hiking in Patagonia last summer.",
     "Alice is learning Japanese to study in Tokyo.", "Alice drives a white Tesla.", "Alice's birthday is on March 12.",
     "Alice's mother lives in Porto.", "Alice doesn't drink coffee, only green tea.",
     "Alice studied computer science at Imperial College.", "Alice adopted a corgi named Biscuit.",
     "Alice cycles to work every day.", "Alice wants to avoid meetings before 10am.",
     "Alice's brother is doing a PhD in Boston.", "Alice is saving for a house deposit.",
     "Alice had knee surgery in 2022.", "Alice volunteers at a food bank on Saturdays.",
     "Alice's team uses Rust for the billing service."),
    (("Which foods must Alice avoid?", 0), ("Where does Alice live now?", 1), ("What is Alice's job?", 2),
     ("How old is Alice's kid?", 3), ("What sport does Alice play?", 4), ("What movie does Alice like most?", 5),
     ("What does Alice's spouse do for a living?", 6), ("Where did Alice travel recently?", 7),
     ("Which language is Alice studying?", 8), ("What car does Alice have?", 9), ("When was Alice born?", 10),
     ("Where is Alice's mum?", 11), ("What does Alice drink in the morning?", 12),
     ("What was Alice's degree?", 13), ("What pet does Alice have?", 14), ("How does Alice commute?", 15),
     ("When should I schedule a call with Alice?", 16), ("What is Alice's sibling doing?", 17),
     ("What is Alice's financial goal?", 18), ("Has Alice had any operations?", 19),
     ("What does Alice do on weekends?", 20), ("What programming language does Alice's team use?", 21)),
)  # fmt: skip

CHINESE: Fixture = (
    ("我住在北京朝阳区，离公司很近。", "我在腾讯工作，是一名产品经理。", "我养了一只柯基，名字叫豆豆。",
     "我女儿今年六岁，在上小学一年级。", "我对花生过敏，不能吃任何坚果。", "每个星期二晚上我都去打羽毛球。",
     "我最喜欢的电影是《千与千寻》。", "我老婆是一名医生，在协和医院上班。", "去年夏天我们全家去了云南旅游。",
     "我正在学习日语，准备明年去东京留学。", "我开一辆白色的特斯拉。", "我的生日是三月十二号。",
     "我妈妈住在上海浦东。", "我不喝咖啡，只喝绿茶。", "我大学读的是计算机专业，在浙江大学。",
     "我最近搬到了深圳南山区。", "我家还有一只猫，叫咪咪。", "我每天骑车上班。", "我哥哥在美国读博士。",
     "我在存钱准备买房子的首付。"),
    (("我住在哪里？", 0), ("我在哪家公司工作？", 1), ("我的狗叫什么名字？", 2), ("我女儿几岁了？", 3),
     ("我有什么东西不能吃？", 4), ("我星期二晚上做什么运动？", 5), ("我最喜欢哪部电影？", 6),
     ("我老婆是做什么的？", 7), ("我们去年去哪里旅游了？", 8), ("我在学什么语言？", 9), ("我开什么车？", 10),
     ("我的生日是哪天？", 11), ("我妈妈住在哪个城市？", 12), ("我早上喝什么？", 13), ("我大学学的什么？", 14),
     ("我搬家了吗？搬到哪里？", 15), ("猫叫什么？", 16), ("我怎么去上班？", 17), ("我哥在做什么？", 18),
     ("我的理财目标是什么？", 19)),
)  # fmt: skip


def _rank_scores(embedder: Embedder, memories: Sequence[str], questions: Sequence[tuple[str, int]]) -> dict[str, float]:
    embed = embedder.embed
    scores = embed([q for q, _ in questions]) @ embed(list(memories)).T
    ranks = [int((scores[i] > scores[i, target]).sum()) for i, (_, target) in enumerate(questions)]
    mrr = round(statistics.fmean(1 / (r + 1) for r in ranks), 3)
    return {"top1": sum(r == 0 for r in ranks), "n": len(ranks), "mrr": mrr}


def _speed(embedder: Embedder) -> dict[str, float]:
    embed = embedder.embed
    texts = list(ENGLISH[0] + CHINESE[0]) * 3
    embed(texts[:4])
    started, cpu = time.perf_counter(), time.process_time()
    embed(texts)
    batch_s, batch_cpu = time.perf_counter() - started, time.process_time() - cpu
    started = time.perf_counter()
    for text in texts[:30]:
        embed([text])
    one_ms = (time.perf_counter() - started) * 1000 / 30
    return {"sentences_per_s": round(len(texts) / batch_s, 1), "one_sentence_ms": round(one_ms, 2),
            "cpu_ms_per_sentence": round(1000 * batch_cpu / len(texts), 2)}  # fmt: skip


def compare(specs: Sequence[str]) -> list[dict[str, object]]:
    """One row per embedder spec: English, Chinese and mixed retrieval, and speed."""
    from memscribe.providers.registry import make_embedder

    shift = len(ENGLISH[0])
    mixed = (ENGLISH[0] + CHINESE[0], ENGLISH[1] + tuple((q, t + shift) for q, t in CHINESE[1]))
    rows: list[dict[str, object]] = []
    for spec in specs:
        embedder = make_embedder(spec)
        row: dict[str, object] = {"embedder": spec, "model": embedder.model_id}
        for name, (memories, questions) in (("english", ENGLISH), ("chinese", CHINESE), ("mixed", mixed)):
            row[name] = _rank_scores(embedder, memories, questions)
        row["speed"] = _speed(embedder)
        rows.append(row)
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    specs = list(argv if argv is not None else sys.argv[1:]) or ["local", "e5"]
    for row in compare(specs):
        sets = " | ".join(f"{n}: top-1 {row[n]['top1']}/{row[n]['n']}, MRR {row[n]['mrr']}"  # type: ignore[index]
                          for n in ("english", "chinese", "mixed"))  # fmt: skip
        speed = row["speed"]
        print(f"{row['embedder']} ({row['model']}) | {sets} | {speed}")


if __name__ == "__main__":
    main()
