"""The control API as declared in control/api.py: each op's arguments are checked in one place (a
missing or wrong-typed one is a `bad_request` reply naming it), and the server dispatches every
declared op, and nothing else (`unknown_op`). Table-driven over `api.OPS`: a new op is covered
without a new test.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import shutil
import tempfile
import types
import typing
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from acp_tray.control import api, errors
from acp_tray.control.client import ReplyError, request
from acp_tray.control.server import ControlServer, Emit, Route, dispatch

GOOD: dict[Any, Any] = {str: "x", bool: True, float: 1.0, int: 1, list: ["x"], dict: {}}
WRONG: dict[Any, Any] = {str: 5, bool: "yes", float: "soon", int: 1.5, list: "x", dict: ["x"], typing.Literal: "x"}


def declared(op: api.Op[Any, Any, Any], name: str) -> Any:
    """An argument's type without its `| None` (`typing.Union` for a `Literal`, else `types.UnionType`)."""
    hint = typing.get_type_hints(op.args)[name]
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        (hint,) = [arg for arg in typing.get_args(hint) if arg is not type(None)]
    return hint


def kind(op: api.Op[Any, Any, Any], name: str) -> Any:
    """The type an argument is checked as (`list` for `list[str] | None`, `Literal` for `Literal["a"] | None`)."""
    hint = declared(op, name)
    return typing.get_origin(hint) or hint


def good(op: api.Op[Any, Any, Any], name: str) -> Any:
    """A value the argument accepts (a `Literal`'s first choice)."""
    if kind(op, name) is typing.Literal:
        return typing.get_args(declared(op, name))[0]
    return GOOD[kind(op, name)]


def required(op: api.Op[Any, Any, Any]) -> list[str]:
    """The arguments that must be given: no default, and not `X | None`."""
    return [
        spec.name
        for spec in dataclasses.fields(op.args)
        if spec.default is dataclasses.MISSING
        and spec.default_factory is dataclasses.MISSING
        and type(None) not in typing.get_args(typing.get_type_hints(op.args)[spec.name])
    ]


def sample(op: api.Op[Any, Any, Any]) -> dict[str, Any]:
    """Arguments the op accepts: the required ones; where the op's own rules want more, the first
    optional one that makes them fit."""
    args = {name: good(op, name) for name in required(op)}
    for extra in [None, *(spec.name for spec in dataclasses.fields(op.args))]:
        candidate = args if extra is None else {**args, extra: good(op, extra)}
        try:
            op.parse(candidate)
        except errors.ArgumentError:
            continue
        return candidate
    raise AssertionError(f"no sample arguments fit {op.name}")


MISSING = [(op, name) for op in api.OPS for name in required(op)]
ALL_ARGS = [(op, spec.name) for op in api.OPS for spec in dataclasses.fields(op.args)]


def case_id(case: object) -> str:
    return case.name if isinstance(case, api.Op) else str(case)


@pytest.mark.parametrize(("op", "name"), MISSING, ids=case_id)
def test_a_missing_argument_is_refused_by_name(op: api.Op[Any, Any, Any], name: str) -> None:
    args = {key: value for key, value in sample(op).items() if key != name}
    for absent in (args, {**args, name: None}):  # left out, or null
        with pytest.raises(errors.ArgumentError, match=f"^'{name}' must be ") as refused:
            op.parse(absent)
        assert refused.value.code is errors.ErrorCode.BAD_REQUEST


@pytest.mark.parametrize(("op", "name"), ALL_ARGS, ids=case_id)
def test_a_wrong_typed_argument_is_refused_by_name(op: api.Op[Any, Any, Any], name: str) -> None:
    with pytest.raises(errors.ArgumentError, match=f"^'{name}' must be "):
        op.parse({**sample(op), name: WRONG[kind(op, name)]})


@pytest.mark.parametrize("op", api.OPS, ids=case_id)
def test_sample_arguments_pass_and_unknown_ones_are_ignored(op: api.Op[Any, Any, Any]) -> None:
    assert op.parse({**sample(op), "not-an-argument": [1, 2]}) == op.parse(sample(op))


@pytest.mark.parametrize(
    ("op", "args", "said"),
    [
        (api.CANCEL, {}, "'agent' must be a non-empty string"),
        (api.AGENTS_ADD, {"name": "a"}, "give a command (after --) or --url, one of the two"),
        (api.AGENTS_ADD, {"name": "a", "command": ["x"], "url": "ws://h"}, "one of the two"),
        (api.AGENTS_ADD, {"name": "a", "command": []}, "'command' must be a non-empty list of strings"),
        (api.AGENTS_WAIT, {"name": "a", "timeout": 601}, "'timeout' must be a number of seconds from 0 to 600"),
        (api.AGENTS_WAIT, {"name": "a", "timeout": True}, "'timeout' must be a number of seconds"),
        (api.PROMPT, {"agent": "a", "text": ""}, "'text' must be a non-empty string"),
        (api.AGENTS_REPLACE, {"name": "a", "command": ["x"], "env": {"K": 1}}, "'env' must be a table of strings"),
        (api.DND_SET, {"mode": "sometimes"}, "'mode' must be one of 'off', 'on', 'for', 'until'"),
        (api.DND_SET, {"mode": "for"}, "'value' must be a non-empty string for mode 'for'"),
        (api.DND_SET, {"mode": "until", "value": ""}, "'value' must be a non-empty string"),
        (api.PREFS_SET, {"version": "v", "fields": {"rate_limit.burst": "5"}}, "'fields' must be a table of lists of"),
        (api.PREFS_SET, {"version": "v", "fields": {"dnd.allow": [1]}}, "'fields' must be a table of lists of strings"),
        (api.HISTORY, {"limit": 201}, "'limit' must be a whole number from 1 to 200"),
        (api.HISTORY, {"limit": 0}, "'limit' must be a whole number from 1 to 200"),
        (api.HISTORY, {"limit": True}, "'limit' must be a whole number"),
        (api.HISTORY, {"before": 2.0}, "'before' must be a whole number"),
        (api.HISTORY, {"severity": "fatal"}, "'severity' must be one of 'error', 'warning', 'info', 'other'"),
        (api.HISTORY, {"source": "agents"}, "'source' must be one of 'agent', 'acp-tray'"),
    ],
)
def test_arguments_that_do_not_fit_together_or_in_range_are_refused(
    op: api.Op[Any, Any, Any], args: dict[str, Any], said: str
) -> None:
    with pytest.raises(errors.ArgumentError, match=re.escape(said)):
        op.parse(args)


def test_defaults_fill_what_is_left_out() -> None:
    assert api.PROMPT.parse({"agent": "a", "text": "hi", "wait": None}) == api.PromptArgs("a", "hi", wait=True)
    assert api.AGENTS_WAIT.parse({"name": "a", "timeout": 5}) == api.WaitArgs("a", None, 5.0)
    assert api.AGENTS_ADD.parse({"name": "a", "url": "ws://h", "env": None}).env == {}
    assert api.HISTORY.parse({"limit": None}) == api.HistoryArgs(limit=50)
    assert api.DND_SET.parse({"mode": "on", "value": None}) == api.DndArgs("on")
    fields = {"dnd.allow": [], "dnd.morning": [""]}  # empty lists and text are values here
    assert api.PREFS_SET.parse({"version": None, "fields": fields}) == api.PrefsSetArgs(None, fields)


def test_the_dispatch_table_must_answer_every_declared_op_once() -> None:
    routes = [Route(op, answer_with_name(op)) for op in api.OPS]
    assert set(dispatch(*routes)) == {op.name for op in api.OPS}
    with pytest.raises(ValueError, match=re.escape(f"missing [{api.OPS[-1].name!r}]")):
        dispatch(*routes[:-1])
    with pytest.raises(ValueError, match="once"):
        dispatch(*routes, routes[0])
    with pytest.raises(ValueError, match=re.escape("extra ['status.extra']")):
        dispatch(*routes, Route(api.Op("status.extra", api.Args, ""), answer_with_name(api.STATUS)))


# through the server --------------------------------------------------------------------------


def answer_with_name(op: api.Op[Any, Any, Any]) -> Any:
    async def run(args: api.Args, emit: Emit[Any]) -> Mapping[str, Any]:
        return {"op": op.name, "args": op.wire(args)}

    return run


@pytest.fixture
def runtime_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private runtime directory short enough for a socket path (they are bounded)."""
    runtime = Path(tempfile.mkdtemp(prefix="api-", dir="/tmp"))
    runtime.chmod(0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    yield runtime
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture
async def server(runtime_dir: Path) -> AsyncIterator[None]:
    """A real control server on a real socket in `runtime_dir`, each declared op answered with its
    name and the arguments it was given, as checked."""
    control = ControlServer(dispatch(*(Route(op, answer_with_name(op)) for op in api.OPS)))
    await control.start()
    try:
        yield
    finally:
        await control.aclose()


async def refused(op: str, args: dict[str, Any]) -> ReplyError:
    with pytest.raises(ReplyError) as error:
        await asyncio.to_thread(request, op, args, timeout=10.0)
    return error.value


async def test_the_server_dispatches_every_declared_op(server: None) -> None:
    for op in api.OPS:
        reply = await asyncio.to_thread(request, op.name, sample(op), timeout=10.0)
        assert reply == {"op": op.name, "args": op.wire(op.parse(sample(op)))}


@pytest.mark.parametrize("op", ["nope", "agents_list", "agents-list", "login_finished", "op_status", "__init__", ""])
async def test_the_server_answers_an_undeclared_op_unknown_op(server: None, op: str) -> None:
    error = await refused(op, {})
    assert error.code == errors.ErrorCode.UNKNOWN_OP and repr(op) in str(error)


async def test_the_server_refuses_a_missing_or_wrong_argument_naming_it(server: None) -> None:
    for op, name in MISSING:
        error = await refused(op.name, {k: v for k, v in sample(op).items() if k != name})
        assert error.code == errors.ErrorCode.BAD_REQUEST and str(error).startswith(f"'{name}' must be "), (op, name)
    for op, name in ALL_ARGS:
        error = await refused(op.name, {**sample(op), name: WRONG[kind(op, name)]})
        assert error.code == errors.ErrorCode.BAD_REQUEST and str(error).startswith(f"'{name}' must be "), (op, name)
