"""The window's forms, as the templates write them: one that htmx posts is a POST form to the same
address even before htmx has bound it (a click in the moment after a part of the page was swapped
in), so what it holds (a secret typed into a password field among them) never lands in the address
bar and the browser's history as a plain GET would put it."""

from __future__ import annotations

from html.parser import HTMLParser

from acp_tray.window.app import HERE


class Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "form":
            self.forms.append(dict(attrs))


def test_every_form_htmx_posts_is_a_post_form_to_the_same_address() -> None:
    posting = []
    for template in sorted((HERE / "templates").glob("*.html")):
        parser = Forms()
        parser.feed(template.read_text(encoding="utf-8"))
        posting += [(template.name, form) for form in parser.forms if "hx-post" in form]
    assert len(posting) >= 7  # approvals, DND (2), sign-in (2), secrets, a custom agent
    for name, form in posting:
        assert (form.get("method"), form.get("action")) == ("post", form["hx-post"]), name
