"""Sign-in for one agent (ACP auth): the methods it offers, whether it waits for a sign-in, and
doing one.

When the agent answers "authentication required" (-32000) to `session/new`, `session/load`,
`session/resume` or `session/prompt`, the agent's state becomes `needs sign-in` (its process
keeps running: no restart), the person is told once (a `SignInNeeded` event, until a sign-in
succeeds), and the handshake and the session queues wait at a gate. A sign-in opens it and
what waited goes on: the handshake retries its session, the queues send their prompts.

Method kinds: `agent` (also when the agent gave no type) is done by the agent itself through
`authenticate` (v1) / `auth/login` (v2), in flight as a `LoginRequest` (a given-up one is
cancelled in the agent); `terminal` runs the agent's own program with the method's args and env
(`agents/invocation.py`: in place of its default args, the ACP Registry's way, or after them; or,
declared the older way, the command in the method's `_meta`), interactively, outside the
connection (a zero exit means signed in: see `TerminalPlan`), and is shown as it will run (the
program its own PATH finds, the variables it sets); any other kind is shown with its description,
never sent blindly. A remote agent's terminal methods are not acp-tray's to run: they show no
command. A terminal method declared with a NUL or a control character is unusable, said so.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from acp.exceptions import RequestError

from acp_tray.agents.invocation import login_command
from acp_tray.agents.login_request import LoginRequest, Requester
from acp_tray.agents.turns import error_text
from acp_tray.events import AgentState, EventSink, SignInChoice, SignInNeeded
from acp_tray.prefs.command_rules import find_program
from acp_tray.prefs.names import pasteable, shown_variables
from acp_tray.protocol.auth import AuthMethod, login_method, login_params, logout_method, logout_params
from acp_tray.protocol.version import ProtocolVersion

LOGOUT_TIMEOUT = 30.0
T = TypeVar("T")
log = logging.getLogger(__name__)


class AuthRequiredError(Exception):
    """The agent wants a sign-in before it does this (raised where its -32000 answer came)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SignInError(Exception):
    """A sign-in that cannot be done as asked; the message says why and what to do."""


@dataclass(frozen=True)
class TerminalPlan:
    """A terminal method: the agent's own program with the method's args (`agents/invocation.py`:
    in place of its default args, or after them), or the method's own command (declared the older
    way), in the agent's directory, with `env` (the agent's configured env and the method's) laid
    over the caller's."""

    method: AuthMethod
    argv: list[str]
    cwd: str
    env: dict[str, str]


def terminal_plan(
    command: list[str], cwd: Path, env: dict[str, str], method: AuthMethod, program: Sequence[str] = ()
) -> TerminalPlan:
    """`program`: `command` without its default args, when known (agents/invocation.py)."""
    return TerminalPlan(method, login_command(command, method, program), str(cwd), {**env, **dict(method.env)})


class SignIn:
    """The sign-in state of one agent, kept across its connections (restarts) by its host."""

    def __init__(
        self,
        agent: str,
        sink: EventSink,
        status: Callable[[AgentState, str], None],
        *,
        remote: bool = False,
        command: Sequence[str] = (),
        program: Sequence[str] = (),
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        on_signed_in: Callable[[], None] = lambda: None,
    ) -> None:
        self.agent = agent
        self.command = tuple(command)  # the agent's own: what its terminal methods run (agents/invocation.py)
        self.program = tuple(program)  # `command` without its default args, when known (added from the registry)
        self.cwd = cwd or Path.home()  # the agent's directory, where they run
        self.env = dict(env or {})  # the agent's configured variables, which they get too
        self.remote = remote  # its command is not acp-tray's to run: no terminal sign-in
        self.methods: tuple[AuthMethod, ...] = ()
        self.can_log_out = False
        self.env_names: frozenset[str] | None = None  # the variables the agent started with (None: remote, or not yet)
        self.needed: str | None = None  # why, while the agent waits for a sign-in
        self._on_signed_in = on_signed_in  # the host's: its state goes back
        self._sink = sink
        self._status = status
        self._announced = False  # the person was told; again only after a sign-in succeeded
        self._open = asyncio.Event()
        self._open.set()
        self._refused = asyncio.Event()  # set by each refusal (auth_required), cleared by a sign-in
        self.pending: LoginRequest | None = None  # an agent method's sign-in in flight

    def offered(self, methods: tuple[AuthMethod, ...], can_log_out: bool) -> None:
        """A new connection's `initialize` answer: its methods; nothing waits on it yet."""
        self.methods = methods
        self.can_log_out = can_log_out
        self.needed = None
        for method in methods:
            if method.unusable is not None:
                log.warning("%s offers the sign-in method %s, which cannot be used: %s",
                            self.agent, method.method_id, method.unusable)  # fmt: skip
        self._refused.clear()
        self._open.set()

    def required(self, exc: RequestError) -> AuthRequiredError:
        """The agent answered auth_required: close the gate, say so (once), and return the error to raise."""
        reason = error_text(exc)
        self.needed = reason
        self._open.clear()
        self._refused.set()
        self._status(AgentState.NEEDS_SIGNIN, f"{reason}; {self.how_to_sign_in()}")
        if not self._announced:
            log.info("%s needs a sign-in (%s); it offers: %s", self.agent, reason,
                     "; ".join(m.describe() for m in self.methods) or "no method")  # fmt: skip
            self._announced = True
            methods = tuple(self._choice(m) for m in self.methods)
            self._sink(SignInNeeded(self.agent, reason, methods))
        return AuthRequiredError(reason)

    def how_to_sign_in(self) -> str:
        """What the person does: `acp-tray login NAME`, or (no method offered) the agent's own way."""
        if self.methods:
            return f"sign in: `{pasteable('login', self.agent)}`"
        return f"sign in the agent's own way, as it says, then `{pasteable('agents', 'restart', self.agent)}`"

    def _choice(self, method: AuthMethod) -> SignInChoice:
        command, sets = self.shown(method)
        return SignInChoice(
            method.method_id,
            method.name,
            method.kind,
            method.description or "",
            self.doable(method),
            method.vars,
            command,
            tuple(sets.items()),
            method.unusable or "",
        )

    def plan(self, method: AuthMethod) -> TerminalPlan:
        """How a terminal method runs for this agent."""
        return terminal_plan(list(self.command), self.cwd, self.env, method, self.program)

    def shown(self, method: AuthMethod) -> tuple[tuple[str, ...], dict[str, str]]:
        """A terminal method as it will run: the program the PATH of its environment finds (by its
        full path) with its arguments, and the variables it sets, their values for showing (secrets
        masked). Nothing for a remote agent's (not acp-tray's to run), an unusable one, or another kind."""
        if not method.runs_in_terminal or self.remote or method.unusable is not None:
            return (), {}
        plan = self.plan(method)
        if not plan.argv:
            return (), {}
        program = find_program(plan.argv[0], plan.cwd, {**os.environ, **plan.env}) or plan.argv[0]
        return (program, *plan.argv[1:]), shown_variables(plan.env)

    async def refused(self) -> None:
        """Once the agent refuses for want of a sign-in (at once while it still does)."""
        await self._refused.wait()

    def signed_in(self) -> None:
        """A sign-in succeeded: what waited goes on; a later refusal is announced again."""
        was_needed = self.needed is not None
        self.needed = None
        self._announced = False
        self._refused.clear()
        self._open.set()
        if was_needed:
            log.info("%s: signed in", self.agent)
            self._on_signed_in()

    def abandon(self) -> None:
        """The agent is stopped or replaced: whoever waits here stops waiting (and looks again)."""
        self._open.set()

    async def wait(self) -> None:
        """Until no sign-in is needed (at once when none is)."""
        await self._open.wait()

    async def until_signed_in(self, attempt: Callable[[], Awaitable[T]], ended: asyncio.Event) -> T:
        """Wait for a sign-in, then `attempt` again (and again, while it still wants one). Raises
        ConnectionError when the agent goes away (`ended`) before that."""
        while True:
            waiting = asyncio.ensure_future(self._open.wait())
            gone = asyncio.ensure_future(ended.wait())
            try:
                await asyncio.wait((waiting, gone), return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiting.cancel()
                gone.cancel()
            if not self._open.is_set():
                raise ConnectionError("the agent went away while waiting for a sign-in")
            try:
                return await attempt()
            except AuthRequiredError:
                continue  # `required` closed the gate again

    # what the person asked for ------------------------------------------------------------

    def doable(self, method: AuthMethod) -> bool:
        """Whether acp-tray can do `method` now: an agent or terminal method, or an env_var one whose
        variables the agent has (from its env, the person's, or the keyring: `agents secret`)."""
        if method.unusable is not None:
            return False
        if method.through_agent:
            return True
        if method.runs_in_terminal:
            return not self.remote
        names = self.env_names
        return method.from_environment and names is not None and all(v in names for v in method.vars)

    def choose(self, method_id: str | None) -> AuthMethod:
        """The method `method_id` (default: the only one acp-tray can do), or a SignInError that lists them."""
        if not self.methods:
            said = f" It said: {self.needed}." if self.needed else ""
            raise SignInError(
                f"{self.agent} offers no sign-in method acp-tray can use.{said} Sign in the agent's own way, "
                f"then `{pasteable('agents', 'restart', self.agent)}`"
            )
        listing = "; ".join(m.describe() for m in self.methods)
        if method_id is None:
            doable = [m for m in self.methods if self.doable(m)]
            if len(doable) == 1:
                return doable[0]
            raise SignInError(
                f"{self.agent} offers {len(self.methods)} ways to sign in; choose one with "
                f"`{pasteable('login', self.agent)} METHOD`: {listing}"
            )
        method = next((m for m in self.methods if m.method_id == method_id), None)
        if method is None:
            raise SignInError(f"{self.agent} offers no sign-in method {method_id!r}; it offers: {listing}")
        if method.unusable is not None:
            raise SignInError(
                f"{method.name} cannot be used: {method.unusable}, which no program can be given as it is. "
                f"Sign in as the agent's documentation says, then `{pasteable('agents', 'restart', self.agent)}`"
            )
        if method.from_environment and not self.doable(method):
            where = "a remote agent's environment" if self.remote else f"{self.agent}'s environment"
            missing = [v for v in method.vars if self.env_names is None or v not in self.env_names]
            raise SignInError(
                f"{method.name} needs {', '.join(missing)} in {where}: keep it in the OS keyring with "
                f"`{pasteable('agents', 'secret', self.agent, missing[0])}` (the agent restarts with it), "
                f"then `{pasteable('login', self.agent, method.method_id)}`"
            )
        if method.runs_in_terminal and self.remote:
            raise SignInError(
                f"{method.name} runs the agent's own command in a terminal, and {self.agent} is a remote agent: "
                f"sign in where it runs, then `{pasteable('agents', 'restart', self.agent)}`"
            )
        if not self.doable(method):
            what = f": {method.description}" if method.description else ""
            raise SignInError(
                f"{method.name}{what}. acp-tray cannot do this kind of sign-in ({method.kind}) for you; "
                f"sign in as the agent's documentation says, then `{pasteable('agents', 'restart', self.agent)}`"
            )
        return method

    async def login(
        self,
        connection: Requester | None,
        version: ProtocolVersion,
        method: AuthMethod,
        request_id: Callable[[object], object] = lambda params: None,
    ) -> None:
        """An `agent` method, or an env_var one whose variables the agent has: `authenticate` /
        `auth/login` on the live connection (`request_id`: the id a request's params went out with).
        Given up (`give_up`, or its time ran out): cancelled in the agent, and AbandonedError."""
        assert method.through_agent or (method.from_environment and self.doable(method))
        if connection is None:
            raise SignInError(f"{self.agent} is not running; start it, then sign in")
        if self.pending is not None:
            raise SignInError(f"a sign-in to {self.agent} is already under way; finish it or stop it first")
        params = login_params(method.method_id)
        self.pending = LoginRequest(connection, login_method(version), params)
        try:
            await self.pending.run(lambda: request_id(params))
        except RequestError as exc:
            raise SignInError(f"{self.agent} refused the sign-in with {method.name}: {error_text(exc)}") from None
        except ConnectionError:
            raise SignInError(f"{self.agent} went away during the sign-in") from None
        finally:
            self.pending = None
        self.signed_in()

    def give_up(self, why: str) -> bool:
        """The person stopped waiting for the sign-in in flight (if any: whether there was one)."""
        if self.pending is None:
            return False
        self.pending.give_up(why)
        return True

    async def logout(self, connection: Requester | None, version: ProtocolVersion) -> None:
        if not self.can_log_out:
            raise SignInError(f"{self.agent} does not offer signing out")
        if connection is None:
            raise SignInError(f"{self.agent} is not running")
        try:
            async with asyncio.timeout(LOGOUT_TIMEOUT):
                await connection.send_request(logout_method(version), logout_params())
        except RequestError as exc:
            raise SignInError(f"{self.agent} refused to sign out: {error_text(exc)}") from None
        except (TimeoutError, ConnectionError):
            raise SignInError(f"{self.agent} did not answer the sign-out") from None
