"""What the question agent (tests/interop/question_agent.mjs) logged and the questions `acp-tray
questions` lists: shared by the tests of questions answered at the desk and from the phone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.daemons import cli
from tests.support.schemas import validator_for


def agent_log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def answers(path: Path) -> list[dict[str, Any]]:
    return [e["answer"] for e in agent_log(path) if e["event"] == "answered"]


def waiting() -> list[dict[str, Any]]:
    result = cli("questions", "--json")
    assert result.returncode == 0, result.stderr
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


def valid_answers(path: Path, version: int) -> None:
    validator = validator_for(f"v{version}", "CreateElicitationResponse")
    for answer in answers(path):
        errors = list(validator.iter_errors(answer))
        assert not errors, errors[0].message
