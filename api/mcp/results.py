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

from indexer.stores.faults import explain_fault

__all__ = ["DELETES", "READS", "WRITES", "WRITES_IDEMPOTENT", "tool_result"]

READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(destructive_hint=False, idempotent_hint=False, open_world_hint=False)
WRITES_IDEMPOTENT = ToolAnnotations(destructive_hint=False, idempotent_hint=True,
                                    open_world_hint=False)
DELETES = ToolAnnotations(destructive_hint=True, idempotent_hint=False, open_world_hint=False)

P = ParamSpec("P")


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
        try:
            out = msgspec.to_builtins(fn(*args, **kwargs))
        except Exception as exc:  # a RecallError, or a fault of the machine; a bug is the SDK's
            error = explain_fault(exc)
            if error is None:
                raise
            return CallToolResult(content=[TextContent(type="text", text=error.detail)],
                                  is_error=True)
        text = json.dumps(out, ensure_ascii=False, separators=(",", ":"))
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=out)

    # The SDK derives a tool's input schema from the signature and its output schema from the
    # return annotation: every tool answers one JSON object, whichever record it encodes.
    signature = inspect.signature(fn, eval_str=True)
    call.__signature__ = signature.replace(  # type: ignore[attr-defined]  # inspect reads it
        return_annotation=dict[str, Any])
    return call
