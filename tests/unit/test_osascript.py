"""macOS notifications through `osascript`: the script is constant and the agent's text only its
arguments (hostile text stays text and is never an option); a failing osascript is reported so
the chain falls back. osascript itself is replaced by a recording program (macOS cannot run here)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from acp_tray.notifiers.backend import BackendUnavailableError
from acp_tray.notifiers.content import notification_of
from acp_tray.notifiers.osascript import SCRIPT, OsascriptBackend, osascript_argv
from acp_tray.notifiers.plyer_backend import ZERO_WIDTH_SPACE
from tests.hostile.corpus import CORPUS, Hostile, unsafe_characters
from tests.support.presentations import make_presentation as presentation


def test_the_script_reads_its_text_from_argv_only() -> None:
    assert SCRIPT.startswith("on run argv") and SCRIPT.endswith("end run")
    assert "(item 1 of argv)" in SCRIPT and "(item 2 of argv)" in SCRIPT and '"' not in SCRIPT


@pytest.mark.parametrize("entry", CORPUS, ids=lambda entry: entry.name)
def test_hostile_text_is_only_ever_an_argument(entry: Hostile) -> None:
    n = notification_of(presentation(title=entry.text, description=entry.text, agent=entry.text))
    argv = osascript_argv("/usr/bin/osascript", n)
    assert argv[:3] == ["/usr/bin/osascript", "-e", SCRIPT]  # nothing of the agent's in the script
    title, message = argv[3:]
    for text, sent in ((title, n.summary), (message, n.body or " ")):
        assert not text.startswith("-"), entry.name  # never an option to osascript
        assert text == sent or text == ZERO_WIDTH_SPACE + sent, entry.name  # all of it, unchanged
        assert "\x00" not in text and not unsafe_characters(text, one_line=False), entry.name
        text.encode("utf-8")  # a lone surrogate would make the exec fail


@pytest.mark.parametrize("text", ['a " & do shell script "touch /tmp/pwned" & "', "--help", "-e x"])
def test_quotes_and_leading_dashes_stay_text(text: str) -> None:
    n = notification_of(presentation(title=text, description=text))
    _, _, script, title, message = osascript_argv("osascript", n)
    assert script == SCRIPT and title.endswith(text) and message.endswith(text)


def _recorder(tmp_path: Path, code: int) -> str:
    """A stand-in for osascript: records its argv as JSON, says something on stderr, exits `code`."""
    program = tmp_path / "osascript"
    record = tmp_path / "argv.json"
    program.write_text(
        f"#!{sys.executable}\nimport json, sys\n"
        f"open({str(record)!r}, 'w', encoding='utf-8').write(json.dumps(sys.argv[1:]))\n"
        f"sys.stderr.write('execution error: Not authorized (-1743)')\nsys.exit({code})\n"
    )
    program.chmod(0o755)
    return str(program)


@pytest.mark.skipif(sys.platform == "win32", reason="a #! stand-in program")
async def test_the_arguments_arrive_as_sent(tmp_path: Path) -> None:
    backend = OsascriptBackend()
    backend._program = _recorder(tmp_path, 0)
    n = notification_of(presentation(title='say "hi" & do shell script "id"', description="→ 🎉 —"))
    await backend.notify(n)
    assert json.loads((tmp_path / "argv.json").read_text(encoding="utf-8")) == [
        "-e",
        SCRIPT,
        'bot: say "hi" & do shell script "id"',
        "→ 🎉 —",
    ]


@pytest.mark.skipif(sys.platform == "win32", reason="a #! stand-in program")
async def test_a_failing_osascript_is_not_shown(tmp_path: Path) -> None:
    backend = OsascriptBackend()
    backend._program = _recorder(tmp_path, 1)
    with pytest.raises(BackendUnavailableError, match="Not authorized"):
        await backend.notify(notification_of(presentation(title="x")))


async def test_osascript_is_offered_on_macos_only() -> None:
    if sys.platform == "darwin":
        pytest.skip("on macOS it starts")
    with pytest.raises(BackendUnavailableError, match="macOS only"):
        await OsascriptBackend().start()


def test_auto_on_macos_is_osascript_then_plyer_then_the_console(monkeypatch: pytest.MonkeyPatch) -> None:
    from acp_tray.notifiers.console import ConsoleNotifier
    from acp_tray.notifiers.select import backends_for

    monkeypatch.setattr(sys, "platform", "darwin")
    names = [backend.name for backend in backends_for("auto", ConsoleNotifier(), lambda group, what: None)]
    assert names == ["osascript", "plyer", "console"]
