"""In a one-file build (PyInstaller), the binary is acp-tray itself: what changes."""

from __future__ import annotations

import os
import sys

import pytest

from acp_tray.cli import _unfreeze_environment
from acp_tray.desktop.entry import this_installation
from acp_tray.prefs.model import AgentConfig


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", "/opt/acp-tray/acp-tray")


def test_the_demo_agent_is_started_from_the_binary_itself(frozen: None) -> None:
    command, _, _ = AgentConfig(command=["acp-tray", "demo-agent", "--interval", "1"]).launch()
    assert command == ["/opt/acp-tray/acp-tray", "demo-agent", "--interval", "1"]
    assert AgentConfig(command=["other", "x"]).launch()[0] == ["other", "x"]


def test_not_frozen_the_demo_agent_is_this_python_running_the_package() -> None:
    command, _, _ = AgentConfig(command=["acp-tray", "demo-agent"]).launch()
    assert command == [sys.executable, "-m", "acp_tray", "demo-agent"]


def test_start_on_login_runs_the_binary(frozen: None) -> None:
    assert this_installation() == ["/opt/acp-tray/acp-tray", "run"]


@pytest.mark.parametrize("original", [None, "/usr/local/lib"])
def test_children_get_the_library_path_the_person_had(
    frozen: None, monkeypatch: pytest.MonkeyPatch, original: str | None
) -> None:
    monkeypatch.setenv("LD_LIBRARY_PATH", "/tmp/_MEI1234")
    if original is None:
        monkeypatch.delenv("LD_LIBRARY_PATH_ORIG", raising=False)
    else:
        monkeypatch.setenv("LD_LIBRARY_PATH_ORIG", original)
    _unfreeze_environment()
    assert os.environ.get("LD_LIBRARY_PATH") == original
    assert "LD_LIBRARY_PATH_ORIG" not in os.environ
