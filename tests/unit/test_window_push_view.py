"""The Push section's shaping: targets by name and service in words (never a URL), and a name
`[push] targets` picks that was not added kept (so that saving the page does not drop it)."""

from __future__ import annotations

from acp_tray.control.replies import PushTargetRow
from acp_tray.window import push_view

ROWS: list[PushTargetRow] = [
    {"name": "phone", "service": "ntfy", "chosen": True, "answers": "on"},
    {"name": "team", "service": "someservice", "chosen": False, "answers": "one-way"},
]


def test_targets_by_name_and_service_then_those_chosen_but_not_added() -> None:
    shown = push_view.targets(push_view.Listing(rows=ROWS), ["phone", "gone"])
    assert [(t.name, t.service, t.added) for t in shown] == [
        ("phone", "ntfy", True),
        ("team", "someservice", True),  # a service without words here: its scheme
        ("gone", "", False),
    ]
    assert [t.answers for t in shown[:2]] == ["answered from the phone", "one-way: answered at the desk"]


def test_the_part_keeps_the_name_typed_and_says_which_field_is_wrong() -> None:
    context = push_view.part(
        push_view.Listing(problem="acp-tray is not running any more."), [], problem="x", invalid="url", name="ph"
    )
    assert context["push_targets"] == [] and context["push_unavailable"] == "acp-tray is not running any more."
    assert (context["push_problem"], context["push_invalid"], context["push_name"]) == ("x", "url", "ph")
    assert "url" not in {key.removeprefix("push_") for key in context}  # there is no place for a URL


def test_chosen_is_the_form_list_of_push_targets() -> None:
    assert push_view.chosen({"push.targets": ["a", "b"]}) == ["a", "b"]
    assert push_view.chosen({}) == []
