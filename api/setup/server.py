"""The server entry an agent starts: recall's stdio MCP server (`recall mcp`) by absolute path,
with the settings that pick the same archive, and never a secret."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

import msgspec

from api.settings import SETTINGS, Settings

__all__ = ["PASSED_SETTINGS", "ServerSpec", "find_recall", "server_spec"]

# What the agent's copy of `recall mcp` needs to open the archive this command sees: where it
# is, the embedder its index was built with (another one is refused), where the converted
# model is kept. Passed only when the user set them; nothing secret is ever passed (a test
# holds every name here to that).
PASSED_SETTINGS = ("RECALL_HOME", "RECALL_EMBEDDER", "RECALL_MODEL_CACHE")


class ServerSpec(msgspec.Struct, frozen=True):
    """How an agent starts recall's MCP server: `command args...` with `env` added."""

    command: str
    args: list[str]
    env: dict[str, str]


def find_recall(argv0: str, executable: str, path: str | None) -> list[str]:
    """The command that runs this installation of recall, absolute: the `recall` script this
    process was started as, else the one beside this Python (the same environment), else the
    one on PATH, else this Python running the package (`python -m api.cli`)."""
    started_as = Path(argv0)
    if started_as.stem == "recall" and started_as.is_file():
        return [os.path.abspath(started_as)]
    # not resolved: a virtual environment's python is a symlink that must stay one
    beside = Path(executable).parent / ("recall.exe" if os.name == "nt" else "recall")
    if beside.is_file():
        return [os.path.abspath(beside)]
    on_path = shutil.which("recall", path=path)
    if on_path:
        return [os.path.abspath(on_path)]
    return [os.path.abspath(executable), "-m", "api.cli"]


def server_spec(recall: Sequence[str], settings: Settings, env: Mapping[str, str],
                explicit: Mapping[str, bool]) -> ServerSpec:
    """`recall mcp` with the PASSED_SETTINGS the user set (in the environment, or `explicit`ly
    with `--home` / `--embedder`), as absolute paths where they are paths."""
    values = {"RECALL_HOME": str(settings.home.absolute()),
              "RECALL_EMBEDDER": settings.embedder,
              "RECALL_MODEL_CACHE": str((settings.model_cache or settings.home).absolute())}
    chosen = {name: values[name] for name in PASSED_SETTINGS
              if env.get(name) or explicit.get(name)}
    secret = {s.env for s in SETTINGS if s.secret}
    assert not secret & chosen.keys(), "a secret setting must never reach an agent's config"
    return ServerSpec(command=recall[0], args=[*recall[1:], "mcp"], env=chosen)
