"""Adding an agent from the ACP Registry, and moving one to the registry's current version: the
flow `acp-tray agents add ID`/`agents upgrade` and the window share. Install here (a download
reports its progress), hand the command to the running daemon (`agents.add`/`agents.replace`),
wait until it has connected (`agents.wait`), and undo what did not connect."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from acp_tray.control import api, replies
from acp_tray.control.client import NoDaemonError, ReplyError, request
from acp_tray.files import paths
from acp_tray.logs.text import DESCRIPTION_LIMIT, plain_line
from acp_tray.prefs.names import pasteable
from acp_tray.prefs.urls import DEFAULT_URL
from acp_tray.registry.index import Entry, Registry, RegistryError, age, load
from acp_tray.registry.install import fetch_icon, forget, forget_version, install, remember
from acp_tray.registry.installed import Installed, recall
from acp_tray.registry.transfer import Progress

CONNECT_TIMEOUT = 300.0  # an npx agent's first start downloads it
A = TypeVar("A", bound=api.Args)
R = TypeVar("R")


class AddError(Exception):
    """What stopped the flow, in the person's words; `no_daemon`: acp-tray is not running."""

    def __init__(self, message: str, *, no_daemon: bool = False) -> None:
        super().__init__(message)
        self.no_daemon = no_daemon


@dataclass(frozen=True)
class Added:
    entry: Entry
    installed: Installed
    state: replies.WaitReply  # connected; `ready` False: it needs something more (most often a sign-in)


def daemon(op: api.Op[A, R, object], args: A, timeout: float = 30.0) -> R:
    """One control request; AddError when the daemon refuses it or is not running."""
    try:
        return request(op, args, timeout=timeout)
    except NoDaemonError as exc:
        raise AddError(str(exc), no_daemon=True) from None
    except ReplyError as exc:
        raise AddError(str(exc)) from None


def registry_url(preferences: Path | None, *, explicit: bool = False) -> str:
    """The `registry` preference (the preferences file is read, never created, here)."""
    from acp_tray.prefs.load import PreferencesError, read_preferences

    if preferences is None or (not preferences.exists() and not explicit):
        return DEFAULT_URL
    try:
        return read_preferences(preferences).registry
    except PreferencesError as exc:
        raise AddError(str(exc)) from None


def read_registry(url: str) -> Registry:
    """The registry document (fetched, or the cached copy when offline: `offline_note` says so)."""
    try:
        return load(url, paths.cache_dir())
    except RegistryError as exc:
        raise AddError(str(exc)) from None


def offline_note(registry: Registry, now: float | None = None) -> str | None:
    """The cached copy is used: said with its age; None when the registry was read just now."""
    if registry.offline is None:
        return None
    fetched = age((time.time() if now is None else now) - registry.fetched)
    return f"offline, using the registry as fetched {fetched} ago ({registry.offline})"


def refuse_configured(agent_id: str) -> None:
    """An agent of that name already: asked first, so that nothing is downloaded for nothing."""
    if any(row["name"] == agent_id for row in daemon(api.AGENTS_LIST, api.Args())):
        raise AddError(
            f"an agent called {agent_id!r} is already configured; `{pasteable('agents', 'upgrade', agent_id)}` "
            "moves it to the registry's current version"
        )


def install_here(entry: Entry, progress: Progress | None, via: str | None = None) -> Installed:
    """The entry installed (a binary downloaded and unpacked; `via`: the distribution chosen) with
    its icon; AddError says why not."""
    root = paths.registry_agents_dir()
    try:
        installed = install(entry, root, progress=progress, via=via)
    except RegistryError as exc:
        raise AddError(str(exc)) from None
    fetch_icon(entry, root)
    return installed


def wait_connected(name: str, command: list[str] | None) -> replies.WaitReply:
    return daemon(api.AGENTS_WAIT, api.WaitArgs(name, command, CONNECT_TIMEOUT), CONNECT_TIMEOUT + 30)


def detail(state: replies.WaitReply) -> str:
    return f": {plain_line(state['detail'], DESCRIPTION_LIMIT)}" if state["detail"] else ""


def not_ready(state: replies.WaitReply) -> str:
    """An agent that answered ACP but has no session yet: most often, it needs a sign-in."""
    return "" if state["ready"] else f"; it is not ready yet ({state['state']}{detail(state)})"


def add(
    entry: Entry,
    *,
    progress: Progress | None,
    on_added: Callable[[Installed, str], None],
    keep_unconnected: bool,
    via: str | None = None,
) -> Added:
    """Install `entry` (`via`: as a binary, npx or uvx; default: as it prefers), add it to the daemon
    (`on_added(installed, preferences path)` then) and wait until it connects. One that does not
    connect is removed again with its files, unless `keep_unconnected` (the CLI's way: it stays
    configured for the person to look at)."""
    installed = install_here(entry, progress, via)
    root = paths.registry_agents_dir()
    remember(installed, root)  # first: the daemon reads it as it starts the agent (its terminal sign-ins)
    try:
        result = daemon(api.AGENTS_ADD, api.AddArgs(entry.id, command=installed.command, env=installed.env))
    except AddError:
        forget(installed.id, root)
        raise
    on_added(installed, result["preferences"])
    state = wait_connected(entry.id, installed.command)
    if state["connected"]:
        return Added(entry, installed, state)
    if keep_unconnected:
        raise AddError(
            f"{entry.id} is configured but has not connected ({state['state']}{detail(state)}); "
            f"`acp-tray status` shows it, `{pasteable('agents', 'remove', entry.id)}` removes it"
        )
    daemon(api.AGENTS_REMOVE, api.NameArgs(entry.id))  # stopped, unconfigured, its files deleted
    raise AddError(f"{entry.id} did not connect ({state['state']}{detail(state)}); it was removed again")


@dataclass(frozen=True)
class Upgraded:
    ok: bool
    message: str  # what happened, for the person


def upgradable(name: str) -> Installed:
    """What `name` runs from the registry; AddError when it was not added from there."""
    old = recall(name, paths.registry_agents_dir())
    if old is None:
        raise AddError(f"{name} was not added from the registry (`acp-tray agents add ID` adds one)")
    return old


def upgrade(
    name: str, old: Installed, entry: Entry, *, progress: Progress | None, on_installed: Callable[[], None]
) -> Upgraded:
    """Move `name` from `old` to `entry`'s version (`on_installed()` once it is installed here, as
    the daemon is handed it): kept once it connects (the old version's files deleted), else rolled
    back to `old` (the new version's files deleted)."""
    new = install_here(entry, progress)
    on_installed()
    remember(new, paths.registry_agents_dir())  # first: the daemon reads it as it starts the new version
    daemon(api.AGENTS_REPLACE, api.ReplaceArgs(name, new.command, new.env))
    state = wait_connected(name, new.command)
    if state["connected"]:
        if old.directory != new.directory:
            forget_version(old)
        return Upgraded(True, f"{name}: {entry.version} connected; {old.version} removed{not_ready(state)}")
    remember(old, paths.registry_agents_dir())
    daemon(api.AGENTS_REPLACE, api.ReplaceArgs(name, old.command, old.env))
    if new.directory != old.directory:
        forget_version(new)
    why = f"{state['state']}{detail(state)}"
    return Upgraded(False, f"{name} {entry.version} did not connect ({why}); back on {old.version}")
