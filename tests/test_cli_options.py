"""How the command line reads its options: anywhere on the line, applied to every line of a
batch that does not set its own, and an error (never ignored) when they cannot apply."""

from __future__ import annotations

import json

from .helpers import SESSIONS


def test_options_may_come_before_a_positional_argument(recall) -> None:
    recall("session", "start", "--id", "live-1")
    before = recall("session", "append", "live-1", "--role", "assistant", "first words")
    after = recall("session", "append", "live-1", "second words", "--role", "user", "--json")
    assert before.stdout.startswith("appended 1 messages to live-1")
    assert json.loads(after.stdout)["message_count"] == 2
    shown = json.loads(recall("show", "live-1", "--json").stdout)
    assert [(m["role"], m["content"]) for m in shown["messages"]] == [
        ("assistant", "first words"), ("user", "second words")]


def test_batch_lines_take_the_command_line_options_unless_they_set_their_own(recall) -> None:
    recall("index", str(SESSIONS))
    lines = "\n".join(json.dumps(q) for q in [
        {"qid": "given", "query": "postgres"},
        {"qid": "own mode", "query": "postgres", "mode": "hybrid"},
        {"qid": "own limit", "query": "postgres", "limit": 2},
    ])
    out = recall("search", "--batch", "-", "--mode", "keyword", "--limit", "1", "--channel", "cli",
                 stdin=lines).stdout.splitlines()
    answers = {a["qid"]: a for a in map(json.loads, out)}
    alone = json.loads(recall("search", "postgres", "--mode", "keyword", "--limit", "1",
                              "--channel", "cli", "--json").stdout)
    assert answers["given"]["results"] == alone["results"]  # as if given on the line itself
    hybrid = json.loads(recall("search", "postgres", "--limit", "1", "--channel", "cli",
                               "--json").stdout)
    assert answers["own mode"]["results"] == hybrid["results"]
    assert len(answers["own limit"]["results"]) <= 2
    assert all(r["channel"] == "cli" for a in answers.values() for r in a["results"])


def test_defaults_of_the_command_line_do_not_override_a_line(recall) -> None:
    recall("index", str(SESSIONS))
    line = json.dumps({"query": "postgres", "mode": "keyword", "limit": 3})
    out = json.loads(recall("search", "--batch", "-", stdin=line).stdout)
    alone = json.loads(recall("search", "postgres", "--mode", "keyword", "--limit", "3",
                              "--json").stdout)
    assert out["results"] == alone["results"]


def test_options_that_cannot_apply_are_errors(recall) -> None:
    both = recall("search", "postgres", "--batch", "-", ok=False)
    assert both.returncode == 2 and "give a QUERY or --batch FILE, not both" in both.stderr
    scopes = recall("search", "postgres", "--memories", "--scope", "all", ok=False)
    assert scopes.returncode == 2 and "--memories is --scope memories" in scopes.stderr
    modes = recall("cleanup", "--older-than", "1d", "--dry-run", "--apply", ok=False)
    assert modes.returncode == 2 and "--apply is not allowed with --dry-run" in modes.stderr
    unknown = recall("search", "postgres", "--fuzzy", ok=False)
    assert unknown.returncode == 2 and "No such option '--fuzzy'" in unknown.stderr


def test_types_take_several_values_after_one_flag_or_repeated(recall) -> None:
    recall("index", str(SESSIONS))

    def types(*args: str) -> set[str]:
        out = json.loads(recall("memories", "t-zh-upgrade", *args, "--json").stdout)
        return {m["type"] for m in out["memories"]}

    assert types() == {"project"}  # t-zh-upgrade holds project memories only
    # "project" is a second value of --types, not an unexpected argument
    assert types("--types", "user", "project") == {"project"}
    assert types("--types", "user", "--types", "project") == {"project"}
    assert types("--types", "user") == set()


def test_help_lists_every_command_and_exits_zero(recall) -> None:
    out = recall("--help").stdout
    for command in ("index", "import", "watch", "search", "show", "stats", "delete", "reindex",
                    "check", "memories", "snapshot", "snapshots", "changes", "recover", "digest",
                    "relevance", "retention", "cleanup", "todo", "session", "serve", "mcp",
                    "settings", "sources", "resume", "pack", "setup"):
        assert f"\n  {command} " in out, command
    assert "--json" in recall("session", "show", "--help").stdout
    assert recall(ok=False).returncode == 2  # no command: the help, and a usage error
