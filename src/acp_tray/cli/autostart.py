"""`acp-tray autostart enable [--systemd] | disable | status`: start on login (autostart/)."""

from __future__ import annotations

import argparse
import contextlib

from acp_tray.autostart.select import autostart_for
from acp_tray.cli.output import EXIT_FAILED, fail
from acp_tray.desktop.entry_file import EntryError


def cmd_autostart(args: argparse.Namespace) -> int:
    autostart = autostart_for()
    try:
        if args.action == "enable":
            lines = autostart.enable(systemd=args.systemd)
        elif args.action == "disable":
            lines = autostart.disable()
        else:
            lines = autostart.status()
    except (EntryError, OSError) as exc:
        return fail(str(exc), EXIT_FAILED)
    with contextlib.suppress(BrokenPipeError):
        print("\n".join(lines))
    return 0
