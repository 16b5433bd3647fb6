"""The ACP JSON schemas (vendored in tests/fixtures/acp-schema) and validators for their definitions."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from tests.support.repo import ROOT
from tests.support.wire_tap import exchanges

SCHEMA_DIR = ROOT / "tests" / "fixtures" / "acp-schema"
SHARED_SCHEMA_DIR = ROOT.parent / "shared" / "acp-schema"


@cache
def schema(version: str, unstable: bool = True) -> dict[str, Any]:
    name = "schema.unstable.json" if unstable else "schema.json"
    document: dict[str, Any] = json.loads((SCHEMA_DIR / version / name).read_text(encoding="utf-8"))
    return document


def validator_for(version: str, ref: str, unstable: bool = True) -> jsonschema.protocols.Validator:
    document = schema(version, unstable)
    return jsonschema.Draft202012Validator({"$defs": document["$defs"], "$ref": f"#/$defs/{ref}"})


@cache
def _definition_of(version: str, unstable: bool) -> dict[tuple[str, str], str]:
    """(who receives it, method) → the definition of its request or notification ("agent", ...) or of
    its answer ("client-answer", ...), from the schema's own `x-side` and `x-method` marks."""
    found = {}
    for name, definition in schema(version, unstable)["$defs"].items():
        if "x-method" in definition:
            side = definition["x-side"] + ("-answer" if name.endswith("Response") else "")
            found[(side, definition["x-method"])] = name
    return found


def sent_problems(
    sent: list[dict[str, Any]], received: list[dict[str, Any]], version: str, unstable: bool = False
) -> list[str]:
    """What is wrong, against `version`'s schema, in the JSON-RPC messages a client `sent` to an agent
    (its requests and notifications, and its answers to the agent's requests, found in `received`)."""
    asked = {m["id"]: m["method"] for m in received if "method" in m and "id" in m}
    definitions = _definition_of(version, unstable)
    problems = []
    for message in sent:
        if message.get("jsonrpc") != "2.0":
            problems.append(f"not JSON-RPC 2.0: {message}")
        if "method" in message:
            ref = definitions.get(("agent", message["method"])) or definitions.get(("protocol", message["method"]))
            value = message.get("params")
        elif "error" in message:
            ref, value = "Error", message["error"]
        else:
            ref, value = definitions.get(("client-answer", asked.get(message.get("id"), ""))), message.get("result")
        if ref is None:
            problems.append(f"not in the {version} schema: {message}")
            continue
        problems += [f"{ref}: {e.message} in {value}" for e in validator_for(version, ref, unstable).iter_errors(value)]
    return problems


def tapped_problems(wire: Path, unstable: bool = False) -> list[str]:
    """What is wrong in what acp-tray sent on the stdio that `tests/support/wire_tap.py` logged in
    `wire`, each connection against the schema of the version its `initialize` offered (a connection
    answered with another version ends, and the next starts with a new `initialize`)."""
    connections: list[list[tuple[str, dict[str, Any]]]] = []
    for side, message in exchanges(wire):
        if side == "client" and message.get("method") == "initialize":
            connections.append([])
        if connections:
            connections[-1].append((side, message))
    if not connections:
        return [f"acp-tray sent no initialize on the wire logged in {wire}"]
    problems = []
    for connection in connections:
        version = f"v{connection[0][1]['params']['protocolVersion']}"
        sent = [m for side, m in connection if side == "client"]
        received = [m for side, m in connection if side == "agent"]
        problems += sent_problems(sent, received, version, unstable)
    return problems
