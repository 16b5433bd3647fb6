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

from acp_tray.cli.config import config_path
from acp_tray.cli.demo_hint import offer_demo_removal
from acp_tray.cli.output import EXIT_FAILED, EXIT_NO_DAEMON, out, say
from acp_tray.control import api
from acp_tray.files import paths
from acp_tray.logs.text import DESCRIPTION_LIMIT, NAME_LIMIT, plain_line
from acp_tray.registry import adding
from acp_tray.registry.adding import AddError
from acp_tray.registry.index import Entry, Registry, RegistryError
from acp_tray.registry.installed import Installed, recall
from acp_tray.registry.progress import ProgressBar


def _out(text: str) -> None:
    out(text, flush=True)  # between progress bars on stderr


def _registry(args: argparse.Namespace) -> Registry:
    path, explicit = config_path(args)
    registry = adding.read_registry(adding.registry_url(path, explicit=explicit))
    note = adding.offline_note(registry)
    if note is not None:
        say(note)
    for problem in registry.skipped:
        say(f"the registry's entry for {problem}; skipped")
    return registry


def _bar(entry: Entry) -> ProgressBar:
    return ProgressBar(f"downloading {entry.id} {entry.version}", sys.stderr)


def run(args: argparse.Namespace) -> int:
    """`agents search`, `agents add ID` or `agents upgrade`, as `args.action` says."""
    command: Callable[[argparse.Namespace], int] = {"search": _search, "add": _add, "upgrade": _upgrade}[args.action]
    try:
        return command(args)
    except AddError as exc:
        say(str(exc))
        return EXIT_NO_DAEMON if exc.no_daemon else EXIT_FAILED
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
    adding.refuse_configured(args.name)  # the daemon first: nothing is downloaded for nothing
    entry = _registry(args).find(args.name)
    started = time.monotonic()
    bar = _bar(entry)

    def added(installed: Installed, preferences: str) -> None:
        bar.done()
        if installed.note:
            say(f"{entry.id}: {plain_line(installed.note, DESCRIPTION_LIMIT)}")
        _out(
            f"added {entry.id} ({plain_line(entry.name, NAME_LIMIT)} {entry.version}, {installed.kind}) "
            f"to {preferences}; waiting for it to connect…"
        )

    try:
        done = adding.add(entry, progress=bar, on_added=added, keep_unconnected=True, via=args.via)
    finally:
        bar.done()
    _out(f"{entry.id} connected ({time.monotonic() - started:.1f} s){adding.not_ready(done.state)}")
    offer_demo_removal()
    return 0


def _upgrade(args: argparse.Namespace) -> int:
    root = paths.registry_agents_dir()
    rows = adding.daemon(api.AGENTS_LIST, api.Args())
    configured = [row["name"] for row in rows]
    if args.name is not None:
        if args.name not in configured:
            raise AddError(f"no agent called {args.name!r} (configured: {', '.join(configured) or 'none'})")
        adding.upgradable(args.name)
        names = [args.name]
    else:
        names = [name for name in configured if recall(name, root) is not None]
        if not names:
            _out("no agents from the registry to upgrade")
            return 0
    registry = _registry(args)
    failed = 0
    for name in names:
        old = adding.upgradable(name)
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
    bar = _bar(entry)

    def installed() -> None:
        bar.done()
        _out(f"{name}: {old.version} → {entry.version}; waiting for it to connect…")

    try:
        result = adding.upgrade(name, old, entry, progress=bar, on_installed=installed)
    finally:
        bar.done()
    (_out if result.ok else say)(result.message)
    return result.ok
