"""The last line of a file acp-tray writes for the person's desktop (the app-menu launcher, the
start-on-login entries): a digest of the lines above it. A file still as acp-tray wrote it is told
apart from one the person has edited since, or one of their own at the same place, which acp-tray
then neither overwrites nor removes."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Stamp:
    """The stamp line is `prefix`, the digest, `suffix` (e.g. a comment's opening and closing)."""

    prefix: str
    suffix: str = ""

    @staticmethod
    def digest(body: str) -> str:
        return hashlib.sha256(body.encode()).hexdigest()[:16]

    def on(self, body: str) -> str:
        """`body` (whole lines) with its stamp line after it."""
        return f"{body}{self.prefix}{self.digest(body)}{self.suffix}\n"

    def unedited(self, content: str) -> bool:
        """Whether `content` is a body acp-tray stamped (for any installation), unedited since."""
        if not content.endswith("\n"):
            return False
        head, _, last = content[:-1].rpartition("\n")
        body = head + "\n" if head else ""
        if not last.startswith(self.prefix) or any(line.startswith(self.prefix) for line in head.split("\n")):
            return False
        return content == self.on(body)
