"""Memory extraction: duplicates, type filters, ids, entities, huge messages and batches
(hash embedder only)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import msgspec
import pytest

from indexer import HashEmbedder
from indexer.memories.extract import extract_memories
from indexer.text.entities import extract_entities
from models import InvalidInput, parse_session
from models.memory import MEMORY_TYPES, Memory, memory_id

from .helpers import EXAMPLES, SESSIONS
from .memory_data import load, only, session


# -- dedupe, filter, errors, ids -----------------------------------------------------------------
def test_duplicates_removed_without_embedder() -> None:
    s = session(
        ("user", "Please stop adding emojis."),
        ("assistant", "OK."),
        ("user", "Please stop adding emojis!"),
    )
    [feedback] = extract_memories(s)
    assert feedback.source_message_ids == ("s-test-m1", "s-test-m3")  # credited to both


def test_duplicates_removed_with_hash_embedder() -> None:
    s = session(
        ("user", "Please stop adding emojis to your answers."),
        ("user", "stop adding emojis to the answers please"),
        ("user", "不要用Markdown表格"),
    )
    memories = extract_memories(s, embedder=HashEmbedder(), dedupe_threshold=0.8)
    assert len(only(memories, "feedback")) == 2  # the two English ones are one, the Chinese stays
    # with no threshold that any two differing texts reach, nothing is merged
    assert (
        len(only(extract_memories(s, embedder=HashEmbedder(), dedupe_threshold=1.01), "feedback"))
        == 3
    )


def test_dedupe_only_within_a_type() -> None:
    s = session(("user", "我更喜欢直接写 SQL。"), decisions=["我更喜欢直接写 SQL。"])
    assert {m.type for m in extract_memories(s)} == {"user", "project"}


def test_types_filter() -> None:
    s = load(EXAMPLES / "2026-01" / "9729194d-7519-4a6c-9e8f-b7d7ac397f8a.json")
    memories = extract_memories(s, ["feedback"])
    assert memories and {m.type for m in memories} == {"feedback"}
    assert any("不要用Markdown表格" in m.text for m in memories)
    assert extract_memories(s, types=[]) == []


def test_unknown_type_is_invalid_input() -> None:
    with pytest.raises(InvalidInput) as error:
        extract_memories(session(("user", "hi")), ["feedback", "facts"])
    assert error.value.status == 400
    assert (
        "'facts'" in error.value.detail
        and "user, feedback, project, reference" in error.value.detail
    )


def test_ids_are_stable_and_encodable() -> None:
    s = load(SESSIONS / "2025-12" / "t-kyoto.json")
    first, again = extract_memories(s), extract_memories(s)
    assert [m.id for m in first] == [m.id for m in again]
    assert all(re.fullmatch(r"t-kyoto:mem:[0-9a-f]{12}", m.id) for m in first)
    assert memory_id("s", "user", "Hello,  World!") == memory_id("s", "user", "hello world")
    decoded = msgspec.json.decode(msgspec.json.encode(first[0]), type=Memory)
    assert decoded == first[0]


@pytest.mark.parametrize(
    "path", sorted([*SESSIONS.rglob("*.json"), *EXAMPLES.rglob("*.json")]), ids=lambda p: p.stem
)
def test_every_fixture_gives_well_formed_memories(path: Path) -> None:
    s = load(path)
    for m in extract_memories(s):
        assert m.type in MEMORY_TYPES and 0 < m.confidence <= 1
        assert m.text and len(m.text) <= 200 and "[REDACTED:" not in m.text
        assert m.session_id == s.session_id and m.session_date == s.date
        assert set(m.source_message_ids) <= {msg.id for msg in s.messages}
        assert set(m.entities) <= {"dates", "urls", "emails", "versions", "names", "numbers"}
        assert (m.priority is None and m.due_date is None) or m.kind in ("task", "deadline")


# -- entities -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,dates",
    [
        ("Release on 2026-04-15, review March 29", ("2026-04-15", "2026-03-29")),
        ("3月29日开会，下周五交报告，明天去预约", ("2026-03-29", "2026-04-10", "2026-04-02")),
        (
            "next Friday, tomorrow, this Friday and by Monday",
            ("2026-04-10", "2026-04-02", "2026-04-03", "2026-04-06"),
        ),
        ("护照 5 月底过期", ("2026-05-31",)),
        ("3 月 15 号（周日）是生日，每周日游泳", ("2026-03-15",)),
        ("in 3 days, 两周后", ("2026-04-04", "2026-04-15")),
    ],
)
def test_dates_resolved_against_the_reference(text: str, dates: tuple[str, ...]) -> None:
    assert extract_entities(text, reference_date="2026-04-01")["dates"] == dates  # a Wednesday


def test_dates_without_reference_keep_their_words() -> None:
    assert extract_entities("next Friday or 3月29日 or 2026-01-05")["dates"] == (
        "next Friday",
        "3月29日",
        "2026-01-05",
    )
    assert "dates" not in extract_entities("2月30日 is no date")


def test_links_versions_names_numbers() -> None:
    e = extract_entities(
        "Mail simon@example.com about https://docs.example.com/a?b=1. We moved Python 3.11 to 3.12, "
        "httpkit v2.3.1, and the Alibaba Cloud bill is ¥3000 for 2.5 GB, 30% more. Ask Caroline."
    )
    assert e["emails"] == ("simon@example.com",)
    assert e["urls"] == ("https://docs.example.com/a?b=1",)
    assert e["versions"] == ("Python 3.11", "v2.3.1")
    assert e["numbers"] == ("¥3000", "2.5 GB", "30%")
    assert e["names"] == ("Python", "Alibaba Cloud", "Caroline")


def test_names_in_chinese_text_and_ids() -> None:
    e = extract_entities(
        "我们讨论了OpenClaw升级，数据库用 Postgres，记账用「小账本」，工单 OPS-1423。"
    )
    assert e["names"] == ("OpenClaw", "Postgres", "小账本", "OPS-1423")


def test_entities_without_names_are_the_other_kinds_unchanged() -> None:
    texts = [m.content for path in sorted([*SESSIONS.rglob("*.json"), *EXAMPLES.rglob("*.json")])
             for m in load(path).messages]
    texts += ["Ask Caroline about Python 3.12 on 2026-03-05 at https://x.example.com, OPS-1423.",
              "「小账本」v2.3.1 下周五 ¥3000 Alibaba Cloud"]
    for text in texts:
        full = extract_entities(text, reference_date="2026-03-01")
        others = {kind: values for kind, values in full.items() if kind != "names"}
        assert extract_entities(text, reference_date="2026-03-01", names=False) == others


def test_no_entities_from_secrets_or_ip_addresses() -> None:
    assert extract_entities("postgres://app:[REDACTED:password]@db.internal:5432/ledger") == {}
    assert "versions" not in extract_entities("the box is 192.168.1.10")


def test_a_huge_message_is_read_for_memories_only_up_to_the_indexed_length() -> None:
    # a 20 MB paste used to take minutes here; memories come from what the index reads
    from indexer.stores.documents import MAX_INDEXED_CHARS

    head = "I prefer green tea in the morning. "
    text = head + "word " * (4 * MAX_INDEXED_CHARS) + ". I prefer black coffee at night."
    session = parse_session({"sessionId": "huge", "date": "2026-01-01",
                             "messages": [{"role": "user", "content": text}]})
    started = time.monotonic()
    memories = extract_memories(session)
    assert time.monotonic() - started < 5
    texts = " ".join(m.text for m in memories)
    assert "green tea" in texts and "black coffee" not in texts


def test_batch_extraction_matches_one_by_one_with_one_embedding_call() -> None:
    from indexer.memories.extract import extract_memories_batch

    calls: list[int] = []

    class Counting(HashEmbedder):
        def embed_passages(self, texts):  # type: ignore[no-untyped-def]
            calls.append(len(texts))
            return super().embed_passages(texts)

    sessions = [load(p) for p in sorted([*SESSIONS.glob("*.json"), *EXAMPLES.rglob("*.json")])]
    one_by_one = [extract_memories(s, embedder=HashEmbedder()) for s in sessions]
    assert extract_memories_batch(sessions, embedder=Counting()) == one_by_one
    assert len(calls) == 1 and calls[0] > 0
