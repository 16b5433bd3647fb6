"""Secrets kept out of everything shown or logged: a URL's password, `Authorization` values
(`Bearer …`, `Basic …`), secret-looking query parameters and header lines, the values the
preferences hold as secrets (headers, env, a URL's) and the keyring values given to agents. Applied
to every log line and every line of an agent's stderr. Standard library only: the CLI imports this.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, unquote_plus, urlsplit

MASK = "***"
MIN_SECRET = 6  # shorter configured values are not redacted as text (they would mask everything)

_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]*):[^@\s/]*@")
# a credential after its scheme: 8+ token characters, at least one of them not a letter
_SCHEME_TOKEN = re.compile(r"(?i)\b(bearer|basic|negotiate)(\s+)(?=[\w.~+/=-]*[\d.~+/=_-])[\w.~+/=-]{8,}")
_HEADER = re.compile(
    r"(?im)^([<>]?\s*(?:proxy-)?(?:authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token)\s*:\s*)\S.*$"
)
# a URL's query (or fragment: OAuth's #access_token=) parameter; masked when its name looks secret
_QUERY = re.compile(r"([?&#;]([^=&#;?\s]*)=)([^&#;\s]+)")

_secrets: frozenset[str] = frozenset()


def shown_url(url: str) -> str:
    """`url` for showing: its password and the values of its secret-looking query and fragment
    parameters (`looks_secret`: ?token=, ?api_key=, ?sig=, #access_token=) replaced by `***`. Every
    surface that shows a remote agent's URL shows this."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return redact(url)
    if password is not None:
        userinfo, _, hostport = parts.netloc.rpartition("@")
        user = userinfo.partition(":")[0]
        url = parts._replace(netloc=f"{user}:{MASK}@{hostport}").geturl()
    return _masked_query(url)


def url_secrets(url: str) -> list[str]:
    """The secrets `url` holds (its password, secret-looking query and fragment values), to remember."""
    try:
        parts = urlsplit(url)
        found = [parts.password or ""]
    except ValueError:
        return []
    for part in (parts.query, parts.fragment):
        found += [value for name, value in parse_qsl(part, keep_blank_values=True) if looks_secret(name)]
    return [value for value in found if value]


# a name whose value is a secret: a variable, a header, a URL's query parameter (sig, X-Amz-Signature:
# signed URLs). Not "session" (SESSION_ID, …), not "sig" inside a word (SIGTERM, design).
_SECRET_NAME = re.compile(r"(?i)token|key|secret|passw(?:or)?d|auth|credential|cookie|signature|(?<![a-z])sig(?![a-z])")


def looks_secret(name: str) -> bool:
    """Whether a variable or header name suggests its value is a secret (`API_KEY`, `GH_TOKEN`)."""
    return _SECRET_NAME.search(name) is not None


# a generated credential rather than a word: token characters only, 8 or more of them, and digits
# among letters, a long number, or a long run mixing cases ("hook-Tq7x…", "123456789", "AzyoeNSDiJ…")
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9._~+=-]{8,}")


def looks_like_token(text: str) -> bool:
    """Whether a piece of a URL (a path part, a user, a dotless host) looks like a token or key, not
    a word: "hook-Tq7pushtoken" and "123456789" do, "session", "agents" and "localhost" do not."""
    if _TOKEN_CHARS.fullmatch(text) is None:
        return False
    digits, letters = any(c.isdigit() for c in text), any(c.isalpha() for c in text)
    mixed_case = any(c.isupper() for c in text) and any(c.islower() for c in text)
    return (digits and letters) or text.isdigit() or (len(text) >= 20 and mixed_case)


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
    return _masked_query(text)


def _masked_query(text: str) -> str:
    """`text` with the value of every secret-looking `?name=value` (also after `&`, `#` or `;`) masked."""

    def mask(match: re.Match[str]) -> str:
        return match[1] + MASK if looks_secret(unquote_plus(match[2])) else match[0]

    return _QUERY.sub(mask, text)
