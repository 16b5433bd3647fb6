"""The preferences file itself: the commented default, write-back that keeps comments, bad files."""

from __future__ import annotations

import difflib
import os
import tomllib
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from acp_tray.prefs.load import PreferencesError, parse_preferences, read_preferences, write_default_file
from acp_tray.prefs.model import Preferences, builtin_defaults
from acp_tray.prefs.template import DEFAULT_FILE
from acp_tray.prefs.write import set_dnd, set_quiet_hours
from tests.support.platforms import posix_only


def model_keys(model: type[BaseModel], prefix: str = "") -> set[str]:
    keys = set()
    for name, field in model.model_fields.items():
        if name == "agents":
            continue
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            keys |= model_keys(annotation, f"{prefix}{name}.")
        else:
            keys.add(f"{prefix}{name}")
    return keys


def file_keys(data: dict[str, Any], prefix: str = "") -> set[str]:
    keys = set()
    for name, value in data.items():
        if name == "agents" and not prefix:
            continue
        if isinstance(value, dict):
            keys |= file_keys(value, f"{prefix}{name}.")
        else:
            keys.add(f"{prefix}{name}")
    return keys


def test_default_file_has_every_setting_each_with_a_comment() -> None:
    data = tomllib.loads(DEFAULT_FILE)
    assert file_keys(data) == model_keys(Preferences)
    for key in model_keys(Preferences):
        leaf = key.rsplit(".", 1)[-1]
        assert f"{leaf}" in DEFAULT_FILE.split("[agents.demo]")[0]
    # and it means exactly the built-in defaults
    assert parse_preferences(DEFAULT_FILE, Path("default.toml")) == builtin_defaults()


def test_default_file_is_written_once_and_never_over_a_users_file(tmp_path: Path) -> None:
    path = tmp_path / "acp-tray" / "config.toml"
    assert write_default_file(path)
    path.write_text("# mine\n", encoding="utf-8")
    assert not write_default_file(path)
    assert path.read_text(encoding="utf-8") == "# mine\n"


USER_FILE = """\
# My acp-tray setup — hand written.

[dnd]   # quiet please
enabled = false   # toggled by the tray
allow = [ "error" ]      # errors may interrupt

[severity.info]
route = "tray"    # info never pops up

[agents.claude]
command = [ "claude-code-acp" ]
"""


@posix_only("file modes (0600)")
def test_dnd_toggle_keeps_comments_order_and_formatting(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(USER_FILE, encoding="utf-8")
    os.chmod(path, 0o600)
    until = datetime(2026, 11, 29, 14, 0).astimezone()
    prefs = set_dnd(path, enabled=True, until=until)
    assert prefs.dnd.enabled and prefs.dnd.until == until
    text = path.read_text(encoding="utf-8")
    diff = [line for line in difflib.ndiff(USER_FILE.splitlines(), text.splitlines()) if line.startswith(("- ", "+ "))]
    until_line = next(line for line in text.splitlines() if line.startswith("until = "))
    assert diff == [
        "- enabled = false   # toggled by the tray",
        "+ enabled = true   # toggled by the tray",
        f"+ {until_line}",
    ]  # one value changed in place, one key added to its table; nothing else moves
    assert read_preferences(path).dnd.enabled
    assert os.stat(path).st_mode & 0o777 == 0o600  # the file keeps its mode
    set_dnd(path, enabled=False, until=None)
    text = path.read_text(encoding="utf-8")
    assert "enabled = false   # toggled by the tray" in text and 'until = ""' in text
    assert "# errors may interrupt" in text and text.startswith("# My acp-tray setup")


def test_toggles_on_the_default_file_keep_every_comment(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(DEFAULT_FILE, encoding="utf-8")
    set_dnd(path, enabled=True, until=datetime(2026, 11, 29, 14, 0).astimezone())
    set_quiet_hours(path, enabled=True)
    text = path.read_text(encoding="utf-8")
    comments = [line for line in DEFAULT_FILE.splitlines() if line.lstrip().startswith("#")]
    assert all(comment in text for comment in comments)
    prefs = read_preferences(path)
    assert prefs.dnd.enabled and prefs.dnd.quiet_hours.enabled


def test_a_file_with_a_quiet_hours_section_missing_gets_one(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# nothing\n", encoding="utf-8")
    set_quiet_hours(path, enabled=True)
    assert read_preferences(path).dnd.quiet_hours.enabled
    assert path.read_text(encoding="utf-8").startswith("# nothing\n")


BROKEN = {
    "toml syntax": ("[dnd\nenabled = true\n", ":1: TOML syntax error"),
    "unknown key": ("[dnd]\nenabld = true\n", ":2: unknown key `enabld` in [dnd]; did you mean `enabled`?"),
    "wrong type": (
        '[severity.info]\ntimeout = "soon"\n',
        ':2: `timeout` in [severity.info] must be a whole number, not "soon"',
    ),
    "out of range": ("[rate_limit]\nburst = 0\n", ":2: `burst` in [rate_limit] must be at least 1, not 0"),
    "bad route": (
        '[severity.error]\nroute = "loud"\n',
        ':2: `route` in [severity.error] must be one of "notify", "tray"',
    ),
    "bad time": (
        '[dnd.quiet_hours]\nstart = "25:00"\n',
        ":2: `start` in [dnd.quiet_hours]: expected a time of day like \"22:00\", got '25:00'",
    ),
    "bad day": (
        '[dnd.quiet_hours]\ndays = ["funday"]\n',
        ':2: item 1 of `days` in [dnd.quiet_hours] must be one of "mon"',
    ),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_each_kind_of_error_names_file_line_and_field(tmp_path: Path, case: str) -> None:
    text, expected = BROKEN[case]
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PreferencesError) as info:
        read_preferences(path)
    assert f"{path}{expected}" in str(info.value)


def test_write_back_refuses_a_broken_file_and_leaves_it_byte_identical(tmp_path: Path) -> None:
    folder = tmp_path / "prefs"
    folder.mkdir()
    path = folder / "config.toml"
    path.write_bytes(b"[dnd\nenabled = true  # half-typed\n")
    before = path.read_bytes()
    with pytest.raises(PreferencesError, match="not changed"):
        set_dnd(path, enabled=True, until=None)
    assert path.read_bytes() == before
    assert [p.name for p in folder.iterdir()] == ["config.toml"]  # no temporary left behind


def test_write_back_refuses_a_change_that_would_not_validate(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"[dnd]\nbogus = 1\n")
    before = path.read_bytes()
    with pytest.raises(PreferencesError, match="bogus"):
        set_dnd(path, enabled=True, until=datetime.now().astimezone() + timedelta(hours=1))
    assert path.read_bytes() == before


def test_nesting_is_counted_outside_strings_and_comments_only() -> None:
    """Brackets in strings and comments are text: a title of 500 `[` is a fine value; the line
    given is the one where the nesting passes the limit."""
    from acp_tray.prefs.load import MAX_NESTING, too_deep

    assert too_deep('a = "' + "[" * 500 + "\"\nb = '" + "{" * 500 + "'\n# " + "[" * 500 + "\n") is None
    assert too_deep('a = """\n' + "[" * 500 + '\n"""\nb = "\\"[[["\n') is None
    assert too_deep("a = " + "[" * MAX_NESTING + "]" * MAX_NESTING) is None
    assert too_deep('a = "unclosed\n\n' + "b = " + "[" * (MAX_NESTING + 1)) == 3
    assert too_deep("[dnd]\n[[agents]]\nx = [\n" + "[" * MAX_NESTING + "\n") == 4
