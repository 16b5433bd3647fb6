"""The window's door: what every request must carry before it reaches a page.

- `Host` must be `127.0.0.1:PORT` or `localhost:PORT` (a DNS-rebinding page gets 403);
- a one-shot opening key (window/keys.py), in `/open?key=...`, is exchanged for a session: an HttpOnly,
  SameSite=Strict cookie named for the port, whose value is a new random one (never the key), and a
  redirect that takes the key out of the address bar; anything without the cookie gets 403, a page
  that says how to open the window again (closed_page.py). A key used once, or expired, opens nothing;
- `/alive` answers 204 to a page of a session: how its script tells a window that still knows it;
- a state change is a POST from this origin (`Origin`, and `Sec-Fetch-Site` where sent): CSRF; it
  also carries the session's token in a header (the page's htmx sends it): a cookie, which the
  browser sends to every port of 127.0.0.1, is not enough to change anything;
- `/challenge?nonce=...` is answered with a MAC under the window's secret: how `acp-tray ui` tells
  this window from whatever else may listen on its recorded port (window/where.py);
- request bodies are bounded; every answer carries a strict Content-Security-Policy (no inline
  script or style; closed_page.py's one style is allowed by its hash), `frame-ancestors 'none'`,
  `nosniff` and `no-referrer`; no CORS headers.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, get_args
from urllib.parse import parse_qs, urlencode

from acp_tray.presentation.window_pages import WindowPage
from acp_tray.window import redirect
from acp_tray.window.closed_page import CSP as CLOSED_CSP
from acp_tray.window.closed_page import MARK, OLD_PAGE, USED_LINK, closed_page
from acp_tray.window.keys import OpeningKeys, Visits, challenge_answer

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE = "acp_tray_window_{port}"  # one per window's port: two windows' sessions never clash
TOKEN_HEADER = b"x-acp-tray-token"
MAX_BODY = 64 * 1024
TOO_LARGE = f"Request too large: acp-tray's window takes at most {MAX_BODY // 1024} KB."
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"
)
STATIC_CACHE = (b"cache-control", b"private, max-age=3600")  # the package's own files: the same for everyone
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),  # pages and answers hold the person's data: never kept
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
SAFE_SITES = {"same-origin", "none"}
PAGES = get_args(WindowPage)  # the pages `/open?page=` may name
OWN_FILES = ("/static/", "/icon.png")  # the package's own files, cached by the browser (never a page)


class Guard:
    """ASGI middleware in front of the pages: checks, then the app; or a plain 403/413."""

    def __init__(self, app: App, *, port: int, secret: str) -> None:
        self._app = app
        self._port = port
        self._hosts = {f"127.0.0.1:{port}".encode(), f"localhost:{port}".encode()}
        self._origins = {f"http://127.0.0.1:{port}".encode(), f"http://localhost:{port}".encode()}
        self._secret = secret
        self._keys = OpeningKeys(secret, port)
        self._visits = Visits()
        self._cookie = COOKIE.format(port=port)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = _headers(scope)
        problem = self._refused(scope, headers)
        if problem is not None:
            await _plain(send, *problem)
            return
        if scope["path"] == "/challenge":
            await self._challenge(scope, send)
            return
        token = self._visits.token(self._session(headers))
        if scope["path"] == "/open":
            await self._open(scope, send, known=token is not None)
            return
        if token is None:
            await _closed(send, OLD_PAGE)
            return
        if scope["path"] == "/alive":  # the page's script asks whether this window still knows it
            await send({"type": "http.response.start", "status": 204, "headers": HEADERS})
            await send({"type": "http.response.body", "body": b""})
            return
        if scope["method"] == "POST" and not hmac.compare_digest(headers.get(TOKEN_HEADER, b""), token.encode()):
            await _plain(send, 403, "Refused: a change must come from acp-tray's own page; reload it.")
            return
        scope.setdefault("state", {})["window_token"] = token  # for the page: base.html's hx-headers
        bounded = await _bounded(receive)
        if bounded is None:
            await _plain(send, 413, TOO_LARGE)
            return
        await self._app(scope, bounded, _with_headers(send, static=scope["path"].startswith(OWN_FILES)))

    def _refused(self, scope: Scope, headers: dict[bytes, bytes]) -> tuple[int, str] | None:
        if headers.get(b"host") not in self._hosts:
            return 403, "Wrong host: acp-tray's window answers only on its own loopback address."
        if scope["method"] not in ("GET", "HEAD", "POST"):
            return 405, "Method not allowed."
        if scope["method"] == "POST":
            if headers.get(b"origin") not in self._origins:
                return 403, "Refused: a change must come from acp-tray's own page."
            if headers.get(b"sec-fetch-site", b"same-origin").decode("latin-1") not in SAFE_SITES:
                return 403, "Refused: a change must come from acp-tray's own page."
            length = headers.get(b"content-length", b"0")
            if not length.isdigit() or int(length) > MAX_BODY:
                return 413, TOO_LARGE
        return None

    def _session(self, headers: dict[bytes, bytes]) -> str:
        """The value of this window's cookie ("" without one)."""
        for part in headers.get(b"cookie", b"").decode("latin-1").split(";"):
            name, _, value = part.strip().partition("=")
            if name == self._cookie:
                return value
        return ""

    async def _challenge(self, scope: Scope, send: Send) -> None:
        nonce = (parse_qs(scope.get("query_string", b"").decode("latin-1")).get("nonce") or [""])[0]
        if not 16 <= len(nonce) <= 64:
            await _plain(send, 400, "A challenge needs a nonce.")
            return
        await _plain(send, 200, challenge_answer(self._secret, self._port, nonce))

    async def _open(self, scope: Scope, send: Send, *, known: bool) -> None:
        """The one-shot key from `acp-tray ui`: a session for the rest, and the page without the key.
        A used key in a browser that has a session already (the address again, from its history)
        just shows the page."""
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = (query.get("key") or [""])[0]
        taken = self._keys.take(given)
        if taken:
            redirect.forget(given)
        elif not known:
            await _closed(send, USED_LINK)
            return
        page = (query.get("page") or ["overview"])[0]
        target = "/" + (page if page in PAGES else "overview")
        kept = {name: values[0] for name, values in query.items() if name in ("highlight", "agent", "approval")}
        location = target + ("?" + urlencode(kept) if kept else "")
        headers = [(b"location", location.encode()), *HEADERS]
        if taken:
            cookie = f"{self._cookie}={self._visits.start()}; HttpOnly; SameSite=Strict; Path=/"
            headers.append((b"set-cookie", cookie.encode()))
        await send({"type": "http.response.start", "status": 303, "headers": headers})
        await send({"type": "http.response.body", "body": b""})


def _headers(scope: Scope) -> dict[bytes, bytes]:
    return {name.lower(): value for name, value in scope.get("headers", [])}


async def _bounded(receive: Receive) -> Receive | None:
    """The whole request body read first, up to MAX_BODY (a chunked body has no length to check
    beforehand): a receive that gives it to the app, or None when the body is larger."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break  # the browser went away: the app hears it next
        body += message.get("body", b"")
        if len(body) > MAX_BODY:
            return None
        if not message.get("more_body", False):
            break
    whole: Message | None = {"type": "http.request", "body": bytes(body), "more_body": False}

    async def replayed() -> Message:
        nonlocal whole
        if whole is None:
            return await receive()  # after the body: the disconnect, when it comes
        message, whole = whole, None
        return message

    return replayed


def _with_headers(send: Send, *, static: bool) -> Send:
    """The security headers on every answer; the package's static files may be cached (a page never)."""
    headers = (
        [STATIC_CACHE if name == b"cache-control" else (name, value) for name, value in HEADERS] if static else HEADERS
    )

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [*message.get("headers", []), *headers]
        await send(message)

    return sending


async def _plain(send: Send, status: int, text: str) -> None:
    """`text` as the whole answer, its length said (no chunks: `acp-tray ui` reads the challenge's raw)."""
    body = text.encode()
    length = (b"content-length", str(len(body)).encode())
    headers = [(b"content-type", b"text/plain; charset=utf-8"), length, *HEADERS]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _closed(send: Send, lead: str) -> None:
    """No session of this window: the page that says how to open it again (closed_page.py)."""
    headers = [(b"content-security-policy", CLOSED_CSP.encode())]
    headers += [(name, value) for name, value in HEADERS if name != b"content-security-policy"]
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [(b"content-type", b"text/html; charset=utf-8"), MARK, *headers],
        }
    )
    await send({"type": "http.response.body", "body": closed_page(lead)})
