"""Embedding client used by the search service."""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field

import httpx
from cachetools import TTLCache
import tenacity

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 10.0


class EmbeddingClient:
    """Turns texts into vectors through one of several backends."""

    def __init__(self, mode: str, url: str, api_key: str | None = None) -> None:
        self.mode = mode
        self.url = url
        self.api_key = api_key
        self._http = httpx.AsyncClient(timeout=DEFAULT_TIMEOUT)
        self._cache: dict[str, list[float]] = {}

    async def embed(self, texts: list[str]) -> list[list[float]] | None:
        """Embed texts, or return None when embedding is off or failed."""
        if self.mode == "none":
            return None
        try:
            if self.mode == "http":
                result = await self._embed_http(texts)
            elif self.mode == "api":
                result = await self._embed_api(texts)
            else:
                return None
            return result
        except (httpx.HTTPError, ValueError) as exc:
            log.warning("embedding failed: %s", exc)
            return None

    async def _embed_http(self, texts: list[str]) -> list[list[float]]:
        response = await self._http.post(f"{self.url}/embed", json={"texts": texts})
        response.raise_for_status()
        return response.json()["vectors"]

    async def _embed_api(self, texts: list[str]) -> list[list[float]]:
        headers = {"Authorization": f"Bearer {self.api_key}"}
        response = await self._http.post(self.url, json={"input": texts}, headers=headers)
        response.raise_for_status()
        return [item["embedding"] for item in response.json()["data"]]

    async def close(self) -> None:
        await self._http.aclose()
