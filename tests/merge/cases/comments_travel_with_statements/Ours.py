"""Batch embedding for the indexer."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


class BatchEmbedder:
    """Feeds documents to the embedding client in backend-sized batches."""

    def __init__(self, client, batch_size: int = 64) -> None:
        self.client = client
        self.batch_size = batch_size

    async def embed_documents(self, docs: list[dict]) -> list[list[float] | None]:
        texts = [doc["text"] for doc in docs]

        results: list[list[float] | None] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            vectors = await self.client.embed(batch)
            # Keep the log quiet for healthy batches.
            if vectors is None:
                log.warning("batch at %d failed", start)
            # A failed batch still yields one slot per text.
            results.extend(vectors or [None] * len(batch))
        return results

    # --- diagnostics -------------------------------------------------

    def describe(self) -> str:
        return f"BatchEmbedder(batch_size={self.batch_size})"
