"""Notifications taken back by topic: a new notice on a topic (a preferences error, then
"Preferences applied"; a sign-in's page, then "Signed in") takes the earlier ones off the screen
and out of Recent, where they would say what is no longer so; so does the end of what a topic was
about (a sign-in that ended, an agent that needed a sign-in and is connected now)."""

from __future__ import annotations

from acp_tray.app.publisher import Changed, TrayPublisher
from acp_tray.app.surfaces import Surfaces
from acp_tray.presentation.recent import Recent


class Topics:
    def __init__(self, surfaces: Surfaces, recent: Recent, publisher: TrayPublisher) -> None:
        self._surfaces = surfaces
        self._recent = recent
        self._publisher = publisher
        self._shown: dict[str, list[int]] = {}  # topic -> the groups of its notices still shown

    def take_back(self, topic: str, new: int | None = None) -> None:
        """What was said on `topic` before, but `new` (the group of the notice said now, if shown)."""
        groups = [group for group in self._shown.pop(topic, []) if group != new]
        if new is not None:
            self._shown[topic] = [new]
        for group in groups:
            self._surfaces.withdraw(group)
        if self._recent.remove(groups):
            self._publisher.changed(Changed.UNREAD)
