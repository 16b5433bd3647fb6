"""Where presentations go (the console, native notifications, a test's list): each in turn; one
that fails is logged and never keeps the others, or presentation, from going on."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from acp_tray.presentation.router import Presentation

log = logging.getLogger(__name__)

Surface = Callable[[Presentation], None]
Withdraw = Callable[[int], None]  # take a presentation group's notification off the screen


class Surfaces:
    def __init__(self, surfaces: Sequence[Surface], withdrawers: Sequence[Withdraw] = ()) -> None:
        self._surfaces = tuple(surfaces)
        self._withdrawers = tuple(withdrawers)  # the surfaces that can take a notification back

    def show(self, presentation: Presentation) -> None:
        for surface in self._surfaces:
            try:
                surface(presentation)
            except Exception:
                log.exception("a surface failed to present a notice")

    def withdraw(self, group: int) -> None:
        for withdraw in self._withdrawers:
            try:
                withdraw(group)
            except Exception:
                log.exception("could not take back a notification")
