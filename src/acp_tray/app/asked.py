"""The notifications of requests that wait for the person (approvals, questions): each leaves the
screen once settled (answered anywhere: a button, the tray, the CLI, the window; timed out or
cancelled), and those DND held back that still wait are shown when it ends, with their buttons (a
request still waiting is current; other notices are not replayed)."""

from __future__ import annotations

import dataclasses
import logging

from acp_tray.app.surfaces import Surfaces
from acp_tray.presentation.router import Decision, Presentation, Router

log = logging.getLogger(__name__)


class AskedOnScreen:
    def __init__(self, surfaces: Surfaces, router: Router) -> None:
        self._surfaces = surfaces
        self._router = router  # the approvals' sound, as the preferences say it now
        self._groups: dict[str, int] = {}  # approval or question id ("q1": never an approval's) -> its group
        self._held_by_dnd: dict[str, Presentation] = {}

    def shown(self, asked_id: str, decision: Decision, presentation: Presentation) -> None:
        """The request's notification, remembered to be withdrawn once settled (or shown after DND)."""
        self._groups[asked_id] = presentation.group
        if decision.suppressed == "dnd":
            self._held_by_dnd[asked_id] = presentation

    def settled(self, asked_id: str) -> None:
        """It has nothing left to ask: its "Needs approval" or "Question" notification leaves the screen."""
        self._held_by_dnd.pop(asked_id, None)
        group = self._groups.pop(asked_id, None)
        if group is not None:
            self._surfaces.withdraw(group)

    def dnd_ended(self) -> None:
        """Show the requests DND held back that still wait, with their buttons."""
        held, self._held_by_dnd = self._held_by_dnd, {}
        for asked_id, presentation in held.items():
            log.info("do not disturb ended: showing approval request %s, still waiting", asked_id)
            sound = self._router.prefs.approvals.sound  # new on screen: an approval's sound
            self._surfaces.show(dataclasses.replace(presentation, notify=True, tray=False, sound=sound))
