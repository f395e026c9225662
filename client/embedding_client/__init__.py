"""The canonical embedding client.

This package is vendored into services, so it depends on the standard library
and httpx only.  The public API is re-exported here; every other module is
private.
"""

from . import health
from .cache import TTLCache
from .client import EmbeddingClient, Vectors
from .health import EmbeddingHealth
from .outcome import EmbedOutcome, Evidence, evidence_of
from .packing import pack_embedding, unpack_embedding

__all__ = [
    "EmbedOutcome",
    "EmbeddingClient",
    "EmbeddingHealth",
    "Evidence",
    "TTLCache",
    "Vectors",
    "evidence_of",
    "health",
    "pack_embedding",
    "unpack_embedding",
]
