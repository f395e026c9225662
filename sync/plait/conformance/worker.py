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
the canonical client.  It imports nothing of plait but the servers, and
httpx only when a scenario wraps a transport, so it measures the copy alone.

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
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, unquote_plus, urlsplit

from .servers import EmbeddingServer, api_vector_for, closed_port, vector_for

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
        self.records: dict[str, list[tuple[int, str]]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception as exc:  # a copy's bad format string is a finding, not our crash
            message = f"<unformattable log record: {type(exc).__name__}>"
        self.records.setdefault(_SCENARIO.get(), []).append((record.levelno, message))


class _Servers:
    """The real backends of one run: HTTP on an ephemeral port, a unix socket, a refusing port."""

    def __init__(self, settings: dict[str, Any], stack: ExitStack) -> None:
        knobs = {
            key: settings[key]
            for key in (
                "width",
                "slow_seconds",
                "drip_interval",
                "drip_seconds",
                "oversize_bytes",
                "bomb_bytes",
            )
        }
        self.width = int(settings["width"])
        self.tcp = stack.enter_context(EmbeddingServer(**knobs))
        # sun_path holds ~108 bytes: a short directory under /tmp, not pytest's.
        self.folder = tempfile.mkdtemp(prefix="plait-conform-", dir="/tmp")
        stack.callback(shutil.rmtree, self.folder, True)
        self.uds = stack.enter_context(EmbeddingServer(unix_path=os.path.join(self.folder, "embed.sock"), **knobs))
        self.missing_socket = os.path.join(self.folder, "nobody-listens.sock")
        self.refused_url = stack.enter_context(closed_port())

    def url_for(self, scenario: dict[str, Any]) -> tuple[str, str, EmbeddingServer | None]:
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


def _shape(value: Any, texts: list[str], mode: str, width: int) -> str:
    """``None``, ``[]``, ``<n>x<w>`` when the vectors are the server's, else what it is."""
    if value is None:
        return "None"
    if isinstance(value, list) and not value:
        return "[]"
    if not isinstance(value, list) or not all(isinstance(row, list) for row in value):
        return f"<{type(value).__name__}>"
    widths = {len(row) for row in value}
    shape = f"{len(value)}x{widths.pop()}" if len(widths) == 1 else f"{len(value)} ragged rows"
    expected = _expected_vectors(texts, mode, width)
    same = len(value) == len(expected) and all(
        len(row) == len(want) and all(_near(a, b) for a, b in zip(row, want, strict=True))
        for row, want in zip(value, expected, strict=True)
    )
    return shape if same else f"{shape} (not the server's vectors)"


def _near(a: Any, b: float) -> bool:
    return isinstance(a, float) and not isinstance(a, bool) and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def _cannot_format(self: BaseException) -> str:
    raise RuntimeError("this exception's message cannot be formatted")


def _unprintable_transport(socket_path: str) -> Any:
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
    """The imported copy and what it can do, found by looking, never by its name."""

    def __init__(self, package: str) -> None:
        self.package = importlib.import_module(package)
        client = getattr(self.package, "EmbeddingClient", None)
        if not inspect.isclass(client):
            raise ImportError(f"{package} exports no EmbeddingClient")
        self.client: Any = client
        try:
            parameters = set(inspect.signature(client).parameters)
        except (TypeError, ValueError):
            parameters = set()
        self.parameters = parameters
        self.health: Any = None
        try:
            self.health = importlib.import_module(f"{package}.health")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.health":
                raise
        capabilities = {
            "embed_with_outcome": callable(getattr(client, "embed_with_outcome", None)),
            # The sibling's unix-socket transport: a client that takes a socket path.
            "uds": "uds_path" in parameters,
            "transport": "transport" in parameters,
            "health": self.health is not None and inspect.isclass(getattr(self.health, "EmbeddingHealth", None)),
        }
        self.capabilities = capabilities

    def outcome(self, fields: dict[str, Any]) -> Any:
        """An outcome given as data, built with the copy's own `EmbedOutcome` when it has one."""
        made = getattr(self.package, "EmbedOutcome", None)
        if made is None:
            return SimpleNamespace(**fields)
        return made(fields["attempted"], fields["ok"], fields["error"])


@dataclass
class _Setup:
    """One scenario's client, made before any call starts, and what judging its calls needs."""

    scenario: dict[str, Any]
    client: Any = None
    server: EmbeddingServer | None = None
    endpoint: str = ""
    spellings: set[str] = field(default_factory=set)
    failed: str | None = None


class _Run:
    def __init__(self, copy: _Copy, servers: _Servers, settings: dict[str, Any], capture: _Capture) -> None:
        self.copy = copy
        self.servers = servers
        self.settings = settings
        self.capture = capture

    async def setup(self, scenario: dict[str, Any]) -> _Setup:
        """Make and open the scenario's client, as *scenario* configures it.

        Every client is made before any call starts: making one is
        synchronous work (httpx loads the CA bundle for each transport) that
        would otherwise stall the other scenarios' calls and eat into their
        deadlines.
        """
        url, socket_path, server = self.servers.url_for(scenario)
        setup = _Setup(scenario, server=server, endpoint=_safe_endpoint(url))
        if not self.copy.capabilities["embed_with_outcome"] and scenario["kind"] == "call":
            return setup  # a stale copy: nothing to call
        secrets = _secrets_of(url, scenario["api_key"], scenario["secrets"])
        setup.spellings = set().union(*(secret_spellings(s) for s in secrets))
        mode = scenario["mode"]
        kwargs: dict[str, Any] = {
            "http_url": "" if mode == "api" else url,
            "api_url": url if mode == "api" else "",
            "api_key": scenario["api_key"],
            "model": scenario["model"],
            "timeout": scenario["timeout"],
            **scenario["options"],
        }
        if mode == "uds":
            kwargs["uds_path"] = socket_path
        if scenario["wrap"] == "unprintable":
            kwargs["transport"] = _unprintable_transport(socket_path)
        _SCENARIO.set(scenario["name"])
        try:
            setup.client = self.copy.client(mode, **kwargs)
            initialize = getattr(setup.client, "initialize", None)
            if initialize is not None:
                await initialize()
        except Exception as exc:  # a copy whose constructor refuses the contract's arguments
            setup.failed = self.servers.normalise(_masked(_describe(exc), setup.spellings))
        return setup

    async def guarded(self, awaitable: Any) -> tuple[Any, float, str | None]:
        """(result, seconds, why it did not finish) of one call, given up on at the guard."""
        started = time.monotonic()
        try:
            result = await asyncio.wait_for(awaitable, self.settings["guard"])
        except TimeoutError:
            return None, time.monotonic() - started, f"still running after {self.settings['guard']:g} s"
        return result, time.monotonic() - started, None

    def observe_call(self, value: Any, outcome: Any, texts: list[str], setup: _Setup) -> dict[str, Any]:
        error = getattr(outcome, "error", None)
        fact: dict[str, Any] = {
            "value": _shape(value, texts, setup.scenario["mode"], self.servers.width),
            "attempted": getattr(outcome, "attempted", None),
            "ok": getattr(outcome, "ok", None),
            "error": None,
            "leaks": [],
            "unprintable": [],
        }
        if error is not None:
            text = str(error)
            fact["leaks"] = sorted({_how(form) for form in _leaks(text, setup.spellings)})
            fact["unprintable"] = _unprintable(text)
            fact["error"] = self.servers.normalise(_masked(text, setup.spellings))
        return fact

    async def scenario(self, setup: _Setup) -> dict[str, Any]:
        """Run one prepared scenario and gather its facts, its log records included."""
        scenario = setup.scenario
        _SCENARIO.set(scenario["name"])
        try:
            if setup.failed is not None:
                result: dict[str, Any] = {"raised": setup.failed}
            elif scenario["kind"] == "advisory":
                result = await self.advisory(setup)
            else:
                result = await self.calls(setup)
        except Exception as exc:  # a copy that breaks the runner's own calls: a finding for this scenario only
            result = {"raised": self.servers.normalise(_masked(_describe(exc), setup.spellings))}
        finally:
            await _close(setup.client)
        logs = self.capture.records.get(scenario["name"], [])
        result["log_leaks"] = sorted({_how(form) for _, m in logs for form in _leaks(m, setup.spellings)})
        result["log_unprintable"] = sorted({c for _, m in logs for c in _unprintable(m)})
        warnings = {m for level, m in logs if level >= logging.WARNING}
        for call in result.get("calls", []):
            call["logged"] = call.pop("_raw_error", None) in warnings
        return result

    async def calls(self, setup: _Setup) -> dict[str, Any]:
        if not self.copy.capabilities["embed_with_outcome"]:
            return {"stale": True}
        scenario = setup.scenario
        facts: list[dict[str, Any]] = []
        try:
            for call in scenario["calls"]:
                texts = list(call["texts"])
                answer, seconds, hung = await self.guarded(setup.client.embed_with_outcome(texts))
                if hung is not None:
                    facts.append({"hung": hung, "elapsed": round(seconds, 3)})
                    break
                value, outcome = answer
                fact = self.observe_call(value, outcome, texts, setup)
                fact["elapsed"] = round(seconds, 3)
                fact["_raw_error"] = getattr(outcome, "error", None)
                facts.append(fact)
        except Exception as exc:
            facts.append({"raised": self.servers.normalise(_masked(_describe(exc), setup.spellings))})
        sent = frozenset(t for call in scenario["calls"] for t in call["texts"])
        return {
            "calls": facts,
            "endpoint": self.servers.normalise(setup.endpoint),
            "requests": self.servers.requests_with(setup.server, sent),
        }

    async def advisory(self, setup: _Setup) -> dict[str, Any]:
        health = self.copy.health.EmbeddingHealth()
        advisories: list[dict[str, Any] | None] = []
        for action, value in setup.scenario["steps"]:
            if action == "config":
                health.observe_config(value)
            elif action == "outcome":
                health.observe(self.copy.outcome(value))
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


def _summary(payload: Any) -> dict[str, Any] | None:
    """What the advisory contract fixes: the keys and the severity word (plus reason, degraded)."""
    if payload is None:
        return None
    if not isinstance(payload, dict):
        return {"keys": [], "severity": f"<{type(payload).__name__}>", "reason": None, "degraded": None}
    return {
        "keys": sorted(str(k) for k in payload),
        "severity": payload.get("severity"),
        "reason": payload.get("reason"),
        "degraded": payload.get("degraded"),
    }


def _how(form: str) -> str:
    """How a leaked spelling was written, without repeating it (the report may go to a CI log)."""
    if "%" in form:
        return "percent-encoded"
    if "\\" in form:
        return "escaped"
    return "raw or decoded"


async def _close(client: Any) -> None:
    close = getattr(client, "close", None) if client is not None else None
    if close is not None:
        with suppress(Exception):  # closing is not what is under test
            await close()


async def _run_all(run: _Run, scenarios: list[dict[str, Any]]) -> dict[str, Any]:
    setups = [await run.setup(scenario) for scenario in scenarios]
    results = await asyncio.gather(*(run.scenario(setup) for setup in setups))
    return {s["name"]: r for s, r in zip(scenarios, results, strict=True)}


def work(request: dict[str, Any]) -> dict[str, Any]:
    """Run *request* (copy, settings, scenarios) in this process and return the facts."""
    target = request["target"]
    started = time.monotonic()
    sys.path.insert(0, target["sys_path"])
    try:
        copy = _Copy(target["import_name"])
    except Exception as exc:
        return {"error": f"cannot import {target['import_name']} from {target['sys_path']}: {_describe(exc)}"}
    where = os.path.realpath(getattr(copy.package, "__file__", "") or "")
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
        run = _Run(copy, servers, settings, capture)
        wanted = [s for s in request["scenarios"] if _applies(s, copy.capabilities)]
        results = asyncio.run(_run_all(run, wanted))
    return {
        "file": where,
        "capabilities": copy.capabilities,
        "results": results,
        "elapsed": round(time.monotonic() - started, 3),
    }


def _applies(scenario: dict[str, Any], capabilities: dict[str, bool]) -> bool:
    return all(capabilities.get(need, False) for need in scenario.get("needs", []))


def main() -> None:
    """Read the request on stdin, write the result on stdout; the copy's own prints go to stderr."""
    result_stream = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    request = json.load(sys.stdin)
    result = work(request)
    json.dump(result, result_stream)
    result_stream.flush()


if __name__ == "__main__":
    main()
