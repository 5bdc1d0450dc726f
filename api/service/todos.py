"""Todos for the CLI, HTTP and MCP alike: checked, redacted, linked to sessions and memories.

One object hangs off RecallService (`service.todos`) so every interface gets the same rules:
content is redacted before it is stored, periods are day, week or month with the date moved
to the period's first day, and a task memory promoted twice gives the same todo.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from api.service.memories import SessionMemories
from indexer.stores.layout import DataDir
from indexer.stores.state import State
from indexer.stores.todos import TodoStore
from indexer.text.redact import redact_text
from models import InvalidInput, Memory, NotFound, UnsafeSessionId, check_session_id
from models.todo import MAX_TODO_CHARS, Todo, check_period, check_status, period_bounds

__all__ = ["MAX_TODO_ID", "MAX_TODO_PAGE", "TASK_KINDS", "PromoteResult", "TodoList", "Todos"]

MAX_TODO_PAGE = 500
MAX_TODO_ID = 200
TASK_KINDS = ("task", "deadline")  # the memories a todo can be promoted from
_MEMORY_MARK = ":mem:"  # memory ids are "<session id>:mem:<hash>" (models/memory.py)


class TodoList(msgspec.Struct):
    todos: list[Todo]
    total: int
    limit: int
    offset: int


class PromoteResult(msgspec.Struct):
    todo: Todo
    created: bool  # false: the memory had been promoted before, this is that todo


class Todos:
    def __init__(self, data: DataDir, memories: SessionMemories) -> None:
        self.data = data
        self.store = TodoStore(data)
        self.memories = memories  # where task memories are promoted from

    def add(self, content: object, period: object = "week", day: object = None, *,
            source_session_id: object = None, source_memory_id: object = None) -> Todo:
        """A new open todo for the period (day, week or month) containing `day` (default
        today), optionally linked to the session or the memory it came from."""
        text = _content(content)
        bounds = period_bounds(check_period(period), _day(day))
        session_id = None
        if source_session_id is not None:
            session_id = self._archived_session(source_session_id)
        if source_memory_id is not None:
            memory = self._memory(source_memory_id, missing=InvalidInput)
            if session_id is not None and session_id != memory.session_id:
                raise InvalidInput(f"memory {memory.id!r} is not from session {session_id!r}")
            session_id = memory.session_id
        try:
            return self.store.add(text, str(period), bounds, source_session_id=session_id,
                                  source_memory_id=source_memory_id)  # type: ignore[arg-type]
        except NotFound:  # deleted since it was checked above
            raise InvalidInput(f"source session {session_id!r} is not in the archive") from None

    def promote(self, memory_id: object, period: object = None,
                day: object = None) -> PromoteResult:
        """A todo from a task memory: its text, linked to the memory and its session. By
        default a task with a due date becomes a todo for that day, one without a todo for
        this week. Promoting a memory again returns the todo made the first time."""
        memory = self._memory(memory_id, missing=NotFound)
        if memory.type != "project" or memory.kind not in TASK_KINDS:
            raise InvalidInput(f"memory {memory.id!r} is not a task (it is a {memory.type} "
                               f"memory of kind {memory.kind or 'none'})")
        if period is None:
            period = "day" if memory.due_date else "week"
        bounds = period_bounds(check_period(period), _day(day if day is not None
                                                          else memory.due_date))
        todo, created = self.store.promote(_content(memory.text), str(period), bounds,
                                           session_id=memory.session_id, memory_id=memory.id)
        return PromoteResult(todo, created)

    def get(self, todo_id: object) -> Todo:
        return self.store.get(_todo_id(todo_id))

    def complete(self, todo_id: object) -> Todo:
        return self.store.set_done(_todo_id(todo_id), True)

    def reopen(self, todo_id: object) -> Todo:
        return self.store.set_done(_todo_id(todo_id), False)

    def listing(self, period: object = None, day: object = None, status: object = "open", *,
             limit: int = 100, offset: int = 0) -> TodoList:
        """Todos by status (open, done or all). With a period and a day: that period's todos;
        with a day alone: every todo whose period holds that day (its day, week and month);
        with a period alone: every todo of that kind."""
        if not 1 <= limit <= MAX_TODO_PAGE:
            raise InvalidInput(f"limit must be between 1 and {MAX_TODO_PAGE}")
        if offset < 0:
            raise InvalidInput("offset must not be negative")
        wanted = check_status(status)
        kind = check_period(period) if period is not None else None
        first = within = None
        if day is not None:
            start, _ = period_bounds(kind or "day", _day(day))
            if kind:
                first = start
            else:
                within = (start, start)
        todos = self.store.list(period=kind, period_date=first, within=within, status=wanted)
        return TodoList(todos[offset : offset + limit], len(todos), limit, offset)

    def in_period(self, start: str, end: str) -> list[Todo]:
        """Every todo whose period overlaps the days start..end, open ones first (the digest)."""
        todos = self.store.list(within=(start, end))
        todos.sort(key=lambda t: t.status != "open")  # stable: otherwise in listing order
        return todos

    def _archived_session(self, session_id: object) -> str:
        try:
            checked = check_session_id(session_id)
        except UnsafeSessionId as exc:
            raise InvalidInput(f"source session: {exc.detail}") from None
        state = State(self.data.state_db)
        try:
            row = state.session(checked)
        finally:
            state.close()
        if row is None or row.status != "indexed":
            raise InvalidInput(f"source session {checked!r} is not in the archive")
        return checked

    def _memory(self, memory_id: object, *, missing: type[InvalidInput | NotFound]) -> Memory:
        if not isinstance(memory_id, str) or _MEMORY_MARK not in memory_id \
                or len(memory_id) > MAX_TODO_ID + 20:
            raise missing(f"no memory {memory_id!r}")
        session_id = memory_id.rpartition(_MEMORY_MARK)[0]
        try:
            memories = self.memories.of(session_id)
        except NotFound:
            raise missing(f"no memory {memory_id!r}") from None
        for memory in memories:
            if memory.id == memory_id:
                return memory
        raise missing(f"no memory {memory_id!r}")


def _content(content: object) -> str:
    if not isinstance(content, str) or not content.strip():
        raise InvalidInput("a todo needs some text")
    text = content.strip()
    if len(text) > MAX_TODO_CHARS:
        raise InvalidInput(f"a todo is at most {MAX_TODO_CHARS} characters, not {len(text)}")
    return redact_text(text)[0]  # secrets never reach the state file


def _day(day: object) -> str:
    if day is None:
        return datetime.now().date().isoformat()
    if not isinstance(day, str):
        raise InvalidInput(f"cannot read date {day!r}: use YYYY-MM-DD")
    return day


def _todo_id(todo_id: object) -> str:
    if not isinstance(todo_id, str) or not todo_id or len(todo_id) > MAX_TODO_ID:
        raise NotFound(f"no todo {todo_id!r}")
    return todo_id
