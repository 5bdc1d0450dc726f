"""Secrets of many kinds, ingested by `recall index`, POST /v1/sessions and MCP archive_session,
survive nowhere: not in the archive, the memories, either index's files on disk, the stored
keyword documents, search results, logs, API responses or MCP output."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import anyio
import msgspec
import pytest
import tantivy
from litestar.testing import TestClient

from api.http.app import create_app
from api.mcp.server import build_mcp
from indexer.text.redact import redact_text
from models import SearchRequest

from .helpers import make_service

# Fabricated, assembled from pieces so no scanner flags this file; none works anywhere.
# kind -> (text as someone would write it, the part that must never be stored)
SECRETS: dict[str, tuple[str, str]] = {}


def _add(kind: str, text: str, needle: str) -> None:
    SECRETS[kind] = (text, needle)


_add("openai", "my key is {}", "sk-" + "T3stOnlyKey" * 4 + "AbCd")
_add("openai_project", "OPENAI_API_KEY={}", "sk-proj-" + "Fak3Key_x9-Q" * 5)
_add("anthropic", "export ANTHROPIC_API_KEY='{}'", "sk-ant-api03-" + "N0tReal-Key9_" * 6)
_add("github_classic", "git remote set-url origin https://{}@github.com/me/repo",
     "ghp_" + "F4keT0ken9" * 3 + "Abc123")
_add("github_fine", "token: {}", "github_pat_" + "11AAAAAA0" + "_" + "Zz9yX" * 12)
_add("gitlab", "CI uses {} to push", "glpat-" + "Xy7fake" + "GitLab2Tok3nQ")
_add("slack_bot", "SLACK_BOT_TOKEN={}", "xoxb-" + "1234567890-0987654321-" + "FakeSlackT0ken" * 2)
_add("slack_webhook", "post to https://hooks.slack.com/services/{} please",
     "T0FAKE000/B0FAKE000/" + "fakeWebhookSecret123456")
_add("stripe", "stripe.api_key = \"{}\"", "sk_live_" + "51Fake" + "StripeKey0123456789abcd")
_add("google_api", "maps key {}", "AIza" + "SyFakeGoogleKey0123456789_abcdefghi")
_add("google_oauth", "Authorization header had {}", "ya29." + "a0FakeOAuthToken" + "0123456789abcdefXYZ")
_add("aws_key_id", "aws_access_key_id = {}", "AKIA" + "FAKE0NLY7EST1234")
_add("aws_secret", "aws_secret_access_key = {}", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYfakeKEY123")
_add("private_key", "here it is:\n{}\nkeep it safe",
     "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(["MIIEowIBAAKCAQEA" + "ZmFrZWtleWZha2VrZXk" * 3] * 3)
     + "\n-----END RSA PRIVATE KEY-----")
_add("openssh_key", "{}", "-----BEGIN OPENSSH PRIVATE KEY-----\n"
     + "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ" * 2 + "\n-----END OPENSSH PRIVATE KEY-----")
_add("jwt", "the session cookie is {}", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
     ".eyJzdWIiOiJmYWtlLXVzZXIiLCJpYXQiOjE3MDAwMDAwMDB9.ZmFrZS1zaWduYXR1cmUtbm90LXJlYWw")
_add("url_password", "DATABASE_URL=postgres://admin:{}@db.internal:5432/app", "S3cretPassw0rdXyz")
_add("password_zh", "我的密码是{}，别告诉别人。", "Zh0ngWenMiMa88")
_add("password_en", "btw my password is {} for the staging box", "Tr0ub4dor&3stage")
_add("dotenv", "DB_PASSWORD={}\nDEBUG=false", "EnvF1lePassw0rd")
_add("bearer", "curl -H 'Authorization: Bearer {}'", "Fak3BearerT0ken0123456789abcdef")
_add("pypi", "twine upload -p {}", "pypi-" + "AgEIcHlwaS5vcmc" + "CJDEyMzQ1Njc4LWZha2UtdG9rZW4" * 3)
_add("huggingface", "HF_TOKEN={}", "hf_" + "FakeHuggingFace" + "T0ken0123456789ab")
_add("npm", "//registry.npmjs.org/:_authToken={}", "npm_" + "FakeNpmT0ken" + "0123456789abcdefghijklmn")
_add("sendgrid", "SENDGRID_API_KEY={}", "SG." + "FakeSendGridKey01234" + ".FakeSecretPart0123456789abcdefgh")
_add("digitalocean", "doctl auth init -t {}", "dop_v1_" + "0123456789abcdef" * 4)
_add("generic", "api_key: {}", "a1B2c3D4e5F6g7H8i9J0kLmN")

# the distinctive part of each needle, for searching and scanning bytes
FRAGMENTS = {kind: max(needle.replace("\n", " ").split(" "), key=len)[-16:]
             for kind, (_text, needle) in SECRETS.items()}


def _session(session_id: str) -> dict:
    messages = []
    for kind, (text, needle) in SECRETS.items():
        messages.append({"role": "user", "content": f"[{kind}] " + text.format(needle)})
        messages.append({"role": "assistant", "content": f"Noted, I will remember the {kind} one."})
    return {"sessionId": session_id, "date": "2026-03-01", "title": "credentials for the deploy",
            "messages": messages}


def test_the_corpus_covers_twenty_kinds_and_each_is_redacted() -> None:
    assert len(SECRETS) >= 20
    for kind, (text, needle) in SECRETS.items():
        out, counts = redact_text(text.format(needle))
        assert FRAGMENTS[kind] not in out and counts, (kind, out)


def _scan(root: Path) -> list[tuple[str, str]]:
    found = []
    fragments = {k: f.encode() for k, f in FRAGMENTS.items()}
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            found += [(kind, str(path)) for kind, f in fragments.items() if f in data]
    return found


def test_no_secret_survives_anywhere(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "by-file.json").write_text(json.dumps(_session("by-file"), ensure_ascii=False))
    service = make_service(tmp_path / "home")
    outputs: list[str] = []
    report = service.index([folder])
    assert report.indexed == 1 and not report.rejected
    outputs.append(json.dumps(msgspec.to_builtins(report)))

    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as client:
        response = client.post("/v1/sessions", json=_session("by-http"))
        assert response.status_code == 201
        outputs.append(response.text)
        for kind, fragment in FRAGMENTS.items():
            # the response names the query it answers: only its results may not hold the secret
            found = client.get("/v1/search", params={"q": fragment, "mode": "keyword"})
            outputs.append(json.dumps(found.json()["results"]))
            outputs.append(client.get("/v1/search", params={"q": f"{kind} credentials"}).text)
        for sid in ("by-file", "by-http"):
            outputs.append(client.get(f"/v1/sessions/{sid}").text)
            outputs.append(client.post(f"/v1/sessions/{sid}/memories", json={}).text)

    server = build_mcp(service)

    async def mcp() -> None:
        result = await server.call_tool("archive_session", {"session": _session("by-mcp")})
        outputs.append(result.content[0].text)
        for tool, args in (("get_session", {"session_id": "by-mcp"}),
                           ("extract_memories", {"session_id": "by-mcp"}),
                           ("search_archive", {"query": "password key token", "scope": "all"})):
            outputs.append((await server.call_tool(tool, args)).content[0].text)

    anyio.run(mcp)
    for request in (SearchRequest(query="password token key secret", limit=50),
                    SearchRequest(query="credentials", mode="keyword", limit=50)):
        outputs.append(json.dumps([r.session_id for r in service.search(request).results]))
        outputs.append(repr(service.search(request)))
    assert service.maintenance.check().ok

    # every byte under the data dir (archive, memories, state, Tantivy, LanceDB)
    assert _scan(service.data.root) == []
    # Tantivy compresses what it stores: read every stored document back
    gen = service.searcher.generation()
    stored = []
    for shard in gen.keyword.shards:  # messages and memories
        searcher = shard.index.searcher()
        stored += [bytes(searcher.doc(address).get_first("stored")).decode()
                   for _score, address in searcher.search(tantivy.Query.all_query(),
                                                          limit=max(1, searcher.num_docs)).hits]
    assert len(stored) > 3 * len(SECRETS)
    # the test client logs the URLs it requests (with the fragments searched for): not recall's
    logs = [r.getMessage() for r in caplog.records if not r.name.startswith("httpx")]
    texts = "\n".join(stored + outputs + logs)
    assert "[REDACTED:" in texts
    leaked = [kind for kind, fragment in FRAGMENTS.items() if fragment in texts]
    assert leaked == []
    for kind, fragment in FRAGMENTS.items():  # nor can a search for one find it
        hits = service.search(SearchRequest(query=f'"{fragment}"', mode="keyword")).results
        assert all(fragment not in json.dumps(h.messages, default=str) for h in hits), kind
