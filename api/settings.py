"""Settings: one object, built explicitly from the environment and passed in.

Every setting has its environment variable, default and help text here (`recall settings`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path

import platformdirs

from models import InvalidInput

__all__ = ["SETTINGS_HELP", "Settings"]


def _default_home() -> str:
    return platformdirs.user_data_dir("recall", appauthor=False)


SETTINGS_HELP: dict[str, tuple[str, str]] = {
    "home": ("RECALL_HOME", "data directory (archive, indexes, state); default: per-user data dir"),
    "embedder": ("RECALL_EMBEDDER", "embedding model: 'e5' (multilingual-e5-small), 'minilm' "
                 "(all-MiniLM-L6-v2, English only), 'hash' (tests), or any sentence-transformers "
                 "name or local path; changing it requires `recall reindex`"),
    "model_cache": ("RECALL_MODEL_CACHE", "where converted models are kept; default: <home>/models"),
    "max_file_mb": ("RECALL_MAX_FILE_MB", "input files larger than this are rejected"),
    "batch_sessions": ("RECALL_BATCH_SESSIONS", "sessions written per index commit"),
    "lock_wait": ("RECALL_LOCK_WAIT", "seconds a writer waits for another writer to finish"),
    "api_token": ("RECALL_API_TOKEN", (
        "when set, every HTTP route (/v1, /mcp, /healthz, /metrics, /schema) needs "
        "'Authorization: Bearer <token>'")),
    "max_body_mb": ("RECALL_MAX_BODY_MB", "largest HTTP request body accepted (413 above)"),
    "max_query_chars": ("RECALL_MAX_QUERY_CHARS", (
        "longest search query, in characters (CLI, HTTP and MCP; HTTP answers 400 above)")),
    "http_header_timeout": ("RECALL_HTTP_HEADER_TIMEOUT", (
        "`recall serve`: seconds a client has to send a request's line and headers, from "
        "connecting (or from the first byte of its next request); then the connection is closed")),
    "http_body_timeout": ("RECALL_HTTP_BODY_TIMEOUT", (
        "`recall serve`: seconds a client has to send a request's body once its headers are in; "
        "then the connection is closed")),
    "http_keep_alive": ("RECALL_HTTP_KEEP_ALIVE", (
        "`recall serve`: seconds an idle kept-alive connection stays open after a response")),
    "http_max_connections": ("RECALL_HTTP_MAX_CONNECTIONS", (
        "`recall serve`: open connections (idle ones included) above which new requests get 503")),
    "http_max_header_kb": ("RECALL_HTTP_MAX_HEADER_KB", (
        "`recall serve`: KiB of a request line and headers the server buffers while they arrive "
        "(400 above)")),
    "llm_url": ("RECALL_LLM_URL", "optional OpenAI-compatible endpoint (e.g. http://localhost:11434/v1) "
                "that may refine extracted memories on request; off when unset"),
    "llm_model": ("RECALL_LLM_MODEL", "model name sent to RECALL_LLM_URL"),
    "llm_api_key": ("RECALL_LLM_API_KEY", "bearer key for RECALL_LLM_URL, if it needs one"),
    "llm_timeout": ("RECALL_LLM_TIMEOUT", "seconds to wait for RECALL_LLM_URL before falling back"),
    "live_summary": ("RECALL_LIVE_SUMMARY", (
        "how archiving a live session without a summary makes one: 'extractive' (first user "
        "line and key memories) or 'llm' (RECALL_LLM_URL; extractive if it fails)")),
    "retention_full_days": ("RECALL_RETENTION_FULL_DAYS", (
        "`recall retention`: sessions inactive longer than this many days lose their messages "
        "(summary and memories stay); unset: keep everything")),
    "retention_summary_days": ("RECALL_RETENTION_SUMMARY_DAYS", (
        "`recall retention`: sessions inactive longer than this are compressed (short summary, "
        "memories, metadata); unset: never")),
    "relevance_decay_rate": ("RECALL_RELEVANCE_DECAY_RATE", (
        "memory relevance: share of its height above the floor a memory loses per day unused "
        "(0 <= rate < 1; docs/memory-relevance.md)")),
    "relevance_floor": ("RECALL_RELEVANCE_FLOOR", (
        "memory relevance never decays below this (0 <= floor < 1)")),
    "relevance_boost": ("RECALL_RELEVANCE_BOOST", (
        "memory relevance: share of the way up to 1 a memory gains each time a search returns "
        "it or a recovery uses it (0..1)")),
    "relevance_max_memories": ("RECALL_RELEVANCE_MAX_MEMORIES", (
        "`recall relevance prune`: keep at most this many memories, removing the least "
        "relevant (listed, never silently); unset: no limit")),
}


@dataclass(frozen=True)
class Settings:
    home: Path
    embedder: str = "e5"
    model_cache: Path | None = None
    max_file_mb: float = 50.0
    batch_sessions: int = 32
    lock_wait: float = 30.0
    api_token: str | None = None
    max_body_mb: float = 20.0
    max_query_chars: int = 2000
    http_header_timeout: float = 10.0
    http_body_timeout: float = 60.0
    http_keep_alive: int = 5
    http_max_connections: int = 100
    http_max_header_kb: int = 64
    llm_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: str | None = None
    llm_timeout: float = 60.0
    live_summary: str = "extractive"
    retention_full_days: int | None = None
    retention_summary_days: int | None = None
    relevance_decay_rate: float = 0.05
    relevance_floor: float = 0.1
    relevance_boost: float = 0.5
    relevance_max_memories: int | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        env = os.environ if env is None else env
        values: dict[str, object] = {"home": env.get("RECALL_HOME") or _default_home()}
        for f in fields(cls):
            var = SETTINGS_HELP[f.name][0]
            if f.name != "home" and env.get(var):
                values[f.name] = env[var]
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls._checked(values)

    @classmethod
    def _checked(cls, values: dict[str, object]) -> Settings:
        try:
            settings = cls(
                home=Path(str(values["home"])).expanduser(),
                embedder=str(values.get("embedder", cls.embedder)),
                model_cache=Path(str(values["model_cache"])).expanduser()
                if values.get("model_cache") else None,
                max_file_mb=float(values.get("max_file_mb", cls.max_file_mb)),  # type: ignore[arg-type]
                batch_sessions=int(values.get("batch_sessions", cls.batch_sessions)),  # type: ignore[arg-type]
                lock_wait=float(values.get("lock_wait", cls.lock_wait)),  # type: ignore[arg-type]
                api_token=str(values["api_token"]) if values.get("api_token") else None,
                max_body_mb=float(values.get("max_body_mb", cls.max_body_mb)),  # type: ignore[arg-type]
                max_query_chars=int(values.get("max_query_chars", cls.max_query_chars)),  # type: ignore[arg-type]
                http_header_timeout=float(values.get("http_header_timeout", cls.http_header_timeout)),  # type: ignore[arg-type]
                http_body_timeout=float(values.get("http_body_timeout", cls.http_body_timeout)),  # type: ignore[arg-type]
                http_keep_alive=int(values.get("http_keep_alive", cls.http_keep_alive)),  # type: ignore[arg-type]
                http_max_connections=int(values.get("http_max_connections", cls.http_max_connections)),  # type: ignore[arg-type]
                http_max_header_kb=int(values.get("http_max_header_kb", cls.http_max_header_kb)),  # type: ignore[arg-type]
                llm_url=str(values["llm_url"]) if values.get("llm_url") else None,
                llm_model=str(values.get("llm_model", cls.llm_model)),
                llm_api_key=str(values["llm_api_key"]) if values.get("llm_api_key") else None,
                llm_timeout=float(values.get("llm_timeout", cls.llm_timeout)),  # type: ignore[arg-type]
                live_summary=str(values.get("live_summary", cls.live_summary)),
                retention_full_days=_days(values.get("retention_full_days")),
                retention_summary_days=_days(values.get("retention_summary_days")),
                relevance_decay_rate=float(values.get("relevance_decay_rate", cls.relevance_decay_rate)),  # type: ignore[arg-type]
                relevance_floor=float(values.get("relevance_floor", cls.relevance_floor)),  # type: ignore[arg-type]
                relevance_boost=float(values.get("relevance_boost", cls.relevance_boost)),  # type: ignore[arg-type]
                relevance_max_memories=_days(values.get("relevance_max_memories")),
            )
        except ValueError as exc:
            raise InvalidInput(f"bad setting: {exc}; see `recall settings`") from None
        if settings.model_cache is None:
            settings = dataclasses.replace(settings, model_cache=settings.home / "models")
        if settings.max_file_mb <= 0 or settings.batch_sessions <= 0 or settings.lock_wait < 0 \
                or settings.max_body_mb <= 0 or settings.llm_timeout <= 0 \
                or settings.max_query_chars <= 0:
            raise InvalidInput("RECALL_MAX_FILE_MB, RECALL_MAX_BODY_MB, RECALL_MAX_QUERY_CHARS, "
                               "RECALL_BATCH_SESSIONS and RECALL_LLM_TIMEOUT must be positive")
        if min(settings.http_header_timeout, settings.http_body_timeout, settings.http_keep_alive,
               settings.http_max_connections, settings.http_max_header_kb) <= 0:
            raise InvalidInput("the RECALL_HTTP_* settings must be positive")
        if settings.live_summary not in ("extractive", "llm"):
            raise InvalidInput("RECALL_LIVE_SUMMARY must be 'extractive' or 'llm'")
        if settings.live_summary == "llm" and not settings.llm_url:
            raise InvalidInput("RECALL_LIVE_SUMMARY=llm needs an endpoint: set RECALL_LLM_URL")
        full, summary = settings.retention_full_days, settings.retention_summary_days
        if (full is not None and full < 0) or (summary is not None and summary < 0) or \
                (full is not None and summary is not None and summary < full):
            raise InvalidInput("RECALL_RETENTION_FULL_DAYS and RECALL_RETENTION_SUMMARY_DAYS must "
                               "not be negative, and the summary days must be at least the full days")
        if not (0 <= settings.relevance_decay_rate < 1 and 0 <= settings.relevance_floor < 1
                and 0 <= settings.relevance_boost <= 1) or \
                (settings.relevance_max_memories is not None and settings.relevance_max_memories < 0):
            raise InvalidInput("RECALL_RELEVANCE_DECAY_RATE and RECALL_RELEVANCE_FLOOR must be in "
                               "[0, 1), RECALL_RELEVANCE_BOOST in [0, 1], and "
                               "RECALL_RELEVANCE_MAX_MEMORIES must not be negative")
        return settings


def _days(value: object) -> int | None:
    return None if value is None or value == "" else int(value)  # type: ignore[call-overload]
