"""The commands that pair agents from the ACP Registry: `agents search [WORDS]`,
`agents add ID` and `agents upgrade [ID]`.

They read the registry (the `registry` preference), install here (downloads show a progress bar
on the terminal), then hand the command to the running daemon, which writes it to the
preferences (comments kept) and starts the agent; they wait until it has connected (its ACP
handshake succeeded). An upgrade that does not connect is rolled back: the old version stays
installed and configured until the new one has connected.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import TypeVar

from acp_tray.cli.config import config_path
from acp_tray.cli.output import EXIT_FAILED, EXIT_NO_DAEMON, out, say
from acp_tray.control import api
from acp_tray.control.client import NoDaemonError, ReplyError, request
from acp_tray.files import paths
from acp_tray.prefs.names import pasteable
from acp_tray.presentation.text import DESCRIPTION_LIMIT, NAME_LIMIT, plain_line
from acp_tray.registry.index import Entry, Registry, RegistryError, age, load
from acp_tray.registry.install import Installed, fetch_icon, forget_version, install, recall, remember
from acp_tray.registry.progress import ProgressBar
from acp_tray.registry.urls import DEFAULT_URL

CONNECT_TIMEOUT = 300.0  # an npx agent's first start downloads it
A = TypeVar("A", bound=api.Args)
R = TypeVar("R")


def _out(text: str) -> None:
    out(text, flush=True)  # between progress bars on stderr


class _FailedError(Exception):
    def __init__(self, message: str, code: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.code = code


def _registry_url(args: argparse.Namespace) -> str:
    """The `registry` preference (the preferences file is read, never created, here)."""
    from acp_tray.prefs.load import PreferencesError, read_preferences

    path, explicit = config_path(args)
    if not path.exists() and not explicit:
        return DEFAULT_URL
    try:
        return read_preferences(path).registry
    except PreferencesError as exc:
        raise _FailedError(str(exc)) from None


def _registry(args: argparse.Namespace) -> Registry:
    try:
        registry = load(_registry_url(args), paths.cache_dir())
    except RegistryError as exc:
        raise _FailedError(str(exc)) from None
    if registry.offline:
        say(f"offline, using the registry as fetched {age(time.time() - registry.fetched)} ago ({registry.offline})")
    for problem in registry.skipped:
        say(f"the registry's entry for {problem}; skipped")
    return registry


def _daemon(op: api.Op[A, R], args: A, timeout: float = 30.0) -> R:
    try:
        return request(op, args, timeout=timeout)
    except NoDaemonError as exc:
        raise _FailedError(str(exc), EXIT_NO_DAEMON) from None
    except ReplyError as exc:
        raise _FailedError(str(exc)) from None


def _wait(name: str, command: list[str]) -> api.WaitReply:
    return _daemon(api.AGENTS_WAIT, api.WaitArgs(name, command, CONNECT_TIMEOUT), CONNECT_TIMEOUT + 30)


def _install(entry: Entry) -> Installed:
    bar = ProgressBar(f"downloading {entry.id} {entry.version}", sys.stderr)
    try:
        return install(entry, paths.registry_agents_dir(), progress=bar)
    except RegistryError as exc:
        raise _FailedError(str(exc)) from None
    finally:
        bar.done()


def run(args: argparse.Namespace) -> int:
    """`agents search`, `agents add ID` or `agents upgrade`, as `args.action` says."""
    command: Callable[[argparse.Namespace], int] = {"search": _search, "add": _add, "upgrade": _upgrade}[args.action]
    try:
        return command(args)
    except _FailedError as exc:
        say(str(exc))
        return exc.code
    except RegistryError as exc:  # e.g. no such agent in the registry, or its entry was refused
        say(str(exc))
        return EXIT_FAILED


def _search(args: argparse.Namespace) -> int:
    registry = _registry(args)
    found = registry.search(args.words)
    if args.json:
        rows = [
            {"id": e.id, "name": e.name, "version": e.version, "description": e.description, "distribution": e.kinds}
            for e in found
        ]
        print(json.dumps(rows, ensure_ascii=True))
        return 0
    for entry in found:
        name, kinds = plain_line(entry.name, NAME_LIMIT), "/".join(entry.kinds)
        _out(f"{plain_line(entry.id, NAME_LIMIT):<18} {plain_line(entry.version, 20):<10} {name} ({kinds})")
        _out(f"{'':<18} {plain_line(entry.description, DESCRIPTION_LIMIT)}")
    if not found:
        _out(f"nothing in the registry matches {' '.join(args.words)!r}" if args.words else "the registry is empty")
    elif not args.json:
        _out("add one with `acp-tray agents add ID`")
    return 0


def _add(args: argparse.Namespace) -> int:
    agent_id = args.name
    rows = _daemon(api.AGENTS_LIST, api.Args())  # the daemon first: nothing is downloaded for nothing
    if any(row["name"] == agent_id for row in rows):
        raise _FailedError(
            f"an agent called {agent_id!r} is already configured; `{pasteable('agents', 'upgrade', agent_id)}` "
            "moves it to the registry's current version"
        )
    entry = _registry(args).find(agent_id)
    started = time.monotonic()
    installed = _install(entry)
    root = paths.registry_agents_dir()
    fetch_icon(entry, root)
    result = _daemon(api.AGENTS_ADD, api.AddArgs(entry.id, command=installed.command, env=installed.env))
    remember(installed, root)
    _out(
        f"added {entry.id} ({plain_line(entry.name, NAME_LIMIT)} {entry.version}, {installed.kind}) "
        f"to {result['preferences']}; waiting for it to connect…"
    )
    state = _wait(entry.id, installed.command)
    if not state["connected"]:
        raise _FailedError(
            f"{entry.id} is configured but has not connected ({state['state']}{_detail(state)}); "
            f"`acp-tray status` shows it, `{pasteable('agents', 'remove', entry.id)}` removes it"
        )
    _out(f"{entry.id} connected ({time.monotonic() - started:.1f} s){_not_ready(state)}")
    return 0


def _detail(state: api.WaitReply) -> str:
    return f": {plain_line(state['detail'], DESCRIPTION_LIMIT)}" if state["detail"] else ""


def _not_ready(state: api.WaitReply) -> str:
    """An agent that answered ACP but has no session yet: most often, it needs a sign-in."""
    return "" if state["ready"] else f"; it is not ready yet ({state['state']}{_detail(state)})"


def _upgrade(args: argparse.Namespace) -> int:
    root = paths.registry_agents_dir()
    rows = _daemon(api.AGENTS_LIST, api.Args())
    configured = [row["name"] for row in rows]
    if args.name is not None:
        if args.name not in configured:
            raise _FailedError(f"no agent called {args.name!r} (configured: {', '.join(configured) or 'none'})")
        if recall(args.name, root) is None:
            raise _FailedError(f"{args.name} was not added from the registry (`acp-tray agents add ID` adds one)")
        names = [args.name]
    else:
        names = [name for name in configured if recall(name, root) is not None]
        if not names:
            _out("no agents from the registry to upgrade")
            return 0
    registry = _registry(args)
    failed = 0
    for name in names:
        old = recall(name, root)
        assert old is not None
        try:
            entry = registry.find(old.id)
        except RegistryError as exc:
            say(str(exc))
            failed += 1
            continue
        if entry.version == old.version:
            _out(f"{name}: {old.version} is the registry's current version")
            continue
        failed += not _upgrade_one(name, old, entry)
    return EXIT_FAILED if failed else 0


def _upgrade_one(name: str, old: Installed, entry: Entry) -> bool:
    root = paths.registry_agents_dir()
    new = _install(entry)
    fetch_icon(entry, root)
    _out(f"{name}: {old.version} → {entry.version}; waiting for it to connect…")
    _daemon(api.AGENTS_REPLACE, api.ReplaceArgs(name, new.command, new.env))
    state = _wait(name, new.command)
    if state["connected"]:
        remember(new, root)
        if old.directory != new.directory:
            forget_version(old)
        _out(f"{name}: {entry.version} connected; {old.version} removed{_not_ready(state)}")
        return True
    _daemon(api.AGENTS_REPLACE, api.ReplaceArgs(name, old.command, old.env))
    if new.directory != old.directory:
        forget_version(new)
    say(f"{name} {entry.version} did not connect ({state['state']}{_detail(state)}); back on {old.version}")
    return False
