"""Embedding client of the mcp_common package (upstream lineage).

Services vendor this module; see lineages.toml.
"""

from __future__ import annotations

import asyncio
import logging

import httpx

from .outcome import EmbedOutcome

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 10.0


class EmbeddingClient:
    """Turns texts into vectors through one of several backends."""

    def __init__(self, mode: str, url: str, api_key: str | None = None) -> None:
        self.mode = mode
        self.url = url
        self.api_key = api_key
        self._http = httpx.AsyncClient(timeout=DEFAULT_TIMEOUT)
        self._lock = asyncio.Lock()

    async def embed(self, texts: list[str]) -> list[list[float]] | None:
        """Embed texts, or return None when embedding is off or failed."""
        value, _outcome = await self.embed_with_outcome(texts)
        return value

    async def embed_with_outcome(
        self, texts: list[str]
    ) -> tuple[list[list[float]] | None, EmbedOutcome]:
        """Embed texts and say what happened; the outcome is never stored on the client."""
        if self.mode == "none":
            return None, EmbedOutcome(attempted=False, ok=False)
        try:
            if self.mode == "http":
                result = await self._embed_http(texts)
            elif self.mode == "api":
                result = await self._embed_api(texts)
            else:
                return None, EmbedOutcome(attempted=False, ok=False)
            return result, EmbedOutcome(attempted=True, ok=True)
        except (httpx.HTTPError, ValueError) as exc:
            evidence = f"{type(exc).__name__}: {exc}"[:200]
            log.warning("embedding failed: %s", evidence)
            return None, EmbedOutcome(attempted=True, ok=False, error=evidence)

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
