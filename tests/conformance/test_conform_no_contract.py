"""A canonical client that predates ``embed_with_outcome``: the outcome contract does not apply, parity does.

The workspace is built in a temporary directory: its canonical is the
client with ``embed_with_outcome`` made private (libcst), and beside it a
lineage that is an exact copy of that canonical, the bundled sibling (an
older client with its own ways) and one that already has the method.
Nothing may be scored against a contract the canonical does not promise,
and nobody is told a sync brings what the canonical has not got.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_tables import tables
from variants import predating_copy

from plait.conformance import load_scenarios

pytestmark = pytest.mark.slow  # conformance runs (worker processes, real servers)

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = len(load_scenarios().scenarios)

MANIFEST = """\
[canonical]
package = "embedding_client"
path = "canonical/embedding_client"

[lineages.same]
path = "same/embedding_client"
package = "embedding_client"
syncs_from = "canonical"

[lineages.older]
description = "the bundled sibling: embed() only, its own uds transport"
path = "older/mcp_common"
package = "mcp_common"
syncs_from = "canonical"

[lineages.ahead]
description = "already has embed_with_outcome"
path = "ahead/embedding_client"
package = "embedding_client"
syncs_from = "canonical"
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("predating")
    predating_copy(root / "canonical")
    predating_copy(root / "same")
    shutil.copytree(REPO / "lineages" / "sibling" / "mcp_common", root / "older" / "mcp_common")
    shutil.copytree(REPO / "client" / "embedding_client", root / "ahead" / "embedding_client")
    for cache in root.rglob("__pycache__"):
        shutil.rmtree(cache)
    (root / "lineages.toml").write_text(MANIFEST)
    return root


def conform(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plait", "conform", "--workspace", str(workspace), *args],
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.fixture(scope="module")
def report(workspace: Path) -> dict:
    proc = conform(workspace, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def text(workspace: Path) -> subprocess.CompletedProcess[str]:
    return conform(workspace)


def test_it_says_the_contract_does_not_apply_and_exits_0(text: subprocess.CompletedProcess[str]) -> None:
    assert text.returncode == 0, text.stdout + text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == "the outcome contract does not apply: canonical has no embed_with_outcome"
    assert lines[1].startswith("canonical is the reference, without embed_with_outcome: ")
    assert not [line for line in lines if line.startswith("next:")], "nothing failed: there is nothing to run"


def test_nobody_is_told_a_sync_brings_what_the_canonical_has_not_got(
    text: subprocess.CompletedProcess[str], report: dict
) -> None:
    assert "stale" not in text.stdout and "plait sync" not in text.stdout
    assert not report["problems"]["contract"] and not report["problems"]["safety"]
    for copy in report["copies"]:
        assert copy["counts"]["fail"] == 0, copy["name"]
        assert all(p["tier"] == "parity" for r in copy["results"] for p in r["problems"]), copy["name"]


def test_copies_are_held_to_the_canonical_alone(text: subprocess.CompletedProcess[str], report: dict) -> None:
    lines = text.stdout.splitlines()
    # An exact copy, and one that has the outcome but returns what the canonical's embed() returns, are alike.
    assert f"same behaves like canonical on {SCENARIOS}/{SCENARIOS}" in lines
    assert f"ahead behaves like canonical on {SCENARIOS}/{SCENARIOS}" in lines
    copies = {copy["name"]: copy for copy in report["copies"]}
    assert report["contract_applies"] is False
    assert copies["canonical"]["reference"] is True
    assert copies["ahead"]["capabilities"]["embed_with_outcome"] is True
    # The older client returns something else where a body has an unknown encoding: a parity difference.
    older = {r["scenario"]: r for r in copies["older"]["results"]}
    assert older["unknown-encoding"]["status"] == "parity"
    assert {p["text"] for p in older["unknown-encoding"]["problems"]} == {"returns 1x8, canonical returns None"}
    assert older["ok"]["status"] == "pass", "the same vectors for the same call"
    assert "older  parity  returns 1x8, canonical returns None  (unknown-encoding)" in lines
    # Its uds transport is something the canonical cannot run: nothing to compare it with.
    assert older["uds-ok"]["status"] == "skip"
    assert older["uds-ok"]["reason"] == "not compared: the canonical client does not run this scenario"


def test_a_scenario_that_needs_the_outcome_is_not_applicable_on_any_copy(report: dict) -> None:
    with_health = [copy for copy in report["copies"] if copy["capabilities"]["health"]]
    assert [copy["name"] for copy in with_health] == ["canonical", "same", "ahead"]
    for copy in with_health:
        results = {r["scenario"]: r for r in copy["results"]}
        # It feeds the health the outcomes of the copy's own calls: no outcome, no scenario.
        assert results["advisory-fault"]["status"] == "skip", copy["name"]
        assert "the outcome contract does not apply" in results["advisory-fault"]["reason"]


def test_strict_fails_on_the_parity_differences(workspace: Path) -> None:
    proc = conform(workspace, "older", "--scenario", "unknown-encoding", "--scenario", "ok", "--strict")
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-2].startswith("next: plait conform older --verbose")


def test_markdown_says_so_and_holds_every_copy(workspace: Path) -> None:
    proc = conform(workspace, "--format", "markdown")
    assert proc.returncode == 0
    assert "> the outcome contract does not apply: canonical has no embed_with_outcome" in proc.stdout
    (table,) = tables(proc.stdout)
    assert {row["copy"]: row["verdict"] for row in table} == {
        "canonical": "reference",
        "same": "alike",
        "older": "differs",
        "ahead": "alike",
    }
