"""The prompt ops: `prompt` (queued in its session, the reply streamed to the caller; or queued
at once with `wait: false`) and `cancel` (one prompt, or a session's running turn)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from acp.exceptions import RequestError

from acp_tray.agents.sessions import DEFAULT_SESSION, SessionKey
from acp_tray.agents.signin import AuthRequiredError
from acp_tray.agents.turns import HostedSession, PromptJob, error_text
from acp_tray.app.ops.hosts import Hosts, needs_signin
from acp_tray.app.ops.waiting import WaitingPrompts
from acp_tray.control.api import CancelArgs, PromptArgs
from acp_tray.control.errors import ErrorCode, OpError
from acp_tray.control.replies import CancelReply, Chunk, PromptDone, PromptEvent, PromptQueued, Queued, Started
from acp_tray.control.server import Emit
from acp_tray.events import ReplyText, TurnEnded, TurnProgress, TurnStarted

if TYPE_CHECKING:
    from acp_tray.app.fleet import Fleet
    from acp_tray.app.lifetime import Lifetime
    from acp_tray.events import EventSink


def _told(progress: TurnProgress) -> PromptEvent:
    """What the caller is told of its turn's progress."""
    match progress:
        case TurnStarted(session, session_id):
            return Started(session, session_id)
        case ReplyText(text):
            return Chunk(text)


class PromptOps:
    def __init__(self, fleet: Fleet, hosts: Hosts, waiting: WaitingPrompts, life: Lifetime, report: EventSink) -> None:
        self._fleet = fleet
        self._hosts = hosts
        self._waiting = waiting
        self._life = life  # runs a prompt sent with --no-wait
        self._report = report  # acp-tray's own notice when such a prompt cannot be sent

    async def prompt(self, args: PromptArgs, emit: Emit[PromptEvent]) -> PromptDone | PromptQueued:
        agent, cwd = args.agent, args.cwd
        name = args.session or DEFAULT_SESSION
        if cwd is not None and not (Path(cwd).is_absolute() and await asyncio.to_thread(Path(cwd).is_dir)):
            raise OpError(f"--cwd {cwd}: not an existing absolute directory", ErrorCode.BAD_REQUEST)
        if not args.wait:  # queued at once; the session opens behind it (an agent may be slow to answer)
            self._hosts.running(agent)
            job = PromptJob(SessionKey(agent, cwd or "", name), args.text)
            self._life.in_background(self._submit_later(agent, name, cwd, job))
            return {"job": job.job_id, "ahead": None, "session": name, "session_id": None}
        session = await self._open(agent, name, cwd)
        job = PromptJob(session.key, args.text, stream=lambda progress: emit(_told(progress)))
        emit(Queued(job.job_id, session.submit(job), name, session.session_id))
        outcome = await asyncio.shield(job.result)
        return {"job": job.job_id, "stop_reason": outcome.stop_reason, "error": outcome.error}

    async def _open(self, agent: str, name: str, cwd: str | None, *, patient: bool = False) -> HostedSession:
        """The session, opened; `patient` (nobody waits on the answer): through a sign-in, however long."""
        host = await self._hosts.signed_in(agent, patient)
        try:
            while True:
                try:
                    return await host.open_session(name, cwd)
                except AuthRequiredError:
                    if not patient:
                        raise OpError(needs_signin(agent, host.signin.methods), ErrorCode.NEEDS_SIGN_IN) from None
                    await host.signin.wait()
        except ConnectionError as exc:
            raise OpError(f"{agent}: {exc}", ErrorCode.NOT_RUNNING) from None
        except RequestError as exc:  # the agent refused session/new, load or resume
            raise OpError(f"{agent} could not open session {name!r}: {error_text(exc)}", ErrorCode.FAILED) from None
        except Exception as exc:  # the agent refused or did not answer session/new, load or resume
            raise OpError(f"{agent} could not open session {name!r}: {exc}", ErrorCode.FAILED) from None

    async def _submit_later(self, agent: str, name: str, cwd: str | None, job: PromptJob) -> None:
        self._waiting.waiting(agent, name, cwd, job)  # listed until it is in its session
        try:
            session = await self._open(agent, name, cwd, patient=True)
        except OpError as exc:  # nobody is waiting: the person is told with acp-tray's own notice
            self._report(TurnEnded(agent, "", name, None, str(exc)))
            return
        finally:
            self._waiting.done(job)
        job.key = session.key
        session.submit(job)

    async def cancel(self, args: CancelArgs) -> CancelReply:
        if args.job is not None:  # Ctrl+C on a waiting `prompt`: exactly that prompt
            return await self._cancel_job(args.job)
        return await self._cancel_turn(args.agent or "", args.session or DEFAULT_SESSION, args.cwd)

    async def _cancel_job(self, job_id: str) -> CancelReply:
        for host in self._fleet.hosts.values():
            found = host.find_job(job_id)
            if found is not None:
                session, job = found
                return {"cancelled": await session.cancel(job)}
        return {"cancelled": False}

    async def _cancel_turn(self, agent: str, name: str, cwd: str | None) -> CancelReply:
        """The running turn of the agent's session `name` (in `cwd`, when given)."""
        self._hosts.configured(agent)
        running = self._fleet.hosts.get(agent)
        if running is None:
            return {"cancelled": False}
        for key, session in running.sessions.items():
            if key.name == name and (cwd is None or key.cwd == cwd):
                return {"cancelled": await session.cancel()}
        return {"cancelled": False}
