"""`acp-tray doctor` and the tray's "Diagnostics…": what works here and what to do about the rest.

Each check is one line (doctor/check.py). The checks look at the real session: the D-Bus session
bus, the notification server and what it can do, the tray hosts (a StatusNotifierWatcher on the bus,
an XEmbed manager on the X display) and the tray backend that would be used, PyGObject with GTK and
AppIndicator, the preferences file, each agent's program, push (its targets, Apprise: push.py), the
control socket, start on login, and the away source (for push).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tray.desktop.session_bus import session_bus_available
from acp_tray.doctor.check import Check
from acp_tray.logs.redact import shown_url

if TYPE_CHECKING:
    from acp_tray.away.source import AwaySource
    from acp_tray.prefs.model import Preferences

REPLY_TIMEOUT = 3.0
RUNTIME_PACKAGES = "gir1.2-gtk-3.0 gir1.2-ayatanaappindicator3-0.1"
BUILD_PACKAGES = "libgirepository1.0-dev libcairo2-dev pkg-config"
NOTIFICATIONS = "org.freedesktop.Notifications"
SNI_WATCHER = "org.kde.StatusNotifierWatcher"


# the session bus, the notification server, the tray hosts ------------------------------------


async def _bus_checks() -> list[Check]:
    if sys.platform in ("win32", "darwin"):
        return [Check("session bus", "note", f"not used on {sys.platform}")]
    if not session_bus_available():
        return [
            Check(
                "session bus",
                "problem",
                "none (no DBUS_SESSION_BUS_ADDRESS)",
                "run acp-tray inside your desktop session; without a bus there are no notifications and no tray menu",
            ),
            Check("notification server", "problem", "cannot look without a session bus"),
            Check("StatusNotifierItem tray host", "problem", "cannot look without a session bus"),
        ]
    from dbus_fast import Message, MessageType
    from dbus_fast.aio import MessageBus

    try:
        bus = await asyncio.wait_for(MessageBus().connect(), REPLY_TIMEOUT)
    except Exception as exc:
        reason = str(exc) or type(exc).__name__
        return [Check("session bus", "problem", f"cannot connect ({reason})", "check DBUS_SESSION_BUS_ADDRESS")]
    address = os.environ.get("DBUS_SESSION_BUS_ADDRESS", "the systemd user bus")

    async def call(
        destination: str, path: str, interface: str, member: str, signature: str = "", body: Any = ()
    ) -> Any:
        message = Message(
            destination=destination, path=path, interface=interface, member=member, signature=signature, body=list(body)
        )
        reply = await asyncio.wait_for(bus.call(message), REPLY_TIMEOUT)
        if reply is None or reply.message_type == MessageType.ERROR:
            raise RuntimeError(reply.body[0] if reply is not None and reply.body else "no reply")
        return reply.body

    def has_owner(name: str) -> Any:
        return call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", "s", [name]
        )

    checks = [Check("session bus", "ok", address.split(",")[0])]
    try:
        checks.append(await _notification_server(call, has_owner))
        watcher = (await has_owner(SNI_WATCHER))[0]
        checks.append(
            Check("StatusNotifierItem tray host", "ok", f"{SNI_WATCHER} is on the bus")
            if watcher
            else Check("StatusNotifierItem tray host", "note", "no StatusNotifierWatcher on the bus")
        )
    except Exception as exc:
        checks.append(Check("session bus", "problem", f"stopped answering ({exc})"))
    finally:
        with contextlib.suppress(Exception):
            bus.disconnect()
    return checks


async def _notification_server(call: Any, has_owner: Any) -> Check:
    if not (await has_owner(NOTIFICATIONS))[0]:
        return Check(
            "notification server",
            "problem",
            "none on the session bus: notices go to the tray and the console only",
            "start one (your desktop's, or e.g. `dunst &`; Debian: sudo apt-get install dunst)",
        )
    path, interface = "/org/freedesktop/Notifications", NOTIFICATIONS
    name, vendor, version = (
        str(part) for part in (await call(NOTIFICATIONS, path, interface, "GetServerInformation"))[:3]
    )
    capabilities = set((await call(NOTIFICATIONS, path, interface, "GetCapabilities"))[0])
    has = ", ".join(
        f"{what} {'yes' if key in capabilities else 'no'}"
        for what, key in (("actions", "actions"), ("markup", "body-markup"), ("persistence", "persistence"))
    )
    if "actions" not in capabilities:
        return Check(
            "notification server",
            "note",
            f"{name} {version} ({vendor}); {has}",
            "approval buttons need actions: answer from the tray or with `acp-tray approve`",
        )
    return Check("notification server", "ok", f"{name} {version} ({vendor}); {has}")


def _xembed_check() -> Check:
    display = os.environ.get("DISPLAY")
    if not display:
        return Check("XEmbed tray host", "note", "no X display (DISPLAY is not set)")
    try:
        from Xlib import X  # type: ignore[import-untyped]
        from Xlib import display as x11
    except ImportError:
        return Check("XEmbed tray host", "note", "cannot look (python-xlib is not installed)")
    try:
        connection = x11.Display(display)
    except Exception as exc:
        return Check("XEmbed tray host", "problem", f"cannot open the display {display} ({exc})")
    try:
        atom = connection.intern_atom(f"_NET_SYSTEM_TRAY_S{connection.get_default_screen()}")
        owner = connection.get_selection_owner(atom)
    finally:
        connection.close()
    if owner == X.NONE:
        return Check("XEmbed tray host", "note", f"no system tray on {display}")
    return Check("XEmbed tray host", "ok", f"a system tray manages {display}")


def _tray_host_summary(checks: list[Check]) -> Check | None:
    """No host of either kind: the icon has nowhere to go."""
    hosts = [c for c in checks if c.name in ("StatusNotifierItem tray host", "XEmbed tray host")]
    if len(hosts) == 2 and not any(c.status == "ok" for c in hosts):
        return Check(
            "tray host",
            "problem",
            "none: the icon has nowhere to show",
            "use a panel with a system tray or the AppIndicator/KStatusNotifierItem extension (GNOME)",
        )
    return None


# PyGObject, GTK, AppIndicator and the tray backend --------------------------------------------


def _gtk_checks() -> list[Check]:
    if sys.platform in ("win32", "darwin"):
        return []
    if importlib.util.find_spec("gi") is None:
        return [
            Check(
                "PyGObject",
                "problem",
                "not installed: the tray has no menu",
                f"sudo apt-get install {BUILD_PACKAGES} {RUNTIME_PACKAGES}, then `make run` (or pip install PyGObject)",
            )
        ]
    import gi

    checks = [Check("PyGObject", "ok", f"{gi.__version__}")]
    for namespace, version, package in (("Gtk", "3.0", "gir1.2-gtk-3.0"), ("AyatanaAppIndicator3", "0.1", None)):
        try:
            gi.require_version(namespace, version)
        except ValueError:
            package = package or "gir1.2-ayatanaappindicator3-0.1"
            checks.append(
                Check(
                    f"{namespace} {version}", "problem", "introspection data missing", f"sudo apt-get install {package}"
                )
            )
        else:
            checks.append(Check(f"{namespace} {version}", "ok", "introspection data installed"))
    return checks


def _backend_check(backend: str | None) -> Check:
    if backend is None:
        from acp_tray.tray.app import load_pystray

        pystray, backend = load_pystray()
        if pystray is None:
            return Check("tray backend", "problem", f"none ({backend})", "see the lines above")
    if backend == "none":
        return Check("tray backend", "note", "no tray icon in this daemon (headless, or none could start)")
    if backend.startswith("xorg"):
        return Check("tray backend", "note", f"pystray {backend}")
    return Check("tray backend", "ok", f"pystray {backend}")


# preferences, agents, control socket, autostart ------------------------------------------------


def _prefs_checks(path: Path) -> tuple[list[Check], Preferences | None]:
    """The file's checks and each agent's; the preferences read (None: no file, or a broken one)."""
    from acp_tray.prefs.load import PreferencesError, read_preferences

    checks = []
    if path.is_symlink():
        checks.append(Check("preferences file", "note", f"{path} is a symlink to {path.resolve()}"))
    if not path.exists():
        return [*checks, Check("preferences file", "note", f"{path} does not exist yet (written on first run)")], None
    try:
        prefs = read_preferences(path)
    except PreferencesError as exc:
        first = str(exc).splitlines()[0]
        fix = "fix it (`acp-tray prefs edit`); the daemon keeps its last good settings"
        return [*checks, Check("preferences file", "problem", first, fix)], None
    checks.append(Check("preferences file", "ok", f"{path} is valid"))
    for name, agent in prefs.agents.items():
        if agent.url is not None:
            checks.append(Check(f"agent {name}", "note", f"remote, {shown_url(agent.url)} (not contacted here)"))
            continue
        command, cwd, _ = agent.launch()
        program = shutil.which(command[0])
        if program is None:
            checks.append(
                Check(
                    f"agent {name}",
                    "problem",
                    f"program {command[0]!r} not found on PATH",
                    f"install it, or give its full path in [agents.{name}] command",
                )
            )
        elif not cwd.is_dir():
            checks.append(
                Check(f"agent {name}", "problem", f"its cwd {cwd} is not a directory", f"fix [agents.{name}] cwd")
            )
        else:
            checks.append(Check(f"agent {name}", "ok", f"{program}"))
    return checks, prefs


def _control_check() -> Check:
    from acp_tray.control.endpoint import LOCK_NAME, EndpointError, check_private_dir, runtime_dir, socket_path
    from acp_tray.control.instance import lock_held

    directory = runtime_dir()
    if sys.platform == "win32":
        return Check("control endpoint", "note", "a named pipe (Windows)")
    if not directory.exists():
        return Check("control socket", "note", f"acp-tray is not running ({directory} does not exist yet)")
    try:
        check_private_dir(directory)
    except EndpointError as exc:
        return Check("control socket", "problem", str(exc), "remove or fix that directory; it must be yours, mode 0700")
    path = socket_path()
    running = lock_held(directory / LOCK_NAME)
    if not path.exists():
        return Check("control socket", "note", "acp-tray is not running" + (" (starting?)" if running else ""))
    owner = path.stat().st_uid
    if owner != os.getuid():
        return Check("control socket", "problem", f"{path} belongs to uid {owner}, not you", f"remove {path}")
    if not running:
        return Check("control socket", "note", f"{path} is left from a daemon that stopped (a new one replaces it)")
    return Check("control socket", "ok", f"{path}, yours; acp-tray is running")


def _autostart_check() -> Check:
    from acp_tray.autostart.select import autostart_for

    try:
        lines = autostart_for().status()
    except Exception as exc:
        return Check("start on login", "note", f"cannot tell ({exc})")
    installed = [line for line in lines if "not installed" not in line and "not enabled" not in line]
    if not installed:
        return Check("start on login", "note", "not enabled (`acp-tray autostart enable`)")
    elsewhere = any("another installation" in line for line in installed)
    return Check(
        "start on login",
        "note" if elsewhere else "ok",
        "; ".join(installed),
        "`acp-tray autostart enable` points it here" if elsewhere else "",
    )


def _away_check(source: AwaySource) -> Check:
    if source.name == "none":
        return Check("away", "note", 'no away source: push `when = "away"` never pushes')
    idle = source.idle_seconds()
    known = "idle unknown now" if idle is None else f"idle {idle:.0f} s"
    locked = ", locked" if source.locked() else ""
    return Check("away", "note", f"{source.name} ({known}{locked})")


async def diagnose(prefs_path: Path, *, tray_backend: str | None = None) -> list[Check]:
    """Every check, in the order a person fixes things. `tray_backend`: the running tray's (the
    daemon passes it; `doctor` works out which one would be chosen)."""
    checks = await _bus_checks()
    if sys.platform not in ("win32", "darwin"):
        checks.append(await asyncio.to_thread(_xembed_check))
        summary = _tray_host_summary(checks)
        if summary is not None:
            checks.append(summary)
    checks += _gtk_checks()
    checks.append(_backend_check(tray_backend))
    prefs_checks, prefs = _prefs_checks(prefs_path)
    checks += prefs_checks
    from acp_tray.away.select import away_source
    from acp_tray.doctor.push import push_checks
    from acp_tray.prefs.model import PushPrefs

    away = await asyncio.to_thread(away_source)  # asked once, for push and for its own line
    push = prefs.push if prefs is not None else PushPrefs()  # a broken file: said above
    checks += await asyncio.to_thread(push_checks, push, away)
    checks.append(_control_check())
    checks.append(_autostart_check())
    checks.append(await asyncio.to_thread(_away_check, away))
    return checks
