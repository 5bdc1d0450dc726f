"""Tests for indexer.text.redact: every kind caught (English and Chinese), no false positives,
idempotence, nested values, and large inputs."""

from __future__ import annotations

import copy
import dataclasses
from collections import Counter

import pytest

from indexer.text.redact import Redaction, find_secrets, redact_text, redact_value

# Fabricated secrets only.  They are assembled from pieces so this file holds no literal that
# secret scanners would flag, and none of them works anywhere.
OPENAI = "sk-" + "T3stOnlyKey" * 4 + "AbCd"
OPENAI_PROJ = "sk-proj-" + "Fak3Key_x9-Q" * 5
ANTHROPIC = "sk-ant-api03-" + "N0tReal-Key9_" * 6
GH_BODY = "F4keT0ken9" * 3 + "Abc123"  # 36 characters
GITHUB_PAT = "github_pat_" + "11AAAAAA0" + "_" + "Zz9yX" * 12
SLACK_BODY = "1234567890-0987654321-" + "FakeSlackT0ken" * 2
AKIA = "AKIA" + "FAKE0NLY7EST1234"
ASIA = "ASIA" + "TEMP0NLY7EST5678"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYfakeKEY123"
PYPI = "pypi-" + "AgEIcHlwaS5vcmc" + "CJDEyMzQ1Njc4LWZha2UtdG9rZW4" * 3
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    + ".eyJzdWIiOiJmYWtlLXVzZXIiLCJpYXQiOjE3MDAwMDAwMDB9"
    + ".ZmFrZS1zaWduYXR1cmUtbm90LXJlYWw"
)
OPAQUE = "opaque_" + "T0kenV4lue" * 3
PEM_BODY = "\n".join(["MIIEowIBAAKCAQEA" + "ZmFrZWtleWZha2VrZXk" * 3] * 3 + ["ZmFrZQ=="])
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"
OPENSSH = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    + "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ" * 2
    + "\n-----END OPENSSH PRIVATE KEY-----"
)
GENERIC = "a1B2c3D4e5F6g7H8i9J0"

ALL_KINDS = {
    "openai_key", "anthropic_key", "github_token", "slack_token", "aws_access_key",
    "aws_secret_key", "pypi_token", "bearer_token", "jwt", "private_key", "password",
    "url_password", "generic_secret",
}


def R(kind: str) -> str:
    return f"[REDACTED:{kind}]"


# (input, expected output, expected counts)
CAUGHT: list[tuple[str, str, dict[str, int]]] = [
    # OpenAI / Anthropic
    (f"My key is {OPENAI}, please rotate it.",
     f"My key is {R('openai_key')}, please rotate it.", {"openai_key": 1}),
    (f"OPENAI_API_KEY={OPENAI_PROJ}\n", f"OPENAI_API_KEY={R('openai_key')}\n", {"openai_key": 1}),
    (f"这是我的密钥 {OPENAI}，别外传。", f"这是我的密钥 {R('openai_key')}，别外传。", {"openai_key": 1}),
    (f"export ANTHROPIC_API_KEY='{ANTHROPIC}'",
     f"export ANTHROPIC_API_KEY='{R('anthropic_key')}'", {"anthropic_key": 1}),
    (f"Claude 的 key：{ANTHROPIC} 已经失效", f"Claude 的 key：{R('anthropic_key')} 已经失效",
     {"anthropic_key": 1}),
    # GitHub
    *[
        (f"git clone https://{p}{GH_BODY}@github.com/acme/app.git",
         f"git clone https://{R('github_token')}@github.com/acme/app.git", {"github_token": 1})
        for p in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")
    ],
    (f"GITHUB_TOKEN={GITHUB_PAT}", f"GITHUB_TOKEN={R('github_token')}", {"github_token": 1}),
    (f"把令牌 ghp_{GH_BODY} 填到仓库设置里", f"把令牌 {R('github_token')} 填到仓库设置里",
     {"github_token": 1}),
    # Slack
    *[
        (f"SLACK_BOT_TOKEN: {p}{SLACK_BODY} # bot", f"SLACK_BOT_TOKEN: {R('slack_token')} # bot",
         {"slack_token": 1})
        for p in ("xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-")
    ],
    (f"Slack 机器人令牌是 xoxb-{SLACK_BODY}。", f"Slack 机器人令牌是 {R('slack_token')}。",
     {"slack_token": 1}),
    # AWS
    (f"The access key id {AKIA} belongs to ci-bot.",
     f"The access key id {R('aws_access_key')} belongs to ci-bot.", {"aws_access_key": 1}),
    (f"temporary creds: {ASIA} {AWS_SECRET} (expire in 1h)",
     f"temporary creds: {R('aws_access_key')} {R('aws_secret_key')} (expire in 1h)",
     {"aws_access_key": 1, "aws_secret_key": 1}),
    (f"{AKIA},{AWS_SECRET}", f"{R('aws_access_key')},{R('aws_secret_key')}",
     {"aws_access_key": 1, "aws_secret_key": 1}),
    (f"[default]\naws_access_key_id = {AKIA}\naws_secret_access_key = {AWS_SECRET}\n",
     (f"[default]\naws_access_key_id = {R('aws_access_key')}\n"
     f"aws_secret_access_key = {R('aws_secret_key')}\n"),
     {"aws_access_key": 1, "aws_secret_key": 1}),
    (f"AWS_SECRET_ACCESS_KEY: {AWS_SECRET}", f"AWS_SECRET_ACCESS_KEY: {R('aws_secret_key')}",
     {"aws_secret_key": 1}),
    (f'{{"AccessKeyId": "{ASIA}", "SecretAccessKey": "{AWS_SECRET}"}}',
     f'{{"AccessKeyId": "{R("aws_access_key")}", "SecretAccessKey": "{R("aws_secret_key")}"}}',
     {"aws_access_key": 1, "aws_secret_key": 1}),
    (f"访问密钥 {AKIA}，私有密钥 {AWS_SECRET}",
     f"访问密钥 {R('aws_access_key')}，私有密钥 {R('aws_secret_key')}",
     {"aws_access_key": 1, "aws_secret_key": 1}),
    # PyPI: the token wins over the "password =" label around it
    (f"[pypi]\n  username = __token__\n  password = {PYPI}\n",
     f"[pypi]\n  username = __token__\n  password = {R('pypi_token')}\n", {"pypi_token": 1}),
    (f"上传用的令牌：{PYPI}", f"上传用的令牌：{R('pypi_token')}", {"pypi_token": 1}),
    # Bearer keeps the word; a JWT or key after Bearer is one bearer_token
    (f"curl -H 'Authorization: Bearer {OPAQUE}' https://api.example.com/v1",
     f"curl -H 'Authorization: Bearer {R('bearer_token')}' https://api.example.com/v1",
     {"bearer_token": 1}),
    (f"Authorization: Bearer {JWT}", f"Authorization: Bearer {R('bearer_token')}",
     {"bearer_token": 1}),
    (f'{{"Authorization": "Bearer {OPENAI}"}}',
     f'{{"Authorization": "Bearer {R("bearer_token")}"}}',
     {"bearer_token": 1}),
    (f"请求头里带上 Authorization: Bearer {JWT} 即可",
     f"请求头里带上 Authorization: Bearer {R('bearer_token')} 即可", {"bearer_token": 1}),
    # JWT
    (f"Set-Cookie: session={JWT}; Path=/; HttpOnly",
     f"Set-Cookie: session={R('jwt')}; Path=/; HttpOnly", {"jwt": 1}),
    (f"登录后拿到的 JWT 是 {JWT}，有效期一小时", f"登录后拿到的 JWT 是 {R('jwt')}，有效期一小时",
     {"jwt": 1}),
    (f"token: {JWT}", f"token: {R('jwt')}", {"jwt": 1}),
    # private keys: whole block, also JSON-escaped and cut off
    (f"Here is the deploy key:\n{PEM}\nKeep it safe.",
     f"Here is the deploy key:\n{R('private_key')}\nKeep it safe.", {"private_key": 1}),
    (f"私钥如下：\n{OPENSSH}\n用完请删除。", f"私钥如下：\n{R('private_key')}\n用完请删除。",
     {"private_key": 1}),
    ('{"content": "' + PEM.replace("\n", "\\n") + '\\nthanks"}',
     '{"content": "' + R("private_key") + '\\nthanks"}', {"private_key": 1}),
    (f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n... (truncated)",
     f"{R('private_key')}\n... (truncated)", {"private_key": 1}),
    # passwords: the label stays, only the value goes
    ("password: hunter2-blue", f"password: {R('password')}", {"password": 1}),
    ("login with password=hunter2 then", f"login with password={R('password')} then",
     {"password": 1}),
    ("passwd: s3cr3t!, user: bob", f"passwd: {R('password')}, user: bob", {"password": 1}),
    ("Server=db;Uid=sa;Pwd=Tr0ub4dor", f"Server=db;Uid=sa;Pwd={R('password')}", {"password": 1}),
    ('{"user": "bob", "password": "correct horse battery staple"}',
     f'{{"user": "bob", "password": "{R("password")}"}}', {"password": 1}),
    ("{'password': 'hunter2'}", f"{{'password': '{R('password')}'}}", {"password": 1}),
    ("DB_HOST=db\nDB_PASSWORD=Sup3rS3cret\nDB_PORT=5432",
     f"DB_HOST=db\nDB_PASSWORD={R('password')}\nDB_PORT=5432", {"password": 1}),
    ("PASSWORD=Sup3rS3cret", f"PASSWORD={R('password')}", {"password": 1}),
    ("**Password:** hunter2", f"**Password:** {R('password')}", {"password": 1}),
    ("mysql -u root --password=R00tPass db", f"mysql -u root --password={R('password')} db",
     {"password": 1}),
    ('{\\"password\\": \\"hunter2\\"}', f'{{\\"password\\": \\"{R("password")}\\"}}',
     {"password": 1}),
    ("logins:\\npassword: hunter2\\n", f"logins:\\npassword: {R('password')}\\n",
     {"password": 1}),
    ("密码：tiger-lily-88", f"密码：{R('password')}", {"password": 1}),
    ("服务器密码: tiger88 记得改", f"服务器密码: {R('password')} 记得改", {"password": 1}),
    ("密码是tiger88。", f"密码是{R('password')}。", {"password": 1}),
    ("初始密码为 Abc12345，登录后修改", f"初始密码为 {R('password')}，登录后修改", {"password": 1}),
    ("数据库密码=tiger88", f"数据库密码={R('password')}", {"password": 1}),
    # credentials in URLs keep scheme, user and host
    ("DATABASE_URL=postgres://app:S3cretPassw0rd@db.internal:5432/ledger",
     f"DATABASE_URL=postgres://app:{R('url_password')}@db.internal:5432/ledger",
     {"url_password": 1}),
    ("mongodb+srv://admin:Pa55word@cluster0.example.net/db?retryWrites=true",
     f"mongodb+srv://admin:{R('url_password')}@cluster0.example.net/db?retryWrites=true",
     {"url_password": 1}),
    ("REDIS_URL=redis://:r3dis-pw@cache:6379/0",
     f"REDIS_URL=redis://:{R('url_password')}@cache:6379/0",
     {"url_password": 1}),
    ("连接串是 mysql://root:toor123@10.0.0.5:3306/app ，别提交",
     f"连接串是 mysql://root:{R('url_password')}@10.0.0.5:3306/app ，别提交", {"url_password": 1}),
    # generic labelled secrets
    (f"api_key = '{GENERIC}'", f"api_key = '{R('generic_secret')}'", {"generic_secret": 1}),
    (f"apikey: {GENERIC}", f"apikey: {R('generic_secret')}", {"generic_secret": 1}),
    (f"X-Api-Key: {GENERIC}", f"X-Api-Key: {R('generic_secret')}", {"generic_secret": 1}),
    (f"SECRET={GENERIC}", f"SECRET={R('generic_secret')}", {"generic_secret": 1}),
    (f"token: {GENERIC}", f"token: {R('generic_secret')}", {"generic_secret": 1}),
    (f"access_token={GENERIC}&expires=3600", f"access_token={R('generic_secret')}&expires=3600",
     {"generic_secret": 1}),
    (f'{{"client_secret": "{GENERIC}"}}', f'{{"client_secret": "{R("generic_secret")}"}}',
     {"generic_secret": 1}),
    (f"SECRET_KEY = '{GENERIC}'", f"SECRET_KEY = '{R('generic_secret')}'", {"generic_secret": 1}),
    (f"配置文件里写的 api_key: {GENERIC} 要换掉", f"配置文件里写的 api_key: {R('generic_secret')} 要换掉",
     {"generic_secret": 1}),
]


@pytest.mark.parametrize("text,expected,counts", CAUGHT)
def test_secret_is_redacted(text: str, expected: str, counts: dict[str, int]) -> None:
    out, found = redact_text(text)
    assert out == expected
    assert found == Counter(counts)


@pytest.mark.parametrize("text,expected,counts", CAUGHT)
def test_redaction_is_idempotent(text: str, expected: str, counts: dict[str, int]) -> None:
    once, _ = redact_text(text)
    twice, found = redact_text(once)
    assert twice == once
    assert found == Counter()


def test_every_kind_is_covered() -> None:
    assert set().union(*(c for _, _, c in CAUGHT)) == ALL_KINDS


@pytest.mark.parametrize("secret", [
    OPENAI, OPENAI_PROJ, ANTHROPIC, "ghp_" + GH_BODY, GITHUB_PAT, "xoxp-" + SLACK_BODY, AKIA,
    AWS_SECRET, PYPI, JWT, OPAQUE, "S3cretPassw0rd", "tiger-lily-88", GENERIC,
])
def test_secret_text_is_gone(secret: str) -> None:
    text = "\n".join(t for t, _, _ in CAUGHT if secret in t)
    assert text, "secret not used by any case"
    out, _ = redact_text(text)
    assert secret not in out


NOT_SECRETS = [
    "Please reset your password tomorrow.",
    "The password field is required; the password is hashed with bcrypt.",
    "Please enter your password: it must contain 8 characters.",
    "忘记密码了怎么办？请重置密码。",
    "我的密码是什么？密码为空时会报错。",
    "Use a bearer token in the Authorization header; the bearer of bad news.",
    "Send Bearer YOUR_ACCESS_TOKEN_HERE in the header.",
    "the token count is high (max_tokens=4096, tokens: 1234)",
    "snake_case_name = my_other_snake_case_name",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "Merge 9fceb02d0ae598e95dc970b74767f19372d61af8 AKIA is a prefix",
    "request id 123e4567-e89b-12d3-a456-426614174000 failed",
    "released v2.3.1 today, 2.3.1-rc.2 before",
    "pip install scikit-learn (people write sk-learn)",
    "the task-force met; the disk-space-is-low-warning-again fired",
    "see https://example.com/a:b and http://localhost:8080/api/v1:batch",
    "ssh git@github.com:org/repo.git; scp deploy@host:/tmp/x .",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "def login(user: str, password: str) -> bool:",
    "conn = connect(user=user, password=password)",
    "password = getpass.getpass('Password: ')",
    "if password == confirm_password:",
    "model.config.pad_token_id = tokenizer.eos_token_id",
    "api_key = os.environ['OPENAI_API_KEY']",
    "secret_key = get_random_secret_key()",
    "headers = {'Authorization': f'Bearer {token}'}",
    "export PWD=/home/alice/project",
    "password: ********",
    "POSTGRES_PASSWORD=${POSTGRES_PASSWORD}",
    "ghp_short and xoxb-short and pypi-simple",
    "-----BEGIN RSA PRIVATE KEY----- is how a PEM key starts, -----END RSA PRIVATE KEY----- ends",
    "api_key: your_api_key_here",
    "token: xxxxxxxxxxxxxxxxxxxxxxxx",
    "already clean: password: [REDACTED:password] and [REDACTED:jwt]",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_not_a_secret(text: str) -> None:
    assert redact_text(text) == (text, Counter())


def test_counts_add_up_over_many_secrets() -> None:
    text = (
        f"OPENAI_API_KEY={OPENAI}\nSECOND={OPENAI_PROJ}\n"
        f"password: hunter2\n密码：tiger88\n"
        f"url postgres://app:pw1@db/x and redis://:pw2@cache/0\n"
        f"Authorization: Bearer {JWT}\nstandalone {JWT}\n"
    )
    out, counts = redact_text(text)
    assert counts == Counter(openai_key=2, password=2, url_password=2, bearer_token=1, jwt=1)
    assert sum(out.count(f"[REDACTED:{k}]") for k in counts) == sum(counts.values())


def test_find_secrets_offsets_point_at_the_secret() -> None:
    text = f"key {OPENAI} and password=hunter2"
    found = find_secrets(text)
    assert [(r.kind, text[r.start:r.end]) for r in found] == [
        ("openai_key", OPENAI), ("password", "hunter2"),
    ]
    assert all(isinstance(r, Redaction) for r in found)
    with pytest.raises(dataclasses.FrozenInstanceError):
        found[0].kind = "x"  # type: ignore[misc]
    assert {f.name for f in dataclasses.fields(Redaction)} == {"kind", "start", "end"}


def test_redact_value_on_a_session() -> None:
    session = {
        "sessionId": "s-2026-01-12",
        "title": "Deploy notes",
        "participants": ["alice", "assistant"],
        "messages": [
            {"role": "user", "content": f"my key is {OPENAI}", "time": 1736660000000},
            {"role": "assistant", "content": [
                {"type": "text", "text": f"Send it as Authorization: Bearer {JWT}"},
                {"type": "image", "source": None},
            ]},
            {"role": "user", "content": "生产库密码：tiger-lily-88", "pinned": True, "score": 0.5},
            {"role": "tool", "content": ("DATABASE_URL=postgres://app:S3cret@db/ledger", 3)},
        ],
        # keys are never touched, even when they look like secrets
        "meta": {"password": "password: hunter2", OPENAI: "value"},
    }
    original = copy.deepcopy(session)
    out, counts = redact_value(session)
    assert session == original  # input not modified
    assert counts == Counter(openai_key=1, bearer_token=1, password=2, url_password=1)
    assert out["messages"][0] == {
        "role": "user", "content": f"my key is {R('openai_key')}", "time": 1736660000000,
    }
    assert out["messages"][1]["content"][0]["text"] == (
        f"Send it as Authorization: Bearer {R('bearer_token')}"
    )
    assert out["messages"][1]["content"][1] == {"type": "image", "source": None}
    assert out["messages"][2] == {
        "role": "user", "content": f"生产库密码：{R('password')}", "pinned": True, "score": 0.5,
    }
    assert out["messages"][3]["content"] == (
        f"DATABASE_URL=postgres://app:{R('url_password')}@db/ledger", 3,
    )
    assert out["meta"] == {"password": f"password: {R('password')}", OPENAI: "value"}
    assert out["participants"] == ["alice", "assistant"] and out["title"] == "Deploy notes"
    assert out is not session and out["messages"] is not session["messages"]


@pytest.mark.parametrize("value", [None, 3, 2.5, True, "", "plain text", [], {}])
def test_redact_value_passes_plain_values_through(value: object) -> None:
    assert redact_value(value) == (value, Counter())


FIVE_MB = 5_000_000


def test_large_text_without_secrets() -> None:
    line = "The quick brown fox jumps over the lazy dog; 中文段落也在这里，没有任何秘密。\n"
    text = (line * (FIVE_MB // len(line) + 1))[:FIVE_MB]
    assert redact_text(text) == (text, Counter())


def test_large_text_of_near_misses() -> None:
    chunk = (
        "reset your password tomorrow; password field; token count; sk-learn task-force "
        "Bearer of news; ghp_short xoxb-x AKIA eyJabc.eyJ pypi-x https://example.com/a:b "
        "-----BEGIN RSA PRIVATE KEY----- api_key: short 密码是什么 PWD=/x secret: no "
        "pad_token=tokenizer.eos_token_id aws_secret_access_key: short v2.3.1 "
        "9fceb02d0ae598e95dc970b74767f19372d61af8 123e4567-e89b-12d3-a456-426614174000\n"
    )
    text = (chunk * (FIVE_MB // len(chunk) + 1))[:FIVE_MB]
    assert redact_text(text) == (text, Counter())


@pytest.mark.parametrize("text", [
    "password=" + "a" * 1_000_000,
    'password: "' + "b" * 1_000_000,
    "a://" + "u" * 1_000_000,
    "a://x:" * 200_000,
    "-----BEGIN PRIVATE KEY-----\n" * 40_000,
    "sk-" * 300_000,
    "Bearer " * 150_000,
    "eyJ" + "A" * 1_000_000,
    "密码是" * 300_000,
    ":" * 1_000_000,
])
def test_pathological_shapes_finish(text: str) -> None:
    out, _ = redact_text(text)
    assert redact_text(out) == (out, Counter())
