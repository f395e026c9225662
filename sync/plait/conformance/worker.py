"""Inside one copy's subprocess: import the copy, run every scenario against real servers, report facts.

``python -P -m plait.conformance.worker`` reads one JSON request on stdin
(the copy, the settings, the scenarios) and writes one JSON result on
stdout.  Each copy gets a process of its own because copies share package
names (two lineages are both ``mcp_common``) and module state (logging,
caches, health singletons): in one process they would contaminate each
other.  ``-P`` keeps the current directory off ``sys.path``, so the copy
imported is the one asked for and not whatever lies in the working directory.

The worker observes and never judges: it returns what each call did,
normalised (the value's shape, attempted/ok, the evidence line's type, the
wall time, whether a secret showed in the error or the logs, whether the
line is printable), and `verdicts` compares that with the scenario and with
the canonical client.  It imports nothing of plait but the servers and the
standard-library modules `wire`, `options` and `environment`, and httpx only
when a scenario wraps a transport, so it measures the copy alone.  A copy
that raises because a module is absent is told apart (`environment`): the
module is named, so that a numpy missing where plait runs is not scored
against the copy.

A copy is taken as it is built: the module holding ``EmbeddingClient`` is
imported (the runner found it by reading the source), each option a
scenario sets goes under the keyword the copy's constructor takes for it,
and the client is opened with ``async with`` or ``initialize()`` and closed
the same way.  A copy without ``embed_with_outcome`` is called through
``embed()``, so that copies which all predate the outcome contract can still
be compared on what they return.

Everything sent back is normalised so that copies compare: the servers'
ephemeral ports become ``{host}``, the socket directory ``{uds}``, and a
leaked secret is masked before it could reach a CI log through the report.
"""

from __future__ import annotations

import asyncio
import contextvars
import importlib
import inspect
import json
import logging
import math
import os
import shutil
import sys
import tempfile
import time
import unicodedata
from contextlib import ExitStack, suppress
from dataclasses import dataclass, field
from types import ModuleType, SimpleNamespace
from typing import Any, cast
from urllib.parse import parse_qsl, quote, unquote, unquote_plus, urlsplit

from .environment import missing_in_evidence, missing_module
from .options import IDEAS, keyword_for
from .servers import EmbeddingServer, api_vector_for, closed_port, vector_for
from .wire import (
    AdvisorySummary,
    CallFact,
    OutcomeWire,
    Request,
    Scalar,
    ScenarioFacts,
    ScenarioWire,
    SettingsWire,
    WorkerResult,
)

__all__ = ["main", "secret_spellings"]

# The scenario a log record belongs to: scenarios run concurrently, each in
# its own task, and a task's context follows every call it makes.
_SCENARIO: contextvars.ContextVar[str] = contextvars.ContextVar("plait_conform_scenario", default="")
_MASK = "‹secret›"
_MIN_SECRET_LEN = 4


def secret_spellings(secret: str) -> set[str]:
    """The ways *secret* could show up in a message: raw, decoded, percent-encoded, escaped."""
    found: set[str] = set()
    for base in {secret, secret.strip(), unquote(secret), unquote_plus(secret)}:
        if len(base) < _MIN_SECRET_LEN:
            continue
        found |= {
            base,
            quote(base, safe=""),
            quote(base, safe="").lower(),
            quote(base),
            "".join(f"%{byte:02x}" for byte in base.encode()),
            "".join(f"%{byte:02X}" for byte in base.encode()),
            repr(base)[1:-1],
            json.dumps(base)[1:-1],
        }
    return {form for form in found if len(form) >= _MIN_SECRET_LEN}


def _secrets_of(url: str, api_key: str, extra: list[str]) -> set[str]:
    """What must never be shown: the key, the URL's password and query values."""
    secrets = {api_key, *extra}
    try:
        parts = urlsplit(url)
    except ValueError:
        parts = None
    if parts is not None:
        if parts.password:
            secrets.add(parts.password)
        if parts.query:
            secrets.update(pair.partition("=")[2] for pair in parts.query.split("&"))
            secrets.update(value for _, value in parse_qsl(parts.query, keep_blank_values=True))
    return {s for s in secrets if len(s.strip()) >= _MIN_SECRET_LEN}


def _leaks(text: str, spellings: set[str]) -> list[str]:
    return sorted(form for form in spellings if form in text)


def _masked(text: str, spellings: set[str]) -> str:
    for form in sorted(spellings, key=len, reverse=True):
        text = text.replace(form, _MASK)
    return text


def _unprintable(text: str) -> list[str]:
    """The characters of *text* that could repaint a terminal or reorder a line, escaped."""
    bad = {c for c in text if not c.isprintable() or unicodedata.category(c) in ("Cc", "Cf")}
    return sorted(c.encode("unicode_escape").decode("ascii") for c in bad)


class _Capture(logging.Handler):
    """Every log record at INFO or above, filed under the scenario that caused it.

    INFO, not DEBUG: httpcore's DEBUG log prints status lines as servers sent
    them, for every copy alike; what a copy itself logs is what is judged.
    """

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: dict[str, list[tuple[int, str, str]]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception as exc:  # a copy's bad format string is a finding, not our crash
            message = f"<unformattable log record: {type(exc).__name__}>"
        self.records.setdefault(_SCENARIO.get(), []).append((record.levelno, record.name, message))


def _server(settings: SettingsWire, unix_path: str | None = None) -> EmbeddingServer:
    """A server that misbehaves as *settings* say, on TCP or on the unix socket *unix_path*."""
    return EmbeddingServer(
        width=settings["width"],
        slow_seconds=settings["slow_seconds"],
        drip_interval=settings["drip_interval"],
        drip_seconds=settings["drip_seconds"],
        oversize_bytes=settings["oversize_bytes"],
        bomb_bytes=settings["bomb_bytes"],
        unix_path=unix_path,
    )


class _Servers:
    """The real backends of one run: HTTP on an ephemeral port, a unix socket, a refusing port."""

    def __init__(self, settings: SettingsWire, stack: ExitStack) -> None:
        self.width = int(settings["width"])
        self.tcp = stack.enter_context(_server(settings))
        # sun_path holds ~108 bytes: a short directory under /tmp, not pytest's.
        self.folder = tempfile.mkdtemp(prefix="plait-conform-", dir="/tmp")
        stack.callback(shutil.rmtree, self.folder, True)
        self.uds = stack.enter_context(_server(settings, os.path.join(self.folder, "embed.sock")))
        self.missing_socket = os.path.join(self.folder, "nobody-listens.sock")
        self.refused_url = stack.enter_context(closed_port())

    def url_for(self, scenario: ScenarioWire) -> tuple[str, str, EmbeddingServer | None]:
        """(URL, uds path, server) of *scenario*, its template filled in."""
        server = self.uds if scenario["mode"] == "uds" else self.tcp
        behaviour = scenario["server"]
        if behaviour == "refused":
            if scenario["mode"] == "uds":
                url, socket_path, answering = server.url("ok"), self.missing_socket, None
            else:
                url, socket_path, answering = self.refused_url, "", None
        else:
            url, socket_path, answering = server.url(behaviour), server.unix_path or "", server
        host = urlsplit(url).netloc
        filled = scenario["url"].replace("{url}", url).replace("{host}", host)
        return filled, socket_path, answering

    def normalise(self, text: str) -> str:
        """*text* with this run's ports and socket directory replaced, so copies compare."""
        for netloc, placeholder in (
            (urlsplit(self.refused_url).netloc, "{host}"),
            (f"127.0.0.1:{self.tcp.port}", "{host}"),
            (self.folder, "{uds}"),
        ):
            text = text.replace(netloc, placeholder)
        return text

    def requests_with(self, server: EmbeddingServer | None, texts: frozenset[str]) -> int:
        """How many requests *server* received carrying any of *texts*."""
        pool = [server] if server is not None else [self.tcp, self.uds]
        count = 0
        for one in pool:
            for request in one.requests:
                body = request.body if isinstance(request.body, dict) else {}
                sent = body.get("texts", body.get("input", []))
                if isinstance(sent, list) and texts & {str(t) for t in sent}:
                    count += 1
        return count


def _safe_endpoint(url: str) -> str:
    """``scheme://host:port/path``, what the evidence line must name (the contract's form)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower())
    except ValueError:
        return "<unparseable url>"
    if not parts.scheme or not parts.hostname:
        return "<unparseable url>"
    return f"{parts.scheme.lower()}://{parts.hostname}:{port}{parts.path or '/'}"


def _expected_vectors(texts: list[str], mode: str, width: int) -> list[list[float]]:
    if mode == "api":
        rows = [api_vector_for(text, width) for text in texts]
        return [[value / math.hypot(*row) for value in row] for row in rows]
    return [vector_for(text, width) for text in texts]


def _shape(value: object, texts: list[str], mode: str, width: int) -> str:
    """``None``, ``[]``, ``<n>x<w>`` when the vectors are the server's, else what it is."""
    if value is None:
        return "None"
    if isinstance(value, list) and not value:
        return "[]"
    if not isinstance(value, list) or not all(isinstance(row, list) for row in value):
        return f"<{type(value).__name__}>"
    rows = cast(list[list[object]], value)
    widths = {len(row) for row in rows}
    shape = f"{len(rows)}x{widths.pop()}" if len(widths) == 1 else f"{len(rows)} ragged rows"
    expected = _expected_vectors(texts, mode, width)
    same = len(rows) == len(expected) and all(
        len(row) == len(want) and all(_near(a, b) for a, b in zip(row, want, strict=True))
        for row, want in zip(rows, expected, strict=True)
    )
    return shape if same else f"{shape} (not the server's vectors)"


def _near(a: object, b: float) -> bool:
    return isinstance(a, float) and not isinstance(a, bool) and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def _cannot_format(self: BaseException) -> str:
    raise RuntimeError("this exception's message cannot be formatted")


def _unprintable_transport(socket_path: str) -> object:
    """A real transport whose failures come out as an exception whose ``str()`` raises.

    No server can make httpx raise such a thing over a socket (httpcore wraps
    every failure in its own exceptions), but a transport a service plugs in
    can; the client's promise never to raise must hold for it too.
    """
    import httpx

    inner = httpx.AsyncHTTPTransport(uds=socket_path or None)

    class UnprintableError(httpx.TransportError):
        __str__ = _cannot_format
        __repr__ = _cannot_format

    class Wrapping(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            try:
                return await inner.handle_async_request(request)
            except httpx.TransportError as exc:
                raise UnprintableError("unused") from exc

        async def aclose(self) -> None:
            await inner.aclose()

    return Wrapping()


def _describe(exc: BaseException) -> str:
    try:
        return f"{type(exc).__name__}: {exc}"
    except Exception:
        return f"{type(exc).__name__}: (its message could not be formatted)"


class _Copy:
    """The imported copy and what it can do, found by looking at it, never by its name.

    *module* holds ``EmbeddingClient``; *health_module*, when the copy has
    one, ``EmbeddingHealth``; *package_dir* is where the copy lives, which
    tells its own modules from the environment's.  Which constructor keyword
    carries each of the contract's ideas comes from the client's signature
    (`options`).
    """

    def __init__(self, module: str, health_module: str | None, package_dir: str) -> None:
        self.import_name = module
        self.package_dir = package_dir
        self.module = importlib.import_module(module)
        client = getattr(self.module, "EmbeddingClient", None)
        if not inspect.isclass(client):
            raise ImportError(f"{module} exports no EmbeddingClient")
        # A copy's own class: what it takes and returns is only known by calling it.
        self.client: Any = client
        try:
            parameters = list(inspect.signature(client).parameters)
        except (TypeError, ValueError):
            parameters = []
        self.health: ModuleType | None = importlib.import_module(health_module) if health_module else None
        self.keywords = {idea: kw for idea in IDEAS if (kw := keyword_for(idea, parameters)) is not None}
        self.capabilities = {
            "embed_with_outcome": callable(getattr(client, "embed_with_outcome", None)),
            # The sibling's unix-socket transport: a client that takes a socket path.
            "uds": "uds_path" in parameters,
            "transport": "transport" in parameters,
            "health": self.health is not None and inspect.isclass(getattr(self.health, "EmbeddingHealth", None)),
            **{idea: idea in self.keywords for idea in IDEAS},
        }

    def missing(self, exc: BaseException) -> str | None:
        """The module *exc* says is absent, when it is the environment's and not the copy's own."""
        return missing_module(exc, self.import_name, self.package_dir)

    def missing_in(self, error: str) -> str | None:
        """The module an outcome's evidence says is absent, when it is the environment's."""
        return missing_in_evidence(error, self.import_name, self.package_dir)

    def outcome(self, fields: OutcomeWire) -> object:
        """An outcome given as data, built with the copy's own `EmbedOutcome` when it has one."""
        for home in (self.module, self.health):
            made = getattr(home, "EmbedOutcome", None) if home is not None else None
            if made is not None:
                return made(fields["attempted"], fields["ok"], fields["error"])
        return SimpleNamespace(**fields)


@dataclass
class _Setup:
    """One scenario's client, made and opened before any call starts, and what judging its calls needs.

    entered: it was opened with ``__aenter__``, so it is closed with
    ``__aexit__`` (else with ``close()``, when it has one).
    """

    scenario: ScenarioWire
    client: Any = None
    server: EmbeddingServer | None = None
    endpoint: str = ""
    spellings: set[str] = field(default_factory=set)
    failed: ScenarioFacts | None = None
    entered: bool = False


class _Run:
    def __init__(
        self, copy: _Copy, servers: _Servers, settings: SettingsWire, capture: _Capture, embed_when_stale: bool
    ) -> None:
        self.copy = copy
        self.servers = servers
        self.settings = settings
        self.capture = capture
        # A stale copy goes through embed() only where that is what copies are compared on.
        self.through_embed = embed_when_stale and not copy.capabilities["embed_with_outcome"]
        self.stale = not copy.capabilities["embed_with_outcome"]

    def arguments(self, scenario: ScenarioWire, url: str, socket_path: str) -> dict[str, object]:
        """The constructor's keywords for *scenario*: the contract's, and each option under the copy's own name."""
        mode = scenario["mode"]
        kwargs: dict[str, object] = {
            "http_url": "" if mode == "api" else url,
            "api_url": url if mode == "api" else "",
            "api_key": scenario["api_key"],
            "model": scenario["model"],
            "timeout": scenario["timeout"],
        }
        # Every idea is in the copy's keywords here: a scenario whose option it cannot take does not run.
        kwargs |= {self.copy.keywords[idea]: value for idea, value in scenario["options"].items()}
        if mode == "uds":
            kwargs["uds_path"] = socket_path
        if scenario["wrap"] == "unprintable":
            kwargs["transport"] = _unprintable_transport(socket_path)
        return kwargs

    async def setup(self, scenario: ScenarioWire) -> _Setup:
        """Make and open the scenario's client, as *scenario* configures it.

        Every client is made before any call starts: making one is
        synchronous work (httpx loads the CA bundle for each transport) that
        would otherwise stall the other scenarios' calls and eat into their
        deadlines.  A client is opened the way it offers: ``async with``
        (``__aenter__``), else ``initialize()``, else not at all.
        """
        url, socket_path, server = self.servers.url_for(scenario)
        setup = _Setup(scenario, server=server, endpoint=_safe_endpoint(url))
        if self.stale and not self.through_embed and scenario["kind"] == "call":
            return setup  # a stale copy, only reported as such: nothing to call
        secrets = _secrets_of(url, scenario["api_key"], scenario["secrets"])
        setup.spellings = set().union(*(secret_spellings(s) for s in secrets))
        _SCENARIO.set(scenario["name"])
        try:
            setup.client = self.copy.client(scenario["mode"], **self.arguments(scenario, url, socket_path))
            enter = getattr(setup.client, "__aenter__", None)
            initialize = getattr(setup.client, "initialize", None)
            if enter is not None:
                opened = await enter()
                setup.entered = True
                setup.client = opened if opened is not None else setup.client
            elif initialize is not None:
                await initialize()
        except Exception as exc:  # a copy whose constructor refuses the contract's arguments
            setup.failed = self.raised(exc, setup)
        return setup

    def described(self, exc: BaseException, setup: _Setup) -> tuple[str, str | None]:
        """What *exc* was, fit for a report, and the module it says is absent when that is the environment's."""
        return self.servers.normalise(_masked(_describe(exc), setup.spellings)), self.copy.missing(exc)

    def raised(self, exc: BaseException, setup: _Setup) -> ScenarioFacts:
        """A scenario that could not run past *exc*."""
        text, missing = self.described(exc, setup)
        facts: ScenarioFacts = {"raised": text}
        if missing is not None:
            facts["missing"] = missing
        return facts

    async def guarded(self, awaitable: Any) -> tuple[Any, float, str | None]:
        """(result, seconds, why it did not finish) of one call, given up on at the guard."""
        started = time.monotonic()
        try:
            result = await asyncio.wait_for(awaitable, self.settings["guard"])
        except TimeoutError:
            return None, time.monotonic() - started, f"still running after {self.settings['guard']:g} s"
        return result, time.monotonic() - started, None

    def observe_call(self, value: object, outcome: object, texts: list[str], setup: _Setup) -> CallFact:
        error = getattr(outcome, "error", None)
        fact: CallFact = {
            "value": _shape(value, texts, setup.scenario["mode"], self.servers.width),
            "attempted": _scalar(getattr(outcome, "attempted", None)),
            "ok": _scalar(getattr(outcome, "ok", None)),
            "error": None,
            "leaks": [],
            "unprintable": [],
        }
        if error is not None:
            text = str(error)
            fact["leaks"] = sorted({_how(form) for form in _leaks(text, setup.spellings)})
            fact["unprintable"] = _unprintable(text)
            fact["error"] = self.servers.normalise(_masked(text, setup.spellings))
            missing = self.copy.missing_in(text)
            if missing is not None:
                fact["missing"] = missing
        return fact

    async def scenario(self, setup: _Setup) -> ScenarioFacts:
        """Run one prepared scenario and gather its facts, its log records included."""
        scenario = setup.scenario
        _SCENARIO.set(scenario["name"])
        raw_errors: list[str | None] = []
        started = time.monotonic()
        try:
            if setup.failed is not None:
                result: ScenarioFacts = setup.failed
            elif scenario["kind"] == "advisory":
                result = await self.advisory(setup)
            else:
                result = await self.calls(setup, raw_errors)
        except Exception as exc:  # a copy that breaks the runner's own calls: a finding for this scenario only
            result = self.raised(exc, setup)
        finally:
            await _close(setup)
        # The scenario's wall time: what a rerun of a verdict timing could flip reports, both times.
        result["elapsed"] = round(time.monotonic() - started, 3)
        logs = self.capture.records.get(scenario["name"], [])
        leaking = [(name, form) for _, name, m in logs for form in _leaks(m, setup.spellings)]
        unprintable = [(name, c) for _, name, m in logs for c in _unprintable(m)]
        result["log_leaks"] = sorted({_how(form) for _, form in leaking})
        result["log_unprintable"] = sorted({c for _, c in unprintable})
        # Which loggers: a copy's own, or a library's it drives (httpx logs every request's URL at INFO).
        result["log_leak_sources"] = sorted({name for name, _ in leaking})
        result["log_unprintable_sources"] = sorted({name for name, _ in unprintable})
        warnings = {m for level, _, m in logs if level >= logging.WARNING}
        for call, raw in zip(result.get("calls", []), raw_errors, strict=False):
            call["logged"] = raw in warnings
        return result

    async def calls(self, setup: _Setup, raw_errors: list[str | None]) -> ScenarioFacts:
        """Every call of *setup*'s scenario, in order; *raw_errors* gets each call's error as the copy wrote it.

        A stale copy (no ``embed_with_outcome``) is only reported stale,
        unless the canonical client predates the outcome contract too: then
        it is called through ``embed()``, whose value is what the copies are
        compared on.
        """
        stale = self.stale
        if stale and not self.through_embed:
            return {"stale": True}
        scenario = setup.scenario
        facts: list[CallFact] = []
        try:
            for call in scenario["calls"]:
                texts = list(call["texts"])
                method = setup.client.embed if stale else setup.client.embed_with_outcome
                answer, seconds, hung = await self.guarded(method(texts))
                if hung is not None:
                    facts.append({"hung": hung, "elapsed": round(seconds, 3)})
                    break
                if stale:
                    fact: CallFact = {"value": _shape(answer, texts, scenario["mode"], self.servers.width)}
                else:
                    value, outcome = answer
                    fact = self.observe_call(value, outcome, texts, setup)
                    raw = getattr(outcome, "error", None)
                    raw_errors.append(raw if isinstance(raw, str) else None)
                fact["elapsed"] = round(seconds, 3)
                facts.append(fact)
        except Exception as exc:
            text, missing = self.described(exc, setup)
            facts.append({"raised": text} if missing is None else {"raised": text, "missing": missing})
        sent = frozenset(t for call in scenario["calls"] for t in call["texts"])
        result: ScenarioFacts = {
            "calls": facts,
            "endpoint": self.servers.normalise(setup.endpoint),
            "requests": self.servers.requests_with(setup.server, sent),
        }
        if stale:
            result["stale"] = True
        return result

    async def advisory(self, setup: _Setup) -> ScenarioFacts:
        assert self.copy.health is not None  # advisory scenarios need health: they do not run without it
        health = self.copy.health.EmbeddingHealth()
        advisories: list[AdvisorySummary | None] = []
        for step in setup.scenario["steps"]:
            action, value = step["action"], step["value"]
            if action == "config":
                health.observe_config(value)
            elif action == "outcome":
                health.observe(self.copy.outcome(cast(OutcomeWire, value)))
            elif action == "advise":
                advisories.append(_summary(health.maybe_advisory(value or None)))
            else:
                if not self.copy.capabilities["embed_with_outcome"]:
                    return {"stale": True}
                answer, _seconds, hung = await self.guarded(setup.client.embed_with_outcome(list(value)))
                if hung is not None:
                    return {"hung": hung}
                observe = health.observe if action == "embed" else health.observe_maintenance
                observe(answer[1])
        return {"advisories": advisories}


def _scalar(value: object) -> Scalar:
    """*value* as JSON shows it: itself when it is a JSON scalar, else its type in angle brackets."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return f"<{type(value).__name__}>"


def _summary(payload: object) -> AdvisorySummary | None:
    """What the advisory contract fixes: the keys and the severity word (plus reason, degraded)."""
    if payload is None:
        return None
    if not isinstance(payload, dict):
        return {"keys": [], "severity": f"<{type(payload).__name__}>", "reason": None, "degraded": None}
    return {
        "keys": sorted(str(k) for k in payload),
        "severity": _scalar(payload.get("severity")),
        "reason": _scalar(payload.get("reason")),
        "degraded": _scalar(payload.get("degraded")),
    }


def _how(form: str) -> str:
    """How a leaked spelling was written, without repeating it (the report may go to a CI log)."""
    if "%" in form:
        return "percent-encoded"
    if "\\" in form:
        return "escaped"
    return "raw or decoded"


async def _close(setup: _Setup) -> None:
    """Close the client the way it was opened; closing is not what is under test."""
    client = setup.client
    if client is None:
        return
    with suppress(Exception):
        if setup.entered:
            await client.__aexit__(None, None, None)
        elif (close := getattr(client, "close", None)) is not None:
            await close()


async def _run_all(run: _Run, scenarios: list[ScenarioWire]) -> dict[str, ScenarioFacts]:
    setups = [await run.setup(scenario) for scenario in scenarios]
    results = await asyncio.gather(*(run.scenario(setup) for setup in setups))
    return {s["name"]: r for s, r in zip(scenarios, results, strict=True)}


def work(request: Request) -> WorkerResult:
    """Run *request* (copy, settings, scenarios) in this process and return the facts."""
    target = request["target"]
    started = time.monotonic()
    sys.path.insert(0, target["sys_path"])
    try:
        copy = _Copy(target["import_name"], target["health_module"], target["package_dir"])
    except Exception as exc:
        failed: WorkerResult = {
            "error": f"cannot import {target['import_name']} from {target['sys_path']}: {_describe(exc)}"
        }
        missing = missing_module(exc, target["import_name"], target["package_dir"])
        if missing is not None:
            failed["missing"] = missing
        return failed
    where = os.path.realpath(getattr(copy.module, "__file__", "") or "")
    expected = os.path.realpath(target["package_dir"])
    if not where.startswith(expected + os.sep):
        return {"error": f"{target['import_name']} was imported from {where}, not from {expected}"}
    capture = _Capture()
    root = logging.getLogger()
    root.addHandler(capture)
    root.setLevel(logging.INFO)
    settings = request["settings"]
    with ExitStack() as stack:
        servers = _Servers(settings, stack)
        run = _Run(copy, servers, settings, capture, request.get("embed_when_stale", False))
        wanted = [s for s in request["scenarios"] if _applies(s, copy.capabilities)]
        results = asyncio.run(_run_all(run, wanted))
    return {
        "file": where,
        "capabilities": copy.capabilities,
        "keywords": copy.keywords,
        "results": results,
        "elapsed": round(time.monotonic() - started, 3),
    }


def _applies(scenario: ScenarioWire, capabilities: dict[str, bool]) -> bool:
    return all(capabilities.get(need, False) for need in scenario["needs"])


def main() -> None:
    """Read the request on stdin, write the result on stdout; the copy's own prints go to stderr."""
    result_stream = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    request: Request = json.load(sys.stdin)
    result = work(request)
    json.dump(result, result_stream)
    result_stream.flush()


if __name__ == "__main__":
    main()
