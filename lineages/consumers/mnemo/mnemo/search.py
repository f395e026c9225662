"""Cosine search over stored memories, with the query's vector from the cache when it is there."""

from __future__ import annotations

import math

from mnemo._vendored_mcp_common.embedding_client.cache import TTLCache


def normalise(vector: list[float]) -> list[float]:
    """*vector* scaled to unit length, in place (the hot path avoids a copy)."""
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    for i, x in enumerate(vector):
        vector[i] = x / norm
    return vector


def cached_query(cache: TTLCache, text: str) -> list[float] | None:
    """The cached vector of *text*, normalised; the cache must not see the change."""
    vector = cache.get(text)
    return normalise(vector) if vector is not None else None
