"""The conformance scenarios: data, read from ``scenarios.toml`` and checked on load.

The scenarios are the contract every copy of the client is held to, so they
are data shipped inside the package: a consumer's CI runs exactly the set
the canonical client passes, and adding a case is editing one TOML table.
This module only reads and validates them; running them is `worker`'s job,
judging the results `verdicts`'.

A scenario names a server behaviour (`plait.conformance.servers`), a client
configuration and either a sequence of calls, each with its expected
normalised outcome, or (``kind = "advisory"``) a sequence of health steps
with the advisory payloads they must produce.  Mistakes in the data (an
unknown key, a behaviour the server does not have, a pattern that does not
compile) are refused with the scenario named, so a typo cannot silently
turn a check off.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, cast

from ..errors import PlaitError
from .options import IDEAS
from .servers import API_BEHAVIOURS, BEHAVIOURS
from .wire import SCENARIO_TIERS, CallWire, ExpectWire, OutcomeWire, Scalar, ScenarioWire, SettingsWire, StepWire, Tier

__all__ = [
    "CONTRACT_KEYS",
    "Call",
    "Expect",
    "ScenarioSet",
    "Scenario",
    "Settings",
    "Step",
    "load_scenarios",
    "scenarios_path",
]

#: The advisory payload's published keys; a copy may add keys, never drop one.
CONTRACT_KEYS = frozenset({"degraded", "severity", "reason", "evidence", "runbook"})

# Not behaviours of the server but places a scenario may point at.
_PSEUDO_SERVERS = frozenset({"refused", "by-text"})
_MODES_WITH_URL = frozenset({"http", "api", "uds"})
_STEP_ACTIONS = ("config", "embed", "maintenance", "outcome", "advise")
_OUTCOME_KEYS = {"attempted", "ok", "error"}


def scenarios_path() -> Path:
    """The scenario file shipped in the package."""
    return Path(str(resources.files("plait.conformance").joinpath("scenarios.toml")))


@dataclass(frozen=True)
class Settings:
    """How the servers misbehave and how long calls may take, for every scenario.

    timeout: the client timeout a scenario gets unless it names its own.
    slack: what a call may take beyond its timeout before it counts as late
        (the loop's wake-up, closing the connection, a loaded machine).
    guard: how long the runner waits for one call of a copy that ignores its
        deadline before it gives up on it (reported as hung).
    """

    timeout: float = 5.0
    slack: float = 1.0
    guard: float = 6.0
    width: int = 8
    slow_seconds: float = 3.0
    drip_interval: float = 0.05
    drip_seconds: float = 3.0
    oversize_bytes: int = 2 * 1024 * 1024
    bomb_bytes: int = 16 * 1024 * 1024

    def to_wire(self) -> SettingsWire:
        return {
            "timeout": self.timeout,
            "slack": self.slack,
            "guard": self.guard,
            "width": self.width,
            "slow_seconds": self.slow_seconds,
            "drip_interval": self.drip_interval,
            "drip_seconds": self.drip_seconds,
            "oversize_bytes": self.oversize_bytes,
            "bomb_bytes": self.bomb_bytes,
        }


@dataclass(frozen=True)
class Expect:
    """The normalised outcome one call must have; ``None`` leaves a field unchecked.

    value: ``None``, ``[]`` or ``<count>x<width>`` (the vectors the server
        sent, value for value); anything else a copy returns is shown as it is.
    kind: the failure's type as the evidence line names it (``ConnectError``,
        ``HTTPStatusError``...), ``no-embeddings`` for a 2xx without vectors,
        ``unsupported-mode``, ``no-url``, or ``none`` for no error at all.
    detail: a regular expression searched in the evidence line's detail.
    within: the wall-time ceiling in seconds.
    """

    value: str | None = None
    attempted: bool | None = None
    ok: bool | None = None
    kind: str | None = None
    detail: str | None = None
    within: float = 0.0

    def to_wire(self) -> ExpectWire:
        return {
            "value": self.value,
            "attempted": self.attempted,
            "ok": self.ok,
            "kind": self.kind,
            "detail": self.detail,
            "within": self.within,
        }


@dataclass(frozen=True)
class Call:
    texts: tuple[str, ...]
    expect: Expect

    def to_wire(self) -> CallWire:
        return {"texts": list(self.texts), "expect": self.expect.to_wire()}


@dataclass(frozen=True)
class Step:
    """One step of an advisory scenario: ``config`` a mode, ``embed`` or
    ``maintenance`` texts (the call's outcome is fed to health), ``outcome``
    (an outcome given as data, the same for every copy, fed to health), or
    ``advise`` (``maybe_advisory`` with a session key, ``""`` for none)."""

    action: str
    value: str | list[str] | OutcomeWire

    def to_wire(self) -> StepWire:
        return {"action": self.action, "value": self.value}


@dataclass(frozen=True)
class Scenario:
    """One scenario; see the header of ``scenarios.toml`` for every field."""

    name: str
    about: str
    kind: str
    server: str
    mode: str
    url: str
    api_key: str = ""
    model: str = "test-model"
    timeout: float = 5.0
    options: Mapping[str, int] = field(default_factory=dict)
    wrap: str | None = None
    calls: tuple[Call, ...] = ()
    steps: tuple[Step, ...] = ()
    advisories: tuple[Mapping[str, Scalar] | None, ...] = ()
    requests: int | None = None
    secrets: tuple[str, ...] = ()
    no_secret: bool = True
    tier: Tier = "contract"

    @property
    def needs(self) -> frozenset[str]:
        """The capabilities a copy must have for this scenario to apply: an option is one too."""
        needs = set(self.options)
        if self.mode == "uds":
            needs.add("uds")
        if self.wrap is not None:
            needs.add("transport")
        if self.kind == "advisory":
            needs.add("health")
        return frozenset(needs)

    @property
    def texts(self) -> frozenset[str]:
        """Every text this scenario sends."""
        sent = {text for call in self.calls for text in call.texts}
        sent |= {text for step in self.steps if isinstance(step.value, list) for text in step.value}
        return frozenset(sent)

    def to_wire(self) -> ScenarioWire:
        """The scenario as the worker subprocess reads it (JSON-able)."""
        return {
            "name": self.name,
            "kind": self.kind,
            "server": self.server,
            "mode": self.mode,
            "url": self.url,
            "api_key": self.api_key,
            "model": self.model,
            "timeout": self.timeout,
            "options": dict(self.options),
            "wrap": self.wrap,
            "calls": [call.to_wire() for call in self.calls],
            "steps": [step.to_wire() for step in self.steps],
            "secrets": list(self.secrets),
            "needs": sorted(self.needs),
        }


@dataclass(frozen=True)
class ScenarioSet:
    """The settings and the scenarios of one file, in file order."""

    path: Path
    settings: Settings
    scenarios: tuple[Scenario, ...]

    def named(self, patterns: list[str] | tuple[str, ...]) -> ScenarioSet:
        """Only the scenarios whose names match one of *patterns* (shell globs)."""
        import fnmatch

        if not patterns:
            return self
        chosen = tuple(s for s in self.scenarios if any(fnmatch.fnmatchcase(s.name, p) for p in patterns))
        if not chosen:
            raise PlaitError(f"no scenario matches {', '.join(patterns)}", path=str(self.path))
        return ScenarioSet(self.path, self.settings, chosen)

    def get(self, name: str) -> Scenario:
        for scenario in self.scenarios:
            if scenario.name == name:
                return scenario
        raise KeyError(name)


# -- reading ------------------------------------------------------------------

_SCENARIO_KEYS = {
    "name",
    "about",
    "kind",
    "server",
    "mode",
    "url",
    "api_key",
    "model",
    "timeout",
    "options",
    "wrap",
    "texts",
    "expect",
    "calls",
    "steps",
    "advisories",
    "requests",
    "secrets",
    "no_secret",
    "tier",
}
_EXPECT_KEYS = {"value", "attempted", "ok", "kind", "detail", "within"}

_WRAPS = {"unprintable"}
_ADVISORY_KEYS = {"severity", "reason", "degraded"}


class _Reader:
    """Typed access to one TOML table, with errors that name where they are."""

    def __init__(self, table: Any, where: str, path: Path) -> None:
        if not isinstance(table, Mapping):
            raise PlaitError(f"{where} must be a table", path=str(path))
        self.table = table
        self.where = where
        self.path = path

    def fail(self, message: str) -> PlaitError:
        return PlaitError(f"{self.where}: {message}", path=str(self.path))

    def only(self, allowed: set[str]) -> None:
        unknown = sorted(set(self.table) - allowed)
        if unknown:
            raise self.fail(f"unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(allowed))})")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
        value = self.table.get(key, default)
        if value is default:
            return value
        # bool is an int in Python; a number field must not take true/false.
        if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
            raise self.fail(f"'{key}' must be {_type_words(kind)}, not {value!r}")
        return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _type_words(kind: type | tuple[type, ...]) -> str:
    return " or ".join(k.__name__ for k in _as_tuple(kind))


def _texts(reader: _Reader, key: str) -> tuple[str, ...]:
    texts = reader.get(key, list)
    if texts is None or not all(isinstance(t, str) for t in texts):
        raise reader.fail(f"'{key}' must be a list of strings")
    return tuple(texts)


def _expect(table: Any, where: str, path: Path, default_within: float) -> Expect:
    reader = _Reader(table, where, path)
    reader.only(_EXPECT_KEYS)
    detail = reader.get("detail", str)
    if detail is not None:
        try:
            re.compile(detail)
        except re.error as exc:
            raise reader.fail(f"'detail' is not a regular expression: {exc}") from None
    return Expect(
        value=reader.get("value", str),
        attempted=reader.get("attempted", bool),
        ok=reader.get("ok", bool),
        kind=reader.get("kind", str),
        detail=detail,
        within=float(reader.get("within", (int, float), default_within)),
    )


def _steps(reader: _Reader) -> tuple[Step, ...]:
    raw = reader.get("steps", list, [])
    steps = []
    for index, entry in enumerate(raw):
        step = _Reader(entry, f"{reader.where} steps[{index}]", reader.path)
        if len(step.table) != 1:
            raise step.fail(f'a step is one of {", ".join(_STEP_ACTIONS)}, e.g. {{ embed = ["text"] }}')
        action, value = next(iter(step.table.items()))
        if action not in _STEP_ACTIONS:
            raise step.fail(f"unknown step {action!r} (known: {', '.join(_STEP_ACTIONS)})")
        if action in ("embed", "maintenance"):
            value = list(_texts(step, action))
        elif action == "outcome":
            outcome = _Reader(value, f"{step.where} outcome", reader.path)
            outcome.only(_OUTCOME_KEYS)
            value = {
                "attempted": outcome.get("attempted", bool, False),
                "ok": outcome.get("ok", bool, False),
                "error": outcome.get("error", str),
            }
        elif not isinstance(value, str):
            raise step.fail(f"'{action}' takes a string")
        steps.append(Step(action, value))
    return tuple(steps)


def _advisories(reader: _Reader, steps: tuple[Step, ...]) -> tuple[Mapping[str, Scalar] | None, ...]:
    raw = reader.get("advisories", list, [])
    out: list[Mapping[str, Scalar] | None] = []
    for index, entry in enumerate(raw):
        if entry == "none":
            out.append(None)
            continue
        item = _Reader(entry, f"{reader.where} advisories[{index}]", reader.path)
        item.only(_ADVISORY_KEYS)
        kinds = {"severity": str, "reason": str, "degraded": bool}
        out.append({key: item.get(key, kinds[key]) for key in item.table})
    advise = sum(step.action == "advise" for step in steps)
    if len(out) != advise:
        raise reader.fail(f"{advise} advise step(s) but {len(out)} expected advisories")
    return tuple(out)


def _options(reader: _Reader) -> dict[str, int]:
    """The scenario's client options: the contract's ideas (`options.IDEAS`), each a whole number."""
    table = _Reader(reader.get("options", Mapping, {}), f"{reader.where} options", reader.path)
    table.only(set(IDEAS))
    return {idea: table.get(idea, int) for idea in table.table}


def _scenario(table: Any, index: int, path: Path, settings: Settings) -> Scenario:
    reader = _Reader(table, f"scenario #{index + 1}", path)
    name = reader.get("name", str)
    if not name:
        raise reader.fail("'name' is required")
    reader.where = f"scenario {name!r}"
    reader.only(_SCENARIO_KEYS)
    kind = reader.get("kind", str, "call")
    if kind not in ("call", "advisory"):
        raise reader.fail(f"'kind' is call or advisory, not {kind!r}")
    server = reader.get("server", str, "ok")
    if server not in BEHAVIOURS and server not in API_BEHAVIOURS and server not in _PSEUDO_SERVERS:
        raise reader.fail(f"server behaviour {server!r} is not one plait.conformance.servers knows")
    mode = reader.get("mode", str, "http")
    timeout = float(reader.get("timeout", (int, float), settings.timeout))
    options = _options(reader)
    tier = reader.get("tier", str, "contract")
    if tier not in SCENARIO_TIERS:
        raise reader.fail(f"'tier' is one of {', '.join(SCENARIO_TIERS)}, not {tier!r}")
    wrap = reader.get("wrap", str)
    if wrap is not None and wrap not in _WRAPS:
        raise reader.fail(f"'wrap' is one of {', '.join(sorted(_WRAPS))}")
    within = timeout + settings.slack
    calls: list[Call] = []
    if "texts" in reader.table or "expect" in reader.table:
        if "calls" in reader.table:
            raise reader.fail("give either texts + expect (one call) or calls, not both")
        calls.append(
            Call(_texts(reader, "texts"), _expect(reader.get("expect", Mapping, {}), reader.where, path, within))
        )
    for number, entry in enumerate(reader.get("calls", list, [])):
        call = _Reader(entry, f"{reader.where} calls[{number}]", path)
        call.only({"texts", "expect"})
        calls.append(Call(_texts(call, "texts"), _expect(call.get("expect", Mapping, {}), call.where, path, within)))
    steps = _steps(reader)
    if kind == "call" and (not calls or steps):
        raise reader.fail("a call scenario needs texts + expect, or calls (and no steps)")
    if kind == "advisory" and (calls or not steps):
        raise reader.fail("an advisory scenario needs steps (and no calls)")
    url = reader.get("url", str, "{url}" if mode in _MODES_WITH_URL else "")
    requests = reader.get("requests", int)
    return Scenario(
        name=name,
        about=reader.get("about", str, ""),
        kind=kind,
        server=server,
        mode=mode,
        url=url,
        api_key=reader.get("api_key", str, ""),
        model=reader.get("model", str, "test-model"),
        timeout=timeout,
        options=options,
        wrap=wrap,
        calls=tuple(calls),
        steps=steps,
        advisories=_advisories(reader, steps),
        requests=requests,
        secrets=_texts(reader, "secrets") if "secrets" in reader.table else (),
        no_secret=reader.get("no_secret", bool, True),
        tier=cast(Tier, tier),
    )


def _check_counted_texts(scenarios: list[Scenario], path: Path) -> None:
    """A scenario that counts the requests it caused must own its texts.

    The server sees every scenario of a copy at once; requests are told
    apart by their texts, so two scenarios sharing a text would count each
    other's.
    """
    owners: dict[str, list[str]] = {}
    for scenario in scenarios:
        for text in scenario.texts:
            owners.setdefault(text, []).append(scenario.name)
    for scenario in scenarios:
        if scenario.requests is None:
            continue
        for text in sorted(scenario.texts):
            if len(owners[text]) > 1:
                shared = ", ".join(n for n in owners[text] if n != scenario.name)
                raise PlaitError(
                    f"scenario {scenario.name!r} counts requests, but its text {text!r} is also sent by {shared}",
                    path=str(path),
                )


def load_scenarios(path: str | Path | None = None) -> ScenarioSet:
    """The scenarios in *path* (default: the file shipped in the package), validated."""
    source = Path(path) if path is not None else scenarios_path()
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PlaitError(f"cannot read the scenarios: {exc.strerror}", path=str(source)) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PlaitError(f"the scenarios do not parse: {exc}", path=str(source)) from None
    top = _Reader(data, "the scenario file", source)
    top.only({"settings", "scenario"})
    settings_table = _Reader(data.get("settings", {}), "[settings]", source)
    settings_table.only(set(Settings.__dataclass_fields__))
    defaults = Settings()
    settings = Settings(
        **{key: type(getattr(defaults, key))(settings_table.get(key, (int, float))) for key in settings_table.table}
    )
    raw = top.get("scenario", list, [])
    scenarios = [_scenario(table, index, source, settings) for index, table in enumerate(raw)]
    seen: set[str] = set()
    for scenario in scenarios:
        if scenario.name in seen:
            raise PlaitError(f"two scenarios are called {scenario.name!r}", path=str(source))
        seen.add(scenario.name)
    _check_counted_texts(scenarios, source)
    return ScenarioSet(source, settings, tuple(scenarios))
