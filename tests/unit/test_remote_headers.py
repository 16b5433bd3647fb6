"""Remote agents' header templates: filled from the environment, and no value ever in an error."""

from __future__ import annotations

import pytest

from acp_tray.agents.remote import RemoteConfigError, expand_headers

SECRET = "s3cr3t-t0ken-value"
OTHER_SECRET = "other-secret-value"


def test_braced_and_bare_variables_are_filled() -> None:
    environ = {"MY_TOKEN": SECRET, "TEAM": "core"}
    templates = {"Authorization": "Bearer ${MY_TOKEN}", "X-Team": "$TEAM", "X-Plain": "no variables"}
    assert expand_headers(templates, environ) == {
        "Authorization": f"Bearer {SECRET}",
        "X-Team": "core",
        "X-Plain": "no variables",
    }


def test_double_dollar_is_a_literal_dollar() -> None:
    assert expand_headers({"X-Price": "$$5 and $${NOT_A_VAR}"}, {}) == {"X-Price": "$5 and ${NOT_A_VAR}"}


def test_an_empty_variable_counts_as_set() -> None:
    assert expand_headers({"X-Empty": "[${EMPTY}]"}, {"EMPTY": ""}) == {"X-Empty": "[]"}


def test_no_templates_no_headers() -> None:
    assert expand_headers({}, {"MY_TOKEN": SECRET}) == {}


def test_a_missing_variable_names_the_header_and_the_variable() -> None:
    with pytest.raises(RemoteConfigError) as caught:
        expand_headers({"Authorization": "Bearer ${MY_TOKEN}"}, {})
    assert str(caught.value) == "header 'Authorization' needs $MY_TOKEN, which is not set"
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_the_missing_variable_message_holds_no_header_value() -> None:
    environ = {"OTHER": OTHER_SECRET, "MY_TOKEN_PREFIX": SECRET}
    templates = {"X-Other": "$OTHER", "X-Literal": "literal-value-123", "Authorization": f"{SECRET} $MY_TOKEN"}
    with pytest.raises(RemoteConfigError) as caught:
        expand_headers(templates, environ)
    message = str(caught.value)
    assert message == "header 'Authorization' needs $MY_TOKEN, which is not set"
    for value in (OTHER_SECRET, SECRET, "literal-value-123"):
        assert value not in message
        assert value not in repr(caught.value)


def test_an_invalid_placeholder_is_reported_without_the_template() -> None:
    with pytest.raises(RemoteConfigError) as caught:
        expand_headers({"Authorization": f"{SECRET}$"}, {})
    assert str(caught.value) == "header 'Authorization' has an invalid $ placeholder (write $$ for a literal $)"


@pytest.mark.parametrize("value", [f"{SECRET}\r\nX-Injected: 1", f"{SECRET}\n", f"{SECRET}\x00", "\u20ac"])
def test_a_value_that_cannot_be_sent_is_refused_without_quoting_it(value: str) -> None:
    with pytest.raises(RemoteConfigError) as caught:
        expand_headers({"Authorization": "$MY_TOKEN"}, {"MY_TOKEN": value})
    assert "'Authorization'" in str(caught.value)
    assert SECRET not in str(caught.value)
    assert value not in str(caught.value)


def test_tab_and_latin1_values_are_allowed() -> None:
    assert expand_headers({"X-A": "a\tb caf\u00e9"}, {}) == {"X-A": "a\tb caf\u00e9"}


def test_an_invalid_header_name_is_refused() -> None:
    with pytest.raises(RemoteConfigError, match="is not a valid HTTP header name"):
        expand_headers({"Bad Name": "x"}, {})
