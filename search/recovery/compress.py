"""Shrink a snapshot to a token budget, keeping what a resumed conversation needs most.

Tokens are estimated on the snapshot's text (description, intents, facts, tasks with due dates,
context; models.snapshot.snapshot_tokens, CJK-aware). Items are kept greedily by value, each
only if the whole still fits:

- unfulfilled intents: 5 + confidence (the goals frame everything else, and are short);
  fulfilled ones: 0.5 x confidence;
- open tasks: 1 + priority (critical 4, high 3, medium 2, low 1) + 1 with a due date
  + 0.5 when in progress or blocked; completed 0.3; cancelled 0.1;
- active facts: (3 for decisions, constraints and requirements, else 2) x confidence + 0.5,
  so a sure decision ranks with a medium task and above a low one; inactive ones: 0.1.

The description always stays (cut if the budget is tiny). Live items (value >= 1) go first,
then the context gets what is left, cut at a sentence end (or mid-sentence, but then only if
at least MIN_CONTEXT_TOKENS remain), and only then may done or inactive items (value < 1) fill
what still remains: a trimmed context helps a resumed conversation more than the list of what
is already finished. Kept items stay in their original order, task references to dropped items
are removed, and tokenCount is set to the new estimate.
"""

from __future__ import annotations

import re

import msgspec

from models.errors import InvalidInput
from models.snapshot import Fact, Intent, Snapshot, Task, snapshot_tokens
from models.tokens import estimate_tokens

__all__ = ["MIN_CONTEXT_TOKENS", "compress", "item_value"]

_PRIORITY = {"critical": 4.0, "high": 3.0, "medium": 2.0, "low": 1.0}
_PLAN_FACTS = frozenset({"decision", "constraint", "requirement"})
# CJK sentence ends need no space; ASCII ones do (so "Python 3.12" is not a sentence end).
_SENTENCE_END = re.compile(r"(?<=[。！？；])|(?<=[.!?;])\s+")
_SENTENCE_ENDS = ("。", "！", "？", "；", ".", "!", "?", ";")
_ELLIPSIS = "…"
_LIVE = 1.0  # items worth at least this are live state; below it, done or no longer true
MIN_CONTEXT_TOKENS = 8  # a shorter stub of the context says nothing


def item_value(item: Intent | Fact | Task) -> float:
    """How much an item is worth keeping (the rules of the module docstring)."""
    if isinstance(item, Intent):
        return item.confidence * 0.5 if item.fulfilled else 5.0 + item.confidence
    if isinstance(item, Fact):
        if not item.active:
            return 0.1
        return (3.0 if item.category in _PLAN_FACTS else 2.0) * item.confidence + 0.5
    if item.status == "completed":
        return 0.3
    if item.status == "cancelled":
        return 0.1
    return (1.0 + _PRIORITY[item.priority] + (1.0 if item.due_date else 0.0)
            + (0.5 if item.status in ("in_progress", "blocked") else 0.0))


def compress(snapshot: Snapshot, token_budget: int) -> Snapshot:
    """A copy of the snapshot that fits in token_budget tokens, keeping the most valuable items."""
    if token_budget < 1:
        raise InvalidInput(f"token budget must be at least 1, got {token_budget}")
    if snapshot_tokens(snapshot) <= token_budget:
        return msgspec.structs.replace(snapshot, token_count=snapshot_tokens(snapshot))

    base = msgspec.structs.replace(snapshot, intents=(), facts=(), tasks=(), context="")
    if snapshot_tokens(base) > token_budget:
        base = msgspec.structs.replace(
            base, description=_cut(snapshot.description, token_budget, sentences=False))

    # Every item with its position, best first; ties keep the original order.
    by_kind: tuple[tuple[str, tuple[Intent | Fact | Task, ...]], ...] = (
        ("intents", snapshot.intents), ("facts", snapshot.facts), ("tasks", snapshot.tasks))
    ranked = sorted(
        [(item_value(item), kind, n, item)
         for kind, items in by_kind for n, item in enumerate(items)],
        key=lambda entry: -entry[0])
    kept: dict[str, list[tuple[int, object]]] = {"intents": [], "facts": [], "tasks": []}
    current = _fill(base, kept, [e for e in ranked if e[0] >= _LIVE], token_budget)
    if snapshot.context.strip():
        context = _fit_context(current, snapshot.context, token_budget)
        if context:
            base = msgspec.structs.replace(base, context=context)
            current = msgspec.structs.replace(current, context=context)
    current = _fill(base, kept, [e for e in ranked if e[0] < _LIVE], token_budget, current)
    current = _link(current)
    return msgspec.structs.replace(current, token_count=snapshot_tokens(current))


def _fill(base: Snapshot, kept: dict[str, list[tuple[int, object]]],
          entries: list[tuple[float, str, int, object]], budget: int,
          current: Snapshot | None = None) -> Snapshot:
    """Add entries (best first) to the kept items while the whole fits; returns the result."""
    current = _with(base, kept) if current is None else current
    for _value, kind, n, item in entries:
        trial = _with(base, kept, (kind, n, item))
        if snapshot_tokens(trial) <= budget:
            kept[kind].append((n, item))
            current = trial
    return current


def _fit_context(current: Snapshot, context: str, budget: int) -> str:
    cut = _cut(context, budget - snapshot_tokens(current), sentences=True)
    # The joining newline costs a little too: shrink until the whole fits.
    while cut and snapshot_tokens(msgspec.structs.replace(current, context=cut)) > budget:
        cut = _cut(cut.rstrip(_ELLIPSIS), estimate_tokens(cut) - 1, sentences=False)
    mid_sentence = cut != context and not cut.rstrip(_ELLIPSIS).endswith(_SENTENCE_ENDS)
    if mid_sentence and estimate_tokens(cut) < MIN_CONTEXT_TOKENS:
        return ""
    return cut


def _with(base: Snapshot, kept: dict[str, list[tuple[int, object]]],
          extra: tuple[str, int, object] | None = None) -> Snapshot:
    """base plus the kept items (and one extra), each kind in its original order."""
    fields = {}
    for name, entries in kept.items():
        if extra is not None and extra[0] == name:
            entries = [*entries, (extra[1], extra[2])]
        fields[name] = tuple(entry for _, entry in sorted(entries, key=lambda e: e[0]))
    return msgspec.structs.replace(base, **fields)


def _link(snapshot: Snapshot) -> Snapshot:
    """Drop task references to intents and tasks that did not make the cut."""
    intent_ids = {i.id for i in snapshot.intents}
    task_ids = {t.id for t in snapshot.tasks}
    tasks = tuple(
        msgspec.structs.replace(
            t,
            related_intent_ids=tuple(i for i in t.related_intent_ids if i in intent_ids),
            dependencies=tuple(d for d in t.dependencies if d in task_ids),
        )
        for t in snapshot.tasks
    )
    return msgspec.structs.replace(snapshot, tasks=tasks)


def _cut(text: str, budget: int, *, sentences: bool) -> str:
    """The longest start of text within budget tokens: whole sentences when asked and possible,
    else characters, with an ellipsis when anything was cut."""
    if budget <= 0:
        return ""
    if estimate_tokens(text) <= budget:
        return text
    if sentences:
        pieces = [p for p in _SENTENCE_END.split(text) if p]
        out = ""
        for piece in pieces:
            joined = (out + " " + piece).strip() if out and not _is_cjk_end(out) else out + piece
            if estimate_tokens(joined + _ELLIPSIS) > budget:
                break
            out = joined
        if out:
            return out + _ELLIPSIS
    # Binary search on characters: estimate_tokens grows with length.
    low, high = 0, len(text)
    while low < high:
        mid = (low + high + 1) // 2
        if estimate_tokens(text[:mid].rstrip() + _ELLIPSIS) <= budget:
            low = mid
        else:
            high = mid - 1
    return text[:low].rstrip() + _ELLIPSIS if low else ""


def _is_cjk_end(text: str) -> bool:
    return bool(text) and ord(text[-1]) > 0x2E80
