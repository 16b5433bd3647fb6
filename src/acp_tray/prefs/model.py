"""The preferences model (pydantic v2). Unknown keys are errors, so typos are reported.

Every default lives here; `prefs/template.py` is the same defaults as a commented file, and a
test keeps the two equal.
"""

from __future__ import annotations

import re
import sys
from datetime import datetime, time
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from acp_tray.demo import DEMO_AGENT_NAME as DEMO_AGENT_NAME  # declared beside the demo; known here too
from acp_tray.prefs.command_rules import command_problem, env_problem
from acp_tray.prefs.names import agent_name_problem
from acp_tray.prefs.urls import DEFAULT_URL as REGISTRY_URL
from acp_tray.prefs.urls import check_url

Route = Literal["notify", "tray", "both", "none"]
SeverityClass = Literal["info", "warning", "error", "other"]
Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
WEEKDAYS: tuple[Weekday, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
MAX_TIMEOUT = 24 * 3600

_CLOCK = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
_SOUND_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")  # the freedesktop sound naming spec's names


def _clock_time(value: object) -> object:
    """Accept "HH:MM" (and TOML local times) for times of day."""
    if isinstance(value, str):
        match = _CLOCK.match(value.strip())
        if not match:
            raise ValueError(f'expected a time of day like "22:00", got {value!r}')
        return time(int(match.group(1)), int(match.group(2)))
    return value


def _optional_datetime(value: object) -> object:
    """`until = ""` means no end; naive times are taken as local time."""
    if value == "":
        return None
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.astimezone()
    return value


def _no_sound(value: object) -> object:
    """`sound = false` is the same as `sound = ""`: silent."""
    return "" if value is False else value


def _sound_name(value: str) -> str:
    if value and not _SOUND_NAME.match(value):
        raise ValueError(
            'expected a sound name from the freedesktop sound naming spec, like "dialog-warning" or '
            f'"message-new-instant" (lowercase letters and digits joined by "-"), or "" for no sound; got {value!r}'
        )
    return value


ClockTime = Annotated[time, BeforeValidator(_clock_time)]
SoundName = Annotated[str, BeforeValidator(_no_sound), AfterValidator(_sound_name)]
OptionalDatetime = Annotated[datetime | None, BeforeValidator(_optional_datetime)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SeverityPrefs(_Strict):
    route: Route
    timeout: int = Field(ge=0, le=MAX_TIMEOUT)
    sound: SoundName = ""  # the notification server's `sound-name` hint; "" = silent


_SEVERITY_DEFAULTS: dict[SeverityClass, dict[str, Any]] = {
    "info": {"route": "both", "timeout": 5, "sound": ""},
    "warning": {"route": "both", "timeout": 0, "sound": "dialog-warning"},
    "error": {"route": "both", "timeout": 0, "sound": "dialog-error"},
    "other": {"route": "both", "timeout": 10, "sound": ""},
}


class SeverityTable(_Strict):
    info: SeverityPrefs = SeverityPrefs(**_SEVERITY_DEFAULTS["info"])
    warning: SeverityPrefs = SeverityPrefs(**_SEVERITY_DEFAULTS["warning"])
    error: SeverityPrefs = SeverityPrefs(**_SEVERITY_DEFAULTS["error"])
    other: SeverityPrefs = SeverityPrefs(**_SEVERITY_DEFAULTS["other"])

    @model_validator(mode="before")
    @classmethod
    def _fill_in_defaults(cls, data: object) -> object:
        """A table that sets only `route` keeps that severity's own default `timeout` and `sound`, and so on."""
        if not isinstance(data, dict):
            return data
        return {
            name: {**_SEVERITY_DEFAULTS[name], **value}
            if name in _SEVERITY_DEFAULTS and isinstance(value, dict)
            else value
            for name, value in data.items()
        }

    def of(self, severity_class: SeverityClass) -> SeverityPrefs:
        prefs: SeverityPrefs = getattr(self, severity_class)
        return prefs


class AgentRoutes(_Strict):
    info: Route | None = None
    warning: Route | None = None
    error: Route | None = None
    other: Route | None = None


Permission = Literal["ask", "reject", "allow"]
ProtocolChoice = Literal["auto", 1, 2]  # "auto": offer 2, continue on 1 if that is what the agent speaks
MAX_PERMISSION_TIMEOUT = 24 * 3600


class AgentConfig(_Strict):
    command: list[str] | None = Field(default=None, min_length=1)
    url: str | None = None  # a remote agent: ws:// or wss://
    headers: dict[str, str] = Field(default_factory=dict)  # for `url`; "${VAR}" takes $VAR from the environment
    cwd: Path | None = None
    env: dict[str, str] = Field(default_factory=dict)
    mute: bool = False
    route: AgentRoutes = AgentRoutes()
    permission: Permission = "ask"
    permission_timeout: float = Field(default=300.0, gt=0, le=MAX_PERMISSION_TIMEOUT)
    protocol: ProtocolChoice | None = None  # None: the global `protocol`

    @field_validator("command")
    @classmethod
    def _program_not_empty(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and not value[0].strip():
            raise ValueError("the program (first item) must not be empty")
        problem = command_problem(value) if value is not None else None
        if problem is not None:
            raise ValueError(problem)
        return value

    @field_validator("env")
    @classmethod
    def _env_can_be_given(cls, value: dict[str, str]) -> dict[str, str]:
        problem = env_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    @field_validator("url")
    @classmethod
    def _websocket_url(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^wss?://[^/\s]+", value):
            raise ValueError(f'expected a WebSocket URL like "ws://127.0.0.1:8765" or "wss://host/acp", got {value!r}')
        return value

    @model_validator(mode="after")
    def _command_or_url(self) -> AgentConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either `command` (a local agent) or `url` (a remote one), not both or neither")
        return self

    def launch(self) -> tuple[list[str], Path, dict[str, str]]:
        """How to start it: `acp-tray ...` runs this very installation, whatever PATH says."""
        cwd = self.cwd.expanduser() if self.cwd is not None else Path.home()
        return run_command(self.command or []), cwd, dict(self.env)


def run_command(command: list[str]) -> list[str]:
    """The command as it is run: `acp-tray ...` runs this very installation, whatever PATH says."""
    if command[:1] != ["acp-tray"]:
        return list(command)
    if getattr(sys, "frozen", False):  # a one-file build: the binary is acp-tray itself
        return [sys.executable, *command[1:]]
    return [sys.executable, "-m", "acp_tray", *command[1:]]


class QuietHours(_Strict):
    enabled: bool = False
    days: list[Weekday] = Field(default_factory=lambda: list(WEEKDAYS))
    start: ClockTime = time(22, 0)
    end: ClockTime = time(7, 0)


DndAllow = Literal["info", "warning", "error", "other", "approvals"]  # "approvals": requests an agent waits on


class DndPrefs(_Strict):
    enabled: bool = False
    until: OptionalDatetime = None
    allow: list[DndAllow] = Field(default_factory=list)
    morning: ClockTime = time(8, 0)
    quiet_hours: QuietHours = QuietHours()


class CoalescePrefs(_Strict):
    window: float = Field(default=30.0, ge=0, le=24 * 3600)


class RateLimitPrefs(_Strict):
    burst: int = Field(default=5, ge=1, le=1000)
    per: float = Field(default=10.0, gt=0, le=24 * 3600)


class TurnPrefs(_Strict):
    notify_after: float = Field(default=20.0, ge=0, le=24 * 3600)  # seconds; shorter: "Finished" to the tray only
    # seconds with no word from the agent that make a running turn "no word from the agent for 2 min"; 0: never
    silence_after: float = Field(default=60.0, ge=0, le=24 * 3600)


class ApprovalPrefs(_Strict):
    sound: SoundName = "message-new-instant"  # a request the agent waits on: not a warning's sound


class UsagePrefs(_Strict):
    warn_at: float = Field(default=80.0, ge=1, le=100)  # percent of a rate limit: one warning per limit window


PushKind = Literal["error", "warning", "info", "other", "approvals", "turns", "agents"]
PushWhen = Literal["away", "always", "never"]
# what is pushed by default: what needs the person (errors, approvals, agents down) and what they
# wait for (turns ending); not the info and warnings an agent chats along the way
DEFAULT_PUSH_KINDS: list[PushKind] = ["error", "approvals", "turns", "agents"]


class PushPrefs(_Strict):
    when: PushWhen = "away"
    away_after: float = Field(default=300.0, ge=0, le=24 * 3600)
    kinds: list[PushKind] = Field(default_factory=lambda: list(DEFAULT_PUSH_KINDS))
    targets: list[str] = Field(default_factory=list)  # empty: every target added
    burst: int = Field(default=3, ge=1, le=1000)
    per: float = Field(default=60.0, gt=0, le=24 * 3600)
    answers: bool = False  # ntfy targets: approvals and simple questions answered from the push's buttons
    answers_always: bool = False  # with `answers`: an "Always allow" button too


Notifier = Literal["auto", "freedesktop", "plyer", "console"]


def _agent_names(value: dict[str, AgentConfig]) -> dict[str, AgentConfig]:
    for name in value:
        problem = agent_name_problem(name)
        if problem is not None:
            raise ValueError(problem)
    return value


class Preferences(_Strict):
    notifier: Notifier = "auto"
    protocol: ProtocolChoice = "auto"
    registry: Annotated[str, AfterValidator(check_url)] = REGISTRY_URL
    severity: SeverityTable = SeverityTable()
    dnd: DndPrefs = DndPrefs()
    coalesce: CoalescePrefs = CoalescePrefs()
    rate_limit: RateLimitPrefs = RateLimitPrefs()
    turns: TurnPrefs = TurnPrefs()
    approvals: ApprovalPrefs = ApprovalPrefs()
    usage: UsagePrefs = UsagePrefs()

    push: PushPrefs = PushPrefs()
    agents: Annotated[dict[str, AgentConfig], AfterValidator(_agent_names)] = Field(default_factory=dict)


def builtin_defaults() -> Preferences:
    """What runs when there is no preferences file and none can be written: the demo agent."""
    return Preferences(agents={DEMO_AGENT_NAME: AgentConfig(command=["acp-tray", "demo-agent"])})


def dump(prefs: Preferences) -> dict[str, Any]:
    """The effective preferences as plain TOML-able data (for `prefs show`)."""
    return prefs.model_dump(mode="json", exclude_none=True)
