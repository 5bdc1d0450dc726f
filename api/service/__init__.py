"""The one service that CLI, HTTP and MCP share, made of parts."""

from api.service.core import RecallService

__all__ = ["RecallService"]
