"""What the CLI says after an agent of the person's own was added: how to remove the demo agent,
while it is still there. `agents add` says it, and so does adding one from the ACP Registry."""

from __future__ import annotations

from acp_tray.cli.output import out
from acp_tray.control import api
from acp_tray.control.client import NoDaemonError, ReplyError, request
from acp_tray.demo.removal import removal_hint


def offer_demo_removal() -> None:
    """How to remove the demo agent, if it is still there (said only when the daemon tells which
    agents are configured)."""
    try:
        rows = request(api.AGENTS_LIST, api.Args())
    except (NoDaemonError, ReplyError):
        return
    hint = removal_hint([row["name"] for row in rows])
    if hint is not None:
        out(hint)
