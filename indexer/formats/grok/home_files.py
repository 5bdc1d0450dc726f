"""The JSON files Grok Build keeps at the top of `~/.grok` (`GROK_HOME`), none of them a
conversation, told by content so that `recall index ~/.grok` calls them empty rather than
rejected. Shapes from xai-org/grok-build @ 19d42e35c07a9c9244f03f6df0c4c353f970d4f9, under
crates/codegen/:

- `auth.json`: AuthStore, a map of scope to GrokAuth `{key, auth_mode, create_time, user_id,
  ...}` (xai-grok-shell/src/auth/model.rs, written by auth/storage.rs);
- `version.json`: GrokVersion `{version, stable_version, checked_at}`
  (xai-grok-update/src/version.rs);
- `models_cache.json`: ModelsCache `{fetched_at, models, ...}`
  (xai-grok-shell/src/agent/models/cache.rs);
- `tip_cursor.json`: TipState `{cursor}` (xai-grok-shell-base/src/util/tips.rs);
- `active_sessions.json`: a list of ActiveSession `{session_id, pid, cwd, opened_at}`
  (xai-grok-active-sessions/src/lib.rs).
"""

from __future__ import annotations

from typing import Any

from indexer.formats.contract import Metadata

__all__ = ["METADATA"]


def _typed(value: Any, **types: type) -> bool:
    """A dict holding each of these keys with a value of its type (a bool is no int here)."""
    return isinstance(value, dict) and all(
        isinstance(value.get(key), kind) and not (kind is int and isinstance(value[key], bool))
        for key, kind in types.items())


def _auth(value: Any) -> bool:
    return (isinstance(value, dict) and bool(value) and all(
        _typed(entry, key=str, create_time=str, user_id=str) and "auth_mode" in entry
        for entry in value.values()))


def _version(value: Any) -> bool:
    return (_typed(value, version=str, checked_at=str)
            and set(value) <= {"version", "stable_version", "checked_at"})


def _models_cache(value: Any) -> bool:
    return (_typed(value, fetched_at=str, models=dict) and set(value) <= {
        "fetched_at", "grok_version", "auth_method", "origin", "etag", "models"})


def _tip_cursor(value: Any) -> bool:
    return _typed(value, cursor=int) and set(value) == {"cursor"}


def _active_sessions(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(
        _typed(entry, session_id=str, pid=int, cwd=str, opened_at=str) for entry in value)


METADATA = (
    Metadata("grok-auth", "Grok Build sign-in (auth.json)", _auth),
    Metadata("grok-version", "Grok Build version check (version.json)", _version),
    Metadata("grok-models", "Grok Build models cache (models_cache.json)", _models_cache),
    Metadata("grok-tips", "Grok Build tip rotation (tip_cursor.json)", _tip_cursor),
    Metadata("grok-active-sessions", "Grok Build running sessions (active_sessions.json)",
             _active_sessions),
)
