"""OpenClaw's session index, `sessions.json` beside the transcripts: metadata with nothing to
import, read for a session's channel and name (its shape read liberally: a map of session key
to entry, or a list of entries)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["STORE_NAME", "channel", "display_name", "looks_like_store", "store_entry"]

STORE_NAME = "sessions.json"


def looks_like_store(value: Any) -> bool:
    """sessions.json: session key -> {sessionId, updatedAt, ...}; metadata, not a transcript."""
    if not isinstance(value, dict) or not value or "messages" in value:
        return False
    entries = list(value.values())
    return all(isinstance(e, dict) for e in entries) and any("sessionId" in e for e in entries)


def store_entry(folder: Path, session_id: str, file_name: str) -> dict[str, Any]:
    store = folder / STORE_NAME
    try:
        stat = store.stat()
    except OSError:
        return {}
    entries = _read_store(str(store), stat.st_mtime_ns, stat.st_size)
    return entries.get(session_id) or entries.get(file_name) or {}


@lru_cache(maxsize=8)
def _read_store(path: str, mtime_ns: int, size: int) -> dict[str, dict[str, Any]]:
    """Entries by session id and by transcript file name (mtime and size key the cache)."""
    try:
        value = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    if isinstance(value, dict) and isinstance(value.get("sessions"), list | dict):
        value = value["sessions"]
    if isinstance(value, dict):
        entries = [dict(v, sessionKey=k) for k, v in value.items() if isinstance(v, dict)]
    elif isinstance(value, list):
        entries = [v for v in value if isinstance(v, dict)]
    else:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for entry in entries:
        sid = entry.get("sessionId") or entry.get("session_id") or entry.get("id")
        if isinstance(sid, str):
            out[sid] = entry
        sfile = entry.get("sessionFile")
        if isinstance(sfile, str):
            out.setdefault(Path(sfile.replace("\\", "/")).name, entry)
    return out


def channel(meta: dict[str, Any]) -> str | None:
    nested = [meta.get(k) for k in ("deliveryContext", "origin")]
    candidates = [meta.get("channel"), meta.get("lastChannel"), meta.get("provider")]
    candidates += [n.get(k) for n in nested if isinstance(n, dict) for k in ("channel", "provider")]
    return next((c.strip().lower() for c in candidates if isinstance(c, str) and c.strip()), None)


def display_name(meta: dict[str, Any]) -> str | None:
    """The session's name in sessions.json, as OpenClaw titles a session (deriveSessionTitle in
    src/gateway/session-utils: `label`, `displayName`, `subject`, else the first prompt). Not
    `origin.label`: that is the label of the last sender ("heartbeat"), not the session's."""
    candidates = [meta.get(k) for k in ("label", "displayName", "subject")]
    return next((c.strip() for c in candidates if isinstance(c, str) and c.strip()), None)
