"""The `recall` command line: a click group with one module per family of commands."""

from api.cli.main import cli, main

__all__ = ["cli", "main"]
