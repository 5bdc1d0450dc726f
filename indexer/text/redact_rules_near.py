"""High-entropy tokens next to a credential word: a random-looking run of letters and digits
with a word such as token, api key, password, 密钥, 令牌 or 口令 a few words before it on its
line ("here is the prod api key for the bot Zk3p…", "令牌发你了 Zk3p…") or right after it
("Zk3p… is my token", "Zk3p… 是新的密钥").

The labelled-value rules (redact_rules_kv.py) need the value right after its name and a
separator; these need neither, so the value must look far more random: sixteen or more
characters holding a digit and both cases, or a long hex or lowercase-and-digit run. Words
that make the run metadata (id, hash, fingerprint, commit, public, ...) between the credential
word and the run, and runs that read as code, paths or words, are left alone.

After every other rule in priority, so they only add findings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from indexer.text.redact_rules_base import (
    DIGIT,
    LOWER,
    MARKER_PREFIX,
    NAME_PARTS,
    UPPER,
    Rule,
    label,
)
from indexer.text.redact_rules_kv import entropy
from indexer.text.redact_rules_public import public_key

__all__ = ["NEAR_RULES"]

# Credential words. English ones stand as a word, perhaps with a qualifier (api_key,
# access-token, "bot token"), but not inside a longer name (tokenizer, sort_key, key_id).
# Bare "key" is one too: the value checks, not the word, keep "the key point" out.
_EN_WORDS = ("tokens?", "keys?", "apikeys?", "secrets?", "passwords?", "passwd", "passphrase",
             "passcode", "credentials?", "creds")
_QUALIFIERS = ("api", "access", "secret", "auth", "private", "app", "client", "bot", "refresh",
               "session", "bearer", "license", "personal", "deploy", "admin")
_ZH_WORDS = ("密钥", "密鑰", "秘钥", "秘鑰", "令牌", "口令", "密码", "密碼", "授权码", "授權碼",
             "凭证", "凭据", "憑證", "私钥", "私鑰", "访问码", "通行码")
_WORD = re.compile(
    r"(?<![A-Za-z0-9_.-])(?i:(?:" + "|".join(_QUALIFIERS) + r")[ _-]?)?(?i:(?P<en>"
    + "|".join(_EN_WORDS) + r"))(?![A-Za-z0-9_-])|" + "|".join(_ZH_WORDS))
_BARE_KEY = re.compile(r"(?i)keys?")
_HASH_LENGTHS = frozenset([40, 64, 128])  # SHA-1, SHA-256, SHA-512 in hex
_CLOSE = 12  # at most this many characters between a word and a hex or base36 run
# Nothing but separators and "is" between a word and a hash-length run: "token: x", "密钥是 x".
_GLUE = re.compile(r"(?i)[\s:=：＝,，-]*(?:(?:is|was|是|为)[\s:=：＝]*)?")
# A candidate value: a run of token characters, not part of a longer run.
_RUN = re.compile(r"(?<![A-Za-z0-9_+/=.~-])[A-Za-z0-9_-][A-Za-z0-9_+/=.~-]{15,511}+")
_BEFORE = 48  # characters before the run where the credential word may stand
_AFTER = 32  # and after it ("… <- that's the staging token")
_NAME_EQUALS = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}=")  # a name= glued to its value
_LONGEST = 200  # longer runs are blobs; longer token formats have rules of their own
# Words between the credential word and the run that make the run something other than the
# secret (a key's id or fingerprint, a commit, a public key, a count), in either language.
_META_WORDS = (
    r"(?<![a-z])(?:ids?|hash(?:es)?|sha[0-9]*|md5|fingerprints?|checksums?|commits?|"
    r"public|pub|counts?|lengths?|limits?|urls?|paths?|files?|names?|usernames?|users?|"
    r"emails?|accounts?|uuids?|nonces?|salts?|ivs?|seeds?|digests?|signatures?|versions?|"
    r"revisions?|blocks?|models?|vocab|embeddings?|tokenizers?)(?![a-z])"
    r"|编号|指纹|哈希|公钥|公鑰|账号|帐号|用户名|数量|长度|版本|提交")
_META = re.compile(_META_WORDS, re.IGNORECASE)
# A run right after such a word is what it names: "zone id X (not the API token)".
_AFTER_META = re.compile(rf"(?:{_META_WORDS})[\s:=：＝#]*$", re.IGNORECASE)
_META_REACH = 24  # characters before the run where that word is looked for
# Keys that are public by design (a Stripe publishable key, a reCAPTCHA site key, a Mapbox
# public token): the word before the credential word says so.
# A search-only key (Algolia's, Typesense's) is one too.
_PUBLIC_QUALIFIER = re.compile(
    r"(?i)(?<![a-z])(?:site|publishable|public|pub|search[ _-]only)[ _-]?$")
# Runs that are something else: UUIDs, lockfile integrity hashes, SSH public key bodies, paths.
_NOT_A_SECRET = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    r"|(?:sha(?:1|256|384|512)|md5)[-:].*|AAAA.*"
    # Stripe's publishable keys and object ids (request, charge, customer, ...), Mapbox public
    # tokens, Ethereum addresses: ids and keys meant to be seen
    r"|pk_(?:live|test)_.*|pk\.eyJ.*|0x[0-9a-fA-F]{40}"
    r"|(?:req|ch|py|cus|pi|pm|seti|sub|evt|prod|price|in|txn|acct|po|tr)_[A-Za-z0-9]{14,}",
    re.DOTALL)
_HEX = re.compile(r"[0-9a-fA-F]+")
_FILE_NAME = re.compile(r"\.[a-z]{2,4}$")  # photo_8f3a2c.png
_WORDY = 3.5  # mean part length of names (PBKDF2PasswordHasher: 5); random runs' is under 2
_SEPARATORS = re.compile(r"[-_./+=~]")
_WORD_SEGMENT = re.compile(r"[a-z]+|[A-Z][a-z]+|[A-Z]+|[0-9]+")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|[。！？\n]")


def high_entropy(run: str) -> str | None:
    """"mixed" for a run that looks generated with a digit and both cases, "hex" for a long
    hex run and "base36" for a long run of one case and digits (either could be a hash or a
    name, so they need more from their context), None for a run with dictionary-word
    structure, too short or too regular."""
    if MARKER_PREFIX[1:-1] in run or _NOT_A_SECRET.fullmatch(run) or _FILE_NAME.search(run):
        return None
    parts = NAME_PARTS.findall(run)
    if not parts or len("".join(parts)) / len(parts) >= _WORDY:  # a.b.PasswordHasher, words
        return None
    if all(_WORD_SEGMENT.fullmatch(s) for s in _SEPARATORS.split(run) if s):  # RECALL_S3_TLS
        return None
    digit, upper, lower = (bool(r.search(run)) for r in (DIGIT, UPPER, LOWER))
    if digit and upper and lower:
        return "mixed" if len(run) >= 16 and entropy(run) >= 3.5 else None
    if _HEX.fullmatch(run):  # hex of one case: a key of 128 bits or more
        strong = len(run) >= 32 and digit and not run.isdigit() and entropy(run) >= 3.0
        return "hex" if strong else None
    # one case and digits (base36 keys): long, with digits spread through it
    spread = sum(c.isdigit() for c in run) >= len(run) // 6
    strong = digit and (upper or lower) and len(run) >= 24 and entropy(run) >= 3.8 and spread
    return "base36" if strong else None


# Hex runs are also hashes, commits and key fingerprints: a line that speaks of those keeps
# them, and "key" alone does not name a secret for them (a GPG key's fingerprint).
_HASH_WORDS = re.compile(
    r"(?i)(?<![a-z])(?:git|commits?|sha[0-9]*|md5|hash(?:es)?|digests?|checksums?|gpg|pgp|"
    r"fingerprints?|recv-keys|keyid|blobs?|trees?|refs?|hex)(?![a-z])|哈希|提交|指纹|校验")


def _credential_word_near(text: str, start: int, end: int, shape: str) -> bool:
    """A credential word on the run's line: a few words before it with no metadata word or
    sentence end between, or right after it."""
    line_start = text.rfind("\n", 0, start) + 1
    before = text[max(line_start, start - _BEFORE):start]
    line_end = text.find("\n", end)
    after = text[end:min(end + _AFTER, line_end if line_end >= 0 else len(text))]
    if shape != "mixed" and (_HASH_WORDS.search(before) or _HASH_WORDS.search(after)):
        return False

    def names_it(m: re.Match[str]) -> bool:
        if _PUBLIC_QUALIFIER.search(m.string, max(0, m.start() - 13), m.start()):
            return False
        if not _BARE_KEY.fullmatch(m.group()):
            return True
        # "key" alone: not a quoted name ("key": x), nor before a hash's length of hex (a GPG
        # key's 40-hex fingerprint)
        around = m.string[max(0, m.start() - 1):m.end() + 1]
        if any(q in around for q in "\"'`") or shape == "base36":
            return False
        return shape == "mixed" or end - start not in _HASH_LENGTHS

    def close(between: str) -> bool:
        if _META.search(between) or _SENTENCE_END.search(between):
            return False
        if shape == "mixed":
            return True
        # hex and base36 runs are also ids and hashes: the word must be right beside them
        if end - start in _HASH_LENGTHS:
            return _GLUE.fullmatch(between) is not None
        return len(between.strip()) <= _CLOSE

    for m in _WORD.finditer(before):
        if names_it(m) and close(before[m.end():]):
            return True
    word = _WORD.search(after)
    if word is None or not names_it(word):
        return False
    return close(after[:word.start()]) and not _META.search(
        after[word.start():word.end() + 16])  # "… is my token id"


def _near_secrets(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _RUN.finditer(text):
        if text.startswith("(", m.end()):  # a call: OAuth2PasswordBearer(tokenUrl=...)
            continue
        start = m.start()
        if text.startswith(("\\n", "\\r", "\\t"), start - 1):  # a JSON-escaped line break
            start += 1
        if (name := _NAME_EQUALS.match(text, start, m.end())) is not None:
            if _META.search(name.group()):  # trace_id=…, request_id=…
                continue
            start = name.end()  # judge the value: "secret=" is a label, not part of it
        line_start = text.rfind("\n", 0, start) + 1
        if _AFTER_META.search(text, max(line_start, start - _META_REACH), start):
            continue
        run = text[start:m.end()].rstrip(".")  # a sentence's full stop after the run
        if len(run) > _LONGEST or text.endswith(("base64,", "data:"), 0, start):
            continue  # a blob (an image, a file), not a token
        shape = high_entropy(run)
        if shape and _credential_word_near(text, start, start + len(run), shape) and (
                not public_key(text, start)):  # a key id, a DocSearch key (…_public.py)
            yield "near_secret", start, start + len(run)


# --- passwords a few words after their word ---------------------------------------------------

# "reset the router password to X", "服务器密码已改为 X": a password holds symbols, which end a
# run above, so after a password word the first whitespace-delimited word that holds all four
# classes (upper, lower, digit, symbol) is taken.
_PW_WORD = re.compile(
    r"(?<![A-Za-z0-9_.-])(?i:passwords?|passwd|passphrase|passcode|pwd)(?![A-Za-z0-9_-])"
    r"|密码|密碼|口令")
_PW_LONGEST = 64
_PW_CANDIDATE = re.compile(
    rf"[^\s，。；、！？,;\"'“”「」『』()（）<>\u2e80-\u9fff]{{8,{_PW_LONGEST}}}")
_PW_SYMBOL = re.compile(r"[!@#$%^&*+=?~_.:/-]")
_PW_AFTER = 32  # characters after the word where the password may start
_NOT_A_PASSWORD = re.compile(r"[^@\s]+@[\w-]+\.[A-Za-z]|.*://|[/~$%{<\[].*", re.DOTALL)


def password_like_word(v: str) -> bool:
    """Upper, lower, digit and symbol in one word that is not an address, path or reference."""
    v = v.rstrip(".!?:")
    if len(v) < 8 or _NOT_A_PASSWORD.match(v) or MARKER_PREFIX[1:-1] in v:
        return False
    return all(r.search(v) for r in (DIGIT, UPPER, LOWER, _PW_SYMBOL)) and entropy(v) >= 3.0


def _near_passwords(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _PW_WORD.finditer(text):
        stop = text.find("\n", m.end(), m.end() + _PW_AFTER)
        window_end = stop if stop >= 0 else min(len(text), m.end() + _PW_AFTER)
        # bounded: a search to the end of the text from every word would be quadratic
        candidate = _PW_CANDIDATE.search(text, m.end(), window_end + _PW_LONGEST)
        if candidate is None or candidate.start() >= window_end:
            continue
        between = text[m.end():candidate.start()]
        if _META.search(between) or _SENTENCE_END.search(between):
            continue
        value = candidate.group().rstrip(".!?:")
        if password_like_word(value):
            yield "password", candidate.start(), candidate.start() + len(value)


# --- a credential word, what it is for, a colon, the value ----------------------------------

# "password for the ci user on the build VM: X", "token for the staging deploy bot: X": what
# the secret is for may name a user or an account (words that elsewhere mean metadata), so the
# near-word rule above passes over it; here the phrase is short (one to eight words on the
# line, no sentence end), a colon closes it and the value right after is a generated run.
_OWNED = re.compile(
    "(?P<word>" + label(
        "A-Za-z0-9_.-", "passwords?", "passwd", "passphrase", "passcode", "tokens?",
        "secrets?", "credentials?", *(q + "[ _-]?(?:keys?|tokens?)"
                                       for q in ("api", "access", "secret", "private", "auth")))
    + r")[ \t]+(?i:for|of)(?P<phrase>(?:[ \t]+[\w'/-]{1,32}+){1,8}?)[ \t]*[:：][ \t]*"
    r"(?P<v>[A-Za-z0-9_-][A-Za-z0-9_+/=.~-]{15,199}+)(?![A-Za-z0-9_+/=.~-])")
_OWNER_WORDS = frozenset(["user", "users", "account", "accounts"])


def _owned_secrets(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _OWNED.finditer(text):
        if any(w.group().lower() not in _OWNER_WORDS for w in _META.finditer(m.group("phrase"))):
            continue  # "the token for the zone id: X" names the id
        run = m.group("v").rstrip(".")
        if high_entropy(run) == "mixed" and not public_key(text, m.start("v")):
            kind = "password" if m.group("word")[0] in "Pp" else "near_secret"
            yield kind, m.start("v"), m.start("v") + len(run)


_ITRIGGERS = ("token", "key", "secret", "passw", "passphrase", "passcode", "cred")

NEAR_RULES: tuple[Rule, ...] = (
    Rule("near_secret", _near_secrets, triggers=_ZH_WORDS, itriggers=_ITRIGGERS),
    Rule("password", _near_passwords, triggers=("密码", "密碼", "口令"),
         itriggers=("passw", "passphrase", "passcode", "pwd")),
    Rule("near_secret", _owned_secrets, itriggers=_ITRIGGERS),
)
