"""`plait probe`: embed one text through the canonical client and say what happened.

This is what an operator runs when recall looks degraded.  It uses the very
client the services vendor, so a probe that passes means the services' calls
can pass too, and a probe that fails shows the same evidence line their logs
show, plus what to check next.  Rendering lives in `plait.cli.probe_cmd`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from embedding_client import EmbeddingClient, Evidence, evidence_of

__all__ = ["DEFAULT_TEXT", "MODES", "ProbeResult", "ProbeUsageError", "hints", "probe", "run_probe"]

DEFAULT_TEXT = "plait probe"
MODES = ("http", "api")


class ProbeUsageError(ValueError):
    """The probe was asked something it cannot do (an unknown mode, no URL)."""


@dataclass(frozen=True)
class ProbeResult:
    """What one probe call found.  ``endpoint`` is redacted; ``width`` is set when ok.

    ``evidence`` is the client's record behind ``error``: what `hints` reads,
    so nothing is parsed back out of the line.
    """

    ok: bool
    attempted: bool
    error: str | None
    mode: str
    endpoint: str
    width: int | None
    elapsed_ms: float
    evidence: Evidence | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The result as the JSON object `plait probe --json` prints."""
        return {
            "schema": 1,
            "ok": self.ok,
            "attempted": self.attempted,
            "error": self.error,
            "mode": self.mode,
            "endpoint": self.endpoint,
            "width": self.width,
            "elapsed_ms": self.elapsed_ms,
        }


async def probe(
    mode: str,
    url: str,
    *,
    text: str = DEFAULT_TEXT,
    api_key: str = "",
    model: str = "",
    timeout: float = 10.0,
    transport: httpx.AsyncBaseTransport | None = None,
) -> ProbeResult:
    """Embed *text* once against *url* and report the outcome."""
    if mode not in MODES:
        raise ProbeUsageError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if not url:
        raise ProbeUsageError("a URL is needed to probe")
    if mode == "api" and not model:
        raise ProbeUsageError("mode api needs a model name")
    client = EmbeddingClient(
        mode,
        http_url=url if mode == "http" else "",
        api_key=api_key,
        api_url=url if mode == "api" else "",
        model=model,
        # A probe must reach the backend every time, never a cached answer.
        cache_size=0,
        timeout=timeout,
        transport=transport,
    )
    async with client:
        started = time.perf_counter()
        value, outcome = await client.embed_with_outcome([text])
        elapsed_ms = (time.perf_counter() - started) * 1000
    return ProbeResult(
        ok=outcome.ok,
        attempted=outcome.attempted,
        error=outcome.error,
        mode=mode,
        endpoint=client.endpoint,
        width=len(value[0]) if outcome.ok and value else None,
        elapsed_ms=round(elapsed_ms, 3),
        evidence=evidence_of(outcome),
    )


def run_probe(mode: str, url: str, **options: Any) -> ProbeResult:
    """`probe` for synchronous callers (the CLI)."""
    return asyncio.run(probe(mode, url, **options))


def hints(result: ProbeResult) -> list[str]:
    """What an operator should check next, most likely cause first."""
    if result.ok:
        return []
    evidence = result.evidence
    if evidence is None:
        # The client gives every failed call a record; without one there is
        # only the line, which is already on screen.
        return ["Is the embedding process alive, and is the URL the one the services use?"]
    kind, status, port = evidence.kind, evidence.status, evidence.port
    found: list[str] = []
    if kind in ("ConnectError", "ConnectTimeout"):
        found += [
            "Is the embedding process alive? (ps, systemctl status, docker ps)",
            f"Is anything listening on port {port}? (ss -ltnp | grep ':{port} ')",
            "Is the host right, and reachable from here (firewall, container network)?",
        ]
    elif kind in ("ReadTimeout", "WriteTimeout", "PoolTimeout"):
        found += [
            "The backend accepted the connection but did not answer in time:"
            " is the model still loading, or the machine overloaded?",
            "Try again with a longer --timeout to tell slow from stuck.",
        ]
    elif kind == "HTTPStatusError":
        if status in (401, 403):
            found.append("The backend refused the credentials: check the API key (PLAIT_API_KEY).")
        elif status == 404:
            found.append("Nothing answers at this path: check the endpoint path in the URL.")
        elif status is not None and 300 <= status < 400:
            found.append("The backend redirects; the client never follows: use the final URL.")
        else:
            found.append("The backend failed the request: read its log; is the model downloaded and loaded?")
    elif kind == "ResponseRejected":
        found += [
            "The backend answered, but not with usable vectors: the detail above says why.",
            "Did the model or its version change (a width change means stored vectors need re-embedding)?",
        ]
    elif kind is None:
        found.append("The backend answered without vectors: is the model downloaded and loaded?")
    elif kind == "LocalProtocolError" and not result.attempted:
        found.append("Nothing was sent: check the API key for a stray newline or space (e.g. read from a file).")
    elif kind in ("UnsupportedProtocol", "InvalidURL", "LocalProtocolError"):
        found.append("The URL itself looks wrong: it needs http:// or https://, a host and a path.")
    else:
        found.append("Is the embedding process alive, and is the URL the one the services use?")
    found.append(f"Repeat the request by hand: {evidence.curl(key_variable='PLAIT_API_KEY')}")
    return found
