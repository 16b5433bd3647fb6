"""Changes acp-tray makes to the preferences file itself (DND, quiet hours, `agents add/remove`, the
window's Preferences page).

The file is edited with `tomlkit`, so the person's comments, ordering and formatting stay; it
is replaced atomically (temporary file in the same directory, fsync, rename) and keeps its
mode. A symlinked file is written through the link: its target is replaced, the link stays.
A file that is not valid TOML is never rewritten: the change is refused with the reason.
`tomlkit` is imported on the first change (the daemon rarely makes one).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tray.files.atomic import write_atomically
from acp_tray.prefs.load import PreferencesError, parse_preferences, too_deep, version_of
from acp_tray.prefs.model import Preferences

if TYPE_CHECKING:
    import tomlkit
    from tomlkit.items import Table


def _table(document: tomlkit.TOMLDocument, *names: str) -> Table:
    """The table at `names`, created (as a real [section], not inline) when it is missing."""
    import tomlkit
    from tomlkit.items import Table

    container: tomlkit.TOMLDocument | Table = document
    for name in names:
        if name not in container:
            container[name] = tomlkit.table()
        item = container[name]
        if not isinstance(item, Table):
            raise PreferencesError(f"[{'.'.join(names)}] must be a table to change it here")
        container = item
    assert isinstance(container, Table)
    return container


@dataclass(frozen=True)
class Written:
    """The preferences file as acp-tray has just written it: its settings and its version."""

    prefs: Preferences
    version: str


def update_file(path: Path, change: Callable[[tomlkit.TOMLDocument], None]) -> Preferences:
    """Apply `change` to the document at `path`, validate the result, then replace the file."""
    try:
        original = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        original = ""
    return rewrite(path, original, change).prefs


def rewrite(path: Path, original: str, change: Callable[[tomlkit.TOMLDocument], None]) -> Written:
    """Apply `change` to `original` (the file's text as read), validate the result, then replace the file."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    deep = too_deep(original)
    if deep is not None:
        raise PreferencesError(f"{path}:{deep}: not changed, its values are nested too deeply to read") from None
    try:
        document = tomlkit.parse(original)
    except (TOMLKitError, RecursionError) as exc:
        raise PreferencesError(f"{path}: not changed, the file is not valid TOML ({exc})") from None
    change(document)
    text = tomlkit.dumps(document)
    prefs = parse_preferences(text, path)  # never write a file we could not read back
    written = write_atomically(Path(os.path.realpath(path)), text)  # a symlink (dotfiles repo) stays one
    return Written(prefs, version_of(written))


def set_dnd(path: Path, *, enabled: bool, until: datetime | None) -> Preferences:
    """Switch manual DND on (optionally until a time) or off."""

    def change(document: tomlkit.TOMLDocument) -> None:
        dnd = _table(document, "dnd")
        dnd["enabled"] = enabled
        dnd["until"] = until.replace(microsecond=0) if until is not None else ""

    return update_file(path, change)


def set_values(path: Path, original: str, values: Mapping[tuple[str, ...], object]) -> Written:
    """Set each setting at its key path to its value (None: remove it) in `original` (the file's
    text as read), as the window's Preferences page saves them; every other line stays as it is."""

    def change(document: tomlkit.TOMLDocument) -> None:
        for names, value in values.items():
            table = _table(document, *names[:-1]) if len(names) > 1 else document
            if value is None:
                if names[-1] in table:
                    del table[names[-1]]
            else:
                table[names[-1]] = value

    return rewrite(path, original, change)


def set_quiet_hours(path: Path, *, enabled: bool) -> Preferences:
    def change(document: tomlkit.TOMLDocument) -> None:
        _table(document, "dnd", "quiet_hours")["enabled"] = enabled

    return update_file(path, change)


def add_agent(
    path: Path,
    name: str,
    *,
    command: list[str] | None = None,
    url: str | None = None,
    env: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    cwd: str | None = None,
    permission: str | None = None,
) -> Preferences:
    """Add `[agents.NAME]` with a command or a URL (and, when given, the URL's headers, the working
    directory and the permission policy); an agent of that name already there is refused."""

    def change(document: tomlkit.TOMLDocument) -> None:
        agents = _table(document, "agents")
        if name in agents:
            raise PreferencesError(f"an agent called {name!r} is already configured in {path}")
        import tomlkit

        table = tomlkit.table()
        if command is not None:
            table["command"] = command
        if url is not None:
            table["url"] = url
        if headers:
            table["headers"] = headers
        if cwd is not None:
            table["cwd"] = cwd
        if permission is not None:
            table["permission"] = permission
        if env:
            table["env"] = env
        agents[name] = table

    return update_file(path, change)


def remove_agent(path: Path, name: str) -> Preferences:
    """Remove `[agents.NAME]` (and its sub-tables); the rest of the file stays as it is."""

    def change(document: tomlkit.TOMLDocument) -> None:
        agents = _table(document, "agents")
        if name not in agents:
            raise PreferencesError(f"no agent called {name!r} in {path}")
        del agents[name]

    return update_file(path, change)


def set_agent_command(
    path: Path,
    name: str,
    command: list[str],
    env: dict[str, str],
    *,
    cwd: str | None = None,
    unset: Sequence[str] = (),
) -> Preferences:
    """Replace `[agents.NAME]`'s command (and `cwd`, when given), set the `env` entries given and
    remove those in `unset` (`agents upgrade`, the window's "Change"); the rest of its table
    (permission, routes, other env entries, comments) stays as it is."""

    def change(document: tomlkit.TOMLDocument) -> None:
        agents = _table(document, "agents")
        if name not in agents:
            raise PreferencesError(f"no agent called {name!r} in {path}")
        table = _table(document, "agents", name)
        table["command"] = command
        if cwd is not None:
            table["cwd"] = cwd
        if env:
            if "env" not in table:
                table["env"] = {}
            table["env"].update(env)
        for var in unset:
            if "env" in table and var in table["env"]:
                del table["env"][var]

    return update_file(path, change)
