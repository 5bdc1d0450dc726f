"""Validate the held-out evaluation set in eval/ (sessions, questions, split); no model, no index.

Checks that every session file parses with the project's parser, that every relevant session and
message id exists (in eval/sessions or examples/sessions), that qids are unique, that kind, lang
and split are valid, that each split follows the rule in eval/README.md, and that the counts meet
the minimums. Prints the counts; exits 1 with the problems when something is wrong.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # import the code of this checkout, whatever the current folder

from models import parse_session
from models.errors import InvalidSession

KINDS = ("exact", "paraphrase", "cross_lingual", "date_cross_lingual", "latest", "recall",
         "no_answer")
LANGS = ("zh", "en", "mixed")
SPLITS = ("tune", "test")
MIN_PER_KIND = {kind: 15 for kind in KINDS} | {"cross_lingual": 20, "no_answer": 20}
MIN_QUESTIONS = 150
NEW_SESSIONS = (8, 12)
MESSAGES_PER_NEW_SESSION = (8, 16)
FIELDS = {"qid", "query", "lang", "relevant_sessions", "relevant_messages", "kind", "split"}


def _show(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def split_for(qids_of_kind: list[str]) -> dict[str, str]:
    """The split rule: within a kind, order qids by sha256(qid); even ranks test, odd ranks tune."""
    ranked = sorted(qids_of_kind, key=lambda q: hashlib.sha256(q.encode("utf-8")).hexdigest())
    return {qid: "test" if rank % 2 == 0 else "tune" for rank, qid in enumerate(ranked)}


def load_sessions(folder: Path, problems: list[str]) -> dict[str, set[str]]:
    """Session id -> its message ids, for every *.json under folder, as the parser reads them."""
    sessions: dict[str, set[str]] = {}
    for path in sorted(folder.rglob("*.json")):
        try:
            session = parse_session(json.loads(path.read_text(encoding="utf-8")),
                                    fallback_id=path.stem)
        except (ValueError, InvalidSession) as exc:  # a finding, not a crash
            problems.append(f"{_show(path)}: does not parse: {exc}")
            continue
        if session.session_id in sessions:
            problems.append(f"{_show(path)}: duplicate session id {session.session_id}")
        sessions[session.session_id] = {m.id for m in session.messages}
    return sessions


def check_new_sessions(folder: Path, problems: list[str]) -> int:
    """Shape of the hand-written sessions: layout, ids, roles, counts. Returns how many there are."""
    paths = sorted(folder.rglob("*.json"))
    for path in paths:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue  # load_sessions reports it
        name = _show(path)
        if raw.get("sessionId") != path.stem:
            problems.append(f"{name}: sessionId does not match the file name")
        if path.parent.name != str(raw.get("date", ""))[:7]:
            problems.append(f"{name}: folder is not the session's YYYY-MM")
        if raw.get("channel") not in ("webchat", "discord", "telegram", "cli"):
            problems.append(f"{name}: unknown channel {raw.get('channel')!r}")
        messages = raw.get("messages") or []
        low, high = MESSAGES_PER_NEW_SESSION
        if not low <= len(messages) <= high:
            problems.append(f"{name}: {len(messages)} messages, expected {low}-{high}")
        for n, message in enumerate(messages, 1):
            if message.get("id") != f"{path.stem}-m{n}":
                problems.append(f"{name}: message {n} has id {message.get('id')!r}")
            if message.get("role") not in ("user", "assistant"):
                problems.append(f"{name}: message {n} has role {message.get('role')!r}")
            if not str(message.get("time", "")).endswith("+08:00"):
                problems.append(f"{name}: message {n} time is not ISO-8601 with +08:00")
    low, high = NEW_SESSIONS
    if not low <= len(paths) <= high:
        problems.append(f"eval/sessions: {len(paths)} sessions, expected {low}-{high}")
    return len(paths)


def read_questions(path: Path, fields: set[str], problems: list[str]) -> list[dict]:
    """The questions of a queries.jsonl with exactly these fields, each qid once; what is wrong
    with the others added to problems."""
    questions = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        try:
            q = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{path.name} line {n}: not JSON: {exc}")
            continue
        if not isinstance(q, dict) or set(q) != fields:
            problems.append(f"{path.name} line {n}: fields must be exactly {sorted(fields)}")
            continue
        questions.append(q)
    qids = Counter(q["qid"] for q in questions)
    problems += [f"qid {qid} appears {n} times" for qid, n in qids.items() if n > 1]
    return questions


def validate(root: Path = ROOT) -> tuple[list[str], dict[str, Counter[str]]]:
    """Return (problems, counts); an empty problem list means the set is valid."""
    problems: list[str] = []
    check_new_sessions(root / "eval" / "sessions", problems)
    sessions = load_sessions(root / "examples" / "sessions", problems)
    new = load_sessions(root / "eval" / "sessions", problems)
    if clash := sessions.keys() & new.keys():
        problems.append(f"eval/sessions reuses example session ids: {sorted(clash)}")
    sessions.update(new)

    questions = read_questions(root / "eval" / "queries.jsonl", FIELDS, problems)
    for q in questions:
        where = f"{q['qid']}"
        if not isinstance(q["query"], str) or not q["query"].strip():
            problems.append(f"{where}: empty query")
        if q["kind"] not in KINDS:
            problems.append(f"{where}: unknown kind {q['kind']!r}")
        if q["lang"] not in LANGS:
            problems.append(f"{where}: unknown lang {q['lang']!r}")
        if q["split"] not in SPLITS:
            problems.append(f"{where}: unknown split {q['split']!r}")
        relevant, messages = q["relevant_sessions"], q["relevant_messages"]
        if q["kind"] == "no_answer":
            if relevant or messages:
                problems.append(f"{where}: no_answer question lists relevant ids")
            continue
        if not relevant or not messages:
            problems.append(f"{where}: an answerable question needs sessions and messages")
        if q["kind"] == "latest" and len(relevant) != 1:
            problems.append(f"{where}: a latest question names only the newest session")
        for sid in relevant:
            if sid not in sessions:
                problems.append(f"{where}: unknown session {sid}")
        for mid in messages:
            owner = next((sid for sid in relevant if mid in sessions.get(sid, ())), None)
            if owner is None:
                problems.append(f"{where}: message {mid} is not in any of its relevant sessions")
        for sid in relevant:
            if sid in sessions and not any(m in sessions[sid] for m in messages):
                problems.append(f"{where}: no relevant message in session {sid}")

    by_kind: dict[str, list[str]] = {}
    for q in questions:
        by_kind.setdefault(q["kind"], []).append(q["qid"])
    for kind, kind_qids in by_kind.items():
        rule = split_for(kind_qids)
        for q in questions:
            if q["kind"] == kind and q["split"] != rule[q["qid"]]:
                problems.append(f"{q['qid']}: split is {q['split']}, the rule gives {rule[q['qid']]}")

    counts: dict[str, Counter[str]] = {
        "kind": Counter(q["kind"] for q in questions),
        "lang": Counter(q["lang"] for q in questions),
        "split": Counter(q["split"] for q in questions),
        "kind/split": Counter(f"{q['kind']}/{q['split']}" for q in questions),
        "target": Counter("eval" if any(s in new for s in q["relevant_sessions"]) else
                          "examples" if q["relevant_sessions"] else "none" for q in questions),
    }
    if len(questions) < MIN_QUESTIONS:
        problems.append(f"{len(questions)} questions, expected at least {MIN_QUESTIONS}")
    for kind, minimum in MIN_PER_KIND.items():
        if counts["kind"][kind] < minimum:
            problems.append(f"{counts['kind'][kind]} {kind} questions, expected >= {minimum}")
    return problems, counts


def run_check(check: Callable[[Path], tuple[list[str], dict[str, Counter[str]]]], what: str,
              description: str, argv: list[str] | None) -> int:
    """A check script's command line: validate a checkout, print the counts and the problems;
    exit 1 when there is any."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root")
    args = parser.parse_args(argv)
    problems, counts = check(args.root)
    for name, counter in counts.items():
        print(f"{name}: " + ", ".join(f"{k}={v}" for k, v in sorted(counter.items())))
    for problem in problems:
        print(f"PROBLEM {problem}", file=sys.stderr)
    print(f"{what} OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    return run_check(validate, "eval set", __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
