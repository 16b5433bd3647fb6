"""The agents page's "Add your own agent" form, checked field by field in plain words before
anything is asked of the daemon: the name (allowed, not taken), a local command (split as a shell
splits it; its program must exist and be runnable) or a remote URL with headers, the working
directory, the permission policy and a secret it needs (kept in the OS keyring before it first starts).
Pure: the page shows each problem beside its field."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from acp_tray.control import api, replies
from acp_tray.prefs.command_rules import program_problem
from acp_tray.prefs.names import agent_name_problem
from acp_tray.protocol.version import DOES_NOT_SPEAK_ACP
from acp_tray.state.secrets import variable_problem
from acp_tray.window.prefs_view import PERMISSIONS as PERMISSION_WORDS

FIELDS = ("kind", "name", "command", "url", "headers", "cwd", "permission", "secret_var")  # never the secret's value
PERMISSIONS = tuple(PERMISSION_WORDS.items())  # the preferences page's words for the same choice
Permission = Literal["ask", "reject", "allow"]


@dataclass(frozen=True)
class Checked:
    """The form's values as typed, its problems by field, and the request they make when there are none."""

    values: dict[str, str]
    errors: dict[str, str] = field(default_factory=dict)
    request: api.AddArgs | None = None
    secret: tuple[str, str] | None = None  # a variable and its value, for the OS keyring before it starts


def _command(values: Mapping[str, str], cwd: Path, errors: dict[str, str]) -> list[str] | None:
    text = values["command"].strip()
    if not text:
        errors["command"] = "Type the command that starts the agent, e.g. npx -y @scope/some-agent --acp."
        return None
    try:
        words = shlex.split(text)
    except ValueError as exc:
        errors["command"] = f"The command cannot be read: {exc} (a quote is not closed?)."
        return None
    words[0] = os.path.expanduser(words[0])  # ~/bin/agent, as a shell would
    if words[0].startswith("-"):
        errors["command"] = "The command must start with a program, not an option."
        return None
    problem = program_problem(words[0], cwd)
    if problem is not None:
        errors["command"] = sentence(problem)
        return None
    if os.sep in words[0] and not os.path.isabs(words[0]):
        words[0] = str(cwd / words[0])  # kept as found: the preferences name the program itself
    return words


def _headers(text: str, errors: dict[str, str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, colon, value = line.partition(":")
        if not colon or not name.strip() or " " in name.strip():
            errors["headers"] = f"Line {number} is not “Name: value” (one header a line)."
            return {}
        headers[name.strip()] = value.strip()
    return headers


NOT_A_VARIABLE = "A secret's name is an environment variable name: letters, digits and _, not starting with a digit."
FULL_PATH = r"like C:\Users\you\project" if sys.platform == "win32" else "starting with / or ~"


def folder(text: str, errors: dict[str, str]) -> Path | None:
    """A folder typed by a person (`~` allowed), or None when left empty; a problem goes in `errors["cwd"]`."""
    if not text.strip():
        return None
    path = Path(text.strip()).expanduser()
    if not path.is_absolute():
        errors["cwd"] = f"Give the folder's full path ({FULL_PATH})."
    elif not path.is_dir():
        errors["cwd"] = f"There is no folder '{path}'."  # as typed: a Windows path's backslashes not doubled
    else:
        return path
    return None


def check(form: Mapping[str, str], taken: set[str]) -> Checked:
    """The form checked; `taken`: the names of the agents configured now."""
    values = {name: str(form.get(name, "")) for name in FIELDS}
    values["kind"] = "remote" if values["kind"] == "remote" else "local"
    values["permission"] = values["permission"] if values["permission"] in dict(PERMISSIONS) else "ask"
    errors: dict[str, str] = {}
    name = values["name"].strip()
    problem = agent_name_problem(name)
    if problem is not None:
        errors["name"] = sentence(problem)
    elif name in taken:
        errors["name"] = f"The name {name!r} is taken: an agent of that name is configured already."
    cwd = folder(values["cwd"], errors)
    command = url = None
    headers: dict[str, str] = {}
    if values["kind"] == "local":
        command = _command(values, cwd or Path.home(), errors)
    else:
        url = values["url"].strip()
        if not url.startswith(("ws://", "wss://")) or len(url) < 7:
            errors["url"] = "Give the agent's WebSocket address, like wss://host/acp or ws://127.0.0.1:8765."
        headers = _headers(values["headers"], errors)
    secret = _secret(values["secret_var"].strip(), str(form.get("secret_value", "")), errors)
    if errors:
        return Checked(values, errors)
    permission = cast(Permission, values["permission"])
    request = api.AddArgs(
        name,
        command=command,
        url=url,
        headers=headers,
        cwd=str(cwd) if cwd is not None else None,
        permission=None if permission == "ask" else permission,
    )
    return Checked(values, errors, request, secret)


def _secret(var: str, value: str, errors: dict[str, str]) -> tuple[str, str] | None:
    """The optional secret typed with the agent: both its name and its value, or neither."""
    if not var and not value:
        return None
    if not var or not value:
        errors["secret_var"] = "Give both the secret's name (like ANTHROPIC_API_KEY) and its value, or neither."
    elif variable_problem(var) is not None:
        errors["secret_var"] = NOT_A_VARIABLE
    else:
        return var, value
    return None


def sentence(problem: str) -> str:
    """A problem said in lower case, as a sentence beside its field."""
    return problem[0].upper() + problem[1:] + "."


def connect_problem(state: replies.WaitReply, program: str) -> str:
    """Why an agent that was added did not connect, said about the command that was typed (the
    daemon's verdict "does not speak ACP" as it is)."""
    detail = state["detail"] or state["state"]
    if detail.startswith("cannot start"):
        return f"{program!r} could not be started ({detail})."
    if detail.startswith(DOES_NOT_SPEAK_ACP):
        return f"{program!r} ran, but it {detail}."
    if "handshake" in detail or "initialize" in detail or "ACP" in detail:
        return f"{program!r} ran, but it {DOES_NOT_SPEAK_ACP}: {detail}."
    return f"{program!r} ran, but it did not connect as an ACP agent ({detail})."


@dataclass(frozen=True)
class Edited:
    """An agent's "Change" form checked: its values, problems by field, and the request they make."""

    values: dict[str, str]
    errors: dict[str, str] = field(default_factory=dict)
    request: api.ReplaceArgs | None = None


def _env(text: str, errors: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """`NAME=value` lines: the entries to set, and the names given without a value (to remove)."""
    env: dict[str, str] = {}
    unset: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, equals, value = line.strip().partition("=")
        if not equals or variable_problem(name.strip()) is not None:
            errors["env"] = f"Line {number} is not “NAME=value” (a variable name, then = and its value)."
            return {}, []
        if value:
            env[name.strip()] = value
        else:
            unset.append(name.strip())
    return env, unset


def check_edit(name: str, form: Mapping[str, str], was_cwd: str) -> Edited:
    """An agent's new command, working directory (`~` allowed; emptied: the home folder again) and
    environment entries, checked; `was_cwd`: its working directory as configured ("" for none)."""
    values = {key: str(form.get(key, "")) for key in ("command", "cwd", "env")}
    errors: dict[str, str] = {}
    cwd = folder(values["cwd"], errors)
    command = _command(values, cwd or Path.home(), errors)
    env, unset = _env(values["env"], errors)
    if errors or command is None:
        return Edited(values, errors)
    where = str(cwd) if cwd is not None else "~" if was_cwd else None
    return Edited(values, errors, api.ReplaceArgs(name, command, env=env, cwd=where, unset=unset or None))


def kept_problem(name: str, problem: str) -> str:
    """An added agent that did not connect: why, and that it is kept (stopped) to be changed or removed."""
    return (
        f"{name} did not connect: {problem} It is kept, stopped: change its command in its entry below, or remove it."
    )


def form(values: Mapping[str, str], errors: Mapping[str, str], done: str = "", problem: str = "") -> dict[str, Any]:
    """What the form's template shows: the values typed (a blank form: a local command that asks for
    permission), the errors by field, what was done or went wrong."""
    shown = {name: values.get(name, "") for name in FIELDS}
    shown["kind"] = shown["kind"] or "local"
    shown["permission"] = shown["permission"] or "ask"
    return {"values": shown, "errors": errors, "done": done, "problem": problem, "permissions": PERMISSIONS}
