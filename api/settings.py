"""Settings: one declaration per setting (variable, default, help, rule), built from the environment."""

from __future__ import annotations

import dataclasses
import os
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import NoneType
from typing import Any, NamedTuple, TypeVar

import platformdirs

from models import InvalidInput
from models.principal import TENANT_PATTERN

__all__ = ["SETTINGS", "SettingInfo", "Settings"]

T = TypeVar("T")


class Rule(NamedTuple):
    holds: Callable[[Any], bool]
    text: str  # completes "RECALL_X ..."


POSITIVE = Rule(lambda v: v > 0, "must be positive")
NOT_NEGATIVE = Rule(lambda v: v >= 0, "must not be negative")
BELOW_ONE = Rule(lambda v: 0 <= v < 1, "must be at least 0 and below 1")
ZERO_TO_ONE = Rule(lambda v: 0 <= v <= 1, "must be between 0 and 1")
SUMMARY_MODE = Rule(lambda v: v in ("extractive", "llm"), "must be 'extractive' or 'llm'")
S3_URI = Rule(lambda v: bool(re.fullmatch(r"s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/.*)?", v)),
              "must be an s3://bucket/prefix address")
TENANT_NAME = Rule(lambda v: bool(TENANT_PATTERN.fullmatch(v)),
                   "must be 1-63 lowercase letters, digits, '-' or '_'")
RANKER_MODE = Rule(lambda v: v in ("learned", "strict", "fused"),
                   "must be 'learned', 'strict' or 'fused'")

# Conversion by annotated type, and the rule a value that does not convert breaks.
_CONVERT: dict[type, tuple[Callable[[str], object], str]] = {
    str: (str, ""),
    int: (int, "must be a whole number"),
    float: (float, "must be a number"),
    Path: (lambda text: Path(text).expanduser(), ""),
}


def _about(env: str, help: str, check: Rule | None = None,
           secret: bool = False) -> dict[str, object]:
    return {"env": env, "help": help, "check": check, "secret": secret}


def setting(env: str, default: T, help: str, check: Rule | None = None, *,
            secret: bool = False) -> T:
    """A dataclass field that also carries its environment variable, help text and rule; a
    secret is never printed."""
    return field(default=default, metadata=_about(env, help, check, secret))


@dataclass(frozen=True)
class SettingInfo:
    """One setting as `recall settings` lists it, and how a raw value becomes a checked one."""

    name: str
    env: str
    default: object  # None for home and model_cache: they are worked out in from_env
    help: str
    check: Rule | None
    kind: type
    optional: bool  # `X | None`: an empty value means None
    secret: bool  # `recall settings` says only whether it is set

    def parse(self, raw: object) -> Any:
        text = str(raw)  # overrides may be Paths or numbers; all go through the same path
        if self.optional and not text:
            return None
        convert, type_rule = _CONVERT[self.kind]
        try:
            value = convert(text)
        except ValueError:
            raise self._broken(type_rule, text) from None
        if self.check and not self.check.holds(value):
            raise self._broken(self.check.text, text)
        return value

    def _broken(self, rule: str, text: str) -> InvalidInput:
        return InvalidInput(f"{self.env} {rule} (got {text!r}); see `recall settings`")


@dataclass(frozen=True)
class Settings:
    # home and model_cache default to paths from_env works out, so they are plain fields;
    # `Settings(...)` must be given a home.
    home: Path = field(metadata=_about(
        "RECALL_HOME", "data directory (archive, indexes, state); default: per-user data dir"))
    embedder: str = setting("RECALL_EMBEDDER", "e5", (
        "embedding model: 'e5' (multilingual-e5-small), 'minilm' (all-MiniLM-L6-v2, English "
        "only), 'hash' (tests), or any sentence-transformers name or local path; changing it "
        "requires `recall reindex`"))
    model_cache: Path | None = field(default=None, metadata=_about(
        "RECALL_MODEL_CACHE", "where converted models are kept; default: <home>/models"))
    embed_threads: int = setting("RECALL_EMBED_THREADS", 0, (
        "threads that embed passages in bulk (an ingest, a reindex; each Ray worker's own); "
        "0: one per core"), NOT_NEGATIVE)
    max_file_mb: float = setting(
        "RECALL_MAX_FILE_MB", 50.0, "input files larger than this are rejected", POSITIVE)
    batch_sessions: int = setting(
        "RECALL_BATCH_SESSIONS", 32, "sessions written per index commit", POSITIVE)
    lock_wait: float = setting(
        "RECALL_LOCK_WAIT", 30.0, "seconds a writer waits for another writer to finish",
        NOT_NEGATIVE)
    api_token: str | None = setting("RECALL_API_TOKEN", None, (
        "when set, every HTTP route (/v1, /mcp, /healthz, /metrics, /schema) needs "
        "'Authorization: Bearer <token>'"), secret=True)
    allowed_hosts: str | None = setting("RECALL_ALLOWED_HOSTS", None, (
        "`recall serve`: more names the Host header may give, comma-separated ('.example.com' "
        "for a domain and its subdomains, '*' for any); loopback names, the bound address and, "
        "bound to 0.0.0.0, this machine's names and addresses are always allowed (421 for "
        "others: DNS-rebinding protection)"))
    max_body_mb: float = setting(
        "RECALL_MAX_BODY_MB", 20.0, "largest HTTP request body accepted (413 above)", POSITIVE)
    max_query_chars: int = setting("RECALL_MAX_QUERY_CHARS", 2000, (
        "longest search query, in characters (CLI, HTTP and MCP; HTTP answers 400 above)"),
        POSITIVE)
    ranker: str = setting("RECALL_RANKER", "learned", (
        "how hybrid search orders sessions: 'learned' (the model in search/learned/, for the "
        "embedder it was trained with), 'strict' (the same, and every search as with --strict: "
        "results without real evidence are left out, nothing when the archive likely holds no "
        "answer) or 'fused' (hand-set rank fusion)"), RANKER_MODE)
    http_header_timeout: float = setting("RECALL_HTTP_HEADER_TIMEOUT", 10.0, (
        "`recall serve`: seconds a client has to send a request's line and headers, from "
        "connecting (or from the first byte of its next request); then the connection is closed"),
        POSITIVE)
    http_body_timeout: float = setting("RECALL_HTTP_BODY_TIMEOUT", 60.0, (
        "`recall serve`: seconds a client has to send a request's body once its headers are in; "
        "then the connection is closed"), POSITIVE)
    http_keep_alive: int = setting("RECALL_HTTP_KEEP_ALIVE", 5, (
        "`recall serve`: seconds an idle kept-alive connection stays open after a response"),
        POSITIVE)
    http_max_connections: int = setting("RECALL_HTTP_MAX_CONNECTIONS", 100, (
        "`recall serve`: open connections (idle ones included) above which new requests get 503"),
        POSITIVE)
    http_max_header_kb: int = setting("RECALL_HTTP_MAX_HEADER_KB", 64, (
        "`recall serve`: KiB of a request line and headers the server buffers while they arrive "
        "(400 above)"), POSITIVE)
    llm_url: str | None = setting("RECALL_LLM_URL", None, (
        "optional OpenAI-compatible endpoint (e.g. http://localhost:11434/v1) that may refine "
        "extracted memories on request; off when unset"))
    llm_model: str = setting("RECALL_LLM_MODEL", "gpt-4o-mini", "model name sent to RECALL_LLM_URL")
    llm_api_key: str | None = setting(
        "RECALL_LLM_API_KEY", None, "bearer key for RECALL_LLM_URL, if it needs one", secret=True)
    llm_timeout: float = setting(
        "RECALL_LLM_TIMEOUT", 60.0, "seconds to wait for RECALL_LLM_URL before falling back",
        POSITIVE)
    live_summary: str = setting("RECALL_LIVE_SUMMARY", "extractive", (
        "how archiving a live session without a summary makes one: 'extractive' (first user "
        "line and key memories) or 'llm' (RECALL_LLM_URL; extractive if it fails)"), SUMMARY_MODE)
    retention_full_days: int | None = setting("RECALL_RETENTION_FULL_DAYS", None, (
        "`recall retention`: sessions inactive longer than this many days lose their messages "
        "(summary and memories stay); unset: keep everything"), NOT_NEGATIVE)
    retention_summary_days: int | None = setting("RECALL_RETENTION_SUMMARY_DAYS", None, (
        "`recall retention`: sessions inactive longer than this are compressed (short summary, "
        "memories, metadata); unset: never"), NOT_NEGATIVE)
    keep_replaced_days: float = setting("RECALL_KEEP_REPLACED_DAYS", 30.0, (
        "days the version of a session that a write replaced (fewer messages, or changed ones) "
        "is kept for `recall restore`"), NOT_NEGATIVE)
    relevance_decay_rate: float = setting("RECALL_RELEVANCE_DECAY_RATE", 0.05, (
        "memory relevance: share of its height above the floor a memory loses per day unused "
        "(0 <= rate < 1; docs/memory-relevance.md)"), BELOW_ONE)
    relevance_floor: float = setting("RECALL_RELEVANCE_FLOOR", 0.1, (
        "memory relevance never decays below this (0 <= floor < 1)"), BELOW_ONE)
    relevance_boost: float = setting("RECALL_RELEVANCE_BOOST", 0.5, (
        "memory relevance: share of the way up to 1 a memory gains each time a search returns "
        "it or a recovery uses it (0..1)"), ZERO_TO_ONE)
    relevance_max_memories: int | None = setting("RECALL_RELEVANCE_MAX_MEMORIES", None, (
        "`recall relevance prune`: keep at most this many memories, removing the least "
        "relevant (listed, never silently); unset: no limit"), NOT_NEGATIVE)
    rate_limit: float = setting("RECALL_RATE_LIMIT", 0.0, (
        "requests a second each token may send (HTTP and MCP; 429 with Retry-After past it); "
        "0: no limit"), NOT_NEGATIVE)
    rate_burst: int = setting("RECALL_RATE_BURST", 20, (
        "requests a token may send at once before RECALL_RATE_LIMIT holds it back"), POSITIVE)
    refusals_per_minute: int = setting("RECALL_REFUSALS_PER_MINUTE", 60, (
        "refused requests (401, 403, 421) a client address may have a minute, at most this many "
        "at once; past it, 429 with Retry-After (token guessing, floods of the audit log)"),
        POSITIVE)
    tenant: str = setting("RECALL_TENANT", "default", (
        "the tenant the command line acts for: 'default' is the data directory itself, any "
        "other its own directory under <home>/tenants/ (`recall serve` acts for each "
        "request's token instead)"), TENANT_NAME)
    store: str | None = setting("RECALL_STORE", None, (
        "s3://bucket/prefix: after each write, publish the archive, indexes and databases there "
        "for `recall serve --from` processes elsewhere (docs/scale-out.md); unset: local only"),
        S3_URI)
    s3_endpoint: str | None = setting("RECALL_S3_ENDPOINT", None, (
        "S3 endpoint URL (e.g. http://127.0.0.1:7480 for Ceph radosgw); unset: AWS"))
    s3_region: str = setting("RECALL_S3_REGION", "us-east-1", "S3 region")
    s3_access_key: str | None = setting("RECALL_S3_ACCESS_KEY", None, (
        "S3 access key; unset: boto3's own chain (AWS_* variables, ~/.aws, an instance role)"),
        secret=True)
    s3_secret_key: str | None = setting("RECALL_S3_SECRET_KEY", None, "S3 secret key",
                                        secret=True)
    s3_verify_tls: str = setting("RECALL_S3_VERIFY_TLS", "true", (
        "check the S3 endpoint's TLS certificate: 'true', 'false', or a CA bundle file"))
    lease_seconds: float = setting("RECALL_LEASE_SECONDS", 60.0, (
        "the writer's lease on RECALL_STORE lasts this long unless renewed (each publish, and "
        "`recall serve` every third of it)"), POSITIVE)
    follow_interval: float = setting("RECALL_FOLLOW_INTERVAL", 1.0, (
        "`recall serve --from`: seconds between looks at the published pointer; also how "
        "often `recall serve` with RECALL_STORE publishes what changed"), POSITIVE)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        env = os.environ if env is None else env
        raw: dict[str, object] = {s.name: env[s.env] for s in SETTINGS if env.get(s.env)}
        raw.update({name: value for name, value in overrides.items() if value is not None})
        raw.setdefault("home", platformdirs.user_data_dir("recall", appauthor=False))
        settings = cls(**{s.name: s.parse(raw[s.name]) for s in SETTINGS if s.name in raw})
        # Rules that tie two settings together, once each is valid on its own.
        full, summary = settings.retention_full_days, settings.retention_summary_days
        if full is not None and summary is not None and summary < full:
            raise InvalidInput(f"RECALL_RETENTION_SUMMARY_DAYS ({summary}) must be at least "
                               f"RECALL_RETENTION_FULL_DAYS ({full}); see `recall settings`")
        if settings.live_summary == "llm" and not settings.llm_url:
            raise InvalidInput("RECALL_LIVE_SUMMARY=llm needs an endpoint: set RECALL_LLM_URL; "
                               "see `recall settings`")
        if settings.model_cache is None:
            settings = dataclasses.replace(settings, model_cache=settings.home / "models")
        return settings


def _info(f: dataclasses.Field[Any], annotation: Any) -> SettingInfo:
    kinds = typing.get_args(annotation) or (annotation,)
    return SettingInfo(
        name=f.name, env=f.metadata["env"], help=f.metadata["help"], check=f.metadata["check"],
        default=None if f.default is dataclasses.MISSING else f.default,
        kind=next(k for k in kinds if k is not NoneType), optional=NoneType in kinds,
        secret=f.metadata["secret"])


_annotations = typing.get_type_hints(Settings)
SETTINGS: tuple[SettingInfo, ...] = tuple(_info(f, _annotations[f.name]) for f in fields(Settings))
