"""A stand-in for the person's web browser that stays running, as a real one does (its command line
readable in /proc for its whole life): $BROWSER="python staying_browser.py %s &". It loads what it
is given as a browser would (a file: URI's meta refresh, the window's redirect and cookie, the page),
appends what happened to $ACP_TRAY_TEST_BROWSED ("pid N", "asked ...", "loaded URL STATUS"), then
waits until it is ended. Standard library only."""

from __future__ import annotations

import html
import http.client
import os
import re
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit


def say(line: str) -> None:
    with open(os.environ["ACP_TRAY_TEST_BROWSED"], "a", encoding="utf-8") as log:
        log.write(line + "\n")


def get(url: str, cookie: str = "") -> tuple[int, str, str]:
    """(status, Location, the cookie it set)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port or 80, timeout=10)
    try:
        target = parts.path + ("?" + parts.query if parts.query else "")
        connection.request("GET", target, headers={"Host": parts.netloc, **({"Cookie": cookie} if cookie else {})})
        answer = connection.getresponse()
        answer.read()
        set_cookie = (answer.getheader("Set-Cookie") or "").split(";", 1)[0]
        return answer.status, answer.getheader("Location") or "", set_cookie
    except (OSError, http.client.HTTPException) as exc:
        return 0, str(exc), ""
    finally:
        connection.close()


def load(url: str) -> None:
    if url.startswith("file://"):
        text = Path(unquote(urlsplit(url).path)).read_text(encoding="utf-8")
        url = html.unescape(re.search(r'content="0;url=([^"]*)"', text).group(1))  # type: ignore[union-attr]
    status, location, cookie = get(url)
    say(f"loaded {url} {status}")
    if status == 303:
        parts = urlsplit(url)
        page = f"{parts.scheme}://{parts.netloc}{location}"
        say(f"loaded {page} {get(page, cookie)[0]}")


devnull = os.open(os.devnull, os.O_RDWR)  # the command that started it must not wait for its output
for fd in (0, 1, 2):
    os.dup2(devnull, fd)
say(f"pid {os.getpid()}")
say(f"asked {sys.argv[1]}")
load(sys.argv[1])
while True:
    time.sleep(60)
