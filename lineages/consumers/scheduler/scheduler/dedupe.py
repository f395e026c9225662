"""A queue that refuses a job describing what is already queued.

Job descriptions are embedded with the vendored ``mcp_common`` client,
configured from the ``EMBEDDING_*`` variables like every mcp_common server,
and two jobs whose descriptions are near enough (cosine similarity at or
above the threshold) are one job.  When embedding is degraded the queue
still works, on exact text only, and the outcome of the call says why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ._vendor.mcp_common import EmbeddingClient, EmbedOutcome, client_from_env

__all__ = ["JobQueue", "Submission", "client_from_env"]


@dataclass(frozen=True)
class Submission:
    """What became of one submitted job, and what the embedding backend did for it."""

    accepted: bool
    duplicate_of: str | None
    outcome: EmbedOutcome


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


@dataclass
class JobQueue:
    """Jobs in submission order, each with its description's vector when embedding worked."""

    client: EmbeddingClient
    threshold: float = 0.95
    jobs: list[tuple[str, list[float] | None]] = field(default_factory=list)

    @classmethod
    def from_env(cls, environ: Mapping[str, str], threshold: float = 0.95) -> JobQueue:
        return cls(client_from_env(environ), threshold)

    async def submit(self, description: str) -> Submission:
        vectors, outcome = await self.client.embed_with_outcome([description])
        vector = vectors[0] if vectors else None
        for text, other in self.jobs:
            near = vector is not None and other is not None and _cosine(vector, other) >= self.threshold
            if text == description or near:
                return Submission(False, text, outcome)
        self.jobs.append((description, vector))
        return Submission(True, None, outcome)
