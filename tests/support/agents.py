"""The test agents (tests/agents, tests/interop) and the `[agents.NAME]` tables that run them."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.support.repo import ROOT

AGENTS = ROOT / "tests" / "agents"
SCRIPTED_AGENT = AGENTS / "scripted_agent.py"
SESSION_AGENT = AGENTS / "session_agent.py"
AUTH_AGENT = AGENTS / "auth_agent.py"
TREE_AGENT = AGENTS / "tree_agent.py"
TS_AGENT = ROOT / "tests" / "interop" / "notice_agent.mjs"


def scripted_command() -> list[str]:
    return [sys.executable, str(SCRIPTED_AGENT)]


def agent_table(name: str, command: list[str], env: dict[str, str] | None = None, **settings: Any) -> str:
    """An `[agents.NAME]` table of the preferences file: its command, its env (when given) and other
    settings (strings, numbers, booleans and lists: their JSON is their TOML)."""
    lines = [f"[agents.{name}]", f"command = {json.dumps(command)}"]
    if env is not None:
        lines.append("env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items()) + " }")
    lines += [f"{key} = {json.dumps(value)}" for key, value in settings.items()]
    return "\n".join(lines) + "\n"


def session_agent_table(
    name: str,
    log: Path | None = None,
    *,
    env: dict[str, str] | None = None,
    script: Path = SESSION_AGENT,
    **settings: Any,
) -> str:
    """An `[agents.NAME]` table running tests/agents/session_agent.py (or `script`), which appends
    what it receives to `log` when given."""
    variables = dict(env or {})
    if log is not None:
        variables["SESSION_AGENT_LOG"] = str(log)
    return agent_table(name, [sys.executable, str(script)], variables, **settings)


def auth_agent_table(name: str, directory: Path, protocol: int = 1, at: str = "new") -> str:
    """An `[agents.NAME]` table running tests/agents/auth_agent.py in `directory` (its token file
    there), asking to sign in `at` ("new", "load", "prompt")."""
    directory.mkdir(exist_ok=True)
    env = {"AUTH_AGENT_PROTOCOL": str(protocol), "AUTH_AGENT_AT": at, "AUTH_AGENT_TOKEN": str(directory / "token")}
    return agent_table(name, [sys.executable, str(AUTH_AGENT)], env, cwd=str(directory), protocol=protocol) + "\n"


def received(log: Path, method: str) -> list[dict[str, Any]]:
    """The params of every `method` message a session agent logged (tests/agents/session_agent.py)."""
    if not log.exists():
        return []
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    return [e["params"] for e in entries if e["method"] == method]
