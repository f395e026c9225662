"""The scheduler's own tests: its vendored mcp_common imports from where it was vendored, and works.

Run with `python -m pytest lineages/consumers/scheduler/tests`.
"""

from __future__ import annotations

import asyncio
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


def _submit_all(queue: dedupe.JobQueue, descriptions: list[str]) -> list[dedupe.Submission]:
    # asyncio.run, not an async test: these tests run in any checkout, with no pytest plugin configured.
    async def run() -> list[dedupe.Submission]:
        async with queue.client:
            return [await queue.submit(text) for text in descriptions]

    return asyncio.run(run())


def test_a_job_like_a_queued_one_is_refused(server) -> None:
    queue = dedupe.JobQueue.from_env({"EMBEDDING_MODE": "http", "EMBEDDING_URL": server.url("ok")})
    first, again, other = _submit_all(
        queue, ["rebuild the search index", "rebuild the search index", "rotate the logs"]
    )
    assert first.accepted and first.outcome.ok and first.outcome.attempted
    assert not again.accepted and again.duplicate_of == "rebuild the search index"
    assert other.accepted
    assert [text for text, _ in queue.jobs] == ["rebuild the search index", "rotate the logs"]


def test_a_dead_backend_degrades_to_exact_text_and_says_why(server) -> None:
    queue = dedupe.JobQueue.from_env({"EMBEDDING_MODE": "http", "EMBEDDING_URL": server.url("status-500")})
    first, again = _submit_all(queue, ["rotate the logs", "rotate the logs"])
    assert first.accepted and not first.outcome.ok and first.outcome.attempted
    assert first.outcome.error.startswith("mode=http / POST ")
    assert "HTTPStatusError" in first.outcome.error
    assert not again.accepted
