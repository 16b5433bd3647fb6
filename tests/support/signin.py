"""The sign-in agent (tests/agents/auth_agent.py) hosted in the test's event loop: its spec, what it
received (each message checked against the ACP schema), and the states it went through."""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

from acp_tray.agents.host import AgentSpec
from acp_tray.events import AgentState, AgentStatus
from tests.support.agents import AUTH_AGENT
from tests.support.event_log import EventLog
from tests.support.schemas import schema, validator_for


def auth_spec(tmp_path: Path, protocol: int, at: str, **env: str) -> AgentSpec:
    return AgentSpec(
        command=[sys.executable, str(AUTH_AGENT)],
        cwd=tmp_path,
        env={
            "AUTH_AGENT_PROTOCOL": str(protocol),
            "AUTH_AGENT_AT": at,
            "AUTH_AGENT_TOKEN": str(tmp_path / "token"),
            "AUTH_AGENT_LOG": str(tmp_path / "agent.jsonl"),
            **env,
        },
    )


def received(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "agent.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


@cache
def request_definitions(version: str) -> dict[str, str]:
    """Method -> the schema definition of its params (a client-to-agent request or notification)."""
    found = {}
    for name, definition in schema(version)["$defs"].items():
        method = definition.get("x-method")
        if method and definition.get("x-side") == "agent" and not name.endswith("Response"):
            found[method] = name
    return found


def assert_all_valid(tmp_path: Path, protocol: int) -> list[str]:
    """Every message acp-tray sent the agent validates against that version's schema (and says which)."""
    version = f"v{protocol}"
    methods = []
    for message in received(tmp_path):
        if "method" not in message:
            continue
        definition = request_definitions(version).get(message["method"])
        assert definition is not None, f"{message['method']} is not a {version} agent method"
        errors = list(validator_for(version, definition).iter_errors(message.get("params")))
        assert not errors, f"{message['method']}: {errors[0].message}"
        methods.append(message["method"])
    return methods


def status_states(log: EventLog) -> list[AgentState]:
    return [e.state for e in log.of(AgentStatus)]


async def wait_state(log: EventLog, state: AgentState, count: int = 1) -> None:
    await log.wait_for(lambda: status_states(log).count(state) >= count)
