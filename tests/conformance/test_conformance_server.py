"""The loopback server itself: its behaviour names are documented and do what they say.

The conformance scenarios refer to behaviours by name, so a name that is
missing from the module docstring, or a behaviour that quietly stopped
misbehaving, would make a scenario prove nothing.
"""

from __future__ import annotations

import gzip
import http.client
import json
import socket
import time
import zlib
from concurrent.futures import ThreadPoolExecutor

import pytest

from plait.conformance import servers
from plait.conformance.servers import API_BEHAVIOURS, BEHAVIOURS, EmbeddingServer, vector_for


def test_every_behaviour_is_documented_by_name() -> None:
    doc = servers.__doc__ or ""
    missing = [name for name in [*BEHAVIOURS, *API_BEHAVIOURS] if f"``{name}``" not in doc]
    assert missing == []


def raw_post(server: EmbeddingServer, behaviour: str, window: float = 1.0) -> tuple[bytes, float]:
    """POST over a bare socket and return what arrived within *window* seconds, as it came."""
    body = json.dumps({"texts": ["alpha"]}).encode()
    request = (
        f"POST /{behaviour} HTTP/1.1\r\nHost: x\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=2) as sock:
        sock.sendall(request)
        received = b""
        sock.settimeout(0.2)
        while time.monotonic() - started < window:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                continue
            except ConnectionResetError:
                return received + b"<RESET>", time.monotonic() - started
            if not chunk:
                break
            received += chunk
    return received, time.monotonic() - started


def chunks_after_head(received: bytes) -> list[bytes]:
    body = received.partition(b"\r\n\r\n")[2]
    return [piece for piece in body.split(b"\r\n1\r\n") if piece]


def test_drips_trickle_and_never_finish() -> None:
    names = ["drip-body", "drip-headers", "drip-error-body", "endless-1xx"]
    with EmbeddingServer(drip_interval=0.1) as server, ThreadPoolExecutor(len(names)) as pool:
        got = dict(zip(names, pool.map(lambda name: raw_post(server, name, 0.45), names), strict=True))
    assert all(elapsed >= 0.45 for _, elapsed in got.values())  # nothing ended an answer
    # A byte every 0.1 s: a handful in 0.45 s, and never the end.
    body, error_body = got["drip-body"][0], got["drip-error-body"][0]
    assert body.startswith(b"HTTP/1.1 200 OK") and error_body.startswith(b"HTTP/1.1 500 ")
    for received in (body, error_body):
        assert 2 <= len(chunks_after_head(received)) <= 7, received
        assert b"\r\n0\r\n\r\n" not in received
    headers = got["drip-headers"][0]
    assert 2 <= len(headers) <= 7 and b"HTTP/1.1 200 OK".startswith(headers), headers
    heads = [block for block in got["endless-1xx"][0].split(b"\r\n\r\n") if block]
    assert 3 <= len(heads) <= 7
    assert all(head.startswith(b"HTTP/1.1 103 Early Hints") for head in heads)


def test_reset_mid_body_resets_after_half_an_honest_body(embedding_server: EmbeddingServer) -> None:
    received, _ = raw_post(embedding_server, "reset-mid-body")
    head, _, body = received.partition(b"\r\n\r\n")
    declared = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    # Over TCP the server closes with a reset, after exactly half the body it declared.
    assert body.endswith(b"<RESET>")
    assert len(body.removesuffix(b"<RESET>")) == declared // 2


def test_echo_credentials_echoes_in_the_reason_phrase_and_body(embedding_server: EmbeddingServer) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", embedding_server.port, timeout=5)
    headers = {"Authorization": "Bearer sk-echo-me"}
    connection.request("POST", "/echo-credentials?token=tok+QUERY/SECRET=42", body=b"{}", headers=headers)
    response = connection.getresponse()
    body = response.read().decode()
    connection.close()
    assert response.status == 401
    assert response.reason == "Denied /echo-credentials?token=tok+QUERY/SECRET=42 authorization=Bearer sk-echo-me"
    assert "tok+QUERY/SECRET=42" in body and "tok QUERY/SECRET=42" in body
    assert "tok%20QUERY%2FSECRET%3D42" in body and "%74%6f%6b%20" in body
    assert "authorization: Bearer sk-echo-me" in body


@pytest.mark.parametrize("behaviour", ["gzip-bomb", "deflate-bomb"])
def test_bombs_are_small_on_the_wire_and_inflate_to_bomb_bytes(behaviour: str) -> None:
    with EmbeddingServer(bomb_bytes=8 * 1024 * 1024) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        connection.request("POST", f"/{behaviour}", body=json.dumps({"texts": ["alpha"]}))
        response = connection.getresponse()
        wire = response.read()
        connection.close()
    encoding = behaviour.partition("-")[0]
    assert response.getheader("Content-Encoding") == encoding
    assert len(wire) < 64 * 1024
    inflated = gzip.decompress(wire) if encoding == "gzip" else zlib.decompress(wire)
    assert len(inflated) > 8 * 1024 * 1024
    assert json.loads(inflated)["embeddings"] == [vector_for("alpha")]


def test_redirect_points_at_another_host(embedding_server: EmbeddingServer) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", embedding_server.port, timeout=5)
    connection.request("POST", "/redirect", body=b"{}")
    response = connection.getresponse()
    connection.close()
    assert response.status == 307
    assert response.getheader("Location") == f"http://localhost:{embedding_server.port}/ok"
