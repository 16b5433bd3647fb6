"""Which start-on-login kind this OS has, built with what it needs (the way notifiers/select.py
chooses a notification backend)."""

from __future__ import annotations

import sys
from typing import Protocol

from acp_tray.autostart.files import Current, run_tool
from acp_tray.autostart.launchd import LaunchAgentAutostart
from acp_tray.autostart.windows import RunKey, RunKeyAutostart, WindowsRunKey
from acp_tray.autostart.xdg import XdgAutostart
from acp_tray.desktop.entry import this_installation
from acp_tray.desktop.readback import Runner


class Autostart(Protocol):
    """Start on login: `enable` is idempotent and writes only where acp-tray's own entry is or
    nothing is; `disable` removes only acp-tray's; `status` says what is installed and whether it
    starts this installation. Each returns the lines to show. `current`: the same as a toggle shows it."""

    command: list[str]

    def current(self) -> Current: ...

    def enable(self, *, systemd: bool = False) -> list[str]: ...

    def disable(self) -> list[str]: ...

    def status(self) -> list[str]: ...


def autostart_for(
    system: str = sys.platform,
    argv: list[str] | None = None,
    *,
    runner: Runner = run_tool,
    registry: RunKey | None = None,
) -> Autostart:
    """Start on login for `system` (as in `sys.platform`), starting `argv` (default: this installation)."""
    command = argv if argv is not None else this_installation(gui=system == "win32")
    if system == "win32":
        return RunKeyAutostart(command, registry if registry is not None else WindowsRunKey())
    if system == "darwin":
        return LaunchAgentAutostart(command, runner)
    return XdgAutostart(command, runner)
