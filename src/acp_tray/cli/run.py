"""`acp-tray run [--headless]`: one daemon per user (the lock in the private runtime directory
first), logging to its rotating file, then the daemon app/compose.py builds."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from acp_tray.cli.config import config_path
from acp_tray.cli.output import EXIT_FAILED, fail, say
from acp_tray.control.endpoint import LOCK_NAME, SOCKET_NAME, EndpointError, prepare_runtime_dir, socket_answers
from acp_tray.desktop.display import environment_has_display
from acp_tray.files import paths
from acp_tray.files.private import make_dir
from acp_tray.files.rotating import RotatingFile
from acp_tray.logs.setup import install

log = logging.getLogger("acp_tray")
LOG_BYTES = 1024 * 1024
LOG_BACKUPS = 3


def _log_to_file(verbosity: int) -> Path | None:
    """The daemon's rotating log file (1 MB, 3 old copies), at INFO (DEBUG with -vv)."""
    log_file = paths.log_file()
    try:
        make_dir(log_file.parent)
        handler = RotatingFile(log_file, max_bytes=LOG_BYTES, backups=LOG_BACKUPS, what="log file")
    except OSError as exc:
        say(f"cannot open the log file {log_file} ({exc.strerror or exc}); logging to the console only")
        return None
    install(handler, verbosity)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    level = logging.DEBUG if verbosity >= 2 else logging.INFO
    handler.setLevel(level)
    root = logging.getLogger()
    root.addHandler(handler)
    for other in root.handlers:  # the console keeps the level it was given
        if other is not handler and other.level == logging.NOTSET:
            other.setLevel(root.level)
    root.setLevel(min(root.level, level))
    return log_file


def _first_run_launcher() -> None:
    """acp-tray in the app menu from the first start on (quietly, once), so that after Quit it can
    be started again without a terminal."""
    if paths.first_start_marker().exists():
        return  # an earlier start did it: nothing more to import
    from acp_tray.desktop.menu_entry import install_on_first_run

    install_on_first_run()


def cmd_run(args: argparse.Namespace) -> int:
    """One daemon per user: the lock in the private runtime directory first, then the rest."""
    from acp_tray.agents import leftovers
    from acp_tray.app.welcome import welcome_due
    from acp_tray.control.instance import AlreadyRunningError, InstanceLock

    try:
        runtime = prepare_runtime_dir()
        lock = InstanceLock(runtime / LOCK_NAME)
        took_over = lock.acquire()
    except EndpointError as exc:
        return fail(f"not starting: {exc}", EXIT_FAILED)
    except AlreadyRunningError as exc:
        print(f"{exc}; `acp-tray status` shows it, `acp-tray quit` stops it")
        return 0
    try:
        if sys.platform != "win32" and socket_answers(runtime / SOCKET_NAME):  # one that predates the lock
            print("acp-tray is already running (its control socket answers); `acp-tray status` shows it")
            return 0
        log_file = _log_to_file(args.verbose)
        if took_over:
            log.warning("%s", took_over)
        mark_file = paths.agents_run_file()
        leftovers.end_left_behind(mark_file)
        from acp_tray.app.compose import run_daemon

        path, explicit = config_path(args)
        welcome = not args.headless and environment_has_display() and welcome_due()
        mark = leftovers.mark_this_run(mark_file)
        first_start = (lambda: None) if args.headless else _first_run_launcher  # behind the icon: it writes files
        code = run_daemon(
            path,
            explicit=explicit,
            headless=args.headless,
            log_file=log_file,
            run_mark=mark,
            welcome=welcome,
            behind_icon=first_start,
        )
        leftovers.clean_stop(mark_file)  # not after an exception: its agents may be left for the next start
        return code
    finally:
        lock.release()
