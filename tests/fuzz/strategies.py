"""What an ACP agent may write on its stdout, generated, with what acp-tray must make of each line.

Every generated `Item` is the bytes of (usually) one line and its `Expect`: a notice in the
history with exactly the strings sent, a `malformed` record naming its field, an `acp-tray`
record of its own (an elicitation it declined), nothing at all (an unknown variant, a response,
another method), and how many lines the transport must skip as not routable JSON-RPC.

The generator is written once, against a tiny `Source` of choices:
- `HypothesisSource` draws the choices from hypothesis (the test strategies; examples shrink);
- `RandomSource` draws them from a seeded `random.Random` (the 100,000-message benchmark, where
  hypothesis is far too slow). Both run the very same code, so the benchmark mirrors the
  strategies exactly.

Deep nesting is generated at depths the parser surely accepts (`ACCEPTED_DEPTHS`, <= 700) or
surely refuses (`REFUSED_DEPTHS`, >= 3000: hypothesis runs a test with the recursion limit raised
to 2,000 frames above the stack's depth, so 1,200 was accepted there). Between them what
`json.loads` accepts depends on the limit and how deep the call stack already is; that band is
probed on purpose in test_regressions.py.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from hypothesis import strategies as st

from acp_tray.agents.transport import DEFAULT_MAX_LINE_BYTES
from acp_tray.protocol.v2_variants import VARIANTS
from acp_tray.protocol.version import ProtocolVersion

T = TypeVar("T")

AGENT = "fuzz"
ACCEPTED_DEPTHS = (2, 50, 199, 200, 201, 256, 400, 700)
REFUSED_DEPTHS = (3000, 5000, 100_000)
# text that makes parsers, sanitisers and terminals work: controls, line and bidi marks, lone
# surrogates (sent as JSON escapes, or as CESU-8 bytes that `json.loads` takes with surrogatepass)
SPECIAL_CHARS = (
    "\x00",
    "\n",
    "\r",
    "\t",
    "\x1b",
    "\x7f",
    "\x85",
    "\u2028",
    "\u2029",
    "\u202e",
    "\u200f",
    "\ufeff",
    "\ufffd",
    "\ud800",
    "\udbff",
    "\udc80",
    "\udfff",
    '"',
    "\\",
    "/",
    "é",
    "中",
    "😀",
    "\U0010ffff",
    "{",
    "}",
    "[",
    ",",
    " ",
)
KNOWN_SEVERITIES = ("info", "warning", "error")
ODD_SEVERITIES = ("_acme.progress", "_", "debug", "critical", "", "INFO", " info", "warning ", "\ud800", "null")
JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
HANDLED_METHODS = ("session/update", "session/request_permission", "elicitation/create", "$/cancel_request")
OTHER_METHODS = (
    "fs/read_text_file",
    "fs/write_text_file",
    "terminal/create",
    "session/prompt",
    "session/new",
    "initialize",
    "_acme/ping",
    "",
    "session/Update",
    "session/update ",
)
INVALID_UTF8 = (b"\xff", b"\xfe", b"\xc0\xaf", b"\x80", b"\xc3(", b"\xe2\x82(", b"\xf5\x80\x80\x80", b"\xed\xa0(")


class Source(Protocol):
    """The choices the generator makes; everything else is derived from them."""

    def integer(self, lo: int, hi: int) -> int: ...

    def text(self, min_size: int, max_size: int) -> str: ...

    def binary(self, min_size: int, max_size: int) -> bytes: ...


_ALPHABET = st.one_of(st.sampled_from(SPECIAL_CHARS), st.characters())


class HypothesisSource:
    """Choices drawn from hypothesis (inside `st.composite`): shrinkable."""

    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any]) -> None:
        self._draw = draw

    def integer(self, lo: int, hi: int) -> int:
        value: int = self._draw(st.integers(lo, hi))
        return value

    def text(self, min_size: int, max_size: int) -> str:
        value: str = self._draw(st.text(_ALPHABET, min_size=min_size, max_size=max_size))
        return value

    def binary(self, min_size: int, max_size: int) -> bytes:
        value: bytes = self._draw(st.binary(min_size=min_size, max_size=max_size))
        return value


class RandomSource:
    """Choices drawn from a seeded `random.Random`: the same generator, fast enough for 100k messages."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self._rng.randint(lo, hi)

    def text(self, min_size: int, max_size: int) -> str:
        rng = self._rng
        short = min(max_size, min_size + 12)
        size = rng.randint(min_size, max_size if rng.random() < 0.2 else short)
        chars = []
        for _ in range(size):
            r = rng.random()
            if r < 0.6:
                chars.append(chr(rng.randint(0x20, 0x7E)))
            elif r < 0.85:
                chars.append(rng.choice(SPECIAL_CHARS))
            else:
                chars.append(chr(rng.randint(0, 0x10FFFF)))
        return "".join(chars)

    def binary(self, min_size: int, max_size: int) -> bytes:
        return self._rng.randbytes(self._rng.randint(min_size, max_size))


def pick(src: Source, options: Sequence[T]) -> T:
    return options[src.integer(0, len(options) - 1)]


def chance(src: Source, percent: int) -> bool:
    """True `percent` % of the time; shrinks to False."""
    return src.integer(0, 99) >= 100 - percent


def weighted(src: Source, table: Sequence[tuple[int, T]]) -> T:
    """One of the options by weight; shrinks towards the first."""
    roll = src.integer(0, sum(weight for weight, _ in table) - 1)
    for weight, option in table:
        if roll < weight:
            return option
        roll -= weight
    raise AssertionError("unreachable")


_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def unpaired(text: str) -> str:
    """No high surrogate right before a low one: as JSON escapes they would become one character."""
    return _PAIR.sub(lambda m: m[0][0] + "~" + m[0][1], text)


def text(src: Source, min_size: int = 0, max_size: int = 24) -> str:
    return unpaired(src.text(min_size, max_size))


# JSON values ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deep:
    """The expected value of `depth` nested arrays (or objects `{"a": ...}`), checked without recursion."""

    depth: int
    objects: bool = False

    def text(self) -> str:
        if self.objects:
            return '{"a":' * (self.depth - 1) + "{}" + "}" * (self.depth - 1)
        return "[" * self.depth + "]" * self.depth

    def matches(self, value: object) -> bool:
        for _ in range(self.depth - 1):
            if self.objects:
                if type(value) is not dict or list(value) != ["a"]:
                    return False
                value = value["a"]
            else:
                if type(value) is not list or len(value) != 1:
                    return False
                value = value[0]
        return value == ({} if self.objects else []) and type(value) is (dict if self.objects else list)


@dataclass(frozen=True)
class Raw:
    """JSON text written as is; `value` is what it must decode to (`Deep` for deep nesting)."""

    text: str
    value: Any


class Decoyed(dict[str, Any]):
    """An object written with duplicate keys: each key in `decoys` first, then its real value (the last one wins)."""

    def __init__(self, real: dict[str, Any], decoys: dict[str, Any]) -> None:
        super().__init__(real)
        self.decoys = decoys

    def __delitem__(self, key: str) -> None:  # an absent key has no decoy either
        super().__delitem__(key)
        self.decoys.pop(key, None)


def expected(value: Any) -> Any:
    """What a generated value must decode to."""
    if isinstance(value, Raw):
        return value.value
    if isinstance(value, dict):
        return {k: expected(v) for k, v in value.items()}
    if isinstance(value, list):
        return [expected(v) for v in value]
    return value


def same(actual: Any, want: Any) -> bool:
    """JSON equality with exact types (True is not 1, 1.0 is not 1), NaN equal to NaN, `Deep` checked iteratively."""
    if isinstance(want, Deep):
        return want.matches(actual)
    if isinstance(want, Raw):
        return same(actual, want.value)
    if isinstance(want, dict):
        return type(actual) is dict and set(actual) == set(want) and all(same(actual[k], v) for k, v in want.items())
    if isinstance(want, list):
        return type(actual) is list and len(actual) == len(want) and all(map(same, actual, want))
    if isinstance(want, float) and math.isnan(want):
        return type(actual) is float and math.isnan(actual)
    return type(actual) is type(want) and actual == want


def encode(value: Any, ascii_only: bool = True, spaced: bool = False) -> str:
    """JSON text of a generated value (`Raw` verbatim, `Decoyed` with its duplicate keys)."""
    if isinstance(value, Raw):
        return value.text
    comma, colon = (", ", ": ") if spaced else (",", ":")
    if isinstance(value, dict):
        pairs = [*getattr(value, "decoys", {}).items(), *value.items()]
        inner = comma.join(
            json.dumps(k, ensure_ascii=ascii_only) + colon + encode(v, ascii_only, spaced) for k, v in pairs
        )
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + comma.join(encode(v, ascii_only, spaced) for v in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_only)


def deep(src: Source, refused: bool = False, objects: bool | None = None) -> Raw:
    """Nested arrays (or objects, as `objects` says or by chance), deeper than anything sane."""
    depth = pick(src, REFUSED_DEPTHS if refused else ACCEPTED_DEPTHS)
    shape = Deep(depth, objects=chance(src, 30) if objects is None else objects)
    return Raw(shape.text(), shape)


def scalar(src: Source, json_type: str) -> Any:
    if json_type == "null":
        return None
    if json_type == "boolean":
        return chance(src, 50)
    if json_type == "integer":
        return pick(src, (0, 1, -1, 7, 2**31, 2**53 + 1, -(2**64), 10**30, src.integer(-1000, 1000)))
    if json_type == "number":
        return pick(src, (0.5, -0.0, 1.0, 1e308, 5e-324, math.inf, -math.inf, math.nan, 0.1 * src.integer(-99, 99)))
    if json_type == "string":
        return text(src)
    raise ValueError(json_type)


def value_of(src: Source, json_type: str, depth: int = 0) -> Any:
    """A value of one JSON type (arrays and objects small and shallow, sometimes deep as `Raw`)."""
    if json_type == "array":
        if depth < 2 and chance(src, 5):
            return deep(src, objects=False)
        return [any_value(src, depth + 1) for _ in range(src.integer(0, 3 if depth < 2 else 0))]
    if json_type == "object":
        if depth < 2 and chance(src, 5):
            return deep(src, objects=True) if chance(src, 50) else {"nested": deep(src)}
        return {text(src, 0, 8): any_value(src, depth + 1) for _ in range(src.integer(0, 3 if depth < 2 else 0))}
    return scalar(src, json_type)


def any_value(src: Source, depth: int = 0) -> Any:
    return value_of(src, pick(src, JSON_TYPES), depth)


def wrong_value(src: Source, allowed: Sequence[str]) -> Any:
    """A value of a JSON type not in `allowed` ("number" covers "integer")."""
    banned = set(allowed) | ({"integer"} if "number" in allowed else set())
    return value_of(src, pick(src, [t for t in JSON_TYPES if t not in banned]))


def session_id(src: Source) -> str:
    if chance(src, 30):
        return pick(src, ("scripted-1", "sess_01JD3K9QZ7", "", "\ud800", "s" * 300))
    return text(src, 0, 16)


def jsonrpc_id(src: Source) -> Any:
    return pick(src, (0, 1, 7, -1, 2**53, 10**20, "req-1", "", "\ud800", None, src.integer(0, 10**6)))


def severity(src: Source) -> str:
    how = weighted(src, ((6, "known"), (3, "odd"), (1, "any")))
    if how == "known":
        return pick(src, KNOWN_SEVERITIES)
    return pick(src, ODD_SEVERITIES) if how == "odd" else text(src, 0, 12)


def title(src: Source) -> str:
    """Never empty (an empty title is a malformed notice), otherwise anything."""
    how = weighted(src, ((8, "any"), (1, "odd"), (1, "short")))
    if how == "any":
        return text(src, 1, 40)
    return pick(src, (" ", "\x00", "\ud800", "\n\n", "\u202e!")) if how == "odd" else "t"


# expectations -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Expect:
    """What acp-tray must make of one item.

    record: "notice" (exact strings in the history), "malformed" (a record naming `field`),
    "own" (acp-tray's own record about the agent, e.g. a declined elicitation) or None.
    drops: lines the transport must report as skipped (not routable JSON-RPC, or too long).
    """

    category: str
    record: str | None = None
    session_id: str | None = None
    severity: str | None = None
    title: str | None = None
    description: str | None = None
    meta: Any = None
    field: str | None = None
    variant: str | None = None
    drops: int = 0


@dataclass(frozen=True)
class Item:
    line: bytes  # with its line ending
    expect: Expect

    @property
    def valid_notice(self) -> bool:
        """The marker: this line is a notice that must come through, exactly as sent."""
        return self.expect.record == "notice"


@dataclass(frozen=True)
class Config:
    """What the generator may produce: the protocol version decides what a broken known variant is."""

    version: ProtocolVersion = ProtocolVersion.V1
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    huge_sizes: tuple[int, ...] = (200_000, 1_500_000, 3_900_000, 4_600_000, 5_000_000)
    huge_weight: int = 1  # per thousand
    categories: tuple[str, ...] | None = None  # only these (by prefix), e.g. ("notice",)


@dataclass
class Message:
    """A JSON-RPC message under construction and its expectation."""

    obj: dict[str, Any]
    expect: Expect


@dataclass(frozen=True)
class Lines:
    """Bytes that are not a routable message: each non-blank line of them is skipped (one drop)."""

    data: bytes
    category: str


def envelope(src: Source, params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": "session/update", "params": params}
    if chance(src, 10):  # a session/update sent as a request: handled all the same
        message["id"] = jsonrpc_id(src)
    if chance(src, 5):
        if chance(src, 50):
            del message["jsonrpc"]  # not checked by acp-tray nor the SDK
        else:
            message["jsonrpc"] = pick(src, ("1.0", 2, None))
    if chance(src, 5):
        message["params_extra"] = any_value(src)
    return with_decoys(src, shuffled(src, message))


def shuffled(src: Source, obj: dict[str, Any]) -> dict[str, Any]:
    if not chance(src, 30):
        return obj
    keys = list(obj)
    for i in range(len(keys) - 1, 0, -1):
        j = src.integer(0, i)
        keys[i], keys[j] = keys[j], keys[i]
    return {k: obj[k] for k in keys}


def with_decoys(src: Source, obj: dict[str, Any]) -> dict[str, Any]:
    """Sometimes repeat a key earlier with another value (duplicate keys: the last one wins)."""
    if not obj or not chance(src, 8):
        return obj
    key = pick(src, list(obj))
    return Decoyed(obj, {key: any_value(src, 1)})


def update_params(src: Source, sid: Any, update: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"sessionId": sid, "update": update}
    if chance(src, 10):
        params["_meta"] = any_value(src)
    return with_decoys(src, shuffled(src, params))


NOTICE_FIELDS = ("sessionUpdate", "severity", "title", "description", "_meta")


def extra_fields(src: Source, update: dict[str, Any], reserved: Sequence[str] = NOTICE_FIELDS) -> None:
    """Unknown properties, ignored wherever they are (never one the update's rules look at)."""
    for _ in range(src.integer(0, 2) if chance(src, 20) else 0):
        name = pick(src, ("priority", "_acme", "sessionUpdateX", "timestamp", "url", text(src, 1, 8)))
        if name not in update and name not in reserved:
            update[name] = any_value(src)


# generators, one per category -------------------------------------------------------------


def valid_notice(src: Source, cfg: Config) -> Message:
    """A notice to present: tolerated oddities (wrong-typed description/_meta, extra fields) included."""
    sid = session_id(src)
    update: dict[str, Any] = {"sessionUpdate": "notice", "severity": severity(src), "title": title(src)}
    description: str | None = None
    how = weighted(src, ((4, "absent"), (4, "string"), (1, "null"), (1, "wrong")))
    if how == "string":
        update["description"] = description = text(src, 0, 60)
    elif how == "null":
        update["description"] = None
    elif how == "wrong":
        update["description"] = wrong_value(src, ("string",))  # x-deserialize-default-on-error: absent
    meta: Any = None
    how = weighted(src, ((5, "absent"), (3, "object"), (1, "null"), (1, "wrong")))
    if how == "object":
        update["_meta"] = value_of(src, "object")
        meta = expected(update["_meta"])
    elif how == "null":
        update["_meta"] = None
    elif how == "wrong":
        update["_meta"] = wrong_value(src, ("object",))
    extra_fields(src, update)
    update = with_decoys(src, shuffled(src, update))
    expect = Expect(
        "notice/valid",
        "notice",
        session_id=sid,
        severity=update["severity"],
        title=update["title"],
        description=description,
        meta=meta,
    )
    return Message(envelope(src, update_params(src, sid, update)), expect)


def malformed_notice(src: Source, cfg: Config) -> Message:
    """A notice that breaks a rule: severity or title missing, null, wrong-typed, or an empty title."""
    sid = session_id(src)
    update: dict[str, Any] = {"sessionUpdate": "notice", "severity": severity(src), "title": title(src)}
    broken = weighted(src, ((1, "severity"), (1, "title"), (1, "both")))
    for name in ("severity", "title") if broken == "both" else (broken,):
        how = weighted(src, ((1, "missing"), (1, "null"), (2, "wrong"), (1 if name == "title" else 0, "empty")))
        if how == "missing":
            del update[name]
        elif how == "null":
            update[name] = None
        elif how == "wrong":
            update[name] = wrong_value(src, ("string",))
        else:
            update[name] = ""
    if chance(src, 50):
        update["description"] = text(src, 0, 20)
    extra_fields(src, update)
    update = with_decoys(src, shuffled(src, update))
    first = "severity" if type(update.get("severity")) is not str else "title"
    expect = Expect(
        "notice/malformed",
        "malformed",
        session_id=sid,
        severity=update.get("severity") if type(update.get("severity")) is str else None,
        title=update.get("title") if type(update.get("title")) is str else None,
        field=f"update.{first}",
        variant="notice",
    )
    return Message(envelope(src, update_params(src, sid, update)), expect)


def broken_envelope(src: Source, cfg: Config) -> Message:
    """params, sessionId, update or sessionUpdate missing or of the wrong type."""
    sid = session_id(src)
    update: Any = {"sessionUpdate": "notice", "severity": "info", "title": text(src, 1, 12)}
    params: Any = {"sessionId": sid, "update": update}
    broken = pick(src, ("params", "sessionId", "update", "update.sessionUpdate"))
    session: str | None = sid
    if broken == "params":
        params = None if chance(src, 30) else wrong_value(src, ("object",))
        session = None
    elif broken == "sessionId":
        if chance(src, 30):
            del params["sessionId"]
        else:
            params["sessionId"] = wrong_value(src, ("string",))
        session = None
    elif broken == "update":
        if chance(src, 30):
            del params["update"]
        else:
            params["update"] = wrong_value(src, ("object",))
    else:
        if chance(src, 30):
            del update["sessionUpdate"]
        else:
            update["sessionUpdate"] = wrong_value(src, ("string",))
    message = envelope(src, params)
    if broken == "params" and params is None and chance(src, 50):
        del message["params"]  # absent params: the handler gets None
    fields = params.get("update") if isinstance(params, dict) else None
    fields = fields if isinstance(fields, dict) else {}
    expect = Expect(
        "envelope/broken",
        "malformed",
        session_id=session,
        severity=fields.get("severity") if isinstance(fields.get("severity"), str) else None,
        title=fields.get("title") if isinstance(fields.get("title"), str) else None,
        field=broken,
        variant=fields.get("sessionUpdate") if isinstance(fields.get("sessionUpdate"), str) else None,
    )
    return Message(message, expect)


def break_properties(src: Source, props: dict[str, tuple[bool, Any]], update: dict[str, Any]) -> list[str]:
    """Some of a variant's properties taken out (required ones) or given a wrong type: their names."""
    broken: list[str] = []
    for name, (required, types) in props.items():
        if not chance(src, 60):
            continue
        if required and chance(src, 40):
            update.pop(name, None)
        else:
            update[name] = wrong_value(src, types)
        broken.append(name)
    return broken


def known_variant(src: Source, cfg: Config) -> Message:
    """A known v2 variant, whole or with required properties missing or of the wrong type.

    v2 checks them (broken: malformed, the first failing property in schema order); v1 keeps
    every non-notice update raw. Either way a whole one is never recorded.
    """
    kind = pick(src, [k for k in VARIANTS if k != "notice"])
    props = VARIANTS[kind]
    update: dict[str, Any] = {"sessionUpdate": kind}
    for name, (required, types) in props.items():
        if required or chance(src, 50):
            update[name] = variant_value(src, kind, name, types)
    broken = break_properties(src, props, update) if props and chance(src, 50) else []
    if kind == "state_update" and chance(src, 50):
        update["stopReason"] = pick(src, ("end_turn", "refusal", "cancelled", 42, None, text(src)))
        update["error"] = {"message": pick(src, (text(src), None, 5)), "data": any_value(src)}
        if chance(src, 10):
            update["error"]["data"] = deep(src)
    if kind == "agent_message_chunk" and "content" in update and isinstance(update["content"], dict):
        update["content"] = pick(src, ({"type": "text", "text": text(src, 0, 40)}, update["content"]))
    extra_fields(src, update, ("sessionUpdate", *props))
    sid = session_id(src)
    update = with_decoys(src, shuffled(src, update))
    first = next((n for n in props if n in broken), None)
    if first is not None and cfg.version is ProtocolVersion.V2:
        expect = Expect("variant/broken", "malformed", session_id=sid, field=f"update.{first}", variant=kind)
    else:
        expect = Expect("variant/broken" if first else "variant/whole")
    return Message(envelope(src, update_params(src, sid, update)), expect)


def variant_value(src: Source, kind: str, name: str, types: Sequence[str]) -> Any:
    json_type = pick(src, types) if types else pick(src, JSON_TYPES)
    if name == "state" and chance(src, 70):
        return pick(src, ("running", "idle", "requires_action", "unknown", "_acme.paused"))
    if name == "content" and json_type == "object":
        return pick(src, ({"type": "text", "text": text(src)}, {"type": "image", "data": "AAAA"}, {}))
    return value_of(src, json_type)


def unknown_variant(src: Source, cfg: Config) -> Message:
    """`_`-prefixed extensions and future values: never an error, never recorded, in v1 and v2."""
    kind = pick(src, ("_acme.progress", "_", "future_variant", "Notice", "notice ", "NOTICE", "", text(src, 0, 12)))
    if kind in VARIANTS:
        kind += "_x"
    update: dict[str, Any] = {"sessionUpdate": kind}
    if chance(src, 50):  # a notice's fields on an unknown variant do not make it a notice
        update.update(severity="error", title=text(src, 1, 12))
    extra_fields(src, update)
    if chance(src, 10):
        update["payload"] = deep(src)
    sid = session_id(src)
    return Message(envelope(src, update_params(src, sid, update)), Expect("variant/unknown"))


def other_rpc(src: Source, cfg: Config) -> Message:
    """Requests and notifications of other methods, responses to ids never sent, and the agent's own requests."""
    what = pick(src, ("request", "notification", "response", "error", "permission", "elicitation", "cancel"))
    params = any_value(src) if chance(src, 70) else {"sessionId": session_id(src)}
    if what in ("request", "notification"):
        method = pick(src, OTHER_METHODS) if chance(src, 70) else text(src, 0, 16)
        if method in HANDLED_METHODS:
            method += "/x"
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        if what == "request":
            message["id"] = jsonrpc_id(src)
        if chance(src, 20):
            del message["params"]
        return Message(shuffled(src, message), Expect(f"rpc/{what}"))
    if what in ("response", "error"):
        message = {"jsonrpc": "2.0", "id": jsonrpc_id(src)}
        if what == "response":
            message["result"] = any_value(src)
        else:
            message["error"] = pick(
                src, ({"code": -32601, "message": "Method not found"}, {}, {"code": "x"}, {"message": text(src)})
            )
        return Message(shuffled(src, message), Expect(f"rpc/{what}"))
    if what == "permission":  # answered by the agent's policy (reject), nothing recorded
        params = pick(
            src,
            (
                params,
                {"sessionId": session_id(src), "toolCall": {"title": text(src)}, "options": any_value(src)},
                {
                    "sessionId": session_id(src),
                    "title": text(src),
                    "options": [{"optionId": text(src), "name": any_value(src), "kind": "reject_once"}, 42, {}],
                },
            ),
        )
        message = {"jsonrpc": "2.0", "id": jsonrpc_id(src), "method": "session/request_permission", "params": params}
        return Message(message, Expect("rpc/permission"))
    if what == "elicitation":  # declined; acp-tray tells the person in a notice of its own
        params = pick(src, (params, {"sessionId": session_id(src), "message": any_value(src)}))
        message = {"jsonrpc": "2.0", "id": jsonrpc_id(src), "method": "elicitation/create", "params": params}
        return Message(message, Expect("rpc/elicitation", "own"))
    params = pick(src, (params, {"requestId": any_value(src)}, {"requestId": jsonrpc_id(src)}))
    return Message({"jsonrpc": "2.0", "method": "$/cancel_request", "params": params}, Expect("rpc/cancel"))


UNROUTABLE = (
    b"42",
    b"-1.5",
    b"[1,2]",
    b"[]",
    b'"x"',
    b"null",
    b"true",
    b"false",
    b"{}",
    b'{"hello":"world"}',
    b'{"jsonrpc":"2.0"}',
    b'{"jsonrpc":"2.0","id":1}',
    b'{"jsonrpc":"2.0","id":7,"error":"boom"}',
    b'{"jsonrpc":"2.0","id":7,"error":null}',
    b'{"jsonrpc":"2.0","id":true,"method":"session/update","params":{}}',
    b'{"jsonrpc":"2.0","id":1.5,"method":"x"}',
    b'{"jsonrpc":"2.0","id":[1],"result":{}}',
    b'{"jsonrpc":"2.0","id":{"a":1},"method":"x"}',
    b'{"jsonrpc":"2.0","method":42}',
    b'{"jsonrpc":"2.0","method":null,"params":{}}',
    b'{"jsonrpc":"2.0","method":["session/update"]}',
)


def unroutable(src: Source, cfg: Config) -> Lines:
    """JSON that is not a routable JSON-RPC object: skipped by the transport, one drop each."""
    if chance(src, 60):
        return Lines(pick(src, UNROUTABLE), "unroutable/listed")
    how = pick(src, ("batch", "bad_id", "bad_method", "bad_error", "no_result", "scalar"))
    inner = valid_notice(src, cfg).obj
    if how == "batch":  # JSON-RPC batches are not supported by ACP
        data = encode([inner])
    elif how == "bad_id":
        inner["id"] = pick(src, (True, False, 1.5, -0.0, [1], {"a": 1}, math.nan))
        data = encode(inner)
    elif how == "bad_method":
        inner["method"] = wrong_value(src, ("string",))
        data = encode(inner)
    elif how == "bad_error":
        data = encode({"jsonrpc": "2.0", "id": jsonrpc_id(src), "error": wrong_value(src, ("object",))})
    elif how == "no_result":
        data = encode({"jsonrpc": "2.0", "id": jsonrpc_id(src), "data": any_value(src)})
    else:  # any JSON but an object
        data = encode(value_of(src, pick(src, [t for t in JSON_TYPES if t != "object"])))
    return Lines(data.encode(), f"unroutable/{how}")


def garbage_of_a_notice(src: Source, base: str, how: str) -> bytes | None:
    """A valid notice's line `base` broken in the way `how` names (None: `how` is not such a way)."""
    if how == "bytes":
        return b"#" + src.binary(0, 64).replace(b"\n", b" ")
    elif how == "truncated":  # a partial line: the rest never came
        return base.encode()[: src.integer(1, len(base) - 1)]
    elif how == "invalid_utf8":
        at = src.integer(1, len(base) - 1)
        return base.encode()[:at] + pick(src, INVALID_UTF8) + base.encode()[at:]
    elif how == "nul":
        at = src.integer(2, len(base) - 1)
        return base.encode()[:at] + b"\x00" + base.encode()[at:]
    elif how == "two_objects":
        return (base + pick(src, ("", " ", "\t")) + base).encode()
    elif how == "cr_separated":  # old Mac line endings: two messages on one line
        return (base + "\r" + base).encode()
    elif how == "huge_number":  # beyond the integer string conversion limit
        return b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"x"}'
    return None


def garbage_of_its_own(src: Source, base: str, how: str) -> bytes:
    """Garbage that is no notice's line: near-JSON, a message over several lines, too deep, or words."""
    if how == "json5":
        return pick(
            src,
            (
                b"{'jsonrpc':'2.0','method':'session/update'}",
                b'{"jsonrpc":"2.0","method":"x",}',
                b'{jsonrpc:"2.0",method:"x"}',
                b'{"jsonrpc":"2.0","method":"x"} // comment',
                b'/* c */ {"jsonrpc":"2.0","method":"x"}',
                b'{"jsonrpc":"2.0","method":"x","params":[1,,2]}',
                b'{"a":0x10}',
                b'{"a":.5}',
                b'{"a":01}',
                b'{"a":+1}',
                b'{"a":"\\x41"}',
                b'{"a":"\\u12"}',
                b'{"a":"unterminated}',
                b'{"a":nan}',
                b'{"a":undefined}',
            ),
        )
    elif how == "pretty":  # a message written over several lines: each line is garbage on its own
        update = {"sessionUpdate": "notice", "severity": severity(src), "title": title(src)}
        message = {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": update}}
        return json.dumps(message, indent=pick(src, ("", " ", "  ", "\t"))).encode()
    elif how == "deep":  # beyond any parser's limit: dropped, never a crash
        raw = deep(src, refused=True)
        return pick(src, (raw.text, raw.text[: len(raw.text) // 2], base[:-2] + ',"x":' + raw.text + "}}")).encode()
    return b"~" + text(src, 0, 30).encode("utf-8", "surrogatepass").replace(b"\n", b" ")


def garbage(src: Source, cfg: Config) -> Lines:
    """Not JSON at all (or not on one line): every non-blank line of it is skipped, one drop each."""
    base = encode(valid_notice(src, cfg).obj)  # ASCII only
    how = pick(
        src,
        (
            "bytes",
            "truncated",
            "invalid_utf8",
            "nul",
            "two_objects",
            "json5",
            "pretty",
            "deep",
            "cr_separated",
            "huge_number",
            "words",
        ),
    )
    data = garbage_of_a_notice(src, base, how)
    if data is None:
        data = garbage_of_its_own(src, base, how)
    return Lines(data, f"garbage/{how}")


def huge(src: Source, cfg: Config) -> Message:
    """A notice with a title or description of up to megabytes: presented whole, or skipped over the line limit."""
    size = pick(src, cfg.huge_sizes)
    unit = pick(src, ("x", "é", "😀", "\\", "\ud800", 'ab"c'))
    cost = len(json.dumps(unit)) - 2  # bytes per unit, written ASCII-only: the line is about `size` bytes
    body = unit * (size // cost)
    where = pick(src, ("title", "description", "meta"))
    message = valid_notice(src, cfg)
    update = message.obj["params"]["update"]
    if where == "title":
        update["title"] = body
        message.expect = replace(message.expect, title=body)
    elif where == "description":
        update["description"] = body
        message.expect = replace(message.expect, description=body)
    else:
        update["_meta"] = {"blob": body}
        message.expect = replace(message.expect, meta={"blob": body})
    message.expect = replace(message.expect, category="huge")
    return message


def blank(src: Source, cfg: Config) -> Lines:
    """Empty and whitespace-only lines: skipped silently."""
    return Lines(pick(src, (b"", b" \t \r", b"\r", b"\x0b\x0c")), "blank")


CATEGORIES: tuple[tuple[int, str, Callable[[Source, Config], Message | Lines]], ...] = (
    (300, "notice/valid", valid_notice),
    (150, "notice/malformed", malformed_notice),
    (60, "envelope/broken", broken_envelope),
    (120, "variant/known", known_variant),
    (50, "variant/unknown", unknown_variant),
    (120, "rpc", other_rpc),
    (80, "unroutable", unroutable),
    (100, "garbage", garbage),
    (20, "blank", blank),
)


def gen_item(src: Source, cfg: Config) -> Item:
    """One line an agent may write, and what must become of it."""
    table = [(w, fn) for w, name, fn in CATEGORIES if cfg.categories is None or name.startswith(cfg.categories)]
    if cfg.huge_weight and (cfg.categories is None or "huge".startswith(cfg.categories)):
        # not last: hypothesis draws the largest integer often, which would make megabytes common
        table.insert(max(len(table) - 1, 0), (cfg.huge_weight, huge))
    fn = weighted(src, table)
    made = fn(src, cfg)
    if isinstance(made, Lines):
        lines = [part for part in made.data.split(b"\n") if part.strip()]
        if not lines:
            return Item(made.data + b"\n", Expect(made.category))
        return Item(frame(src, made.data, multiline=len(lines) > 1), Expect(made.category, drops=len(lines)))
    ascii_only = not chance(src, 20)
    line = frame(src, encode(made.obj, ascii_only, spaced=chance(src, 20)).encode("utf-8", "surrogatepass"))
    if len(line) - 1 > cfg.max_line_bytes:  # skipped whole: one drop
        return Item(line, Expect(made.expect.category + "/over-limit", drops=1))
    return Item(line, made.expect)


def frame(src: Source, line: bytes, multiline: bool = False) -> bytes:
    """The line with its ending; sometimes CRLF, padding or a UTF-8 BOM, which change nothing."""
    if not multiline and chance(src, 15):
        how = pick(src, ("crlf", "pad", "bom"))
        if how == "crlf":
            return line + b"\r\n"
        if how == "pad":
            return pick(src, (b" ", b"\t", b"  \t")) + line + pick(src, (b" ", b"\t", b"\r", b" \r")) + b"\n"
        if line.startswith(b"{"):  # `json.loads` takes it (utf-8-sig), after pydantic-core refused it
            return b"\xef\xbb\xbf" + line + b"\n"
    return line + b"\n"


def gen_items(src: Source, cfg: Config, count: int) -> list[Item]:
    return [gen_item(src, cfg) for _ in range(count)]


# hypothesis strategies --------------------------------------------------------------------


@st.composite
def items(draw: Callable[[st.SearchStrategy[Any]], Any], cfg: Config = Config()) -> Item:
    """One generated line and its expectation."""
    return gen_item(HypothesisSource(draw), cfg)


@dataclass(frozen=True)
class Stream:
    """What an agent writes in one go: the items, and how the bytes arrive (chunks, last newline or not)."""

    items: list[Item]
    chunks: list[bytes]
    version: ProtocolVersion
    prefs: str

    @property
    def data(self) -> bytes:
        return b"".join(self.chunks)


PREFS = ("default", "dnd", "info_none", "muted", "tight")


def make_stream(src: Source, batch: list[Item], version: ProtocolVersion, prefs: str) -> Stream:
    data = b"".join(item.line for item in batch)
    if data.endswith(b"\n") and chance(src, 30):
        data = data[:-1]  # the last line ends at EOF, without its newline: still delivered
    cuts = sorted({src.integer(0, len(data)) for _ in range(src.integer(0, 8))})
    bounds = [0, *cuts, len(data)]
    chunks = [data[a:b] for a, b in itertools.pairwise(bounds) if b > a]
    return Stream(batch, chunks, version, prefs)


@st.composite
def streams(
    draw: Callable[[st.SearchStrategy[Any]], Any],
    max_items: int = 20,
    version: ProtocolVersion | None = None,
    huge_weight: int = 1,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    huge_sizes: tuple[int, ...] = Config.huge_sizes,
    categories: tuple[str, ...] | None = None,
) -> Stream:
    """A batch of generated lines from one agent, cut into chunks at arbitrary bytes (partial lines)."""
    src = HypothesisSource(draw)
    chosen = version if version is not None else pick(src, (ProtocolVersion.V1, ProtocolVersion.V2))
    cfg = Config(chosen, max_line_bytes, huge_sizes, huge_weight, categories)
    batch = [gen_item(src, cfg) for _ in range(src.integer(1, max_items))]
    return make_stream(src, batch, chosen, pick(src, PREFS))
