"""Fixtures for the conformance tests.

broken_matrix   the canonical client and every copy of `breaks.BREAKS`, run
                over the scenarios that expose the breaks, once per session,
                as `plait conform` runs them (a process per copy, real
                loopback servers).
bundled         the full matrix on the bundled workspace, as the repository
                has it, once per session.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from breaks import BREAKS, broken_copy

from plait.conformance import (
    ConformReport,
    conform,
    installed_canonical,
    load_scenarios,
    path_target,
    workspace_targets,
)
from plait.workspace import Workspace

WORKSPACE = Path(__file__).resolve().parents[2] / "lineages"


@pytest.fixture(scope="session")
def broken_matrix(tmp_path_factory: pytest.TempPathFactory) -> ConformReport:
    root = tmp_path_factory.mktemp("broken")
    scenarios = load_scenarios().named(sorted({b.scenario for b in BREAKS.values()} | {"status-500"}))
    # A copy without a deadline drips for 3 s: give up on it sooner (still past the 2 s ceiling).
    scenarios = dataclasses.replace(scenarios, settings=dataclasses.replace(scenarios.settings, guard=2.5))
    targets = [installed_canonical()]
    targets += [path_target(broken_copy(root / name, name), name=name) for name in BREAKS]
    return conform(targets, scenarios)


@pytest.fixture(scope="session")
def bundled() -> ConformReport:
    return conform(workspace_targets(Workspace.load(WORKSPACE)), load_scenarios())
