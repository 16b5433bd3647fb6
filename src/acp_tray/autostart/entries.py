"""The content of every start-on-login file acp-tray writes, as pure functions of the command.

Each carries a mark that says acp-tray wrote it, so `disable` removes only its own files. The
command is a list of arguments; each format has its own quoting rules, applied here.
"""

from __future__ import annotations

import re
import subprocess
import sys
import sysconfig
from pathlib import Path

APP = "acp-tray"
DESKTOP_MARK = "X-ACP-Tray-Autostart"
SYSTEMD_MARK = "# Written by `acp-tray autostart enable --systemd`; `acp-tray autostart disable` removes it."
LAUNCH_AGENT_LABEL = "io.github.acp-tray"
RUN_VALUE_NAME = "acp-tray"
DESCRIPTION = "Desktop companion for headless coding agents (Agent Client Protocol)"

# Desktop Entry Specification, "The Exec key": these make an argument need quoting
_DESKTOP_RESERVED = re.compile(r"[\s\"'\\><~|&;$*?#()`]")
_SYSTEMD_PLAIN = re.compile(r"^[A-Za-z0-9_@%+=:,./-]+$")


def this_installation(*, gui: bool = False) -> list[str]:
    """How to start `acp-tray run` from this installation, by absolute path (a venv or pipx install
    is not on the login session's PATH). `gui`: Windows' console-less entry point."""
    if getattr(sys, "frozen", False):  # a one-file build: the binary is the program
        return [sys.executable, "run"]
    scripts = Path(sysconfig.get_path("scripts"))
    name = APP + ("-gui" if gui else "") + (".exe" if sys.platform == "win32" else "")
    script = scripts / name
    if script.exists():
        return [str(script), "run"]
    python = Path(sys.executable)
    if gui and sys.platform == "win32" and (python.parent / "pythonw.exe").exists():
        python = python.parent / "pythonw.exe"
    return [str(python), "-m", "acp_tray", "run"]


def desktop_exec(argv: list[str]) -> str:
    """An Exec value: arguments quoted per the spec, then escaped as a desktop-file string."""
    parts = []
    for arg in argv:
        arg = arg.replace("%", "%%")  # field codes
        if _DESKTOP_RESERVED.search(arg) or not arg:
            arg = '"' + re.sub(r'(["`$\\])', r"\\\1", arg) + '"'
        parts.append(arg)
    # the string escape rule applies first when reading, so every backslash is doubled here
    return " ".join(parts).replace("\\", "\\\\")


def desktop_entry(argv: list[str]) -> str:
    """`$XDG_CONFIG_HOME/autostart/acp-tray.desktop` (XDG Autostart; valid for desktop-file-validate)."""
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        f"Name={APP}\n"
        f"Comment={DESCRIPTION}\n"
        f"Exec={desktop_exec(argv)}\n"
        f"Icon={APP}\n"
        "Terminal=false\n"
        "X-GNOME-Autostart-enabled=true\n"
        f"{DESKTOP_MARK}=true\n"
    )


def systemd_quote(arg: str) -> str:
    arg = arg.replace("%", "%%").replace("$", "$$")  # specifiers and variable expansion
    if _SYSTEMD_PLAIN.match(arg):
        return arg
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


def systemd_unit(argv: list[str]) -> str:
    """`~/.config/systemd/user/acp-tray.service`, started with the graphical session."""
    return (
        f"{SYSTEMD_MARK}\n"
        "[Unit]\n"
        f"Description=acp-tray: {DESCRIPTION}\n"
        "PartOf=graphical-session.target\n"
        "After=graphical-session.target\n"
        "\n"
        "[Service]\n"
        "Type=simple\n"
        f"ExecStart={' '.join(systemd_quote(arg) for arg in argv)}\n"
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
