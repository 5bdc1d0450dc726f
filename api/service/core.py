"""The one service that CLI, HTTP and MCP share: built once, it owns the searcher and the model,
and is made of parts (live, todos, snapshots, memories, relevance, maintenance, versions) that
each get what they need at construction, never the service itself."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from api.service import sessions
from api.service.archive import Archive, safe_id
from api.service.facts import Facts
from api.service.indexing import ImportExplained, ImportPreview, IndexResult, IngestResult
from api.service.live import Live
from api.service.maintenance import Maintenance
from api.service.memories import SessionMemories
from api.service.pack import ContextPack, build_pack, pack_request
from api.service.relevance import MemoryRelevance
from api.service.sessions import ArchivedSession, Facets, Health, SessionList, Stats
from api.service.snapshots import Snapshots
from api.service.todos import Todos
from api.service.versions import Versions
from api.settings import Settings
from indexer.formats.importer import explain, preview
from indexer.ingest.progress import silent_progress
from indexer.stores.facts import FactStore
from indexer.stores.layout import DataDir
from models import ReadOnlyReplica, RecallError, ResumeHint, SearchRequest, SearchResponse
from search.current import CurrentState
from search.digest import Digest, build_digest, period_range
from search.ranker import learned_ranker
from search.searcher import Searcher

if TYPE_CHECKING:  # the write path and the model are loaded when first needed
    from indexer.distributed.ray_compute import RayComputer
    from indexer.embedding.embedders import Embedder
    from indexer.formats import ImportOptions
    from indexer.ingest.compute import BatchComputer
    from indexer.ingest.ingestor import Ingestor
    from indexer.ingest.progress import ProgressFactory
    from indexer.remote.publish import PublishReport

__all__ = ["RecallService"]

log = logging.getLogger(__name__)


class RecallService:
    def __init__(self, settings: Settings, *, tenant: str | None = None,
                 embedder: Embedder | None = None,
                 progress: ProgressFactory = silent_progress) -> None:
        """tenant: whose data this service reads and writes (default: RECALL_TENANT); each
        tenant's is a data directory of its own (DataDir.for_tenant), so no store of this
        service can reach another tenant's sessions."""
        self.settings = settings
        self.tenant = tenant or settings.tenant
        self.data = DataDir(settings.home).for_tenant(self.tenant)
        # s3://... when this service follows another's published data (`recall serve --from`):
        # it answers reads and refuses writes
        self.replica_of: str | None = None
        self.progress = progress
        self._embedder = embedder
        self._lock = threading.Lock()
        self.archive = Archive(self.data)
        self.relevance = MemoryRelevance(self.data, settings, self.ingestor)
        # answers every search in its final order, statements marked current or superseded
        self.searcher = Searcher(self.data, lambda: self.embedder,
                                 ranker=learned_ranker(settings.ranker),
                                 current=CurrentState(lambda: FactStore(self.data),
                                                      self.archive.session),
                                 max_query_chars=settings.max_query_chars,
                                 memory_relevance=self.relevance.current)
        self.memories = SessionMemories(self.archive, settings, lambda: self.embedder)
        self.snapshots = Snapshots(self.archive, self.memories, self.relevance,
                                   lambda: self.embedder, self._mark_recovered)
        self.live = Live(settings, self.archive, self.ingestor, self.snapshots.create)
        self.todos = Todos(self.data, self.memories)
        self.facts = Facts(self.data)
        self.versions = Versions(self.data, self.ingestor, settings.keep_replaced_days)
        self.maintenance = Maintenance(self.data, settings, self.ingestor,
                                       lambda: self.embedder.name)

    @property
    def embedder(self) -> Embedder:
        with self._lock:  # concurrent first requests must not load the model twice
            if self._embedder is None:
                from indexer.embedding.embedders import load_embedder

                self._embedder = load_embedder(self.settings.embedder, self.settings.model_cache,
                                               self.settings.embed_threads)
        return self._embedder

    def ingestor(self, import_options: ImportOptions | None = None) -> Ingestor:
        from indexer.ingest.ingestor import Ingestor

        self.refuse_writes_if_replica()
        return Ingestor(
            self.data, self.embedder,
            max_file_bytes=self.max_file_bytes,
            batch_sessions=self.settings.batch_sessions,
            lock_wait=self.settings.lock_wait,
            progress=self.progress,
            import_options=import_options,
            keep_replaced_days=self.settings.keep_replaced_days,
        )

    def ray_computer(self, address: str | None, workers: int | None) -> RayComputer:
        """Computes ingest batches on a Ray cluster (a local one when address is None), with
        this service's embedder; use it in a `with` block."""
        from indexer.distributed.ray_compute import RayComputer, RaySpec

        spec = RaySpec(address, workers, self.settings.embed_threads or 1,
                       self.settings.embedder, self.settings.model_cache)
        return RayComputer(spec, self.progress)

    def refuse_writes_if_replica(self) -> None:
        if self.replica_of:
            raise ReadOnlyReplica(
                f"this server is a read-only replica of {self.replica_of}: send writes to the "
                "writer that publishes there (docs/scale-out.md)")

    def publish(self, purge: bool = False) -> PublishReport:
        """Publish this data directory to RECALL_STORE now (after a purge: removing every
        object that held deleted text)."""
        from api.service.remote import publisher

        return publisher(self.data, self.settings, self.tenant).publish(purge=purge)

    @property
    def max_file_bytes(self) -> int:
        return int(self.settings.max_file_mb * 1_000_000)

    # snapshots and live sessions need each other (pausing saves a snapshot, recovering marks
    # the session): they are wired here, the one place that builds both
    def _mark_recovered(self, session_id: str) -> None:
        if not self.replica_of:  # a replica recovers without noting it: the writer owns state
            self.live.mark_recovered(session_id)

    # writes
    def index(self, paths: Sequence[Path], import_options: ImportOptions | None = None,
              computer: BatchComputer | None = None) -> IndexResult:
        report = self.ingestor(import_options).index_paths(paths, computer)
        return IndexResult.of(report, import_options.format if import_options else None)

    def preview_import(self, fmt: str, files: Sequence[Path],
                       options: ImportOptions) -> ImportPreview:
        """What importing these files as `fmt` would do; nothing is written."""
        return ImportPreview.of(preview(fmt, files, options, self.max_file_bytes))

    def explain_import(self, path: Path, options: ImportOptions) -> ImportExplained:
        """The fate of each record of one file, read as an import would; nothing is written."""
        return ImportExplained.of(explain(options.format, path, options, self.max_file_bytes))

    def ingest_record(self, raw: dict[str, Any], replace: bool = False) -> IngestResult:
        """Archive one record; one that would replace the stored messages of its session needs
        `replace` (the interfaces give it only to admin tokens), else WouldReplace."""
        outcome = self.ingestor().ingest_record(raw, replace)
        return IngestResult(outcome.session_id, True, outcome.changed, outcome.replaced)

    def delete(self, session_id: str) -> None:
        self.ingestor().delete(safe_id(session_id))

    # reads
    def warm(self) -> None:
        """Load what a first search needs (the model, the relevance floor's reference lines,
        the stores) so that no request pays for it; serve and mcp call this at start-up. A
        failure is logged, not raised: the server still starts and says so on each search."""
        if not self.data.current_generation():
            return  # nothing indexed yet: nothing to search
        try:
            self.search(SearchRequest(query="warm up"))
        except RecallError as exc:  # e.g. an index built with another model
            log.warning("warm-up search failed: %s", exc.detail)

    def search(self, request: SearchRequest) -> SearchResponse:
        response = sessions.label_hits(self.data, self.searcher.search(request))
        self.relevance.boost_hits(response)  # the memories it returns were used
        return response

    def session(self, session_id: str, token_budget: int | None = None) -> ArchivedSession:
        return sessions.read_session(self.archive, session_id, token_budget)

    def pack(self, query: str, budget: int = 1500) -> ContextPack:
        """The best evidence for a question within `budget` tokens, cited (api/service/pack.py)."""
        response = self.search(pack_request(query, budget))
        return build_pack(response, self.archive, budget)

    def resume(self, session_id: str) -> ResumeHint:
        """The command that reopens an imported session in the agent that wrote it."""
        from indexer.formats.resume import resume_hint

        return resume_hint(self.archive.session(session_id))

    def list_sessions(self, *, since: str | None = None, until: str | None = None,
                      channel: str | None = None, participant: str | None = None,
                      status: str | None = None, category: str | None = None,
                      limit: int = 50, offset: int = 0) -> SessionList:
        return sessions.list_sessions(self.data, since=since, until=until, channel=channel,
                                      participant=participant, status=status,
                                      category=category, limit=limit, offset=offset)

    def facets(self) -> Facets:
        return sessions.facets(self.data)

    def stats(self) -> Stats:
        return sessions.stats(self.data, self.searcher)

    def health(self) -> Health:
        return sessions.health(self.data, self.searcher)

    def digest(self, period: str = "week", day: str | None = None) -> Digest:
        """Active topics, open tasks, the period's todos (open and done) and one line per day
        for the period around `day` (default today)."""
        start, end = period_range(period, datetime.now().date().isoformat() if day is None else day)
        listed = self.list_sessions(since=start, until=end, limit=sessions.MAX_PAGE).sessions
        tasks = [m for s in listed for m in self.memories.of(s.session_id, ["project"])]
        digest = build_digest(period, start, end, listed, tasks, self.todos.in_period(start, end))
        return self.facts.mark_digest(digest)
