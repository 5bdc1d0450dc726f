"""The first supersession linker: the values a statement gives, the words that say it replaces
an earlier one, and which pairs it links (hand-made vectors stand in for the embedder, so each
case controls how alike the two statements are)."""

from __future__ import annotations

import numpy as np

from indexer.memories.linking import link_memories
from indexer.memories.supersession import (
    SHOWN,
    Statement,
    explicit_cue,
    supersedes,
)
from indexer.memories.values import statement_values
from models import Memory


def memory(memory_id: str, text: str, day: str, **extra: object) -> Memory:
    return Memory(id=memory_id, session_id=f"s-{day}", type="project", text=text, confidence=0.9,
                  source_message_ids=(f"s-{day}-m1",), session_date=day, kind="decision",
                  **extra)  # type: ignore[arg-type]


def test_values_are_read_in_both_languages() -> None:
    assert statement_values("Standup moves to 10:30 on Thursday") == {"10:30", "thu"}
    assert statement_values("每天凌晨 2 点跑") == {"02:00"}
    assert statement_values("晚上 6 点半开席") == {"18:30"}
    assert statement_values("run it at 3pm, budget $180") == {"15:00", "$180"}
    assert statement_values("config moved to /srv/marlin/conf/marlin.toml") == \
        {"/srv/marlin/conf/marlin.toml"}
    assert statement_values("no numbers here") == frozenset()


def test_explicit_replacement_words() -> None:
    assert explicit_cue("run the backup at 03:30 instead of 2am") == "instead of"
    assert explicit_cue("备份改到 04:15") == "改到"
    assert explicit_cue("恢复禁止周五上线") == "恢复"
    assert explicit_cue("keep the backup at 02:00") is None


def test_a_changed_value_about_one_subject_supersedes() -> None:
    old = Statement.of(memory("a", "Tidepool standup at 10:00, 15 minutes", "2026-01-08"))
    new = Statement.of(memory("b", "Tidepool standup moves to 10:30", "2026-03-02"))
    link = supersedes(new, old, relative=3.0)
    assert link is not None and (link.later, link.earlier) == ("b", "a")
    assert "10:00" in link.reason and "10:30" in link.reason and "moves to" in link.reason


def test_restatements_strangers_and_other_projects_are_not_linked() -> None:
    old = Statement.of(memory("a", "Tidepool standup at 10:00", "2026-01-08"))
    same = Statement.of(memory("b", "Tidepool standup stays at 10:00", "2026-03-02"))
    assert supersedes(same, old, relative=4.0) is None  # the same value again
    far = Statement.of(memory("c", "Tidepool standup moves to 10:30", "2026-03-02"))
    assert supersedes(far, old, relative=0.5) is None  # not alike enough: another subject
    marlin = Statement.of(memory("d", "Budget moves to $180", "2026-04-28",
                                 entities={"names": ("Marlin",)}))
    ledgerly = Statement.of(memory("e", "Budget of $150", "2026-01-22",
                                   entities={"names": ("Ledgerly",)}))
    assert supersedes(marlin, ledgerly, relative=4.0) is None  # another project's budget


def test_a_chain_links_each_statement_to_the_one_before() -> None:
    chain = [memory("a", "Tidepool standup at 10:00", "2026-01-08"),
             memory("b", "Tidepool standup moves to 10:30", "2026-03-02"),
             memory("c", "Tidepool standup moves back to 10:00", "2026-05-04")]
    everything, vectors = _with_background(chain)
    links = link_memories(everything, vectors)
    assert {(link.later, link.earlier) for link in links} == {("b", "a"), ("c", "b")}
    assert link_memories(everything[::-1], vectors[::-1]) == links  # order of input is no matter


def _with_background(chain: list[Memory]) -> tuple[list[Memory], np.ndarray]:
    """The chain among unrelated memories (the rise is measured against the rest of the
    archive), with vectors that make the chain's statements alike and the others not."""
    topics = ["Water the tomatoes every morning", "The cat prefers the blue bowl",
              "Renew the passport before summer", "Buy a new kettle", "Read the Go memory model",
              "Call the bank about the card"]
    others = [memory(f"x{n}", topics[n % len(topics)] + f" ({'abcdefghij'[n % 10]})",
                     f"2026-02-{10 + n % 18}") for n in range(60)]
    everything = chain + others
    rng = np.random.default_rng(7)
    subject = rng.normal(size=16)
    vectors = np.array([subject + rng.normal(scale=0.2, size=16) if m in chain
                        else rng.normal(size=16) for m in everything])
    return everything, vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_a_later_statement_replaces_the_one_that_replaced_the_first() -> None:
    # March names January's time, but February had already moved it: March replaces February's
    chain = [memory("jan", "Tidepool standup at 10:00", "2026-01-04"),
             memory("feb", "Tidepool standup moves to 10:30", "2026-02-02"),
             memory("mar", "Tidepool standup moves from 10:00 to 11:00", "2026-03-02")]
    everything, vectors = _with_background(chain)
    links = {link.later: link for link in link_memories(everything, vectors)}
    assert {(later, link.earlier) for later, link in links.items()} == \
        {("feb", "jan"), ("mar", "feb")}
    assert "10:30 → 11:00" in links["mar"].reason
    # one that only says February's value again replaces nothing
    again = [*chain[:2], memory("mar", "Tidepool standup moves to 10:30, as agreed", "2026-03-02")]
    everything, vectors = _with_background(again)
    assert {(x.later, x.earlier) for x in link_memories(everything, vectors)} == {("feb", "jan")}


def test_how_sure_a_link_is_follows_its_evidence() -> None:
    old = Statement.of(memory("a", "Tidepool standup at 10:00, 15 minutes", "2026-01-08"))
    named = supersedes(Statement.of(memory("b", "Tidepool standup at 10:30 instead of 10:00",
                                           "2026-03-02")), old, relative=3.0)
    said = supersedes(Statement.of(memory("c", "Tidepool standup moves to 10:30", "2026-03-02")),
                      old, relative=3.0)
    implicit = supersedes(Statement.of(memory("d", "Tidepool standup at 10:30", "2026-03-02")),
                          old, relative=3.0)  # no words say it replaces anything
    short = supersedes(Statement.of(memory("e", "Tidepool standup moves to 10:30", "2026-03-02")),
                       old, relative=1.3)  # the embeddings rise less than the rule needs
    assert named and said and implicit and short
    assert named.confidence > said.confidence > implicit.confidence >= SHOWN
    assert short.confidence < SHOWN  # kept for the history, too unsure to be shown
    assert supersedes(Statement.of(memory("f", "Tidepool standup moves to 10:30", "2026-03-02")),
                      old, relative=0.5) is None  # too far short: not even for the history
