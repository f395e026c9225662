"""Secrets in the endpoint URL or the api key never reach an outcome or a log."""

from __future__ import annotations

import logging

import httpx
import pytest

from embedding_client import EmbeddingClient
from embedding_client.outcome import Redactor
from plait.conformance.servers import EmbeddingServer

PASSWORD = "hunter2-PASSWORD"
TOKEN = "tok-QUERY-SECRET-42"
API_KEY = "sk-live-API-KEY-SECRET"
SECRETS = (PASSWORD, TOKEN, API_KEY)


def secret_url(base: str, behaviour: str) -> str:
    host = base.removeprefix("http://")
    return f"http://svc-user:{PASSWORD}@{host}/{behaviour}?token={TOKEN}&v=2"


def assert_clean(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret!r} leaked into {text!r}"


@pytest.mark.parametrize("behaviour", ["echo-500", "slow", "nan", "empty", "oversized-chunked"])
@pytest.mark.parametrize("mode", ["http", "api"])
async def test_outcomes_and_every_log_record_are_redacted(
    embedding_server: EmbeddingServer,
    caplog: pytest.LogCaptureFixture,
    mode: str,
    behaviour: str,
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, httpx and httpcore included
    url = secret_url(embedding_server.base_url, behaviour)
    if mode == "api":
        client = EmbeddingClient("api", api_key=API_KEY, api_url=url, model="m", timeout=0.2, max_response_bytes=65536)
    else:
        client = EmbeddingClient("http", http_url=url, api_key=API_KEY, timeout=0.2, max_response_bytes=65536)
    async with client:
        _, outcome = await client.embed_with_outcome(["a", "b"])
    assert outcome.attempted and not outcome.ok and outcome.error
    safe = f"http://127.0.0.1:{embedding_server.port}/{behaviour}"
    assert f"mode={mode} / POST {safe} " in outcome.error
    assert_clean(outcome.error)
    assert "svc-user" not in outcome.error
    assert caplog.records, "the failure must be logged"
    assert outcome.error in caplog.messages
    for record in caplog.records:
        assert_clean(record.getMessage())
    assert_clean(repr(client))


async def test_echoed_secrets_in_an_error_body_are_masked(embedding_server: EmbeddingServer) -> None:
    # The server quotes the query string and the Authorization header back;
    # the evidence still quotes the body (it is useful) but masks them.
    url = secret_url(embedding_server.base_url, "echo-500")
    async with EmbeddingClient("api", api_key=API_KEY, api_url=url, model="m") as client:
        _, outcome = await client.embed_with_outcome(["a"])
    assert outcome.error is not None
    assert outcome.error.endswith(
        "HTTPStatusError: 500 Internal Server Error (rejected /echo-500?*** authorization=***)"
    )
    async with EmbeddingClient("http", http_url=url) as client:
        _, outcome = await client.embed_with_outcome(["a"])
    assert outcome.error is not None
    # Basic auth is only base64 of the password, so it is masked too.
    assert outcome.error.endswith("authorization=***)")


async def test_refused_connection_to_a_secret_url(closed_url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    url = secret_url(closed_url.rsplit("/", 1)[0], "embed")
    async with EmbeddingClient("http", http_url=url, timeout=0.5) as client:
        _, outcome = await client.embed_with_outcome(["a"])
    assert outcome.error is not None and "ConnectError" in outcome.error
    assert_clean(outcome.error)
    for record in caplog.records:
        assert_clean(record.getMessage())


async def test_raw_url_inside_an_exception_is_replaced_by_the_safe_form(
    caplog: pytest.LogCaptureFixture,
) -> None:
    url = f"http://svc-user:{PASSWORD}@backend.internal:8080/embed?token={TOKEN}"

    def explode(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"cannot reach {request.url} (tried {url})")

    client = EmbeddingClient("http", http_url=url, transport=httpx.MockTransport(explode))
    async with client:
        _, outcome = await client.embed_with_outcome(["a"])
    assert outcome.error == (
        "mode=http / POST http://backend.internal:8080/embed failed: ConnectError: "
        "cannot reach http://backend.internal:8080/embed "
        "(tried http://backend.internal:8080/embed)"
    )
    assert caplog.messages == [outcome.error]


@pytest.mark.parametrize(
    ("raw", "safe"),
    [
        ("https://u:p@Example.COM/v1/embeddings?key=abcdef#frag", "https://example.com:443/v1/embeddings"),
        ("http://[::1]:9000/embed", "http://[::1]:9000/embed"),
        ("http://host", "http://host:80/"),
        ("not a url", "<unparseable url>"),
        ("http://host:99999999/x", "<unparseable url>"),
    ],
)
def test_endpoint_redaction(raw: str, safe: str) -> None:
    assert Redactor("http", raw).endpoint == safe
