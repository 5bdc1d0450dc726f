"""The `recall` command line: index, import, search, show, stats, delete, reindex, todo, cleanup."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import msgspec

from api.cli.relevance import add_relevance_parser, cmd_relevance
from api.cli.session import add_session_parser, cmd_session
from api.cli.todos import add_cleanup_parser, add_todo_parser, cmd_cleanup, cmd_todo, todo_line
from api.service.core import RecallService
from api.service.requests import REQUEST_KEYS, search_request
from api.settings import SETTINGS_HELP, Settings
from indexer.formats import DEFAULT_TOOL_CHARS, ImportOptions
from indexer.formats.importer import FORMAT_NAMES, Preview, candidate_files, default_paths, preview
from indexer.ingest.progress import make_progress
from models import (
    MEMORY_TYPES,
    InvalidInput,
    InvalidQuery,
    RecallError,
    SearchResponse,
    recovery_options,
)
from search.dates import check_day

__all__ = ["main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="recall", description=__doc__)
    parser.add_argument("--home", help="data directory (default: $RECALL_HOME or the per-user data dir)")
    parser.add_argument("--embedder", help="embedding model (default: $RECALL_EMBEDDER or e5)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("index", help="ingest session files and folders")
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    p.add_argument("--strict", action="store_true", help="exit non-zero if any file is rejected")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")

    add_import_parser(sub)
    add_watch_parser(sub)
    add_retention_parser(sub)
    add_todo_parser(sub)
    add_cleanup_parser(sub)
    add_relevance_parser(sub)
    add_session_parser(sub)

    p = sub.add_parser("search", help="search the archive")
    p.add_argument("query", nargs="?", help="what to look for; quote phrases with \"...\"")
    p.add_argument("--batch", metavar="FILE", help="JSON lines of queries ('-' for stdin)")
    p.add_argument("--mode", choices=("hybrid", "keyword", "vector"), default="hybrid")
    p.add_argument("--date", help="only sessions on this day, month or year (2026-03-29, 2026-03)")
    p.add_argument("--since", help="only sessions on or after this date")
    p.add_argument("--until", help="only sessions on or before this date")
    p.add_argument("--channel", help="only this channel (webchat, telegram, ...)")
    p.add_argument("--participant", help="only sessions with this participant")
    p.add_argument("--role", help="only messages with this role (user, assistant, ...)")
    p.add_argument("--session", help="only this session id")
    p.add_argument("--memories", dest="scope", action="store_const", const="memories",
                   help="search the memories extracted from sessions instead of the messages")
    p.add_argument("--scope", choices=("messages", "memories", "all"),
                   help="what to search: messages (default), memories, or all")
    p.add_argument("--memory-type", choices=MEMORY_TYPES,
                   help="only memories of this type (implies --memories)")
    p.add_argument("--limit", type=int, default=10, help="sessions to return (default 10)")
    p.add_argument("--memory-rank", choices=("match", "relevance"),
                   help="order memory hits by match (default) or match x memory relevance")
    p.add_argument("--json", action="store_true", help="print results as JSON")

    p = sub.add_parser("show", help="print an archived session")
    p.add_argument("session_id", metavar="ID")
    p.add_argument("--token-budget", type=int, help="summary plus the newest messages that fit")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("stats", help="what is archived and indexed")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("delete", help="remove sessions from the archive and both indexes")
    p.add_argument("session_ids", metavar="ID", nargs="*")
    p.add_argument("--purge", action="store_true",
                   help="then rewrite the indexes and state so no file still holds deleted text "
                        "(copies the whole index: minutes on a large archive)")

    p = sub.add_parser("reindex", help="rebuild both indexes from the archive, switching atomically")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("check", help="verify that archive, state, both indexes and memories agree")
    p.add_argument("--repair", action="store_true",
                   help="fix what differs from the archive, then check again")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")

    p = sub.add_parser("memories", help="typed memories of a session (user, feedback, project, reference)")
    p.add_argument("session_id", metavar="ID")
    p.add_argument("--types", nargs="+", metavar="TYPE", help="only these types")
    p.add_argument("--refine", action="store_true",
                   help="let the LLM endpoint (RECALL_LLM_URL) revise them; not stored")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("snapshot", help="save a session's current state (its memories) as a snapshot")
    p.add_argument("session_id", metavar="ID")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("digest", help="topics, open tasks and daily activity for a day, week or month")
    p.add_argument("--period", choices=("day", "week", "month"), default="week")
    p.add_argument("--date", help="a day inside the period (default: today)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("snapshots", help="list a session's snapshots (saved states)")
    p.add_argument("session_id", metavar="ID")
    p.add_argument("--keep", type=int, help="delete all but the newest N first")
    p.add_argument("--show", metavar="SNAPSHOT", help="print this snapshot instead of the list")
    p.add_argument("--budget", type=int, help="with --show: compress it to about N tokens")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("changes", help="what changed since a snapshot (intents, facts, tasks)")
    p.add_argument("session_id", metavar="ID")
    p.add_argument("--snapshot", help="compare from this snapshot (default: the newest)")
    p.add_argument("--against", metavar="SNAPSHOT",
                   help="compare to this snapshot (default: the session's current state)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("recover", help="choose the snapshot to resume a session from")
    p.add_argument("session_id", metavar="ID")
    p.add_argument("--context", help="what you want to resume now (ranks by relevance too)")
    p.add_argument("--budget", type=int, help="compress the chosen snapshot to about N tokens")
    p.add_argument("--window-hours", type=float,
                   help="only snapshots this close to the newest (default 720; 0: no window)")
    p.add_argument("--weight", action="append", default=[], metavar="PART=W",
                   help="score weight: recency, completeness, relevance or freshness (repeatable)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("serve", help="serve the HTTP API (and MCP at /mcp)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--insecure", action="store_true",
                   help="allow a non-loopback address without RECALL_API_TOKEN")

    sub.add_parser("mcp", help="serve the MCP tools over stdio (for agents)")
    sub.add_parser("settings", help="list settings, their environment variables and values")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        settings = Settings.from_env(home=args.home, embedder=args.embedder)
        service = RecallService(settings, progress=make_progress)
        return COMMANDS[args.command](service, args)
    except RecallError as exc:
        print(f"recall: {exc.detail}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("recall: interrupted", file=sys.stderr)
        return 130


def cmd_index(service: RecallService, args: argparse.Namespace) -> int:
    missing = [str(p) for p in args.paths if not p.exists()]
    for path in missing:
        print(f"recall: no such file or folder: {path}", file=sys.stderr)
    report = service.index([p for p in args.paths if p.exists()])
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        for r in report.rejected:
            print(f"rejected {r.path}: {r.reason}", file=sys.stderr)
        redacted = sum(report.redacted.values())
        print(f"indexed {report.indexed} sessions ({report.messages} messages), "
              f"{report.unchanged} unchanged, {len(report.rejected)} rejected, "
              f"{redacted} secrets redacted, in {report.seconds:.1f}s")
    nothing_read = report.indexed + report.unchanged == 0 and (report.rejected or report.files == 0)
    if missing and not report.files:
        return 1
    return 1 if nothing_read or (args.strict and (report.rejected or missing)) else 0


def add_import_parser(sub: Any) -> None:
    p = sub.add_parser("import", help="import Claude Code, OpenClaw or ChatGPT transcripts")
    p.add_argument("format", choices=FORMAT_NAMES, metavar="FORMAT", help=", ".join(FORMAT_NAMES))
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                   help="files or folders (default: where FORMAT keeps them, "
                        "e.g. ~/.claude/projects)")
    p.add_argument("--since",
                   help="only sessions active on or after this date (2026-03-01, 2026-03)")
    p.add_argument("--dry-run", action="store_true",
                   help="list what would be imported; write nothing")
    p.add_argument("--tool-chars", type=int, default=DEFAULT_TOOL_CHARS, metavar="N",
                   help="cut tool inputs and outputs to N characters "
                        f"(default {DEFAULT_TOOL_CHARS})")
    p.add_argument("--thinking", action="store_true", help="keep the assistant's thinking blocks")
    p.add_argument("--strict", action="store_true", help="exit non-zero if any file is rejected")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")


def cmd_import(service: RecallService, args: argparse.Namespace) -> int:
    if args.tool_chars < 0:
        raise InvalidInput("--tool-chars must not be negative")
    options = ImportOptions(format=args.format, tool_chars=args.tool_chars, thinking=args.thinking,
                            since=check_day(args.since) if args.since else None)
    roots = args.paths or default_paths(args.format)
    missing = [p for p in roots if not p.exists()]
    if missing and not args.paths:
        raise InvalidInput(f"no {args.format} transcripts at {missing[0]} (give a PATH)")
    for path in missing:
        print(f"recall: no such file or folder: {path}", file=sys.stderr)
    files = candidate_files(args.format, [p for p in roots if p.exists()])
    if not files:
        print(f"recall: no {args.format} transcripts found under "
              f"{', '.join(str(p) for p in roots)}", file=sys.stderr)
        return 1
    if args.dry_run:
        max_bytes = int(service.settings.max_file_mb * 1_000_000)
        planned = preview(args.format, files, options, max_bytes)
        if args.json:
            print(json.dumps(planned.to_dict(), ensure_ascii=False))
        else:
            _print_preview(planned, options.since)
        nothing_read = not (planned.sessions or planned.older or planned.empty)
        return 1 if nothing_read or (args.strict and (planned.rejected or missing)) else 0
    report = service.index(files, options)
    if args.json:
        print(json.dumps(report.to_dict() | {"format": args.format}, ensure_ascii=False))
    else:
        for r in report.rejected:
            print(f"rejected {r.path}: {r.reason}", file=sys.stderr)
        print(f"{args.format}: read {report.files} files; indexed {report.indexed} sessions "
              f"({report.messages} messages), {report.unchanged} unchanged, "
              f"{len(report.rejected)} rejected, {sum(report.redacted.values())} secrets redacted, "
              f"in {report.seconds:.1f}s")
    nothing_read = report.indexed + report.unchanged == 0 and bool(report.rejected)
    return 1 if nothing_read or (args.strict and (report.rejected or missing)) else 0


def _print_preview(planned: Preview, since: str | None) -> None:
    for s in planned.sessions:
        left_out = ", ".join(f"{n}× {reason}" for reason, n in s.skipped.items())
        print(f"{s.session_id}  {s.date}  {s.messages} messages  {s.title or ''}".rstrip())
        print(f"    {s.file}" + (f"  (left out: {left_out})" if left_out else ""))
    for r in planned.rejected:
        print(f"rejected {r.path}: {r.reason}", file=sys.stderr)
    older = f", {planned.older} older than {since}" if since else ""
    messages = sum(s.messages for s in planned.sessions)
    print(f"would import {len(planned.sessions)} sessions ({messages} messages) from "
          f"{planned.files} files: {len(planned.empty)} with nothing to import, "
          f"{len(planned.rejected)} rejected{older}; nothing written")


def add_watch_parser(sub: Any) -> None:
    p = sub.add_parser("watch", help="keep archiving transcripts as they are written")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                   help="files or folders (with --format and no PATH: where FORMAT keeps them)")
    p.add_argument("--format", choices=FORMAT_NAMES,
                   help="read only this format (default: recognize each file by content)")
    p.add_argument("--once", action="store_true", help="one pass, then exit (for cron and tests)")
    p.add_argument("--interval", type=float, default=1.0, metavar="SECONDS",
                   help="seconds between passes (default 1)")
    p.add_argument("--quiet", type=float, default=2.0, metavar="SECONDS",
                   help="a file is read once unchanged for this long (default 2)")


def cmd_watch(service: RecallService, args: argparse.Namespace) -> int:
    import signal
    import time

    from indexer.formats.sources import discover
    from indexer.ingest.progress import silent_progress
    from indexer.ingest.watch import Watcher, WatchRound

    if args.interval <= 0 or args.quiet < 0:
        raise InvalidInput("--interval must be positive and --quiet not negative")
    if not args.paths and not args.format:
        raise InvalidInput("give a PATH to watch, or --format FORMAT for its default location")
    roots = args.paths or default_paths(args.format)
    options = ImportOptions(format=args.format)
    for path in roots:
        if not path.exists():  # may appear later: the tool has not written anything yet
            print(f"recall watch: {path} does not exist yet; watching for it", file=sys.stderr)

    def list_files() -> list[Path]:
        present = [p for p in roots if p.exists()]
        return candidate_files(args.format, present) if args.format else list(discover(present))

    ingestor = service.ingestor(options)
    ingestor.progress = silent_progress  # one line per pass instead of a bar
    watcher = Watcher(list_files, ingestor.index_paths, quiet=args.quiet, interval=args.interval)

    def report(done: WatchRound) -> None:
        stamp = time.strftime("%H:%M:%S")
        for r in [*(done.report.rejected if done.report else []), *done.failed]:
            print(f"{stamp} rejected {r.path}: {r.reason}", file=sys.stderr)
        if done.busy:
            print(f"{stamp} another writer is busy; retrying next pass", file=sys.stderr)
        if done.report and (done.report.indexed or done.report.rejected or done.failed):
            r = done.report
            print(f"{stamp} read {len(done.ingested)} files: indexed {r.indexed} sessions "
                  f"({r.messages} messages), {r.unchanged} unchanged, "
                  f"{len(r.rejected) + len(done.failed)} rejected in {r.seconds:.1f}s",
                  file=sys.stderr, flush=True)
        if args.once and done.waiting:
            print(f"{stamp} {done.waiting} files still being written; left for the next pass",
                  file=sys.stderr)

    if args.once:
        done = watcher.poll()
        report(done)
        print(f"watched {done.seen} files: {len(done.ingested)} read, {done.waiting} still being "
              f"written", file=sys.stderr)
        failed = len(done.failed) + (len(done.report.rejected) if done.report else 0)
        readable = done.report.indexed + done.report.unchanged if done.report else 0
        return 1 if failed and not readable else 0

    def stop(signum: int, frame: object) -> None:
        if watcher.stopping.is_set():  # a second Ctrl-C: stop now; ingest is crash-safe
            raise KeyboardInterrupt
        print("recall watch: stopping after this pass", file=sys.stderr, flush=True)
        watcher.stop()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    print(f"recall watch: watching {', '.join(str(p) for p in roots)} every {args.interval:g}s "
          f"(files are read once quiet for {args.quiet:g}s); Ctrl-C to stop",
          file=sys.stderr, flush=True)
    try:
        watcher.run(report)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("recall watch: stopped", file=sys.stderr)
    return 0


def add_retention_parser(sub: Any) -> None:
    p = sub.add_parser("retention", help="move old sessions to lighter tiers (summary, compressed)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true",
                      help="list what would move and what it drops; write nothing (the default)")
    mode.add_argument("--apply", action="store_true", help="do it: what is dropped is gone")
    p.add_argument("--full-days", type=int, metavar="N",
                   help="sessions inactive longer lose their messages "
                        "(default: $RECALL_RETENTION_FULL_DAYS)")
    p.add_argument("--summary-days", type=int, metavar="N",
                   help="sessions inactive longer are compressed "
                        "(default: $RECALL_RETENTION_SUMMARY_DAYS)")
    p.add_argument("--as-of", metavar="DATE", help="count ages up to this day (default: today)")
    p.add_argument("--json", action="store_true", help="print the plan as one JSON object")


def cmd_retention(service: RecallService, args: argparse.Namespace) -> int:
    result = service.retention(full_days=args.full_days, summary_days=args.summary_days,
                               apply=args.apply, today=args.as_of)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    if not result["enabled"]:
        print("retention is off: nothing is ever dropped. Set RECALL_RETENTION_FULL_DAYS / "
              "RECALL_RETENTION_SUMMARY_DAYS or pass --full-days / --summary-days.")
        return 0
    for s in result["sessions"]:
        built = "; a summary is built from the first user line and key memories" \
            if s["summary_built"] else ""
        print(f"{s['session_id']}  {s['date']}  last active {s['last_activity']}  "
              f"{s['tier']} -> {s['target']}: drops {', '.join(s['drops'])}{built}")
    count = len(result["sessions"])
    what = (f"{count} sessions, {result['messages_dropped']} messages, "
            f"{result['characters_dropped']} characters")
    if args.apply:
        print(f"moved {result.get('applied', 0)} sessions to lighter tiers ({what} dropped); "
              "summaries and memories stay searchable")
    else:
        print(f"would move {what} (full {result['full_days']} days, summary "
              f"{result['summary_days']} days, as of {result['as_of']}); nothing written. "
              "Run with --apply to do it.")
    return 0


def cmd_search(service: RecallService, args: argparse.Namespace) -> int:
    if args.batch:
        return _batch_search(service, args.batch)
    if not args.query:
        raise InvalidQuery("give a QUERY or --batch FILE")
    request = search_request({k: getattr(args, k) for k in REQUEST_KEYS}, args.query)
    response = service.search(request)
    if args.json:
        print(_json(response))
    else:
        _print_results(response, sys.stdout)
    return 0


def _batch_search(service: RecallService, source: str) -> int:
    stream = sys.stdin if source == "-" else open(source, encoding="utf-8")
    failures = 0
    with stream:
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            qid: Any = None
            try:
                item = json.loads(line)
                if not isinstance(item, dict):
                    raise InvalidQuery("each line must be a JSON object")
                qid = item.get("qid", number)
                response = service.search(search_request(item, item.get("query")))
                out = msgspec.to_builtins(response)
                out["qid"] = qid
            except (RecallError, json.JSONDecodeError) as exc:
                failures += 1
                detail = exc.detail if isinstance(exc, RecallError) else f"invalid JSON: {exc}"
                out = {"qid": qid if qid is not None else number, "error": detail}
            print(json.dumps(out, ensure_ascii=False), flush=True)
    return 1 if failures else 0


def cmd_show(service: RecallService, args: argparse.Namespace) -> int:
    record = service.session(args.session_id, args.token_budget)
    if args.json:
        print(json.dumps(record, ensure_ascii=False, indent=1))
        return 0
    title = record.get("title") or ", ".join(record.get("topics", []))
    print(f"{record['sessionId']}  {record['date']}  {record.get('channel') or ''}  {title}")
    if record.get("summary"):
        print(f"summary: {record['summary']}")
    if record.get("omittedMessages"):
        print(f"({record['omittedMessages']} earlier messages left out to fit the budget)")
    for m in record.get("messages", []):
        who = m.get("speaker") or m["role"]
        print(f"\n[{m.get('time', '')}] {who}:\n{m['content']}")
    return 0


def cmd_stats(service: RecallService, args: argparse.Namespace) -> int:
    stats = service.stats()
    if args.json:
        print(json.dumps(stats, ensure_ascii=False, indent=1))
        return 0
    print(f"data dir:   {stats['home']}")
    print(f"sessions:   {stats['sessions']}  messages: {stats['messages']}")
    if stats["first_date"]:
        print(f"dates:      {stats['first_date']} .. {stats['last_date']}")
    channels = ", ".join(f"{name or '-'} {count}" for name, count in stats["channels"].items())
    print(f"channels:   {channels}")
    if "index" in stats:
        ix = stats["index"]
        print(f"index:      {ix['generation']}, embedder {ix['embedder']} ({ix['dim']}d), "
              f"{ix['keyword_documents']} keyword docs, {ix['vector_passages']} passages, "
              f"{ix['disk_bytes'] / 1e6:.1f} MB")
    if stats["unfinished"]:
        print(f"unfinished: {stats['unfinished']} (the next `recall index` finishes them)")
    if stats["quarantined"]:
        print(f"quarantine: {stats['quarantined']} rejected files")
    return 0


def cmd_delete(service: RecallService, args: argparse.Namespace) -> int:
    if not args.session_ids and not args.purge:
        raise InvalidInput("name the sessions to delete, or pass --purge alone to purge "
                           "what earlier deletes left in the index files")
    for session_id in args.session_ids:
        service.delete(session_id)
        print(f"deleted {session_id}")
    if args.purge:
        copied = service.purge()
        print(f"purged: copied {copied['keyword_documents']} keyword documents and "
              f"{copied['vector_rows']} vectors into fresh files; older files removed")
    return 0


def cmd_reindex(service: RecallService, args: argparse.Namespace) -> int:
    report = service.reindex()
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        print(f"reindexed {report.indexed} sessions in {report.seconds:.1f}s "
              f"with embedder {service.embedder.name}")
        for r in report.rejected:
            print(f"skipped {r.path}: {r.reason}", file=sys.stderr)
    return 0


def cmd_check(service: RecallService, args: argparse.Namespace) -> int:
    """Exit status 1 while any difference remains (after --repair: any it could not fix)."""
    report = service.check(repair=args.repair)
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        for d in report.get("found", []):
            print(f"found {d['session_id'] or '(index)'}: {d['kind']}: {d['detail']}")
        if "repaired" in report:
            fixed = report["repaired"]
            print("rebuilt the index from the archive" if fixed["rebuilt"]
                  else f"re-indexed {fixed['sessions']} sessions from the archive")
        for d in report["differences"]:
            print(f"{d['session_id'] or '(index)'}: {d['kind']}: {d['detail']}")
        state = "consistent" if report["ok"] else f"{len(report['differences'])} differences"
        print(f"checked {report['sessions']} sessions, {report['keyword_documents']} keyword "
              f"documents, {report['vector_passages']} vector passages: {state}")
    return 0 if report["ok"] else 1


def cmd_serve(service: RecallService, args: argparse.Namespace) -> int:
    import ipaddress

    import uvicorn

    from api.http.app import create_app
    from api.http.server import server_config

    try:
        loopback = args.host == "localhost" or ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        loopback = False
    if not loopback and not service.settings.api_token and not args.insecure:
        raise InvalidInput(
            f"refusing to serve on {args.host} without RECALL_API_TOKEN: anyone who can reach it "
            "could read your conversations. Set RECALL_API_TOKEN, or pass --insecure.")
    print(f"recall: serving {service.data.root} on http://{args.host}:{args.port} "
          f"(auth {'on' if service.settings.api_token else 'off'})", file=sys.stderr)
    app = create_app(service.settings, service, host=args.host)
    uvicorn.Server(server_config(app, service.settings, host=args.host, port=args.port)).run()
    return 0


def cmd_memories(service: RecallService, args: argparse.Namespace) -> int:
    payload = service.memories_payload(args.session_id, args.types, refine=args.refine)
    if args.json:
        print(json.dumps(payload, ensure_ascii=False))
        return 0
    if payload.get("refine_error"):
        print(f"not refined ({payload['refine_error']}); rule-based memories:", file=sys.stderr)
    for m in payload["memories"]:
        due = f" (due {m['due_date']})" if m["due_date"] else ""
        print(f"[{m['type']}/{m['kind'] or '-'} {m['confidence']:.2f}] {m['text']}{due}")
    return 0


def cmd_snapshot(service: RecallService, args: argparse.Namespace) -> int:
    snapshot = service.create_snapshot(args.session_id)
    if args.json:
        print(msgspec.json.encode(snapshot).decode())
    else:
        print(f"saved {snapshot.id}: {len(snapshot.intents)} intents, {len(snapshot.facts)} facts, "
              f"{len(snapshot.tasks)} tasks")
    return 0


def cmd_digest(service: RecallService, args: argparse.Namespace) -> int:
    digest = service.digest(args.period, args.date)
    if args.json:
        print(json.dumps(digest, ensure_ascii=False))
        return 0
    print(f"{digest['period']} {digest['start']} .. {digest['end']}: {digest['sessions']} sessions, "
          f"{digest['messages']} messages")
    if digest["topics"]:
        print("topics: " + ", ".join(f"{t['topic']} ({t['sessions']})" for t in digest["topics"]))
    for task in digest["open_tasks"]:
        print(f"open task: {task['text']}" + (f" (due {task['due_date']})" if task["due_date"] else ""))
    for todo in digest["todos"]:
        print(f"todo {todo_line(todo)}")
    for day in digest["activity"]:
        print(f"{day['date']}  {day['sessions']} sessions  {day['line']}")
    return 0


def cmd_snapshots(service: RecallService, args: argparse.Namespace) -> int:
    if args.show:
        shown = service.snapshot(args.session_id, args.show, args.budget)
        print(msgspec.json.format(msgspec.json.encode(shown), indent=1).decode())
        return 0
    if args.budget is not None:
        raise InvalidInput("--budget needs --show SNAPSHOT")
    snapshots = service.snapshots(args.session_id, args.keep)
    if args.json:
        print(msgspec.json.encode({"session_id": args.session_id, "snapshots": snapshots}).decode())
        return 0
    if not snapshots:
        print(f"no snapshots for {args.session_id}")
    for s in snapshots:
        open_tasks = sum(1 for t in s.tasks if t.is_open)
        print(f"{s.id}  {s.created_at}  {len(s.intents)} intents, {len(s.facts)} facts, "
              f"{open_tasks}/{len(s.tasks)} open tasks  {s.description}")
    return 0


def cmd_recover(service: RecallService, args: argparse.Namespace) -> int:
    options: dict[str, Any] = {}
    if args.window_hours is not None:
        options["time_window_hours"] = args.window_hours or None
    if args.weight:
        options["weights"] = dict(_weight(text) for text in args.weight)
    decision = service.recover(args.session_id, args.context, options=recovery_options(options),
                               token_budget=args.budget)
    if args.json:
        print(msgspec.json.encode(decision).decode())
        return 0
    print(f"resume from {decision.selected.id} ({decision.selected.created_at}): "
          f"{decision.strategy}, confidence {decision.confidence:.2f}")
    for reason in decision.reasons:
        print(f"  - {reason}")
    for alt in decision.alternatives:
        print(f"  alternative {alt.snapshot_id}: score {alt.score:.3f}")
    return 0


def _weight(text: str) -> tuple[str, float]:
    name, _, value = text.partition("=")
    try:
        return name.strip(), float(value)
    except ValueError:
        raise InvalidInput(f"--weight wants PART=NUMBER, not {text!r}") from None


def cmd_changes(service: RecallService, args: argparse.Namespace) -> int:
    report = service.snapshot_changes(args.session_id, args.snapshot, args.against)
    if args.json:
        print(msgspec.json.encode(report).decode())
        return 0
    print(f"{report.before_id} -> {report.after_id}: {report.severity}. {report.summary}")
    for change in (*report.intents, *report.facts, *report.tasks):
        print(f"  {change.kind:<14} {change.text}")
    for reason in report.reasons:
        print(f"  why: {reason}")
    for advice in report.recommendations:
        print(f"  advice: {advice}")
    return 0


def cmd_mcp(service: RecallService, args: argparse.Namespace) -> int:
    from api.mcp.server import run_stdio

    run_stdio(service)
    return 0


def cmd_settings(service: RecallService, args: argparse.Namespace) -> int:
    for name, (var, help_text) in SETTINGS_HELP.items():
        value = getattr(service.settings, name)
        if name in ("api_token", "llm_api_key") and value:
            value = "(set)"  # never print a secret
        print(f"{var:<29} = {value}\n    {help_text}")
    return 0


COMMANDS = {
    "index": cmd_index, "search": cmd_search, "show": cmd_show, "stats": cmd_stats,
    "delete": cmd_delete, "reindex": cmd_reindex, "settings": cmd_settings, "serve": cmd_serve,
    "mcp": cmd_mcp, "snapshots": cmd_snapshots, "recover": cmd_recover, "changes": cmd_changes,
    "memories": cmd_memories, "snapshot": cmd_snapshot, "digest": cmd_digest,
    "import": cmd_import, "watch": cmd_watch, "retention": cmd_retention,
    "check": cmd_check, "todo": cmd_todo, "cleanup": cmd_cleanup,
    "relevance": cmd_relevance,
    "session": cmd_session,
}


def _json(response: SearchResponse) -> str:
    return msgspec.json.encode(response).decode()


def _print_results(response: SearchResponse, out: TextIO) -> None:
    if not response.results:
        print(f"no match for {response.query!r}", file=out)
        return
    bold, plain = ("\033[1m", "\033[0m") if out.isatty() else ("**", "**")
    for rank, hit in enumerate(response.results, start=1):
        title = f"  {hit.title}" if hit.title else ""
        print(f"{rank}. {hit.session_id}  {hit.date}  {hit.channel or '-'}  "
              f"score {hit.score:.4f}{title}", file=out)
        for m in hit.messages:
            text = m.snippet
            for start, end in reversed(m.highlights):
                text = text[:start] + bold + text[start:end] + plain + text[end:]
            role = f"{m.role} {m.memory_type}" if m.memory_type else m.role
            print(f"   [{role}{' ' + m.id if m.id else ''}] {text}", file=out)
        print(file=out)


if __name__ == "__main__":
    raise SystemExit(main())
