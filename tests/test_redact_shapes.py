"""Credentials found by their shape alone (indexer/text/redact_rules_shapes.py and the Discord,
Slack and GitLab formats), and random-looking runs near a credential word
(indexer/text/redact_rules_near.py): each shape standing alone, in an English and a Chinese
sentence, and its near misses left alone."""

from __future__ import annotations

import random
import string
from collections.abc import Callable

import pytest

from indexer.text.redact import redact_text

# Fabricated values only, generated from a fixed seed in each format's documented alphabet and
# length, and assembled here so that this file holds no literal a secret scanner would flag.
B62 = string.ascii_letters + string.digits
B64URL = B62 + "_-"
HEX = "0123456789abcdef"
LOWER36 = string.ascii_lowercase + string.digits
UPPER36 = string.ascii_uppercase + string.digits


def body(alphabet: str, n: int, seed: int) -> str:
    """n characters of alphabet that hold a digit and, where it has them, both cases."""
    rng = random.Random(seed)
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        classes = [c for c in (string.digits, string.ascii_lowercase, string.ascii_uppercase)
                   if set(c) & set(alphabet)]
        if all(set(s) & set(c) for c in classes):
            return s


def uuid(seed: int) -> str:
    h = body(HEX, 32, seed)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


# kind -> a token of that kind (the whole token is what must go)
SHAPES: dict[str, Callable[[int], str]] = {
    "twilio_key": lambda s: "SK" + body(HEX, 32, s),
    "twilio_sid": lambda s: "AC" + body(HEX, 32, s),
    "discord_token": lambda s: "MTE4NDQ2NzY0NTI1Mzk3NzI5Mg" + "." + body(B64URL, 6, s) + "."
    + body(B64URL, 38, s + 1),
    "slack_token": lambda s: "xapp-1-A0" + body(UPPER36, 9, s) + "-" + body(string.digits, 13, s)
    + "-" + body(HEX, 64, s),
    "gitlab_token": lambda s: "glcbt-" + body(B64URL, 20, s),
    "docker_token": lambda s: "dckr_pat_" + body(B64URL, 27, s),
    "figma_token": lambda s: "figd_" + body(B64URL, 40, s),
    "heroku_key": lambda s: "HRKU-AA" + body(B64URL, 58, s),
    "netlify_token": lambda s: "nfp_" + body(B62, 36, s),
    "supabase_token": lambda s: "sbp_" + body(HEX, 40, s),
    "planetscale_token": lambda s: "pscale_tkn_" + body(B62, 43, s),
    "buildkite_token": lambda s: "bkua_" + body(HEX, 40, s),
    "circleci_token": lambda s: "CCIPAT_" + body(B62, 22, s) + "_" + body(HEX, 40, s),
    "contentful_token": lambda s: "CFPAT-" + body(B64URL, 43, s),
    "onepassword_token": lambda s: "ops_eyJ" + body(B62, 120, s),
    "bitbucket_token": lambda s: "ATBB" + body(B62, 32, s),
    "langsmith_key": lambda s: "lsv2_pt_" + body(HEX, 32, s) + "_" + body(HEX, 10, s),
    "pinecone_key": lambda s: "pcsk_" + body(B64URL, 60, s),
    "brevo_key": lambda s: "xkeysib-" + body(HEX, 64, s) + "-" + body(B62, 16, s),
    "jfrog_token": lambda s: "AKCp" + body(B62, 69, s),
    "grafana_token": lambda s: "eyJrIjoi" + body(B62, 70, s),
    "rubygems_key": lambda s: "rubygems_" + body(HEX, 48, s),
    "nuget_key": lambda s: "oy2" + body(LOWER36, 43, s),
    "sourcegraph_token": lambda s: "sgp_" + body(HEX, 16, s) + "_" + body(HEX, 40, s),
    "readme_key": lambda s: "rdme_" + body(LOWER36, 70, s),
    "prefect_key": lambda s: "pnu_" + body(B62, 36, s),
    "typeform_token": lambda s: "tfp_" + body(B62, 44, s),
    "huggingface_token": lambda s: "api_org_" + body(B62, 34, s),
    "render_key": lambda s: "rnd_" + body(B62, 32, s),
    "shippo_token": lambda s: "shippo_live_" + body(HEX, 40, s),
    "easypost_key": lambda s: "EZAK" + body(B62, 54, s),
    "flutterwave_key": lambda s: "FLWSECK-" + body(HEX, 32, s) + "-X",
    "duffel_token": lambda s: "duffel_test_" + body(B64URL, 43, s),
    "dynatrace_token": lambda s: "dt0c01." + body(UPPER36, 24, s) + "." + body(UPPER36, 64, s),
    "adafruit_key": lambda s: "aio_" + body(B62, 28, s),
    "yandex_key": lambda s: "AQVN" + body(B62, 36, s),
    "plaid_token": lambda s: "access-sandbox-" + uuid(s),
    "cloudflare_ca_key": lambda s: "v1.0-" + body(HEX, 24, s) + "-" + body(HEX, 146, s),
    "mapbox_token": lambda s: "sk.eyJ1Ijoi" + body(B62, 40, s) + "." + body(B64URL, 22, s),
    "volcengine_key": lambda s: "AKLT" + body(B62, 44, s),
    "baidu_key": lambda s: "ALTAK-" + body(B62, 21, s) + "/" + body(HEX, 40, s),
    "meta_access_token": lambda s: "EAAG" + body(B62, 160, s),
    "twitter_bearer_token": lambda s: "A" * 22 + body(B62, 40, s) + "%2F" + body(B62, 40, s),
    "firebase_key": lambda s: body(B64URL, 11, s) + ":APA91b" + body(B64URL, 134, s),
    "entra_client_secret": lambda s: body(B62, 3, s) + "8Q~" + body(B62, 34, s),
    "deepl_key": lambda s: uuid(s) + ":fx",
    "terraform_token": lambda s: body(B62, 14, s) + ".atlasv1." + body(B62, 67, s),
    "alibaba_key": lambda s: "LTAI" + body(B62, 20, s),
    "tencent_key": lambda s: "AKID" + body(B62, 32, s),
    # batch 3c
    "trello_token": lambda s: "ATTA" + body(HEX, 64, s) + body(HEX.upper(), 8, s),
    "fireworks_key": lambda s: "fw_" + body(B62, 24, s),
    "together_key": lambda s: "tgp_v1_" + body(B64URL, 43, s),
    "cerebras_key": lambda s: "csk-" + body(LOWER36, 48, s),
    "clojars_token": lambda s: "CLOJARS_" + body(HEX, 60, s),
    "octopus_key": lambda s: "API-" + body(UPPER36, 26, s),
    "linear_key": lambda s: "lin_oauth_" + body(HEX, 64, s),
    "newrelic_key": lambda s: "NRII-" + body(B64URL, 32, s),
    "braintree_token": lambda s: "access_token$production$" + body(LOWER36, 16, s) + "$"
    + body(HEX, 32, s),
    "paddle_key": lambda s: "pdl_live_apikey_01" + body(LOWER36, 24, s) + "_" + body(B62, 22, s),
    "elevenlabs_key": lambda s: "sk_" + body(HEX, 48, s),
    "clickup_token": lambda s: "pk_" + body(string.digits, 8, s) + "_" + body(UPPER36, 32, s),
    "vercel_blob_token": lambda s: "vercel_blob_rw_" + body(B62, 16, s) + "_" + body(B62, 30, s),
    "bedrock_key": lambda s: "ABSKQmVkcm9ja0FQSUtleS" + body(B62 + "+/", 100, s),
    "dingtalk_secret": lambda s: "SEC" + body(HEX, 64, s),
    "siliconflow_key": lambda s: "sk-" + body(string.ascii_lowercase, 48, s),
    "alibaba_sts_key": lambda s: "STS.N" + body(B62, 27, s),
    "asana_token": lambda s: "2/" + body(string.digits, 16, s) + "/" + body(string.digits, 16, s)
    + ":" + body(HEX, 32, s),
    # batch 3d
    "hubspot_token": lambda s: "pat-eu1-" + uuid(s),
    "resend_key": lambda s: "re_" + body(B62, 8, s) + "_" + body(B62, 24, s + 1),
    "dropbox_token": lambda s: "sl." + body(B64URL, 135, s),
    "crates_io_token": lambda s: "cio" + body(B62, 32, s),
    "posthog_key": lambda s: "phx_" + body(B62, 43, s),
    "firecrawl_key": lambda s: "fc-" + body(HEX, 32, s),
    # batch 3e
    "tavily_key": lambda s: "tvly-dev-" + body(B62, 32, s),
    "mollie_key": lambda s: "live_" + body(B62, 30, s),
    "ably_key": lambda s: body(B62, 6, s) + "." + body(B62, 6, s + 1) + ":" + body(B64URL, 43, s),
    "tencent_lbs_key": lambda s: "-".join(body(UPPER36, 5, s + i) for i in range(6)),
}

SENTENCES = [
    "{}",
    "can you check why this fails: {} thanks",
    "部署脚本里写的是 {}，先别外传。",
]


@pytest.mark.parametrize("kind", sorted(SHAPES))
@pytest.mark.parametrize("sentence", SENTENCES)
def test_a_shape_is_redacted_without_a_label(kind: str, sentence: str) -> None:
    token = SHAPES[kind](7)
    out, counts = redact_text(sentence.format(token))
    assert token not in out and out == sentence.format(f"[REDACTED:{kind}]"), kind
    assert counts == {kind: 1}
    assert redact_text(out) == (out, {})  # idempotent


def _near_misses(kind: str, token: str) -> list[str]:
    # Slack's bodies vary in length: any ten characters after the prefix are taken
    short = token[:12] if kind == "slack_token" else token[: len(token) // 2]
    return ["q" + token, short]  # inside a longer word, cut short


@pytest.mark.parametrize("kind", sorted(set(SHAPES) - {"firebase_key", "entra_client_secret",
                                                        "terraform_token", "deepl_key"}))
def test_a_shape_glued_to_a_word_or_cut_short_is_kept(kind: str) -> None:
    for text in _near_misses(kind, SHAPES[kind](11)):
        framed = f"see {text} here"
        assert redact_text(framed)[0] == framed, kind


@pytest.mark.parametrize("text", [
    "AC" + "x" * 32,  # a placeholder, not hex
    "AC" + "0" * 32,  # low diversity
    "LTAI" + "x" * 16,
    "the account is " + "ACME" + body(HEX, 32, 3),  # AC inside a word
    "dckr_pat_" + "x" * 27,
    "figd_" + "your-figma-token-goes-here-please-keep",
    "ops_" + "everything-is-fine",
    "eyJrIjoi" + "x" * 70,  # Grafana key placeholder
    "AAAAAAAAAAAAAAAAAAAAAA",  # the X bearer prefix alone
    "Q~ is a tilde after a Q",
    uuid(5),  # a UUID without ":fx"
    "release.atlasv1.notes",
    "access-sandbox-environment",
    "v1.0-rc1",
    "EAAG" + "a" * 120,  # long but not random
])
def test_shape_near_misses_are_kept(text: str) -> None:
    assert redact_text(text) == (text, {})


def test_a_discord_token_alone_is_redacted_and_its_lookalikes_kept() -> None:
    token = SHAPES["discord_token"](3)
    assert redact_text(f"old one was {token}")[0] == "old one was [REDACTED:discord_token]"
    for text in ["MTE4NDQ2NzY0NTI1Mzk3NzI5Mg.GhT5xQ.short",  # a tail too short
                 "see archive.MTE4NDQ2NzY0NTI1.tar.gz",
                 "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36"]:
        assert redact_text(text) == (text, {}), text


def test_secrets_after_their_scheme_or_in_a_robot_webhook_url_are_redacted() -> None:
    okta = "00" + body(B64URL, 40, 5)
    assert redact_text(f"Authorization: SSWS {okta}") == (
        "Authorization: SSWS [REDACTED:okta_token]", {"okta_token": 1})
    for url in ["https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=",
                "https://open.feishu.cn/open-apis/bot/v2/hook/"]:
        out, counts = redact_text(f"群机器人 {url}{uuid(6)}")
        assert out == f"群机器人 {url}[REDACTED:chat_webhook]" and counts == {"chat_webhook": 1}


def test_twilio_auth_token_after_its_account_sid_is_redacted() -> None:
    sid, token = SHAPES["twilio_sid"](1), body(HEX, 32, 2)
    out, counts = redact_text(f"curl -u {sid}:{token} https://api.twilio.test/")
    assert sid not in out and token not in out
    assert counts == {"twilio_sid": 1, "twilio_auth_token": 1}
    # a hash on another line is not the account's token
    text = f"{sid}\nsha: {body(HEX, 32, 4)}"
    out, counts = redact_text(text)
    assert counts == {"twilio_sid": 1} and out.endswith(text.split("\n")[1])


@pytest.mark.parametrize("text", [
    "huaweicloud:\n  ak: " + body(UPPER36, 20, 60) + "\n  sk: {}",
    "HUAWEI_SK={}",
    "obs.sk = '{}'",
    '{{"ak": "' + body(UPPER36, 20, 61) + '", "sk": "{}"}}',
])
def test_the_secret_of_an_ak_sk_pair_under_its_sk_name_is_redacted(text: str) -> None:
    for secret in (body(B62, 40, 62), body(B64URL, 40, 63), body(HEX, 32, 64)):
        out, counts = redact_text(text.format(secret))
        assert secret not in out and counts == {"labelled_secret": 1}, out


@pytest.mark.parametrize("text", [
    "sk: Slovenčina",
    'sk: "Prihlásiť sa do účtu"',  # a locale file's Slovak string
    "task: " + body(B62, 40, 65),  # sk inside a word
    "sk: " + body(B62, 16, 66),  # too short for a cloud's secret key
])
def test_sk_that_names_no_cloud_secret_is_kept(text: str) -> None:
    assert redact_text(text) == (text, {})


def test_cloud_key_ids_take_their_secret_on_the_same_line() -> None:
    for kind, key_id, secret in [
            ("alibaba", SHAPES["alibaba_key"](1), body(B62, 30, 2)),
            ("tencent", SHAPES["tencent_key"](1), body(B62, 32, 2)),
            ("volcengine", SHAPES["volcengine_key"](1), body(B62 + "+/", 60, 2)),
            ("baidu", "ALTAK" + body(B62, 19, 1), body(HEX, 32, 2))]:
        out, _ = redact_text(f"{key_id} {secret}")
        assert out == f"[REDACTED:{kind}_key] [REDACTED:{kind}_secret]", kind
        plain = "a" * 30
        assert redact_text(f"{key_id} {plain}")[0] == f"[REDACTED:{kind}_key] {plain}"


# --- random-looking runs near a credential word ---------------------------------------------

RUN = body(B62, 24, 21)  # a run with no format of its own
HEX_RUN = body(HEX, 40, 22)


@pytest.mark.parametrize("template", [
    "here is the prod api key for the bot {}",
    "my token, don't share: {}",
    "{} is my new token",
    "Secret for staging -> {}",
    "the key is {}",
    "zhipu API Key {}",
    "令牌发你了 {}",
    "{} 是新的密钥",
    "这是测试环境的口令，别外传：{}",
    "数据库密码换成了 {} 记得更新",
])
def test_a_random_run_near_a_credential_word_is_redacted(template: str) -> None:
    out, counts = redact_text(template.format(RUN))
    assert RUN not in out and counts.total() == 1, out


def test_a_hex_run_of_a_hash_length_needs_a_word_stronger_than_key() -> None:
    assert HEX_RUN not in redact_text(f"the webhook secret {HEX_RUN}")[0]
    assert redact_text(f"gpg key {HEX_RUN}") == (f"gpg key {HEX_RUN}", {})
    assert redact_text(f"the key {HEX_RUN} from the keyserver")[0].count("REDACTED") == 0
    # 32 hex is no hash's length: an API key (Datadog's, for one)
    key = body(HEX, 32, 27)
    assert redact_text(f"here's the datadog key {key}")[0] == (
        "here's the datadog key [REDACTED:near_secret]")


@pytest.mark.parametrize(("text", "value"), [
    ("the new password for the NAS is {}", "f9HRfqED3n#540"),
    ("the api key of the staging bot was {}", "Zx9Yw8Vu7Ts6Rq5Po4Nm"),
    ("堡垒机口令改成 {} 了", "dwAhM0JoihU6y1@6941"),
    ("数据库密码换成了 {}", "Qw3rty2026xx!"),
    ("doppler: dp.st.prd.{}", body(B62, 43, 28)),
    ("Cloudflare 的令牌发你微信了，备份一下 {}", "_" + body(B64URL, 39, 29)),
    ("api key {}", body(LOWER36, 30, 30)),
    ("ALIYUN_AK=LTAI5t" + body(B62, 18, 31) + "\nALIYUN_SK={}", body(B62, 30, 32)),
    ("{} <- that's the staging token", body(B62, 28, 33)),
    ("I reset the router password to {}", "SAW7LP6hdS!9603"),
    ("服务器密码已改为 {}", "jB5oc3gC1C$949"),
    ("the wifi passphrase, if anyone asks: {}", "Gr33n-Tea&Lemon"),
])
def test_phrasings_found_in_the_round_3_batch_are_redacted(text: str, value: str) -> None:
    assert value not in redact_text(text.format(value))[0]


@pytest.mark.parametrize("text", [
    "the password for the admin account is stored in the vault",
    "密码改成 8 位了",
    "bump the token library to 4.12.0-beta.3+build.20261203",
    "key: uploads/2026/12/photo_8f3a2c.png",
    "cache key " + body(LOWER36, 30, 30),  # one case and digits after "key" alone: a name
    f"moved the secret loading into config.py in {HEX_RUN}",  # a commit, not beside the word
    "auth token rejected, trace_id=" + body(HEX, 32, 34),
    "password: !ENV ${DB_PASSWORD}",
    "send the new password to John.Doe2@demo.test today",
    "the password is in /srv/Config-2026/secret.txt",
    "passwords must mix Upper, lower, 0-9 and symbols",
])
def test_phrasings_near_them_that_hold_no_secret_are_kept(text: str) -> None:
    assert redact_text(text) == (text, {})


@pytest.mark.parametrize("text", [
    f"the token id is {uuid(9)}",
    f"token id {HEX_RUN}",
    f"commit the key change {HEX_RUN}",
    "the key fingerprint SHA256:" + body(B62 + "+/", 43, 23),
    "ssh key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + body(B62, 43, 24) + " me@host",
    '{"key": "pref", "value": "' + body(B62, 16, 25) + '"}',
    "sort_key " + RUN,
    "tokenizer " + RUN,
    "I lost the key. " + RUN + " was the build number",
    "PASSWORD_HASHERS = ['django.contrib.auth.hashers.PBKDF2PasswordHasher']",
    'oauth2_scheme = OAuth2PasswordBearer(tokenUrl="token")',
    "token count 12345678901234567890",
    "S3 secret key\\nRECALL_S3_VERIFY_TLS = true",
    '<img src="data:image/png;base64,' + body(B62, 60, 26) + '"> key',
    "the key point is internationalization_of_everything",
    "令牌桶的容量是 1000000000000000",
    "公钥指纹 " + RUN,
    # batch 3c: keys public by design, ids named just before the run, Stripe object ids
    "publishable key pk_live_51" + body(B62, 97, 35) + " goes in the browser bundle",
    "reCAPTCHA site key 6Le" + body(B64URL, 37, 36) + " (public)",
    "Mapbox public token pk.eyJ1Ijoi" + body(B62, 30, 37) + "." + body(B64URL, 22, 37),
    "USDC token contract 0x" + body(HEX + "ABCDEF", 40, 38) + " on mainnet",
    "zone id " + body(HEX, 32, 39) + " (not the API token)",
    "Stripe request req_" + body(B62, 14, 40) + " failed: Invalid API Key provided",
    "refund for charge ch_3" + body(B62, 23, 41) + "; the secret key was fine",
    "复制这段淘口令 ￥" + body(B62, 11, 42) + "￥ 打开手机淘宝",
    # batch 3d: a Razorpay key id (Checkout's key:), site-search keys (public by design)
    "var rzp = new Razorpay({ key: 'rzp_live_" + body(B62, 14, 43) + "', amount: 50000 });",
    "razorpayApiKey: 'rzp_test_" + body(B62, 14, 44) + "'",
    "docsearch({\n  container: '#docsearch',\n  appId: 'R2IYF7ETH7',\n  apiKey: '"
    + body(HEX, 32, 45) + "',\n  indexName: 'docs',\n});",
    "ALGOLIA_SEARCH_API_KEY=" + body(HEX, 32, 46),
    "NEXT_PUBLIC_ALGOLIA_SEARCH_KEY=" + body(HEX, 32, 47),
    "searchOnlyApiKey: '" + body(HEX, 32, 48) + "'",
    "TYPESENSE_SEARCH_ONLY_API_KEY=" + body(B62, 32, 49),
    "the algolia search-only key " + body(HEX, 32, 50),
])
def test_runs_near_a_credential_word_that_are_not_secrets_are_kept(text: str) -> None:
    assert redact_text(text) == (text, {})


@pytest.mark.parametrize("text", [
    "ALGOLIA_ADMIN_API_KEY={}",  # Algolia's other keys are secrets
    "ELASTICSEARCH_API_KEY={}",  # "search" alone names no site-search key
    "elasticSearchApiKey: '{}'",
    "BRAVE_SEARCH_API_KEY={}",
    # a key after the DocSearch call has closed is not its key
    "docsearch({{ appId: 'X', apiKey: 'abc', indexName: 'd' }});\nconst admin = {{ apiKey: '{}' }}",
    "algolia admin key {}",
    "RAZORPAY_KEY_SECRET={}",  # the secret that goes with a Razorpay key id
])
def test_keys_beside_a_public_one_or_named_like_one_are_still_redacted(text: str) -> None:
    secret = body(HEX, 32, 51)
    out, counts = redact_text(text.format(secret))
    assert secret not in out and counts.total() == 1, out


# --- batch 3e: CLI logins, credential names, a password after what it is for -----------------

@pytest.mark.parametrize("text", [
    "$ wandb login {hex40}",
    "wandb login --relogin {hex40}",
    "wandb login --host https://wandb.demo.test local-{hex40}",
    "b2 account authorize 0059075bacb0000000076457 K005{b62_27}",
    "b2 authorize-account 4a5b6c7d8e9f {hex31}",
    "ngrok config add-authtoken 2{b62_26}_{b62_20}",
    "ngrok authtoken 2{b62_26}_{b62_20}",
    "cargo login --registry internal {b62_32}",
    "snyk auth {uuid}",
    "doctl auth init -t dop_v1_{hex64}",
    "在服务器上执行 wandb login {hex40} 就行",
])
def test_the_credential_of_a_cli_login_is_redacted(text: str) -> None:
    values = {"hex40": body(HEX, 40, 61), "b62_27": body(B62, 27, 62), "hex31": body(HEX, 31, 63),
              "b62_26": body(B62, 26, 64), "b62_20": body(B62, 20, 65),
              "b62_32": body(B62, 32, 66), "uuid": uuid(67), "hex64": body(HEX, 64, 68)}
    filled = text.format(**values)
    out, counts = redact_text(filled)
    assert "[REDACTED:" in out and counts.total() == 1, out
    assert not any(v in out for k, v in values.items() if "{" + k + "}" in text), out


@pytest.mark.parametrize("text", [
    "wandb login",
    "wandb login --relogin",
    "run `wandb login` and paste the key from https://wandb.ai/authorize",
    "b2 account authorize",
    "b2 authorize-account 4a5b6c7d8e9f",  # the key id alone, the key typed at the prompt
    "cargo login --registry my-company-registry",
    "ngrok config add-authtoken $NGROK_AUTHTOKEN",
    "snyk auth",
    "wandb login " + "0" * 40,
])
def test_cli_logins_without_an_inline_credential_are_kept(text: str) -> None:
    assert redact_text(text) == (text, {})


@pytest.mark.parametrize("text", [
    "GET https://qyapi.weixin.qq.com/cgi-bin/gettoken?corpid=ww1234&corpsecret={}",
    "agora.app-certificate={}",
    "AGORA_APP_CERTIFICATE={}",
    '{{"appCertificate": "{}"}}',
    "    api-v3-key: {}",
    "apiv3key={}",
    "WECHAT_PAY_API_V3_KEY={}",
    "wx.appsecret = {}",
])
def test_names_that_are_credentials_are_read_as_such(text: str) -> None:
    secret = body(B62, 32, 71)
    out, counts = redact_text(text.format(secret))
    assert secret not in out and counts == {"labelled_secret": 1}, out


@pytest.mark.parametrize("text", [
    "agora.app-id=" + body(HEX, 32, 72),
    "    cert-serial-no: " + body(HEX.upper(), 40, 73),
    "key-id: " + body(B62, 24, 74),
    "public-key: " + body(B62, 32, 75),
    "mch-id: 1656494632",
    # a certificate itself (PEM body) is public: the app-certificate rule wants a short key
    "appCertificate: MIIDdzCCAl+gAwIBAgIE" + body(B62 + "+/", 80, 76),
    "ssl_certificate: " + body(B62, 32, 77),  # "certificate" alone names no secret
    "corpid=ww" + body(HEX, 16, 78),
])
def test_names_beside_them_that_are_public_are_kept(text: str) -> None:
    assert redact_text(text) == (text, {})


@pytest.mark.parametrize("text, kind", [
    ("password for the ci user on the build VM: {} (it's in the vault too)", "password"),
    ("Password of the backup account on nas-01: {}", "password"),
    ("the token for our staging deploy bot: {}", "near_secret"),
    ("api key for the billing service user: {}.", "near_secret"),
])
def test_a_credential_after_what_it_is_for_and_a_colon_is_redacted(text: str, kind: str) -> None:
    secret = body(B62, 16, 81)
    out, counts = redact_text(text.format(secret))
    assert secret not in out and counts == {kind: 1}, out


@pytest.mark.parametrize("text", [
    "password for the ci user on the build VM: see the vault entry",
    "password for the ci user. Next step: " + body(B62, 16, 82),  # a sentence ends between
    "password for the ci user on the old build machine in the basement rack: "
    + body(B62, 16, 83),  # more than eight words: not a label
    "the token for the zone id: " + body(B62, 20, 84),  # it names the id
    "password for the ci user on the build VM: " + body(HEX, 32, 85),  # hex: a hash, maybe
    "password for the ci user:\n" + body(B62, 16, 86),
])
def test_phrases_after_a_credential_word_that_name_no_value_are_kept(text: str) -> None:
    assert redact_text(text) == (text, {})


def test_mollie_keys_need_a_random_body_and_test_keys_a_mention_of_mollie() -> None:
    key = body(B62, 30, 91)
    out, counts = redact_text(f'$mollie->setApiKey("test_{key}");')
    assert key not in out and counts == {"mollie_key": 1}, out
    for text in [f"test_{key}",  # test_ alone: an identifier as well
                 "def test_parseHTTP2ResponseWithBodyAbc1(self):",
                 "live_streamingEnabledForUsers2",
                 "sk_live_" + "x" * 30]:
        assert redact_text(text)[0] == text, text
