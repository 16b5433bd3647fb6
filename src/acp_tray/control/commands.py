"""The daemon's command API, as the control endpoint serves it: status, agents, sessions, prompts,
cancel, approvals, quit. Runs on the daemon's loop; each op reads or drives the daemon.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tray import __version__
from acp_tray.agents.approvals import ApprovalError
from acp_tray.agents.sessions import DEFAULT_SESSION, SessionKey
from acp_tray.agents.signin import AuthRequiredError, SignInError, terminal_plan
from acp_tray.agents.turns import HostedSession, PromptJob
from acp_tray.control.server import CommandError, Emit
from acp_tray.events import AgentState, AgentStatus, TurnEnded
from acp_tray.files import paths
from acp_tray.logs.redact import shown_url
from acp_tray.prefs.launch import command_problem, env_problem, text_problem
from acp_tray.prefs.load import PreferencesError
from acp_tray.prefs.names import agent_name_problem, pasteable
from acp_tray.prefs.write import add_agent, remove_agent, set_agent_command
from acp_tray.registry.install import agent_dir, uninstall

if TYPE_CHECKING:
    from acp_tray.agents.host import AgentHost
    from acp_tray.app.daemon import Daemon

CONNECT_WAIT = 30.0  # how long a prompt waits for a starting agent to connect
MAX_WAIT = 600.0  # the longest `agents.wait` (an npx agent's first start downloads it)
WAIT_STEP = 0.1
_ENDED = (AgentState.FAILED, AgentState.EXITED)
ABSENT_GRACE = 5.0  # an agent being restarted has no host for a moment


TITLE_LIMIT, NAME_LIMIT = 1000, 200  # characters of an approval's title and an option's id or name in replies
MAX_OPTIONS = 20


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text(args: dict[str, Any], key: str, *, required: bool = True) -> str | None:
    value = args.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise CommandError(f"{key!r} must be a non-empty string", "bad_request")
    return value


def _strings(args: dict[str, Any], key: str) -> list[str]:
    value = args.get(key)
    if not isinstance(value, list) or not value or not all(isinstance(c, str) for c in value):
        raise CommandError(f"{key!r} must be a non-empty list of strings", "bad_request")
    return value


def _detail(status: AgentStatus | None) -> str:
    return status.detail if status is not None else ""


def _env(args: dict[str, Any]) -> dict[str, str]:
    value = args.get("env") or {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise CommandError("'env' must be a table of strings", "bad_request")
    return value


def _launchable(command: list[str] | None, env: dict[str, str], url: str | None = None) -> None:
    """What no process can be started with, or the preferences file cannot keep, is refused here
    in plain words (the file's own rule: `prefs/launch.py`)."""
    for what, problem in (
        ("the agent's command", command_problem(command) if command is not None else None),
        ("its env", env_problem(env)),
        ("the URL", text_problem(url) if url is not None else None),
    ):
        if problem is not None:
            raise CommandError(f"{what}: {problem}", "bad_request")


class Commands:
    def __init__(self, daemon: Daemon) -> None:
        self._daemon = daemon
        self._started = time.time()

    async def __call__(self, op: str, args: dict[str, Any], emit: Emit) -> Any:
        handler = getattr(self, "op_" + op.replace(".", "_").replace("-", "_"), None)
        if handler is None:
            raise CommandError(f"unknown request {op!r}", "unknown_op")
        return await handler(args, emit)

    # reading -------------------------------------------------------------------------------

    def _agents(self) -> list[dict[str, Any]]:
        daemon = self._daemon
        rows = []
        for name, config in daemon.prefs.agents.items():
            status = daemon.agent_states.get(name)
            host = daemon.hosts.get(name)
            sessions = list(host.sessions.values()) if host is not None else []
            rows.append(
                {
                    "name": name,
                    "kind": "remote" if config.url else "local",
                    "target": shown_url(config.url) if config.url else " ".join(config.command or []),
                    "state": status.state.value if status else AgentState.STOPPED.value,
                    "detail": status.detail if status else "",
                    "sessions": len(sessions),
                    "busy": sum(s.current is not None for s in sessions),
                    "queued": sum(s.queued for s in sessions),
                    "permission": config.permission,
                    "sign_in_methods": [
                        {"id": m.method_id, "name": m.name, "kind": m.kind, "description": m.description}
                        for m in (host.signin.methods if host is not None else ())
                    ],
                }
            )
        return rows

    def _approvals(self) -> list[dict[str, Any]]:
        """Bounded whatever the agents send: capped requests, titles, options and their names."""
        return [
            {
                "id": p.approval_id,
                "agent": p.agent,
                "session_id": p.session_id,
                "title": _bounded(p.title, TITLE_LIMIT),
                "options": [
                    {"id": _bounded(o.option_id, NAME_LIMIT), "name": _bounded(o.name, NAME_LIMIT), "kind": o.kind}
                    for o in p.options[:MAX_OPTIONS]
                ],
            }
            for p in self._daemon.approvals.pending()
        ]

    async def op_status(self, args: dict[str, Any], emit: Emit) -> Any:
        daemon = self._daemon
        snapshot = daemon.snapshot()
        return {
            "version": __version__,
            "pid": os.getpid(),
            "uptime": round(time.time() - self._started, 1),
            "preferences": str(daemon.prefs_path) if daemon.prefs_path else None,
            "dnd": snapshot.dnd.describe(),
            "unread": snapshot.unread,
            "agents": self._agents(),
            "approvals": self._approvals(),
        }

    async def op_agents_list(self, args: dict[str, Any], emit: Emit) -> Any:
        return self._agents()

    async def op_approvals(self, args: dict[str, Any], emit: Emit) -> Any:
        return self._approvals()

    async def op_sessions(self, args: dict[str, Any], emit: Emit) -> Any:
        daemon = self._daemon
        rows: dict[tuple[str, str, str], dict[str, Any]] = {}
        for key in daemon.session_store.known():
            rows[(key.agent, key.cwd, key.name)] = {
                "agent": key.agent,
                "name": key.name,
                "cwd": key.cwd,
                "session_id": daemon.session_store.get(key),
                "state": "detached",
                "queued": 0,
                "turns": 0,
            }
        for host in daemon.hosts.values():
            for key, session in host.sessions.items():
                rows[(key.agent, key.cwd, key.name)] = {
                    "agent": key.agent,
                    "name": key.name,
                    "cwd": key.cwd,
                    "session_id": session.session_id,
                    "state": "running" if session.current is not None else "idle",
                    "queued": session.queued,
                    "turns": session.turns,
                }
        return [rows[k] for k in sorted(rows)]

    # agents --------------------------------------------------------------------------------

    def _change(self, change: Any) -> None:
        try:
            self._daemon.change_prefs(change)
        except PreferencesError as exc:
            raise CommandError(str(exc), "preferences") from None

    async def op_agents_add(self, args: dict[str, Any], emit: Emit) -> Any:
        name = _text(args, "name")
        assert name is not None
        problem = agent_name_problem(name)
        if problem is not None:
            raise CommandError(problem, "bad_request")
        command = args.get("command")
        url = _text(args, "url", required=False)
        if command is not None and (not isinstance(command, list) or not all(isinstance(c, str) for c in command)):
            raise CommandError("'command' must be a list of strings", "bad_request")
        if (command is None) == (url is None):
            raise CommandError("give a command (after --) or --url, one of the two", "bad_request")
        if command is not None and (not command or command[0].startswith("-")):
            raise CommandError("the agent's command must start with a program, not an option", "bad_request")
        env = _env(args)
        _launchable(command, env, url)
        self._change(lambda path: add_agent(path, name, command=command, url=url, env=env))
        return {"name": name, "preferences": str(self._daemon.prefs_path)}

    async def op_agents_replace(self, args: dict[str, Any], emit: Emit) -> Any:
        """A new command for an agent (`agents upgrade`, and its way back); it restarts with it."""
        name = _text(args, "name")
        assert name is not None
        self._host_config(name)
        command = _strings(args, "command")
        env = _env(args)
        _launchable(command, env)
        self._change(lambda path: set_agent_command(path, name, command, env))
        return {"name": name}

    async def op_agents_wait(self, args: dict[str, Any], emit: Emit) -> Any:
        """Wait until the agent, running `command` (when given), has connected: it answered the
        ACP `initialize` (a sign-in it then needs is about the account, not the program: `ready`
        says whether it also has its session). A run of that command that ends before it answered
        (it failed to start, exited, or failed the handshake) ends the wait: it did not connect."""
        name = _text(args, "name")
        assert name is not None
        self._host_config(name)
        command = _strings(args, "command") if args.get("command") is not None else None
        timeout = args.get("timeout", CONNECT_WAIT)
        if not isinstance(timeout, int | float) or not 0 <= timeout <= MAX_WAIT:
            raise CommandError(f"'timeout' must be a number of seconds from 0 to {MAX_WAIT}", "bad_request")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        daemon = self._daemon
        before = daemon.agent_states.get(name)  # a status from before this command's host runs
        absent_until = loop.time() + ABSENT_GRACE
        while True:  # bounded: only while a command waits (the host is replaced when prefs change)
            host = daemon.hosts.get(name)
            ours = host is not None and (command is None or list(host.spec.command) == command)
            status = daemon.agent_states.get(name)
            if not ours:
                before = status
            if host is None and not daemon.supervised(name) and loop.time() >= absent_until:
                deadline = loop.time()  # not running (stopped from the tray): it will not connect now
            settled = ours and status is not before and status is not None and status.state is not AgentState.STARTING
            if ours and host is not None and (host.connected.is_set() or (host.speaks_acp and settled)):
                state = status.state.value if status is not None else AgentState.CONNECTED.value
                ready = host.connected.is_set()
                return {"connected": True, "ready": ready, "state": state, "detail": "" if ready else _detail(status)}
            if (settled and status is not None and status.state in _ENDED) or loop.time() >= deadline:
                state = status.state.value if status else AgentState.STOPPED.value
                return {"connected": False, "ready": False, "state": state, "detail": _detail(status)}
            await asyncio.sleep(WAIT_STEP)

    async def op_agents_remove(self, args: dict[str, Any], emit: Emit) -> Any:
        name = _text(args, "name")
        assert name is not None
        self._host_config(name)
        self._change(lambda path: remove_agent(path, name))
        await self._daemon.stop_agent(name)  # stopped, so that its program can be deleted (Windows)
        root = paths.registry_agents_dir()
        files = agent_dir(root, name)
        try:
            freed = uninstall(name, root)
        except OSError as exc:
            return {"name": name, "files": str(files), "deleted": None, "problem": str(exc)}
        return {"name": name, "files": str(files) if freed is not None else None, "deleted": freed, "problem": None}

    async def op_agents_restart(self, args: dict[str, Any], emit: Emit) -> Any:
        name = _text(args, "name")
        assert name is not None
        self._host_config(name)
        self._daemon.agent_action("restart", name)
        return {"name": name}

    def _host_config(self, name: str) -> None:
        if name not in self._daemon.prefs.agents:
            known = ", ".join(self._daemon.prefs.agents) or "none"
            raise CommandError(f"no agent called {name!r} (configured: {known})", "not_found")

    def _running_host(self, name: str) -> AgentHost:
        self._host_config(name)
        host = self._daemon.hosts.get(name)
        if host is None or not self._daemon.supervised(name):
            status = self._daemon.agent_states.get(name)
            why = f"{status.state.value}: {status.detail}" if status else "stopped"
            raise CommandError(
                f"{name} is not running ({why}); try `{pasteable('agents', 'restart', name)}`", "not_running"
            )
        return host

    async def _connected_host(self, name: str) -> AgentHost:
        host = self._running_host(name)
        try:
            async with asyncio.timeout(CONNECT_WAIT):
                await host.connected.wait()
        except TimeoutError:
            status = self._daemon.agent_states.get(name)
            why = f"{status.state.value}: {status.detail}" if status else "starting"
            raise CommandError(f"{name} did not connect within {CONNECT_WAIT:g} s ({why})", "not_running") from None
        return host

    async def _signed_in_host(self, name: str, patient: bool) -> AgentHost:
        """Connected, or: waiting for a sign-in (patient: until it happens, across restarts of the
        agent; else a clear error at once)."""
        while True:
            host = self._running_host(name)
            if host.signin.needed is not None and not patient:
                raise CommandError(self._needs_signin(name), "needs_sign_in")
            if host.signin.needed is not None and not host.connected.is_set():
                await host.signin.wait()
                await asyncio.sleep(0)  # the handshake goes on first
                continue
            try:
                return await self._connected_host(name)
            except CommandError:
                if patient and host.signin.needed is not None:
                    continue  # it came to need a sign-in while starting
                raise

    @staticmethod
    def _needs_signin(name: str) -> str:
        return f"{name} needs you to sign in: `{pasteable('login', name)}` (prompts sent with --no-wait wait for it)"

    # sign-in -------------------------------------------------------------------------------

    async def op_login(self, args: dict[str, Any], emit: Emit) -> Any:
        """An `agent` method is done here; a `terminal` one is handed to the caller to run (its
        plan: the agent's command, cwd and env), who reports back with `login.finished`."""
        name = _text(args, "name")
        assert name is not None
        host = self._running_host(name)
        try:
            method = host.signin.choose(_text(args, "method", required=False))
            if method.runs_in_terminal:
                plan = terminal_plan(host.spec.command, host.spec.cwd, host.spec.env, method)
                return {"kind": "terminal", "method": method.method_id, "method_name": method.name,
                        "argv": plan.argv, "cwd": plan.cwd, "env": plan.env}  # fmt: skip
            await host.sign_in(method)
        except SignInError as exc:
            raise CommandError(str(exc), "sign_in") from None
        return {"kind": "agent", "method": method.method_id, "method_name": method.name, **await self._after(name)}

    async def op_login_finished(self, args: dict[str, Any], emit: Emit) -> Any:
        """The caller ran a terminal method: exit code 0 means signed in."""
        name = _text(args, "name")
        assert name is not None
        host = self._running_host(name)
        if args.get("ok") is True:
            host.signin.signed_in()
        return await self._after(name)

    async def _after(self, name: str) -> dict[str, Any]:
        """The agent's state once what waited on the sign-in had a moment to go on."""
        host = self._daemon.hosts.get(name)
        if host is not None and host.signin.needed is None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CONNECT_WAIT):
                    await host.connected.wait()
        if host is not None and (host.connected.is_set() or host.signin.needed is not None):
            state = AgentState.NEEDS_SIGNIN if host.signin.needed is not None else AgentState.CONNECTED
            return {"state": state.value, "detail": host.last_detail}  # the host's own (events may be queued)
        status = self._daemon.agent_states.get(name)
        return {"state": status.state.value if status else "stopped", "detail": status.detail if status else ""}

    async def op_logout(self, args: dict[str, Any], emit: Emit) -> Any:
        name = _text(args, "name")
        assert name is not None
        try:
            await self._running_host(name).sign_out()
        except SignInError as exc:
            raise CommandError(str(exc), "sign_in") from None
        return {"name": name}

    # prompts -------------------------------------------------------------------------------

    async def op_prompt(self, args: dict[str, Any], emit: Emit) -> Any:
        agent, text = _text(args, "agent"), _text(args, "text")
        assert agent is not None and text is not None
        name = _text(args, "session", required=False) or DEFAULT_SESSION
        cwd = _text(args, "cwd", required=False)
        if cwd is not None and (not Path(cwd).is_absolute() or not Path(cwd).is_dir()):
            raise CommandError(f"--cwd {cwd}: not an existing absolute directory", "bad_request")
        wait = args.get("wait", True) is not False
        if not wait:  # queued at once; the session opens behind it (an agent may be slow to answer)
            self._running_host(agent)
            job = PromptJob(SessionKey(agent, cwd or "", name), text)
            self._daemon.in_background(self._submit_later(agent, name, cwd, job))
            return {"job": job.job_id, "ahead": None, "session": name, "session_id": None}
        session = await self._open(agent, name, cwd)
        job = PromptJob(session.key, text, stream=emit)
        ahead = session.submit(job)
        emit({"event": "queued", "job": job.job_id, "ahead": ahead, "session": name, "session_id": session.session_id})
        outcome = await asyncio.shield(job.result)
        return {"job": job.job_id, "stop_reason": outcome.stop_reason, "error": outcome.error}

    async def _open(self, agent: str, name: str, cwd: str | None, *, patient: bool = False) -> HostedSession:
        """The session, opened; `patient` (nobody waits on the answer): through a sign-in, however long."""
        host = await self._signed_in_host(agent, patient)
        try:
            while True:
                try:
                    return await host.open_session(name, cwd)
                except AuthRequiredError:
                    if not patient:
                        raise CommandError(self._needs_signin(agent), "needs_sign_in") from None
                    await host.signin.wait()
        except ConnectionError as exc:
            raise CommandError(f"{agent}: {exc}", "not_running") from None
        except Exception as exc:  # the agent refused or did not answer session/new, load or resume
            raise CommandError(f"{agent} could not open session {name!r}: {exc}", "failed") from None

    async def _submit_later(self, agent: str, name: str, cwd: str | None, job: PromptJob) -> None:
        try:
            session = await self._open(agent, name, cwd, patient=True)
        except CommandError as exc:  # nobody is waiting: the person is told with acp-tray's own notice
            self._daemon.report(TurnEnded(agent, "", name, None, str(exc)))
            return
        job.key = session.key
        session.submit(job)

    async def op_cancel(self, args: dict[str, Any], emit: Emit) -> Any:
        job_id = _text(args, "job", required=False)
        if job_id is not None:  # Ctrl+C on a waiting `prompt`: exactly that prompt
            for host in self._daemon.hosts.values():
                found = host.find_job(job_id)
                if found is not None:
                    session, job = found
                    return {"cancelled": await session.cancel(job)}
            return {"cancelled": False}
        agent = _text(args, "agent")
        assert agent is not None
        self._host_config(agent)
        name = _text(args, "session", required=False) or DEFAULT_SESSION
        cwd = _text(args, "cwd", required=False)
        running = self._daemon.hosts.get(agent)
        if running is None:
            return {"cancelled": False}
        for key, session in running.sessions.items():
            if key.name == name and (cwd is None or key.cwd == cwd):
                return {"cancelled": await session.cancel()}
        return {"cancelled": False}

    # approvals -----------------------------------------------------------------------------

    async def op_approve(self, args: dict[str, Any], emit: Emit) -> Any:
        approval_id = _text(args, "id")
        assert approval_id is not None
        try:
            option = self._daemon.approvals.approve(approval_id, _text(args, "option", required=False))
        except ApprovalError as exc:
            raise CommandError(str(exc), "not_found") from None
        return {"id": approval_id, "option": option.option_id, "name": option.name, "kind": option.kind}

    async def op_deny(self, args: dict[str, Any], emit: Emit) -> Any:
        approval_id = _text(args, "id")
        assert approval_id is not None
        try:
            option = self._daemon.approvals.deny(approval_id)
        except ApprovalError as exc:
            raise CommandError(str(exc), "not_found") from None
        return {"id": approval_id, "option": option.option_id if option else None}

    # preferences ---------------------------------------------------------------------------

    async def op_prefs_apply(self, args: dict[str, Any], emit: Emit) -> Any:
        """The CLI wrote the preferences file (`dnd on`): apply it now; the DND it leads to."""
        self._daemon.apply_prefs_now()
        return {"dnd": self._daemon.router.dnd().describe(), "preferences": str(self._daemon.prefs_path)}

    async def op_quit(self, args: dict[str, Any], emit: Emit) -> Any:
        asyncio.get_running_loop().call_soon(self._daemon.request_stop)
        return {"stopping": True, "pid": os.getpid()}
