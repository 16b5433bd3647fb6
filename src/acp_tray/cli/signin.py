"""`acp-tray login NAME [METHOD]` and `logout NAME`. Without METHOD, an agent with several ways to
sign in has the person choose one (a numbered choice on a terminal; else they are listed). A
sign-in the agent does itself is the daemon's: waited for as long as it takes (said when it takes
long), Ctrl+C stops it (cancelled in the agent). A terminal method runs here, interactively: the
program found with the environment it runs in (the method's `PATH` included), announced with every
variable it sets (secret-looking values masked). What is printed is what runs."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from acp_tray.cli.calls import ask, failure
from acp_tray.cli.output import EXIT_FAILED, EXIT_INTERRUPTED, field, out, say
from acp_tray.control import api, replies
from acp_tray.control.client import NoDaemonError, ReplyError, call, request
from acp_tray.logs.text import DESCRIPTION_LIMIT
from acp_tray.prefs.command_rules import find_program
from acp_tray.prefs.names import pasteable, shown_command

STOP_WAIT = 30.0  # s: for the daemon to say what it did about a sign-in the person stopped


def cmd_login(args: argparse.Namespace) -> int:
    """Sign in: an agent method is done by the daemon; a terminal method runs here, interactively."""
    code, method = (0, args.method) if args.method else _choose(args.name)
    result = None
    if code == 0:
        code, result = _login(args.name, method)
    if result is not None:
        if result["kind"] == "terminal":
            code = _terminal_login(args, result)
        elif result["took"]:
            out(f"{field(args.name)}: signed in with {field(result['method_name'])} · {_state_of(result)}")
        else:  # accepted, yet nothing shows it signed in: never said to be "signed in"
            say(f"{field(args.name)}: {field(result['outcome'], DESCRIPTION_LIMIT)}")
            code = EXIT_FAILED
    if args.pause:  # in a terminal window acp-tray opened: let the person read the outcome
        with contextlib.suppress(EOFError, KeyboardInterrupt):
            input("Press Enter to close this window.")
    return code


def _choose(name: str) -> tuple[int, str | None]:
    """The method to sign in with when none was named: the person's choice among the ones acp-tray
    can do (asked on a terminal; else they are listed), or None to let the daemon take the only one."""
    code, rows = ask(api.AGENTS_LIST, api.Args())
    row = next((r for r in rows or [] if r["name"] == name), None)
    doable = [m for m in row["sign_in_methods"] if m.get("doable")] if row is not None else []
    if code != 0 or len(doable) < 2:
        return code, None
    lines = [f"  {n}. {_method_line(m)}" for n, m in enumerate(doable, 1)]
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        say(f"{name} offers {len(doable)} ways to sign in; choose one with `{pasteable('login', name)} METHOD`:")
        print("\n".join(lines), file=sys.stderr)
        return EXIT_FAILED, None
    out(f"{field(name)} offers {len(doable)} ways to sign in:\n" + "\n".join(lines))
    try:
        answer = input(f"Sign in with which one? [1-{len(doable)}] ").strip()
    except EOFError:
        return EXIT_FAILED, None
    if not answer.isdigit() or not 1 <= int(answer) <= len(doable):
        say(f"{answer!r} is not one of 1-{len(doable)}; nothing was done")
        return EXIT_FAILED, None
    return 0, doable[int(answer) - 1]["id"]


def _method_line(method: replies.SignInMethodRow) -> str:
    """'NAME (id)', what it runs (as it will run: the program found, the variables set) or its description."""
    command = method.get("command") or []
    described = f": {method['description']}" if method["description"] else ""
    what = f": runs {shown_command(command, method.get('sets') or {})}" if command else described
    return field(f"{method['name']} ({method['id']}){what}", DESCRIPTION_LIMIT)


def _login(name: str, method: str | None) -> tuple[int, replies.TerminalSignIn | replies.AgentSignIn | None]:
    """The `login` request, waited for as long as the sign-in takes; Ctrl+C stops it in the daemon too."""
    try:
        with call(api.LOGIN, api.LoginArgs(name, method), timeout=None) as pending:
            try:
                for event in pending.events():
                    _waiting(name, event)
            except KeyboardInterrupt:
                _stop(name)
                return EXIT_INTERRUPTED, None
            return 0, pending.reply()
    except (NoDaemonError, ReplyError) as exc:
        return failure(exc), None


def _waiting(name: str, event: replies.LoginEvent) -> None:
    match event:
        case replies.Waiting(text):
            out(f"{field(text, DESCRIPTION_LIMIT)}… (Ctrl+C stops waiting and cancels it)", flush=True)
        case replies.SignInSaid():
            _sign_in_page(name, event)


def _sign_in_page(name: str, event: replies.SignInSaid) -> None:
    """The address the agent wrote to sign in (the daemon cleaned and bounded it), whole on a line
    of its own (a terminal makes it a link); the code it then reads on its input asked for here."""
    said = f" ({field(event.text, DESCRIPTION_LIMIT)})" if event.text else ""
    url = field(event.url, replies.SIGN_IN_URL_LIMIT)
    out(f"{field(name)} asks you to open this page to sign in{said}:\n{url}", flush=True)
    if not event.reads_code:
        return
    try:
        code = input("Paste the code the page gives you, then Enter: ")
    except EOFError:
        say(f"nothing to read the code from; run `{pasteable('login', name)}` in a terminal to enter it")
        return
    try:
        request(api.LOGIN_CODE, api.LoginCodeArgs(name, code), timeout=STOP_WAIT)
    except (NoDaemonError, ReplyError) as exc:
        say(str(exc))
        return
    out(f"sent the code to {field(name)}; waiting for it to finish signing in…", flush=True)


def _stop(name: str) -> None:
    """Ctrl+C while the agent signs in: the daemon cancels it there; say what it did."""
    out("stopping the sign-in…", flush=True)
    try:
        stopped = request(api.LOGIN_CANCEL, api.NameArgs(name), timeout=STOP_WAIT)
    except (NoDaemonError, ReplyError) as exc:
        say(f"stopped waiting; the sign-in may go on in {name}: {exc}")
        return
    except KeyboardInterrupt:
        return
    say(field(stopped["detail"], DESCRIPTION_LIMIT))


def _state_of(result: replies.StateReply | replies.AgentSignIn) -> str:
    detail = f" ({field(result['detail'], DESCRIPTION_LIMIT)})" if result["detail"] else ""
    return f"{result['state']}{detail}"


def _terminal_login(args: argparse.Namespace, plan: replies.TerminalSignIn) -> int:
    import subprocess

    from acp_tray.files import paths
    from acp_tray.state.secrets import SecretNames

    sets = {str(name): str(value) for name, value in plan["env"].items()}
    env = {**os.environ, **SecretNames(paths.secret_names_file()).values(args.name), **sets}
    argv = [str(part) for part in plan["argv"]]
    program = find_program(argv[0], plan["cwd"], env)  # run by its full path: what runs is what is shown
    shown = field(shown_command([program or argv[0], *argv[1:]], sets), DESCRIPTION_LIMIT)
    out(f"Signing in to {field(args.name)} with {field(plan['method_name'])}: {shown}")
    try:
        if program is None:
            raise FileNotFoundError(f"not found in the PATH it runs with ({env.get('PATH', '')})")
        exit_code = subprocess.run([program, *argv[1:]], cwd=plan["cwd"], env=env, check=False).returncode
    except (OSError, ValueError) as exc:  # ValueError: a NUL, which the daemon refuses before this
        say(f"cannot run {argv[0]}: {getattr(exc, 'strerror', None) or exc}")
        exit_code = 127
    except KeyboardInterrupt:
        exit_code = 130
    code, result = ask(api.LOGIN_FINISHED, api.LoginFinishedArgs(args.name, plan["method"], ok=exit_code == 0))
    if result is None:
        return code
    if exit_code != 0:
        still = "still needs a sign-in" if result["state"] == "needs sign-in" else f"is as it was: {_state_of(result)}"
        say(f"the sign-in did not succeed (exit code {exit_code}); {args.name} {still}")
        return EXIT_FAILED
    if result["state"] == "needs sign-in":  # the command ended well, yet the agent refuses as before
        return _still_refuses(args.name, f"{field(plan['method_name'])} ended", result)
    out(f"{field(args.name)}: signed in · {_state_of(result)}")
    return 0


def _still_refuses(name: str, what: str, result: replies.StateReply) -> int:
    detail = field(result["detail"], DESCRIPTION_LIMIT)
    say(f"{field(name)}: {what}, but the sign-in did not take: it still refuses: {detail}")
    return EXIT_FAILED


def cmd_logout(args: argparse.Namespace) -> int:
    code, result = ask(api.LOGOUT, api.NameArgs(args.name))
    if result is not None:
        out(f"{field(args.name)}: signed out")
    return code
