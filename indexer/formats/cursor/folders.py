"""Where a Cursor editor chat ran: the folder a composer's workspace identifier, a bubble or a
workspace's `workspace.json` names (file URIs made paths)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

__all__ = ["bubble_workspace", "uri_path", "workspace", "workspace_folder"]


def workspace(value: dict[str, Any]) -> str | None:
    """The folder of a composer's `workspaceIdentifier.uri` (`fsPath`, else its URI)."""
    uri = _dict(_dict(value.get("workspaceIdentifier")).get("uri"))
    if isinstance(uri.get("fsPath"), str) and uri["fsPath"].strip():
        return str(uri["fsPath"]).strip()
    return uri_path(uri.get("external") or uri.get("path"))


def bubble_workspace(bubble: dict[str, Any]) -> str | None:
    folder = bubble.get("workspaceProjectDir")
    if isinstance(folder, str) and folder.strip():
        return folder.strip()
    uris = bubble.get("workspaceUris")
    return uri_path(uris[0]) if isinstance(uris, list) and uris else None


def workspace_folder(path: Path) -> str | None:
    """The folder a workspace database belongs to, from `workspace.json` beside it."""
    try:
        value = json.loads((path.parent / "workspace.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return uri_path(_dict(value).get("folder"))


def uri_path(uri: Any) -> str | None:
    """`file:///home/lin/x` -> /home/lin/x, `file:///c%3A/x` -> c:/x; a bare path as it is."""
    if not isinstance(uri, str) or not uri.strip():
        return None
    if "://" not in uri:
        return uri.strip()
    try:
        path = unquote(urlparse(uri).path)
    except ValueError:  # a malformed URI (an unclosed IPv6 host)
        return None
    if re.match(r"/[A-Za-z]:", path):
        path = path[1:]
    return path or None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
