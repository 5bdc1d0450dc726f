"""JSON and JSON with comments (JSONC) edited in place. The file is parsed into spans
(jsonspans.py); one member is set or removed by splicing its text, so every other byte stays as
it was: comments, trailing commas, key order, indentation, line endings, a byte-order mark. The
result is parsed again and must hold exactly the values expected (values.expected), else
ConfigError and nothing changes. A key on the edited path that appears twice is refused: which
one the agent reads is not ours to guess."""

from __future__ import annotations

import json
from typing import Any

from api.setup.jsonspans import Document, Member, Node, indent_at, line_indent, line_start, parse
from api.setup.values import ConfigError, expected, settled

__all__ = ["Document", "parse", "remove_entry", "set_entry"]

Edit = tuple[int, int, str]  # replace text[start:end] with the string


def set_entry(raw: str, container: tuple[str, ...], name: str, entry: dict[str, Any]) -> str:
    """`raw` with `entry` as member `name` of the object at `container` (made when missing)."""
    doc = parse(raw)
    obj = doc.root
    for depth, key in enumerate(container):
        member = _member(obj, key, container[:depth + 1])
        if member is None:
            wrapped: dict[str, Any] = {name: entry}
            for outer in reversed(container[depth + 1:]):
                wrapped = {outer: wrapped}
            return _checked(doc, _insert(doc, obj, key, wrapped), container, name, entry)
        if member.value.members is None:
            raise ConfigError(f'"{".".join(container[:depth + 1])}" is not an object')
        obj = member.value
    member = _member(obj, name, (*container, name))
    if member is None:
        return _checked(doc, _insert(doc, obj, name, entry), container, name, entry)
    base = indent_at(doc.text, member.start)
    edit = (member.value.start, member.value.end, _render(doc, entry, base))
    return _checked(doc, [edit], container, name, entry)


def remove_entry(raw: str, container: tuple[str, ...], name: str) -> str | None:
    """`raw` without member `name` of the object at `container`; None when there is none. A
    container left with nothing in it (not even a comment) goes too."""
    doc = parse(raw)
    chain, holders = [doc.root], []
    for depth, key in enumerate(container):
        holder = _member(chain[-1], key, container[:depth + 1])
        if holder is None or holder.value.members is None:
            return None
        chain.append(holder.value)
        holders.append(holder)
    target = _member(chain[-1], name, (*container, name))
    if target is None:
        return None
    level = len(container)
    while level and _members(chain[level]) == [target] and not _comments_beside(doc, chain[level],
                                                                                target):
        level -= 1
        target = holders[level]
    return _checked(doc, _remove(doc, chain[level], target), container, name, None)


def _members(node: Node) -> list[Member]:
    assert node.members is not None, "only objects have members"
    return node.members


def _member(obj: Node, key: str, path: tuple[str, ...]) -> Member | None:
    found = [m for m in _members(obj) if m.key == key]
    if len(found) > 1:
        raise ConfigError(f'"{".".join(path)}" appears {len(found)} times: which one counts is '
                          "not clear")
    return found[0] if found else None


def _checked(doc: Document, edits: list[Edit], container: tuple[str, ...], name: str,
             entry: dict[str, Any] | None) -> str:
    """The edited text, once it parses to exactly the values expected."""
    text = doc.text
    # from the end backwards; of two edits at one place, the one listed first ends up first
    for _, (start, end, new) in sorted(enumerate(edits), key=lambda e: (e[1][0], e[0]),
                                       reverse=True):
        text = text[:start] + new + text[end:]
    try:
        after = parse(text)
    except ConfigError as exc:
        raise ConfigError(f"recall's edit would not parse ({exc}); nothing written") from exc
    if settled(after.value, container) != expected(doc.value, container, name, entry) or (
            doc.plain and not after.plain):
        raise ConfigError("recall's edit would change more than its entry; nothing written")
    return doc.bom + text


def _insert(doc: Document, obj: Node, key: str, value: Any) -> list[Edit]:
    text, nl = doc.text, doc.newline
    members = _members(obj)
    if members:
        last = members[-1]
        base = None if doc.one_line else indent_at(text, last.start)
        member = _key(doc, key, base) + _render(doc, value, base)
        if base is None:  # a one-line object: stay on the line
            return [(last.value.end, last.value.end, _comma(doc) + member)]
        if last.comma is not None:  # a trailing comma: keep the style
            at = _end_of_line(doc, last.comma + 1)
            return [(at, at, nl + base + member + ",")]
        at = _end_of_line(doc, last.value.end)
        return [(last.value.end, last.value.end, ","), (at, at, nl + base + member)]
    close = obj.end - 1
    if doc.one_line:
        return [(close, close, _key(doc, key, None) + _render(doc, value, None))]
    outer = line_indent(text, obj.start)
    inner = outer + doc.unit
    start = close
    while start > obj.start + 1 and text[start - 1] in " \t\r\n":
        start -= 1
    member = _key(doc, key, inner) + _render(doc, value, inner)
    return [(start, close, nl + inner + member + nl + outer)]


def _remove(doc: Document, obj: Node, member: Member) -> list[Edit]:
    """Edits that take `member` out of `obj`: its line and the line break before it, or its
    text on a shared line, with the comma that separated it."""
    text = doc.text
    members = _members(obj)
    index = members.index(member)
    previous = members[index - 1] if index else None
    end = member.value.end if member.comma is None else member.comma + 1
    edits: list[Edit] = []
    if indent_at(text, member.start) is None or doc.one_line:
        if member.comma is None and previous is not None and previous.comma is not None:
            edits.append((previous.comma, end, ""))
        else:
            while end < len(text) and text[end] in " \t":
                end += 1
            edits.append((member.start, end, ""))
    else:
        start = line_start(text, member.start)
        start -= 2 if text[max(start - 2, 0):start] == "\r\n" else 1
        if member.comma is None and previous is not None and previous.comma is not None:
            edits.append((previous.comma, previous.comma + 1, ""))
        edits.append((start, end, ""))
    if len(members) == 1:  # the object is left empty: `{}` unless a comment stays inside
        start = min(e[0] for e in edits)
        inside = text[obj.start + 1:start] + text[end:obj.end - 1]
        if not inside.strip(" \t\r\n"):
            return [(obj.start + 1, obj.end - 1, "")]
    return edits


def _comments_beside(doc: Document, obj: Node, member: Member) -> bool:
    """Whether `obj` holds a comment outside `member`."""
    return any(obj.start < c < obj.end and not member.start <= c < member.value.end
               for c, _ in doc.comments)


def _key(doc: Document, key: str, base: str | None) -> str:
    return json.dumps(key, ensure_ascii=False) + (":" if _tight(doc, base) else ": ")


def _comma(doc: Document) -> str:
    return "," if _tight(doc, None) else ", "


def _tight(doc: Document, base: str | None) -> bool:
    """A one-line file written without spaces (`{"a":1}`) gets none either."""
    return base is None and doc.one_line and ": " not in doc.text and ", " not in doc.text


def _render(doc: Document, value: Any, base: str | None) -> str:
    if base is None:
        tight = _tight(doc, None)
        return json.dumps(value, ensure_ascii=False,
                          separators=(",", ":") if tight else (", ", ": "))
    return json.dumps(value, ensure_ascii=False, indent=doc.unit).replace("\n", doc.newline + base)


def _end_of_line(doc: Document, pos: int) -> int:
    """`pos` moved past blanks and comments that end on its line: where a new line can start
    without taking a comment away from the text it follows."""
    text = doc.text
    starts = {start: end for start, end in doc.comments}
    while True:
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        end = starts.get(pos)
        if end is None or "\n" in text[pos:end]:
            return pos
        pos = end


