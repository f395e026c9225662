"""The canonical embedding client.

This package is vendored into services, so it depends on the standard library
and httpx only.  The public API is re-exported here, its types gathered in the
private `_types`; the other modules keep the names services and lineages
already import (``embedding_client.health``, ``embedding_client.client``).
"""

from . import health
from ._types import (
    Advisory,
    AdvisoryReason,
    AdvisoryScope,
    HealthSnapshot,
    HealthState,
    Mode,
    Severity,
    Vectors,
)
from .cache import TTLCache
from .client import DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_MAX_WIDTH, EmbeddingClient
from .health import DEFAULT_MAX_SESSIONS, EmbeddingHealth
from .outcome import EmbedOutcome, Evidence, evidence_of
from .packing import pack_embedding, unpack_embedding

__all__ = [
    "Advisory",
    "AdvisoryReason",
    "AdvisoryScope",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_MAX_WIDTH",
    "EmbedOutcome",
    "EmbeddingClient",
    "EmbeddingHealth",
    "Evidence",
    "HealthSnapshot",
    "HealthState",
    "Mode",
    "Severity",
    "TTLCache",
    "Vectors",
    "evidence_of",
    "health",
    "pack_embedding",
    "unpack_embedding",
]
