"""Start on login: install, remove and report it (`acp-tray autostart enable | disable | status`).

`enable` is idempotent and writes only where acp-tray's own file is or nothing is; `disable`
removes only files carrying acp-tray's mark; `status` says what is installed and whether it
starts this installation. The OS tools (launchctl, systemctl) and the Windows registry are
reached through small seams, so every path is tested on any OS.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from acp_tray.autostart.entries import (
    APP,
    DESKTOP_MARK,
    LAUNCH_AGENT_LABEL,
    RUN_VALUE_NAME,
    SYSTEMD_MARK,
    desktop_entry,
    launch_agent,
    run_value,
    systemd_unit,
    this_installation,
)

RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"
Runner = Callable[[list[str]], "subprocess.CompletedProcess[str]"]


class AutostartError(Exception):
    """Something acp-tray will not overwrite or cannot do: the message says what and why."""


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return subprocess.CompletedProcess(command, 127, "", str(exc))


class RunKey(Protocol):
    """The Windows `Run` key: one string value per program."""

    def get(self, name: str) -> str | None: ...

    def set(self, name: str, value: str) -> None: ...

    def delete(self, name: str) -> None: ...


class WindowsRunKey:  # pragma: no cover - Windows only
    """The real key, through `winreg` (Windows only)."""

    def get(self, name: str) -> str | None:
        if sys.platform != "win32":
            raise AutostartError("the Windows registry exists only on Windows")
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
                value, _ = winreg.QueryValueEx(key, name)
        except FileNotFoundError:
            return None
        return str(value)

    def set(self, name: str, value: str) -> None:
        if sys.platform != "win32":
            raise AutostartError("the Windows registry exists only on Windows")
        import winreg

        with winreg.CreateKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
            winreg.SetValueEx(key, name, 0, winreg.REG_SZ, value)

    def delete(self, name: str) -> None:
        if sys.platform != "win32":
            raise AutostartError("the Windows registry exists only on Windows")
        import winreg

        with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY, 0, winreg.KEY_SET_VALUE) as key:
            winreg.DeleteValue(key, name)


def _config_home() -> Path:
    configured = os.environ.get("XDG_CONFIG_HOME", "")
    return Path(configured) if os.path.isabs(configured) else Path.home() / ".config"


@dataclass
class Autostart:
    """Start on login for one OS (`system` as in `sys.platform`)."""

    system: str = sys.platform
    argv: list[str] | None = None  # the command to start; default: this installation
    runner: Runner = _run
    registry: RunKey | None = None

    def __post_init__(self) -> None:
        if self.argv is None:
            self.argv = this_installation(gui=self.system == "win32")

    @property
    def command(self) -> list[str]:
        assert self.argv is not None
        return self.argv

    # where each kind lives -------------------------------------------------------------------

    @property
    def desktop_file(self) -> Path:
        return _config_home() / "autostart" / f"{APP}.desktop"

    @property
    def unit_file(self) -> Path:
        return _config_home() / "systemd" / "user" / f"{APP}.service"

    @property
    def unit_link(self) -> Path:
        return self.unit_file.parent / "graphical-session.target.wants" / f"{APP}.service"

    @property
    def plist_file(self) -> Path:
        return Path.home() / "Library" / "LaunchAgents" / f"{LAUNCH_AGENT_LABEL}.plist"

    def _log_file(self) -> Path:
        return Path.home() / "Library" / "Logs" / APP / "launchd.log"

    def _registry(self) -> RunKey:
        if self.registry is None:
            self.registry = WindowsRunKey()
        return self.registry

    # the commands --------------------------------------------------------------------------

    def enable(self, *, systemd: bool = False) -> list[str]:
        if self.system == "win32":
            return self._enable_windows()
        if self.system == "darwin":
            return self._enable_macos()
        if systemd:
            said = self._remove_ours(self.desktop_file, DESKTOP_MARK)
            return said + self._enable_systemd()
        said = self._remove_systemd()
        return said + self._write(self.desktop_file, desktop_entry(self.command), DESKTOP_MARK, "XDG autostart entry")

    def disable(self) -> list[str]:
        if self.system == "win32":
            current = self._registry().get(RUN_VALUE_NAME)
            if current is None:
                return ["start on login: not enabled"]
            self._registry().delete(RUN_VALUE_NAME)
            return [f"removed the Run registry value {RUN_VALUE_NAME!r} (HKCU\\{RUN_KEY})"]
        if self.system == "darwin":
            said = []
            if self._is_ours(self.plist_file, LAUNCH_AGENT_LABEL):
                self.runner(["launchctl", "bootout", f"gui/{os.getuid()}/{LAUNCH_AGENT_LABEL}"])
            said += self._remove_ours(self.plist_file, LAUNCH_AGENT_LABEL)
            return said or ["start on login: not enabled"]
        said = self._remove_ours(self.desktop_file, DESKTOP_MARK) + self._remove_systemd()
        return said or ["start on login: not enabled"]

    def status(self) -> list[str]:
        if self.system == "win32":
            current = self._registry().get(RUN_VALUE_NAME)
            if current is None:
                return ["start on login: not enabled"]
            return [
                f"Run registry value {RUN_VALUE_NAME!r}: {current}" + self._which(current == run_value(self.command))
            ]
        if self.system == "darwin":
            return [
                self._file_status(self.plist_file, LAUNCH_AGENT_LABEL, launch_agent(self.command, self._log_file()))
            ]
        return [
            self._file_status(self.desktop_file, DESKTOP_MARK, desktop_entry(self.command).encode()),
            self._file_status(self.unit_file, SYSTEMD_MARK, systemd_unit(self.command).encode())
            + ("" if not self.unit_file.exists() or self.unit_link.is_symlink() else " (not enabled)"),
        ]

    # helpers -------------------------------------------------------------------------------

    @staticmethod
    def _which(this: bool) -> str:
        return (
            " — starts this installation" if this else " — starts another installation (enable again to point it here)"
        )

    def _file_status(self, path: Path, mark: str, expected: bytes) -> str:
        if not path.exists():
            return f"{path}: not installed"
        content = path.read_bytes()
        if mark.encode() not in content:
            return f"{path}: present, not written by acp-tray (left alone)"
        return f"{path}: installed" + self._which(content == expected)

    @staticmethod
    def _is_ours(path: Path, mark: str) -> bool:
        try:
            return mark.encode() in path.read_bytes()
        except OSError:
            return False

    def _write(self, path: Path, content: str | bytes, mark: str, what: str) -> list[str]:
        data = content.encode() if isinstance(content, str) else content
        if path.exists() and not self._is_ours(path, mark):
            raise AutostartError(f"{path} exists and was not written by acp-tray; remove it or edit it yourself")
        if path.exists() and path.read_bytes() == data:
            return [f"{what} already enabled: {path}"]
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, path)
        return [f"{what} written: {path}", f"starts: {' '.join(self.command)}"]

    def _remove_ours(self, path: Path, mark: str) -> list[str]:
        if not path.exists():
            return []
        if not self._is_ours(path, mark):
            return [f"{path} was not written by acp-tray: left alone"]
        path.unlink()
        return [f"removed {path}"]

    def _enable_systemd(self) -> list[str]:
        said = self._write(self.unit_file, systemd_unit(self.command), SYSTEMD_MARK, "systemd user unit")
        if not self.unit_link.is_symlink():  # what `systemctl --user enable` does, without needing a user manager
            self.unit_link.parent.mkdir(parents=True, exist_ok=True)
            self.unit_link.symlink_to(Path("..") / self.unit_file.name)
            said.append(f"enabled: {self.unit_link}")
        reload = self.runner(["systemctl", "--user", "daemon-reload"])
        if reload.returncode != 0:
            said.append("(no systemd user manager reachable now: the unit takes effect at the next login)")
        return said

    def _remove_systemd(self) -> list[str]:
        if not self._is_ours(self.unit_file, SYSTEMD_MARK):
            return self._remove_ours(self.unit_file, SYSTEMD_MARK)
        said = []
        if self.unit_link.is_symlink():
            self.unit_link.unlink()
        said += self._remove_ours(self.unit_file, SYSTEMD_MARK)
        self.runner(["systemctl", "--user", "daemon-reload"])
        return said

    def _enable_macos(self) -> list[str]:
        self._log_file().parent.mkdir(parents=True, exist_ok=True)
        said = self._write(
            self.plist_file, launch_agent(self.command, self._log_file()), LAUNCH_AGENT_LABEL, "LaunchAgent"
        )
        if len(said) > 1:  # written or changed: (re)load it for this session
            domain = f"gui/{os.getuid()}"
            self.runner(["launchctl", "bootout", f"{domain}/{LAUNCH_AGENT_LABEL}"])
            loaded = self.runner(["launchctl", "bootstrap", domain, str(self.plist_file)])
            if loaded.returncode != 0:
                said.append(f"launchctl bootstrap failed ({loaded.stderr.strip()}); it starts at the next login")
        return said

    def _enable_windows(self) -> list[str]:
        value = run_value(self.command)
        if self._registry().get(RUN_VALUE_NAME) == value:
            return [f"start on login already enabled: HKCU\\{RUN_KEY}\\{RUN_VALUE_NAME}"]
        self._registry().set(RUN_VALUE_NAME, value)
        return [f"start on login enabled: HKCU\\{RUN_KEY}\\{RUN_VALUE_NAME} = {value}"]
