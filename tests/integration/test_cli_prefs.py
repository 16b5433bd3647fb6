"""`acp-tray prefs ...` and `acp-tray dnd ...` as a person types them."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from acp_tray.files import paths
from acp_tray.prefs.template import DEFAULT_FILE
from tests.support.daemons import cli_env


def acp_tray(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_tray", *args], capture_output=True, text=True, env=cli_env(**env), timeout=60
    )


def test_prefs_path_and_show() -> None:
    result = acp_tray("prefs", "path")
    assert result.returncode == 0 and result.stdout.strip() == str(paths.config_file())
    shown = acp_tray("prefs", "show")
    assert shown.returncode == 0
    data = tomllib.loads(shown.stdout)
    assert data["severity"]["warning"] == {"route": "both", "timeout": 0, "sound": "dialog-warning"}
    assert data["rate_limit"] == {"burst": 5, "per": 10.0}
    assert paths.config_file().read_text(encoding="utf-8") == DEFAULT_FILE  # first use wrote the default


def test_prefs_validate(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text('[severity.info]\nroute = "tray"\n', encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text('[severity.info]\nroute = "loud"\n', encoding="utf-8")
    assert acp_tray("prefs", "validate", str(good)).stdout.strip() == f"{good}: ok"
    result = acp_tray("prefs", "validate", str(bad))
    assert result.returncode == 1 and f'{bad}:2: `route` in [severity.info] must be one of "notify"' in result.stderr


def _editor(tmp_path: Path, appended: str) -> str:
    script = tmp_path / "editor.py"
    script.write_text(f"import sys\nopen(sys.argv[1], 'a').write({appended!r})\n", encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def test_prefs_edit_opens_the_editor_then_validates(tmp_path: Path) -> None:
    result = acp_tray("prefs", "edit", EDITOR=_editor(tmp_path, "\n[coalesce]\nwindow = 5\n"))
    # the default file already has [coalesce]: a duplicate table is a TOML error, reported with the line
    assert result.returncode == 1
    assert "TOML syntax error" in result.stdout and "keeps its last good settings" in result.stdout
    paths.config_file().write_text(DEFAULT_FILE.replace("window = 30", "window = 12"), encoding="utf-8")
    ok = acp_tray("prefs", "edit", VISUAL=_editor(tmp_path, "\n# a comment\n"), EDITOR="false")
    assert ok.returncode == 0 and ok.stdout.strip().endswith(": ok; a running acp-tray applies it now")
    assert paths.config_file().read_text(encoding="utf-8").endswith("# a comment\n")


def test_prefs_edit_without_an_editor_says_what_failed_and_what_to_set() -> None:
    """No $VISUAL/$EDITOR and no desktop: the real xdg-open finds nothing to open the file with."""
    env = {k: v for k, v in cli_env().items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")}
    env.update(VISUAL="", EDITOR="", XDG_CURRENT_DESKTOP="", PATH="/usr/bin:/bin")
    assert shutil.which("xdg-open", path=env["PATH"]), "xdg-utils is installed by .ci/system-deps"
    result = subprocess.run(
        [sys.executable, "-m", "acp_tray", "prefs", "edit"], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 1 and ": ok" not in result.stdout
    assert "xdg-open could not open the file (xdg-open: no method available" in result.stderr
    assert "set $VISUAL or $EDITOR (e.g. `export EDITOR=nano`)" in result.stderr


def test_dnd_commands_edit_the_file_and_report(tmp_path: Path) -> None:
    assert acp_tray("dnd", "status").stdout.strip() == "do not disturb: off"
    on = acp_tray("dnd", "on")
    assert on.returncode == 0 and on.stdout.strip() == "do not disturb: on"
    assert tomllib.loads(paths.config_file().read_text())["dnd"]["enabled"] is True
    timed = acp_tray("dnd", "for", "30m")
    assert timed.stdout.startswith("do not disturb: on until ")
    assert acp_tray("dnd", "until", "tomorrow").stdout.startswith("do not disturb: on until ")
    assert acp_tray("dnd", "off").stdout.strip() == "do not disturb: off"
    text = paths.config_file().read_text()
    assert "# Do not disturb: no native notifications" in text  # the explanatory comments survive
    bad = acp_tray("dnd", "for", "soon")
    assert bad.returncode == 1 and "not a duration" in bad.stderr


def test_dnd_cli_reads_negative_durations_bad_times_and_gives_json() -> None:
    negative = acp_tray("dnd", "for", "-1h")
    assert negative.returncode == 1 and "a duration cannot be negative: '-1h'" in negative.stderr
    late = acp_tray("dnd", "until", "25:00")
    assert late.returncode == 1 and "not a time of day: '25:00'" in late.stderr
    far = acp_tray("dnd", "for", "100000h")
    assert far.returncode == 0  # eleven years away: the date, not a weekday that could be any week
    assert re.fullmatch(r"do not disturb: on until \w{3} \d\d \w{3} 20\d\d \d\d:\d\d\n", far.stdout)
    status = acp_tray("dnd", "status", "--json")
    assert status.returncode == 0
    state = json.loads(status.stdout)
    assert state["active"] is True and state["reason"] == "manual" and state["until"].startswith("20")
    assert acp_tray("dnd", "status", "--json", "--config", str(paths.config_file())).returncode == 0


@pytest.mark.parametrize("args", [["prefs"], ["dnd"]])
def test_subcommands_need_an_action(args: list[str]) -> None:
    assert acp_tray(*args).returncode == 2
