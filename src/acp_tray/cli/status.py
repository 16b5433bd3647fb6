"""`acp-tray status`: is the daemon running; its agents, do not disturb, approvals waiting."""

from __future__ import annotations

import argparse

from acp_tray.cli.approvals import approval_lines
from acp_tray.cli.calls import fetch
from acp_tray.cli.output import field, out
from acp_tray.control import api
from acp_tray.presentation.text import DESCRIPTION_LIMIT


def agent_line(row: api.AgentRow) -> str:
    sessions = f"{row['sessions']} session" + ("s" if row["sessions"] != 1 else "")
    work = f", {row['busy']} busy" if row["busy"] else ""
    work += f", {row['queued']} queued" if row["queued"] else ""
    detail = f"  ({field(row['detail'], DESCRIPTION_LIMIT)})" if row["detail"] else ""
    return f"  {field(row['name']):<14} {row['state']:<10} {sessions}{work}{detail}"


def cmd_status(args: argparse.Namespace) -> int:
    code, status = fetch(args, api.STATUS)
    if status is None:
        return code
    uptime = int(status["uptime"])
    out(
        f"acp-tray {status['version']} running (pid {status['pid']}, up {uptime // 3600}h {uptime // 60 % 60}m)"
        f" · do not disturb: {status['dnd']} · {status['unread']} unread"
    )
    agents = status["agents"]
    connected = sum(a["state"] == "connected" for a in agents)
    out(f"agents: {len(agents)} ({connected} connected)")
    for row in agents:
        out(agent_line(row))
    if status["approvals"]:
        out(f"waiting for your approval: {len(status['approvals'])}")
        out("\n".join(approval_lines(status["approvals"])))
    return 0
