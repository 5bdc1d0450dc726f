"""The `recall` command line."""

from api.cli.commands import main

__all__ = ["main"]
