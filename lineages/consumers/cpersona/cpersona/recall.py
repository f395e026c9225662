"""Recall for cpersona: vector search when embedding works, keywords when not.

The point of this module is the wiring around the search, not the search:

* ``observe_config(mode)`` at recall entry, so a service running with mode
  ``none`` says so (a hint) instead of looking healthy;
* ``observe(outcome)`` after every recall-path embed, so consecutive failures
  become a fault with evidence;
* ``advisory`` attached as a sibling of ``messages`` only when there is one,
  so a healthy response carries no ``advisory`` key at all; its ``severity``
  is ``"fault"`` (a backend failing: someone must repair it) or ``"hint"``
  (embedding not configured: nothing to fail), the two words agents match on;
* one ``maybe_advisory()`` per logical recall; a composite response forwards
  the advisory it already has (see :func:`recall_with_recent`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from ._vendored_mcp_common.embedding_client import EmbeddingClient
from ._vendored_mcp_common.embedding_client import health as embedding_health
from ._vendored_mcp_common.embedding_client.health import EmbeddingHealth

#: The switch an operator sets to ``false`` to silence advisories.
OPT_OUT_ENV = "CPERSONA_DEGRADED_ADVISORY"

_WORD = re.compile(r"\w+")


def setup_health(*, multi_session: bool = False) -> EmbeddingHealth:
    """Configure the process-wide health instance once, at service start.

    ``multi_session`` must be True when one process serves many sessions that
    do not identify themselves (stateless streamable HTTP); stdio is False.
    """
    return embedding_health.configure(opt_out_env=OPT_OUT_ENV, multi_session=multi_session)


@dataclass
class Memory:
    text: str
    vector: list[float] | None = None


@dataclass
class MemoryStore:
    """An in-memory store; a real service would use its database."""

    memories: list[Memory] = field(default_factory=list)

    def add(self, text: str, vector: list[float] | None = None) -> None:
        self.memories.append(Memory(text, vector))

    def search_keyword(self, query: str, limit: int) -> list[dict[str, Any]]:
        terms = set(_WORD.findall(query.lower()))
        scored = []
        for m in self.memories:
            hits = len(terms & set(_WORD.findall(m.text.lower())))
            if hits:
                scored.append((hits / max(len(terms), 1), m.text))
        scored.sort(key=lambda s: -s[0])
        return [{"text": t, "score": round(s, 4)} for s, t in scored[:limit]]

    def search_vector(self, query_vec: list[float], limit: int) -> list[dict[str, Any]]:
        scored = [
            (_cosine(query_vec, m.vector), m.text)
            for m in self.memories
            if m.vector is not None and len(m.vector) == len(query_vec)
        ]
        scored.sort(key=lambda s: -s[0])
        return [{"text": t, "score": round(s, 4)} for s, t in scored[:limit]]


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


async def recall(
    query: str,
    store: MemoryStore,
    *,
    mode: str,
    client: EmbeddingClient | None,
    session_key: str | None = None,
    limit: int = 5,
    health: EmbeddingHealth | None = None,
) -> dict[str, Any]:
    """Return ``{"messages": [...]}``, plus ``"advisory"`` when degraded.

    ``client`` is ``None`` when mode is ``none``: there is nothing to call.
    ``health`` defaults to the process-wide instance; tests pass their own.
    """
    h = health if health is not None else embedding_health.default
    h.observe_config(mode)

    messages: list[dict[str, Any]] | None = None
    if client is not None:
        vectors, outcome = await client.embed_with_outcome([query])
        h.observe(outcome)
        if vectors:
            messages = store.search_vector(vectors[0], limit)
    if messages is None:
        messages = store.search_keyword(query, limit)

    response: dict[str, Any] = {"messages": messages}
    advisory = h.maybe_advisory(session_key)
    if advisory is not None:
        response["advisory"] = advisory
    return response


async def recall_with_recent(
    query: str,
    store: MemoryStore,
    *,
    mode: str,
    client: EmbeddingClient | None,
    session_key: str | None = None,
    limit: int = 5,
    recent: int = 3,
    health: EmbeddingHealth | None = None,
) -> dict[str, Any]:
    """Recall plus the most recent memories: one logical recall, two returns.

    The advisory is forwarded from the inner :func:`recall`.  Calling
    ``maybe_advisory()`` here again would mark the full runbook as delivered
    a second time, so this response would carry the short reminder while
    the full runbook sat in an inner result nobody returns: the user would
    never see the instructions.
    """
    found = await recall(
        query,
        store,
        mode=mode,
        client=client,
        session_key=session_key,
        limit=limit,
        health=health,
    )
    if recent <= 0:
        return found

    seen = {m["text"] for m in found["messages"]}
    latest = [
        {"text": m.text, "score": None}
        for m in reversed(store.memories[-recent:])
        if m.text not in seen
    ]
    response: dict[str, Any] = {"messages": found["messages"] + latest}
    if "advisory" in found:
        response["advisory"] = found["advisory"]
    return response


async def reembed_missing(
    store: MemoryStore,
    client: EmbeddingClient,
    *,
    health: EmbeddingHealth | None = None,
) -> int:
    """Maintenance: embed memories stored while the backend was down.

    Its outcomes go to ``observe_maintenance``: a failing batch can latch a
    fault, but a success here does not declare recall healthy; only recall
    clears a fault.
    """
    h = health if health is not None else embedding_health.default
    pending = [m for m in store.memories if m.vector is None]
    if not pending:
        return 0
    vectors, outcome = await client.embed_with_outcome([m.text for m in pending])
    h.observe_maintenance(outcome)
    if not vectors:
        return 0
    for memory, vector in zip(pending, vectors):
        memory.vector = vector
    return len(pending)
