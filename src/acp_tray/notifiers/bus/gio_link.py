"""The session bus through GLib's D-Bus (Gio), for a daemon whose tray already runs GTK's loop:
GTK has Gio loaded and (AppIndicator) the session bus connected, so this costs nothing more.

Gio answers on the loop that owns the global default main context, GTK's, on the tray's
thread: replies and signals come there, and are handed to the daemon's asyncio loop with
`call_soon_threadsafe`. Without a running GLib loop nothing would ever answer: only the tray's
GTK backends choose this link.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from gi.repository import Gio, GLib

from acp_tray.notifiers.bus import BusError, Reply, Signal

CONNECT_FLAGS = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION


Done = Callable[..., None]  # a GAsyncReadyCallback


def _bridge(loop: asyncio.AbstractEventLoop, finish: Callable[[Any], Any]) -> tuple[asyncio.Future[Any], Done]:
    """A future on `loop`, and the GLib callback that settles it with `finish(result)` (called
    on GLib's thread, as Gio requires, its outcome handed over to the asyncio loop)."""
    future: asyncio.Future[Any] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():  # cancelled: the caller's timeout came first
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def done(_source: Any, result: Any, *_: Any) -> None:
        try:
            value, error = finish(result), None
        except Exception as exc:  # GLib.Error: the bus refused or went away
            value, error = None, exc
        loop.call_soon_threadsafe(settle, value, error)

    return future, done


def _error(exc: GLib.Error) -> BusError:
    return BusError(Gio.DBusError.get_remote_error(exc) or "org.gtk.GDBus.Error", exc.message)


class GioLink:
    def __init__(self, address: str | None) -> None:
        self._address = address  # None: the session bus GTK shares
        self._connection: Gio.DBusConnection | None = None
        self._subscriptions: list[int] = []

    @property
    def connected(self) -> bool:
        return self._connection is not None and not self._connection.is_closed()

    async def connect(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            if self._address is None:  # the process's shared connection (GTK's too): never closed here
                future, done = _bridge(loop, Gio.bus_get_finish)
                Gio.bus_get(Gio.BusType.SESSION, None, done)
            else:
                future, done = _bridge(loop, Gio.DBusConnection.new_for_address_finish)
                Gio.DBusConnection.new_for_address(self._address, CONNECT_FLAGS, None, None, done)
            self._connection = await future
        except GLib.Error as exc:
            raise OSError(exc.message) from None

    async def subscribe(self, interface: str, path: str, on_signal: Callable[[Signal], None]) -> None:
        loop = asyncio.get_running_loop()

        def on_gio_signal(
            _connection: Any, sender: str, at: str, iface: str, member: str, parameters: GLib.Variant, *_: Any
        ) -> None:
            signature = parameters.get_type_string()[1:-1]  # "(us)" -> "us"
            signal = Signal(sender, at, iface, member, signature, list(parameters.unpack()))
            loop.call_soon_threadsafe(on_signal, signal)

        assert self._connection is not None
        flags = Gio.DBusSignalFlags.NONE
        self._subscriptions.append(
            self._connection.signal_subscribe(None, interface, None, path, None, flags, on_gio_signal)
        )

    async def call(
        self, destination: str, path: str, interface: str, member: str, signature: str, body: list[Any]
    ) -> Reply:
        if self._connection is None:
            raise EOFError("not connected")
        message = Gio.DBusMessage.new_method_call(destination, path, interface, member)
        if signature:
            message.set_body(GLib.Variant(f"({signature})", tuple(body)))
        future, done = _bridge(asyncio.get_running_loop(), self._connection.send_message_with_reply_finish)
        self._connection.send_message_with_reply(message, Gio.DBusSendMessageFlags.NONE, -1, None, done)
        try:
            reply: Gio.DBusMessage = await future
        except GLib.Error as exc:
            raise OSError(exc.message) from None  # the connection closed, or no reply
        if reply.get_message_type() == Gio.DBusMessageType.ERROR:
            try:
                reply.to_gerror()
            except GLib.Error as exc:
                raise _error(exc) from None
        answer = reply.get_body()
        return Reply(reply.get_sender(), list(answer.unpack()) if answer is not None else [])

    def variant(self, signature: str, value: Any) -> Any:
        return GLib.Variant(signature, value)

    async def aclose(self) -> None:
        connection, self._connection = self._connection, None
        if connection is None:
            return
        for subscription in self._subscriptions:
            connection.signal_unsubscribe(subscription)
        self._subscriptions.clear()
        if self._address is not None and not connection.is_closed():  # one of its own
            future, done = _bridge(asyncio.get_running_loop(), connection.close_finish)
            connection.close(None, done)
            with contextlib.suppress(TimeoutError, GLib.Error):
                await asyncio.wait_for(future, 2.0)
