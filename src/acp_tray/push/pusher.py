"""Pushing: after a notice is presented on the desktop, the pushes it makes go out in the background
(never before or instead of the desktop's), each target with its own rate limit and overflow
summary; a push the service does not accept is retried with backoff, then said once as acp-tray's
own warning (again only after that target has accepted one since). With `when = "away"` the away
source is asked, in a worker thread, only when something would be pushed: no polling. With
`[push] answers` on, an ntfy target's approval and question pushes carry buttons (`PhoneAnswers`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from acp_tray.away.select import away_source, is_away
from acp_tray.away.source import AwaySource
from acp_tray.backoff import Backoff, BackoffPolicy
from acp_tray.events import Event, EventSink, NoticeReceived
from acp_tray.prefs.model import Preferences
from acp_tray.presentation.clock import Clock
from acp_tray.presentation.ratelimit import RateLimiter, overflow_title
from acp_tray.presentation.router import ACP_TRAY, Presentation
from acp_tray.presentation.severity import severity_class
from acp_tray.protocol.notice import Notice
from acp_tray.push.answer_buttons import Button, answerable
from acp_tray.push.choice import PushMessage, held_by, message_of, push_kind
from acp_tray.push.ntfy_server import NtfyServer, answers_from_phone, ntfy_server
from acp_tray.push.phone_answers import Answer, PhoneAnswers
from acp_tray.push.sender import deliver
from acp_tray.push.targets import PushTargets
from acp_tray.timer import OneTimer

log = logging.getLogger(__name__)

RETRY = BackoffPolicy(initial=1.0, maximum=60.0, give_up_after=4)  # 4 tries: then 1, 2 and 4 s apart
OVERFLOW_NOTE = "They are in acp-tray's history; held back by the push rate limit."

Pushed = list[str] | asyncio.Future[list[str]]  # the targets pushed to, or (away) a future of them
Send = Callable[[str, str, str, str], bool]  # (url, title, body, ntfy actions) -> accepted; blocking


class Pusher:
    def __init__(
        self,
        targets: PushTargets | None,
        prefs: Callable[[], Preferences],
        clock: Clock,
        report: EventSink,
        spawn: Callable[[Coroutine[Any, Any, None]], None],
        *,
        away: Callable[[], AwaySource] = away_source,
        send: Send = deliver,
        retry: BackoffPolicy = RETRY,
        answer: Answer | None = None,
    ) -> None:
        """`answer`: how a press of a push's button on the phone answers (none: no buttons)."""
        self._targets = targets
        self._prefs = prefs
        self._clock = clock
        self._report = report
        self._spawn = spawn
        self._away = away
        self._source: AwaySource | None = None  # chosen when first asked
        self._send = send
        self._retry = retry
        self._services = targets.read() if targets is not None else {}
        self._answers = PhoneAnswers(answer, self.send_to, self._server_of) if answer is not None else None
        self._limiters: dict[str, RateLimiter] = {}
        self._failing: set[str] = set()  # targets whose failure was said (until one push gets through)
        self._summary_timer = OneTimer()
        self._asking: asyncio.Future[bool] | None = None  # the away source's answer being worked out

    @property
    def targets(self) -> PushTargets | None:
        return self._targets

    def refresh(self) -> None:
        """The targets were added or removed (`push add`, `push remove`): read their names again."""
        self._services = self._targets.read() if self._targets is not None else {}

    def services(self) -> dict[str, str]:
        """Each target's name and service as last read (at the start, and after an add or a removal)."""
        return dict(self._services)

    def chosen(self) -> list[str]:
        """The targets the preferences push to (`[push] targets`; empty: all of them)."""
        wanted = self._prefs().push.targets
        return [name for name in self._services if not wanted or name in wanted]

    def answers_from(self, name: str) -> bool:
        """Whether a push to `name` can be answered from the phone (its service: ntfy)."""
        return self._answers is not None and answers_from_phone(self._services.get(name, ""))

    def close(self) -> None:
        self._summary_timer.cancel()
        if self._answers is not None:
            self._spawn(self._answers.close())

    def forget_answers(self, name: str) -> None:
        """Target `name` was removed: its reply topic goes from the keyring too (blocking)."""
        if self._answers is not None:
            self._answers.forget_target(name)

    def settled(self, request_id: str, by: str) -> None:
        """An approval or question ended (answered anywhere, timed out, withdrawn): its buttons go dead."""
        if self._answers is not None:
            self._spawn(self._answers.settled(request_id, by))

    def _server_of(self, name: str) -> NtfyServer | None:
        """The ntfy server of target `name` (blocking: the keyring)."""
        url = self._targets.url(name) if self._targets is not None else None
        return ntfy_server(url) if url is not None and answers_from_phone(self._services.get(name, "")) else None

    def offer(self, presentation: Presentation, event: Event) -> Pushed:
        """The pushes `presentation` (of `event`) makes: started now (`always`), or once the away
        source has said the person is away (a future); [] when nothing is pushed."""
        names = self.chosen()
        # a repeat is not pushed again; acp-tray's notices about itself (a push that failed) never are
        if not names or presentation.count > 1 or presentation.agent == ACP_TRAY:
            return []
        prefs = self._prefs()
        severity = severity_class(presentation.kind)
        if held_by(prefs, push_kind(event, severity), severity, self._clock.now()) is not None:
            return []
        message = message_of(presentation, event)
        if self._answers is not None:
            message = dataclasses.replace(message, answerable=answerable(event, prefs.push, message.title))
        if prefs.push.when == "always":
            return self._push(names, message)
        decided: asyncio.Future[list[str]] = asyncio.get_running_loop().create_future()
        self._spawn(self._when_away(names, message, prefs.push.away_after, decided))
        return decided

    async def _when_away(
        self, names: list[str], message: PushMessage, after: float, decided: asyncio.Future[list[str]]
    ) -> None:
        try:
            away = await self._away_now(after)
        except Exception:
            log.exception("could not tell whether the person is away; not pushed")
            away = False
        decided.set_result(self._push(names, message) if away else [])

    async def _away_now(self, after: float) -> bool:
        """The away source's answer: notices that come while it is being asked share it (a flood
        asks once, not once per notice)."""
        if self._asking is None or self._asking.done():
            self._asking = asyncio.ensure_future(asyncio.to_thread(self._is_away, after))
        return await asyncio.shield(self._asking)

    def _is_away(self, after: float) -> bool:
        """In a worker thread: the away source (chosen the first time), asked now."""
        if self._source is None:
            self._source = self._away()
        return is_away(self._source, after)

    def _limiter(self, name: str) -> RateLimiter:
        """The target's rate limit; every target's at the limits the preferences give now."""
        push = self._prefs().push
        for limiter in self._limiters.values():
            limiter.configure(push.burst, push.per)  # nothing to do unless they changed
        if name not in self._limiters:
            self._limiters[name] = RateLimiter(push.burst, push.per)
        return self._limiters[name]

    def _push(self, names: list[str], message: PushMessage) -> list[str]:
        now = self._clock.monotonic()
        pushed = [name for name in names if self._limiter(name).allow(message.agent, message.severity, now)]
        for name in pushed:
            self._spawn(self._deliver(name, message))
        self._schedule_summaries()
        return pushed

    async def _deliver(self, name: str, message: PushMessage) -> None:
        backoff = Backoff(self._retry)
        body, actions = message.body, ""
        if message.answerable is not None and self._answers is not None and self.answers_from(name):
            actions = await self._answers.buttons(name, message.answerable)
            body = message.answered_here if actions else body
        while True:
            if await self.send_to(name, message.title, body, actions):
                self._failing.discard(name)
                return
            delay = backoff.crashed(0.0)
            if delay is None:
                break
            log.info("push to %s not accepted; trying again in %g s", name, delay)
            await asyncio.sleep(delay)
        log.warning("push to %s failed %d times; given up: %s", name, backoff.fast_streak, message.title)
        if name not in self._failing:
            self._failing.add(name)
            text = (
                f"The push target {name} did not accept \u201c{message.title}\u201d after {backoff.fast_streak} "
                f"tries. Check it with `acp-tray push test {name}`; this is not said again until a push to it works."
            )
            self._report(NoticeReceived(ACP_TRAY, "", Notice("warning", f"Push to {name} failed", text)))

    async def send_to(self, name: str, title: str, body: str, actions: str = "") -> bool:
        """One try at pushing to `name` (in a worker thread); whether the service accepted it.
        `actions`: an ntfy push's buttons."""
        targets = self._targets
        try:
            url = await asyncio.to_thread(targets.url, name) if targets is not None else None
            accepted = url is not None and await asyncio.to_thread(self._send, url, title, body, actions)
        except Exception as exc:  # Apprise missing or broken: said, and counted as not accepted
            log.warning("push to %s: %s: %s", name, type(exc).__name__, exc)
            return False
        log.info("push to %s %s: %s", name, "accepted" if accepted else "not accepted", title)
        return accepted

    def _schedule_summaries(self) -> None:
        """One timer for the earliest due overflow summary of any target (no polling)."""
        now = self._clock.monotonic()
        due = [when for limiter in self._limiters.values() if (when := limiter.next_due(now)) is not None]
        self._summary_timer.set(max(0.0, min(due) - now) if due else None, self._flush_summaries)

    def _flush_summaries(self) -> None:
        now = self._clock.monotonic()
        for name, limiter in self._limiters.items():
            for summary in limiter.due(now):
                message = PushMessage(summary.agent, summary.severity_class, overflow_title(summary), OVERFLOW_NOTE)
                self._spawn(self._deliver(name, message))
        self._schedule_summaries()

    async def test_answer(self, name: str, message: tuple[str, str], wait: float) -> tuple[bool, str | None]:
        """`push test NAME --answer`: an approval's push that answers nothing; (accepted, the label
        pressed within `wait` seconds or None). ValueError when `name` cannot be answered from."""
        if self._answers is None or not self.answers_from(name):
            raise ValueError(f"{name} is one-way: only an ntfy target's pushes can be answered from the phone")
        if not self._prefs().push.answers:
            raise ValueError("answering from the phone is off: set [push] answers = true (or the window's switch)")
        buttons = (Button("Allow once", None, "Your press arrived"), Button("Reject", None, "Your press arrived"))
        return await self._answers.test(name, message, buttons, wait)
