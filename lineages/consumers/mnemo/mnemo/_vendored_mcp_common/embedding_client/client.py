"""The embedding client: one call in, vectors and the outcome of that call out.

Requests go straight to an httpx transport rather than through
``httpx.AsyncClient``: the client logs every request URL at INFO level, and a
URL here may carry a password or a query token that must never reach a log.
Going to the transport also means no redirects (a redirect could carry the
Bearer key to another host), no cookies and no environment proxies; a caller
who needs a proxy passes a transport that has one.

Every call has one deadline, ``timeout`` seconds for the whole exchange.
httpx's own timeouts apply per phase and per read, so a server that drips a
byte now and then, or sends ``103 Early Hints`` forever, would hold a call
for as long as it likes; the deadline (an ``asyncio.timeout``, so the client
runs on asyncio) cuts it off, and the request's trace says which phase it
cut, so the evidence names the same timeout httpx would have.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from types import TracebackType
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx

from mnemo._vendored_mcp_common.embedding_client.boundary import (
    ResponseRejected,
    check_vectors,
    inflater_for,
    normalise,
    order_by_index,
    parse_object,
    read_body,
)
from mnemo._vendored_mcp_common.embedding_client.cache import TTLCache
from mnemo._vendored_mcp_common.embedding_client.outcome import EmbedOutcome, Evidence, Redactor, describe, unsupported_mode

__all__ = ["EmbeddingClient", "Vectors"]

Vectors = list[list[float]]

_log = logging.getLogger("embedding_client")

_MODES = ("none", "http", "api")

# Shared because they are frozen and carry nothing about a particular call.
_OFF = EmbedOutcome(attempted=False, ok=False, error=None)
_CACHE_HIT = EmbedOutcome(attempted=False, ok=True, error=None)
_SUCCESS = EmbedOutcome(attempted=True, ok=True, error=None)

# Enough for a few hundred texts at several thousand dimensions, while still
# stopping a runaway or hostile backend long before memory does.
DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_WIDTH = 16384

# How much of an error body to quote: the first line of a stack trace or a
# "model not found" is what an operator needs, not the whole page.
_ERROR_BODY_BYTES = 512


class _NoEmbeddings(Exception):
    """A 2xx answer without vectors; carries the falsy value the backend sent."""

    def __init__(self, value: list[Any] | None) -> None:
        super().__init__("returned no embeddings")
        self.value = value


class _Call:
    """How far one request got, so a deadline that cuts it short can say where.

    httpcore reports each step through the request's ``trace`` extension;
    only the latest step's name is kept, which costs one attribute write.
    """

    __slots__ = ("step", "status", "reason", "head")

    def __init__(self) -> None:
        self.step = ""
        self.status: int | None = None
        self.reason = ""
        # The start of an error body, kept as it arrives.
        self.head = bytearray()

    async def trace(self, name: str, info: dict[str, Any]) -> None:
        self.step = name

    def timeout_kind(self) -> str:
        """The httpx timeout for the phase the call was in."""
        step = self.step
        if self.status is not None or "receive_response" in step or "response_closed" in step:
            return "ReadTimeout"
        if "send_request" in step:
            return "WriteTimeout"
        if "connect" in step or "start_tls" in step:
            return "ConnectTimeout"
        # Nothing has happened yet: the call is waiting for a pooled connection.
        return "PoolTimeout"


def _status_detail(status: int, reason: str, head: bytes) -> str:
    """``500 Internal Server Error (start of the body)``."""
    quoted = head[:_ERROR_BODY_BYTES].decode("utf-8", "replace").strip()
    detail = f"{status} {reason}".strip()
    return f"{detail} ({quoted})" if quoted else detail


def _header_problem(value: str) -> str | None:
    """Why *value* cannot go out as an HTTP header value, or ``None`` if it can."""
    for char in value:
        if char == "\t" or " " <= char <= "~":
            continue
        # The offending character, never the key around it.
        return "it holds " + (repr(char)[1:-1] if char < " " or char == "\x7f" else "a non-ASCII character")
    if value != value.strip(" \t"):
        return "it starts or ends with white space"
    return None


def _seconds(limit: float | None) -> str:
    """``1 s``, ``0.25 s``: a timeout as the evidence names it (and never a reason to raise)."""
    return f"{limit:g} s" if isinstance(limit, int | float) else f"{limit!r} s"


def _rendered(url: str) -> tuple[str, ...]:
    """*url* as httpx prints it in its messages (default port dropped, case normalised)."""
    try:
        return (str(httpx.URL(url.strip())),)
    except Exception:
        # A URL httpx cannot parse is never printed by it either.
        return ()


def _basic_auth(url: str) -> str | None:
    """The Basic ``Authorization`` value for userinfo in *url*, as httpx would send."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.username is None and parts.password is None:
        return None
    pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
    return "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")


class EmbeddingClient:
    """Embeds texts through a local HTTP service or an OpenAI-compatible API.

    The positional signature matches the upstream lineage so existing call
    sites keep working; hardening options are keyword-only after it.

    mode: ``none`` (embedding off on purpose), ``http`` or ``api``.
    http_url: endpoint for ``http``: POST ``{"texts": [...]}`` → ``{"embeddings": [...]}``.
    api_key, api_url, model: the OpenAI-compatible endpoint (full URL) for ``api``.
    cache_size, cache_ttl: single-text cache; 0 disables it.
    timeout: seconds one call may take from start to finish, whatever the
        server does; httpx's per-phase timeouts get the same value, so none
        outlives the call.
    max_response_bytes: refuse bodies larger than this.
    max_width: refuse vectors wider than this.
    expected_width: refuse vectors of any other width; when ``None`` the
        first successful response sets the width for the client's lifetime.
    transport: the httpx transport to send through (tests, unix sockets,
        proxies); the client closes it on `close`.
    """

    def __init__(
        self,
        mode: str,
        http_url: str = "",
        api_key: str = "",
        api_url: str = "",
        model: str = "",
        cache_size: int = 256,
        cache_ttl: float = 300,
        timeout: float | None = 30,
        *,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        max_width: int = DEFAULT_MAX_WIDTH,
        expected_width: int | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.mode = mode
        self.http_url = http_url
        self.api_url = api_url
        self.model = model
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes
        self.max_width = max_width
        self.expected_width = expected_width
        self._api_key = api_key
        self._url = api_url if mode == "api" else http_url
        self._headers = self._build_headers()
        # The Authorization value is a secret in its own right: Basic auth is
        # only base64 of the password, and an error page may echo it back.
        auth = self._headers.get("Authorization", "")
        self._redactor = Redactor(
            mode, self._url, api_key, auth, auth.partition(" ")[2], url_forms=_rendered(self._url)
        )
        self._timeouts = httpx.Timeout(timeout).as_dict()
        # A key the transport would refuse is refused here, before anything
        # is sent: the transport's message would quote the key, escaped.
        problem = _header_problem(api_key) if mode == "api" and api_key else None
        self._refusal: Evidence | None = None
        if problem is not None:
            self._refusal = self._redactor.failure(
                "LocalProtocolError", f"the API key is not a legal header value ({problem}); nothing was sent"
            )
        self._transport = transport
        self._learned_width: int | None = None
        self.cache: TTLCache | None = TTLCache(cache_size, cache_ttl) if cache_size > 0 and cache_ttl > 0 else None

    def __repr__(self) -> str:
        # The endpoint is shown redacted and the key never: reprs end up in logs.
        return f"EmbeddingClient(mode={self.mode!r}, endpoint={self.endpoint!r})"

    @property
    def endpoint(self) -> str:
        """The endpoint as ``scheme://host:port/path``, safe to show anywhere."""
        return self._redactor.endpoint

    @property
    def width(self) -> int | None:
        """The vector width this client accepts: expected, else first learned."""
        return self.expected_width or self._learned_width

    @property
    def cache_hits(self) -> int:
        return self.cache.hits if self.cache is not None else 0

    @property
    def cache_misses(self) -> int:
        return self.cache.misses if self.cache is not None else 0

    def _build_headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.mode == "api" and self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        else:
            auth = _basic_auth(self._url)
            if auth is not None:
                headers["Authorization"] = auth
        return headers

    async def initialize(self) -> None:
        """Open the connection pool.  Calls made before this open it themselves."""
        self._open()

    async def close(self) -> None:
        """Close the connection pool (and an injected transport with it)."""
        transport, self._transport = self._transport, None
        if transport is not None:
            await transport.aclose()

    async def __aenter__(self) -> EmbeddingClient:
        await self.initialize()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def _open(self) -> httpx.AsyncBaseTransport:
        if self._transport is None:
            self._transport = httpx.AsyncHTTPTransport()
        return self._transport

    async def embed(self, texts: list[str]) -> Vectors | None:
        """Vectors for *texts*, or ``None`` for every unsuccessful case."""
        value, outcome = await self.embed_with_outcome(texts)
        return value if outcome.ok else None

    async def embed_with_outcome(self, texts: list[str]) -> tuple[Vectors | None, EmbedOutcome]:
        """Vectors for *texts* and the outcome of this call.

        Never raises for anything a backend or transport does: every failure
        becomes an outcome whose ``error`` is one redacted evidence line,
        also logged as a warning on the ``embedding_client`` logger.  A
        cancellation from outside still propagates.
        """
        if self.mode == "none":
            return None, _OFF
        if self.mode not in _MODES:
            return None, EmbedOutcome(False, False, unsupported_mode(self.mode))
        if not texts:
            # Nothing to embed is not a failure, and not worth a request.
            return [], _CACHE_HIT
        cache = self.cache if len(texts) == 1 else None
        if cache is not None:
            hit = cache.get(texts[0])
            if hit is not None:
                # A copy, so a caller editing its result cannot edit the cache.
                return [hit.copy()], _CACHE_HIT
        if not self._url:
            return None, EmbedOutcome(False, False, f"mode={self.mode} has no endpoint URL configured")
        if self._refusal is not None:
            return None, self._failed(self._refusal, attempted=False)
        call = _Call()
        deadline = asyncio.timeout(self.timeout)
        try:
            async with deadline:
                # One branch per wire format.  Lineages add their own transports
                # here (the sibling's `uds`), so the dispatch stays a flat chain
                # that a structured merge can extend branch by branch.
                if self.mode == "http":
                    vectors = await self._request({"texts": texts}, len(texts), call)
                elif self.mode == "api":
                    vectors = await self._request({"model": self.model, "input": texts}, len(texts), call)
                else:  # pragma: no cover - unsupported modes were answered on entry
                    return None, EmbedOutcome(False, False, unsupported_mode(self.mode))
        except _NoEmbeddings as empty:
            return empty.value, self._failed(self._redactor.no_embeddings())
        except TimeoutError as exc:
            if not deadline.expired():
                # A TimeoutError (socket.timeout) raised by a transport, not ours.
                return None, self._failed(self._redactor.exception(exc, call.status))
            return None, self._failed(self._deadline_passed(call))
        except httpx.TimeoutException as exc:
            # httpx's timeouts often carry no message; the limit is the detail.
            kind, detail = describe(exc)
            evidence = self._redactor.failure(kind, detail or f"no answer within {_seconds(self.timeout)}", call.status)
            return None, self._failed(evidence)
        except Exception as exc:
            # Transport errors, status errors and ResponseRejected alike;
            # CancelledError is not an Exception and still propagates.
            return None, self._failed(self._redactor.exception(exc, call.status))
        if cache is not None:
            cache.put(texts[0], vectors[0].copy())
        return vectors, _SUCCESS

    def _failed(self, evidence: Evidence, *, attempted: bool = True) -> EmbedOutcome:
        """The outcome for *evidence*, logged: both carry the same line."""
        line = evidence.line
        _log.warning("%s", line)
        return EmbedOutcome(attempted, False, line, evidence=evidence)

    def _deadline_passed(self, call: _Call) -> Evidence:
        """The evidence for a call its deadline cut short, named by where it was."""
        deadline = f"the {_seconds(self.timeout)} deadline"
        if call.status is not None and not 200 <= call.status < 300:
            # The status is the backend's answer; the unfinished body is the aside.
            detail = _status_detail(call.status, call.reason, bytes(call.head))
            return self._redactor.failure(
                "HTTPStatusError", f"{detail}; the body was still arriving at {deadline}", call.status
            )
        return self._redactor.failure(call.timeout_kind(), f"no complete answer within {deadline}", call.status)

    async def _request(self, payload: dict[str, Any], count: int, call: _Call) -> Vectors:
        """POST *payload* and return *count* validated vectors, raising on any failure."""
        request = httpx.Request(
            "POST",
            self._url,
            json=payload,
            headers=self._headers,
            extensions={"timeout": self._timeouts, "trace": call.trace},
        )
        response = await self._open().handle_async_request(request)
        call.status, call.reason = response.status_code, response.reason_phrase
        try:
            if not 200 <= response.status_code < 300:
                raise await self._status_error(request, response, call)
            body = await read_body(response, self.max_response_bytes)
        finally:
            await response.aclose()
        return self._vectors(parse_object(body), count)

    async def _status_error(
        self, request: httpx.Request, response: httpx.Response, call: _Call
    ) -> httpx.HTTPStatusError:
        """The error for a non-2xx answer, quoting the start of its body."""
        try:
            inflater = inflater_for(response)
            async for chunk in response.aiter_raw():
                room = _ERROR_BODY_BYTES - len(call.head)
                call.head += chunk[:room] if inflater is None else inflater.feed(chunk, room)
                if len(call.head) >= _ERROR_BODY_BYTES:
                    break
        except (httpx.HTTPError, ResponseRejected):
            pass  # the status alone is evidence enough
        detail = _status_detail(response.status_code, response.reason_phrase, bytes(call.head))
        return httpx.HTTPStatusError(detail, request=request, response=response)

    def _vectors(self, answer: dict[str, Any], count: int) -> Vectors:
        """The validated vectors carried by a parsed 2xx *answer*."""
        key = "data" if self.mode == "api" else "embeddings"
        if key not in answer:
            raise _NoEmbeddings(None)
        found = answer[key]
        if found is None or found == []:
            raise _NoEmbeddings(found)
        if self.mode == "api":
            found = order_by_index(found, count)
        width = self.width
        source = "expected" if self.expected_width else "learned from an earlier response"
        vectors = check_vectors(found, count, width=width, max_width=self.max_width, width_source=source)
        if self._learned_width is None:
            self._learned_width = len(vectors[0])
        if self.mode == "api":
            normalise(vectors)
        return vectors
