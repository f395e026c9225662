"""The upstream lineage's own addition: a client configured from EMBEDDING_* variables.

Run with `python -m pytest lineages/upstream/tests` (one lineage per run: each
lineage is its own `mcp_common`).
"""

from __future__ import annotations

import asyncio

import mcp_common
import mcp_common.embedding
from plait.conformance.servers import EmbeddingServer, vector_for


def test_client_from_env_reads_the_embedding_settings() -> None:
    client = mcp_common.client_from_env(
        {"EMBEDDING_MODE": "http", "EMBEDDING_URL": "http://127.0.0.1:9/embed", "EMBEDDING_TIMEOUT": "2.5"}
    )
    assert isinstance(client, mcp_common.embedding.EmbeddingClient)
    assert (client.mode, client.endpoint, client.timeout) == ("http", "http://127.0.0.1:9/embed", 2.5)


def test_client_from_env_defaults_to_embedding_off() -> None:
    assert mcp_common.client_from_env({}).mode == "none"


def test_the_configured_client_embeds() -> None:
    with EmbeddingServer() as server:
        client = mcp_common.client_from_env({"EMBEDDING_MODE": "http", "EMBEDDING_URL": server.url("ok")})

        async def run() -> list[list[float]] | None:
            async with client:
                return await client.embed(["hello"])

        assert asyncio.run(run()) == [vector_for("hello")]
