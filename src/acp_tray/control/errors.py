"""Why a control request was refused: the error codes (for scripts) and the errors an op raises
(for the person). Standard library only: the server, the CLI, the window and the op handlers use them."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Why a request was refused (`{"ok": false, "error": MESSAGE, "code": CODE}`): for scripts."""

    BAD_REQUEST = "bad_request"  # not a request, or an argument missing or of the wrong type
    UNKNOWN_OP = "unknown_op"  # no op of that name
    NOT_FOUND = "not_found"  # no such agent, approval request or question
    NOT_RUNNING = "not_running"  # the agent is stopped, or did not connect in time
    NEEDS_SIGN_IN = "needs_sign_in"  # the agent waits for `acp-tray login`
    SIGN_IN = "sign_in"  # signing in or out did not work
    PREFERENCES = "preferences"  # the preferences file could not be changed
    FAILED = "failed"  # the agent refused or failed what was asked
    INTERNAL = "internal"  # a bug in the daemon (its log has the details)
    BUSY = "busy"  # too many connections at once
    TIMEOUT = "timeout"  # the request (daemon) or its reply (client) did not come in time
    CLOSED = "closed"  # client only: the connection ended without a reply
    PROTOCOL = "protocol"  # client only: the reply was not a control message
    TOO_LONG = "too_long"  # client only: the request is longer than the daemon reads


class OpError(Exception):
    """A request that cannot be done: the message is for the person, the code for scripts."""

    def __init__(self, message: str, code: ErrorCode = ErrorCode.FAILED) -> None:
        super().__init__(message)
        self.code = code


class ArgumentError(OpError):
    """An argument missing, of the wrong type, or not fitting with the others."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ErrorCode.BAD_REQUEST)
