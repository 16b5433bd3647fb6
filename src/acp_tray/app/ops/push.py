"""The push ops: `push.list` (with whether each target can be answered from the phone),
`push.add` (the URL into the OS keyring), `push.test` (one message, accepted or not; with `answer`,
a test approval whose press is awaited) and `push.remove`. The keyring and Apprise are used in worker threads; a URL is
never part of a reply or a log line."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Literal

from acp_tray.app.publisher import Changed
from acp_tray.control.api import ANSWER_TEST_WAIT, PushAddArgs, PushNameArgs, PushTestArgs
from acp_tray.control.errors import ArgumentError, ErrorCode, OpError
from acp_tray.control.replies import NameReply, PushTargetRow, PushTestReply
from acp_tray.logs.redact import remember_secrets
from acp_tray.push.targets import PushTargets, push_url_secrets, target_name_problem
from acp_tray.state.secrets import SecretError

if TYPE_CHECKING:
    from acp_tray.app.daemon import Daemon
    from acp_tray.push.pusher import Pusher

TEST_TITLE = "acp-tray: test"
TEST_BODY = "This is how acp-tray's pushes arrive here."
ANSWER_TITLE = "acp-tray: test approval"
ANSWER_BODY = "Press a button: acp-tray says at the desk when the press arrived. It answers nothing."


class PushOps:
    def __init__(self, daemon: Daemon) -> None:
        self._daemon = daemon

    @property
    def _targets(self) -> PushTargets:
        targets = self._daemon.pusher.targets
        if targets is None:
            raise OpError("this daemon was started without push targets")
        return targets

    async def list(self) -> list[PushTargetRow]:
        services = await asyncio.to_thread(self._targets.read)
        return target_rows(self._daemon.pusher, services, self._daemon.prefs.push.answers)

    async def add(self, args: PushAddArgs) -> PushTargetRow:
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
            await asyncio.to_thread(self._targets.store, args.name, args.url)
        except SecretError as exc:
            raise OpError(str(exc)) from None
        self._refreshed()
        return next(row for row in await self.list() if row["name"] == args.name)

    async def test(self, args: PushTestArgs) -> PushTestReply:
        if args.name not in await asyncio.to_thread(self._targets.read):
            raise OpError(f"there is no push target {args.name} (see `acp-tray push list`)", ErrorCode.NOT_FOUND)
        if args.answer:
            return await self._test_answer(args.name)
        accepted = await self._daemon.pusher.send_to(args.name, TEST_TITLE, TEST_BODY)
        detail = "the service accepted it" if accepted else "the service did not accept it (the log says why)"
        return {"name": args.name, "accepted": accepted, "detail": detail, "pressed": None}

    async def _test_answer(self, name: str) -> PushTestReply:
        started = time.monotonic()
        try:
            accepted, pressed = await self._daemon.pusher.test_answer(
                name, (ANSWER_TITLE, ANSWER_BODY), ANSWER_TEST_WAIT
            )
        except ValueError as exc:
            raise OpError(str(exc), ErrorCode.BAD_REQUEST) from None
        if not accepted:
            detail = "the service did not accept the test approval (the log says why)"
        elif pressed is None:
            detail = f"the test approval was accepted, but no press arrived in {ANSWER_TEST_WAIT:g} s"
        else:
            detail = f"your press of \u201c{pressed}\u201d arrived {time.monotonic() - started:.0f} s after the push"
        return {"name": name, "accepted": accepted, "detail": detail, "pressed": pressed}

    async def remove(self, args: PushNameArgs) -> NameReply:
        try:
            removed = await asyncio.to_thread(self._targets.delete, args.name)
        except SecretError as exc:
            raise OpError(str(exc)) from None
        if not removed:
            raise OpError(f"there is no push target {args.name} (see `acp-tray push list`)", ErrorCode.NOT_FOUND)
        await asyncio.to_thread(self._daemon.pusher.forget_answers, args.name)
        self._refreshed()
        return {"name": args.name}

    def _refreshed(self) -> None:
        """The targets were added or removed: the pusher reads them again, and `watch` says so."""
        self._daemon.pusher.refresh()
        self._daemon.core.publisher.changed(Changed.PUSH)


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
