"""The preferences model (pydantic v2). Unknown keys are errors, so typos are reported."""

from __future__ import annotations

import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator


class AgentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    command: list[str] = Field(min_length=1, description="Program and arguments, e.g. ['my-agent', '--acp']")
    cwd: Path | None = Field(default=None, description="Working directory for the agent's session (default: home)")
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment variables for the agent")

    @field_validator("command")
    @classmethod
    def _program_not_empty(cls, value: list[str]) -> list[str]:
        if not value[0].strip():
            raise ValueError("the program (first item) must not be empty")
        return value


class Preferences(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    agents: dict[str, AgentConfig] = Field(default_factory=dict)


DEMO_AGENT_NAME = "demo"


def builtin_defaults() -> Preferences:
    """What runs when there is no preferences file: the bundled demo agent."""
    return Preferences(agents={DEMO_AGENT_NAME: AgentConfig(command=[sys.executable, "-m", "acp_tray.demo_agent"])})
