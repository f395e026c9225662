"""The client options a scenario may set: the contract's ideas, not one copy's keyword names.

Copies name the same idea differently: the canonical client's ``max_width``
is the upstream's ``max_dimension``.  A scenario says ``byte_budget`` or
``expected_width``; the worker passes it under whichever keyword the copy's
constructor takes, found in its signature.  A copy that takes none of them
cannot be given the option, and the scenario does not apply to it: a skip
with the reason, never a ``TypeError`` counted against the copy.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["IDEAS", "keyword_for"]

#: idea → (the words a skip uses, the keywords a constructor may spell it as, in order of preference)
IDEAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "byte_budget": ("byte-budget", ("max_response_bytes", "max_body_bytes", "max_bytes")),
    "expected_width": ("expected-width", ("expected_width", "expected_dimension", "expected_dim")),
    "max_width": ("maximum-width", ("max_width", "max_dimension", "max_dim")),
    "cache_size": ("cache-size", ("cache_size", "cache_maxsize")),
}


def keyword_for(idea: str, parameters: Iterable[str]) -> str | None:
    """The keyword among *parameters* (a constructor's) that carries *idea*, or ``None``."""
    taken = set(parameters)
    return next((keyword for keyword in IDEAS[idea][1] if keyword in taken), None)
