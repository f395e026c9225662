"""`conform`: run every scenario in every copy, each copy in its own subprocess, and judge.

The library behind ``plait conform`` and the pytest plugin.  Copies run in
parallel, one process each (`worker`), and inside each process the scenarios
run concurrently, so the whole matrix takes about as long as its slowest
scenario (a deadline) plus a process start.  The canonical client runs too:
every other copy is compared with what it did, as well as with the scenario.
A canonical client without ``embed_with_outcome`` predates the outcome
contract: then the contract does not apply, and every copy is compared
with the canonical alone, at parity (`verdicts.judge_parity`).

Each copy's verdicts are also set beside the canonical's, scenario by
scenario (`Standing`): the headline of a report is how many scenarios a copy
behaves like the canonical on.

Exit codes follow the house rule: 0 every copy conforms, 1 a copy has a
contract or safety problem (or, under ``strict``, any difference from the
canonical), 2 an error (a copy that cannot be imported, a worker that
crashed or never finished), with the copy named.  A scenario a missing
module kept from running (tier ``environment``) fails nothing.
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
from typing import Literal

from .discover import keeps_outcome
from .environment import install_hint
from .scenarios import Scenario, ScenarioSet
from .targets import Target
from .verdicts import (
    FAIL,
    FAILING,
    PARITY,
    PASS,
    SKIP,
    Problem,
    Rerun,
    Verdict,
    differs_from_canonical_in_time,
    judge,
    judge_parity,
    ran_into_a_deadline,
    skipped,
    timing_may_flip,
)
from .wire import TIERS, Request, ScenarioFacts, Status, Tier, WorkerResult

__all__ = [
    "JSON_SCHEMA",
    "STANDINGS",
    "ConformReport",
    "CopyResult",
    "Standing",
    "conform",
    "default_jobs",
    "run_copy",
    "standing",
]

#: The version of `ConformReport.to_json`: 2 since problems are objects with a tier.  Later
#: additions (the environment tier, ``contract_applies``, ``like_canonical``) only add keys.
JSON_SCHEMA = 2

#: How a copy's verdict on one scenario stands beside the canonical client's:
#: ``alike`` (both pass, or neither runs it), ``fails`` (a contract or safety
#: problem), ``differs`` (parity differences only), ``unchecked`` (a missing
#: module kept it from running), ``not_applicable`` (the canonical runs it,
#: this copy lacks what it needs), ``canonical_skips`` (this copy runs what
#: the canonical cannot: the sibling's uds transport), ``canonical_fails``
#: (this copy passes where the canonical itself has a problem).
Standing = Literal["alike", "fails", "differs", "unchecked", "not_applicable", "canonical_skips", "canonical_fails"]
STANDINGS: tuple[Standing, ...] = (
    "alike",
    "fails",
    "differs",
    "unchecked",
    "not_applicable",
    "canonical_skips",
    "canonical_fails",
)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_ERROR = 2

STATUSES: tuple[Status, ...] = (PASS, FAIL, PARITY, SKIP)

# Past this the worker is killed: every call has a guard, so only a copy that
# blocks the event loop itself (a synchronous sleep, a busy loop) gets here.
_SPARE_SECONDS = 30.0


@dataclass
class CopyResult:
    """One copy's run: its verdict per scenario, or the error that kept it from running.

    keywords: which constructor keyword carried each of the contract's
    ideas in this copy (``byte_budget`` → ``max_response_bytes``).
    absent: the module whose absence kept the copy from importing, when the
        copy does not carry it (the environment's, not the copy's, fault).
    reference: this is the canonical client the others are compared with.
    standings: per scenario, how this copy stands beside the canonical
        (empty for the reference, or when there is none).
    """

    target: Target
    error: str | None = None
    capabilities: dict[str, bool] = field(default_factory=dict)
    keywords: dict[str, str] = field(default_factory=dict)
    file: str = ""
    elapsed: float = 0.0
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    absent: str | None = None
    reference: bool = False
    standings: dict[str, Standing] = field(default_factory=dict)

    def count(self, status: Status) -> int:
        return sum(v.status == status for v in self.verdicts.values())

    def problems(self, *tiers: Tier) -> list[tuple[str, Problem]]:
        """(scenario, problem) for every problem of *tiers* (default: all), tier by tier, contract first."""
        wanted = tiers or TIERS
        return [
            (name, problem)
            for tier in wanted
            for name, verdict in self.verdicts.items()
            for problem in verdict.of(tier)
        ]

    @property
    def conforms(self) -> bool:
        """It ran, and has no contract or safety problem (parity differences allowed)."""
        return self.error is None and self.count(FAIL) == 0

    def passes(self, strict: bool = False) -> bool:
        """It conforms, and under *strict* also does everything the canonical client does."""
        return self.conforms and not (strict and self.count(PARITY))

    @property
    def stale(self) -> bool:
        return self.capabilities.get("embed_with_outcome") is False

    @property
    def missing(self) -> list[str]:
        """Every module the environment lacked for this copy: to import it, or to run a scenario."""
        found = {str(p.observed) for _, p in self.problems("environment") if p.observed is not None}
        return sorted(found | ({self.absent} if self.absent else set()))

    def standing(self, kind: Standing) -> int:
        return sum(value == kind for value in self.standings.values())

    def like_canonical(self) -> dict[str, int] | None:
        """``{alike, scenarios, <standing>: n...}``: the headline's numbers, ``None`` where nothing was compared."""
        if self.reference or not self.standings:
            return None
        return {"scenarios": len(self.standings), **{kind: self.standing(kind) for kind in STANDINGS}}

    def to_json(self) -> dict[str, object]:
        return {
            **self.target.to_json(),
            "error": self.error,
            "file": self.file,
            "capabilities": self.capabilities,
            "keywords": self.keywords,
            "elapsed": self.elapsed,
            "conforms": self.conforms,
            "reference": self.reference,
            "missing": self.missing,
            "like_canonical": self.like_canonical(),
            "counts": {status: self.count(status) for status in STATUSES},
            "problems": {tier: len(self.problems(tier)) for tier in TIERS},
            "results": [{"scenario": name, **verdict.to_json()} for name, verdict in self.verdicts.items()],
        }


@dataclass
class ConformReport:
    """Every copy × every scenario, and what the run was asked to do.

    strict: parity differences fail the run too.
    contract_applies: the canonical client has ``embed_with_outcome`` (or
        there was none to ask); when it has not, the copies were compared
        with it alone, at parity.
    """

    scenarios: ScenarioSet
    copies: list[CopyResult]
    elapsed: float
    inputs: dict[str, object] = field(default_factory=dict)
    strict: bool = False
    contract_applies: bool = True

    @property
    def exit_code(self) -> int:
        if any(copy.error is not None for copy in self.copies):
            return EXIT_ERROR
        if any(not copy.passes(self.strict) for copy in self.copies):
            return EXIT_FAILED
        return EXIT_OK

    def problems(self, *tiers: Tier) -> list[str]:
        """Every problem of *tiers* (default: all) as one plain line, contract first:
        ``sibling: refused → attempted=False, canonical says True``."""
        wanted = tiers or TIERS
        return [
            f"{copy.target.name}: {name} → {problem}"
            for tier in wanted
            for copy in self.copies
            for name, problem in copy.problems(tier)
        ]

    def failures(self) -> list[str]:
        """The contract and safety problems: what keeps a copy from conforming."""
        return self.problems(*sorted(FAILING, key=TIERS.index))

    def errors(self) -> list[str]:
        """One line per copy that could not run; one the environment kept from importing says how to get it."""
        return [
            f"{copy.target.name}: {copy.error}"
            + (
                f" ({copy.absent} is not installed here: {install_hint([copy.absent], sys.executable)})"
                if copy.absent
                else ""
            )
            for copy in self.copies
            if copy.error is not None
        ]

    def to_json(self) -> dict[str, object]:
        return {
            "schema": JSON_SCHEMA,
            "exit": self.exit_code,
            "strict": self.strict,
            "contract_applies": self.contract_applies,
            "elapsed": self.elapsed,
            "scenarios": [
                {"name": s.name, "about": s.about, "kind": s.kind, "mode": s.mode, "server": s.server, "tier": s.tier}
                for s in self.scenarios.scenarios
            ],
            "copies": [copy.to_json() for copy in self.copies],
            "problems": {tier: self.problems(tier) for tier in TIERS},
            "errors": self.errors(),
        }


def _hard_limit(scenarios: ScenarioSet) -> float:
    longest = max((len(s.calls) + len(s.steps) for s in scenarios.scenarios), default=1)
    return scenarios.settings.guard * longest + _SPARE_SECONDS


def default_jobs() -> int:
    """How many copies run at once by default: two per core.

    A copy spends most of its run waiting on deadlines, so two per core keep
    the machine busy; many more would starve the calls themselves of CPU,
    and a starved call that misses its deadline is a false safety problem.
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


def run_copy(
    target: Target, scenarios: ScenarioSet, *, python: str | None = None, embed_when_stale: bool = False
) -> WorkerResult:
    """The facts of one copy's run, from its own subprocess (or ``{"error": ...}``).

    *embed_when_stale*: a copy without ``embed_with_outcome`` is called
    through ``embed()`` (for a canonical client that predates the contract),
    rather than only reported stale.
    """
    if target.problem is not None:
        return {"error": target.problem}
    request: Request = {
        "target": target.to_wire(),
        "settings": scenarios.settings.to_wire(),
        "scenarios": [s.to_wire() for s in scenarios.scenarios],
        "embed_when_stale": embed_when_stale,
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
        result: WorkerResult = json.loads(proc.stdout)
    except ValueError:
        return {"error": "the worker's answer is not JSON (did the copy write to the result stream?)"}
    return result


def standing(mine: Verdict, canonical: Verdict | None) -> Standing:
    """How *mine* stands beside the canonical's verdict on the same scenario (``None``: it has none)."""
    if mine.status == FAIL:
        return "fails"
    if mine.status == PARITY:
        return "differs"
    if mine.unchecked:
        return "unchecked"
    canonical_skips = canonical is None or canonical.status == SKIP
    if mine.status == SKIP:
        return "alike" if canonical_skips else "not_applicable"
    if canonical_skips:
        return "canonical_skips"
    return "alike" if canonical is None or canonical.status == PASS else "canonical_fails"


@dataclass(frozen=True)
class _Judging:
    """How the copies are judged: against the canonical's facts per scenario, with or without the contract."""

    facts: dict[str, ScenarioFacts] | None
    contract_applies: bool

    def verdict(self, scenario: Scenario, observed: ScenarioFacts, reference: bool) -> Verdict:
        canonical = None if reference or self.facts is None else self.facts.get(scenario.name)
        if self.contract_applies:
            return judge(scenario, observed, canonical)
        return judge_parity(scenario, observed, canonical, reference=reference)


def _result(
    target: Target, raw: WorkerResult, scenarios: ScenarioSet, judging: _Judging, reference: bool
) -> CopyResult:
    """Judge one copy's *raw* facts as *judging* says; *reference*: this is the canonical client itself."""
    copy = CopyResult(target, error=raw.get("error"), elapsed=raw.get("elapsed", 0.0), file=raw.get("file", ""))
    copy.absent, copy.reference = raw.get("missing"), reference
    if copy.error is not None:
        return copy
    copy.capabilities = raw.get("capabilities", {})
    copy.keywords = raw.get("keywords", {})
    observed = raw.get("results", {})
    for scenario in scenarios.scenarios:
        skip = skipped(scenario, copy.capabilities)
        if skip is not None:
            copy.verdicts[scenario.name] = skip
        elif scenario.name not in observed:
            missing = Problem("contract", "results", "the worker returned nothing for this scenario")
            copy.verdicts[scenario.name] = Verdict(FAIL, [missing])
        else:
            copy.verdicts[scenario.name] = judging.verdict(scenario, observed[scenario.name], reference)
    return copy


def _stand(copies: list[CopyResult]) -> None:
    """Set every copy's verdicts beside the reference's, where there is a reference that ran."""
    reference = next((copy for copy in copies if copy.reference and copy.error is None), None)
    if reference is None:
        return
    for copy in copies:
        if copy is not reference and copy.error is None:
            copy.standings = {
                name: standing(verdict, reference.verdicts.get(name)) for name, verdict in copy.verdicts.items()
            }


def conform(
    targets: Sequence[Target],
    scenarios: ScenarioSet,
    *,
    jobs: int | None = None,
    progress: Callable[[Target, WorkerResult], None] | None = None,
    inputs: dict[str, object] | None = None,
    strict: bool = False,
) -> ConformReport:
    """Run *scenarios* in every copy of *targets* and judge each against the scenario and the canonical.

    The canonical client is the first target of kind ``canonical``; without
    one, copies are judged against the scenarios alone.  *jobs* bounds how
    many copies run at once (default: two per core).  *progress* hears of
    each copy as its run ends, with its raw facts.  *strict*: parity
    differences fail the run too.
    """
    started = time.monotonic()
    workers = max(1, jobs or default_jobs())
    raws: list[WorkerResult] = [{} for _ in targets]
    canonical = next((target for target in targets if target.kind == "canonical"), None)
    # Read, not run: every copy starts at once, before the canonical's own run could say it.
    through_embed = canonical is not None and canonical.problem is None and not keeps_outcome(canonical.package_dir)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        running = {
            pool.submit(run_copy, target, scenarios, embed_when_stale=through_embed): index
            for index, target in enumerate(targets)
        }
        for done in as_completed(running):
            index = running[done]
            raws[index] = done.result()
            if progress is not None:
                progress(targets[index], raws[index])
    judged = _Matrix(targets, raws, scenarios, strict=strict)
    judged.confirm(lambda target, alone: run_copy(target, alone, embed_when_stale=through_embed))
    copies = judged.copies()
    elapsed = round(time.monotonic() - started, 3)
    return ConformReport(scenarios, copies, elapsed, inputs or {}, strict, contract_applies=judged.applies)


class _Matrix:
    """Every copy's facts, judged; and the reruns that confirm a verdict a loaded machine could have made.

    A deadline scenario times real calls, and on a loaded machine a starved
    worker can miss a ceiling, or see a deadline-cut answer where the
    canonical's came in time (a parity difference).  So before such a
    verdict fails or marks a copy, its scenario runs again, once, alone (one
    worker process, no other scenario beside it, one rerun at a time), and
    the rerun's facts are judged instead; the verdict keeps both times
    (`Rerun`).  When the canonical's own facts ran into a deadline, its
    scenario is rerun too, and every copy compared with it is judged again.
    A copy that misses its deadline on the rerun as well still fails.  A
    parity difference, which fails nothing unless ``strict``, is rerun only
    then, or when it is a difference from a canonical that ran into a deadline
    (the canonical's rerun settles it).
    """

    def __init__(
        self, targets: Sequence[Target], raws: list[WorkerResult], scenarios: ScenarioSet, *, strict: bool = False
    ) -> None:
        self.targets = targets
        self.strict = strict
        self.raws = raws
        self.scenarios = scenarios
        # (copy index, scenario) -> the first run's verdict and wall time, for each rerun made
        self.firsts: dict[tuple[int, str], tuple[Verdict, float]] = {}
        self.reference = next(
            (
                i
                for i, (t, raw) in enumerate(zip(targets, raws, strict=True))
                if t.kind == "canonical" and "error" not in raw
            ),
            None,
        )
        reference = None if self.reference is None else raws[self.reference]
        self.applies = reference is None or reference.get("capabilities", {}).get("embed_with_outcome", True)

    def judging(self) -> _Judging:
        facts = None if self.reference is None else self.raws[self.reference].get("results", {})
        return _Judging(facts, self.applies)

    def copies(self) -> list[CopyResult]:
        judging = self.judging()
        copies = [
            _result(target, raw, self.scenarios, judging, index == self.reference)
            for index, (target, raw) in enumerate(zip(self.targets, self.raws, strict=True))
        ]
        for (index, name), (first, first_seconds) in self.firsts.items():
            verdict = copies[index].verdicts[name]
            seconds = verdict.observed.get("elapsed", 0.0)
            verdict.rerun = Rerun(first, first_seconds, seconds)
        _stand(copies)
        return copies

    def suspects(self, copies: list[CopyResult]) -> set[tuple[int, str]]:
        """The (copy, scenario) verdicts to confirm: those timing may have made, not rerun yet."""
        found: set[tuple[int, str]] = set()
        canonical = {} if self.reference is None else self.raws[self.reference].get("results", {})
        settings = self.scenarios.settings
        for index, copy in enumerate(copies):
            if copy.error is not None:
                continue
            for scenario in self.scenarios.scenarios:
                verdict = copy.verdicts.get(scenario.name)
                if verdict is None or not timing_may_flip(verdict):
                    continue
                # Its own rerun when the verdict fails the run (parity fails it only under --strict):
                # a deterministic difference in a deadline scenario is not rerun on every run.
                fails = verdict.status == FAIL or self.strict
                late = ran_into_a_deadline(scenario, verdict.observed, settings)
                if fails and late and (index, scenario.name) not in self.firsts:
                    found.add((index, scenario.name))
                # A difference from a canonical that ran into a deadline may be the canonical's:
                # its scenario is rerun, and the copy judged again against what the rerun saw.
                theirs = None if index == self.reference else canonical.get(scenario.name)
                if (
                    theirs is not None
                    and differs_from_canonical_in_time(verdict)
                    and ran_into_a_deadline(scenario, theirs, settings)
                ):
                    assert self.reference is not None
                    if (self.reference, scenario.name) not in self.firsts:
                        found.add((self.reference, scenario.name))
        return found

    def confirm(self, run: Callable[[Target, ScenarioSet], WorkerResult]) -> None:
        """Rerun each suspect verdict's scenario alone, once, until no new suspect appears."""
        while True:
            copies = self.copies()
            todo = self.suspects(copies)
            if not todo:
                return
            # The canonical first: what the others are judged against.
            for index, name in sorted(todo, key=lambda pair: (pair[0] != self.reference, pair)):
                verdict = copies[index].verdicts[name]
                self.firsts[index, name] = (verdict, verdict.observed.get("elapsed", 0.0))
                alone = ScenarioSet(self.scenarios.path, self.scenarios.settings, (self.scenarios.get(name),))
                again = run(self.targets[index], alone)
                facts = again.get("results", {}).get(name)
                if facts is not None:
                    self.raws[index].setdefault("results", {})[name] = facts
                # A rerun that could not run at all keeps the first facts: the verdict stands as first judged.
