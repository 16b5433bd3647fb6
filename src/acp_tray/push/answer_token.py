"""The tokens an answerable push's buttons carry: which request, which of its buttons, until when,
and which asking of it (a nonce: request ids start again at "1" when the daemon restarts), signed
with HMAC-SHA256 under a key only this daemon has. Pure: no I/O; a token is never logged."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

VERSION = "acp1"
KEY_BYTES = 32
MAC_BYTES = 16  # 128 bits: a forgery is a guess of them
TOKEN_LIMIT = 128  # characters: anything longer on the reply topic is not a token
_TOKEN = re.compile(
    r"acp1\.(?P<request>[a-z]?[0-9]{1,12})\.(?P<choice>[0-9])\.(?P<expires>[0-9]{1,12})"
    r"\.(?P<nonce>[A-Za-z0-9_-]{11,32})\.(?P<mac>[A-Za-z0-9_-]{22})"
)


@dataclass(frozen=True)
class Press:
    """What a button says: answer `request_id` with its button `choice` (0, 1, 2), before `expires`
    (Unix time), for the asking `nonce`."""

    request_id: str
    choice: int
    expires: int
    nonce: str


def new_key() -> bytes:
    return secrets.token_bytes(KEY_BYTES)


def new_nonce() -> str:
    return _b64(secrets.token_bytes(12))


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _mac(key: bytes, body: str) -> str:
    return _b64(hmac.new(key, f"acp-tray answer|{body}".encode(), hashlib.sha256).digest()[:MAC_BYTES])


def _body(press: Press) -> str:
    return f"{VERSION}.{press.request_id}.{press.choice}.{press.expires}.{press.nonce}"


def sign(key: bytes, press: Press) -> str:
    body = _body(press)
    return f"{body}.{_mac(key, body)}"


def read(key: bytes, text: str) -> Press | None:
    """The press `text` names when it is a token this key signed (whatever its expiry); None for
    anything else: junk, an altered token (another option, a later expiry), a forgery."""
    if len(text) > TOKEN_LIMIT:
        return None
    match = _TOKEN.fullmatch(text.strip())
    if match is None:
        return None
    press = Press(match["request"], int(match["choice"]), int(match["expires"]), match["nonce"])
    return press if hmac.compare_digest(_mac(key, _body(press)), match["mac"]) else None
