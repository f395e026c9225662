"""`conform`: run every scenario in every copy, each copy in its own subprocess, and judge.

The library behind ``plait conform`` and the pytest plugin.  Copies run in
parallel, one process each (`worker`), and inside each process the scenarios
run concurrently, so the whole matrix takes about as long as its slowest
scenario (a deadline) plus a process start.  The canonical client runs too:
every other copy is compared with what it did, as well as with the scenario.

Exit codes follow the house rule: 0 every copy conforms, 1 a divergence,
2 an error (a copy that cannot be imported, a worker that crashed or never
finished), with the copy named.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from .scenarios import ScenarioSet
from .targets import Target
from .verdicts import DIVERGE, PASS, SKIP, Verdict, judge, skipped

__all__ = ["ConformReport", "CopyResult", "conform", "default_jobs", "run_copy"]

EXIT_OK = 0
EXIT_DIVERGED = 1
EXIT_ERROR = 2

# Past this the worker is killed: every call has a guard, so only a copy that
# blocks the event loop itself (a synchronous sleep, a busy loop) gets here.
_SPARE_SECONDS = 30.0


@dataclass
class CopyResult:
    """One copy's run: its verdict per scenario, or the error that kept it from running."""

    target: Target
    error: str | None = None
    capabilities: dict[str, bool] = field(default_factory=dict)
    file: str = ""
    elapsed: float = 0.0
    verdicts: dict[str, Verdict] = field(default_factory=dict)

    def count(self, status: str) -> int:
        return sum(v.status == status for v in self.verdicts.values())

    @property
    def conforms(self) -> bool:
        return self.error is None and self.count(DIVERGE) == 0

    @property
    def stale(self) -> bool:
        return self.capabilities.get("embed_with_outcome") is False

    def to_json(self) -> dict[str, Any]:
        return {
            **self.target.to_json(),
            "error": self.error,
            "file": self.file,
            "capabilities": self.capabilities,
            "elapsed": self.elapsed,
            "conforms": self.conforms,
            "counts": {status: self.count(status) for status in (PASS, DIVERGE, SKIP)},
            "results": [{"scenario": name, **verdict.to_json()} for name, verdict in self.verdicts.items()],
        }


@dataclass
class ConformReport:
    """Every copy × every scenario, and what the run was asked to do."""

    scenarios: ScenarioSet
    copies: list[CopyResult]
    elapsed: float
    inputs: dict[str, Any] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        if any(copy.error is not None for copy in self.copies):
            return EXIT_ERROR
        if any(not copy.conforms for copy in self.copies):
            return EXIT_DIVERGED
        return EXIT_OK

    def divergences(self) -> list[str]:
        """Every divergence as one plain line: ``sibling: refused → attempted=False, canonical says True``."""
        lines = []
        for copy in self.copies:
            for name, verdict in copy.verdicts.items():
                if verdict.status == DIVERGE:
                    lines += [f"{copy.target.name}: {name} → {problem}" for problem in verdict.problems]
        return lines

    def errors(self) -> list[str]:
        return [f"{copy.target.name}: {copy.error}" for copy in self.copies if copy.error is not None]

    def to_json(self) -> dict[str, Any]:
        return {
            "exit": self.exit_code,
            "elapsed": self.elapsed,
            "scenarios": [
                {"name": s.name, "about": s.about, "kind": s.kind, "mode": s.mode, "server": s.server}
                for s in self.scenarios.scenarios
            ],
            "copies": [copy.to_json() for copy in self.copies],
            "divergences": self.divergences(),
            "errors": self.errors(),
        }


def _hard_limit(scenarios: ScenarioSet) -> float:
    longest = max((len(s.calls) + len(s.steps) for s in scenarios.scenarios), default=1)
    return scenarios.settings.guard * longest + _SPARE_SECONDS


def default_jobs() -> int:
    """How many copies run at once by default: two per core.

    A copy spends most of its run waiting on deadlines, so two per core keep
    the machine busy; many more would starve the calls themselves of CPU,
    and a starved call that misses its deadline is a false divergence.
    """
    return 2 * (os.cpu_count() or 1)


def _worker_env(no_certificates: str) -> dict[str, str]:
    """The environment of a worker: the caller's, with two changes that leave what is tested alone.

    - No ``__pycache__`` is written into a lineage or a vendored directory.
    - httpx reads its CA certificates from an empty directory instead of
      loading the whole bundle for every client a scenario makes (two thirds
      of a worker's CPU time): the scenarios speak plain HTTP on loopback, so
      no certificate is ever checked, and a TLS call would fail to verify.
    """
    env = {key: value for key, value in os.environ.items() if key != "SSL_CERT_FILE"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["SSL_CERT_DIR"] = no_certificates
    return env


def run_copy(target: Target, scenarios: ScenarioSet, *, python: str | None = None) -> dict[str, Any]:
    """The facts of one copy's run, from its own subprocess (or ``{"error": ...}``)."""
    if target.problem is not None:
        return {"error": target.problem}
    request = {
        "target": target.to_wire(),
        "settings": scenarios.settings.to_wire(),
        "scenarios": [s.to_wire() for s in scenarios.scenarios],
    }
    limit = _hard_limit(scenarios)
    with tempfile.TemporaryDirectory(prefix="plait-conform-ca-") as no_certificates:
        try:
            proc = subprocess.run(
                [python or sys.executable, "-P", "-m", "plait.conformance.worker"],
                input=json.dumps(request),
                capture_output=True,
                text=True,
                timeout=limit,
                env=_worker_env(no_certificates),
            )
        except subprocess.TimeoutExpired:
            proc = None
    if proc is None:
        return {"error": f"did not finish within {limit:g} s and was stopped (does the copy block its event loop?)"}
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        return {"error": f"the worker exited {proc.returncode}: {last}"}
    try:
        result: dict[str, Any] = json.loads(proc.stdout)
    except ValueError:
        return {"error": "the worker's answer is not JSON (did the copy write to the result stream?)"}
    return result


def _result(
    target: Target, raw: dict[str, Any], scenarios: ScenarioSet, reference: dict[str, Any] | None
) -> CopyResult:
    """Judge one copy's *raw* facts; *reference*: the canonical's facts per scenario (``None`` for itself)."""
    copy = CopyResult(target, error=raw.get("error"), elapsed=raw.get("elapsed", 0.0), file=raw.get("file", ""))
    if copy.error is not None:
        return copy
    copy.capabilities = raw.get("capabilities", {})
    observed = raw.get("results", {})
    for scenario in scenarios.scenarios:
        skip = skipped(scenario, copy.capabilities)
        if skip is not None:
            copy.verdicts[scenario.name] = skip
        elif scenario.name not in observed:
            copy.verdicts[scenario.name] = Verdict(DIVERGE, ["the worker returned nothing for this scenario"])
        else:
            canonical = reference.get(scenario.name) if reference is not None else None
            copy.verdicts[scenario.name] = judge(scenario, observed[scenario.name], canonical)
    return copy


def conform(
    targets: Sequence[Target],
    scenarios: ScenarioSet,
    *,
    jobs: int | None = None,
    progress: Callable[[Target, dict[str, Any]], None] | None = None,
    inputs: dict[str, Any] | None = None,
) -> ConformReport:
    """Run *scenarios* in every copy of *targets* and judge each against the scenario and the canonical.

    The canonical client is the first target of kind ``canonical``; without
    one, copies are judged against the scenarios alone.  *jobs* bounds how
    many copies run at once (default: two per core).  *progress* hears of
    each copy as its run ends, with its raw facts.
    """
    started = time.monotonic()
    workers = max(1, jobs or default_jobs())
    raws: list[dict[str, Any]] = [{} for _ in targets]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        running = {pool.submit(run_copy, target, scenarios): index for index, target in enumerate(targets)}
        for done in as_completed(running):
            index = running[done]
            raws[index] = done.result()
            if progress is not None:
                progress(targets[index], raws[index])
    reference = next(
        (raw for target, raw in zip(targets, raws, strict=True) if target.kind == "canonical" and "error" not in raw),
        None,
    )
    copies = []
    for target, raw in zip(targets, raws, strict=True):
        facts = None if reference is None or raw is reference else reference.get("results", {})
        copies.append(_result(target, raw, scenarios, facts))
    return ConformReport(scenarios, copies, round(time.monotonic() - started, 3), inputs or {})
