"""How the window offers an agent's sign-in methods: a button for one the agent does or one run in a
terminal (with what it runs, as it will run: the program found, the variables set), password fields
for one read from the agent's environment (kept in the OS keyring), and a note in plain words for
one acp-tray cannot do (a remote agent's terminal method, one declared unusably, a kind it does not
know). Pure: from the control API's agent row."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

from acp_tray.control import replies
from acp_tray.prefs.names import shell_line, shown_sets

How = Literal["agent", "terminal", "secret", "note"]


@dataclass(frozen=True)
class SecretField:
    var: str  # the environment variable
    name: str  # the form field's
    id: str  # the input's element id: stable across re-renders (what is typed is kept), whatever the names


@dataclass(frozen=True)
class SignInChoice:
    id: str
    name: str
    how: How
    description: str
    fields: list[SecretField]
    note: str  # `note`: why acp-tray cannot do it, and what to do instead
    command: str = ""  # `terminal`: the command as it runs (its program's full path), as a person would paste it
    sets: str = ""  # `terminal`: " (it sets NAME=value …)", secret values masked


def field_name(var: str) -> str:
    """The form field that carries `var`'s value."""
    return f"secret:{var}"


def _field(agent: str, method: str, var: str) -> SecretField:
    digest = hashlib.sha256("\0".join((agent, method, var)).encode()).hexdigest()[:16]
    return SecretField(var, field_name(var), f"secret-{digest}")


def note(agent: str, remote: bool, method: replies.SignInMethodRow) -> str:
    """Why acp-tray cannot do `method` for this agent, and what the person can do instead."""
    kind, name, variables = method["kind"], method["name"], ", ".join(method["vars"])
    if method.get("unusable"):
        return (
            f"{name} cannot be used: {method.get('unusable')}. "
            "Sign in as the agent's documentation says, then restart it."
        )
    if kind == "terminal":
        return f"{name} runs the agent's command in a terminal; {agent} runs elsewhere: sign in there, then restart it."
    if kind == "env_var" and remote and variables:
        return f"{name} reads {variables} where {agent} runs: set it there, then restart it."
    what = f" ({method['description']})" if method["description"] else ""
    return (
        f"{name}{what}: acp-tray cannot do this kind of sign-in ({kind}); "
        "sign in as the agent's documentation says, then restart it."
    )


def how_offered(remote: bool, method: replies.SignInMethodRow) -> How:
    """How the page offers `method`: done by the agent, in a terminal, with secrets typed, or only said."""
    kind = method["kind"]
    if method.get("unusable"):
        return "note"
    if kind == "agent":
        return "agent"
    if kind == "terminal" and not remote:
        return "terminal"
    if kind == "env_var" and method["vars"] and not remote:
        return "secret"
    return "note"


def sign_in_choices(row: replies.AgentRow) -> list[SignInChoice]:
    """The agent's sign-in methods as the page offers them (none unless it needs a sign-in)."""
    if row["state"] != "needs sign-in":
        return []
    agent, remote = row["name"], row["kind"] == "remote"
    choices = []
    for method in row["sign_in_methods"]:
        how = how_offered(remote, method)
        choices.append(
            SignInChoice(
                id=method["id"],
                name=method["name"],
                how=how,
                description=method["description"] or "",
                fields=[_field(agent, method["id"], var) for var in method["vars"]] if how == "secret" else [],
                note=note(agent, remote, method) if how == "note" else "",
                command=shell_line(method.get("command") or []) if how == "terminal" else "",
                sets=shown_sets(method.get("sets") or {}) if how == "terminal" else "",
            )
        )
    return choices
