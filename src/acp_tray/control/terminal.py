"""The CLI commands that talk to a running daemon: status, agents, sessions, prompt, cancel,
approvals, approve, deny, quit. Standard library only (plus the control client), so they start fast.

Exit codes: 0 done; 1 the daemon refused or failed (the message says why); 2 usage;
3 no daemon running. `prompt` exits with its turn's stop reason: 0 end_turn, 4 max_tokens,
5 max_turn_requests, 6 refusal, 130 cancelled, 1 a failed prompt.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import sys
import time
from typing import Any

from acp_tray.control.client import NoDaemonError, ReplyError, call, request, result_of
from acp_tray.control.endpoint import LOCK_NAME, runtime_dir
from acp_tray.control.instance import lock_held
from acp_tray.prefs.names import agent_name_problem
from acp_tray.presentation.options import option_label
from acp_tray.presentation.text import DESCRIPTION_LIMIT, NAME_LIMIT, TITLE_LIMIT, plain_line, terminal_text
from acp_tray.registry.progress import megabytes

EXIT_FAILED = 1
EXIT_NO_DAEMON = 3
STOP_EXIT = {"end_turn": 0, "max_tokens": 4, "max_turn_requests": 5, "refusal": 6, "cancelled": 130}
PROMPT_TIMEOUT = None  # a turn takes as long as it takes
QUIT_WAIT = 20.0  # the daemon's own shutdown is bounded well below this (agents get 5 s)
VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _say(message: str) -> None:
    print(terminal_text(f"acp-tray: {message}"), file=sys.stderr)


def _out(text: str) -> None:
    """Everything printed here may carry an agent's text: no escape sequence reaches the terminal."""
    print(terminal_text(text))


def _print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=True, indent=None))  # escapes: control and bidi characters too


def _field(value: object, limit: int = NAME_LIMIT) -> str:
    return plain_line(str(value), limit)


def _run(args: argparse.Namespace, op: str, payload: dict[str, Any]) -> tuple[int, Any]:
    try:
        return 0, request(op, payload)
    except NoDaemonError as exc:
        _say(str(exc))
        return EXIT_NO_DAEMON, None
    except ReplyError as exc:
        _say(str(exc))
        return EXIT_FAILED, None


def _fetch(args: argparse.Namespace, op: str) -> tuple[int, Any]:
    """A data request: with --json the data is printed here and None returned (so is it on error)."""
    code, value = _run(args, op, {})
    if code == 0 and getattr(args, "json", False):
        _print_json(value)
        return 0, None
    return code, value


def _agent_line(row: dict[str, Any]) -> str:
    sessions = f"{row['sessions']} session" + ("s" if row["sessions"] != 1 else "")
    work = f", {row['busy']} busy" if row["busy"] else ""
    work += f", {row['queued']} queued" if row["queued"] else ""
    detail = f"  ({_field(row['detail'], DESCRIPTION_LIMIT)})" if row["detail"] else ""
    return f"  {_field(row['name']):<14} {row['state']:<10} {sessions}{work}{detail}"


def _approval_lines(approvals: list[dict[str, Any]]) -> list[str]:
    lines = []
    for a in approvals:
        options = ", ".join(
            f"{_field(o['id'])} = {option_label(str(o['name']), o['kind'], NAME_LIMIT)}" for o in a["options"]
        )
        title = _field(a["title"], TITLE_LIMIT)
        lines.append(f"  [{a['id']}] {_field(a['agent'])}: {title}  — options: {options or 'no options'}")
    return lines


def cmd_status(args: argparse.Namespace) -> int:
    code, status = _fetch(args, "status")
    if status is None:
        return code
    uptime = int(status["uptime"])
    _out(
        f"acp-tray {status['version']} running (pid {status['pid']}, up {uptime // 3600}h {uptime // 60 % 60}m)"
        f" · do not disturb: {status['dnd']} · {status['unread']} unread"
    )
    agents = status["agents"]
    connected = sum(a["state"] == "connected" for a in agents)
    _out(f"agents: {len(agents)} ({connected} connected)")
    for row in agents:
        _out(_agent_line(row))
    if status["approvals"]:
        _out(f"waiting for your approval: {len(status['approvals'])}")
        _out("\n".join(_approval_lines(status["approvals"])))
    return 0


def _name_allowed(name: str) -> bool:
    """A new agent's name is checked here first (the daemon checks it too): no round trip to refuse it."""
    problem = agent_name_problem(name)
    if problem is not None:
        _say(problem)
    return problem is None


def _registry_command(args: argparse.Namespace) -> str | None:
    """`agents search`, `agents upgrade`, and `agents add ID` (no command, no --url): the ACP Registry."""
    if args.action in ("search", "upgrade"):
        return f"cmd_{args.action}"
    if args.action == "add" and args.url is None and not [p for p in args.agent_command if p != "--"]:
        return "cmd_add"
    return None


def _add_target(rest: list[str], url: str | None) -> tuple[list[str] | None, str | None, str | None]:
    """(command, url, problem) from what follows `agents add NAME`: `-- COMMAND ARGS...` (a `--`
    inside the command is kept), or `--url URL` written after the name."""
    if rest[:1] == ["--"]:
        rest = rest[1:]
    elif rest[:1] == ["--url"] or (rest[:1] and rest[0].startswith("--url=")):
        given = rest[1:] if rest[0] == "--url" else [rest[0].removeprefix("--url=")]
        if len(given) != 1 or url is not None:
            return None, None, "--url takes one URL (the agent's command, if any, goes after `--`)"
        return None, given[0], None
    if rest and rest[0].startswith("-"):
        return (
            None,
            None,
            (
                f"the agent's command cannot start with {rest[0]!r} (an option?): "
                "write acp-tray's options before NAME and the command after `--`"
            ),
        )
    return _program_from_here(rest) or None, url, None


def _program_from_here(command: list[str]) -> list[str]:
    """`./my-agent ARGS`: a program given by a relative path is found where the person typed it,
    as their shell would, not in the agent's working directory (their home by default)."""
    if not command:
        return command
    program = command[0]
    if os.path.dirname(program) and not os.path.isabs(program):
        return [os.path.abspath(program), *command[1:]]
    return command


def cmd_agents(args: argparse.Namespace) -> int:
    registry = _registry_command(args)
    if registry is not None:
        import importlib

        return int(getattr(importlib.import_module("acp_tray.registry_commands"), registry)(args))
    if args.action == "list":
        code, rows = _fetch(args, "agents.list")
        if rows is None:
            return code
        for row in rows:
            target = _field(row["target"], DESCRIPTION_LIMIT)
            _out(_agent_line(row) + f"\n      {row['kind']}: {target} · permission: {row['permission']}")
        if not rows:
            _out("no agents configured: acp-tray agents add NAME -- COMMAND ARGS...")
        return 0
    if args.action == "add":
        if not _name_allowed(args.name):
            return 2
        command, url, problem = _add_target(args.agent_command, args.url)
        if problem is None and (command is None) == (url is None):
            problem = "give the agent's command after `--`, or --url ws://… (one of the two)"
        if problem is not None:
            _say(problem)
            return 2
        code, result = _run(args, "agents.add", {"name": args.name, "command": command, "url": url})
        if not code:
            _out(f"added {args.name} to {result['preferences']}; it is starting")
        return code
    code, result = _run(args, f"agents.{args.action}", {"name": args.name})
    if code:
        return code
    if args.action != "remove":
        _out(f"{args.name}: restarting")
        return 0
    files = ""
    if result.get("problem"):
        files = f"; its installed files are left in {result['files']} ({result['problem']})"
    elif result.get("deleted") is not None:
        files = f"; deleted its installed files ({megabytes(result['deleted'])}, {result['files']})"
    _out(f"{args.name}: removed (stopped){files}")
    return EXIT_FAILED if result.get("problem") else 0


def cmd_login(args: argparse.Namespace) -> int:
    """Sign in: an agent method is done by the daemon; a terminal method runs here, interactively."""
    code, result = _run(args, "login", {"name": args.name, "method": args.method})
    if not code:
        if result["kind"] == "terminal":
            code = _terminal_login(args, result)
        else:
            _out(f"{_field(args.name)}: signed in with {_field(result['method_name'])} · {_state_of(result)}")
    if args.pause:  # in a terminal window acp-tray opened: let the person read the outcome
        with contextlib.suppress(EOFError, KeyboardInterrupt):
            input("Press Enter to close this window.")
    return code


def _state_of(result: dict[str, Any]) -> str:
    detail = f" ({_field(result['detail'], DESCRIPTION_LIMIT)})" if result["detail"] else ""
    return f"{result['state']}{detail}"


def _terminal_login(args: argparse.Namespace, plan: dict[str, Any]) -> int:
    import subprocess

    from acp_tray.control.signin_command import find_program, shown_command
    from acp_tray.files import paths
    from acp_tray.state.secrets import SecretNames

    sets = {str(name): str(value) for name, value in plan["env"].items()}
    env = {**os.environ, **SecretNames(paths.secret_names_file()).values(args.name), **sets}
    argv = [str(part) for part in plan["argv"]]
    program = find_program(argv[0], plan["cwd"], env)  # run by its full path: what runs is what is shown
    shown = _field(shown_command([program or argv[0], *argv[1:]], sets), DESCRIPTION_LIMIT)
    _out(f"Signing in to {_field(args.name)} with {_field(plan['method_name'])}: {shown}")
    try:
        if program is None:
            raise FileNotFoundError(f"not found in the PATH it runs with ({env.get('PATH', '')})")
        exit_code = subprocess.run([program, *argv[1:]], cwd=plan["cwd"], env=env, check=False).returncode
    except OSError as exc:
        _say(f"cannot run {argv[0]}: {exc.strerror or exc}")
        exit_code = 127
    except KeyboardInterrupt:
        exit_code = 130
    code, result = _run(args, "login.finished", {"name": args.name, "method": plan["method"], "ok": exit_code == 0})
    if code:
        return code
    if exit_code != 0:
        _say(f"the sign-in did not succeed (exit code {exit_code}); {args.name} still needs it")
        return EXIT_FAILED
    _out(f"{_field(args.name)}: signed in · {_state_of(result)}")
    return 0


def cmd_logout(args: argparse.Namespace) -> int:
    code, _ = _run(args, "logout", {"name": args.name})
    if not code:
        _out(f"{_field(args.name)}: signed out")
    return code


def cmd_secret(args: argparse.Namespace) -> int:
    """Keep VAR for the agent in the OS keyring (read without echo), or delete it; then restart it."""
    from acp_tray.files import paths
    from acp_tray.state.secrets import SecretError, SecretNames

    if not VARIABLE.fullmatch(args.var):
        _say(f"{args.var!r} is not an environment variable name (letters, digits, _; not starting with a digit)")
        return 2
    names = SecretNames(paths.secret_names_file())
    try:
        if args.delete:
            if not names.delete(args.name, args.var):
                _say(f"{args.name} has no secret {args.var} in the keyring")
                return EXIT_FAILED
            _out(f"{args.name}: {args.var} deleted from the OS keyring")
        else:
            value = _read_secret(f"{args.var} for {args.name} (not shown): ")
            if not value:
                _say("nothing entered; nothing stored")
                return EXIT_FAILED
            names.store(args.name, args.var, value)
            _out(f"{args.name}: {args.var} stored in the OS keyring; given to the agent when it starts")
    except SecretError as exc:
        _say(str(exc))
        return EXIT_FAILED
    try:
        request("agents.restart", {"name": args.name})
        _out(f"{args.name}: restarting")
    except (NoDaemonError, ReplyError):
        pass  # no daemon, or no such agent yet: it is used when the agent starts
    return 0


def _read_secret(prompt: str) -> str:
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass(prompt)
    return sys.stdin.readline().rstrip("\r\n")  # piped in (scripts): never echoed either


def cmd_sessions(args: argparse.Namespace) -> int:
    code, rows = _fetch(args, "sessions")
    if rows is None:
        return code
    for row in rows:
        queued = f", {row['queued']} queued" if row["queued"] else ""
        name, session_id, cwd = _field(row["name"]), _field(row["session_id"]), _field(row["cwd"], DESCRIPTION_LIMIT)
        _out(f"{_field(row['agent']):<14} {name:<12} {row['state']:<9} {session_id}{queued}  {cwd}")
    if not rows:
        _out("no sessions yet")
    return 0


def cmd_approvals(args: argparse.Namespace) -> int:
    code, rows = _fetch(args, "approvals")
    if rows is None:
        return code
    _out("\n".join(_approval_lines(rows)) if rows else "nothing is waiting for your approval")
    return 0


def cmd_approve(args: argparse.Namespace) -> int:
    code, result = _run(args, "approve", {"id": args.id, "option": args.option})
    if not code:
        label = option_label(str(result["name"]), result["kind"], NAME_LIMIT)
        _out(f"request {args.id}: answered {result['option']} ({label})")
    return code


def cmd_deny(args: argparse.Namespace) -> int:
    code, result = _run(args, "deny", {"id": args.id})
    if not code:
        _out(f"request {args.id}: " + (f"answered {result['option']}" if result["option"] else "cancelled"))
    return code


def cmd_cancel(args: argparse.Namespace) -> int:
    code, result = _run(args, "cancel", {"agent": args.agent, "session": args.session, "cwd": _cwd(args)})
    if not code:
        _out("cancelling the running turn" if result["cancelled"] else "nothing was running")
    return code


def cmd_quit(args: argparse.Namespace) -> int:
    """Stop the daemon and wait (up to QUIT_WAIT seconds) until it has let go of its lock, so that
    an `acp-tray run` right after starts a new one; --no-wait returns once it has been told."""
    code, result = _run(args, "quit", {})
    if code:
        return code
    _out("acp-tray is stopping")  # at once: the wait below can take a few seconds (agents get 5 s)
    if args.no_wait:
        return 0
    lock = runtime_dir() / LOCK_NAME
    deadline = time.monotonic() + QUIT_WAIT
    while lock_held(lock):
        if time.monotonic() > deadline:
            pid = result.get("pid") if isinstance(result, dict) else None
            _say(
                f"acp-tray{f' (pid {pid})' if pid else ''} is still stopping after {QUIT_WAIT:g} s"
                " (an agent slow to exit?); `acp-tray status` shows whether it is still there"
            )
            return EXIT_FAILED
        time.sleep(0.05)
    _out("acp-tray stopped")
    return 0


def _cwd(args: argparse.Namespace) -> str | None:
    return os.path.abspath(args.cwd) if getattr(args, "cwd", None) else None


def cmd_prompt(args: argparse.Namespace) -> int:
    payload = {
        "agent": args.agent,
        "text": " ".join(args.text),
        "session": args.session,
        "cwd": _cwd(args),
        "wait": not args.no_wait,
    }
    job: str | None = None
    interrupted = False

    def on_interrupt(signum: int, frame: object) -> None:
        """Ctrl+C: the first cancels this prompt's turn (reading goes on: the call is retried);
        the second, or one before the daemon has queued the prompt, stops waiting."""
        nonlocal interrupted
        if interrupted or job is None:
            raise KeyboardInterrupt
        interrupted = True
        _say("cancelling (Ctrl+C again to stop waiting)")
        request("cancel", {"job": job})

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        with call("prompt", payload, timeout=PROMPT_TIMEOUT) as pending:
            while "event" in (message := pending.next()):
                job = _prompt_event(args, message) or job
    except NoDaemonError as exc:
        _say(str(exc))
        return EXIT_NO_DAEMON
    except ReplyError as exc:
        _say(str(exc))
        return EXIT_FAILED
    except KeyboardInterrupt:
        return STOP_EXIT["cancelled"]
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        result = result_of(message)
    except ReplyError as exc:
        _say(str(exc))
        return EXIT_FAILED
    return _prompt_result(args, result)


def _prompt_event(args: argparse.Namespace, message: dict[str, Any]) -> str | None:
    if args.json:
        _print_json(message)
    elif message["event"] == "chunk":
        sys.stdout.write(terminal_text(message["text"]))
        sys.stdout.flush()
        args.line_open = not message["text"].endswith("\n")
    elif message["event"] == "dropped":
        _say(f"{message.get('text', 'the rest of the reply was not streamed')}")
    elif message["event"] == "queued" and message["ahead"] and not args.no_wait:
        _say(f"queued behind {message['ahead']} prompt(s) in session {message['session']}")
    job = message.get("job")
    return job if isinstance(job, str) else None


def _prompt_result(args: argparse.Namespace, result: dict[str, Any]) -> int:
    if args.json:
        _print_json(result)
    if args.no_wait:
        if not args.json:
            ahead = f", {result['ahead']} ahead of it" if result["ahead"] else ""
            _out(f"queued as prompt {result['job']} in session {result['session']}{ahead}")
        return 0
    if getattr(args, "line_open", False):
        print()  # the reply did not end with a line break
    if result["error"]:
        _say(f"the prompt failed: {result['error']}")
        return EXIT_FAILED
    stop = result["stop_reason"]
    if stop != "end_turn" and not args.json:
        _say(f"the turn ended: {stop}")
    return STOP_EXIT.get(stop, EXIT_FAILED)
