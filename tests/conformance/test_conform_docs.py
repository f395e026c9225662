"""The conform output README.md and VENDORING.md show is the output plait prints.

Each example is read from the document and compared, line by line, with
what the report prints for a real run (`report.summary`, the lines the
command prints): the README's on a copy in the real upstream's shape where
numpy is not installed, VENDORING.md's on the bundled workspace.  Only what
differs from machine to machine is masked: how many seconds the run took,
the interpreter's path in the ``pip install`` hint, and where the repository
is, and a verdict the load made that its rerun alone took back (an idle
machine has none).

The deadline scenarios time real calls.  On a machine so starved of CPU
that a call the examples show on time missed its ceiling, the two cannot be
compared, and the test says so and skips rather than fail on the machine's
account.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from upstream_shaped import VIOLATIONS, hide_numpy, shaped_copy

from plait.conformance import ConformReport, conform, installed_canonical, load_scenarios, path_target
from plait.conformance.report import summary

pytestmark = pytest.mark.slow  # conformance runs (worker processes, real servers)

REPO = Path(__file__).resolve().parents[2]
_SECONDS = re.compile(r" in \d+\.\d\d s\b")


def _example(document: str, after: str) -> list[str]:
    """The lines of the first fenced block of *document* after the text *after*."""
    text = (REPO / document).read_text(encoding="utf-8")
    return text[text.index(after) :].split("```\n", 2)[1].splitlines()


def _masked(lines: list[str]) -> list[str]:
    # A verdict the machine's load made, which its rerun alone then took back
    # (it passes, or only differs), is said only where the machine was loaded:
    # the examples show an idle run, where only a copy's own misses are rerun.
    return [
        _SECONDS.sub(" in N s", line).replace(f"{sys.executable} -m pip", "python3 -m pip").replace(f"{REPO}/", "")
        for line in lines
        if "  rerun  " not in line or ": fails again: " in line
    ]


def _unless_starved(report: ConformReport, late: dict[str, frozenset[str]]) -> None:
    """Skip when a run shows signs of a starved machine (*late*: copy → the scenarios the example shows it late in).

    The signs: the canonical client, which conforms by construction, with any
    problem at all; a call past its ceiling where the example shows it on
    time; a call given up on where the example shows it merely late.
    """
    for copy in report.copies:
        for scenario, problem in copy.problems():
            expected = scenario in late.get(copy.target.name, frozenset())
            timing = problem.field.endswith("elapsed") and (not expected or problem.text.startswith("still running"))
            if copy.reference or timing:
                pytest.skip(f"the machine is starved of CPU ({copy.target.name}: {scenario}: {problem})")


def test_the_readme_example_is_what_conform_prints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hide_numpy(tmp_path / "no-numpy", monkeypatch)  # as the example says: where numpy is not installed
    shaped_copy(tmp_path / "vendor")
    monkeypatch.chdir(tmp_path)
    report = conform([installed_canonical(), path_target("vendor/mcp_common")], load_scenarios())
    _unless_starved(report, {"vendor/mcp_common": VIOLATIONS["past-the-deadline"].scenarios})
    printed = [text for text, _style in summary(report)]
    shown = _example("README.md", "`plait conform --path vendor/mcp_common` on a copy in the real upstream's")
    assert _masked(shown) == _masked(printed)


def test_the_vendoring_example_is_what_conform_prints_on_the_bundled_workspace(bundled: ConformReport) -> None:
    _unless_starved(bundled, {})
    # What the command prints after the report: the manifest it is about.
    printed = [text for text, _style in summary(bundled)] + [f"workspace: {REPO / 'lineages' / 'lineages.toml'}"]
    shown = _example("VENDORING.md", "By default the report is one line per copy")
    assert _masked(shown) == _masked(printed)
