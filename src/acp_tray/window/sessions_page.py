"""The Sessions page's handlers (its routes: window/pages/sessions.py): each agent's sessions, and its
prompt box: a prompt sent to an agent's session (one it has, or a new one with its working directory),
the reply streamed into the page as it comes with the approvals the turn waits on, then how the turn
ended; Cancel."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import anyio
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request
from starlette.responses import Response

from acp_tray.control import api, errors, replies, watch_events
from acp_tray.window import views
from acp_tray.window.custom_agent import folder
from acp_tray.window.daemon_calls import ask
from acp_tray.window.prompt_runs import PromptRun, PromptRuns
from acp_tray.window.render import Parts

NEW = ""  # the session choice for a new session
OPENING = 20.0  # s: the prompt's answer waits this long for the session to open (then it says "Opening…")
FIELDS = ("agent", "session", "name", "cwd", "text")


def choice_value(name: str, cwd: str) -> str:
    return json.dumps([name, cwd])


def form(state: watch_events.WatchState, params: Mapping[str, str]) -> dict[str, Any]:
    """The prompt box: the agents to choose from and the chosen one's sessions (`params` may name an
    agent, a session and its cwd: a session list's "Send a prompt" link)."""
    names = [row["name"] for row in state.get("agents", [])]
    agent = params.get("agent", "") if params.get("agent", "") in names else (names[0] if names else "")
    chosen = choice_value(params.get("session", ""), params.get("cwd", ""))
    return {"agent_names": names, "chosen_agent": agent, **choices(state, agent, chosen)}


def choices(state: watch_events.WatchState, agent: str, chosen: str) -> dict[str, Any]:
    """The chosen agent's sessions as choices, as the daemon lists them; the one `chosen`, else its
    last session (an open one before one kept from before, then the one used last), else a new one."""
    rows = [row for row in state.get("sessions", []) if row["agent"] == agent]
    options = [(choice_value(row["name"], row["cwd"]), f"{row['name']} — {row['cwd']}") for row in rows]
    values = {value for value, _ in options}
    if chosen not in values:
        last = max(rows, key=lambda row: (row["state"] != "detached", row["updated"]), default=None)
        chosen = choice_value(last["name"], last["cwd"]) if last is not None else NEW
    return {"session_options": options, "chosen_session": chosen}


def check(values: Mapping[str, str]) -> api.PromptArgs:
    """The prompt box's fields as the `prompt` op's arguments, or ArgumentError in plain words."""
    if not values["agent"]:
        raise errors.ArgumentError("Choose an agent.")
    if not values["text"].strip():
        raise errors.ArgumentError("Type a prompt first.")
    if values["session"] == NEW:
        name = values["name"].strip()
        if not name:
            raise errors.ArgumentError("Give the new session a name, or choose one of the agent's sessions.")
        problems: dict[str, str] = {}
        cwd = folder(values["cwd"], problems)
        if problems:
            raise errors.ArgumentError(problems["cwd"])
        where = str(cwd) if cwd is not None else None
    else:
        try:
            name, where = json.loads(values["session"])
        except (ValueError, TypeError):
            raise errors.ArgumentError("Choose a session again: that choice is not one of the page's.") from None
    raw = {"agent": values["agent"], "text": values["text"], "session": name, "cwd": where}
    return api.PROMPT.parse(raw)


def waiting_on(state: watch_events.WatchState, agent: str, session_id: str | None) -> dict[str, Any]:
    """The approvals and questions a turn waits on: its agent's, in its session or asked by one of
    the session's subagents (a child session of its own)."""
    children = {
        child["session_id"]
        for row in state.get("sessions", [])
        if row["agent"] == agent and row["session_id"] == session_id
        for child in row.get("subagents", [])
    }

    def ours(row: replies.ApprovalRow | replies.QuestionRow) -> bool:
        return row["agent"] == agent and (row["session_id"] == session_id or row["session_id"] in children)

    return {
        "approvals": [views.approval_view(row) for row in state.get("approvals", []) if ours(row)],
        "questions": [row for row in state.get("questions", []) if ours(row)],
    }


class SessionsPage:
    def __init__(self, parts: Parts) -> None:
        self._parts = parts
        self._render = parts.render
        self._runs = PromptRuns()

    async def page(self, request: Request) -> Response:
        context = form(await self._parts.state(), request.query_params)
        return await self._render.page(request, "sessions", **context)

    async def choices(self, request: Request) -> Response:
        """The session choices again, when another agent is chosen."""
        context = choices(await self._parts.state(), request.query_params.get("agent", ""), NEW)
        return self._render.part(request, "_session_choice.html", **context)

    async def prompt(self, request: Request) -> Response:
        form_data = await request.form()
        values = {name: str(form_data.get(name, "")) for name in FIELDS}
        try:
            args = check(values)
        except errors.ArgumentError as exc:
            return self._render.toast(request, str(exc), problem=True)
        run = self._runs.start(args)
        with anyio.move_on_after(OPENING):  # its first answer: queued, or why not (no such agent, ...)
            while run.job is None and run.ended is None:
                await run.changed.wait()
        return self._render.part(request, "_turn.html", run=run, **self._waiting(run))

    async def cancel(self, request: Request) -> Response:
        run = self._runs.get(request.path_params["run"])
        if run is None or run.ended is not None:
            return self._render.toast(request, "That prompt has ended already.")
        sent = run.args  # before the session opened there is no job yet: its session's running turn
        args = api.CancelArgs(run.job) if run.job else api.CancelArgs(None, sent.agent, sent.session, sent.cwd)
        reply = await ask(api.CANCEL, args)
        return self._render.toast(request, "Cancelling…" if reply["cancelled"] else "Nothing was running.")

    async def cancel_session(self, request: Request) -> Response:
        """A session's running turn cancelled from the list of sessions (one gone quiet, say)."""
        data = await request.form()
        agent, session, cwd = (str(data.get(name, "")) or None for name in ("agent", "session", "cwd"))
        try:
            args = api.CancelArgs(None, agent, session, cwd)
        except errors.ArgumentError as exc:
            return self._render.toast(request, str(exc), problem=True)
        reply = await ask(api.CANCEL, args)
        return self._render.toast(request, "Cancelling…" if reply["cancelled"] else "Nothing was running.")

    async def events(self, request: Request) -> Response:
        run = self._runs.get(request.path_params["run"])
        if run is None:
            return Response(status_code=204)  # a page from before the window restarted: nothing to follow
        return EventSourceResponse(self._stream(request, run), ping=15, shutdown_event=self._parts.shutdown)

    def _waiting(self, run: PromptRun) -> dict[str, Any]:
        return waiting_on(self._parts.feed.state, run.args.agent, run.session_id)

    async def _stream(self, request: Request, run: PromptRun) -> AsyncIterator[ServerSentEvent]:
        """The reply so far, then each new piece, the approvals the turn waits on and its state; the
        end last (the page then closes the stream)."""
        sent, shown = len(run.chunks), {"approvals": "", "status": ""}
        yield ServerSentEvent(data=self._render.html(request, "_reply.html", text=run.text), event="reply")
        with self._parts.feed.follow() as feed_changes:
            while True:
                changed = run.changed
                for chunk in run.chunks[sent:]:
                    yield ServerSentEvent(data=self._render.html(request, "_reply.html", text=chunk), event="chunk")
                sent = len(run.chunks)
                parts = {
                    "approvals": self._render.html(request, "_turn_approvals.html", **self._waiting(run)),
                    "status": self._render.html(request, "_turn_state.html", run=run),
                }
                for part, html in parts.items():
                    if html != shown[part] and run.ended is None:
                        yield ServerSentEvent(data=html, event=part)
                shown = parts
                if run.ended is not None:  # what it waited on went with the turn; the stream closes on `end`
                    yield ServerSentEvent(data="", event="approvals")
                    yield ServerSentEvent(data=parts["status"], event="end")
                    return
                await _either(changed.wait(), feed_changes.get())


async def _either(*waits: Any) -> None:
    """Until the first of `waits` is done (the others are cancelled)."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
