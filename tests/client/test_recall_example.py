"""The demo consumer's recall, against a real loopback embedding backend.

What a caller of cpersona sees: results either way, and an ``advisory`` key
only while embedding is degraded.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

CPERSONA_ROOT = Path(__file__).resolve().parents[2] / "lineages" / "consumers" / "cpersona"
if str(CPERSONA_ROOT) not in sys.path:
    sys.path.insert(0, str(CPERSONA_ROOT))

from cpersona import recall as cp  # noqa: E402
from cpersona._vendored_mcp_common.embedding_client import EmbeddingClient  # noqa: E402
from cpersona._vendored_mcp_common.embedding_client.health import EmbeddingHealth  # noqa: E402

from plait.conformance.servers import EmbeddingServer  # noqa: E402

MEMORIES = [
    "Tea with Mika on Sunday",
    "The boiler is serviced every March",
    "Passport expires in 2027",
]


def is_full(advisory: dict) -> bool:
    return "Notify the user:" in advisory["runbook"]


@pytest.fixture
async def client(embedding_server: EmbeddingServer) -> AsyncIterator[EmbeddingClient]:
    async with EmbeddingClient("http", http_url=embedding_server.base_url + "/embed", timeout=5) as c:
        yield c


@pytest.fixture
async def store(client: EmbeddingClient) -> cp.MemoryStore:
    s = cp.MemoryStore()
    for text in MEMORIES:
        s.add(text)
    # Vectors come through the maintenance path, as a real service's would.
    assert await cp.reembed_missing(s, client, health=EmbeddingHealth()) == len(MEMORIES)
    return s


async def test_healthy_recall_uses_vectors_and_has_no_advisory_key(
    client: EmbeddingClient, store: cp.MemoryStore
) -> None:
    h = EmbeddingHealth()
    # No word in common with any memory: only the vector path can answer.
    resp = await cp.recall("zzz qqq", store, mode="http", client=client, health=h)
    assert "advisory" not in resp
    assert len(resp["messages"]) == len(MEMORIES)


async def test_outage_falls_back_to_keywords_then_full_then_short(
    embedding_server: EmbeddingServer, client: EmbeddingClient, store: cp.MemoryStore
) -> None:
    h = EmbeddingHealth()
    await cp.recall("warm up", store, mode="http", client=client, health=h)
    embedding_server.default_behaviour = "status-500"

    # Distinct queries: a cached query would not reach the backend at all.
    first = await cp.recall("tea", store, mode="http", client=client, health=h)
    assert [m["text"] for m in first["messages"]] == ["Tea with Mika on Sunday"]
    assert "advisory" not in first  # one failure is debounced

    second = await cp.recall("boiler", store, mode="http", client=client, health=h)
    assert [m["text"] for m in second["messages"]] == ["The boiler is serviced every March"]
    adv = second["advisory"]
    assert is_full(adv)
    assert adv["severity"] == "fault"
    assert "500" in adv["evidence"] and f":{embedding_server.port}" in adv["evidence"]
    assert "CPERSONA_DEGRADED_ADVISORY" not in adv["runbook"]  # this health was not told its name

    third = await cp.recall("passport", store, mode="http", client=client, health=h)
    assert not is_full(third["advisory"])
    assert "500" in third["advisory"]["runbook"]

    embedding_server.default_behaviour = "ok"
    healed = await cp.recall("sunday", store, mode="http", client=client, health=h)
    assert "advisory" not in healed

    embedding_server.default_behaviour = "status-500"
    await cp.recall("march", store, mode="http", client=client, health=h)
    again = await cp.recall("2027", store, mode="http", client=client, health=h)
    assert is_full(again["advisory"])  # a new outage is told in full again


async def test_second_return_site_forwards_the_advisory_it_already_has(
    embedding_server: EmbeddingServer, client: EmbeddingClient, store: cp.MemoryStore
) -> None:
    h = EmbeddingHealth()
    embedding_server.default_behaviour = "status-500"
    await cp.recall("one", store, mode="http", client=client, health=h)
    await cp.recall("two", store, mode="http", client=client, health=h, session_key="other")

    composite = await cp.recall_with_recent(
        "tea", store, mode="http", client=client, health=h, session_key="s1", recent=2
    )
    texts = [m["text"] for m in composite["messages"]]
    assert texts[0] == "Tea with Mika on Sunday"
    assert "Passport expires in 2027" in texts  # the recent part
    # The one logical recall delivered the full runbook, not the reminder.
    assert is_full(composite["advisory"])

    later = await cp.recall("boiler", store, mode="http", client=client, health=h, session_key="s1")
    assert not is_full(later["advisory"])


async def test_composite_recall_stays_key_free_when_healthy(client: EmbeddingClient, store: cp.MemoryStore) -> None:
    resp = await cp.recall_with_recent("tea", store, mode="http", client=client, health=EmbeddingHealth())
    assert "advisory" not in resp


async def test_mode_none_answers_by_keyword_with_a_hint(store: cp.MemoryStore) -> None:
    h = EmbeddingHealth()
    first = await cp.recall("passport", store, mode="none", client=None, health=h)
    assert [m["text"] for m in first["messages"]] == ["Passport expires in 2027"]
    assert first["advisory"]["reason"] == "embedding_not_configured"
    assert first["advisory"]["severity"] == "hint"
    assert is_full(first["advisory"])
    second = await cp.recall("tea", store, mode="none", client=None, health=h)
    assert not is_full(second["advisory"])


async def test_setup_health_names_the_opt_out(monkeypatch: pytest.MonkeyPatch) -> None:
    from cpersona._vendored_mcp_common.embedding_client import health as vendored

    fresh = EmbeddingHealth()
    monkeypatch.setattr(vendored, "default", fresh)
    monkeypatch.delenv(cp.OPT_OUT_ENV, raising=False)
    cp.setup_health(multi_session=True)
    fresh.observe_config("none")
    adv = await cp.recall("tea", cp.MemoryStore(), mode="none", client=None)
    assert "CPERSONA_DEGRADED_ADVISORY=false" in adv["advisory"]["runbook"]

    monkeypatch.setenv(cp.OPT_OUT_ENV, "false")
    cp.setup_health()
    silenced = await cp.recall("tea", cp.MemoryStore(), mode="none", client=None)
    assert "advisory" not in silenced
