"""The window's secrets, and what is made of them: its record's secret (known to the window's process
and to `acp-tray ui` of the same user, through the 0600 record; never sent), the one-shot opening keys
`acp-tray ui` makes with it, the answer to `acp-tray ui`'s challenge, and the browser sessions an
opening key is exchanged for. Standard library only: `acp-tray ui` uses it before anything heavy."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections import OrderedDict

OPEN_FOR = 60  # seconds an opening key can be used (once)
MAX_VISITS = 64  # browser sessions kept; the oldest is forgotten first


def new_secret() -> str:
    return secrets.token_urlsafe(32)  # 256 bits


def _mac(secret: str, *parts: object) -> str:
    message = "|".join(str(part) for part in parts).encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def opening_key(secret: str, port: int, now: float | None = None) -> str:
    """A key that opens the window at `port` once, within OPEN_FOR seconds: a random nonce, its
    expiry, and their MAC under the window's secret (only its own user can make one)."""
    nonce = secrets.token_urlsafe(16)
    expires = int((time.time() if now is None else now) + OPEN_FOR)
    return f"{nonce}.{expires}.{_mac(secret, 'open', port, nonce, expires)}"


def challenge_answer(secret: str, port: int, nonce: str) -> str:
    """What the real window at `port` answers to `nonce` (bound to its port: no other server can relay it)."""
    return _mac(secret, "challenge", port, nonce)


def redirect_name(key: str) -> str:
    """The redirect file's name for an opening key: nothing of the key itself, which the file's path
    (in the browser's command line) would show."""
    return "open-" + hashlib.sha256(key.encode()).hexdigest()[:24] + ".html"


class OpeningKeys:
    """The window's side: each opening key is taken once, before it expires, if its MAC is right."""

    def __init__(self, secret: str, port: int) -> None:
        self._secret = secret
        self._port = port
        self._used: dict[str, int] = {}  # nonce -> expiry, kept until it expires

    def take(self, key: str, now: float | None = None) -> bool:
        now = time.time() if now is None else now
        self._used = {nonce: expires for nonce, expires in self._used.items() if expires >= now}
        nonce, _, rest = key.partition(".")
        expires_text, _, mac = rest.partition(".")
        if not (nonce and expires_text.isdigit() and mac):
            return False
        expires = int(expires_text)
        right = _mac(self._secret, "open", self._port, nonce, expires)
        if not hmac.compare_digest(mac.encode(), right.encode()):
            return False
        if not now <= expires <= now + OPEN_FOR + 5 or nonce in self._used:
            return False
        self._used[nonce] = expires
        return True


class Visits:
    """Browser sessions: a cookie value (never the key), each with the token its page sends in a
    header on every change; both random, held by this window's process only (gone when it ends)."""

    def __init__(self) -> None:
        self._tokens: OrderedDict[str, str] = OrderedDict()

    def start(self) -> str:
        """A new session; its cookie value."""
        cookie = secrets.token_urlsafe(32)
        self._tokens[cookie] = secrets.token_urlsafe(32)
        while len(self._tokens) > MAX_VISITS:
            self._tokens.popitem(last=False)
        return cookie

    def token(self, cookie: str) -> str | None:
        """The session's header token, or None when `cookie` is no session of this window."""
        for known, token in self._tokens.items():
            if hmac.compare_digest(known.encode(), cookie.encode()):
                return token
        return None
