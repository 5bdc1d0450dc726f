from __future__ import annotations

from indexer.text.analysis import analyze, analyze_query, is_cjk_text, match_spans


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


def test_light_words_are_not_highlighted_beside_others() -> None:
    text = "I like to go hiking in Kyoto, and we go back in May."
    spans = match_spans(text, analyze_query("what do I like to go to in Kyoto"))
    assert [text[a:b] for a, b in spans] == ["Kyoto"]
    alone = match_spans(text, analyze_query("like"))  # the whole query: highlighted
    assert [text[a:b] for a, b in alone] == ["like"]


def _spans_token_by_token(text: str, query: str) -> list[tuple[int, int]]:
    """The plain definition of match_spans: walk every token of the text."""
    from indexer.text.analysis import _TOKEN, _merge, _word_matches, highlighted

    terms = analyze_query(query)
    wanted = highlighted(terms)
    cjk_wanted = [s for s in terms.cjk_strings if s] + [t for t in wanted if is_cjk_text(t)]
    spans = []
    for match in _TOKEN.finditer(text):
        if match.group("cjk"):
            run, offset = match.group("cjk"), match.start()
            for needle in cjk_wanted:
                start = run.find(needle)
                while start != -1:
                    spans.append((offset + start, offset + start + len(needle)))
                    start = run.find(needle, start + 1)
        elif _word_matches(match.group("word"), wanted):
            spans.append(match.span())
    return _merge(spans)


def test_match_spans_agrees_with_walking_every_token() -> None:
    import json
    import random
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    import generate_archive

    rng = random.Random(5)
    pieces = ["deploy", "Deploys", "deploy.yaml", "re-deploy", "x.deploy", "deploy-", "-deploy",
              "os.path.join", "path", "JOIN", "升级", "升级了数据库", "数据", "a..deploy", "deploy_v2",
              "ＤＥＰＬＯＹ", "déployer", "running", "ran", "run", "runs", "v2.3.1", "3", "@run",
              "run:", "http://run.example/deploy", " ", " ", "\n", ",", ".", "。"]
    queries = ["deploy", "升级 run", "path join", "os.path.join", "数据库 deploy 3", '"deploy run"', "v2.3.1", "running deploys", *generate_archive.sample_queries(30)]
    texts = ["".join(rng.choice(pieces) + rng.choice(["", " ", ".", "-"]) for _ in range(40))
             for _ in range(300)]
    for path in sorted((Path(__file__).resolve().parents[1] / "examples" / "sessions").rglob("*.json")):
        session = json.loads(path.read_text())
        texts += [str(m.get("content", "")) for m in session.get("messages", [])]
    queries += ["升级 数据库 Friday deploys", "ERR_CONNECTION_REFUSED vacation Japan", "周五上线"]
    for query in queries:
        for text in texts:
            assert match_spans(text, analyze_query(query)) == _spans_token_by_token(text, query), (
                query, text)
