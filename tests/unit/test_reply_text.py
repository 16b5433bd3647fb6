"""Reply text of the running turn: v1/v2 chunks append, a v2 `agent_message` upsert replaces its
message's text (only what it adds is streamed; a rewrite starts on a new line)."""

from __future__ import annotations

import asyncio
from typing import Any

from acp_tray.agents.sessions import SessionKey
from acp_tray.agents.turns import HostedSession, PromptJob
from acp_tray.events import ReplyText, TurnProgress
from acp_tray.protocol.session import whole_message_text
from acp_tray.protocol.version import ProtocolVersion
from tests.support.waiting import until_async


class Waiting:
    """An agent that takes the prompt and never answers (the turn stays running)."""

    async def send_request(self, method: str, params: Any | None = None) -> Any:
        await asyncio.Event().wait()

    async def send_notification(self, method: str, params: Any | None = None) -> None:
        return None


async def streamed(updates: list[tuple[str, str | None, bool]]) -> str:
    key = SessionKey("a", "/", "default")
    session = HostedSession(key, "s1", Waiting(), lambda e: None, lambda s: None, ProtocolVersion.V2)
    chunks: list[TurnProgress] = []
    job = PromptJob(key, "hi", stream=chunks.append)
    session.submit(job)
    await until_async(lambda: session.current is not None, 5, "the job to start")
    for text, message, whole in updates:
        session.on_message_text(text, message, whole)
    session.close("done")
    return "".join(c.text for c in chunks if isinstance(c, ReplyText))


async def test_a_whole_message_after_its_chunks_adds_only_what_is_new() -> None:
    text = await streamed([("Hel", "m1", False), ("lo", "m1", False), ("Hello world", "m1", True)])
    assert text == "Hello world"


async def test_a_whole_message_alone_and_a_rewrite() -> None:
    text = await streamed([("One.", "m1", True), ("Two.", "m2", True), ("Uno.", "m1", True)])
    assert text == "One.Two.\nUno."


def test_whole_message_text_joins_text_blocks_and_skips_the_rest() -> None:
    blocks = [{"type": "text", "text": "a"}, {"type": "image", "data": "x"}, {"type": "text", "text": "b"}]
    assert whole_message_text({"content": blocks}) == "ab"
    assert whole_message_text({"content": None}) is None
    assert whole_message_text({}) is None
