"""Named sessions: keyed by (agent, cwd, name), their ACP session ids kept in the state dir.

The file lets acp-tray reattach to the same session after a daemon or agent restart. It is
acp-tray's own file (JSON, replaced atomically); an unreadable one is set aside, not lost. Any
string can be kept (written as ASCII JSON, whose escapes give back even a lone surrogate), and
an entry that could not be written is not kept in memory either: the caller learns it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acp_tray.files.atomic import write_atomically

log = logging.getLogger(__name__)

DEFAULT_SESSION = "default"
FORMAT_VERSION = 1
MAX_SESSIONS = 1000


@dataclass(frozen=True, order=True)
class SessionKey:
    agent: str
    cwd: str  # absolute path
    name: str = DEFAULT_SESSION


class SessionStoreError(Exception):
    """The session list could not be saved: the entry asked for is not kept (the message says why)."""


class SessionStore:
    """Session ids by key, read once and written through on every change."""

    def __init__(self, path: Path | None) -> None:
        self._path = path  # None: nothing persists (tests, or no state dir)
        self._ids: dict[SessionKey, tuple[str, str]] = {}  # key -> (session id, updated)
        if path is not None:
            self._read(path)

    def get(self, key: SessionKey) -> str | None:
        entry = self._ids.get(key)
        return entry[0] if entry else None

    def put(self, key: SessionKey, session_id: str) -> None:
        """Keep `session_id` for `key` and save the list; SessionStoreError (nothing changed) when
        it cannot be saved."""
        if self.get(key) == session_id:
            return
        before = dict(self._ids)
        updated = datetime.now(UTC).isoformat(timespec="microseconds")  # UTC: sorts right across DST
        self._ids[key] = (session_id, updated)
        while len(self._ids) > MAX_SESSIONS:  # the oldest go first
            del self._ids[min(self._ids, key=lambda k: self._ids[k][1])]
        try:
            self._write()
        except (OSError, ValueError) as exc:
            self._ids = before
            raise SessionStoreError(f"could not save the session list {self._path}: {exc}") from None

    def known(self, agent: str | None = None) -> list[SessionKey]:
        return sorted(k for k in self._ids if agent is None or k.agent == agent)

    def _read(self, path: Path) -> None:
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
            for entry in data["sessions"]:
                key = SessionKey(str(entry["agent"]), str(entry["cwd"]), str(entry["name"]))
                self._ids[key] = (str(entry["session_id"]), str(entry.get("updated", "")))
        except FileNotFoundError:
            return
        except (OSError, ValueError, KeyError, TypeError) as exc:
            aside = path.with_name(path.name + ".unreadable")
            with contextlib.suppress(OSError):
                os.replace(path, aside)
            log.warning("could not read the session list %s (%s); set aside as %s, starting afresh", path, exc, aside)
            self._ids.clear()

    def _write(self) -> None:
        if self._path is None:
            return
        entries = [
            {"agent": k.agent, "cwd": k.cwd, "name": k.name, "session_id": sid, "updated": updated}
            for k, (sid, updated) in sorted(self._ids.items())
        ]
        # ASCII: every str can be written, and read back the same (a lone surrogate as its escape)
        text = json.dumps({"version": FORMAT_VERSION, "sessions": entries}, indent=1, ensure_ascii=True)
        write_atomically(self._path, text, mode=0o600)
