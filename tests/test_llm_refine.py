"""Optional memory refinement over real HTTP, against a local OpenAI-compatible endpoint."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from api import RecallService
from models import InvalidInput

UPGRADE = "t-zh-upgrade"


class _Endpoint(BaseHTTPRequestHandler):
    answer: object = None  # what the next completion says (dict -> JSON content, int -> status)
    requests: list[dict] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "auth": self.headers.get("Authorization"),
                                    "body": body})
        if isinstance(self.answer, int):
            self.send_response(self.answer)
            self.end_headers()
            return
        content = self.answer if isinstance(self.answer, str) else json.dumps(self.answer)
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(data.encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[tuple[str, type[_Endpoint]]]:
    handler = type("Handler", (_Endpoint,), {"requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", handler
    server.shutdown()
    server.server_close()


def _with_llm(service: RecallService, url: str) -> RecallService:
    return RecallService(replace(service.settings, llm_url=url, llm_model="tiny", llm_api_key="k-1",
                                 llm_timeout=5), embedder=service.embedder)


def test_refined_memories_are_checked_and_returned(writable: RecallService, endpoint) -> None:
    url, handler = endpoint
    ids = [m.id for m in writable.session(UPGRADE).messages]
    handler.answer = {"memories": [
        {"type": "project", "text": "团队决定用Postgres数据库。", "confidence": 0.9,
         "source_message_ids": [ids[-1], "invented-id"]},
        {"type": "gossip", "text": "not a type"},
        {"type": "reference", "text": "key sk-proj-Xk29fLq8Zt4WXk29fLq8Zt4WXk29fLq8Zt4W"},
        {"type": "user", "text": "", "confidence": 2},
    ]}
    service = _with_llm(writable, url)
    payload = service.memories.extract(UPGRADE, refine=True)
    assert payload.refined is True
    assert [(m.type, m.text, m.source_message_ids) for m in payload.memories] == [
        ("project", "团队决定用Postgres数据库。", [ids[-1]])]
    sent = handler.requests[0]
    assert sent["path"] == "/v1/chat/completions" and sent["auth"] == "Bearer k-1"
    assert sent["body"]["model"] == "tiny"
    prompt = sent["body"]["messages"][1]["content"]
    assert "最后决定用Postgres数据库" in prompt and f"[{ids[-1]}]" in prompt
    # refinement is an answer, not a change: the stored memories stay rule-based
    assert all(m.kind != "refined" for m in service.memories.of(UPGRADE))


@pytest.mark.parametrize("answer", [500, "not json", {"memories": "many"}])
def test_a_failing_endpoint_falls_back_to_rule_based(writable: RecallService, endpoint, answer) -> None:
    url, handler = endpoint
    handler.answer = answer
    payload = _with_llm(writable, url).memories.extract(UPGRADE, ["project"], refine=True)
    assert payload.refined is False and payload.refine_error
    assert [m.text for m in payload.memories] == \
        [m.text for m in writable.memories.of(UPGRADE, ["project"])]


def test_unreachable_endpoint_and_no_endpoint(writable: RecallService) -> None:
    payload = _with_llm(writable, "http://127.0.0.1:9").memories.extract(UPGRADE, refine=True)
    assert payload.refined is False and "unreachable" in payload.refine_error
    with pytest.raises(InvalidInput, match="RECALL_LLM_URL"):
        writable.memories.extract(UPGRADE, refine=True)
