"""The composition root: builds the daemon's parts and its surfaces (console, notifications, the
tray) and wires them; serves the control endpoint beside it until the daemon is stopped.

The tray, where there is one, owns the main thread (macOS requires it) and the daemon's asyncio
loop runs on one background thread; headless, asyncio owns the main thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tray import __version__
from acp_tray.control.endpoint import EndpointError
from acp_tray.files import paths
from acp_tray.notifiers.console import ConsoleNotifier
from acp_tray.prefs.load import Loaded, PreferencesError, load_preferences
from acp_tray.state.history import HistoryWriter
from acp_tray.tray.app import TrayApp, load_pystray

if TYPE_CHECKING:
    from acp_tray.app.daemon import Daemon
    from acp_tray.notifiers.chain import NotifierChain


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


async def serve(daemon: Daemon, chain: NotifierChain | None, stop: asyncio.Event, *, own_signals: bool) -> None:
    from acp_tray.app.ops import dispatch_table
    from acp_tray.control.server import ControlServer

    if own_signals:  # headless: asyncio owns the main thread and the signals
        stop_on_signals(stop)
    control = ControlServer(dispatch_table(daemon))
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


def run_daemon(path: Path, *, explicit: bool, headless: bool, log_file: Path | None, run_mark: str) -> int:
    """Load the preferences at `path` (`explicit`: named by `--config`), build the daemon with a
    tray where one can run (not when `headless`), and serve until stopped. `run_mark`: carried by
    each agent this daemon starts (agents/leftovers.py)."""
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
        f"history: {paths.history_file()} · log: {log_file or 'none'} · Ctrl+C to stop",
        flush=True,
    )
    if not loaded.prefs.agents:
        print("No agents configured: add an [agents.NAME] table with command = [...] to the preferences.")
    console = ConsoleNotifier()
    if headless:
        daemon, _ = build(loaded, console, run_mark, native=False)
        asyncio.run(serve(daemon, None, asyncio.Event(), own_signals=True))
        return 0
    pystray, backend = load_pystray()
    if pystray is None:
        print(f"tray: none ({backend}); running without one", flush=True)
        daemon, chain = build(loaded, console, run_mark, native=True)
        asyncio.run(serve(daemon, chain, asyncio.Event(), own_signals=True))
        return 0
    print(f"tray: pystray, {backend}", flush=True)
    # the icon first; the daemon (and the ACP SDK, ~0.8 s to import) comes up behind it
    app = TrayApp(pystray, lambda action: None)
    run_with_tray(app, lambda: build(loaded, console, run_mark, native=True, glib=app.gtk))
    return 0


def build(
    loaded: Loaded, console: ConsoleNotifier, run_mark: str, *, native: bool, glib: bool = False
) -> tuple[Daemon, NotifierChain | None]:
    """The daemon and its surfaces (imported here: the SDK is slow to import). `glib`: the tray runs
    GTK's loop, through which notifications can go (GLib's D-Bus) without loading dbus-fast."""
    from acp_tray.agents.sdk_log import quiet_agent_gone
    from acp_tray.agents.sessions import SessionStore
    from acp_tray.agents.versions import VersionMemory
    from acp_tray.app.daemon import Daemon
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


def run_with_tray(app: TrayApp, build: Callable[[], tuple[Daemon, NotifierChain | None]]) -> None:
    """pystray on the main thread; the daemon's loop on one background thread."""
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    def on_daemon_thread() -> None:
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
            loop.run_until_complete(serve(daemon, chain, stop, own_signals=False))
        finally:
            loop.close()
            app.stop()  # the daemon is done (Quit, SIGINT, SIGTERM): end the tray's loop too

    def request_stop() -> None:
        loop.call_soon_threadsafe(stop.set)

    thread = threading.Thread(target=on_daemon_thread, name="acp-tray-daemon")
    try:
        app.run(setup=thread.start, on_signal=request_stop)
    except Exception as exc:  # the tray backend failed to start: carry on without a tray
        if thread.ident is not None:
            raise
        print(f"tray: failed to start ({type(exc).__name__}: {exc}); running without one", flush=True)
        daemon, chain = build()
        try:
            loop.run_until_complete(serve(daemon, chain, stop, own_signals=True))
        finally:
            loop.close()
        return
    thread.join()
