"""The ops that change the agents: add, replace (a new command), wait (until connected), remove,
restart, stop and start (as the tray does them). A change to an agent is a change to the
preferences file, which the daemon applies."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tray.agents.sessions import SessionStoreError
from acp_tray.app.ops.hosts import Hosts
from acp_tray.app.ops.waiting import WaitingPrompts
from acp_tray.control.api import AddArgs, NameArgs, ReplaceArgs, WaitArgs
from acp_tray.control.errors import ErrorCode, OpError
from acp_tray.control.replies import AddedReply, NameReply, RemovedReply, WaitReply
from acp_tray.files import paths
from acp_tray.prefs.command_rules import command_problem, env_problem, text_problem
from acp_tray.prefs.load import PreferencesError
from acp_tray.prefs.model import Preferences, run_command
from acp_tray.prefs.names import agent_name_problem
from acp_tray.prefs.write import add_agent, remove_agent, set_agent_command
from acp_tray.registry.installed import agent_dir, uninstall

if TYPE_CHECKING:
    from acp_tray.app.fleet import Fleet
    from acp_tray.app.reloader import PrefsReloader

log = logging.getLogger(__name__)


def _launchable(command: list[str] | None, env: dict[str, str], url: str | None = None, cwd: str | None = None) -> None:
    """What no process can be started with, or the preferences file cannot keep, is refused here
    in plain words (the file's own rule: `prefs/command_rules.py`)."""
    for what, problem in (
        ("the agent's command", command_problem(command) if command is not None else None),
        ("its env", env_problem(env)),
        ("the URL", text_problem(url) if url is not None else None),
        ("the working directory", text_problem(cwd) if cwd is not None else None),
    ):
        if problem is not None:
            raise OpError(f"{what}: {problem}", ErrorCode.BAD_REQUEST)


class AgentOps:
    def __init__(self, fleet: Fleet, reloader: PrefsReloader, hosts: Hosts, waiting: WaitingPrompts) -> None:
        self._fleet = fleet
        self._reloader = reloader  # changes the preferences file, and applies it
        self._hosts = hosts
        self._waiting = waiting  # prompts waiting for an agent's session: they fail when it is removed

    def _change(self, change: Callable[[Path], Preferences]) -> None:
        try:
            self._reloader.change_prefs(change)
        except PreferencesError as exc:
            raise OpError(str(exc), ErrorCode.PREFERENCES) from None

    async def add(self, args: AddArgs) -> AddedReply:
        name, command, url, env = args.name, args.command, args.url, args.env
        problem = agent_name_problem(name)
        if problem is not None:
            raise OpError(problem, ErrorCode.BAD_REQUEST)
        if command is not None and command[0].startswith("-"):
            raise OpError("the agent's command must start with a program, not an option", ErrorCode.BAD_REQUEST)
        _launchable(command, env, url, args.cwd)
        self._change(
            lambda path: add_agent(
                path, name, command=command, url=url, env=env,
                headers=args.headers, cwd=args.cwd, permission=args.permission,
            )
        )  # fmt: skip
        return {"name": name, "preferences": str(self._reloader.path)}

    async def replace(self, args: ReplaceArgs) -> NameReply:
        """A new command for an agent (`agents upgrade`, and its way back; the window's "Change", with
        its working directory and environment); it restarts with it."""
        self._hosts.configured(args.name)
        _launchable(args.command, args.env, cwd=args.cwd)
        self._change(
            lambda path: set_agent_command(
                path, args.name, args.command, args.env, cwd=args.cwd, unset=args.unset or ()
            )
        )
        return {"name": args.name}

    async def wait(self, args: WaitArgs) -> WaitReply:
        """Wait until the agent, running `command` (when given), has connected: it answered the
        ACP `initialize` (a sign-in it then needs is about the account, not the program: `ready`
        says whether it also has its session). A run of that command that ends before it answered
        (it failed to start, exited, or failed the handshake) ends the wait: it did not connect."""
        command = run_command(args.command) if args.command is not None else None  # as the host runs it
        self._hosts.configured(args.name)
        arrival = await self._fleet.until_connected(args.name, command, args.timeout)
        return {"connected": arrival.connected, "ready": arrival.ready, "state": arrival.state.value,
                "detail": arrival.detail}  # fmt: skip

    async def remove(self, args: NameArgs) -> RemovedReply:
        name = args.name
        self._hosts.configured(name)
        self._change(lambda path: remove_agent(path, name))
        await self._fleet.stop_agent(name)  # stopped, so that its program can be deleted (Windows)
        self._waiting.removed(name)
        try:
            self._fleet.store.forget(name)  # its sessions are gone with it
        except SessionStoreError as exc:
            log.warning("%s removed, but its sessions are still listed: %s", name, exc)
        root = paths.registry_agents_dir()
        files = agent_dir(root, name)
        try:
            freed = uninstall(name, root)
        except OSError as exc:
            return {"name": name, "files": str(files), "deleted": None, "problem": str(exc)}
        return {"name": name, "files": str(files) if freed is not None else None, "deleted": freed, "problem": None}

    async def restart(self, args: NameArgs) -> NameReply:
        self._hosts.configured(args.name)
        self._fleet.agent_action("restart", args.name)
        return {"name": args.name}

    async def stop(self, args: NameArgs) -> NameReply:
        """As the tray's Stop: it stays stopped (also through a reload of the preferences) until started.
        Answered once it has stopped, so that "stopped" is what the caller says next."""
        self._hosts.configured(args.name)
        await self._fleet.stop_agent(args.name, held=True)
        return {"name": args.name}

    async def start(self, args: NameArgs) -> NameReply:
        """As the tray's Start: an agent that is running already is left as it is."""
        self._hosts.configured(args.name)
        self._fleet.agent_action("start", args.name)
        return {"name": args.name}
