"""The push ops: `push.list` (with whether each target can be answered from the phone),
`push.add` (the URL into the OS keyring), `push.test` (one message, accepted or not; with `answer`,
a test approval whose press is awaited) and `push.remove`. The keyring and Apprise are used in worker threads; a URL is
never part of a reply or a log line. A keyring that holds an add or a removal (its dialog open) is
said to the caller (app/ops/keyring_wait.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from acp_tray.app.ops.keyring_wait import keyring_call
from acp_tray.app.publisher import Changed
from acp_tray.control.api import ANSWER_TEST_WAIT, PushAddArgs, PushNameArgs, PushTestArgs
from acp_tray.control.errors import ArgumentError, ErrorCode, OpError
from acp_tray.control.replies import NameReply, PushTargetRow, PushTestReply, Waiting
from acp_tray.control.server import Emit
from acp_tray.logs.redact import remember_secrets
from acp_tray.push.targets import PushTargets, push_url_secrets, target_name_problem
from acp_tray.state.secrets import SecretError

if TYPE_CHECKING:
    from acp_tray.app.publisher import TrayPublisher
    from acp_tray.prefs.model import Preferences
    from acp_tray.push.pusher import Pusher

TEST_TITLE = "acp-tray: test"
TEST_BODY = "This is how acp-tray's pushes arrive here."
ANSWER_TITLE = "acp-tray: test approval"
ANSWER_BODY = "Press a button: acp-tray says at the desk when the press arrived. It answers nothing."


class PushOps:
    def __init__(self, pusher: Pusher, prefs: Callable[[], Preferences], publisher: TrayPublisher) -> None:
        self._pusher = pusher
        self._prefs = prefs  # the preferences in force
        self._publisher = publisher  # its change feed: `watch` holds the targets

    @property
    def _targets(self) -> PushTargets:
        targets = self._pusher.targets
        if targets is None:
            raise OpError("this daemon was started without push targets")
        return targets

    async def list(self) -> list[PushTargetRow]:
        services = await asyncio.to_thread(self._targets.read)
        return target_rows(self._pusher, services, self._prefs().push.answers)

    async def add(self, args: PushAddArgs, emit: Emit[Waiting]) -> PushTargetRow:
        problem = target_name_problem(args.name)
        if problem is not None:
            raise ArgumentError(problem)
        from acp_tray.push.sender import url_problem

        remember_secrets(push_url_secrets(args.url.strip()))  # Apprise logs a URL it refuses, at ERROR
        try:
            problem = await asyncio.to_thread(url_problem, args.url.strip())
        except ImportError as exc:
            raise OpError(f"Apprise does not load ({exc}): install it with `pip install apprise`") from None
        if problem is not None:
            raise ArgumentError(f"{problem}; nothing stored for {args.name}")
        try:
            await keyring_call(lambda: self._targets.store(args.name, args.url), emit)
        except SecretError as exc:
            raise OpError(str(exc)) from None
        self._refreshed()
        return next(row for row in await self.list() if row["name"] == args.name)

    async def test(self, args: PushTestArgs) -> PushTestReply:
        if args.name not in await asyncio.to_thread(self._targets.read):
            raise OpError(f"there is no push target {args.name} (see `acp-tray push list`)", ErrorCode.NOT_FOUND)
        if args.answer:
            return await self._test_answer(args.name)
        accepted = await self._pusher.send_to(args.name, TEST_TITLE, TEST_BODY)
        detail = "the service accepted it" if accepted else "the service did not accept it (the log says why)"
        return {"name": args.name, "accepted": accepted, "detail": detail, "pressed": None}

    async def _test_answer(self, name: str) -> PushTestReply:
        started = time.monotonic()
        try:
            accepted, pressed = await self._pusher.test_answer(name, (ANSWER_TITLE, ANSWER_BODY), ANSWER_TEST_WAIT)
        except ValueError as exc:
            raise OpError(str(exc), ErrorCode.BAD_REQUEST) from None
        if not accepted:
            detail = "the service did not accept the test approval (the log says why)"
        elif pressed is None:
            detail = f"the test approval was accepted, but no press arrived in {ANSWER_TEST_WAIT:g} s"
        else:
            detail = f"your press of \u201c{pressed}\u201d arrived {time.monotonic() - started:.0f} s after the push"
        return {"name": name, "accepted": accepted, "detail": detail, "pressed": pressed}

    async def remove(self, args: PushNameArgs, emit: Emit[Waiting]) -> NameReply:
        try:
            removed = await keyring_call(lambda: self._targets.delete(args.name), emit)
        except SecretError as exc:
            raise OpError(str(exc)) from None
        if not removed:
            raise OpError(f"there is no push target {args.name} (see `acp-tray push list`)", ErrorCode.NOT_FOUND)
        await asyncio.to_thread(self._pusher.forget_answers, args.name)
        self._refreshed()
        return {"name": args.name}

    def _refreshed(self) -> None:
        """The targets were added or removed: the pusher reads them again, and `watch` says so."""
        self._pusher.refresh()
        self._publisher.changed(Changed.PUSH)


def target_rows(pusher: Pusher, services: dict[str, str], answers_on: bool) -> list[PushTargetRow]:
    """The targets (name → service) as rows: whether `[push] targets` picks each, whether it is
    answered from the phone (`answers_on`: `[push] answers`)."""
    chosen = pusher.chosen()
    return [
        {"name": n, "service": s, "chosen": n in chosen, "answers": _answers(pusher.answers_from(n), answers_on)}
        for n, s in services.items()
    ]


def _answers(can: bool, on: bool) -> Literal["on", "off", "one-way"]:
    return ("on" if on else "off") if can else "one-way"
