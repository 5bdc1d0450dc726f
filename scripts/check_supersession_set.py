"""Validate the supersession set in eval/supersession/ (sessions, link labels, questions, split).

No model and no index: checks that every new session parses with the project's parser and has the
archive shape, that every labeled message exists (in eval/supersession/sessions, eval/sessions or
examples/sessions), that a later statement is dated after the one it is paired with, that chains
are simple paths of 2-4 statements, that ids are unique, that each split follows the rule in
eval/supersession/README.md, and that the counts meet the minimums. Prints the counts; exits 1
with the problems when something is wrong.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import uuid
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # import the code of this checkout, whatever the current folder

from check_eval_set import run_check  # scripts/ is on the path when run as a script

from models import parse_session
from models.errors import InvalidSession

LINK_KINDS = ("supersedes", "not_linked", "same")
QUERY_KINDS = ("latest", "history")
LANGS = ("en", "zh", "mixed")
CHANGES = ("time", "amount", "place", "version", "path", "decision", "other")
SPLITS = ("tune", "test")
CHANNELS = ("webchat", "discord", "telegram", "cli")
MIN_CHAINS = 36
MIN_NOT_LINKED = 36
MIN_SAME = 3
MIN_QUERIES = {"latest": 40, "history": 10}
MIN_NEW_SESSIONS = 20
CHAIN_STATEMENTS = (2, 4)
MESSAGES_PER_SESSION = (6, 14)
LINK_FIELDS = {"id", "kind", "later", "earlier", "later_also", "earlier_also", "subject", "scope",
               "lang", "explicit", "change", "chain", "split"}
QUERY_FIELDS = {"qid", "query", "lang", "kind", "chain", "relevant_sessions", "relevant_messages",
                "superseded_sessions", "superseded_messages", "later_sessions",
                "lookalike_sessions", "split"}
_LINK_ID = re.compile(r"^sl-\d{3}$")
_QUERY_ID = re.compile(r"^sq-\d{3}$")
_CHAIN_ID = re.compile(r"^ch-[a-z0-9]+(?:-[a-z0-9]+)*$")


def split_for(key: str) -> str:
    """The split rule: the first hex digit of sha256(key) is 0-7 for test, 8-f for tune. The key
    is the line's chain id, or its own id when it has no chain; it depends on nothing else."""
    return "test" if hashlib.sha256(key.encode("utf-8")).hexdigest()[0] in "01234567" else "tune"


def _show(path: Path, root: Path) -> str:
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


class Messages:
    """Every message of the three folders: its session, position and time, as the parser reads it."""

    def __init__(self) -> None:
        self.session: dict[str, str] = {}  # message id -> session id
        self.position: dict[str, int] = {}
        self.time: dict[str, datetime] = {}
        self.sessions: dict[str, list[str]] = {}  # session id -> message ids in order
        self.folder: dict[str, str] = {}  # session id -> folder it came from

    def load(self, folder: Path, label: str, root: Path, problems: list[str]) -> list[Path]:
        paths = sorted(folder.rglob("*.json"))
        for path in paths:
            try:
                session = parse_session(json.loads(path.read_text(encoding="utf-8")),
                                        fallback_id=path.stem)
            except (ValueError, InvalidSession) as exc:  # a finding, not a crash
                problems.append(f"{_show(path, root)}: does not parse: {exc}")
                continue
            if session.session_id in self.sessions:
                problems.append(f"{_show(path, root)}: session id {session.session_id} is also in "
                                f"{self.folder[session.session_id]}")
                continue
            self.folder[session.session_id] = label
            self.sessions[session.session_id] = [m.id for m in session.messages]
            for n, message in enumerate(session.messages, 1):
                self.session[message.id] = session.session_id
                self.position[message.id] = n
                self.time[message.id] = _when(message.time or session.date)
        return paths

    def before(self, earlier: str, later: str) -> bool:
        """True when `earlier` was said before `later` (by position within one session)."""
        if self.session[earlier] == self.session[later]:
            return self.position[earlier] < self.position[later]
        return self.time[earlier] < self.time[later]


def _when(value: str) -> datetime:
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:  # a bare date: the start of that day, in the archive's +08:00
        moment = datetime.fromisoformat(f"{value[:10]}T00:00:00+08:00")
    return moment


def check_new_sessions(paths: list[Path], root: Path, problems: list[str]) -> None:
    """The archive shape of the hand-written sessions: layout, ids, roles, times, sizes."""
    for path in paths:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue  # Messages.load reports it
        name = _show(path, root)
        session_id = str(raw.get("sessionId", ""))
        if session_id != path.stem:
            problems.append(f"{name}: sessionId does not match the file name")
        try:
            if uuid.UUID(session_id).version != 5:
                problems.append(f"{name}: session id is not a UUIDv5")
        except ValueError:
            problems.append(f"{name}: session id is not a UUID")
        date = str(raw.get("date", ""))
        if path.parent.name != date[:7]:
            problems.append(f"{name}: folder is not the session's YYYY-MM")
        if raw.get("channel") not in CHANNELS:
            problems.append(f"{name}: unknown channel {raw.get('channel')!r}")
        if not raw.get("participants") or not raw.get("summary"):
            problems.append(f"{name}: participants and summary are required")
        messages = raw.get("messages") or []
        low, high = MESSAGES_PER_SESSION
        if not low <= len(messages) <= high:
            problems.append(f"{name}: {len(messages)} messages, expected {low}-{high}")
        previous = None
        for n, message in enumerate(messages, 1):
            if message.get("id") != f"{path.stem}-m{n}":
                problems.append(f"{name}: message {n} has id {message.get('id')!r}")
            if message.get("role") not in ("user", "assistant"):
                problems.append(f"{name}: message {n} has role {message.get('role')!r}")
            stamp = str(message.get("time", ""))
            if not stamp.endswith("+08:00"):
                problems.append(f"{name}: message {n} time is not ISO-8601 with +08:00")
                continue
            if n == 1 and stamp[:10] != date:
                problems.append(f"{name}: the first message is not on the session's date")
            if previous is not None and _when(stamp) <= previous:
                problems.append(f"{name}: message {n} is not later than message {n - 1}")
            previous = _when(stamp)


def _read_jsonl(path: Path, fields: set[str], root: Path,
                problems: list[str]) -> list[dict[str, Any]]:
    rows = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{_show(path, root)} line {n}: not JSON: {exc}")
            continue
        if not isinstance(row, dict) or set(row) != fields:
            problems.append(f"{_show(path, root)} line {n}: fields must be exactly {sorted(fields)}")
            continue
        rows.append(row)
    return rows


def check_links(links: list[dict[str, Any]], msgs: Messages,
                problems: list[str]) -> dict[str, list[str]]:
    """Validate the labeled pairs; return each chain's statements, oldest first."""
    for lid, n in Counter(link["id"] for link in links).items():
        if n > 1:
            problems.append(f"link id {lid} appears {n} times")
    pairs: Counter[frozenset[str]] = Counter()
    by_chain: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for link in links:
        where = link["id"]
        if not _LINK_ID.match(str(where)):
            problems.append(f"{where}: id is not sl-NNN")
        if link["kind"] not in LINK_KINDS:
            problems.append(f"{where}: unknown kind {link['kind']!r}")
        if link["lang"] not in LANGS:
            problems.append(f"{where}: unknown lang {link['lang']!r}")
        if link["change"] not in CHANGES:
            problems.append(f"{where}: unknown change {link['change']!r}")
        if link["split"] not in SPLITS:
            problems.append(f"{where}: unknown split {link['split']!r}")
        if not isinstance(link["explicit"], bool):
            problems.append(f"{where}: explicit must be true or false")
        elif link["explicit"] and link["kind"] != "supersedes":
            problems.append(f"{where}: only a supersedes pair can be explicit")
        if not all(isinstance(link[k], str) and link[k].strip() for k in ("subject", "scope")):
            problems.append(f"{where}: subject and scope must be non-empty text")
        also = [*link["later_also"], *link["earlier_also"]]
        ids = [link["later"], link["earlier"], *also]
        missing = [m for m in ids if m not in msgs.session]
        if missing:
            problems.append(f"{where}: unknown message(s) {missing}")
            continue
        if link["later"] == link["earlier"]:
            problems.append(f"{where}: a message is paired with itself")
        if {link["later"], link["earlier"]} & set(also) or len(set(also)) != len(also):
            problems.append(f"{where}: the *_also lists repeat a message")
        if also and link["kind"] != "supersedes":
            problems.append(f"{where}: only supersedes pairs list *_also messages")
        if not msgs.before(link["earlier"], link["later"]):
            problems.append(f"{where}: later is not dated after earlier")
        pairs[frozenset((link["later"], link["earlier"]))] += 1
        chain = link["chain"]
        if chain is not None and not (isinstance(chain, str) and _CHAIN_ID.match(chain)):
            problems.append(f"{where}: chain must be null or ch-<name>")
        elif link["kind"] == "supersedes":
            if chain is None:
                problems.append(f"{where}: a supersedes pair needs a chain id")
            else:
                by_chain[chain].append(link)
        expected = split_for(chain or link["id"])
        if link["split"] != expected:
            problems.append(f"{where}: split is {link['split']}, the rule gives {expected}")
    problems += [f"pair {sorted(p)} is labeled {n} times" for p, n in pairs.items() if n > 1]

    chains: dict[str, list[str]] = {}
    for chain, lines in by_chain.items():
        statements = _chain_path(chain, lines, problems)
        if statements:
            chains[chain] = statements
        if len({(x["subject"], x["scope"], x["change"]) for x in lines}) > 1:
            problems.append(f"{chain}: its pairs disagree on subject, scope or change")
    member_of: dict[str, set[str]] = defaultdict(set)
    for chain, statements in chains.items():
        for m in statements:
            member_of[m].add(chain)
    for link in links:
        if link["kind"] == "supersedes" or link["later"] not in msgs.session \
                or link["earlier"] not in msgs.session:
            continue
        owners = member_of[link["later"]] | member_of[link["earlier"]]
        if link["chain"] is None and owners:
            problems.append(f"{link['id']}: touches chain(s) {sorted(owners)} but has no chain")
        elif link["chain"] is not None and link["chain"] not in owners:
            problems.append(f"{link['id']}: neither message belongs to {link['chain']}")
    return chains


def _chain_path(chain: str, lines: list[dict[str, Any]], problems: list[str]) -> list[str]:
    """The chain's statements oldest first, when its pairs form one path; else [] and a problem."""
    nxt = {x["earlier"]: x["later"] for x in lines}
    if len(nxt) != len(lines) or len({x["later"] for x in lines}) != len(lines):
        problems.append(f"{chain}: a statement is superseded twice or supersedes twice")
        return []
    starts = set(nxt) - set(nxt.values())
    if len(starts) != 1:
        problems.append(f"{chain}: its pairs do not form a single path")
        return []
    path = [starts.pop()]
    while path[-1] in nxt and len(path) <= len(lines):
        path.append(nxt[path[-1]])
    low, high = CHAIN_STATEMENTS
    if len(path) != len(lines) + 1:
        problems.append(f"{chain}: its pairs do not form a single path")
        return []
    if not low <= len(path) <= high:
        problems.append(f"{chain}: {len(path)} statements, expected {low}-{high}")
    return path


def check_queries(queries: list[dict[str, Any]], chains: dict[str, list[str]], msgs: Messages,
                  problems: list[str]) -> None:
    for qid, n in Counter(q["qid"] for q in queries).items():
        if n > 1:
            problems.append(f"qid {qid} appears {n} times")
    for q in queries:
        where = q["qid"]
        if not _QUERY_ID.match(str(where)):
            problems.append(f"{where}: qid is not sq-NNN")
        if not isinstance(q["query"], str) or not q["query"].strip():
            problems.append(f"{where}: empty query")
        if q["kind"] not in QUERY_KINDS:
            problems.append(f"{where}: unknown kind {q['kind']!r}")
        if q["lang"] not in LANGS:
            problems.append(f"{where}: unknown lang {q['lang']!r}")
        if q["split"] != split_for(str(q["chain"])):
            problems.append(f"{where}: split is {q['split']}, the rule gives {split_for(str(q['chain']))}")
        statements = chains.get(q["chain"])
        if statements is None:
            problems.append(f"{where}: unknown chain {q['chain']!r}")
            continue
        sessions = [*q["relevant_sessions"], *q["superseded_sessions"], *q["later_sessions"],
                    *q["lookalike_sessions"]]
        unknown = [s for s in sessions if s not in msgs.sessions]
        unknown += [m for m in (*q["relevant_messages"], *q["superseded_messages"])
                    if m not in msgs.session]
        if unknown:
            problems.append(f"{where}: unknown session(s) or message(s) {unknown}")
            continue
        relevant, messages = q["relevant_sessions"], q["relevant_messages"]
        if not relevant or not messages:
            problems.append(f"{where}: needs relevant sessions and messages")
        for mid in messages:
            if msgs.session[mid] not in relevant:
                problems.append(f"{where}: message {mid} is not in a relevant session")
        for sid in relevant:
            if not any(msgs.session[m] == sid for m in messages):
                problems.append(f"{where}: no relevant message in session {sid}")
        for name in ("superseded_sessions", "later_sessions", "lookalike_sessions"):
            if set(q[name]) & set(relevant):
                problems.append(f"{where}: {name} overlaps relevant_sessions")
        for mid in q["superseded_messages"]:
            if msgs.session[mid] not in (*q["superseded_sessions"], *relevant):
                problems.append(f"{where}: superseded message {mid} has no listed session")
        asked = [m for m in messages if m in statements]
        if len(asked) != 1:
            problems.append(f"{where}: relevant_messages must hold exactly one statement of its chain")
            continue
        at = statements.index(asked[0])
        if q["kind"] == "latest" and at != len(statements) - 1:
            problems.append(f"{where}: a latest question must target the chain's newest statement")
        if q["kind"] == "history" and at == len(statements) - 1:
            problems.append(f"{where}: a history question must target an older statement")
        if not set(statements[:at]) <= set(q["superseded_messages"]):
            problems.append(f"{where}: superseded_messages must list the chain's older statements")
        for newer in statements[at + 1:]:
            if msgs.session[newer] not in (*q["later_sessions"], *relevant):
                problems.append(f"{where}: later_sessions misses the session of {newer}")


def _chain_counts(chains: dict[str, list[str]], msgs: Messages, new: set[str]) -> Counter[str]:
    """How many chains, by number of statements, of sessions, and of where those sessions are."""
    counts: Counter[str] = Counter({"all": len(chains)})
    for statements in chains.values():
        sessions = {msgs.session[m] for m in statements}
        counts[f"{len(statements)} statements"] += 1
        counts[f"over {len(sessions)} sessions"] += 1
        where = ("only new sessions" if sessions <= new else
                 "existing and new sessions" if sessions & new else "only existing sessions")
        counts[where] += 1
    return counts


def validate(root: Path = ROOT) -> tuple[list[str], dict[str, Counter[str]]]:
    """Return (problems, counts); an empty problem list means the set is valid."""
    problems: list[str] = []
    base = root / "eval" / "supersession"
    msgs = Messages()
    msgs.load(root / "examples" / "sessions", "examples/sessions", root, problems)
    msgs.load(root / "eval" / "sessions", "eval/sessions", root, problems)
    new_paths = msgs.load(base / "sessions", "eval/supersession/sessions", root, problems)
    check_new_sessions(new_paths, root, problems)
    links = _read_jsonl(base / "links.jsonl", LINK_FIELDS, root, problems)
    queries = _read_jsonl(base / "queries.jsonl", QUERY_FIELDS, root, problems)
    chains = check_links(links, msgs, problems)
    check_queries(queries, chains, msgs, problems)

    supersedes = [x for x in links if x["kind"] == "supersedes"]
    counts: dict[str, Counter[str]] = {
        "sessions": Counter(msgs.folder.values()),
        "link kind": Counter(x["kind"] for x in links),
        "link kind/lang": Counter(f"{x['kind']}/{x['lang']}" for x in links),
        "link kind/change": Counter(f"{x['kind']}/{x['change']}" for x in links),
        "link kind/split": Counter(f"{x['kind']}/{x['split']}" for x in links),
        "supersedes explicit": Counter(
            "explicit" if x["explicit"] else "implicit" for x in supersedes),
        "chains": _chain_counts(chains, msgs, {p.stem for p in new_paths}),
        "chain split": Counter(split_for(c) for c in chains),
        "query kind/lang": Counter(f"{q['kind']}/{q['lang']}" for q in queries),
        "query kind/split": Counter(f"{q['kind']}/{q['split']}" for q in queries),
    }
    if len(new_paths) < MIN_NEW_SESSIONS:
        problems.append(f"{len(new_paths)} new sessions, expected at least {MIN_NEW_SESSIONS}")
    if len(chains) < MIN_CHAINS:
        problems.append(f"{len(chains)} chains, expected at least {MIN_CHAINS}")
    if counts["link kind"]["not_linked"] < MIN_NOT_LINKED:
        problems.append(f"{counts['link kind']['not_linked']} not_linked pairs, "
                        f"expected at least {MIN_NOT_LINKED}")
    if counts["link kind"]["same"] < MIN_SAME:
        problems.append(f"{counts['link kind']['same']} same pairs, expected at least {MIN_SAME}")
    for kind, minimum in MIN_QUERIES.items():
        have = sum(n for k, n in counts["query kind/lang"].items() if k.startswith(f"{kind}/"))
        if have < minimum:
            problems.append(f"{have} {kind} questions, expected at least {minimum}")
    if not counts["chains"]["over 3 sessions"]:
        problems.append("no chain is spread over 3 sessions")
    if set(counts["supersedes explicit"]) != {"explicit", "implicit"}:
        problems.append("supersedes pairs must include both explicit and implicit changes")
    for lang in LANGS:
        if not counts["link kind/lang"][f"supersedes/{lang}"]:
            problems.append(f"no supersedes pair in {lang}")
    for change in CHANGES:
        if not counts["link kind/change"][f"supersedes/{change}"] and change != "other":
            problems.append(f"no supersedes pair changes a {change}")
    return problems, counts


def main(argv: list[str] | None = None) -> int:
    return run_check(validate, "supersession set", __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
