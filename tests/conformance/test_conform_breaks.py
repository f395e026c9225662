"""The suite is trustworthy: each deliberately broken copy is caught, at its tier, and the problem says why.

The matrix (`broken_matrix`) runs the canonical client and ten broken
copies of it (see `breaks`): the six breaks the issue lists, and one for
each remaining hostile-backend case, so every such scenario is shown able
to fail.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from breaks import BREAKS

from plait.conformance import ConformReport

pytestmark = pytest.mark.slow  # conformance runs (worker processes, real servers)


def _copy(report: ConformReport, name: str):
    return next(c for c in report.copies if c.target.name == name)


@pytest.mark.parametrize("name", list(BREAKS))
def test_each_break_is_caught_at_its_tier_and_said_plainly(broken_matrix: ConformReport, name: str) -> None:
    expected = BREAKS[name]
    copy = _copy(broken_matrix, name)
    assert copy.error is None and not copy.conforms
    verdict = copy.verdicts[expected.scenario]
    assert verdict.status == "fail"
    found = [p for p in verdict.problems if p.text.startswith(expected.says)]
    assert found, [p.text for p in verdict.problems]
    assert found[0].tier == expected.tier
    said = f"{name}: {expected.scenario} → {expected.says}"
    assert any(line.startswith(said) for line in broken_matrix.failures())
    assert any(line.startswith(said) for line in broken_matrix.problems(found[0].tier))


def test_the_canonical_client_passes_what_exposes_the_breaks(broken_matrix: ConformReport) -> None:
    canonical = broken_matrix.copies[0]
    assert canonical.target.kind == "canonical"
    assert canonical.conforms, [v.problems for v in canonical.verdicts.values() if v.problems]
    assert not canonical.problems(), "the canonical client is its own reference: not even a parity difference"
    assert broken_matrix.exit_code == 1


def test_a_break_leaves_what_it_did_not_touch_conforming(broken_matrix: ConformReport) -> None:
    # The severity edit only touches health: every call scenario still passes,
    # so the problem points at the one thing that changed.
    copy = _copy(broken_matrix, "error-not-fault")
    assert {name for name, verdict in copy.verdicts.items() if verdict.status != "pass"} == {"advisory-fault"}


def test_each_broken_copy_ran_from_its_own_directory(broken_matrix: ConformReport) -> None:
    for copy in broken_matrix.copies[1:]:
        assert Path(copy.file).parent == copy.target.package_dir
        assert copy.target.import_name == "embedding_client"


def test_a_leaked_secret_is_masked_in_the_report_itself(broken_matrix: ConformReport) -> None:
    # The leaky copy really leaked (see above); what the report carries, for a
    # CI log or a pull request, holds none of it.
    document = json.dumps(broken_matrix.to_json())
    for secret in ("hunter2-PASSWORD", "tok+QUERY/SECRET=42", "tok%2BQUERY", "abc%2Fdef123", "abc/def123"):
        assert secret not in document
    leaky = _copy(broken_matrix, "leaky").verdicts["echo-credentials-http"]
    assert "‹secret›" in leaky.observed["calls"][0]["error"]
