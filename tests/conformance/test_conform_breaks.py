"""The suite is trustworthy: each deliberately broken copy is caught, and the divergence says why.

One matrix runs the canonical client and six broken copies of it (see
`breaks`) over the scenarios that expose the breaks, as `plait conform`
runs them: each copy in its own process, against real loopback servers.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from breaks import (
    broken_copy,
    has_no_embed_with_outcome,
    ignores_the_deadline,
    leaks_credentials,
    raises_on_nan,
    reports_failures_as_not_attempted,
    says_error_not_fault,
)

from plait.conformance import ConformReport, conform, installed_canonical, load_scenarios, path_target

# copy name: (edit, the scenario that must expose it, what the divergence must say)
BREAKS = {
    "not-attempted": (reports_failures_as_not_attempted, "refused", "attempted=False, canonical says True"),
    "leaky": (leaks_credentials, "echo-credentials-http", "a secret leaked into the error"),
    "raises-on-nan": (raises_on_nan, "nan", "embed_with_outcome raised ResponseRejected: body holds NaN"),
    "no-deadline": (ignores_the_deadline, "drip-body", "still running after 2 s: the call ignores its 1 s deadline"),
    "stale": (has_no_embed_with_outcome, "ok", "no embed_with_outcome: a stale copy"),
    "error-not-fault": (says_error_not_fault, "advisory-fault", "advisory 1: severity=error, canonical says fault"),
}
SCENARIOS = ["ok", "refused", "status-500", "echo-credentials-http", "nan", "drip-body", "advisory-fault"]


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> ConformReport:
    root = tmp_path_factory.mktemp("broken")
    scenarios = load_scenarios().named(SCENARIOS)
    # A copy without a deadline would drip for 2.5 s: give up on it sooner (still past the 1.75 s ceiling).
    scenarios = dataclasses.replace(scenarios, settings=dataclasses.replace(scenarios.settings, guard=2.0))
    targets = [installed_canonical()]
    for name, (edit, _scenario, _says) in BREAKS.items():
        targets.append(path_target(broken_copy(root / name, edit), name=name))
    return conform(targets, scenarios)


@pytest.mark.parametrize("name", list(BREAKS))
def test_each_break_is_caught_and_said_plainly(matrix: ConformReport, name: str) -> None:
    _edit, scenario, says = BREAKS[name]
    copy = next(c for c in matrix.copies if c.target.name == name)
    assert copy.error is None and not copy.conforms
    verdict = copy.verdicts[scenario]
    assert verdict.status == "diverge"
    assert any(problem.startswith(says) for problem in verdict.problems), verdict.problems
    assert any(line.startswith(f"{name}: {scenario} → {says}") for line in matrix.divergences())


def test_the_canonical_client_passes_what_exposes_the_breaks(matrix: ConformReport) -> None:
    canonical = matrix.copies[0]
    assert canonical.target.kind == "canonical"
    assert canonical.conforms, [v.problems for v in canonical.verdicts.values() if v.problems]
    assert matrix.exit_code == 1


def test_a_break_leaves_what_it_did_not_touch_conforming(matrix: ConformReport) -> None:
    # The severity edit only touches health: every call scenario still passes,
    # so a divergence points at the one thing that changed.
    copy = next(c for c in matrix.copies if c.target.name == "error-not-fault")
    diverged = {name for name, verdict in copy.verdicts.items() if verdict.status == "diverge"}
    assert diverged == {"advisory-fault"}


def test_each_broken_copy_ran_from_its_own_directory(matrix: ConformReport) -> None:
    for copy in matrix.copies[1:]:
        assert Path(copy.file).parent == copy.target.package_dir
        assert copy.target.import_name == "embedding_client"
