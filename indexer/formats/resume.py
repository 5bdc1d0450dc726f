"""How each agent reopens one of its sessions (from its own docs), for `recall resume`."""

from __future__ import annotations

import shlex

from models import ResumeHint, Session

__all__ = ["resume_hint"]

# agent -> (command with {id}, or None when it cannot reopen one session; what to know)
_HOW: dict[str, tuple[str | None, str]] = {
    "claude-code": ("claude --resume {id}",
                    "Claude Code resumes sessions of the folder it runs in: run it in cwd"),
    "codex": ("codex resume {id}", ("Codex finds the session by its id; run it in cwd to keep "
                                   "the same working folder")),
    "gemini": ("gemini --resume {id}", ("Gemini CLI resumes sessions of its project folder: run "
                                       "it in cwd (releases before session ids take a number "
                                       "from `gemini --list-sessions`)")),
    "aider": ("aider --restore-chat-history", ("aider keeps one history per folder and restores "
                                             "all of it, not one session: run it in cwd")),
    "chatgpt": ("https://chatgpt.com/c/{id}", "a ChatGPT conversation: open it in a browser"),
    "openclaw": (None, ("OpenClaw sessions are picked up again from OpenClaw itself (its chat "
                       "channels or dashboard); the transcript is at the path given")),
}


def resume_hint(session: Session) -> ResumeHint:
    """What reopens the session in the agent that wrote it, or why nothing can."""
    origin = session.origin
    if origin is None:
        return ResumeHint(session.session_id, None, None, None, None,
                          "not imported from an agent's transcript: nothing to resume it in; "
                          "`recall show` prints it")
    template, note = _HOW.get(origin.agent, (None, (f"recall does not know how {origin.agent} "
                                                   "reopens a session")))
    command = None
    if template is not None and ("{id}" not in template or origin.id):
        command = template.format(id=shlex.quote(origin.id or ""))
    elif template is not None:
        note = f"the transcript holds no {origin.agent} session id to resume by"
    return ResumeHint(session.session_id, origin.agent, command, origin.cwd, origin.path, note)
