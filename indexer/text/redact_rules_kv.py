"""Labelled secrets for the redactor's catalogue: a secret-sounding name followed by a value
that looks like a credential.

The name may be written as a config key (KEY=value, key: value, JSON, YAML, TOML, XML), a CLI
flag (--api-token x, mysql -pX, curl -u user:x), an HTTP header (Authorization: Basic x) or in
prose ("the api key is x", "口令是 x", "密钥：x"). Only the value is redacted. A name counts
when one of its words (split at _ - . and camelCase) is a secret word such as password, token
or secret, or a pair such as api+key, and none is a word that makes it metadata (max_tokens,
token_count, password_reset_url, private_key_id). A value counts when it is not a placeholder
(xxx, <your-token>, ${VAR}, changeme, ****), not code (os.environ[...], self.password) and not
a plain word (auth: required), and for token-like names when it is long and random-looking.

These rules come after every vendor format in priority, so they only add findings.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from itertools import pairwise

from indexer.text.redact_rules_base import (
    DIGIT,
    LOWER,
    MARKER_PREFIX,
    NAME_PARTS,
    UPPER,
    Anchored,
    Rule,
    Value,
)
from indexer.text.redact_rules_base import label as _label
from indexer.text.redact_rules_public import public_key

__all__ = ["KV_RULES", "PROSE_OWNER", "entropy", "secret_name"]

# --- names ---------------------------------------------------------------------------------------

_PASSWORD_WORDS = frozenset(
    ["password", "passwd", "pwd", "pass", "passphrase", "passcode", "psk"])
# Run together with other words in one all-caps or lower-case name: PGPASSWORD, dbpassword.
_PASSWORD_INFIXES = ("password", "passwd", "passphrase")
_TOKEN_WORDS = frozenset([
    "token", "secret", "credential", "credentials", "creds", "apikey", "auth", "authkey",
    "accesskey", "secretkey", "privatekey", "accountkey", "clientsecret", "authtoken",
    "accesstoken", "refreshtoken", "sas", "signingkey", "masterkey",
    "sk",  # the secret of a cloud's AK/SK pair: ALIYUN_SK, HUAWEI_SK
])
# "<qualifier> key" is a secret (api_key, ACCOUNT_KEY, x-api-key); a bare key is not.
_KEY_QUALIFIERS = frozenset([
    "api", "access", "private", "secret", "account", "signing", "sign", "master", "encryption",
    "auth", "app", "license", "subscription", "shared", "storage", "consumer", "hmac", "jwt",
    "session", "webhook", "deploy", "admin", "service", "crypt", "cipher", "aes",
])
# A name holding one of these words describes a secret rather than holding one.
_META_WORDS = frozenset([
    "count", "counts", "tokens", "max", "min", "limit", "limits", "len", "length", "size",
    "id", "ids", "type", "types", "url", "uri", "urls", "endpoint", "file", "files", "path",
    "dir", "name", "names", "field", "fields", "reset", "hash", "hashed", "expiry", "expires",
    "expiration", "expire", "ttl", "timeout", "time", "at", "policy", "prompt", "header",
    "format", "enabled", "enable", "required", "rotation", "usage", "budget", "window", "mode",
    "method", "kind", "env", "var", "ref", "source", "provider", "strategy", "store",
    "manager", "label", "placeholder", "hint", "help", "description", "rule", "rules", "regex",
    "pattern", "validator", "input", "bucket", "scope", "scopes", "char", "chars", "encoding",
    "estimate", "price", "cost", "output", "version", "stdin", "location", "arn", "prefix",
    "generator", "strength", "question",
    "changed", "last", "salt", "rounds", "algorithm", "algo", "fingerprint", "public", "pub",
    "user", "username", "login", "email", "created", "updated", "step", "form", "page",
    "route", "handler", "class", "module", "vault", "helper", "command", "cmd",
])
# The last words of a name, run together, that name a secret where the words alone do not:
# WeCom's corpsecret, Agora's app certificate (appCertificate, app-certificate), WeChat Pay's
# API v3 key (api-v3-key, apiv3key, API_V3_KEY), appsecret.
_RUN_TOGETHER = re.compile(
    r"(?:corp|app|api|client|consumer|master|private|signing|shared)(?:v[0-9]+)?secret"
    r"|(?:app|api)(?:v[0-9]+)?certificate|api(?:v[0-9]+)key")


def _name_words(name: str) -> list[str]:
    return [w.lower() for w in NAME_PARTS.findall(name)]


@lru_cache(maxsize=4096)
def secret_name(name: str) -> str | None:
    """"password" or "token" when name (an identifier) names a secret of that family
    ("certificate" for an app certificate, a secret of a narrower shape)."""
    words = _name_words(name)
    if not words or any(w in _META_WORDS for w in words):
        return None
    if any(w in _PASSWORD_WORDS or any(i in w for i in _PASSWORD_INFIXES) for w in words):
        return "password"
    joined = "".join(words)
    if any(w in _TOKEN_WORDS for w in words) or joined in _TOKEN_WORDS:
        return "token"
    if any(b == "key" and a in _KEY_QUALIFIERS for a, b in pairwise(words)):
        return "token"
    for i in range(len(words)):
        if (run := _RUN_TOGETHER.fullmatch("".join(words[i:]))) is not None:
            return "certificate" if run.group().endswith("certificate") else "token"
    return None


# --- values --------------------------------------------------------------------------------------

_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff]")
_SYMBOL = re.compile(r"[^A-Za-z0-9\u2e80-\u9fff\uf900-\ufaff]")
_ASCII_ALNUM = re.compile(r"[A-Za-z0-9]")
_PLACEHOLDER = re.compile(
    r"(?i)your[-_ ]?|[-_]here\b|example|placeholder|change[-_]?me|redacted|dummy|sample|"
    r"<|>|\{\{|\}\}|xxx|\.\.\.|…|^(?:secret|password|token|none|null|nil|true|false|yes|no|on"
    r"|off|required|optional|empty|n/a|tbd|todo|test|string|str|bool|int|env|default|hidden"
    r"|masked|bearer|basic|undefined|include|omit|same-origin)$"
)
# Code, not a value: calls and subscripts, attribute access, SCREAMING or snake variable names.
_CODE = re.compile(
    r"[A-Za-z_][\w.]*[(\[].*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
    r"|[a-z][a-z0-9]*(?:_[a-z0-9]+)+",
    re.DOTALL,
)
# One segment of a dictionary word: lower, Title, UPPER, maybe a short number after it.
_WORDLIKE = re.compile(r"(?:[a-z]+|[A-Z][a-z]+|[A-Z]+)[0-9]{0,2}|[0-9]{1,4}")
_SEGMENTS = re.compile(r"[-_./]")
_NUMBERS = re.compile(r"[0-9]+(?:[-./:][0-9]+)+")


def entropy(value: str) -> float:
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _usable(v: str) -> bool:
    """Not a marker, placeholder, reference, mask, path, URL or piece of code."""
    if not v or v[0] in "[${<%~#*/." or MARKER_PREFIX in v or "://" in v:
        return False
    if v[0] == "!" and v[1:].isalpha():  # a YAML tag: password: !vault |
        return False
    if _PLACEHOLDER.search(v) or len(set(v.lower())) < 4:
        return False
    return not _CODE.fullmatch(v)


def _plain_words(v: str) -> bool:
    # "required", "same-origin", "Hello-World2": every segment reads as a word
    return all(_WORDLIKE.fullmatch(s) for s in _SEGMENTS.split(v) if s)


@lru_cache(maxsize=4096)
def password_like(v: str) -> bool:
    """A password: six or more characters, not a plain word; Chinese mixed with at least four
    ASCII letters or digits (one of them a digit) counts, Chinese alone does not."""
    if not _usable(v) or len(v) < 6:
        return False
    if _CJK.search(v):
        ascii_alnum = _ASCII_ALNUM.findall(v)
        return len(ascii_alnum) >= 4 and bool(DIGIT.search(v))
    if v.isalpha():  # random letters (QQ mail authorization codes), not a dictionary word
        return len(v) >= 12 and entropy(v) >= 3.4
    if v.isdigit():
        return len(v) >= 6
    if _NUMBERS.fullmatch(v):  # a date, time, version or address: 2026-01-12, 10.0.0.8
        return False
    return not _plain_words(v) or bool(_SYMBOL.search(v.strip("-_.")))


@lru_cache(maxsize=4096)
def token_like(v: str) -> bool:
    """An API token or key: twelve or more characters of mixed classes, random-looking."""
    if not _usable(v) or len(v) < 12 or _CJK.search(v) or v.isdigit():
        return False
    if _plain_words(v):
        return False
    classes = sum(bool(r.search(v)) for r in (LOWER, UPPER, DIGIT))
    return classes >= 2 and entropy(v) >= 3.0


# --- patterns ------------------------------------------------------------------------------------

# Characters that end an unquoted value: whitespace, quotes, comma, semicolon, angle brackets,
# backslash (a JSON escape), CJK punctuation and full-width forms; "&" only before "name=".
_STOP = r"\s\"'`,;<>\\\u2018-\u201f\u3000-\u303f\uff00-\uffef"
_UNQUOTED = rf"(?:[^{_STOP}&\u2e80-\u9fff]|&(?![A-Za-z_]\w*=))++"
_VALUE = (
    r"(?:\\\"(?P<v1>[^\"\\\n]{1,512})\\\""
    r"|\"(?P<v2>[^\"\\\n]{1,512})\""
    r"|'(?P<v3>[^'\\\n]{1,512})'"
    r"|`(?P<v4>[^`\\\n]{1,512})`"
    rf"|(?P<v5>{_UNQUOTED})(?P<trim>))"
)
# KEY=value, key: value, "key": "value", key = "value" (TOML), KEY => value, key := value.
_KV = re.compile(
    r"(?<![\w.$-])(?P<name>[A-Za-z_][A-Za-z0-9_.-]{1,63}+)(?:\*\*)?\\?[\"'`]?(?:\*\*)?"
    r"[ \t]*(?:=>|:=|[:=：＝])[ \t]*(?:\*\*)?[ \t]*" + _VALUE
)
# CLI flags with a space or "=": --api-token x, --client-secret=x.
_FLAG = re.compile(r"--(?<![\w-]--)(?P<name>[A-Za-z][A-Za-z0-9-]{1,63}+)(?:=|[ \t]+)" + _VALUE)
# Password flags of particular tools: mysql -pX (attached), sshpass -p X, redis-cli -a X,
# docker login -p X.
_TOOL_PASSWORD = re.compile(
    r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]{0,200}?[ \t]-p(?P<v1>[^\s'\"-][^\s'\"]*+)"
    r"|\bsshpass[ \t]+-p[ \t]*['\"]?(?P<v2>[^\s'\"]++)"
    r"|\bdocker[ \t]+login\b[^\n|;&]{0,200}?[ \t]-p[ \t]+['\"]?(?P<v4>[^\s'\"-][^\s'\"]*+)"
    r"|\bredis-cli\b[^\n|;&]{0,200}?[ \t]-a[ \t]+(?P<v3>[^\s'\"-][^\s'\"]*+)"
)
# curl/wget style user:password after -u / --user.
_USER_FLAG = re.compile(
    r"(?:-u|--user)(?<![\w-]-u)(?<![\w-]--user)[ \t]+[\"']?[^\s:\"'$]++:(?P<v>[^\s\"'@]++)"
)
# .netrc: machine host login user password secret.
_NETRC = re.compile(r"\bmachine[ \t]+\S+(?:[ \t]+login[ \t]+\S+)?[ \t]+password[ \t]+(?P<v>\S+)")
# XML elements: <password>x</password>, <apiKey>x</apiKey>.
_XML = re.compile(r"<(?P<name>[A-Za-z_][\w.-]{1,63}+)>(?P<v>[^<>\s]{1,256})</(?P=name)>")
# HTTP Authorization header with a scheme other than Bearer (bearer_token has that one).
_AUTH_HEADER = re.compile(
    _label("A-Za-z0-9-", "authorization")
    + r"\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?[ \t]*(?i:basic|token|bot|apikey|sso-key)[ \t]+"
    r"(?P<v>[A-Za-z0-9+/._~=-]{8,}+)"
)
# What a secret in prose is for, between its name and "is": "the password for the NAS is x",
# "the api key of the staging bot was x" (one to three words).
PROSE_OWNER = r"(?:[ \t]+(?:for|of|on|to|at)(?:[ \t]+[\w.'-]{1,32}+){1,3}?)?"
# English prose: "the api key is x", "my access token was: x".
_PROSE = re.compile(
    _label(
        "A-Za-z0-9", "api key", "api token", "access key", "access token", "secret key",
        "secret", "token", "client secret", "auth token", "private key",
    )
    + PROSE_OWNER + r"[ \t]+(?:is|was|would be|will be|=)[ \t]*:?[ \t]*" + _VALUE
)
# PHP constants: define('DB_PASSWORD', 'x'), WordPress's define( 'AUTH_KEY', 'x' ).
_DEFINE = re.compile(
    r"\bdefine[ \t]*\([ \t]*[\"'](?P<name>[A-Za-z_][A-Za-z0-9_]{1,63}+)[\"'][ \t]*,[ \t]*"
    + _VALUE
)
# WordPress's keys and salts (wp-config.php): secrets although "salt" names metadata elsewhere.
_WORDPRESS = re.compile(r"(?:SECURE_AUTH|AUTH|LOGGED_IN|NONCE)_(?:KEY|SALT)")
# YAML with the value alone on the next line, plain or a block scalar (| or >):
#   password:            api_token: >-
#     Xk9mP2qL7vR4           ghx9Kq2mV9pL4rT8...
_YAML_NEXT_LINE = re.compile(
    r"(?m)^(?P<indent>[ \t]*)(?:- )?(?P<name>[A-Za-z_][A-Za-z0-9_.-]{1,63}+):"
    r"[ \t]*(?:[|>][-+]?[0-9]?)?[ \t]*\r?\n(?P=indent)[ \t]+[\"']?"
    r"(?P<v>[^\s\"'#]{1,512}+)(?<!:)[\"']?[ \t]*\r?$"  # (a value, not the next key)
)
_ZH_PASSWORD = "密码|密碼|(?<!淘)口令|授权码|授權碼|通行码"  # 淘口令: a shop's share code
_ZH_TOKEN = "密钥|密鑰|秘钥|秘鑰|令牌|私钥|私鑰|凭证|凭据|憑證|访问码|token|Token|TOKEN"
# "changed to": 口令改成 x, 密码换成了 x, 令牌更新为 x.
_ZH_CHANGED_TO = "(?:改成|改为|改為|换成|換成|换为|設為|设为|设成|设置为|设置成|更新为|变成|變成)了?"
# Chinese: 口令是 x / 密钥：x / 令牌=x / 密码 x (a bare space only before a strong value).
_ZH = re.compile(
    rf"(?P<zh>{_ZH_PASSWORD}|{_ZH_TOKEN})[ \t]*"
    rf"(?:(?P<sep>[:：=＝]|(?:[是为為]|{_ZH_CHANGED_TO})[ \t]*[:：]?)|(?P<space>[ \t]))"
    r"[ \t]*[\"'“「『]?"
    r"(?P<v>[^\s，。；、！？,;\"'“”「」『』()（）]{1,128})(?P<trim>)"
)


def _public(m: re.Match[str]) -> bool:
    """The value is a key public by design (redact_rules_public.py): a key id, a site-search
    key by its name or its DocSearch configuration."""
    start = next(m.start(g) for g in m.re.groupindex if g[0] == "v" and m.group(g) is not None)
    return public_key(m.string, start, m.group("name"))


def _named(family: Callable[[str], str | None]) -> Callable[[str, re.Match[str]], bool]:
    """A check that asks the name's family which value test applies."""

    def check(v: str, m: re.Match[str]) -> bool:
        if _public(m):
            return False
        kind = family(m.group("name"))
        if kind == "password":
            return password_like(v)
        if kind == "certificate":  # Agora's is 32 hex; a certificate itself (PEM) is public
            return _SHORT_KEY.fullmatch(v) is not None and token_like(v)
        return kind == "token" and token_like(v)

    return check


_SHORT_KEY = re.compile(r"[A-Za-z0-9]{16,64}")


def _define_ok(v: str, m: re.Match[str]) -> bool:
    if _WORDPRESS.fullmatch(m.group("name")):
        # generated from printable ASCII, "<" and "{" included, which elsewhere mean a
        # placeholder; WordPress's own is "put your unique phrase here"
        return len(v) >= 32 and " " not in v and entropy(v) >= 4.0
    return _by_name_ok(v, m)


def _by_name_ok(v: str, m: re.Match[str]) -> bool:
    if _public(m):
        return False
    kind = secret_name(m.group("name"))
    return password_like(v) if kind == "password" else kind == "token" and token_like(v)


# The secret half of a cloud's AK/SK pair (Huawei Cloud, Qiniu, JD Cloud, Baidu, Volcengine)
# under a name whose last word is SK (sk:, HUAWEI_SK=, obs.sk): 24 to 64 characters of base64
# or hex; "sk" alone is also Slovak in a locale file, whose strings are not that shape.
_AKSK_SECRET = re.compile(r"[A-Za-z0-9+/=_-]{24,64}")


def _aksk_ok(v: str, m: re.Match[str]) -> bool:
    words = _name_words(m.group("name"))
    return (bool(words) and words[-1] == "sk" and secret_name(m.group("name")) == "token"
            and _AKSK_SECRET.fullmatch(v) is not None and token_like(v) and not _public(m))


def _password_value_ok(v: str, m: re.Match[str]) -> bool:
    return password_like(v)


def _header_ok(v: str, m: re.Match[str]) -> bool:
    return _usable(v) and len(set(v)) >= 6


def _prose_ok(v: str, m: re.Match[str]) -> bool:
    return token_like(v)


def _zh_ok(v: str, m: re.Match[str]) -> bool:
    if m.group("space") is not None:  # 密码 Abc@12345: no separator, so only a strong value
        return _strong(v)
    if re.fullmatch(_ZH_PASSWORD, m.group("zh")):
        return password_like(v)
    if _CJK.search(v):  # 密钥：中文Mixed2024 — Chinese with letters and digits
        return password_like(v) and len(v) >= 8
    return token_like(v)


def _strong(v: str) -> bool:
    if _CJK.search(v):
        return False
    if token_like(v):
        return True
    return password_like(v) and len(v) >= 8 and bool(DIGIT.search(v) and _SYMBOL.search(v))


_NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"
_KV_WORDS = ("pass", "pwd", "psk", "secret", "token", "key", "cred", "auth", "sas",
             "certificate")
_PROSE_WORDS = ("api key", "api token", "access key", "access token", "secret", "token",
                "client secret", "auth token", "private key")
_TOOLS = ("mysql", "mariadb", "sshpass", "redis-cli", "docker")
# Where the AK/SK rule tries a name: "sk" before what may follow a name, not "sk" alone (ask,
# task, disk are everywhere).
_SK_WORDS = ("sk:", "sk=", 'sk"', "sk'", "sk\\", "sk =", "sk :", "sk：")

# After every named format: these only add findings where nothing more specific matched.
KV_RULES: tuple[Rule, ...] = (
    Rule("auth_header", Anchored(_AUTH_HEADER, _header_ok, ("authorization",)),
         itriggers=("authorization",)),
    Rule("labelled_secret", Anchored(_KV, _named(secret_name), _KV_WORDS, _NAME_CHARS),
         itriggers=_KV_WORDS),
    Rule("labelled_secret", Anchored(_KV, _aksk_ok, _SK_WORDS, _NAME_CHARS), itriggers=_SK_WORDS),
    Rule("cli_secret", Anchored(_FLAG, _named(secret_name), ("--",)), triggers=("--",)),
    Rule("cli_secret", Anchored(_TOOL_PASSWORD, _password_value_ok, _TOOLS), itriggers=_TOOLS),
    Rule("cli_secret", Anchored(_USER_FLAG, _password_value_ok, ("-u", "--user")),
         triggers=("-u",)),
    Rule("cli_secret", Anchored(_NETRC, _password_value_ok, ("machine",)), triggers=("machine",)),
    Rule("labelled_secret", Value(_XML, _by_name_ok), triggers=("</",)),
    Rule("labelled_secret", Value(_DEFINE, _define_ok), triggers=("define",)),
    Rule("labelled_secret", Anchored(_YAML_NEXT_LINE, _named(secret_name), _KV_WORDS,
                                     _NAME_CHARS + " \t-"), itriggers=_KV_WORDS),
    Rule("labelled_secret", Anchored(_PROSE, _prose_ok, _PROSE_WORDS),
         itriggers=("secret", "token", "key")),
    Rule("labelled_secret", Value(_ZH, _zh_ok),
         triggers=("密", "口令", "授", "令牌", "秘钥", "秘鑰", "私钥", "私鑰", "凭", "憑", "访问码",
                   "token", "Token", "TOKEN", "通行码")),
)
