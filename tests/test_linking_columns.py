"""Linking weighs only the pairs that could link (indexer/memories/linking.py): statements
that give a value of one type, and beyond those the reversals whose embeddings rise far enough,
found in a second pass. It must find exactly the links that weighing every earlier statement
finds, on statements of every sort (values of each type, cues, negations, days named,
restatements) among unrelated ones."""

from __future__ import annotations

import numpy as np

from indexer.memories.linking import _direct, _one_message, link_memories
from indexer.memories.rise import relative_similarity
from indexer.memories.supersession import Statement, Supersession, supersedes
from indexer.memories.values import typed_values
from models import Memory

SUBJECTS = [
    ["Tidepool standup at 10:00", "Tidepool standup moves to 10:30",
     "Tidepool standup moves from 10:30 to 11:00", "Tidepool standup stays at 11:00",
     "Tidepool standup on Friday instead of Thursday", "Tidepool standup on Thursday",
     "Tidepool standup: Friday at 10:30"],
    ["Deploys are banned on Friday", "Deploys are no longer banned on Friday",
     "Deploys allowed on Friday before 15:00", "恢复禁止周五上线，取代 2026-03-06 的周五 15:00 前可上线规则"],
    ["Budget for the Marlin launch is $150", "Marlin budget raised to $180",
     "Marlin budget cut to $120 instead of $180", "Marlin budget is still $120"],
    ["备份每天凌晨 2 点跑", "备份改到 04:15", "备份不再每天跑，改成每周三", "备份还是每周三"],
    ["Force pushes to the main branch are banned", "Force pushes to the main branch are allowed",
     "Force pushes to the main branch switched to allowed after 18:00",
     "Force pushes to the main branch are banned again after 20:00, instead of allowed"],
    ["主分支强推禁止", "主分支强推允许", "主分支强推改成 18:00 以后允许", "主分支强推恢复禁止，20:00 以后"],
    ["MaxConns 20 on the api pool", "MaxConns 40 on the api pool now", "api pool MaxConns changed to 60"],
    ["记住间歇不能和恢复一起用。", "间歇不再禁止和恢复一起用", "训练 5 次一周", "训练改成 3 次一周"],
]
OTHERS = ["Water the tomatoes every morning", "The cat prefers the blue bowl",
          "Renew the passport before summer", "Buy a new kettle on Monday",
          "Read the Go memory model", "Call the bank about the card at 9:00",
          "The flat is 80 square metres", "No meetings before noon"]


def archive(seed: int) -> tuple[list[Memory], np.ndarray]:
    """Statements about a few subjects said again and changed over months, among unrelated
    ones, with vectors that make one subject's statements alike (some more than others)."""
    rng = np.random.default_rng(seed)
    memories, vectors = [], []
    centers = rng.normal(size=(len(SUBJECTS), 24))
    for n in range(220):
        day = f"2026-{1 + n // 28:02d}-{1 + n % 28:02d}"
        if rng.random() < 0.55:
            s = int(rng.integers(len(SUBJECTS)))
            text = SUBJECTS[s][int(rng.integers(len(SUBJECTS[s])))]
            vector = centers[s] + rng.normal(scale=rng.choice([0.05, 0.2, 0.6, 1.2, 2.0]), size=24)
        else:
            text = OTHERS[int(rng.integers(len(OTHERS)))]
            vector = rng.normal(size=24)
        memories.append(Memory(id=f"m{n}", session_id=f"s{n // 3}", type="project", text=text,
                               confidence=0.9, source_message_ids=(f"s{n // 3}-m{n % 3}",),
                               session_date=day, kind="decision"))
        vectors.append(vector)
    matrix = np.asarray(vectors, dtype=np.float32)
    return memories, matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def every_pair_weighed(memories: list[Memory], vectors: np.ndarray) -> list[Supersession]:
    """The links found by trying each later statement against every earlier one, nearest
    first, with every pair's rise."""
    order = sorted(range(len(memories)),
                   key=lambda i: (memories[i].session_date, memories[i].session_id))
    statements = [Statement.of(memories[i]) for i in order]
    rises = relative_similarity(vectors[order])
    by_id = {s.memory.id: s for s in statements}
    links: dict[str, Supersession] = {}
    for b, later in enumerate(statements):
        best = None
        for a in range(b - 1, -1, -1):
            if _one_message(later.memory, statements[a].memory, {}):
                continue
            link = supersedes(later, statements[a], float(rises[b, a]))
            if link is not None and (best is None or link.confidence > best.confidence):
                best = link
        if best is not None and (link := _direct(best, links, by_id, {})):
            links[link.earlier] = link
    return list(links.values())


def test_only_the_statements_a_later_one_could_replace_are_weighed() -> None:
    found = 0
    for seed in range(6):
        memories, vectors = archive(seed)
        expected = every_pair_weighed(memories, vectors)
        assert sorted(link_memories(memories, vectors), key=lambda x: x.earlier) == \
            sorted(expected, key=lambda x: x.earlier)
        found += len(expected)
    assert found >= 30  # links of many sorts were there to find


def test_statements_that_give_no_value_link_nothing() -> None:
    memories, vectors = archive(0)
    plain = [m for m in memories if not typed_values(m.text)]
    assert len(plain) > 20
    rows = [memories.index(m) for m in plain]
    assert link_memories(plain, vectors[rows]) == []
    assert link_memories(plain[:1], vectors[rows[:1]]) == []
    assert link_memories([], vectors[:0]) == []
