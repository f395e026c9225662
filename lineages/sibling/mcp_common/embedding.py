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
from urllib.parse import parse_qsl, unquote, urlsplit

import httpx

from mcp_common.boundary import (
    check_vectors,
    normalise,
    order_by_index,
    parse_object,
    read_body,
)
from mcp_common.cache import TTLCache

__all__ = ["EmbeddingClient", "Vectors"]

Vectors = list[list[float]]

_log = logging.getLogger("embedding_client")

_MODES = ("none", "http", "api", "uds")

# Ports are spelled out even when the scheme implies them: "is it listening
# on 443 or 8443?" is the first question asked of an evidence line.
_DEFAULT_PORTS = {"http": 80, "https": 443}

# Secrets shorter than this are not scrubbed one by one: replacing every "1"
# or "ab" in a message would make the evidence unreadable.  They are still
# removed wherever the raw URL itself appears.
_MIN_SECRET_LEN = 4

_MASK = "***"


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


def _safe_endpoint(raw_url: str) -> str:
    """``scheme://host:port/path`` of *raw_url*: no userinfo, query or fragment."""
    try:
        parts = urlsplit(raw_url.strip())
        host = parts.hostname or ""
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme.lower())
    except ValueError:
        # A URL too broken to split still must not leak what it carries.
        return "<unparseable url>"
    if not parts.scheme or not host:
        return "<unparseable url>"
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{port}" if port else host
    return f"{parts.scheme.lower()}://{netloc}{parts.path or '/'}"


def _secrets_of(raw_url: str, extra: tuple[str, ...]) -> tuple[str, ...]:
    """Every fragment of *raw_url* (and *extra*) that must never be shown."""
    found: list[str] = [s for s in extra if s]
    try:
        parts = urlsplit(raw_url.strip())
    except ValueError:
        return tuple(found)
    if "@" in parts.netloc:
        userinfo = parts.netloc.rpartition("@")[0]
        found.append(userinfo)
        user, _, password = userinfo.partition(":")
        found += [password, unquote(password), user, unquote(user)]
    if parts.query:
        found.append(parts.query)
        for _, value in parse_qsl(parts.query, keep_blank_values=True):
            found.append(value)
    if parts.fragment:
        found.append(parts.fragment)
    # Longest first, so a secret that contains another is masked whole.
    return tuple(
        sorted({s for s in found if len(s) >= _MIN_SECRET_LEN}, key=len, reverse=True)
    )


class Redactor:
    """Turns failures on one endpoint into evidence lines that are safe to show.

    Built once per client: the safe endpoint and the list of secrets do not
    change between calls, and evidence is built on the failure path where a
    few string replacements are cheap next to the failure itself.
    """

    __slots__ = ("mode", "endpoint", "_raw_forms", "_secrets")

    def __init__(self, mode: str, raw_url: str, *secrets: str) -> None:
        self.mode = mode
        self.endpoint = _safe_endpoint(raw_url) if raw_url else "<no url>"
        # httpx re-renders the URL (dropping a default port, normalising
        # case), so its messages may carry a form the caller never typed.
        forms = {raw_url, raw_url.strip()}
        try:
            forms.add(str(httpx.URL(raw_url.strip())))
        except Exception:  # noqa: BLE001 - an unparseable URL has no other form
            pass
        self._raw_forms = tuple(sorted((f for f in forms if f), key=len, reverse=True))
        self._secrets = _secrets_of(raw_url, secrets)

    def scrub(self, text: str) -> str:
        """*text* with every raw URL replaced by the safe form and secrets masked."""
        for form in self._raw_forms:
            text = text.replace(form, self.endpoint)
        for secret in self._secrets:
            text = text.replace(secret, _MASK)
        return text

    def failed(self, kind: str, detail: str) -> str:
        """The evidence line for a request that failed with *kind*: *detail*."""
        detail = " ".join(detail.split()) or "no detail"
        return self.scrub(f"mode={self.mode} / POST {self.endpoint} failed: {kind}: {detail}")

    def failed_with(self, exc: BaseException) -> str:
        """The evidence line for a request that raised *exc*."""
        return self.failed(type(exc).__name__, str(exc))

    def no_embeddings(self) -> str:
        """The evidence line for a 2xx answer that carried no vectors."""
        return f"mode={self.mode} / POST {self.endpoint} returned no embeddings"


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
    uds_path: the unix socket for mode ``uds``; requests keep the ``http``
        wire format and go to ``http_url`` through that socket.
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
        timeout: float = 30,
        *,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        max_width: int = DEFAULT_MAX_WIDTH,
        expected_width: int | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        uds_path: str = "",
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
        self._redactor = Redactor(mode, self._url, api_key, auth, auth.partition(" ")[2])
        self._timeouts = httpx.Timeout(timeout).as_dict()
        self._transport = transport
        self.uds_path = uds_path
        if mode == "uds" and transport is None:
            # A unix socket is only another transport under the http wire format.
            self._transport = httpx.AsyncHTTPTransport(uds=uds_path)
        self._learned_width: int | None = None
        self.cache: TTLCache | None = (
            TTLCache(cache_size, cache_ttl) if cache_size > 0 and cache_ttl > 0 else None
        )

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
        """Vectors for *texts*, or ``None`` for every unsuccessful case.

        Never raises for anything a backend does: every failure is logged as
        one redacted evidence line on the ``embedding_client`` logger.
        """
        if self.mode == "none":
            return None
        if self.mode not in _MODES:
            _log.warning("mode=%s is not a supported embedding mode", self.mode)
            return None
        if not texts:
            # Nothing to embed is not a failure, and not worth a request.
            return []
        single = len(texts) == 1 and self.cache is not None
        if single:
            hit = self.cache.get(texts[0])  # type: ignore[union-attr]
            if hit is not None:
                # A copy, so a caller editing its result cannot edit the cache.
                return [hit.copy()]
        if not self._url:
            _log.warning("mode=%s has no endpoint URL configured", self.mode)
            return None
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
                elif self.mode == "uds":
                    vectors = await self._embed_via_uds(texts, call)
                else:  # pragma: no cover - unsupported modes were answered on entry
                    return None
        except _NoEmbeddings:
            _log.warning("%s", self._redactor.no_embeddings())
            return None
        except TimeoutError as exc:
            # Ours when the deadline expired; else a socket.timeout a transport raised.
            error = self._deadline_passed(call) if deadline.expired() else self._redactor.failed_with(exc)
            _log.warning("%s", error)
            return None
        except (httpx.TimeoutException, OSError) as exc:
            # httpx's timeouts often carry no message; the limit is the detail.
            error = self._redactor.failed(type(exc).__name__, str(exc) or f"no answer within {self.timeout} s")
            _log.warning("%s", error)
            return None
        except Exception as exc:  # noqa: BLE001 - the contract is: never raise
            # Transport errors, timeouts, status errors and ResponseRejected
            # alike; CancelledError is not an Exception and still propagates.
            error = self._redactor.failed_with(exc)
            _log.warning("%s", error)
            return None
        if single:
            self.cache.put(texts[0], vectors[0].copy())  # type: ignore[union-attr]
        return vectors

    async def _embed_via_uds(self, texts: list[str], call: _Call) -> Vectors:
        """POST ``{"texts": [...]}`` to ``http_url`` through the socket at ``uds_path``.

        Same wire format and the same response checks as ``http``: a sidecar
        embedder on a unix socket answers exactly like one on a port.  An
        ``OSError`` a transport raises unwrapped (a socket file that is gone,
        a peer that hung up) is caught with httpx's timeouts: the call got no
        answer.  ``TimeoutError`` is an ``OSError`` too, and keeps its own
        clause before that one, for the deadline.
        """
        return await self._request({"texts": texts}, len(texts), call)

    def _deadline_passed(self, call: _Call) -> str:
        """The evidence line for a call its deadline cut short, named by where it was."""
        deadline = f"the {self.timeout} s deadline"
        if call.status is not None and not 200 <= call.status < 300:
            # The status is the backend's answer; the unfinished body is the aside.
            detail = _status_detail(call.status, call.reason, bytes(call.head))
            return self._redactor.failed("HTTPStatusError", f"{detail}; the body was still arriving at {deadline}")
        return self._redactor.failed(call.timeout_kind(), f"no complete answer within {deadline}")

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
            async for chunk in response.aiter_raw():
                call.head += chunk[: _ERROR_BODY_BYTES - len(call.head)]
                if len(call.head) >= _ERROR_BODY_BYTES:
                    break
        except httpx.HTTPError:
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
        vectors = check_vectors(
            found, count, width=width, max_width=self.max_width, width_source=source
        )
        if self._learned_width is None:
            self._learned_width = len(vectors[0])
        if self.mode == "api":
            normalise(vectors)
        return vectors
