"""Unit-level pieces: cache, packing and the response boundary on its own."""

from __future__ import annotations

import math
import struct

import httpx
import pytest

from embedding_client import EmbeddingClient, TTLCache, pack_embedding, unpack_embedding
from embedding_client.boundary import (
    ResponseRejected,
    check_vectors,
    normalise,
    order_by_index,
    parse_object,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_cache_expires_entries_after_ttl() -> None:
    clock = FakeClock()
    cache = TTLCache(4, 10, clock=clock)
    cache.put("a", [1.0])
    clock.now += 9.9
    assert cache.get("a") == [1.0]
    clock.now += 0.2
    assert cache.get("a") is None
    assert len(cache) == 0
    assert (cache.hits, cache.misses) == (1, 1)


def test_cache_evicts_least_recently_used() -> None:
    cache = TTLCache(2, 60)
    cache.put("a", [1.0])
    cache.put("b", [2.0])
    assert cache.get("a") == [1.0]  # a is now the most recent
    cache.put("c", [3.0])
    assert cache.get("b") is None
    assert cache.get("a") == [1.0] and cache.get("c") == [3.0]


def test_zero_cache_size_disables_caching() -> None:
    client = EmbeddingClient("http", http_url="http://127.0.0.1:1/x", cache_size=0)
    assert client.cache is None and client.cache_hits == 0


def test_pack_is_little_endian_float32_and_round_trips() -> None:
    assert pack_embedding([1.0, -0.5]) == struct.pack("<2f", 1.0, -0.5)
    vector = [0.1, -3.25, 1e-3]
    assert unpack_embedding(pack_embedding(vector)) == pytest.approx(vector, rel=1e-6)
    with pytest.raises(ValueError, match="multiple of 4"):
        unpack_embedding(b"\x00\x00\x80")


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([[0.5, math.nan]], "holds nan at position 1, not a finite number"),
        ([[math.nan, math.inf]], "not a finite number"),
        ([[-math.inf, 0.0]], "holds -inf at position 0"),
        ([[1e39]], "holds 1e+39 at position 0, beyond float32"),
        ([[0.0, -(10**39)]], "beyond float32"),
        ([[0.0, None]], "holds null at position 1"),
        ([[0.0, [1.0]]], "holds an array at position 1"),
        ([[1.0], [True]], "vector 1 holds a JSON boolean"),
        ([(1.0, 2.0)], "vector 0 is tuple, not an array"),
        ({"0": [1.0]}, "embeddings is an object"),
    ],
)
def test_check_vectors_refuses(rows: object, message: str) -> None:
    count = len(rows) if isinstance(rows, list) else 1
    with pytest.raises(ResponseRejected, match=message.replace("+", r"\+")):
        check_vectors(rows, count, width=None, max_width=16)


def test_large_but_representable_values_pass() -> None:
    # The fast path's norm exceeds float32 here; only the exact check can say yes.
    rows = check_vectors([[3e38, -3e38, 3e38]], 1, width=None, max_width=16)
    assert rows == [[3e38, -3e38, 3e38]]
    with pytest.raises(ResponseRejected, match="nan at position 2"):
        check_vectors([[3e38, -3e38, math.nan]], 1, width=None, max_width=16)


def test_check_vectors_turns_integers_into_floats() -> None:
    rows = check_vectors([[1, 0.5, -2]], 1, width=None, max_width=16)
    assert rows == [[1.0, 0.5, -2.0]]
    assert all(type(value) is float for value in rows[0])


def test_parse_object_refuses_float_overflow_at_the_row_check() -> None:
    # json turns 1e400 into inf without complaint; the row check must not.
    parsed = parse_object(b'{"embeddings": [[1e400, 0.0]]}')
    with pytest.raises(ResponseRejected, match="inf at position 0"):
        check_vectors(parsed["embeddings"], 1, width=None, max_width=16)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"\xff\xfe\x00", "not valid JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),
        (b'{"embeddings": [[-Infinity]]}', "body holds -Infinity"),
        (b'"text"', "body is a string, not a JSON object"),
        (b"[1" + b"0" * 5000 + b"]", "not valid JSON"),
    ],
)
def test_parse_object_refuses(body: bytes, message: str) -> None:
    with pytest.raises(ResponseRejected, match=message):
        parse_object(body)


def test_order_by_index_and_normalise() -> None:
    data = [{"index": 1, "embedding": [0.0, 2.0]}, {"index": 0, "embedding": [3.0, 4.0]}]
    rows = order_by_index(data, 2)
    assert rows == [[3.0, 4.0], [0.0, 2.0]]
    assert normalise(check_vectors(rows, 2, width=None, max_width=4)) == [[0.6, 0.8], [0.0, 1.0]]
    assert normalise([[0.0, 0.0]]) == [[0.0, 0.0]]
    with pytest.raises(ResponseRejected, match="index True"):
        order_by_index([{"index": True, "embedding": [1.0]}], 1)


async def test_nothing_a_transport_raises_escapes() -> None:
    def broken(request: httpx.Request) -> httpx.Response:
        raise RuntimeError("transport bug")

    async with EmbeddingClient("http", http_url="http://h:1/e", transport=httpx.MockTransport(broken)) as client:
        value, outcome = await client.embed_with_outcome(["a"])
    assert value is None
    assert outcome.error == "mode=http / POST http://h:1/e failed: RuntimeError: transport bug"
