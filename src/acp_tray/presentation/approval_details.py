"""What a permission request is about, in the same lines on every surface: why the agent asks (v2's
description), the command it would run, the paths it touches, the tool call's kind."""

from __future__ import annotations

from acp_tray.logs.text import NAME_LIMIT, plain_line
from acp_tray.protocol.session import ToolCallScope

REQUEST_SHOWN = 240  # characters of a request's description, paths or command


def approval_details(scope: ToolCallScope, description: str = "") -> list[str]:
    """ "Why: …", "Runs: …", "Touches: …", "Kind: …": each line only when the agent said it."""
    lines = []
    if description.strip():
        lines.append(f"Why: {plain_line(description, REQUEST_SHOWN)}")
    if scope.command:
        lines.append(f"Runs: {plain_line(scope.command, REQUEST_SHOWN)}")
    if scope.paths:
        lines.append(f"Touches: {plain_line(', '.join(scope.paths), REQUEST_SHOWN)}")
    if scope.kind:
        lines.append(f"Kind: {plain_line(scope.kind, NAME_LIMIT)}")
    return lines
