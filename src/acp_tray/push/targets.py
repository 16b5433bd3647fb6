"""Push targets: each an Apprise URL kept in the OS keyring (service "acp-tray", user "push/NAME");
the names and their services (the URL's scheme, e.g. "ntfy") in a 0600 file of the state dir, so a
daemon without targets never touches the keyring. A URL, once read, is redacted from every log line
(`remember_secrets`): it usually carries a token, and it is never shown, logged or written elsewhere.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from acp_tray.files.names_file import read_table, write_table
from acp_tray.logs.redact import looks_like_token, remember_secrets, url_secrets
from acp_tray.prefs.names import agent_name_problem
from acp_tray.state.secrets import SERVICE, SecretError, forget, keep, keyring_failed, keyring_module

log = logging.getLogger(__name__)

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://\S+$")


def target_name_problem(name: str) -> str | None:
    """Why `name` cannot name a push target, or None when it can."""
    return agent_name_problem(name, "push target")


def url_scheme(url: str) -> str | None:
    """The service an Apprise URL is for ("ntfy", "json", "tgram"), or None when it is not a URL."""
    match = _SCHEME.match(url.strip())
    return match.group(1).lower() if match else None


def push_url_secrets(url: str) -> list[str]:
    """What of `url` must never be shown: all of it, its password, its secret-looking query values,
    and the pieces of its user, dotless host and path that look like tokens (a webhook's token, a bot's key, a
    user key: `looks_like_token`). Ordinary words of a path ("session", "agents") stay readable."""
    found = [url, *url_secrets(url)]
    try:
        parts = urlsplit(url)
    except ValueError:
        return found
    userinfo, _, hostport = parts.netloc.rpartition("@")
    found.append(userinfo.partition(":")[2])  # a password, whatever it looks like
    host = [] if "." in hostport else hostport.split(":")  # a server's name, or a bot's token in its place
    pieces = [*userinfo.split(":"), *host, *parts.path.split("/")]
    for piece in pieces:
        found += [text for text in {piece, unquote(piece)} if looks_like_token(text)]
    return [value for value in found if value]


def _entry(name: str) -> str:
    return f"push/{name}"


class PushTargets:
    """The push targets: names and services here, URLs in the keyring (read on demand, remembered)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._urls: dict[str, str] = {}  # read from the keyring once, for as long as the daemon runs

    def read(self) -> dict[str, str]:
        """Each target's name and its service (the URL's scheme); {} without a file."""
        return {name: str(service) for name, service in read_table(self._path, "targets", "nothing is pushed").items()}

    def _write(self, targets: dict[str, str]) -> None:
        write_table(self._path, "targets", targets)

    def store(self, name: str, url: str) -> str:
        """Keep `url` as the target `name` (blocking: call it off an event loop); its service.
        SecretError for a bad name, something that is not a URL, or a keyring that cannot be used."""
        problem = target_name_problem(name)
        if problem is not None:
            raise SecretError(problem)
        url = url.strip()
        scheme = url_scheme(url)
        if scheme is None:
            raise SecretError(f"that is not an Apprise URL (like ntfy://ntfy.sh/TOPIC); nothing stored for {name}")
        remember_secrets(push_url_secrets(url))
        keep(_entry(name), url)
        self._urls[name] = url
        targets = self.read()
        targets[name] = scheme
        self._write(targets)
        return scheme

    def delete(self, name: str) -> bool:
        """Forget the target (blocking); False when there is none of that name."""
        targets = self.read()
        if name not in targets:
            return False
        forget(_entry(name))
        del targets[name]
        self._urls.pop(name, None)
        self._write(targets)
        return True

    def url(self, name: str) -> str | None:
        """The target's URL (blocking: the keyring); None when it is not there, said in the log."""
        if name in self._urls:
            return self._urls[name]
        try:
            url = keyring_module().get_password(SERVICE, _entry(name))
        except Exception as exc:
            log.warning("push target %s: %s", name, keyring_failed(exc))
            return None
        if url is None:
            log.warning("push target %s is listed but not in the keyring; add it again", name)
            return None
        remember_secrets(push_url_secrets(url))  # before anything could log it
        self._urls[name] = url
        return str(url)
