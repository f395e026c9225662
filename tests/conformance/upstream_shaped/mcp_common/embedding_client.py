"""The embedding client the MCP servers share (Route A: ``embed_with_outcome``).

A test fixture in the shape of the real upstream copy, written the way its
maintainers write, not the way plait's canonical client is: one module of a
package that exports nothing, opened with ``initialize()`` and closed with
``close()``, its own keyword names and exception class, the exception
logged as it is, numpy imported lazily for api mode.  It carries the five
violations of the contract the upstream copy was found with; the
conformance tests fix them one function at a time (``upstream_shaped.py``).
"""

from __future__ import annotations

import json
import logging
import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

logger = logging.getLogger(__name__)

_MODES = ("none", "http", "api")
_F32_MAX = 3.4028234663852886e38
# The encodings whose decoded size can be counted while they are decoded.
_KNOWN_ENCODINGS = frozenset({"", "identity", "gzip", "deflate"})


class EmbeddingResponseError(ValueError):
    """The backend answered, but not with embeddings this client accepts."""


class _NoEmbeddings(Exception):
    """A 2xx answer without embeddings; *value* is what it carried instead."""

    def __init__(self, value: Any) -> None:
        super().__init__("no embeddings")
        self.value = value


@dataclass(frozen=True)
class EmbedOutcome:
    """What happened on one call: whether a request was made, whether it worked, and why not."""

    attempted: bool
    ok: bool
    error: str | None = None


class EmbeddingClient:
    """Embeds texts through a local HTTP service (``http``) or an OpenAI-compatible API (``api``)."""

    def __init__(
        self,
        mode: str,
        http_url: str = "",
        api_key: str = "",
        api_url: str = "",
        model: str = "",
        cache_size: int = 256,
        timeout: float = 30.0,
        *,
        max_response_bytes: int = 8 * 1024 * 1024,
        max_dimension: int = 8192,
        max_batch_size: int = 64,
        expected_dimension: int | None = None,
    ) -> None:
        self.mode = mode
        self.api_key = api_key
        self.model = model
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes
        self.max_dimension = max_dimension
        self.max_batch_size = max_batch_size
        self._url = api_url if mode == "api" else http_url
        self._dimension = expected_dimension
        self._cache_size = cache_size
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        self._client: httpx.AsyncClient | None = None

    async def initialize(self) -> None:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout)

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    @property
    def endpoint(self) -> str:
        """The endpoint without credentials or query: ``scheme://host:port/path``."""
        parts = urlsplit(self._url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return f"{parts.scheme}://{parts.hostname}:{port}{parts.path or '/'}"

    async def embed(self, texts: list[str]) -> list[list[float]] | None:
        value, outcome = await self.embed_with_outcome(texts)
        return value if outcome.ok else None

    async def embed_with_outcome(self, texts: list[str]) -> tuple[Any, EmbedOutcome]:
        if self.mode == "none":
            return None, EmbedOutcome(False, False)
        if self.mode not in _MODES:
            return None, EmbedOutcome(False, False, f"mode={self.mode} is not a supported embedding mode")
        if not texts:
            return [], EmbedOutcome(False, False)
        if len(texts) == 1 and texts[0] in self._cache:
            self._cache.move_to_end(texts[0])
            return [list(self._cache[texts[0]])], EmbedOutcome(False, True)
        if not self._url:
            return None, EmbedOutcome(False, False, f"mode={self.mode} has no endpoint URL configured")
        if self.mode == "api" and self.api_key and not _header_safe(self.api_key):
            logger.warning("Embedding request failed: %s", "the API key holds white space")
            error = self._line("failed: ValueError: the API key holds white space; nothing was sent")
            return None, EmbedOutcome(False, False, error)
        try:
            vectors = await self._embed_all(texts)
        except _NoEmbeddings as empty:
            logger.warning("Embedding request failed: %s", empty)
            return empty.value, EmbedOutcome(True, False, self._line("returned no embeddings"))
        except (httpx.HTTPError, ValueError) as exc:
            return None, self._failure(exc)
        if len(texts) == 1:
            self._remember(texts[0], vectors[0])
        return vectors, EmbedOutcome(True, True)

    def _line(self, what: str) -> str:
        return f"mode={self.mode} / POST {self.endpoint} {what}"

    def _failure(self, exc: Exception) -> EmbedOutcome:
        detail = _printable(self._redact(str(exc)))
        logger.warning("Embedding request failed: %s", exc)
        return EmbedOutcome(True, False, self._line(f"failed: {type(exc).__name__}: {detail}"))

    def _redact(self, text: str) -> str:
        """The API key never shows."""
        return text.replace(self.api_key, "***") if self.api_key else text

    def _remember(self, text: str, vector: list[float]) -> None:
        if self._cache_size <= 0:
            return
        self._cache[text] = list(vector)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    async def _embed_all(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.max_batch_size):
            vectors += await self._embed_batch(texts[start : start + self.max_batch_size])
        return vectors

    async def _embed_batch(self, batch: list[str]) -> list[list[float]]:
        if self._client is None:
            await self.initialize()
        assert self._client is not None
        if self.mode == "api":
            payload: dict[str, Any] = {"model": self.model, "input": batch}
            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        else:
            payload, headers = {"texts": batch}, {}
        body = await self._post(self._client, payload, headers)
        return self._parse(body, len(batch))

    async def _post(self, client: httpx.AsyncClient, payload: dict[str, Any], headers: dict[str, str]) -> bytes:
        async with client.stream("POST", self._url, json=payload, headers=headers) as response:
            if not response.is_success:
                await response.aread()
                response.raise_for_status()
            encoding = response.headers.get("content-encoding", "").strip().lower()
            if encoding not in _KNOWN_ENCODINGS:
                raise EmbeddingResponseError(f"refusing a body encoded as {encoding}: its size cannot be bounded")
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > self.max_response_bytes:
                    raise EmbeddingResponseError(f"the response exceeds max_response_bytes={self.max_response_bytes}")
            return bytes(body)

    def _parse(self, body: bytes, count: int) -> list[list[float]]:
        answer = json.loads(body)
        if not isinstance(answer, dict):
            raise EmbeddingResponseError(f"the response is a JSON {type(answer).__name__}, not an object")
        if self.mode == "api":
            data = answer.get("data")
            if not data:
                raise _NoEmbeddings(data)
            return _normalise(self._checked(_by_index(data, count), count))
        rows = answer.get("embeddings")
        if not rows:
            raise _NoEmbeddings(rows)
        return self._checked(rows, count)

    def _checked(self, rows: Any, count: int) -> list[list[float]]:
        if not isinstance(rows, list) or len(rows) != count:
            raise EmbeddingResponseError(f"expected {count} vectors")
        if not all(isinstance(row, list) and row for row in rows):
            raise EmbeddingResponseError("a vector is empty or not a list")
        widths = {len(row) for row in rows}
        width = widths.pop()
        if widths:
            raise EmbeddingResponseError("the vectors differ in width")
        if width > self.max_dimension:
            raise EmbeddingResponseError(f"vector width {width} exceeds max_dimension={self.max_dimension}")
        if self._dimension is not None and width != self._dimension:
            raise EmbeddingResponseError(f"vector width {width}, the dimension is {self._dimension}")
        vectors = [[_as_float(value) for value in row] for row in rows]
        self._dimension = width
        return vectors


def _by_index(data: Any, count: int) -> list[Any]:
    """The api items' embeddings, each placed where its ``index`` says."""
    if not isinstance(data, list) or len(data) != count:
        raise EmbeddingResponseError(f"expected {count} items")
    slots: list[Any] = [None] * count
    for item in data:
        index = item.get("index") if isinstance(item, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count or slots[index] is not None:
            raise EmbeddingResponseError(f"an item's index {index!r} is out of range or repeated")
        slots[index] = item.get("embedding")
    return slots


def _header_safe(value: str) -> bool:
    return value == value.strip() and value.isprintable()


def _as_float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EmbeddingResponseError(f"a vector holds a {type(value).__name__}, not a number")
    number = float(value)
    if not math.isfinite(number) or abs(number) > _F32_MAX:
        raise EmbeddingResponseError("a vector holds a number beyond float32")
    return number


def _normalise(vectors: list[list[float]]) -> list[list[float]]:
    """Unit-length vectors, as the api backends' similarity expects."""
    import numpy as np

    array = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (array / norms).tolist()


def _printable(text: str) -> str:
    return text
