"""Secrets kept out of everything shown or logged: a URL's password, `Authorization` values
(`Bearer …`, `Basic …`), secret-looking query parameters and header lines, and the values the
preferences hold as secrets (headers, env). Standard library only: the CLI imports this.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

MASK = "***"
MIN_SECRET = 6  # shorter configured values are not redacted as text (they would mask everything)

_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]*):[^@\s/]*@")
# a credential after its scheme: 8+ token characters, at least one of them not a letter
_SCHEME_TOKEN = re.compile(r"(?i)\b(bearer|basic|negotiate)(\s+)(?=[\w.~+/=-]*[\d.~+/=_-])[\w.~+/=-]{8,}")
_HEADER = re.compile(
    r"(?im)^([<>]?\s*(?:proxy-)?(?:authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token)\s*:\s*)\S.*$"
)
_QUERY = re.compile(r"(?i)([?&][\w.-]*(?:token|key|secret|password|passwd|auth|sig)[\w.-]*=)[^&\s#]+")

_secrets: frozenset[str] = frozenset()


def shown_url(url: str) -> str:
    """`url` for showing, with any password in it replaced by `***`."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return redact(url)
    if password is None:
        return url
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    return parts._replace(netloc=f"{user}:{MASK}@{hostport}").geturl()


_SECRET_NAME = re.compile(
    r"(?i)token|key|secret|password|passwd|auth|credential|cookie"
)  # not "session": SESSION_ID, …


def looks_secret(name: str) -> bool:
    """Whether a variable or header name suggests its value is a secret (`API_KEY`, `GH_TOKEN`)."""
    return _SECRET_NAME.search(name) is not None


def remember_secrets(values: Iterable[str]) -> None:
    """Values to redact wherever they appear from now on (header values, secret env values)."""
    global _secrets
    new = {v for v in values if len(v) >= MIN_SECRET} - _secrets
    if new:
        _secrets = _secrets | new


def redact(text: str) -> str:
    """`text` with every secret it shows replaced by `***`."""
    for secret in sorted(_secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, MASK)
    text = _URL_PASSWORD.sub(rf"\1:{MASK}@", text)
    text = _HEADER.sub(rf"\1{MASK}", text)
    text = _SCHEME_TOKEN.sub(rf"\1\2{MASK}", text)
    return _QUERY.sub(rf"\1{MASK}", text)
