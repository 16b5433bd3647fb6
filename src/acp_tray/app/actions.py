"""The actions a person takes: buttons on a notification and choices in the tray menu (answers to
approvals, sign-in, agents, the Recent list, DND, the window's pages, quit). Local state only, except
what `presentation/actions.py` says reaches an agent. Runs on the daemon's loop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from acp_tray.agents.approvals import ApprovalError, Approvals
from acp_tray.agents.questions import QuestionError, Questions
from acp_tray.app.fleet import Fleet
from acp_tray.app.lifetime import Lifetime
from acp_tray.app.publisher import Changed, TrayPublisher
from acp_tray.app.reloader import PrefsReloader
from acp_tray.app.surfaces import Surfaces
from acp_tray.desktop.url_opener import open_url
from acp_tray.desktop.window_opener import WindowTrouble, open_window
from acp_tray.events import EventSink, NoticeReceived
from acp_tray.prefs.load import PreferencesError
from acp_tray.prefs.names import pasteable
from acp_tray.prefs.write import set_quiet_hours
from acp_tray.presentation.actions import (
    CLEAR_RECENT,
    QUIT,
    READ_ALL,
    TOGGLE_QUIET_HOURS,
    Action,
    AgentAction,
    ApprovalAnswer,
    Choice,
    OpenWindow,
    QuestionAnswer,
    RecentOpen,
    SetDnd,
    SignIn,
    parse_action,
)
from acp_tray.presentation.recent import Recent
from acp_tray.presentation.router import ACP_TRAY, Presentation, Router
from acp_tray.presentation.severity import severity_class
from acp_tray.protocol.elicitation import openable, url_host
from acp_tray.protocol.notice import Notice

log = logging.getLogger(__name__)
SAME_CHECKS = f"The same checks run in a terminal: `{pasteable('doctor')}`."

# (page, highlight): `acp-tray ui` run for them; what to tell the person (None: it opened, nothing to say)
WindowOpener = Callable[[str, str], Coroutine[Any, Any, WindowTrouble | None]]
UrlOpener = Callable[[str], Coroutine[Any, Any, str | None]]  # a page: why it did not open (None: it did)


class NotificationActions:
    """What a person does to a shown notification: a button that answers an approval or signs in
    (both offered by the agent itself), a click that opens the window's history at it, or a click
    or close that marks its Recent item read. Dismissal has no path back to any agent."""

    def __init__(
        self,
        approvals: Approvals,
        fleet: Fleet,
        recent: Recent,
        publisher: TrayPublisher,
        life: Lifetime,
        *,
        questions: Questions,
        report: EventSink,
        opener: WindowOpener = open_window,
        url_opener: UrlOpener = open_url,
    ) -> None:
        self._approvals = approvals
        self._questions = questions
        self._open_url = url_opener
        self._fleet = fleet
        self._recent = recent
        self._publisher = publisher
        self._life = life
        self._report = report  # the answer when the window the person asked for cannot open
        self._open_window = opener

    def on_notification(self, group: int, what: str) -> None:
        """`what`: "clicked", "closed", "expired", or the id of a button the notification offered."""
        action = parse_action(what)
        if isinstance(action, (ApprovalAnswer, QuestionAnswer, SignIn)):
            self.answer(action)
            what = "answered"
        elif isinstance(action, OpenWindow):  # a question's "Answer…": the window, at it
            self.open_window(action.page, action.highlight)
        elif what == "clicked":
            self._open_at(group)
        if what in ("clicked", "answered", "closed") and self._recent.mark_read(group):
            self._publisher.changed(Changed.UNREAD)
            self._publisher.publish_now()
        log.debug("notification %d %s", group, what)

    def _open_at(self, group: int) -> None:
        """The window at what this notification is about: a waiting approval (the overview), a
        sign-in (the agents page), or its entry in the history; one too old to know: the history."""
        opens = self._recent.opens(group)
        page = opens.page if opens is not None else "history"
        highlight = opens.time.isoformat(timespec="milliseconds") if opens is not None and page == "history" else ""
        self.open_window(page, highlight)

    def open_window(self, page: str, highlight: str = "") -> None:
        """The window at `page`, opened as the person asked (a click, the tray's menu); when it cannot
        open, the person is told why (their click must not seem to do nothing); when it opened in the
        browser for want of an app window, why and what to do."""

        async def opening() -> None:
            trouble = await self._open_window(page, highlight)
            if trouble is None:
                return
            text = f"{trouble.text}\n" + (SAME_CHECKS if page == "diagnostics" and trouble.severity == "error" else "")
            notice = Notice(trouble.severity, trouble.title, text.strip())
            self._report(NoticeReceived(ACP_TRAY, "", notice, source=ACP_TRAY, attention="answer", topic="window"))

        self._life.in_background(opening())

    def answer(self, action: ApprovalAnswer | QuestionAnswer | SignIn, by: str = "person") -> bool:
        """Answer as the person did (`by`: "person" at the desk, "phone:TARGET" from a push's
        button); whether it answered (False: it was no longer waiting, said in the log)."""
        if isinstance(action, SignIn):
            self._fleet.sign_in(action)
            return True
        try:
            if isinstance(action, QuestionAnswer):
                self._answer_question(action, by)
            else:
                self._approvals.approve(action.approval_id, action.option_id, by=by)
        except (ApprovalError, QuestionError) as exc:
            log.info("not answered: %s", exc)  # already answered, timed out, or the agent went away
            answered = False
        else:
            answered = True
        self._publisher.publish_now()
        return answered

    def from_phone(self, action: ApprovalAnswer | QuestionAnswer, target: str) -> bool:
        """A press of a push's button on the phone, `target`'s (its token already checked)."""
        return self.answer(action, f"phone:{target}")

    def _answer_question(self, action: QuestionAnswer, by: str) -> None:
        """A choice of the form's one field, a decline, or "Open": the page opened (only https://,
        or http:// on loopback) and the question answered as accepted."""
        pending = self._questions.get(action.question_id)
        if action.verb == "decline":
            self._questions.decline(action.question_id)
        elif action.verb == "choose" and (only := pending.question.single_choice) is not None:
            self._questions.answer(action.question_id, {only.name: action.value}, by=by)
        elif action.verb == "open" and openable(url := pending.question.url) is None:
            self._questions.answer(action.question_id, {})
            self._life.in_background(self._opening(pending.agent, url))
        else:
            raise QuestionError(f"question {action.question_id} cannot be answered that way")

    async def _opening(self, agent: str, url: str) -> None:
        why = await self._open_url(url)
        if why is not None:  # said without the address (it may carry a code)
            text = f"The page on {url_host(url)} did not open: {why}."
            notice = Notice("error", "The page did not open", text)
            self._report(NoticeReceived(agent, "", notice, source=ACP_TRAY, attention="answer"))


@dataclass(frozen=True)
class Desk:
    """What the desktop around the daemon offers: the running tray's backend (for diagnostics),
    whether a native notification can be shown right now, and the clipboard "show it again" uses
    when it cannot."""

    tray_backend: str | None = None
    native_notifications: Callable[[], bool] = lambda: True
    copy_to_clipboard: Callable[[str], None] | None = None


class TrayActions:
    """A choice in the tray menu, on the loop thread; what the tray shows is published at once."""

    def __init__(
        self,
        notifications: NotificationActions,
        fleet: Fleet,
        reloader: PrefsReloader,
        router: Router,
        recent: Recent,
        surfaces: Surfaces,
        publisher: TrayPublisher,
        life: Lifetime,
        desk: Desk,
    ) -> None:
        self._notifications = notifications
        self._fleet = fleet
        self._reloader = reloader
        self._router = router
        self._recent = recent
        self._surfaces = surfaces
        self._publisher = publisher
        self._life = life
        self._desk = desk

    @property
    def tray_backend(self) -> str | None:
        return self._desk.tray_backend

    async def follow(self, choices: asyncio.Queue[str]) -> None:
        """Take the menu's choices as the tray's thread hands them over, in order."""
        while True:
            self.on_choice(await choices.get())

    def on_choice(self, choice: str) -> None:
        """A menu entry's action id; one that is none is ignored (what the tray shows is still published)."""
        action = parse_action(choice)
        try:
            if action is not None:
                self.perform(action)
        except PreferencesError as exc:
            self._reloader.report_error(str(exc))
        self._publisher.publish_now()

    def perform(self, action: Action) -> None:
        if isinstance(action, (ApprovalAnswer, QuestionAnswer, SignIn)):
            self._notifications.answer(action)
        elif isinstance(action, AgentAction):
            self._fleet.agent_action(action.verb, action.name)
        elif isinstance(action, SetDnd):
            self._set_dnd(action)
        elif isinstance(action, RecentOpen):
            self._show_again(action.group)
        elif isinstance(action, OpenWindow):
            self._notifications.open_window(action.page, action.highlight)
        else:
            self._choice(action)

    def _choice(self, choice: Choice) -> None:
        if choice == TOGGLE_QUIET_HOURS:
            enabled = not self._router.prefs.dnd.quiet_hours.enabled
            self._reloader.change_prefs(lambda path: set_quiet_hours(path, enabled=enabled))
        elif choice in (READ_ALL, CLEAR_RECENT):
            if choice == READ_ALL:
                self._recent.mark_all_read()
            else:
                self._recent.clear()
            self._router.missed_during_dnd = 0
            self._publisher.changed(Changed.UNREAD)
        elif choice == QUIT:
            self._life.request_stop()

    def _set_dnd(self, action: SetDnd) -> None:
        if action.span == "off":
            self._reloader.switch_dnd("off")
        elif action.span == "on":
            self._reloader.switch_dnd("on")  # until switched off
        else:
            self._reloader.switch_dnd("for", action.span)  # "30m", "1h", "tomorrow"

    def _show_again(self, group: int) -> None:
        """The Recent item `group` as a native notification again (read now); where none can be
        shown, its full text goes to the clipboard."""
        item = next((i for i in self._recent.items() if i.group == group), None)
        if item is None:
            return
        self._recent.mark_read(group)
        self._publisher.changed(Changed.UNREAD)
        if not self._desk.native_notifications() and self._desk.copy_to_clipboard is not None:
            text = f"{item.agent}: {item.title}" + (f"\n{item.description}" if item.description else "")
            self._desk.copy_to_clipboard(text)
            return
        timeout = self._router.prefs.severity.of(severity_class(item.kind)).timeout
        again = Presentation(
            group, item.agent, "", item.severity, item.kind, item.title, item.description,
            item.count, timeout, True, False, item.time, item.source,
        )  # fmt: skip
        self._surfaces.show(again)
