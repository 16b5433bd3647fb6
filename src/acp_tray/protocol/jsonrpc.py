"""Whether a decoded message can be routed as JSON-RPC 2.0, and why not: the one check every
transport applies (an agent's stdio and WebSocket, the demo agent's WebSocket). Pure, no I/O."""

from __future__ import annotations

# JSON-RPC answers a notification it cannot take with an error and no id (codex-acp, to acp-tray's
# `$/cancel_request` of an abandoned sign-in): nothing to route, nothing wrong, not worth a warning
ERROR_WITHOUT_ID = "an error answer without an id"


def jsonrpc_problem(message: object) -> str | None:
    """Why `message` cannot be routed as JSON-RPC 2.0, or None when it can."""
    if not isinstance(message, dict):
        return "not a JSON object"
    msg_id = message.get("id")
    if msg_id is not None and (isinstance(msg_id, bool) or not isinstance(msg_id, (str, int))):
        return "id must be a string, a number or null"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "method must be a string"
        return None
    if "id" not in message:
        return (
            ERROR_WITHOUT_ID
            if isinstance(message.get("error"), dict)
            else "neither a request, a notification nor a response"
        )
    if "error" in message and not isinstance(message["error"], dict):
        return "error must be an object"
    if "result" not in message and "error" not in message:
        return "response without result or error"
    return None
