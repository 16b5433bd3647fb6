"""The agents' hosts as the ops find them: configured, running, connected, signed in; each lookup
that fails is an error reply saying why and what to do."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from acp_tray.app.signin_outcome import settled, state_after_signin
from acp_tray.control.api import CONNECT_WAIT
from acp_tray.control.errors import ErrorCode, OpError
from acp_tray.control.replies import StateReply
from acp_tray.prefs.names import pasteable

if TYPE_CHECKING:
    from acp_tray.agents.host import AgentHost
    from acp_tray.app.fleet import Fleet
    from acp_tray.prefs.model import Preferences
    from acp_tray.protocol.auth import AuthMethod


def needs_signin(name: str, methods: Sequence[AuthMethod]) -> str:
    """A prompt refused for want of a sign-in: how to sign in (`login`, when the agent offers a way)."""
    if not methods:
        how = f"it offers no way acp-tray can, so sign in its own way, then `{pasteable('agents', 'restart', name)}`"
        return f"{name} needs you to sign in: {how}"
    return f"{name} needs you to sign in: `{pasteable('login', name)}` (prompts sent with --no-wait wait for it)"


class Hosts:
    def __init__(self, fleet: Fleet, prefs: Callable[[], Preferences]) -> None:
        self._fleet = fleet
        self._prefs = prefs  # the preferences in force

    def configured(self, name: str) -> None:
        agents = self._prefs().agents
        if name not in agents:
            known = ", ".join(agents) or "none"
            raise OpError(f"no agent called {name!r} (configured: {known})", ErrorCode.NOT_FOUND)

    def hosted(self, name: str) -> AgentHost:
        """The agent's host, running or not (one that refused or could not start is kept)."""
        self.configured(name)
        host = self._fleet.hosts.get(name)
        return host if host is not None else self.running(name)

    def is_running(self, name: str) -> bool:
        return name in self._fleet.hosts and self._fleet.supervised(name)

    def running(self, name: str) -> AgentHost:
        self.configured(name)
        host = self._fleet.hosts.get(name)
        if host is None or not self._fleet.supervised(name):
            status = self._fleet.states.get(name)
            why = f"{status.state.value}: {status.detail}" if status else "stopped"
            raise OpError(
                f"{name} is not running ({why}); try `{pasteable('agents', 'restart', name)}`", ErrorCode.NOT_RUNNING
            )
        return host

    async def connected(self, name: str) -> AgentHost:
        """The agent once connected; an error as soon as it turns out to need a sign-in instead."""
        host = self.running(name)
        await settled(host)
        if host.connected.is_set():
            return host
        if host.signin.needed is not None:
            raise OpError(needs_signin(name, host.signin.methods), ErrorCode.NEEDS_SIGN_IN)
        status = self._fleet.states.get(name)
        why = f"{status.state.value}: {status.detail}" if status else "starting"
        raise OpError(f"{name} did not connect within {CONNECT_WAIT:g} s ({why})", ErrorCode.NOT_RUNNING)

    async def signed_in(self, name: str, patient: bool) -> AgentHost:
        """Connected, or: waiting for a sign-in (patient: until it happens, across restarts of the
        agent; else a clear error at once)."""
        while True:
            host = self.running(name)
            if host.signin.needed is not None and not patient:
                raise OpError(needs_signin(name, host.signin.methods), ErrorCode.NEEDS_SIGN_IN)
            if host.signin.needed is not None and not host.connected.is_set():
                await host.signin.wait()
                await asyncio.sleep(0)  # the handshake goes on first
                continue
            try:
                return await self.connected(name)
            except OpError:
                if patient and host.signin.needed is not None:
                    continue  # it came to need a sign-in while starting
                raise

    def restart(self, name: str) -> None:
        """Start `name` again after the person acted on why it would not work (it refused, or
        needed a sign-in). A refused agent is never retried on its own."""
        self._fleet.agent_action("restart", name)

    async def state_after_signin(self, name: str) -> StateReply:
        return await state_after_signin(self._fleet.hosts.get(name), lambda: self._fleet.states.get(name))
