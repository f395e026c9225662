"""The scheduler's own tests: its vendored mcp_common imports from where it was vendored, and works.

Run with `python -m pytest lineages/consumers/scheduler/tests`.
"""

from __future__ import annotations

import sys

import pytest

from plait.conformance.servers import EmbeddingServer
from scheduler import dedupe
from scheduler._vendor import mcp_common


def test_the_vendored_copy_is_imported_from_the_scheduler_and_no_top_level_mcp_common_is() -> None:
    assert mcp_common.__name__ == "scheduler._vendor.mcp_common"
    assert mcp_common.embedding.EmbeddingClient is dedupe.EmbeddingClient
    assert not any(name == "mcp_common" or name.startswith("mcp_common.") for name in sys.modules)


@pytest.fixture
def server():
    with EmbeddingServer() as running:
        yield running


async def test_a_job_like_a_queued_one_is_refused(server) -> None:
    queue = dedupe.JobQueue.from_env({"EMBEDDING_MODE": "http", "EMBEDDING_URL": server.url("ok")})
    async with queue.client:
        first = await queue.submit("rebuild the search index")
        again = await queue.submit("rebuild the search index")
        other = await queue.submit("rotate the logs")
    assert first.accepted and first.outcome.ok and first.outcome.attempted
    assert not again.accepted and again.duplicate_of == "rebuild the search index"
    assert other.accepted
    assert [text for text, _ in queue.jobs] == ["rebuild the search index", "rotate the logs"]


async def test_a_dead_backend_degrades_to_exact_text_and_says_why(server) -> None:
    queue = dedupe.JobQueue.from_env({"EMBEDDING_MODE": "http", "EMBEDDING_URL": server.url("status-500")})
    async with queue.client:
        first = await queue.submit("rotate the logs")
        again = await queue.submit("rotate the logs")
    assert first.accepted and not first.outcome.ok and first.outcome.attempted
    assert first.outcome.error.startswith("mode=http / POST ")
    assert "HTTPStatusError" in first.outcome.error
    assert not again.accepted
