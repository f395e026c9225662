"""The canonical client against backends that misbehave on purpose.

Each test drives the real loopback server into one hostile behaviour and
checks what a service would notice: how long the call took, what the outcome
says, and what reached the log.
"""

from __future__ import annotations

import asyncio
import logging
import time
import tracemalloc
import unicodedata
from urllib.parse import quote

import httpx
import pytest

from embedding_client import EmbeddingClient, EmbedOutcome, evidence_of
from plait.conformance.servers import EmbeddingServer, vector_for

TEXTS = ["alpha", "beta"]
# What "ends within its timeout" allows on top of the timeout itself: the
# loop's wake-up, closing the connection, a loaded CI machine.
SLACK = 0.5


async def timed_call(client: EmbeddingClient, texts: list[str]) -> tuple[float, EmbedOutcome]:
    started = time.monotonic()
    _, outcome = await client.embed_with_outcome(texts)
    return time.monotonic() - started, outcome


# --- one deadline per call ----------------------------------------------------


async def test_every_drip_ends_at_the_calls_deadline(
    embedding_server: EmbeddingServer, uds_embedding_server: EmbeddingServer
) -> None:
    # Each of these resets a per-read timeout every 0.3 s and so, with the
    # timeout applied per read, held a call with timeout=1 for 8 s and more.
    # All run at once, over TCP and over a unix socket.
    expected = {
        "drip-body": "ReadTimeout: no complete answer within the 1 s deadline",
        "drip-headers": "ReadTimeout: no complete answer within the 1 s deadline",
        "endless-1xx": "ReadTimeout: no complete answer within the 1 s deadline",
        # The backend did answer: its status is the evidence, the deadline the
        # aside.  How much of the dripping body arrived first depends on load.
        "drip-error-body": "HTTPStatusError: 500 Internal Server Error (b",
    }
    plan = [(name, server) for server in (embedding_server, uds_embedding_server) for name in expected]
    clients = [
        EmbeddingClient(
            "http",
            http_url=server.url(name),
            timeout=1,
            transport=httpx.AsyncHTTPTransport(uds=server.unix_path) if server.unix_path else None,
        )
        for name, server in plan
    ]
    results = await asyncio.gather(*(timed_call(client, TEXTS) for client in clients))
    for client in clients:
        await client.close()
    for (name, server), (elapsed, outcome) in zip(plan, results, strict=True):
        where = (name, server.unix_path)
        assert elapsed < 1 + SLACK, (where, elapsed)
        assert outcome.attempted and not outcome.ok, where
        assert outcome.error is not None and f"/{name} failed: {expected[name]}" in outcome.error, where
        assert "1 s deadline" in outcome.error


async def test_per_phase_timeouts_stay_inside_the_deadline(embedding_server: EmbeddingServer) -> None:
    # A server that is merely slow: the same timeout name as httpx's own.
    async with EmbeddingClient("http", http_url=embedding_server.url("slow"), timeout=0.2) as client:
        elapsed, outcome = await timed_call(client, TEXTS)
    assert elapsed < 0.2 + SLACK
    evidence = evidence_of(outcome)
    assert evidence is not None and evidence.kind == "ReadTimeout" and evidence.status is None


async def test_an_outer_cancellation_still_propagates(embedding_server: EmbeddingServer) -> None:
    async with EmbeddingClient("http", http_url=embedding_server.url("by-text"), timeout=5, cache_size=0) as client:
        task = asyncio.create_task(client.embed_with_outcome(["drip-body|x"]))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The caller's own, shorter deadline is the caller's to see.
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.2):
                await client.embed_with_outcome(["drip-body|y"])
        assert time.monotonic() - started < 0.2 + SLACK
        # The cancelled calls gave back their connections.
        value, outcome = await client.embed_with_outcome(["fine"])
        assert outcome.ok and value == [vector_for("fine")]


async def test_the_pool_is_usable_after_a_deadline(embedding_server: EmbeddingServer) -> None:
    async with EmbeddingClient("http", http_url=embedding_server.url("by-text"), timeout=0.1, cache_size=0) as client:
        for behaviour in ("drip-body", "endless-1xx", "drip-error-body", "reset-mid-body"):
            _, failed = await client.embed_with_outcome([f"{behaviour}|x"])
            assert not failed.ok, behaviour
            value, outcome = await client.embed_with_outcome(["fine"])
            assert outcome.ok, (behaviour, outcome)
            assert value == [vector_for("fine")]


# --- credentials never leak -------------------------------------------------------

TOKEN_PLUS = "tok+QUERY/SECRET=42"
TOKEN_ENCODED = "abc%2Fdef123"
PASSWORD = "hunter2-PASSWORD"
API_KEY = "sk-live-API-KEY-SECRET"


def spellings(secret: str) -> set[str]:
    """Ways a secret could show up in a message: raw, decoded, percent-encoded, escaped."""
    from urllib.parse import unquote, unquote_plus

    found = set()
    for base in {secret, unquote(secret), unquote_plus(secret)}:
        found |= {
            base,
            quote(base, safe=""),
            quote(base, safe="").lower(),
            "".join(f"%{byte:02x}" for byte in base.encode()),
            repr(base)[1:-1],
        }
    return found


def assert_no_secret(text: str, *secrets: str) -> None:
    for secret in secrets:
        for form in spellings(secret):
            assert form not in text, f"{form!r} (a spelling of {secret!r}) leaked into {text!r}"


@pytest.mark.parametrize("mode", ["http", "api"])
async def test_an_echoed_query_token_never_leaks_in_any_encoding(
    embedding_server: EmbeddingServer, caplog: pytest.LogCaptureFixture, mode: str
) -> None:
    caplog.set_level(logging.WARNING)
    host = embedding_server.base_url.removeprefix("http://")
    url = f"http://svc:{PASSWORD}@{host}/echo-credentials?token={TOKEN_PLUS}&other={TOKEN_ENCODED}"
    client = EmbeddingClient(
        mode, http_url=url if mode == "http" else "", api_url=url if mode == "api" else "", api_key=API_KEY, model="m"
    )
    async with client:
        _, outcome = await client.embed_with_outcome(["a"])
    # The server really echoed them, in the reason phrase and the body.
    assert embedding_server.requests[-1].query == f"token={TOKEN_PLUS}&other={TOKEN_ENCODED}"
    assert outcome.error is not None
    assert outcome.error.startswith(f"mode={mode} / POST {embedding_server.url('echo-credentials')} failed: ")
    assert "HTTPStatusError: 401 Denied /echo-credentials?***" in outcome.error
    secrets = (TOKEN_PLUS, TOKEN_ENCODED, PASSWORD, API_KEY)
    assert_no_secret(outcome.error, *secrets)
    assert outcome.error in caplog.messages
    for record in caplog.records:
        assert_no_secret(record.getMessage(), *secrets)


@pytest.mark.parametrize("tail", ["\n", "\r\n", "\t"])
async def test_a_key_that_is_no_legal_header_is_refused_before_sending(
    embedding_server: EmbeddingServer, caplog: pytest.LogCaptureFixture, tail: str
) -> None:
    caplog.set_level(logging.DEBUG)
    key = API_KEY + tail
    async with EmbeddingClient("api", api_url=embedding_server.url("api-ok"), api_key=key, model="m") as client:
        value, outcome = await client.embed_with_outcome(["a"])
    assert value is None
    assert not outcome.attempted and not outcome.ok
    assert embedding_server.requests == []
    assert outcome.error is not None
    assert outcome.error.startswith(
        f"mode=api / POST {embedding_server.url('api-ok')} failed: LocalProtocolError: "
        "the API key is not a legal header value"
    )
    assert "nothing was sent" in outcome.error
    assert_no_secret(outcome.error, API_KEY)
    assert caplog.messages == [outcome.error]


async def test_a_key_with_a_non_ascii_character_is_refused_without_showing_it(
    embedding_server: EmbeddingServer,
) -> None:
    async with EmbeddingClient("api", api_url=embedding_server.url("api-ok"), api_key="sk-é-key", model="m") as c:
        _, outcome = await c.embed_with_outcome(["a"])
    assert outcome.error is not None and "a non-ASCII character" in outcome.error
    assert "é" not in outcome.error and embedding_server.requests == []


async def test_an_escaped_spelling_of_the_key_is_masked_too(caplog: pytest.LogCaptureFixture) -> None:
    # A legal key can still be spelt differently in a message: bytes reprs
    # double its backslashes.  A transport quoting the header that way must
    # not get it past the mask.
    key = "sk-live\\KEY'quoted"

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.LocalProtocolError(f"Illegal header value {request.headers['authorization'].encode()!r}")

    async with EmbeddingClient(
        "api", api_url="http://h:1/v1", api_key=key, model="m", transport=httpx.MockTransport(refuse)
    ) as client:
        _, outcome = await client.embed_with_outcome(["a"])
    assert outcome.error == 'mode=api / POST http://h:1/v1 failed: LocalProtocolError: Illegal header value b"***"'
    assert caplog.messages == [outcome.error]


# --- never raises -------------------------------------------------------------------


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("even the message is broken")


class UnprintableStatus(httpx.HTTPError):
    def __str__(self) -> str:
        raise ValueError("no")


@pytest.mark.parametrize("error", [Unprintable(), UnprintableStatus("x"), httpx.ReadTimeout("")])
async def test_an_exception_that_cannot_be_formatted_is_still_an_outcome(
    caplog: pytest.LogCaptureFixture, error: Exception
) -> None:
    def explode(request: httpx.Request) -> httpx.Response:
        raise error

    async with EmbeddingClient("http", http_url="http://h:1/e", transport=httpx.MockTransport(explode)) as client:
        value, outcome = await client.embed_with_outcome(["a"])
    assert value is None and outcome.attempted and not outcome.ok
    assert outcome.error is not None
    assert outcome.error.startswith(f"mode=http / POST http://h:1/e failed: {type(error).__name__}: ")
    assert caplog.messages == [outcome.error]


async def test_no_timeout_at_all_still_gives_an_outcome_for_a_transport_timeout() -> None:
    def stall(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("")

    async with EmbeddingClient(
        "http", http_url="http://h:1/e", timeout=None, transport=httpx.MockTransport(stall)
    ) as c:
        _, outcome = await c.embed_with_outcome(["a"])
    assert outcome.error == "mode=http / POST http://h:1/e failed: ReadTimeout: no answer within None s"


# --- the byte budget holds while decoding ------------------------------------------


@pytest.mark.parametrize("behaviour", ["gzip-bomb", "deflate-bomb"])
async def test_a_compression_bomb_stops_at_the_budget(embedding_server: EmbeddingServer, behaviour: str) -> None:
    budget = 1024 * 1024
    async with EmbeddingClient(
        "http", http_url=embedding_server.url(behaviour), max_response_bytes=budget, timeout=10
    ) as client:
        await client.embed_with_outcome(["warm the pool and the server's bomb cache"])
        tracemalloc.start()
        try:
            _, outcome = await client.embed_with_outcome(TEXTS)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    encoding = behaviour.partition("-")[0]
    assert outcome.attempted and not outcome.ok
    assert f"ResponseRejected: body passed the {budget}-byte budget while decoding {encoding}" in (outcome.error or "")
    # The bomb inflates to 64 MiB; what the call holds stays near the budget.
    assert peak < 4 * budget, peak


@pytest.mark.parametrize("behaviour", ["ok-gzip", "ok-deflate"])
async def test_an_encoded_answer_within_budget_is_decoded(embedding_server: EmbeddingServer, behaviour: str) -> None:
    async with EmbeddingClient("http", http_url=embedding_server.url(behaviour)) as client:
        value, outcome = await client.embed_with_outcome(TEXTS)
    assert outcome.ok and value == [vector_for("alpha"), vector_for("beta")]


async def test_an_encoding_the_client_cannot_bound_is_refused(embedding_server: EmbeddingServer) -> None:
    async with EmbeddingClient("http", http_url=embedding_server.url("unknown-encoding")) as client:
        _, outcome = await client.embed_with_outcome(TEXTS)
    assert "ResponseRejected: body is encoded as 'x-mystery', which this client does not decode" in (
        outcome.error or ""
    )


# --- evidence is one printable line ---------------------------------------------------


def is_inert(char: str) -> bool:
    return char.isprintable() and unicodedata.category(char) not in ("Cc", "Cf")


async def test_control_and_bidi_characters_are_escaped(
    embedding_server: EmbeddingServer, caplog: pytest.LogCaptureFixture
) -> None:
    async with EmbeddingClient("http", http_url=embedding_server.url("control-chars")) as client:
        _, outcome = await client.embed_with_outcome(TEXTS)
    error = outcome.error or ""
    assert all(is_inert(char) for char in error), error
    assert "500 Internal \\x1b[31mError\\x1b[0m\\x08\\x08 (model \\u202eenilno\\u202c not loaded \\x00\\x07" in error
    assert "\\u2066hidden\\u2069" in error
    assert caplog.messages == [error]


# --- other hostile answers -------------------------------------------------------------


async def test_a_reset_mid_body_is_a_failure_with_the_os_reason(embedding_server: EmbeddingServer) -> None:
    async with EmbeddingClient("http", http_url=embedding_server.url("reset-mid-body")) as client:
        _, outcome = await client.embed_with_outcome(TEXTS)
    assert outcome.attempted and not outcome.ok
    assert "/reset-mid-body failed: ReadError: [Errno 104] Connection reset by peer" in (outcome.error or "")


async def test_a_redirect_is_not_followed_and_the_key_stays_home(embedding_server: EmbeddingServer) -> None:
    async with EmbeddingClient(
        "api", api_url=embedding_server.url("redirect"), api_key=API_KEY, model="m", timeout=2
    ) as client:
        _, outcome = await client.embed_with_outcome(["a"])
    evidence = evidence_of(outcome)
    assert evidence is not None and (evidence.kind, evidence.status) == ("HTTPStatusError", 307)
    assert "307 Temporary Redirect" in (outcome.error or "")
    # One request, to the configured host: nothing went to the redirect target.
    assert [r.path for r in embedding_server.requests] == ["/redirect"]
    assert embedding_server.requests[0].headers["host"].startswith("127.0.0.1:")


async def test_a_503_carries_its_status_in_the_record(embedding_server: EmbeddingServer) -> None:
    async with EmbeddingClient("http", http_url=embedding_server.url("status-503")) as client:
        _, outcome = await client.embed_with_outcome(TEXTS)
    evidence = evidence_of(outcome)
    assert evidence is not None
    assert (evidence.kind, evidence.status, evidence.port) == ("HTTPStatusError", 503, embedding_server.port)
    assert evidence.line == outcome.error
    assert outcome.error.endswith("HTTPStatusError: 503 Service Unavailable (model loading)")


# --- the outcome stays the three-field contract -------------------------------------------


async def test_the_record_rides_along_without_changing_the_contract(closed_url: str) -> None:
    async with EmbeddingClient("http", http_url=closed_url) as client:
        _, outcome = await client.embed_with_outcome(TEXTS)
    assert outcome == EmbedOutcome(True, False, outcome.error)
    assert hash(outcome) == hash(EmbedOutcome(True, False, outcome.error))
    assert repr(outcome) == f"EmbedOutcome(attempted=True, ok=False, error={outcome.error!r})"
    attempted, ok, error = outcome.attempted, outcome.ok, outcome.error
    match outcome:
        case EmbedOutcome(a, o, e):
            assert (a, o, e) == (attempted, ok, error)
    evidence = evidence_of(outcome)
    assert evidence is not None and evidence.kind == "ConnectError" and evidence.line == error
    assert evidence_of(EmbedOutcome(True, False, error)) is None
