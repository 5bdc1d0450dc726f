"""Validate the coding-agent retrieval set in eval/agents/ (questions, ids, split); no model, no index.

Reads every sample of tests/data/real/<format>/MANIFEST.json with recall's own readers (the
session and message ids `recall index tests/data/real` gives), then checks that qids are unique,
that kind, lang, cross_lingual and split are valid, that every relevant session and message
exists and belongs together, that the split follows the rule in eval/agents/README.md, and that
the counts meet the minimums. Prints the counts; exits 1 with the problems when something is
wrong.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # import the code of this checkout, whatever the current folder
sys.path.insert(0, str(ROOT / "scripts"))

from check_eval_set import read_questions, run_check, split_for

from indexer.formats.common import FORMAT_NAMES, ImportOptions
from indexer.formats.ledger import Ledger
from indexer.formats.sources import RawSession, load_database, load_file, normalize
from models import RecallError

KINDS = ("paraphrase", "which_session", "decision", "date", "identifier", "no_answer")
LANGS = ("zh", "en", "mixed")
SPLITS = ("tune", "test")
FIELDS = {"qid", "query", "lang", "kind", "cross_lingual", "relevant_sessions",
          "relevant_messages", "split"}
MIN_ANSWERABLE = 100
MIN_NO_ANSWER = 10
MIN_CROSS_SHARE = 1 / 3  # of all questions


def corpus_sessions(real: Path) -> dict[str, set[str]]:
    """Session id -> its message ids, for every sample the manifests list, as recall reads it."""
    sessions: dict[str, set[str]] = {}
    for fmt in FORMAT_NAMES:
        manifest = real / fmt / "MANIFEST.json"
        if not manifest.exists():
            continue
        for sample in json.loads(manifest.read_text("utf-8"))["samples"]:
            path = real / fmt / sample["file"]
            data = path.read_bytes()
            options, ledger = ImportOptions(format=fmt, deleted=True), Ledger()
            try:
                raws = (load_database(path, options, ledger) if data.startswith(b"SQLite format 3")
                        else load_file(path, data, 50_000_000, options, ledger))
            except RecallError:
                continue  # tests/test_real_corpus.py reports a sample that does not read
            for raw in raws:
                if not isinstance(raw, RawSession):
                    continue  # a recovery snapshot, not a session
                session = normalize(raw.record, raw.fallback_id)[0]
                sessions[session.session_id] = {m.id for m in session.messages}
    return sessions


def split_group(q: dict) -> str:
    """The split is drawn within each kind, separately for same-language and cross-lingual."""
    return f"{q['kind']}/{'cross' if q['cross_lingual'] else 'same'}"


def _check_question(q: dict, sessions: dict[str, set[str]], problems: list[str]) -> None:
    where = q["qid"]
    if not isinstance(q["query"], str) or not q["query"].strip():
        problems.append(f"{where}: empty query")
    if q["kind"] not in KINDS:
        problems.append(f"{where}: unknown kind {q['kind']!r}")
    if q["lang"] not in LANGS:
        problems.append(f"{where}: unknown lang {q['lang']!r}")
    if q["split"] not in SPLITS:
        problems.append(f"{where}: unknown split {q['split']!r}")
    if not isinstance(q["cross_lingual"], bool):
        problems.append(f"{where}: cross_lingual must be true or false")
    relevant, messages = q["relevant_sessions"], q["relevant_messages"]
    if q["kind"] == "no_answer":
        if relevant or messages or q["cross_lingual"]:
            problems.append(f"{where}: a no_answer question lists ids or is marked cross-lingual")
        return
    if not relevant or not messages:
        problems.append(f"{where}: an answerable question needs sessions and messages")
    for sid in relevant:
        if sid not in sessions:
            problems.append(f"{where}: unknown session {sid}")
    for qualified in messages:
        sid, _, mid = qualified.partition("/")
        if sid not in relevant or mid not in sessions.get(sid, ()):
            problems.append(f"{where}: message {qualified} is not in any of its relevant sessions")
    for sid in relevant:
        if not any(m.partition("/")[0] == sid for m in messages):
            problems.append(f"{where}: no relevant message in session {sid}")


def validate(root: Path = ROOT) -> tuple[list[str], dict[str, Counter[str]]]:
    """Return (problems, counts); an empty problem list means the set is valid."""
    problems: list[str] = []
    sessions = corpus_sessions(root / "tests" / "data" / "real")
    questions = read_questions(root / "eval" / "agents" / "queries.jsonl", FIELDS, problems)
    for q in questions:
        _check_question(q, sessions, problems)

    groups: dict[str, list[str]] = {}
    for q in questions:
        groups.setdefault(split_group(q), []).append(q["qid"])
    rule = {qid: split for group in groups.values() for qid, split in split_for(group).items()}
    for q in questions:
        if q["split"] != rule[q["qid"]]:
            problems.append(f"{q['qid']}: split is {q['split']}, the rule gives {rule[q['qid']]}")

    cross = [q for q in questions if q["cross_lingual"]]
    counts: dict[str, Counter[str]] = {
        "kind": Counter(q["kind"] for q in questions),
        "lang": Counter(q["lang"] for q in questions),
        "split": Counter(q["split"] for q in questions),
        "cross-lingual": Counter(f"{q['lang']} question" for q in cross),
        "group/split": Counter(f"{split_group(q)}/{q['split']}" for q in questions),
        "sessions": Counter({"in corpus": len(sessions),
                             "answering": len({s for q in questions for s in q["relevant_sessions"]})}),
    }
    answerable = len(questions) - counts["kind"]["no_answer"]
    if answerable < MIN_ANSWERABLE:
        problems.append(f"{answerable} answerable questions, expected at least {MIN_ANSWERABLE}")
    if counts["kind"]["no_answer"] < MIN_NO_ANSWER:
        problems.append(f"{counts['kind']['no_answer']} no_answer questions, expected >= {MIN_NO_ANSWER}")
    if len(cross) < MIN_CROSS_SHARE * len(questions):
        problems.append(f"{len(cross)} cross-lingual questions of {len(questions)}, expected a third")
    if not counts["cross-lingual"]["zh question"] or not counts["cross-lingual"]["en question"]:
        problems.append("cross-lingual questions must go both ways (some asked in Chinese, some in English)")
    return problems, counts


def main(argv: list[str] | None = None) -> int:
    return run_check(validate, "agents eval set", __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
