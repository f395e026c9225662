"""The package's public API is its ``__all__``: importable, sorted, complete, and typed as it behaves."""

from __future__ import annotations

import inspect
import types
import typing

import pytest

import embedding_client
from embedding_client import (
    Advisory,
    AdvisoryReason,
    AdvisoryScope,
    EmbeddingClient,
    EmbeddingHealth,
    EmbedOutcome,
    HealthSnapshot,
    HealthState,
    Mode,
    Severity,
    _types,
)
from embedding_client.outcome import Redactor
from plait.conformance.servers import EmbeddingServer

# Modules that keep public names because services and lineages import them by
# path (cpersona imports embedding_client.health; the upstream lineage carries
# client.py as mcp_common.embedding).  Only `health` is part of the API itself.
MODULES = {"boundary", "cache", "client", "health", "outcome", "packing"}


def test_all_is_sorted() -> None:
    assert embedding_client.__all__ == sorted(embedding_client.__all__)


def test_every_name_in_all_is_importable() -> None:
    namespace: dict[str, object] = {}
    exec("from embedding_client import *", namespace)
    assert {name for name in namespace if name != "__builtins__"} == set(embedding_client.__all__)


def test_nothing_public_is_left_out_of_all() -> None:
    public = {name for name in vars(embedding_client) if not name.startswith("_")}
    modules = {name for name in public if isinstance(getattr(embedding_client, name), types.ModuleType)}
    assert modules <= MODULES, "a new public module: export it or make it private"
    assert public - modules == set(embedding_client.__all__) - {"health"}


def test_the_public_types_are_all_exported() -> None:
    assert set(_types.__all__) <= set(embedding_client.__all__)


def test_every_default_a_signature_shows_is_exported() -> None:
    for name in MODULES:
        module = getattr(embedding_client, name)
        for constant in (c for c in vars(module) if c.startswith("DEFAULT_")):
            assert getattr(embedding_client, constant, None) == getattr(module, constant), constant
    client = inspect.signature(EmbeddingClient).parameters
    assert client["max_response_bytes"].default == embedding_client.DEFAULT_MAX_RESPONSE_BYTES
    assert client["max_width"].default == embedding_client.DEFAULT_MAX_WIDTH
    health = inspect.signature(EmbeddingHealth).parameters
    assert health["max_sessions"].default == embedding_client.DEFAULT_MAX_SESSIONS


def _failed() -> EmbedOutcome:
    evidence = Redactor("http", "http://127.0.0.1:1/embed").failure("ConnectError", "refused")
    return EmbedOutcome(True, False, evidence.line, evidence=evidence)


def _literal(alias: object) -> set[object]:
    return set(typing.get_args(alias))


@pytest.mark.parametrize("scope", ["session", "process"])
def test_the_advisory_payload_is_what_its_typeddict_says(scope: str) -> None:
    fault = EmbeddingHealth(multi_session=scope == "process")
    fault.observe_config("http")
    fault.observe(_failed())
    fault.observe(_failed())
    hint = EmbeddingHealth(multi_session=scope == "process")
    hint.observe_config("grpc")
    for health, severity, reason in ((fault, "fault", "embedding_backend_failing"), (hint, "hint", None)):
        advisory = health.maybe_advisory()
        assert advisory is not None
        assert set(advisory) == Advisory.__required_keys__ == set(typing.get_type_hints(Advisory))
        assert advisory["degraded"] is True
        assert advisory["severity"] == severity and severity in _literal(Severity)
        assert advisory["reason"] in _literal(AdvisoryReason)
        assert reason is None or advisory["reason"] == reason
        assert advisory["advisory_scope"] == scope and scope in _literal(AdvisoryScope)


def test_every_health_state_is_a_state_the_snapshot_reaches() -> None:
    health = EmbeddingHealth(threshold=1)
    seen = [health.snapshot()["state"]]
    health.observe(EmbedOutcome(True, True))
    seen.append(health.snapshot()["state"])
    health.observe(_failed())
    seen.append(health.snapshot()["state"])
    health.observe_config("none")
    seen.append(health.snapshot()["state"])
    assert seen == ["unknown", "healthy", "fault", "hint"]
    assert set(seen) == _literal(HealthState)
    assert set(health.snapshot()) == HealthSnapshot.__required_keys__


async def test_the_modes_literal_names_exactly_the_modes_the_client_serves(embedding_server: EmbeddingServer) -> None:
    served = set()
    for mode in ("none", "http", "api", "uds", "grpc", "HTTP"):
        url = embedding_server.url("ok" if mode != "api" else "api-ok")
        async with EmbeddingClient(mode, http_url=url, api_url=url, model="m") as client:
            _, outcome = await client.embed_with_outcome(["alpha"])
        if outcome.error is None or "is not a supported embedding mode" not in outcome.error:
            served.add(mode)
    assert served == _literal(Mode)
