from __future__ import annotations

import pytest

from models import InvalidSession, UnsafeSessionId, check_session_id, estimate_tokens, parse_session


def test_minimal_session_gets_ids_and_times() -> None:
    s = parse_session({"sessionId": "abc", "date": "2026-04-07",
                       "messages": [{"role": "user", "content": "hi"},
                                    {"role": "assistant", "content": "yo", "time": "2026-04-07T09:30:00+08:00"}]})
    assert [m.id for m in s.messages] == ["abc-m1", "abc-m2"]
    assert s.messages[0].time == "2026-04-07"
    assert s.messages[1].time == "2026-04-07T09:30:00+08:00"
    assert s.participants == () and s.summary is None and s.channel is None


def test_content_blocks_are_joined() -> None:
    s = parse_session({"sessionId": "b", "date": "2026-01-01", "messages": [
        {"role": "assistant", "content": [{"type": "text", "text": "one"}, "two", {"type": "image"}]}]})
    assert s.messages[0].content == "one\ntwo"


def test_date_comes_from_messages_when_missing() -> None:
    s = parse_session({"sessionId": "c", "messages": [{"role": "user", "content": "x",
                                                       "time": "2026-03-29T23:59:00+08:00"}]})
    assert s.date == "2026-03-29"


def test_epoch_milliseconds_become_iso_times() -> None:
    s = parse_session({"sessionId": "d", "messages": [{"role": "user", "content": "x", "ts": 1770775333000}]})
    assert s.messages[0].time.startswith("2026-02-11T02:02:13")
    assert s.date == "2026-02-11"


def test_fallback_id_used_when_record_has_none() -> None:
    assert parse_session({"date": "2026-01-01", "messages": []}, fallback_id="from-file").session_id == "from-file"


def test_duplicate_message_ids_are_made_unique() -> None:
    s = parse_session({"sessionId": "e", "date": "2026-01-01", "messages": [
        {"id": "x", "role": "user", "content": "a"}, {"id": "x", "role": "user", "content": "b"}]})
    assert [m.id for m in s.messages] == ["x", "e-m2"]


def test_feedback_from_is_kept() -> None:
    s = parse_session({"sessionId": "f", "date": "2026-01-01", "messages": [],
                       "feedback": [{"user": "不要用Markdown表格", "from": "Simon"}, "stop adding emojis"],
                       "decisions": [{"text": "用Postgres", "context": "同意"}, {"bad": 1}]})
    assert [f.user for f in s.feedback] == ["不要用Markdown表格", "stop adding emojis"]
    assert s.feedback[0].from_ == "Simon"
    assert [d.text for d in s.decisions] == ["用Postgres"]


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ([1, 2], "expected a JSON object"),
        ({"sessionId": "a", "date": "2026-01-01", "messages": "text"}, "'messages' must be a list"),
        ({"sessionId": "a", "date": "2026-01-01", "messages": [3]}, "message 1 must be an object"),
        ({"sessionId": "a", "date": "2026-01-01", "messages": [{"content": 5}]}, "message 1: message content"),
        ({"sessionId": "a", "messages": [{"content": "x"}]}, "no 'date'"),
        ({"sessionId": "a", "date": "2026-02-30", "messages": []}, "no 'date'"),
        ({"sessionId": "a", "date": "2026-01-01", "messages": [], "topics": {"a": 1}}, "'topics' must be a list"),
    ],
)
def test_wrong_shapes_are_rejected_with_reason(raw: object, reason: str) -> None:
    with pytest.raises(InvalidSession, match=reason):
        parse_session(raw)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("../x", "path separator"),
        ("a/b", "path separator"),
        ("a\\b", "path separator"),
        ("..", "'..'"),
        ("a..b", "'..'"),
        ("a\x00b", "control character"),
        ("a\nb", "control character"),
        ("", "empty"),
        ("   ", "empty"),
        ("x" * 201, "201 characters long, 201 bytes in UTF-8"),
        ("会" * 67, "67 characters long, 201 bytes in UTF-8"),
        ("con", "reserved"),
        ("NUL.json", "reserved"),
        (".hidden", "starts with '.'"),
        (42, "must be a string"),
        (None, "must be a string"),
    ],
)
def test_unsafe_session_ids(value: object, reason: str) -> None:
    with pytest.raises(UnsafeSessionId, match=reason):
        check_session_id(value)


@pytest.mark.parametrize("value", ["ccba19e7-0d1f-4c1e", "locomo-26-s1", "x" * 200, "会" * 66, "会话-1",
                                   "a.b"])
def test_safe_session_ids(value: str) -> None:
    assert check_session_id(value) == value


def test_token_estimate_is_cjk_aware() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("数据库选型") == 4  # 5 CJK chars / 1.5, rounded up
