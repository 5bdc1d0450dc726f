"""Todos: periods, the store, promotion from task memories, forgetting and the digest, through
the service. Its HTTP routes, CLI and MCP tools are in test_todo_interfaces.py."""

from __future__ import annotations

import pytest

from api import RecallService
from indexer.stores.state import State
from models import InvalidInput, NotFound
from models.todo import period_bounds

from .helpers import tasks_memory


# -- periods ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("period", "day", "bounds"), [
    ("day", "2026-03-11", ("2026-03-11", "2026-03-11")),
    ("week", "2026-03-11", ("2026-03-09", "2026-03-15")),  # Wednesday -> Monday..Sunday
    ("week", "2026-03-09", ("2026-03-09", "2026-03-15")),  # a Monday is its own start
    ("week", "2026-03-15", ("2026-03-09", "2026-03-15")),  # a Sunday ends the week
    ("week", "2026-01-01", ("2025-12-29", "2026-01-04")),  # across a year
    ("month", "2024-02-10", ("2024-02-01", "2024-02-29")),
])
def test_period_bounds(period: str, day: str, bounds: tuple[str, str]) -> None:
    assert period_bounds(period, day) == bounds


@pytest.mark.parametrize(("period", "day", "message"), [
    ("year", "2026-03-11", "period must be one of day, week, month, not 'year'"),
    ("week", "2026-02-30", "cannot read date '2026-02-30': use YYYY-MM-DD"),
    ("week", "2026-3-1", "cannot read date '2026-3-1': use YYYY-MM-DD"),
    ("week", "9999-12-31", "date '9999-12-31' is out of range"),
])
def test_bad_periods_are_refused(period: str, day: str, message: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        period_bounds(period, day)
    assert caught.value.detail == message


# -- the service --------------------------------------------------------------------------------
def test_add_complete_reopen_and_list(writable: RecallService) -> None:
    todos = writable.todos
    weekly = todos.add("Write the release notes", "week", "2026-03-11")
    assert (weekly.period, weekly.period_date, weekly.period_end) == ("week", "2026-03-09", "2026-03-15")
    assert weekly.status == "open" and weekly.completed_at is None and weekly.origin == "added"
    daily = todos.add("Call the plumber", "day", "2026-03-12")
    monthly = todos.add("Pay the rent", "month", "2026-03-31")
    todos.add("Next month's thing", "month", "2026-04-02")

    def ids(**kw: object) -> list[str]:
        return [t.id for t in todos.listing(**kw).todos]  # type: ignore[arg-type]

    # a day: its own todos, its week's and its month's, in period order
    assert ids(day="2026-03-12") == [monthly.id, weekly.id, daily.id]
    assert ids(day="2026-03-16") == [monthly.id]
    assert ids(period="week", day="2026-03-15") == [weekly.id]
    assert ids(period="month") == [monthly.id, ids(period="month")[1]]

    done = todos.complete(weekly.id)
    assert done.status == "done" and done.completed_at
    assert todos.complete(weekly.id).completed_at == done.completed_at  # done again: unchanged
    assert weekly.id not in ids(day="2026-03-12")
    assert ids(day="2026-03-12", status="done") == [weekly.id]
    assert len(ids(day="2026-03-12", status="all")) == 3
    reopened = todos.reopen(weekly.id)
    assert reopened.status == "open" and reopened.completed_at is None
    assert todos.get(weekly.id) == reopened

    page = todos.listing(status="all", limit=2, offset=1)
    assert page.total == 4 and len(page.todos) == 2


def test_todo_text_is_redacted_before_it_is_stored(writable: RecallService) -> None:
    key = "sk-proj-" + "Zq8Xw2Vt6Rs4Pn0Ml7Kj5Hg3"
    todo = writable.todos.add(f"rotate the key {key} and password: Hunter2-blue-77", "day", "2026-03-12")
    assert key not in todo.content and "Hunter2" not in todo.content
    assert "[REDACTED:" in todo.content
    for path in writable.data.root.glob("state.sqlite3*"):
        assert key.encode() not in path.read_bytes() and b"Hunter2" not in path.read_bytes()


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda t: t.add("   "), InvalidInput, "a todo needs some text"),
    (lambda t: t.add("x" * 2001), InvalidInput, "a todo is at most 2000 characters, not 2001"),
    (lambda t: t.add("x", "fortnight"), InvalidInput,
     "period must be one of day, week, month, not 'fortnight'"),
    (lambda t: t.add("x", "day", "tomorrow"), InvalidInput, "cannot read date 'tomorrow': use YYYY-MM-DD"),
    (lambda t: t.add("x", source_session_id="nope"), InvalidInput,
     "source session 'nope' is not in the archive"),
    (lambda t: t.add("x", source_session_id="../x"), InvalidInput,
     "source session: session id contains a path separator"),
    (lambda t: t.add("x", source_memory_id="t-kyoto:mem:000000000000"), InvalidInput,
     "no memory 't-kyoto:mem:000000000000'"),
    (lambda t: t.get("td-nope"), NotFound, "no todo 'td-nope'"),
    (lambda t: t.complete("td-nope"), NotFound, "no todo 'td-nope'"),
    (lambda t: t.reopen("td-nope"), NotFound, "no todo 'td-nope'"),
    (lambda t: t.promote("t-kyoto:mem:000000000000"), NotFound, "no memory 't-kyoto:mem:000000000000'"),
    (lambda t: t.promote("nothing-like-a-memory"), NotFound, "no memory 'nothing-like-a-memory'"),
    (lambda t: t.listing(status="closed"), InvalidInput, "status must be open, done or all, not 'closed'"),
    (lambda t: t.listing(limit=0), InvalidInput, "limit must be between 1 and 500"),
])
def test_service_errors(writable: RecallService, call, error: type, message: str) -> None:
    with pytest.raises(error) as caught:
        call(writable.todos)
    assert caught.value.detail == message


def test_link_to_session_andtasks_memory(tasks: RecallService) -> None:
    memory_id = tasks_memory(tasks, "TLS")
    linked = tasks.todos.add("Ask Lin about the certificate", source_memory_id=memory_id)
    assert (linked.source_session_id, linked.source_memory_id) == ("t-tasks", memory_id)
    by_session = tasks.todos.add("Reread the kyoto plan", source_session_id="t-kyoto")
    assert by_session.source_session_id == "t-kyoto" and by_session.source_memory_id is None
    with pytest.raises(InvalidInput, match="is not from session 't-kyoto'"):
        tasks.todos.add("x", source_session_id="t-kyoto", source_memory_id=memory_id)


def test_promote_a_task_once(tasks: RecallService) -> None:
    memory_id = tasks_memory(tasks, "TLS")
    result = tasks.todos.promote(memory_id)
    todo, created = result.todo, result.created
    assert created and todo.origin == "promoted"
    assert todo.content == "Remember to renew the TLS certificate by Friday 2026-03-13."
    # a task with a due date becomes a todo for that day
    assert (todo.period, todo.period_date) == ("day", "2026-03-13")
    assert (todo.source_session_id, todo.source_memory_id) == ("t-tasks", memory_id)
    again = tasks.todos.promote(memory_id, "month")
    assert again.todo == todo and not again.created
    assert tasks.todos.listing(status="all").total == 1
    # one without a due date: this week, unless told otherwise
    other = tasks.todos.promote(tasks_memory(tasks, "备份脚本"), "month", "2026-04-20").todo
    assert (other.period, other.period_date) == ("month", "2026-04-01")
    with pytest.raises(InvalidInput, match="is not a task"):
        tasks.todos.promote(tasks_memory(tasks, "Postgres"))


def test_digest_shows_the_periods_todos(tasks: RecallService) -> None:
    memory_id = tasks_memory(tasks, "TLS")
    promoted = tasks.todos.promote(memory_id).todo
    weekly = tasks.todos.add("Plan the offsite", "week", "2026-03-10")
    done = tasks.todos.add("Book the room", "day", "2026-03-11")
    tasks.todos.complete(done.id)
    tasks.todos.add("Another week", "week", "2026-03-16")
    monthly = tasks.todos.add("Quarterly review", "month", "2026-03-01")
    digest = tasks.digest("week", "2026-03-12")
    # open ones first, then by period start: month (03-01), week (03-09), day 03-13; done last
    assert [t.id for t in digest.todos] == [monthly.id, weekly.id, promoted.id, done.id]
    assert [t.status for t in digest.todos] == ["open", "open", "open", "done"]
    tls = next(t for t in digest.open_tasks if "TLS" in t.text)
    assert tls.memory_id == memory_id
    day = tasks.digest("day", "2026-03-13")
    assert [t.id for t in day.todos] == [monthly.id, weekly.id, promoted.id]


def test_deleting_a_session_forgets_what_was_copied_from_it(tasks: RecallService) -> None:
    promoted = tasks.todos.promote(tasks_memory(tasks, "TLS")).todo
    linked = tasks.todos.add("Ask Lin about it", source_memory_id=tasks_memory(tasks, "备份脚本"))
    plain = tasks.todos.add("Unrelated", "day", "2026-03-10")
    tasks.delete("t-tasks")
    with pytest.raises(NotFound):
        tasks.todos.get(promoted.id)  # its text was the session's
    kept = tasks.todos.get(linked.id)  # the user's own text stays, without the link
    assert kept.content == "Ask Lin about it"
    assert (kept.source_session_id, kept.source_memory_id) == (None, None)
    assert tasks.todos.get(plain.id) == plain
    tasks.maintenance.purge()
    # no file under the data dir holds the promoted text or the session's id any more
    for path in tasks.data.root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"TLS certificate" not in data, path
            assert b"t-tasks" not in data, path


def test_no_todo_is_linked_to_a_session_being_deleted(tasks: RecallService) -> None:
    """A delete marks the session `deleting` before it forgets its todos; a link made in
    between is refused inside the todo's own transaction, so none outlives the session."""
    memory_id = tasks_memory(tasks, "TLS")
    state = State(tasks.data.state_db)
    try:
        state.set_status(["t-tasks"], "deleting")
    finally:
        state.close()
    with pytest.raises(NotFound, match="no session 't-tasks'"):
        tasks.todos.store.promote("text", "day", ("2026-03-13", "2026-03-13"),
                                  session_id="t-tasks", memory_id=memory_id)
    with pytest.raises(NotFound, match="no session 't-tasks'"):
        tasks.todos.store.add("text", "day", ("2026-03-13", "2026-03-13"), source_session_id="t-tasks")
    assert tasks.todos.listing(status="all").total == 0
