"""Rule-based memory extraction and entities, English and Chinese, offline (hash embedder only)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest

from indexer import HashEmbedder
from indexer.formats.sources import normalize
from indexer.memories.extract import extract_memories
from indexer.text.entities import extract_entities
from models import InvalidInput, Session, parse_session
from models.memory import MEMORY_TYPES, Memory, memory_id

from .helpers import SESSIONS

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "sessions"


def session(*messages: tuple[str, str], date: str = "2026-04-01", **fields: Any) -> Session:
    """A session from (role, content) pairs; ids are <sid>-m<N>."""
    return parse_session(
        {
            "sessionId": "s-test",
            "date": date,
            **fields,
            "messages": [{"role": role, "content": content} for role, content in messages],
        }
    )


def load(path: Path) -> Session:
    return normalize(json.loads(path.read_text()), path.stem)[0]  # redacted, as `recall index` does


def only(memories: list[Memory], memory_type: str) -> list[Memory]:
    return [m for m in memories if m.type == memory_type]


# -- feedback ---------------------------------------------------------------------------------
def test_chinese_instruction_is_feedback() -> None:
    memories = extract_memories(
        session(("user", "不要用Markdown表格"), ("assistant", "好的，以后不用表格。"))
    )
    [feedback] = only(memories, "feedback")
    assert feedback.text == "不要用Markdown表格"
    assert feedback.kind == "instruction" and feedback.source_message_ids == ("s-test-m1",)
    assert feedback.entities == {"names": ("Markdown",)}
    assert not only(memories, "project")  # the assistant's promise is not a project decision


def test_english_instruction_is_feedback() -> None:
    memories = extract_memories(
        session(("user", "Please stop adding emojis, I paste these into our incident doc."))
    )
    assert [(m.type, m.kind) for m in memories] == [("feedback", "instruction")]
    assert "stop adding emojis" in memories[0].text


@pytest.mark.parametrize(
    "text", ["别再跟我说省钱的事了", "以后回复请用中文", "You got the date wrong, it was Tuesday."]
)
def test_more_feedback(text: str) -> None:
    assert only(extract_memories(session(("user", text))), "feedback")


def test_a_plain_choice_is_not_feedback() -> None:
    memories = extract_memories(
        session(
            ("user", "那就寿桃包 60 个，不要蛋糕了。"),
            ("user", "Don't use float for money, we decided on integer cents."),
        )
    )
    assert not only(memories, "feedback")
    assert {m.kind for m in only(memories, "project")} == {"decision"}


# -- project ----------------------------------------------------------------------------------
def test_chinese_decision_from_the_fixture() -> None:
    memories = extract_memories(load(SESSIONS / "2026-03" / "t-zh-upgrade.json"))
    [decision] = [m for m in memories if m.kind == "decision"]
    assert decision.type == "project" and decision.text == "最后决定用Postgres数据库。"
    assert decision.source_message_ids == ("t-zh-upgrade-m4",)
    assert decision.confidence < 0.7  # the assistant said it: lower than the user's own words
    assert decision.entities["names"] == ("Postgres",)
    assert decision.session_date == "2026-03-29"


def test_user_decision_is_more_confident_than_the_assistants() -> None:
    [user_said] = extract_memories(session(("user", "最后决定用Postgres数据库。")))
    assert (
        user_said.type == "project" and user_said.kind == "decision" and user_said.confidence >= 0.8
    )


def test_task_by_friday_is_due_that_friday() -> None:
    # 2026-04-01 is a Wednesday
    [task] = only(
        extract_memories(session(("user", "I need to send the invoice to Lin by Friday."))),
        "project",
    )
    assert (
        task.kind in ("task", "deadline")
        and task.due_date == "2026-04-03"
        and task.priority == "medium"
    )
    assert task.entities["dates"] == ("2026-04-03",)


def test_chinese_tasks_with_due_dates_and_priority() -> None:
    memories = only(
        extract_memories(
            session(
                ("user", "紧急：3月3日前必须拿到新护照。"),
                ("user", "记得明天之前把周报发给组长。"),
                ("user", "下周五要交报告。"),
                date="2026-01-20",  # a Tuesday
            )
        ),
        "project",
    )
    due = {m.text: (m.due_date, m.priority) for m in memories}
    assert due["紧急：3月3日前必须拿到新护照。"] == ("2026-03-03", "critical")
    assert due["记得明天之前把周报发给组长。"] == ("2026-01-21", "medium")
    assert due["下周五要交报告。"][0] == "2026-01-30"


def test_due_date_uses_the_message_day_not_the_session_start() -> None:
    s = parse_session(
        {
            "sessionId": "late",
            "date": "2026-04-01",
            "messages": [
                {
                    "role": "user",
                    "content": "Remember to renew the domain tomorrow.",
                    "time": "2026-04-02T00:30:00+08:00",
                }
            ],
        }
    )
    [task] = extract_memories(s)
    assert task.due_date == "2026-04-03"


def test_assistant_confirmation_is_kept_at_lower_confidence() -> None:
    memories = extract_memories(
        session(
            ("user", "The ticket is OPS-1423."),
            ("assistant", "Noted: merge by February 6, freeze from February 9."),
            date="2026-01-28",
        )
    )
    [noted] = [m for m in memories if m.source_message_ids == ("s-test-m2",)]
    assert noted.type == "project" and noted.text.startswith("merge by February 6")
    assert noted.due_date == "2026-02-06" and noted.confidence < 0.6


def test_summary_bullets_and_accepted_proposals_from_the_assistant() -> None:
    memories = extract_memories(
        session(
            ("user", "行程你先粗排一下。"),
            (
                "assistant",
                "今天小结：\n- 住车站附近的酒店\n- 机票 2 月中之前订\n\n有问题随时找我。",
            ),
            (
                "assistant",
                "Bump respx to 0.22, it supports httpx 0.28. Pyright is faster, by the way.",
            ),
            ("user", "Fixed, lock is green."),
            date="2026-01-20",
        )
    )
    by_text = {m.text: m for m in memories}
    assert set(by_text) == {
        "住车站附近的酒店",
        "机票 2 月中之前订",
        "Bump respx to 0.22, it supports httpx 0.28.",
    }
    assert by_text["机票 2 月中之前订"].due_date == "2026-02-15"
    assert all(m.type == "project" and m.confidence < 0.6 for m in memories if m.type == "project")
    assert [m.type for m in memories if m.text.startswith("Bump")] == ["project", "reference"]


def test_empty_session() -> None:
    assert extract_memories(session()) == []


# -- user -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,kind",
    [
        ("我更喜欢直接写 SQL，不太喜欢 ORM。", "preference"),
        ("I prefer hotels near a station.", "preference"),
        ("我妈血糖有点高。", "fact"),
        ("I'm a backend engineer at a logistics company.", "fact"),
    ],
)
def test_user_facts_and_preferences(text: str, kind: str) -> None:
    [memory] = extract_memories(session(("user", text)))
    assert (memory.type, memory.kind) == ("user", kind)


def test_questions_and_requests_are_not_memories() -> None:
    assert (
        extract_memories(
            session(("user", "Which database should I use?"), ("user", "帮我把今年的预算理一下。"))
        )
        == []
    )


# -- reference --------------------------------------------------------------------------------
def test_url_and_version_make_a_reference_with_entities() -> None:
    memories = extract_memories(
        session(
            ("user", "The repo is https://github.com/simonlab/ledger and we pin httpkit v2.3.1."),
            ("user", "仓库是 github.com/simonlab/xiaozhangben，私有的。"),
        )
    )
    [en, zh] = only(memories, "reference")
    assert en.kind == "link"
    assert en.entities["urls"] == ("https://github.com/simonlab/ledger",)
    assert en.entities["versions"] == ("v2.3.1",)
    assert zh.entities["urls"] == ("github.com/simonlab/xiaozhangben",)


def test_ids_and_amounts() -> None:
    memories = extract_memories(
        session(("user", "京都酒店订单号 KY-88213。"), ("user", "我看到香港快运有 2,380 的机票。"))
    )
    refs = only(memories, "reference")
    assert [m.kind for m in refs] == ["id", "number"]
    assert refs[0].entities["names"] == ("KY-88213",) and refs[1].entities["numbers"] == ("2,380",)


# -- the session's own fields --------------------------------------------------------------------
def test_decisions_and_feedback_fields_are_used() -> None:
    s = session(
        ("user", "Postgres or SQLite for the MVP? It is only me using it."),
        ("assistant", "SQLite is enough for one user."),
        ("user", "OK. And please, no tables in answers, I read them on my phone."),
        decisions=[{"text": "Use SQLite for the MVP", "context": "single user"}],
        feedback=[{"user": "no tables in answers", "from": "Lin"}],
    )
    memories = extract_memories(s)
    [decision] = [m for m in memories if m.kind == "decision"]
    assert decision.text == "Use SQLite for the MVP" and decision.confidence == 0.95
    assert decision.source_message_ids == ("s-test-m1",)  # shares "SQLite" and "MVP"
    [feedback] = only(memories, "feedback")  # the field and the message are one memory
    assert feedback.confidence == 0.95 and "s-test-m3" in feedback.source_message_ids


def test_field_with_no_matching_message_has_no_source() -> None:
    s = session(("user", "hello there"), decisions=["Rotate the staging password next week"])
    [decision] = extract_memories(s)
    assert decision.source_message_ids == ()


# -- secrets ------------------------------------------------------------------------------------
def test_nothing_from_a_message_with_a_redaction_marker() -> None:
    s = session(
        (
            "user",
            "We decided to use Postgres. Config: OPENAI_API_KEY=[REDACTED:openai_key] at https://api.example.com",
        ),
        ("user", "I prefer short answers."),
    )
    memories = extract_memories(s)
    assert all("s-test-m1" not in m.source_message_ids for m in memories)
    assert all("[REDACTED:" not in m.text for m in memories)
    assert len(memories) == 1


def test_nothing_from_an_unredacted_secret_either() -> None:
    s = session(
        ("user", "We decided on this key: sk-proj-94vMDUOdceigU4cCu6kxHdSzSGxGI6MaIlfiyvJ5IcEp5NUE")
    )
    assert extract_memories(s) == []


def test_secrets_fixture_yields_no_secret() -> None:
    s = load(SESSIONS / "2026-03" / "t-secrets.json")
    for m in extract_memories(s):
        assert "REDACTED" not in m.text and "sk-" not in m.text and "hunter2" not in m.text
        assert (
            "t-secrets-m1" not in m.source_message_ids
            and "t-secrets-m3" not in m.source_message_ids
        )


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
