"""Permission requests: what each policy answers by itself, and how a person's answer, a timeout,
a cancelled turn or a departed agent settle a pending request. Every answer must be a valid v1
`RequestPermissionResponse`."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from acp_tray.agents.approvals import ApprovalError, Approvals, policy_outcome
from acp_tray.events import PermissionAsked, PermissionSettled
from acp_tray.protocol.session import PermissionOption, PermissionRequest, parse_permission_request
from tests.support.schemas import validator_for

ALLOW_ONCE = PermissionOption("a1", "Allow once", "allow_once")
ALLOW_ALWAYS = PermissionOption("a2", "Always allow", "allow_always")
REJECT_ONCE = PermissionOption("r1", "Reject", "reject_once")
REJECT_ALWAYS = PermissionOption("r2", "Never", "reject_always")
ODD = PermissionOption("_odd", "Ask me tomorrow", "_defer")  # a kind this client does not know
CANCELLED = {"outcome": {"outcome": "cancelled"}}
LONG = 30.0  # a timeout no test waits for


def valid(outcome: dict[str, Any]) -> dict[str, Any]:
    """The outcome, after checking it against the official v1 schemas (stable and unstable)."""
    for unstable in (True, False):
        errors = list(validator_for("v1", "RequestPermissionResponse", unstable).iter_errors(outcome))
        assert not errors, errors[0].message
    return outcome


def chosen(outcome: dict[str, Any] | None) -> str | None:
    assert outcome is not None
    valid(outcome)
    option: str = outcome["outcome"].get("optionId", "cancelled")
    return option


# --- policies -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ((ALLOW_ONCE, REJECT_ALWAYS, REJECT_ONCE), "r1"),  # reject_once wins even when listed later
        ((REJECT_ALWAYS, ALLOW_ONCE), "r2"),
        ((ODD, ALLOW_ONCE, ALLOW_ALWAYS), "cancelled"),  # no reject option: cancelled, never the odd one
        ((), "cancelled"),
    ],
)
def test_reject_policy_prefers_reject_once_and_otherwise_cancels(
    options: tuple[PermissionOption, ...], expected: str
) -> None:
    assert chosen(policy_outcome("reject", options)) == expected


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ((REJECT_ONCE, ALLOW_ALWAYS, ALLOW_ONCE), "a1"),  # allow_once wins even when listed later
        ((REJECT_ONCE, ALLOW_ALWAYS), "a2"),
    ],
)
def test_allow_policy_prefers_allow_once(options: tuple[PermissionOption, ...], expected: str) -> None:
    assert chosen(policy_outcome("allow", options)) == expected


@pytest.mark.parametrize("options", [(), (REJECT_ONCE, REJECT_ALWAYS), (ODD,), (ODD, REJECT_ONCE)])
def test_allow_policy_without_an_allow_option_asks_the_person(options: tuple[PermissionOption, ...]) -> None:
    assert policy_outcome("allow", options) is None


@pytest.mark.parametrize("options", [(ALLOW_ONCE, REJECT_ONCE), (ODD,), ()])
def test_ask_policy_never_answers_by_itself(options: tuple[PermissionOption, ...]) -> None:
    assert policy_outcome("ask", options) is None


@pytest.mark.parametrize("policy", ["reject", "allow", "ask"])
def test_an_option_of_unknown_kind_is_never_picked_by_a_policy(policy: str) -> None:
    outcome = policy_outcome(policy, (ODD,))
    assert outcome is None or chosen(outcome) == "cancelled"
    # an option with no kind at all (as parsed from an agent that sent none) is not picked either
    parsed = parse_permission_request({"sessionId": "s", "options": [{"optionId": "x", "name": "X"}]}).options
    assert parsed and parsed[0].kind == ""
    outcome = policy_outcome(policy, parsed)
    assert outcome is None or chosen(outcome) == "cancelled"


# --- a pending request --------------------------------------------------------------------------


class Harness:
    """Approvals with a list sink, and helpers to start requests as tasks."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.approvals = Approvals(self.events.append)

    def asked(self) -> list[PermissionAsked]:
        return [e for e in self.events if isinstance(e, PermissionAsked)]

    def settled(self) -> list[PermissionSettled]:
        return [e for e in self.events if isinstance(e, PermissionSettled)]

    async def start(
        self,
        options: tuple[PermissionOption, ...],
        *,
        agent: str = "bot",
        session_id: str = "s1",
        title: str = "rm -rf build",
        policy: str = "ask",
        expires_after: float = LONG,
    ) -> tuple[asyncio.Task[dict[str, Any]], str]:
        before = len(self.asked())
        task = asyncio.create_task(
            self.approvals.request(
                agent, PermissionRequest(session_id, title, options), policy=policy, expires_after=expires_after
            )
        )
        for _ in range(100):
            await asyncio.sleep(0)
            if len(self.asked()) > before:
                return task, self.asked()[-1].approval_id
        raise AssertionError("no PermissionAsked was emitted")


async def answer(task: asyncio.Task[dict[str, Any]]) -> dict[str, Any]:
    return valid(await asyncio.wait_for(task, 5))


async def test_ask_emits_permission_asked_with_a_short_id_and_waits() -> None:
    h = Harness()
    task, approval_id = await h.start((ALLOW_ONCE, REJECT_ONCE), title="delete the cache")
    event = h.asked()[0]
    assert event.agent == "bot" and event.session_id == "s1"
    assert event.title == "delete the cache"
    assert event.options == (ALLOW_ONCE, REJECT_ONCE)
    assert event.timeout == LONG
    assert approval_id.isdigit() and len(approval_id) <= 3  # short enough to type: `acp-tray approve 1`
    assert not task.done()  # nothing is approved by default
    assert [p.approval_id for p in h.approvals.pending()] == [approval_id]
    _, second_id = await h.start((ALLOW_ONCE,))
    assert second_id != approval_id
    h.approvals.forget_agent("bot")
    await asyncio.gather(task, return_exceptions=True)


async def test_allow_policy_with_nothing_to_allow_asks_the_person() -> None:
    h = Harness()
    task, approval_id = await h.start((REJECT_ONCE,), policy="allow")
    assert not task.done()
    h.approvals.deny(approval_id)
    assert chosen(await answer(task)) == "r1"


async def test_a_policy_answer_asks_nobody() -> None:
    h = Harness()
    request = PermissionRequest("s1", "t", (ALLOW_ONCE, REJECT_ONCE))
    outcome = await h.approvals.request("bot", request, policy="reject", expires_after=LONG)
    assert chosen(outcome) == "r1"
    assert h.asked() == [] and h.approvals.pending() == []


async def test_approve_without_a_choice_picks_the_single_allow_option() -> None:
    h = Harness()
    task, approval_id = await h.start((REJECT_ONCE, ALLOW_ONCE, ODD))
    option = h.approvals.approve(approval_id)
    assert option == ALLOW_ONCE
    assert chosen(await answer(task)) == "a1"
    settled = h.settled()
    assert [(e.approval_id, e.outcome, e.by) for e in settled] == [(approval_id, "a1", "person")]
    assert h.approvals.pending() == []


async def test_approve_by_kind() -> None:
    h = Harness()
    task, approval_id = await h.start((ALLOW_ONCE, REJECT_ALWAYS, REJECT_ONCE))
    assert h.approvals.approve(approval_id, "reject_once") == REJECT_ONCE
    assert chosen(await answer(task)) == "r1"


async def test_approve_by_id_even_of_an_unknown_kind_is_an_explicit_choice() -> None:
    h = Harness()
    task, approval_id = await h.start((ALLOW_ONCE, ODD))
    assert h.approvals.approve(approval_id, "_odd") == ODD
    assert chosen(await answer(task)) == "_odd"


async def test_approve_with_an_unknown_option_raises_and_lists_the_options() -> None:
    h = Harness()
    task, approval_id = await h.start((ALLOW_ONCE, REJECT_ONCE, ODD))
    with pytest.raises(ApprovalError) as raised:
        h.approvals.approve(approval_id, "allow_forever")
    message = str(raised.value)
    assert "allow_forever" in message
    for option in (ALLOW_ONCE, REJECT_ONCE, ODD):
        assert option.option_id in message
    assert not task.done()  # a failed answer leaves the request waiting
    h.approvals.approve(approval_id, "a1")
    assert chosen(await answer(task)) == "a1"


@pytest.mark.parametrize("options", [(ALLOW_ONCE, ALLOW_ALWAYS, REJECT_ONCE), (REJECT_ONCE,)])
async def test_approve_without_a_choice_raises_unless_exactly_one_allow_option(
    options: tuple[PermissionOption, ...],
) -> None:
    h = Harness()
    task, approval_id = await h.start(options)
    with pytest.raises(ApprovalError) as raised:
        h.approvals.approve(approval_id)
    assert "r1" in str(raised.value)  # the person is told what to choose from
    assert not task.done()
    assert h.settled() == []
    h.approvals.deny(approval_id)
    assert chosen(await answer(task)) == "r1"


async def test_deny_picks_the_reject_option() -> None:
    h = Harness()
    task, approval_id = await h.start((ALLOW_ONCE, REJECT_ALWAYS, REJECT_ONCE))
    assert h.approvals.deny(approval_id) == REJECT_ONCE
    assert chosen(await answer(task)) == "r1"
    assert [(e.outcome, e.by) for e in h.settled()] == [("r1", "person")]


async def test_deny_without_a_reject_option_answers_cancelled() -> None:
    h = Harness()
    task, approval_id = await h.start((ALLOW_ONCE, ODD))
    assert h.approvals.deny(approval_id) is None
    assert await answer(task) == CANCELLED
    assert [(e.outcome, e.by) for e in h.settled()] == [("cancelled", "person")]


async def test_no_answer_in_time_is_cancelled_and_reported() -> None:
    h = Harness()
    task, approval_id = await h.start((ALLOW_ONCE, REJECT_ONCE), expires_after=0.05)
    assert await answer(task) == CANCELLED
    assert [(e.approval_id, e.outcome, e.by) for e in h.settled()] == [(approval_id, "cancelled", "timeout")]
    assert h.approvals.pending() == []
    with pytest.raises(ApprovalError):  # too late to answer
        h.approvals.approve(approval_id)


async def test_an_answer_in_time_stops_the_timer() -> None:
    h = Harness()
    task, approval_id = await h.start((ALLOW_ONCE,), expires_after=0.05)
    h.approvals.approve(approval_id)
    assert chosen(await answer(task)) == "a1"
    await asyncio.sleep(0.1)
    assert [e.by for e in h.settled()] == ["person"]  # no late "timeout" after the answer


async def test_cancel_session_answers_cancelled_only_for_that_agent_and_session() -> None:
    h = Harness()
    target, target_id = await h.start((ALLOW_ONCE,), agent="bot", session_id="s1")
    other_session, other_session_id = await h.start((ALLOW_ONCE,), agent="bot", session_id="s2")
    other_agent, other_agent_id = await h.start((ALLOW_ONCE,), agent="helper", session_id="s1")
    h.approvals.cancel_session("bot", "s1")
    assert await answer(target) == CANCELLED
    await asyncio.sleep(0)
    assert not other_session.done() and not other_agent.done()
    assert [(e.approval_id, e.by) for e in h.settled()] == [(target_id, "cancel")]
    assert {p.approval_id for p in h.approvals.pending()} == {other_session_id, other_agent_id}
    h.approvals.approve(other_session_id)
    h.approvals.approve(other_agent_id)
    assert chosen(await answer(other_session)) == "a1"
    assert chosen(await answer(other_agent)) == "a1"


async def test_forget_agent_cancels_all_its_requests_and_no_other() -> None:
    h = Harness()
    first, _ = await h.start((ALLOW_ONCE,), agent="bot", session_id="s1")
    second, _ = await h.start((ALLOW_ONCE,), agent="bot", session_id="s2")
    other, other_id = await h.start((ALLOW_ONCE,), agent="helper")
    h.approvals.forget_agent("bot")
    assert await answer(first) == CANCELLED
    assert await answer(second) == CANCELLED
    assert {e.by for e in h.settled()} == {"disconnect"}
    assert [p.approval_id for p in h.approvals.pending()] == [other_id]
    assert not other.done()
    h.approvals.deny(other_id)
    assert await answer(other) == CANCELLED  # helper offered no reject option


@pytest.mark.parametrize("second", ["approve", "deny"])
async def test_answering_twice_raises_the_second_time(second: str) -> None:
    h = Harness()
    task, approval_id = await h.start((ALLOW_ONCE, REJECT_ONCE))
    h.approvals.approve(approval_id)
    with pytest.raises(ApprovalError) as raised:
        getattr(h.approvals, second)(approval_id)
    assert approval_id in str(raised.value)
    assert chosen(await answer(task)) == "a1"  # the first answer stands
    assert len(h.settled()) == 1


async def test_an_unknown_id_raises() -> None:
    h = Harness()
    with pytest.raises(ApprovalError, match="no pending request"):
        h.approvals.approve("42")
    with pytest.raises(ApprovalError, match="no pending request"):
        h.approvals.deny("42")


async def test_a_request_that_goes_away_can_no_longer_be_answered() -> None:
    h = Harness()
    task, approval_id = await h.start((ALLOW_ONCE,))
    task.cancel()  # the agent's connection closed while it waited
    await asyncio.gather(task, return_exceptions=True)
    assert h.approvals.pending() == []
    with pytest.raises(ApprovalError):
        h.approvals.approve(approval_id)
