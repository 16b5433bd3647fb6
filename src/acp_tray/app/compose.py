"""The composition root: builds the daemon's parts and its surfaces (console, notifications, the
tray) and wires them; serves the control endpoint beside it until the daemon is stopped.

The tray, where there is one, owns the main thread (macOS requires it) and the daemon's asyncio
loop runs on one background thread; headless, asyncio owns the main thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tray import __version__
from acp_tray.app.hangup import HANGUP, go_on_without_terminal
from acp_tray.app.welcome import first_lines, open_welcome
from acp_tray.control.endpoint import EndpointError
from acp_tray.files import paths
from acp_tray.notifiers.console import ConsoleNotifier
from acp_tray.prefs.load import Loaded, PreferencesError, load_preferences
from acp_tray.state.crash_record import CrashRecord
from acp_tray.state.history import HistoryWriter
from acp_tray.tray.app import TrayApp, load_pystray

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from acp_tray.app.actions import Desk
    from acp_tray.app.daemon import Core, Daemon
    from acp_tray.app.fleet import Hosting
    from acp_tray.app.ops import Ops
    from acp_tray.app.publisher import Publisher
    from acp_tray.app.pump import StatusSink
    from acp_tray.app.surfaces import Surface, Surfaces, Withdraw
    from acp_tray.notifiers.chain import NotifierChain
    from acp_tray.prefs.model import Preferences
    from acp_tray.presentation.clock import Clock
    from acp_tray.push.targets import PushTargets


def stop_on_signals(stop: asyncio.Event) -> None:
    """SIGINT and SIGTERM set `stop` (called on the running loop, in the main thread); SIGHUP (the
    terminal closed) does not: acp-tray goes on without it. Unix: the loop's own signal handlers.
    Windows has no `add_signal_handler`: a plain handler hands the stop to the loop, which the C
    handler wakes through its wakeup fd (Ctrl+C, Ctrl+Break)."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except NotImplementedError:  # Windows (Proactor loop)
            signal.signal(sig, lambda _signum, _frame: loop.call_soon_threadsafe(stop.set))
    if HANGUP is not None:
        loop.add_signal_handler(HANGUP, go_on_without_terminal)


async def serve(
    daemon: Daemon,
    chain: NotifierChain | None,
    stop: asyncio.Event,
    *,
    own_signals: bool,
    choices: asyncio.Queue[str] | None = None,
    welcome: bool = False,
) -> None:
    """Serve the control endpoint beside `daemon` until `stop`; `welcome`: open the window's
    welcome page once the endpoint answers (the first start on a desktop)."""
    from acp_tray.app.ops import dispatch_table
    from acp_tray.control.server import ControlServer

    if own_signals:  # headless: asyncio owns the main thread and the signals
        stop_on_signals(stop)
    control = ControlServer(dispatch_table(control_ops(daemon)))
    try:
        where = await control.start()
    except EndpointError as exc:  # lost a race with another instance, or the directory changed
        print(f"acp-tray: not starting: {exc}", file=sys.stderr, flush=True)
        return
    log.info("control socket: %s", where)
    print("control: ready: `acp-tray status` and the other commands reach it", flush=True)
    if chain is not None:
        print(f"notifications: {await chain.start()}", flush=True)
    if welcome:
        daemon.core.life.in_background(open_welcome())
    try:
        await daemon.run(stop, choices)
    finally:
        await control.aclose()
        if chain is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(chain.drain(), 3.0)
            await chain.aclose()


def run_daemon(
    path: Path,
    *,
    explicit: bool,
    headless: bool,
    log_file: Path | None,
    run_mark: str,
    welcome: bool = False,
    behind_icon: Callable[[], None] = lambda: None,
) -> int:
    """Load the preferences at `path` (`explicit`: named by `--config`), build the daemon with a
    tray where one can run (not when `headless`), and serve until stopped. `run_mark`: carried by
    each agent this daemon starts (agents/leftovers.py). `welcome`: open the window's welcome page
    (the first start on a desktop; not when headless). `behind_icon`: work the icon need not wait
    for (the first start's launcher entry), done before the daemon is built, behind the icon."""
    try:
        loaded = load_preferences(path, explicit=explicit)
    except PreferencesError as exc:
        print(f"acp-tray: invalid preferences, not starting:\n{exc}", file=sys.stderr)
        return 2
    if loaded.source is None:
        source = f"built-in defaults ({path} cannot be written)"
    else:
        source = f"{loaded.source}" + (" (created with the defaults; edit it any time)" if loaded.created else "")
    names = ", ".join(loaded.prefs.agents) or "none"
    headless = headless or loaded.prefs.notifier == "console"
    mode = " headless" if headless else ""
    print(
        f"acp-tray {__version__} running{mode} · preferences: {source} · agents: {names}\n"
        f"history: {paths.history_file()} · log: {log_file or 'none'}",
        flush=True,
    )
    if not loaded.prefs.agents:
        print("No agents configured: add an [agents.NAME] table with command = [...] to the preferences.")
    console = ConsoleNotifier()
    if headless:
        behind_icon()
        _say("tray: none (headless): notices are printed here", tray=False)
        daemon, _ = build(loaded, console, run_mark, native=False)
        asyncio.run(serve(daemon, None, asyncio.Event(), own_signals=True))
        return 0
    pystray, backend = load_pystray()
    if pystray is None:
        behind_icon()
        _say(f"tray: none ({backend}); running without one", tray=False)
        daemon, chain = build(loaded, console, run_mark, native=True)
        asyncio.run(serve(daemon, chain, asyncio.Event(), own_signals=True, welcome=welcome))
        return 0
    print(f"tray: pystray, {backend}", flush=True)
    # the icon first; the daemon (and the ACP SDK, ~0.8 s to import) comes up behind it, on a loop
    # that takes the menu's choices from the tray's thread
    loop = asyncio.new_event_loop()
    choices: asyncio.Queue[str] = asyncio.Queue()

    def on_choice(choice: str) -> None:  # on the tray's thread
        loop.call_soon_threadsafe(choices.put_nowait, choice)

    def building(tray: TrayApp | None) -> tuple[Daemon, NotifierChain | None]:  # on the daemon's thread
        behind_icon()
        _say("", tray=True)  # after the launcher entry is written: its line says it is there
        return build(loaded, console, run_mark, native=True, tray=tray)

    app = TrayApp(pystray, on_choice)
    run_with_tray(app, loop, choices, building, welcome=welcome)
    return 0


def _say(tray_line: str, *, tray: bool) -> None:
    """The tray's line (when not said already), then one line each for the window, the app menu, Start
    on login and stopping."""
    terminal = sys.stdout.isatty()
    print("\n".join([line for line in (tray_line, *first_lines(tray=tray, terminal=terminal)) if line]), flush=True)


def core(
    prefs: Preferences,
    *,
    prefs_path: Path | None = None,
    clock: Clock | None = None,
    hosting: Hosting | None = None,
    publishers: Sequence[Publisher] = (),
    push: PushTargets | None = None,
    usage_path: Path | None = None,
) -> Core:
    """The parts that need nothing from the surfaces, connected: the agent fleet, the tray
    publisher, the preferences reloader, what a notification's buttons do, push (to `push`'s
    targets; none without it) and the usage keeper (today's totals in `usage_path`; none: memory only)."""
    from acp_tray.agents.approvals import Approvals
    from acp_tray.agents.questions import Questions
    from acp_tray.app.actions import NotificationActions
    from acp_tray.app.daemon import Core
    from acp_tray.app.fleet import Fleet, Hosting
    from acp_tray.app.lifetime import Lifetime
    from acp_tray.app.publisher import TrayPublisher
    from acp_tray.app.reloader import PrefsReloader
    from acp_tray.app.usage import UsageKeeper
    from acp_tray.events import Event
    from acp_tray.presentation.clock import SystemClock
    from acp_tray.presentation.recent import Recent
    from acp_tray.presentation.router import Router
    from acp_tray.push.pusher import Pusher

    queue: asyncio.Queue[Event] = asyncio.Queue()
    life = Lifetime()
    clock = clock or SystemClock()
    router = Router(prefs, clock)
    recent = Recent()
    approvals, questions = Approvals(queue.put_nowait), Questions(queue.put_nowait)
    fleet = Fleet(lambda: router.prefs, queue.put_nowait, approvals, questions, hosting or Hosting(), life)
    usage = UsageKeeper(usage_path, clock, lambda: router.prefs)
    publisher = TrayPublisher(router, recent, approvals, questions, fleet, publishers, usage.book)
    reloader = PrefsReloader(prefs_path, router, fleet, publisher, queue.put_nowait)
    notifications = NotificationActions(
        approvals, fleet, recent, publisher, life, questions=questions, report=queue.put_nowait
    )
    pusher = Pusher(
        push, lambda: router.prefs, clock, queue.put_nowait, life.in_background, answer=notifications.from_phone
    )
    parts = (queue, life, router, recent, approvals, questions, fleet, publisher, reloader, notifications, pusher)
    return Core(*parts, usage)


def finish(
    core: Core,
    *,
    history: HistoryWriter,
    surfaces: Surfaces,
    status: StatusSink,
    desk: Desk | None = None,
    crashes: CrashRecord | None = None,
) -> Daemon:
    """The daemon: `core` with the event pump and the tray's actions, which present on `surfaces`
    (`crashes`: the crash loops told at earlier starts; None: this run's only)."""
    from acp_tray.app.actions import Desk, TrayActions
    from acp_tray.app.daemon import Daemon
    from acp_tray.app.pump import EventPump

    c = core
    pump = EventPump(
        c.queue, c.router, history, surfaces, c.recent, c.fleet, c.publisher, status, c.pusher, c.usage, crashes
    )
    tray = TrayActions(
        c.notifications, c.fleet, c.reloader, c.router, c.recent, surfaces, c.publisher, c.life, desk or Desk()
    )
    return Daemon(core, history, pump, tray)


def control_ops(daemon: Daemon) -> Ops:
    """The control API's ops, each given the parts of `daemon` it uses."""
    from acp_tray.app.ops import Ops
    from acp_tray.app.ops.agents import AgentOps
    from acp_tray.app.ops.approvals import ApprovalOps
    from acp_tray.app.ops.diagnostics import DiagnosticsOps
    from acp_tray.app.ops.history import HistoryOps
    from acp_tray.app.ops.hosts import Hosts
    from acp_tray.app.ops.prefs import PrefsOps
    from acp_tray.app.ops.prompts import PromptOps
    from acp_tray.app.ops.push import PushOps
    from acp_tray.app.ops.questions import QuestionOps
    from acp_tray.app.ops.signin import SignInOps
    from acp_tray.app.ops.status import StatusOps
    from acp_tray.app.ops.waiting import WaitingPrompts
    from acp_tray.app.ops.watch import WatchOps

    c = daemon.core

    def prefs() -> Preferences:  # the preferences in force, read at each call
        return c.router.prefs

    hosts, waiting = Hosts(c.fleet, prefs), WaitingPrompts(c.queue.put_nowait)  # waiting: sent with --no-wait
    status = StatusOps(
        router=c.router, fleet=c.fleet, publisher=c.publisher, approvals=c.approvals, questions=c.questions,
        usage=c.usage, waiting=waiting, life=c.life, prefs_path=c.reloader.path,
    )  # fmt: skip
    return Ops(
        status=status,
        agents=AgentOps(c.fleet, c.reloader, hosts, waiting),
        signin=SignInOps(hosts),
        prompts=PromptOps(c.fleet, hosts, waiting, c.life, c.queue.put_nowait),
        approvals=ApprovalOps(c.approvals),
        questions=QuestionOps(c.questions, c.notifications),
        prefs=PrefsOps(c.reloader, c.router, c.publisher),
        history=HistoryOps(daemon.history.path, c.publisher, daemon.tray),
        push=PushOps(c.pusher, prefs, c.publisher),
        diagnostics=DiagnosticsOps(c.reloader.path, daemon.tray.tray_backend, status),
        watch=WatchOps(status, c.publisher, c.reloader, c.pusher, prefs),
    )


def assemble(
    prefs: Preferences,
    *,
    history: HistoryWriter,
    surfaces: Sequence[Surface],
    status: StatusSink,
    withdrawers: Sequence[Withdraw] = (),
    publishers: Sequence[Publisher] = (),
    prefs_path: Path | None = None,
    clock: Clock | None = None,
    hosting: Hosting | None = None,
    desk: Desk | None = None,
    push: PushTargets | None = None,
    usage_path: Path | None = None,
    crashes: CrashRecord | None = None,
) -> Daemon:
    """A whole daemon whose surfaces need nothing from it (the console, a test's list)."""
    from acp_tray.app.surfaces import Surfaces

    parts = core(
        prefs, prefs_path=prefs_path, clock=clock, hosting=hosting, publishers=publishers, push=push,
        usage_path=usage_path,
    )  # fmt: skip
    shown = Surfaces(surfaces, withdrawers)
    return finish(parts, history=history, surfaces=shown, status=status, desk=desk, crashes=crashes)


def build(
    loaded: Loaded, console: ConsoleNotifier, run_mark: str, *, native: bool, tray: TrayApp | None = None
) -> tuple[Daemon, NotifierChain | None]:
    """The daemon and its surfaces (imported here: the SDK is slow to import). `tray`: the running
    tray, which takes the snapshots; where it runs GTK's loop, notifications go through GLib's D-Bus
    (no dbus-fast loaded)."""
    from acp_tray.agents.sdk_log import quiet_agent_gone
    from acp_tray.agents.sessions import SessionStore
    from acp_tray.agents.versions import VersionMemory
    from acp_tray.app.actions import Desk
    from acp_tray.app.fleet import Hosting
    from acp_tray.app.surfaces import Surfaces
    from acp_tray.notifiers.chain import NotifierChain
    from acp_tray.notifiers.select import backends_for
    from acp_tray.push.targets import PushTargets
    from acp_tray.state.secrets import SecretNames

    quiet_agent_gone()
    history = HistoryWriter(paths.history_file())
    hosting = Hosting(
        sessions=SessionStore(paths.sessions_file()),
        versions=VersionMemory(paths.versions_file()),
        secrets=SecretNames(paths.secret_names_file()),
        run_mark=run_mark,
    )
    push = PushTargets(paths.push_targets_file())
    crashes = CrashRecord(paths.crash_record_file())
    if not native:
        daemon = assemble(
            loaded.prefs, history=history, surfaces=[console.present], status=console.status,
            prefs_path=loaded.source, hosting=hosting, push=push, usage_path=paths.usage_file(), crashes=crashes,
        )  # fmt: skip
        return daemon, None
    publishers = [tray.show] if tray else []
    parts = core(
        loaded.prefs, prefs_path=loaded.source, hosting=hosting, publishers=publishers, push=push,
        usage_path=paths.usage_file(),
    )  # fmt: skip
    glib = tray is not None and tray.gtk
    chain = NotifierChain(backends_for(loaded.prefs.notifier, console, parts.notifications.on_notification, glib=glib))
    desk = Desk(
        tray_backend=tray.backend if tray is not None else None,
        native_notifications=lambda: chain.active not in (None, "console"),
        copy_to_clipboard=tray.copy if tray is not None else None,
    )
    surfaces = Surfaces([chain.present], [chain.withdraw])
    return finish(parts, history=history, surfaces=surfaces, status=console.status, desk=desk, crashes=crashes), chain


def run_with_tray(
    app: TrayApp,
    loop: asyncio.AbstractEventLoop,
    choices: asyncio.Queue[str],
    build: Callable[[TrayApp | None], tuple[Daemon, NotifierChain | None]],
    *,
    welcome: bool = False,
) -> None:
    """pystray on the main thread; the daemon on `loop`, on one background thread, taking the
    menu's `choices` (built for the tray; without it where the tray fails to start)."""
    stop = asyncio.Event()

    def on_daemon_thread() -> None:
        try:
            daemon, chain = build(app)
            loop.run_until_complete(serve(daemon, chain, stop, own_signals=False, choices=choices, welcome=welcome))
        finally:
            loop.close()
            app.stop()  # the daemon is done (Quit, SIGINT, SIGTERM): end the tray's loop too

    def request_stop() -> None:
        loop.call_soon_threadsafe(stop.set)

    thread = threading.Thread(target=on_daemon_thread, name="acp-tray-daemon")
    try:
        app.run(setup=thread.start, on_signal=request_stop, on_hangup=go_on_without_terminal)
    except Exception as exc:  # the tray backend failed to start: carry on without a tray
        if thread.ident is not None:
            raise
        print(f"tray: failed to start ({type(exc).__name__}: {exc}); running without one", flush=True)
        daemon, chain = build(None)
        try:
            loop.run_until_complete(serve(daemon, chain, stop, own_signals=True, welcome=welcome))
        finally:
            loop.close()
        return
    thread.join()
