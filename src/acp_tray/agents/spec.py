"""What the configuration says about one agent: how to reach it and its permission policy."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from acp_tray.logs.redact import shown_url


@dataclass(frozen=True)
class AgentSpec:
    """How to reach an agent (from the configuration): a `command` to start, or a remote `url`."""

    command: list[str]
    cwd: Path = field(default_factory=Path.home)
    env: dict[str, str] = field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)  # templates: "${VAR}" from the environment
    program: tuple[str, ...] = ()  # `command` without its default args, when known (an agent added from the registry)

    @property
    def remote(self) -> bool:
        return self.url is not None

    def describe(self) -> str:
        return shown_url(self.url) if self.url is not None else " ".join(self.command)


@dataclass
class PermissionPolicy:
    policy: str = "ask"  # ask | reject | allow
    timeout: float = 300.0
