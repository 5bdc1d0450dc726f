"""VS Code's chat-session operation log (`chatSessions/<sessionId>.jsonl`, VS Code 1.109 and
later), replayed into the session object the older `<sessionId>.json` files hold whole.

The log is what microsoft/vscode writes in src/vs/workbench/contrib/chat/common/model/
objectMutationLog.ts (`ObjectMutationLog`, with the schema of chatSessionOperationLog.ts); each
line is one entry `{kind, k?, v?, i?}`:

- kind 0 (Initial): `v` is the whole state. The first line; a compaction rewrites the file with
  one again, and a later one replaces the state, as VS Code's reader does;
- kind 1 (Set): the value at key path `k` becomes `v` (a path of object keys and array indexes);
- kind 2 (Push): the array at `k` is cut to length `i` when `i` is given, then `v`'s items are
  appended (a splice from `i`, or a plain push);
- kind 3 (Delete): the property at `k` is removed.

Replay follows VS Code's `read()` exactly, with two tolerances where VS Code would give up on
the whole session: an entry of an unknown kind, or one whose path does not lead anywhere in the
state, is counted and skipped. An entry before any Initial is damage (VS Code: "Log file is
missing an initial entry").
"""

from __future__ import annotations

from collections import Counter
from typing import Any, TypeGuard

from models import InvalidSession

__all__ = ["DELETE", "INITIAL", "PUSH", "SET", "looks_like_entry", "replay"]

INITIAL, SET, PUSH, DELETE = 0, 1, 2, 3
_KEYS = {"kind", "k", "v", "i"}


def looks_like_entry(item: Any) -> bool:
    """One line of the log: an Initial entry holding a chat session, or a change at a key path."""
    if not isinstance(item, dict) or not set(item) <= _KEYS or "kind" not in item:
        return False
    kind = item["kind"]
    if kind == INITIAL:
        state = item.get("v")
        return (isinstance(state, dict) and isinstance(state.get("sessionId"), str)
                and isinstance(state.get("requests"), list))
    return kind in (SET, PUSH, DELETE) and _is_path(item.get("k")) and bool(item["k"])


def replay(entries: list[tuple[int, Any]], skipped: Counter[str]) -> dict[str, Any]:
    """The state the log's entries (line number, decoded line) build, in order."""
    state: dict[str, Any] | None = None
    for number, entry in entries:
        if not isinstance(entry, dict) or type(entry.get("kind")) is not int:
            skipped["log line without an entry kind"] += 1
            continue
        kind = entry["kind"]
        if kind == INITIAL:
            if not isinstance(entry.get("v"), dict):
                raise InvalidSession(f"line {number}: the initial entry holds no session object")
            state = entry["v"]
            continue
        if kind not in (SET, PUSH, DELETE):
            skipped[f"log entry of kind {kind}"] += 1
            continue
        if state is None:
            raise InvalidSession(f"line {number}: a change before the log's initial entry")
        path = entry.get("k")
        if not _is_path(path) or not _apply(state, kind, path, entry):
            skipped["log entry at a missing path"] += 1
    if state is None:
        raise InvalidSession("the log has no initial entry")
    return state


def _apply(state: dict[str, Any], kind: int, path: list[str | int],
           entry: dict[str, Any]) -> bool:
    """Applies one change in place; False when its path leads nowhere."""
    if not path:
        return kind != PUSH  # VS Code leaves a root Set or Delete to its caller, which ignores it
    parent = _walk(state, path[:-1])
    if parent is None:
        return False
    key = path[-1]
    if kind == SET:
        return _put(parent, key, entry.get("v"))
    if kind == DELETE:
        return _delete(parent, key)
    return _push(parent, key, entry.get("v"), entry.get("i"))


def _walk(node: Any, path: list[str | int]) -> dict[str, Any] | list[Any] | None:
    for key in path:
        node = _get(node, key)
    return node if isinstance(node, dict | list) else None


def _get(node: Any, key: Any) -> Any:
    if isinstance(node, dict):
        return node.get(str(key))  # JavaScript property keys are strings, also numeric ones
    if isinstance(node, list) and type(key) is int and 0 <= key < len(node):
        return node[key]
    return None


def _put(parent: dict[str, Any] | list[Any], key: Any, value: Any) -> bool:
    if isinstance(parent, dict):
        parent[str(key)] = value
        return True
    if type(key) is not int or key < 0:
        return False
    if key >= len(parent):  # assigning past the end of a JavaScript array leaves holes
        parent.extend([None] * (key + 1 - len(parent)))
    parent[key] = value
    return True


def _delete(parent: dict[str, Any] | list[Any], key: Any) -> bool:
    if isinstance(parent, dict):
        parent.pop(str(key), None)
        return True
    if type(key) is int and 0 <= key < len(parent):
        parent[key] = None  # `arr[i] = undefined` keeps the length
        return True
    return False


def _push(parent: dict[str, Any] | list[Any], key: Any, values: Any, start: Any) -> bool:
    current = _get(parent, key)
    items = current if isinstance(current, list) else []
    if type(start) is int and start >= 0:
        del items[start:]
        items.extend([None] * (start - len(items)))  # `arr.length = i` past the end pads
    if isinstance(values, list):
        items.extend(values)
    return _put(parent, key, items)


def _is_path(value: Any) -> TypeGuard[list[str | int]]:
    return isinstance(value, list) and all(
        isinstance(k, str) or (type(k) is int and k >= 0) for k in value)
