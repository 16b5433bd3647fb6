"""Answering from the phone: an ntfy push's buttons, and the presses that come back on the
target's reply topic. A button's token names the request, the button and an expiry, signed with
this daemon's key; a press answers only a request still waiting for that very asking, once, before
its expiry, through the same path as a button on the desk. Anything else on the topic is ignored
(logged at DEBUG, never its text). The phone is told what came of a real press: "Allowed", or
that it came too late (once per token). The reply topic is followed only while something
answerable from the phone waits, and LINGER after (a late press is told so); with `[push] answers`
off nothing here runs or is made."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from acp_tray.presentation.actions import ApprovalAnswer, QuestionAnswer
from acp_tray.push.answer_buttons import Answerable, Button, stale_words
from acp_tray.push.answer_keys import AnswerKeys
from acp_tray.push.answer_token import Press, new_nonce, read, sign
from acp_tray.push.ntfy_server import NtfyServer
from acp_tray.push.reply_listener import ReplyListener

log = logging.getLogger(__name__)

ENDED_LIMIT = 256  # requests whose end is remembered, to tell a late press what happened
LINGER = 600.0  # seconds a reply topic is still followed once nothing waits: a late press is told so
TOLD_LIMIT = 256  # stale tokens already told about (a replay is not answered again)

# (the action, the target's name) -> whether it answered (False: it was no longer waiting)
Answer = Callable[[ApprovalAnswer | QuestionAnswer, str], bool]
Reply = Callable[[str, str, str, str], Coroutine[Any, Any, bool]]  # (target, title, body, actions): one push
ServerOf = Callable[[str], NtfyServer | None]  # a target's ntfy server (blocking: the keyring)


@dataclass
class Ticket:
    answerable: Answerable
    nonce: str
    expires: int  # Unix time
    targets: set[str] = field(default_factory=set)
    pressed: asyncio.Future[str] | None = None  # `push test --answer`'s: the label pressed


class PhoneAnswers:
    def __init__(self, answer: Answer, reply: Reply, server_of: ServerOf, *, keys: AnswerKeys | None = None) -> None:
        self._answer = answer
        self._reply = reply
        self._server_of = server_of
        self._keys = keys or AnswerKeys()
        self._tickets: dict[str, Ticket] = {}
        self._ended: OrderedDict[tuple[str, str], str] = OrderedDict()  # (request, nonce) -> by whom
        self._told: OrderedDict[str, None] = OrderedDict()
        self._listeners: dict[str, ReplyListener] = {}
        self._lingering: dict[str, asyncio.TimerHandle] = {}  # listeners nothing waits on, stopping soon
        self._tests = 0

    async def buttons(self, name: str, answerable: Answerable) -> str:
        """The ntfy actions (JSON) of `answerable`'s push to target `name`, its reply topic followed
        from now; "" when it cannot be answered from there (the keyring failed, it ended)."""
        ticket = self._tickets.get(answerable.request_id)
        if ticket is None:
            if any(request == answerable.request_id for request, _ in self._ended):
                return ""  # answered before its push went out
            expires = int(time.time() + answerable.expires_after)
            ticket = self._tickets[answerable.request_id] = Ticket(answerable, new_nonce(), expires)
        try:
            key, topic, server = await asyncio.to_thread(self._secrets, name)
        except Exception as exc:  # the keyring, or a URL that is not ntfy's after all
            log.warning("push to %s goes without buttons: %s", name, exc)
            return ""
        if server is None:
            return ""
        ticket.targets.add(name)
        self._listen(name, server, topic)
        actions = [
            self._action(
                server, topic, button, sign(key, Press(answerable.request_id, index, ticket.expires, ticket.nonce))
            )
            for index, button in enumerate(answerable.buttons)
        ]
        return json.dumps(actions)

    def _secrets(self, name: str) -> tuple[bytes, str, NtfyServer | None]:
        return self._keys.key(), self._keys.reply_topic(name), self._server_of(name)

    @staticmethod
    def _action(server: NtfyServer, topic: str, button: Button, token: str) -> dict[str, Any]:
        """ntfy's `http` action: the app posts `token` to the reply topic (with the target's
        credentials, so that a protected server takes it) and clears the notification."""
        action: dict[str, Any] = {"action": "http", "label": button.label, "url": server.url(topic), "method": "POST"}
        if server.headers():
            action["headers"] = server.headers()
        return {**action, "body": token, "clear": True}

    def _listen(self, name: str, server: NtfyServer, topic: str) -> None:
        lingering = self._lingering.pop(name, None)
        if lingering is not None:
            lingering.cancel()
        listener = self._listeners.get(name)
        if listener is None:
            listener = self._listeners[name] = ReplyListener(name, server, topic, self._pressed)
        listener.start()

    async def settled(self, request_id: str, by: str) -> None:
        """`request_id` was answered (`by` whom), timed out or withdrawn: its buttons answer nothing
        more, and a reply topic nothing waits on any longer is let go."""
        ticket = self._tickets.pop(request_id, None)
        if ticket is None:
            return
        self._remember_end(request_id, ticket.nonce, by)
        await self._let_go(ticket.targets)

    async def _let_go(self, targets: set[str]) -> None:
        """Stop following the reply topics of `targets` that nothing waits on, after LINGER (a press
        that comes in the meantime is told it came too late); a listener resumes where it stopped."""
        waiting = {name for ticket in self._tickets.values() for name in ticket.targets}
        for name in targets - waiting:
            if name in self._listeners:
                self._lingering[name] = asyncio.get_running_loop().call_later(LINGER, self._stop_lingering, name)

    def _stop_lingering(self, name: str) -> None:
        self._lingering.pop(name, None)
        listener = self._listeners.get(name)
        if listener is not None:
            asyncio.get_running_loop().create_task(listener.stop())

    def forget_target(self, name: str) -> None:
        """Target `name` was removed: its reply topic is forgotten (blocking: the keyring)."""
        self._keys.forget_target(name)

    async def close(self) -> None:
        self._tickets.clear()
        for handle in self._lingering.values():
            handle.cancel()
        self._lingering.clear()
        for listener in self._listeners.values():
            await listener.stop()

    def _remember_end(self, request_id: str, nonce: str, by: str) -> None:
        self._ended[(request_id, nonce)] = by
        if len(self._ended) > ENDED_LIMIT:
            self._ended.popitem(last=False)

    def _pressed(self, name: str, text: str) -> None:
        """A message on `name`'s reply topic: a press of one of our buttons, or something to ignore."""
        key = self._keys.key()  # read before the topic was followed
        press = read(key, text)
        if press is None:
            log.debug("a message on the reply topic of %s is not a press of a button of ours; ignored", name)
            return
        ticket = self._tickets.get(press.request_id)
        now = time.time()
        if (
            ticket is not None
            and ticket.nonce == press.nonce
            and now <= press.expires
            and press.choice < len(ticket.answerable.buttons)
        ):
            button = ticket.answerable.buttons[press.choice]
            if self._answered(ticket, button, name):
                log.info("request %s answered from the phone (target %s): %s", press.request_id, name, button.label)
                self._tell(name, button.said, ticket.answerable.what)
                return
        self._late(name, press, text, now)

    def _answered(self, ticket: Ticket, button: Button, name: str) -> bool:
        request_id = ticket.answerable.request_id
        if button.action is None:  # a test: nothing to answer but the test itself
            if ticket.pressed is not None and not ticket.pressed.done():
                ticket.pressed.set_result(button.label)
            answered = True
        else:
            answered = self._answer(button.action, name)
        if answered:  # its own end comes through the events too; a second press must not wait for it
            self._tickets.pop(request_id, None)
            self._remember_end(request_id, ticket.nonce, f"phone:{name}")
        return answered

    def _late(self, name: str, press: Press, token: str, now: float) -> None:
        if token in self._told:
            log.debug("a press on the reply topic of %s was already told it came too late; ignored", name)
            return
        self._told[token] = None
        if len(self._told) > TOLD_LIMIT:
            self._told.popitem(last=False)
        words = stale_words(self._ended.get((press.request_id, press.nonce)), now > press.expires)
        log.info("a press from the phone (target %s) for request %s came too late: %s", name, press.request_id, words)
        self._tell(name, words, "")

    def _tell(self, name: str, title: str, body: str) -> None:
        asyncio.get_running_loop().create_task(self._reply(name, title, body or title, ""))

    async def test(
        self, name: str, message: tuple[str, str], buttons: tuple[Button, ...], wait: float
    ) -> tuple[bool, str | None]:
        """`push test NAME --answer`: a push (`message`: title, body) with `buttons` that answer
        nothing; (whether the service accepted it, the label pressed within `wait` seconds or None)."""
        self._tests += 1
        request_id = f"t{self._tests}"
        answerable = Answerable(request_id, buttons, wait, message[0])
        actions = await self.buttons(name, answerable)
        ticket = self._tickets.get(request_id)
        if not actions or ticket is None:
            return False, None
        ticket.pressed = asyncio.get_running_loop().create_future()
        accepted = await self._reply(name, *message, actions)
        try:
            return accepted, await asyncio.wait_for(asyncio.shield(ticket.pressed), wait) if accepted else None
        except TimeoutError:
            return accepted, None
        finally:
            await self.settled(request_id, "timeout")
