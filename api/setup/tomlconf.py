"""TOML configs (Codex's config.toml) edited with tomlkit, which keeps comments, order and
formatting outside the entry it changes. The entry is written the way `codex mcp add` writes
one: a `[mcp_servers.NAME]` table with its env as a `[mcp_servers.NAME.env]` sub-table. The
result is read back with the standard library's parser (another implementation) and must hold
exactly the values expected, else ConfigError and nothing changes."""

from __future__ import annotations

import tomllib
from typing import Any

import tomlkit
from tomlkit.container import Container
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import InlineTable, Table

from api.setup.values import ConfigError, expected, settled

__all__ = ["load", "remove_entry", "set_entry"]

Holder = Container | Table | InlineTable


def load(raw: str) -> dict[str, Any]:
    try:
        return tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}") from None


def set_entry(raw: str, container: tuple[str, ...], name: str, entry: dict[str, Any]) -> str:
    """`raw` with `entry` as table `name` under `container` (made when missing)."""
    doc = _parse(raw)
    holder: Holder = doc
    for depth, key in enumerate(container):
        item = holder.get(key)
        if item is None:
            # a super table: `[mcp_servers.recall]` with no bare `[mcp_servers]` header
            item = tomlkit.table(is_super_table=True)
            holder.append(key, item)
        elif not isinstance(item, Table | InlineTable):
            raise ConfigError(f'"{".".join(container[:depth + 1])}" is not a table')
        holder = item
    if isinstance(holder, InlineTable):
        holder[name] = _inline(entry)
    else:
        table = _table(entry)
        if not _last(doc, container[0]):
            table.add(tomlkit.nl())  # a blank line before the table that follows
        holder[name] = table
    return _checked(raw, tomlkit.dumps(doc), container, name, entry)


def remove_entry(raw: str, container: tuple[str, ...], name: str) -> str | None:
    """`raw` without table `name` under `container`; None when there is none. A super table
    the removal leaves empty goes too (an explicit `[mcp_servers]` header stays)."""
    doc = _parse(raw)
    chain: list[Holder] = [doc]
    for key in container:
        item = chain[-1].get(key)
        if not isinstance(item, Table | InlineTable):
            return None
        chain.append(item)
    if name not in chain[-1]:
        return None
    del chain[-1][name]
    for depth in range(len(container), 0, -1):
        item = chain[depth]
        if len(item) or not isinstance(item, Table) or not item.is_super_table():
            break
        del chain[depth - 1][container[depth - 1]]
    text = tomlkit.dumps(doc)
    if text.endswith("\n\n") and not raw.endswith("\n\n"):
        text = text.rstrip("\n") + "\n"  # the blank line that separated the removed table
    return _checked(raw, text, container, name, None)


def _parse(raw: str) -> tomlkit.TOMLDocument:
    load(raw)  # the reference parser first: tomlkit accepts some files TOML does not
    try:
        return tomlkit.parse(raw)
    except TOMLKitError as exc:
        raise ConfigError(f"not valid TOML: {exc}") from None


def _table(values: dict[str, Any]) -> Table:
    """A standard table: plain values first, then sub-tables (TOML wants them after)."""
    table = tomlkit.table()
    for key, value in values.items():
        if not isinstance(value, dict):
            table.add(key, value)
    for key, value in values.items():
        if isinstance(value, dict):
            table.add(key, _table(value))
    return table


def _inline(values: dict[str, Any]) -> InlineTable:
    table = tomlkit.inline_table()
    for key, value in values.items():
        table.append(key, _inline(value) if isinstance(value, dict) else value)
    return table


def _last(doc: tomlkit.TOMLDocument, key: str) -> bool:
    """Whether `key`'s tables end the document (nothing follows what is added to them)."""
    keys = list(doc.keys())
    return bool(keys) and keys[-1] == key


def _checked(raw: str, text: str, container: tuple[str, ...], name: str,
             entry: dict[str, Any] | None) -> str:
    try:
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"recall's edit would not parse ({exc}); nothing written") from None
    if settled(after, container) != expected(load(raw), container, name, entry):
        raise ConfigError("recall's edit would change more than its entry; nothing written")
    return text
