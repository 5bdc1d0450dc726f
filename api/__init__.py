"""Interfaces over the one service: the `recall` CLI (and, later, HTTP and MCP)."""

from api.service.core import RecallService
from api.settings import Settings

__all__ = ["RecallService", "Settings"]
