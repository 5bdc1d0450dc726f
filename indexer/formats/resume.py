"""What reopens an imported session in the agent that wrote it, for `recall resume`."""

from __future__ import annotations

import shlex

from indexer.formats.registry import FORMATS
from models import ResumeHint, Session

__all__ = ["resume_hint"]


def _how() -> dict[str, tuple[str | None, str]]:
    """Origin agent -> (command with {id}, or None when it cannot reopen one session; what to
    know). Each format says how its agent resumes (RESUME), and a format read from several
    agents (Cline, Roo, Kilo) says it per agent (RESUMES)."""
    how: dict[str, tuple[str | None, str]] = {}
    for name, module in FORMATS.items():
        how[name] = module.RESUME
        how.update(getattr(module, "RESUMES", {}))
    return how


def resume_hint(session: Session) -> ResumeHint:
    """What reopens the session in the agent that wrote it, or why nothing can."""
    origin = session.origin
    if origin is None:
        return ResumeHint(session.session_id, None, None, None, None,
                          "not imported from an agent's transcript: nothing to resume it in; "
                          "`recall show` prints it")
    template, note = _how().get(origin.agent, (None, (f"recall does not know how {origin.agent} "
                                                     "reopens a session")))
    command = None
    if template is not None and ("{id}" not in template or origin.id):
        command = template.format(id=shlex.quote(origin.id or ""))
    elif template is not None:
        note = f"the transcript holds no {origin.agent} session id to resume by"
    return ResumeHint(session.session_id, origin.agent, command, origin.cwd, origin.path, note)
