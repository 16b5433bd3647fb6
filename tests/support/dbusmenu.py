"""The tray's menu as a StatusNotifierItem host reads it: the AppIndicator item's dbusmenu over the
session bus (the labels, and how a host shows them)."""

from __future__ import annotations

import asyncio
import subprocess
from typing import Any

from dbus_fast import Message, MessageType
from dbus_fast.aio import MessageBus


async def dbusmenu_labels(address: str) -> list[str]:
    """Every label of the daemon's AppIndicator menu, as a StatusNotifierItem host reads it."""
    bus = await MessageBus(bus_address=address).connect()
    try:
        watcher = await bus.call(
            Message(
                destination="org.kde.StatusNotifierWatcher",
                path="/StatusNotifierWatcher",
                interface="org.freedesktop.DBus.Properties",
                member="Get",
                signature="ss",
                body=["org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems"],
            )
        )
        assert watcher is not None and watcher.message_type == MessageType.METHOD_RETURN
        (item,) = watcher.body[0].value
        owner = item.split("/", 1)[0]
        tree = await asyncio.to_thread(
            subprocess.run,
            ["busctl", f"--address={address}", "tree", owner, "--list", "--no-pager"],
            capture_output=True, text=True, check=True, timeout=10,
        )  # fmt: skip
        (path,) = [p for p in tree.stdout.split() if p.endswith("/Menu")]
        reply = await bus.call(
            Message(
                destination=owner,
                path=path,
                interface="com.canonical.dbusmenu",
                member="GetLayout",
                signature="iias",
                body=[0, -1, []],
            )
        )
        assert reply is not None and reply.message_type == MessageType.METHOD_RETURN
    finally:
        bus.disconnect()
    labels: list[str] = []

    def walk(node: list[Any]) -> None:
        _, props, children = node
        if "label" in props:
            labels.append(props["label"].value)
        for child in children:
            walk(child.value)

    walk(reply.body[1])
    return labels


def dbusmenu_text(label: str) -> str:
    """A dbusmenu label as shown: "_" marks a mnemonic, "__" is a literal underscore."""
    return "\0".join(part.replace("_", "") for part in label.split("__")).replace("\0", "_")
