"""Judging a copy: its observed outcomes against the scenario and against the canonical client.

The worker reports facts; this module says whether they conform, and when
they do not, says why in words a maintainer can act on:
``attempted=False, canonical says True``, ``took 3.02 s, ceiling 1.75 s``,
``leaked a secret (percent-encoded, 12 characters) in the error``.

A field is compared with the canonical client's outcome for the same
scenario first (every copy must report what the canonical reports), then
with the scenario's expectation.  One message per field: when a copy
differs from the canonical, that is the message, whatever the expectation
says.  The error's *type* is compared with the canonical's; its detail only
with the scenario's pattern, because a detail may carry timing (how much of
a dripping body had arrived at the deadline).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .scenarios import CONTRACT_KEYS, Expect, Scenario

__all__ = ["SEVERITY_WORDS", "Verdict", "error_kind", "judge", "skipped"]

#: The two words services and agents match on.
SEVERITY_WORDS = ("fault", "hint")

PASS = "pass"
DIVERGE = "diverge"
SKIP = "skip"

_LINE = re.compile(
    r"^mode=(?P<mode>.*?) / POST (?P<endpoint>\S+) (?:failed: (?P<kind>[^:]*): (?P<detail>.*)|returned no embeddings)$",
    re.DOTALL,
)
_UNSUPPORTED = re.compile(r"^mode=.* is not a supported embedding mode$", re.DOTALL)
_NO_URL = re.compile(r"^mode=\S* has no endpoint URL configured$", re.DOTALL)

_NEEDS_WORDS = {
    "uds": "it takes no uds_path (no uds transport)",
    "transport": "it takes no transport=",
    "health": "it carries no health module",
}


@dataclass
class Verdict:
    """How one copy did on one scenario: ``pass``, ``diverge`` or ``skip``, and why."""

    status: str
    problems: list[str] = field(default_factory=list)
    observed: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "problems": self.problems, "observed": self.observed}


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
    return Verdict(SKIP, [f"not applicable: {_NEEDS_WORDS.get(need, need)}" for need in missing])


def _show(value: Any) -> str:
    return "none" if value is None else str(value)


class _Judge:
    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.problems: list[str] = []

    def say(self, message: str) -> None:
        if message not in self.problems:
            self.problems.append(message)

    def field(self, prefix: str, name: str, mine: Any, canon: Any, has_canon: bool, want: Any) -> None:
        if has_canon and mine != canon:
            self.say(f"{prefix}{name}={_show(mine)}, canonical says {_show(canon)}")
        elif want is not None and mine != want:
            self.say(f"{prefix}{name}={_show(mine)}, expected {_show(want)}")

    # -- calls ---------------------------------------------------------------

    def call(self, index: int, fact: Mapping[str, Any], canon: Mapping[str, Any] | None, endpoint: str) -> None:
        expect: Expect = self.scenario.calls[index].expect
        prefix = f"call {index + 1}: " if len(self.scenario.calls) > 1 else ""
        if "hung" in fact:
            self.say(f"{prefix}{fact['hung']}: the call ignores its {self.scenario.timeout:g} s deadline")
            return
        if "raised" in fact:
            self.say(f"{prefix}embed_with_outcome raised {fact['raised']}")
            return
        kind, detail = error_kind(fact.get("error"))
        usable = canon is not None and "hung" not in canon and "raised" not in canon
        canon_kind = error_kind(canon.get("error"))[0] if usable and canon is not None else None
        for name, mine, want in (
            ("value", fact.get("value"), expect.value),
            ("attempted", fact.get("attempted"), expect.attempted),
            ("ok", fact.get("ok"), expect.ok),
        ):
            self.field(prefix, name, mine, canon.get(name) if usable and canon else None, usable, want)
        self.field(prefix, "kind", kind, canon_kind, usable, expect.kind)
        if usable and canon is not None and canon.get("logged") and not fact.get("logged"):
            self.say(f"{prefix}the evidence was not logged as a warning, the canonical logs it")
        if expect.detail is not None and kind != "none" and not re.search(expect.detail, detail):
            self.say(f"{prefix}detail {detail!r} does not match /{expect.detail}/")
        if expect.within and fact.get("elapsed", 0) > expect.within:
            self.say(f"{prefix}took {fact['elapsed']:.2f} s, ceiling {expect.within:g} s")
        error = fact.get("error")
        if error is not None and fact.get("attempted") and kind not in ("unrecognised",):
            start = f"mode={self.scenario.mode} / POST {endpoint} "
            if not error.startswith(start):
                self.say(f"{prefix}evidence does not start with {start.strip()!r}: {error!r}")
        elif kind == "unrecognised":
            self.say(f"{prefix}error is not an evidence line: {error!r}")
        if fact.get("leaks") and self.scenario.no_secret:
            self.say(f"{prefix}a secret leaked into the error ({', '.join(fact['leaks'])})")
        if fact.get("unprintable"):
            self.say(f"{prefix}the error holds control characters {' '.join(fact['unprintable'])}")

    def calls(self, observed: Mapping[str, Any], canonical: Mapping[str, Any] | None) -> None:
        facts = observed.get("calls", [])
        canon_facts = (canonical or {}).get("calls", [])
        endpoint = observed.get("endpoint", "")
        for index, fact in enumerate(facts):
            canon = canon_facts[index] if index < len(canon_facts) else None
            self.call(index, fact, canon, endpoint)
        if len(facts) < len(self.scenario.calls) and not any("hung" in f or "raised" in f for f in facts):
            self.say(f"made {len(facts)} of {len(self.scenario.calls)} calls")
        requests = observed.get("requests")
        canon_requests = (canonical or {}).get("requests")
        self.field("", "requests", requests, canon_requests, canonical is not None, self.scenario.requests)

    # -- advisories ------------------------------------------------------------

    def severity(self, prefix: str, word: Any, canon: Mapping[str, Any] | None, want: Any) -> None:
        """One message for a severity that differs, saying when it is not a contract word at all."""
        note = "" if word in SEVERITY_WORDS else f" (not one of the contract's words: {', '.join(SEVERITY_WORDS)})"
        if canon is not None and word != canon.get("severity"):
            self.say(f"{prefix}severity={_show(word)}, canonical says {_show(canon.get('severity'))}{note}")
        elif want is not None and word != want:
            self.say(f"{prefix}severity={_show(word)}, expected {_show(want)}{note}")
        elif note:
            self.say(f"{prefix}severity={_show(word)}{note}")

    def advisories(self, observed: Mapping[str, Any], canonical: Mapping[str, Any] | None) -> None:
        got = observed.get("advisories", [])
        canon_all = (canonical or {}).get("advisories")
        for index, want in enumerate(self.scenario.advisories):
            prefix = f"advisory {index + 1}: "
            mine = got[index] if index < len(got) else None
            canon = canon_all[index] if canon_all is not None and index < len(canon_all) else None
            has_canon = canon_all is not None
            if mine is None:
                if has_canon and canon is not None:
                    self.say(f"{prefix}none, canonical says severity={canon.get('severity')}")
                elif want is not None:
                    self.say(f"{prefix}none, expected severity={want.get('severity')}")
                continue
            if has_canon and canon is None:
                self.say(f"{prefix}severity={mine.get('severity')}, canonical gives no advisory")
                continue
            if want is None and not has_canon:
                self.say(f"{prefix}severity={mine.get('severity')}, expected none")
                continue
            self.severity(prefix, mine.get("severity"), canon, (want or {}).get("severity"))
            for name in ("reason", "degraded"):
                self.field(
                    prefix,
                    name,
                    mine.get(name),
                    canon.get(name) if canon else None,
                    canon is not None,
                    (want or {}).get(name),
                )
            keys = set(mine.get("keys", []))
            lacking = sorted(CONTRACT_KEYS - keys)
            if lacking:
                self.say(f"{prefix}the payload lacks {', '.join(lacking)}")
            if canon is not None and keys != set(canon.get("keys", [])):
                extra = sorted(keys - set(canon["keys"]))
                gone = sorted(set(canon["keys"]) - keys)
                words = [f"+{k}" for k in extra] + [f"-{k}" for k in gone]
                self.say(f"{prefix}payload keys differ from the canonical's: {' '.join(words)}")


def judge(scenario: Scenario, observed: Mapping[str, Any], canonical: Mapping[str, Any] | None) -> Verdict:
    """The verdict on one copy's *observed* facts for *scenario*.

    *canonical* is the canonical client's observation of the same scenario
    (``None`` for the canonical itself, or when it could not run it).
    """
    judge = _Judge(scenario)
    if canonical is not None and ("stale" in canonical or "raised" in canonical or "hung" in canonical):
        canonical = None
    if observed.get("stale"):
        judge.say("no embed_with_outcome: a stale copy (plait sync or plait vendor brings it)")
    elif "raised" in observed:
        judge.say(f"the scenario could not run: {observed['raised']}")
    elif "hung" in observed:
        judge.say(f"{observed['hung']}: the call ignores its {scenario.timeout:g} s deadline")
    elif scenario.kind == "advisory":
        judge.advisories(observed, canonical)
    else:
        judge.calls(observed, canonical)
    if scenario.no_secret and observed.get("log_leaks"):
        judge.say(f"a secret leaked into a log record ({', '.join(observed['log_leaks'])})")
    if observed.get("log_unprintable"):
        judge.say(f"a log record holds control characters {' '.join(observed['log_unprintable'])}")
    return Verdict(DIVERGE if judge.problems else PASS, judge.problems, dict(observed))
