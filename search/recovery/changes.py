"""What changed between two snapshots of a conversation, and how much it matters.

Items are paired by id first; the rest by wording (word/bigram Jaccard >= MATCH_SIMILARITY),
because snapshots taken by different runs give the same intent different ids. Unpaired items of
`before` are removed, unpaired items of `after` are added.

Severity, highest rule that applies:

- **major**: an intent removed or reopened (the goal changed); a decision, constraint or
  requirement fact deactivated or removed (the plan changed); a high or critical open task
  removed or cancelled; or changes (other than additions) touch half or more of `before`'s items.
- **moderate**: an intent added; any other fact deactivated or removed; a decision, constraint
  or requirement fact added or reworded; a task's priority, due date or status changed other
  than by completion; an open task removed or reworded; or a quarter or more of `before`'s items
  touched.
- **minor**: anything else: intents fulfilled, tasks completed, facts or tasks added, wording.
- **none**: nothing changed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import TypeVar

from models.recovery import ChangeKind, ChangeReport, FieldChange, ItemChange, Severity
from models.snapshot import Fact, Intent, Snapshot, Task
from search.recovery.text_overlap import content_terms, jaccard

__all__ = ["MATCH_SIMILARITY", "detect_changes"]

MATCH_SIMILARITY = 0.5
_CONFIDENCE_STEP = 0.2  # a confidence change smaller than this is noise, not a change
_PLAN_FACTS = frozenset({"decision", "constraint", "requirement"})
_PLAN_FIELDS = frozenset({"priority", "dueDate"})
_Item = TypeVar("_Item", Intent, Fact, Task)


def detect_changes(before: Snapshot, after: Snapshot) -> ChangeReport:
    """Intents added/removed/fulfilled, facts added/deactivated, tasks completed/changed, with a
    severity by the rules of the module docstring."""
    intents = _changes(before.intents, after.intents, lambda i: i.description, _intent_change)
    facts = _changes(before.facts, after.facts, lambda f: f.statement, _fact_change)
    tasks = _changes(before.tasks, after.tasks, lambda t: t.description, _task_change)
    before_tasks = {t.id: t for t in before.tasks}
    before_facts = {f.id: f for f in before.facts}
    severity, reasons = _severity(before, intents, facts, tasks, before_facts, before_tasks,
                                  {f.id: f for f in after.facts})
    return ChangeReport(
        before_id=before.id,
        after_id=after.id,
        has_changes=bool(intents or facts or tasks),
        severity=severity,
        intents=tuple(intents),
        facts=tuple(facts),
        tasks=tuple(tasks),
        summary=_summary(before, after, intents, facts, tasks),
        reasons=tuple(reasons),
        recommendations=tuple(_recommendations(before, after, intents, facts, tasks)),
    )


# ---------------------------------------------------------------------------------------------
# pairing


def _changes(before: Sequence[_Item], after: Sequence[_Item], text_of: Callable[[_Item], str],
             compare: Callable[[_Item, _Item], tuple[ChangeKind, list[FieldChange]] | None],
             ) -> list[ItemChange]:
    pairs, removed, added = _pair(before, after, text_of)
    out: list[ItemChange] = []
    for old, new, similarity in pairs:
        changed = compare(old, new)
        if changed:
            kind, fields = changed
            out.append(ItemChange(kind=kind, id=new.id, text=text_of(new), fields=tuple(fields),
                                  previous_id=old.id if old.id != new.id else None,
                                  similarity=similarity))
    # Removed items carry their id in `before`, added ones their id in `after`.
    out += [ItemChange(kind="removed", id=item.id, text=text_of(item)) for item in removed]
    out += [ItemChange(kind="added", id=item.id, text=text_of(item)) for item in added]
    return out


def _pair(before: Sequence[_Item], after: Sequence[_Item], text_of: Callable[[_Item], str],
          ) -> tuple[list[tuple[_Item, _Item, float | None]], list[_Item], list[_Item]]:
    after_by_id = {item.id: item for item in after}
    pairs: list[tuple[_Item, _Item, float | None]] = []
    used: set[str] = set()
    rest_before: list[_Item] = []
    for item in before:
        twin = after_by_id.get(item.id)
        if twin is not None and twin.id not in used:
            pairs.append((item, twin, None))
            used.add(twin.id)
        else:
            rest_before.append(item)
    rest_after = [item for item in after if item.id not in used]
    # Greedy by similarity: the closest wordings pair first.
    terms = {id(i): content_terms(text_of(i)) for i in rest_before + rest_after}
    candidates = sorted(
        ((jaccard(terms[id(b)], terms[id(a)]), n, m)
         for n, b in enumerate(rest_before) for m, a in enumerate(rest_after)),
        key=lambda c: c[0], reverse=True)
    paired_b: set[int] = set()
    paired_a: set[int] = set()
    for similarity, n, m in candidates:
        if similarity < MATCH_SIMILARITY:
            break
        if n in paired_b or m in paired_a:
            continue
        paired_b.add(n)
        paired_a.add(m)
        pairs.append((rest_before[n], rest_after[m], round(similarity, 3)))
    removed = [b for n, b in enumerate(rest_before) if n not in paired_b]
    added = [a for m, a in enumerate(rest_after) if m not in paired_a]
    return pairs, removed, added


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def _field(name: str, before: object, after: object) -> FieldChange:
    return FieldChange(field=name, before=None if before is None else str(before),
                       after=None if after is None else str(after))


def _common_fields(old: Intent | Fact, new: Intent | Fact, text: str, old_text: str,
                   new_text: str) -> list[FieldChange]:
    fields = []
    if not _same_text(old_text, new_text):
        fields.append(_field(text, old_text, new_text))
    if abs(old.confidence - new.confidence) >= _CONFIDENCE_STEP:
        fields.append(_field("confidence", old.confidence, new.confidence))
    return fields


def _intent_change(old: Intent, new: Intent) -> tuple[ChangeKind, list[FieldChange]] | None:
    fields = _common_fields(old, new, "description", old.description, new.description)
    if old.fulfilled != new.fulfilled:
        fields.insert(0, _field("fulfilled", old.fulfilled, new.fulfilled))
        return ("fulfilled" if new.fulfilled else "reopened"), fields
    return ("modified", fields) if fields else None


def _fact_change(old: Fact, new: Fact) -> tuple[ChangeKind, list[FieldChange]] | None:
    fields = _common_fields(old, new, "statement", old.statement, new.statement)
    if old.category != new.category:
        fields.append(_field("category", old.category, new.category))
    if old.active != new.active:
        fields.insert(0, _field("active", old.active, new.active))
        return ("deactivated" if not new.active else "reactivated"), fields
    return ("modified", fields) if fields else None


def _task_change(old: Task, new: Task) -> tuple[ChangeKind, list[FieldChange]] | None:
    fields = []
    if old.status != new.status:
        fields.append(_field("status", old.status, new.status))
    if old.priority != new.priority:
        fields.append(_field("priority", old.priority, new.priority))
    if (old.due_date or None) != (new.due_date or None):
        fields.append(_field("dueDate", old.due_date, new.due_date))
    if not _same_text(old.description, new.description):
        fields.append(_field("description", old.description, new.description))
    if not fields:
        return None
    if old.status != new.status:
        ends: dict[str, ChangeKind] = {"completed": "completed", "cancelled": "cancelled"}
        return ends.get(new.status, "status_changed"), fields
    return "modified", fields


# ---------------------------------------------------------------------------------------------
# severity and words


def _severity(before: Snapshot, intents: list[ItemChange], facts: list[ItemChange],
              tasks: list[ItemChange], before_facts: dict[str, Fact],
              before_tasks: dict[str, Task], after_facts: dict[str, Fact],
              ) -> tuple[Severity, list[str]]:
    if not (intents or facts or tasks):
        return "none", ["no intent, fact or task changed"]
    major: list[str] = []
    moderate: list[str] = []

    def fact_category(change: ItemChange) -> str | None:
        fact = after_facts.get(change.id) or before_facts.get(change.previous_id or change.id)
        return fact.category if fact else None

    for c in intents:
        if c.kind in ("removed", "reopened"):
            major.append(f"intent {c.kind}: {c.text}")
        elif c.kind == "added":
            moderate.append(f"intent added: {c.text}")
    for c in facts:
        plan = fact_category(c) in _PLAN_FACTS
        if c.kind in ("deactivated", "removed"):
            (major if plan else moderate).append(f"fact {c.kind}: {c.text}")
        elif plan and c.kind in ("added", "modified"):
            moderate.append(f"{fact_category(c)} {c.kind}: {c.text}")
    for c in tasks:
        old = before_tasks.get(c.previous_id or c.id) if c.kind != "added" else None
        changed = {f.field for f in c.fields}
        if (c.kind in ("removed", "cancelled") and old is not None and old.is_open
                and old.priority in ("high", "critical")):
            major.append(f"{old.priority} priority task {c.kind}: {c.text}")
        elif c.kind in ("removed", "cancelled", "status_changed") or changed & _PLAN_FIELDS:
            fields = f" ({', '.join(sorted(changed))})" if changed else ""
            moderate.append(f"task {c.kind}{fields}: {c.text}")
        elif c.kind == "modified" and old is not None and old.is_open:
            moderate.append(f"open task reworded: {c.text}")

    items = len(before.intents) + len(before.facts) + len(before.tasks)
    touched = sum(c.kind != "added" for c in [*intents, *facts, *tasks])
    share = touched / items if items else 0.0
    if items >= 2 and share >= 0.5:
        major.append(f"{touched} of {items} items changed")
    elif items >= 2 and share >= 0.25:
        moderate.append(f"{touched} of {items} items changed")
    if major:
        return "major", major
    if moderate:
        return "moderate", moderate
    return "minor", ["only progress or additions: intents fulfilled, tasks completed, items added"]


def _summary(before: Snapshot, after: Snapshot, intents: list[ItemChange],
             facts: list[ItemChange], tasks: list[ItemChange]) -> str:
    parts = []
    for noun, changes in (("intent", intents), ("fact", facts), ("task", tasks)):
        for kind, n in Counter(c.kind for c in changes).items():
            parts.append(f"{n} {noun}{'' if n == 1 else 's'} {kind.replace('_', ' ')}")
    if not parts:
        return f"no changes from '{before.id}' to '{after.id}'"
    return f"from '{before.id}' to '{after.id}': " + ", ".join(parts)


def _recommendations(before: Snapshot, after: Snapshot, intents: list[ItemChange],
                     facts: list[ItemChange], tasks: list[ItemChange]) -> list[str]:
    def texts(changes: list[ItemChange], *kinds: str) -> list[str]:
        return [c.text for c in changes if c.kind in kinds]

    def quoted(items: list[str]) -> str:
        return "; ".join(f"'{t}'" for t in items[:5]) + (" …" if len(items) > 5 else "")

    out = []
    if dropped := texts(intents, "removed"):
        out.append(f"do not pursue dropped intents: {quoted(dropped)}")
    if new := texts(intents, "added", "reopened"):
        out.append(f"new or reopened intents to merge into the restored state: {quoted(new)}")
    if done := texts(intents, "fulfilled") + texts(tasks, "completed", "cancelled"):
        out.append(f"already done or cancelled, do not redo: {quoted(done)}")
    if stale := texts(facts, "deactivated", "removed"):
        out.append(f"no longer holds, leave out of the restored context: {quoted(stale)}")
    moved = [c.text for c in tasks if {f.field for f in c.fields} & {"dueDate", "priority"}]
    if moved:
        out.append(f"re-plan tasks whose due date or priority changed: {quoted(moved)}")
    if intents or facts or tasks:
        out.append(f"resume from '{after.id}', the later state, rather than '{before.id}'")
    return out
