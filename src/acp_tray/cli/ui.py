"""`acp-tray ui [--no-browser] [--page PAGE] [--port N]`: open the acp-tray window (a local web
page) in the default browser, starting its server if none runs for this user. The browser is
opened on a private redirect file (window/redirect.py), never on an address with the key: a
command line is readable by every local user. `--no-browser` prints an address that opens the
window once, within a minute; `--port` serves it at that port of 127.0.0.1 (for an SSH port-forward from
another machine: `ssh -L N:127.0.0.1:N host`, the same port on both ends, which the window's Host
check requires). The pages: presentation/actions.py `WindowPage`."""

from __future__ import annotations

import argparse

from acp_tray.cli.output import EXIT_FAILED, EXIT_NO_DAEMON, fail, out
from acp_tray.window.keys import opening_key
from acp_tray.window.where import Running, environment_has_display, running

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
    key = opening_key(window.secret, window.port)
    url = window.address(key, args.page, highlight=args.highlight or "")
    if args.no_browser or not environment_has_display():
        out(url)
        return 0
    from acp_tray.control.endpoint import EndpointError
    from acp_tray.window.redirect import open_in_browser

    try:
        why = open_in_browser(url, key)
    except (OSError, EndpointError) as exc:
        return fail(f"cannot open the window: {exc}", EXIT_FAILED)
    if why is not None:  # the address on stdout (a terminal's), the reason last on stderr (a notification's)
        out(url)
        return fail(f"{NO_BROWSER}: {why}. {BROWSER_FIX}", EXIT_FAILED)
    out(f"opened the acp-tray window in your browser (http://127.0.0.1:{window.port}/)")
    return 0


def _start(port: int | None) -> Running | int:
    """A new window server, once the daemon has answered; else the exit code, the reason said. Only
    here are the control API and the server's start imported: opening a running window (the tray's
    "Open acp-tray…" but the first time) costs the standard library only."""
    from acp_tray.control import api
    from acp_tray.control.client import NoDaemonError, ReplyError, request
    from acp_tray.window.launch import WindowError, ensure

    try:
        request(api.STATUS, api.Args(), timeout=10.0)
    except NoDaemonError as exc:
        return fail(str(exc), EXIT_NO_DAEMON)
    except ReplyError as exc:
        return fail(str(exc), EXIT_FAILED)
    try:
        return ensure(port)
    except WindowError as exc:
        return fail(f"cannot open the window: {exc}", EXIT_FAILED)
