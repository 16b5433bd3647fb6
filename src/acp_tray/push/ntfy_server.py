"""Where an ntfy target's server is, read from its Apprise URL (ntfy://, ntfys://, with a user and
password or an access token): its address, and the `Authorization` a request to it carries. The
only services whose pushes can be answered; every other Apprise service is one-way."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

ANSWERING = frozenset({"ntfy", "ntfys"})  # URL schemes whose pushes carry buttons that answer
CLOUD = ("ntfy.sh", 443, True)  # `ntfy://TOPIC`: the public server


def answers_from_phone(service: str) -> bool:
    """Whether a target of `service` (its URL's scheme) can be answered from the phone."""
    return service in ANSWERING


@dataclass(frozen=True)
class NtfyServer:
    host: str
    port: int
    secure: bool
    authorization: str = ""  # the header's value ("Bearer tk_…", "Basic …"), or none

    @property
    def base(self) -> str:
        default = 443 if self.secure else 80
        port = "" if self.port == default else f":{self.port}"
        return f"{'https' if self.secure else 'http'}://{self.host}{port}"

    def url(self, topic: str) -> str:
        return f"{self.base}/{topic}"

    def headers(self) -> dict[str, str]:
        return {"Authorization": self.authorization} if self.authorization else {}


def _authorization(parsed: dict[str, Any]) -> str:
    if parsed.get("auth") == "token" and parsed.get("token"):
        return f"Bearer {parsed['token']}"
    user, password = parsed.get("user"), parsed.get("password")
    if user and password:
        return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return ""


def ntfy_server(url: str) -> NtfyServer | None:
    """The server an ntfy Apprise URL pushes to, as Apprise reads it; None for any other URL."""
    from acp_tray.push.sender import ntfy_plugin

    parsed = ntfy_plugin().parse_url(url)
    if not parsed:
        return None
    if parsed.get("mode") == "cloud" or not parsed.get("host"):
        host, port, secure = CLOUD
        return NtfyServer(host, port, secure)
    secure = bool(parsed.get("secure"))
    port = parsed.get("port")
    port = port if isinstance(port, int) else (443 if secure else 80)
    return NtfyServer(str(parsed["host"]), port, secure, _authorization(parsed))
