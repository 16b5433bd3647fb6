"""How the window offers an agent's sign-in methods (pure: from the control API's agent row), and the
checks a secret passes before it goes to the keyring, whoever keeps it (the CLI or the window)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest

from acp_tray.control import replies
from acp_tray.prefs.names import shell_line
from acp_tray.state.secrets import SecretError, SecretNames
from acp_tray.window.signin_view import field_name, sign_in_choices

METHODS: list[replies.SignInMethodRow] = [
    {"id": "token", "name": "Use a token", "kind": "agent", "description": "writes a token file", "vars": []},
    {"id": "tui", "name": "In a terminal", "kind": "terminal", "description": None, "vars": []},
    {"id": "key", "name": "API key", "kind": "env_var", "description": None, "vars": ["A_KEY", "A_URL"]},
    {"id": "bare", "name": "Bare", "kind": "env_var", "description": None, "vars": []},
    {"id": "sso", "name": "Company SSO", "kind": "_acme.sso", "description": "ask IT", "vars": []},
]


def row(
    name: str = "bot", state: str = "needs sign-in", kind: Literal["local", "remote"] = "local"
) -> replies.AgentRow:
    return {
        "name": name, "kind": kind, "target": "bot", "command": ["bot"], "cwd": "", "env_names": [],
        "state": state, "detail": "", "sessions": 0, "busy": 0, "needs_you": False,
        "queued": 0, "permission": "ask", "sign_in_methods": METHODS, "problem": None, "today": [], "limits": [],
    }  # fmt: skip


def test_a_local_agent_gets_buttons_fields_and_a_note_for_what_acp_tray_cannot_do() -> None:
    choices = sign_in_choices(row())
    assert [(c.id, c.how) for c in choices] == [
        ("token", "agent"),
        ("tui", "terminal"),
        ("key", "secret"),
        ("bare", "note"),
        ("sso", "note"),
    ]
    key = choices[2]
    assert [(f.var, f.name) for f in key.fields] == [("A_KEY", field_name("A_KEY")), ("A_URL", field_name("A_URL"))]
    assert len({f.id for f in key.fields}) == 2 and all(f.id.startswith("secret-") for f in key.fields)
    assert choices[4].note == (
        "Company SSO (ask IT): acp-tray cannot do this kind of sign-in (_acme.sso); "
        "sign in as the agent's documentation says, then restart it."
    )
    assert [c.fields for c in choices if c.how != "secret"] == [[], [], [], []]


def test_a_field_keeps_its_id_across_renders_and_differs_between_agents() -> None:
    first, again, other = (sign_in_choices(row(name))[2].fields[0].id for name in ("bot", "bot", "other"))
    assert first == again != other


def test_a_remote_agent_is_told_where_to_sign_in_instead_of_a_terminal_or_a_field() -> None:
    choices = {c.id: c for c in sign_in_choices(row(kind="remote"))}
    assert choices["token"].how == "agent"
    assert choices["tui"].how == "note" and "bot runs elsewhere: sign in there" in choices["tui"].note
    assert choices["key"].how == "note" and choices["key"].note == (
        "API key reads A_KEY, A_URL where bot runs: set it there, then restart it."
    )


@pytest.mark.parametrize("state", ["connected", "starting", "stopped", "refused"])
def test_no_sign_in_is_offered_unless_the_agent_needs_one(state: str) -> None:
    assert sign_in_choices(row(state=state)) == []


@pytest.mark.parametrize(
    ("var", "value", "said"),
    [
        ("1BAD", "x", "'1BAD' is not an environment variable name"),
        ("A-KEY", "x", "'A-KEY' is not an environment variable name"),
        ("A_KEY", "", "nothing entered for A_KEY; nothing stored"),
    ],
)
def test_a_secret_is_checked_before_the_keyring_is_touched(tmp_path: Path, var: str, value: str, said: str) -> None:
    names = SecretNames(tmp_path / "secrets.json")
    with pytest.raises(SecretError, match=said):
        names.store("bot", var, value)
    assert not (tmp_path / "secrets.json").exists()


def test_a_terminal_method_shows_the_exact_command_it_runs() -> None:
    methods: list[replies.SignInMethodRow] = [
        {"id": "tui", "name": "T", "kind": "terminal", "description": None, "vars": [], "command": ["co pi", "in"]},
        {"id": "token", "name": "Use a token", "kind": "agent", "description": None, "vars": [], "command": []},
    ]
    choices = sign_in_choices({**row(), "sign_in_methods": methods})
    assert [c.command for c in choices] == [shell_line(["co pi", "in"]), ""]  # quoted for this OS's shell
    assert choices[0].command in ("'co pi' in", '"co pi" in')
