"""What an edit of a config must leave behind, as plain values: recall's entry merged with one
that is there, and the whole config expected after the entry is set or removed. Both file
formats check their result against `expected` before anything is written."""

from __future__ import annotations

import copy
from collections.abc import Collection
from typing import Any

__all__ = ["ConfigError", "expected", "merge_entry", "settled"]


class ConfigError(Exception):
    """A config file recall will not touch (cannot parse it, or cannot edit it losslessly);
    the message says why."""


def merge_entry(existing: object, ours: dict[str, Any], owned: Collection[str], env_key: str,
                passed: Collection[str]) -> dict[str, Any]:
    """Our entry over the one already there: the keys recall owns are ours, any other key the
    user added stays, and so do the user's own environment variables (only the ones recall
    passes are replaced or dropped)."""
    if not isinstance(existing, dict):
        return ours
    merged = dict(ours)
    theirs = existing.get(env_key)
    env = {k: v for k, v in theirs.items() if k not in passed} if isinstance(theirs, dict) else {}
    env |= ours.get(env_key, {})
    merged.pop(env_key, None)
    if env:
        merged[env_key] = env
    return merged | {k: v for k, v in existing.items() if k not in owned}


def expected(root: dict[str, Any], container: tuple[str, ...], name: str,
             entry: dict[str, Any] | None) -> dict[str, Any]:
    """`root` with `name` under `container` set to `entry`, or removed when it is None."""
    result = copy.deepcopy(root)
    node = result
    for key in container:
        node = node.setdefault(key, {})
    if entry is None:
        node.pop(name, None)
    else:
        node[name] = entry
    return settled(result, container)


def settled(root: dict[str, Any], container: tuple[str, ...]) -> dict[str, Any]:
    """`root` without the containers on the path that are empty: creating a container for the
    entry, or dropping one the entry leaves empty, is no change to what the agent reads."""
    if not container or not isinstance(root.get(container[0]), dict):
        return root
    inner = settled(root[container[0]], container[1:])
    rest = {k: v for k, v in root.items() if k != container[0]}
    return rest if not inner else {**root, container[0]: inner}
