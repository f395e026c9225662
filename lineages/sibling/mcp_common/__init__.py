"""The canonical embedding client.

This package is vendored into services, so it depends on the standard library
and httpx only.  The public API is re-exported here; every other module is
private.
"""

import os
from collections.abc import Mapping

import mcp_common.embedding
from mcp_common.cache import TTLCache
from mcp_common.embedding import EmbeddingClient, Vectors
from mcp_common.packing import pack_embedding, unpack_embedding

__all__ = [
    "EmbeddingClient",
    "TTLCache",
    "Vectors",
    "client_from_env",
    "pack_embedding",
    "unpack_embedding",
]


def client_from_env(environ: Mapping[str, str] = os.environ) -> mcp_common.embedding.EmbeddingClient:
    """The client an mcp_common server builds from its ``EMBEDDING_*`` settings.

    The mcp_common servers are configured through the environment; reading
    the variables in one place keeps their names the same on every server.
    """
    return mcp_common.embedding.EmbeddingClient(
        environ.get("EMBEDDING_MODE", "none"),
        http_url=environ.get("EMBEDDING_URL", ""),
        api_key=environ.get("EMBEDDING_API_KEY", ""),
        api_url=environ.get("EMBEDDING_API_URL", ""),
        model=environ.get("EMBEDDING_MODEL", ""),
        timeout=float(environ.get("EMBEDDING_TIMEOUT", "30")),
    )
