"""`acp-tray approvals`, `approve ID [OPTION]` and `deny ID`: the permission requests waiting for
the person, and their answers."""

from __future__ import annotations

import argparse

from acp_tray.cli.calls import ask, fetch
from acp_tray.cli.output import field, out
from acp_tray.control import api, replies
from acp_tray.logs.text import DESCRIPTION_LIMIT, NAME_LIMIT, TITLE_LIMIT, asker
from acp_tray.presentation.options import option_label


def approval_lines(approvals: list[replies.ApprovalRow]) -> list[str]:
    lines = []
    for a in approvals:
        options = ", ".join(
            f"{field(o['id'])} = {option_label(str(o['name']), o['kind'], NAME_LIMIT)}" for o in a["options"]
        )
        title = field(a["title"], TITLE_LIMIT)
        who = asker(field(a["agent"]), a.get("subagent", ""))
        lines.append(f"  [{a['id']}] {who}: {title}  — options: {options or 'no options'}")
        lines += [f"      {field(detail, DESCRIPTION_LIMIT)}" for detail in a.get("details", [])]
    return lines


def cmd_approvals(args: argparse.Namespace) -> int:
    code, rows = fetch(args, api.APPROVALS)
    if rows is None:
        return code
    out("\n".join(approval_lines(rows)) if rows else "nothing is waiting for your approval")
    return 0


def cmd_approve(args: argparse.Namespace) -> int:
    code, result = ask(api.APPROVE, api.ApproveArgs(args.id, args.option))
    if result is not None:
        label = option_label(str(result["name"]), result["kind"], NAME_LIMIT)
        out(f"request {args.id}: answered {result['option']} ({label})")
    return code


def cmd_deny(args: argparse.Namespace) -> int:
    code, result = ask(api.DENY, api.DenyArgs(args.id))
    if result is not None:
        out(f"request {args.id}: " + (f"answered {result['option']}" if result["option"] else "cancelled"))
    return code
