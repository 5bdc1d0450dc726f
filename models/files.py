"""The file formats of the archive: sessions and snapshots as stored on disk.

Records are snake_case everywhere recall speaks (Python, the CLI's `--json`, HTTP, MCP). The
files keep the archive format they were born with, camelCase keys (`sessionId`, `createdAt`,
the seed's format), so that a data directory, and every tool that reads one, is unchanged. The
camelCase twin of each record is made here from the record's own fields (never declared twice),
and used only to encode and decode files.
"""

from __future__ import annotations

import functools
import operator
import types
import typing
from typing import Any, TypeVar

import msgspec

from models.session import Origin, Retention, Session
from models.snapshot import Fact, Intent, Snapshot, Task

_T = TypeVar("_T")

__all__ = ["decode_session", "encode_session", "encode_snapshot", "file_twin", "from_either"]


def file_twin(record: type[msgspec.Struct], nested: dict[type, type]) -> type[msgspec.Struct]:
    """A Struct with the fields of `record` (types, defaults, frozen, omit_defaults), encoded
    with camelCase keys; records named in `nested` replaced by their twins inside it."""
    config = record.__struct_config__
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for field in msgspec.structs.fields(record):
        kind = _replace(field.type, nested)
        if field.default is not msgspec.NODEFAULT:
            fields.append((field.name, kind, field.default))
        elif field.default_factory is not msgspec.NODEFAULT:
            fields.append((field.name, kind, msgspec.field(default_factory=field.default_factory)))
        else:
            fields.append((field.name, kind))
    return msgspec.defstruct(f"{record.__name__}File", fields, kw_only=True, rename="camel",
                             frozen=config.frozen, omit_defaults=config.omit_defaults,
                             module=__name__)


def _replace(kind: Any, nested: dict[type, type]) -> Any:
    if kind in nested:
        return nested[kind]
    args = typing.get_args(kind)
    if not args:
        return kind
    origin = typing.get_origin(kind)
    replaced = tuple(_replace(arg, nested) for arg in args)
    if origin in (types.UnionType, typing.Union):
        return functools.reduce(operator.or_, replaced)
    if origin is typing.Literal:
        return kind
    return origin[replaced]


_RETENTION = file_twin(Retention, {})
_ORIGIN = file_twin(Origin, {})
_SESSION = file_twin(Session, {Retention: _RETENTION, Origin: _ORIGIN})
_SNAPSHOT_ITEMS: dict[type, type] = {Intent: file_twin(Intent, {}), Fact: file_twin(Fact, {}),
                                     Task: file_twin(Task, {})}
_SNAPSHOT = file_twin(Snapshot, _SNAPSHOT_ITEMS)


def encode_session(session: Session) -> bytes:
    """A session's archive file: camelCase JSON, indented as the archive always was."""
    return msgspec.json.format(
        msgspec.json.encode(msgspec.convert(session, _SESSION, from_attributes=True)), indent=1)


def decode_session(data: bytes) -> Session:
    """The session of an archive file (raises msgspec.DecodeError/ValidationError if it is not
    one)."""
    return msgspec.convert(msgspec.json.decode(data, type=_SESSION), Session, from_attributes=True)


def encode_snapshot(snapshot: Snapshot) -> bytes:
    """A snapshot's file, in the seed's camelCase shape (read back with parse_snapshot)."""
    return msgspec.json.format(
        msgspec.json.encode(msgspec.convert(snapshot, _SNAPSHOT, from_attributes=True)),
        indent=1)


def from_either(value: Any, record: type[_T]) -> _T:
    """`value` (decoded JSON) as `record`, whichever casing it came in: an input may be part of
    an archive file (camelCase) or an answer recall gave (snake_case)."""
    try:
        return msgspec.convert(value, record)
    except msgspec.ValidationError:
        twin = _TWINS.get(record)
        if twin is None:
            raise
        return msgspec.convert(msgspec.convert(value, twin), record, from_attributes=True)


_TWINS: dict[type, type] = {Retention: _RETENTION, Origin: _ORIGIN, Session: _SESSION,
                            Snapshot: _SNAPSHOT, **_SNAPSHOT_ITEMS}
