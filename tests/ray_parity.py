"""What the Ray tests share (one node and two): the inputs, a service on the `hash` embedder over
small batches, and the top 10 sessions of a fixed set of queries in both languages."""

from __future__ import annotations

from pathlib import Path

from api import RecallService, Settings
from indexer import HashEmbedder
from models import SearchRequest

from .helpers import EXAMPLES, JSONL, SESSIONS

INPUTS = [EXAMPLES, SESSIONS, JSONL]
QUERIES = ["升级", "最后决定用什么数据库", "ERR_CONNECTION_REFUSED", "vacation planning in Japan",
           "Friday deploys", "周五上线", "postgres migration", "what did we decide"]


def service_at(home: Path, batch_sessions: int = 3) -> RecallService:
    # small batches: a run is many shards, in flight on every worker at once
    return RecallService(Settings(home=home, embedder="hash", batch_sessions=batch_sessions),
                         embedder=HashEmbedder())


def top_sessions(service: RecallService) -> list[list[str]]:
    return [[hit.session_id for hit in service.search(SearchRequest(query=q, limit=10)).results]
            for q in QUERIES]
