"""The JSON the runner, the worker and the verdicts exchange, typed.

A copy runs in a subprocess of its own (`worker`): the runner sends it one
`Request` on stdin and reads one `WorkerResult` from stdout, and `verdicts`
judges the `ScenarioFacts` inside it.  These types are that conversation,
written down once so that each side reads what the other writes; they are
standard-library typing only, because the worker imports this module before
it imports the copy it measures.

A fact the worker could not establish is absent rather than ``None``: a call
that hung has ``hung`` and ``elapsed`` and nothing else, a call that raised
has ``raised``.  That is why most of these dictionaries are ``total=False``.
"""

from __future__ import annotations

from typing import Literal, TypeAlias, TypedDict

__all__ = [
    "AdvisorySummary",
    "CallFact",
    "CallWire",
    "ExpectWire",
    "OutcomeWire",
    "ProblemJSON",
    "Request",
    "SCENARIO_TIERS",
    "Scalar",
    "ScenarioFacts",
    "ScenarioWire",
    "SettingsWire",
    "Status",
    "StepWire",
    "TargetWire",
    "Tier",
    "TIERS",
    "WorkerResult",
]

#: What a problem puts at stake: the contract services rely on, the safety of
#: the service, only sameness with the canonical client, or nothing of the
#: copy's at all: a module the environment lacks (numpy, where plait runs).
Tier = Literal["contract", "safety", "parity", "environment"]
#: The tiers in the order reports list them.
TIERS: tuple[Tier, ...] = ("contract", "safety", "parity", "environment")
#: The tiers a scenario may hold its expectations at: the environment is no expectation.
SCENARIO_TIERS: tuple[Tier, ...] = ("contract", "safety", "parity")

#: ``pass``: no problem; ``fail``: a contract or safety problem; ``parity``:
#: only differences from the canonical client; ``skip``: not applicable.
Status = Literal["pass", "fail", "parity", "skip"]

#: A JSON value a verdict shows as it is.
Scalar: TypeAlias = str | int | float | bool | None


class TargetWire(TypedDict):
    """The copy a worker imports: the module holding ``EmbeddingClient`` and where it must come from."""

    name: str
    import_name: str
    health_module: str | None
    sys_path: str
    package_dir: str


class SettingsWire(TypedDict):
    timeout: float
    slack: float
    guard: float
    width: int
    slow_seconds: float
    drip_interval: float
    drip_seconds: float
    oversize_bytes: int
    bomb_bytes: int


class ExpectWire(TypedDict):
    value: str | None
    attempted: bool | None
    ok: bool | None
    kind: str | None
    detail: str | None
    within: float


class CallWire(TypedDict):
    texts: list[str]
    expect: ExpectWire


class OutcomeWire(TypedDict):
    """An outcome given as data, fed to a copy's health the same for every copy."""

    attempted: bool
    ok: bool
    error: str | None


class StepWire(TypedDict):
    """One step of an advisory scenario (see `scenarios.Step`)."""

    action: str
    value: str | list[str] | OutcomeWire


class ScenarioWire(TypedDict):
    name: str
    kind: str
    server: str
    mode: str
    url: str
    api_key: str
    model: str
    timeout: float
    #: The contract's ideas (``byte_budget``...), mapped onto the copy's keywords by the worker.
    options: dict[str, int]
    wrap: str | None
    calls: list[CallWire]
    steps: list[StepWire]
    secrets: list[str]
    needs: list[str]


class Request(TypedDict):
    target: TargetWire
    settings: SettingsWire
    scenarios: list[ScenarioWire]
    #: A copy without ``embed_with_outcome`` is called through ``embed()`` (the canonical predates the
    #: contract too, so that is what copies are compared on); else it is only reported stale.
    embed_when_stale: bool


class CallFact(TypedDict, total=False):
    """What one call did, normalised so that copies compare."""

    value: str
    attempted: Scalar
    ok: Scalar
    error: str | None
    leaks: list[str]
    unprintable: list[str]
    elapsed: float
    logged: bool
    hung: str
    raised: str
    #: The module whose absence *raised* reports, when the copy does not carry it (`environment`).
    missing: str


class AdvisorySummary(TypedDict):
    """What the advisory contract fixes about a payload: its keys and its words."""

    keys: list[str]
    severity: Scalar
    reason: Scalar
    degraded: Scalar


class ScenarioFacts(TypedDict, total=False):
    """Everything the worker saw of one scenario."""

    calls: list[CallFact]
    endpoint: str
    requests: int
    advisories: list[AdvisorySummary | None]
    #: The copy has no ``embed_with_outcome``; its calls (if any) went through ``embed()``.
    stale: bool
    raised: str
    missing: str
    hung: str
    log_leaks: list[str]
    log_unprintable: list[str]
    log_leak_sources: list[str]
    log_unprintable_sources: list[str]
    #: The scenario's wall time in the worker, its calls and their set-up together.
    elapsed: float


class WorkerResult(TypedDict, total=False):
    """One copy's run, or the error that kept it from running."""

    error: str
    #: The module whose absence kept the copy from importing, when the copy does not carry it.
    missing: str
    file: str
    capabilities: dict[str, bool]
    keywords: dict[str, str]
    results: dict[str, ScenarioFacts]
    elapsed: float


class ProblemJSON(TypedDict):
    tier: Tier
    field: str
    expected: Scalar
    observed: Scalar
    text: str
