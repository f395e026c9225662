"""A caching wrapper around the embedding client."""

from __future__ import annotations

import hashlib
import logging
from collections import OrderedDict

from .client import EmbeddingClient

log = logging.getLogger(__name__)


class EmbeddingCache:
    """In-memory LRU of cache key -> vector."""

    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        self._data: OrderedDict[str, list[float]] = OrderedDict()

    @staticmethod
    def cache_key(model: str, text: str) -> str:
        normalised = " ".join(text.split())
        digest = hashlib.sha256(normalised.encode("utf-8")).hexdigest()
        return f"{model}:{digest}"

    def get(self, key: str) -> list[float] | None:
        vector = self._data.get(key)
        if vector is not None:
            self._data.move_to_end(key)
        return vector

    def put(self, key: str, vector: list[float]) -> None:
        self._data[key] = vector
        if len(self._data) > self.capacity:
            self._data.popitem(last=False)


class CachedEmbeddingClient:
    """Serves repeated texts from the cache, sends the rest to the backend."""

    def __init__(self, client: EmbeddingClient, model: str) -> None:
        self.client = client
        self.model = model
        self.cache = EmbeddingCache()

    async def embed(self, texts: list[str]) -> list[list[float]] | None:
        keys = [EmbeddingCache.cache_key(self.model, text) for text in texts]
        log.debug("embedding %d texts through the cache", len(texts))
        missing = [text for text, key in zip(texts, keys) if self.cache.get(key) is None]
        if missing:
            vectors = await self.client.embed(missing)
            if vectors is None:
                return None
            for text, vector in zip(missing, vectors):
                self.cache.put(EmbeddingCache.cache_key(self.model, text), vector)
        return [self.cache.get(key) for key in keys]
