"""The turns every generator of transcript_generators_{cli,db}.py writes, in its own format's shape:
the same mix as transcript_generators.py (a prompt, an answer with thinking on ~30 % of turns, a
tool call on half the turns with its result as its own message), drawn from one seeded Random.

Each generator returns the messages recall's reader must find in each file it wrote, so that
import_speed.py can check that every generated file is read whole.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from benchmarks.transcript_generators import MESSAGES_PER_SESSION, WORDS, text

__all__ = ["BASE", "CWD", "Expected", "Tool", "Turn", "turns"]

BASE = 1767225600  # 2026-01-01, as the other generators
CWD = "/home/lin/code/app"
Expected = dict[Path, int]  # messages recall must read from each generated file


@dataclass(frozen=True, slots=True)
class Tool:
    call_id: str
    command: str
    output: str


@dataclass(frozen=True, slots=True)
class Turn:
    index: int  # the prompt's place among the session's messages (times are derived from it)
    prompt: str
    answer: str
    thinking: str | None
    tool: Tool | None
    messages: int  # the prompt, the answer (thinking and tool call inside it), the tool's result


def turns(rng: random.Random, session: int, tool_messages: bool = True) -> Iterator[Turn]:
    """A session's turns; tool_messages=False for a format that keeps no tool result apart (the
    turn is then two messages, and the session has more turns)."""
    i = 0
    while i < MESSAGES_PER_SESSION:
        prompt = text(rng)
        thinking = text(rng) if rng.random() < 0.3 else None
        answer = text(rng)
        tool = None
        if rng.random() < 0.5:
            tool = Tool(f"call_{session}_{i}", f"pytest -q tests/test_{rng.choice(WORDS)}.py",
                        text(rng) * 3)
        turn = Turn(i, prompt, answer, thinking, tool, 3 if tool and tool_messages else 2)
        yield turn
        i += turn.messages
