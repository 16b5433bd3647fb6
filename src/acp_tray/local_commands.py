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
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tray import __version__
from acp_tray.control.endpoint import LOCK_NAME, SOCKET_NAME, EndpointError, prepare_runtime_dir
from acp_tray.desktop.opener import default_opener
from acp_tray.files import paths
from acp_tray.files.private import make_dir
from acp_tray.files.rotating import RotatingFile
from acp_tray.logs.setup import install
from acp_tray.notifiers.console import ConsoleNotifier, notice_line
from acp_tray.prefs.load import Loaded, PreferencesError, load_preferences, read_preferences
from acp_tray.prefs.model import dump
from acp_tray.prefs.write import set_dnd
from acp_tray.presentation.clock import SystemClock
from acp_tray.presentation.dnd import DurationError, dnd_end, dnd_state
from acp_tray.presentation.text import DESCRIPTION_LIMIT, NAME_LIMIT, plain_line
from acp_tray.protocol.notice import severity_kind
from acp_tray.state.history import HistoryWriter, read_history
from acp_tray.tray.app import TrayApp, load_pystray

if TYPE_CHECKING:
    from acp_tray.daemon import Daemon
    from acp_tray.notifiers.chain import NotifierChain

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


def stop_on_signals(stop: asyncio.Event) -> None:
    """SIGINT and SIGTERM set `stop` (called on the running loop, in the main thread). Unix: the
    loop's own signal handlers. Windows has no `add_signal_handler`: a plain handler hands the
    stop to the loop, which the C handler wakes through its wakeup fd (Ctrl+C, Ctrl+Break)."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except NotImplementedError:  # Windows (Proactor loop)
            signal.signal(sig, lambda _signum, _frame: loop.call_soon_threadsafe(stop.set))


async def _serve(daemon: Daemon, chain: NotifierChain | None, stop: asyncio.Event, *, own_signals: bool) -> None:
    from acp_tray.control.commands import Commands
    from acp_tray.control.server import ControlServer

    if own_signals:  # headless: asyncio owns the main thread and the signals
        stop_on_signals(stop)
    control = ControlServer(Commands(daemon))
    try:
        print(f"control: {await control.start()}", flush=True)
    except EndpointError as exc:  # lost a race with another instance, or the directory changed
        print(f"acp-tray: not starting: {exc}", file=sys.stderr, flush=True)
        return
    if chain is not None:
        print(f"notifications: {await chain.start()}", flush=True)
    try:
        await daemon.run(stop)
    finally:
        await control.aclose()
        if chain is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(chain.drain(), 3.0)
            await chain.aclose()


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
        code = _run_daemon(args, log_file, leftovers.mark_this_run(mark_file))
        leftovers.clean_stop(mark_file)  # not after an exception: its agents may be left for the next start
        return code
    finally:
        lock.release()


def _run_daemon(args: argparse.Namespace, log_file: Path | None, run_mark: str) -> int:
    """`run_mark`: carried by each agent this daemon starts (agents/leftovers.py)."""
    path, explicit = _config_path(args)
    try:
        loaded = load_preferences(path, explicit=explicit)
    except PreferencesError as exc:
        return _fail(f"invalid preferences, not starting:\n{exc}")
    if loaded.source is None:
        source = f"built-in defaults ({path} cannot be written)"
    else:
        source = f"{loaded.source}" + (" (created with the defaults; edit it any time)" if loaded.created else "")
    names = ", ".join(loaded.prefs.agents) or "none"
    headless = args.headless or loaded.prefs.notifier == "console"
    mode = " headless" if headless else ""
    print(
        f"acp-tray {__version__} running{mode} · preferences: {source} · agents: {names}\n"
        f"history: {paths.history_file()} · log: {log_file or 'none'} · Ctrl+C to stop",
        flush=True,
    )
    if not loaded.prefs.agents:
        print("No agents configured: add an [agents.NAME] table with command = [...] to the preferences.")
    console = ConsoleNotifier()
    if headless:
        daemon, _ = _build(loaded, console, run_mark, native=False)
        asyncio.run(_serve(daemon, None, asyncio.Event(), own_signals=True))
        return 0
    pystray, backend = load_pystray()
    if pystray is None:
        print(f"tray: none ({backend}); running without one", flush=True)
        daemon, chain = _build(loaded, console, run_mark, native=True)
        asyncio.run(_serve(daemon, chain, asyncio.Event(), own_signals=True))
        return 0
    print(f"tray: pystray, {backend}", flush=True)
    # the icon first; the daemon (and the ACP SDK, ~0.8 s to import) comes up behind it
    app = TrayApp(pystray, lambda action: None)
    _run_with_tray(app, lambda: _build(loaded, console, run_mark, native=True, glib=app.gtk))
    return 0


def _build(
    loaded: Loaded, console: ConsoleNotifier, run_mark: str, *, native: bool, glib: bool = False
) -> tuple[Daemon, NotifierChain | None]:
    """The daemon and its surfaces (imported here: the SDK is slow to import). `glib`: the tray runs
    GTK's loop, through which notifications can go (GLib's D-Bus) without loading dbus-fast."""
    from acp_tray.agents.sdk_log import quiet_agent_gone
    from acp_tray.agents.sessions import SessionStore
    from acp_tray.agents.versions import VersionMemory
    from acp_tray.daemon import Daemon
    from acp_tray.notifiers.chain import NotifierChain
    from acp_tray.notifiers.select import backends_for
    from acp_tray.state.secrets import SecretNames

    quiet_agent_gone()
    history = HistoryWriter(paths.history_file())
    daemon = Daemon(
        loaded.prefs,
        history=history,
        surfaces=[],
        status=console.status,
        prefs_path=loaded.source,
        sessions=SessionStore(paths.sessions_file()),
        versions=VersionMemory(paths.versions_file()),
        secrets=SecretNames(paths.secret_names_file()),
        run_mark=run_mark,
    )
    if not native:
        daemon.add_surface(console.present)
        return daemon, None
    chain = NotifierChain(backends_for(loaded.prefs.notifier, console, daemon.local_action, glib=glib))
    daemon.add_surface(chain.present)
    daemon.add_withdrawer(chain.withdraw)
    return daemon, chain


def _run_with_tray(app: TrayApp, build: Callable[[], tuple[Daemon, NotifierChain | None]]) -> None:
    """pystray on the main thread; the daemon's loop on one background thread."""
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    def serve() -> None:
        try:
            daemon, chain = build()

            def on_action(action: str) -> None:  # called on the tray's thread
                loop.call_soon_threadsafe(daemon.tray_action, action)

            app.set_action_handler(on_action)
            daemon.tray_backend = app.backend
            daemon.add_publisher(app.show)
            daemon.copy_to_clipboard = app.copy
            if chain is not None:
                daemon.native_notifications = lambda: chain.active not in (None, "console")
            loop.run_until_complete(_serve(daemon, chain, stop, own_signals=False))
        finally:
            loop.close()
            app.stop()  # the daemon is done (Quit, SIGINT, SIGTERM): end the tray's loop too

    def request_stop() -> None:
        loop.call_soon_threadsafe(stop.set)

    thread = threading.Thread(target=serve, name="acp-tray-daemon")
    try:
        app.run(setup=thread.start, on_signal=request_stop)
    except Exception as exc:  # the tray backend failed to start: carry on without a tray
        if thread.ident is not None:
            raise
        print(f"tray: failed to start ({type(exc).__name__}: {exc}); running without one", flush=True)
        daemon, chain = build()
        try:
            loop.run_until_complete(_serve(daemon, chain, stop, own_signals=True))
        finally:
            loop.close()
        return
    thread.join()


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
