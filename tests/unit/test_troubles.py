"""An agent's last problem as the daemon keeps it for the window: a crash loop's failed starts
counted, the give-up said with the last crash's reason and stderr, kept after the agent runs again,
forgotten when it is removed; and the Diagnostics problems made of the agents' rows."""

from __future__ import annotations

from datetime import datetime, timedelta

from acp_tray.app.ops.diagnostics import agent_checks, merged
from acp_tray.app.troubles import Troubles
from acp_tray.control.replies import AgentRow, CheckRow
from acp_tray.events import AgentCrashed, AgentState, AgentStatus

T = datetime(2026, 12, 4, 16, 42).astimezone()
STDERR = ("ANTHROPIC_API_KEY is not set",)


def status(state: AgentState, detail: str = "", seconds: float = 0) -> AgentStatus:
    return AgentStatus("bot", state, detail, T + timedelta(seconds=seconds))


def crash(seconds: float, retry: float | None = 1.0, in_a_row: int = 1) -> AgentCrashed:
    return AgentCrashed(
        "bot",
        "exit code 3; last stderr: ANTHROPIC_API_KEY is not set",
        STDERR,
        retry,
        in_a_row,
        time=T + timedelta(seconds=seconds),
    )


def test_a_crash_loop_is_counted_and_its_give_up_keeps_the_last_crash_reason_and_stderr() -> None:
    troubles = Troubles()
    for n in range(3):
        troubles.status(status(AgentState.STARTING, seconds=n), ())
        troubles.crashed(crash(n + 0.5, retry=None if n == 2 else 1.0, in_a_row=n + 1))  # as the supervisor counts
    last = troubles.of("bot")
    assert last is not None and last.what == "exit code 3" and last.stderr == STDERR and last.crashes == 3
    troubles.status(status(AgentState.FAILED, "stopped after 3 crashes in a row", 3), ())
    given_up = troubles.of("bot")
    assert given_up is not None
    assert given_up.what == "stopped after 3 crashes in a row (the last: exit code 3)"
    assert given_up.stderr == STDERR and given_up.time == T + timedelta(seconds=3)
    troubles.status(status(AgentState.STARTING, seconds=60), ())
    troubles.status(status(AgentState.CONNECTED, seconds=61), ())
    assert troubles.of("bot") == given_up  # what happened last, after it runs again
    troubles.forget({"other"})
    assert troubles.of("bot") is None


def test_a_failed_start_takes_the_stderr_of_its_run_without_repeating_it_in_the_reason() -> None:
    troubles = Troubles()
    troubles.status(status(AgentState.FAILED, "exit code 1; last stderr: no | such", 0), ["no", "such"])
    last = troubles.of("bot")
    assert last is not None and (last.what, last.stderr, last.crashes) == ("exit code 1", ("no", "such"), 0)


def row(name: str, state: str, problem: bool = True, crashes: int = 0) -> AgentRow:
    return {
        "name": name, "kind": "local", "target": "bot", "command": ["bot"], "cwd": "", "env_names": [],
        "state": state, "detail": "", "sessions": 0, "busy": 0,
        "queued": 0, "permission": "ask", "sign_in_methods": [], "today": [], "limits": [], "needs_you": False,
        "problem": {"what": "exit code 3", "stderr": list(STDERR), "time": T.isoformat(), "crashes": crashes}
        if problem else None,
    }  # fmt: skip


def test_agents_that_cannot_work_are_diagnostics_problems_and_working_ones_are_not() -> None:
    checks = agent_checks(
        [row("a", "failed"), row("b", "needs sign-in", False), row("c", "connected", crashes=4),
         row("d", "connected", crashes=1), row("e", "stopped", crashes=5), row("f", "exited")]
    )  # fmt: skip
    assert [(c["name"], c["detail"]) for c in checks] == [
        ("agent a", "a is stopped: exit code 3; it last wrote: ANTHROPIC_API_KEY is not set"),
        ("agent b", "b waits for you to sign in."),
        ("agent c", "c keeps crashing (4 times in a row): exit code 3; it last wrote: ANTHROPIC_API_KEY is not set"),
        ("agent f", "f crashed: exit code 3; it last wrote: ANTHROPIC_API_KEY is not set"),
    ]
    assert all(c["status"] == "problem" and c["fix"] for c in checks)


def test_doctors_problem_with_an_agents_settings_wins_and_its_all_clear_gives_way() -> None:
    ours = agent_checks([row("a", "failed"), row("b", "failed")])
    doctor: list[CheckRow] = [
        {"name": "agent a", "status": "problem", "detail": "program 'x' not found on PATH", "fix": "install it"},
        {"name": "agent b", "status": "ok", "detail": "runs", "fix": ""},
        {"name": "log", "status": "ok", "detail": "fine", "fix": ""},
    ]
    assert [(c["name"], c["detail"][:14]) for c in merged(ours, doctor)] == [
        ("agent b", "b is stopped: "), ("agent a", "program 'x' no"), ("log", "fine"),
    ]  # fmt: skip
