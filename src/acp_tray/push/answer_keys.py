"""The secrets of answering from the phone, in the OS keyring beside the targets' URLs (service
"acp-tray"): the key that signs the buttons' tokens ("push-answers/key") and each ntfy target's
reply topic ("push-answers/reply/NAME"), random and long. Kept there, like the URLs, so that they
survive a restart (a press of an older push is then told it came too late, not taken for junk)
and are never in a file; made the first time a push carries buttons, never before. Blocking:
call it off the event loop. Once read, each is redacted from every log line."""

from __future__ import annotations

import base64
import contextlib
import secrets
from collections.abc import Callable

from acp_tray.logs.redact import remember_secrets
from acp_tray.push.answer_token import new_key
from acp_tray.state.secrets import SERVICE, SecretError, forget, keep, keyring_failed, keyring_module

KEY_ENTRY = "push-answers/key"
REPLY_ENTRY = "push-answers/reply/{name}"


class AnswerKeys:
    def __init__(self) -> None:
        self._key: bytes | None = None
        self._topics: dict[str, str] = {}

    def _read_or_make(self, entry: str, make: Callable[[], str]) -> str:
        try:
            value = keyring_module().get_password(SERVICE, entry)
        except Exception as exc:
            raise keyring_failed(exc) from None
        if value is None:
            value = make()
            keep(entry, value)
        remember_secrets([value])
        return str(value)

    def key(self) -> bytes:
        """The signing key (made and kept the first time); SecretError when the keyring cannot be used."""
        if self._key is None:
            text = self._read_or_make(KEY_ENTRY, lambda: base64.urlsafe_b64encode(new_key()).decode("ascii"))
            self._key = base64.urlsafe_b64decode(text)
        return self._key

    def reply_topic(self, name: str) -> str:
        """The target's reply topic (made and kept the first time); SecretError as `key`."""
        if name not in self._topics:
            self._topics[name] = self._read_or_make(REPLY_ENTRY.format(name=name), lambda: secrets.token_urlsafe(32))
        return self._topics[name]

    def forget_target(self, name: str) -> None:
        """The target was removed: its reply topic goes too (a new target of its name gets a new one)."""
        self._topics.pop(name, None)
        with contextlib.suppress(SecretError):  # the URL's removal says the keyring's trouble
            forget(REPLY_ENTRY.format(name=name))
