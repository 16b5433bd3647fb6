"""Every log handler acp-tray installs goes through one filter: secrets are redacted, untrusted
text is escaped (no forged log lines, no terminal sequences), and other libraries' DEBUG records
are left out unless asked for with `-vvv`. Standard library only: the CLI imports this.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from acp_tray.logs.redact import redact

THIRD_PARTY_DEBUG = 3  # -vvv: other libraries' DEBUG records too (websockets, PIL, watchfiles, ...)
OWN = "acp_tray"

# in an argument (untrusted text) every control character is escaped, line breaks included;
# in the whole message our own line breaks stay, everything else is escaped
_IN_ARGUMENT = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]")
_IN_MESSAGE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e"}


def _escape_one(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


def escape(text: str, *, keep_newlines: bool = False) -> str:
    """Control and bidi characters as visible escapes (`\\e[31m`, `\\n`, `\\u202e`)."""
    return (_IN_MESSAGE if keep_newlines else _IN_ARGUMENT).sub(_escape_one, text)


def _safe_argument(value: Any) -> Any:
    if isinstance(value, str):
        return escape(value)
    if isinstance(value, BaseException):
        return escape(str(value))
    return value


class SafeRecords(logging.Filter):
    """Escapes and redacts each record once (the first handler to see it); drops third-party
    DEBUG records below `-vvv`."""

    def __init__(self, verbosity: int = 0) -> None:
        super().__init__()
        self.verbosity = verbosity

    def filter(self, record: logging.LogRecord) -> bool:
        ours = record.name == OWN or record.name.startswith(OWN + ".")
        if record.levelno < logging.INFO and self.verbosity < THIRD_PARTY_DEBUG and not ours:
            return False
        if getattr(record, "acp_tray_safe", False):
            return True
        try:
            args = record.args
            if isinstance(args, tuple):
                record.args = tuple(_safe_argument(a) for a in args)
            elif isinstance(args, dict):
                record.args = {k: _safe_argument(v) for k, v in args.items()}
            message = record.getMessage()
        except Exception:  # a malformed record: show what there is, escaped
            message = f"{record.msg!s} {record.args!r}"
        record.msg, record.args = redact(escape(message, keep_newlines=True)), None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(escape(logging.Formatter().formatException(record.exc_info), keep_newlines=True))
        if record.stack_info:
            record.stack_info = redact(escape(record.stack_info, keep_newlines=True))
        record.acp_tray_safe = True
        return True


def install(handler: logging.Handler, verbosity: int) -> logging.Handler:
    """`handler` with the filter (and the verbosity for third-party DEBUG records)."""
    handler.addFilter(SafeRecords(verbosity))
    return handler
