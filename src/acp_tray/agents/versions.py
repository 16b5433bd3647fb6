"""Which agents speak ACP 1 when offered 2, remembered so the fresh-connection fallback happens once.

Keyed by agent name and what it runs (command or URL): a changed command is asked again. The file
is acp-tray's own (JSON in the state dir, replaced atomically); an unreadable one is ignored.
"""

from __future__ import annotations

import contextlib
import json
import logging
from pathlib import Path

from acp_tray.files.atomic import write_atomically
from acp_tray.protocol.version import ProtocolVersion

log = logging.getLogger(__name__)


class VersionMemory:
    def __init__(self, path: Path | None) -> None:
        self._path = path  # None: remembered for this run only
        self._known: dict[str, dict[str, object]] = {}
        if path is not None:
            with contextlib.suppress(OSError, ValueError):
                data = json.loads(path.read_text(encoding="utf-8"))
                if isinstance(data, dict):
                    self._known = {k: v for k, v in data.items() if isinstance(v, dict)}

    def version(self, agent: str, target: str) -> int | None:
        entry = self._known.get(agent)
        if entry is None or entry.get("target") != target:
            return None
        version = entry.get("version")
        return version if type(version) is int else None

    def remember(self, agent: str, target: str, version: int) -> None:
        self._known[agent] = {"target": target, "version": version}
        if self._path is None:
            return
        try:
            write_atomically(self._path, json.dumps(self._known, indent=1), mode=0o600)
        except OSError as exc:
            log.warning("could not save %s: %s", self._path, exc)


class VersionChoice:
    """The ACP version one agent running `target` is offered: the `preference` (1 or 2), else ("auto")
    what it was found to speak, else 2; and what it is found to speak, remembered in `memory`."""

    def __init__(
        self, agent: str, target: str, preference: str | int, memory: VersionMemory, agent_log: logging.Logger
    ) -> None:
        self._agent = agent
        self._target = target
        self.preference = preference
        self._memory = memory
        self._log = agent_log

    def offer(self) -> ProtocolVersion:
        if self.preference in (1, 2):
            return ProtocolVersion(int(self.preference))
        return ProtocolVersion.V1 if self._memory.version(self._agent, self._target) == 1 else ProtocolVersion.V2

    def speaks_v1(self) -> None:
        """It answered `initialize` offered 2 with 1 (the handshake falls back)."""
        self._memory.remember(self._agent, self._target, 1)

    def answered_as_v1(self, current: ProtocolVersion) -> None:
        """On ACP 2 it answered a prompt as ACP 1 would (it echoed the version offered): from its
        next start it is offered 1."""
        if self.preference == "auto" and current is ProtocolVersion.V2:
            self.speaks_v1()
            self._log.warning(
                "it behaves as ACP 1 although it answered 2: it will be offered ACP 1 from its next start"
            )
