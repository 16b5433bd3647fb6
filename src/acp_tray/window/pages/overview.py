"""The Overview page: the agents, the approvals and questions waiting (answered here), the sessions
of today, do not disturb and what is unread."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from acp_tray.window.actions import Actions
from acp_tray.window.questions import QuestionAnswers
from acp_tray.window.render import Parts


def routes(parts: Parts) -> list[Route]:
    async def page(request: Request) -> Response:
        return await parts.render.page(request, "overview")

    actions, answers = Actions(parts.render), QuestionAnswers(parts.feed, parts.render)
    return [
        Route("/overview", page),
        Route("/approvals/{id}", actions.approval, methods=["POST"]),
        Route("/questions/{id}", answers.answer, methods=["POST"]),
        Route("/questions/{id}/address", answers.address),
        Route("/dnd", actions.dnd, methods=["POST"]),
        Route("/read", actions.read, methods=["POST"]),
    ]
