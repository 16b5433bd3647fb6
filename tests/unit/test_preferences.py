"""Loading the preferences file: defaults, agents, and errors that point at file:line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from acp_tray.app.fleet import spec_of
from acp_tray.prefs.load import PreferencesError, load_preferences, parse_preferences
from acp_tray.prefs.model import DEMO_AGENT_NAME


def test_first_run_writes_the_default_file_with_the_demo_agent(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    loaded = load_preferences(path, explicit=False)
    assert loaded.source == path and loaded.created
    assert list(loaded.prefs.agents) == [DEMO_AGENT_NAME]
    assert spec_of(DEMO_AGENT_NAME, loaded.prefs.agents[DEMO_AGENT_NAME]).command == [
        sys.executable,
        "-m",
        "acp_tray",
        "demo-agent",
    ]


def test_agents_with_cwd_and_env(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '# my agents\n[agents.claude]\ncommand = ["claude-code-acp", "--verbose"]\ncwd = "~/src/app"\n'
        'env = { ANTHROPIC_LOG = "debug" }\n\n[agents.gemini]\ncommand = ["gemini", "--experimental-acp"]\n',
        encoding="utf-8",
    )
    prefs = load_preferences(path, explicit=True).prefs
    assert list(prefs.agents) == ["claude", "gemini"]
    claude = spec_of("claude", prefs.agents["claude"])
    assert claude.command == ["claude-code-acp", "--verbose"]
    assert claude.cwd == Path.home() / "src" / "app"
    assert claude.env == {"ANTHROPIC_LOG": "debug"}
    assert spec_of("gemini", prefs.agents["gemini"]).cwd == Path.home()


def test_empty_file_means_no_agents(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# nothing yet\n", encoding="utf-8")
    assert load_preferences(path, explicit=False).prefs.agents == {}


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        (
            '[agents.a]\ncommand = ["x"]\nenv = { A = 1 }\n',
            "f.toml:3",
            '`A` in [agents.a.env] must be text in quotes ("..."), not 1',
        ),
        ('[agents.a]\ncommand = [""]\n', "f.toml:2", "the program (first item) must not be empty"),
        ('[agent.a]\ncommand = ["x"]\n', "f.toml:1", "unknown key `agent` at the top level; did you mean `agents`?"),
        ('[agents.a]\ncommand = ["x"\n', "f.toml:", "TOML syntax error"),
        ("[agents.a]\ncwd = '/tmp'\n", "f.toml:1", "[agents.a]: give either `command` (a local agent) or `url`"),
        ("[agents.a]\ncommand = ['x']\nurl = 'ws://h'\n", "f.toml:1", "[agents.a]: give either `command`"),
        ("\n[agents.a]\nurl = 'http://h'\n", "f.toml:3", "`url` in [agents.a]: expected a WebSocket URL"),
        (
            "[agents.a]\ncommand = ['x']\npermission = 'yes'\n",
            "f.toml:3",
            '`permission` in [agents.a] must be one of "ask", "reject", "allow", not "yes"',
        ),
    ],
)
def test_errors_name_file_line_and_reason(text: str, where: str, reason: str) -> None:
    with pytest.raises(PreferencesError) as info:
        parse_preferences(text, Path("f.toml"))
    message = str(info.value)
    assert message.startswith(where) and reason in message


def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(PreferencesError, match="cannot read"):
        load_preferences(path, explicit=True)


def test_a_partial_severity_table_keeps_that_severitys_other_defaults() -> None:
    prefs = parse_preferences('[severity.info]\nroute = "tray"\n[severity.error]\ntimeout = 9\n', Path("f.toml"))
    assert (prefs.severity.info.route, prefs.severity.info.timeout) == ("tray", 5)
    assert (prefs.severity.error.route, prefs.severity.error.timeout) == ("both", 9)
    assert prefs.severity.warning.timeout == 0 and prefs.severity.other.timeout == 10


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[severity.info]\nrout = "tray"\n', ":2: unknown key `rout` in [severity.info]; did you mean `route`?"),
        ('notifer = "console"\n', ":1: unknown key `notifer` at the top level; did you mean `notifier`?"),
        (
            '[agents.a]\ncommand = ["x"]\n[agents.a.route]\nwarn = "tray"\n',
            ":4: unknown key `warn` in [agents.a.route]; did you mean `warning`?",
        ),
        ("[severity.foo]\n", ":1: unknown key `foo` in [severity]; known keys: error, info, other, warning"),
        ('[severity.info]\ntimeout = "x"\n', ':2: `timeout` in [severity.info] must be a whole number, not "x"'),
        ("[severity.info]\ntimeout = -5\n", ":2: `timeout` in [severity.info] must be at least 0, not -5"),
        ("[rate_limit]\nburst = 0\n", ":2: `burst` in [rate_limit] must be at least 1, not 0"),
        ("[coalesce]\nwindow = 99999999\n", ":2: `window` in [coalesce] must be at most 86400, not 99999999"),
        ("[dnd]\nenabled = 3\n", ":2: `enabled` in [dnd] must be true or false, not 3"),
        (
            '[severity.info]\nroute = "tary"\n',
            ':2: `route` in [severity.info] must be one of "notify", "tray", "both", "none", not "tary";'
            " did you mean `tray`?",
        ),
        ("[agents.a]\nmute = true\n", ":1: [agents.a]: give either `command` (a local agent) or `url` (a remote one)"),
    ],
)
def test_errors_are_in_plain_words_with_file_and_line(text: str, expected: str, tmp_path: Path) -> None:
    with pytest.raises(PreferencesError) as info:
        parse_preferences(text, tmp_path / "config.toml")
    message = str(info.value)
    assert f"{tmp_path / 'config.toml'}{expected}" in message
    for pydantic_words in ("Input should", "Extra inputs", "Value error", "valid integer"):
        assert pydantic_words not in message
