"""The sibling's own transport: embedding through a unix socket (mode "uds").

Run with `python -m pytest lineages/sibling/tests` (one lineage per run: each
lineage is its own `mcp_common`).  The server is the real loopback embedding
backend of plait's conformance kit, listening on a unix socket.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest
from mcp_common.embedding import EmbeddingClient
from plait.conformance.servers import EmbeddingServer, vector_for


@pytest.fixture
def socket_server() -> Iterator[EmbeddingServer]:
    # sun_path is ~108 bytes: keep the socket in a short /tmp directory.
    directory = tempfile.mkdtemp(prefix="sibling-uds-", dir="/tmp")
    try:
        with EmbeddingServer(unix_path=os.path.join(directory, "embed.sock")) as server:
            yield server
    finally:
        shutil.rmtree(directory, ignore_errors=True)


async def _embed(client: EmbeddingClient, texts: list[str]) -> list[list[float]] | None:
    async with client:
        return await client.embed(texts)


def test_uds_embeds_through_the_socket(socket_server: EmbeddingServer) -> None:
    client = EmbeddingClient("uds", http_url=socket_server.url("ok"), uds_path=socket_server.unix_path or "")
    assert asyncio.run(_embed(client, ["hello", "world"])) == [vector_for("hello"), vector_for("world")]
    assert [r.path for r in socket_server.requests] == ["/ok"]


def test_a_uds_failure_is_logged_as_uds_evidence(
    socket_server: EmbeddingServer, caplog: pytest.LogCaptureFixture
) -> None:
    client = EmbeddingClient("uds", http_url=socket_server.url("status-500"), uds_path=socket_server.unix_path or "")
    with caplog.at_level(logging.WARNING):
        assert asyncio.run(_embed(client, ["hello"])) is None
    evidence = [r.getMessage() for r in caplog.records]
    assert evidence and evidence[0].startswith("mode=uds / POST http://localhost:80/status-500 failed: HTTPStatusError")


def test_a_missing_socket_fails_without_raising(caplog: pytest.LogCaptureFixture) -> None:
    client = EmbeddingClient("uds", http_url="http://localhost/embed", uds_path="/tmp/no-such-plait-socket")
    with caplog.at_level(logging.WARNING):
        assert asyncio.run(_embed(client, ["hello"])) is None
    assert any(r.getMessage().startswith("mode=uds / POST http://localhost:80/embed failed:") for r in caplog.records)
