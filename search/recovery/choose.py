"""Choose the snapshot to resume an interrupted conversation from, and how to restore it.

Scoring: every snapshot within the time window (options.time_window_hours behind the newest
one) gets four parts, each from 0 to 1:

- **recency** = 0.5 ** (hours behind the newest snapshot / half_life_hours). Relative to the
  newest snapshot, not to the clock, so the ranking does not change with the day you ask.
- **completeness**: how much state the snapshot holds, with diminishing returns
  (1 - exp(-amount / k)) so that the tenth fact adds less than the first:
  0.25 intents (unfulfilled 1, fulfilled 0.5, times confidence; k 1.5)
  + 0.35 facts (active 1, inactive 0.25, times confidence; k 3)
  + 0.30 tasks (open 1, completed 0.5, cancelled 0.25; k 2.5)
  + 0.10 context (estimated tokens; k 60).
  Intents and facts below options.min_item_confidence count for nothing.
- **relevance** to the current context (search/recovery/context_match.py): embedding similarity read
  against the context's background similarity to generic chat, normalized across the candidates;
  word overlap without an embedder; left out of the score when there is no context.
- **freshness**: the share of the snapshot's items still live: unfulfilled intents, active
  facts, open tasks not left untouched for stale_task_days before the snapshot was taken.
  An empty snapshot has freshness 0.

score = weighted mean of recency, completeness x g, freshness x g and relevance
(options.weights), where g = off_topic_share + (1 - off_topic_share) x relevance: with a context,
a full snapshot about something else is worth little, so its completeness and freshness count
only in part. Without a context g = 1 and relevance's weight is dropped. Ties go to the newer
snapshot.

confidence = 0.5 * best score + 0.5 * min(1, (best - second score) / decisive_margin)
(the margin part is 1 with a single candidate), times 0.75 when a context was given and matches
no snapshot, times 0.5 when the best snapshot is empty.

Strategy, first rule that applies:

1. confirm_first: the selected snapshot is empty (nothing to restore);
2. confirm_first: confidence < options.min_confidence (too close to call);
3. confirm_first: a context was given and matches none of the snapshots;
4. summarize_only: the work is done: nothing is left open (every intent fulfilled, no open
   task), or at least mostly_done_share of its intents and tasks are done with no high or
   critical task open; or the snapshot is older than summarize_after_days at `now`;
5. merge_current: the context has sentences the snapshot covers and sentences it does not
   (new intents): restore, then merge what the context adds;
6. full_restore: open tasks, freshness >= full_restore_freshness, relevance >=
   full_restore_relevance (or no context), and no open task overdue or stale at `now`;
7. partial_restore: otherwise: live work, but part of it is done, no longer holds, overdue, or
   only partly relevant; restore the live items.

The decision's reasons repeat, in words, which of these rules and parts decided.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from models.errors import InvalidInput, NotFound
from models.recovery import Alternative, RecoveryDecision, RecoveryOptions, RecoveryStrategy
from models.snapshot import Snapshot, Task, to_datetime
from search.recovery.changes import detect_changes
from search.recovery.compress import compress
from search.recovery.context_match import (
    ContextMatch,
    match_context,
    split_clauses,
    uncovered_clauses,
)
from search.recovery.scoring import NEARLY_EMPTY, Scored, score_snapshot, untouched_since

if TYPE_CHECKING:
    from indexer.embedding.embedders import Embedder

__all__ = ["compress", "detect_changes", "recover"]


_DEFAULT_OPTIONS = RecoveryOptions()


def recover(
    snapshots: Sequence[Snapshot],
    current_context: str | None = None,
    *,
    embedder: Embedder | None = None,
    options: RecoveryOptions = _DEFAULT_OPTIONS,
    now: datetime | None = None,
) -> RecoveryDecision:
    """Rank the snapshots (usually one session's) and decide which to resume from and how.

    `now` (default: the current time) only affects the strategy (overdue or old work), never
    the ranking. Raises NotFound when there are no snapshots.
    """
    if not snapshots:
        raise NotFound("no snapshots to recover from")
    now = _aware(now or datetime.now(UTC))
    dated = [(s, _created(s)) for s in snapshots]
    newest_time = max(t for _, t in dated)
    window = options.time_window_hours
    candidates = [(s, t) for s, t in dated if window is None or _hours(newest_time - t) <= window]
    context = current_context.strip() if current_context and current_context.strip() else None
    match = match_context([s for s, _ in candidates], context, embedder) if context else None

    scored = [score_snapshot(s, t, newest_time, match, options) for s, t in candidates]
    scored.sort(key=lambda x: (x.score, x.time), reverse=True)
    best, newest = scored[0], max(scored, key=lambda x: x.time)
    confidence, confidence_reason = _confidence(scored, match, options)
    strategy, strategy_reason = _strategy(best, confidence, context, match, embedder, options, now)

    reasons = [_choice_reason(best, newest, len(scored))]
    reasons.append(_relevance_reason(best, match))
    reasons.append(_content_reason(best))
    if best is not newest:
        reasons.append(f"newest snapshot '{newest.snapshot.id}' {_why_not(newest, best)}")
    if len(candidates) < len(dated):
        reasons.append(f"{len(dated) - len(candidates)} snapshot(s) more than "
                       f"{_duration(window or 0)} older than the newest were not considered")
    reasons += [confidence_reason, f"strategy {strategy}: {strategy_reason}"]
    return RecoveryDecision(
        selected=best.snapshot,
        confidence=round(confidence, 4),
        strategy=strategy,
        reasons=tuple(reasons),
        score=round(best.score, 4),
        parts=best.parts,
        alternatives=tuple(
            Alternative(snapshot_id=x.snapshot.id, created_at=x.snapshot.created_at,
                        description=x.snapshot.description, score=round(x.score, 4),
                        parts=x.parts, reason=_why_not(x, best))
            for x in scored[1:]
        ),
    )


def _confidence(scored: list[Scored], match: ContextMatch | None,
                options: RecoveryOptions) -> tuple[float, str]:
    best = scored[0]
    if len(scored) == 1:
        margin_part, why = 1.0, f"only one snapshot to choose from, score {best.score:.2f}"
    else:
        second = scored[1]
        margin = best.score - second.score
        margin_part = min(1.0, margin / options.decisive_margin)
        why = f"score {best.score:.2f}, {margin:.2f} ahead of '{second.snapshot.id}'"
    confidence = 0.5 * best.score + 0.5 * margin_part
    if match is not None and not match.matched:
        confidence *= 0.75
        why += "; lowered because the current context matches no snapshot"
    if best.snapshot.is_empty:
        confidence *= 0.5
        why += "; halved because the snapshot is empty"
    return confidence, f"confidence {confidence:.2f}: {why}"


# ---------------------------------------------------------------------------------------------
# strategy


def _strategy(best: Scored, confidence: float, context: str | None, match: ContextMatch | None,
              embedder: Embedder | None, options: RecoveryOptions,
              now: datetime) -> tuple[RecoveryStrategy, str]:
    """The strategy and why, by the numbered rules of the module docstring."""
    s = best.snapshot
    if s.is_empty:
        return "confirm_first", "the best snapshot is empty, there is nothing to restore"
    if confidence < options.min_confidence:
        return "confirm_first", (f"confidence {confidence:.2f} is below "
                                 f"{options.min_confidence:.2f}; ask which snapshot to resume")
    if match is not None and not match.matched:
        return "confirm_first", ("the current context matches none of the snapshots; ask whether "
                                 "to resume this work at all")
    open_tasks = [t for t in s.tasks if t.is_open]
    live_intents = [i for i in s.intents
                    if not i.fulfilled and i.confidence >= options.min_item_confidence]
    if not open_tasks and not live_intents:
        return "summarize_only", ("nothing is left open (every intent fulfilled, no open task); "
                                  "show a summary")
    work = len(s.intents) + len(s.tasks)
    done = work - len(open_tasks) - sum(not i.fulfilled for i in s.intents)
    urgent = [t for t in open_tasks if t.priority in ("high", "critical")]
    if work and done / work >= options.mostly_done_share and not urgent:
        return "summarize_only", (f"{done} of {work} intents and tasks are done and no urgent task "
                                  "is open; show a summary")
    age = now - best.time
    if age > timedelta(days=options.summarize_after_days):
        return "summarize_only", (f"the snapshot is {_duration(_hours(age))} old (limit "
                                  f"{options.summarize_after_days:g} days); show a summary")
    # Only a context of two or more sentences can both match the snapshot and add to it.
    if context is not None and match is not None and len(split_clauses(context)) >= 2:
        covered, uncovered = uncovered_clauses(s, context, embedder, match.vectors.get(s.id))
        if covered and uncovered:
            added = "; ".join(f"\"{c}\"" for c in uncovered)
            return "merge_current", (f"the current context adds what the snapshot lacks: {added}; "
                                     "restore it and merge")

    problems = []
    if not open_tasks:
        problems.append("no open tasks, only open intents")
    if best.parts.freshness < options.full_restore_freshness:
        problems.append(f"part of it is done or no longer holds (freshness "
                        f"{best.parts.freshness:.2f})")
    overdue = [t for t in open_tasks if _overdue(t, now, best.time)]
    if overdue:
        problems.append(f"{len(overdue)} open task(s) past their due date")
    stale = [t for t in open_tasks
             if untouched_since(t, now - timedelta(days=options.stale_task_days))]
    if stale:
        problems.append(f"{len(stale)} open task(s) untouched for over "
                        f"{options.stale_task_days:g} days")
    relevance = best.parts.relevance
    if relevance is not None and relevance < options.full_restore_relevance:
        problems.append(f"only partly relevant to the current context ({relevance:.2f})")
    if problems:
        return "partial_restore", "restore the live items only: " + "; ".join(problems)
    relevant = " and relevant to the current context" if relevance is not None else ""
    return "full_restore", f"open tasks, everything still live{relevant}; restore it all"


def _overdue(task: Task, now: datetime, taken: datetime) -> bool:
    if not task.due_date:
        return False
    try:
        due = to_datetime(task.due_date)
    except ValueError:
        return False
    if len(task.due_date.strip()) <= 10:
        # A bare date is due at the end of that day, in the snapshot's own time zone.
        due = due.replace(tzinfo=taken.tzinfo) + timedelta(days=1)
    return due < now


# ---------------------------------------------------------------------------------------------
# reasons


def _choice_reason(best: Scored, newest: Scored, count: int) -> str:
    if best is newest:
        return "newest snapshot" + (f" of {count}" if count > 1 else "")
    gap = _duration(_hours(newest.time - best.time))
    return f"{gap} older than the newest snapshot '{newest.snapshot.id}'"


def _relevance_reason(best: Scored, match: ContextMatch | None) -> str:
    if match is None:
        return "no current context: ranked by recency, completeness and freshness"
    similarity = match.similarity.get(best.snapshot.id)
    if not match.matched:
        return (f"the current context matches none of the snapshots (best "
                f"{_similarity_text(match, max(match.similarity.values(), default=0.0))})")
    if similarity is None or similarity < match.background or not best.parts.relevance:
        return "does not clearly match the current context; chosen on its other merits"
    how = "matches the current context best" if best.parts.relevance == 1 else (
        f"matches the current context (relevance {best.parts.relevance:.2f})")
    return f"{how} ({_similarity_text(match, similarity)})"


def _similarity_text(match: ContextMatch, value: float) -> str:
    if match.method == "embedding":
        return f"cos {value:.3f} vs {match.background:.3f} for generic chat"
    return f"holds {value:.0%} of its words"


def _content_reason(scored: Scored) -> str:
    s = scored.snapshot
    if s.is_empty:
        return "holds nothing to restore"
    intents = sum(not i.fulfilled for i in s.intents)
    facts = sum(f.active for f in s.facts)
    open_tasks = [t for t in s.tasks if t.is_open]
    urgent = sum(t.priority in ("high", "critical") for t in open_tasks)
    due = sum(bool(t.due_date) for t in open_tasks)
    tasks = _count(len(open_tasks), "open task")
    details = [f"{urgent} high or critical"] if urgent else []
    details += [f"{due} with a due date"] if due else []
    if details:
        tasks += f" ({', '.join(details)})"
    done = sum(i.fulfilled for i in s.intents) + sum(t.status == "completed" for t in s.tasks)
    text = (f"has {_count(intents, 'open intent')}, {_count(facts, 'active fact')} and {tasks}"
            + (f"; {done} item(s) already done" if done else ""))
    if scored.parts.completeness < NEARLY_EMPTY:
        return f"is nearly empty: {text[4:]}"
    return text


def _why_not(alt: Scored, best: Scored) -> str:
    """Why `alt` lost to `best`, in a few words."""
    notes = []
    if alt.snapshot.is_empty:
        notes.append("is empty")
    elif alt.parts.completeness < NEARLY_EMPTY:
        notes.append("is nearly empty")
    a, b = alt.parts, best.parts
    if a.relevance is not None and b.relevance is not None and not alt.snapshot.is_empty:
        if a.relevance == 0 and b.relevance > 0:
            notes.append("is about something else (relevance 0.00)")
        elif a.relevance < b.relevance - 0.25:
            notes.append(f"is less relevant to the current context ({a.relevance:.2f} vs "
                         f"{b.relevance:.2f})")
    if a.completeness < b.completeness - 0.15 and a.completeness >= NEARLY_EMPTY:
        notes.append(f"holds less ({a.completeness:.2f} vs {b.completeness:.2f} complete)")
    if a.freshness < b.freshness - 0.25 and not alt.snapshot.is_empty:
        notes.append(f"has less still open or active (freshness {a.freshness:.2f} vs "
                     f"{b.freshness:.2f})")
    if not notes:
        notes.append("is older" if alt.time < best.time else "scores lower overall")
    return f"{', '.join(notes)} (score {alt.score:.2f} vs {best.score:.2f})"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


# ---------------------------------------------------------------------------------------------
# time


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _created(snapshot: Snapshot) -> datetime:
    try:
        return to_datetime(snapshot.created_at)
    except ValueError:
        raise InvalidInput(f"snapshot {snapshot.id!r} has an invalid createdAt "
                           f"{snapshot.created_at!r}") from None


def _hours(delta: timedelta) -> float:
    return delta.total_seconds() / 3600


def _duration(hours: float) -> str:
    if hours < 1:
        return f"{round(hours * 60)} min"
    if hours < 48:
        return f"{hours:.0f} h"
    return f"{hours / 24:.0f} days"
