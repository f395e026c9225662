"""Batch embedding for the indexer."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


class BatchEmbedder:
    """Feeds documents to the embedding client in backend-sized batches."""

    def __init__(self, client, batch_size: int = 64) -> None:
        self.client = client
        self.batch_size = batch_size
        self.sent = 0

    async def embed_documents(self, docs: list[dict]) -> list[list[float] | None]:
        # Old indexer versions sent bare strings; wrap them.
        docs = [d if isinstance(d, dict) else {"text": d} for d in docs]
        texts = [doc["text"].strip() for doc in docs]

        results: list[list[float] | None] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            vectors = await self.client.embed(batch)

            # Count what reached the backend, for the indexer dashboard.
            self.sent += len(batch)
            # A failed batch still yields one slot per text, so results line up with docs.
            results.extend(vectors or [None] * len(batch))
        return results

    # --- diagnostics -------------------------------------------------

    def describe(self) -> str:
        return f"BatchEmbedder(batch_size={self.batch_size})"
