"""The embed_with_outcome contract, proven against a real loopback server."""

from __future__ import annotations

import base64
import math
import re
import time

import httpx
import pytest

from embedding_client import EmbeddingClient, EmbedOutcome
from plait.conformance.servers import DEFAULT_WIDTH, EmbeddingServer, api_vector_for, vector_for

TEXTS = ["alpha", "beta"]
BUDGET = 64 * 1024


def http_client(url: str, **options: object) -> EmbeddingClient:
    options.setdefault("timeout", 0.3)
    options.setdefault("max_response_bytes", BUDGET)
    return EmbeddingClient("http", http_url=url, **options)


def evidence_pattern(mode: str, path: str, kind: str) -> str:
    return rf"^mode={mode} / POST http://127\.0\.0\.1:\d+{re.escape(path)} failed: {kind}: \S"


async def test_success_returns_the_servers_vectors(embedding_server: EmbeddingServer) -> None:
    async with http_client(embedding_server.url("ok")) as client:
        value, outcome = await client.embed_with_outcome(TEXTS)
    assert outcome == EmbedOutcome(attempted=True, ok=True, error=None)
    assert value == [vector_for("alpha"), vector_for("beta")]
    assert embedding_server.requests[-1].body == {"texts": TEXTS}


async def test_embed_returns_plain_vectors_or_none(embedding_server: EmbeddingServer, closed_url: str) -> None:
    async with http_client(embedding_server.url("ok")) as good:
        assert await good.embed(["alpha"]) == [vector_for("alpha")]
    async with http_client(closed_url) as dead:
        assert await dead.embed(["alpha"]) is None
    async with http_client(embedding_server.url("empty")) as empty:
        # embed() has always said None for every unsuccessful case, even when
        # the backend's own answer was an empty list.
        assert await empty.embed(["alpha"]) is None


async def test_mode_none_is_off_not_failed(embedding_server: EmbeddingServer) -> None:
    async with EmbeddingClient("none", http_url=embedding_server.url("ok")) as client:
        value, outcome = await client.embed_with_outcome(TEXTS)
    assert (value, outcome) == (None, EmbedOutcome(attempted=False, ok=False, error=None))
    assert embedding_server.requests == []


async def test_unknown_mode_is_reported_without_a_request(embedding_server: EmbeddingServer) -> None:
    async with EmbeddingClient("grpc", http_url=embedding_server.url("ok")) as client:
        value, outcome = await client.embed_with_outcome(TEXTS)
    assert value is None
    assert outcome == EmbedOutcome(False, False, "mode=grpc is not a supported embedding mode")
    assert embedding_server.requests == []


async def test_single_text_cache_hit_sends_nothing(embedding_server: EmbeddingServer) -> None:
    async with http_client(embedding_server.url("ok")) as client:
        first = await client.embed_with_outcome(["alpha"])
        second = await client.embed_with_outcome(["alpha"])
        assert first[1] == EmbedOutcome(True, True, None)
        assert second == ([vector_for("alpha")], EmbedOutcome(attempted=False, ok=True, error=None))
        assert len(embedding_server.requests) == 1
        assert (client.cache_hits, client.cache_misses) == (1, 1)
        # Editing a returned vector must not edit what the next caller gets.
        second[0][0][0] = 99.0
        third, _ = await client.embed_with_outcome(["alpha"])
        assert third == [vector_for("alpha")]


async def test_batches_and_failures_are_not_cached(embedding_server: EmbeddingServer) -> None:
    async with http_client(embedding_server.url("by-text")) as client:
        await client.embed_with_outcome(TEXTS)
        await client.embed_with_outcome(TEXTS)
        _, failed = await client.embed_with_outcome(["status-500|x"])
        _, again = await client.embed_with_outcome(["status-500|x"])
    assert failed.attempted and again.attempted
    assert len(embedding_server.requests) == 4


@pytest.mark.parametrize(
    ("behaviour", "kind", "detail"),
    [
        ("status-500", "HTTPStatusError", "500 Internal Server Error (backend exploded: model not loaded)"),
        ("malformed", "ResponseRejected", "body is not valid JSON"),
        ("not-object", "ResponseRejected", "body is an array, not a JSON object"),
        ("wrong-count", "ResponseRejected", "got 1 vectors for 2 texts"),
        ("nan", "ResponseRejected", "body holds NaN"),
        ("infinity", "ResponseRejected", "body holds Infinity"),
        ("bool", "ResponseRejected", "vector 0 holds a JSON boolean at position 0"),
        ("string", "ResponseRejected", "vector 0 holds a string at position 0"),
        ("huge-int", "ResponseRejected", "vector 0 holds an integer of 1329 bits at position 0, beyond float32"),
        ("f32-overflow", "ResponseRejected", "vector 0 holds an integer of 130 bits at position 0, beyond float32"),
        ("empty-vector", "ResponseRejected", "vector 0 is empty"),
        ("ragged", "ResponseRejected", f"vector 1 has width {DEFAULT_WIDTH - 1}, not the {DEFAULT_WIDTH} of vector 0"),
        ("oversized", "ResponseRejected", "over the 65536-byte budget"),
        ("oversized-chunked", "ResponseRejected", "passed the 65536-byte budget"),
        ("lying-length", "ResponseRejected", "body is not valid JSON"),
    ],
)
async def test_rejected_answers_fail_with_evidence(
    embedding_server: EmbeddingServer, behaviour: str, kind: str, detail: str
) -> None:
    async with http_client(embedding_server.url(behaviour)) as client:
        value, outcome = await client.embed_with_outcome(TEXTS)
    assert value is None
    assert outcome.attempted and not outcome.ok
    assert outcome.error is not None
    assert re.match(evidence_pattern("http", f"/{behaviour}", kind), outcome.error), outcome.error
    assert detail in outcome.error
    assert "\n" not in outcome.error


async def test_timeout_fails_fast_with_evidence(embedding_server: EmbeddingServer) -> None:
    async with http_client(embedding_server.url("slow"), timeout=0.2) as client:
        started = time.monotonic()
        value, outcome = await client.embed_with_outcome(TEXTS)
        elapsed = time.monotonic() - started
    assert value is None and outcome.attempted and not outcome.ok
    assert re.match(evidence_pattern("http", "/slow", "ReadTimeout"), outcome.error or "")
    assert elapsed < embedding_server.slow_seconds


async def test_refused_connection_fails_with_evidence(closed_url: str) -> None:
    async with http_client(closed_url) as client:
        value, outcome = await client.embed_with_outcome(TEXTS)
    assert value is None and outcome.attempted and not outcome.ok
    assert re.match(evidence_pattern("http", "/embed", "ConnectError"), outcome.error or "")


@pytest.mark.parametrize(("behaviour", "value"), [("empty", []), ("missing", None)])
async def test_2xx_without_embeddings(embedding_server: EmbeddingServer, behaviour: str, value: object) -> None:
    async with http_client(embedding_server.url(behaviour)) as client:
        got, outcome = await client.embed_with_outcome(TEXTS)
    assert got == value and not got
    assert outcome.attempted and not outcome.ok
    assert outcome.error == (
        f"mode=http / POST http://127.0.0.1:{embedding_server.port}/{behaviour} returned no embeddings"
    )


async def test_width_change_after_learning_is_refused(embedding_server: EmbeddingServer) -> None:
    async with http_client(embedding_server.url("by-text"), cache_size=0) as client:
        assert (await client.embed_with_outcome(["first"]))[1].ok
        assert client.width == DEFAULT_WIDTH
        value, outcome = await client.embed_with_outcome(["wide|second"])
        assert value is None and not outcome.ok
        assert f"vector 0 has width {DEFAULT_WIDTH + 4}, not the {DEFAULT_WIDTH} learned" in (outcome.error or "")
        # The learned width is not replaced by the refused one.
        assert (await client.embed_with_outcome(["third"]))[1].ok


async def test_expected_width_and_width_cap(embedding_server: EmbeddingServer) -> None:
    async with http_client(embedding_server.url("ok"), expected_width=DEFAULT_WIDTH + 4) as client:
        _, outcome = await client.embed_with_outcome(TEXTS)
    assert f"not the {DEFAULT_WIDTH + 4} expected" in (outcome.error or "")
    async with http_client(embedding_server.url("ok"), max_width=DEFAULT_WIDTH - 1) as client:
        _, outcome = await client.embed_with_outcome(TEXTS)
    assert f"over the cap of {DEFAULT_WIDTH - 1}" in (outcome.error or "")


async def test_client_recovers_after_each_kind_of_failure(embedding_server: EmbeddingServer) -> None:
    # A half-read oversized body or a lying length must not poison the pool.
    async with http_client(embedding_server.url("by-text"), cache_size=0) as client:
        for behaviour in ("oversized-chunked", "lying-length", "status-500", "malformed", "oversized"):
            _, failed = await client.embed_with_outcome([f"{behaviour}|x", "y"])
            assert not failed.ok, behaviour
            value, outcome = await client.embed_with_outcome(["fine", "too"])
            assert outcome.ok, (behaviour, outcome)
            assert value == [vector_for("fine"), vector_for("too")]


async def test_userinfo_is_sent_as_basic_auth(embedding_server: EmbeddingServer) -> None:
    url = embedding_server.url("ok").replace("http://", "http://svc:s%40cret@")
    async with http_client(url) as client:
        assert (await client.embed_with_outcome(TEXTS))[1].ok
    sent = embedding_server.requests[-1].headers["authorization"]
    assert sent == "Basic " + base64.b64encode(b"svc:s@cret").decode()


async def test_empty_input_needs_no_request(embedding_server: EmbeddingServer) -> None:
    async with http_client(embedding_server.url("ok")) as client:
        assert await client.embed_with_outcome([]) == ([], EmbedOutcome(False, True, None))
    assert embedding_server.requests == []


async def test_unix_socket_backend(uds_embedding_server: EmbeddingServer) -> None:
    transport = httpx.AsyncHTTPTransport(uds=uds_embedding_server.unix_path)
    async with EmbeddingClient(
        "http", http_url=uds_embedding_server.url("by-text"), timeout=1, transport=transport
    ) as client:
        value, outcome = await client.embed_with_outcome(TEXTS)
        _, bad = await client.embed_with_outcome(["nan|a", "b"])
    assert outcome.ok and value == [vector_for("alpha"), vector_for("beta")]
    assert bad.error == (
        "mode=http / POST http://localhost:80/by-text failed: "
        "ResponseRejected: body holds NaN, which is not a JSON number"
    )


def unit(vector: list[float]) -> list[float]:
    norm = math.hypot(*vector)
    return [value / norm for value in vector]


def api_client(server: EmbeddingServer, behaviour: str, **options: object) -> EmbeddingClient:
    options.setdefault("timeout", 0.3)
    return EmbeddingClient("api", api_key="sk-test-key", api_url=server.url(behaviour), model="test-model", **options)


@pytest.mark.parametrize("behaviour", ["api-ok", "api-shuffled"])
async def test_api_mode_places_by_index_and_normalises(embedding_server: EmbeddingServer, behaviour: str) -> None:
    embedding_server.api_key = "sk-test-key"
    async with api_client(embedding_server, behaviour) as client:
        value, outcome = await client.embed_with_outcome(["one", "two", "three"])
    assert outcome == EmbedOutcome(True, True, None)
    assert value is not None
    for got, text in zip(value, ["one", "two", "three"], strict=True):
        assert got == pytest.approx(unit(api_vector_for(text)), abs=1e-12)
        assert math.hypot(*got) == pytest.approx(1.0)
    sent = embedding_server.requests[-1]
    assert sent.body == {"model": "test-model", "input": ["one", "two", "three"]}
    assert sent.headers["authorization"] == "Bearer sk-test-key"


@pytest.mark.parametrize(
    ("behaviour", "detail"),
    [
        ("api-duplicate-index", "item 1 repeats index 0"),
        ("api-out-of-range-index", "item 2 has index 3; indices must be 0..2"),
    ],
)
async def test_api_mode_refuses_bad_indices(embedding_server: EmbeddingServer, behaviour: str, detail: str) -> None:
    async with api_client(embedding_server, behaviour) as client:
        value, outcome = await client.embed_with_outcome(["one", "two", "three"])
    assert value is None and outcome.attempted and not outcome.ok
    assert re.match(evidence_pattern("api", f"/{behaviour}", "ResponseRejected"), outcome.error or "")
    assert detail in (outcome.error or "")


async def test_api_mode_wrong_key_and_empty_data(embedding_server: EmbeddingServer) -> None:
    embedding_server.api_key = "sk-the-real-one"
    async with api_client(embedding_server, "api-ok") as client:
        _, outcome = await client.embed_with_outcome(["one"])
    assert "HTTPStatusError: 401 Unauthorized" in (outcome.error or "")
    embedding_server.api_key = ""
    async with api_client(embedding_server, "api-empty") as client:
        value, outcome = await client.embed_with_outcome(["one"])
    assert value == [] and outcome.attempted and not outcome.ok
    assert outcome.error == (
        f"mode=api / POST http://127.0.0.1:{embedding_server.port}/api-empty returned no embeddings"
    )


async def test_calls_before_initialize_and_after_close_still_work(
    embedding_server: EmbeddingServer,
) -> None:
    client = http_client(embedding_server.url("ok"), cache_size=0)
    assert (await client.embed_with_outcome(TEXTS))[1].ok
    await client.close()
    await client.close()  # closing twice is harmless
    assert (await client.embed_with_outcome(TEXTS))[1].ok
    await client.close()


async def test_missing_url_is_reported_not_attempted() -> None:
    async with EmbeddingClient("http") as client:
        value, outcome = await client.embed_with_outcome(TEXTS)
    assert value is None
    assert outcome == EmbedOutcome(False, False, "mode=http has no endpoint URL configured")
