"""Sign-in on the wire and on the surfaces, pure parts: what acp-tray sends validates against the v1
and v2 schemas (and the check can fail), agents' methods are read in both shapes, the notice and
the tray entry offer one button per method acp-tray can do, the terminal emulator is found."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acp_tray.desktop.terminal_window import NoTerminalError, open_in_terminal, terminal_command
from acp_tray.events import AgentState, SignInChoice, SignInNeeded
from acp_tray.notifiers.content import notification_of
from acp_tray.presentation.actions import SignIn, parse_action
from acp_tray.presentation.own_notices import own_notice
from acp_tray.protocol.auth import login_method, login_params, logout_method, logout_params, parse_auth_methods
from acp_tray.protocol.initialize import initialize_params
from acp_tray.protocol.session import agent_capabilities
from acp_tray.protocol.version import ProtocolVersion
from acp_tray.tray.menu import menu_of
from acp_tray.tray.snapshot import AgentRow, TraySnapshot
from tests.support.presentations import make_presentation
from tests.support.schemas import validator_for

V1, V2 = ProtocolVersion.V1, ProtocolVersion.V2


@pytest.mark.parametrize("version", [V1, V2])
@pytest.mark.parametrize("unstable", [True, False], ids=["unstable", "stable"])
def test_initialize_advertises_terminal_sign_in_and_validates(version: ProtocolVersion, unstable: bool) -> None:
    validator = validator_for(f"v{int(version)}", "InitializeRequest", unstable)
    params = initialize_params(version)
    assert not list(validator.iter_errors(params))
    caps = params["capabilities"] if version is V2 else params["clientCapabilities"]
    assert caps["auth"]["terminal"] == ({} if version is V2 else True)
    # said the older way too: opencode offers its `opencode auth login` only to a client that says this
    assert params["clientCapabilities"]["_meta"] == {"terminal-auth": True}
    broken = initialize_params(version)
    (broken["capabilities"] if version is V2 else broken["clientCapabilities"])["auth"]["terminal"] = "yes"
    assert not validator.is_valid(broken)
    remote = initialize_params(version, terminal_auth=False)  # a remote agent: its command is not ours to run
    assert not list(validator.iter_errors(remote))
    assert not (remote["capabilities"] if version is V2 else remote["clientCapabilities"])["auth"].get("terminal")
    assert "_meta" not in remote["clientCapabilities"]


def test_a_terminal_method_no_program_can_be_given_is_unusable_and_says_why() -> None:
    """Item 10 of the security review: what a terminal method runs is checked when it is read."""
    from acp_tray.agents.signin import SignIn, SignInError

    legacy = {"command": "/opt/tool\x1b]0;x\x07", "args": ["login"]}
    methods = parse_auth_methods(
        [
            {"id": "fine", "name": "Fine", "type": "terminal", "args": ["--login"], "env": {"A": "1"}},
            {"id": "nul", "name": "Nul", "type": "terminal", "args": ["--login", "a\x00"]},
            {"methodId": "v2", "name": "V2", "type": "terminal", "env": [{"name": "K", "value": "s\ud800"}]},
            {"id": "old", "name": "Old", "_meta": {"terminal-auth": legacy}},
            {"id": "agent", "name": "Agent", "args": ["\x00"]},  # not a terminal method: its args are not run
        ]
    )
    unusable = {m.method_id: m.unusable for m in methods}
    assert unusable == {
        "fine": None,
        "nul": "its argument 2 holds a NUL character (\\x00)",
        "v2": "the value of its variable K is not text: it holds a lone surrogate (bytes that are not UTF-8, or half "
        "a character)",
        "old": "word 1 of its command holds a control character ('\\x1b')",
        "agent": None,
    }
    signin = SignIn("bot", lambda event: None, lambda state, detail: None, command=["bot"])
    signin.offered(methods, can_log_out=False)
    assert [m.method_id for m in methods if signin.doable(m)] == ["fine", "agent"]
    assert signin.shown(methods[1]) == ((), {})  # nothing shown as if it could run
    with pytest.raises(SignInError, match=r"^Nul cannot be used: its argument 2 holds a NUL character"):
        signin.choose("nul")


def test_a_remote_agent_that_offers_a_terminal_sign_in_anyway_gets_no_button_and_a_clear_answer() -> None:
    from acp_tray.agents.signin import SignIn, SignInError

    methods = parse_auth_methods(
        [{"id": "token", "name": "Token"}, {"id": "tui", "name": "Terminal login", "type": "terminal"}]
    )
    for remote in (False, True):
        signin = SignIn("far", lambda event: None, lambda state, detail: None, remote=remote)
        signin.offered(methods, can_log_out=False)
        assert [m.method_id for m in methods if signin.doable(m)] == (["token"] if remote else ["token", "tui"])
        if remote:
            said = "Terminal login runs the agent's own command in a terminal, and far is a remote agent: "
            with pytest.raises(SignInError, match=said + "sign in where it runs, then `acp-tray agents restart far`"):
                signin.choose("tui")
            assert signin.choose(None).method_id == "token"  # the only one acp-tray can do
        else:
            assert signin.choose("tui").method_id == "tui"


@pytest.mark.parametrize(
    ("version", "login", "logout"),
    [(V1, "AuthenticateRequest", "LogoutRequest"), (V2, "LoginAuthRequest", "LogoutAuthRequest")],
)
def test_login_and_logout_requests_validate(version: ProtocolVersion, login: str, logout: str) -> None:
    schema_version = f"v{int(version)}"
    assert login_method(version) == {V1: "authenticate", V2: "auth/login"}[version]
    assert logout_method(version) == {V1: "logout", V2: "auth/logout"}[version]
    assert validator_for(schema_version, login).is_valid(login_params("openai-api-key"))
    assert not validator_for(schema_version, login).is_valid({"id": "openai-api-key"})
    assert validator_for(schema_version, logout).is_valid(logout_params())


def test_methods_in_both_shapes_type_absent_is_agent_and_garbage_is_left_out() -> None:
    v1 = parse_auth_methods(
        [
            {"id": "chatgpt", "name": "Log in with ChatGPT", "description": "opens a browser"},
            {"id": "tui", "name": "Terminal", "type": "terminal", "args": ["--login", 3], "env": {"A": "1", "B": 2}},
            {"id": "key", "name": "Key", "type": "env_var", "args": ["ignored"], "vars": [{"name": "K"}, {}, "=x"]},
            {"name": "no id"},
            "garbage",
        ]
    )
    assert [(m.method_id, m.kind) for m in v1] == [("chatgpt", "agent"), ("tui", "terminal"), ("key", "env_var")]
    assert v1[1].args == ("--login",) and v1[1].env == (("A", "1"),)
    assert v1[2].args == () and v1[2].vars == ("K",)  # only a terminal method runs anything
    assert v1[2].from_environment
    v2 = parse_auth_methods(
        [{"methodId": "tui", "name": "T", "type": "terminal", "env": [{"name": "A", "value": "1"}, {"name": 5}]}]
    )
    assert v2[0].env == (("A", "1"),)
    caps = agent_capabilities({"protocolVersion": 1, "agentCapabilities": {"auth": {"logout": {}}}, "authMethods": []})
    assert caps.logout
    assert not agent_capabilities({"protocolVersion": 1, "authMethods": [{"id": "a", "name": "A"}]}).logout
    assert agent_capabilities({"protocolVersion": 2, "authMethods": [{"methodId": "a", "name": "A"}]}).logout


def test_the_sign_in_notice_has_a_button_per_doable_method_and_lists_all() -> None:
    event = SignInNeeded(
        "codex",
        "Authentication required (code -32000)",
        (
            SignInChoice("chatgpt", "ChatGPT", "agent", "opens a browser", True),
            SignInChoice("tui", "In a terminal", "terminal", "", True),
            SignInChoice("key", "API key", "env_var", "set OPENAI_API_KEY", False, ("OPENAI_API_KEY",)),
            SignInChoice("ready", "Key set", "env_var", "", True, ("CODEX_API_KEY",)),
            SignInChoice("sso", "SSO", "_acme.sso", "ask IT", False),
        ),
    )
    own = own_notice(event)
    assert own is not None
    assert own.notice.title == "Sign in to codex" and own.notice.severity == "warning"
    description = own.notice.description or ""
    lead = "Choose “ChatGPT”, “In a terminal” or “Key set” to sign in."
    command = "Or run `acp-tray login codex METHOD` with one of these."
    assert description.startswith(f"{lead}\n{command}\n")  # the buttons' words first, then the command
    shown = notification_of(
        make_presentation(description=description, actions=own.actions, commands=own.commands, severity="warning")
    )
    assert shown.body_with_buttons is not None and shown.body_with_buttons.startswith(f"{lead}\n• ChatGPT")
    assert command not in shown.body_with_buttons  # where its buttons are there, no command to copy
    hint = "`acp-tray agents secret codex OPENAI_API_KEY`, then `acp-tray login codex key`"
    assert f"• API key (key): set OPENAI_API_KEY — {hint}" in description
    assert "• SSO (sso): ask IT [_acme.sso]" in description and "• Key set (ready)\n" in description
    assert [label for _, label in own.actions] == ["ChatGPT", "In a terminal", "Key set"]  # not yet doable: none
    chosen = [parse_action(action) for action, _ in own.actions][:2]
    assert chosen == [SignIn("codex", "chatgpt"), SignIn("codex", "tui")]
    assert parse_action("signin:[1, 2]") is None and parse_action("signin:{") is None


def test_the_tray_offers_sign_in_under_the_agent() -> None:
    row = AgentRow("codex", AgentState.NEEDS_SIGNIN, "", sign_in=(('signin:["codex", "chatgpt"]', "ChatGPT"),))
    agents = next(e for e in menu_of(TraySnapshot(agents=(row,))) if e.label == "Agents")
    codex, _, add = agents.children  # the agent, then a line and "Add agent…"
    assert add.action == "window:agents"
    assert codex.label == "codex — needs sign-in"
    sign_in = codex.children[0]
    assert sign_in.label == "Sign in" and [(c.label, c.action) for c in sign_in.children] == [
        ("ChatGPT", 'signin:["codex", "chatgpt"]')
    ]
    stop = next(c for c in codex.children if c.label == "Stop")
    assert stop.enabled  # its process runs, waiting
    connected = AgentRow("codex", AgentState.CONNECTED)
    agents = next(e for e in menu_of(TraySnapshot(agents=(connected,))) if e.label == "Agents")
    assert "Sign in" not in [c.label for c in agents.children[0].children]


def fake_program(directory: Path, name: str) -> str:
    path = directory / name
    path.write_text("#!/bin/sh\n", encoding="utf-8")
    path.chmod(0o755)
    return str(path)


@pytest.mark.skipif(os.name != "posix", reason="the Linux/BSD lookup")
def test_the_terminal_emulator_is_terminal_then_x_terminal_emulator_then_a_common_one(tmp_path: Path) -> None:
    argv = ["acp-tray", "login", "codex", "tui"]
    kitty = fake_program(tmp_path, "kitty")
    assert terminal_command(argv, {"PATH": str(tmp_path)}) == [kitty, *argv]
    xte = fake_program(tmp_path, "x-terminal-emulator")
    assert terminal_command(argv, {"PATH": str(tmp_path)}) == [xte, "-e", *argv]
    gnome = fake_program(tmp_path, "gnome-terminal")
    assert terminal_command(argv, {"PATH": str(tmp_path), "TERMINAL": "gnome-terminal --wait"}) == [
        gnome, "--wait", "--", *argv
    ]  # fmt: skip
    assert terminal_command(argv, {"PATH": str(tmp_path / "none")}) is None
    with pytest.raises(NoTerminalError, match=r"set \$TERMINAL .* or run `acp-tray login codex tui` in a terminal"):
        open_in_terminal(argv, {"PATH": str(tmp_path / "none")}, hint="acp-tray login codex tui")


def test_terminal_methods_declared_the_older_ways_are_terminal_methods() -> None:
    """Zed's `_meta["terminal-auth"]` (a whole command) and a type given only in `_meta` (qwen); a
    method typed `terminal` runs the standard way even with `_meta["terminal-auth"]` beside it."""
    legacy = {"command": "/opt/copilot", "args": ["login", 7], "env": {"A": "1"}, "label": "Log in"}
    methods = parse_auth_methods(
        [
            {"id": "copilot-login", "name": "", "_meta": {"terminal-auth": legacy}},
            {"id": "qwen-oauth", "name": "Qwen OAuth", "_meta": {"type": "terminal", "args": ["--auth"]}},
            {"id": "both", "name": "Both", "type": "terminal", "args": ["--setup"], "_meta": {"terminal-auth": legacy}},
            {"id": "no-command", "name": "N", "_meta": {"terminal-auth": {"args": ["x"]}}},
        ]
    )
    assert [(m.method_id, m.name, m.kind) for m in methods] == [
        ("copilot-login", "Log in", "terminal"),
        ("qwen-oauth", "Qwen OAuth", "terminal"),
        ("both", "Both", "terminal"),
        ("no-command", "N", "agent"),
    ]
    assert methods[0].command == ("/opt/copilot", "login") and methods[0].env == (("A", "1"),)
    assert methods[0].runs_in_terminal and not methods[0].through_agent  # never sent to `authenticate`
    assert methods[1].command == () and methods[1].args == ("--auth",)
    assert methods[2].command == () and methods[2].args == ("--setup",)


def test_the_sign_in_notice_shows_what_a_terminal_method_runs_and_an_agent_without_methods_its_own_way() -> None:
    command = ("/opt/copilot", "login", "--device")
    choice = SignInChoice("login", "Log in", "terminal", "", True, (), command)
    own = own_notice(SignInNeeded("copilot", "Not signed in", (choice,)))
    assert own is not None
    description = own.notice.description or ""
    assert "• Log in (login) — runs `/opt/copilot login --device`" in description
    bare = own_notice(SignInNeeded("auggie", "Run `auggie login` first (code -32000)", ()))
    assert bare is not None
    text = bare.notice.description or ""
    assert text.startswith("Sign in auggie's own way, as it says below, then run `acp-tray agents restart auggie`.")
    assert "The agent said: Run `auggie login` first (code -32000)" in text and "METHOD" not in text
