"""Agents' secrets (API keys) in the OS keyring, injected into an agent's environment at spawn.

Values live only in the keyring (`keyring`: Secret Service, macOS Keychain, Windows Credential
Locker) under the service "acp-tray", user "AGENT/VAR". The *names* of each agent's secrets are
kept in a small file in the state dir (0600), so an agent without secrets never touches the
keyring (no unlock prompt, no D-Bus call). A value is never logged, shown or written elsewhere:
once read for an agent, it is redacted (`redact.remember_secrets`) from every log line and from
the agent's stderr wherever that is quoted.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from acp_tray.files.names_file import read_table, write_table
from acp_tray.logs.redact import remember_secrets

log = logging.getLogger(__name__)

SERVICE = "acp-tray"
VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class SecretError(Exception):
    """The keyring cannot be used (none available, locked, refused); the message says what to do."""


def keyring_module() -> Any:
    import keyring  # imported when a secret is needed: keyring and its backends are not small

    return keyring


def _entry(agent: str, var: str) -> str:
    return f"{agent}/{var}"


def variable_problem(var: str) -> str | None:
    """Why `var` cannot be a secret's name (an environment variable's), or None when it can."""
    if VARIABLE.fullmatch(var):
        return None
    return f"{var!r} is not an environment variable name (letters, digits, _; not starting with a digit)"


def keyring_failed(exc: Exception) -> SecretError:
    """The plain sentence first; what the keyring library said (never its class name) after it."""
    said = str(exc).strip()
    if type(exc).__name__ == "NoKeyringError":  # keyring found no backend at all
        first = "there is no OS keyring here to keep it in"
    else:
        first = "the OS keyring could not be used"
    return SecretError(
        f"{first}: on Linux a Secret Service (GNOME Keyring, KeePassXC) must be running and unlocked"
        + (f" (the keyring said: {said})" if said else "")
    )


def keep(entry: str, value: str) -> None:
    """`value` in the OS keyring as `entry` (blocking); SecretError when the keyring cannot be used."""
    try:
        keyring_module().set_password(SERVICE, entry, value)
    except Exception as exc:  # keyring.errors.KeyringError and the backends' own (D-Bus, locked)
        raise keyring_failed(exc) from None


def forget(entry: str) -> None:
    """`entry` out of the OS keyring (blocking), one already gone included; SecretError when the
    keyring cannot be used."""
    try:
        keyring_module().delete_password(SERVICE, entry)
    except Exception as exc:
        if type(exc).__name__ != "PasswordDeleteError":  # already gone from the keyring: fine
            raise keyring_failed(exc) from None


class SecretNames:
    """Which variables each agent has in the keyring (names only), in a file of the state dir."""

    def __init__(self, path: Path) -> None:
        self._path = path

    def read(self) -> dict[str, list[str]]:
        agents = read_table(self._path, "agents", "no secrets are injected")
        return {agent: [str(v) for v in names] for agent, names in agents.items() if isinstance(names, list)}

    def of(self, agent: str) -> list[str]:
        return self.read().get(agent, [])

    def _write(self, names: dict[str, list[str]]) -> None:
        write_table(self._path, "agents", {a: sorted(set(v)) for a, v in names.items() if v})

    def store(self, agent: str, var: str, value: str) -> None:
        """Keep `value` as the agent's `var` in the OS keyring and its name here (blocking: call it off
        an event loop); SecretError for a name that is not a variable's, an empty value, or a keyring
        that cannot be used. How `acp-tray agents secret` and the window keep a secret."""
        problem = variable_problem(var)
        if problem is not None:
            raise SecretError(problem)
        if not value:
            raise SecretError(f"nothing entered for {var}; nothing stored")
        keep(_entry(agent, var), value)
        names = self.read()
        names.setdefault(agent, []).append(var)
        self._write(names)

    def delete(self, agent: str, var: str) -> bool:
        names = self.read()
        if var not in names.get(agent, []):
            return False
        forget(_entry(agent, var))
        names[agent].remove(var)
        self._write(names)
        return True

    def values(self, agent: str) -> dict[str, str]:
        """The agent's secrets as environment variables (blocking: call it off the event loop)."""
        wanted = self.of(agent)
        if not wanted:
            return {}
        found: dict[str, str] = {}
        try:
            keyring = keyring_module()
            for var in wanted:
                value = keyring.get_password(SERVICE, _entry(agent, var))
                if value is None:
                    log.warning("%s: secret %s is listed but not in the keyring; set it again", agent, var)
                else:
                    found[var] = value
        except Exception as exc:
            log.warning("%s: secrets not injected: %s", agent, keyring_failed(exc))
        remember_secrets(found.values())  # before the agent can print one
        return found
