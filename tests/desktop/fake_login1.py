"""Stand-ins for logind's session and the desktop's ScreenSaver service, on a private bus, for the
tests of the away sources: the real logind needs systemd as PID 1 and the system bus, which the
test machines do not have. What they serve is the real interfaces' part that acp-tray reads, and
the real methods that change it (Session.SetIdleHint/SetLockedHint, ScreenSaver.SetActive).

    python tests/desktop/fake_login1.py BUS_ADDRESS [--screensaver-idle-ms N]

Session "c7" is this user's graphical session (User.Display); no process is in a session
(GetSessionByPID fails, as for a systemd user service). Prints "ready" once both names are owned.
"""

import argparse
import asyncio
import time
from typing import Any

from dbus_fast import Message, MessageType, Variant
from dbus_fast.aio import MessageBus

LOGIN1 = "org.freedesktop.login1"
SESSION_PATH = "/org/freedesktop/login1/session/c7"
PROPERTIES = "org.freedesktop.DBus.Properties"
SCREENSAVER = "org.freedesktop.ScreenSaver"


class Fakes:
    def __init__(self, screensaver_idle_ms: int | None) -> None:
        self.session: dict[str, Variant] = {
            "Id": Variant("s", "c7"),
            "LockedHint": Variant("b", False),
            "IdleHint": Variant("b", False),
            "IdleSinceHint": Variant("t", 0),
            "IdleSinceHintMonotonic": Variant("t", 0),
        }
        self.user = {"Display": Variant("(so)", ["c7", SESSION_PATH])}
        self.active = False
        self.screensaver_idle_ms = screensaver_idle_ms

    def answer(self, call: Message) -> Message | None:
        where = (call.path, call.interface, call.member)
        if where == ("/org/freedesktop/login1", f"{LOGIN1}.Manager", "GetSession"):
            if call.body[0] != "c7":
                return Message.new_error(call, f"{LOGIN1}.NoSuchSession", f"No session '{call.body[0]}' known")
            return Message.new_method_return(call, "o", [SESSION_PATH])
        if where == ("/org/freedesktop/login1", f"{LOGIN1}.Manager", "GetSessionByPID"):
            return Message.new_error(call, f"{LOGIN1}.NoSessionForPID", "PID does not belong to any known session")
        if call.interface == PROPERTIES and call.path in (SESSION_PATH, "/org/freedesktop/login1/user/self"):
            return self._properties(call)
        if (call.path, call.interface) == (SESSION_PATH, f"{LOGIN1}.Session"):
            return self._session_method(call)
        if (call.path, call.interface) == ("/org/freedesktop/ScreenSaver", SCREENSAVER):
            return self._screensaver(call)
        return None

    def _properties(self, call: Message) -> Message:
        table = self.session if call.path == SESSION_PATH else self.user
        if call.member == "GetAll":
            return Message.new_method_return(call, "a{sv}", [table])
        if call.member == "Get" and call.body[1] in table:
            return Message.new_method_return(call, "v", [table[call.body[1]]])
        return Message.new_error(call, "org.freedesktop.DBus.Error.UnknownProperty", "no such property")

    def _session_method(self, call: Message) -> Message:
        if call.member == "SetLockedHint":
            self.session["LockedHint"] = Variant("b", bool(call.body[0]))
        elif call.member == "SetIdleHint":  # logind stamps the change, on both clocks, in µs
            self.session["IdleHint"] = Variant("b", bool(call.body[0]))
            self.session["IdleSinceHint"] = Variant("t", time.time_ns() // 1000)
            self.session["IdleSinceHintMonotonic"] = Variant("t", time.monotonic_ns() // 1000)
        else:
            return Message.new_error(call, "org.freedesktop.DBus.Error.UnknownMethod", call.member or "")
        return Message.new_method_return(call)

    def _screensaver(self, call: Message) -> Message:
        if call.member == "GetActive":
            return Message.new_method_return(call, "b", [self.active])
        if call.member == "SetActive":
            self.active = bool(call.body[0])
            return Message.new_method_return(call, "b", [True])
        if call.member == "GetSessionIdleTime" and self.screensaver_idle_ms is not None:
            return Message.new_method_return(call, "u", [self.screensaver_idle_ms])
        return Message.new_error(call, "org.freedesktop.DBus.Error.UnknownMethod", f"no method {call.member}")


async def serve(address: str, screensaver_idle_ms: int | None) -> None:
    bus = await MessageBus(bus_address=address).connect()
    fakes = Fakes(screensaver_idle_ms)

    def on_message(message: Message) -> Any:
        if message.message_type != MessageType.METHOD_CALL:
            return None
        return fakes.answer(message)

    bus.add_message_handler(on_message)
    await bus.request_name(LOGIN1)
    await bus.request_name(SCREENSAVER)
    print("ready", flush=True)
    await bus.wait_for_disconnect()  # type: ignore[no-untyped-call]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("address")
    parser.add_argument("--screensaver-idle-ms", type=int)
    args = parser.parse_args()
    asyncio.run(serve(args.address, args.screensaver_idle_ms))


if __name__ == "__main__":
    main()
