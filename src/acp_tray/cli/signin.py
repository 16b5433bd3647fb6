"""`acp-tray login NAME [METHOD]` and `logout NAME`. A sign-in the agent does itself is the
daemon's; a terminal method runs here, interactively: the program found with the environment it
runs in (the method's `PATH` included), announced with every variable it sets (secret-looking
values masked). What is printed is what runs."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
from collections.abc import Mapping, Sequence

from acp_tray.cli.calls import ask
from acp_tray.cli.output import EXIT_FAILED, field, out, say
from acp_tray.control import api, replies
from acp_tray.logs.redact import MASK, looks_secret, redact
from acp_tray.prefs.names import shell_line
from acp_tray.presentation.text import DESCRIPTION_LIMIT


def find_program(program: str, cwd: str, env: Mapping[str, str]) -> str | None:
    """The full path `program` runs as with `env` in `cwd`: a name without a directory is looked up
    in that environment's PATH (not this process's), a relative path is taken from `cwd`."""
    if os.path.dirname(program):
        return shutil.which(os.path.join(cwd, program))
    return shutil.which(program, path=env.get("PATH", os.defpath))


def shown_command(argv: Sequence[str], sets: Mapping[str, str]) -> str:
    """`argv` quoted for pasting, then the variables the sign-in sets, each quoted as one word."""
    values = [f"{name}={MASK if looks_secret(name) else redact(value)}" for name, value in sorted(sets.items())]
    where = f" (it sets {shell_line(values)})" if values else ""
    return shell_line(argv) + where


def cmd_login(args: argparse.Namespace) -> int:
    """Sign in: an agent method is done by the daemon; a terminal method runs here, interactively."""
    code, result = ask(api.LOGIN, api.LoginArgs(args.name, args.method))
    if result is not None:
        if result["kind"] == "terminal":
            code = _terminal_login(args, result)
        else:
            out(f"{field(args.name)}: signed in with {field(result['method_name'])} · {_state_of(result)}")
    if args.pause:  # in a terminal window acp-tray opened: let the person read the outcome
        with contextlib.suppress(EOFError, KeyboardInterrupt):
            input("Press Enter to close this window.")
    return code


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
    except OSError as exc:
        say(f"cannot run {argv[0]}: {exc.strerror or exc}")
        exit_code = 127
    except KeyboardInterrupt:
        exit_code = 130
    code, result = ask(api.LOGIN_FINISHED, api.LoginFinishedArgs(args.name, plan["method"], ok=exit_code == 0))
    if result is None:
        return code
    if exit_code != 0:
        say(f"the sign-in did not succeed (exit code {exit_code}); {args.name} still needs it")
        return EXIT_FAILED
    out(f"{field(args.name)}: signed in · {_state_of(result)}")
    return 0


def cmd_logout(args: argparse.Namespace) -> int:
    code, result = ask(api.LOGOUT, api.NameArgs(args.name))
    if result is not None:
        out(f"{field(args.name)}: signed out")
    return code
