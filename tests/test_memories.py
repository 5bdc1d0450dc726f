"""Rule-based memories by kind (feedback, project, user, reference), and none from secrets;
English and Chinese, offline."""

from __future__ import annotations

import pytest

from indexer.memories.extract import extract_memories
from models import parse_session

from .helpers import SESSIONS
from .memory_data import load, only, session


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
