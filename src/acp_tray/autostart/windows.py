"""Start on login on Windows: the `Run` value under HKCU (through `winreg`; any `RunKey` in tests)."""

from __future__ import annotations

import sys
from typing import Protocol

from acp_tray.autostart.entries import RUN_VALUE_NAME, run_value
from acp_tray.autostart.files import Current, starts_which
from acp_tray.autostart.xdg import NOT_ENABLED
from acp_tray.desktop.entry_file import EntryError

RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"


class RunKey(Protocol):
    """The Windows `Run` key: one string value per program."""

    def get(self, name: str) -> str | None: ...

    def set(self, name: str, value: str) -> None: ...

    def delete(self, name: str) -> None: ...


class WindowsRunKey:  # pragma: no cover - Windows only
    """The real key, through `winreg` (Windows only)."""

    def get(self, name: str) -> str | None:
        if sys.platform != "win32":
            raise EntryError("the Windows registry exists only on Windows")
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
                value, _ = winreg.QueryValueEx(key, name)
        except FileNotFoundError:
            return None
        return str(value)

    def set(self, name: str, value: str) -> None:
        if sys.platform != "win32":
            raise EntryError("the Windows registry exists only on Windows")
        import winreg

        with winreg.CreateKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
            winreg.SetValueEx(key, name, 0, winreg.REG_SZ, value)

    def delete(self, name: str) -> None:
        if sys.platform != "win32":
            raise EntryError("the Windows registry exists only on Windows")
        import winreg

        with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY, 0, winreg.KEY_SET_VALUE) as key:
            winreg.DeleteValue(key, name)


class RunKeyAutostart:
    def __init__(self, command: list[str], registry: RunKey) -> None:
        self.command = command
        self._registry = registry

    def enable(self, *, systemd: bool = False) -> list[str]:
        value = run_value(self.command)
        if self._registry.get(RUN_VALUE_NAME) == value:
            return [f"start on login already enabled: HKCU\\{RUN_KEY}\\{RUN_VALUE_NAME}"]
        self._registry.set(RUN_VALUE_NAME, value)
        return [f"start on login enabled: HKCU\\{RUN_KEY}\\{RUN_VALUE_NAME} = {value}"]

    def disable(self) -> list[str]:
        if self._registry.get(RUN_VALUE_NAME) is None:
            return [NOT_ENABLED]
        self._registry.delete(RUN_VALUE_NAME)
        return [f"removed the Run registry value {RUN_VALUE_NAME!r} (HKCU\\{RUN_KEY})"]

    def current(self) -> Current:
        value = self._registry.get(RUN_VALUE_NAME)
        return Current(on=value is not None, this=value == run_value(self.command))

    def status(self) -> list[str]:
        current = self._registry.get(RUN_VALUE_NAME)
        if current is None:
            return [NOT_ENABLED]
        return [f"Run registry value {RUN_VALUE_NAME!r}: {current}" + starts_which(current == run_value(self.command))]
