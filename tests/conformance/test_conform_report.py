"""The matrix in every format: JSON for scripts, markdown for a pull request, JUnit XML for CI servers.

The report under test is `broken_matrix`: the canonical client and ten
broken copies, so cells that pass, fail and skip are there.  The
JUnit XML is validated against ``junit.xsd`` (Jenkins' junit-10.xsd, with
numbers typed as Ant's schema types them) by `xsd_subset`, a standard-library
reader of the XSD constructs that schema uses.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from breaks import BREAKS
from markdown_tables import tables
from xsd_subset import read_schema, validate

from plait.conformance import ConformReport, to_junit, to_markdown

pytestmark = pytest.mark.slow  # conformance runs (worker processes, real servers)

SCHEMA = read_schema(Path(__file__).with_name("junit.xsd"))


def test_json_report_shape(broken_matrix: ConformReport) -> None:
    data = json.loads(json.dumps(broken_matrix.to_json()))
    assert (data["schema"], data["exit"]) == (2, 1)
    assert [s["name"] for s in data["scenarios"]] == [s.name for s in broken_matrix.scenarios.scenarios]
    assert {s["name"]: s["tier"] for s in data["scenarios"]}["gzip-bomb"] == "safety"
    copy = next(c for c in data["copies"] if c["name"] == "sends-any-key")
    assert set(copy) >= {
        "name",
        "kind",
        "path",
        "import_name",
        "health_module",
        "error",
        "capabilities",
        "keywords",
        "conforms",
        "counts",
        "problems",
        "results",
    }
    assert copy["capabilities"] == {
        "embed_with_outcome": True,
        "uds": False,
        "transport": True,
        "health": True,
        "byte_budget": True,
        "expected_width": True,
        "max_width": True,
        "cache_size": True,
    }
    assert copy["keywords"]["byte_budget"] == "max_response_bytes"
    assert copy["health_module"] == "embedding_client.health"
    assert copy["counts"]["fail"] == sum(r["status"] == "fail" for r in copy["results"])
    result = next(r for r in copy["results"] if r["scenario"] == "bad-key-newline")
    assert result["status"] == "fail"
    assert result["observed"]["calls"][0]["attempted"] is True
    assert {
        "tier": "contract",
        "field": "attempted",
        "expected": False,
        "observed": True,
        "text": "attempted=True, canonical says False",
    } in result["problems"]
    assert all(set(problem) == {"tier", "field", "expected", "observed", "text"} for problem in result["problems"])
    assert "sends-any-key: bad-key-newline → attempted=True, canonical says False" in data["problems"]["contract"]
    assert copy["problems"]["contract"] == sum(p["tier"] == "contract" for r in copy["results"] for p in r["problems"])


def test_markdown_has_a_row_per_copy_then_what_needs_attention(broken_matrix: ConformReport) -> None:
    text = to_markdown(broken_matrix)
    assert text.startswith("## plait conform: 1 of 11 copies conform to 11 scenarios")
    (table,) = tables(text)
    rows = {row["copy"]: row for row in table}
    assert list(rows) == [copy.target.name for copy in broken_matrix.copies]
    assert rows["canonical"]["verdict"] == "reference"
    assert rows["stale"]["verdict"] == "fails: stale"
    assert {rows[name]["verdict"] for name in BREAKS if name != "stale"} == {"fails"}
    no_deadline = rows["no-deadline"]
    counts = [no_deadline[tier] for tier in ("contract", "safety", "parity", "environment")]
    assert counts == ["0", "1", "0", "0"], "the counts per tier, in their own columns"
    # What needs attention, copy by copy, each problem once with the scenarios it showed in.
    attention = text.split("### Needs attention", 1)[1].split("\n### ", 1)[0]
    fault = "- `error-not-fault` **contract**: advisory 1: severity=error, canonical says fault ("
    assert any(line.startswith(fault) and line.endswith(" (advisory-fault)") for line in attention.splitlines())
    assert "- `no-deadline` **safety**: still running after" in attention
    named = [line.split("`")[1] for line in attention.splitlines() if line.startswith("- `")]
    order = [copy.target.name for copy in broken_matrix.copies]
    assert named == sorted(named, key=order.index) and "canonical" not in named


def test_markdown_verbose_adds_the_matrix(broken_matrix: ConformReport) -> None:
    matrix = tables(to_markdown(broken_matrix, verbose=True))[1]
    row = next(row for row in matrix if row["scenario"] == "advisory-fault")
    assert row["canonical"] == row["leaky"] == "✅"
    assert row["error-not-fault"] == row["stale"] == "❌"


def test_junit_xml_is_valid_against_the_schema_ci_servers_read(broken_matrix: ConformReport) -> None:
    document = to_junit(broken_matrix)
    assert validate(document, SCHEMA) == []
    root = ET.fromstring(document)
    suites = {suite.get("name"): suite for suite in root}
    assert list(suites) == [c.target.name for c in broken_matrix.copies]
    assert int(root.get("failures")) == sum(c.count("fail") for c in broken_matrix.copies)
    suite = suites["error-not-fault"]
    assert suite.get("tests") == str(len(broken_matrix.scenarios.scenarios))
    assert int(suite.get("failures")) == len(suite.findall("testcase/failure")) == 1
    case = suite.find("testcase[@name='advisory-fault']")
    assert case is not None and case.get("classname") == "plait.conform.error-not-fault"
    failure = case.find("failure")
    assert failure.get("message").startswith("advisory 1: severity=error, canonical says fault")
    assert failure.get("type") == "contract"
    drip = suites["no-deadline"].find("testcase[@name='drip-body']/failure")
    assert drip is not None and drip.get("type") == "safety"


def test_the_schema_check_itself_catches_a_broken_report(broken_matrix: ConformReport) -> None:
    document = to_junit(broken_matrix).replace('<testsuite name="leaky"', "<testsuite", 1)
    document = document.replace("<properties>", "<surprise/><properties>", 1)
    document = document.replace('tests="', 'tests="many', 1)
    problems = validate(document, SCHEMA)
    assert any("lacks the required attribute name" in p for p in problems)
    assert any("surprise" in p for p in problems)
    assert any("is not an xs:int" in p for p in problems)


def test_a_copy_that_could_not_run_is_an_error_in_junit(broken_matrix: ConformReport) -> None:
    import dataclasses

    from plait.conformance.runner import CopyResult

    failed = CopyResult(dataclasses.replace(broken_matrix.copies[1].target, name="gone"), error="cannot import x")
    report = dataclasses.replace(broken_matrix, copies=[*broken_matrix.copies, failed])
    document = to_junit(report)
    assert validate(document, SCHEMA) == []
    suite = ET.fromstring(document).find("testsuite[@name='gone']")
    assert suite is not None and suite.get("errors") == "1"
    assert suite.find("testcase/error").get("message") == "cannot import x"
    assert report.exit_code == 2


def test_a_copy_behaves_like_the_canonical_only_where_both_pass_or_neither_runs() -> None:
    from plait.conformance.runner import standing
    from plait.conformance.verdicts import Problem, Verdict

    passed, skipped = Verdict("pass"), Verdict("skip", reason="not applicable: it takes no uds_path")
    failed = Verdict("fail", [Problem("contract", "ok", "ok=False, canonical says True")])
    differs = Verdict("parity", [Problem("parity", "kind", "kind=X, canonical says Y")])
    unchecked = Verdict("skip", [Problem("environment", "import", "needs numpy")], reason="not checked here")
    assert [standing(passed, passed), standing(skipped, skipped)] == ["alike", "alike"]
    assert standing(failed, passed) == "fails" and standing(differs, passed) == "differs"
    assert standing(unchecked, passed) == "unchecked"
    assert standing(skipped, passed) == "not_applicable"
    assert standing(passed, skipped) == "canonical_skips"
    assert standing(passed, failed) == "canonical_fails", "passing where the canonical fails is not behaving like it"
