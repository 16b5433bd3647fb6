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
