"""The CLI commands that work locally: run the daemon, read the history, the preferences file, DND.

Imported only when one of them runs (the daemon-facing commands must start fast).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import shlex
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tray.control.endpoint import LOCK_NAME, SOCKET_NAME, EndpointError, prepare_runtime_dir
from acp_tray.desktop.opener import default_opener
from acp_tray.files import paths
from acp_tray.files.private import make_dir
from acp_tray.files.rotating import RotatingFile
from acp_tray.logs.setup import install
from acp_tray.notifiers.console import notice_line
from acp_tray.prefs.load import PreferencesError, load_preferences, read_preferences
from acp_tray.prefs.model import dump
from acp_tray.prefs.write import set_dnd
from acp_tray.presentation.clock import SystemClock
from acp_tray.presentation.dnd import DurationError, dnd_end, dnd_state
from acp_tray.presentation.text import DESCRIPTION_LIMIT, NAME_LIMIT, plain_line
from acp_tray.protocol.notice import severity_kind
from acp_tray.state.history import read_history

if TYPE_CHECKING:
    pass

log = logging.getLogger("acp_tray")
LOG_BYTES = 1024 * 1024
LOG_BACKUPS = 3


def _config_path(args: argparse.Namespace) -> tuple[Path, bool]:
    if args.config is not None:
        return Path(args.config).expanduser(), True
    return paths.config_file(), False


def _fail(message: str, code: int = 2) -> int:
    print(f"acp-tray: {message}", file=sys.stderr)
    return code


# run --------------------------------------------------------------------------------------


def _log_to_file(verbosity: int) -> Path | None:
    """The daemon's rotating log file (1 MB, 3 old copies), at INFO (DEBUG with -vv)."""
    log_file = paths.log_file()
    try:
        make_dir(log_file.parent)
        handler = RotatingFile(log_file, max_bytes=LOG_BYTES, backups=LOG_BACKUPS, what="log file")
    except OSError as exc:
        reason = exc.strerror or exc
        print(f"acp-tray: cannot open the log file {log_file} ({reason}); logging to the console only", file=sys.stderr)
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


def cmd_run(args: argparse.Namespace) -> int:
    """One daemon per user: the lock in the private runtime directory first, then the rest."""
    from acp_tray.agents import leftovers
    from acp_tray.control.instance import AlreadyRunningError, InstanceLock
    from acp_tray.control.server import socket_answers

    try:
        runtime = prepare_runtime_dir()
        lock = InstanceLock(runtime / LOCK_NAME)
        took_over = lock.acquire()
    except EndpointError as exc:
        return _fail(f"not starting: {exc}", 1)
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

        path, explicit = _config_path(args)
        mark = leftovers.mark_this_run(mark_file)
        code = run_daemon(path, explicit=explicit, headless=args.headless, log_file=log_file, run_mark=mark)
        leftovers.clean_stop(mark_file)  # not after an exception: its agents may be left for the next start
        return code
    finally:
        lock.release()


# history ------------------------------------------------------------------------------------


def _history_line(record: dict[str, Any]) -> str:
    try:
        time = datetime.fromisoformat(str(record["time"]))
        agent = str(record["agent"])
    except (KeyError, ValueError):
        return f"(unreadable history record) {json.dumps(record)[:200]}"
    if record.get("kind") == "malformed":
        reason = plain_line(f"{record.get('field')}: {record.get('reason')}", DESCRIPTION_LIMIT)
        what = plain_line(str(record.get("update") or "notice"), NAME_LIMIT)  # older records: notices only
        return f"{time:%H:%M:%S}  {plain_line(agent, NAME_LIMIT)}  dropped  malformed {what} ({reason})"
    severity = str(record.get("severity"))
    notes = [f"×{record['count']}"] if isinstance(record.get("count"), int) and record["count"] > 1 else []
    why = record.get("reason") if isinstance(record.get("reason"), str) else None
    if record.get("suppressed"):
        notes.append(f"suppressed: {record['suppressed']}")
    elif record.get("route") and not why:  # older records: no reason (which names the route)
        notes.append(f"route: {record['route']}")
    if why:
        notes.append(f"why: {plain_line(why, DESCRIPTION_LIMIT)}")
    description = record.get("description")
    return notice_line(
        time,
        agent,
        severity,
        severity_kind(severity),
        str(record.get("title")),
        description if isinstance(description, str) else None,
        suffix=" · ".join(notes),
    )


def cmd_history(args: argparse.Namespace) -> int:
    try:
        records = list(read_history(paths.history_file()))
    except OSError as exc:
        print(f"acp-tray: cannot read the history: {exc.filename}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    if args.limit is not None:
        records = records[len(records) - args.limit :] if args.limit else []
    for record in records:
        if args.json:
            # ASCII escapes: control and bidi characters from an agent never reach the terminal as is
            print(json.dumps(record if isinstance(record, dict) else {"unreadable": record}, ensure_ascii=True))
        elif isinstance(record, dict):
            print(_history_line(record))
        else:
            print(f"(unreadable history line) {record[:200]!r}")
    return 0


# prefs --------------------------------------------------------------------------------------


def cmd_prefs(args: argparse.Namespace) -> int:
    path, explicit = _config_path(args)
    if args.action == "path":
        print(path)
        return 0
    if args.action == "validate":
        target = Path(args.file).expanduser() if args.file else path
        try:
            read_preferences(target)
        except PreferencesError as exc:
            print(exc, file=sys.stderr)
            return 1
        print(f"{target}: ok")
        return 0
    if args.action == "show":
        try:
            prefs = load_preferences(path, explicit=explicit).prefs
        except PreferencesError as exc:
            return _fail(str(exc), 1)
        import tomlkit  # here only: the daemon does not need it

        print(tomlkit.dumps(dump(prefs)), end="")
        return 0
    return _edit(path, explicit)


def _editor_command(path: Path) -> list[str] | None:
    """An editor that returns when the person is done (so the file can be checked after)."""
    for variable in ("VISUAL", "EDITOR"):
        value = os.environ.get(variable, "").strip()
        if value:
            return [*shlex.split(value), str(path)]
    if sys.platform == "darwin":
        return ["open", "-W", "-t", str(path)]  # wait, so the file can be checked after
    return None


def _open_with_desktop(path: Path) -> int:
    """No $VISUAL/$EDITOR: the desktop's default application (xdg-open), which returns at once, so
    the file cannot be checked here; and when it fails, say so and what to set."""
    command = default_opener(path)
    advice = f"set $VISUAL or $EDITOR (e.g. `export EDITOR=nano`), or edit {path} by hand"
    if command is None:
        return _fail(f"no editor found: {advice}", 1)
    try:
        opened = subprocess.run(command, check=False, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    except OSError as exc:
        return _fail(f"could not start {command[0]!r}: {exc}; {advice}", 1)
    if opened.returncode != 0:
        said = opened.stderr.strip().splitlines()[-1:] or [f"exit code {opened.returncode}"]
        return _fail(f"{Path(command[0]).name} could not open the file ({said[0]}): {advice}", 1)
    print(f"opened {path} with {Path(command[0]).name}; after saving, `acp-tray prefs validate` checks it")
    return 0


def _edit(path: Path, explicit: bool) -> int:
    with contextlib.suppress(PreferencesError):  # open a broken file anyway: that is how it gets fixed
        load_preferences(path, explicit=explicit)  # creates the commented default file on first use
    if sys.platform == "win32" and not os.environ.get("VISUAL") and not os.environ.get("EDITOR"):
        os.startfile(path)  # type: ignore[attr-defined]
        print(f"opened {path} in the default editor; run `acp-tray prefs validate` after saving")
        return 0
    command = _editor_command(path)
    if command is None:
        return _open_with_desktop(path)
    try:
        subprocess.run(command, check=False)
    except OSError as exc:
        return _fail(f"could not start {command[0]!r}: {exc}", 1)
    try:
        read_preferences(path)
    except PreferencesError as exc:
        print(f"{exc}\nThe file is saved as you left it; a running acp-tray keeps its last good settings.")
        return 1
    print(f"{path}: ok; a running acp-tray applies it now")
    return 0


# doctor -------------------------------------------------------------------------------------


def cmd_doctor(args: argparse.Namespace) -> int:
    """Exit 0 when nothing is a problem, 1 otherwise (notes are not problems)."""
    from acp_tray.doctor import as_json, diagnose, report

    path, _ = _config_path(args)
    checks = asyncio.run(diagnose(path))
    if args.json:
        print(json.dumps(as_json(checks), ensure_ascii=True))
    else:
        print(report(checks))
    return 1 if any(check.status == "problem" for check in checks) else 0


# dnd ----------------------------------------------------------------------------------------


def cmd_dnd(args: argparse.Namespace) -> int:
    path, explicit = _config_path(args)
    clock = SystemClock()
    try:
        prefs = load_preferences(path, explicit=explicit).prefs
        if args.action == "status":
            state = dnd_state(prefs.dnd, clock.now())
            if args.json:
                print(json.dumps(state.as_json()))
            else:
                print(f"do not disturb: {state.describe()}")
            return 0
        if args.action == "off":
            prefs = set_dnd(path, enabled=False, until=None)
        elif args.action == "on":
            prefs = set_dnd(path, enabled=True, until=None)
        else:
            spec = " ".join(args.duration)
            if args.action == "until":
                spec = f"until {spec}"
            prefs = set_dnd(path, enabled=True, until=dnd_end(spec, clock.now(), prefs.dnd.morning))
    except (PreferencesError, DurationError) as exc:
        return _fail(str(exc), 1)
    _apply_in_daemon()
    print(f"do not disturb: {dnd_state(prefs.dnd, clock.now()).describe()}")
    return 0


def _apply_in_daemon() -> None:
    """A running daemon applies the file just written at once: `acp-tray dnd on; acp-tray status`
    says "on" (its watcher would apply it too, a moment later). No daemon: the file is all there is."""
    from acp_tray.control.client import NoDaemonError, ReplyError, request

    with contextlib.suppress(NoDaemonError, ReplyError, OSError):
        request("prefs.apply", {}, timeout=10.0)
