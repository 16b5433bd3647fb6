"""What a person is told when acp-tray starts: the console's first lines (one each: the window,
the app-menu entry, Start on login, how to stop), and the window's welcome page, opened once, at
the first start on a desktop (remembered by a 0600 file in the state directory)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from acp_tray.desktop.entry import APP
from acp_tray.desktop.entry_file import EntryError
from acp_tray.files import paths
from acp_tray.files.atomic import write_atomically

log = logging.getLogger(__name__)

NO_WELCOME = "ACP_TRAY_NO_WELCOME"  # set (non-empty): no welcome page at the first start (scripted starts)


def welcome_due(marker: Path | None = None) -> bool:
    """Whether this start opens the welcome: it never has (`marker`, default the state directory's),
    and it is not turned off by the environment. The caller knows whether there is a desktop."""
    marker = marker if marker is not None else paths.welcome_marker()
    return not os.environ.get(NO_WELCOME) and not marker.exists()


async def open_welcome(marker: Path | None = None) -> None:
    """The window on its welcome page (as the tray's "Open acp-tray…" opens it), then remembered:
    later starts open nothing, also when it could not open (the console's lines say how to)."""
    from acp_tray.desktop.window_opener import open_window

    marker = marker if marker is not None else paths.welcome_marker()
    why = await open_window("welcome")
    if why is not None:
        log.warning("the welcome page did not open (%s): `acp-tray ui --page welcome` opens it", why)
    try:
        write_atomically(marker, "the welcome page was opened at the first start on a desktop\n")
    except OSError as exc:
        log.warning("could not remember that the welcome page was opened: %s", exc)


def first_lines(*, tray: bool, terminal: bool) -> list[str]:
    """The console's lines after the banner: how to open the window, the app-menu entry (Linux/BSD),
    Start on login, how to stop. `tray`: a tray icon is (about to be) shown; `terminal`: the console
    is a terminal (Ctrl+C there stops acp-tray, closing it does not)."""
    lines = ["window: `acp-tray ui` opens it" + (" (or the tray menu's “Open acp-tray…”)" if tray else "")]
    menu = _app_menu_line()
    if menu:
        lines.append(menu)
    lines.append(_start_on_login_line())
    ways = ["the tray menu's Quit"] if tray else []
    ways.append("`acp-tray quit`")
    stop = f"stop: {' or '.join(ways)}"
    if terminal:
        stop += " (Ctrl+C here too); closing this terminal leaves acp-tray running"
    lines.append(stop)
    return lines


def _app_menu_line() -> str:
    from acp_tray.desktop.entry import this_installation
    from acp_tray.desktop.menu_entry import Launcher, has_launcher

    if not has_launcher():
        return ""
    if Launcher(this_installation()).entry_file.exists():
        return f"app menu: “{APP}” starts it again after a Quit; its “Open the acp-tray window” opens the window"
    return f"app menu: no entry; `acp-tray desktop install` adds “{APP}” to your applications"


def _start_on_login_line() -> str:
    from acp_tray.autostart.select import autostart_for

    try:
        current = autostart_for().current()
    except (EntryError, OSError) as exc:
        return f"start on login: unknown ({exc})"
    if current.on and current.this:
        return "start on login: on; `acp-tray autostart disable` or the window's Preferences turn it off"
    if current.on:
        return "start on login: on, but it starts another copy of acp-tray; `acp-tray autostart enable` starts this one"
    return "start on login: off; `acp-tray autostart enable` or the window's Preferences turn it on"
