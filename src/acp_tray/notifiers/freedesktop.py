"""Native notifications on Linux/BSD: `org.freedesktop.Notifications` on the session bus.

Talks D-Bus from the asyncio loop through a `BusLink` (`acp_tray.notifiers.bus`): `dbus-fast`,
or GLib's own D-Bus where the tray already runs GTK. What it does:
- `Notify` with app_name "acp-tray", an icon from the package (badged in the severity's colour), the `desktop-entry` and
  `urgency` hints, the timeout from preferences, and `replaces_id` so a coalesced repeat
  updates its notification in place instead of stacking copies;
- the sound preference as the `sound-name` hint (a freedesktop sound name), or `suppress-sound`
  when it is silent; sent whether or not the server lists the "sound" capability (a server
  without sounds ignores hints it does not know);
- escapes `&`, `<`, `>` in the body when the server renders `body-markup`, so agent text
  never becomes markup, links or images (the summary is plain text by the spec);
- at most `max_in_flight` calls outstanding (8), each with a reply timeout: dunst 1.9 stops
  answering with ~150 calls in flight, a bare dbus-daemon refuses a client's 129th pending
  call, and measured here dunst stalled in 3 of 6 runs of 1,500 calls with 12 or 16 in
  flight and in none of 13 runs with 2 to 8; the dispatcher queues the rest;
- with the `actions` capability, sends the "default" action, labelled "Open" (a click: it opens
  the acp-tray window's history at the notice, which every notification has, so every one
  offers it), and then the notification's own actions (e.g. `approval:ID:OPTION_ID`, one per
  option an agent offered), labels already sanitised, and the body without the commands that
  answer it (an approval's `acp-tray approve ID`: its buttons do that); an id goes on the wire as is when it is
  one plain line without brackets (dunst's context menu reads the key back from "[ID,KEY]"), any other as a stand-in
  key; which keys were offered is remembered per group (bounded like the id maps);
- `CloseNotification` when the daemon takes a notification back (an approval settled elsewhere
  or timed out), forgetting it first so the server's `NotificationClosed` is not taken for the
  person's dismissal;
- believes `NotificationClosed` and `ActionInvoked` only from the notification server (the
  sender that answers its calls: anyone on the bus can emit a signal) and only for its own
  notifications; `NotificationClosed` becomes "closed" or "expired", `ActionInvoked` "default"
  becomes "clicked", a key offered for that notification becomes its action id, and any other
  key is ignored. Only the daemon decides what an action id does: clicks and dismissals stay
  local, an approval answers the permission request it names.
"""

from __future__ import annotations

import asyncio
import html
import logging
from collections import OrderedDict
from pathlib import Path
from typing import Any

from acp_tray.assets import severity_icon
from acp_tray.logs.text import plain_line
from acp_tray.notifiers.backend import BackendUnavailableError, LocalAction
from acp_tray.notifiers.bus import BusError, BusLink, LinkFactory, Reply, Signal
from acp_tray.notifiers.content import Notification

log = logging.getLogger(__name__)

BUS_NAME = "org.freedesktop.Notifications"
OBJECT_PATH = "/org/freedesktop/Notifications"
INTERFACE = "org.freedesktop.Notifications"
DESKTOP_ENTRY = "acp-tray"
MAX_IN_FLIGHT = 8
REPLY_TIMEOUT = 5.0
MAX_REMEMBERED = 512  # group <-> server id mappings kept for in-place updates and signals
CLOSE_REASONS = {1: "expired", 2: "dismissed", 3: "closed by call", 4: "undefined"}
SIGNATURES = {"NotificationClosed": "uu", "ActionInvoked": "us"}
DEFAULT_ACTION = "default"
ACTION_KEY_LIMIT = 200
STAND_IN_KEY = "acp-tray-action-{}"


def _plain_key(action_id: str) -> bool:
    return (
        0 < len(action_id) <= ACTION_KEY_LIMIT
        and plain_line(action_id, ACTION_KEY_LIMIT) == action_id
        and "[" not in action_id
        and "]" not in action_id
    )


def wire_actions(actions: tuple[tuple[str, str], ...]) -> tuple[list[str], dict[str, str]]:
    """The `actions` array for `Notify` ("default" first) and what each of the notification's
    own keys stands for (key -> action id). Duplicate ids are offered once."""
    wire = [DEFAULT_ACTION, "Open"]
    offered: dict[str, str] = {}
    for action_id, label in actions:
        if action_id in offered.values():
            continue
        key = action_id
        if not _plain_key(key) or key == DEFAULT_ACTION or key in offered:
            key = next(k for n in range(len(offered) + 2) if (k := STAND_IN_KEY.format(n)) not in offered)
        offered[key] = action_id
        wire += [key, label]
    return wire, offered


class FreedesktopBackend:
    name = "freedesktop"

    def __init__(
        self,
        on_action: LocalAction,
        *,
        bus_address: str | None = None,
        icon: Path | None = None,
        max_in_flight: int = MAX_IN_FLIGHT,
        reply_timeout: float = REPLY_TIMEOUT,
        link: LinkFactory | None = None,
    ) -> None:
        self._on_action = on_action
        self._bus_address = bus_address  # None: the session bus of the environment
        self._link = link or dbus_fast_link
        # 48 px: what servers draw anyway, and the server decodes the file on every call
        # (measured on dunst: a 128 px icon halves its notifications per second)
        self._icon = str(icon) if icon is not None else None  # None: by severity
        self._slots = asyncio.Semaphore(max_in_flight)
        self._reply_timeout = reply_timeout
        self._bus: BusLink | None = None
        self._server_id: OrderedDict[int, int] = OrderedDict()  # group -> server notification id
        self._group_of: OrderedDict[int, int] = OrderedDict()  # server id -> group
        self._offered: OrderedDict[int, dict[str, str]] = OrderedDict()  # group -> {key: action id}
        self._server: str | None = None  # unique bus name of the server that answered last
        self.capabilities: frozenset[str] = frozenset()
        self.markup = False

    async def start(self) -> str:
        await self.aclose()
        try:
            self._bus = self._link(self._bus_address)
            await asyncio.wait_for(self._bus.connect(), self._reply_timeout)
            capabilities = await self._call("GetCapabilities")
            info = await self._call("GetServerInformation")
            await asyncio.wait_for(self._bus.subscribe(INTERFACE, OBJECT_PATH, self._on_signal), self._reply_timeout)
        except (TimeoutError, BackendUnavailableError, BusError, OSError, ValueError, EOFError) as exc:
            await self.aclose()
            reason = str(exc) or type(exc).__name__
            if "DBUS_SESSION_BUS_ADDRESS" in reason:
                reason = "no session bus"
            raise BackendUnavailableError(f"no notification server ({reason})") from exc
        self.capabilities = frozenset(capabilities[0])
        self.markup = "body-markup" in self.capabilities
        name, vendor, version = (str(part) for part in info[:3])
        return f"{name} {version} ({vendor}) on the session bus"

    def _on_signal(self, message: Signal) -> None:
        if (
            message.interface != INTERFACE
            or message.path != OBJECT_PATH
            or message.member not in SIGNATURES
            or message.signature != SIGNATURES[message.member]
        ):
            return
        if self._server is None or message.sender != self._server:
            log.debug("ignored %s from %s: not the notification server", message.member, message.sender)
            return
        server_id, detail = message.body
        group = self._group_of.get(server_id)
        if group is None:
            return  # not ours, or long forgotten
        if message.member == "NotificationClosed":
            reason = CLOSE_REASONS.get(detail, "undefined")
            self._on_action(group, "expired" if reason == "expired" else "closed")
        elif detail == DEFAULT_ACTION:
            self._on_action(group, "clicked")
        elif (action := self._offered.get(group, {}).get(detail)) is not None:
            self._on_action(group, action)
        else:
            log.debug("ignored action %r on notification %d: not offered there", detail, server_id)

    async def _call(self, member: str, signature: str = "", body: list[Any] | None = None) -> list[Any]:
        reply = await self._request(BUS_NAME, OBJECT_PATH, INTERFACE, member, signature, body or [])
        self._server = reply.sender  # the name's owner now: only its signals are believed
        return reply.body

    def _connected(self) -> BusLink:
        if self._bus is None or not self._bus.connected:
            raise BackendUnavailableError("not connected to the session bus")
        return self._bus

    async def _request(
        self, destination: str, path: str, interface: str, member: str, signature: str, body: list[Any]
    ) -> Reply:
        bus = self._connected()
        try:
            async with self._slots, asyncio.timeout(self._reply_timeout):  # no task of its own, as wait_for makes
                return await bus.call(destination, path, interface, member, signature, body)
        except TimeoutError:
            raise BackendUnavailableError(f"{member}: no reply within {self._reply_timeout:g} s") from None
        except BusError as exc:
            raise BackendUnavailableError(f"{member}: {exc}") from None
        except Exception as exc:  # connection reset, bus gone
            raise BackendUnavailableError(f"{member}: {type(exc).__name__}: {exc}") from exc

    def _body(self, text: str) -> str:
        """The body may be rendered as markup (`body-markup`): escape it. The summary is plain
        text by the spec, and servers escape it themselves (escaping it too would show `&lt;`)."""
        return html.escape(text, quote=False) if self.markup else text

    async def notify(self, notification: Notification) -> None:
        replaces = self._server_id.get(notification.group, 0)
        bus = self._connected()
        sound = notification.presentation.sound
        hints = {
            "urgency": bus.variant("y", int(notification.urgency)),
            "desktop-entry": bus.variant("s", DESKTOP_ENTRY),
            **({"sound-name": bus.variant("s", sound)} if sound else {"suppress-sound": bus.variant("b", True)}),
        }
        actions: list[str] = []
        offered: dict[str, str] = {}
        text = notification.body
        if "actions" in self.capabilities:
            actions, offered = wire_actions(notification.actions)
            if notification.body_with_buttons is not None:  # its buttons answer it: no commands to copy
                text = notification.body_with_buttons
        body = [
            "acp-tray",
            replaces,
            self._icon or str(severity_icon(notification.severity_class, 48)),
            notification.summary,
            self._body(text),
            actions,
            hints,
            notification.timeout * 1000 if notification.timeout else 0,
        ]
        (server_id,) = await self._call("Notify", "susssasa{sv}i", body)
        self._remember(notification.group, int(server_id), offered)

    async def close(self, group: int) -> None:
        """`CloseNotification` for this group's notification, if it is one of ours on screen. Forgotten
        first: the server's `NotificationClosed` for it is not the person closing it."""
        server_id = self._server_id.pop(group, None)
        self._offered.pop(group, None)
        if server_id is None:
            return
        self._group_of.pop(server_id, None)
        await self._call("CloseNotification", "u", [server_id])

    def _remember(self, group: int, server_id: int, offered: dict[str, str]) -> None:
        self._offered[group] = offered  # an update in place offers only its own actions
        self._offered.move_to_end(group)
        while len(self._offered) > MAX_REMEMBERED:
            self._offered.popitem(last=False)
        self._server_id[group] = server_id
        self._server_id.move_to_end(group)
        self._group_of[server_id] = group
        self._group_of.move_to_end(server_id)
        while len(self._server_id) > MAX_REMEMBERED:
            self._server_id.popitem(last=False)
        while len(self._group_of) > MAX_REMEMBERED:
            self._group_of.popitem(last=False)

    async def aclose(self) -> None:
        bus, self._bus = self._bus, None
        if bus is not None:
            await bus.aclose()


def dbus_fast_link(address: str | None) -> BusLink:
    from acp_tray.notifiers.bus.dbus_fast_link import DbusFastLink

    return DbusFastLink(address)


def gio_link(address: str | None) -> BusLink:
    """GLib's D-Bus: only where a GLib main loop runs (the GTK tray's), which delivers its answers."""
    from acp_tray.notifiers.bus.gio_link import GioLink

    return GioLink(address)
