"""A real embedding backend that misbehaves on request.

Mocks prove what a client does with the responses someone imagined; this
server speaks real HTTP over a real socket (TCP on 127.0.0.1 with an
ephemeral port, or a unix socket), so timeouts, refused connections, lying
Content-Length headers and half-read bodies happen the way they do in
production.  Standard library only: it must run wherever the tests run.

Behaviours are chosen per request, so one server can serve many at once:

* by path: ``server.url("nan")`` → ``http://127.0.0.1:PORT/nan``;
* by text: POST to ``server.url("by-text")`` and start the first text with
  ``"<behaviour>|"`` (e.g. ``"status-500|hello"``);
* ``/embed`` (and ``/``) use ``server.default_behaviour``, a plain switch.

Vectors are derived from a hash of each text (`vector_for`), so tests can
assert the exact values a client returns.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

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

# http-mode behaviours: POST {"texts": [...]} and answer ...
BEHAVIOURS: dict[str, str] = {
    "ok": "the vectors of vector_for(text)",
    "status-500": "HTTP 500 with a short text body",
    "echo-500": "HTTP 500 whose body echoes the request target and Authorization header",
    "slow": "the right answer, after slow_seconds (longer than a test timeout)",
    "malformed": "a truncated JSON body",
    "not-object": "a JSON array instead of an object",
    "empty": '{"embeddings": []}',
    "missing": "a JSON object without an embeddings key",
    "wrong-count": "one vector fewer than texts",
    "nan": "a NaN token inside a vector",
    "infinity": "an Infinity token inside a vector",
    "bool": "a JSON true inside a vector",
    "string": "a string inside a vector",
    "huge-int": "an integer beyond float64 inside a vector",
    "f32-overflow": "an integer beyond float32 (but within float64) inside a vector",
    "empty-vector": "vectors of width 0",
    "wide": "vectors wider by 4 than DEFAULT_WIDTH (a width change)",
    "ragged": "the second vector one element shorter than the first",
    "oversized": "a valid body larger than oversize_bytes, with an honest Content-Length",
    "oversized-chunked": "the same body, chunked, declaring no length",
    "lying-length": "Content-Length 64 followed by far more bytes",
}

# api-mode (OpenAI-compatible) behaviours: POST {"model", "input"} and answer ...
API_BEHAVIOURS: dict[str, str] = {
    "api-ok": "data items in order; vectors are 3 * vector_for(text), not unit length",
    "api-shuffled": "the same items in reverse order (legal: index says where each goes)",
    "api-duplicate-index": "every item claiming index 0",
    "api-out-of-range-index": "the last item claiming index n",
    "api-empty": '{"data": []}',
}

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
    body: Any


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
            _HTTP_ANSWERS.get(behaviour, _unknown)(self, texts, owner)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (timeout, budget): exactly what was tested.
            self.close_connection = True

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


def _texts_of(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return []
    texts = body.get("texts", body.get("input", []))
    if isinstance(texts, str):
        texts = [texts]
    return [str(t) for t in texts] if isinstance(texts, list) else []


def _ok_payload(texts: list[str], width: int) -> dict[str, Any]:
    return {"embeddings": [vector_for(t, width) for t in texts]}


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


def _answer_slow(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
    time.sleep(owner.slow_seconds)
    h._send(200, json.dumps(_ok_payload(texts, owner.width)).encode())


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


def _unknown(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
    h._send(404, b'{"error": "no such behaviour"}')


def _json(make: Callable[[list[str], int], Any]) -> Callable[[_Handler, list[str], EmbeddingServer], None]:
    def answer(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
        h._send(200, json.dumps(make(texts, owner.width)).encode())

    return answer


def _raw(make: Callable[[list[str], int], bytes]) -> Callable[[_Handler, list[str], EmbeddingServer], None]:
    def answer(h: _Handler, texts: list[str], owner: EmbeddingServer) -> None:
        h._send(200, make(texts, owner.width))

    return answer


_HTTP_ANSWERS: dict[str, Callable[[_Handler, list[str], EmbeddingServer], None]] = {
    "ok": _json(_ok_payload),
    "status-500": lambda h, texts, owner: h._send(500, b"backend exploded: model not loaded", "text/plain"),
    "echo-500": lambda h, texts, owner: h._send(
        500, f"rejected {h.path} authorization={h.headers.get('Authorization')}".encode(), "text/plain"
    ),
    "slow": _answer_slow,
    "malformed": _raw(lambda texts, width: b'{"embeddings": [[0.25, 0.5'),
    "not-object": _raw(lambda texts, width: b"[[0.25, 0.5]]"),
    "empty": _json(lambda texts, width: {"embeddings": []}),
    "missing": _json(lambda texts, width: {"vectors": [vector_for(t, width) for t in texts]}),
    "wrong-count": _json(lambda texts, width: {"embeddings": [vector_for(t, width) for t in texts][:-1]}),
    "nan": _raw(lambda texts, width: _with_bad_token(texts, width, "NaN")),
    "infinity": _raw(lambda texts, width: _with_bad_token(texts, width, "Infinity")),
    "bool": _raw(lambda texts, width: _with_bad_token(texts, width, "true")),
    "string": _raw(lambda texts, width: _with_bad_token(texts, width, '"0.5"')),
    "huge-int": _raw(lambda texts, width: _with_bad_token(texts, width, "1" + "0" * 400)),
    "f32-overflow": _raw(lambda texts, width: _with_bad_token(texts, width, "1" + "0" * 39)),
    "empty-vector": _json(lambda texts, width: {"embeddings": [[] for _ in texts]}),
    "wide": _json(lambda texts, width: _ok_payload(texts, width + 4)),
    "ragged": _json(
        lambda texts, width: {"embeddings": [vector_for(t, width - (i == 1)) for i, t in enumerate(texts)]}
    ),
    "oversized": lambda h, texts, owner: h._send(200, _oversized_body(texts, owner)),
    "oversized-chunked": _answer_chunked,
    "lying-length": _answer_lying,
}


def _api_answer(behaviour: str, texts: list[str], width: int) -> dict[str, Any]:
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
    ``api_key``, when set, is required as a Bearer token on api behaviours.
    """

    def __init__(
        self,
        *,
        width: int = DEFAULT_WIDTH,
        slow_seconds: float = 1.0,
        oversize_bytes: int = 256 * 1024,
        api_key: str = "",
        unix_path: str | os.PathLike[str] | None = None,
        port: int = 0,
    ) -> None:
        self.width = width
        self.requested_port = port
        self.slow_seconds = slow_seconds
        self.oversize_bytes = oversize_bytes
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
        try:
            stop.wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
