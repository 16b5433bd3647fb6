"""`acp-tray ui [--no-browser | --browser] [--page PAGE] [--port N]`: open the acp-tray window,
starting its server if none runs for this user: in the app window (one per user, brought to the
front; window/opening.py) where the desktop has a web view, else in the default browser, opened
on a private redirect file (window/redirect.py), never on an address with the key: a command line
is readable by every local user. `--browser` (or ACP_TRAY_WINDOW_IN=browser) chooses the browser;
`--no-browser` prints an address that opens the window once, within a minute; `--port` serves it
at that port of 127.0.0.1 (for an SSH port-forward from another machine: `ssh -L N:127.0.0.1:N
host`, the same port on both ends, which the window's Host check requires). The pages:
presentation/actions.py `WindowPage`."""

from __future__ import annotations

import argparse

from acp_tray.cli.output import EXIT_FAILED, EXIT_NO_DAEMON, fail, out, say
from acp_tray.desktop.display import environment_has_display
from acp_tray.window.where import Running, running

NO_BROWSER = "no web browser opened the window"
BROWSER_FIX = (
    "Open the address `acp-tray ui --no-browser` prints in a browser within a minute (it works once), "
    "or set BROWSER to a command that starts your browser"
)


def cmd_ui(args: argparse.Namespace) -> int:
    window = running()  # it ends with the daemon, unless a page of it is open (it says the daemon is down)
    if window is None or args.port not in (None, window.port):
        started = _start(args.port)
        if isinstance(started, int):
            return started
        window = started
    highlight = args.highlight or ""
    if args.no_browser or not environment_has_display():
        out(window.url(args.page, highlight=highlight))
        return 0
    from acp_tray.window.opening import prefers_browser

    why = None
    if not (args.browser or prefers_browser()):
        from acp_tray.window.app_instance import Show
        from acp_tray.window.opening import show_in_app

        why = show_in_app(Show(args.page, highlight))
        if why is None:
            out("opened the acp-tray window")
            return 0
    return _in_browser(window, args.page, highlight, why)


def _in_browser(window: Running, page: str, highlight: str, why: str | None) -> int:
    """The default browser on the redirect file; `why`: the app window could not be had (said, and kept
    in the window's log). With no browser either: the address printed, which opens it once."""
    from acp_tray.control.endpoint import EndpointError
    from acp_tray.window.keys import opening_key
    from acp_tray.window.opening import note
    from acp_tray.window.redirect import open_in_browser

    key = opening_key(window.secret, window.port)
    url = window.address(key, page, highlight=highlight)
    no_app = f"no app window ({why}); " if why else ""
    try:
        failed = open_in_browser(url, key)
    except (OSError, EndpointError) as exc:
        note(f"{no_app}the browser could not be opened either: {exc}")
        return fail(f"cannot open the window: {no_app}{exc}", EXIT_FAILED)
    if failed is not None:  # the address on stdout (a terminal's), the reason last on stderr (a notification's)
        note(f"{no_app}{NO_BROWSER}: {failed}")
        out(url)
        return fail(f"{no_app}{NO_BROWSER}: {failed}. {BROWSER_FIX}", EXIT_FAILED)
    if why:
        note(f"no app window ({why}); opened in the browser instead")
        say(f"no app window: {why}. Opened in your browser instead")
    out(f"opened the acp-tray window in your browser (http://127.0.0.1:{window.port}/)")
    return 0


def _start(port: int | None) -> Running | int:
    """A new window server; else the exit code, the reason said. The server asks the daemon before it
    listens (acp-tray not running: said as every command says it, exit 3). Only here is the server's
    start imported: opening a running window (the tray's "Open acp-tray…" but the first time) costs
    the standard library only."""
    from acp_tray.window.server_start import WindowError, ensure

    try:
        return ensure(port)
    except WindowError as exc:
        if exc.no_daemon:
            return fail(str(exc), EXIT_NO_DAEMON)
        return fail(f"cannot open the window: {exc}", EXIT_FAILED)
