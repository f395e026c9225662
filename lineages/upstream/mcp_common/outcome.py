"""What happened on one embedding call (upstream's copy of the canonical EmbedOutcome)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EmbedOutcome:
    attempted: bool
    ok: bool
    error: str | None = None
