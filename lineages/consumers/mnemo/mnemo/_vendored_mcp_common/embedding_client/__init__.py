"""The canonical embedding client.

This package is vendored into services, so it depends on the standard library
and httpx only.  The public API is re-exported here; every other module is
private.
"""

from . import health
from mnemo._vendored_mcp_common.embedding_client.cache import TTLCache
from mnemo._vendored_mcp_common.embedding_client.client import EmbeddingClient, Vectors
from mnemo._vendored_mcp_common.embedding_client.health import EmbeddingHealth
from mnemo._vendored_mcp_common.embedding_client.outcome import EmbedOutcome, Evidence, evidence_of
from mnemo._vendored_mcp_common.embedding_client.packing import pack_embedding, unpack_embedding

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
