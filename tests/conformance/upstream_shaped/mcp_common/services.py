"""How a server builds its embedding client from its environment."""

from __future__ import annotations

import os

from .embedding_client import EmbeddingClient


def client_from_env() -> EmbeddingClient:
    """The client the environment configures; embedding is off unless EMBEDDING_MODE says otherwise."""
    mode = os.environ.get("EMBEDDING_MODE", "none")
    return EmbeddingClient(
        mode,
        http_url=os.environ.get("EMBEDDING_URL", ""),
        api_key=os.environ.get("EMBEDDING_API_KEY", ""),
        api_url=os.environ.get("EMBEDDING_API_URL", ""),
        model=os.environ.get("EMBEDDING_MODEL", ""),
    )
