"""The `acp-tray` command line: the parser, then the command chosen, from its own module in this
package (imported only when chosen, so that `acp-tray status` and friends do not pay for the ACP
SDK, pydantic or the tray)."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import sys
from typing import Any, get_args

from acp_tray import __version__
from acp_tray.cli.output import EXIT_FAILED, EXIT_INTERRUPTED
from acp_tray.files import paths
from acp_tray.logs.setup import install
from acp_tray.presentation.window_pages import WindowPage

log = logging.getLogger("acp_tray")


def _setup_logging(verbosity: int) -> None:
    level = logging.WARNING if verbosity == 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    handler = install(logging.StreamHandler(sys.stderr), verbosity)
    handler.setFormatter(logging.Formatter("acp-tray: %(levelname)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def _lazy(module: str, name: str | None = None) -> Any:
    """`cmd_NAME` of `acp_tray.cli.MODULE` (NAME: the module's by default), imported when it runs."""

    def run(args: argparse.Namespace) -> int:
        return int(getattr(importlib.import_module(f"acp_tray.cli.{module}"), f"cmd_{name or module}")(args))

    return run


# parser -------------------------------------------------------------------------------------


def _count(text: str) -> int:
    """A number of things: 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative: give how many (0 or more)")
    return value


def _session_name(text: str) -> str:
    """A session's name: text (argv that is not UTF-8 arrives with lone surrogates)."""
    from acp_tray.control.api import session_name_problem

    problem = session_name_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def _port(text: str) -> int:
    """A TCP port: 1 to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 < value < 65536:
        raise argparse.ArgumentTypeError(f"{value} is not a port: give 1 to 65535 (above 1023 needs no privileges)")
    return value


def _common_options(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0 if default is None else default,
        help="more log output (-vv: debug; -vvv: other libraries' debug too)",
    )
    parser.add_argument(
        "--config", metavar="PATH", default=default, help=f"preferences file (default: {paths.config_file()})"
    )


def build_parser(*, ui_only: bool = False) -> argparse.ArgumentParser:
    """The whole command line; `ui_only`: with the `ui` command alone (what `acp-tray ui ...` parses:
    the tray's "Open acp-tray…" does not build the other commands' parsers)."""
    parser = argparse.ArgumentParser(prog="acp-tray", description="Desktop companion for headless ACP agents.")
    parser.add_argument("--version", action="version", version=f"acp-tray {__version__}")
    _common_options(parser, None)
    common = argparse.ArgumentParser(add_help=False)
    _common_options(common, argparse.SUPPRESS)  # also accepted after the command, without resetting
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    if ui_only:
        _ui_command(commands, common)
        return parser

    run = commands.add_parser("run", help="start the daemon", parents=[common])
    run.add_argument("--headless", action="store_true", help="present notices on the console (no tray)")
    run.set_defaults(func=_lazy("run"))

    history = commands.add_parser("history", help="show notices received so far (local only)", parents=[common])
    history.add_argument("--json", action="store_true", help="one JSON object per line")
    history.add_argument("-n", "--limit", type=_count, default=None, help="only the last N records")
    history.set_defaults(func=_lazy("history"))

    prefs = commands.add_parser("prefs", help="the preferences file: path, show, validate, edit", parents=[common])
    prefs_actions = prefs.add_subparsers(dest="action", metavar="ACTION", required=True)
    prefs_actions.add_parser("path", help="print where the preferences file is", parents=[common])
    prefs_actions.add_parser("show", help="print the settings in force, defaults included", parents=[common])
    validate = prefs_actions.add_parser("validate", help="check a preferences file", parents=[common])
    validate.add_argument("file", nargs="?", help="file to check (default: the preferences file)")
    prefs_actions.add_parser("edit", help="open the file in $VISUAL/$EDITOR, then validate it", parents=[common])
    prefs.set_defaults(func=_lazy("prefs"))

    dnd = commands.add_parser("dnd", help="do not disturb: on, off, for DURATION, until TIME, status", parents=[common])
    dnd_actions = dnd.add_subparsers(dest="action", metavar="ACTION", required=True)
    dnd_actions.add_parser("on", help="until switched off", parents=[common])
    dnd_actions.add_parser("off", help="switch off (quiet hours still apply)", parents=[common])
    dnd_status = dnd_actions.add_parser("status", help="is it on, why, and until when", parents=[common])
    dnd_status.add_argument("--json", action="store_true", help="machine-readable output")
    for_ = dnd_actions.add_parser("for", help='e.g. "30m", "1h", "1h30m", "tomorrow"', parents=[common])
    for_.add_argument("duration", nargs="+")
    until = dnd_actions.add_parser("until", help='e.g. "tomorrow" or "14:00"', parents=[common])
    until.add_argument("duration", nargs="+")
    dnd.set_defaults(func=_lazy("dnd"))

    doctor = commands.add_parser(
        "doctor",
        help="what works here (notifications, tray, preferences, agents) and how to fix the rest",
        parents=[common],
    )
    doctor.add_argument("--json", action="store_true", help="one object per check: name, status, detail, fix")
    doctor.add_argument("--tray-backend", help=argparse.SUPPRESS)  # the running tray's: the daemon passes it
    doctor.set_defaults(func=_lazy("doctor"))

    autostart = commands.add_parser(
        "autostart", help="start acp-tray on login: enable, disable, status", parents=[common]
    )
    autostart_actions = autostart.add_subparsers(dest="action", metavar="ACTION", required=True)
    enable = autostart_actions.add_parser("enable", help="start this installation on login", parents=[common])
    enable.add_argument("--systemd", action="store_true", help="Linux: a systemd user unit instead of XDG autostart")
    autostart_actions.add_parser("disable", help="remove what `enable` installed", parents=[common])
    autostart_actions.add_parser("status", help="what is installed, and whether it starts this one", parents=[common])
    autostart.set_defaults(func=_lazy("autostart"))

    desktop = commands.add_parser(
        "desktop", help="acp-tray in the app menu: install or remove its launcher and icons", parents=[common]
    )
    desktop_actions = desktop.add_subparsers(dest="action", metavar="ACTION", required=True)
    desktop_actions.add_parser("install", help="the launcher entry and icons for this installation", parents=[common])
    desktop_actions.add_parser("remove", help="remove what `install` wrote", parents=[common])
    desktop.set_defaults(func=_lazy("desktop"))

    _daemon_commands(commands, common)

    # listed for --help; `main` hands its arguments to the demo agent's own parser
    commands.add_parser("demo-agent", help="run the bundled demo ACP agent on stdio (see demo-agent --help)")
    return parser


def _command(
    commands: Any, common: argparse.ArgumentParser, name: str, help_text: str, func: Any, *, json_output: bool = True
) -> argparse.ArgumentParser:
    """A command's parser, with the options every command takes (and `--json`)."""
    parser: argparse.ArgumentParser = commands.add_parser(name, help=help_text, parents=[common])
    if json_output:
        parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(func=func)
    return parser


def _ui_command(commands: Any, common: argparse.ArgumentParser) -> None:
    """`acp-tray ui`: declared once, for the whole command line and for `ui` parsed alone."""
    shows = "open the acp-tray window (its app window, or your browser)"
    ui = _command(commands, common, "ui", shows, _lazy("ui"), json_output=False)
    shown = ui.add_mutually_exclusive_group()
    shown.add_argument("--no-browser", action="store_true", help="print the address instead of opening a window")
    shown.add_argument(
        "--browser", action="store_true", help="open it in your browser, not an app window (ACP_TRAY_WINDOW_IN=browser)"
    )
    ui.add_argument("--page", choices=get_args(WindowPage), default="overview", help="the page to open")
    ui.add_argument(
        "--port",
        type=_port,
        metavar="N",
        help="serve the window at this port of 127.0.0.1 (default: one the system picks); for a daemon on "
        "another machine: ssh -L N:127.0.0.1:N HOST, the same N on both ends",
    )
    ui.add_argument("--highlight", metavar="ID", help=argparse.SUPPRESS)  # a history entry a notification is about


def _daemon_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    """The commands that talk to a running daemon (their modules are imported only when one of them
    runs: the daemon itself never loads the control client)."""

    def command(name: str, help_text: str, func: Any, *, json_output: bool = True) -> argparse.ArgumentParser:
        return _command(commands, common, name, help_text, func, json_output=json_output)

    _ui_command(commands, common)
    status = command("status", "is the daemon running; agents, DND, approvals waiting", _lazy("status"))
    status.add_argument(
        "--watch", action="store_true", help="a line now and one at each change, until the daemon stops (status bars)"
    )

    agents = command("agents", "list, add, remove, restart, stop or start agents", _lazy("agents"), json_output=False)
    actions = agents.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="configured agents and their state", parents=[common])
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    add = actions.add_parser(
        "add",
        help="add an agent: ID (from the ACP Registry)  or  NAME -- COMMAND ARGS...  or  NAME --url ws://…",
        parents=[common],
    )
    add.add_argument("name")
    add.add_argument("--url", help="a remote agent's WebSocket URL (ws:// or wss://)")
    add.add_argument(
        "--via",
        choices=("binary", "npx", "uvx"),
        help="an agent from the ACP Registry: run it as its binary, its npx or its uvx package (default: a binary "
        "for this platform, else npx, else uvx; a binary that cannot be downloaded falls back to npx or uvx)",
    )
    add.add_argument("agent_command", nargs=argparse.REMAINDER, metavar="-- COMMAND ARGS...")
    search = actions.add_parser("search", help="agents in the ACP Registry: [WORDS...]", parents=[common])
    search.add_argument("words", nargs="*")
    search.add_argument("--json", action="store_true", help="machine-readable output")
    upgrade = actions.add_parser(
        "upgrade", help="move registry agents to the registry's version: [ID]", parents=[common]
    )
    upgrade.add_argument("name", nargs="?", metavar="ID")
    for verb, text in (
        ("remove", "remove an agent (stops it)"),
        ("restart", "restart an agent"),
        ("stop", "stop an agent (until started again)"),
        ("start", "start a stopped agent"),
    ):
        actions.add_parser(verb, help=text, parents=[common]).add_argument("name")
    secret = actions.add_parser(
        "secret", help="keep VAR (e.g. an API key) for NAME in the OS keyring, read without echo", parents=[common]
    )
    secret.add_argument("name")
    secret.add_argument("var", metavar="VAR")
    secret.add_argument("--delete", action="store_true", help="remove it from the keyring")
    secret.set_defaults(func=_lazy("secrets", "secret"))

    login = command(
        "login",
        "sign in to an agent: NAME [METHOD] (see `agents list --json`)",
        _lazy("signin", "login"),
        json_output=False,
    )
    login.add_argument("name")
    login.add_argument("method", nargs="?")
    login.add_argument("--pause", action="store_true", help="wait for Enter at the end (a window acp-tray opened)")
    command(
        "logout", "sign out of an agent, where it offers that", _lazy("signin", "logout"), json_output=False
    ).add_argument("name")

    command("sessions", "named sessions: live and remembered", _lazy("prompt", "sessions"))

    push = command("push", "push targets (Apprise URLs): list, add, test, remove", _lazy("push"), json_output=False)
    push_actions = push.add_subparsers(dest="action", metavar="ACTION", required=True)
    push_list = push_actions.add_parser("list", help="the push targets (names and services)", parents=[common])
    push_list.add_argument("--json", action="store_true", help="machine-readable output")
    for verb, text in (
        ("add", "add or replace a target: its Apprise URL is read without echo (or from a pipe)"),
        ("test", "push one message to it; says whether the service accepted it"),
        ("remove", "forget it (its URL is deleted from the OS keyring)"),
    ):
        push_verb = push_actions.add_parser(verb, help=text, parents=[common])
        push_verb.add_argument("name")
    push_verb = push_actions.choices["test"]
    push_verb.add_argument(
        "--answer",
        action="store_true",
        help="an approval with buttons (ntfy): says when your press on the phone arrived",
    )

    prompt = command("prompt", "send a prompt; stream the reply (Ctrl+C cancels the turn)", _lazy("prompt"))
    prompt.add_argument("agent")
    prompt.add_argument("text", nargs="+")
    prompt.add_argument("--session", type=_session_name, default=None, help="session name (default: default)")
    prompt.add_argument("--cwd", default=None, help="session directory (default: the agent's cwd)")
    prompt.add_argument("--no-wait", action="store_true", help="queue it and return at once")

    cancel = command("cancel", "cancel the running turn of a session", _lazy("prompt", "cancel"), json_output=False)
    cancel.add_argument("agent")
    cancel.add_argument("--session", type=_session_name, default=None)
    cancel.add_argument("--cwd", default=None)

    command("approvals", "permission requests waiting for you", _lazy("approvals"))
    approve = command(
        "approve", "approve a request: ID [OPTION id or kind]", _lazy("approvals", "approve"), json_output=False
    )
    approve.add_argument("id")
    approve.add_argument("option", nargs="?")
    command("deny", "reject a request", _lazy("approvals", "deny"), json_output=False).add_argument("id")
    command("questions", "questions agents ask you (a form, or a page to open)", _lazy("questions"))
    answer = command(
        "answer",
        "answer a question: ID FIELD=VALUE… (on a terminal, no values: asked field by field)",
        _lazy("questions", "answer"),
        json_output=False,
    )
    answer.add_argument("id")
    answer.add_argument("values", nargs="*", metavar="FIELD=VALUE")
    refusal = answer.add_mutually_exclusive_group()
    refusal.add_argument("--decline", action="store_true", help="say no to the question")
    refusal.add_argument("--cancel", action="store_true", help="dismiss it without an answer")
    quit_ = command("quit", "stop the daemon (waits until it has stopped)", _lazy("quit"), json_output=False)
    quit_.add_argument("--no-wait", action="store_true", help="return once the daemon has been told to stop")


def _unfreeze_environment() -> None:
    """In a one-file build the bootloader points LD_LIBRARY_PATH at the bundled libraries; the
    programs acp-tray starts (agents, xdg-open, notify-send) must get the person's own back."""
    if getattr(sys, "frozen", False) and "LD_LIBRARY_PATH" in os.environ:
        original = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
        if original is None:
            del os.environ["LD_LIBRARY_PATH"]
        else:
            os.environ["LD_LIBRARY_PATH"] = original


def _durations_as_operands(arguments: list[str]) -> list[str]:
    """`dnd for -1h`: a duration that starts with a dash is the duration (said to be wrong by the
    command), not an unknown option."""
    for index in range(len(arguments) - 2):
        if arguments[index] == "dnd" and arguments[index + 1] in ("for", "until"):
            rest = arguments[index + 2]
            if rest[:1] == "-" and rest[1:2].isdigit():
                return [*arguments[: index + 2], "--", *arguments[index + 2 :]]
            break
    return arguments


def _utf8_output() -> None:
    """Output never fails on a character. Windows: UTF-8 also into a pipe or a file (Python's
    default there is the ANSI code page, where "—" is 0x97 and "🎉" cannot be written); a
    console gets Unicode either way."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        if sys.platform == "win32":
            reconfigure(encoding="utf-8", errors="replace")
        else:
            reconfigure(errors="replace")


def main(argv: list[str] | None = None) -> int:
    _unfreeze_environment()
    _utf8_output()
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["demo-agent"]:
        from acp_tray.demo.agent import main as demo_main

        return demo_main(arguments[1:])
    if arguments[:1] == ["window-server"]:  # started by `acp-tray ui`, not by a person (not listed)
        from acp_tray.window.server import main as window_main

        return window_main(arguments[1:])
    if arguments[:1] == ["window-app"]:  # the app window, started by `acp-tray ui` (not listed)
        from acp_tray.window.app_view import main as app_main

        return app_main(arguments[1:])
    parser = build_parser(ui_only=arguments[:1] == ["ui"])
    arguments = _durations_as_operands(arguments)
    args = parser.parse_args(arguments)
    _setup_logging(args.verbose)
    if args.command is None:
        args = parser.parse_args([*arguments, "run"])
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # here, where a closed pipe can still be reported in one line
        return code
    except KeyboardInterrupt:  # Ctrl+C while any command waits (on the daemon, a download, a prompt)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `acp-tray status | head -1`: the reader is gone
        return _output_closed()


def _output_closed() -> int:
    """Say it in one line (not a traceback); what is still buffered for stdout goes nowhere."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    with contextlib.suppress(OSError, ValueError):
        print("acp-tray: the output was closed before everything was written (broken pipe)", file=sys.stderr)
    return EXIT_FAILED
