"""`acp-tray questions` and `answer ID [FIELD=VALUE…] | --decline | --cancel`: the questions agents
ask the person (a form to fill in, or a page to open), and their answers. On a terminal, `answer ID`
with no values asks field by field."""

from __future__ import annotations

import argparse
import sys
from typing import Literal

from acp_tray.cli.calls import ask, fetch
from acp_tray.cli.output import EXIT_FAILED, EXIT_USAGE, fail, field, out
from acp_tray.control import api, errors, replies
from acp_tray.logs.text import TITLE_LIMIT, asker

REQUIRED_MARK = " (required)"


def _field_line(f: replies.FieldRow) -> str:
    need = REQUIRED_MARK if f["required"] else ""
    default = "" if f["default"] is None else f"; default {field(_typed(f['default']))}"
    hint = f" — {field(f['description'], TITLE_LIMIT)}" if f["description"] else ""
    return f"      {field(f['name'])}{need}: {field(f['hint'], TITLE_LIMIT)}{default}{hint}"


def _typed(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return ", ".join(value) if isinstance(value, list) else str(value)


def question_lines(questions: list[replies.QuestionRow]) -> list[str]:
    lines = []
    for q in questions:
        who = asker(field(q["agent"]), q.get("subagent", ""))
        asks = f"  [{q['id']}] {who} asks: {field(q['message'], TITLE_LIMIT)}"
        if q["mode"] == "url":
            where = f"a page on {field(q['host'])}" if q["host"] else "a page"
            lines.append(f"{asks}\n      to open {where}" + ("" if q["opens"] else " (acp-tray will not open it)"))
            continue
        lines.append(asks)
        lines.extend(_field_line(f) for f in q["fields"])
    return lines


def cmd_questions(args: argparse.Namespace) -> int:
    code, rows = fetch(args, api.QUESTIONS)
    if rows is None:
        return code
    out("\n".join(question_lines(list(rows))) if rows else "no questions are waiting for you")
    return 0


def _values(pairs: list[str]) -> dict[str, str | list[str]] | None:
    values: dict[str, str | list[str]] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            return None
        values[name] = value
    return values


def _prompted(question: replies.QuestionDetail) -> dict[str, str | list[str]]:
    """Field by field on a terminal: its label, what it takes and its default; blank keeps the default."""
    values: dict[str, str | list[str]] = {}
    who = asker(field(question["agent"]), question.get("subagent", ""))
    out(f"{who} asks: {field(question['message'], TITLE_LIMIT)}")
    for f in question["fields"]:
        label = field(f["title"] or f["name"])
        default = "" if f["default"] is None else f" [{field(_typed(f['default']))}]"
        need = REQUIRED_MARK if f["required"] else ""
        if f["description"]:
            out(f"  {field(f['description'], TITLE_LIMIT)}")
        answer = input(f"{label}{need} — {field(f['hint'], TITLE_LIMIT)}{default}: ")
        if answer.strip():
            values[f["name"]] = answer
    return values


def cmd_answer(args: argparse.Namespace) -> int:
    action: Literal["accept", "decline", "cancel"] = (
        "decline" if args.decline else "cancel" if args.cancel else "accept"
    )
    values = _values(args.values)
    if values is None:
        return fail("give each answer as FIELD=VALUE (see `acp-tray questions`)")
    if action == "accept" and not values and sys.stdin.isatty():
        code, rows = ask(api.QUESTIONS, api.Args())
        question = next((q for q in rows or [] if q["id"] == args.id), None)
        if question is not None and question["mode"] == "form":
            try:
                values = _prompted(question)
            except (EOFError, KeyboardInterrupt):
                out("")
                return fail("not answered; the question still waits", EXIT_FAILED)
    try:
        request = api.AnswerArgs(args.id, values, action)
    except errors.ArgumentError as exc:
        return fail(str(exc), EXIT_USAGE)
    code, result = ask(api.ANSWER, request)
    if result is None:
        return code
    if result["url"]:
        out(f"question {args.id}: accepted; open this page to go on: {result['url']}")
    else:
        out(f"question {args.id}: {result['outcome']}")
    return 0
