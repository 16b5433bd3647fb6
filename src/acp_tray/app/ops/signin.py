"""The sign-in ops: `login` (an agent method done here, said to be waited for when it takes long,
with each address the agent writes meanwhile; a terminal method handed to the caller to run),
`login.code` (the code the agent asks for on its input), `login.cancel` (the person stops waiting),
`login.finished` (the caller ran it) and `logout`. A sign-in given up (cancelled, timed out, its
caller gone) is cancelled in the agent, and an agent stuck in it is restarted so that a retry works."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from acp_tray.agents.login_request import CANCEL_GRACE, AbandonedError, abandoned_text
from acp_tray.agents.signin import SignInError
from acp_tray.app.ops.hosts import Hosts
from acp_tray.app.signin_outcome import agent_outcome, settled
from acp_tray.control.api import LoginArgs, LoginCodeArgs, LoginFinishedArgs, NameArgs
from acp_tray.control.errors import ErrorCode, OpError
from acp_tray.control.replies import (
    AgentSignIn,
    LoginEvent,
    NameReply,
    SignInSaid,
    SignInStopped,
    StateReply,
    TerminalSignIn,
    Waiting,
)
from acp_tray.control.server import Emit
from acp_tray.events import AgentState
from acp_tray.prefs.names import pasteable

if TYPE_CHECKING:
    from acp_tray.agents.host import AgentHost
    from acp_tray.protocol.auth import AuthMethod

WAITING_AFTER = 1.0  # s: an agent's own sign-in not done by then is said to be waited for
RESTART_SAY = 10.0  # s: beyond the agent's grace, for `login.cancel` to hear what was done


class SignInOps:
    def __init__(self, hosts: Hosts) -> None:
        self._hosts = hosts
        self._stopping: dict[str, asyncio.Future[str]] = {}  # `login.cancel` waits here for what was done

    async def login(self, args: LoginArgs, emit: Emit[LoginEvent]) -> TerminalSignIn | AgentSignIn:
        """An `agent` method is done here; a `terminal` one is handed to the caller to run (its
        plan: the command, cwd and env), who reports back with `login.finished`. An agent still
        starting is waited for until it has said how it signs in; a terminal method needs no
        running agent (one that refused is started again once it is done)."""
        host = self._hosts.hosted(args.name)
        try:
            if self._hosts.is_running(args.name):
                await self._offered(host, emit)
            method = host.signin.choose(args.method)
            if method.runs_in_terminal:
                plan = host.signin.plan(method)
                return {"kind": "terminal", "method": method.method_id, "method_name": method.name,
                        "argv": plan.argv, "cwd": plan.cwd, "env": plan.env}  # fmt: skip
            host = self._hosts.running(args.name)
            was_connected = host.connected.is_set() and host.signin.needed is None  # and not refusing prompts
            await self._agent_login(host, method, emit)
        except SignInError as exc:
            raise OpError(str(exc), ErrorCode.SIGN_IN) from None
        after = await self._hosts.state_after_signin(args.name)
        refusal = host.signin.needed  # the agent's words only (the detail also says how to sign in)
        said: StateReply = {**after, "detail": refusal} if refusal is not None else after
        took, outcome = agent_outcome(args.name, method.name, was_connected, said)
        return {"kind": "agent", "method": method.method_id, "method_name": method.name, **after,
                "took": took, "outcome": outcome}  # fmt: skip

    async def _offered(self, host: AgentHost, emit: Emit[LoginEvent]) -> None:
        """Until a starting agent's handshake is through (connected, or it needs a sign-in): its
        sign-in methods are known then, and whether it needs one. Said as a wait."""
        if host.connected.is_set() or host.signin.needed is not None:
            return
        with contextlib.suppress(ConnectionError):
            emit(Waiting(f"{host.name} is starting; one moment"))
        await settled(host)
        if not (host.speaks_acp or host.signin.methods):
            raise SignInError(
                f"{host.name} has not finished starting ({host.last_detail or 'no answer yet'}); "
                f"try again in a moment: `{pasteable('login', host.name)}`"
            )

    async def _agent_login(self, host: AgentHost, method: AuthMethod, emit: Emit[LoginEvent]) -> None:
        """The agent's own sign-in; said to be waited for once it takes long, with each address it
        writes meanwhile; given up when the caller goes."""
        signing = asyncio.ensure_future(host.sign_in(method))
        gone = asyncio.ensure_future(emit.gone())
        said = _Said(host, emit)
        try:
            done, _ = await asyncio.wait((signing,), timeout=WAITING_AFTER)
            said.new()
            if not done:
                text = (
                    f"waiting for {host.name} to finish signing in with {method.name}: "
                    "if it opened your browser, finish signing in there"
                )
                with contextlib.suppress(ConnectionError):
                    emit(Waiting(text))
                while not signing.done() and not gone.done():
                    await said.until_new(signing, gone)
                if not signing.done():
                    host.signin.give_up("its caller stopped waiting")
            await signing
        except AbandonedError as exc:
            raise SignInError(self._abandoned(host.name, exc)) from None
        finally:
            gone.cancel()
            signing.cancel()

    def _abandoned(self, name: str, exc: AbandonedError) -> str:
        """Restart an agent stuck in a given-up sign-in; what was done, in words (also for `login.cancel`)."""
        if exc.stuck:
            self._hosts.restart(name)
        text = abandoned_text(name, exc)
        stopping = self._stopping.pop(name, None)
        if stopping is not None and not stopping.done():
            stopping.set_result(text)
        return text

    async def cancel(self, args: NameArgs) -> SignInStopped:
        """The person stops waiting for the agent's own sign-in: answered once it is cancelled in
        the agent (or the agent restarted)."""
        host = self._hosts.running(args.name)
        stopping = self._stopping.setdefault(args.name, asyncio.get_running_loop().create_future())
        if not host.signin.give_up("you stopped it"):
            self._stopping.pop(args.name, None)
            return {"name": args.name, "stopped": False, "detail": f"no sign-in to {args.name} is under way"}
        try:
            async with asyncio.timeout(CANCEL_GRACE + RESTART_SAY):
                detail = await asyncio.shield(stopping)
        except TimeoutError:
            detail = f"asked {args.name} to cancel its sign-in"
        return {"name": args.name, "stopped": True, "detail": detail}

    async def code(self, args: LoginCodeArgs) -> NameReply:
        """The code the agent's sign-in page gave the person, typed on the agent's input."""
        try:
            await self._hosts.running(args.name).type_code(args.code)
        except SignInError as exc:
            raise OpError(str(exc), ErrorCode.SIGN_IN) from None
        return {"name": args.name}

    async def finished(self, args: LoginFinishedArgs) -> StateReply:
        """The caller ran a terminal method: exit code 0 means signed in. An agent that is not
        running (it refused before the sign-in) is started again."""
        host = self._hosts.hosted(args.name)
        if args.ok and not self._hosts.is_running(args.name):
            self._hosts.restart(args.name)
            return {"state": AgentState.STARTING.value, "detail": "started again after the sign-in"}
        if args.ok:
            host.signin.signed_in()
        return await self._hosts.state_after_signin(args.name)

    async def logout(self, args: NameArgs) -> NameReply:
        try:
            await self._hosts.running(args.name).sign_out()
        except SignInError as exc:
            raise OpError(str(exc), ErrorCode.SIGN_IN) from None
        return {"name": args.name}


class _Said:
    """The addresses the agent writes while its sign-in waits, each streamed to the caller once."""

    def __init__(self, host: AgentHost, emit: Emit[LoginEvent]) -> None:
        self._lines = host.signin_lines
        self._emit = emit
        self._sent: set[str] = set()

    def new(self) -> None:
        """Stream the lines not streamed yet."""
        self._lines.changed.clear()
        for line in self._lines.lines:
            if line.url not in self._sent:
                self._sent.add(line.url)
                with contextlib.suppress(ConnectionError):
                    self._emit(SignInSaid(line.text, line.url, line.on_stdout))

    async def until_new(self, *ends: asyncio.Future[Any]) -> None:
        """Until the agent writes another address (then streamed) or one of `ends` is done."""
        more = asyncio.ensure_future(self._lines.changed.wait())
        try:
            await asyncio.wait((more, *ends), return_when=asyncio.FIRST_COMPLETED)
        finally:
            more.cancel()
        self.new()
