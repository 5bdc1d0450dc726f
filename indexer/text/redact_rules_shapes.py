"""Credentials recognised by their shape alone, with no label beside them: a documented prefix
with a fixed alphabet and length, a fixed layout of parts, or a cloud key id whose secret
follows it on the same line.

Each regex starts with a literal (or is guarded by a trigger) so that text without it costs one
substring test; possessive quantifiers keep every scan linear. Formats as each vendor
documents them (or as its own secret scanners describe them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from indexer.text.redact_rules_base import DIGIT, LOWER, UPPER, Rule, Token, Value, low_diversity
from indexer.text.redact_rules_base import hex_body as _hex_body
from indexer.text.redact_rules_base import random_body as _random_body
from indexer.text.redact_rules_base import token_re as _tok
from indexer.text.redact_rules_base import word as _word
from indexer.text.redact_rules_login import LOGIN_RULES

__all__ = ["SHAPE_RULES"]

_B62 = "A-Za-z0-9"
_B64URL = "A-Za-z0-9_-"
_END = r"(?![A-Za-z0-9_-])"  # the body ends the token
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def _mixed(v: str) -> bool:
    # a generated base62 body of this length holds a digit and both cases
    return not low_diversity(v) and bool(DIGIT.search(v) and UPPER.search(v) and LOWER.search(v))


def _mixed_body(v: str, m: re.Match[str]) -> bool:
    return _mixed(v)


def _hex(v: str) -> bool:
    # random hex has both digits and letters; 000... and aaaa... are placeholders
    return not low_diversity(v) and bool(DIGIT.search(v)) and bool(_HEX_LETTER.search(v))


_HEX_LETTER = re.compile("[a-fA-F]")


def _upper_body(v: str, m: re.Match[str]) -> bool:
    return _random_body(v, m) and bool(UPPER.search(v))


def _many_letters(v: str, m: re.Match[str]) -> bool:
    # 48 random letters hold 20 or so distinct ones; a word run together holds far fewer
    return len(set(v)) >= 16


# --- prefixed tokens -------------------------------------------------------------------------
# (kind, regex, check, triggers): the prefix is the trigger unless it is too common a string.
_PREFIXED: tuple[tuple[str, re.Pattern[str], Callable[[str, re.Match[str]], bool],
                       tuple[str, ...]], ...] = (
    ("docker_token", _tok(("dckr_pat_", "dckr_oat_"), rf"[{_B64URL}]{{27,}}+"), _random_body,
     ("dckr_",)),
    ("figma_token", _tok(("figd_", "figu_"), rf"[{_B64URL}]{{40,}}+"), _random_body,
     ("figd_", "figu_")),
    ("heroku_key", _tok(("HRKU-",), rf"[{_B64URL}]{{50,}}+", before="A-Za-z0-9_-"),
     _random_body, ("HRKU-",)),
    ("netlify_token", _tok(("nfp_", "nfc_", "nfo_"), rf"[{_B62}]{{36,}}+{_END}"), _random_body,
     ("nfp_", "nfc_", "nfo_")),
    ("supabase_token", _tok(("sbp_",), r"[0-9a-f]{40}" + _END), _hex_body, ("sbp_",)),
    ("supabase_token", _tok(("sb_secret_",), rf"[{_B64URL}]{{24,}}+"), _random_body,
     ("sb_secret_",)),
    ("planetscale_token", _tok(("pscale_tkn_", "pscale_pw_", "pscale_oauth_"),
                               r"[A-Za-z0-9_.=-]{32,}+"), _random_body, ("pscale_",)),
    ("buildkite_token", _tok(("bkua_",), r"[0-9a-f]{40}" + _END), _hex_body, ("bkua_",)),
    ("circleci_token", _tok(("CCIPAT_",), rf"[{_B62}]{{22}}_[0-9a-f]{{40}}{_END}"),
     _random_body, ("CCIPAT_",)),
    ("contentful_token", _tok(("CFPAT-",), rf"[{_B64URL}]{{43,}}+", before="A-Za-z0-9_-"),
     _random_body, ("CFPAT-",)),
    ("onepassword_token", _tok(("ops_eyJ",), r"[A-Za-z0-9+/=_-]{100,}+"), _random_body,
     ("ops_eyJ",)),
    ("bitbucket_token", _tok(("ATBB",), rf"[{_B62}]{{32,}}+{_END}"), _mixed_body, ("ATBB",)),
    ("langsmith_key", _tok(("lsv2_pt_", "lsv2_sk_"), r"[0-9a-f]{32}_[0-9a-f]{10}" + _END),
     _hex_body, ("lsv2_",)),
    ("pinecone_key", _tok(("pcsk_",), rf"[{_B64URL}]{{40,}}+"), _random_body, ("pcsk_",)),
    ("brevo_key", _tok(("xkeysib-", "xsmtpsib-"), rf"[0-9a-f]{{64}}-[{_B62}]{{16}}{_END}",
                       before="A-Za-z0-9_-"), _random_body, ("sib-",)),
    ("jfrog_token", _tok(("AKCp",), rf"[{_B62}]{{64,73}}+{_END}"), _mixed_body, ("AKCp",)),
    ("jfrog_token", _tok(("cmVmdGtuOjAxOj",), rf"[{_B62}]{{40,}}+"), _random_body,
     ("cmVmdGtuOjAxOj",)),
    ("grafana_token", _tok(("eyJrIjoi",), r"[A-Za-z0-9+/]{60,}+={0,2}"), _random_body,
     ("eyJrIjoi",)),
    ("rubygems_key", _tok(("rubygems_",), r"[0-9a-f]{48}" + _END), _hex_body, ("rubygems_",)),
    ("nuget_key", _tok(("oy2",), r"[a-z0-9]{43}" + _END), _random_body, ("oy2",)),
    ("sourcegraph_token", _tok(("sgp_",), r"(?:[0-9a-f]{16}_|local_)?[0-9a-f]{40}" + _END),
     _hex_body, ("sgp_",)),
    ("readme_key", _tok(("rdme_",), r"[a-z0-9]{70}" + _END), _random_body, ("rdme_",)),
    ("prefect_key", _tok(("pnu_",), rf"[{_B62}]{{36}}{_END}"), _random_body, ("pnu_",)),
    ("typeform_token", _tok(("tfp_",), r"[A-Za-z0-9_.=-]{40,}+"), _random_body, ("tfp_",)),
    ("huggingface_token", _tok(("api_org_",), rf"[{_B62}]{{34}}{_END}"), _random_body,
     ("api_org_",)),
    ("render_key", _tok(("rnd_",), rf"[{_B62}]{{32}}{_END}"), _mixed_body, ("rnd_",)),
    ("shippo_token", _tok(("shippo_live_", "shippo_test_"), r"[0-9a-f]{40}" + _END),
     _hex_body, ("shippo_",)),
    ("easypost_key", _tok(("EZAK", "EZTK"), rf"[{_B62}]{{54}}{_END}"), _mixed_body,
     ("EZAK", "EZTK")),
    ("flutterwave_key", _tok(("FLWSECK-", "FLWSECK_TEST-"), r"[0-9a-f]{32}-X" + _END,
                             before="A-Za-z0-9_-"), _hex_body, ("FLWSECK",)),
    ("duffel_token", _tok(("duffel_live_", "duffel_test_"), r"[A-Za-z0-9_=-]{43,}+"),
     _random_body, ("duffel_",)),
    ("dynatrace_token", _tok(("dt0c01.",), r"[A-Z0-9]{24}\.[A-Z0-9]{64}" + _END,
                             before="A-Za-z0-9_.-"), _random_body, ("dt0c01.",)),
    ("adafruit_key", _tok(("aio_",), rf"[{_B62}]{{28}}{_END}"), _mixed_body, ("aio_",)),
    ("yandex_key", _tok(("AQVN",), rf"[{_B64URL}]{{35,38}}{_END}"), _mixed_body, ("AQVN",)),
    ("plaid_token", _tok(("access-sandbox-", "access-development-", "access-production-"),
                         r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}" + _END,
                         before="A-Za-z0-9_-"), _hex_body, ("access-",)),
    ("cloudflare_ca_key", _tok(("v1.0-",), r"[0-9a-f]{24}-[0-9a-f]{146}" + _END,
                               before="A-Za-z0-9_.-"), _hex_body, ("v1.0-",)),
    ("mapbox_token", _tok(("sk.eyJ",), r"[A-Za-z0-9_-]{20,}+\.[A-Za-z0-9_-]{20,}+",
                          before="A-Za-z0-9_.-"), _random_body, ("sk.eyJ",)),
    ("baidu_key", _tok(("ALTAK-",), rf"[{_B62}]{{15,}}+/[0-9a-f]{{40}}{_END}",
                       before="A-Za-z0-9_-"), _random_body, ("ALTAK-",)),
    ("trello_token", _tok(("ATTA",), r"[0-9a-fA-F]{64,72}" + _END), _hex_body, ("ATTA",)),
    ("fireworks_key", _tok(("fw_",), rf"[{_B62}]{{24}}{_END}"), _mixed_body, ("fw_",)),
    ("together_key", _tok(("tgp_v1_",), rf"[{_B64URL}]{{43}}{_END}"), _random_body,
     ("tgp_v1_",)),
    ("cerebras_key", _tok(("csk-",), r"[a-z0-9]{48}" + _END, before="A-Za-z0-9_-"),
     _random_body, ("csk-",)),
    ("clojars_token", _tok(("CLOJARS_",), r"[0-9a-f]{60}" + _END), _hex_body, ("CLOJARS_",)),
    ("octopus_key", _tok(("API-",), r"[A-Z0-9]{25,32}" + _END, before="A-Za-z0-9_-"),
     _upper_body, ("API-",)),
    ("linear_key", _tok(("lin_oauth_",), r"[0-9a-f]{64}" + _END), _hex_body, ("lin_oauth_",)),
    ("newrelic_key", _tok(("NRII-",), rf"[{_B64URL}]{{32}}{_END}", before="A-Za-z0-9_-"),
     _random_body, ("NRII-",)),
    ("braintree_token", _tok(("access_token$production$", "access_token$sandbox$"),
                             r"[0-9a-z]{16}\$[0-9a-f]{32}" + _END), _random_body,
     ("access_token$",)),
    ("paddle_key", _tok(("pdl_live_apikey_", "pdl_sdbx_apikey_"), rf"[{_B64URL}]{{40,}}+"),
     _random_body, ("_apikey_",)),
    ("elevenlabs_key", _tok(("sk_",), r"[0-9a-f]{48}" + _END), _hex_body, ("sk_",)),
    ("clickup_token", _tok(("pk_",), r"[0-9]{6,10}_[A-Z0-9]{32}" + _END), _random_body,
     ("pk_",)),
    ("vercel_blob_token", _tok(("vercel_blob_rw_",), rf"[{_B62}]{{16}}_[{_B62}]{{30,}}+{_END}"),
     _random_body, ("vercel_blob_rw_",)),
    # Amazon Bedrock API keys: long-term ones are ABSK + base64 of "BedrockAPIKey-…".
    ("bedrock_key", _tok(("ABSKQmVkcm9ja0FQSUtleS", "bedrock-api-key-"),
                         r"[A-Za-z0-9+/]{80,}+={0,2}", before="A-Za-z0-9_-"), _random_body,
     ("ABSKQmVkcm9ja0FQSUtleS", "bedrock-api-key-")),
    # DingTalk (钉钉) robot signing secrets.
    ("dingtalk_secret", _tok(("SEC",), r"[0-9a-f]{64}" + _END), _hex_body, ("SEC",)),
    # SiliconFlow (硅基流动) keys: sk- and 48 lower-case letters, many distinct ones.
    ("siliconflow_key", _tok(("sk-",), r"[a-z]{48}" + _END, before="A-Za-z0-9_-"),
     _many_letters, ("sk-",)),
    # Alibaba Cloud STS temporary AccessKey ids (STS.N…), as AWS's ASIA ids.
    ("alibaba_sts_key", _tok(("STS.",), rf"[{_B62}]{{20,40}}{_END}", before="A-Za-z0-9_.-"),
     _mixed_body, ("STS.",)),
    # HubSpot private app tokens: pat-, the account's region (na1, eu1, ...), a UUID.
    ("hubspot_token", _tok(("pat-",), r"[a-z]{2}[0-9]-" + _UUID + _END, before="A-Za-z0-9_-"),
     _hex_body, ("pat-",)),
    # Resend API keys: re_, 8 characters (the key's id), _, 24 more.
    ("resend_key", _tok(("re_",), rf"[{_B62}]{{8}}_[{_B62}]{{24}}{_END}"), _mixed_body,
     ("re_",)),
    # Dropbox short-lived access tokens: sl. (sl.u. since 2024) and a long base64url body.
    ("dropbox_token", _tok(("sl.u.", "sl."), rf"[{_B64URL}]{{130,}}+", before="A-Za-z0-9_.-"),
     _mixed_body, ("sl.",)),
    # crates.io API tokens: cio and 32 letters and digits.
    ("crates_io_token", _tok(("cio",), rf"[{_B62}]{{32}}{_END}"), _mixed_body, ("cio",)),
    # PostHog personal API keys (phx_); its project keys (phc_) are public and are left.
    ("posthog_key", _tok(("phx_",), rf"[{_B62}_]{{43}}{_END}"), _random_body, ("phx_",)),
    # Firecrawl API keys: fc- and 32 hex.
    ("firecrawl_key", _tok(("fc-",), r"[0-9a-f]{32}" + _END, before="A-Za-z0-9_-"), _hex_body,
     ("fc-",)),
    # Meta (Facebook, Instagram) access tokens: EAA, an app letter, a long base62 body; Square's
    # EAAA tokens are named by their own rule first.
    ("meta_access_token", _tok(("EAA",), rf"[{_B62}]{{100,}}+"), _mixed_body, ("EAA",)),
    # X (Twitter) app bearer tokens: 22 A's, then the URL-encoded rest.
    ("twitter_bearer_token", _tok(("A" * 22,), r"[A-Za-z0-9%]{60,}+"), _random_body,
     ("A" * 22,)),
)

# --- fixed layouts ---------------------------------------------------------------------------

# Firebase Cloud Messaging server keys: an instance id, ":APA91b", a long base64url body.
_FCM = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{7,11}:APA91b[A-Za-z0-9_-]{100,}+")
# Microsoft Entra (Azure AD) client secrets: three characters, a digit, "Q~", 31-34 more.
_ENTRA = re.compile(r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}"
                    r"(?![A-Za-z0-9_~.-])")
# DeepL API keys: a UUID and ":fx" (the free plan's suffix).
_DEEPL = re.compile(r"(?<![0-9a-f-])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                    r"[0-9a-f]{12}:fx(?![A-Za-z0-9])")
# Terraform Cloud / Enterprise tokens: 14 characters, ".atlasv1.", 60 or more.
_TERRAFORM = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}+")
# Microsoft Teams incoming webhooks: the ids and the secret after /webhookb2/.
_TEAMS_WEBHOOK = re.compile(
    r"webhook\.office\.com/webhookb2/(?P<v>[A-Za-z0-9@/_-]{40,}+)")

# Okta API tokens after their scheme: "Authorization: SSWS 00…".
_OKTA = re.compile(rf"SSWS[ \t]+(?P<v>00[{_B64URL}]{{40}}){_END}")
# Chat robots' webhooks (WeCom 企业微信, Feishu/Lark 飞书): the key in the URL is the secret.
_CHAT_WEBHOOK = re.compile(
    r"(?:qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=|"
    rf"open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/)(?P<v>{_UUID})")
# Asana personal access tokens: 0/, 1/ or 2/, the user's (and app's) ids, ":", 32 hex.
_ASANA = re.compile(r"(?<![A-Za-z0-9_/.])[012]/[0-9]{10,20}(?:/[0-9]{10,20})?:"
                    r"(?P<secret>[0-9a-f]{32})" + _END)  # no group v: the whole token goes


# --- a key id, then its secret on the same line ------------------------------------------------

_PAIR_WINDOW = 200  # "right after the id": same line, within this many characters


def _paired(id_kind: str, id_re: re.Pattern[str], secret_kind: str, secret_re: re.Pattern[str],
            secret_ok: Callable[[str], bool]) -> Callable[[str], Iterator[tuple[str, int, int]]]:
    """Findings for a key id (group v must not be a placeholder) and for each value of
    secret_re after it on its line that passes secret_ok, as AWS keys are found."""

    def find(text: str) -> Iterator[tuple[str, int, int]]:
        found: list[tuple[str, int, int]] = []
        for m in id_re.finditer(text):
            if low_diversity(m.group("v")):
                continue
            found.append((id_kind, m.start(), m.end()))
            stop = min(len(text), m.end() + _PAIR_WINDOW)
            for sep in ("\n", "\\n"):  # a real or a JSON-escaped line break ends the line
                cut = text.find(sep, m.end(), stop)
                if cut >= 0:
                    stop = cut
            found += [(secret_kind, s.start(), s.end())
                      for s in secret_re.finditer(text, m.end(), stop) if secret_ok(s.group())]
        yield from sorted(found, key=lambda r: r[1])

    return find


def _standalone(body: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9_/+=-]){body}(?![A-Za-z0-9_/+=-])")


# Twilio: the account SID (AC + 32 lowercase hex) and the 32-hex auth token that goes with it
# (AC...:token in Basic auth, or the next value on the line).
_TWILIO_SID = re.compile(_word("AC", before="A-Za-z0-9_") + r"(?P<v>[0-9a-f]{32})" + _END)
# Alibaba Cloud (阿里云) AccessKey ID and its 30-character secret.
_ALIBABA_ID = re.compile(_word("LTAI", before="A-Za-z0-9_") + rf"(?P<v>[{_B62}]{{12,20}}){_END}")
# Volcengine (火山引擎) AccessKeyId and its base64 SecretAccessKey.
_VOLCENGINE_ID = re.compile(_word("AKLT", before="A-Za-z0-9_") + r"(?P<v>[A-Za-z0-9+/_-]{32,}+={0,2})")
# Tencent Cloud (腾讯云) SecretId and its 32-character SecretKey.
_TENCENT_ID = re.compile(_word("AKID", before="A-Za-z0-9_") + rf"(?P<v>[{_B62}]{{32}}){_END}")

# Baidu AI Cloud (百度智能云) AccessKey (ALTAK…) and its 32-hex SecretKey.
_BAIDU_ID = re.compile(_word("ALTAK", before="A-Za-z0-9_") + rf"(?P<v>[{_B62}]{{15,30}}){_END}")


SHAPE_RULES: tuple[Rule, ...] = (
    *(Rule(kind, Token(pattern, check), triggers=triggers)
      for kind, pattern, check, triggers in _PREFIXED),
    Rule("firebase_key", Value(_FCM), triggers=(":APA91b",)),
    Rule("entra_client_secret", Value(_ENTRA), triggers=("Q~",)),
    Rule("deepl_key", Value(_DEEPL), triggers=(":fx",)),
    Rule("terraform_token", Value(_TERRAFORM), triggers=(".atlasv1.",)),
    Rule("teams_webhook", Value(_TEAMS_WEBHOOK), triggers=("webhook.office.com",)),
    Rule("okta_token", Value(_OKTA, _mixed_body), triggers=("SSWS",)),
    Rule("chat_webhook", Value(_CHAT_WEBHOOK, _hex_body),
         triggers=("/webhook/send?key=", "/bot/v2/hook/")),
    Rule("asana_token", Value(_ASANA, lambda v, m: _hex(m.group("secret"))),
         triggers=("0/", "1/", "2/")),
    Rule("twilio_sid", _paired("twilio_sid", _TWILIO_SID, "twilio_auth_token",
                               _standalone("[0-9a-f]{32}"), _hex), triggers=("AC",)),
    Rule("alibaba_key", _paired("alibaba_key", _ALIBABA_ID, "alibaba_secret",
                                _standalone(f"[{_B62}]{{30}}"), _mixed), triggers=("LTAI",)),
    Rule("volcengine_key", _paired("volcengine_key", _VOLCENGINE_ID, "volcengine_secret",
                                   _standalone("[A-Za-z0-9+/]{40,64}={0,2}"), _mixed),
         triggers=("AKLT",)),
    Rule("tencent_key", _paired("tencent_key", _TENCENT_ID, "tencent_secret",
                                _standalone(f"[{_B62}]{{32}}"), _mixed), triggers=("AKID",)),
    Rule("baidu_key", _paired("baidu_key", _BAIDU_ID, "baidu_secret",
                              _standalone("[0-9a-f]{32}"), _hex), triggers=("ALTAK",)),
    *LOGIN_RULES,  # Tavily, Mollie, Ably, Tencent LBS; keys after a CLI login command
)
