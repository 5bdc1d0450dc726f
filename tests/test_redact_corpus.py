"""The redactor on the labelled corpus in tests/data/secrets/: at least 98% of the made-up
credentials (80+ kinds, English and Chinese, config/shell/log/prose/JSON) are redacted, and at
most 1% of the tricky non-secrets are changed; batch 3d, held out (written before looking at the
rules), measured 53 of 60 redacted and 2 of 40 non-secrets changed on its first run, and holds
the figure after the fixes it led to: 60 of 60 redacted, 0 of 40 changed; batch 3e, held out
the same way, 50 of 60 and 0 of 40 on its first run, 60 of 60 and 0 of 40 after its fixes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from indexer.text.redact import redact_text

DATA = Path(__file__).parent / "data" / "secrets"


def _load(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


ALL_SECRETS = _load("credentials.jsonl")
ALL_NON_SECRETS = _load("non_secrets.jsonl")
# Batch 3d was written after 3c's fixes and before anyone looked at the rules: a held-out
# measure of how the rules do on credentials written after them. It has its own floor (the
# figure measured on its first run) and stays out of the 98% / 1% figures below, which are for
# the batches the rules were fixed against.
# Batch 3e was written the same way after 3d's fixes.
HELD_OUT = ("3d", "3e")
SECRETS = [c for c in ALL_SECRETS if c.get("batch") not in HELD_OUT]
NON_SECRETS = [c for c in ALL_NON_SECRETS if c.get("batch") not in HELD_OUT]


def test_the_corpus_is_broad() -> None:
    assert len({c["kind"] for c in SECRETS}) >= 80
    assert {c["lang"] for c in SECRETS} == {"en", "zh"}
    assert {"config", "shell", "log", "prose", "json", "yaml", "env"} <= {
        c["context"] for c in SECRETS}
    assert len(NON_SECRETS) >= 200
    assert all(c["secret"] in c["text"] for c in ALL_SECRETS)


def _missed(cases: list[dict[str, str]]) -> list[str]:
    # kinds only: a failure message never shows a secret, even a made-up one
    return [c["kind"] for c in cases if c["secret"] in redact_text(c["text"])[0]]


def test_at_least_98_percent_of_credentials_are_redacted() -> None:
    missed = _missed(SECRETS)
    assert len(missed) <= 0.02 * len(SECRETS), missed


# Kinds the redactor is known to miss today: a rule removed or weakened shows up here even when
# the overall rate stays above 98%. These three carry neither a prefix nor a credential word (a
# Zhipu key after "用这个调智谱：", a value in a YAML list under "stripe:", a token pasted
# with "before I forget"); catching them by randomness alone would change ordinary text.
KNOWN_MISSES: set[str] = {
    "r3_zhipu_no_word_zh", "r3_yaml_unlabelled_secret", "r3_bare_random_no_word"}


def test_no_kind_is_missed_beyond_the_known_ones() -> None:
    assert set(_missed(SECRETS)) <= KNOWN_MISSES


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_language_reaches_98_percent(lang: str) -> None:
    cases = [c for c in SECRETS if c["lang"] == lang]
    missed = _missed(cases)
    assert len(missed) <= 0.02 * len(cases), missed


def test_at_most_1_percent_of_non_secrets_change() -> None:
    changed = [(c["kind"], redact_text(c["text"])[0]) for c in NON_SECRETS
               if redact_text(c["text"])[0] != c["text"]]
    assert len(changed) <= 0.01 * len(NON_SECRETS), changed


# Batch 3d's first run, before any rule was changed for it: 53 of 60 credentials redacted
# (88%; 18 of the 20 in Chinese) and 2 of its 40 non-secrets changed. The misses: a HubSpot
# pat-na1- token under a YAML key with no credential word, a Resend re_ key, a Dropbox sl.
# token in JSON, a crates.io cio token after `cargo login`, a PostHog phx_ key in a log line,
# a Huawei Cloud secret under `sk:` and a Firecrawl fc- key in Chinese prose. The changes: a
# Razorpay key id (public, used in checkout.js) after `key:` and an Algolia search-only key
# (public by design) after `apiKey:`.
# After the fixes (redact_rules_shapes.py: HubSpot pat-<region>-<uuid>, Resend re_, Dropbox
# sl., crates.io cio, PostHog phx_, Firecrawl fc-; redact_rules_kv.py: the secret of an AK/SK
# pair under a name ending in sk; redact_rules_public.py: Razorpay key ids and site-search
# keys are public): 60 of 60 redacted, 0 of 40 changed. The first-run figure stays the fairer
# measure of the rules on unseen text; a rule that loses one of these fails here.


# Batch 3e's first run, before any rule was changed for it: 50 of 60 redacted (83%; 16 of the
# 20 in Chinese), 0 of 40 non-secrets changed. Vendors whose shape no rule knew (a Backblaze
# application key after `b2 account authorize`, a Mollie live_ key, an Ably key, a Tavily
# tvly- key, a W&B key after `wandb login`, Tencent LBS's grouped key), names no rule read as
# credentials (WeCom's corpsecret= in a URL, Agora's app-certificate, WeChat Pay's api-v3-key)
# and a password after "password for the ci user ...:".
# After the fixes (redact_rules_login.py: Tavily tvly-, Mollie live_/test_ + 30, Ably
# app.key:secret, Tencent LBS 6x5 groups by shape, the argument of `wandb login`, `b2 account
# authorize`/`b2 authorize-account` and other CLI logins; redact_rules_kv.py: corpsecret,
# app certificate, api v3 key and the like as credential names; redact_rules_near.py: a
# credential word, what it is for, a colon, a generated value): 60 of 60 redacted, 0 of 40
# changed. The first-run figure stays the fairer measure of the rules on unseen text; a rule
# that loses one of these fails here.


@pytest.mark.parametrize("batch", HELD_OUT)
def test_held_out_batch_is_fully_redacted_after_its_fixes(batch: str) -> None:
    secrets = [c for c in ALL_SECRETS if c.get("batch") == batch]
    non_secrets = [c for c in ALL_NON_SECRETS if c.get("batch") == batch]
    assert (len(secrets), len(non_secrets)) == (60, 40)
    assert sum(c["lang"] == "zh" for c in secrets) == 20
    assert len({c["kind"] for c in secrets}) == len(secrets)
    assert not _missed(secrets)  # 60 of 60 (first run: 53 for 3d, 50 for 3e)
    changed = [c["kind"] for c in non_secrets if redact_text(c["text"])[0] != c["text"]]
    assert not changed, changed  # 0 of 40 (first run: 2 for 3d, 0 for 3e)


def test_only_the_value_goes_and_the_name_stays() -> None:
    for text, name in [("数据库密码：春天Ab12cd2024!", "数据库密码："),
                       ("DEBUG=0\nSECRET_KEY=k#3x!p9@w2^v8(z)q$m7&n1*r5+t0=y4", "SECRET_KEY="),
                       ("口令是 Qw3rty2026xx，下周换", "口令是 "),
                       ("--client-secret Zx9Yw8Vu7Ts6Rq5Po4", "--client-secret ")]:
        out, counts = redact_text(text)
        assert name in out and "[REDACTED:" in out and sum(counts.values()) == 1, out


# Corpus kind -> the rule that must name it: a vendor rule removed would otherwise go unnoticed
# when a labelled-value rule still catches its token.
VENDOR_KINDS = {
    "huggingface_token": "huggingface_token", "azure_storage_account_key": "azure_key",
    "azure_service_bus_key": "azure_key", "azure_sas_signature": "azure_sas",
    "shopify_admin_token": "shopify_token", "shopify_shared_secret": "shopify_token",
    "atlassian_api_token": "atlassian_token", "google_client_secret": "google_client_secret",
    "telegram_bot_token": "telegram_bot_token", "discord_bot_token": "discord_token",
    "discord_webhook": "discord_webhook", "twilio_api_key": "twilio_key",
    "basic_auth_header": "auth_header", "mailgun_key": "mailgun_key",
    "mailgun_legacy_key": "mailgun_key", "square_access_token": "square_token",
    "square_oauth_secret": "square_token", "vault_token": "vault_token",
    "age_secret_key": "age_secret_key", "grafana_sa_token": "grafana_token",
    "newrelic_user_key": "newrelic_key", "databricks_token": "databricks_token",
    "postman_api_key": "postman_key", "mailchimp_key": "mailchimp_key",
    "linear_api_key": "linear_key", "notion_token": "notion_token",
    "replicate_token": "replicate_token", "groq_key": "groq_key", "xai_key": "xai_key",
    "perplexity_key": "perplexity_key", "tailscale_auth_key": "tailscale_key",
    "pulumi_token": "pulumi_token", "sentry_token": "sentry_token",
    "doppler_token": "doppler_token", "airtable_pat": "airtable_token",
    "gcp_service_account_key": "private_key", "mysql_p_flag": "cli_secret",
    "zh_koling": "labelled_secret", "zh_password_chinese_value": "labelled_secret",
    "django_secret_key": "labelled_secret",
    # round 3: shapes that need no label
    "r3_twilio_api_key_alone": "twilio_key", "r3_twilio_sid_alone": "twilio_sid",
    "r3_twilio_sid_and_token_curl": "twilio_auth_token", "r3_discord_token_alone": "discord_token",
    "r3b_discord_reply": "discord_token", "r3_slack_app_token": "slack_token",
    "r3_shopify_alone": "shopify_token", "r3_atlassian_alone": "atlassian_token",
    "r3_docker_pat": "docker_token", "r3_alibaba_pair_zh": "alibaba_secret",
    "r3b_tencent_prose": "tencent_secret", "r3_volcengine_pair_zh": "volcengine_secret",
    "r3_entra_secret_bare": "entra_client_secret", "r3_figma_alone": "figma_token",
    "r3_supabase_zh": "supabase_token", "r3_mapbox_secret": "mapbox_token",
    "r3_datadog_key_hex": "near_secret", "r3_cloudflare_token_zh": "near_secret",
    "r3b_password_reset_sentence": "password",
    # batch 3c
    "r3c_trello_token": "trello_token", "r3c_fireworks_export": "fireworks_key",
    "r3c_together_alone": "together_key", "r3c_cerebras_json": "cerebras_key",
    "r3c_okta_ssws_header": "okta_token", "r3c_clojars_alone": "clojars_token",
    "r3c_octopus_api_key": "octopus_key", "r3c_linear_oauth": "linear_key",
    "r3c_newrelic_insert_key": "newrelic_key", "r3c_braintree_config": "braintree_token",
    "r3c_paddle_alone": "paddle_key", "r3c_elevenlabs_alone": "elevenlabs_key",
    "r3c_asana_pat": "asana_token", "r3c_clickup_pat": "clickup_token",
    "r3c_vercel_blob": "vercel_blob_token", "r3c_bedrock_api_key": "bedrock_key",
    "r3c_dingtalk_sign_secret_zh": "dingtalk_secret", "r3c_wecom_webhook_zh": "chat_webhook",
    "r3c_feishu_webhook_zh": "chat_webhook", "r3c_baidu_altak_pair_zh": "baidu_secret",
    "r3c_siliconflow_zh": "siliconflow_key", "r3c_alibaba_sts_zh": "alibaba_sts_key",
    "r3c_twilio_sk_markdown_row": "twilio_key", "r3c_discord_codeblock": "discord_token",
    "r3c_twilio_pair_tuple": "twilio_auth_token",
    # batch 3d (held out): the vendor rules that named its cases on the first run
    "r3d_prefect_api_key": "prefect_key", "r3d_readme_api_key": "readme_key",
    "r3d_1password_service_account": "onepassword_token", "r3d_circleci_pat_prose": "circleci_token",
    # batch 3d's misses, after its fixes
    "r3d_hubspot_private_app": "hubspot_token", "r3d_resend_key_no_label": "resend_key",
    "r3d_dropbox_short_lived_json": "dropbox_token", "r3d_crates_io_login": "crates_io_token",
    "r3d_posthog_personal_key_log": "posthog_key", "r3d_firecrawl_no_label_zh": "firecrawl_key",
    "r3d_huaweicloud_ak_sk_yaml_zh": "labelled_secret",
    # batch 3e's misses, after its fixes
    "r3e_backblaze_b2_app_key": "cli_login", "r3e_mollie_live_key_php": "mollie_key",
    "r3e_ably_api_key_json": "ably_key", "r3e_tavily_key_prose": "tavily_key",
    "r3e_wandb_login": "cli_login", "r3e_wecom_corpsecret_url_zh": "labelled_secret",
    "r3e_agora_app_certificate_zh": "labelled_secret",
    "r3e_wechatpay_apiv3_key_zh": "labelled_secret", "r3e_tencent_lbs_key_zh": "tencent_lbs_key",
    "r3e_hi_prose_ci_user_password": "password",
}


def test_vendor_formats_are_named_by_their_rule() -> None:
    wrong = []
    for case in ALL_SECRETS:
        expected = VENDOR_KINDS.get(case["kind"])
        if expected is not None and expected not in redact_text(case["text"])[1]:
            wrong.append((case["kind"], expected))
    assert not wrong
    assert set(VENDOR_KINDS) <= {c["kind"] for c in ALL_SECRETS}


def test_corpus_redaction_is_idempotent() -> None:
    for case in ALL_SECRETS:
        once, _ = redact_text(case["text"])
        assert redact_text(once) == (once, Counter()), case["kind"]
