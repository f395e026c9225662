"""`plait conform` on the bundled workspace as committed: what it finds, and how it says it.

The workspace as committed is a real test bed: the canonical client and the
demo consumer's copy of it are current, the upstream lineage is behind the
client hardening (so it fails each hostile case the hardening fixed), and
the sibling predates `embed_with_outcome` altogether.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from xsd_subset import read_schema, validate

from plait.cli import cli
from plait.conformance import ConformReport, conform, load_scenarios, to_junit, to_markdown, workspace_targets
from plait.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
WORKSPACE = REPO / "lineages"
SCHEMA = read_schema(Path(__file__).with_name("junit.xsd"))


@pytest.fixture(scope="module")
def bundled() -> ConformReport:
    """The full matrix on the bundled workspace, as the repository has it."""
    return conform(workspace_targets(Workspace.load(WORKSPACE)), load_scenarios())


def _copy(report: ConformReport, name: str):
    return next(c for c in report.copies if c.target.name == name)


def run(*args: str):
    return CliRunner().invoke(cli, ["conform", "--workspace", str(WORKSPACE), *args], catch_exceptions=False)


# -- what it finds ---------------------------------------------------------------------------


def test_every_copy_in_the_manifest_runs_under_its_own_package_name(bundled: ConformReport) -> None:
    assert [(c.target.name, c.target.kind, c.target.import_name) for c in bundled.copies] == [
        ("canonical", "canonical", "embedding_client"),
        ("upstream", "lineage", "mcp_common"),
        ("sibling", "lineage", "mcp_common"),
        ("cpersona", "consumer", "cpersona._vendored_mcp_common.embedding_client"),
    ]
    for copy in bundled.copies:
        assert copy.error is None
        assert Path(copy.file).parent == copy.target.package_dir, "each copy imported from its own directory"


def test_the_current_copies_conform_and_the_run_exits_1(bundled: ConformReport) -> None:
    for name in ("canonical", "cpersona"):
        copy = _copy(bundled, name)
        assert copy.conforms, [(n, v.problems) for n, v in copy.verdicts.items() if v.problems]
        skipped = {n for n, v in copy.verdicts.items() if v.status == "skip"}
        assert skipped == {n for n in copy.verdicts if n.startswith("uds-")}, "only the uds transport is missing"
    assert bundled.exit_code == 1


# The hostile backends the client hardening fixed, and how the lineage still behind it fails each.
HOSTILE = {
    "advisory-fault": "advisory 1: severity=error, canonical says fault",
    "advisory-not-configured": "advisory 1: severity=info, canonical says hint",
    "drip-body": "took ",
    "drip-headers": "took ",
    "drip-error-body": "took ",
    "endless-1xx": "took ",
    "echo-credentials-http": "a secret leaked into the error",
    "echo-credentials-api": "a secret leaked into a log record",
    "bad-key-crlf": "attempted=True, canonical says False",
    "unprintable-exception": "embed_with_outcome raised RuntimeError",
    "gzip-bomb": "detail ",
    "control-chars": "the error holds control characters",
}


@pytest.mark.parametrize("scenario", list(HOSTILE))
def test_the_lineage_behind_the_hardening_fails_each_hostile_case(bundled: ConformReport, scenario: str) -> None:
    verdict = _copy(bundled, "upstream").verdicts[scenario]
    assert verdict.status == "diverge"
    assert any(p.startswith(HOSTILE[scenario]) for p in verdict.problems), verdict.problems


def test_a_stale_copy_is_reported_as_divergent(bundled: ConformReport) -> None:
    sibling = _copy(bundled, "sibling")
    assert sibling.stale and not sibling.conforms
    calls = [v for v in sibling.verdicts.values() if v.status != "skip"]
    assert calls and all(
        v.problems == ["no embed_with_outcome: a stale copy (plait sync or plait vendor brings it)"] for v in calls
    )
    # It has the uds transport, so the uds scenarios apply to it (and fail for the same reason).
    assert sibling.verdicts["uds-ok"].status == "diverge"
    assert sibling.verdicts["advisory-fault"].problems == ["not applicable: it carries no health module"]


# -- how it says it -----------------------------------------------------------------------------


def test_json_report_shape(bundled: ConformReport) -> None:
    data = json.loads(json.dumps(bundled.to_json()))
    assert data["exit"] == 1
    assert {s["name"] for s in data["scenarios"]} == {s.name for s in bundled.scenarios.scenarios}
    upstream = data["copies"][1]
    assert set(upstream) >= {
        "name",
        "kind",
        "path",
        "import_name",
        "error",
        "capabilities",
        "conforms",
        "counts",
        "results",
    }
    assert upstream["capabilities"] == {"embed_with_outcome": True, "uds": False, "transport": True, "health": True}
    result = next(r for r in upstream["results"] if r["scenario"] == "bad-key-tab")
    assert result["status"] == "diverge"
    assert result["observed"]["calls"][0]["attempted"] is True
    assert "sk-live-API-KEY-SECRET" not in json.dumps(data), "a leaked secret is masked in the report itself"
    assert "upstream: bad-key-tab → attempted=True, canonical says False" in data["divergences"]


def test_markdown_matrix(bundled: ConformReport) -> None:
    text = to_markdown(bundled)
    assert "| scenario | `canonical` | `upstream` | `sibling` | `cpersona` |" in text
    assert "| `advisory-fault` | ✅ | ❌ | ➖ | ✅ |" in text
    assert "- upstream: bad-key-tab → attempted=True, canonical says False" in text


def test_junit_xml_is_valid_against_the_schema_ci_servers_read(bundled: ConformReport) -> None:
    document = to_junit(bundled)
    assert validate(document, SCHEMA) == []
    import xml.etree.ElementTree as ET

    suites = {suite.get("name"): suite for suite in ET.fromstring(document)}
    assert list(suites) == ["canonical", "upstream", "sibling", "cpersona"]
    upstream = suites["upstream"]
    failures = upstream.findall("testcase/failure")
    assert int(upstream.get("failures")) == len(failures) == _copy(bundled, "upstream").count("diverge")
    case = upstream.find("testcase[@name='advisory-fault']")
    assert case is not None and case.get("classname") == "plait.conform.upstream"
    assert "severity=error, canonical says fault" in case.find("failure").get("message")


def test_the_schema_check_itself_catches_a_broken_report(bundled: ConformReport) -> None:
    document = to_junit(bundled).replace('<testsuite name="upstream"', "<testsuite", 1)
    document = document.replace("<properties>", "<surprise/><properties>", 1)
    problems = validate(document, SCHEMA)
    assert any("lacks the required attribute name" in p for p in problems)
    assert any("surprise" in p for p in problems)


def test_piped_output_is_one_plain_line_per_copy_and_scenario() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "plait",
            "conform",
            "--workspace",
            str(WORKSPACE),
            "upstream",
            "--scenario",
            "advisory-*",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stderr
    assert "\x1b" not in proc.stdout
    lines = proc.stdout.splitlines()
    assert "canonical  advisory-fault  pass" in lines
    assert (
        "upstream  advisory-fault  diverge  advisory 1: severity=error, canonical says fault"
        " (not one of the contract's words: fault, hint)" in lines
    )
    assert lines[-1].startswith("1 of 2 copies conform to 7 scenarios")
    assert "upstream: ran" in proc.stderr, "progress goes to stderr"


def test_exit_0_when_every_copy_conforms() -> None:
    result = run("cpersona", "--scenario", "ok", "--scenario", "refused", "--scenario", "advisory-*")
    assert result.exit_code == 0, result.stdout
    assert "cpersona  refused  pass" in result.stdout.splitlines()
    assert result.stdout.splitlines()[-1].startswith("2 of 2 copies conform to 9 scenarios")


def test_json_envelope_and_pretty() -> None:
    result = run("cpersona", "--scenario", "ok", "--json")
    assert result.exit_code == 0
    assert "\n" not in result.stdout.strip(), "compact by default"
    data = json.loads(result.stdout)
    assert (data["schema"], data["command"], data["exit"]) == (1, "conform", 0)
    assert data["inputs"] == {
        "workspace": str(WORKSPACE / "lineages.toml"),
        "copies": ["cpersona"],
        "paths": [],
        "scenarios": str(load_scenarios().path),
        "only": ["ok"],
    }
    pretty = run("cpersona", "--scenario", "ok", "--format", "json", "--pretty")
    assert pretty.stdout.startswith('{\n  "schema": 1')


def test_junit_format_from_the_command_line_is_valid() -> None:
    result = run("upstream", "--scenario", "control-chars", "--scenario", "uds-*", "--format", "junit")
    assert result.exit_code == 1
    assert validate(result.stdout, SCHEMA) == []
    assert '<skipped message="not applicable: it takes no uds_path (no uds transport)"' in result.stdout


def test_a_terminal_gets_the_matrix_as_a_coloured_table() -> None:
    result = run("upstream", "--scenario", "advisory-fault", "--scenario", "ok", "--color", "always")
    assert "\x1b[" in result.stdout
    assert "DIVERGES" in result.stdout and "conformance" in result.stdout
    assert "upstream diverges:" in result.stdout


def test_exit_2_names_a_copy_that_cannot_be_imported(tmp_path: Path) -> None:
    package = tmp_path / "brokenpkg"
    package.mkdir()
    (package / "__init__.py").write_text("import a_module_nobody_has_installed\n")
    result = run("--path", str(package), "--scenario", "ok")
    assert result.exit_code == 2
    assert (
        f"plait conform: error: {package}: cannot import brokenpkg from {tmp_path}: "
        "ModuleNotFoundError: No module named 'a_module_nobody_has_installed'"
    ) in result.stderr
    assert "canonical  ok  pass" in result.stdout, "the copies that could run are still reported"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["nope"], "no copy named nope (known: canonical, upstream, sibling, cpersona)"),
        (["--scenario", "nothing-here"], "no scenario matches nothing-here"),
        (["--path", "/definitely/not/here"], "/definitely/not/here: no such directory"),
    ],
)
def test_exit_2_on_bad_input_is_one_line(args: list[str], says: str) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [next(line for line in result.stderr.splitlines() if says in line)]
