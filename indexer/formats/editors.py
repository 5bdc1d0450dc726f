"""Where VS Code-family editors (VS Code, VSCodium, Cursor, Windsurf, ...) keep their user data,
the way VS Code's getUserDataPath finds it: `<application data>/<editor>/User` on Linux, macOS
and Windows. Several agents live inside these editors (Copilot Chat, Cline, Roo, Kilo) or are
one (Cursor)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

__all__ = ["application_data", "user_dirs"]


def application_data(home: Path, env: dict[str, str]) -> list[Path]:
    """The folders applications keep their data in: Linux (XDG_CONFIG_HOME), macOS, Windows
    (APPDATA). Every layout is listed, so an archive copied from another system is found too."""
    linux = Path(env["XDG_CONFIG_HOME"]).expanduser() if env.get("XDG_CONFIG_HOME") \
        else home / ".config"
    windows = Path(env["APPDATA"]) if env.get("APPDATA") else home / "AppData" / "Roaming"
    return [linux, home / "Library" / "Application Support", windows]


def user_dirs(home: Path, env: dict[str, str], editors: Sequence[str]) -> list[Path]:
    """Each editor's `User` folder. VSCODE_APPDATA replaces the application-data folders and
    VSCODE_PORTABLE adds a portable install, as VS Code reads them."""
    users = []
    if env.get("VSCODE_PORTABLE"):
        users.append(Path(env["VSCODE_PORTABLE"]).expanduser() / "user-data" / "User")
    bases = ([Path(env["VSCODE_APPDATA"]).expanduser()] if env.get("VSCODE_APPDATA")
             else application_data(home, env))
    return users + [base / editor / "User" for base in bases for editor in editors]
