"""The ACP JSON schemas (vendored in tests/fixtures/acp-schema) and validators for their definitions."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema

from tests.support.repo import ROOT

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
