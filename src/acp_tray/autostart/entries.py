"""The content of every start-on-login file acp-tray writes, as pure functions of the command.

Each file ends with a stamp (`files/stamp.py`) that says acp-tray wrote it, unedited since, so
`disable` removes only its own files. The command is a list of arguments, quoted for each format by
desktop/entry.py.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from acp_tray.desktop.entry import APP, DESCRIPTION, check, desktop_exec, systemd_exec_start
from acp_tray.files.stamp import Stamp

DESKTOP_MARK = "X-ACP-Tray-Autostart"
SYSTEMD_MARK = "# Written by `acp-tray autostart enable --systemd`; `acp-tray autostart disable` removes it."
LAUNCH_AGENT_LABEL = "io.github.acp-tray"
RUN_VALUE_NAME = "acp-tray"

# the stamp (files/stamp.py) each file ends with; before it, the desktop entry ended with `MARK=true`
DESKTOP_STAMP = Stamp(f"{DESKTOP_MARK}=")
SYSTEMD_STAMP = Stamp(f"# {DESKTOP_MARK}=")
PLIST_STAMP = Stamp(f"<!-- {DESKTOP_MARK}=", " -->")
LEGACY_DESKTOP_MARK = f"{DESKTOP_MARK}=true\n"


def desktop_entry(argv: list[str]) -> str:
    """`$XDG_CONFIG_HOME/autostart/acp-tray.desktop` (XDG Autostart; valid for desktop-file-validate),
    before its stamp."""
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        f"Name={APP}\n"
        f"Comment={DESCRIPTION}\n"
        f"Exec={desktop_exec(argv, 'an XDG autostart entry')}\n"
        f"Icon={APP}\n"
        "Terminal=false\n"
        "X-GNOME-Autostart-enabled=true\n"
    )


def systemd_unit(argv: list[str]) -> str:
    """`~/.config/systemd/user/acp-tray.service`, started with the graphical session (before its stamp)."""
    return (
        f"{SYSTEMD_MARK}\n"
        "[Unit]\n"
        f"Description=acp-tray: {DESCRIPTION}\n"
        "PartOf=graphical-session.target\n"
        "After=graphical-session.target\n"
        "\n"
        "[Service]\n"
        "Type=simple\n"
        f"ExecStart={systemd_exec_start(argv)}\n"
        "Restart=on-failure\n"
        "RestartSec=10\n"
        "\n"
        "[Install]\n"
        "WantedBy=graphical-session.target\n"
    )


def launch_agent(argv: list[str], log_file: Path) -> bytes:
    """`~/Library/LaunchAgents/io.github.acp-tray.plist`: run at login, once (no KeepAlive: a
    daemon that exits, or a second instance that finds the first, is not restarted in a loop)."""
    import plistlib  # here: the daemon's first start imports this module, and plistlib brings XML in

    check(argv, "a LaunchAgent")
    return plistlib.dumps(
        {
            "Label": LAUNCH_AGENT_LABEL,
            "ProgramArguments": argv,
            "RunAtLoad": True,
            "KeepAlive": False,
            "ProcessType": "Interactive",
            "StandardOutPath": str(log_file),
            "StandardErrorPath": str(log_file),
        }
    )


def run_value(argv: list[str]) -> str:
    """The `HKCU\\...\\CurrentVersion\\Run` value: a Windows command line."""
    return subprocess.list2cmdline(argv)
