"""Questions (elicitation) on the wire: acp-tray offers them in both protocol versions, reads the
agent's form or URL, and answers with content typed by the form's schema; every message acp-tray
sends validates against the official schemas."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tray.protocol.elicitation import (
    UnaskableError,
    accepted,
    cancelled,
    declined,
    openable,
    parse_question,
    url_host,
)
from acp_tray.protocol.form_answer import AnswerError, check_answer
from acp_tray.protocol.initialize import initialize_params
from acp_tray.protocol.version import ProtocolVersion
from tests.support.schemas import validator_for

VERSIONS = ["v1", "v2"]

FORM: dict[str, Any] = {
    "sessionId": "s-1",
    "mode": "form",
    "message": "Which colour should the button be?",
    "requestedSchema": {
        "type": "object",
        "properties": {
            "colour": {
                "type": "string",
                "title": "Colour",
                "description": "The button's colour",
                "oneOf": [{"const": "red", "title": "Red"}, {"const": "blue", "title": "Blue"}],
            },
            "name": {"type": "string", "title": "Name", "minLength": 2, "maxLength": 10},
            "size": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
            "ratio": {"type": "number", "minimum": 0, "maximum": 1},
            "rounded": {"type": "boolean", "default": False},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "maxItems": 2},
            "mail": {"type": "string", "format": "email"},
        },
        "required": ["colour", "name"],
    },
}
URL: dict[str, Any] = {
    "sessionId": "s-1",
    "mode": "url",
    "message": "Sign in to the MCP server",
    "url": "https://auth.example.com/device?code=SECRET",
    "elicitationId": "e-1",
}


@pytest.mark.parametrize("version", [ProtocolVersion.V1, ProtocolVersion.V2])
@pytest.mark.parametrize("unstable", [True, False], ids=["unstable", "stable"])
def test_initialize_offers_questions_of_both_kinds(version: ProtocolVersion, unstable: bool) -> None:
    params = initialize_params(version)
    validator = validator_for(f"v{int(version)}", "InitializeRequest", unstable)
    assert not list(validator.iter_errors(params))
    caps = params["capabilities"] if version is ProtocolVersion.V2 else params["clientCapabilities"]
    assert caps["elicitation"] == {"form": {}, "url": {}}
    assert params["clientCapabilities"]["elicitation"] == {"form": {}, "url": {}}  # v2 offers carry v1's too


@pytest.mark.parametrize("version", VERSIONS)
def test_a_form_question_is_read_field_by_field(version: str) -> None:
    assert validator_for(version, "CreateElicitationRequest").is_valid(FORM)
    question = parse_question(FORM)
    assert question.mode == "form" and question.session_id == "s-1"
    assert question.message == "Which colour should the button be?"
    by_name = {f.name: f for f in question.fields}
    assert list(by_name) == ["colour", "name", "size", "ratio", "rounded", "tags", "mail"]
    colour = by_name["colour"]
    assert colour.label == "Colour" and colour.description == "The button's colour" and colour.required
    assert [(c.value, c.label) for c in colour.choices] == [("red", "Red"), ("blue", "Blue")]
    assert by_name["size"].default == 3 and (by_name["size"].minimum, by_name["size"].maximum) == (1, 10)
    assert [c.value for c in by_name["tags"].choices] == ["a", "b", "c"] and by_name["tags"].max_length == 2
    assert question.single_choice is None


@pytest.mark.parametrize("version", VERSIONS)
def test_an_answer_is_typed_by_the_schema_and_validates(version: str) -> None:
    fields = parse_question(FORM).fields
    content = check_answer(
        fields, {"colour": "Blue", "name": "Ada", "ratio": "0.5", "rounded": "yes", "tags": "a, c", "mail": ""}
    )
    assert content == {"colour": "blue", "name": "Ada", "size": 3, "ratio": 0.5, "rounded": True, "tags": ["a", "c"]}
    assert validator_for(version, "CreateElicitationResponse").is_valid(accepted(content))
    for answer in (declined(), cancelled()):
        assert validator_for(version, "CreateElicitationResponse").is_valid(answer)


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"name": "Ada"}, "Colour: an answer is required"),
        ({"colour": "green", "name": "Ada"}, "Colour: 'green' is not one of the choices: red (Red), blue (Blue)"),
        ({"colour": "red", "name": "A"}, "Name: at least 2 characters, please (got 1)"),
        ({"colour": "red", "name": "Ada", "size": "11"}, "size: at most 10, please (got 11)"),
        ({"colour": "red", "name": "Ada", "size": "two"}, "size: 'two' is not a whole number"),
        ({"colour": "red", "name": "Ada", "rounded": "maybe"}, "rounded: answer yes or no (true or false)"),
        ({"colour": "red", "name": "Ada", "tags": "a,b,c"}, "tags: choose at most 2"),
        ({"colour": "red", "name": "Ada", "mail": "nobody"}, "mail: 'nobody' is not a valid email"),
        ({"colour": "red", "name": "Ada", "shade": "x"}, "there is no field 'shade' (the fields are: colour, name"),
    ],
)
def test_a_wrong_answer_is_said_in_plain_words(values: dict[str, str], words: str) -> None:
    with pytest.raises(AnswerError) as caught:
        check_answer(parse_question(FORM).fields, values)
    assert str(caught.value).startswith(words)


@pytest.mark.parametrize("version", VERSIONS)
def test_a_url_question_and_what_may_be_opened(version: str) -> None:
    assert validator_for(version, "CreateElicitationRequest").is_valid(URL)
    question = parse_question(URL)
    assert question.mode == "url" and question.elicitation_id == "e-1"
    assert url_host(question.url) == "auth.example.com"
    assert openable(question.url) is None
    assert openable("http://127.0.0.1:8080/cb") is None and openable("http://localhost/x") is None
    assert openable("http://example.com/x") == "it is plain http:// to another machine (only https:// is opened)"
    assert openable("file:///etc/passwd") == "it is not a web address (file scheme; only https:// is opened)"
    assert openable("javascript:alert(1)") is not None


def test_a_question_acp_tray_cannot_show_is_said_not_guessed() -> None:
    with pytest.raises(UnaskableError, match=r"mode '_acme\.wizard'"):
        parse_question({"sessionId": "s", "mode": "_acme.wizard", "message": "?"})
    odd = {"type": "object", "properties": {"when": {"type": "_acme.time"}}, "required": ["when"]}
    with pytest.raises(UnaskableError, match="cannot show"):
        parse_question({"sessionId": "s", "mode": "form", "message": "?", "requestedSchema": odd})
    optional = {"type": "object", "properties": {"when": {"type": "_acme.time"}, "ok": {"type": "boolean"}}}
    question = parse_question({"sessionId": "s", "mode": "form", "message": "?", "requestedSchema": optional})
    assert [f.name for f in question.fields] == ["ok"] and question.single_choice is not None
