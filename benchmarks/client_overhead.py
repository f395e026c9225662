"""What the canonical client costs on top of a bare httpx call.

One run, one local server (in its own process, so it does not compete with
the client for the GIL).  It measures:

* ``embed_with_outcome`` against a raw ``httpx.AsyncClient.post`` of the same
  payload, both over a warm keep-alive pool, interleaved (alternating which
  goes first) so drift in the machine or the server hits both alike;
* the single-text cache-hit path;
* validating a 32×1024 batch (the row checks; parsing is shown beside it).

Run: ``python benchmarks/client_overhead.py``.  Not a test: it prints a table
with PASS/MISS per goal and always exits 0.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import httpx

from embedding_client import EmbeddingClient
from embedding_client.boundary import check_vectors, parse_object

WIDTH = 384  # a typical sentence-embedding model; one query per call
ROUNDS = 1000
WARMUP = 100
CACHE_HITS = 20000
BATCH = (32, 1024)
VALIDATIONS = 200

GOAL_OVERHEAD = 1.10
GOAL_CACHE_US = 20.0
GOAL_VALIDATE_MS = 5.0


def percentile(samples: list[float], q: float) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[int(q) - 1]


def start_server() -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [sys.executable, "-m", "plait.conformance.servers", "--width", str(WIDTH)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    return server, server.stdout.readline().strip() + "/ok"


async def measure_requests(url: str) -> tuple[list[float], list[float]]:
    ours: list[float] = []
    raw: list[float] = []
    # The same pool semantics on both sides: keep-alive, default limits.
    async with EmbeddingClient("http", http_url=url, cache_size=0) as client, httpx.AsyncClient() as bare:

        async def via_client(text: str) -> float:
            started = time.perf_counter()
            _, outcome = await client.embed_with_outcome([text])
            elapsed = time.perf_counter() - started
            assert outcome.ok, outcome
            return elapsed

        async def via_httpx(text: str) -> float:
            started = time.perf_counter()
            response = await bare.post(url, json={"texts": [text]})
            elapsed = time.perf_counter() - started
            assert response.status_code == 200
            return elapsed

        for i in range(WARMUP + ROUNDS):
            # Distinct texts: the server's work and the payload size stay the
            # same, and nothing can be cached anywhere.
            text = f"query number {i}"
            pair = (via_client, via_httpx) if i % 2 else (via_httpx, via_client)
            first = await pair[0](text)
            second = await pair[1](text)
            if i < WARMUP:
                continue
            a, b = (first, second) if pair[0] is via_client else (second, first)
            ours.append(a)
            raw.append(b)
    return ours, raw


async def measure_cache_hit(url: str) -> list[float]:
    samples: list[float] = []
    async with EmbeddingClient("http", http_url=url) as client:
        _, primed = await client.embed_with_outcome(["cached query"])
        assert primed.ok
        clock = time.perf_counter
        for _ in range(CACHE_HITS):
            started = clock()
            await client.embed_with_outcome(["cached query"])
            samples.append(clock() - started)
        assert client.cache_hits == CACHE_HITS
    return samples


def measure_validation() -> tuple[list[float], list[float]]:
    rng = random.Random(1)
    rows, width = BATCH
    batch = [[rng.uniform(-1, 1) for _ in range(width)] for _ in range(rows)]
    body = json.dumps({"embeddings": batch}).encode()

    def timed(work: Callable[[], object]) -> float:
        started = time.perf_counter()
        work()
        return time.perf_counter() - started

    check = [timed(lambda: check_vectors(batch, rows, width=None, max_width=16384)) for _ in range(VALIDATIONS)]
    both = [
        timed(lambda: check_vectors(parse_object(body)["embeddings"], rows, width=None, max_width=16384))
        for _ in range(VALIDATIONS // 4)
    ]
    return check, both


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main() -> None:
    server, url = start_server()
    try:
        ours, raw = asyncio.run(measure_requests(url))
        hits = asyncio.run(measure_cache_hit(url))
    finally:
        server.terminate()
        server.wait(timeout=10)
    check, both = measure_validation()

    ours_p50, ours_p90 = percentile(ours, 50) * 1e3, percentile(ours, 90) * 1e3
    raw_p50, raw_p90 = percentile(raw, 50) * 1e3, percentile(raw, 90) * 1e3
    ratio50, ratio90 = ours_p50 / raw_p50, ours_p90 / raw_p90
    hit_p50, hit_p90 = percentile(hits, 50) * 1e6, percentile(hits, 90) * 1e6
    check_p50, check_p90 = percentile(check, 50) * 1e3, percentile(check, 90) * 1e3
    both_p50 = percentile(both, 50) * 1e3

    print(f"client overhead: {ROUNDS} interleaved rounds, 1 text x {WIDTH} dims, Python {sys.version.split()[0]}")
    print()
    print(f"{'measure':<38} {'p50':>10} {'p90':>10}  {'goal':<14} result")
    print("-" * 84)
    print(f"{'raw httpx.AsyncClient.post (ms)':<38} {raw_p50:>10.3f} {raw_p90:>10.3f}")
    print(f"{'embed_with_outcome (ms)':<38} {ours_p50:>10.3f} {ours_p90:>10.3f}")
    print(
        f"{'  ratio to raw':<38} {ratio50:>9.2f}x {ratio90:>9.2f}x  "
        f"{'p50 <= 1.10x':<14} {verdict(ratio50 <= GOAL_OVERHEAD)}"
    )
    print(
        f"{'cache hit (us)':<38} {hit_p50:>10.2f} {hit_p90:>10.2f}  "
        f"{'<= 20 us':<14} {verdict(hit_p50 <= GOAL_CACHE_US)}"
    )
    print(
        f"{'validate 32x1024, row checks (ms)':<38} {check_p50:>10.3f} {check_p90:>10.3f}  "
        f"{'<= 5 ms':<14} {verdict(check_p50 <= GOAL_VALIDATE_MS)}"
    )
    print(f"{'  parse JSON + row checks (ms)':<38} {both_p50:>10.3f} {'':>10}  {'(info)':<14}")


if __name__ == "__main__":
    main()
