"""What every MCP tool declares and answers: its annotations (reads, writes, deletes), and its
answer as compact JSON text plus structured content, a RecallError as a tool error whose text is
its detail alone."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from typing import Any, ParamSpec

import msgspec
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from indexer.stores.audit import CURRENT_AUDIT
from indexer.stores.faults import explain_fault
from indexer.stores.tokens import scope_covers
from models.principal import CURRENT_PRINCIPAL, Principal

__all__ = ["DELETES", "READS", "TOOL_SCOPES", "WRITES", "WRITES_IDEMPOTENT", "scope_of",
           "tool_result"]

READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(destructive_hint=False, idempotent_hint=False, open_world_hint=False)
WRITES_IDEMPOTENT = ToolAnnotations(destructive_hint=False, idempotent_hint=True,
                                    open_world_hint=False)
DELETES = ToolAnnotations(destructive_hint=True, idempotent_hint=False, open_world_hint=False)

P = ParamSpec("P")

# tool name -> the token scope it needs (build_mcp fills it from each tool's annotations; a
# tool missing from it is refused, never taken for a reading one)
TOOL_SCOPES: dict[str, str] = {}


def scope_of(annotations: ToolAnnotations | None) -> str:
    """The scope a tool's annotations declare: READS "read", WRITES "write", DELETES "admin".
    Annotations that declare neither reading nor whether it destroys (none at all, or an empty
    ToolAnnotations) are refused with a ValueError: build_mcp does not start with such a tool."""
    if annotations is not None and annotations.read_only_hint:
        return "read"
    if annotations is None or annotations.destructive_hint is None:
        raise ValueError("annotations declare no scope: use READS, WRITES, WRITES_IDEMPOTENT "
                         "or DELETES (api/mcp/results.py)")
    return "admin" if annotations.destructive_hint else "write"


def _error(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def _audit(principal: Principal | None, tool: str, arguments: dict[str, Any], outcome: str,
           needed: str) -> None:
    """Writes and refusals go to the audit log, with the ids they name, never text."""
    audit = CURRENT_AUDIT.get()  # set with the principal by the HTTP guard; none over stdio
    if audit is None or principal is None or (needed == "read" and outcome != "denied"):
        return
    targets = [str(v) for k, v in arguments.items() if k in ("session_id", "todo_id") and v]
    audit.append(principal.tenant, principal.name, f"mcp {tool}", targets, outcome)


def tool_result(fn: Callable[P, msgspec.Struct]) -> Callable[P, CallToolResult]:
    """Turn a tool's answer (a service result, the record HTTP and the CLI show) into compact
    JSON text plus structured content, and a RecallError into a tool error whose text is its
    detail alone.

    The SDK would indent the JSON (tokens an agent pays for) and prefix errors with
    "Error executing tool …". Any other exception is left to the SDK, which logs the
    traceback on the server and tells the client only "Error executing tool <name>".
    """

    @functools.wraps(fn)  # keeps the signature and annotations the SDK builds schemas from
    def call(*args: P.args, **kwargs: P.kwargs) -> CallToolResult:
        principal = CURRENT_PRINCIPAL.get()  # None over stdio: the user's own process
        needed = TOOL_SCOPES.get(fn.__name__)
        if needed is None:  # not built by build_mcp, or under another name: refused, not read
            _audit(principal, fn.__name__, kwargs, "denied", "undeclared")
            return _error(f"{fn.__name__} declares no scope: refused")
        if principal is not None and not scope_covers(principal.scope, needed):
            _audit(principal, fn.__name__, kwargs, "denied", needed)
            return _error(f"token {principal.name!r} has scope {principal.scope}; "
                          f"{fn.__name__} needs {needed}")
        try:
            out = msgspec.to_builtins(fn(*args, **kwargs))
        except Exception as exc:  # a RecallError, or a fault of the machine; a bug is the SDK's
            error = explain_fault(exc)
            if error is None:
                raise
            _audit(principal, fn.__name__, kwargs, "error", needed)
            return _error(error.detail)
        _audit(principal, fn.__name__, kwargs, "ok", needed)
        text = json.dumps(out, ensure_ascii=False, separators=(",", ":"))
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=out)

    # The SDK derives a tool's input schema from the signature and its output schema from the
    # return annotation: every tool answers one JSON object, whichever record it encodes.
    signature = inspect.signature(fn, eval_str=True)
    call.__signature__ = signature.replace(  # type: ignore[attr-defined]  # inspect reads it
        return_annotation=dict[str, Any])
    return call
