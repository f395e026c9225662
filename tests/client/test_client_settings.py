"""A setting changed after construction is the setting the next call uses, whole.

Each test changes one setting on a live client and watches what a real
loopback server then sees, or what the outcome says: a moved deadline with
httpx's per-phase timeouts moving along, a URL whose auth and secrets come
with it, a model whose cached vectors go, and a call in flight that finishes
with what it started with.
"""

from __future__ import annotations

import asyncio
import base64
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from embedding_client import EmbeddingClient, evidence_of
from plait.conformance.servers import DEFAULT_WIDTH, EmbeddingServer, vector_for

# What "ends at its deadline" allows on top of the deadline itself on a loaded machine;
# the slow behaviour answers after 1 s, so a deadline of 0.3 s plus this is still well short.
SLACK = 0.4


async def test_a_raised_timeout_lets_a_slow_server_answer(embedding_server: EmbeddingServer) -> None:
    # httpx's per-phase read timeout must move with the deadline, or the old
    # 0.3 s would still cut the call short.
    async with EmbeddingClient("http", http_url=embedding_server.url("slow"), timeout=0.3, cache_size=0) as client:
        _, before = await client.embed_with_outcome(["alpha"])
        assert not before.ok
        client.timeout = 5
        value, outcome = await client.embed_with_outcome(["alpha"])
    assert outcome.ok, outcome.error
    assert value == [vector_for("alpha")]


async def test_a_lowered_timeout_cuts_a_slow_server_at_the_new_deadline(embedding_server: EmbeddingServer) -> None:
    async with EmbeddingClient("http", http_url=embedding_server.url("slow"), timeout=30, cache_size=0) as client:
        client.timeout = 0.3
        started = time.monotonic()
        _, outcome = await client.embed_with_outcome(["alpha"])
        elapsed = time.monotonic() - started
    assert elapsed < 0.3 + SLACK
    evidence = evidence_of(outcome)
    assert evidence is not None and evidence.kind == "ReadTimeout", outcome.error
    assert "0.3 s" in evidence.detail


async def test_a_changed_http_url_is_where_the_next_call_goes(embedding_server: EmbeddingServer) -> None:
    async with EmbeddingClient("http", http_url=embedding_server.url("status-503")) as client:
        _, failed = await client.embed_with_outcome(["alpha"])
        assert failed.error is not None and "/status-503 failed: HTTPStatusError: 503" in failed.error
        client.http_url = embedding_server.url("ok")
        assert client.http_url == embedding_server.url("ok")
        assert client.endpoint == f"http://127.0.0.1:{embedding_server.port}/ok"
        value, outcome = await client.embed_with_outcome(["beta"])
    assert outcome.ok and value == [vector_for("beta")]
    assert [request.path for request in embedding_server.requests] == ["/status-503", "/ok"]


async def test_a_changed_url_brings_its_own_basic_auth_and_has_its_secrets_masked(
    embedding_server: EmbeddingServer,
) -> None:
    async with EmbeddingClient("http", http_url=embedding_server.url("ok")) as client:
        assert (await client.embed_with_outcome(["alpha"]))[1].ok
        client.http_url = embedding_server.url("echo-credentials").replace("http://", "http://svc:new-Pa55word@")
        _, outcome = await client.embed_with_outcome(["beta"])
    first, second = embedding_server.requests
    assert "authorization" not in first.headers
    basic = base64.b64encode(b"svc:new-Pa55word").decode()
    assert second.headers["authorization"] == f"Basic {basic}"
    # The echo quotes the header back; the evidence masks the new secrets.
    assert outcome.error is not None and "401" in outcome.error
    assert "new-Pa55word" not in outcome.error and basic not in outcome.error


async def test_a_changed_api_url_is_where_the_next_call_goes(
    embedding_server: EmbeddingServer, closed_url: str
) -> None:
    async with EmbeddingClient("api", api_url=closed_url, model="m", api_key="sk-test-key") as client:
        _, failed = await client.embed_with_outcome(["alpha"])
        assert failed.error is not None and "ConnectError" in failed.error
        client.api_url = embedding_server.url("api-ok")
        value, outcome = await client.embed_with_outcome(["alpha"])
    assert outcome.ok, outcome.error
    assert value is not None and len(value[0]) == DEFAULT_WIDTH
    assert embedding_server.requests[-1].headers["authorization"] == "Bearer sk-test-key"


async def test_a_changed_url_does_not_answer_from_the_old_endpoints_cache(embedding_server: EmbeddingServer) -> None:
    async with EmbeddingClient("http", http_url=embedding_server.url("ok")) as client:
        assert (await client.embed_with_outcome(["alpha"]))[1].ok
        assert (await client.embed_with_outcome(["alpha"]))[1].attempted is False  # a cache hit
        client.http_url = embedding_server.url("status-503")
        _, outcome = await client.embed_with_outcome(["alpha"])
    assert outcome.attempted and not outcome.ok
    assert embedding_server.requests[-1].path == "/status-503"


async def test_a_changed_model_is_sent_and_does_not_answer_from_the_old_models_cache(
    embedding_server: EmbeddingServer,
) -> None:
    async with EmbeddingClient("api", api_url=embedding_server.url("api-ok"), model="small-v1") as client:
        assert (await client.embed_with_outcome(["alpha"]))[1].ok
        client.model = "large-v2"
        assert client.model == "large-v2"
        _, outcome = await client.embed_with_outcome(["alpha"])
    assert outcome.ok and outcome.attempted
    assert [request.body["model"] for request in embedding_server.requests] == ["small-v1", "large-v2"]


async def test_the_limits_are_read_by_every_call(embedding_server: EmbeddingServer) -> None:
    async with EmbeddingClient("http", http_url=embedding_server.url("ok"), cache_size=0) as client:
        assert (await client.embed_with_outcome(["alpha"]))[1].ok
        client.max_width = DEFAULT_WIDTH - 1
        _, too_wide = await client.embed_with_outcome(["alpha"])
        assert f"over the cap of {DEFAULT_WIDTH - 1}" in (too_wide.error or "")
        client.max_width = DEFAULT_WIDTH
        client.expected_width = DEFAULT_WIDTH + 4
        _, unexpected = await client.embed_with_outcome(["alpha"])
        assert f"not the {DEFAULT_WIDTH + 4} expected" in (unexpected.error or "")
        client.expected_width = None
        client.max_response_bytes = 16
        _, too_big = await client.embed_with_outcome(["alpha"])
        assert "ResponseRejected" in (too_big.error or "") and "16" in (too_big.error or "")
        client.max_response_bytes = 1 << 20
        assert (await client.embed_with_outcome(["alpha"]))[1].ok


def test_the_mode_is_read_only() -> None:
    client = EmbeddingClient("http", http_url="http://127.0.0.1:1/embed")
    with pytest.raises(AttributeError):
        client.mode = "api"  # type: ignore[misc]
    assert client.mode == "http"


class _Parked(BaseHTTPRequestHandler):
    """Holds each request until the test releases it, then echoes its target with a 401."""

    arrived: threading.Event
    release: threading.Event

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        type(self).arrived.set()
        type(self).release.wait(10)
        body = f"denied {self.path}".encode()
        self.send_response(401)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def parked_server() -> Iterator[tuple[str, type[_Parked]]]:
    handler = type("Parked", (_Parked,), {"arrived": threading.Event(), "release": threading.Event()})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        handler.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


async def test_a_call_in_flight_finishes_with_the_settings_it_started_with(
    parked_server: tuple[str, type[_Parked]],
) -> None:
    base, handler = parked_server
    async with EmbeddingClient("http", http_url=f"{base}/embed?token=old-Secret-Token", timeout=5) as client:
        call = asyncio.create_task(client.embed_with_outcome(["alpha"]))
        assert await asyncio.to_thread(handler.arrived.wait, 5)
        client.http_url = f"{base}/other?token=new-Secret-Token"
        client.timeout = 9
        handler.release.set()
        _, outcome = await call
    # The echo quotes the old URL's token: the call's own redactor masks it,
    # and its evidence names the endpoint it went to.
    assert outcome.error is not None and "401" in outcome.error
    assert "old-Secret-Token" not in outcome.error
    assert f"POST {base}/embed failed" in outcome.error
