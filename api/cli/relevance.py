"""`recall relevance list|decay|prune|pruned`: see and prune memories by relevance."""

from __future__ import annotations

import argparse
import json
from typing import Any

from api.service.core import RecallService
from api.service.relevance import MAX_LISTED
from models import InvalidInput

__all__ = ["add_relevance_parser", "cmd_relevance"]


def add_relevance_parser(sub: Any) -> None:
    p = sub.add_parser("relevance", help="memory relevance: list, decay, prune (see "
                       "docs/memory-relevance.md)")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    a = actions.add_parser("list", help="memories with their relevance now, most relevant first")
    a.add_argument("--session", metavar="ID", help="only this session's memories")
    a.add_argument("--limit", type=int, default=50, help=f"how many (default 50, at most {MAX_LISTED})")
    a.add_argument("--offset", type=int, default=0)
    a.add_argument("--json", action="store_true")
    a = actions.add_parser("decay", help="write every memory's decayed relevance down "
                           "(reads compute it anyway; this also drops rows of vanished memories)")
    a.add_argument("--json", action="store_true")
    a = actions.add_parser("prune", help="remove the least relevant memories past the maximum "
                           "count, listing each one")
    a.add_argument("--max", type=int, dest="max_memories", metavar="N",
                   help="keep at most N memories (default: $RECALL_RELEVANCE_MAX_MEMORIES)")
    a.add_argument("--dry-run", action="store_true", help="list what would go; remove nothing")
    a.add_argument("--json", action="store_true")
    a = actions.add_parser("pruned", help="memories pruning removed (kept out of reindexing)")
    a.add_argument("--session", metavar="ID", help="only this session's")
    a.add_argument("--json", action="store_true")


def cmd_relevance(service: RecallService, args: argparse.Namespace) -> int:
    relevance = service.relevance
    if args.action == "list":
        out = relevance.listing(limit=args.limit, offset=args.offset, session_id=args.session)
    elif args.action == "decay":
        out = relevance.decay()
    elif args.action == "prune":
        if args.max_memories is not None and args.max_memories < 0:
            raise InvalidInput("--max must not be negative")
        out = relevance.prune(dry_run=args.dry_run, max_memories=args.max_memories)
    else:
        out = relevance.pruned(args.session)
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        _print(args.action, out)
    return 0


def _line(m: dict[str, Any]) -> str:
    used = f", used {m['access_count']}x, last {m['last_accessed']}" if m.get("access_count") else ""
    return f"{m['relevance']:.3f}  [{m['type']}] {m['id']}{used}\n       {m['text']}"


def _print(action: str, out: dict[str, Any]) -> None:
    if action == "list":
        p = out["policy"]
        for m in out["memories"]:
            print(_line(m))
        shown = len(out["memories"])
        print(f"{shown} of {out['total']} memories as of {out['as_of']} (decay {p['decay_rate']}/day "
              f"toward {p['floor']}, boost {p['boost']}, max {p['max_memories'] or 'unlimited'}); "
              f"{out['pruned_total']} pruned")
    elif action == "decay":
        print(f"wrote the relevance of {out['updated']} memories as of {out['as_of']}; "
              f"dropped {out['dropped']} rows of memories that no longer exist")
    elif action == "prune":
        verb = "would prune" if out["dry_run"] else "pruned"
        for m in out["pruned"]:
            print(f"{verb} {_line(m)}")
        print(f"{verb} {len(out['pruned'])} memories: {out['memories_before']} -> "
              f"{out['memories_after']} (max {out['max_memories']})"
              + ("; nothing removed" if out["dry_run"] else ""))
    else:
        for m in out["pruned"]:
            print(f"{m['pruned_at']}  {m['relevance']:.3f}  [{m['type']}] {m['id']}\n       {m['text']}")
        print(f"{len(out['pruned'])} pruned memories")
