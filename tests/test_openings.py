"""A session without a title is shown by its first request (`opening`) in listings and search
results, not as "(untitled)"."""

from __future__ import annotations

import json
from pathlib import Path

from models import SearchRequest

from .helpers import make_service

LONG_REQUEST = "please " + "make the nightly export resumable after a crash " * 4


def _write(folder: Path, session_id: str, messages: list[tuple[str, str]], **extra: str) -> None:
    record = {"sessionId": session_id, "date": "2026-05-02", **extra,
              "messages": [{"id": f"m{i}", "role": role, "content": text}
                           for i, (role, text) in enumerate(messages)]}
    (folder / f"{session_id}.json").write_text(json.dumps(record), encoding="utf-8")


def test_untitled_sessions_open_with_their_first_request(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    _write(folder, "untitled", [("assistant", "Ready when you are."),
                                ("user", "\n  Fix the   login redirect loop in auth.py\nIt began Monday."),
                                ("user", "also the tokens")])
    _write(folder, "titled", [("user", "rename the login page")], title="Login page rename")
    _write(folder, "long", [("user", LONG_REQUEST)])
    service = make_service(tmp_path / "home")
    service.index([folder])

    listed = {s.session_id: s for s in service.list_sessions().sessions}
    assert listed["untitled"].opening == "Fix the login redirect loop in auth.py"
    assert listed["titled"].opening == "rename the login page"  # kept, though the title wins
    assert len(listed["long"].opening or "") == 120 and listed["long"].opening.endswith("…")

    hits = {h.session_id: h for h in service.search(SearchRequest(query="login")).results}
    assert hits["untitled"].title is None
    assert hits["untitled"].opening == "Fix the login redirect loop in auth.py"
    assert hits["titled"].title == "Login page rename" and hits["titled"].opening is None


def test_a_session_without_a_user_message_has_no_opening(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    _write(folder, "notes", [("assistant", "Nightly export finished.")])
    service = make_service(tmp_path / "home")
    service.index([folder])
    assert service.list_sessions().sessions[0].opening is None
    assert service.search(SearchRequest(query="export")).results[0].opening is None
