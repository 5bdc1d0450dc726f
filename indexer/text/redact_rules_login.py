"""Credentials found by their shape with no documented literal of their own (Mollie, Ably,
Tencent LBS), and the argument of a command-line login that takes the credential inline
(`wandb login KEY`, `b2 account authorize KEY_ID KEY`, `ngrok config add-authtoken TOKEN`,
`cargo login TOKEN`, `snyk auth TOKEN`, `doctl auth init -t TOKEN`).

Values must fit the vendor's documented alphabet and length and look generated: test_ and
live_ open identifiers everywhere (test_parseHTTP2ResponseWithBody), so a Mollie key must
have a random body, and a test_ one a mention of Mollie in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from indexer.text.redact_rules_base import (
    DIGIT,
    LOWER,
    NAME_PARTS,
    UPPER,
    Rule,
    Token,
    low_diversity,
)
from indexer.text.redact_rules_base import random_body as _random_body
from indexer.text.redact_rules_base import token_re as _tok
from indexer.text.redact_rules_base import word as _word

__all__ = ["LOGIN_RULES"]

_B62 = "A-Za-z0-9"
_END = r"(?![A-Za-z0-9_-])"
_HEX_LETTER = re.compile("[a-f]")


def _generated(v: str) -> bool:
    """A digit and both cases, and no word structure: parts of a random run are short (mean
    under 3), those of a camelCase name long (parseHTTP2ResponseWithBody: 4.3)."""
    if low_diversity(v) or not (DIGIT.search(v) and UPPER.search(v) and LOWER.search(v)):
        return False
    parts = NAME_PARTS.findall(v)
    return len("".join(parts)) / len(parts) < 3


# Mollie API keys: live_ or test_ and 30 letters and digits.
_MOLLIE = re.compile(
    _word("live_", "test_", before="A-Za-z0-9_$.-") + r"(?P<v>[A-Za-z0-9]{30})(?![A-Za-z0-9_-])")


def _mollie(text: str) -> Iterator[tuple[str, int, int]]:
    mollie = "mollie" in text.lower()
    for m in _MOLLIE.finditer(text):
        if _generated(m.group("v")) and (m.group().startswith("live") or mollie):
            yield "mollie_key", m.start(), m.end()


# Ably API keys: the app id (6), ".", the key id (6), ":", the key secret (43 base64url).
_ABLY = re.compile(r":(?<=(?<![A-Za-z0-9_.-])[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{6}:)"
                   r"(?P<v>[A-Za-z0-9_-]{43})(?![A-Za-z0-9_+/=-])")


def _ably(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _ABLY.finditer(text):
        if _generated(m.group("v")):
            yield "ably_key", m.start() - 13, m.end()


# Tencent LBS (腾讯位置服务) keys: six groups of five capitals and digits joined by "-".
# (From the first "-", the group before it checked behind: a regex that opens with a literal
# is scanned for far faster than one that opens with a character class.)
_TENCENT_LBS = re.compile(r"-(?<=(?<![A-Za-z0-9_-])[A-Z0-9]{5}-)[A-Z0-9]{5}(?:-[A-Z0-9]{5}){4}"
                          r"(?![A-Za-z0-9_-])")


def _tencent_lbs(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _TENCENT_LBS.finditer(text):
        v = text[m.start() - 5:m.end()].replace("-", "")
        if not low_diversity(v) and DIGIT.search(v) and UPPER.search(v) and len(set(v)) >= 12:
            yield "tencent_lbs_key", m.start() - 5, m.end()


# --- command-line logins ------------------------------------------------------------------------

# Options before the argument: --relogin, --host https://..., --registry=name.
_OPTS = r"(?:[ \t]+--?[a-z][a-z-]*(?:[= ][^\s-]\S*)?)*?"
_LOGIN = re.compile(
    _word("wandb", "b2", "ngrok", "cargo", "snyk", "doctl", before="\\w-") + r"(?:"
    r"(?<=wandb)[ \t]+login" + _OPTS + r"[ \t]+[\"']?(?P<wandb>(?:local-)?[0-9a-f]{40})"
    r"|(?<=b2)[ \t]+(?:account[ \t]+authorize|authorize[-_]account)" + _OPTS
    + r"[ \t]+[\"']?[0-9a-f]{12,25}[\"']?[ \t]+[\"']?(?P<b2>[A-Za-z0-9/+]{31})"
    r"|(?<=ngrok)[ \t]+(?:config[ \t]+add-authtoken|authtoken)" + _OPTS
    + r"[ \t]+[\"']?(?P<ngrok>[A-Za-z0-9_]{30,64})"
    r"|(?<=cargo)[ \t]+login" + _OPTS + r"[ \t]+[\"']?(?P<cargo>[A-Za-z0-9_-]{24,128})"
    r"|(?<=snyk)[ \t]+auth" + _OPTS
    + r"[ \t]+[\"']?(?P<snyk>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
    r"|(?<=doctl)[ \t]+auth[ \t]+init" + _OPTS + r"[ \t]+-t[ \t]+[\"']?(?P<doctl>[A-Za-z0-9_]{40,80})"
    r")(?![A-Za-z0-9_/+=-])"
)


def _login_ok(tool: str, v: str) -> bool:
    if low_diversity(v) or not DIGIT.search(v):
        return False
    if tool in ("wandb", "snyk"):
        return _HEX_LETTER.search(v.removeprefix("local-")) is not None
    if tool == "b2":  # application keys (K…) mix cases; master keys are hex
        return True
    return len(set(v)) >= 12 and bool(UPPER.search(v) or LOWER.search(v))


def _logins(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _LOGIN.finditer(text):
        tool = m.lastgroup
        if tool is not None and _login_ok(tool, m.group(tool)):
            yield "cli_login", m.start(tool), m.end(tool)


LOGIN_RULES: tuple[Rule, ...] = (
    # Tavily API keys: tvly-, dev- or prod- on newer keys, 32 letters and digits.
    Rule("tavily_key", Token(_tok(("tvly-dev-", "tvly-prod-", "tvly-"), rf"[{_B62}]{{32}}{_END}",
                                  before="A-Za-z0-9_-"), _random_body), triggers=("tvly-",)),
    Rule("mollie_key", _mollie, triggers=("live_", "test_")),
    Rule("ably_key", _ably, triggers=(":",)),
    Rule("tencent_lbs_key", _tencent_lbs, triggers=("-",)),
    # Two needles for six commands (login; auth, authorize, authtoken): each trigger is one more
    # substring test on every message that holds its rarest character.
    Rule("cli_login", _logins, triggers=("login", "auth")),
)
