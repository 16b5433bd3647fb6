"""Which agents' crash loops acp-tray has told the person about, so the next start does not pop the
same one up again: an agent left stopped after crashing is started again with acp-tray, and crashes
the same way.

Kept per agent: a digest of the loop's reason (how it ended and its last stderr lines), never the
text itself (stderr may hold what the person would not keep on disk). A loop told at an *earlier*
start with the same digest is "told"; one told in this run is not (starting the agent again asks
for the answer). An agent that connects is forgotten: its next crash loop is news. The file is
acp-tray's own (JSON in the state dir, 0600, replaced atomically); an unreadable one is ignored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from pathlib import Path

from acp_tray.files.atomic import write_atomically

log = logging.getLogger(__name__)


def digest(reason: str) -> str:
    return hashlib.sha256(reason.encode("utf-8", "surrogatepass")).hexdigest()


class CrashRecord:
    def __init__(self, path: Path | None) -> None:
        self._path = path  # None: for this run only
        self._earlier: dict[str, str] = {}  # agent -> digest, as found at start
        if path is not None:
            with contextlib.suppress(OSError, ValueError):
                data = json.loads(path.read_text(encoding="utf-8"))
                if isinstance(data, dict):
                    self._earlier = {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}
        self._kept = dict(self._earlier)  # what the file holds

    def told(self, agent: str, reason: str) -> bool:
        """Whether this crash loop was told at an earlier start of acp-tray, for the same reason."""
        return self._earlier.get(agent) == digest(reason)

    def remember(self, agent: str, reason: str) -> None:
        """The agent was given up on, and the person told why (or told earlier)."""
        if self._kept.get(agent) != digest(reason):
            self._kept[agent] = digest(reason)
            self._save()

    def forget(self, agent: str) -> None:
        """The agent connected: a later crash loop of its is told again, at any start."""
        self._earlier.pop(agent, None)
        if self._kept.pop(agent, None) is not None:
            self._save()

    def _save(self) -> None:
        if self._path is None:
            return
        try:
            write_atomically(self._path, json.dumps(self._kept, indent=1), mode=0o600)
        except OSError as exc:
            log.warning("could not save %s: %s", self._path, exc)
