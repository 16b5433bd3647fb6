"""The push ops: `push.list`, `push.add` (the URL into the OS keyring), `push.test` (one message,
accepted or not) and `push.remove`. The keyring and Apprise are used in worker threads; a URL is
never part of a reply or a log line."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from acp_tray.control.api import ArgumentError, ErrorCode, OpError, PushAddArgs, PushNameArgs
from acp_tray.control.replies import NameReply, PushTargetRow, PushTestReply
from acp_tray.logs.redact import remember_secrets
from acp_tray.push.targets import PushTargets, push_url_secrets, target_name_problem
from acp_tray.state.secrets import SecretError

if TYPE_CHECKING:
    from acp_tray.app.daemon import Daemon

TEST_TITLE = "acp-tray: test"
TEST_BODY = "This is how acp-tray's pushes arrive here."


class PushOps:
    def __init__(self, daemon: Daemon) -> None:
        self._daemon = daemon

    @property
    def _targets(self) -> PushTargets:
        targets = self._daemon.pusher.targets
        if targets is None:
            raise OpError("this daemon was started without push targets")
        return targets

    def _rows(self) -> list[PushTargetRow]:
        chosen = self._daemon.pusher.chosen()
        return [{"name": n, "service": s, "chosen": n in chosen} for n, s in self._targets.read().items()]

    async def list(self) -> list[PushTargetRow]:
        return await asyncio.to_thread(self._rows)

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
        self._daemon.pusher.refresh()
        return next(row for row in await self.list() if row["name"] == args.name)

    async def test(self, args: PushNameArgs) -> PushTestReply:
        if args.name not in await asyncio.to_thread(self._targets.read):
            raise OpError(f"there is no push target {args.name} (see `acp-tray push list`)", ErrorCode.NOT_FOUND)
        accepted = await self._daemon.pusher.send_to(args.name, TEST_TITLE, TEST_BODY)
        detail = "the service accepted it" if accepted else "the service did not accept it (the log says why)"
        return {"name": args.name, "accepted": accepted, "detail": detail}

    async def remove(self, args: PushNameArgs) -> NameReply:
        try:
            removed = await asyncio.to_thread(self._targets.delete, args.name)
        except SecretError as exc:
            raise OpError(str(exc)) from None
        if not removed:
            raise OpError(f"there is no push target {args.name} (see `acp-tray push list`)", ErrorCode.NOT_FOUND)
        self._daemon.pusher.refresh()
        return {"name": args.name}
