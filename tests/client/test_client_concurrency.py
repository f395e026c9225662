"""Outcomes belong to their own call, however many calls are in flight."""

from __future__ import annotations

import asyncio
import random

from embedding_client import EmbeddingClient
from plait.conformance.servers import EmbeddingServer, vector_for

CALLS = 240


async def test_hundreds_of_simultaneous_calls_each_get_their_own_outcome(
    embedding_server: EmbeddingServer, closed_url: str
) -> None:
    # One live client answers ok or 500 depending on the text; one client
    # points at a dead port.  Shared state between calls would show up as a
    # vector or an error landing on the wrong call.
    live = EmbeddingClient("http", http_url=embedding_server.url("by-text"), cache_size=0, timeout=10)
    dead = EmbeddingClient("http", http_url=closed_url, cache_size=0, timeout=10)
    plan: list[tuple[str, EmbeddingClient, str]] = []
    for i in range(CALLS):
        if i % 2:
            plan.append(("dead", dead, f"dead-{i}"))
        elif i % 4 == 0:
            plan.append(("ok", live, f"text-{i}"))
        else:
            plan.append(("500", live, f"status-500|text-{i}"))
    random.Random(7).shuffle(plan)
    async with live, dead:
        results = await asyncio.gather(*(client.embed_with_outcome([text, text + "/2"]) for _, client, text in plan))
    dead_port = closed_url.split(":")[2].split("/")[0]
    counts = {"ok": 0, "500": 0, "dead": 0}
    for (kind, _, text), (value, outcome) in zip(plan, results, strict=True):
        counts[kind] += 1
        assert outcome.attempted, text
        if kind == "ok":
            assert outcome.ok and outcome.error is None, (text, outcome)
            assert value == [vector_for(text), vector_for(text + "/2")]
        elif kind == "500":
            assert value is None and not outcome.ok
            assert outcome.error is not None and "/by-text failed: HTTPStatusError: 500" in outcome.error
        else:
            assert value is None and not outcome.ok
            assert outcome.error is not None
            assert f"127.0.0.1:{dead_port}/embed failed: ConnectError" in outcome.error
    assert counts == {"ok": CALLS // 4, "500": CALLS // 4, "dead": CALLS // 2}
