"""What reopens an imported session in the agent that wrote it, for `recall resume`."""

from __future__ import annotations

import shlex

from indexer.formats import registry
from indexer.formats.contract import Resume
from models import ResumeHint, Session

__all__ = ["resume_hint"]


def _how() -> dict[str, Resume]:
    """Origin agent -> how it reopens a session (a command with {id}, or None when it cannot
    reopen one; what to know): each format's own, and its other agents' (Roo, Kilo for Cline)."""
    return {agent: how for fmt in registry.FORMATS for agent, how in fmt.resumes().items()}


def resume_hint(session: Session) -> ResumeHint:
    """What reopens the session in the agent that wrote it, or why nothing can."""
    origin = session.origin
    if origin is None:
        return ResumeHint(session.session_id, None, None, None, None,
                          "not imported from an agent's transcript: nothing to resume it in; "
                          "`recall show` prints it")
    template, note = _how().get(origin.agent, Resume(
        None, f"recall does not know how {origin.agent} reopens a session"))
    command = None
    if template is not None and ("{id}" not in template or origin.id):
        command = template.format(id=shlex.quote(origin.id or ""))
    elif template is not None:
        note = f"the transcript holds no {origin.agent} session id to resume by"
    return ResumeHint(session.session_id, origin.agent, command, origin.cwd, origin.path, note)
