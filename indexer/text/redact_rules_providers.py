"""More vendor token formats for the redactor's catalogue: tokens recognisable by a fixed
prefix or a fixed shape, as each vendor documents them.

Each regex starts with a literal (or is guarded by a trigger) so that text without the
literal costs one substring test; possessive quantifiers keep every scan linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from indexer.text.redact_rules_base import Rule, Token, Value
from indexer.text.redact_rules_base import hex_body as _hex_body
from indexer.text.redact_rules_base import random_body as _random_body
from indexer.text.redact_rules_base import token_re as _tok
from indexer.text.redact_rules_base import word as _word

__all__ = ["PROVIDER_RULES"]

_B62 = "A-Za-z0-9"
_B64URL = "A-Za-z0-9_-"


# Telegram bot token: numeric bot id, ":", then 35 characters that start with "AA".
_TELEGRAM = re.compile(r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![\w-])")
# Discord bot token: base64 user id (24-28 characters starting M, N or O), "." timestamp (6)
# "." HMAC (27-40). The regex starts at the first dot, which is far cheaper to scan for than
# the id; _discord walks back over the id.
_DISCORD_TAIL = re.compile(
    r"\.(?<=[A-Za-z0-9]{24}\.)[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}+(?![\w.-])"
)


def _discord(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _DISCORD_TAIL.finditer(text):
        start = _id_start(text, m.start())
        if m.start() - start >= 24 and text[start] in "MNO" and _random_body(
                text[start:m.end()], m):
            yield "discord_token", start, m.end()


def _id_start(text: str, dot: int) -> int:
    """Start of the base64 id that ends at dot, or dot when a word character precedes it."""
    start = dot
    while start > 0 and dot - start < 28 and text[start - 1].isascii() and (
            text[start - 1].isalnum()):
        start -= 1
    if start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_.-"):
        return dot
    return start


# The id is the base64 of the user id's decimal digits: its first two characters are set by
# the first digit (1-9).
_DISCORD_ID_STARTS = ("MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT")


# Discord webhook URL: the id and token after /api/webhooks/.
_DISCORD_WEBHOOK = re.compile(
    r"discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/(?P<v>[A-Za-z0-9_-]{60,70}+)"
)
# Twilio API key SID (SK + 32 hex); the account SID and auth token: redact_rules_shapes.py.
_TWILIO = _tok(("SK",), r"[0-9a-fA-F]{32}(?![A-Za-z0-9])", before="A-Za-z0-9")
# Google OAuth client secret.
_GOOGLE_CLIENT_SECRET = _tok(("GOCSPX-",), rf"[{_B64URL}]{{28}}(?![{_B64URL}])")
# Mailgun: legacy "key-" + 32 hex; the current private key is 32 hex "-" 8 hex "-" 8 hex,
# found from its first dash (cheap to scan for) with the 32 hex checked behind it.
_MAILGUN = re.compile(_word("key-", before="A-Za-z0-9_-") + r"(?P<v>[0-9a-f]{32})(?![0-9a-zA-Z])")
_MAILGUN_NEW = re.compile(
    r"-(?<=(?<![0-9a-zA-Z-])[0-9a-f]{32}-)[0-9a-f]{8}-[0-9a-f]{8}(?![0-9a-zA-Z-])"
)


def _mailgun_new(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _MAILGUN_NEW.finditer(text):
        start = m.start() - 32
        if _hex_body(text[start:m.end()], m):
            yield "mailgun_key", start, m.end()


# Square: access tokens (EAAA... or sq0atp-), OAuth application secrets (sq0csp-).
_SQUARE = _tok(("sq0atp-", "sq0csp-"), rf"[{_B64URL}]{{22,43}}+", before="A-Za-z0-9_-")
_SQUARE_EAAA = _tok(("EAAA",), rf"[{_B64URL}]{{60}}+", before="A-Za-z0-9_-")
# Shopify admin/app tokens: shpat_, shpca_, shppa_, shpss_ + 32 hex.
_SHOPIFY = _tok(("shpat_", "shpca_", "shppa_", "shpss_"), r"[0-9a-fA-F]{32}(?![A-Za-z0-9])")
# Atlassian API tokens (ATATT...) and Confluence/Jira cloud tokens (ATCTT...).
_ATLASSIAN = _tok(("ATATT", "ATCTT"), r"[A-Za-z0-9_=-]{40,}+")
# Azure storage/service-bus connection strings: the key after AccountKey= / SharedAccessKey=.
_AZURE_KEY = re.compile(
    r"(?i:accountkey|sharedaccesskey)[ \t]*=[ \t]*(?P<v>[A-Za-z0-9+/]{20,}+={0,2})"
)
# Azure SAS URLs: the signature parameter (base64, URL-encoded).
_AZURE_SAS = re.compile(r"[?&]sig=(?P<v>[A-Za-z0-9%+/]{20,}+(?:=|%3[Dd]){0,2})")
# HashiCorp Vault service/batch/recovery tokens.
_VAULT = _tok(("hvs.", "hvb.", "hvr."), rf"[{_B64URL}]{{24,}}+", before="A-Za-z0-9_.-")
# age encryption secret keys (bech32, upper case).
_AGE = re.compile(r"AGE-SECRET-KEY-1[0-9A-Z]{58}")
# Grafana service-account (glsa_) and cloud (glc_) tokens.
_GRAFANA = _tok(("glsa_", "glc_"), r"[A-Za-z0-9_=+/-]{32,}+")
# New Relic user/ingest keys.
_NEWRELIC = _tok(("NRAK-", "NRII-", "NRJS-"), r"[A-Z0-9]{27}(?![A-Za-z0-9])")
# Databricks personal access tokens.
_DATABRICKS = _tok(("dapi",), r"[0-9a-f]{32}(?:-[0-9])?(?![A-Za-z0-9])")
# Postman API keys: PMAK- + 24 hex + "-" + 34 hex.
_POSTMAN = _tok(("PMAK-",), r"[0-9a-f]{24}-[0-9a-f]{34}")
# Mailchimp API keys: 32 hex + datacenter suffix.
_MAILCHIMP = re.compile(r"(?<![0-9a-zA-Z])(?P<v>[0-9a-f]{32})-us[0-9]{1,2}(?![0-9A-Za-z])")
# Linear, Notion, Replicate, Groq, Perplexity, xAI, Tailscale, Pulumi, Sentry, Doppler,
# Fly.io, Airtable: tokens with a documented prefix and a random body.
_LINEAR = _tok(("lin_api_",), rf"[{_B62}]{{32,}}+")
_NOTION = _tok(("ntn_", "secret_"), rf"[{_B62}]{{40,50}}+(?![{_B62}])")
_REPLICATE = _tok(("r8_",), rf"[{_B62}]{{37}}(?![{_B62}])")
_GROQ = _tok(("gsk_",), rf"[{_B62}]{{48,}}+")
_PERPLEXITY = _tok(("pplx-",), rf"[{_B62}]{{40,}}+", before="A-Za-z0-9_-")
_XAI = _tok(("xai-",), rf"[{_B62}]{{60,}}+", before="A-Za-z0-9_-")
_TAILSCALE = _tok(("tskey-",), rf"[a-z]+-[{_B62}]{{8,}}+-[{_B62}]{{16,}}+", before="A-Za-z0-9_-")
_PULUMI = _tok(("pul-",), r"[0-9a-f]{40}(?![0-9a-zA-Z])", before="A-Za-z0-9_-")
_SENTRY = _tok(("sntrys_", "sntryu_"), r"[A-Za-z0-9_=+/-]{40,}+")
# Doppler: service tokens name their environment first (dp.st.prd.<body>).
_DOPPLER = _tok(("dp.pt.", "dp.st.", "dp.sa."), rf"(?:[a-z0-9_-]{{2,35}}\.)?[{_B62}]{{40,}}+",
                before="A-Za-z0-9_.-")
_FLY = _tok(("fo1_",), rf"[{_B64URL}]{{40,}}+")
_AIRTABLE = re.compile(r"(?<![A-Za-z0-9])pat[A-Za-z0-9]{14}\.(?P<v>[0-9a-f]{64})(?![0-9a-f])")

# In priority order; all come before the labelled-value rules, so a labelled token is named
# by its vendor and its whole body goes.
PROVIDER_RULES: tuple[Rule, ...] = (
    Rule("telegram_bot_token", Value(_TELEGRAM), triggers=(":AA",)),
    # No literal of its own: run where the text speaks of Discord, bots or tokens, or holds
    # one of the pairs a user id's base64 starts with (a token pasted alone names neither).
    Rule("discord_token", _discord, triggers=_DISCORD_ID_STARTS,
         itriggers=("discord", "token", "bot")),
    Rule("discord_webhook", Value(_DISCORD_WEBHOOK), triggers=("/api/webhooks/",)),
    Rule("twilio_key", Token(_TWILIO, _hex_body), triggers=("SK",)),
    Rule("google_client_secret", Token(_GOOGLE_CLIENT_SECRET, _random_body),
         triggers=("GOCSPX-",)),
    Rule("mailgun_key", Value(_MAILGUN, _hex_body), triggers=("key-",)),
    Rule("mailgun_key", _mailgun_new, itriggers=("mailgun", "key", "mg.")),
    Rule("square_token", Token(_SQUARE, _random_body), triggers=("sq0",)),
    Rule("square_token", Token(_SQUARE_EAAA, _random_body), triggers=("EAAA",)),
    Rule("shopify_token", Token(_SHOPIFY, _hex_body), triggers=("shp",)),
    Rule("atlassian_token", Token(_ATLASSIAN, _random_body), triggers=("ATATT", "ATCTT")),
    Rule("azure_key", Value(_AZURE_KEY, _random_body), itriggers=("accountkey", "accesskey")),
    Rule("azure_sas", Value(_AZURE_SAS, _random_body), triggers=("sig=",)),
    Rule("vault_token", Token(_VAULT, _random_body), triggers=("hvs.", "hvb.", "hvr.")),
    Rule("age_secret_key", Value(_AGE), triggers=("AGE-SECRET-KEY-",)),
    Rule("grafana_token", Token(_GRAFANA, _random_body), triggers=("glsa_", "glc_")),
    Rule("newrelic_key", Token(_NEWRELIC, _random_body), triggers=("NRAK-", "NRII-", "NRJS-")),
    Rule("databricks_token", Token(_DATABRICKS, _hex_body), triggers=("dapi",)),
    Rule("postman_key", Token(_POSTMAN, _hex_body), triggers=("PMAK-",)),
    Rule("mailchimp_key", Value(_MAILCHIMP, _hex_body), triggers=("-us",)),
    Rule("linear_key", Token(_LINEAR, _random_body), triggers=("lin_api_",)),
    Rule("notion_token", Token(_NOTION, _random_body), triggers=("ntn_", "secret_")),
    Rule("replicate_token", Token(_REPLICATE, _random_body), triggers=("r8_",)),
    Rule("groq_key", Token(_GROQ, _random_body), triggers=("gsk_",)),
    Rule("perplexity_key", Token(_PERPLEXITY, _random_body), triggers=("pplx-",)),
    Rule("xai_key", Token(_XAI, _random_body), triggers=("xai-",)),
    Rule("tailscale_key", Token(_TAILSCALE, _random_body), triggers=("tskey-",)),
    Rule("pulumi_token", Token(_PULUMI, _hex_body), triggers=("pul-",)),
    Rule("sentry_token", Token(_SENTRY, _random_body), triggers=("sntrys_", "sntryu_")),
    Rule("doppler_token", Token(_DOPPLER, _random_body), triggers=("dp.pt.", "dp.st.", "dp.sa.")),
    Rule("fly_token", Token(_FLY, _random_body), triggers=("fo1_",)),
    Rule("airtable_token", Value(_AIRTABLE, _hex_body), triggers=("pat",)),
)
