"""The `acp-tray` command line: run the daemon, the demo agent, and read the history."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
from pathlib import Path

from acp_tray import __version__, paths
from acp_tray.daemon import Daemon
from acp_tray.history import HistoryWriter, event_of, read_history
from acp_tray.notifiers.console import ConsoleNotifier, format_event
from acp_tray.prefs.load import PreferencesError, load_preferences

log = logging.getLogger("acp_tray")


def _setup_logging(verbosity: int) -> None:
    level = logging.WARNING if verbosity == 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("acp-tray: %(levelname)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def _config_path(args: argparse.Namespace) -> tuple[Path, bool]:
    if args.config is not None:
        return Path(args.config).expanduser(), True
    return paths.config_file(), False


async def _run_headless(daemon: Daemon) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await daemon.run(stop)


def cmd_run(args: argparse.Namespace) -> int:
    path, explicit = _config_path(args)
    try:
        loaded = load_preferences(path, explicit=explicit)
    except PreferencesError as exc:
        print(f"acp-tray: invalid preferences, not starting:\n{exc}", file=sys.stderr)
        return 2
    source = str(loaded.source) if loaded.source else f"built-in defaults (no {path})"
    history = HistoryWriter(paths.history_file())
    names = ", ".join(loaded.prefs.agents) or "none"
    print(
        f"acp-tray {__version__} running headless · preferences: {source} · agents: {names}\n"
        f"history: {history.path} · Ctrl+C to stop",
        flush=True,
    )
    if not loaded.prefs.agents:
        print("No agents configured: add an [agents.NAME] table with command = [...] to the preferences.")
    daemon = Daemon(loaded.prefs, history=history, present=ConsoleNotifier().show)
    asyncio.run(_run_headless(daemon))
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    records = list(read_history(paths.history_file()))
    if args.limit:
        records = records[-args.limit :]
    for record in records:
        if args.json:
            print(
                json.dumps(record, ensure_ascii=False)
                if isinstance(record, dict)
                else json.dumps({"unreadable": record})
            )
            continue
        event = event_of(record) if isinstance(record, dict) else None
        print(format_event(event) if event else f"(unreadable history line) {str(record)[:200]!r}")
    return 0


def _common_options(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0 if default is None else default,
        help="more log output (-vv: debug)",
    )
    parser.add_argument(
        "--config", metavar="PATH", default=default, help=f"preferences file (default: {paths.config_file()})"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="acp-tray", description="Desktop companion for headless ACP agents.")
    parser.add_argument("--version", action="version", version=f"acp-tray {__version__}")
    _common_options(parser, None)
    common = argparse.ArgumentParser(add_help=False)
    _common_options(common, argparse.SUPPRESS)  # also accepted after the command, without resetting
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = commands.add_parser("run", help="start the daemon", parents=[common])
    run.add_argument("--headless", action="store_true", help="present notices on the console (no tray)")
    run.set_defaults(func=cmd_run)

    history = commands.add_parser("history", help="show notices received so far (local only)", parents=[common])
    history.add_argument("--json", action="store_true", help="one JSON object per line")
    history.add_argument("-n", "--limit", type=int, default=0, help="only the last N records")
    history.set_defaults(func=cmd_history)

    # listed for --help; `main` hands its arguments to the demo agent's own parser
    commands.add_parser("demo-agent", help="run the bundled demo ACP agent on stdio (see demo-agent --help)")
    return parser


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["demo-agent"]:
        from acp_tray.demo_agent import main as demo_main

        return demo_main(arguments[1:])
    parser = build_parser()
    args = parser.parse_args(arguments)
    _setup_logging(args.verbose)
    if args.command is None:
        args = parser.parse_args([*arguments, "run"])
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 0
