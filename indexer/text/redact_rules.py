"""The redactor's catalogue: for each kind of secret, the regexes that find it and its checks.

This module holds the original formats and assembles RULES in priority order: its own vendor
tokens, more vendor formats (redact_rules_providers.py), shapes that need no label
(redact_rules_shapes.py), private keys, AWS, JWTs, URL and
labelled passwords, then labelled values of any secret-sounding name (redact_rules_kv.py) and
random-looking runs near a credential word (redact_rules_near.py).
Shared building blocks live in redact_rules_base.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from indexer.text.redact_rules_base import DIGIT as _DIGIT
from indexer.text.redact_rules_base import LOWER as _LOWER
from indexer.text.redact_rules_base import MARKER_PREFIX, Find, Rule, Token, Value
from indexer.text.redact_rules_base import UPPER as _UPPER
from indexer.text.redact_rules_base import label as _label
from indexer.text.redact_rules_base import low_diversity as _low_diversity
from indexer.text.redact_rules_base import word as _word
from indexer.text.redact_rules_kv import KV_RULES, PROSE_OWNER
from indexer.text.redact_rules_near import NEAR_RULES
from indexer.text.redact_rules_providers import PROVIDER_RULES
from indexer.text.redact_rules_public import public_match
from indexer.text.redact_rules_shapes import SHAPE_RULES

__all__ = ["MARKER_PREFIX", "RULES", "Find", "Rule", "Token", "Value"]

# --- token formats with a recognisable prefix --------------------------------------------------
# Possessive quantifiers (Python 3.11+) keep every scan linear: a run is never re-split.

_BEARER = re.compile(
    _label("A-Za-z0-9_", "bearer") + r"[ \t]++(?P<v>[A-Za-z0-9._~+/-]{12,}+=*+)"
)


def _bearer_ok(v: str, m: re.Match[str]) -> bool:
    # "the bearer of", "Bearer YOUR_API_KEY": real tokens are long and random-looking
    if _low_diversity(v):
        return False
    if len(v) >= 12 and _DIGIT.search(v):
        return True
    return len(v) >= 24 and bool(_UPPER.search(v)) and bool(_LOWER.search(v))


_ANTHROPIC = re.compile(_word("sk-ant-", before="A-Za-z0-9_-") + r"(?P<v>[A-Za-z0-9_-]{20,}+)")
_OPENAI = re.compile(
    _word("sk-", before="A-Za-z0-9_-") + r"(?:proj-|svcacct-|admin-)?(?P<v>[A-Za-z0-9_-]{20,}+)"
)


def _prefixed_key_ok(v: str, m: re.Match[str]) -> bool:
    # random key bodies contain digits; "sk-learn-compatible-..." style words do not
    return not _low_diversity(v) and bool(_DIGIT.search(v))


_GITHUB = re.compile(
    _word("ghp_", "gho_", "ghu_", "ghs_", "ghr_", before="A-Za-z0-9_")
    + r"(?P<v>[A-Za-z0-9]{36,}+)|"
    + _word("github_pat_", before="A-Za-z0-9_")
    + r"(?P<v2>[A-Za-z0-9_]{22,}+)"
)


def _github(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _GITHUB.finditer(text):
        body = m.group("v") or m.group("v2")
        if not _low_diversity(body):
            yield "github_token", m.start(), m.end()


_SLACK = re.compile(
    _word("xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "xoxe-", "xoxc-", "xapp-")
    + r"(?P<v>[A-Za-z0-9-]{10,}+)"
)
_PYPI = re.compile(_word("pypi-") + r"(?P<v>[A-Za-z0-9_-]{40,}+)")


def _pypi_ok(v: str, m: re.Match[str]) -> bool:
    # macaroon base64 has capitals/digits; long kebab-case names ("pypi-...-guide") do not
    return not _low_diversity(v) and bool(_DIGIT.search(v) or _UPPER.search(v))


_JWT = re.compile(
    _word("eyJ", before="A-Za-z0-9_-")
    + r"[A-Za-z0-9_-]{5,}+\.eyJ[A-Za-z0-9_-]{5,}+\.[A-Za-z0-9_-]*+"
)


# More services whose tokens carry a fixed prefix (formats as each vendor documents them).
_GITLAB = re.compile(
    _word("glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glsoat-", "glcbt-", "gloas-", "glimt-",
          "glagent-", before="A-Za-z0-9_-")
    + r"(?P<v>[A-Za-z0-9_-]{20,}+)"
)
_STRIPE = re.compile(
    _word("sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_", before="A-Za-z0-9_")
    + r"(?P<v>[A-Za-z0-9]{16,}+)"
)
_GOOGLE_KEY = re.compile(_word("AIza", before="A-Za-z0-9_-") + r"(?P<v>[A-Za-z0-9_-]{35})(?![A-Za-z0-9_-])")
_GOOGLE_OAUTH = re.compile(_word("ya29.", before="A-Za-z0-9_.-") + r"(?P<v>[A-Za-z0-9_-]{20,}+)")
_SLACK_WEBHOOK = re.compile(
    r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>[A-Za-z0-9_/-]{20,}+)"
)
_HUGGINGFACE = re.compile(_word("hf_", before="A-Za-z0-9_") + r"(?P<v>[A-Za-z0-9]{30,}+)")


def _hf_ok(v: str, m: re.Match[str]) -> bool:
    # Hugging Face token bodies are 34 random letters of both cases, often without a digit
    if _low_diversity(v):
        return False
    return bool(_DIGIT.search(v)) or bool(_UPPER.search(v) and _LOWER.search(v))


_NPM = re.compile(_word("npm_", before="A-Za-z0-9_") + r"(?P<v>[A-Za-z0-9]{36,}+)")
_SENDGRID = re.compile(
    _word("SG.", before="A-Za-z0-9_.-") + r"(?P<v>[A-Za-z0-9_-]{16,}+\.[A-Za-z0-9_-]{16,}+)"
)
_DIGITALOCEAN = re.compile(_word("dop_v1_", "doo_v1_", "dor_v1_") + r"(?P<v>[a-f0-9]{64})")


# --- private key blocks -----------------------------------------------------------------------

_PEM_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----")
# Without an END (a key cut off in the paste) the block is the BEGIN line plus the following
# lines while they look like PEM: all base64 (perhaps ending in "..."), or a header such as
# "Proc-Type: 4,ENCRYPTED"; line breaks may be real or JSON-escaped.
_PEM_LINES = re.compile(
    r"(?:(?:\r?\n|\\r\\n|\\n)[ \t]*+"
    r"(?:[A-Za-z0-9+/=]++(?:\.{3}|…)?(?=[\r\n\\]|\Z)|[A-Za-z-]++: [^\r\n\\]*+)?)++"
)
# A key body has long base64 runs; "starts with -----BEGIN ... and ends with -----END ..." in
# prose has none and is left alone.
_PEM_B64 = re.compile(r"[A-Za-z0-9+/=]{16}")
_PEM_MAX_BLOCK = 64 * 1024


def _rstrip_breaks(text: str, start: int, stop: int) -> int:
    # the line break after a cut-off key belongs to the text that follows
    while stop > start:
        if text[stop - 1].isspace():
            stop -= 1
        elif text.endswith(("\\n", "\\r"), start, stop):
            stop -= 2
        else:
            break
    return stop


def _private_keys(text: str) -> Iterator[tuple[str, int, int]]:
    # Procedural rather than one BEGIN.*?END regex: a lazy scan restarted at every BEGIN without
    # an END would be quadratic.  The next END and the next base64 run are each searched once
    # and reused until the scan passes them, which keeps the whole walk linear.
    pos = 0
    end: re.Match[str] | None = None
    b64: re.Match[str] | None = None
    searched = False
    while (begin := _PEM_BEGIN.search(text, pos)) is not None:
        if not searched or (end is not None and end.start() < begin.end()):
            end = _PEM_END.search(text, begin.end())
        if not searched or (b64 is not None and b64.start() < begin.end()):
            b64 = _PEM_B64.search(text, begin.end())
        searched = True
        if b64 is None:  # no base64 anywhere further on: no key either
            return
        if end is not None and end.end() - begin.start() <= _PEM_MAX_BLOCK:
            body_end, stop = end.start(), end.end()
        else:
            lines = _PEM_LINES.match(text, begin.end())
            stop = _rstrip_breaks(text, begin.end(), lines.end() if lines else begin.end())
            body_end = stop
        if b64.end() > body_end:
            pos = begin.end()
            continue
        yield "private_key", begin.start(), stop
        pos = stop


# PuTTY's .ppk files: the private half is the base64 lines after "Private-Lines: N".
_PUTTY = re.compile(
    r"Private-Lines:[ \t]*[0-9]{1,3}[ \t]*\r?\n"
    r"(?P<v>[A-Za-z0-9+/=]{4,}+(?:[ \t]*\r?\n[A-Za-z0-9+/=]{4,}+(?!\S))*+)"  # whole lines only
)


# --- AWS --------------------------------------------------------------------------------------

_AWS_KEY_ID = re.compile(_word("AKIA", "ASIA") + r"(?P<v>[A-Z0-9]{16})(?![A-Za-z0-9])")
_AWS_SECRET_NEAR = re.compile(
    r"(?:(?<![A-Za-z0-9/+=_-])|(?<=\\[nrt]))[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_-])"
)
_AWS_SECRET_WINDOW = 200  # "right after the key id": same line, within this many characters
_AWS_SECRET_LABELLED = re.compile(
    _label(
        "A-Za-z0-9", r"aws[_-]?secret[_-]?(?:access[_-]?)?key", r"secret[_-]?access[_-]?key"
    )
    + r"\\?[\"'`]?[ \t]*(?:=>|:=|[:=])[ \t]*(?:\\?[\"'`])?"
    r"(?P<v>[A-Za-z0-9/+=]{16,}+)(?![\w-])"
)


def _aws_secret_like(value: str) -> bool:
    # base64 of random bytes mixes cases; a 40-hex git SHA or an all-caps word does not
    return bool(_UPPER.search(value)) and bool(_LOWER.search(value)) and not _low_diversity(value)


def _aws_keys(text: str) -> Iterator[tuple[str, int, int]]:
    found: list[tuple[str, int, int]] = []
    for m in _AWS_KEY_ID.finditer(text):
        if _low_diversity(m.group("v")):  # AKIAXXXXXXXXXXXXXXXX placeholders
            continue
        found.append(("aws_access_key", m.start(), m.end()))
        stop = min(len(text), m.end() + _AWS_SECRET_WINDOW)
        for sep in ("\n", "\\n"):  # a real or a JSON-escaped line break ends the line
            cut = text.find(sep, m.end(), stop)
            if cut >= 0:
                stop = cut
        for s in _AWS_SECRET_NEAR.finditer(text, m.end(), stop):
            if _aws_secret_like(s.group()):
                found.append(("aws_secret_key", s.start(), s.end()))
    found.sort(key=lambda r: r[1])  # by start
    yield from found


def _aws_labelled_ok(v: str, m: re.Match[str]) -> bool:
    return not _low_diversity(v)


# --- credentials in URLs ----------------------------------------------------------------------

# Starts with the literal "://" so the regex engine can jump between candidates; the scheme
# only has to end in a letter or digit.  User may be empty (redis://:pass@host).
_URL_PASSWORD = re.compile(
    r"://(?<=[A-Za-z0-9]://)"
    r"[^\s:/?#@\[\]\"'<>\\]*+:(?P<v>[^\s/?#@\[\]\"'<>\\]++)@(?=[A-Za-z0-9\[])"
)


def _url_password_ok(v: str, m: re.Match[str]) -> bool:
    return v[0] not in "${<" and not v.startswith(MARKER_PREFIX)  # ${DB_PASS}, <password>


# --- labelled values: passwords and generic secrets ---------------------------------------------

_QUOTE = r"(?:\\?[\"'`])"
_SEP = r"(?:=>|:=|[:=：＝])"
# Characters that end an unquoted password: whitespace, quotes (ASCII, curly, CJK), comma,
# backslash (a JSON escape such as \n), and CJK text and punctuation, so that in prose like
# "密码是什么" there is no value and "密码是x，" stops at the full-width comma.
_PW_STOP = (
    r"\s\"'`,\\\u2018-\u201f\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
)
_PW_VALUE = (
    r"(?P<bold>\*\*)?[ \t]*"
    r"(?:"
    r"\\\"(?P<v1>[^\"\\\n]{1,256})\\\""
    r"|\"(?P<v2>[^\"\\\n]{1,256})\""
    r"|'(?P<v3>[^'\\\n]{1,256})'"
    r"|`(?P<v4>[^`\\\n]{1,256})`"
    r"|(?:" + _QUOTE + r"|[“「『‘])?(?P<v5>[^" + _PW_STOP + r"]++)"
    r")"
)
# English label, optionally bold or quoted ("password": / **Password:** / DB_PASSWORD=).
_PASSWORD = re.compile(
    _label("A-Za-z0-9", r"passw(?:or)?d", r"pwd")
    + r"(?:\*\*|__)?"
    + _QUOTE
    + r"?(?:\*\*)?[ \t]*"
    + _SEP
    + _PW_VALUE
)
# Chinese label: 密码：x / 密码: x / 密码是x / 密码为x.  A separate regex so the English one
# keeps its fast character-set prefix.
_PASSWORD_ZH = re.compile(r"密[码碼][ \t]*(?:[:：=＝]|[是为為][ \t]*[:：]?)" + _PW_VALUE)
# English prose: "my password is Tr0ub4dor&3" / "the password was: x".  Prose says "the
# password is stored in the vault" too, so the value must look like one (see _prose_pw_ok).
_PASSWORD_PROSE = re.compile(
    _label("A-Za-z0-9", r"passw(?:or)?d", r"passcode", r"passphrase")
    + PROSE_OWNER + r"[ \t]+(?:is|was|would be|will be)[ \t]*:?[ \t]*" + _PW_VALUE
)


def _prose_pw_ok(v: str, m: re.Match[str]) -> bool:
    v = v.rstrip(".!?;")
    if len(v) < 6 or not _password_ok(v, m):
        return False
    # a word of prose has neither digits nor symbols; a password almost always has one
    return bool(_DIGIT.search(v)) or not v.isalpha()


# Values that are type hints, literals or a word of prose ("your password: it must ..."),
# never a password worth hiding.
_PW_STOPWORDS = frozenset(
    ["str", "string", "none", "null", "nil", "true", "false", "bool", "boolean", "int", "bytes", "any", "object", "undefined", "optional", "required", "secretstr", "text", "varchar", "char", "password", "passwd", "pwd", "pass", "a", "an", "the", "it", "is", "are", "be", "must", "should", "will", "can", "cannot", "not", "to", "at", "of", "in", "on", "for", "your", "my", "our", "their", "this", "that", "these", "those", "same", "see", "use", "enter", "empty", "blank", "hidden", "unknown",
     "changeme", "change_me", "changeit"]
)
_PW_CODE = re.compile(
    r"[A-Za-z_][\w.]*[(\[].*"  # a call or subscript: getpass(), os.environ["DB_PASSWORD"]
    r"|[A-Za-z_]+(?:\.[A-Za-z_]+)+"  # attribute access: self.password, settings.DB_PASSWORD
    r"|(?i:[a-z_]*_)?(?i:password|passwd|pwd|pass)(?i:_[a-z_]*)?",  # a variable: new_password
    re.DOTALL,
)


def _password_ok(v: str, m: re.Match[str]) -> bool:
    # markers, placeholders, paths (PWD=/home/x), comparisons (password == x)
    if v[0] in "[${<%/~=" or MARKER_PREFIX in v:
        return False
    if v.lower() in _PW_STOPWORDS or _PW_CODE.fullmatch(v):  # type hints and code, not values
        return False
    if _YAML_TAG.fullmatch(v):  # password: !vault | (an Ansible vault block follows)
        return False
    # masks and placeholders: ****, xxx
    return not (set(v) <= set("*•●·.") or (len(v) >= 3 and len(set(v.lower())) == 1))


_YAML_TAG = re.compile(r"!!?[A-Za-z]+")  # !vault, !ENV
_CJK_CHAR = re.compile(r"[\u2e80-\u9fff]")


def _zh_password_ok(v: str, m: re.Match[str]) -> bool:
    # 密码是8位数字 / 密码为6个字符: a number or a short run followed by Chinese is a rule
    # about the password, not the password
    after = m.string[m.start("v5") + len(v): m.start("v5") + len(v) + 1] if m.group("v5") else ""
    if after and _CJK_CHAR.match(after) and (v.isdigit() or len(v) < 4):
        return False
    if v.isdigit() and len(v) < 4:  # 密码是 123 吗: too short to be anyone's password
        return False
    return _password_ok(v, m)


_GENERIC = re.compile(
    _label("A-Za-z0-9", r"api[_-]?key", r"secret(?:[_-]?key)?", r"token")
    + r"(?:\*\*)?"
    + _QUOTE
    + r"?(?:\*\*)?[ \t]*(?:=>|:=|[:=])(?:\*\*)?[ \t]*"
    + _QUOTE
    + r"?(?P<v>[A-Za-z0-9_./+=-]{16,}+)"
)
_LETTERS = re.compile(r"[A-Za-z]+")
# What may follow a generic secret's value: the end of the value, not more of it.
_VALUE_END = re.compile(r"[\s\"'`,;&)\]}<\\\u2e80-\u9fff\uff00-\uffef]")


def _runs_on(m: re.Match[str]) -> bool:
    end = m.end("v")
    return end < len(m.string) and not _VALUE_END.match(m.string, end)


def _generic_ok(v: str, m: re.Match[str]) -> bool:
    if v[0] in "./" or _low_diversity(v) or public_match(m):  # paths, placeholders, public
        return False
    if m.end("v") < len(m.string) and m.string[m.end("v")] in "([":  # token=tokenizer.encode(
        return False
    if _runs_on(m):  # SECRET_KEY=abc#$%...: only part of the value; labelled_secret takes it
        return False
    if _DIGIT.search(v):
        return True
    # Without digits only a mixed-case letter run passes; dotted/snake/kebab words are code
    # (pad_token=tokenizer.eos_token) or placeholders (your_api_key_here).
    return bool(_LETTERS.fullmatch(v)) and bool(_UPPER.search(v)) and bool(_LOWER.search(v))


# Order is priority: where two findings overlap, the earlier rule wins, so a JWT after "Bearer"
# is a bearer_token and "api_key=sk-..." an openai_key.
RULES: tuple[Rule, ...] = (
    Rule("private_key", _private_keys, triggers=("-----BEGIN",)),
    Rule("private_key", Value(_PUTTY), triggers=("Private-Lines:",)),
    Rule("bearer_token", Value(_BEARER, _bearer_ok), itriggers=("bearer",)),
    Rule("anthropic_key", Token(_ANTHROPIC, _prefixed_key_ok), triggers=("sk-ant-",)),
    Rule("openai_key", Token(_OPENAI, _prefixed_key_ok), triggers=("sk-",)),
    Rule("github_token", _github, triggers=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    Rule("slack_token", Token(_SLACK, _prefixed_key_ok), triggers=("xox", "xapp-")),
    Rule("pypi_token", Token(_PYPI, _pypi_ok), triggers=("pypi-",)),
    Rule("gitlab_token", Token(_GITLAB, _prefixed_key_ok), triggers=("gl",)),
    Rule("stripe_key", Token(_STRIPE, _prefixed_key_ok), triggers=("_live_", "_test_", "whsec_")),
    Rule("google_api_key", Value(_GOOGLE_KEY), triggers=("AIza",)),
    Rule("google_oauth_token", Token(_GOOGLE_OAUTH, _prefixed_key_ok), triggers=("ya29.",)),
    Rule("slack_webhook", Value(_SLACK_WEBHOOK), triggers=("hooks.slack.com",)),
    Rule("huggingface_token", Token(_HUGGINGFACE, _hf_ok), triggers=("hf_",)),
    Rule("npm_token", Token(_NPM, _prefixed_key_ok), triggers=("npm_",)),
    Rule("sendgrid_key", Token(_SENDGRID, _prefixed_key_ok), triggers=("SG.",)),
    Rule("digitalocean_token", Value(_DIGITALOCEAN), triggers=("_v1_",)),
    *PROVIDER_RULES,
    *SHAPE_RULES,
    Rule("aws_access_key", _aws_keys, triggers=("AKIA", "ASIA")),
    Rule("aws_secret_key", Value(_AWS_SECRET_LABELLED, _aws_labelled_ok), itriggers=("secret",)),
    Rule("jwt", Value(_JWT), triggers=("eyJ",)),
    Rule("url_password", Value(_URL_PASSWORD, _url_password_ok), triggers=("://",)),
    Rule("password", (Value(_PASSWORD, _password_ok), Value(_PASSWORD_ZH, _zh_password_ok),
                      Value(_PASSWORD_PROSE, _prose_pw_ok)),
         triggers=("密码", "密碼"), itriggers=("passw", "pwd", "passphrase", "passcode")),
    Rule("generic_secret", Value(_GENERIC, _generic_ok), itriggers=("key", "secret", "token")),
    *KV_RULES,
    *NEAR_RULES,
)
