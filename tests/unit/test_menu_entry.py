"""The launcher entry's content: acp-tray's own unedited entry told apart from an edited or foreign one."""

from __future__ import annotations

import configparser
from pathlib import Path

from acp_tray.desktop.menu_entry import MARK, STAMP, Launcher, launcher_entry


def test_an_entry_acp_tray_wrote_is_known_for_any_installation() -> None:
    assert STAMP.unedited(launcher_entry(["/a/acp-tray", "run"]))
    assert STAMP.unedited(launcher_entry(["/b/my tools/acp-tray", "run"]))


def test_an_edited_or_foreign_entry_is_not() -> None:
    entry = launcher_entry(["/a/acp-tray", "run"])
    assert not STAMP.unedited(entry.replace("Name=acp-tray", "Name=Agents"))
    assert not STAMP.unedited(entry + "Hidden=true\n")  # a line added after the mark
    assert not STAMP.unedited(entry.split(MARK)[0])  # the mark taken away
    assert not STAMP.unedited("[Desktop Entry]\nType=Application\nName=acp-tray\nExec=acp-tray run\n")


def test_every_icon_size_has_its_packaged_png(tmp_path: Path) -> None:
    icons = Launcher(["acp-tray", "run"], tmp_path).icon_files()
    assert len(icons) == 8 and all(source.is_file() for source in icons.values())
    assert tmp_path / "icons" / "hicolor" / "256x256" / "apps" / "acp-tray.png" in icons


def test_its_action_opens_the_window_of_the_same_installation() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.read_string(launcher_entry(["/b/my tools/acp-tray", "run"]))
    assert entry["Desktop Entry"]["Exec"] == '"/b/my tools/acp-tray" run'
    assert entry["Desktop Entry"]["Actions"] == "window;"
    assert entry["Desktop Action window"]["Exec"] == '"/b/my tools/acp-tray" ui'
