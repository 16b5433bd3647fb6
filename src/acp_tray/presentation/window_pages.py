"""The window's pages by name: what `acp-tray ui --page`, the tray's "Open" entries and a notification's
window action name (declared here, on its own, so that `acp-tray ui` and the window's process read it
without the rest of the menu's actions)."""

from __future__ import annotations

from typing import Literal

WindowPage = Literal["overview", "agents", "sessions", "history", "diagnostics", "preferences", "welcome"]
