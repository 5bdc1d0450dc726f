"""Interfaces over the one service: the `recall` CLI (and, later, HTTP and MCP)."""

from .service import RecallService
from .settings import Settings

__all__ = ["RecallService", "Settings"]
