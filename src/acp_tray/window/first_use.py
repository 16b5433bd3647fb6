"""A page's handlers built the first time one of its routes is asked for: the window's process starts
with what its first page needs, and a page's registry, keyring or desktop code is imported when that
page is used (its routes are declared at start, as every page's are)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

T = TypeVar("T")
Endpoint = Callable[[Request], Awaitable[Response]]


class FirstUse(Generic[T]):
    """`build()`'s handlers, built once, when the first request for one of them comes (the window's
    requests are served on one event loop: it is built once)."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._built: list[T] = []

    def handlers(self) -> T:
        if not self._built:
            self._built.append(self._build())
        return self._built[0]

    def route(self, path: str, pick: Callable[[T], Endpoint], methods: list[str] | None = None) -> Route:
        """A route to the handler `pick` chooses among them."""

        async def endpoint(request: Request) -> Response:
            return await pick(self.handlers())(request)

        return Route(path, endpoint, methods=methods)
