"""The ACP SDK's log records that are not errors for acp-tray.

When an agent exits while a message to it is on its way (often during the handshake), the SDK's
send loop logs `ERROR: Send loop failed` with a `ConnectionResetError` traceback on the root
logger. acp-tray already reports the exit itself ("agent closed the connection during the
handshake; exit code 0"), so the record is kept only as one DEBUG line, without the traceback.
"""

from __future__ import annotations

import logging

SEND_LOOP_FAILED = "Send loop failed"


class AgentGoneFilter(logging.Filter):
    """On the root logger: a failed send to an agent that has gone becomes a DEBUG line."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if record.msg == SEND_LOOP_FAILED and isinstance(error, ConnectionError):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            record.msg, record.args = "a message to an agent was not sent: it had exited (%s)", (type(error).__name__,)
            record.exc_info = record.exc_text = None
            return logging.getLogger().isEnabledFor(logging.DEBUG)
        return True


def quiet_agent_gone() -> None:
    """Install the filter once (on the root logger, where the SDK logs)."""
    root = logging.getLogger()
    if not any(isinstance(f, AgentGoneFilter) for f in root.filters):
        root.addFilter(AgentGoneFilter())
