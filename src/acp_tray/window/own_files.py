"""The window's own files (its stylesheets, scripts and icon): read from the package when first asked
for and then served from memory, on the event loop (they are small and fixed for the life of the
process: no worker thread, no file opened per request). Only the files the package ships are there: a
request's path is looked up among them, never joined to a folder. The guard lets the browser keep
them an hour (window/guard.py `OWN_FILES`); an ETag answers a browser that asks again with a 304."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

TYPES = {
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".png": "image/png",
    ".md": "text/markdown; charset=utf-8",
}
OTHER = "text/plain; charset=utf-8"  # the vendored code's licences


class OwnFiles:
    def __init__(self, files: Mapping[str, Path]) -> None:
        """`files`: each file's address path (without its first /) and where the package has it."""
        self._files = dict(files)
        self._read: dict[str, tuple[bytes, str]] = {}

    @classmethod
    def serving(cls, folder: Path, under: str, **more: Path) -> OwnFiles:
        """Every file in `folder` (at UNDER/its path in the folder), and `more` (at their names)."""
        found = {f"{under}/{path.relative_to(folder).as_posix()}": path for path in folder.rglob("*") if path.is_file()}
        return cls({**found, **more})

    async def answer(self, request: Request) -> Response:
        name = request.url.path.removeprefix("/")
        if name not in self._files:
            return PlainTextResponse("Not Found", status_code=404)
        body, tag = self._body(name)
        if request.headers.get("if-none-match") == tag:
            return Response(status_code=304, headers={"etag": tag})
        media = TYPES.get(self._files[name].suffix, OTHER)
        return Response(body, headers={"etag": tag, "content-type": media})

    def _body(self, name: str) -> tuple[bytes, str]:
        if name not in self._read:
            body = self._files[name].read_bytes()
            self._read[name] = (body, f'"{hashlib.sha256(body).hexdigest()[:32]}"')
        return self._read[name]
