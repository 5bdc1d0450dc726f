from __future__ import annotations

from indexer.analysis import analyze, analyze_query, is_cjk_text, match_spans


def test_cjk_bigrams_and_chars() -> None:
    a = analyze("我们讨论了OpenClaw升级")
    assert "升级" in a.body and "讨论" in a.body and "openclaw" in a.body
    assert "升" in a.chars


def test_english_is_stemmed_on_both_sides() -> None:
    assert "run" in analyze("Running tests").body
    assert analyze_query("runs").body == ["run"]


def test_identifiers_kept_whole_and_split() -> None:
    a = analyze("ERR_CONNECTION_REFUSED in snake_case_name at v2.3.1")
    assert {"err_connection_refused", "snake_case_name", "v2.3.1"} <= set(a.body)
    assert {"connect", "refus", "snake", "case"} <= set(a.parts)


def test_query_drops_scaffolding_in_both_languages() -> None:
    assert analyze_query("what did I say about the database").body == ["databas"]
    zh = analyze_query("我之前说过回复里不要用什么格式？")
    assert "格式" in zh.body and "之前" not in zh.body and "什么" not in zh.body
    assert analyze_query("the of and").is_empty()


def test_quoted_phrase_kept_with_stop_words() -> None:
    q = analyze_query('"connection reset by peer"')
    assert q.phrases == [["connect", "reset", "by", "peer"]]


def test_single_cjk_character_query_uses_chars() -> None:
    assert analyze_query("猫").chars == ["猫"]


def test_match_spans_for_highlighting() -> None:
    text = "我们讨论了OpenClaw升级, Running ERR_CONNECTION_REFUSED"
    spans = match_spans(text, analyze_query("升级 run connection"))
    assert [text[a:b] for a, b in spans] == ["升级", "Running", "ERR_CONNECTION_REFUSED"]


def test_is_cjk_text() -> None:
    assert is_cjk_text("记得3月29日吗")
    assert is_cjk_text("小账本迁 Postgres 的时候")
    assert not is_cjk_text("What did we decide about Postgres?")
