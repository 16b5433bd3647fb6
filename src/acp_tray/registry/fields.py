"""What a registry entry may say where it becomes a path or a command: its id (a directory and a
preferences key), its version (a directory, and a package's pin), an npm or PyPI package (one
argument of npx or uvx, never one of their options, never a URL or a path), a package's `cmd` (the
name of a program the package installs: never an option, never a path) and a binary's `cmd` (a file
inside its own directory). Checked when the registry document is read, before anything
is downloaded or written.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from acp_tray.logs.text import plain_line
from acp_tray.prefs.names import NAME_MAX

VERSION_MAX = 64
PACKAGE_MAX = 214  # npm's limit on a package name (scope included); PyPI's names are held to it too
PIN_MAX = 64
FILE_NAME_MAX = 255  # bytes, one path component: what file systems take
CMD_MAX = 1024
SHOWN = 60  # characters of a refused value said in a message

_ID = re.compile(r"[a-z][a-z0-9-]*")  # agent.schema.json's pattern
_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]*")
# npm: an optional @scope/, then lowercase URL-safe characters, not starting with '.', '_' or '-';
# then the registry's own pin if any: a version, range or tag (no ':' or '/': not a URL, path or alias)
_NPM = re.compile(r"(?P<name>(?:@[a-z0-9~][a-z0-9._~-]*/)?[a-z0-9~][a-z0-9._~-]*)(?P<pin>@[0-9A-Za-z.+~^<>=|* -]+)?")
# PyPI (PEP 508 names, optional [extras]); then `@VERSION` (uvx's pin) or version specifiers
_SPECIFIER = r"(?:===|==|!=|~=|<=|>=|<|>)[0-9A-Za-z.*+!_-]+"
_PYPI = re.compile(
    r"(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:\[[A-Za-z0-9._-]+(?:,[A-Za-z0-9._-]+)*\])?)"
    rf"(?P<pin>@[0-9A-Za-z.+!_-]+|{_SPECIFIER}(?:,{_SPECIFIER})*)?"
)
_GRAMMAR = {"npx": (_NPM, "an npm package name"), "uvx": (_PYPI, "a PyPI package name")}
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_PROGRAM = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._+-]*")  # an npm `bin` or a console script: a plain name
PROGRAM_MAX = 128


def shown(value: str) -> str:
    """`value` quoted for a message: one plain line, bounded."""
    return f"'{plain_line(value, SHOWN)}'"


def id_problem(agent_id: str) -> str | None:
    if len(agent_id) > NAME_MAX:
        return f"id {shown(agent_id)} is longer than {NAME_MAX} characters"
    if not _ID.fullmatch(agent_id):
        return f"id {shown(agent_id)} is not lowercase letters, digits and hyphens"
    return None


def version_problem(version: str) -> str | None:
    if len(version) > VERSION_MAX or not _VERSION.fullmatch(version):
        return (
            f"version {shown(version)} is not a version acp-tray can use as a directory "
            f"(letters, digits, '.', '+', '_', '-'; at most {VERSION_MAX} characters)"
        )
    return None


def _package_parts(kind: str, package: str) -> tuple[str, str] | None:
    """(name, the registry's own pin or ''), or None when `package` is not one."""
    grammar, _ = _GRAMMAR[kind]
    match = grammar.fullmatch(package)
    if match is None or len(match["name"]) > PACKAGE_MAX or len(match["pin"] or "") > PIN_MAX:
        return None
    return match["name"], match["pin"] or ""


def package_problem(kind: str, package: str) -> str | None:
    """Why `package` cannot be run with npx (`kind` "npx") or uvx ("uvx"), or None."""
    if _package_parts(kind, package) is None:
        _, what = _GRAMMAR[kind]
        return (
            f"{kind} package {shown(package)} is not {what} (with an optional version): "
            "it would not be run as the agent's package"
        )
    return None


def pinned(kind: str, package: str, version: str) -> str:
    """`PKG@VERSION`, unless the registry's package already names a version (`@scope/pkg@1.2.3`,
    `pkg==1.2`); ValueError for a package `package_problem` refuses."""
    parts = _package_parts(kind, package)
    if parts is None:
        raise ValueError(package_problem(kind, package))
    return package if parts[1] else f"{package}@{version}"


def program_problem(kind: str, cmd: str) -> str | None:
    """Why `cmd` cannot be the program a package run with npx or uvx starts, or None."""
    if len(cmd) > PROGRAM_MAX or not _PROGRAM.fullmatch(cmd):
        return (
            f"{kind} cmd {shown(cmd)} is not a program name (letters, digits, '.', '_', '+', '-', not "
            f"starting with '-' or '.'; at most {PROGRAM_MAX} characters): it would not be run as the agent"
        )
    return None


def pinned_from(package: str, version: str) -> str:
    """uvx's `--from` requirement: `PKG==VERSION`, or the registry's own pin (`pkg@1.2` as
    `pkg==1.2`; specifiers kept); ValueError for a package `package_problem` refuses."""
    parts = _package_parts("uvx", package)
    if parts is None:
        raise ValueError(package_problem("uvx", package))
    name, pin = parts
    if not pin:
        return f"{name}=={version}"
    return f"{name}=={pin[1:]}" if pin.startswith("@") else package


def cmd_parts(cmd: str) -> tuple[str, ...]:
    """A binary's `cmd` as the parts of a path inside its own directory; ValueError says why not."""
    relative = PurePosixPath(cmd.replace("\\", "/"))
    parts = relative.parts
    if relative.is_absolute() or ".." in parts or not parts or ":" in parts[0]:
        raise ValueError(f"its cmd {shown(cmd)} is outside its own directory")
    if (
        len(cmd) > CMD_MAX
        or _CONTROL.search(cmd)
        or any(len(p.encode("utf-8", "replace")) > FILE_NAME_MAX for p in parts)
    ):
        raise ValueError(f"its cmd {shown(cmd)} is not a file name acp-tray can use")
    return parts
