"""API tokens: each with a name, a tenant, a scope and maybe an expiry; only a hash of its secret
is kept, and the token itself is shown once, when it is made.

A token reads `rcl_<id>_<secret>`: the id finds its row, the secret is compared by hash in
constant time. Scopes rank read < write < admin; each includes the ones below it."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass

from indexer.stores.layout import DataDir
from indexer.stores.sqlite import SQLiteStore, transaction
from models import InvalidInput

__all__ = ["SCOPES", "ApiToken", "TokenStore", "check_token_name", "scope_covers"]

SCOPES = ("read", "write", "admin")
PREFIX = "rcl_"

# a name shows in lists, the audit log and a per-name rate limit: printable, short, one line
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
# names the server gives principals that are not tokens of the store (api/http/auth.py and the
# command line's audit lines): a token under one would pass for them
RESERVED_NAMES = frozenset({"recall_api_token", "local"})


def check_token_name(name: str) -> str:
    """Return name if a token may have it, else raise InvalidInput saying why."""
    if not NAME_PATTERN.fullmatch(name):
        raise InvalidInput(f"token name {name[:80]!r} is not allowed: use 1-64 letters, digits, "
                           "'.', '_', '@' or '-', starting with a letter or digit")
    if name.lower() in RESERVED_NAMES:
        raise InvalidInput(f"token name {name!r} is reserved: choose another")
    return name

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tokens (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    tenant TEXT NOT NULL,
    scope TEXT NOT NULL,
    hash TEXT NOT NULL,
    created REAL NOT NULL,
    expires REAL,
    revoked REAL
);
"""


def scope_covers(held: str, needed: str) -> bool:
    return SCOPES.index(held) >= SCOPES.index(needed)


@dataclass(frozen=True, slots=True)
class ApiToken:
    id: str
    name: str
    tenant: str
    scope: str
    created: float
    expires: float | None
    revoked: float | None

    def live(self, now: float) -> bool:
        return self.revoked is None and (self.expires is None or self.expires > now)


class TokenStore(SQLiteStore):
    def __init__(self, data: DataDir) -> None:
        super().__init__(data.root / "tokens.sqlite3", _SCHEMA)

    def create(self, name: str, tenant: str, scope: str,
               expires: float | None = None) -> tuple[ApiToken, str]:
        """A new token and its text, which is not kept: show it once."""
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {', '.join(SCOPES)}")
        check_token_name(name)
        token_id, secret = secrets.token_hex(6), secrets.token_urlsafe(24)
        row = ApiToken(token_id, name, tenant, scope, time.time(), expires, None)
        with transaction(self._db):
            self._db.execute("INSERT INTO tokens VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                             (row.id, name, tenant, scope, _hash(secret), row.created,
                              expires, None))
        return row, f"{PREFIX}{token_id}_{secret}"

    def all(self) -> list[ApiToken]:
        rows = self._db.execute(
            "SELECT id, name, tenant, scope, created, expires, revoked FROM tokens "
            "ORDER BY created").fetchall()
        return [ApiToken(*r) for r in rows]

    def revoke(self, id_or_name: str) -> ApiToken | None:
        with transaction(self._db):
            self._db.execute("UPDATE tokens SET revoked = ? WHERE (id = ? OR name = ?) "
                             "AND revoked IS NULL", (time.time(), id_or_name, id_or_name))
        return next((t for t in self.all() if id_or_name in (t.id, t.name)), None)

    def any(self) -> bool:
        return self._db.execute("SELECT 1 FROM tokens LIMIT 1").fetchone() is not None

    def find(self, text: str) -> ApiToken | None:
        """The token this text is, whether live or not; None for no token of this store."""
        if not text.startswith(PREFIX):
            return None
        token_id, _, secret = text[len(PREFIX):].partition("_")
        found = self._db.execute(
            "SELECT id, name, tenant, scope, created, expires, revoked, hash FROM tokens "
            "WHERE id = ?", (token_id,)).fetchone()
        if found is None or not hmac.compare_digest(found[7], _hash(secret)):
            return None
        return ApiToken(*found[:7])


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()
