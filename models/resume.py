"""How to pick an imported session up again in the agent that wrote it."""

from __future__ import annotations

import msgspec

__all__ = ["ResumeHint"]


class ResumeHint(msgspec.Struct, frozen=True):
    """`recall resume ID`: the command that reopens the session in its own agent, run in `cwd`;
    when the agent cannot resume it (or it came from no agent), `command` is None and `note` says
    why, with the transcript's path when it is known."""

    session_id: str
    agent: str | None
    command: str | None
    cwd: str | None
    transcript: str | None
    note: str
