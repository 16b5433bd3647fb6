"""The window's "Start on login" switch: what `acp-tray autostart enable`/`disable` do, done by
the window's process (start on login belongs to this user's desktop, not to the daemon), and what
is installed, as `autostart status` says it. The autostart code is imported when the switch is
shown or used (the Preferences and Welcome pages), not when the window starts."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from acp_tray.window.render import Renderer


def start_on_login(said: list[str] | None = None, problem: str = "") -> dict[str, Any]:
    """What the switch shows: on or off, whether it starts this installation, what is installed
    (`status`), what was just done (`said`) or why it could not be (`problem`)."""
    from acp_tray.autostart.select import autostart_for
    from acp_tray.desktop.entry_file import EntryError

    autostart = autostart_for()
    try:
        current, installed = autostart.current(), autostart.status()
    except (EntryError, OSError) as exc:
        return {"on": False, "this": False, "installed": [], "said": said or [], "problem": problem or str(exc)}
    return {"on": current.on, "this": current.this, "installed": installed, "said": said or [], "problem": problem}


class StartOnLogin:
    def __init__(self, render: Renderer) -> None:
        self._render = render

    async def switch(self, request: Request) -> Response:
        """`on=1`: enable (also: point an entry that starts another installation here); `on=0`: disable."""
        from acp_tray.autostart.select import autostart_for
        from acp_tray.desktop.entry_file import EntryError

        form = await request.form()
        autostart = autostart_for()
        try:
            said = autostart.enable() if form.get("on") == "1" else autostart.disable()
        except (EntryError, OSError) as exc:
            return self._render.part(request, "_start_on_login.html", login=start_on_login(problem=str(exc)))
        return self._render.part(request, "_start_on_login.html", login=start_on_login(said))
