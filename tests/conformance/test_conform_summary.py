"""`plait conform` reads at a glance: a verdict per copy, only what needs attention, then what to run.

Run as a user runs it, piped, on the bundled workspace: the canonical
client, two lineages (one of them stale) and three consumers (one vendoring
the leaky upstream).  The scenarios are the ones whose verdicts do not
depend on how loaded the machine is (no deadline is timed), so every count
below is exact.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_tables import tables

from plait.conformance import load_scenarios
from plait.workspace import Workspace

pytestmark = pytest.mark.slow  # conformance runs (worker processes, real servers)

REPO = Path(__file__).resolve().parents[2]
WORKSPACE = REPO / "lineages"
# No deadline is timed in these: their verdicts are the same on a loaded machine.
CALM = ["ok", "refused", "echo-credentials-http", "advisory-*"]
SCENARIOS = len(load_scenarios().named(CALM).scenarios)
COPIES = ["canonical", *Workspace.load(WORKSPACE).lineages, *Workspace.load(WORKSPACE).consumers]


def plait_conform(*args: str) -> subprocess.CompletedProcess[str]:
    """``plait conform`` on the bundled workspace in a real pipe, over the calm scenarios."""
    picked = [arg for name in CALM for arg in ("--scenario", name)]
    return subprocess.run(
        [sys.executable, "-m", "plait", "conform", "--workspace", str(WORKSPACE), *picked, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def default() -> subprocess.CompletedProcess[str]:
    return plait_conform()


def test_one_verdict_line_per_copy_headed_by_parity_with_the_canonical(
    default: subprocess.CompletedProcess[str],
) -> None:
    assert default.returncode == 1, default.stderr
    assert "\x1b" not in default.stdout
    lines = default.stdout.splitlines()
    verdicts = lines[: len(COPIES)]
    assert [line.split(" ", 1)[0] for line in verdicts] == COPIES, "one line per copy, in the manifest's order"
    assert verdicts[0] == f"canonical is the reference: {SCENARIOS}/{SCENARIOS} pass"
    # The vendored copies of the canonical client behave like it everywhere.
    assert f"cpersona behaves like canonical on {SCENARIOS}/{SCENARIOS}" in verdicts
    assert f"mnemo behaves like canonical on {SCENARIOS}/{SCENARIOS}" in verdicts
    # The upstream leaks a secret in one scenario, and the scheduler vendors it.
    assert f"upstream behaves like canonical on {SCENARIOS - 1}/{SCENARIOS}: 1 fail (contract)" in verdicts
    assert f"scheduler behaves like canonical on {SCENARIOS - 1}/{SCENARIOS}: 1 fail (contract)" in verdicts
    # The sibling predates embed_with_outcome, and has no health module for the advisories.
    advisories = SCENARIOS - 3
    assert (
        f"sibling behaves like canonical on 0/{SCENARIOS}: stale: no embed_with_outcome, 3 fail (contract),"
        f" {advisories} not applicable" in verdicts
    )


def test_then_only_what_needs_attention_each_problem_once_with_its_scenarios(
    default: subprocess.CompletedProcess[str],
) -> None:
    lines = default.stdout.splitlines()[len(COPIES) :]
    assert "sibling  contract  no embed_with_outcome: a stale copy (plait sync or plait vendor brings it)" in "\n".join(
        lines
    )
    stale = [line for line in lines if line.startswith("sibling  ")]
    assert stale == [
        "sibling  contract  no embed_with_outcome: a stale copy (plait sync or plait vendor brings it)"
        "  (ok, refused, echo-credentials-http)"
    ], "the stale copy's one problem is said once, not once per scenario"
    assert "upstream  contract  a secret leaked into the error (percent-encoded)  (echo-credentials-http)" in lines
    assert not [line for line in lines if line.startswith(("canonical  ", "cpersona  ", "mnemo  "))]
    assert not [line for line in lines if "  pass" in line], "no line for a scenario that passed"
    assert len(default.stdout.splitlines()) <= len(COPIES) + 8


def test_it_ends_with_the_totals_the_next_commands_and_the_workspace(default: subprocess.CompletedProcess[str]) -> None:
    *_, summary, step, workspace = default.stdout.splitlines()
    assert re.fullmatch(rf"3 of 6 copies conform to {SCENARIOS} scenarios in \d+\.\d\d s", summary), summary
    assert step == (
        "next: plait sync sibling (brings embed_with_outcome); plait conform upstream scheduler --verbose"
        " shows each scenario"
    )
    assert workspace == f"workspace: {WORKSPACE / 'lineages.toml'}"


def test_no_next_when_everything_conforms() -> None:
    proc = plait_conform("cpersona")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == [
        f"canonical is the reference: {SCENARIOS}/{SCENARIOS} pass",
        f"cpersona behaves like canonical on {SCENARIOS}/{SCENARIOS}",
    ]
    assert not [line for line in proc.stdout.splitlines() if line.startswith("next:")]


def test_verbose_gives_every_scenario_and_where_each_copy_came_from() -> None:
    proc = plait_conform("cpersona", "sibling", "--verbose")
    lines = proc.stdout.splitlines()
    assert "cpersona  refused  pass" in lines
    assert (
        "sibling  refused  contract  no embed_with_outcome: a stale copy (plait sync or plait vendor brings it)"
        in lines
    )
    assert any(
        line.startswith("sibling  advisory-fault  skip  not applicable: it carries no health module") for line in lines
    )
    detail = next(line for line in lines if line.startswith("cpersona: conforms ("))
    assert "[cpersona._vendored_mcp_common.embedding_client from " in detail
    assert f"cpersona behaves like canonical on {SCENARIOS}/{SCENARIOS}" in lines, "the verdicts still close it"


def test_quiet_prints_only_the_problems_and_what_to_run() -> None:
    proc = plait_conform("--quiet")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert all("  contract  " in line for line in lines[:-1]), lines
    assert lines[-1].startswith("next: plait sync sibling")
    assert plait_conform("cpersona", "-q").stdout == "", "nothing needs attention: nothing is printed"


def test_a_terminal_gets_the_verdicts_in_colour_and_the_matrix_with_verbose() -> None:
    proc = plait_conform("--color", "always")
    assert "\x1b[" in proc.stdout
    assert "behaves like canonical on" in proc.stdout and "conformance" not in proc.stdout
    matrix = plait_conform("--color", "always", "--verbose")
    assert "conformance" in matrix.stdout and "FAILS" in matrix.stdout


def test_markdown_has_a_row_per_copy_with_its_verdict_read_back_by_a_markdown_parser() -> None:
    proc = plait_conform("--format", "markdown")
    assert proc.returncode == 1
    heading = proc.stdout.splitlines()[0]
    assert heading.startswith(f"## plait conform: 3 of 6 copies conform to {SCENARIOS} scenarios in ")
    (table,) = tables(proc.stdout)
    rows = {row["copy"]: row for row in table}
    assert list(rows) == COPIES
    verdicts = {name: row["verdict"] for name, row in rows.items()}
    assert verdicts == {
        "canonical": "reference",
        "upstream": "fails",
        "sibling": "fails: stale",
        "cpersona": "conforms",
        "scheduler": "fails",
        "mnemo": "conforms",
    }
    assert rows["cpersona"]["like canonical"] == f"{SCENARIOS}/{SCENARIOS}"
    assert rows["canonical"]["like canonical"] == "—"
    assert (rows["upstream"]["contract"], rows["upstream"]["environment"]) == ("2", "0")
    assert rows["sibling"]["skipped"] == str(SCENARIOS - 3)
    assert "### Needs attention" in proc.stdout
    assert "**next:** plait sync sibling (brings embed_with_outcome);" in proc.stdout
    assert "### Every scenario" not in proc.stdout, "the matrix is the --verbose detail"
    matrix = tables(plait_conform("--format", "markdown", "--verbose").stdout)[1]
    assert [row["scenario"] for row in matrix] == [s.name for s in load_scenarios().named(CALM).scenarios]
    assert {row["sibling"] for row in matrix} == {"❌", "➖"}


def test_json_adds_the_new_facts_and_keeps_every_old_key() -> None:
    proc = plait_conform("--json")
    assert proc.returncode == 1
    # A CI log shows stderr: it says which copies failed, though stdout is JSON.
    failing = "plait conform: failing: upstream, sibling, scheduler (3 of 6 copies conform to "
    assert [line for line in proc.stderr.splitlines() if line.startswith(failing)]
    data = json.loads(proc.stdout)
    assert data["schema"] == 2 and data["contract_applies"] is True
    assert set(data["problems"]) == {"contract", "safety", "parity", "environment"}
    copies = {copy["name"]: copy for copy in data["copies"]}
    assert copies["canonical"]["reference"] is True and copies["canonical"]["like_canonical"] is None
    assert copies["cpersona"]["like_canonical"]["alike"] == SCENARIOS
    assert copies["sibling"]["like_canonical"] == {
        "scenarios": SCENARIOS,
        "alike": 0,
        "fails": 3,
        "differs": 0,
        "unchecked": 0,
        "not_applicable": SCENARIOS - 3,
        "canonical_skips": 0,
        "canonical_fails": 0,
    }
    for copy in copies.values():
        assert set(copy["counts"]) == {"pass", "fail", "parity", "skip"}
        assert copy["missing"] == [] and copy["problems"]["environment"] == 0
