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

Replay follows VS Code's `read()` exactly, with tolerances where VS Code would give up on the
whole session: an entry of an unknown kind, one whose path does not lead anywhere in the state,
an Initial entry without a session object, or a change before any Initial, is left out with its
reason and the rest is replayed. A log with no Initial entry at all is damage (VS Code: "Log
file is missing an initial entry").

Each line is a record (`line N`). Its fate follows what it changed: the Initial entry is the
chat's state (imported); a change to a request shares that request's fate (the line that pushed
it is the request, imported or left out as the request is; later changes are merged into it); a
change to a request that a later splice removed (an undo, an edit) is left out; a change to the
title or another field kept is merged into the chat's state; a change to the input box's draft,
the queue of requests not sent yet, or another field not kept is left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeGuard

from indexer.formats.common import label
from indexer.formats.ledger import LEFT_OUT, MERGED, Ledger
from models import InvalidSession

__all__ = ["DELETE", "INITIAL", "PUSH", "SET", "Replayed", "looks_like_entry", "replay",
           "settle"]

INITIAL, SET, PUSH, DELETE = 0, 1, 2, 3
_KEYS = {"kind", "k", "v", "i"}
# the chat's own fields that the session record keeps (title, date, id, folder)
_KEPT = {"customTitle", "computedTitle", "creationDate", "sessionId", "workingDirectory",
         "version", "responderUsername", "initialLocation"}
_DRAFT, _QUEUE = "inputState", "pendingRequests"
_REMOVED = "request removed from the chat (undone or edited)"
# holes a change may open past an array's end: VS Code's arrays are sparse, these are not, and a
# damaged index (10**30) must not fill the memory
_MAX_GAP = 10_000


@dataclass
class Replayed:
    """The state a log builds, and which lines made each of its requests."""

    state: dict[str, Any]
    initial: str  # the line of the Initial entry in use
    # per request of the state, in order: the line that pushed it (None: the Initial entry's),
    # and the lines that changed it after
    made_by: list[str | None] = field(default_factory=list)
    changed_by: list[list[str]] = field(default_factory=list)


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


def replay(entries: list[tuple[int, Any]], ledger: Ledger) -> Replayed:
    """The state the log's entries (line number, decoded line) build, in order; the lines that
    belong to no request get their fate in `ledger` (settle() gives the others theirs)."""
    log: Replayed | None = None
    early = None  # the first change before any Initial entry
    for number, entry in entries:
        where = f"line {number}"
        if not isinstance(entry, dict) or type(entry.get("kind")) is not int:
            ledger.left_out(where, "log line without an entry kind")
            continue
        kind = entry["kind"]
        if kind == INITIAL:
            if not isinstance(entry.get("v"), dict):
                ledger.left_out(where, "initial entry without a session object")
                continue
            if log is not None:  # a compaction wrote the whole state again: it stands for all
                for line in _lines(log):
                    ledger.merged(line, f"the state written again on {where}")
            log = Replayed(entry["v"], where)
            count = len(_list(log.state.get("requests")))
            log.made_by, log.changed_by = [None] * count, [[] for _ in range(count)]
            ledger.imported(where, "the chat's state")
            continue
        if kind not in (SET, PUSH, DELETE):
            ledger.left_out(where, f"log entry of kind {kind if 0 <= kind < 100 else '(unknown)'}")
            continue
        if log is None:
            early = early or number
            ledger.left_out(where, "a change before the log's initial entry")
            continue
        path = entry.get("k")
        if not _is_path(path) or not _apply(log.state, kind, path, entry):
            ledger.left_out(where, "log entry at a missing path")
            continue
        _track(log, kind, path, entry, where, ledger)
    if log is None:
        before = f" (line {early} is a change before the log's initial entry)" if early else ""
        raise InvalidSession(f"the log has no initial entry{before}")
    return log


def settle(log: Replayed, requests: Ledger, ledger: Ledger) -> None:
    """Give each line that made or changed a request that request's fate, as `requests` (the
    chat read from the state, places `requests[N]`) holds it; its counted pieces come along."""
    ledger.parts_left_out.update(requests.parts_left_out)
    ranked: list[tuple[int, str, str, str]] = []  # rank, line, fate, reason: imported last
    for number, (made, changed) in enumerate(zip(log.made_by, log.changed_by, strict=True)):
        fate = requests.fate(f"requests[{number}]")
        if fate is None:
            continue
        lines = ([made] if made else []) + changed
        if fate.fate == LEFT_OUT:
            ranked += [(0, line, LEFT_OUT, fate.reason) for line in lines]
            continue
        begun = made or log.initial
        ranked += [(1, line, MERGED, f"requests[{number}], begun on {begun}") for line in changed]
        if made:
            ranked.append((2, made, "", f"requests[{number}]"))
    for _, line, fate_name, reason in sorted(ranked, key=lambda r: r[0]):
        if fate_name == LEFT_OUT:
            ledger.left_out(line, reason)
        elif fate_name == MERGED:
            ledger.merged(line, reason)
        else:
            ledger.imported(line, reason)


def _track(log: Replayed, kind: int, path: list[str | int], entry: dict[str, Any], where: str,
           ledger: Ledger) -> None:
    """Which request (or other field) a change applied to the state touched, for its fate."""
    if not path:
        ledger.left_out(where, "change at the state's root (VS Code ignores it)")
        return
    head = path[0]
    if head != "requests":
        if head in _KEPT:
            ledger.merged(where, "the chat's state")
        elif head == _DRAFT:
            ledger.left_out(where, "the input box's draft (not sent)")
        elif head == _QUEUE:
            ledger.left_out(where, "queued request not sent")
        else:
            ledger.left_out(where, f"change to the chat's {label(head)} (not kept)")
        return
    count = len(_list(log.state.get("requests")))
    if len(path) == 1:  # the list itself: a push, a splice, or set or deleted whole
        start = entry.get("i") if kind == PUSH else 0
        start = start if type(start) is int and 0 <= start <= len(log.made_by) else len(log.made_by)
        for made, changed in zip(log.made_by[start:], log.changed_by[start:], strict=True):
            for line in ([made] if made else []) + changed:
                if kind == SET:  # the whole list written again: the same requests, anew
                    ledger.merged(line, f"the requests written again on {where}")
                else:
                    ledger.left_out(line, _REMOVED)
        del log.made_by[start:], log.changed_by[start:]
        if count <= start:  # it only took requests away
            ledger.left_out(where, _REMOVED)
    elif type(path[1]) is int:
        index = path[1]
        if index >= len(log.made_by):
            grown = index + 1 - len(log.made_by)
            log.made_by += [None] * grown
            log.changed_by += [[] for _ in range(grown)]
        if len(path) == 2 and kind == SET:  # the request written whole again
            earlier = log.made_by[index]
            for line in ([earlier] if earlier else []) + log.changed_by[index]:
                ledger.merged(line, f"requests[{index}] written again on {where}")
            log.made_by[index], log.changed_by[index] = where, []
        else:
            log.changed_by[index].append(where)
    else:  # a key no request list has (the state's requests are not a list)
        ledger.left_out(where, "change to the requests at an unknown key")
    # the requests a push (or a set past the end) added are this line's
    while len(log.made_by) < count:
        log.made_by.append(where)
        log.changed_by.append([])
    del log.made_by[count:], log.changed_by[count:]


def _lines(log: Replayed) -> list[str]:
    return [log.initial, *(m for m in log.made_by if m), *(c for cs in log.changed_by for c in cs)]


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


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
    if type(key) is not int or key < 0 or key > len(parent) + _MAX_GAP:
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
    if type(start) is int and start > len(items) + _MAX_GAP:
        return False
    if type(start) is int and start >= 0:
        del items[start:]
        items.extend([None] * (start - len(items)))  # `arr.length = i` past the end pads
    if isinstance(values, list):
        items.extend(values)
    return _put(parent, key, items)


def _is_path(value: Any) -> TypeGuard[list[str | int]]:
    return isinstance(value, list) and all(
        isinstance(k, str) or (type(k) is int and k >= 0) for k in value)
