"""What happened on one embedding call.

`embed()` returns ``None`` both when embedding is switched off and when the
backend is dead, so a service cannot tell silence from failure.  The outcome
is returned *with* the value of the call it describes and is never stored on
the client: concurrent calls must not read each other's outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EmbedOutcome"]


@dataclass(frozen=True, slots=True)
class EmbedOutcome:
    """The outcome of one embedding call.

    attempted: a request was sent to a backend (a cache hit or mode ``none`` is not).
    ok: the call produced usable vectors.
    error: one redacted evidence line when the call failed, else ``None``.
    """

    attempted: bool
    ok: bool
    error: str | None = None
