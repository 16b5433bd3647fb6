"""`acp-tray desktop install | remove`: acp-tray in the app menu, its launcher entry and icons
(desktop/menu_entry.py)."""

from __future__ import annotations

import argparse
import contextlib

from acp_tray.cli.output import EXIT_FAILED, fail
from acp_tray.desktop.entry import this_installation
from acp_tray.desktop.entry_file import EntryError
from acp_tray.desktop.menu_entry import Launcher, has_launcher


def cmd_desktop(args: argparse.Namespace) -> int:
    if not has_launcher():
        return fail("the app-menu launcher is for Linux and the BSDs (XDG menus); nothing to do here", EXIT_FAILED)
    launcher = Launcher(this_installation())
    try:
        lines = launcher.install() if args.action == "install" else launcher.remove()
    except (OSError, EntryError) as exc:
        return fail(f"could not {args.action} the launcher: {exc}", EXIT_FAILED)
    with contextlib.suppress(BrokenPipeError):
        print("\n".join(lines))
    return 0
