"""`recall setup mcp` for each agent: its config read, recall's entry set (merged with one that
is there) or removed, the change shown as a unified diff, then backed up and written. A file
that cannot be read or parsed, or holds what its agent would not read, is left untouched and
its result says why. Nothing here reads the real home or environment: both come in a Place."""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from api.setup import files, jsonc, tomlconf
from api.setup.agents import NAME, Agent, Place
from api.setup.server import PASSED_SETTINGS, ServerSpec
from api.setup.values import ConfigError, merge_entry

__all__ = ["AgentResult", "SetupReport", "plan", "setup_mcp"]


class AgentResult(msgspec.Struct):
    """What happened to one agent's config (what would, in a dry run)."""

    agent: str
    file: str
    action: str  # added, updated, unchanged, removed or skipped
    reason: str | None = None  # why unchanged or skipped
    backup: str | None = None  # the copy of the file as it was
    diff: str | None = None  # unified diff of the change


class SetupReport(msgspec.Struct):
    dry_run: bool
    remove: bool
    server: ServerSpec
    results: list[AgentResult]

    @property
    def failed(self) -> bool:
        """Some agent was chosen or detected but its file was left as it was, broken."""
        return any(r.action == "skipped" and not (r.reason or "").startswith("not detected")
                   for r in self.results)


@dataclass(frozen=True)
class Change:
    """An agent's file now and as it would be: `after` None means nothing to write."""

    agent: Agent
    path: Path  # the file as the agent names it
    before: bytes | None
    after: bytes | None
    action: str
    reason: str | None = None

    @property
    def diff(self) -> str | None:
        if self.after is None:
            return None
        old = self.before.decode("utf-8").splitlines(keepends=True) if self.before else []
        new = self.after.decode("utf-8").splitlines(keepends=True)
        lines = difflib.unified_diff(old, new, "/dev/null" if self.before is None
                                     else str(self.path), str(self.path))
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                       for line in lines)


def setup_mcp(agents: Sequence[Agent], place: Place, spec: ServerSpec, *, chosen: bool,
              remove: bool, dry_run: bool, now: datetime) -> SetupReport:
    """Set recall up (or `remove` it) for `agents`: those `chosen` by name, else the ones
    detected in `place`."""
    results = []
    for agent in agents:
        if not chosen and agent.detect(place) is None:
            results.append(AgentResult(agent.name, str(agent.file(place)), "skipped",
                                       reason=_not_detected(agent, place)))
            continue
        change = plan(agent, place, spec, remove=remove)
        result = AgentResult(agent.name, str(change.path), change.action, change.reason,
                             diff=change.diff)
        if change.after is not None and not dry_run:
            try:
                backup = files.write(files.real(change.path), change.before, change.after, now)
            except (ConfigError, OSError) as exc:
                result = AgentResult(agent.name, str(change.path), "skipped",
                                     reason=f"cannot write: {_reason(exc)}")
            else:
                result.backup = str(backup) if backup else None
        results.append(result)
    return SetupReport(dry_run=dry_run, remove=remove, server=spec, results=results)


def plan(agent: Agent, place: Place, spec: ServerSpec, *, remove: bool) -> Change:
    """What setting recall up for `agent` (or removing it) would do to its file."""
    path = agent.file(place)
    try:
        before = files.read(files.real(path))
        raw = before.decode("utf-8") if before is not None else ""
    except (OSError, UnicodeDecodeError) as exc:
        return Change(agent, path, None, None, "skipped", f"cannot read: {_reason(exc)}")
    try:
        if not raw.strip():  # no file, or an empty one: nothing of the user's to keep
            if remove:
                return Change(agent, path, before, None, "unchanged", "not set up")
            return Change(agent, path, before, _fresh(agent, agent.entry(spec)), "added")
        existing = _entry(_load(agent, raw), agent.container)
        if remove:
            text = (tomlconf if agent.format == "toml" else jsonc).remove_entry(
                raw, agent.container, NAME)
            if text is None:
                return Change(agent, path, before, None, "unchanged", "not set up")
            return Change(agent, path, before, text.encode("utf-8"), "removed")
        entry = merge_entry(existing, agent.entry(spec), agent.owned, agent.env_key,
                            PASSED_SETTINGS)
        if entry == existing:
            return Change(agent, path, before, None, "unchanged", "already set up")
        text = (tomlconf if agent.format == "toml" else jsonc).set_entry(
            raw, agent.container, NAME, entry)
        return Change(agent, path, before, text.encode("utf-8"),
                      "added" if existing is None else "updated")
    except ConfigError as exc:
        return Change(agent, path, before, None, "skipped", f"cannot edit {path.name}: {exc}")


def _load(agent: Agent, raw: str) -> dict[str, Any]:
    if agent.format == "toml":
        return tomlconf.load(raw)
    doc = jsonc.parse(raw)
    if not agent.comments and not doc.plain:
        raise ConfigError(f"it holds comments or trailing commas, which {agent.label} does not "
                          "read; make it plain JSON first")
    return doc.value


def _entry(root: dict[str, Any], container: tuple[str, ...]) -> Any:
    node: Any = root
    for key in (*container, NAME):
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _fresh(agent: Agent, entry: dict[str, Any]) -> bytes:
    """A new file holding only recall's entry."""
    if agent.format == "toml":
        return tomlconf.set_entry("", agent.container, NAME, entry).encode("utf-8")
    root: dict[str, Any] = {NAME: entry}
    for key in reversed(agent.container):
        root = {key: root}
    return (json.dumps(agent.new_file(root), indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _not_detected(agent: Agent, place: Place) -> str:
    programs = " or ".join(agent.programs)
    return f"not detected (no {agent.folder(place)}, no {programs} on PATH)"


def _reason(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    return str(exc)
