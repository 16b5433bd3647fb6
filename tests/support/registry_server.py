"""A local ACP Registry for the tests: a real HTTP server on 127.0.0.1 serving a registry document
in the registry's own format (validated against its vendored schemas), real archives and icons."""

from __future__ import annotations

import io
import json
import stat
import sys
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NamedTuple

import jsonschema
import pytest
import referencing

from tests.support.repo import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "acp-registry"
ICON = (FIXTURES / "codex-acp.svg").read_bytes()


def svg_bomb(levels: int = 19) -> bytes:
    """A hostile icon of under 2 KB: each `<use>` level draws the one below twice (2^levels blurred
    squares). librsvg or a browser spends minutes on it; an `<img>` of it freezes a tab."""
    defs = ['<filter id="b"><feGaussianBlur stdDeviation="5"/></filter>']
    defs.append('<g id="a0"><rect width="16" height="16" filter="url(#b)" fill="currentColor"/></g>')
    defs += [f'<g id="a{i}"><use xlink:href="#a{i - 1}"/><use xlink:href="#a{i - 1}"/></g>' for i in range(1, levels)]
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="16" height="16">'
        f'<defs>{"".join(defs)}</defs><use xlink:href="#a{levels - 1}"/></svg>'
    ).encode()


# A package distribution's optional `cmd`, the program to run from the package (`npx --package PKG
# CMD`, `uvx --from PKG CMD`; agentclientprotocol/registry pull request 323), newer than the
# vendored schemas: added to them here, everything else as vendored.
PACKAGE_CMD = {"type": "string", "minLength": 1, "description": "Program to run from the package"}


def schemas() -> tuple[dict[str, Any], dict[str, Any]]:
    agent = json.loads((FIXTURES / "agent.schema.json").read_text())
    agent["definitions"]["packageDistribution"]["properties"].setdefault("cmd", PACKAGE_CMD)
    registry = json.loads((FIXTURES / "registry.schema.json").read_text())
    return agent, registry


def validate(document: dict[str, Any]) -> None:
    """The document as the registry's CI would accept it: the registry schema, each agent by agent.schema.json."""
    agent, registry = schemas()
    store = referencing.Registry().with_resources(
        [
            (agent["$id"], referencing.Resource.from_contents(agent)),
            ("agent.schema.json", referencing.Resource.from_contents(agent)),
        ]
    )
    jsonschema.Draft7Validator(registry, registry=store).validate(document)
    for entry in document["agents"]:
        jsonschema.Draft7Validator(agent).validate(entry)


class Drip(NamedTuple):
    """A slow server: one byte of the body every `every` seconds (the status line and headers too, with `headers`)."""

    every: float
    headers: bool = False


class _Server(ThreadingHTTPServer):
    """The HTTP server on a free port of 127.0.0.1, serving what `registry` holds."""

    def __init__(self, registry: RegistryServer) -> None:
        self.registry = registry
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(BaseHTTPRequestHandler):
    """One request to the registry server: a redirect, a file (dripped when asked), or 404."""

    server: _Server

    def do_GET(self) -> None:
        outer = self.server.registry
        outer.hits[self.path] = outer.hits.get(self.path, 0) + 1
        if self.path in outer.redirects:
            self.send_response(302)
            self.send_header("Location", outer.redirects[self.path])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path in outer.hangups:  # the connection closed with no answer at all
            self.close_connection = True
            return
        body = outer.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        if self.path in outer.lengths:  # a Content-Length announced, not the body's own
            self.send_response(200)
            self.send_header("Content-Length", str(outer.lengths[self.path]))
            self.end_headers()
            self.close_connection = True
            return
        if self.path in outer.drips:
            self._drip(outer.drips[self.path], body)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _drip(self, drip: Drip, body: bytes) -> None:
        outer = self.server.registry
        self.close_connection = True
        head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        try:
            if not drip.headers:
                self.wfile.write(head)
            for byte in head + body if drip.headers else body:
                if outer.closing.wait(drip.every):
                    return
                self.wfile.write(bytes([byte]))
        except OSError:  # the client went away
            return

    def log_message(self, format: str, *args: Any) -> None:
        pass


class RegistryServer:
    """`files` maps a path ("/registry.json") to its bytes; change it any time. `hits` counts requests;
    `drips` makes a path's answer come slowly, `hangups` closes the connection instead of answering,
    `lengths` announces a Content-Length and sends no body."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.redirects: dict[str, str] = {}  # path -> Location
        self.drips: dict[str, Drip] = {}
        self.hangups: set[str] = set()  # paths answered by closing the connection
        self.lengths: dict[str, int] = {}  # paths answered with this Content-Length and no body
        self.hits: dict[str, int] = {}
        self.closing = threading.Event()
        self._server = _Server(self)
        self.base = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        return self.base + path

    def publish(self, *agents: dict[str, Any]) -> str:
        """Serve a registry document with these agents (validated first); its URL."""
        document = {"version": "1.0.0", "agents": list(agents), "extensions": []}
        validate(document)
        self.files["/registry.json"] = json.dumps(document).encode()
        return self.url("/registry.json")

    def close(self) -> None:
        self.closing.set()
        self._server.shutdown()
        self._server.server_close()


def entry(agent_id: str, version: str, distribution: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "id": agent_id,
        "name": fields.pop("name", agent_id.replace("-", " ").title()),
        "version": version,
        "description": fields.pop("description", f"The {agent_id} agent"),
        "distribution": distribution,
        **fields,
    }


def script(body: str) -> bytes:
    return f"#!/bin/sh\n{body}\n".encode()


def demo_agent_script() -> bytes:
    """A program that is a real ACP agent: acp-tray's demo agent, run by this interpreter."""
    return script(f'exec {sys.executable} -m acp_tray demo-agent "$@"')


def tar_gz(members: dict[str, bytes], *, links: dict[str, str] | None = None, mode: int = 0o755) -> bytes:
    """A .tar.gz with these files (and symlinks name -> target)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), mode
            archive.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            archive.addfile(info)
    return buffer.getvalue()


def zip_file(members: dict[str, bytes], *, links: dict[str, str] | None = None, mode: int = 0o755) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | mode) << 16
            archive.writestr(info, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return buffer.getvalue()


def binary_distribution(server: RegistryServer, path: str, cmd: str, **extra: Any) -> dict[str, Any]:
    """A `binary` distribution serving `path` for every platform the schema knows."""
    platforms = ["darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64", "windows-x86_64"]
    return {"binary": {p: {"archive": server.url(path), "cmd": cmd, **extra} for p in platforms}}


def tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


@pytest.fixture
def server() -> Iterator[RegistryServer]:
    """A local registry server for the test, closed after it."""
    registry = RegistryServer()
    yield registry
    registry.close()


def demo_binary(server: RegistryServer, version: str, kind: str = "tar.gz", body: bytes | None = None) -> Any:
    path = f"/dl/demo-{version}.{kind}"
    members = {"demo/bin/demo-acp": body or demo_agent_script(), "demo/LICENSE": b"MIT"}
    server.files[path] = tar_gz(members) if kind == "tar.gz" else zip_file(members)
    return entry(
        "demo-acp",
        version,
        binary_distribution(server, path, "./demo/bin/demo-acp"),
        name="Demo ACP",
        icon=server.url("/demo-acp.svg"),
    )
