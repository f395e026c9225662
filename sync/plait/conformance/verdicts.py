"""Judging a copy: its observed outcomes against the scenario and against the canonical client, in tiers.

The worker reports facts; this module says whether they conform, and when
they do not, says why in words a maintainer can act on:
``attempted=False, canonical says True``, ``took 3.02 s, ceiling 2 s``,
``a secret leaked into the error (percent-encoded)``.

Every problem carries one tier, because not every difference matters alike:

- **contract**, the promise services rely on: ``embed_with_outcome`` never
  raises; the value and ``attempted``/``ok``/``error`` follow the outcome
  table; the error is one printable line,
  ``mode=<m> / POST <safe endpoint> failed: <Type>: <detail>``; no secret
  shows in any spelling; the advisory payload has its keys and its
  ``severity`` word.
- **safety**: the deadline holds, the byte budget holds, hostile answers are
  refused.
- **parity**: the copy does what the canonical client does where the
  contract leaves room: the exception type's name, logging, the detail's
  wording, the shape of a call with no texts.

A copy conforms when it has no contract or safety problem; parity
differences are listed, and fail a run only when asked (``--strict``).

Two more cases are nobody's broken promise:

- **environment**: a scenario that could not run because a module the copy
  does not carry is absent where plait runs (numpy, imported lazily in api
  mode).  The copy is not at fault; the scenario is not checked here, a
  skip that names the module (`environment`).
- **the contract does not apply**: a canonical client that predates
  ``embed_with_outcome`` promises no outcome, so none is held to a copy.
  `judge_parity` compares each copy with it alone, on what both tell
  (``embed()``'s value, the requests, a hang or a raise, the advisories),
  every difference at parity.

A call's value, ``attempted``, ``ok`` and the requests it caused are held to
the scenario's expectation at the scenario's tier (a hostile-body scenario
is safety, a call with no texts parity); where the scenario leaves a field
open, a difference from the canonical is parity.  The error's type is
compared with the canonical's, at parity when both are exception names; its
detail only with the scenario's pattern, because a detail may carry timing
(how much of a dripping body had arrived at the deadline).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from .options import IDEAS
from .scenarios import CONTRACT_KEYS, Expect, Scenario, Settings
from .wire import AdvisorySummary, CallFact, ProblemJSON, Scalar, ScenarioFacts, Status, Tier

__all__ = [
    "FAILING",
    "SEVERITY_WORDS",
    "Problem",
    "Rerun",
    "Verdict",
    "differs_from_canonical_in_time",
    "error_kind",
    "judge",
    "judge_parity",
    "ran_into_a_deadline",
    "skipped",
    "timing_may_flip",
]

#: The two words services and agents match on.
SEVERITY_WORDS = ("fault", "hint")

PASS: Status = "pass"
FAIL: Status = "fail"
PARITY: Status = "parity"
SKIP: Status = "skip"

#: The tiers that keep a copy from conforming.
FAILING: frozenset[Tier] = frozenset({"contract", "safety"})

_LINE = re.compile(
    r"^mode=(?P<mode>.*?) / POST (?P<endpoint>\S+) (?:failed: (?P<kind>[^:]*): (?P<detail>.*)|returned no embeddings)$",
    re.DOTALL,
)
_UNSUPPORTED = re.compile(r"^mode=.* is not a supported embedding mode$", re.DOTALL)
_NO_URL = re.compile(r"^mode=\S* has no endpoint URL configured$", re.DOTALL)

# The kinds the outcome table itself fixes; any other kind is an exception type's name.
_TABLE_KINDS = frozenset({"none", "no-embeddings", "unsupported-mode", "no-url", "unrecognised"})

_NEEDS_WORDS = {
    "uds": "it takes no uds_path (no uds transport)",
    "transport": "it takes no transport=",
    "health": "it carries no health module",
    **{idea: f"it has no {words} keyword" for idea, (words, _keywords) in IDEAS.items()},
}


@dataclass(frozen=True)
class Problem:
    """One thing a copy did wrong, or differently: its tier, the field, both values, and the sentence.

    gist: the sentence without what this run measured (``took longer than
    its 2 s ceiling`` for ``took 2.31 s, ceiling 2 s``), so that the same
    problem in several scenarios is said once; empty when the text is that.
    """

    tier: Tier
    field: str
    text: str
    expected: Scalar = None
    observed: Scalar = None
    gist: str = ""

    def __str__(self) -> str:
        return self.text

    @property
    def headline(self) -> str:
        return self.gist or self.text

    def to_json(self) -> ProblemJSON:
        return {
            "tier": self.tier,
            "field": self.field,
            "expected": self.expected,
            "observed": self.observed,
            "text": self.text,
        }


@dataclass(frozen=True)
class Rerun:
    """A verdict the machine's load could have made, and what running its scenario again, alone, said.

    first: the verdict of the first run; first_seconds and seconds: the
    scenario's wall time in the first run and in the rerun.  The verdict that
    carries this is the rerun's: it stands when the rerun found a problem too.
    """

    first: Verdict
    first_seconds: float
    seconds: float

    def to_json(self) -> dict[str, object]:
        return {
            "first": {"status": self.first.status, "problems": [p.to_json() for p in self.first.problems]},
            "first_seconds": self.first_seconds,
            "seconds": self.seconds,
        }


@dataclass
class Verdict:
    """How one copy did on one scenario, and why.

    status: ``pass``, ``fail`` (a contract or safety problem), ``parity``
    (only differences from the canonical) or ``skip`` (``reason`` says why:
    not applicable to the copy, or not checked here, when an environment
    problem kept the scenario from running).
    rerun: set when the first run's verdict was one timing could flip, and
    the scenario ran again, alone, to confirm it (`timing_may_flip`).
    """

    status: Status
    problems: list[Problem] = field(default_factory=list)
    observed: ScenarioFacts = field(default_factory=lambda: ScenarioFacts())
    reason: str | None = None
    rerun: Rerun | None = None

    def of(self, *tiers: Tier) -> list[Problem]:
        """The problems of *tiers*, in the order they were found."""
        return [problem for problem in self.problems if problem.tier in tiers]

    @property
    def unchecked(self) -> bool:
        """Skipped because the environment lacks a module, not because the scenario does not apply."""
        return self.status == SKIP and bool(self.of("environment"))

    def to_json(self) -> dict[str, object]:
        return {
            "status": self.status,
            "reason": self.reason,
            "problems": [problem.to_json() for problem in self.problems],
            "observed": self.observed,
            "rerun": None if self.rerun is None else self.rerun.to_json(),
        }


def _verdict(problems: list[Problem], observed: ScenarioFacts) -> Verdict:
    """The verdict *problems* make: a failing tier fails; else a missing module leaves it unchecked."""
    if any(problem.tier in FAILING for problem in problems):
        return Verdict(FAIL, problems, observed)
    environment = [problem for problem in problems if problem.tier == "environment"]
    if environment:
        return Verdict(SKIP, problems, observed, f"not checked here: {environment[0]}")
    return Verdict(PARITY if problems else PASS, problems, observed)


def _absent(missing: str) -> str:
    return f"needs {missing}, which is not installed where plait runs"


def error_kind(error: str | None) -> tuple[str, str]:
    """(kind, detail) of an evidence line: its ``<Type>``, or one of the special forms."""
    if error is None:
        return "none", ""
    line = _LINE.match(error)
    if line is not None:
        if line.group("kind") is None:
            return "no-embeddings", ""
        return line.group("kind"), line.group("detail")
    if _UNSUPPORTED.match(error):
        return "unsupported-mode", error
    if _NO_URL.match(error):
        return "no-url", error
    return "unrecognised", error


def skipped(scenario: Scenario, capabilities: Mapping[str, bool]) -> Verdict | None:
    """A skip verdict when the copy lacks what *scenario* needs, else ``None``."""
    missing = [need for need in sorted(scenario.needs) if not capabilities.get(need, False)]
    if not missing:
        return None
    return Verdict(SKIP, reason="; ".join(f"not applicable: {_NEEDS_WORDS.get(need, need)}" for need in missing))


# -- what a loaded machine can flip -------------------------------------------------------------

# The fields of problems judged on what a text says (a secret, a control
# character, the evidence's form, a payload's keys, a stale copy, a missing
# module): no timing makes them or unmakes them.
_UNTIMED_FIELDS = frozenset({"error", "log", "embed_with_outcome", "import", "keys"})
# A deadline that fired this share of the slack late was the machine's
# doing (idle, a 1 s deadline ends a call in 1.0x s); and a call of a
# scenario with the generous default timeout that ran this close to it was
# turned into a timeout by the machine, not by the server.
_LATE_SHARE = 0.25
_NEAR = 0.9


def ran_into_a_deadline(scenario: Scenario, facts: ScenarioFacts | None, settings: Settings) -> bool:
    """Whether *facts* show the machine's load in a call's time: a call that hung, a deadline that
    fired late, or a call of a scenario that does not test the deadline running into it.

    A deadline scenario's calls end at their deadline by design: only a
    late end counts there.  An advisory scenario's calls are timed as the
    scenario.
    """
    if facts is None:
        return False
    if "hung" in facts:
        return True
    generous = scenario.timeout >= settings.timeout
    limit = _NEAR * scenario.timeout if generous else scenario.timeout + _LATE_SHARE * settings.slack
    for call in facts.get("calls", []):
        if "hung" in call or call.get("elapsed", 0.0) >= limit:
            return True
    return scenario.kind == "advisory" and facts.get("elapsed", 0.0) >= limit


def timing_may_flip(verdict: Verdict) -> bool:
    """Whether *verdict* has a problem a loaded machine could have made, when a deadline was involved.

    A problem on what a text says is never timing's; any other (a value, an
    outcome field, the wall time, a difference from the canonical) may be,
    if the copy's calls, or the canonical's it was compared with, ran into a
    deadline (`ran_into_a_deadline`): then it is confirmed by a rerun.
    """
    return bool(_timed(verdict))


def differs_from_canonical_in_time(verdict: Verdict) -> bool:
    """Whether one of *verdict*'s timed problems is a difference from the canonical's facts (which a
    starved canonical may have caused), not only a miss of the scenario's own expectation."""
    return any("canonical" in problem.text for problem in _timed(verdict))


def _timed(verdict: Verdict) -> list[Problem]:
    if verdict.status not in (FAIL, PARITY):
        return []
    return [p for p in verdict.problems if p.field.rpartition(" ")[2] not in _UNTIMED_FIELDS]


def _show(value: object) -> str:
    return "none" if value is None else str(value)


class _Judge:
    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.problems: list[Problem] = []

    def say(
        self, tier: Tier, name: str, text: str, expected: Scalar = None, observed: Scalar = None, gist: str = ""
    ) -> None:
        if all(problem.text != text for problem in self.problems):
            self.problems.append(Problem(tier, name, text, expected, observed, gist))

    def field(
        self, tier: Tier, prefix: str, name: str, mine: Scalar, canon: Scalar, has_canon: bool, want: Scalar
    ) -> None:
        """One field held to the scenario (at *tier*) and to the canonical (at parity where the scenario is silent)."""
        misses = want is not None and mine != want
        where = f"{prefix}{name}"
        if has_canon and mine != canon:
            shown = f"{prefix}{name}={_show(mine)}, canonical says {_show(canon)}"
            self.say(tier if misses else "parity", where, shown, want if misses else canon, mine)
        elif misses:
            self.say(tier, where, f"{prefix}{name}={_show(mine)}, expected {_show(want)}", want, mine)

    # -- calls ---------------------------------------------------------------

    def call(self, index: int, fact: CallFact, canon: CallFact | None, endpoint: str) -> None:
        expect: Expect = self.scenario.calls[index].expect
        tier = self.scenario.tier
        prefix = f"call {index + 1}: " if len(self.scenario.calls) > 1 else ""
        if "hung" in fact:
            text = f"{prefix}{fact['hung']}: the call ignores its {self.scenario.timeout:g} s deadline"
            self.say("safety", f"{prefix}elapsed", text, self.scenario.timeout, fact.get("elapsed"))
            return
        if "missing" in fact:
            self.say("environment", f"{prefix}import", f"{prefix}{_absent(fact['missing'])}", None, fact["missing"])
            return
        if "raised" in fact:
            self.say("contract", f"{prefix}raised", f"{prefix}embed_with_outcome raised {fact['raised']}")
            return
        kind, detail = error_kind(fact.get("error"))
        usable = canon if canon is not None and "hung" not in canon and "raised" not in canon else None
        theirs: CallFact = usable if usable is not None else {}
        has_canon = usable is not None
        self.field(tier, prefix, "value", fact.get("value"), theirs.get("value"), has_canon, expect.value)
        self.field(
            tier, prefix, "attempted", fact.get("attempted"), theirs.get("attempted"), has_canon, expect.attempted
        )
        self.field(tier, prefix, "ok", fact.get("ok"), theirs.get("ok"), has_canon, expect.ok)
        if kind != "unrecognised":
            canon_kind = error_kind(theirs.get("error"))[0] if has_canon else None
            kind_tier: Tier = tier if {kind, expect.kind, canon_kind} & _TABLE_KINDS else "parity"
            self.field(kind_tier, prefix, "kind", kind, canon_kind, has_canon, expect.kind)
        if theirs.get("logged") and not fact.get("logged"):
            self.say(
                "parity", f"{prefix}logged", f"{prefix}the evidence was not logged as a warning, the canonical logs it"
            )
        if expect.detail is not None and kind != "none" and not re.search(expect.detail, detail):
            text = f"{prefix}detail {detail!r} does not match /{expect.detail}/"
            self.say("parity", f"{prefix}detail", text, expect.detail, detail)
        elapsed = fact.get("elapsed", 0.0)
        if expect.within and elapsed > expect.within:
            self.say(
                "safety",
                f"{prefix}elapsed",
                f"{prefix}took {elapsed:.2f} s, ceiling {expect.within:g} s",
                expect.within,
                elapsed,
                f"{prefix}took longer than its {expect.within:g} s ceiling",
            )
        error = fact.get("error")
        if kind == "unrecognised":
            self.say("contract", f"{prefix}error", f"{prefix}error is not an evidence line: {error!r}", None, error)
        elif error is not None and fact.get("attempted"):
            start = f"mode={self.scenario.mode} / POST {endpoint} "
            if not error.startswith(start):
                text = f"{prefix}evidence does not start with {start.strip()!r}: {error!r}"
                self.say("contract", f"{prefix}error", text, start.strip(), error)
        leaks = fact.get("leaks", [])
        if leaks and self.scenario.no_secret:
            text = f"{prefix}a secret leaked into the error ({', '.join(leaks)})"
            self.say("contract", f"{prefix}error", text, "no secret", ", ".join(leaks))
        unprintable = fact.get("unprintable", [])
        if unprintable:
            text = f"{prefix}the error holds control characters {' '.join(unprintable)}"
            self.say("contract", f"{prefix}error", text, "one printable line", " ".join(unprintable))

    def calls(self, observed: ScenarioFacts, canonical: ScenarioFacts | None) -> None:
        facts = observed.get("calls", [])
        canon_facts = canonical.get("calls", []) if canonical is not None else []
        endpoint = observed.get("endpoint", "")
        for index, fact in enumerate(facts):
            canon = canon_facts[index] if index < len(canon_facts) else None
            self.call(index, fact, canon, endpoint)
        if any("missing" in fact for fact in facts):
            return  # what the calls after a missing module did, or sent, is the environment's too
        if len(facts) < len(self.scenario.calls) and not any("hung" in f or "raised" in f for f in facts):
            text = f"made {len(facts)} of {len(self.scenario.calls)} calls"
            self.say("contract", "calls", text, len(self.scenario.calls), len(facts))
        canon_requests = canonical.get("requests") if canonical is not None else None
        self.field(
            self.scenario.tier,
            "",
            "requests",
            observed.get("requests"),
            canon_requests,
            canonical is not None,
            self.scenario.requests,
        )

    # -- advisories ------------------------------------------------------------

    def severity(self, prefix: str, word: Scalar, canon: AdvisorySummary | None, want: Scalar) -> None:
        """One message for a severity that differs, saying when it is not a contract word at all."""
        note = "" if word in SEVERITY_WORDS else f" (not one of the contract's words: {', '.join(SEVERITY_WORDS)})"
        where = f"{prefix}severity"
        if canon is not None and word != canon["severity"]:
            text = f"{prefix}severity={_show(word)}, canonical says {_show(canon['severity'])}{note}"
            self.say("contract", where, text, canon["severity"], word)
        elif want is not None and word != want:
            self.say("contract", where, f"{prefix}severity={_show(word)}, expected {_show(want)}{note}", want, word)
        elif note:
            self.say("contract", where, f"{prefix}severity={_show(word)}{note}", None, word)

    def advisories(self, observed: ScenarioFacts, canonical: ScenarioFacts | None) -> None:
        got = observed.get("advisories", [])
        canon_all = canonical.get("advisories") if canonical is not None else None
        for index, want in enumerate(self.scenario.advisories):
            prefix = f"advisory {index + 1}: "
            where = f"advisory {index + 1}"
            mine = got[index] if index < len(got) else None
            canon = canon_all[index] if canon_all is not None and index < len(canon_all) else None
            has_canon = canon_all is not None
            if mine is None:
                if has_canon and canon is not None:
                    text = f"{prefix}none, canonical says severity={canon['severity']}"
                    self.say("contract", where, text, canon["severity"], None)
                elif want is not None:
                    self.say("contract", where, f"{prefix}none, expected severity={want.get('severity')}", None, None)
                continue
            if has_canon and canon is None:
                text = f"{prefix}severity={mine['severity']}, canonical gives no advisory"
                self.say("contract", where, text, None, mine["severity"])
                continue
            if want is None and not has_canon:
                self.say(
                    "contract", where, f"{prefix}severity={mine['severity']}, expected none", None, mine["severity"]
                )
                continue
            expected = want or {}
            self.severity(prefix, mine["severity"], canon, expected.get("severity"))
            has = canon is not None
            reason, degraded = (canon["reason"], canon["degraded"]) if canon is not None else (None, None)
            self.field("contract", prefix, "reason", mine["reason"], reason, has, expected.get("reason"))
            self.field("contract", prefix, "degraded", mine["degraded"], degraded, has, expected.get("degraded"))
            keys = set(mine["keys"])
            lacking = sorted(CONTRACT_KEYS - keys)
            if lacking:
                self.say("contract", f"{where} keys", f"{prefix}the payload lacks {', '.join(lacking)}", None, None)
            if canon is not None and keys != set(canon["keys"]):
                extra = sorted(keys - set(canon["keys"]))
                gone = sorted(set(canon["keys"]) - keys)
                words = [f"+{k}" for k in extra] + [f"-{k}" for k in gone]
                text = f"{prefix}payload keys differ from the canonical's: {' '.join(words)}"
                self.say("parity", f"{where} keys", text, None, " ".join(words))


def _loggers(names: list[str]) -> str:
    """`` of <logger>, ...``: whose records they were (the copy's own, or httpx's request log it drives)."""
    return f" of {', '.join(names)}" if names else ""


def judge(scenario: Scenario, observed: ScenarioFacts, canonical: ScenarioFacts | None) -> Verdict:
    """The verdict on one copy's *observed* facts for *scenario*.

    *canonical* is the canonical client's observation of the same scenario
    (``None`` for the canonical itself, or when it could not run it).
    """
    judge = _Judge(scenario)
    if canonical is not None and ("stale" in canonical or "raised" in canonical or "hung" in canonical):
        canonical = None
    if observed.get("stale"):
        # What its embed() calls did is not what the contract promises: staleness is the one problem.
        judge.say(
            "contract",
            "embed_with_outcome",
            "no embed_with_outcome: a stale copy (plait sync or plait vendor brings it)",
        )
        return _verdict(judge.problems, observed)
    if "missing" in observed:
        judge.say("environment", "import", _absent(observed["missing"]), None, observed["missing"])
    elif "raised" in observed:
        judge.say("contract", "raised", f"the scenario could not run: {observed['raised']}")
    elif "hung" in observed:
        judge.say("safety", "elapsed", f"{observed['hung']}: the call ignores its {scenario.timeout:g} s deadline")
    elif scenario.kind == "advisory":
        judge.advisories(observed, canonical)
    else:
        judge.calls(observed, canonical)
    log_leaks = observed.get("log_leaks", [])
    if scenario.no_secret and log_leaks:
        of = _loggers(observed.get("log_leak_sources", []))
        text = f"a secret leaked into a log record{of} ({', '.join(log_leaks)})"
        judge.say("contract", "log", text, "no secret", ", ".join(log_leaks))
    log_unprintable = observed.get("log_unprintable", [])
    if log_unprintable:
        of = _loggers(observed.get("log_unprintable_sources", []))
        text = f"a log record{of} holds control characters {' '.join(log_unprintable)}"
        judge.say("contract", "log", text, "printable lines", " ".join(log_unprintable))
    return _verdict(judge.problems, observed)


# -- when the canonical client predates the contract ---------------------------------------------

_NO_CONTRACT = "the outcome contract does not apply (the canonical client has no embed_with_outcome)"


def _failure(facts: CallFact | ScenarioFacts) -> str | None:
    """A hang or a raise (by the exception's type: its message may carry what differs run to run), else ``None``."""
    if "hung" in facts:
        return str(facts["hung"])
    if "raised" in facts:
        return f"raised {str(facts['raised']).partition(':')[0]}"
    return None


def _answer(fact: CallFact) -> str:
    """What one call did, as ``embed()`` would have told it: a hang, a raise, or the value it returns.

    A copy that has ``embed_with_outcome`` is seen through ``embed()``'s
    promise, the value when the call is ok and ``None`` otherwise, so it
    compares with a canonical client that has only ``embed()``.
    """
    failed = _failure(fact)
    if failed is not None:
        return failed
    if "ok" in fact and fact["ok"] is not True:
        return "returns None"
    return f"returns {fact.get('value')}"


def _untold(facts: ScenarioFacts) -> bool:
    """Whether *facts* tell nothing to compare: a scenario that needs ``embed_with_outcome`` to run at all."""
    return bool(facts.get("stale")) and "calls" not in facts


def _skip(reason: str, observed: ScenarioFacts) -> Verdict:
    return Verdict(SKIP, observed=observed, reason=reason)


class _Likeness(_Judge):
    """Differences from the canonical client, each at parity: without the contract it is the only measure."""

    def calls_like(self, observed: ScenarioFacts, canonical: ScenarioFacts) -> None:
        mine_all, theirs_all = observed.get("calls", []), canonical.get("calls", [])
        for index in range(max(len(mine_all), len(theirs_all))):
            prefix = f"call {index + 1}: " if len(self.scenario.calls) > 1 else ""
            mine = _answer(mine_all[index]) if index < len(mine_all) else "made no call"
            theirs = _answer(theirs_all[index]) if index < len(theirs_all) else "made no call"
            if mine != theirs:
                self.say("parity", f"{prefix}value", f"{prefix}{mine}, canonical {theirs}", theirs, mine)
        mine_requests, theirs_requests = observed.get("requests"), canonical.get("requests")
        if mine_requests != theirs_requests:
            text = f"requests={_show(mine_requests)}, canonical says {_show(theirs_requests)}"
            self.say("parity", "requests", text, theirs_requests, mine_requests)

    def advisories_like(self, observed: ScenarioFacts, canonical: ScenarioFacts) -> None:
        mine_all, theirs_all = observed.get("advisories", []), canonical.get("advisories", [])
        for index in range(max(len(mine_all), len(theirs_all))):
            prefix = f"advisory {index + 1}: "
            mine = mine_all[index] if index < len(mine_all) else None
            theirs = theirs_all[index] if index < len(theirs_all) else None
            if mine is None or theirs is None:
                if mine != theirs:
                    said = "none" if mine is None else f"severity={mine['severity']}"
                    canon = "none" if theirs is None else f"severity={theirs['severity']}"
                    self.say("parity", f"advisory {index + 1}", f"{prefix}{said}, canonical says {canon}")
                continue
            for key in ("severity", "reason", "degraded"):
                self.field("parity", prefix, key, mine[key], theirs[key], True, None)
            if set(mine["keys"]) != set(theirs["keys"]):
                extra = [f"+{k}" for k in sorted(set(mine["keys"]) - set(theirs["keys"]))]
                gone = [f"-{k}" for k in sorted(set(theirs["keys"]) - set(mine["keys"]))]
                text = f"{prefix}payload keys differ from the canonical's: {' '.join(extra + gone)}"
                self.say("parity", f"advisory {index + 1} keys", text, None, " ".join(extra + gone))

    def logs_like(self, observed: ScenarioFacts, canonical: ScenarioFacts) -> None:
        leaks = observed.get("log_leaks", [])
        if self.scenario.no_secret and leaks and not canonical.get("log_leaks"):
            of = _loggers(observed.get("log_leak_sources", []))
            text = f"a secret leaked into a log record{of} ({', '.join(leaks)}), the canonical's logs hold none"
            self.say("parity", "log", text, "no secret", ", ".join(leaks))


def judge_parity(
    scenario: Scenario, observed: ScenarioFacts, canonical: ScenarioFacts | None, *, reference: bool = False
) -> Verdict:
    """The verdict on *observed* when the canonical client predates ``embed_with_outcome``.

    No outcome is promised, so none is held to the copy: it is compared with
    the canonical client's *canonical* facts alone, every difference at
    parity.  The *reference* (the canonical itself) passes what it ran.  A
    scenario only one side can run, or one that needs ``embed_with_outcome``
    to run at all, is skipped, saying why; a missing module still leaves a
    scenario unchecked.
    """
    judge = _Likeness(scenario)
    missing = observed.get("missing") or next(
        (call["missing"] for call in observed.get("calls", []) if "missing" in call), None
    )
    if missing is not None:
        judge.say("environment", "import", _absent(missing), None, missing)
        return _verdict(judge.problems, observed)
    if _untold(observed) or (canonical is not None and _untold(canonical)):
        return _skip(f"not applicable: {_NO_CONTRACT}", observed)
    if reference:
        return Verdict(PASS, observed=observed)
    if canonical is None:
        return _skip("not compared: the canonical client does not run this scenario", observed)
    mine, theirs = _failure(observed), _failure(canonical)
    if mine is not None or theirs is not None:
        if mine != theirs:
            judge.say("parity", "raised", f"{mine or 'ran'}, canonical {theirs or 'ran'}", theirs, mine)
    elif scenario.kind == "advisory":
        judge.advisories_like(observed, canonical)
    else:
        judge.calls_like(observed, canonical)
    judge.logs_like(observed, canonical)
    return _verdict(judge.problems, observed)
