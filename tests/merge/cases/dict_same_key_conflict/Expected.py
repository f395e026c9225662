"""Settings for the embedding client, read once at start-up."""

from __future__ import annotations

import logging
import os
from typing import Any, Optional

from httpx import AsyncClient, HTTPError

from .client import EmbeddingClient

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_HEADERS",
    "EmbeddingSettings",
    "load_settings",
    "RETRYABLE_STATUS",
]

RETRYABLE_STATUS = {408, 429, 500, 502, 503, 504}

DEFAULT_HEADERS = {
    "Accept": "application/json",
<<<<<<< ours
    "User-Agent": "search-embed/1.4-uds",
||||||| base
    "User-Agent": "search-embed/1.4",
=======
    "User-Agent": "search-embed/2.0",
>>>>>>> theirs
}


class EmbeddingSettings:
    SUPPORTED_MODES = frozenset({"http", "api", "none"})

    def __init__(self, mode: str, url: str, extra: Optional[dict[str, Any]] = None) -> None:
        if mode not in self.SUPPORTED_MODES:
            raise ValueError(f"unsupported embedding mode {mode!r}")
        self.mode = mode
        self.url = url
        self.extra = extra or {}


def load_settings() -> EmbeddingSettings:
    mode = os.environ.get("EMBED_MODE", "none")
    log.info("embedding mode from environment: %s", mode)
    return EmbeddingSettings(mode, os.environ.get("EMBED_URL", ""))


def make_http_client(settings: EmbeddingSettings) -> AsyncClient:
    return AsyncClient(base_url=settings.url, headers=DEFAULT_HEADERS)
