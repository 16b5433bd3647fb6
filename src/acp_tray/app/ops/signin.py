"""The sign-in ops: `login` (an agent method done here; a terminal method handed to the caller to
run), `login.finished` (the caller ran it) and `logout`."""

from __future__ import annotations

from acp_tray.agents.signin import SignInError, terminal_plan
from acp_tray.app.ops.hosts import Hosts
from acp_tray.control.api import ErrorCode, LoginArgs, LoginFinishedArgs, NameArgs, OpError
from acp_tray.control.replies import AgentSignIn, NameReply, StateReply, TerminalSignIn


class SignInOps:
    def __init__(self, hosts: Hosts) -> None:
        self._hosts = hosts

    async def login(self, args: LoginArgs) -> TerminalSignIn | AgentSignIn:
        """An `agent` method is done here; a `terminal` one is handed to the caller to run (its
        plan: the agent's command, cwd and env), who reports back with `login.finished`."""
        host = self._hosts.running(args.name)
        try:
            method = host.signin.choose(args.method)
            if method.runs_in_terminal:
                plan = terminal_plan(host.spec.command, host.spec.cwd, host.spec.env, method)
                return {"kind": "terminal", "method": method.method_id, "method_name": method.name,
                        "argv": plan.argv, "cwd": plan.cwd, "env": plan.env}  # fmt: skip
            await host.sign_in(method)
        except SignInError as exc:
            raise OpError(str(exc), ErrorCode.SIGN_IN) from None
        after = await self._hosts.state_after_signin(args.name)
        return {"kind": "agent", "method": method.method_id, "method_name": method.name, **after}

    async def finished(self, args: LoginFinishedArgs) -> StateReply:
        """The caller ran a terminal method: exit code 0 means signed in."""
        host = self._hosts.running(args.name)
        if args.ok:
            host.signin.signed_in()
        return await self._hosts.state_after_signin(args.name)

    async def logout(self, args: NameArgs) -> NameReply:
        try:
            await self._hosts.running(args.name).sign_out()
        except SignInError as exc:
            raise OpError(str(exc), ErrorCode.SIGN_IN) from None
        return {"name": args.name}
