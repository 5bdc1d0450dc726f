"""JSON text parsed into spans: every value with where it starts and ends, every object member
with its key's and comma's places, and where the comments are, so that an editor can change one
member by splicing text (jsonc.py). The grammar is JSON's (RFC 8259) plus `//` and `/* */`
comments and trailing commas (JSONC, as VS Code, Gemini CLI and opencode read it); the
`Document` says whether the file used either. Anything else (single quotes, NaN, a bare key) is
a ConfigError with its line and column."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from api.setup.values import ConfigError

__all__ = ["Document", "Member", "Node", "Token", "indent_at", "line_indent", "line_start",
           "parse"]

# one token and the blanks before it (a match per blank run would double the work)
_TOKEN = re.compile(r"""[ \t\r\n]*(?:
    (?P<line>//[^\r\n]*)
  | (?P<block>/\*.*?\*/)
  | (?P<string>"(?:[^"\\\x00-\x1f]|\\.)*")
  | (?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
  | (?P<word>true|false|null)
  | (?P<punct>[{}\[\]:,])
  | (?P<end>\Z)
)""", re.VERBOSE | re.DOTALL)
_WORDS = {"true": True, "false": False, "null": None}
MAX_DEPTH = 200  # deeper than any config; keeps a hostile file from exhausting the stack


class Token(NamedTuple):
    kind: str  # a group name of _TOKEN
    start: int
    end: int
    text: str


@dataclass
class Node:
    start: int
    end: int
    value: Any
    members: list[Member] | None = None  # an object's members, in order; None for the rest


@dataclass
class Member:
    key: str
    start: int  # the key's opening quote
    value: Node
    comma: int | None = None  # the comma after the value


@dataclass
class Document:
    text: str  # without the byte-order mark
    bom: str
    root: Node
    comments: list[tuple[int, int]] = field(default_factory=list)
    trailing_commas: bool = False

    @property
    def value(self) -> dict[str, Any]:
        value: dict[str, Any] = self.root.value
        return value

    @property
    def plain(self) -> bool:
        """Plain JSON: no comments and no trailing commas."""
        return not self.comments and not self.trailing_commas

    @property
    def newline(self) -> str:
        return "\r\n" if "\r\n" in self.text else "\n"

    @property
    def one_line(self) -> bool:
        """Written on one line (an empty `{}` is not: what goes in it gets lines)."""
        return "\n" not in self.text.strip() and bool(self.root.members)

    @property
    def unit(self) -> str:
        """One level of indentation, as the file's top-level members have it (else 2 spaces)."""
        outer = line_indent(self.text, self.root.start)
        for member in self.root.members or ():
            indent = indent_at(self.text, member.start)
            if indent and indent.startswith(outer) and len(indent) > len(outer):
                return indent[len(outer):]
        return "  "


def parse(raw: str) -> Document:
    bom = "\ufeff" if raw.startswith("\ufeff") else ""
    text = raw[len(bom):]
    tokens, comments = _tokens(text)
    parser = _Parser(text, tokens)
    root = parser.value(0)
    if parser.i < len(tokens):
        raise parser.error(tokens[parser.i], "the end of the file")
    if root.members is None:
        raise ConfigError("the top level is not an object")
    return Document(text, bom, root, comments, parser.trailing_commas)


def line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def line_indent(text: str, pos: int) -> str:
    line = text[line_start(text, pos):pos]
    return line[:len(line) - len(line.lstrip(" \t"))]


def indent_at(text: str, pos: int) -> str | None:
    """The indentation of pos's line when pos is the first thing on it, else None."""
    before = text[line_start(text, pos):pos]
    return before if not before.strip(" \t") else None


def _tokens(text: str) -> tuple[list[Token], list[tuple[int, int]]]:
    tokens: list[Token] = []
    comments: list[tuple[int, int]] = []
    pos = 0
    while True:
        match = _TOKEN.match(text, pos)
        if match is None:
            while text[pos] in " \t\r\n":
                pos += 1
            what = "an unclosed comment" if text.startswith("/*", pos) else repr(text[pos])
            raise ConfigError(f"{_where(text, pos)}: unexpected {what}")
        kind = match.lastgroup or ""
        if kind == "end":
            return tokens, comments
        start, pos = match.start(kind), match.end()
        if kind in ("line", "block"):
            comments.append((start, pos))
        else:
            tokens.append(Token(kind, start, pos, match.group(kind)))


def _where(text: str, pos: int) -> str:
    return f"line {text.count(chr(10), 0, pos) + 1}, column {pos - line_start(text, pos) + 1}"


class _Parser:
    def __init__(self, text: str, tokens: list[Token]) -> None:
        self.text, self.tokens, self.i = text, tokens, 0
        self.trailing_commas = False

    def error(self, token: Token | None, wanted: str) -> ConfigError:
        if token is None:
            return ConfigError(f"{_where(self.text, len(self.text))}: the file ends where "
                               f"{wanted} should be")
        return ConfigError(f"{_where(self.text, token.start)}: {wanted} expected, "
                           f"found {token.text[:20]!r}")

    def take(self, wanted: str) -> Token:
        if self.i >= len(self.tokens):
            raise self.error(None, wanted)
        self.i += 1
        return self.tokens[self.i - 1]

    def value(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise ConfigError(f"nested more than {MAX_DEPTH} levels deep")
        token = self.take("a value")
        if token.text == "{":
            return self.object(token, depth)
        if token.text == "[":
            return self.array(token, depth)
        if token.kind in ("string", "number", "word"):
            return Node(token.start, token.end, self.scalar(token))
        raise self.error(token, "a value")

    def scalar(self, token: Token) -> Any:
        if token.kind == "string" and "\\" not in token.text:
            return token.text[1:-1]  # nothing to unescape: the pattern allows no control character
        if token.kind == "word":
            return _WORDS[token.text]
        try:
            return json.loads(token.text)
        except ValueError:
            raise self.error(token, "a valid string") from None

    def object(self, opening: Token, depth: int) -> Node:
        node = Node(opening.start, -1, {}, [])
        while True:
            token = self.take('a key or "}"')
            if token.text == "}" and (not node.members or node.members[-1].comma is not None):
                self.trailing_commas |= bool(node.members)
                node.end = token.end
                return node
            if token.kind != "string":
                raise self.error(token, "a key in double quotes")
            if self.take('":"').text != ":":
                raise self.error(self.tokens[self.i - 1], '":"')
            member = Member(self.scalar(token), token.start, self.value(depth + 1))
            assert node.members is not None
            node.members.append(member)
            node.value[member.key] = member.value.value  # the last of a duplicate wins, as in JS
            after = self.take('"," or "}"')
            if after.text == "}":
                node.end = after.end
                return node
            if after.text != ",":
                raise self.error(after, '"," or "}"')
            member.comma = after.start

    def array(self, opening: Token, depth: int) -> Node:
        items: list[Any] = []
        while True:
            if self.i < len(self.tokens) and self.tokens[self.i].text == "]":
                self.trailing_commas |= bool(items)
                return Node(opening.start, self.take("]").end, items)
            items.append(self.value(depth + 1).value)
            after = self.take('"," or "]"')
            if after.text == "]":
                return Node(opening.start, after.end, items)
            if after.text != ",":
                raise self.error(after, '"," or "]"')
