"""The client's public types in one place; the package re-exports each of them.

They are what a service writes in its own annotations: the vectors it gets
back, the modes it may configure, the health states it may show, and the
advisory payload it attaches to a recall response beside ``messages``.  The
payload's keys and words are a contract with agents, which match on them, so
they are spelled out here once rather than read off a ``dict[str, Any]``.

Standard library only: `health` imports this module, and health must stay
importable without httpx.
"""

from __future__ import annotations

from typing import Literal, TypedDict

__all__ = [
    "Advisory",
    "AdvisoryReason",
    "AdvisoryScope",
    "HealthSnapshot",
    "HealthState",
    "Mode",
    "Severity",
    "Vectors",
]

#: One vector per text, in the order of the texts.
Vectors = list[list[float]]

#: The modes this client supports.  The client still takes any string (a
#: service passes its config through), and answers an unsupported one with an
#: outcome instead of an exception.
Mode = Literal["none", "http", "api"]

#: Where `EmbeddingHealth` stands; ``hint`` and ``fault`` are the degraded ones.
HealthState = Literal["unknown", "healthy", "hint", "fault"]

#: The two words services and agents match on: a fault is something failing
#: that someone must repair; a hint is a standing configuration with nothing
#: to fail.
Severity = Literal["fault", "hint"]

#: Which configuration or failure an advisory is about.
AdvisoryReason = Literal["embedding_backend_failing", "embedding_not_configured", "embedding_mode_unsupported"]

#: Who "already told" is remembered for: the caller's session, or the whole
#: process when a multi-session process cannot tell its callers apart.
AdvisoryScope = Literal["session", "process"]


class Advisory(TypedDict):
    """The payload a service attaches under ``advisory`` beside ``messages``."""

    degraded: bool
    severity: Severity
    reason: AdvisoryReason
    evidence: str
    runbook: str
    advisory_scope: AdvisoryScope


class HealthSnapshot(TypedDict):
    """A copy of `EmbeddingHealth`'s state, for status endpoints and tests."""

    state: HealthState
    mode: str | None
    reason: AdvisoryReason | None
    evidence: str | None
    consecutive_failures: int
    threshold: int
    enabled: bool
    multi_session: bool
    outage: int
    since: float
    sessions_remembered: int
