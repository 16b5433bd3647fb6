"""The window's opening keys, challenge and sessions (window/keys.py), and the redirect file the
browser is opened on (window/redirect.py): one use, a minute's life, bound to the window's port."""

from __future__ import annotations

import stat
import sys
import time
from pathlib import Path

from acp_tray.control.endpoint import runtime_dir
from acp_tray.window.keys import OPEN_FOR, OpeningKeys, Visits, challenge_answer, new_secret, opening_key
from acp_tray.window.redirect import forget, sweep, write_redirect

PORT = 41234


def test_an_opening_key_opens_once_within_its_minute_and_only_at_its_port() -> None:
    secret = new_secret()
    keys = OpeningKeys(secret, PORT)
    now = time.time()
    key = opening_key(secret, PORT, now)
    assert keys.take(key, now + 1)
    assert not keys.take(key, now + 2)  # used
    assert not keys.take(opening_key(secret, PORT, now), now + OPEN_FOR + 1)  # expired
    assert not keys.take(opening_key(secret, PORT + 1, now), now)  # another window's port
    assert not keys.take(opening_key(new_secret(), PORT, now), now)  # another window's secret
    assert not keys.take(opening_key(secret, PORT, now + 3600), now)  # made to live longer than a minute
    nonce, expires, mac = opening_key(secret, PORT, now).split(".")
    assert not keys.take(f"{nonce}.{int(expires) + 30}.{mac}", now)  # its expiry moved
    for junk in ("", "x", "a.b.c", "..", "a.1.", "\x00.1.2"):
        assert not keys.take(junk, now)


def test_the_challenge_answer_is_bound_to_the_secret_and_the_port() -> None:
    secret = new_secret()
    answer = challenge_answer(secret, PORT, "n" * 22)
    assert answer == challenge_answer(secret, PORT, "n" * 22)
    assert answer not in (challenge_answer(secret, PORT + 1, "n" * 22), challenge_answer(new_secret(), PORT, "n" * 22))
    assert secret not in answer


def test_a_session_is_a_value_of_its_own_with_a_token() -> None:
    visits = Visits()
    cookie = visits.start()
    token = visits.token(cookie)
    assert token and token != cookie
    assert visits.token("guess") is None and visits.token("") is None


def test_the_redirect_file_is_private_names_nothing_of_the_key_and_goes_when_used(isolated_dirs: Path) -> None:
    key = opening_key(new_secret(), PORT)
    url = f"http://127.0.0.1:{PORT}/open?key={key}&page=overview"
    path = write_redirect(url, key)
    assert path.parent == runtime_dir()
    if sys.platform != "win32":  # there: a folder of the person's own profile, private by its ACL
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert key not in path.name and key.split(".")[0] not in path.name
    assert f'content="0;url=http://127.0.0.1:{PORT}/open?key={key}&amp;page=overview"' in path.read_text("utf-8")
    forget(key)
    assert not path.exists()
    stale = write_redirect(url, opening_key(new_secret(), PORT))
    sweep(runtime_dir(), now=time.time() + OPEN_FOR + 10)
    assert not stale.exists()
