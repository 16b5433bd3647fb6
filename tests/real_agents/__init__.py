"""Where the pinned third-party agents live (installed outside the repository by `.ci/real-agents`).

Tests that run a real agent get its command from here; a missing install is a test failure that
says how to install it, never a skip.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


# read at import (test collection), before a test's own XDG directories replace the person's
_DEFAULT = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "acp-tray-tests" / "real-agents"
_CHOSEN = os.environ.setdefault("ACP_TRAY_REAL_AGENTS", str(_DEFAULT))  # and for the tests' child processes


def root() -> Path:
    return Path(_CHOSEN or _DEFAULT)


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.fail(f"{path} is missing: install the real agents with `bash .ci/real-agents`", pytrace=False)
    return path


def npm_bin(name: str) -> list[str]:
    """The command of an npm agent's launcher (codex-acp, claude-agent-acp, gemini, qwen, copilot, opencode)."""
    return [str(_need(root() / "npm" / "node_modules" / ".bin" / name))]


def npm_package_bin(package: str, name: str | None = None) -> list[str]:
    """The command of npm package `package`'s own launcher `name` (its package.json `bin`; its only
    one without `name`), by its path in the package, run by node as its `#!/usr/bin/env node` would:
    two packages may name their launchers alike (`claude-agent-acp` is both the Zed and the ACP
    Claude adapter's, `codex-acp` both codex adapters'), and node_modules/.bin then holds only one."""
    folder = _need(root() / "npm" / "node_modules" / package)
    launchers = json.loads((folder / "package.json").read_text(encoding="utf-8"))["bin"]
    launcher = launchers if isinstance(launchers, str) else launchers[name] if name else next(iter(launchers.values()))
    return ["node", str(_need(folder / launcher))]


def sdk_example(name: str) -> list[str]:
    """The command of one of the Python SDK's example agents (examples/agent.py, echo_agent.py),
    run by this interpreter (which has the pinned SDK installed)."""
    pin = re.search(r'"agent-client-protocol\[http\]==([0-9.]+)"', (REPO / "pyproject.toml").read_text())
    assert pin is not None, "pyproject.toml pins agent-client-protocol"
    return [sys.executable, str(_need(root() / "pysdk" / pin.group(1) / "examples" / name))]
