"""A real embedding backend that misbehaves on request.

Mocks prove what a client does with the responses someone imagined; this
server speaks real HTTP over a real socket (TCP on 127.0.0.1 with an
ephemeral port, or a unix socket), so timeouts, refused connections, lying
Content-Length headers, dripping bytes, resets and half-read bodies happen the
way they do in production.  Standard library only: it must run wherever the
tests run.

Behaviours are chosen per request, so one server can serve many at once:

* by path: ``server.url("nan")`` → ``http://127.0.0.1:PORT/nan``;
* by text: POST to ``server.url("by-text")`` and start the first text with
  ``"<behaviour>|"`` (e.g. ``"status-500|hello"``);
* ``/embed`` (and ``/``) use ``server.default_behaviour``, a plain switch.

Vectors are derived from a hash of each text (`vector_for`), so tests can
assert the exact values a client returns.  The conformance scenarios name
the behaviours below; `BEHAVIOURS` and `API_BEHAVIOURS` map each name to a
one-line description, and a test keeps this list and those maps in step.

Answers (http mode: POST ``{"texts": [...]}``):
    ``ok``                  the vectors of ``vector_for(text)``
    ``ok-gzip``             the same body, gzip-encoded (sent unasked)
    ``ok-deflate``          the same body, deflate-encoded (sent unasked)

Failures before any body:
    *refused*               not a behaviour: `closed_port` gives a URL that refuses
    ``slow``                the timeout case: the right answer after ``slow_seconds``
    ``status-500``          HTTP 500 with a short text body
    ``status-503``          HTTP 503 with ``Retry-After`` ("model loading")
    ``redirect``            HTTP 307 to ``redirect_url`` (by default the same
                            server under another host name, ``localhost``)
    ``echo-500``            HTTP 500 whose body echoes the request target and
                            the Authorization header
    ``echo-credentials``    HTTP 401 echoing the request line, the query values
                            (raw, decoded and percent-encoded in both cases) and
                            the Authorization header, in the body *and* the reason
                            phrase
    ``control-chars``       HTTP 500 whose reason phrase and body carry ANSI
                            escapes, NUL, BEL and bidi overrides (U+202E, U+2066)

Time (each keeps going for ``drip_seconds`` at most, a step every ``drip_interval``):
    ``drip-body``           a 200 whose chunked body arrives a byte at a time
    ``drip-headers``        the status line and headers a byte at a time
    ``drip-error-body``     a 500 whose chunked body arrives a byte at a time
    ``endless-1xx``         ``103 Early Hints``, again and again, never a final answer
    ``reset-mid-body``      half of an honest Content-Length, then a TCP reset
                            (a plain close over a unix socket)

Bodies the client must refuse:
    ``malformed``           a truncated JSON body
    ``not-object``          a JSON array instead of an object
    ``empty``               ``{"embeddings": []}``
    ``missing``             a JSON object without an embeddings key
    ``wrong-count``         one vector fewer than texts
    ``nan``                 a NaN token inside a vector
    ``infinity``            an Infinity token inside a vector
    ``bool``                a JSON true inside a vector
    ``string``              a string inside a vector
    ``huge-int``            an integer beyond float64 inside a vector
    ``f32-overflow``        an integer beyond float32 (within float64) inside a vector
    ``empty-vector``        vectors of width 0
    ``wide``                vectors 4 wider than ``width`` (a width change)
    ``ragged``              the second vector one element shorter than the first
    ``oversized``           a valid body over ``oversize_bytes``, honest Content-Length
    ``oversized-chunked``   the same body, chunked, declaring no length
    ``lying-length``        Content-Length 64 followed by far more bytes
    ``gzip-bomb``           a valid gzip body of a few kB inflating to ``bomb_bytes``
    ``deflate-bomb``        the same as deflate
    ``unknown-encoding``    an ok body labelled with a Content-Encoding nobody knows

api mode (OpenAI-compatible: POST ``{"model", "input"}``; an ``api_key``, when
set, is required as a Bearer token and a wrong one gets 401):
    ``api-ok``                  items in order; vectors are ``api_vector_for(text)``
    ``api-shuffled``            the items out of order (legal: index places each)
    ``api-duplicate-index``     every item claiming index 0
    ``api-out-of-range-index``  the last item claiming index n
    ``api-empty``               ``{"data": []}``
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import socketserver
import struct
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import chain, repeat
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

__all__ = [
    "API_BEHAVIOURS",
    "BEHAVIOURS",
    "DEFAULT_WIDTH",
    "EmbeddingServer",
    "RecordedRequest",
    "api_vector_for",
    "closed_port",
    "vector_for",
]

DEFAULT_WIDTH = 8

_ALIASES = {"v1/embeddings": "api-ok", "embeddings": "api-ok"}


def vector_for(text: str, width: int = DEFAULT_WIDTH) -> list[float]:
    """The vector the server returns for *text*: values k/128, exact in float32."""
    values: list[float] = []
    block = 0
    while len(values) < width:
        digest = hashlib.sha256(f"{block}:{text}".encode()).digest()
        values.extend((byte - 128) / 128 for byte in digest)
        block += 1
    return values[:width]


def api_vector_for(text: str, width: int = DEFAULT_WIDTH) -> list[float]:
    """The raw (not unit-length) vector the api behaviours return for *text*."""
    return [3 * value for value in vector_for(text, width)]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it, for asserting what a client sent."""

    path: str
    query: str
    headers: dict[str, str]
    body: object


@contextmanager
def closed_port() -> Iterator[str]:
    """A URL on 127.0.0.1 where nothing listens: connecting is refused.

    The port stays bound (but not listening) while the block runs, so no
    other process can take it and turn "refused" into something else.
    """
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        holder.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{holder.getsockname()[1]}/embed"
    finally:
        holder.close()


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 keeps connections alive, as real backends (and pools) do.
    protocol_version = "HTTP/1.1"
    server: _ServerWithOwner

    def setup(self) -> None:
        super().setup()
        if self.connection.family in (socket.AF_INET, socket.AF_INET6):
            # Headers and body go out in two writes; with Nagle on, the body
            # waits for the client's delayed ACK (~40 ms) on every answer.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        # Quiet: the suite's output is for the client's failures, not ours.
        pass

    def do_GET(self) -> None:
        self._send(200, b'{"status": "ok"}')

    def do_POST(self) -> None:
        owner = self.server.owner
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        owner._record(RecordedRequest(parts.path, parts.query, {k.lower(): v for k, v in self.headers.items()}, body))
        texts = _texts_of(body)
        behaviour = owner.behaviour_for(parts.path, texts)
        if behaviour in API_BEHAVIOURS:
            if owner.api_key and self.headers.get("Authorization") != f"Bearer {owner.api_key}":
                self._send(401, b'{"error": {"message": "invalid api key"}}')
                return
            payload = _api_answer(behaviour, texts, owner.width)
            self._send(200, json.dumps(payload).encode())
            return
        try:
            _HTTP.get(behaviour, ("", _unknown))[1](self, texts, owner)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (timeout, budget): exactly what was tested.
            self.close_connection = True

    def _send(
        self,
        status: int,
        body: bytes,
        content_type: str = "application/json",
        *,
        headers: dict[str, str] | None = None,
        reason: str | None = None,
    ) -> None:
        try:
            self.send_response(status, reason)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


def _texts_of(body: object) -> list[str]:
    if not isinstance(body, dict):
        return []
    texts = body.get("texts", body.get("input", []))
    if isinstance(texts, str):
        texts = [texts]
    return [str(t) for t in texts] if isinstance(texts, list) else []


Answer = Callable[["_Handler", list[str], "EmbeddingServer"], None]


def _ok_payload(texts: list[str], width: int) -> dict[str, object]:
    return {"embeddings": [vector_for(t, width) for t in texts]}


def _ok_body(texts: list[str], width: int) -> bytes:
    return json.dumps(_ok_payload(texts, width)).encode()


def _with_bad_token(texts: list[str], width: int, token: str) -> bytes:
    """An ok body whose first vector's first element is replaced by *token*."""
    rows = [vector_for(t, width) for t in texts]
    encoded = [json.dumps(row) for row in rows]
    if encoded:
        encoded[0] = "[" + token + encoded[0][encoded[0].index(",") :]
    return ('{"embeddings": [' + ", ".join(encoded) + "]}").encode()


def _oversized_body(texts: list[str], owner: EmbeddingServer) -> bytes:
    # Valid JSON with usable vectors: only the byte budget can refuse it.
    payload = _ok_payload(texts, owner.width)
    payload["padding"] = "x" * owner.oversize_bytes
    return json.dumps(payload).encode()


# zlib window bits for the two encodings the server can send.
_WBITS = {"gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}
_BOMBS: dict[tuple[str, int], tuple[bytes, zlib._Compress]] = {}
_BOMBS_LOCK = threading.Lock()


def _bomb(encoding: str, size: int, texts: list[str], width: int) -> bytes:
    """A valid JSON body, *encoding*-compressed, whose padding inflates to *size* bytes.

    The padding is compressed once per size and the compressor's state kept,
    so each request only compresses its own vectors after it.
    """
    with _BOMBS_LOCK:
        if (encoding, size) not in _BOMBS:
            packer = zlib.compressobj(9, zlib.DEFLATED, _WBITS[encoding])
            parts = [packer.compress(b'{"padding": "')]
            block = b"0" * (1 << 20)
            for _ in range(size // len(block)):
                parts.append(packer.compress(block))
            _BOMBS[encoding, size] = (b"".join(parts), packer)
        head, packer = _BOMBS[encoding, size]
        packer = packer.copy()
    tail = b'", "embeddings": ' + json.dumps(_ok_payload(texts, width)["embeddings"]).encode() + b"}"
    return head + packer.compress(tail) + packer.flush()


def _encoded(encoding: str) -> Answer:
    def answer(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
        packer = zlib.compressobj(6, zlib.DEFLATED, _WBITS[encoding])
        body = packer.compress(_ok_body(texts, owner.width)) + packer.flush()
        h._send(200, body, headers={"Content-Encoding": encoding})

    return answer


def _bombing(encoding: str) -> Answer:
    def answer(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
        h._send(200, _bomb(encoding, owner.bomb_bytes, texts, owner.width), headers={"Content-Encoding": encoding})

    return answer


def _answer_slow(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
    time.sleep(owner.slow_seconds)
    h._send(200, _ok_body(texts, owner.width))


def _answer_chunked(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
    body = _oversized_body(texts, owner)
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Transfer-Encoding", "chunked")
    h.end_headers()
    for start in range(0, len(body), 16384):
        chunk = body[start : start + 16384]
        h.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
    h.wfile.write(b"0\r\n\r\n")


def _answer_lying(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
    body = _oversized_body(texts, owner)
    h.close_connection = True
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", "64")
    h.send_header("Connection", "close")
    h.end_headers()
    h.wfile.write(body)


def _drip(h: _Handler, owner: EmbeddingServer, pieces: Iterable[bytes]) -> None:
    """Write *pieces* one per ``drip_interval`` until they or ``drip_seconds`` run out.

    Every write is small and each resets a per-read timeout, which is the
    point: only a deadline on the whole call ends this early.
    """
    h.close_connection = True
    stop = time.monotonic() + owner.drip_seconds
    for piece in pieces:
        if time.monotonic() > stop:
            return
        h.wfile.write(piece)
        time.sleep(owner.drip_interval)


def _chunks_of(text: bytes, then: bytes) -> Iterator[bytes]:
    """*text*, then *then* forever, one byte per HTTP chunk."""
    for byte in chain(text, repeat(then[0])):
        yield b"1\r\n" + bytes([byte]) + b"\r\n"


def _answer_drip_body(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
    h.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
    # JSON allows any amount of white space, so the body stays valid as it grows.
    _drip(h, owner, _chunks_of(b'{"embeddings": [[', b" "))


def _answer_drip_error_body(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
    h.wfile.write(
        b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    _drip(h, owner, _chunks_of(b"backend exploded", b"."))


def _answer_drip_headers(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Drip: "
    _drip(h, owner, (bytes([byte]) for byte in chain(head, repeat(ord("a")))))


def _answer_endless_1xx(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
    _drip(h, owner, repeat(b"HTTP/1.1 103 Early Hints\r\nLink: </hint.css>; rel=preload\r\n\r\n"))


def _answer_reset(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
    body = _ok_body(texts, owner.width)
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body[: len(body) // 2])
    h.close_connection = True
    if h.connection.family in (socket.AF_INET, socket.AF_INET6):
        # Linger on, timeout 0: close() sends RST instead of FIN.
        h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    h.connection.close()


def _answer_redirect(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
    h._send(307, b"moved", "text/plain", headers={"Location": owner.redirect_target})


def _answer_echo_credentials(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
    query = urlsplit(h.path).query
    raw = [pair.partition("=")[2] for pair in query.split("&") if pair]
    decoded = [value for _, value in parse_qsl(query, keep_blank_values=True)]
    authorization = h.headers.get("Authorization", "")
    body = "\n".join(
        [
            f"request line: {h.requestline}",
            f"query values, raw: {' '.join(raw)}",
            f"query values, decoded: {' '.join(decoded)}",
            f"query values, percent-encoded: {' '.join(quote(v, safe='') for v in decoded)}",
            f"query values, percent-encoded in lower case: {' '.join(_lower_percent(v) for v in decoded)}",
            f"authorization: {authorization}",
        ]
    )
    # A reason phrase is one latin-1 line; the path and header are ASCII already.
    reason = f"Denied {h.path} authorization={authorization}".replace("\r", " ").replace("\n", " ")
    h._send(401, body.encode(), "text/plain", reason=reason)


def _lower_percent(value: str) -> str:
    return "".join(f"%{byte:02x}" for byte in value.encode())


def _answer_control_chars(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
    body = "model \u202eenilno\u202c not loaded \x00\x07 \x1b]0;pwned\x07 \u2066hidden\u2069 \x1b[2J"
    h._send(500, body.encode(), "text/plain", reason="Internal \x1b[31mError\x1b[0m\x08\x08")


def _answer_unknown_encoding(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
    h._send(200, _ok_body(texts, owner.width), headers={"Content-Encoding": "x-mystery"})


def _unknown(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
    h._send(404, b'{"error": "no such behaviour"}')


def _json(make: Callable[[list[str], int], object]) -> Answer:
    def answer(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
        h._send(200, json.dumps(make(texts, owner.width)).encode())

    return answer


def _raw(make: Callable[[list[str], int], bytes]) -> Answer:
    def answer(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
        h._send(200, make(texts, owner.width))

    return answer


# Every http-mode behaviour: its description and how it answers, in one place.
_HTTP: dict[str, tuple[str, Answer]] = {
    "ok": ("the vectors of vector_for(text)", _json(_ok_payload)),
    "ok-gzip": ("the ok body, gzip-encoded", _encoded("gzip")),
    "ok-deflate": ("the ok body, deflate-encoded", _encoded("deflate")),
    "slow": ("the right answer, after slow_seconds (longer than a test timeout)", _answer_slow),
    "status-500": (
        "HTTP 500 with a short text body",
        lambda h, texts, owner: h._send(500, b"backend exploded: model not loaded", "text/plain"),
    ),
    "status-503": (
        "HTTP 503 with Retry-After",
        lambda h, texts, owner: h._send(503, b"model loading", "text/plain", headers={"Retry-After": "1"}),
    ),
    "redirect": ("HTTP 307 to redirect_url, another host", _answer_redirect),
    "echo-500": (
        "HTTP 500 whose body echoes the request target and Authorization header",
        lambda h, texts, owner: h._send(
            500, f"rejected {h.path} authorization={h.headers.get('Authorization')}".encode(), "text/plain"
        ),
    ),
    "echo-credentials": (
        "HTTP 401 echoing request line, query values (raw, decoded, percent-encoded) and Authorization"
        " in the body and the reason phrase",
        _answer_echo_credentials,
    ),
    "control-chars": (
        "HTTP 500 with ANSI escapes, NUL, BEL and bidi overrides in reason and body",
        _answer_control_chars,
    ),
    "drip-body": ("a 200 whose chunked body arrives a byte every drip_interval", _answer_drip_body),
    "drip-headers": ("the status line and headers arrive a byte every drip_interval", _answer_drip_headers),
    "drip-error-body": ("a 500 whose chunked body arrives a byte every drip_interval", _answer_drip_error_body),
    "endless-1xx": ("103 Early Hints every drip_interval, never a final answer", _answer_endless_1xx),
    "reset-mid-body": ("half of an honest Content-Length, then a TCP reset", _answer_reset),
    "malformed": ("a truncated JSON body", _raw(lambda texts, width: b'{"embeddings": [[0.25, 0.5')),
    "not-object": ("a JSON array instead of an object", _raw(lambda texts, width: b"[[0.25, 0.5]]")),
    "empty": ('{"embeddings": []}', _json(lambda texts, width: {"embeddings": []})),
    "missing": (
        "a JSON object without an embeddings key",
        _json(lambda texts, width: {"vectors": [vector_for(t, width) for t in texts]}),
    ),
    "wrong-count": (
        "one vector fewer than texts",
        _json(lambda texts, width: {"embeddings": [vector_for(t, width) for t in texts][:-1]}),
    ),
    "nan": ("a NaN token inside a vector", _raw(lambda texts, width: _with_bad_token(texts, width, "NaN"))),
    "infinity": (
        "an Infinity token inside a vector",
        _raw(lambda texts, width: _with_bad_token(texts, width, "Infinity")),
    ),
    "bool": ("a JSON true inside a vector", _raw(lambda texts, width: _with_bad_token(texts, width, "true"))),
    "string": ("a string inside a vector", _raw(lambda texts, width: _with_bad_token(texts, width, '"0.5"'))),
    "huge-int": (
        "an integer beyond float64 inside a vector",
        _raw(lambda texts, width: _with_bad_token(texts, width, "1" + "0" * 400)),
    ),
    "f32-overflow": (
        "an integer beyond float32 (but within float64) inside a vector",
        _raw(lambda texts, width: _with_bad_token(texts, width, "1" + "0" * 39)),
    ),
    "empty-vector": ("vectors of width 0", _json(lambda texts, width: {"embeddings": [[] for _ in texts]})),
    "wide": ("vectors wider by 4 than the server's width (a width change)", _json(lambda t, w: _ok_payload(t, w + 4))),
    "ragged": (
        "the second vector one element shorter than the first",
        _json(lambda texts, width: {"embeddings": [vector_for(t, width - (i == 1)) for i, t in enumerate(texts)]}),
    ),
    "oversized": (
        "a valid body larger than oversize_bytes, with an honest Content-Length",
        lambda h, texts, owner: h._send(200, _oversized_body(texts, owner)),
    ),
    "oversized-chunked": ("the oversized body, chunked, declaring no length", _answer_chunked),
    "lying-length": ("Content-Length 64 followed by far more bytes", _answer_lying),
    "gzip-bomb": ("a valid gzip body of a few kB that inflates to bomb_bytes", _bombing("gzip")),
    "deflate-bomb": ("a valid deflate body of a few kB that inflates to bomb_bytes", _bombing("deflate")),
    "unknown-encoding": (
        "an ok body labelled with a Content-Encoding nobody knows",
        _answer_unknown_encoding,
    ),
}

#: http-mode behaviours (POST ``{"texts": [...]}``): name → what the server answers.
BEHAVIOURS: dict[str, str] = {name: description for name, (description, _) in _HTTP.items()}

#: api-mode (OpenAI-compatible) behaviours (POST ``{"model", "input"}``): name → what the server answers.
API_BEHAVIOURS: dict[str, str] = {
    "api-ok": "data items in order; vectors are 3 * vector_for(text), not unit length",
    "api-shuffled": "the same items in reverse order (legal: index says where each goes)",
    "api-duplicate-index": "every item claiming index 0",
    "api-out-of-range-index": "the last item claiming index n",
    "api-empty": '{"data": []}',
}


def _api_answer(behaviour: str, texts: list[str], width: int) -> dict[str, object]:
    items = [{"object": "embedding", "index": i, "embedding": api_vector_for(t, width)} for i, t in enumerate(texts)]
    if behaviour == "api-shuffled":
        items.reverse()
    elif behaviour == "api-duplicate-index":
        for item in items:
            item["index"] = 0
    elif behaviour == "api-out-of-range-index" and items:
        items[-1]["index"] = len(items)
    elif behaviour == "api-empty":
        items = []
    return {"object": "list", "data": items, "model": "test-model", "usage": {"prompt_tokens": 0}}


class _ServerWithOwner(socketserver.BaseServer):
    owner: EmbeddingServer


class _QuietErrors:
    """Drop the traceback socketserver prints when a client hangs up on us.

    Clients that time out or refuse an oversized body close the connection
    mid-answer; that is the behaviour under test, not a server fault.
    """

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)  # type: ignore[misc]


class _TCPServer(_QuietErrors, ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    # Hundreds of simultaneous connects must not overflow the accept queue
    # (a dropped SYN is retried a second later and looks like a slow server).
    request_queue_size = 1024
    owner: EmbeddingServer


class _UnixServer(_QuietErrors, socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 1024
    owner: EmbeddingServer

    def get_request(self) -> tuple[socket.socket, Any]:
        # BaseHTTPRequestHandler expects a (host, port)-like client address.
        request, _ = super().get_request()
        return request, ("unix", 0)


class EmbeddingServer:
    """An embedding backend on 127.0.0.1 (ephemeral port) or a unix socket.

    Use as a context manager, or call `start` and `stop`.  ``width`` is the
    width of every ok vector; ``slow_seconds`` how long ``slow`` waits;
    ``oversize_bytes`` how much padding the oversized answers carry;
    ``bomb_bytes`` what the compression bombs inflate to; ``drip_interval``
    the pause between the drips' bytes, ``drip_seconds`` how long a drip
    keeps going; ``redirect_url`` where ``redirect`` points (default: this
    server under the host name ``localhost``); ``api_key``, when set, is
    required as a Bearer token on api behaviours.
    """

    def __init__(
        self,
        *,
        width: int = DEFAULT_WIDTH,
        slow_seconds: float = 1.0,
        oversize_bytes: int = 256 * 1024,
        bomb_bytes: int = 64 * 1024 * 1024,
        drip_interval: float = 0.3,
        drip_seconds: float = 30.0,
        redirect_url: str | None = None,
        api_key: str = "",
        unix_path: str | os.PathLike[str] | None = None,
        port: int = 0,
    ) -> None:
        self.width = width
        self.requested_port = port
        self.slow_seconds = slow_seconds
        self.oversize_bytes = oversize_bytes
        self.bomb_bytes = bomb_bytes
        self.drip_interval = drip_interval
        self.drip_seconds = drip_seconds
        self.redirect_url = redirect_url
        self.api_key = api_key
        self.unix_path = os.fspath(unix_path) if unix_path is not None else None
        self.default_behaviour = "ok"
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._server: _TCPServer | _UnixServer | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> EmbeddingServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> EmbeddingServer:
        """Bind, and serve from a daemon thread until `stop`."""
        server: _TCPServer | _UnixServer
        if self.unix_path is not None:
            if os.path.exists(self.unix_path):
                os.unlink(self.unix_path)
            server = _UnixServer(self.unix_path, _Handler)
        else:
            server = _TCPServer(("127.0.0.1", self.requested_port), _Handler)
        server.owner = self
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop accepting, close the socket; in-flight slow answers are abandoned."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.unix_path is not None and os.path.exists(self.unix_path):
            os.unlink(self.unix_path)

    @property
    def port(self) -> int:
        """The TCP port (0 for a unix-socket server)."""
        if self._server is None or self.unix_path is not None:
            return 0
        address = self._server.server_address
        assert isinstance(address, tuple)  # TCP: (host, port)
        return int(address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``; ``http://localhost`` over a unix socket."""
        if self.unix_path is not None:
            return "http://localhost"
        return f"http://127.0.0.1:{self.port}"

    @property
    def redirect_target(self) -> str:
        """Where ``redirect`` sends a client: ``redirect_url``, else this server as ``localhost``."""
        if self.redirect_url is not None:
            return self.redirect_url
        port = f":{self.port}" if self.port else ""
        return f"http://localhost{port}/ok"

    def url(self, behaviour: str = "ok") -> str:
        """The URL that answers with *behaviour* (see BEHAVIOURS / API_BEHAVIOURS)."""
        if behaviour not in BEHAVIOURS and behaviour not in API_BEHAVIOURS and behaviour != "by-text":
            raise ValueError(f"unknown behaviour {behaviour!r}")
        return f"{self.base_url}/{behaviour}"

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far."""
        with self._lock:
            return list(self._requests)

    def clear_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def behaviour_for(self, path: str, texts: list[str]) -> str:
        """The behaviour one request gets: by path, by text prefix, or the default."""
        name = path.strip("/")
        if name in ("", "embed"):
            return self.default_behaviour
        if name == "by-text":
            prefix, sep, _ = (texts[0] if texts else "").partition("|")
            return prefix if sep and (prefix in BEHAVIOURS or prefix in API_BEHAVIOURS) else "ok"
        return _ALIASES.get(name, name)


def main(argv: list[str] | None = None) -> None:
    """Serve from the command line, for benchmarks and trying `plait probe` by hand.

    Prints the base URL on the first line of stdout, then serves until killed.
    Run in its own process, the server does not compete with the client for
    the GIL, so timings measure the client.
    """
    import argparse
    import signal

    parser = argparse.ArgumentParser(prog="python -m plait.conformance.servers")
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0: any free one)")
    parser.add_argument("--unix", default=None, help="listen on this unix socket path instead")
    parser.add_argument("--width", type=int, default=DEFAULT_WIDTH, help="width of ok vectors")
    args = parser.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with EmbeddingServer(width=args.width, unix_path=args.unix, port=args.port) as server:
        print(server.base_url if args.unix is None else f"{server.base_url} via {args.unix}", flush=True)
        with suppress(KeyboardInterrupt):
            stop.wait()


if __name__ == "__main__":
    main()
